"""Every row of every seed table, exercised through the engine with the dice entered."""

from __future__ import annotations

import pytest

from rules.shadowrun2 import tables
from rules.shadowrun2.engine import lethality_of, level, modifier, natural_healing_target

from .helpers import act, character, hit, wounded

# ---- Step 1: Body-check TN, both columns (gentle / standard) -----------------------------------------------


@pytest.mark.parametrize(
    ("column", "severity", "target"),
    [
        ("standard", "L", 2),
        ("standard", "M", 4),
        ("standard", "S", 6),
        ("standard", "D", 10),
        ("gentle", "M", 2),
        ("gentle", "S", 4),
        ("gentle", "D", 8),
    ],
)
def test_the_body_check_uses_the_target_number_of_the_chosen_column(column, severity, target):
    state = character(body=2, body_check_tn=column)
    rolls = {"body_check": [5, 5], "location": [3, 4], "critical": [1], "death_time": [3]}
    _, events = act(state, {"type": "wound", "severity": severity}, rolls)
    assert events[0].data["body_check"]["target"] == target


def test_a_light_wound_makes_no_body_check_and_no_critical_hit_in_the_gentle_column():
    state = character(body=2, body_check_tn="gentle")
    state, events = act(state, {"type": "wound", "severity": "L"})
    assert [e.type for e in events] == ["WoundTaken"]
    assert events[0].data["body_check"] is None
    assert state["critical_hits"] == []


# ---- Step 1.1: successes to lethality ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "lethality"),
    [([1, 1, 1, 1], "mortal"), ([6, 1, 1, 1], "crippling"), ([6, 6, 1, 1], "critical"), ([6, 6, 6, 1], None)],
)
def test_body_check_successes_decide_the_lethality(dice, lethality):
    state = wounded(dice)
    found = [h["lethality"] for h in state["critical_hits"]]
    assert found == ([lethality] if lethality else [])


@pytest.mark.parametrize(("dice", "lethality"), [([1, 1], "mortal"), ([6, 1], "crippling"), ([6, 6], None)])
def test_without_the_critical_category_two_successes_are_no_critical_hit(dice, lethality):
    state = wounded(dice, state=character(body=2, critical_category=False))
    found = [h["lethality"] for h in state["critical_hits"]]
    assert found == ([lethality] if lethality else [])


# ---- Step 2: 2d6 hit location --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "location"),
    [
        ([1, 1], "head"),
        ([1, 2], "right_leg"),
        ([1, 3], "right_arm"),
        ([1, 4], "abdomen"),
        ([1, 5], "chest"),
        ([1, 6], "chest"),
        ([2, 6], "chest"),
        ([3, 6], "abdomen"),
        ([4, 6], "left_arm"),
        ([5, 6], "left_leg"),
        ([6, 6], "head"),
    ],
)
def test_the_location_roll_picks_the_hit_location(roll, location):
    state = wounded([6, 6, 1, 1], location=roll)
    assert hit(state)["location"] == location


# ---- Step 3: the 30-entry critical hit table, with each entry's time before death ----------------------------

LOCATION_ROLL = {"CHEST": [3, 4], "ABDOMEN": [2, 3], "HEAD": [1, 1], "ARM": [1, 3], "LEG": [5, 6]}

# (table, d6, part, reason, diagnose TN, asterisk, death-time dice entered, seconds until death)
CRITICAL_HIT_ROWS = [
    ("CHEST", 1, "lung", "IB", 4, False, [2], 20 * 60),
    ("CHEST", 2, "ribs", "IB", 4, False, [5], 50 * 60),
    ("CHEST", 3, "spine", "suffo", 4, False, [4], 4 * 60),
    ("CHEST", 4, "diaphragm", "suffo", 6, False, [3, 5], 8 * 60),
    ("CHEST", 5, "heart", "heart", 2, False, [3], 90),
    ("CHEST", 6, "collarbone", "art", 4, True, [6], 6 * 60),
    ("ABDOMEN", 1, "stomach", "IB", 8, False, [6, 6], 12 * 3600),
    ("ABDOMEN", 2, "intestines", "IB", 8, False, [1, 2], 3 * 3600),
    ("ABDOMEN", 3, "diaphragm", "suffo", 6, False, [2, 2], 4 * 60),
    ("ABDOMEN", 4, "spleen", "IB", 8, False, [2], 2 * 3600),
    ("ABDOMEN", 5, "kidney", "IB", 8, False, [5], 5 * 3600),
    ("ABDOMEN", 6, "ribs", "IB", 4, False, [1], 10 * 60),
    ("HEAD", 1, "skull", "brain", 2, False, [1], 30),
    ("HEAD", 2, "eye", "brain", 2, False, [2], 60),
    ("HEAD", 3, "ear", "brain", 2, False, [5], 150),
    ("HEAD", 4, "nose", "brain", 2, False, [6], 180),
    ("HEAD", 5, "jaw", "art", 4, True, [4, 3], 7 * 60),
    ("HEAD", 6, "neck", "art", 4, True, [4], 120),
    ("ARM", 1, "shoulder", "art", 4, True, [1], 60),
    ("ARM", 2, "upper arm", "art", 4, True, [6, 5], 11 * 60),
    ("ARM", 3, "elbow", "art", 4, True, [2], 120),
    ("ARM", 4, "lower arm", "art", 4, True, [1, 1], 120),
    ("ARM", 5, "wrist", "art", 4, True, [3], 180),
    ("ARM", 6, "hand", "art", 4, True, [2, 4], 6 * 60),
    ("LEG", 1, "hip", "art", 4, True, [5], 5 * 60),
    ("LEG", 2, "thigh", "art", 4, True, [6], 6 * 60),
    ("LEG", 3, "knee", "art", 4, True, [2], 120),
    ("LEG", 4, "calf", "art", 4, True, [3, 3], 6 * 60),
    ("LEG", 5, "ankle", "art", 4, True, [4], 4 * 60),
    ("LEG", 6, "foot", "art", 4, True, [6, 6], 12 * 60),
]


