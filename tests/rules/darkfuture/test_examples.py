"""The worked examples of the API tests' character Ash (CON 8, driver 3, gunner 4), moved here from the HTTP tests
(issue 15): the numbers the rules compute from given dice need no database. tests/api/test_darkfuture.py keeps the
wiring of each action."""

import pytest

from .helpers import act, ash_sheet, character, gm_view, hit, lose, wound_of
from .test_tables import CRITICAL_ROWS


def ash():
    return character(con=8, skills={"driver": 3, "gunner": 4})


def sheet(state):
    return gm_view(state)["sheet"]


# --- damage: the seed's worked example -----------------------------------------------------------------------------


def test_the_seeds_machine_gun_hit_of_2_plus_1_costs_one_con_and_rolls_nothing_else():
    # Every other roll is entered too: a 76+ wound needs none of them, so they are ignored and not recorded.
    rolls = {"damage": [2], "ko": [6], "stun": [6], "limb_check": [6], "limb": [6], "side": [6]}
    state, events = hit(ash(), rolls, weapon_damage=1)
    assert [e.type for e in events] == ["WoundTaken"]
    data = wound_of(events)
    assert data["damage_roll"] == 2
    assert data["weapon_damage"] == 1
    assert data["weapon_damage_added"] is True
    assert data["result"] == 3
    assert data["table_row"] == "2-3"
    assert data["con_lost"] == 1
    assert (data["con_before"], data["con_after"]) == (8, 7)
    assert (data["band_before"], data["band_after"]) == ("76+", "76+")
    assert data["wound_effects"] == []
    assert (data["ko"], data["stun"], data["limb_check"]) == (None, None, None)
    assert data["dice"] == {"damage": [2]}
    assert sheet(state) == ash_sheet(7, "76+", 3, 4, "-0")


def test_the_seeds_example_three_then_five_con_lost_step_by_step():
    # 3 CON lost: 51-75, driver 2 and gunner 3; the wound into 51-75 rolls for stun (3: not stunned).
    state, _ = hit(ash(), {"damage": [2]}, weapon_damage=1)
    state, events = hit(state, {"damage": [3], "stun": [3], "ko": [6]}, weapon_damage=1)
    data = wound_of(events)
    assert (data["result"], data["table_row"], data["con_lost"]) == (4, "4-7", 2)
    assert (data["band_before"], data["band_after"]) == ("76+", "51-75")
    assert data["wound_effects"] == ["stun"]
    assert data["ko"] is None
    assert data["stun"] == {"roll": 3, "target": 3, "automatic": False}
    assert data["stunned_by_wound"] is False
    assert data["skills_after"] == {"driver": 2, "gunner": 3}
    assert data["dice"] == {"damage": [3], "stun": [3]}
    assert sheet(state) == ash_sheet(5, "51-75", 2, 3, "-1")
    # 5 CON lost: 26-50, driver 2 and gunner 2 (half); KO first (3: stays up), then stun (4: stunned).
    state, events = hit(state, {"damage": [4], "ko": [3], "stun": [4]}, weapon_damage=0)
    data = wound_of(events)
    assert (data["result"], data["con_lost"], data["con_after"]) == (4, 2, 3)
    assert data["wound_effects"] == ["ko", "stun"]
    assert data["ko"] == {"roll": 3, "target": 3}
    assert data["stun"] == {"roll": 4, "target": 3, "automatic": False}
    assert data["dice"] == {"damage": [4], "ko": [3], "stun": [4]}
    assert sheet(state) == ash_sheet(3, "26-50", 2, 2, "1/2", stunned=True)
    assert gm_view(state)["conscious"] is True
    assert gm_view(state)["status"] == ["stunned"]


def test_four_of_eight_con_is_the_26_50_band_as_the_seeds_table_says():
    state, events = hit(ash(), {"damage": [6], "ko": [1], "stun": [1]}, weapon_damage=4)  # 10: 4 CON
    data = wound_of(events)
    assert (data["result"], data["table_row"], data["con_lost"], data["con_after"]) == (10, "10-11", 4, 4)
    assert data["band_after"] == "26-50"
    assert data["wound_effects"] == ["ko", "stun"]
    assert sheet(state) == ash_sheet(4, "26-50", 2, 2, "1/2")


# --- damage: the table ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attributes", "roll", "weapon_damage"),
    [
        ({"con": 8}, 1, 0),  # 1: near miss
        ({"con": 8, "armour": 3}, 4, 0),  # 4 - 3 = 1
        ({"con": 8, "armour": 5}, 2, 1),  # 2 + 1 - 5 = -2
        ({"con": 8, "pedestrian": False}, 1, 9),  # not a pedestrian: the weapon adds nothing
    ],
)
def test_a_result_of_1_or_less_is_a_near_miss_that_costs_nothing(attributes, roll, weapon_damage):
    state, [event] = hit(character(**attributes), {"damage": [roll], "ko": [6], "stun": [6]}, weapon_damage)
    assert event.type == "NearMissTaken"
    assert event.data["table_row"] == "<= 1"
    assert event.data["con_lost"] == 0
    assert event.data["dice"] == {"damage": [roll]}
    assert sheet(state)["con"] == {"initial": 8, "current": 8}
    assert gm_view(state)["timers"] == []


