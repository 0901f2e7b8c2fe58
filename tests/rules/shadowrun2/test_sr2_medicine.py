"""Actions `diagnose`, `treat`, `replace` and `set_care`, with every error message."""

from __future__ import annotations

import pytest

from rules.ruleset import RuleError
from rules.shadowrun2 import RULESET, engine

from .helpers import CRIPPLING, CRITICAL, MORTAL, act, character, entered, hit, wounded

MEDIC = {"medic": "Doc", "skill": 3}


def refused(state, action, rolls=None, now=0):
    with pytest.raises(RuleError) as error:
        RULESET.decide(state, action, entered(rolls or {}), now)
    return error.value.field, error.value.message


def diagnosed(state, hit_id="ch1", now=0):
    state, _ = act(
        state, {"type": "diagnose", **MEDIC, "critical_hit": hit_id}, {"diagnosis": [6, 1, 1]}, now
    )
    assert hit(state, hit_id)["diagnosed"] is True
    return state


# ---- diagnose ----------------------------------------------------------------------------------------------------


def test_one_success_against_the_diagnose_column_diagnoses_a_hit():
    state = wounded(MORTAL, critical=1)  # lung, diagnose 4
    state, events = act(state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}, {"diagnosis": [4, 1, 1]})
    result = events[0].data["results"][0]
    assert (result["target"], result["successes"], result["diagnosed"]) == (4, 1, True)
    assert hit(state)["diagnosed"] is True


def test_defaulting_adds_four_and_assensing_takes_two_from_the_diagnosis_tn():
    state = wounded(MORTAL, critical=1)
    action = {"type": "diagnose", **MEDIC, "critical_hit": "ch1", "defaulting": True, "assensing": True}
    state, events = act(state, action, {"diagnosis": [5, 5, 5]})
    assert events[0].data["results"][0]["target"] == 6
    assert hit(state)["diagnosed"] is False


def test_an_asterisk_entry_on_an_open_wound_is_diagnosed_without_a_roll():
    state = wounded(MORTAL, location=[1, 3], critical=1)  # right arm, shoulder, 4*
    state, events = act(state, {"type": "diagnose", **MEDIC})
    assert events[0].data["results"][0]["automatic"] is True
    assert hit(state)["diagnosed"] is True


def test_an_asterisk_entry_on_a_closed_wound_needs_the_roll():
    state = wounded(MORTAL, location=[1, 3], critical=1, open_wound=False)
    state, events = act(state, {"type": "diagnose", **MEDIC}, {"diagnosis:ch1": [3, 3, 3]})
    assert events[0].data["results"][0]["target"] == 4
    assert hit(state)["diagnosed"] is False


def test_without_a_hit_named_every_undiagnosed_hit_is_rolled_under_its_own_name():
    state = wounded(CRITICAL, critical=1)
    state = wounded(CRITICAL, critical=5, state=state)  # heart, diagnose 2
    state, events = act(
        state, {"type": "diagnose", **MEDIC}, {"diagnosis:ch1": [1, 1, 1], "diagnosis:ch2": [2, 1, 1]}
    )
    assert [(r["critical_hit"], r["diagnosed"]) for r in events[0].data["results"]] == [
        ("ch1", False),
        ("ch2", True),
    ]


def test_a_failed_diagnosis_is_recorded_with_medic_hit_and_time():
    state = wounded(CRITICAL, critical=1)
    state, _ = act(
        state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}, {"diagnosis": [1, 1, 1]}, now=100
    )
    assert state["failed_diagnoses"] == [{"medic": "Doc", "critical_hit": "ch1", "game_time": 100}]


def test_the_same_medic_may_retry_only_after_one_game_minute():
    state = wounded(CRITICAL, critical=1)
    state, _ = act(
        state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}, {"diagnosis": [1, 1, 1]}, now=100
    )
    action = {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}
    assert refused(state, action, {"diagnosis": [6, 6, 6]}, now=159) == (
        "critical_hit",
        "Doc failed to diagnose critical hit 1 at [t=100]; the same medic may try again on that hit only after "
        "1 game minute (from [t=160])",
    )
    state, _ = act(state, action, {"diagnosis": [6, 1, 1]}, now=160)
    assert hit(state)["diagnosed"] is True
    assert state["failed_diagnoses"] == []


