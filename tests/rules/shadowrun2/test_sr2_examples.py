"""The worked examples of Ash (body 5), moved here from the HTTP tests (issue 15): the numbers the rules compute
from given dice need no database. tests/api/test_shadowrun2.py keeps the wiring of each action."""

from __future__ import annotations

import pytest

from rules.ruleset import GM
from rules.shadowrun2.engine import timers
from rules.shadowrun2.view import view

from .helpers import (
    CRIPPLING_ABDOMEN,
    CRIPPLING_RIBS,
    CRITICAL_RIBS,
    MORTAL_LUNG,
    NO_HIT_SERIOUS,
    act,
    ash,
    diagnosed,
    hit,
    types,
    wound,
)

MINUTE = 60


def sheet(state):
    return view(state, GM)["sheet"]


# --- wound -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("severity", "rolls", "lethality", "boxes", "penalty"),
    [
        ("S", CRIPPLING_RIBS, "crippling", 6, 3),
        ("M", CRITICAL_RIBS, "critical", 3, 2),
        (
            "L",
            {"body_check": [1, 1, 1, 1, 1], "location": [6, 6], "critical": [5], "death_time": [4, 2]},
            "mortal",
            10,
            4,
        ),
    ],
)
def test_body_check_successes_set_the_lethality_and_the_hits_own_monitor(
    severity, rolls, lethality, boxes, penalty
):
    state, _ = wound(ash(), severity, rolls)
    assert (hit(state)["lethality"], hit(state)["boxes"], hit(state)["penalty"]) == (
        lethality,
        boxes,
        penalty,
    )


def test_a_light_mortal_head_hit_on_the_jaw_takes_2d6_minutes():
    rolls = {"body_check": [1, 1, 1, 1, 1], "location": [6, 6], "critical": [5], "death_time": [4, 2]}
    _, events = wound(ash(), "L", rolls)
    data = events[1].data
    assert (data["location"], data["part"], data["reason"], data["death_at"]) == (
        "head",
        "jaw",
        "art",
        6 * MINUTE,
    )


def test_a_heart_hit_dies_after_the_die_times_30_seconds():
    rolls = {"body_check": [1] * 5, "location": [4, 4], "critical": [5], "death_time": [5]}
    state, events = wound(ash(), "S", rolls)
    assert events[1].data["part"] == "heart"
    assert view(state, GM)["death_at"] == 150


def test_three_body_check_successes_make_no_critical_hit():
    state, events = wound(ash(), "S", NO_HIT_SERIOUS)
    assert types(events) == ["WoundTaken"]
    assert sheet(state)["critical_hits"] == []
    assert sheet(state)["physical"] == {"boxes": 6, "level": "S"}


def test_a_deadly_body_check_uses_rule_of_six_totals():
    state, events = wound(ash(), "D", {"body_check": [10, 13, 11, 5, 1]})
    assert events[0].data["body_check"]["target"] == 10
    assert events[0].data["body_check"]["successes"] == 3
    assert types(events) == ["WoundTaken"]
    assert sheet(state)["physical"] == {"boxes": 10, "level": "D"}
    assert view(state, GM)["conscious"] is False


def test_a_stun_wound_makes_no_body_check_and_carries_beyond_10_into_physical():
    state, _ = wound(ash(), "S", {}, damage="stun")
    state, events = wound(state, "S", {"body_check": [1] * 5}, damage="stun")
    data = events[0].data
    assert types(events) == ["WoundTaken"]
    assert (data["body_check"], data["stun"], data["carried_to_physical"], data["physical"]) == (
        None,
        10,
        2,
        2,
    )
    assert sheet(state)["stun"] == {"boxes": 10, "level": "D"}
    assert sheet(state)["physical"] == {"boxes": 2, "level": "L"}
    assert view(state, GM)["conscious"] is False


