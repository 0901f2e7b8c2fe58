"""shadowrun2 through the HTTP API (issue 3): each action's wiring with entered dice, every error, the clock, the
player view, and a Hypothesis property at the service level. The rule arithmetic of the worked examples lives in
tests/rules/shadowrun2 (issue 15).

The `sr2` fixture's character Ash has body 5 (willpower 5), so every Body check rolls 5 dice. Clock advances run
their task in-process when the transaction commits; under the `db` fixture the test's transaction never commits,
so `advance` runs the commit callbacks with `django_capture_on_commit_callbacks(execute=True)`: the job has
finished when the 202 returns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from random import Random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign import services
from campaign.ledger.projections import character_state_at, rebuild_campaign
from campaign.models import Campaign, Character, Event, Job, Timer
from rules.dice import Dice, parse_expression
from rules.params import RuleError
from rules.shadowrun2 import engine
from rules.shadowrun2 import tables as t
from tests.conftest import ServerDice, Table, seeded_dice

pytestmark = pytest.mark.django_db

MINUTE, HOUR, DAY, WEEK = 60, 3600, 86_400, 7 * 86_400
REST = 10 * MINUTE  # natural healing rolls wait this long after the latest wound (house, `rest_minutes`)

# Body 5 against the Serious TN 6: no success is Mortal, one is Crippling, two are Critical.
# A Mortal hit on the chest's lung (location 3+4 = 7 chest, table die 1): `1d6x10 min`, diagnose TN 4, no `*`.
MORTAL_LUNG = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
# A Crippling hit on the chest's ribs (table die 2): diagnose TN 4, no `*`.
CRIPPLING_RIBS = {"body_check": [6, 1, 1, 1, 1], "location": [3, 4], "critical": [2]}
# Moderate (TN 4), two successes: a Critical hit on the abdomen's ribs (location 2+3 = 5, table die 6), TN 4.
CRITICAL_RIBS = {"body_check": [4, 5, 1, 1, 1], "location": [2, 3], "critical": [6]}
# Moderate (TN 4), one success: a Crippling hit on the abdomen's ribs.
CRIPPLING_ABDOMEN = {"body_check": [4, 1, 1, 1, 1], "location": [2, 3], "critical": [6]}
# Three successes: no critical hit.
NO_HIT_SERIOUS = {"body_check": [6, 6, 6, 1, 1]}


def wound(table: Table, severity: str, rolls: dict[str, Any], **params: Any) -> dict[str, Any]:
    response = table.act({"type": "wound", "severity": severity, **params, "rolls": rolls})
    assert response.status_code == 201, response.content
    return response.json()


def act_ok(table: Table, body: dict[str, Any]) -> dict[str, Any]:
    response = table.act(body)
    assert response.status_code == 201, response.content
    return response.json()


def diagnosed(table: Table, hit: str = "ch1") -> None:
    act_ok(
        table,
        {"type": "diagnose", "medic": "Doc", "skill": 1, "critical_hit": hit, "rolls": {"diagnosis": [6]}},
    )


def gm_sheet(table: Table) -> dict[str, Any]:
    return table.gm.get(table.character_url()).json()["sheet"]


def hit_of(sheet: dict[str, Any], hit: str = "ch1") -> dict[str, Any]:
    return next(h for h in sheet["critical_hits"] if h["id"] == hit)


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def history(table: Table, who: Any = None) -> list[dict[str, Any]]:
    """Oldest first (the API pages newest first)."""
    return (who or table.gm).get(table.character_url() + "events/").json()["events"][::-1]


def assert_refused(table: Table, body: dict[str, Any], field: str, message: str) -> None:
    """400 with exactly this message under exactly this field, and nothing written."""
    events = Event.objects.count()
    before = table.gm.get(table.character_url()).json()
    response = table.act(body)
    assert response.status_code == 400, response.content
    assert response.json() == {field: [message]}
    assert Event.objects.count() == events
    after = table.gm.get(table.character_url()).json()
    assert after["version"] == before["version"]
    assert after == before


@pytest.fixture
def advance(django_capture_on_commit_callbacks: Any) -> Callable[..., dict[str, Any]]:
    def run(table: Table, **amount: int) -> dict[str, Any]:
        with django_capture_on_commit_callbacks(execute=True):
            response = table.advance(**amount)
        assert response.status_code == 202, response.content
        job = table.gm.get(f"/api/jobs/{response.json()['job']}/").json()
        assert job["status"] == "done", job
        return response.json()

    return run


def clock_dice(server_dice: ServerDice, **rolls: list[int]) -> None:
    """The clock rolls through `server_dice` (`campaign.services.core.DICE`): this subclass enters `rolls` for the named timer rolls and
    rolls anything else from a seeded generator. Dice entered in an action's body still win."""

    class ClockDice(Dice):
        def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
            super().__init__({**rolls, **dict(entered or {})}, rng or Random(2053), ask=ask)
            self.body = dict(entered or {})

        def check_unused(self, specs: Any) -> None:
            # The timer rolls are entered into every Dice here, the actions' too: only the body's are the GM's.
            self.entered = self.body
            super().check_unused(specs)

    server_dice(ClockDice)


# --- wound -----------------------------------------------------------------------------------------------------


def test_a_serious_wound_with_no_body_check_success_is_a_mortal_lung_hit_dying_in_30_minutes(
    sr2: Table,
) -> None:
    answer = wound(sr2, "S", MORTAL_LUNG)
    assert types(answer["events"]) == ["WoundTaken", "CriticalHitTaken"]
    taken, hit_event = (event["data"] for event in answer["events"])
    assert taken["body_check"] == {
        "pool": 5,
        "target": 6,
        "dice": [1, 1, 1, 1, 1],
        "successes": 0,
        "combat_pool": 0,
    }
    assert (taken["boxes"], taken["physical"], taken["stun"], taken["physical_overflow"]) == (6, 6, 0, 0)
    assert hit_event["location_roll"] == [3, 4]
    assert (hit_event["table"], hit_event["critical_roll"], hit_event["time_expression"]) == (
        "CHEST",
        1,
        "1d6x10 min",
    )
    assert (hit_event["death_time_dice"], hit_event["death_after_seconds"], hit_event["death_at"]) == (
        [3],
        1800,
        1800,
    )
    character = answer["character"]
    assert character["version"] == 2
    assert (character["alive"], character["conscious"], character["dying"], character["death_at"]) == (
        True,
        True,
        True,
        1800,
    )
    sheet = character["sheet"]
    assert sheet["physical"] == {"boxes": 6, "level": "S"}
    assert sheet["stun"] == {"boxes": 0, "level": None}
    hit = hit_of(sheet)
    assert {key: hit[key] for key in ("location", "part", "reason", "lethality", "boxes", "penalty")} == {
        "location": "chest",
        "part": "lung",
        "reason": "IB",
        "lethality": "mortal",
        "boxes": 10,
        "penalty": 4,
    }
    assert (hit["diagnosed"], hit["open_wound"], hit["death_at"], hit["status"]) == (
        False,
        True,
        1800,
        "active",
    )
    assert hit["symptom"] == t.SYMPTOMS["CHEST"]["open"]
    assert sheet["tn_modifier"]["general"] == 3
    assert sheet["tn_modifier"]["by_location"]["chest"] == 4
    assert sheet["tn_modifier"]["total"] == 7
    assert {"key": "death:ch1", "due": 1800} in [
        {"key": x["key"], "due": x["due"]} for x in character["timers"]
    ]
    assert sr2.gm.get(sr2.character_url()).json()["sheet"] == sheet


