"""The worked examples of the API tests' character (body 6, luck 2, BTM -2), moved here from the HTTP tests
(issue 15): the numbers the rules compute from given dice need no database. tests/api/test_cyberpunk2020.py keeps
the wiring of each action."""

from __future__ import annotations

import pytest

from rules.cyberpunk2020 import RULESET
from rules.ruleset import GM

from .helpers import (
    CRIPPLE_LEFT_LEG,
    DESTROY_HEAD,
    MAKE_DYING,
    SEVER_RIGHT_ARM,
    STANDARD,
    WOUND_TORSO_7,
    created,
    data_of,
    expected_level,
    rache,
    rolled,
    types,
)

ALIVE_LOCATIONS = {"crippled": False, "severed": False, "stabilized": False}


MODIFIED = {**STANDARD, 7: "torso", 9: "left_leg", 10: "right_leg"}


def gm(state):
    """What the GM sees: the view, with the timers in the clock's order."""
    timers = sorted(RULESET.timers(state), key=lambda t: (t.due, t.priority, t.key))
    return {**RULESET.view(state, GM), "timers": [{"kind": t.kind, "due": t.due} for t in timers]}


def sheet(state):
    return RULESET.view(state, GM)["sheet"]


def stun_to_the_head(stun_save):
    """12 stun damage to the head: 12 - 2 = 10, x2 = 20 stun points, a death save of 6 against 5 fails."""
    return {
        "type": "damage",
        "damage": 12,
        "kind": "stun",
        "location": "head",
        "rolls": {"stun_save": [stun_save], "death_save": [6]},
    }


def _hit(state, **body):
    """Damage 0: nothing gets through, so only the location is decided."""
    _, events = rolled(state, {"type": "damage", "damage": 0, **body})
    assert types(events) == ["DamageStoppedByArmor"]
    return events[0].data["hit"]


# --- damage: the seed's examples ---------------------------------------------------------------------------------


def test_a_stun_save_above_the_target_leaves_the_character_stunned():
    state, events = rolled(
        rache(), {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [6]}}
    )
    # 9 - BTM 2 = 7 points: Serious, stun save target 6 - 1 = 5.
    assert data_of(events, "StunSaveRolled")["target"] == 5
    assert data_of(events, "StunSaveRolled")["success"] is False
    assert sheet(state)["stunned"] is True
    assert sheet(state)["stun_save_target"] == 5
    assert gm(state)["conscious"] is True


GRENADE = [
    # (armor, cover_protects, protected, main before BTM, secondary before BTM)
    ({"torso": 14}, [], [], 10, 12),
    ({"torso": 14, "head": 20}, [], ["head"], 9, 8),
    ({"torso": 14, "head": 20}, ["left_leg", "right_leg"], ["head", "left_leg", "right_leg"], 7, 4),
    (
        {"torso": 14, "head": 20, "left_arm": 14, "right_arm": 14, "left_leg": 14, "right_leg": 14},
        [],
        ["head", "left_arm", "right_arm", "left_leg", "right_leg"],
        5,
        0,
    ),
]


@pytest.mark.parametrize("btm", [0, -2])
@pytest.mark.parametrize(("armor", "cover_protects", "protected", "main", "secondary"), GRENADE)
def test_a_24_point_grenade_gives_the_seeds_two_wounds_with_and_without_btm(
    armor, cover_protects, protected, main, secondary, btm
):
    state = created({"body": 10, "btm": btm, "armor": armor})
    body = {
        "type": "damage",
        "damage": 24,
        "kind": "explosion",
        "rolls": {"stun_save": [1], "death_save": [1]},
    }
    if cover_protects:
        body["cover_protects"] = cover_protects
    state, events = rolled(state, body)
    taken = data_of(events, "DamageTaken")
    assert (taken["main_wound"], taken["secondary_wound"]) == (main, secondary)
    assert taken["protected"] == protected
    wounds = [max(1, wound + btm) if wound > 0 else 0 for wound in (main, secondary)]
    assert taken["wounds"] == wounds
    points = sum(wounds)
    drawn = sheet(state)
    assert (drawn["damage"], drawn["track"], drawn["wound_level"]) == (points, points, expected_level(points))
    expected = ["DamageTaken", "StunSaveRolled"] + (["DeathSaveRolled"] if points > 12 else [])
    assert types(events) == expected
    assert all(place == ALIVE_LOCATIONS for place in drawn["locations"].values())


