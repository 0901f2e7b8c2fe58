"""The damage action: the Pedestrian Critical Table, bands, KO and stun rolls, limbs, drivers and death."""

import pytest

from rules.darkfuture import RULESET
from rules.darkfuture.engine import DEATH_OCCURRED, NEAR_MISS_TAKEN, WOUND_TAKEN
from rules.dice import Dice, DiceError
from rules.ruleset import RuleError

from .helpers import character, hit

MACHINE_GUN = 1  # the seed's 4.2mm machine gun: +1


def seed_character(**extra):
    return character(con=8, skills={"driver": 3, "gunner": 4}, **extra)


def skills(state):
    return {name: skill["current"] for name, skill in state["skills"].items()}


def test_the_seed_example_step_by_step():
    state = seed_character()

    # A 2 is rolled and the machine gun's +1 added: 3 on the table, 1 CON. Still 76% or more: no effect.
    state, [wound] = hit(state, {"damage": [2]}, weapon_damage=MACHINE_GUN)
    assert wound.type == WOUND_TAKEN
    assert (wound.data["damage_roll"], wound.data["result"], wound.data["table_row"]) == (2, 3, "2-3")
    assert (wound.data["con_before"], wound.data["con_after"], wound.data["con_lost"]) == (8, 7, 1)
    assert (wound.data["band_before"], wound.data["band_after"]) == ("76+", "76+")
    assert wound.data["ko"] is None and wound.data["stun"] is None
    assert wound.data["dice"] == {"damage": [2]}
    assert skills(state) == {"driver": 3, "gunner": 4}

    # A further 2 CON (3 + 1 = 4): 5 of 8 is 51-75. A stun roll, driver 2 and gunner 3.
    state, [wound] = hit(state, {"damage": [3], "stun": [2]}, weapon_damage=MACHINE_GUN)
    assert (wound.data["con_lost"], wound.data["con_after"], wound.data["band_after"]) == (2, 5, "51-75")
    assert wound.data["stun"] == {"roll": 2, "target": 3, "automatic": False}
    assert wound.data["ko"] is None
    assert wound.data["dice"] == {"damage": [3], "stun": [2]}
    assert skills(state) == {"driver": 2, "gunner": 3}
    assert state["stunned"] is False
    after_five = state

    # One more point (1 + 1 = 2): 4 of 8. The prose says only a stun roll; the table wins: 26-50, KO then stun.
    state, [wound] = hit(state, {"damage": [1], "ko": [3], "stun": [4]}, weapon_damage=MACHINE_GUN)
    assert (wound.data["con_after"], wound.data["band_after"]) == (4, "26-50")
    assert wound.data["ko"] == {"roll": 3, "target": 3}
    assert wound.data["stun"] == {"roll": 4, "target": 3, "automatic": False}
    assert skills(state) == {"driver": 2, "gunner": 2}
    assert state["stunned"] is True

    # Or, from 5, two more points make it 3: driver 2 and gunner 2, a KO roll and, not knocked out, a stun roll.
    state, [wound] = hit(after_five, {"damage": [3], "ko": [1], "stun": [6]}, weapon_damage=MACHINE_GUN)
    assert (wound.data["con_after"], wound.data["band_after"]) == (3, "26-50")
    assert wound.data["wound_effects"] == ["ko", "stun"]
    assert skills(state) == {"driver": 2, "gunner": 2}
    assert state["stunned"] is True


def test_pedestrians_add_the_weapon_damage_and_everyone_subtracts_armour():
    state = character(con=20, armour=2)
    _, [wound] = hit(state, {"damage": [6]}, weapon_damage=5)
    assert (wound.data["result"], wound.data["con_lost"]) == (9, 3)
    assert wound.data["weapon_damage_added"] is True


def test_a_character_in_a_vehicle_does_not_add_the_weapon_damage():
    state = character(con=20, pedestrian=False, armour=1)
    _, [wound] = hit(state, {"damage": [6]}, weapon_damage=5)
    assert (wound.data["result"], wound.data["con_lost"]) == (5, 2)
    assert wound.data["weapon_damage_added"] is False