def test_another_medic_may_try_at_once():
    state = wounded(CRITICAL, critical=1)
    state, _ = act(
        state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}, {"diagnosis": [1, 1, 1]}, now=100
    )
    action = {"type": "diagnose", "medic": "Mage", "skill": 2, "critical_hit": "ch1"}
    state, _ = act(state, action, {"diagnosis": [6, 1]}, now=101)
    assert hit(state)["diagnosed"] is True


def test_a_retry_for_every_hit_within_the_minute_is_refused_on_the_medic():
    state = wounded(CRITICAL, critical=1)
    state, _ = act(state, {"type": "diagnose", **MEDIC}, {"diagnosis:ch1": [1, 1, 1]}, now=0)
    field, message = refused(state, {"type": "diagnose", **MEDIC}, {"diagnosis:ch1": [6, 6, 6]}, now=30)
    assert field == "medic"
    assert message.startswith("Doc failed to diagnose critical hit 1 at [t=0]")


def test_a_diagnosis_with_nothing_to_find_is_refused_saying_why():
    # A tester's night: accepted with no roll, it wrote an empty entry, "Diagnosis by Doc: .".
    nothing = {"type": "diagnose", **MEDIC}
    assert refused(character(), nothing) == (
        "critical_hit",
        "there is no undiagnosed critical hit to look for: the character has taken no critical hit",
    )
    state = diagnosed(wounded(CRITICAL))
    assert refused(state, nothing, {"diagnosis": [6, 6, 6]}) == (
        "critical_hit",
        "there is no undiagnosed critical hit to look for: every critical hit is already diagnosed",
    )
    state, _ = act(
        state, {"type": "heal_magic", "successes": 3, "mode": "allocate", "allocation": {"ch1": 3}}
    )
    assert hit(state)["status"] == "healed"
    assert refused(state, nothing) == (
        "critical_hit",
        "there is no undiagnosed critical hit to look for: every critical hit is healed or replaced",
    )


@pytest.mark.parametrize(
    ("action", "field", "message"),
    [
        ({"type": "diagnose", "skill": 3}, "medic", "this field is required: expected a name"),
        ({"type": "diagnose", "medic": "Doc"}, "skill", "this field is required: expected a whole number"),
        (
            {"type": "diagnose", **MEDIC, "critical_hit": "ch9"},
            "critical_hit",
            "no critical hit ch9 on this character",
        ),
        (
            {"type": "diagnose", **MEDIC, "critical_hit": 3},
            "critical_hit",
            "expected a critical hit id such as ch1, got 3",
        ),
    ],
)
def test_bad_diagnosis_parameters_are_refused(action, field, message):
    assert refused(wounded(CRITICAL), action) == (field, message)


def test_an_already_diagnosed_hit_is_not_diagnosed_again():
    state = diagnosed(wounded(CRITICAL))
    assert refused(state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}) == (
        "critical_hit",
        "critical hit 1 to the chest (lung) is already diagnosed",
    )


# ---- treat -------------------------------------------------------------------------------------------------------


def test_an_undiagnosed_hit_cannot_be_treated():
    state = wounded(MORTAL)
    action = {"type": "treat", "critical_hit": "ch1", **MEDIC}
    assert refused(state, action, {"treatment": [6, 6, 6]}) == ("critical_hit", engine.NOT_DIAGNOSED)
    assert engine.NOT_DIAGNOSED == "the medic does not know this critical hit is there"


def test_a_crippling_hit_cannot_be_treated_by_a_medic():
    state = diagnosed(wounded(CRIPPLING))
    action = {"type": "treat", "critical_hit": "ch1", **MEDIC}
    assert refused(state, action, {"treatment": [6, 6, 6]}) == ("critical_hit", engine.CRIPPLING_UNTREATABLE)
    assert engine.CRIPPLING_UNTREATABLE == (
        "a medic cannot treat a crippling critical hit; it needs a replacement or healing magic"
    )


def test_a_successful_treatment_of_a_mortal_hit_takes_base_time_over_successes():
    state = diagnosed(wounded(MORTAL, death_time=[6]))  # lung: dies at 3600
    state, events = act(
        state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [9, 11, 1]}, now=60
    )
    data = events[0].data
    assert events[0].type == "TreatmentStarted"
    assert (data["target"], data["successes"], data["duration"], data["completes_at"]) == (8, 2, 300, 360)
    assert hit(state)["treatment_completes_at"] == 360


