"""Damage per location (README, "Damage per location"): the track's points by where they were taken, evolved from
the wound events as they are, healed smallest wound first, and the same after any replay."""

import json

from rules.cyberpunk2020 import RULESET, engine, sheet
from rules.cyberpunk2020 import view as cp_view
from rules.event_schema import Limits, check_state
from rules.ruleset import Event, fold

from .helpers import act, advance, character, types

DAY = 86400
NONE = {"head": 0, "torso": 0, "left_arm": 0, "right_arm": 0, "left_leg": 0, "right_leg": 0}


def at(**points: int) -> dict:
    return {**NONE, **points}


def test_a_torso_hit_marks_the_torso_and_the_diagram_colours_chest_and_abdomen():
    state = character(body=6)  # BTM -2
    state, events = act(
        state, {"type": "damage", "damage": 9, "location": "torso"}, {"stun_save": [1]}, now=5
    )
    assert types(events) == ["DamageTaken", "StunSaveRolled"]
    assert state["location_damage"] == at(torso=7)
    assert state["location_stun"] == NONE
    drawn = cp_view.view(state, "player")["sheet"]
    assert drawn["location_damage"] == at(torso=7)
    assert [(m.region, m.severity, m.text, m.where) for m in sheet.body_marks(drawn)] == [
        ("chest", 2, "badly wounded (7 points)", "torso"),
        ("abdomen", 2, "badly wounded (7 points)", "torso"),
    ]


def test_a_rolled_head_hit_and_a_leg_hit_mark_their_locations():
    state = character(body=6)
    # d10 1 on the standard table: the head; 4 - 2 = 2, doubled: 4 on the track.
    state, _ = act(state, {"type": "damage", "damage": 4}, {"location": [1], "stun_save": [1]})
    # d10 8: the left leg; 10 halved to 5, - 2 = 3.
    state, _ = act(state, {"type": "damage", "damage": 10}, {"location": [8], "stun_save": [2]}, now=3)
    assert state["location_damage"] == at(head=4, left_leg=3)
    assert state["damage"] == 7
    marks = {m.region: (m.severity, m.text) for m in sheet.body_marks(cp_view.view(state, "gm")["sheet"])}
    assert marks == {"head": (1, "wounded (4 points)"), "left_leg": (1, "wounded (3 points)")}


def test_a_crippled_leg_holds_its_eight_points_and_a_second_hit_adds_none():
    state = character(body=6, luck=10)
    hit = {"type": "damage", "damage": 20, "location": "left_leg"}
    state, _ = act(state, hit, {"sever": [5], "stun_save": [1], "death_save": [1]})
    state, _ = act(state, hit, {"sever": [5], "stun_save": [1]}, now=3)
    assert state["location_damage"] == at(left_leg=8)
    marks = [(m.severity, m.text) for m in sheet.body_marks(cp_view.view(state, "gm")["sheet"])]
    assert marks == [(3, "crippled"), (2, "badly wounded (8 points)")]


def test_blunt_damage_marks_real_and_stun_points_where_it_hit():
    state = character(body=6)
    # 9 - 2 = 7 on the torso: 3 real, 4 stun (the odd point to stun).
    state, _ = act(
        state, {"type": "damage", "damage": 9, "kind": "blunt", "location": "torso"}, {"stun_save": [1]}
    )
    assert (state["location_damage"]["torso"], state["location_stun"]["torso"]) == (3, 4)
    (mark, _) = sheet.body_marks(cp_view.view(state, "gm")["sheet"])
    assert mark.text == "wounded (3 points, 4 stun points)"


def test_an_explosion_puts_the_main_wound_on_the_torso_and_spreads_the_secondary_one():
    # The seed's example: 24 damage, an SP 14 vest alone: 10 + 12, BTM -2 on each: 8 + 10.
    state = character(body=6, armor={"torso": 14})
    state, events = act(
        state, {"type": "damage", "damage": 24, "kind": "explosion"}, {"stun_save": [1], "death_save": [1]}
    )
    assert events[0].data["wounds"] == [8, 10]
    # 10 over head 4 : limbs 2 each (12): 3, 1, 1, 1, 1 rounded down, the 3 left over to the first three.
    assert state["location_damage"] == {
        "head": 4,
        "torso": 8,
        "left_arm": 2,
        "right_arm": 2,
        "left_leg": 1,
        "right_leg": 1,
    }
    assert engine.explosion_shares(1, ["left_leg", "right_leg"]) == {"left_leg": 1, "right_leg": 0}


def test_treatment_heals_the_smallest_wound_first():
    state = character(body=6)
    state, _ = act(state, {"type": "damage", "damage": 9, "location": "torso"}, {"stun_save": [1]})
    # 10 to the left arm: halved to 5, - 2 = 3.
    state, _ = act(state, {"type": "damage", "damage": 10, "location": "left_arm"}, {"stun_save": [1]})
    state, _ = act(state, {"type": "treat", "skill": "medical_tech", "total": 15}, now=100)
    state, events = advance(state, 100 + 3 * DAY)
    assert types(events) == ["DamageHealed"] * 3
    assert state["location_damage"] == at(torso=7)
    state, events = advance(state, 100 + 10 * DAY)
    assert len(events) == 7
    assert (state["damage"], state["location_damage"]) == (0, NONE)
    assert sheet.body_marks(cp_view.view(state, "player")["sheet"]) == []


