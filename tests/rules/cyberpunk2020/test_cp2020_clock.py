import pytest

from rules.cyberpunk2020 import RULESET, engine
from rules.cyberpunk2020 import view as cp_view

from .helpers import act, advance, character, types

DAY = 86400
YEAR = 365 * DAY


def timer_keys(state):
    return {timer.key: (timer.due, timer.priority, timer.per_round) for timer in engine.timers(state)}


def test_a_dying_character_dies_at_the_end_of_the_turn():
    state = character(body=3, btm=0)
    state, _ = act(
        state,
        {"type": "damage", "damage": 14, "location": "torso"},
        {"stun_save": [1], "death_save": [9]},
        now=7,
    )
    assert timer_keys(state) == {"death": (37, 90, False)}
    after, events = advance(state, 37)
    assert types(events) == ["DeathOccurred"]
    assert events[0].data == {"cause": "bled out"}
    assert events[0].game_time == 37
    assert after["alive"] is False
    assert engine.timers(after) == []


def test_a_stabilized_character_does_not_die_and_wakes_with_a_death_save():
    state = character(body=3, btm=0)
    state, _ = act(
        state, {"type": "damage", "damage": 14, "location": "torso"}, {"stun_save": [1], "death_save": [9]}
    )
    state, _ = act(
        state, {"type": "stabilize", "target": "dying", "skill": "medical_tech", "total": 14}, now=20
    )
    assert timer_keys(state) == {"death_save": (50, 60, True)}
    state, events = advance(state, 80, [{"death_save": [4]}, {"death_save": [3]}])
    assert [event.data["outcome"] for event in events] == ["stayed_unconscious", "woke"]
    assert [event.game_time for event in events] == [50, 80]
    assert state["conscious"] is True
    assert state["alive"] is True


def test_a_crippled_limb_not_stabilized_rolls_a_death_save_every_turn():
    state = character(body=6, luck=10)
    state, _ = act(
        state,
        {"type": "damage", "damage": 20, "location": "left_leg"},
        {"sever": [5], "stun_save": [1], "death_save": [1]},
    )
    assert timer_keys(state) == {"death_save": (30, 60, True)}
    state, events = advance(state, 60, [{"death_save": [6]}, {"death_save": [7]}])
    assert [(event.game_time, event.data["outcome"]) for event in events] == [(30, "survived"), (60, "dying")]
    assert (state["dying"], state["death_at"]) == (True, 90)
    assert timer_keys(state) == {"death": (90, 90, False)}


def test_a_stabilized_limb_needs_no_more_death_saves():
    state = character(body=6, luck=10)
    state, _ = act(
        state,
        {"type": "damage", "damage": 20, "location": "left_leg"},
        {"sever": [5], "stun_save": [1], "death_save": [1]},
    )
    state, _ = act(
        state, {"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", "total": 15}, now=10
    )
    assert engine.timers(state) == []


def test_a_limb_death_save_that_cannot_fail_is_not_scheduled():
    state = character(body=10, luck=10)
    state, _ = act(
        state,
        {"type": "damage", "damage": 30, "location": "left_arm"},
        {"sever": [5], "stun_save": [1], "death_save": [1]},
    )
    assert engine.death_save_target(state) == 10
    assert engine.timers(state) == []
    assert (
        "Death save target 10: the every-turn death saves cannot fail."
        in cp_view.view(state, "gm")["warnings"]
    )


def test_a_limb_death_save_that_cannot_succeed_fires_once_and_the_character_starts_dying():
    state = character(body=2, btm=0, luck=10)
    state, _ = act(
        state,
        {"type": "damage", "damage": 20, "location": "left_arm"},
        {"sever": [5], "stun_save": [1], "death_save": [1]},
    )
    # Knocked out by stun damage (not dying), the arm still unstabilized, the death save now hopeless.
    state, events = act(
        state,
        {"type": "damage", "damage": 20, "kind": "stun", "location": "torso"},
        {"stun_save": [1], "death_save": [1]},
        now=3,
    )
    assert events[-1].data["outcome"] == "unconscious"
    assert engine.death_save_target(state) == -1  # track 28, mortal 3
    assert timer_keys(state)["death_save"] == (33, 60, True)
    state, events = advance(state, 33, [{"death_save": [1]}])
    assert [event.data["outcome"] for event in events] == ["dying"]
    assert state["death_at"] == 63


def test_a_stun_knockout_with_a_hopeless_death_save_sleeps_without_a_timer_until_stun_heals():
    state = character(body=3, btm=0)
    state, _ = act(
        state,
        {"type": "damage", "damage": 28, "kind": "stun", "location": "torso"},
        {"stun_save": [1], "death_save": [9]},
    )
    assert engine.death_save_target(state) == 0  # track 28, mortal 3
    assert [timer.kind for timer in engine.timers(state)] == ["stun_heal"]
    assert (
        "Death save target 0: cannot wake until healing raises it." in cp_view.view(state, "gm")["warnings"]
    )
    # One hour later stun heals to 27 (mortal 3 still); at 2 h, 26; ... at 4 h, 24 (mortal 2): target 1.
    state, events = advance(state, 4 * 3600 - 1)
    assert types(events) == ["StunDamageHealed"] * 3
    assert "death_save" not in timer_keys(state)
    state, events = advance(state, 4 * 3600, [{"death_save": [1]}])
    assert types(events) == ["StunDamageHealed", "DeathSaveRolled"]
    assert (events[1].game_time, events[1].data["target"], events[1].data["outcome"]) == (4 * 3600, 1, "woke")


