"""The firing order of one advance (rules/clock.py `DueTimers`), against docs/clock.md."""

from __future__ import annotations

from rules.clock import Due, DueTimers
from rules.ruleset import Timer


def drain(queue: DueTimers) -> list[tuple[int, str, int]]:
    fired = []
    while (due := queue.pop()) is not None:
        fired.append((due.character_id, due.timer.key, due.fire_at))
    return fired


def test_earliest_first_then_character_then_priority_then_key() -> None:
    queue = DueTimers(0, 1000, skip=set())
    queue.set_timers(
        2, [Timer(100, "death", "death", 90), Timer(100, "heal", "b", 30), Timer(100, "heal", "a", 30)]
    )
    queue.set_timers(1, [Timer(100, "death", "death", 90), Timer(50, "heal", "heal", 40)])
    assert drain(queue) == [
        (1, "heal", 50),
        (1, "death", 100),
        (2, "a", 100),
        (2, "b", 100),
        (2, "death", 100),
    ]


def test_timers_due_after_the_advance_are_left_for_later() -> None:
    queue = DueTimers(0, 1000, skip=set())
    queue.set_timers(1, [Timer(1001, "heal", "heal")])
    assert queue.pop() is None


def test_a_firing_that_cancels_or_moves_a_timer_is_followed() -> None:
    queue = DueTimers(0, 1000, skip=set())
    queue.set_timers(1, [Timer(60, "treatment_complete", "treatment", 10), Timer(120, "death", "death", 90)])
    assert queue.pop() == Due(1, Timer(60, "treatment_complete", "treatment", 10), 60)
    # The treatment saved the patient: the death is gone and healing is due later.
    queue.set_timers(1, [Timer(600, "heal", "heal", 40)])
    assert drain(queue) == [(1, "heal", 600)]


def test_an_unchanged_timer_is_not_queued_twice() -> None:
    queue = DueTimers(0, 1000, skip=set())
    heal = Timer(500, "heal", "heal", 40)
    queue.set_timers(1, [Timer(100, "stun_heal", "stun", 30), heal])
    assert queue.pop() == Due(1, Timer(100, "stun_heal", "stun", 30), 100)
    queue.set_timers(1, [heal])
    assert drain(queue) == [(1, "heal", 500)]


def test_skipped_timers_wait_for_the_next_advance() -> None:
    queue = DueTimers(0, 1000, skip={(1, "stun_save")})
    queue.set_timers(1, [Timer(3, "stun_save", "stun_save", 55, per_round=True), Timer(9, "heal", "heal")])
    assert drain(queue) == [(1, "heal", 9)]


def test_a_round_check_due_before_the_advance_fires_at_its_start() -> None:
    queue = DueTimers(30, 60, skip=set())
    queue.set_timers(1, [Timer(27, "stun_save", "stun_save", 55, per_round=True)])
    assert drain(queue) == [(1, "stun_save", 30)]


def test_round_checks_fire_at_their_own_second_however_long_the_advance() -> None:
    queue = DueTimers(0, 86_400, skip=set())
    queue.set_timers(2, [Timer(3, "stun_save", "stun_save", 55, per_round=True)])
    queue.set_timers(
        1, [Timer(30, "death_save", "death_save", 60, per_round=True), Timer(3600, "heal", "heal")]
    )
    assert drain(queue) == [(2, "stun_save", 3), (1, "death_save", 30), (1, "heal", 3600)]


def test_any_timer_the_state_has_in_the_past_fires_at_the_advance_start() -> None:
    # An undo rebuilt a death the clock had already passed: it is due now, not at its old second.
    queue = DueTimers(600, 601, skip=set())
    queue.set_timers(1, [Timer(90, "death", "death", 90), Timer(300, "heal", "heal", 40)])
    assert drain(queue) == [(1, "heal", 600), (1, "death", 600)]


def test_a_timer_whose_data_changed_at_the_same_second_fires_once_with_the_new_data() -> None:
    queue = DueTimers(0, 1000, skip=set())
    queue.set_timers(
        1, [Timer(10, "stun_heal", "stun", 30), Timer(500, "minor", "minor:1", 35, data={"id": 1})]
    )
    queue.pop()
    queue.set_timers(1, [Timer(500, "minor", "minor:1", 35, data={"id": 2})])
    assert [(due.timer.key, due.timer.data) for due in iter(queue.pop, None)] == [("minor:1", {"id": 2})]


def test_timers_are_equal_only_when_every_field_is() -> None:
    # The queue keeps an unchanged timer where it is and queues a changed one (`set_timers`): equality must see
    # every field, the data and the round flag included.
    timer = Timer(60, "death_save", "death_save", 50, {"round": 1}, per_round=True)
    assert timer == Timer(60, "death_save", "death_save", 50, {"round": 1}, per_round=True)
    for other in (
        Timer(61, "death_save", "death_save", 50, {"round": 1}, per_round=True),
        Timer(60, "stun_save", "death_save", 50, {"round": 1}, per_round=True),
        Timer(60, "death_save", "stun_save", 50, {"round": 1}, per_round=True),
        Timer(60, "death_save", "death_save", 40, {"round": 1}, per_round=True),
        Timer(60, "death_save", "death_save", 50, {"round": 2}, per_round=True),
        Timer(60, "death_save", "death_save", 50, {"round": 1}, per_round=False),
    ):
        assert timer != other
    assert timer != (60, "death_save", "death_save", 50, {"round": 1}, True)