@pytest.mark.parametrize(
    ("table", "roll", "part", "reason", "diagnose", "asterisk", "death_dice", "seconds"), CRITICAL_HIT_ROWS
)
def test_each_critical_hit_table_entry_gives_its_part_reason_diagnosis_and_time_before_death(
    table, roll, part, reason, diagnose, asterisk, death_dice, seconds
):
    state = character()
    rolls = {"body_check": [1, 1, 1, 1], "location": LOCATION_ROLL[table], "critical": [roll]}
    rolls["death_time"] = death_dice
    state, events = act(state, {"type": "wound", "severity": "S"}, rolls, now=1000)
    data = events[1].data
    assert (data["table"], data["part"], data["reason"]) == (table, part, reason)
    assert data["diagnose_tn"] == diagnose
    assert data["diagnosed_automatically_when_open"] is asterisk
    assert data["death_time_dice"] == death_dice
    assert data["death_at"] == 1000 + seconds
    assert hit(state)["death_at"] == 1000 + seconds


def test_the_table_has_thirty_entries_and_a_symptom_for_each():
    entries = [(name, roll) for name, rows in tables.CRITICAL_HIT_TABLE.items() for roll in rows]
    assert len(entries) == 30
    assert sorted(entries) == sorted((name, roll) for name, rows in tables.SYMPTOMS.items() for roll in rows)


@pytest.mark.parametrize(
    ("table", "roll"), [(name, roll) for name, rows in tables.SYMPTOMS.items() for roll in rows]
)
def test_a_symptom_text_never_tells_the_lethality_or_a_time(table, roll):
    symptom = tables.SYMPTOMS[table][roll].lower()
    assert len(symptom) > 20
    for word in ("mortal", "crippl", "critical", "death", "dying", "minute", "hour", "lethal", "fatal"):
        assert word not in symptom


def test_arm_and_leg_hits_take_their_side_from_the_location_roll():
    left = wounded([6, 6, 1, 1], location=[4, 6], critical=3)
    right = wounded([6, 6, 1, 1], location=[1, 3], critical=3)
    assert (hit(left)["location"], hit(left)["part"]) == ("left_arm", "elbow")
    assert (hit(right)["location"], hit(right)["part"]) == ("right_arm", "elbow")


# ---- Step 5: a critical hit's monitor and penalties ------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "boxes", "penalty"), [([1, 1, 1, 1], 10, 4), ([6, 1, 1, 1], 6, 3), ([6, 6, 1, 1], 3, 2)]
)
def test_a_new_critical_hit_marks_its_monitor_by_lethality(dice, boxes, penalty):
    state = wounded(dice)
    assert (hit(state)["boxes"], hit(state)["penalty"]) == (boxes, penalty)


@pytest.mark.parametrize(
    ("boxes", "expected_level", "expected_modifier", "lethality"),
    [
        (0, None, 0, "healed"),
        (1, "L", 1, "critical"),
        (2, "L", 1, "critical"),
        (3, "M", 2, "critical"),
        (4, "M", 2, "critical"),
        (5, "M", 2, "critical"),
        (6, "S", 3, "crippling"),
        (7, "S", 3, "crippling"),
        (8, "S", 3, "crippling"),
        (9, "S", 3, "crippling"),
        (10, "D", 4, "mortal"),
    ],
)
def test_every_box_count_has_its_level_penalty_and_lethality(
    boxes, expected_level, expected_modifier, lethality
):
    assert level(boxes) == expected_level
    assert modifier(boxes) == expected_modifier
    assert lethality_of(boxes) == lethality


# ---- Step 6: natural-healing modifiers -------------------------------------------------------------------------


def _critical_hit_on(body: int, **flags):
    state = character(body=body)
    state["critical_hits"] = [{"treated": False, "improperly_treated": False, **flags}]
    return state, state["critical_hits"][0]


@pytest.mark.parametrize(
    ("body", "target"),
    [(1, 13), (2, 13), (3, 12), (4, 12), (5, 11), (8, 11), (9, 10), (12, 10), (13, 9), (20, 9)],
)
def test_natural_healing_body_modifiers_follow_the_seed_chart_with_12_at_minus_2(body, target):
    state, critical_hit = _critical_hit_on(body)
    assert natural_healing_target(state, critical_hit)[0] == target


def test_natural_healing_in_hospital_and_treated_is_the_base_six_plus_body():
    state, critical_hit = _critical_hit_on(4, treated=True)
    state["in_hospital"] = True
    assert natural_healing_target(state, critical_hit) == (6, {})


def test_an_improperly_treated_wound_takes_plus_two_instead_of_plus_four():
    state, critical_hit = _critical_hit_on(4, improperly_treated=True)
    assert natural_healing_target(state, critical_hit) == (
        10,
        {"not_in_hospital": 2, "improperly_treated": 2},
    )
