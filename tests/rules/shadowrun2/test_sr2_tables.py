"""Every row of every seed table, exercised through the engine with the dice entered."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest

from rules.ruleset import PLAYER
from rules.shadowrun2 import tables
from rules.shadowrun2.engine import lethality_of, level, modifier, natural_healing_target
from rules.shadowrun2.view import view

from .helpers import CRITICAL, PART_WORDS, act, character, hit, part_words_in, wounded

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


# ---- Rule 7: symptoms -------------------------------------------------------------------------------------------

# Location dice that land on each table (arms and legs: the right side).
LOCATION_DICE = {"CHEST": [3, 4], "ABDOMEN": [2, 3], "HEAD": [1, 1], "ARM": [1, 3], "LEG": [1, 2]}
ENTRIES = [(name, roll) for name, rows in tables.CRITICAL_HIT_TABLE.items() for roll in rows]

# Lethality and time words, and the monitor levels (Light to Deadly) and other severity words: one text stands
# for a Mortal hit and a Critical one alike, so none may grade the hit.
LETHALITY_WORDS = (
    "mortal",
    "crippl",
    "critical",
    "fatal",
    "death",
    "dead",
    "dying",
    "die",
    "lethal",
    "kill",
    "minute",
    "hour",
    "light",
    "moderate",
    "serious",
    "severe",
    "massive",
    "heav",
    "slight",
    "minor",
    "mild",
)


def words_starting_with(text: str, stems: Iterable[str]) -> list[str]:
    """The words of `text` that begin with one of `stems`: "crippl" catches "crippled" and "crippling"."""
    return [word for word in re.findall(r"[a-z]+", text.lower()) if word.startswith(tuple(stems))]


def player_symptom(table: str, roll: int, open_wound: bool) -> str:
    state = wounded(CRITICAL, location=LOCATION_DICE[table], critical=roll, open_wound=open_wound)
    seen = hit(state, audience=PLAYER)
    assert (seen["part"], seen["diagnosed"]) == (None, False)
    return seen["symptom"]


def test_the_table_has_thirty_entries_and_a_symptom_for_each_open_and_closed_wound():
    assert len(ENTRIES) == 30
    assert tables.SYMPTOMS.keys() == tables.CRITICAL_HIT_TABLE.keys()
    assert all(texts.keys() == {"open", "dressed", "closed"} for texts in tables.SYMPTOMS.values())


@pytest.mark.parametrize("table", tables.CRITICAL_HIT_TABLE)
def test_a_dressed_wound_bleeds_no_more_and_names_no_part_and_no_lethality(table):
    """An open wound once treated (a GM's walkthrough: a treated hit still bled through the clothes)."""
    dressed = tables.SYMPTOMS[table]["dressed"]
    assert "bleed" not in dressed and "bleed" not in tables.SYMPTOMS[table]["closed"]
    assert part_words_in(dressed) == []
    assert words_starting_with(dressed, LETHALITY_WORDS) == []


def test_the_forbidden_words_are_the_parts_of_the_table_without_the_location_groups():
    expected = """ankle calf collarbone diaphragm ear elbow eye foot hand heart hip intestines jaw kidney knee lower lung
    neck nose ribs shoulder skull spine spleen stomach thigh upper wrist"""
    assert expected.split() == PART_WORDS


def test_the_checks_catch_texts_that_name_a_part_or_grade_the_hit():
    """Texts this table held before rule 7: each said what the part was, or how bad the hit was."""
    nose = "The nose is smashed and streams blood; eyes water, head pounds."
    jaw = "The jaw hangs crooked and bleeds heavily; cannot speak clearly."
    spleen = "Pain under the left ribs that reaches the shoulder; light-headed."
    assert part_words_in(nose) == ["nose", "eyes"]
    assert part_words_in(spleen) == ["ribs", "shoulder"]
    assert words_starting_with(jaw, LETHALITY_WORDS) == ["heavily"]
    assert words_starting_with(spleen, LETHALITY_WORDS) == ["light"]


@pytest.mark.parametrize("open_wound", [True, False], ids=["open", "closed"])
@pytest.mark.parametrize(("table", "roll"), ENTRIES)
def test_an_undiagnosed_hit_shows_a_symptom_naming_no_part_and_no_lethality(table, roll, open_wound):
    symptom = player_symptom(table, roll, open_wound)
    assert symptom == tables.SYMPTOMS[table]["open" if open_wound else "closed"]
    assert len(symptom) > 20
    assert part_words_in(symptom) == []
    assert words_starting_with(symptom, LETHALITY_WORDS) == []


@pytest.mark.parametrize("table", tables.CRITICAL_HIT_TABLE)
def test_the_six_entries_of_a_location_show_one_symptom_so_the_text_never_tells_the_entry(table):
    for open_wound in (True, False):
        assert len({player_symptom(table, roll, open_wound) for roll in range(1, 7)}) == 1
    assert player_symptom(table, 1, True) != player_symptom(table, 1, False)


def test_the_symptom_names_the_location_group_and_the_view_adds_the_side():
    state = wounded(CRITICAL, location=[4, 6], critical=6)
    assert view(state, PLAYER)["symptoms"][-1] == (
        "left arm: A wound in the arm bleeds and throbs; the arm is weak and clumsy and hurts to move."
    )


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