def test_a_second_deadly_wound_past_body_overflow_kills_at_once():
    state, _ = wound(ash(), "D", {"body_check": [13, 13, 13, 1, 1]})
    state, events = wound(state, "D", {"body_check": [1] * 5})
    assert types(events) == ["WoundTaken", "DeathOccurred"]
    assert events[0].data["body_check"] is None
    assert sheet(state)["physical_overflow"] == 10
    assert view(state, GM)["alive"] is False


def test_the_seeds_worst_case_is_a_plus_11_total_modifier():
    """Serious physical, moderate stun and two crippling hits: 3 + 2 + 3 + 3."""
    state, _ = wound(ash(stun_causes_critical_hits=True), "S", CRIPPLING_RIBS)
    state, _ = wound(state, "M", CRIPPLING_ABDOMEN, damage="stun")
    assert [h["lethality"] for h in sheet(state)["critical_hits"]] == ["crippling", "crippling"]
    assert sheet(state)["tn_modifier"] == {
        "general": 5,
        "by_location": {
            "head": 0,
            "chest": 3,
            "abdomen": 3,
            "left_arm": 0,
            "right_arm": 0,
            "left_leg": 0,
            "right_leg": 0,
        },
        "total": 11,
    }


def test_the_gentle_column_makes_no_check_for_a_light_wound():
    _, events = wound(ash(body_check_tn="gentle"), "L", {"body_check": [1] * 5})
    assert events[0].data["body_check"] is None
    assert types(events) == ["WoundTaken"]


def test_without_the_critical_category_two_successes_make_no_hit():
    _, events = wound(ash(critical_category=False), "M", CRITICAL_RIBS)
    assert events[0].data["body_check"]["successes"] == 2
    assert types(events) == ["WoundTaken"]


def test_combat_pool_dice_join_the_body_check_when_the_option_allows():
    state = ash(combat_pool_on_body_check=True)
    _, events = wound(state, "S", {"body_check": [6, 6, 6, 1, 1, 1, 1]}, combat_pool=2)
    check = events[0].data["body_check"]
    assert (check["pool"], check["combat_pool"], check["successes"]) == (7, 2, 3)
    assert types(events) == ["WoundTaken"]


# --- diagnose --------------------------------------------------------------------------------------------------


def test_a_failed_diagnosis_leaves_the_hit_undiagnosed():
    state, _ = wound(ash(), "S", MORTAL_LUNG)
    action = {"type": "diagnose", "medic": "Doc", "skill": 2, "critical_hit": "ch1"}
    state, events = act(state, action, {"diagnosis": [3, 3]})
    result = events[0].data["results"][0]
    assert (result["successes"], result["diagnosed"]) == (0, False)
    assert hit(state)["diagnosed"] is False


def test_defaulting_adds_4_and_assensing_takes_2_from_the_diagnosis_tn():
    state, _ = wound(ash(), "S", MORTAL_LUNG)
    action = {
        "type": "diagnose",
        "medic": "Mage",
        "skill": 2,
        "defaulting": True,
        "assensing": True,
        "critical_hit": "ch1",
    }
    _, events = act(state, action, {"diagnosis": [6, 5]})
    result = events[0].data["results"][0]
    assert (result["target"], result["successes"]) == (6, 1)


def test_an_asterisk_entry_on_an_open_wound_is_diagnosed_without_dice():
    state, _ = wound(
        ash(), "S", {"body_check": [1] * 5, "location": [5, 5], "critical": [1], "death_time": [2]}
    )
    state, events = act(state, {"type": "diagnose", "medic": "Doc", "skill": 1}, {"diagnosis:ch1": [1]})
    result = events[0].data["results"][0]
    assert (result["automatic"], result["dice"], result["diagnosed"]) == (True, [], True)
    assert hit(state)["part"] == "shoulder"
    assert hit(state)["diagnosed"] is True


def test_an_asterisk_entry_on_a_closed_wound_needs_a_roll():
    rolls = {"body_check": [1] * 5, "location": [5, 5], "critical": [1], "death_time": [2]}
    state, _ = wound(ash(), "S", rolls, open_wound=False)
    _, events = act(state, {"type": "diagnose", "medic": "Doc", "skill": 1}, {"diagnosis:ch1": [3]})
    result = events[0].data["results"][0]
    assert (result["automatic"], result["target"], result["diagnosed"]) == (False, 4, False)