# --- diagnose --------------------------------------------------------------------------------------------------


def test_one_diagnosis_success_diagnoses_the_hit(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    answer = act_ok(
        sr2,
        {
            "type": "diagnose",
            "medic": "Doc",
            "skill": 3,
            "critical_hit": "ch1",
            "rolls": {"diagnosis": [4, 1, 1]},
        },
    )
    assert types(answer["events"]) == ["DiagnosisMade"]
    result = answer["events"][0]["data"]["results"][0]
    assert (result["target"], result["dice"], result["successes"], result["diagnosed"]) == (
        4,
        [4, 1, 1],
        1,
        True,
    )
    assert hit_of(answer["character"]["sheet"])["diagnosed"] is True


def test_dice_for_one_hit_while_several_need_a_roll_are_refused(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    wound(sr2, "M", CRITICAL_RIBS)
    assert_refused(
        sr2,
        {"type": "diagnose", "medic": "Doc", "skill": 2, "rolls": {"diagnosis": [6, 6]}},
        "rolls.diagnosis",
        "2 hits need a diagnosis roll (ch1, ch2): choose the hit, or enter each hit's dice as diagnosis:<id>",
    )


# --- treat -----------------------------------------------------------------------------------------------------


def test_a_successful_treatment_of_a_mortal_hit_takes_10_minutes_per_success(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    diagnosed(sr2)
    answer = act_ok(
        sr2,
        {
            "type": "treat",
            "critical_hit": "ch1",
            "medic": "Doc",
            "skill": 3,
            "rolls": {"treatment": [9, 13, 2]},
        },
    )
    assert types(answer["events"]) == ["TreatmentStarted"]
    data = answer["events"][0]["data"]
    assert (data["target"], data["successes"], data["duration"], data["completes_at"]) == (8, 2, 300, 300)
    hit = hit_of(answer["character"]["sheet"])
    assert (hit["treatment_completes_at"], hit["treated"], hit["lethality"]) == (300, False, "mortal")


# --- heal_magic ------------------------------------------------------------------------------------------------


def test_the_shamans_10_successes_allocated_6_1_3(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    wound(sr2, "M", CRIPPLING_ABDOMEN)
    diagnosed(sr2, "ch1")
    diagnosed(sr2, "ch2")
    answer = act_ok(
        sr2,
        {
            "type": "heal_magic",
            "successes": 10,
            "mode": "allocate",
            "allocation": {"physical": 6, "ch1": 1, "ch2": 3},
        },
    )
    sheet = answer["character"]["sheet"]
    assert sheet["physical"] == {"boxes": 3, "level": "M"}
    assert [(h["boxes"], h["lethality"]) for h in sheet["critical_hits"]] == [
        (9, "crippling"),
        (3, "critical"),
    ]
    assert answer["events"][0]["data"]["shares"] == {"physical": 6, "ch1": 1, "ch2": 3}


# --- first_aid -------------------------------------------------------------------------------------------------


def test_first_aid_heals_a_box_per_success_against_tn_7_for_a_serious_wound_at_body_5(sr2: Table) -> None:
    wound(sr2, "S", NO_HIT_SERIOUS)
    answer = act_ok(sr2, {"type": "first_aid", "medic": "Doc", "skill": 3, "rolls": {"first_aid": [7, 8, 1]}})
    data = answer["events"][0]["data"]
    assert (data["target"], data["successes"], data["boxes_before"], data["boxes"]) == (7, 2, 6, 4)
    assert answer["character"]["sheet"]["physical"] == {"boxes": 4, "level": "M"}


def test_a_wounded_medics_own_wound_modifiers_do_not_move_first_aid_or_treatment(sr2: Table) -> None:
    """RULES.md gives first aid's target whole (the patient's physical level, the patient's Body, no medkit,
    defaulting) and a treatment's (the hit's lethality from the table, defaulting); the medic's own wounds are not
    in either. Where RULES.md means a character's own wound modifier it says so (stun recovery: "TN 2 + general
    modifier"), and where it means none it says that too (the Body check). So Doc, a character of the campaign with
    Serious physical and Moderate stun damage (his general modifier +3 +2 = +5, which his sheet shows), reads his
    dice against the same targets as an unhurt street doc: 7 and 8, not 12 and 13."""
    made = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/", {"name": "Doc", "attributes": {"body": 5}}
    )
    assert made.status_code == 201, made.content
    doc = f"/api/characters/{made.json()['id']}/actions/"
    for severity, damage in (("S", "physical"), ("M", "stun")):
        hurt = {"type": "wound", "severity": severity, "damage": damage, "rolls": NO_HIT_SERIOUS}
        assert sr2.gm.post(doc, hurt).status_code == 201
    sheet = sr2.gm.get(f"/api/characters/{made.json()['id']}/").json()["sheet"]
    assert sheet["tn_modifier"]["general"] == 5
    wound(sr2, "S", MORTAL_LUNG)  # Ash: Serious physical (6 boxes) and a Mortal hit to the lung (ch1)
    diagnosed(sr2)
    aid = act_ok(sr2, {"type": "first_aid", "medic": "Doc", "skill": 3, "rolls": {"first_aid": [7, 8, 1]}})
    data = aid["events"][0]["data"]
    assert (data["target"], data["successes"], data["boxes"]) == (7, 2, 4)  # 8 for Serious, -1 for Body 5
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 3,
        "rolls": {"treatment": [9, 11, 2]},
    }
    started = act_ok(sr2, treat)["events"][0]["data"]
    assert (started["target"], started["successes"], started["duration"]) == (8, 2, 300)  # a Mortal hit: 8


# --- replace, set_care, note, undo -----------------------------------------------------------------------------


def test_a_replaced_crippling_hit_has_no_penalty_and_stays_in_history(sr2: Table) -> None:
    wound(sr2, "S", CRIPPLING_RIBS)
    diagnosed(sr2)
    answer = act_ok(sr2, {"type": "replace", "critical_hit": "ch1", "replacement": "Bone lacing"})
    assert types(answer["events"]) == ["CriticalHitReplaced"]
    hit = hit_of(answer["character"]["sheet"])
    assert (hit["status"], hit["replacement"], hit["penalty"], hit["boxes"], hit["lethality"]) == (
        "replaced",
        "Bone lacing",
        0,
        6,
        "crippling",
    )
    assert answer["character"]["sheet"]["tn_modifier"]["total"] == 3


def test_set_care_puts_the_character_in_hospital(sr2: Table) -> None:
    answer = act_ok(sr2, {"type": "set_care", "in_hospital": True})
    assert types(answer["events"]) == ["CareChanged"]
    assert answer["character"]["sheet"]["in_hospital"] is True
    assert (
        act_ok(sr2, {"type": "set_care", "in_hospital": False})["character"]["sheet"]["in_hospital"] is False
    )


def test_a_note_is_kept_for_the_gm(sr2: Table) -> None:
    answer = act_ok(sr2, {"type": "note", "text": "owes the fixer"})
    assert types(answer["events"]) == ["NoteAdded"]
    assert [n["text"] for n in answer["character"]["notes"]] == ["owes the fixer"]


def test_undo_takes_back_the_whole_wound_and_its_critical_hit(sr2: Table) -> None:
    wound(sr2, "M", CRITICAL_RIBS)
    wound(sr2, "S", MORTAL_LUNG)
    answer = act_ok(sr2, {"type": "undo"})
    assert types(answer["events"]) == ["ActionUndone"]
    assert answer["events"][0]["data"]["types"] == ["WoundTaken", "CriticalHitTaken"]
    sheet = answer["character"]["sheet"]
    assert sheet["physical"] == {"boxes": 3, "level": "M"}
    assert [h["id"] for h in sheet["critical_hits"]] == ["ch1"]
    assert answer["character"]["death_at"] is None
    assert [e["voided"] for e in history(sr2)] == [False, False, True, True, False]
    assert gm_sheet(sr2) == sheet


# --- errors: 400, the field, the message, nothing written ------------------------------------------------------


def test_treating_an_undiagnosed_hit_is_refused(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    body = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 3,
        "rolls": {"treatment": [9, 1, 1]},
    }
    assert_refused(sr2, body, "critical_hit", engine.NOT_DIAGNOSED)
    assert engine.NOT_DIAGNOSED == "the medic does not know this critical hit is there"


def test_treating_a_crippling_hit_is_refused(sr2: Table) -> None:
    wound(sr2, "S", CRIPPLING_RIBS)
    diagnosed(sr2)
    body = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 3,
        "rolls": {"treatment": [5, 1, 1]},
    }
    assert_refused(
        sr2,
        body,
        "critical_hit",
        "a medic cannot treat a crippling critical hit; it needs a replacement or healing magic",
    )


def test_a_second_treatment_under_way_is_refused(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    diagnosed(sr2)
    body = {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 1, "rolls": {"treatment": [9]}}
    act_ok(sr2, body)
    assert_refused(sr2, {**body, "medic": "Kay"}, "critical_hit", engine.TREATMENT_UNDER_WAY)


def test_a_medic_retrying_a_diagnosis_within_a_game_minute_is_refused(sr2: Table, advance: Any) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    body = {
        "type": "diagnose",
        "medic": "Doc",
        "skill": 2,
        "critical_hit": "ch1",
        "rolls": {"diagnosis": [3, 3]},
    }
    act_ok(sr2, body)
    message = (
        "Doc failed to diagnose critical hit 1 at 2053-01-01 00:00:00; the same medic may try again on that hit"
        " only after 1 game minute (from 2053-01-01 00:01:00)"
    )
    assert_refused(sr2, body, "critical_hit", message)
    every_hit = {"type": "diagnose", "medic": "Doc", "skill": 2, "rolls": {"diagnosis:ch1": [3, 3]}}
    assert_refused(sr2, every_hit, "medic", message)
    advance(sr2, seconds=59)
    assert_refused(sr2, body, "critical_hit", message)
    act_ok(sr2, {**body, "medic": "Kay"})  # another medic may try at once
    advance(sr2, seconds=1)
    assert act_ok(sr2, body)["events"][0]["game_time"] == 60


def test_allocating_magic_to_an_undiagnosed_hit_is_refused(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    body = {"type": "heal_magic", "successes": 3, "mode": "allocate", "allocation": {"physical": 1, "ch1": 2}}
    assert_refused(
        sr2,
        body,
        "allocation.ch1",
        "the caster does not know this critical hit is there; only diagnosed hits can be targeted",
    )


@pytest.mark.parametrize(
    ("severity", "rolls", "field", "message"),
    [
        (
            "S",
            {"body_check": [1, 1]},
            "rolls.body_check",
            "rolls.body_check: expected 5 dice (the pool), got [1, 1]",
        ),
        (
            "S",
            {"body_check": [1, 1, 1, 1, 7]},
            "rolls.body_check",
            "rolls.body_check: expected 5 dice of 1-6, got [1, 1, 1, 1, 7]",
        ),
        (
            "D",
            {"body_check": [12, 1, 1, 1, 1]},
            "rolls.body_check",
            "rolls.body_check: expected 5 die totals of 1 to 1,000, not a multiple of 6 (Rule of Six: a 6 is "
            "rolled again and added, so 6 then 4 is entered as 10), got [12, 1, 1, 1, 1]",
        ),
        (
            "S",
            {"body_check": [1] * 5, "location": [7, 3]},
            "rolls.location",
            "rolls.location: expected 2 dice of 1-6, got [7, 3]",
        ),
        (
            "S",
            {"body_check": [1] * 5, "location": [3, 4], "critical": [1, 2]},
            "rolls.critical",
            "rolls.critical: expected 1 die of 1-6, got [1, 2]",
        ),
        (
            "S",
            {"body_check": [1] * 5, "location": [3, 4], "critical": [1], "death_time": [3, 3]},
            "rolls.death_time",
            "rolls.death_time: expected 1 die of 1-6, got [3, 3]",
        ),
        (
            "S",
            {"body_check": [1] * 5, "location": [3, 4], "critical": [4], "death_time": [3]},
            "rolls.death_time",
            "rolls.death_time: expected 2 dice of 1-6, got [3]",
        ),
    ],
)
def test_wrong_wound_dice_are_refused_naming_the_roll(
    sr2: Table, severity: str, rolls: dict[str, Any], field: str, message: str
) -> None:
    assert_refused(sr2, {"type": "wound", "severity": severity, "rolls": rolls}, field, message)


def test_wrong_medic_dice_counts_are_refused_naming_the_roll(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    assert_refused(
        sr2,
        {"type": "diagnose", "medic": "Doc", "skill": 2, "critical_hit": "ch1", "rolls": {"diagnosis": [4]}},
        "rolls.diagnosis",
        "rolls.diagnosis: expected 2 dice (the pool), got [4]",
    )
    assert_refused(
        sr2,
        {"type": "diagnose", "medic": "Doc", "skill": 1, "rolls": {"diagnosis:ch1": [4, 4]}},
        "rolls.diagnosis:ch1",
        "rolls.diagnosis:ch1: expected 1 die (the pool), got [4, 4]",
    )
    diagnosed(sr2)
    assert_refused(
        sr2,
        {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 2, "rolls": {"treatment": [12, 1]}},
        "rolls.treatment",
        "rolls.treatment: expected 2 die totals of 1 to 1,000, not a multiple of 6 (Rule of Six: a 6 is "
        "rolled again and added, so 6 then 4 is entered as 10), got [12, 1]",
    )
    assert_refused(
        sr2,
        {"type": "first_aid", "medic": "Doc", "skill": 3, "rolls": {"first_aid": [7]}},
        "rolls.first_aid",
        "rolls.first_aid: expected 3 dice (the pool), got [7]",
    )


def test_any_action_on_a_dead_character_is_refused(sr2: Table) -> None:
    wound(sr2, "D", {"body_check": [13, 13, 13, 1, 1]})
    wound(sr2, "D", {})
    assert_refused(sr2, {"type": "set_care", "in_hospital": True}, "type", "the character is dead")
    assert_refused(sr2, {"type": "wound", "severity": "L"}, "type", engine.DEAD)


def test_combat_pool_without_the_option_is_refused(sr2: Table) -> None:
    assert_refused(
        sr2,
        {"type": "wound", "severity": "S", "combat_pool": 2, "rolls": {"body_check": [1] * 7}},
        "combat_pool",
        "combat pool on the Body check needs the house rule that allows it (Combat pool on the Body check)",
    )


def test_diagnosing_a_diagnosed_or_replaced_hit_is_refused(sr2: Table) -> None:
    wound(sr2, "S", CRIPPLING_RIBS)
    diagnosed(sr2)
    body = {
        "type": "diagnose",
        "medic": "Kay",
        "skill": 1,
        "critical_hit": "ch1",
        "rolls": {"diagnosis": [6]},
    }
    assert_refused(sr2, body, "critical_hit", "critical hit 1 to the chest (ribs) is already diagnosed")
    # Without a hit named, none is left to look for: refused too, nothing written (it wrote "Diagnosis by Doc: .").
    assert_refused(
        sr2,
        {"type": "diagnose", "medic": "Kay", "skill": 1},
        "critical_hit",
        "there is no undiagnosed critical hit to look for: every critical hit is already diagnosed",
    )
    act_ok(sr2, {"type": "replace", "critical_hit": "ch1", "replacement": "Bone lacing"})
    assert_refused(sr2, body, "critical_hit", engine.NOT_ACTIVE)
    assert_refused(
        sr2,
        {"type": "heal_magic", "successes": 1, "mode": "allocate", "allocation": {"ch1": 1}},
        "allocation.ch1",
        "this critical hit is no longer active (healed or replaced)",
    )


def test_a_diagnosis_of_a_character_with_no_critical_hit_is_refused(sr2: Table) -> None:
    wound(sr2, "S", NO_HIT_SERIOUS)
    assert_refused(
        sr2,
        {"type": "diagnose", "medic": "Doc", "skill": 4},
        "critical_hit",
        "there is no undiagnosed critical hit to look for: the character has taken no critical hit",
    )


def test_an_unknown_critical_hit_id_is_refused(sr2: Table) -> None:
    assert_refused(
        sr2,
        {"type": "treat", "critical_hit": "ch9", "medic": "Doc", "skill": 1},
        "critical_hit",
        "no critical hit ch9 on this character",
    )


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"successes": 2, "mode": "allocate"}, "allocation", engine.ALLOCATION_NEEDED),
        (
            {"successes": 2, "mode": "damage_only", "allocation": {"physical": 2}},
            "allocation",
            "an allocation is only given with mode allocate",
        ),
        (
            {"successes": 2, "mode": "allocate", "allocation": {"physical": 3}},
            "allocation",
            "allocates 3 successes, expected at most 2",
        ),
        (
            {"successes": 2, "mode": "allocate", "allocation": {"stun": 2}},
            "allocation.stun",
            "expected physical or a critical hit id, got stun",
        ),
    ],
)
def test_a_bad_spell_allocation_is_refused(
    sr2: Table, body: dict[str, Any], field: str, message: str
) -> None:
    wound(sr2, "S", NO_HIT_SERIOUS)
    assert_refused(sr2, {"type": "heal_magic", **body}, field, message)