def test_an_uninjured_character_losing_an_arm_makes_a_death_save_at_minus_0_with_8_on_the_track():
    state, events = rolled(rache(), SEVER_RIGHT_ARM)
    assert types(events) == ["DamageTaken", "LimbCrippled", "StunSaveRolled", "DeathSaveRolled"]
    # 26 / 2 = 13, 13 - 2 = 11: the track takes at most 8.
    taken = data_of(events, "DamageTaken")
    assert (taken["location_damage"], taken["track_points"]) == (11, 8)
    check = data_of(events, "LimbCrippled")["sever_check"]
    assert check == {"body": 6, "luck": 2, "roll": 2, "total": 10, "needed": 11, "kept": False}
    death = data_of(events, "DeathSaveRolled")
    assert (death["roll"], death["target"], death["success"]) == (6, 6, True)
    assert death["cause"] == "limb crippled"
    assert death["outcome"] == "survived"
    character = gm(state)
    assert character["sheet"]["track"] == 8
    assert character["sheet"]["death_save_target"] == 6
    assert character["sheet"]["locations"]["right_arm"] == {
        "crippled": True,
        "severed": True,
        "stabilized": False,
    }
    assert (character["alive"], character["conscious"], character["dying"]) == (True, True, False)
    assert [t["kind"] for t in character["timers"]] == ["death_save"]
    assert character["timers"][0]["due"] == 30


def test_a_failed_death_save_for_a_crippled_limb_starts_the_dying():
    body = {**SEVER_RIGHT_ARM, "rolls": {"sever": [2], "stun_save": [1], "death_save": [7]}}
    state, events = rolled(rache(), body)
    death = data_of(events, "DeathSaveRolled")
    assert (death["success"], death["outcome"], death["death_at"]) == (False, "dying", 30)
    assert (gm(state)["dying"], gm(state)["death_at"]) == (True, 30)
    assert gm(state)["conscious"] is False


def test_a_rolled_hit_on_a_severed_arm_misses():
    state, _ = rolled(rache(), SEVER_RIGHT_ARM)
    state, events = rolled(state, {"type": "damage", "damage": 30, "rolls": {"location": [6]}})
    assert types(events) == ["HitMissedSeveredLimb"]
    assert sheet(state)["track"] == 8


def test_a_second_hit_on_a_crippled_limb_adds_nothing_to_the_track():
    state, first = rolled(rache(), CRIPPLE_LEFT_LEG)
    assert data_of(first, "LimbCrippled")["sever_check"]["kept"] is True
    assert sheet(state)["track"] == 8
    again = {
        "type": "damage",
        "damage": 20,
        "location": "left_leg",
        "rolls": {"sever": [5], "stun_save": [1]},
    }
    state, second = rolled(state, again)
    # Location damage 8 again: the sever check is made again, but no new death save.
    assert types(second) == ["DamageTaken", "LimbCrippled", "StunSaveRolled"]
    assert data_of(second, "DamageTaken")["track_points"] == 0
    assert data_of(second, "LimbCrippled")["sever_check"]["total"] == 13
    state, third = rolled(
        state, {"type": "damage", "damage": 6, "location": "left_leg", "rolls": {"stun_save": [1]}}
    )
    assert types(third) == ["DamageTaken", "StunSaveRolled"]
    assert data_of(third, "DamageTaken")["track_points"] == 0
    drawn = sheet(state)
    assert (drawn["damage"], drawn["track"], drawn["wound_level"]) == (8, 8, "serious")
    assert drawn["locations"]["left_leg"] == {"crippled": True, "severed": False, "stabilized": False}


def test_a_head_hit_of_2_gives_4():
    state, events = rolled(
        rache(), {"type": "damage", "damage": 4, "location": "head", "rolls": {"stun_save": [1]}}
    )
    taken = data_of(events, "DamageTaken")
    assert (taken["location_damage"], taken["track_points"]) == (2, 4)
    assert taken["hit"]["how"] == "aimed"
    assert sheet(state)["track"] == 4


def test_a_head_hit_of_8_or_more_kills_outright_when_the_sever_check_fails():
    state, events = rolled(rache(), DESTROY_HEAD)
    # 14 - 2 = 12 location damage; 6 + 2 + 3 = 11 < 12: head destroyed. No saves.
    assert types(events) == ["DamageTaken", "LimbCrippled", "DeathOccurred"]
    assert data_of(events, "DeathOccurred") == {"cause": "head destroyed"}
    character = gm(state)
    assert character["alive"] is False
    assert character["sheet"]["locations"]["head"] == {"crippled": True, "severed": True, "stabilized": False}
    assert character["sheet"]["track"] == 24
    assert character["timers"] == []


