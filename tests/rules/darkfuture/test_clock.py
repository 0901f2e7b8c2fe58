"""Timers and fire: stun ends at the next clock advance, CON comes back over days of rest."""

from rules.darkfuture import RULESET
from rules.darkfuture.engine import CON_RECOVERED, STUN_ENDED
from rules.ruleset import Timer

from .helpers import DAY, advance, character, entered, hit


def stunned_at(now):
    """8 CON, 2 lost at `now`: 51-75 and stunned."""
    state, _ = hit(character(con=8, skills={"driver": 3}), {"damage": [4], "stun": [5]}, now=now)
    return state


def test_a_fresh_character_has_no_timers():
    assert RULESET.timers(character()) == []


def test_a_stun_ends_one_second_later_at_the_next_clock_advance():
    state = stunned_at(100)
    stun = [timer for timer in RULESET.timers(state) if timer.kind == "stun_ends"]
    assert stun == [Timer(101, "stun_ends", "stun", 20, {"at_next_advance": True})]
    events = RULESET.fire(state, stun[0], entered())
    assert [(event.type, event.data, event.game_time) for event in events] == [(STUN_ENDED, {}, 101)]
    state = RULESET.evolve(state, events[0])
    assert state["stunned"] is False
    assert [timer.kind for timer in RULESET.timers(state)] == ["con_recovery"]


def test_con_comes_back_one_point_per_7_days_of_rest_from_the_latest_wound():
    state = stunned_at(100)
    recovery = [timer for timer in RULESET.timers(state) if timer.kind == "con_recovery"]
    assert recovery == [Timer(100 + 7 * DAY, "con_recovery", "con_recovery", 50, {"con": 6})]
    [event] = RULESET.fire(state, recovery[0], entered())
    assert event.type == CON_RECOVERED
    assert event.game_time == 100 + 7 * DAY
    assert event.data == {
        "con_before": 6,
        "band_before": "51-75",
        "con_after": 7,
        "band_after": "76+",
        "skills_after": {"driver": 3},
        "move_after": 0,
        "safety_limit_mph_after": None,
        "rest_days": 7,
        "zero_con_ko_ended": False,
    }
    state = RULESET.evolve(state, event)
    assert state["skills"]["driver"]["current"] == 3
    assert RULESET.timers(state) == [
        Timer(101, "stun_ends", "stun", 20, {"at_next_advance": True}),
        Timer(100 + 14 * DAY, "con_recovery", "con_recovery", 50, {"con": 7}),
    ]


def test_con_stops_coming_back_at_its_initial_value():
    state, fired = advance(stunned_at(0), 365 * DAY)
    assert [event.type for event in fired] == [STUN_ENDED, CON_RECOVERED, CON_RECOVERED]
    assert [event.game_time for event in fired] == [1, 7 * DAY, 14 * DAY]
    assert state["con"] == {"initial": 8, "current": 8}
    assert RULESET.timers(state) == []


def test_a_new_wound_restarts_the_rest():
    state = stunned_at(0)
    state, _ = advance(state, 5 * DAY)
    state, _ = hit(state, {"damage": [2], "stun": [1]}, now=5 * DAY)  # 1 lost: 5 of 8, 51-75, stun roll
    recovery = [timer for timer in RULESET.timers(state) if timer.kind == "con_recovery"]
    assert recovery[0].due == 12 * DAY


def test_the_option_sets_the_days_per_con_point():
    state = character(con=8, options={"con_recovery_days": 2})
    state, _ = hit(state, {"damage": [2]}, now=0)
    assert RULESET.timers(state) == [Timer(2 * DAY, "con_recovery", "con_recovery", 50, {"con": 7})]


def test_rising_above_0_con_ends_the_automatic_ko_and_gives_the_driver_back():
    state = character(con=2, driver=True, pedestrian=False)
    state, _ = hit(state, {"damage": [4]})  # 0 CON
    assert RULESET.view(state, "gm")["sheet"]["vehicle_driverless"] is True
    state, [event] = advance(state, 7 * DAY)
    assert event.data["zero_con_ko_ended"] is True
    assert (event.data["con_after"], event.data["band_after"]) == (1, "26-50")
    view = RULESET.view(state, "gm")
    assert view["conscious"] is True
    assert view["sheet"]["vehicle_driverless"] is False
    assert view["sheet"]["safety_limit_mph"] == 20


def test_a_ko_from_a_roll_outlasts_con_recovery():
    state, _ = hit(character(con=8), {"damage": [6], "ko": [6]}, weapon_damage=4)
    state, _ = advance(state, 365 * DAY)
    assert state["con"]["current"] == 8
    assert state["knocked_out_by_roll"] is True


def test_the_dead_have_no_timers_and_fire_does_nothing():
    state = stunned_at(0)
    state, _ = hit(state, {"damage": [6]}, weapon_damage=10)
    assert state["alive"] is False
    assert RULESET.timers(state) == []
    assert RULESET.fire(state, Timer(7 * DAY, "con_recovery", "con_recovery", 50), entered()) == []


def test_a_stale_timer_fires_nothing():
    state = character()
    assert RULESET.fire(state, Timer(1, "stun_ends", "stun", 20), entered()) == []
    assert RULESET.fire(state, Timer(1, "con_recovery", "con_recovery", 50), entered()) == []


def test_a_year_for_a_large_character_needs_one_firing_per_point_at_most():
    state, _ = hit(character(con=100), {"damage": [6]}, weapon_damage=20)  # 26: 12 lost
    state, fired = advance(state, 365 * DAY)
    assert len(fired) == 12
    assert state["con"]["current"] == 100


def test_the_stun_timer_comes_before_con_recovery_at_the_same_second():
    state = {**stunned_at(0), "stunned_at": 7 * DAY - 1}
    due = sorted(RULESET.timers(state), key=lambda timer: (timer.due, timer.priority))
    assert [timer.kind for timer in due] == ["stun_ends", "con_recovery"]