def test_a_critical_hit_is_treated_at_tn_4_over_twenty_minutes():
    state = diagnosed(wounded(CRITICAL))
    state, events = act(state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [4, 1, 1]})
    assert (events[0].data["target"], events[0].data["duration"]) == (4, 1200)


def test_defaulting_on_treatment_adds_four_to_the_tn():
    state = diagnosed(wounded(CRITICAL))
    action = {"type": "treat", "critical_hit": "ch1", **MEDIC, "defaulting": True}
    _, events = act(state, action, {"treatment": [7, 1, 1]})
    assert (events[0].data["target"], events[0].data["successes"]) == (8, 0)


def test_a_failed_treatment_marks_the_hit_improperly_treated():
    state = diagnosed(wounded(CRITICAL))
    state, events = act(state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [3, 1, 1]})
    assert events[0].type == "TreatmentFailed"
    assert (hit(state)["improperly_treated"], hit(state)["treated"]) == (True, False)


def test_the_treatment_table_option_overrides_the_house_defaults():
    state = diagnosed(
        wounded(MORTAL, state=character(treatment_table={"mortal": {"tn": 5, "base_seconds": 60}}))
    )
    _, events = act(state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [5, 5, 5]})
    assert (events[0].data["target"], events[0].data["duration"]) == (5, 20)


def test_a_treatment_under_way_is_not_started_twice():
    state = diagnosed(wounded(CRITICAL))
    state, _ = act(state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [4, 1, 1]})
    action = {"type": "treat", "critical_hit": "ch1", **MEDIC}
    assert refused(state, action, {"treatment": [4, 1, 1]}) == ("critical_hit", engine.TREATMENT_UNDER_WAY)


# ---- replace and set_care ------------------------------------------------------------------------------------------


def test_a_replaced_crippling_hit_has_no_penalty_and_stays_in_history():
    state = diagnosed(wounded(CRIPPLING))
    state, events = act(state, {"type": "replace", "critical_hit": "ch1", "replacement": "cyberlung"})
    assert events[0].data == {"critical_hit": "ch1", "replacement": "cyberlung"}
    assert (hit(state)["status"], hit(state)["penalty"], hit(state)["replacement"]) == (
        "replaced",
        0,
        "cyberlung",
    )


def test_only_a_crippling_hit_is_replaced():
    state = diagnosed(wounded(CRITICAL))
    action = {"type": "replace", "critical_hit": "ch1", "replacement": "cyberlung"}
    assert refused(state, action) == (
        "critical_hit",
        "only a crippling critical hit is replaced; this one is critical",
    )


def test_an_undiagnosed_hit_is_not_replaced():
    action = {"type": "replace", "critical_hit": "ch1", "replacement": "cyberlung"}
    assert refused(wounded(CRIPPLING), action) == ("critical_hit", engine.REPLACE_UNDIAGNOSED)


def test_a_replaced_hit_is_no_longer_active_for_treatment():
    state = diagnosed(wounded(CRIPPLING))
    state, _ = act(state, {"type": "replace", "critical_hit": "ch1", "replacement": "cyberlung"})
    assert refused(state, {"type": "treat", "critical_hit": "ch1", **MEDIC}) == (
        "critical_hit",
        engine.NOT_ACTIVE,
    )


def test_set_care_puts_the_character_in_hospital():
    state, events = act(character(), {"type": "set_care", "in_hospital": True})
    assert events[0].data == {"in_hospital": True}
    assert state["in_hospital"] is True


def test_set_care_needs_a_boolean():
    assert refused(character(), {"type": "set_care"}) == (
        "in_hospital",
        "this field is required: expected true or false",
    )


def test_a_blank_medic_name_is_refused():
    action = {"type": "diagnose", "medic": "  ", "skill": 3}
    assert refused(wounded(CRITICAL), action) == (
        "medic",
        "this field is required: expected the medic's name",
    )


def test_a_healed_hit_takes_no_more_healing_successes():
    state = diagnosed(wounded(CRITICAL))
    state, _ = act(
        state, {"type": "heal_magic", "successes": 3, "mode": "allocate", "allocation": {"ch1": 3}}
    )
    assert hit(state)["status"] == "healed"
    action = {"type": "heal_magic", "successes": 1, "mode": "allocate", "allocation": {"ch1": 1}}
    assert refused(state, action) == ("allocation.ch1", engine.NOT_ACTIVE)