def test_first_aid_without_physical_damage_is_refused(sr2: Table) -> None:
    assert_refused(
        sr2,
        {"type": "first_aid", "medic": "Doc", "skill": 1, "rolls": {"first_aid": [6]}},
        "type",
        "there is no physical damage to give first aid to",
    )


def test_first_aid_more_than_a_game_hour_after_the_wound_is_refused(sr2: Table, advance: Any) -> None:
    """The clock's physical-healing roll heals a Light wound in 4.8 hours at best: the box is still there."""
    wound(sr2, "L", {"body_check": [2, 2, 2, 1, 1]})
    advance(sr2, seconds=HOUR + 1)
    assert gm_sheet(sr2)["physical"]["boxes"] == 1
    assert_refused(
        sr2,
        {"type": "first_aid", "medic": "Doc", "skill": 1, "rolls": {"first_aid": [6]}},
        "type",
        "first aid must come within one game hour of the latest physical wound",
    )


def test_first_aid_exactly_one_game_hour_after_the_wound_is_given(sr2: Table, advance: Any) -> None:
    wound(sr2, "L", {"body_check": [2, 2, 2, 1, 1]})
    advance(sr2, hours=1)
    answer = act_ok(sr2, {"type": "first_aid", "medic": "Doc", "skill": 1, "rolls": {"first_aid": [6]}})
    assert answer["character"]["sheet"]["physical"]["boxes"] == 0