def test_a_head_hit_of_8_or_more_leaves_the_character_dying_and_stabilizable_when_the_sever_check_succeeds():
    body = {"type": "damage", "damage": 14, "location": "head", "rolls": {"sever": [4], "stun_save": [1]}}
    state, events = rolled(rache(), body)
    assert types(events) == ["DamageTaken", "LimbCrippled", "StunSaveRolled", "DeathSaveRolled"]
    death = data_of(events, "DeathSaveRolled")
    assert (death["automatic"], death["success"], death["roll"], death["outcome"]) == (
        True,
        False,
        None,
        "dying",
    )
    character = gm(state)
    assert (character["alive"], character["conscious"], character["dying"], character["death_at"]) == (
        True,
        False,
        True,
        30,
    )
    assert character["sheet"]["locations"]["head"] == {
        "crippled": True,
        "severed": False,
        "stabilized": False,
    }
    # Difficulty: the real damage on the track (24). 10 + 10 + 4 = 24 succeeds.
    stabilize = {
        "type": "stabilize",
        "target": "dying",
        "skill": "medical_tech",
        "medic": "Doc",
        "tech": 10,
        "skill_level": 10,
        "rolls": {"stabilize": [4]},
    }
    state, saved = rolled(state, stabilize)
    assert types(saved) == ["StabilizationSucceeded"]
    assert (
        data_of(saved, "StabilizationSucceeded").items() >= {"difficulty": 24, "total": 24, "roll": 4}.items()
    )
    character = gm(state)
    assert (character["dying"], character["death_at"], character["conscious"]) == (False, None, False)
    assert character["sheet"]["locations"]["head"]["stabilized"] is True


def test_blunt_damage_rounds_toward_stun():
    state, events = rolled(rache(), {**WOUND_TORSO_7, "kind": "blunt"})
    taken = data_of(events, "DamageTaken")
    assert (taken["track_points"], taken["real_points"], taken["stun_points"]) == (7, 3, 4)
    drawn = sheet(state)
    assert (drawn["damage"], drawn["stun_damage"], drawn["track"], drawn["minor_wounds"]) == (3, 4, 7, 0)


@pytest.mark.parametrize(("ap", "through", "location_damage"), [(False, 10, 3), (True, 7, 5)])
def test_limb_damage_is_halved_but_not_again_for_ap(ap, through, location_damage):
    state = created({"body": 6, "armor": {"left_leg": 10}})
    body = {"type": "damage", "damage": 20, "ap": ap, "location": "left_leg", "rolls": {"stun_save": [1]}}
    state, events = rolled(state, body)
    # Not AP: 20 - 10 = 10, halved 5, BTM 3. AP: SP 5, 20 - 5 = 15, halved 7 (not halved again), BTM 5.
    taken = data_of(events, "DamageTaken")
    assert (taken["sp"], taken["through"], taken["location_damage"]) == (10, through, location_damage)
    assert sheet(state)["track"] == location_damage


def test_a_stun_hit_of_8_or_more_on_the_head_never_cripples_and_a_failed_death_save_only_knocks_out():
    state, events = rolled(rache(), stun_to_the_head(stun_save=3))
    # 12 - 2 = 10, x2 = 20 stun points: Mortal 1; stun target 6 - 4 = 2, death target 6 - 1 = 5.
    assert types(events) == ["DamageTaken", "StunSaveRolled", "DeathSaveRolled"]
    death = data_of(events, "DeathSaveRolled")
    assert (death["target"], death["success"], death["outcome"], death["death_at"]) == (
        5,
        False,
        "unconscious",
        None,
    )
    character = gm(state)
    assert (character["conscious"], character["dying"], character["death_at"]) == (False, False, None)
    assert character["sheet"]["locations"]["head"] == ALIVE_LOCATIONS
    assert (character["sheet"]["stun_damage"], character["sheet"]["wound_level"]) == (20, "mortal_1")


def test_armor_that_stops_everything_makes_no_wound_and_no_save():
    state = created({"body": 6, "armor": {"torso": 10}})
    state, events = rolled(
        state, {"type": "damage", "damage": 10, "location": "torso", "rolls": {"stun_save": [10]}}
    )
    assert types(events) == ["DamageStoppedByArmor"]
    assert events[0].data["dice"] == {}
    assert sheet(state)["track"] == 0
    assert sheet(state)["stunned"] is False


def test_a_1_point_wound_is_a_minor_wound():
    state, events = rolled(
        rache(), {"type": "damage", "damage": 3, "location": "torso", "rolls": {"stun_save": [1]}}
    )
    assert (sheet(state)["damage"], sheet(state)["minor_wounds"]) == (1, 1)
    assert data_of(events, "DamageTaken")["minor_wounds"] == 1


def test_over_40_on_the_track_is_death():
    body = {
        "type": "damage",
        "damage": 42,
        "location": "torso",
        "rolls": {"stun_save": [1], "death_save": [10]},
    }
    state, _ = rolled(rache(), body)
    # 40 real points: dying. Another point is over 40.
    state, events = rolled(state, {"type": "damage", "damage": 3, "location": "torso"})
    assert types(events) == ["DamageTaken", "DeathOccurred"]
    assert data_of(events, "DeathOccurred") == {"cause": "wound track over 40", "track": 41}
    assert gm(state)["alive"] is False
    assert sheet(state)["wound_level"] == "dead"


