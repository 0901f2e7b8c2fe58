"""Action `wound`: boxes, carry-over, overflow, the Body check and its options, and the dice errors."""

from __future__ import annotations

import pytest

from rules.dice import DiceError
from rules.ruleset import RuleError
from rules.shadowrun2 import RULESET
from rules.shadowrun2.engine import COMBAT_POOL_OFF, DEAD
from rules.shadowrun2.view import view

from .helpers import CRITICAL, MORTAL, NO_CRITICAL_HIT, act, character, entered, hit, wounded


@pytest.mark.parametrize(("severity", "boxes"), [("L", 1), ("M", 3), ("S", 6), ("D", 10)])
def test_a_wound_adds_its_boxes_to_the_physical_monitor(severity, boxes):
    state = wounded([10, 10, 10, 10] if severity == "D" else [6, 6, 6, 6], severity=severity)
    assert state["physical"] == boxes
    assert state["critical_hits"] == []


def test_a_stun_wound_makes_no_body_check_by_default():
    state, events = act(character(), {"type": "wound", "severity": "S", "damage": "stun"})
    assert (state["stun"], state["physical"]) == (6, 0)
    assert events[0].data["body_check"] is None


def test_with_stun_causes_critical_hits_a_stun_wound_makes_the_body_check():
    state = wounded(MORTAL, damage="stun", state=character(stun_causes_critical_hits=True))
    assert state["stun"] == 6
    assert hit(state)["lethality"] == "mortal"


def test_stun_beyond_ten_boxes_carries_into_physical():
    state, _ = act(character(), {"type": "wound", "severity": "S", "damage": "stun"})
    state, events = act(state, {"type": "wound", "severity": "S", "damage": "stun"})
    assert (state["stun"], state["physical"]) == (10, 2)
    assert events[0].data["carried_to_physical"] == 2


def test_physical_beyond_ten_boxes_goes_into_overflow():
    state = wounded([10, 10, 10, 10], severity="D")
    state = wounded([6, 6, 6, 6], severity="M", state=state)
    assert (state["physical"], state["physical_overflow"]) == (10, 3)
    assert view(state, "gm")["conscious"] is False


def test_the_character_dies_when_overflow_exceeds_body_and_makes_no_body_check():
    state = wounded([10, 10, 10, 10], severity="D")
    state, events = act(state, {"type": "wound", "severity": "S"})
    assert [e.type for e in events] == ["WoundTaken", "DeathOccurred"]
    assert events[1].data == {"cause": "overflow", "critical_hit": None}
    assert state["alive"] is False
    assert view(state, "gm")["status"] == ["dead"]


def test_a_dead_character_takes_no_action():
    state = wounded([10, 10, 10, 10], severity="D")
    state, _ = act(state, {"type": "wound", "severity": "S"})
    with pytest.raises(RuleError) as error:
        RULESET.decide(state, {"type": "wound", "severity": "L"}, None, 0)
    assert (error.value.field, error.value.message) == ("type", DEAD)


def test_each_wound_is_checked_on_its_own_without_wound_modifiers():
    state = wounded(NO_CRITICAL_HIT, severity="S")
    _, events = act(state, {"type": "wound", "severity": "S"}, {"body_check": NO_CRITICAL_HIT})
    assert events[0].data["body_check"]["target"] == 6


def test_tn_10_needs_a_6_and_a_4_under_the_rule_of_six():
    state = character(body=4)
    rolls = {"body_check": [10, 9, 5, 3], "location": [3, 4], "critical": [1]}
    state, events = act(state, {"type": "wound", "severity": "D"}, rolls)
    assert events[0].data["body_check"]["successes"] == 1
    assert hit(state)["lethality"] == "crippling"


def test_an_unfinished_rule_of_six_chain_is_refused():
    with pytest.raises(DiceError) as error:
        RULESET.decide(
            character(), {"type": "wound", "severity": "D"}, entered({"body_check": [12, 1, 1, 1]}), 0
        )
    assert error.value.field == "rolls.body_check"
    assert "not a multiple of 6" in error.value.message


def test_the_wrong_number_of_location_dice_is_refused_with_the_roll_named():
    rolls = {"body_check": MORTAL, "location": [7, 3], "critical": [1], "death_time": [2]}
    with pytest.raises(DiceError) as error:
        RULESET.decide(character(), {"type": "wound", "severity": "S"}, entered(rolls), 0)
    assert error.value.message == "rolls.location: expected 2 dice of 1-6, got [7, 3]"


def test_the_wrong_number_of_body_check_dice_is_refused():
    with pytest.raises(DiceError) as error:
        RULESET.decide(character(), {"type": "wound", "severity": "S"}, entered({"body_check": [6, 6]}), 0)
    assert error.value.message == "rolls.body_check: expected 4 dice (the pool), got [6, 6]"


def test_combat_pool_adds_dice_to_the_body_check_when_the_option_allows_it():
    state = character(combat_pool_on_body_check=True)
    rolls = {"body_check": [6, 6, 6, 1, 1]}
    state, events = act(state, {"type": "wound", "severity": "S", "combat_pool": 1}, rolls)
    assert events[0].data["body_check"]["pool"] == 5
    assert events[0].data["body_check"]["combat_pool"] == 1
    assert state["critical_hits"] == []


def test_combat_pool_is_refused_without_the_option():
    with pytest.raises(RuleError) as error:
        RULESET.decide(character(), {"type": "wound", "severity": "S", "combat_pool": 2}, entered({}), 0)
    assert (error.value.field, error.value.message) == ("combat_pool", COMBAT_POOL_OFF)


@pytest.mark.parametrize(
    ("action", "field", "message"),
    [
        (
            {"type": "wound"},
            "severity",
            "this field is required: expected Light (L), Moderate (M), Serious (S) or Deadly (D)",
        ),
        (
            {"type": "wound", "severity": "X"},
            "severity",
            "expected Light (L), Moderate (M), Serious (S) or Deadly (D), got X",
        ),
        (
            {"type": "wound", "severity": "L", "damage": "fire"},
            "damage",
            "expected physical or stun, got fire",
        ),
        (
            {"type": "wound", "severity": "L", "open_wound": "yes"},
            "open_wound",
            "expected true or false, got the text yes",
        ),
        (
            {"type": "dance"},
            "type",
            "expected one of wound, diagnose, treat, heal_magic, first_aid, replace, accept, set_care, got dance",
        ),
    ],
)
def test_bad_wound_parameters_are_refused_with_a_message_naming_the_field(action, field, message):
    with pytest.raises(RuleError) as error:
        RULESET.decide(character(), action, entered({}), 0)
    assert (error.value.field, error.value.message) == (field, message)


def test_a_critical_hit_gets_the_next_id_from_the_counter():
    state = wounded(CRITICAL)
    state = wounded([1, 1, 1, 1], severity="L", state=state)
    assert [h["id"] for h in state["critical_hits"]] == ["ch1", "ch2"]
    assert state["next_critical_hit"] == 3


def test_a_mortal_hit_sets_death_at_from_now_and_the_time_expression():
    state = wounded(MORTAL, location=[3, 4], critical=1, death_time=[4], now=500)
    assert hit(state)["death_at"] == 500 + 40 * 60
    assert view(state, "gm")["death_at"] == 500 + 40 * 60