def test_first_aid_after_a_healing_spell_or_twice_is_refused(sr2: Table) -> None:
    wound(sr2, "S", NO_HIT_SERIOUS)
    body = {"type": "first_aid", "medic": "Doc", "skill": 1, "rolls": {"first_aid": [1]}}
    act_ok(sr2, body)
    assert_refused(sr2, body, "type", "first aid was already given for the latest physical wound")
    wound(sr2, "L", {"body_check": [2, 2, 2, 1, 1]})
    act_ok(sr2, {"type": "heal_magic", "successes": 1, "mode": "damage_only"})
    assert_refused(sr2, body, "type", "first aid cannot follow a healing spell on the same wound")


def test_replacing_an_undiagnosed_or_a_mortal_hit_is_refused(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    body = {"type": "replace", "critical_hit": "ch1", "replacement": "Cyberlung"}
    assert_refused(sr2, body, "critical_hit", engine.REPLACE_UNDIAGNOSED)
    diagnosed(sr2)
    assert_refused(sr2, body, "critical_hit", "only a crippling critical hit is replaced; this one is mortal")


def test_undo_with_nothing_to_undo_is_refused(sr2: Table) -> None:
    assert_refused(sr2, {"type": "undo"}, "type", services.NOTHING_TO_UNDO)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "wound", "severity": "X"}, "severity"),
        ({"type": "wound", "severity": "L", "damage": "fire"}, "damage"),
        ({"type": "diagnose", "skill": 1}, "medic"),
        ({"type": "diagnose", "medic": "Doc", "skill": 0}, "skill"),
        ({"type": "heal_magic", "successes": -1, "mode": "damage_only"}, "successes"),
        ({"type": "heal_magic", "successes": 1, "mode": "pray"}, "mode"),
        ({"type": "set_care"}, "in_hospital"),
        ({"type": "replace", "critical_hit": "ch1"}, "replacement"),
    ],
)
def test_a_malformed_parameter_is_refused_under_its_own_field(
    sr2: Table, body: dict[str, Any], field: str
) -> None:
    wound(sr2, "S", CRIPPLING_RIBS)
    events = Event.objects.count()
    response = sr2.act(body)
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert Event.objects.count() == events


