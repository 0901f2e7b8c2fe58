"""The recover action: coming round from a KO roll and restoring disabled limbs."""

import pytest

from rules.darkfuture.engine import KNOCK_OUT_ENDED, LIMBS_RESTORED
from rules.ruleset import RuleError

from .helpers import act, character, hit


def knocked_out_with_a_leg_disabled(**attributes):
    """8 CON, 15 on the table: 6 lost, 2 left (01-25), knocked out, left leg disabled."""
    state, _ = hit(
        character(con=8, move=6, **attributes),
        {"damage": [5], "ko": [6], "limb_check": [6], "limb": [6], "side": [1]},
        weapon_damage=10,
    )
    return state


def refused(state, action):
    with pytest.raises(RuleError) as error:
        act(state, action)
    return error.value.field, error.value.message


def test_recover_ends_a_ko_from_a_roll():
    state = knocked_out_with_a_leg_disabled()
    state, [event] = act(state, {"type": "recover", "knocked_out": True}, now=60)
    assert event.type == KNOCK_OUT_ENDED
    assert event.game_time == 60
    assert event.data == {
        "ended_by": "recover",
        "still_out_at_zero_con": False,
        "vehicle_driverless_after": False,
    }
    assert state["knocked_out_by_roll"] is False


def test_recover_restores_a_named_limb_and_its_move():
    state = knocked_out_with_a_leg_disabled()
    assert state["move"]["current"] == 3
    state, [event] = act(state, {"type": "recover", "limbs": ["left_leg"]})
    assert event.type == LIMBS_RESTORED
    # Still in 01-25: move stays at half, now from the band.
    assert event.data == {"limbs": ["left_leg"], "disabled_limbs_after": [], "move_after": 3}
    assert state["disabled_limbs"] == []


def test_a_restored_leg_gives_full_move_back_in_a_band_without_a_move_penalty():
    state = knocked_out_with_a_leg_disabled()
    state = {**state, "band": "76+"}
    _, [event] = act(state, {"type": "recover", "limbs": "left_leg"})
    assert event.data["move_after"] == 6


def test_recover_can_do_both_at_once():
    state = knocked_out_with_a_leg_disabled()
    state, events = act(state, {"type": "recover", "knocked_out": True, "limbs": ["left_leg"]})
    assert [event.type for event in events] == [KNOCK_OUT_ENDED, LIMBS_RESTORED]
    assert state["knocked_out_by_roll"] is False and state["disabled_limbs"] == []


def test_recover_with_nothing_to_recover_is_refused():
    assert refused(character(), {"type": "recover"}) == (
        "knocked_out",
        "expected the character to come round from a knock-out or limbs to restore: nothing to recover",
    )
    assert refused(character(), {"type": "recover", "knocked_out": False, "limbs": []})[0] == "knocked_out"


def test_recover_of_a_character_who_is_not_knocked_out_is_refused():
    assert refused(character(), {"type": "recover", "knocked_out": True}) == (
        "knocked_out",
        "the character is not knocked out",
    )


def test_a_ko_at_0_con_does_not_end_by_recover():
    state, _ = hit(character(con=2), {"damage": [4]})  # 2 lost: 0 CON
    assert refused(state, {"type": "recover", "knocked_out": True}) == (
        "knocked_out",
        "a knock-out at 0 CON ends only when CON rises above 0",
    )


def test_a_limb_that_is_not_disabled_cannot_be_restored():
    state = knocked_out_with_a_leg_disabled()
    assert refused(state, {"type": "recover", "limbs": ["right_arm"]}) == (
        "limbs",
        "right_arm is not disabled",
    )


def test_an_unknown_limb_is_refused():
    assert refused(character(), {"type": "recover", "limbs": ["tail"]}) == (
        "limbs",
        "expected a list of limbs among left arm, right arm, left leg and right leg, got tail",
    )


def test_limbs_that_are_not_a_list_are_refused():
    assert refused(character(), {"type": "recover", "limbs": {"left_leg": True}}) == (
        "limbs",
        "expected a list of limbs among left arm, right arm, left leg and right leg, got an object",
    )


def test_a_limb_named_twice_is_refused():
    state = knocked_out_with_a_leg_disabled()
    assert refused(state, {"type": "recover", "limbs": ["left_leg", "left_leg"]}) == (
        "limbs",
        "expected each limb once, got left_leg twice",
    )


def test_knocked_out_must_be_a_boolean():
    assert refused(character(), {"type": "recover", "knocked_out": "yes"}) == (
        "knocked_out",
        "expected true or false, got the text yes",
    )


def test_recover_rejects_unknown_parameters():
    assert refused(character(), {"type": "recover", "stunned": True}) == (
        "stunned",
        "unknown field; expected one of knocked_out, limbs, type",
    )


def test_the_dead_do_not_recover():
    state, _ = hit(character(con=1), {"damage": [6]}, weapon_damage=4)
    assert refused(state, {"type": "recover", "knocked_out": True}) == ("type", "the character is dead")


def test_a_driver_who_comes_round_takes_the_wheel_again():
    state = knocked_out_with_a_leg_disabled(driver=True, pedestrian=True)
    assert state["attributes"]["driver"] is True
    state, [event] = act(state, {"type": "recover", "knocked_out": True})
    assert event.data["vehicle_driverless_after"] is False