def test_armour_is_subtracted_for_everyone_and_the_weapon_added_for_pedestrians_only():
    driver = character(con=8, pedestrian=False, driver=True, armour=1)
    data = wound_of(hit(driver, {"damage": [5], "stun": [1]}, 10)[1])
    assert data["weapon_damage_added"] is False
    assert (data["result"], data["table_row"], data["con_lost"]) == (4, "4-7", 2)
    walker = character(con=8, armour=1)
    data = wound_of(hit(walker, {"damage": [5], "ko": [1], "stun": [1]}, 3)[1])
    assert (data["result"], data["table_row"], data["con_lost"]) == (7, "4-7", 2)


@pytest.mark.parametrize(("result", "row", "con_lost"), [row for row in CRITICAL_ROWS if row[0] >= 2])
def test_the_critical_table_is_open_ended_up_to_a_result_of_21(result, row, con_lost):
    brick = character(con=40)  # 31 of 40 is still 76+: no further roll
    state, events = hit(brick, {"damage": [min(6, result)]}, result - min(6, result))
    data = wound_of(events)
    assert (data["result"], data["table_row"], data["con_lost"]) == (result, row, con_lost)
    assert sheet(state)["con"] == {"initial": 40, "current": 40 - con_lost}


# --- damage: stun, KO and limbs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("stun", "stunned"), [(1, False), (3, False), (4, True), (6, True)])
def test_a_wound_into_51_75_rolls_for_stun_and_4_or_more_stuns(stun, stunned):
    state, events = lose(ash(), 3, stun=[stun], ko=[6])
    data = wound_of(events)
    assert data["stun"] == {"roll": stun, "target": 3, "automatic": False}
    assert data["ko"] is None
    assert data["stunned_by_wound"] is stunned
    assert sheet(state) == ash_sheet(5, "51-75", 2, 3, "-1", stunned=stunned)
    assert gm_view(state)["timers"] == ["stun_ends", "con_recovery"][0 if stunned else 1 :]


def test_a_ko_roll_of_4_knocks_out_and_no_stun_roll_follows():
    state, events = lose(ash(), 4, ko=[4], stun=[6])
    data = wound_of(events)
    assert data["ko"] == {"roll": 4, "target": 3}
    assert data["stun"] is None
    assert data["knocked_out_by_roll"] is True
    assert data["dice"] == {"damage": [6], "ko": [4]}
    assert sheet(state) == ash_sheet(4, "26-50", 2, 2, "1/2", knocked_out=True)
    assert gm_view(state)["conscious"] is False
    assert "unconscious" in gm_view(state)["status"]


def test_a_passed_ko_roll_is_followed_by_a_stun_roll():
    state, events = lose(ash(), 4, ko=[3], stun=[5])
    data = wound_of(events)
    assert data["ko"] == {"roll": 3, "target": 3}
    assert data["stun"] == {"roll": 5, "target": 3, "automatic": False}
    assert sheet(state) == ash_sheet(4, "26-50", 2, 2, "1/2", stunned=True)


def test_with_ko_pass_means_stun_a_passed_ko_roll_stuns_without_a_stun_roll():
    options = {"ko_pass_means_stun": True}
    state, events = lose(character(con=8, options=options), 4, ko=[2], stun=[1])
    data = wound_of(events)
    assert data["ko"] == {"roll": 2, "target": 3}
    assert data["stun"] == {"roll": None, "target": 3, "automatic": True}
    assert data["dice"] == {"damage": [6], "ko": [2]}
    assert sheet(state)["stunned"] is True
    # A failed KO roll still knocks out, with no stun.
    data = wound_of(lose(character(con=8, options=options), 4, ko=[4], stun=[6])[1])
    assert (data["knocked_out_by_roll"], data["stun"]) == (True, None)


@pytest.mark.parametrize(
    ("limb", "side", "disabled"),
    [(1, 1, "left_arm"), (3, 4, "right_arm"), (4, 3, "left_leg"), (6, 6, "right_leg")],
)
def test_a_wound_into_01_25_rolls_ko_stun_and_a_limb_check(limb, side, disabled):
    brick = character(con=8, move=8, skills={"driver": 3, "gunner": 4})
    rolls = {"damage": [6], "ko": [3], "stun": [2], "limb_check": [4], "limb": [limb], "side": [side]}
    state, events = hit(brick, rolls, 8)  # 14: 6 CON
    data = wound_of(events)
    assert (data["con_after"], data["band_after"]) == (2, "01-25")
    assert data["wound_effects"] == ["ko", "stun", "limb"]
    assert data["limb_check"] == {
        "roll": 4,
        "target": 3,
        "disabled": True,
        "limb": disabled,
        "limb_roll": limb,
        "side_roll": side,
    }
    drawn = sheet(state)
    assert drawn["disabled_limbs"] == [disabled]
    assert drawn["skills"] == {"driver": {"base": 3, "current": 1}, "gunner": {"base": 4, "current": 1}}
    assert drawn["skill_modifier"] == "1/4"
    assert drawn["move"] == {"base": 8, "current": 4}  # 1/2 for the band; a leg halves too, never stacked
    assert (drawn["knocked_out"], drawn["stunned"]) == (False, False)