# --- the clock -------------------------------------------------------------------------------------------------


def test_a_mortal_chest_hit_kills_at_exactly_death_at(sr2: Table, advance: Any) -> None:
    """Independent of the clock's dice: the only other timer is the physical-healing roll (4 days at best)."""
    wound(sr2, "S", MORTAL_LUNG)
    advance(sr2, seconds=1799)
    character = sr2.gm.get(sr2.character_url()).json()
    assert (character["alive"], character["dying"], character["death_at"]) == (True, True, 1800)
    advance(sr2, seconds=1)
    character = sr2.gm.get(sr2.character_url()).json()
    assert character["alive"] is False
    death = [e for e in history(sr2) if e["type"] == "DeathOccurred"]
    assert [(e["game_time"], e["data"], e["actor"]) for e in death] == [
        (1800, {"cause": "critical_hit", "critical_hit": "ch1", "location": "chest", "part": "lung"}, "clock")
    ]
    assert character["timers"] == []


def test_a_treatment_finishing_one_minute_before_death_at_saves_the_patient(sr2: Table, advance: Any) -> None:
    """Diaphragm, `2d6 min` with 6 + 5: death at 660; one success finishes the 10-minute treatment at 600."""
    wound(sr2, "S", {"body_check": [1] * 5, "location": [3, 4], "critical": [4], "death_time": [6, 5]})
    diagnosed(sr2)
    act_ok(
        sr2, {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 1, "rolls": {"treatment": [8]}}
    )
    assert sr2.gm.get(sr2.character_url()).json()["death_at"] == 660
    advance(sr2, hours=1)
    character = sr2.gm.get(sr2.character_url()).json()
    assert character["alive"] is True
    hit = hit_of(character["sheet"])
    assert (hit["lethality"], hit["boxes"], hit["penalty"], hit["treated"], hit["death_at"]) == (
        "crippling",
        6,
        3,
        True,
        None,
    )
    completed = [e for e in history(sr2) if e["type"] == "TreatmentCompleted"]
    assert [(e["game_time"], e["data"]["boxes"]) for e in completed] == [(600, 6)]
    assert "DeathOccurred" not in types(history(sr2))


def test_a_treatment_finishing_at_the_second_of_death_at_saves_the_patient(sr2: Table, advance: Any) -> None:
    """Diaphragm with 5 + 5: death at 600, the very second the treatment ends; the treatment comes first."""
    wound(sr2, "S", {"body_check": [1] * 5, "location": [3, 4], "critical": [4], "death_time": [5, 5]})
    diagnosed(sr2)
    act_ok(
        sr2, {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 1, "rolls": {"treatment": [8]}}
    )
    advance(sr2, hours=1)
    assert sr2.gm.get(sr2.character_url()).json()["alive"] is True
    assert "DeathOccurred" not in types(history(sr2))


def test_a_treatment_finishing_after_death_at_comes_too_late(sr2: Table, advance: Any) -> None:
    """Diaphragm with 4 + 5: death at 540, before the treatment ends at 600, and before the rest would have begun
    (no healing roll is made at all)."""
    wound(sr2, "S", {"body_check": [1] * 5, "location": [3, 4], "critical": [4], "death_time": [4, 5]})
    diagnosed(sr2)
    act_ok(
        sr2, {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 1, "rolls": {"treatment": [8]}}
    )
    advance(sr2, hours=1)
    assert sr2.gm.get(sr2.character_url()).json()["alive"] is False
    assert [(e["type"], e["game_time"]) for e in history(sr2) if e["actor"] == "clock"] == [
        ("DeathOccurred", 540),
    ]