def test_diagnosing_every_hit_rolls_per_hit_dice():
    state, _ = wound(ash(), "S", MORTAL_LUNG)
    state, _ = wound(state, "M", CRITICAL_RIBS)
    rolls = {"diagnosis:ch1": [4, 1], "diagnosis:ch2": [3, 3]}
    _, events = act(state, {"type": "diagnose", "medic": "Doc", "skill": 2}, rolls)
    results = events[0].data["results"]
    assert [(r["critical_hit"], r["dice"], r["diagnosed"]) for r in results] == [
        ("ch1", [4, 1], True),
        ("ch2", [3, 3], False),
    ]


def test_the_dice_of_the_one_hit_to_diagnose_are_taken_without_naming_it():
    """docs/rules/shadowrun2.md: `diagnosis` is one hit's roll. With the hit not chosen and one alone to diagnose, the
    GM's dice were rolled over by the server in silence (the web's one Diagnosis field)."""
    state, _ = wound(ash(), "S", MORTAL_LUNG)
    _, events = act(state, {"type": "diagnose", "medic": "Doc", "skill": 2}, {"diagnosis": [6, 6]})
    results = events[0].data["results"]
    assert [(r["critical_hit"], r["dice"], r["successes"]) for r in results] == [("ch1", [6, 6], 2)]


# --- treat -----------------------------------------------------------------------------------------------------


def test_a_failed_treatment_marks_the_hit_improperly_treated():
    state, _ = wound(ash(), "M", CRITICAL_RIBS)
    state = diagnosed(state)
    action = {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 2}
    state, events = act(state, action, {"treatment": [3, 1]})
    assert types(events) == ["TreatmentFailed"]
    assert events[0].data["target"] == 4
    treated = hit(state)
    assert (treated["improperly_treated"], treated["treated"], treated["treatment_completes_at"]) == (
        True,
        False,
        None,
    )


def test_a_defaulting_medic_treats_a_critical_hit_against_tn_8():
    state, _ = wound(ash(), "M", CRITICAL_RIBS)
    state = diagnosed(state)
    action = {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 2, "defaulting": True}
    _, events = act(state, action, {"treatment": [8, 7]})
    data = events[0].data
    assert (data["target"], data["successes"], data["duration"]) == (8, 1, 1200)


# --- heal_magic ------------------------------------------------------------------------------------------------


def test_a_mortal_hit_healed_by_one_box_is_crippling_and_stops_dying():
    state, _ = wound(ash(), "S", MORTAL_LUNG)
    state = diagnosed(state)
    state, _ = act(
        state, {"type": "heal_magic", "successes": 1, "mode": "allocate", "allocation": {"ch1": 1}}
    )
    healed = hit(state)
    assert (
        healed["lethality"],
        healed["boxes"],
        healed["penalty"],
        healed["death_at"],
        healed["treated"],
    ) == (
        "crippling",
        9,
        3,
        None,
        True,
    )
    assert (view(state, GM)["dying"], view(state, GM)["death_at"]) == (False, None)
    assert "death:ch1" not in [timer.key for timer in timers(state)]


def test_a_mortal_hit_healed_by_five_boxes_is_critical():
    state, _ = wound(ash(), "S", MORTAL_LUNG)
    state = diagnosed(state)
    state, _ = act(
        state, {"type": "heal_magic", "successes": 5, "mode": "allocate", "allocation": {"ch1": 5}}
    )
    assert (hit(state)["lethality"], hit(state)["boxes"], hit(state)["penalty"]) == ("critical", 5, 2)