# --- hit location: every model's whole table --------------------------------------------------------------------


def test_the_standard_table_is_the_seeds_whole_d10():
    for face, location in STANDARD.items():
        hit = _hit(rache(), rolls={"location": [face]})
        assert (hit["location"], hit["how"], hit["roll"]) == (location, "standard", face)


def test_the_modified_model_is_its_whole_d10_with_a_side_roll_for_the_groin():
    state = created({"body": 6}, hit_location_model="modified")
    for face, location in MODIFIED.items():
        if face == 8:
            continue
        hit = _hit(state, rolls={"location": [face]})
        assert (hit["location"], hit["how"], hit["side"]) == (location, "modified", None)
    assert _hit(state, rolls={"location": [7]})["part"] == "lower abdomen"
    for side in range(1, 11):
        hit = _hit(state, rolls={"location": [8], "side": [side]})
        assert hit["location"] == ("left_leg" if side <= 5 else "right_leg")
        assert (hit["part"], hit["side"]) == ("groin/upper thigh", side)


def test_cover_forces_the_standard_table():
    state = created({"body": 6}, hit_location_model="modified")
    for face, location in STANDARD.items():
        hit = _hit(state, cover=True, rolls={"location": [face]})
        assert (hit["location"], hit["how"], hit["side"]) == (location, "cover", None)


# --- stabilize, treat, save ----------------------------------------------------------------------------------------


def test_a_stabilize_total_entered_whole_needs_no_die():
    state, _ = rolled(rache(), CRIPPLE_LEFT_LEG)
    _, done = rolled(
        state, {"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", "total": 15}
    )
    assert (
        data_of(done, "StabilizationSucceeded").items()
        >= {"total": 15, "roll": None, "success": True}.items()
    )


def test_stabilizing_the_dying_needs_the_real_damage_as_difficulty():
    state, _ = rolled(rache(), MAKE_DYING)  # 16 - 2 = 14 real points, failed death save
    body = {"type": "stabilize", "target": "dying", "skill": "medical_tech"}
    failed_state, failed = rolled(state, {**body, "total": 13})
    assert data_of(failed, "StabilizationFailed").items() >= {"difficulty": 14, "success": False}.items()
    assert gm(failed_state)["dying"] is True
    state, _ = rolled(failed_state, {**body, "total": 14})
    character = gm(state)
    assert (character["dying"], character["death_at"], character["conscious"]) == (False, None, False)
    # Still unconscious: a death save every turn to wake.
    assert [(t["kind"], t["due"]) for t in character["timers"]] == [("death_save", 30)]


def test_medical_tech_replaces_first_aid_and_first_aid_never_lowers_it():
    state, _ = rolled(rache(), WOUND_TORSO_7)
    state, _ = rolled(state, {"type": "treat", "skill": "first_aid", "total": 15})
    assert sheet(state)["healing_rate"] == 0.5
    state, _ = rolled(state, {"type": "treat", "skill": "medical_tech", "total": 15})
    assert sheet(state)["healing_rate"] == 1
    state, _ = rolled(state, {"type": "treat", "skill": "first_aid", "total": 20})
    assert sheet(state)["healing_rate"] == 1


def test_a_failed_treatment_sets_no_rate():
    state, _ = rolled(rache(), WOUND_TORSO_7)
    state, events = rolled(state, {"type": "treat", "skill": "medical_tech", "total": 14})
    assert types(events) == ["TreatmentFailed"]
    assert sheet(state)["healing_rate"] == 0


def test_a_death_save_at_the_table_for_a_crippled_limb():
    state, _ = rolled(rache(), CRIPPLE_LEFT_LEG)
    state, survived = rolled(state, {"type": "save", "kind": "death", "rolls": {"save": [6]}})
    assert (
        data_of(survived, "DeathSaveRolled").items()
        >= {"roll": 6, "target": 6, "outcome": "survived", "limbs": ["left_leg"]}.items()
    )
    state, failed = rolled(state, {"type": "save", "kind": "death", "rolls": {"save": [7]}})
    assert data_of(failed, "DeathSaveRolled").items() >= {"outcome": "dying", "death_at": 30}.items()
    assert (gm(state)["dying"], gm(state)["death_at"]) == (True, 30)


def test_a_death_save_at_the_table_wakes_the_knocked_out():
    state, _ = rolled(rache(), stun_to_the_head(stun_save=1))
    state, stay = rolled(state, {"type": "save", "kind": "death", "rolls": {"save": [6]}})
    assert data_of(stay, "DeathSaveRolled")["outcome"] == "stayed_unconscious"
    state, woke = rolled(state, {"type": "save", "kind": "death", "rolls": {"save": [5]}})
    assert data_of(woke, "DeathSaveRolled")["outcome"] == "woke"
    assert gm(state)["conscious"] is True