def test_a_critical_hit_treated_to_light_has_penalty_plus_1(
    sr2: Table, advance: Any, server_dice: ServerDice
) -> None:
    """The clock's dice are fixed (ClockDice) so that no natural healing ends within the hour."""
    clock_dice(server_dice, critical_healing=[1] * 5, physical_healing=[1] * 5)
    wound(sr2, "M", CRITICAL_RIBS)
    diagnosed(sr2)
    act_ok(
        sr2,
        {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 2, "rolls": {"treatment": [4, 5]}},
    )
    advance(sr2, seconds=599)
    assert hit_of(gm_sheet(sr2))["boxes"] == 3
    advance(sr2, seconds=1)
    hit = hit_of(gm_sheet(sr2))
    assert (hit["lethality"], hit["boxes"], hit["penalty"], hit["treated"]) == ("critical", 1, 1, True)
    assert gm_sheet(sr2)["tn_modifier"]["by_location"]["abdomen"] == 1


def test_a_critical_hit_heals_8_weeks_over_successes_after_its_period_starts(
    sr2: Table, advance: Any, server_dice: ServerDice
) -> None:
    """ClockDice: the healing roll is entered as [11, 11, 1, 1, 1] against TN 6 + 2 (not in hospital) + 4 (not
    treated) - 1 (body 5) = 11: two successes, so the hit heals 4 weeks after the rest began (10 min after the
    wound), in a one-year advance."""
    clock_dice(server_dice, critical_healing=[11, 11, 1, 1, 1], physical_healing=[6, 6, 6, 6, 6])
    wound(sr2, "M", CRITICAL_RIBS)
    advance(sr2, weeks=52)
    rolled = [e for e in history(sr2) if e["type"] == "CriticalHealingRolled"]
    assert [
        (e["game_time"], e["data"]["target"], e["data"]["successes"], e["data"]["heals_at"]) for e in rolled
    ] == [(REST, 11, 2, REST + 4 * WEEK)]
    assert rolled[0]["data"]["modifiers"] == {"not_in_hospital": 2, "not_treated": 4, "body": -1}
    healed = [e for e in history(sr2) if e["type"] == "CriticalHitHealed"]
    assert [e["game_time"] for e in healed] == [REST + 4 * WEEK]
    hit = hit_of(gm_sheet(sr2))
    assert (hit["status"], hit["boxes"], hit["lethality"], hit["penalty"]) == ("healed", 0, "healed", 0)
    assert gm_sheet(sr2)["physical"] == {"boxes": 0, "level": None}


def test_a_critical_hit_with_no_healing_success_rolls_again_8_weeks_later(
    sr2: Table, advance: Any, server_dice: ServerDice
) -> None:
    clock_dice(server_dice, critical_healing=[1] * 5, physical_healing=[6] * 5)
    wound(sr2, "M", CRITICAL_RIBS)
    advance(sr2, weeks=20)
    rolled = [e["game_time"] for e in history(sr2) if e["type"] == "CriticalHealingRolled"]
    assert rolled == [REST, REST + 8 * WEEK, REST + 16 * WEEK]
    assert hit_of(gm_sheet(sr2))["status"] == "active"


def test_a_deadly_monitor_bleeds_one_overflow_box_every_10_minutes_until_dead(
    sr2: Table, advance: Any
) -> None:
    """No clock dice matter: Deadly physical damage heals only in hospital."""
    wound(sr2, "D", {"body_check": [13, 13, 13, 1, 1]})
    assert sr2.gm.get(sr2.character_url()).json()["death_at"] == 60 * MINUTE
    advance(sr2, minutes=59)
    character = sr2.gm.get(sr2.character_url()).json()
    assert (character["alive"], character["sheet"]["physical_overflow"]) == (True, 5)
    advance(sr2, minutes=1)
    character = sr2.gm.get(sr2.character_url()).json()
    assert (character["alive"], character["sheet"]["physical_overflow"]) == (False, 6)
    boxes = [e["game_time"] for e in history(sr2) if e["type"] == "OverflowBoxTaken"]
    assert boxes == [600, 1200, 1800, 2400, 3000, 3600]


def test_first_aid_stops_the_overflow_clock(sr2: Table, advance: Any) -> None:
    wound(sr2, "D", {"body_check": [13, 13, 13, 1, 1]})
    advance(sr2, minutes=15)
    act_ok(sr2, {"type": "first_aid", "medic": "Doc", "skill": 1, "rolls": {"first_aid": [9]}})
    advance(sr2, hours=3)
    character = sr2.gm.get(sr2.character_url()).json()
    assert (character["alive"], character["sheet"]["physical_overflow"]) == (True, 1)


def test_stun_recovers_one_box_per_hour_over_successes(
    sr2: Table, advance: Any, server_dice: ServerDice
) -> None:
    """ClockDice: the recovery roll is entered as [4, 4, 1, 1, 1] against TN 2 + 2 (Moderate stun): two successes,
    one box every 30 minutes from the roll, once the rest begins 10 min after the wound."""
    clock_dice(server_dice, stun_recovery=[4, 4, 1, 1, 1])
    wound(sr2, "M", {}, damage="stun")
    advance(sr2, minutes=99)
    assert gm_sheet(sr2)["stun"] == {"boxes": 1, "level": "L"}
    advance(sr2, minutes=1)
    assert gm_sheet(sr2)["stun"] == {"boxes": 0, "level": None}
    rolled = [e for e in history(sr2) if e["type"] == "StunRecoveryRolled"]
    assert [(e["data"]["target"], e["data"]["successes"], e["data"]["interval"]) for e in rolled] == [
        (4, 2, 1800)
    ]
    assert [e["game_time"] for e in history(sr2) if e["type"] == "StunRecoveryRolled"] == [REST]
    boxes = [e["game_time"] for e in history(sr2) if e["type"] == "StunBoxRecovered"]
    assert boxes == [REST + 1800, REST + 3600, REST + 5400]


def test_physical_damage_heals_a_level_per_stage(sr2: Table, advance: Any, server_dice: ServerDice) -> None:
    """ClockDice: every physical-healing roll is entered as [6, 6, 1, 1, 1]: two successes against Moderate's TN 6
    (10 days / 2 from the rest, 10 min after the wound: to 1 box 5 days later) and Light's TN 4 (24 hours / 2: to 0
    boxes 12 hours later)."""
    clock_dice(server_dice, physical_healing=[6, 6, 1, 1, 1])
    wound(sr2, "M", {"body_check": [4, 4, 4, 1, 1]})
    advance(sr2, days=5)
    assert gm_sheet(sr2)["physical"] == {"boxes": 3, "level": "M"}
    advance(sr2, minutes=10)
    assert gm_sheet(sr2)["physical"] == {"boxes": 1, "level": "L"}
    advance(sr2, hours=12)
    assert gm_sheet(sr2)["physical"] == {"boxes": 0, "level": None}
    healed = [
        (e["game_time"], e["data"]["boxes"]) for e in history(sr2) if e["type"] == "PhysicalDamageHealed"
    ]
    assert healed == [(REST + 5 * DAY, 1), (REST + 5 * DAY + 12 * HOUR, 0)]


