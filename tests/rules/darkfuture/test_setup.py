"""Options, attributes, the initial state and the ruleset's description."""

import pytest

from rules.darkfuture import RULESET
from rules.ruleset import RuleError


def error_of(function, value):
    with pytest.raises(RuleError) as error:
        function(value)
    return error.value.field, error.value.message


def test_options_default_to_the_seed_and_the_house_rules():
    assert RULESET.validate_options(None) == {
        "ko_pass_means_stun": False,
        "con_recovery_days": 7,
        "limb_check_target": 3,
        "limb_arm_up_to": 3,
        "limb_left_up_to": 3,
        "stun_lasts_seconds": 0,
        "ko_lasts_seconds": 0,
    }


def test_the_shared_start_and_time_scale_options_are_ignored():
    assert RULESET.validate_options(
        {"start": "2020-01-01T00:00:00", "time_scale": 60, "con_recovery_days": 3}
    ) == {
        "ko_pass_means_stun": False,
        "con_recovery_days": 3,
        "limb_check_target": 3,
        "limb_arm_up_to": 3,
        "limb_left_up_to": 3,
        "stun_lasts_seconds": 0,
        "ko_lasts_seconds": 0,
    }


def test_an_unknown_option_is_refused():
    assert error_of(RULESET.validate_options, {"gentle": True}) == (
        "options.gentle",
        "unknown field; expected one of con_recovery_days, fight_idle_minutes, ko_lasts_seconds, ko_pass_means_stun, "
        "limb_arm_up_to, limb_check_target, limb_left_up_to, start, stun_lasts_seconds, table_dice, time_scale",
    )


def test_a_bad_option_value_is_refused():
    assert error_of(RULESET.validate_options, {"ko_pass_means_stun": "yes"}) == (
        "options.ko_pass_means_stun",
        "expected true or false, got the text yes",
    )
    assert error_of(RULESET.validate_options, {"con_recovery_days": 0}) == (
        "options.con_recovery_days",
        "expected a whole number of at least 1, got 0",
    )
    assert error_of(RULESET.validate_options, {"limb_arm_up_to": 7}) == (
        "options.limb_arm_up_to",
        "expected a whole number of at most 6, got 7",
    )
    assert error_of(RULESET.validate_options, {"limb_left_up_to": -1}) == (
        "options.limb_left_up_to",
        "expected a whole number of at least 0, got -1",
    )


def test_options_must_be_an_object():
    assert error_of(RULESET.validate_options, [1]) == ("options", "expected an object, got list")


def test_attributes_get_their_defaults():
    assert RULESET.validate_attributes({"con": 8}) == {
        "con": 8,
        "skills": {},
        "move": 0,
        "armour": 0,
        "pedestrian": True,
        "driver": False,
    }


def test_con_is_required_and_at_least_1():
    assert error_of(RULESET.validate_attributes, {}) == (
        "attributes.con",
        "this field is required: expected a whole number",
    )
    assert error_of(RULESET.validate_attributes, {"con": 0}) == (
        "attributes.con",
        "expected a whole number of at least 1, got 0",
    )


def test_an_unknown_attribute_is_refused():
    assert error_of(RULESET.validate_attributes, {"con": 8, "body": 4}) == (
        "attributes.body",
        "unknown field; expected one of armour, con, driver, move, pedestrian, skills",
    )


def test_skills_are_named_whole_numbers():
    assert error_of(RULESET.validate_attributes, {"con": 8, "skills": {"driver": -1}}) == (
        "attributes.skills.driver",
        "expected a whole number of at least 0, got -1",
    )
    assert error_of(RULESET.validate_attributes, {"con": 8, "skills": {"": 3}}) == (
        "attributes.skills",
        "expected skill names of 1-40 characters, got an empty text",
    )
    assert error_of(RULESET.validate_attributes, {"con": 8, "skills": [3]}) == (
        "attributes.skills",
        "expected an object, got list",
    )


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("move", -1, "expected a whole number of at least 0, got -1"),
        ("armour", "2", "expected a whole number, got the text 2"),
        ("pedestrian", 1, "expected true or false, got 1"),
        ("driver", "no", "expected true or false, got the text no"),
    ],
)
def test_bad_attribute_values_are_refused(name, value, message):
    assert error_of(RULESET.validate_attributes, {"con": 8, name: value}) == (f"attributes.{name}", message)


def test_the_initial_state_copies_attributes_and_options():
    state = RULESET.initial_state(
        {"con": 8, "skills": {"gunner": 4}, "driver": True}, {"con_recovery_days": 2}
    )
    assert state["attributes"]["driver"] is True
    assert state["options"] == {
        "ko_pass_means_stun": False,
        "con_recovery_days": 2,
        "limb_check_target": 3,
        "limb_arm_up_to": 3,
        "limb_left_up_to": 3,
        "stun_lasts_seconds": 0,
        "ko_lasts_seconds": 0,
    }
    assert state["alive"] is True
    assert state["con"] == {"initial": 8, "current": 8}
    assert state["skills"] == {"gunner": {"base": 4, "current": 4}}


def test_the_ruleset_describes_itself():
    assert RULESET.slug == "darkfuture"
    assert RULESET.actions == ("damage", "recover")
    assert RULESET.default_start == "2020-01-01T00:00:00"
    assert set(RULESET.forms) == {"damage", "recover"}
    assert [roll.name for roll in RULESET.forms["damage"].rolls] == [
        "damage",
        "ko",
        "stun",
        "limb_check",
        "limb",
        "side",
    ]
    assert [param.name for param in RULESET.forms["recover"].params] == ["knocked_out", "limbs"]
    house = (
        "con_recovery_days",
        "limb_check_target",
        "limb_arm_up_to",
        "limb_left_up_to",
        "stun_lasts_seconds",
        "ko_lasts_seconds",
    )
    assert all(RULESET.option_help[name].startswith("(house)") for name in house)
    assert set(RULESET.option_help) == {"ko_pass_means_stun", *house}