def test_a_stunned_character_rolls_a_stun_save_each_round_until_one_succeeds():
    state = character(body=6, btm=0)
    state, _ = act(state, {"type": "damage", "damage": 4, "location": "torso"}, {"stun_save": [9]}, now=100)
    assert timer_keys(state)["stun_save"] == (103, 55, True)
    state, events = advance(state, 109, [{"stun_save": [8]}, {"stun_save": [6]}])
    assert [
        (event.game_time, event.data["success"]) for event in events if event.type == "StunSaveRolled"
    ] == [
        (103, False),
        (106, True),
    ]
    assert state["stunned"] is False
    assert "stun_save" not in timer_keys(state)


def test_a_stun_save_that_cannot_succeed_is_not_scheduled():
    state = engine.initial_state(
        engine.validate_attributes({"body": 2, "btm": 0, "stun_save_bonus": -2}),
        engine.validate_options(None),
    )
    state, _ = act(state, {"type": "damage", "damage": 2, "location": "torso"}, {"stun_save": [1]})
    assert state["stunned"] is True
    assert engine.stun_save_target(state) == 0
    assert "stun_save" not in timer_keys(state)
    assert (
        "Stun save target 0: cannot recover until healing raises it." in cp_view.view(state, "gm")["warnings"]
    )


def test_stun_damage_heals_one_point_per_hour():
    state = character(body=10, btm=0)
    state, _ = act(
        state,
        {"type": "damage", "damage": 3, "kind": "stun", "location": "torso"},
        {"stun_save": [1]},
        now=50,
    )
    assert timer_keys(state) == {"stun_heal": (3650, 30, False)}
    state, events = advance(state, 3 * 3600 + 49)
    assert [event.game_time for event in events] == [3650, 7250]
    assert state["stun_damage"] == 1
    state, events = advance(state, 3 * 3600 + 50)
    assert state["stun_damage"] == 0
    assert engine.timers(state) == []


def test_a_minor_wound_stops_counting_a_day_after_it_was_taken():
    state = character(body=11)
    state, _ = act(state, {"type": "damage", "damage": 2, "location": "torso"}, {"stun_save": [1]}, now=10)
    assert timer_keys(state) == {"minor:1": (DAY + 10, 35, False)}
    state, events = advance(state, DAY + 10)
    assert types(events) == ["MinorWoundHealed"]
    assert events[0].data == {"id": 1}
    assert (state["damage"], state["minor_wounds"]) == (0, [])


def test_minor_wounds_wait_while_the_character_is_in_mortal_condition():
    state = character(body=11, btm=-5)
    state, _ = act(state, {"type": "damage", "damage": 6, "location": "torso"}, {"stun_save": [1]})
    state, _ = act(
        state,
        {"type": "damage", "damage": 22, "kind": "stun", "location": "torso"},
        {"stun_save": [1], "death_save": [1]},
        now=100,
    )
    assert engine.in_mortal_condition(state)  # 1 + 17 stun = 18
    assert "minor:1" not in timer_keys(state)
    # Stun heals an hour at a time: at 6 h, track 12: out of mortal condition; the minor wound is overdue then.
    state, events = advance(state, DAY + 1)
    healed = [event for event in events if event.type == "MinorWoundHealed"]
    assert [event.game_time for event in healed] == [DAY]
    assert state["left_mortal_at"] == 100 + 6 * 3600


def test_real_damage_heals_at_the_treatment_rate_per_full_day():
    state = character(body=2)
    state, _ = act(state, {"type": "damage", "damage": 3, "location": "torso"}, {"stun_save": [1]})
    state, _ = act(state, {"type": "treat", "skill": "first_aid", "total": 15}, now=1000)
    assert timer_keys(state) == {"heal": (1000 + 2 * DAY, 40, False)}
    state, events = advance(state, 1000 + 4 * DAY)
    assert [(event.game_time, event.data["damage"]) for event in events] == [
        (1000 + 2 * DAY, 2),
        (1000 + 4 * DAY, 1),
    ]
    state, _ = act(state, {"type": "treat", "skill": "medical_tech", "total": 15}, now=1000 + 5 * DAY)
    state, events = advance(state, YEAR)
    assert [event.game_time for event in events] == [1000 + 6 * DAY]
    assert (state["damage"], state["healing_skill"]) == (0, None)


def test_untreated_wounds_do_not_heal():
    state = character(body=2)
    state, _ = act(state, {"type": "damage", "damage": 3, "location": "torso"}, {"stun_save": [1]})
    state, events = advance(state, YEAR)
    assert events == []
    assert state["damage"] == 3


def test_a_year_of_healing_a_badly_hurt_character_takes_a_bounded_number_of_firings():
    state = character(body=10, btm=0)
    state, _ = act(
        state,
        {"type": "damage", "damage": 30, "kind": "blunt", "location": "torso"},
        {"stun_save": [1], "death_save": [1]},
    )
    state, _ = act(state, {"type": "treat", "skill": "first_aid", "total": 15})
    state, events = advance(state, YEAR, limit=100)
    assert (state["damage"], state["stun_damage"]) == (0, 0)
    assert len(events) == 30
    assert engine.timers(state) == []


def test_firing_a_timer_that_no_longer_applies_does_nothing():
    state = character()
    for kind in ("death", "death_save", "stun_save", "stun_heal", "minor_wound", "heal", "unknown"):
        timer = engine.Timer(due=10, kind=kind, key=kind, data={"id": 9})
        assert RULESET.fire(state, timer, None) == []


@pytest.mark.parametrize("kind", ["death", "stun_heal"])
def test_the_dead_have_no_timers_and_fire_nothing(kind):
    state = character(body=2)
    state, _ = act(state, {"type": "damage", "damage": 41, "location": "torso"})
    assert engine.timers(state) == []
    assert RULESET.fire(state, engine.Timer(due=10, kind=kind, key=kind), None) == []