def test_a_limb_check_below_4_disables_nothing_and_rolls_no_limb():
    rolls = {"damage": [6], "ko": [1], "stun": [1], "limb_check": [3], "limb": [6], "side": [6]}
    state, events = hit(ash(), rolls, 8)
    data = wound_of(events)
    assert data["limb_check"] == {"roll": 3, "target": 3, "disabled": False, "limb": None}
    assert data["dice"] == {"damage": [6], "ko": [1], "stun": [1], "limb_check": [3]}
    assert sheet(state) == ash_sheet(2, "01-25", 1, 1, "1/4")


def test_a_character_already_knocked_out_makes_no_ko_or_stun_roll_but_the_limb_check():
    state, _ = lose(ash(), 4, ko=[5])
    state, events = lose(state, 2, ko=[1], stun=[6], limb_check=[5], limb=[2], side=[2])
    data = wound_of(events)
    assert (data["ko"], data["stun"]) == (None, None)
    assert data["dice"] == {"damage": [4], "limb_check": [5], "limb": [2], "side": [2]}
    assert sheet(state) == ash_sheet(2, "01-25", 1, 1, "1/4", knocked_out=True, disabled_limbs=["left_arm"])


def test_a_drivers_safety_limit_follows_the_band():
    state = character(con=8, driver=True, skills={"driver": 3})
    limits = [sheet(state)["safety_limit_mph"]]
    for con, rolls in (
        (1, {}),  # 7: 76+
        (2, {"stun": [1]}),  # 5: 51-75
        (2, {"ko": [1], "stun": [1]}),  # 3: 26-50
        (1, {"ko": [1], "stun": [1]}),  # 2: 01-25
    ):
        state, _ = lose(state, con, limb_check=[1], **rolls)
        limits.append((sheet(state)["band"], sheet(state)["safety_limit_mph"]))
    assert limits == [None, ("76+", None), ("51-75", 40), ("26-50", 20), ("01-25", 20)]
    assert sheet(state)["vehicle_driverless"] is False


def test_above_ten_initial_con_the_bands_are_percentages_and_skills_round_half_up():
    state = character(con=20, move=7, skills={"pilot": 11})
    seen = []
    for con, rolls in (
        (4, {}),
        (1, {"stun": [1]}),
        (5, {"ko": [1], "stun": [1]}),
        (5, {"ko": [1], "stun": [1]}),
    ):
        state, _ = lose(state, con, limb_check=[1], **rolls)
        drawn = sheet(state)
        seen.append(
            (drawn["con"]["current"], drawn["band"], drawn["skills"]["pilot"]["current"], drawn["move"])
        )
    assert seen == [
        (16, "76+", 11, {"base": 7, "current": 7}),  # 80%
        (15, "51-75", 10, {"base": 7, "current": 7}),  # 75% is not above 75%
        (10, "26-50", 6, {"base": 7, "current": 5}),  # 50%; 11 / 2 rounds half up; 7 * 3/4 rounds down
        (5, "01-25", 3, {"base": 7, "current": 3}),  # 25%; 11 / 4 = 2.75 -> 3
    ]


# --- recover -------------------------------------------------------------------------------------------------------


def test_recover_restores_the_named_limbs_and_their_move():
    state = character(con=8, move=8)
    state, _ = hit(
        state, {"damage": [6], "ko": [1], "stun": [1], "limb_check": [4], "limb": [4], "side": [4]}, 8
    )
    state, _ = hit(
        state, {"damage": [2], "ko": [1], "stun": [1], "limb_check": [6], "limb": [1], "side": [1]}, 0
    )
    assert sheet(state)["disabled_limbs"] == ["left_arm", "right_leg"]
    state, [event] = act(state, {"type": "recover", "limbs": "right_leg"})  # one name as a string
    assert event.type == "LimbsRestored"
    assert event.data == {"limbs": ["right_leg"], "disabled_limbs_after": ["left_arm"], "move_after": 4}
    state, _ = act(state, {"type": "recover", "limbs": ["left_arm"]})
    assert sheet(state)["disabled_limbs"] == []
    assert sheet(state)["move"] == {"base": 8, "current": 4}  # 01-25 still halves


def test_waking_from_a_ko_roll_at_0_con_leaves_them_out_until_con_returns():
    state = character(con=8, driver=True)
    state, _ = lose(state, 4, ko=[6])
    state, _ = lose(state, 4)  # 0 CON: automatic KO, no roll
    state, events = act(state, {"type": "recover", "knocked_out": True})
    assert events[0].data == {
        "ended_by": "recover",
        "still_out_at_zero_con": True,
        "vehicle_driverless_after": True,
    }
    assert gm_view(state)["conscious"] is False
    assert sheet(state)["knocked_out"] is True
    assert sheet(state)["vehicle_driverless"] is True