def test_a_near_miss_costs_nothing_and_rolls_nothing_else():
    state = character(con=8, armour=3)
    new, [event] = hit(state, {"damage": [4], "ko": [6], "stun": [6]})
    assert event.type == NEAR_MISS_TAKEN
    assert event.data == {
        "damage_roll": 4,
        "weapon_damage": 0,
        "weapon_damage_added": True,
        "armour": 3,
        "result": 1,
        "table_row": "<= 1",
        "con_lost": 0,
        "dice": {"damage": [4]},
    }
    assert new == state


def test_a_ko_roll_of_4_knocks_out_and_no_stun_is_rolled():
    state, [wound] = hit(character(con=8), {"damage": [6], "ko": [4], "stun": [6]}, weapon_damage=4)
    assert wound.data["band_after"] == "26-50"
    assert wound.data["ko"] == {"roll": 4, "target": 3}
    assert wound.data["stun"] is None
    assert wound.data["knocked_out_by_roll"] is True
    assert "stun" not in wound.data["dice"]
    assert state["knocked_out_by_roll"] is True and state["stunned"] is False


def test_a_ko_roll_of_3_is_passed_and_a_stun_roll_of_3_does_not_stun():
    state, [wound] = hit(character(con=8), {"damage": [6], "ko": [3], "stun": [3]}, weapon_damage=4)
    assert wound.data["knocked_out_by_roll"] is False and wound.data["stunned_by_wound"] is False
    assert state["knocked_out_by_roll"] is False and state["stunned"] is False


def test_with_ko_pass_means_stun_a_passed_ko_roll_is_an_automatic_stun():
    state = character(con=8, options={"ko_pass_means_stun": True})
    state, [wound] = hit(state, {"damage": [6], "ko": [1], "stun": [1]}, weapon_damage=4)
    assert wound.data["stun"] == {"roll": None, "target": 3, "automatic": True}
    assert wound.data["dice"] == {"damage": [6], "ko": [1]}
    assert state["stunned"] is True


def test_with_ko_pass_means_stun_the_51_75_band_still_rolls_for_stun():
    state = character(con=8, options={"ko_pass_means_stun": True})
    state, [wound] = hit(state, {"damage": [4], "stun": [3]}, weapon_damage=0)
    assert wound.data["band_after"] == "51-75"
    assert wound.data["stun"] == {"roll": 3, "target": 3, "automatic": False}
    assert state["stunned"] is False


def test_a_character_already_knocked_out_makes_no_ko_or_stun_roll():
    state, _ = hit(character(con=10), {"damage": [6], "stun": [1]}, weapon_damage=4)  # 4 lost: 6 of 10
    state, [wound] = hit(state, {"damage": [4], "ko": [5]})  # 2 lost: 4 of 10, 26-50, knocked out
    assert wound.data["knocked_out_by_roll"] is True
    state, [wound] = hit(state, {"damage": [2], "ko": [1], "stun": [6]})  # 1 lost: 3 of 10
    assert wound.data["band_after"] == "26-50"
    assert wound.data["ko"] is None and wound.data["stun"] is None
    assert wound.data["dice"] == {"damage": [2]}
    assert state["knocked_out_by_roll"] is True


def test_the_01_25_band_always_rolls_for_a_limb_even_when_knocked_out():
    state, [wound] = hit(
        character(con=8, move=6),
        {"damage": [5], "ko": [6], "limb_check": [4], "limb": [5], "side": [2]},
        weapon_damage=10,
    )
    assert (wound.data["con_after"], wound.data["band_after"]) == (2, "01-25")
    assert wound.data["limb_check"] == {
        "roll": 4,
        "target": 3,
        "disabled": True,
        "limb": "left_leg",
        "limb_roll": 5,
        "side_roll": 2,
    }
    assert state["disabled_limbs"] == ["left_leg"]
    assert state["move"] == {"base": 6, "current": 3}
    assert state["knocked_out_by_roll"] is True