def test_stun_heals_an_hour_a_point_from_the_smallest_bruise_first():
    state = character(body=10, btm=0)
    stun = {"type": "damage", "kind": "stun"}
    state, _ = act(state, {**stun, "damage": 4, "location": "torso"}, {"stun_save": [1]})
    state, _ = act(state, {**stun, "damage": 1, "location": "head"}, {"stun_save": [1]})
    assert state["location_stun"] == at(head=2, torso=4)
    state, _ = advance(state, 2 * 3600)
    assert state["location_stun"] == at(torso=4)
    state, _ = advance(state, 3 * 3600)
    assert state["location_stun"] == at(torso=3)


def test_a_minor_wound_stops_counting_where_it_was_taken_while_treatment_heals_the_rest():
    state = character(body=11)  # BTM -5
    # 4 to the left arm: halved to 2, - 5: 1 point, a minor wound. 8 to the torso: 3 points.
    state, _ = act(state, {"type": "damage", "damage": 4, "location": "left_arm"}, {"stun_save": [1]})
    state, _ = act(state, {"type": "damage", "damage": 8, "location": "torso"}, {"stun_save": [1]}, now=10)
    assert state["minor_wounds"] == [{"id": 1, "taken_at": 0, "location": "left_arm"}]
    state, _ = act(state, {"type": "treat", "skill": "medical_tech", "total": 15}, now=20)
    state, events = advance(state, DAY + 20)
    # The minor wound is the smallest, but treatment leaves it to its own day: the torso heals.
    assert types(events) == ["MinorWoundHealed", "DamageHealed"]
    assert state["location_damage"] == at(torso=2)


def test_healing_below_the_minor_wounds_takes_the_oldest_with_its_point():
    state = character(body=11)
    state, _ = act(state, {"type": "damage", "damage": 6, "location": "torso"}, {"stun_save": [1]})
    state, _ = act(state, {"type": "damage", "damage": 4, "location": "right_leg"}, {"stun_save": [1]}, now=5)
    assert [wound["location"] for wound in state["minor_wounds"]] == ["torso", "right_leg"]
    state = engine.evolve(
        state, Event("DamageHealed", {"points": 1, "damage": 1, "healing_skill": "first_aid"}, 9)
    )
    assert state["minor_wounds"] == [{"id": 2, "taken_at": 5, "location": "right_leg"}]
    assert state["location_damage"] == at(right_leg=1)


def _played() -> tuple[dict, list[Event]]:
    """A torso hit, a crippled leg, a blunt head hit, a bandage and a week of the clock, every die entered."""
    state = character(body=6, luck=10)
    initial, events = state, []
    script = [
        ({"type": "damage", "damage": 9, "location": "torso"}, {"stun_save": [1]}, 0),
        (
            {"type": "damage", "damage": 20, "location": "left_leg"},
            {"sever": [5], "stun_save": [1], "death_save": [1]},
            3,
        ),
        (
            {"type": "damage", "damage": 6, "kind": "blunt", "location": "head"},
            {"stun_save": [1], "death_save": [1]},
            6,
        ),
        ({"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", "total": 15}, {}, 20),
        ({"type": "treat", "skill": "medical_tech", "total": 15}, {}, 30),
    ]
    for action, rolls, now in script:
        state, new = act(state, action, rolls, now)
        events += new
    state, fired = advance(state, 7 * DAY)
    return initial, [*events, *fired]


def test_a_replay_through_json_gives_the_same_state_and_it_fits_the_import_checks():
    initial, events = _played()
    played = initial
    for event in events:
        played = engine.evolve(played, event)
    assert played["location_damage"]["torso"] > 0 and played["location_damage"]["left_leg"] == 8
    stored = [json.loads(json.dumps([e.type, e.data, e.game_time])) for e in events]
    replayed = fold(RULESET, initial, [Event(kind, data, time) for kind, data, time in stored])
    assert replayed == played
    assert sum(played["location_damage"].values()) == played["damage"]
    check_state(RULESET, replayed, Limits(max_time=10**9))


def test_taking_back_the_torso_hit_is_a_replay_without_it():
    initial, events = _played()
    actions = [event for event in events if event.game_time <= 30]  # the clock's first firing is later
    assert types(actions[:2]) == ["DamageTaken", "StunSaveRolled"]  # the torso hit
    without = fold(RULESET, initial, actions[2:])
    # The blunt head hit: 6 - 2 = 4, doubled: 8, half real and half stun.
    assert without["location_damage"] == at(head=4, left_leg=8)
    assert without["location_stun"] == at(head=4)


def test_a_state_stored_before_damage_per_location_still_takes_wounds_and_heals():
    state = character(body=6)
    del state["location_damage"], state["location_stun"]
    state, _ = act(state, {"type": "damage", "damage": 9, "location": "torso"}, {"stun_save": [1]})
    state = engine.evolve(
        state, Event("DamageHealed", {"points": 1, "damage": 6, "healing_skill": "first_aid"}, 9)
    )
    assert state["damage"] == 6 and "location_damage" not in state
    assert cp_view.view(state, "gm")["sheet"]["location_damage"] == NONE
