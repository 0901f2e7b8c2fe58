"""One character's clock (`rules.clock.run`): the service's order, per-round checks, skips and firing limit
(docs/clock.md)."""

from __future__ import annotations

from typing import Any

from rules import clock
from rules.cyberpunk2020 import RULESET as CYBERPUNK2020
from rules.dice import Dice
from rules.ruleset import Event, Ruleset, State, Timer, copy_state
from tests.rules.cyberpunk2020.helpers import act, character, strict_dice


def _timers(state: State) -> list[Timer]:
    return [Timer(**timer) for timer in state["timers"]]


def _fire(state: State, timer: Timer, dice: Dice) -> list[Event]:
    """A toy timer does what its data says: `then` replaces the character's timers; `quiet` appends nothing."""
    if timer.data.get("quiet"):
        return []
    return [Event("Rang", {"key": timer.key, "then": timer.data.get("then")}, timer.due)]


def _evolve_into(state: State, event: Event) -> None:
    state["rang"].append([event.data["key"], event.game_time])
    if event.data["then"] is not None:
        state["timers"] = copy_state(event.data["then"])
    else:
        state["timers"] = [timer for timer in state["timers"] if timer["key"] != event.data["key"]]


def _evolve(state: State, event: Event) -> State:
    new = copy_state(state)
    _evolve_into(new, event)
    return new


def _unused(*args: Any) -> Any:
    raise AssertionError("the clock needs only timers, fire and evolve")


# Alarms whose timers are written in the state: each test sets exactly the timers, ties and firings it needs.
ALARMS = Ruleset(
    slug="alarms",
    title="Alarms",
    actions=(),
    default_start="2000-01-01T00:00:00",
    validate_options=_unused,
    validate_attributes=_unused,
    initial_state=_unused,
    decide=_unused,
    evolve=_evolve,
    evolve_into=_evolve_into,
    timers=_timers,
    fire=_fire,
    view=_unused,
    status=_unused,
    public_event=_unused,
)


def alarms(*timers: dict[str, Any]) -> State:
    return {"timers": list(timers), "rang": []}


def alarm(due: int, key: str, priority: int = 50, **data: Any) -> dict[str, Any]:
    return {"due": due, "kind": "alarm", "key": key, "priority": priority, "data": data}


def test_timers_fire_earliest_first_then_by_priority_then_by_key() -> None:
    state = alarms(alarm(20, "b", 30), alarm(20, "a", 30), alarm(20, "death", 90), alarm(10, "late", 99))
    ran = clock.run(ALARMS, state, 0, 100)
    assert [(firing.timer.key, firing.at) for firing in ran.fired] == [
        ("late", 10),
        ("a", 20),
        ("b", 20),
        ("death", 20),
    ]
    assert ran.state["rang"] == [["late", 10], ["a", 20], ["b", 20], ["death", 20]]
    assert ran.reached == 100


def test_a_firing_that_cancels_or_moves_a_timer_is_followed() -> None:
    # The treatment completes first (priority 10) and replaces the death with healing an hour later.
    treated = [alarm(3660, "heal", 40)]
    state = alarms(alarm(60, "death", 90), alarm(60, "treatment", 10, then=treated))
    ran = clock.run(ALARMS, state, 0, 7200)
    assert [(firing.timer.key, firing.at) for firing in ran.fired] == [("treatment", 60), ("heal", 3660)]
    assert ran.fired[0].state["timers"] == treated


def test_a_timer_that_fires_nothing_waits_for_the_next_advance() -> None:
    state = alarms(alarm(10, "quiet", quiet=True), alarm(20, "loud"))
    ran = clock.run(ALARMS, state, 0, 100)
    assert [(firing.timer.key, firing.at, firing.events) for firing in ran.fired] == [
        ("quiet", 10, []),
        ("loud", 20, [Event("Rang", {"key": "loud", "then": None}, 20)]),
    ]
    assert _timers(ran.state) == [Timer(10, "alarm", "quiet", data={"quiet": True})]


def test_timers_due_after_the_end_are_left_for_later() -> None:
    ran = clock.run(ALARMS, alarms(alarm(101, "later")), 0, 100)
    assert (ran.fired, ran.reached) == ([], 100)


def test_the_firing_limit_ends_the_run_after_the_game_second_it_has_reached() -> None:
    state = alarms(
        alarm(10, "a", then=[alarm(20, "b"), alarm(20, "c"), alarm(30, "d")]),
    )
    ran = clock.run(ALARMS, state, 0, 100, limit=2)
    # The limit is reached at second 20, whose every timer still fires; "d" at 30 waits.
    assert [(firing.timer.key, firing.at) for firing in ran.fired] == [("a", 10), ("b", 20), ("c", 20)]
    assert ran.reached == 20
    assert _timers(ran.state) == [Timer(30, "alarm", "d")]


def test_combat_round_checks_fire_at_their_own_second_among_everything_else() -> None:
    state = alarms(
        {**alarm(3, "stun_save", 55), "per_round": True},
        {**alarm(30, "death_save", 60), "per_round": True},
        alarm(3000, "heal", 40),
    )
    ran = clock.run(ALARMS, state, 0, 3600)
    assert [(firing.timer.key, firing.at) for firing in ran.fired] == [
        ("stun_save", 3),
        ("death_save", 30),
        ("heal", 3000),
    ]


def crippled_arm() -> State:
    """24 points to the left arm crippled it: a death save every turn, the first due at 30."""
    state, _ = act(
        character(),
        {"type": "damage", "damage": 24, "location": "left_arm"},
        {"stun_save": [1], "death_save": [1], "sever": [10]},
    )
    return state


def test_a_long_advance_rolls_a_death_save_every_turn_until_one_fails() -> None:
    state = crippled_arm()
    assert [(t.kind, t.due, t.per_round) for t in CYBERPUNK2020.timers(state)] == [("death_save", 30, True)]
    rolls = iter([1, 1, 10])  # the third turn's save fails: dying, dead at the end of that turn
    ran = clock.run(CYBERPUNK2020, state, 0, 3600, lambda: strict_dice({"death_save": [next(rolls, 1)]}))
    assert [(event.type, event.game_time) for firing in ran.fired for event in firing.events] == [
        ("DeathSaveRolled", 30),
        ("DeathSaveRolled", 60),
        ("DeathSaveRolled", 90),
        ("DeathOccurred", 120),
    ]
    assert ran.state["alive"] is False


def test_an_advance_of_a_turn_or_less_rolls_every_turn() -> None:
    state = crippled_arm()
    ran = clock.run(CYBERPUNK2020, state, 0, 30, lambda: strict_dice({"death_save": [1]}))
    ran = clock.run(CYBERPUNK2020, ran.state, 30, 60, lambda: strict_dice({"death_save": [1]}))
    assert [(firing.timer.kind, firing.at) for firing in ran.fired] == [("death_save", 60)]


def test_a_combat_round_check_due_before_the_advance_fires_at_its_start() -> None:
    state = crippled_arm()
    ran = clock.run(CYBERPUNK2020, state, 45, 60, lambda: strict_dice({"death_save": [1]}))
    assert [(firing.timer.kind, firing.at) for firing in ran.fired] == [("death_save", 45)]


def test_stepping_a_round_at_a_time_over_a_long_span_rolls_every_turn() -> None:
    state = crippled_arm()
    ran = clock.run(CYBERPUNK2020, state, 0, 120, lambda: strict_dice({"death_save": [1]}))
    assert [(firing.timer.kind, firing.at) for firing in ran.fired] == [
        ("death_save", 30),
        ("death_save", 60),
        ("death_save", 90),
        ("death_save", 120),
    ]