@pytest.mark.parametrize(
    ("limb_roll", "side_roll", "limb"),
    [(1, 1, "left_arm"), (3, 6, "right_arm"), (4, 3, "left_leg"), (6, 4, "right_leg")],
)
def test_limb_and_side_name_the_disabled_limb(limb_roll, side_roll, limb):
    state, [wound] = hit(
        character(con=8),
        {"damage": [5], "ko": [1], "stun": [1], "limb_check": [6], "limb": [limb_roll], "side": [side_roll]},
        weapon_damage=10,
    )
    assert wound.data["limb_check"]["limb"] == limb
    assert state["disabled_limbs"] == [limb]


def test_a_limb_check_of_3_disables_nothing_and_rolls_no_limb():
    state, [wound] = hit(
        character(con=8),
        {"damage": [5], "ko": [1], "stun": [1], "limb_check": [3], "limb": [6]},
        weapon_damage=10,
    )
    assert wound.data["limb_check"] == {"roll": 3, "target": 3, "disabled": False, "limb": None}
    assert set(wound.data["dice"]) == {"damage", "ko", "stun", "limb_check"}
    assert state["disabled_limbs"] == []


def test_the_same_limb_disabled_twice_is_listed_once():
    rolls = {"damage": [2], "ko": [1], "stun": [1], "limb_check": [6], "limb": [1], "side": [1]}
    state, _ = hit(character(con=20), {**rolls, "damage": [6]}, weapon_damage=12)  # 18: 8 lost -> 12 of 20
    state, _ = hit(state, rolls, weapon_damage=12)  # 14: 6 lost -> 6 of 20: 26-50
    state, _ = hit(state, rolls, weapon_damage=0)  # 2: 1 lost -> 5 of 20: 01-25
    state, _ = hit(state, rolls, weapon_damage=0)  # 4 of 20
    assert state["band"] == "01-25"
    assert state["disabled_limbs"] == ["left_arm"]


def test_0_con_is_an_automatic_ko_with_no_rolls_and_the_driver_leaves_the_vehicle():
    state = character(con=4, driver=True, pedestrian=False, skills={"driver": 3})
    state, [wound] = hit(state, {"damage": [6], "ko": [1], "stun": [1]})  # 6: 2 lost
    state, [wound] = hit(state, {"damage": [4]})  # 4: 2 lost: 0 CON
    assert (wound.data["con_after"], wound.data["band_after"]) == (0, "0")
    assert wound.data["automatic_ko"] is True
    assert wound.data["ko"] is None and wound.data["stun"] is None and wound.data["limb_check"] is None
    assert wound.data["vehicle_driverless_after"] is True
    assert wound.data["skills_after"] == {"driver": 0}
    assert wound.data["safety_limit_mph_after"] is None
    view = RULESET.view(state, "gm")
    assert view["sheet"]["knocked_out"] is True and view["conscious"] is False
    assert view["sheet"]["vehicle_driverless"] is True


def test_a_driver_knocked_out_by_a_roll_leaves_the_vehicle_driverless():
    state = character(con=8, driver=True, pedestrian=False)
    state, [wound] = hit(state, {"damage": [6], "stun": [1]})  # 2 lost: 6 of 8 is 51-75, stun only
    assert wound.data["vehicle_driverless_after"] is False
    state, [wound] = hit(state, {"damage": [4], "ko": [6]})  # 2 more: 4 of 8, 26-50
    assert wound.data["vehicle_driverless_after"] is True
    assert RULESET.view(state, "gm")["sheet"]["safety_limit_mph"] == 20


def test_a_driver_in_the_51_75_band_has_a_40_mph_safety_limit():
    state, [wound] = hit(character(con=8, driver=True, pedestrian=False), {"damage": [5], "stun": [1]})
    assert wound.data["safety_limit_mph_after"] == 40
    assert state["safety_limit_mph"] == 40