def test_the_shamans_10_successes_allocated_6_1_3():
    state, _ = wound(ash(), "S", MORTAL_LUNG)
    state, _ = wound(state, "M", CRIPPLING_ABDOMEN)
    state = diagnosed(diagnosed(state, "ch1"), "ch2")
    action = {
        "type": "heal_magic",
        "successes": 10,
        "mode": "allocate",
        "allocation": {"physical": 6, "ch1": 1, "ch2": 3},
    }
    state, events = act(state, action)
    assert sheet(state)["physical"] == {"boxes": 3, "level": "M"}
    assert [(h["boxes"], h["lethality"]) for h in sheet(state)["critical_hits"]] == [
        (9, "crippling"),
        (3, "critical"),
    ]
    assert events[0].data["shares"] == {"physical": 6, "ch1": 1, "ch2": 3}


def test_the_shamans_10_successes_split_evenly_4_3_3_even_on_undiagnosed_hits():
    state, _ = wound(ash(), "S", MORTAL_LUNG)
    state, _ = wound(state, "M", CRIPPLING_ABDOMEN)
    state, events = act(state, {"type": "heal_magic", "successes": 10, "mode": "split_evenly"})
    assert events[0].data["shares"] == {"physical": 4, "ch1": 3, "ch2": 3}
    assert sheet(state)["physical"] == {"boxes": 5, "level": "M"}
    assert [(h["boxes"], h["lethality"], h["diagnosed"]) for h in sheet(state)["critical_hits"]] == [
        (7, "crippling", False),
        (3, "critical", False),
    ]


def test_damage_only_magic_erases_overflow_first_and_wastes_the_rest():
    state, _ = wound(ash(), "D", {"body_check": [13, 13, 13, 1, 1]})
    state, _ = wound(state, "L", {"body_check": [2, 2, 2, 1, 1]})
    state, _ = wound(state, "L", {"body_check": [2, 2, 2, 1, 1]})
    state, events = act(state, {"type": "heal_magic", "successes": 15, "mode": "damage_only"})
    physical = events[0].data["physical"]
    assert (physical["erased_overflow"], physical["erased"], physical["boxes"]) == (2, 10, 0)
    assert (sheet(state)["physical"], sheet(state)["physical_overflow"]) == ({"boxes": 0, "level": None}, 0)


def test_magic_cannot_heal_stun():
    state, _ = wound(ash(), "M", {}, damage="stun")
    state, _ = act(state, {"type": "heal_magic", "successes": 3, "mode": "damage_only"})
    assert sheet(state)["stun"] == {"boxes": 3, "level": "M"}


# --- first_aid -------------------------------------------------------------------------------------------------


def test_first_aid_heals_at_most_one_level():
    state, _ = wound(ash(), "S", NO_HIT_SERIOUS)
    state, _ = act(state, {"type": "first_aid", "medic": "Doc", "skill": 4}, {"first_aid": [7, 7, 7, 7]})
    assert sheet(state)["physical"] == {"boxes": 3, "level": "M"}


def test_first_aid_without_a_medkit_adds_4_to_the_tn():
    state, _ = wound(ash(), "L", {"body_check": [2, 2, 2, 1, 1]})
    action = {"type": "first_aid", "medic": "Doc", "skill": 1, "medkit": False}
    state, events = act(state, action, {"first_aid": [7]})
    assert (events[0].data["target"], sheet(state)["physical"]["boxes"]) == (7, 0)


def test_first_aid_on_a_deadly_monitor_only_stabilizes():
    state, _ = wound(ash(), "D", {"body_check": [13, 13, 13, 1, 1]})
    assert "overflow" in [timer.key for timer in timers(state)]
    assert view(state, GM)["dying"] is True
    state, events = act(state, {"type": "first_aid", "medic": "Doc", "skill": 1}, {"first_aid": [9]})
    data = events[0].data
    assert (data["target"], data["successes"], data["boxes"], data["stabilized"]) == (9, 1, 10, True)
    assert sheet(state)["stabilized"] is True
    assert sheet(state)["physical"]["boxes"] == 10
    assert "overflow" not in [timer.key for timer in timers(state)]
    assert view(state, GM)["dying"] is False