# --- what a player never receives --------------------------------------------------------------------------------


def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _texts(table: Table, who: Any) -> dict[str, str]:
    """Every API answer about the character: itself, its history, the campaign's feed, list and clock."""
    campaign = f"/api/campaigns/{table.campaign['id']}/"
    paths = {
        "character": table.character_url(),
        "history": table.character_url() + "events/",
        "feed": campaign + "events/",
        "characters": campaign + "characters/",
        "clock": campaign + "clock/",
    }
    texts = {}
    for where, path in paths.items():
        response = who.get(path)
        assert response.status_code == 200, (where, response.content)
        texts[where] = response.content.decode()
    return texts


def _player_texts(table: Table) -> dict[str, str]:
    return _texts(table, table.player)


def _gm_texts(table: Table) -> dict[str, str]:
    return _texts(table, table.gm)


SECRETS = (
    '"kind":"death"',
    '"lung"',
    '"IB"',
    "mortal",
    "body_check",
    "1d6x10",
    "death_after_seconds",
    "death_time",
    "kills at",
)


def test_a_player_never_receives_an_undiagnosed_hits_secrets_the_body_check_or_death_at(
    sr2: Table, advance: Any
) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    advance(sr2, minutes=1)
    gm = _gm_texts(sr2)
    for where in ("character", "history", "feed", "characters"):
        for secret in SECRETS[1:4]:
            assert secret in gm[where], (where, secret)
    assert "body_check" in gm["history"] and "death_time" in gm["feed"]
    # The engine marks the game second; the GM reads the in-world date (the campaign starts 2053-01-01).
    assert "kills at 2053-01-01 00:30:00" in gm["character"] and "[t=" not in gm["character"]
    assert '"kind":"death"' in gm["clock"] and '"due":1800' in gm["clock"]
    assert any(key == "death_at" and value == 1800 for key, value in _walk(json.loads(gm["character"])))

    for where, text in _player_texts(sr2).items():
        for secret in SECRETS:
            assert secret not in text, (where, secret)
        for key, value in _walk(json.loads(text)):
            assert not (key == "death_at" and value is not None), (where, key, value)
            assert key not in ("death_at_date", "timers", "notes"), (where, key)
    hit = hit_of(json.loads(_player_texts(sr2)["character"])["sheet"])
    assert (hit["boxes"], hit["penalty"], hit["lethality"], hit["part"]) == (None, None, None, None)
    assert (hit["location"], hit["symptom"]) == ("chest", t.SYMPTOMS["CHEST"]["open"])
    player = json.loads(_player_texts(sr2)["character"])
    assert player["sheet"]["tn_modifier"]["by_location"]["chest"] == 0
    assert player["dying"] is False