def test_going_below_0_con_kills():
    state = character(con=3, driver=True)
    state, events = hit(state, {"damage": [6], "ko": [6]}, weapon_damage=4)  # 10: 4 lost: -1
    assert [event.type for event in events] == [WOUND_TAKEN, DEATH_OCCURRED]
    assert events[0].data["band_after"] == "dead"
    assert events[0].data["vehicle_driverless_after"] is True
    assert events[0].data["ko"] is None
    assert events[1].data == {"cause": "con", "con": -1}
    assert state["alive"] is False
    assert RULESET.view(state, "gm")["status"] == ["dead"]


def test_a_dead_character_takes_no_more_damage():
    state, _ = hit(character(con=1), {"damage": [6]}, weapon_damage=4)
    with pytest.raises(RuleError) as error:
        hit(state, {"damage": [6]})
    assert (error.value.field, error.value.message) == ("type", "the character is dead")


def test_every_event_carries_the_game_time_of_the_action():
    _, events = hit(character(con=1), {"damage": [6]}, weapon_damage=4, now=1234)
    assert [event.game_time for event in events] == [1234, 1234]


def test_damage_rejects_a_negative_weapon_damage():
    with pytest.raises(RuleError) as error:
        hit(character(), {"damage": [1]}, weapon_damage=-1)
    assert (error.value.field, error.value.message) == (
        "weapon_damage",
        "expected a whole number of at least 0, got -1",
    )


def test_damage_rejects_a_weapon_damage_that_is_not_a_number():
    with pytest.raises(RuleError) as error:
        RULESET.decide(character(), {"type": "damage", "weapon_damage": "3"}, Dice({"damage": [1]}), 0)
    assert (error.value.field, error.value.message) == (
        "weapon_damage",
        "expected a whole number, got the text 3",
    )


def test_damage_rejects_unknown_parameters():
    with pytest.raises(RuleError) as error:
        RULESET.decide(character(), {"type": "damage", "severity": "S"}, Dice({"damage": [1]}), 0)
    assert (error.value.field, error.value.message) == (
        "severity",
        "unknown field; expected one of type, weapon_damage",
    )


def test_an_unknown_action_is_refused():
    with pytest.raises(RuleError) as error:
        RULESET.decide(character(), {"type": "heal"}, Dice({}), 0)
    assert (error.value.field, error.value.message) == (
        "type",
        "expected one of damage, recover, got heal",
    )


def test_an_entered_damage_die_out_of_range_names_the_roll():
    with pytest.raises(DiceError) as error:
        hit(character(), {"damage": [7]})
    assert error.value.message == "rolls.damage: expected 1 die of 1-6, got [7]"


def test_an_entered_ko_die_out_of_range_names_the_roll():
    with pytest.raises(DiceError) as error:
        hit(character(con=8), {"damage": [6], "ko": [0]}, weapon_damage=4)
    assert error.value.message == "rolls.ko: expected 1 die of 1-6, got [0]"


def test_decide_never_changes_the_state_it_is_given():
    state = character(con=8, skills={"driver": 3})
    before = repr(state)
    RULESET.decide(
        state, {"type": "damage", "weapon_damage": 6}, Dice({"damage": [6], "ko": [1], "stun": [6]}), 0
    )
    assert repr(state) == before


def test_the_deadly_wound_alone_already_leaves_the_character_dead():
    state = character(con=1)
    wound, death = RULESET.decide(state, {"type": "damage", "weapon_damage": 4}, Dice({"damage": [6]}), 0)
    after_wound = RULESET.evolve(state, wound)
    assert after_wound["alive"] is False
    assert RULESET.evolve(after_wound, death) == after_wound


def test_an_action_that_is_not_an_object_is_refused():
    with pytest.raises(RuleError) as error:
        RULESET.decide(character(), ["damage"], Dice({}), 0)
    assert (error.value.field, error.value.message) == ("action", "expected an object, got list")