def test_a_player_sees_a_diagnosed_mortal_hit_as_needing_treatment_now_but_never_its_time(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    act_ok(sr2, {"type": "note", "text": "secret fixer plot"})
    assert "secret fixer plot" in _gm_texts(sr2)["character"]
    diagnosed(sr2)
    texts = _player_texts(sr2)
    player = json.loads(texts["character"])
    hit = hit_of(player["sheet"])
    assert (hit["part"], hit["lethality"], hit["boxes"], hit["penalty"]) == ("lung", "mortal", 10, 4)
    assert "chest, lung: mortal: needs treatment now" in player["warnings"]
    assert player["dying"] is True
    for where, text in texts.items():
        assert "secret fixer plot" not in text, where
        assert "body_check" not in text, where
        for key, value in _walk(json.loads(text)):
            assert not (key == "death_at" and value is not None), (where, key, value)


def test_a_player_never_learns_magic_healed_an_undiagnosed_hit(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    act_ok(sr2, {"type": "heal_magic", "successes": 4, "mode": "split_evenly"})
    assert "crippling" in _gm_texts(sr2)["history"]
    for where, text in _player_texts(sr2).items():
        assert "crippling" not in text, where
        assert "mortal" not in text, where
        assert '"shares"' not in text and '"successes"' not in text, where


# --- Hypothesis: any sequence of valid actions, at the service level ----------------------------------------------

KINDS = (
    "wound",
    "diagnose",
    "treat",
    "heal_magic",
    "first_aid",
    "replace",
    "set_care",
    "note",
    "undo",
    "advance",
)


def _totals(draw: Any, pool: int, tn: int) -> list[int]:
    """Die totals valid for this target number (Rule of Six totals above TN 6)."""
    die = st.integers(1, 17).filter(lambda v: v % 6 != 0) if max(2, tn) > 6 else st.integers(1, 6)
    return draw(st.lists(die, min_size=pool, max_size=pool))


def _wound(draw: Any, state: dict[str, Any]) -> dict[str, Any]:
    severity = draw(st.sampled_from("LLMMSSD"))
    location = draw(st.lists(st.integers(1, 6), min_size=2, max_size=2))
    critical = draw(st.integers(1, 6))
    table = t.TABLE_FOR_LOCATION[t.HIT_LOCATION[sum(location)]]
    expression = t.CRITICAL_HIT_TABLE[table][critical][2].split(" ")[0]
    count = parse_expression(expression).count
    body = state["attributes"]["body"]
    tn = t.BODY_CHECK_TN["standard"][severity]
    return {
        "type": "wound",
        "severity": severity,
        "damage": draw(st.sampled_from(["physical", "physical", "stun"])),
        "open_wound": draw(st.booleans()),
        "rolls": {
            "body_check": _totals(draw, body, tn),
            "location": location,
            "critical": [critical],
            "death_time": draw(st.lists(st.integers(1, 6), min_size=count, max_size=count)),
        },
    }


def _action(draw: Any, state: dict[str, Any]) -> dict[str, Any]:
    """An action the rules allow in `state` (a medical action with no hit to act on becomes a wound)."""
    return _medical(draw, state, draw(st.sampled_from(KINDS))) or _wound(draw, state)


def _medical(draw: Any, state: dict[str, Any], kind: str) -> dict[str, Any] | None:
    hits = [h for h in state["critical_hits"] if h["status"] == "active"]
    medic = {"medic": draw(st.sampled_from(["Doc", "Kay"])), "skill": draw(st.integers(1, 4))}
    if kind == "wound":
        return None
    if kind == "diagnose":
        undiagnosed = [h for h in hits if not h["diagnosed"]]
        if not undiagnosed:
            return None
        hit = draw(st.sampled_from(undiagnosed))
        defaulting, assensing = draw(st.booleans()), draw(st.booleans())
        tn = hit["diagnose_tn"] + 4 * defaulting - 2 * assensing
        return {
            "type": "diagnose",
            **medic,
            "defaulting": defaulting,
            "assensing": assensing,
            "critical_hit": hit["id"],
            "rolls": {"diagnosis": _totals(draw, medic["skill"], tn)},
        }
    if kind == "treat":
        treatable = [
            h for h in hits if h["diagnosed"] and h["lethality"] != "crippling" and h["treatment"] is None
        ]
        if not treatable:
            return None
        hit = draw(st.sampled_from(treatable))
        defaulting = draw(st.booleans())
        tn = state["options"]["treatment_table"][hit["lethality"]]["tn"] + 4 * defaulting
        return {
            "type": "treat",
            "critical_hit": hit["id"],
            **medic,
            "defaulting": defaulting,
            "rolls": {"treatment": _totals(draw, medic["skill"], tn)},
        }
    if kind == "heal_magic":
        successes = draw(st.integers(0, 12))
        mode = draw(st.sampled_from(["allocate", "damage_only", "split_evenly"]))
        body: dict[str, Any] = {"type": "heal_magic", "successes": successes, "mode": mode}
        if mode == "allocate":
            allocation: dict[str, int] = {}
            left = successes
            for target in ["physical"] + [h["id"] for h in hits if h["diagnosed"]]:
                share = draw(st.integers(0, left))
                allocation[target] = share
                left -= share
            body["allocation"] = allocation
        return body
    if kind == "first_aid":
        medkit, defaulting = draw(st.booleans()), draw(st.booleans())
        tn = engine.first_aid_target(state, medkit, defaulting) if state["physical"] else 4
        return {
            "type": "first_aid",
            **medic,
            "medkit": medkit,
            "defaulting": defaulting,
            "rolls": {"first_aid": _totals(draw, medic["skill"], tn)},
        }
    if kind == "replace":
        crippling = [h for h in hits if h["diagnosed"] and h["lethality"] == "crippling"]
        if not crippling:
            return None
        return {
            "type": "replace",
            "critical_hit": draw(st.sampled_from(crippling))["id"],
            "replacement": "cyber",
        }
    if kind == "set_care":
        return {"type": "set_care", "in_hospital": draw(st.booleans())}
    if kind == "note":
        return {"type": "note", "text": "n"}
    if kind == "undo":
        return {"type": "undo"}
    return {"advance": draw(st.sampled_from([30, MINUTE, 10 * MINUTE, HOUR, DAY, WEEK, 8 * WEEK]))}


def _row(character: Character) -> dict[str, Any]:
    character.refresh_from_db()
    return {
        "state": character.state,
        "version": character.version,
        "alive": character.alive,
        "conscious": character.conscious,
        "dying": character.dying,
        "death_at": character.death_at,
        "timers": sorted(
            Timer.objects.filter(character=character).values_list("key", "due", "priority", "kind")
        ),
    }


def _assert_invariants(character: Character) -> None:
    state = character.state
    assert 0 <= state["physical"] <= 10
    assert 0 <= state["stun"] <= 10
    assert state["physical_overflow"] >= 0
    for hit in state["critical_hits"]:
        assert 0 <= hit["boxes"] <= 10, hit
        assert hit["lethality"] == engine.lethality_of(hit["boxes"]), hit
        assert (hit["status"] == "healed") == (hit["boxes"] == 0), hit


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_sequence_of_valid_actions_keeps_the_monitors_sane_and_equals_a_replay(
    data: Any, django_user_model: Any, server_dice: ServerDice
) -> None:
    """Action dice are drawn by Hypothesis; the clock's dice come from a Random seeded by Hypothesis."""
    seed = data.draw(st.integers(0, 2**32 - 1), label="clock seed")

    server_dice(seeded_dice(seed))
    user, _ = django_user_model.objects.get_or_create(username="prop-gm")
    campaign = services.campaign_create(user=user, name="Property", ruleset="shadowrun2")
    body = data.draw(st.integers(1, 8), label="body")
    character = services.character_create(
        campaign=campaign, actor="gm", name="Prop", attributes={"body": body, "willpower": body}
    )
    for _ in range(data.draw(st.integers(1, 20), label="steps")):
        character.refresh_from_db()
        if not character.state["alive"]:
            break
        action = _action(data.draw, character.state)
        if "advance" in action:
            campaign.refresh_from_db()
            job = services.clock_advance_request(campaign=campaign, seconds=action["advance"], actor="gm")
            assert services.clock_run(job.pk).status == Job.DONE
            continue
        version = character.version
        events = Event.objects.count()
        try:
            services.character_act(character_id=character.pk, body=action, actor="gm")
        except RuleError as error:
            # Only what the generator does not model may be refused (first-aid timing, nothing to undo ...),
            # and a refusal writes nothing.
            assert error.status == 400, error
            allowed = ("type", "critical_hit") if action["type"] == "diagnose" else ("type",)
            assert error.field in allowed, (action, error.field, error.message)
            character.refresh_from_db()
            assert (character.version, Event.objects.count()) == (version, events)
        character.refresh_from_db()
        _assert_invariants(character)

    before = _row(character)
    rows = list(Event.objects.filter(stream=character.stream).order_by("version"))
    assert character_state_at(character, rows) == before["state"]
    rebuild_campaign(Campaign.objects.get(pk=campaign.pk))
    assert _row(character) == before


def test_after_a_treatment_the_answer_says_whether_it_ends_before_the_death_it_stops(sr2: Table) -> None:
    wound(sr2, "S", MORTAL_LUNG)
    diagnosed(sr2)
    treat = {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 3}
    answer = act_ok(sr2, {**treat, "rolls": {"treatment": [9, 13, 2]}})
    # Never "dies ... unless treated" once a treatment that ends first is under way: it says when it ends.
    assert answer["said"] == (
        "Doc treats critical hit 1 to the chest (lung): 2 successes (TN 8; dice 9, 13, 2); done 2053-01-01 "
        "00:05:00. Target 8: house rule for a mortal hit. The treatment under way ends at 2053-01-01 00:05:00, "
        "before the death (2053-01-01 00:30:00)."
    )
