"""Table dice on the card and the page: a diagnosis of every undiagnosed hit asks one roll per hit, by its hit in
words; a roll typed wrong is asked again as the rules ask it (its label, dice, target and why), its error in the
clock's words beside it; a d10's 0 is its 10."""

from __future__ import annotations

import re
from typing import Any

import pytest

from campaign.models import Event
from tests.web.conftest import Web
from tests.web.test_card_table_dice import HTMX, card_post, form_of, table_web
from tests.web.test_clock_rolls import stunned_pair

# A Serious wound whose Body check fails: a critical hit to the chest, ribs (Mortal).
HIT = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]}
MEDIC = {"p_medic": "Doc", "p_skill": "4"}


def post(web: Web, where: str, action: str, data: dict[str, Any]) -> Any:
    if where == "card":
        return card_post(web, action, data)
    return web.gm.post(f"/characters/{web.character_id}/act/{action}/", {"key": "k-1", **data}, **HTMX)


def shown(response: Any, where: str) -> str:
    return form_of(response) if where == "card" else response.content.decode()


def prompt(html: str) -> str:
    return re.findall(r'<p id="[^"]*-ask" class="prompt"><strong>([^<]*)</strong>', html)[0]


def diagnoses() -> list[tuple[str, list[int], bool]]:
    rows = Event.objects.filter(type="DiagnosisMade").order_by("version")
    return [(r["critical_hit"], r["dice"], r["diagnosed"]) for e in rows for r in e.data["results"]]


@pytest.fixture
def sr2_table(db: None, django_user_model: Any) -> Web:
    return table_web(django_user_model, "shadowrun2", {"body": 5})


@pytest.fixture
def cp2020_dying(db: None, django_user_model: Any) -> Web:
    web = table_web(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})
    dying = {
        "type": "damage",
        "damage": 30,
        "location": "torso",
        "rolls": {"stun_save": [1], "death_save": [10]},
    }
    assert web.table.act(dying).status_code == 201
    return web


@pytest.mark.parametrize("where", ["card", "page", "api"])
def test_diagnosing_every_hit_at_the_table_asks_a_roll_per_hit_and_records_what_the_api_does(
    sr2_table: Web, where: str
) -> None:
    for _ in range(2):
        assert sr2_table.table.act({"type": "wound", "severity": "S", "rolls": HIT}).status_code == 201
    if where == "api":
        body = {"type": "diagnose", "medic": "Doc", "skill": 4}
        rolls = {"diagnosis:ch1": [5, 1, 2, 3], "diagnosis:ch2": [1, 1, 1, 2]}
        assert sr2_table.table.act({**body, "rolls": rolls}).status_code == 201
    else:
        asked = post(sr2_table, where, "diagnose", MEDIC)
        assert asked.status_code == 200
        html = shown(asked, where)
        assert prompt(html) == (
            "Diagnosis of hit 1: chest, ribs (mortal): roll 4d6, each die of 4 or more is a success"
        )
        assert 'name="r_diagnosis:ch1" value=""' in html
        given = {**MEDIC, "r_diagnosis:ch1": "5 1 2 3"}
        asked = post(sr2_table, where, "diagnose", given)
        assert asked.status_code == 200, shown(asked, where)
        html = shown(asked, where)
        assert '<span class="roll-label">Diagnosis of hit 1: chest, ribs (mortal)</span>: 5, 1, 2, 3' in html
        assert prompt(html).startswith("Diagnosis of hit 2: chest, ribs (mortal): roll 4d6")
        assert "R_diagnosis" not in html and "unknown field" not in html
        assert diagnoses() == []
        done = post(sr2_table, where, "diagnose", {**given, "r_diagnosis:ch2": "1 1 1 2"})
        assert done.status_code == 200, shown(done, where)
    assert diagnoses() == [("ch1", [5, 1, 2, 3], True), ("ch2", [1, 1, 1, 2], False)]


@pytest.mark.parametrize("where", ["card", "page"])
def test_a_hit_s_diagnosis_typed_wrong_is_asked_again_by_its_hit(sr2_table: Web, where: str) -> None:
    for _ in range(2):
        assert sr2_table.table.act({"type": "wound", "severity": "S", "rolls": HIT}).status_code == 201
    given = {**MEDIC, "r_diagnosis:ch1": "5 1 2 3", "r_diagnosis:ch2": "7 1 1 1"}
    refused = post(sr2_table, where, "diagnose", given)
    assert refused.status_code == 400
    html = shown(refused, where)
    assert prompt(html).startswith("Diagnosis of hit 2: chest, ribs (mortal): roll 4d6")
    assert 'name="r_diagnosis:ch2" value="7 1 1 1"' in html
    assert (
        'role="alert">Diagnosis of hit 2: chest, ribs (mortal) needs 4d6 from 1 to 6 each; 7 is not a d6 roll<'
        in html
    )
    assert diagnoses() == []


@pytest.mark.parametrize("where", ["card", "page"])
def test_first_aid_typed_wrong_is_asked_again_with_its_dice_target_and_why(
    sr2_table: Web, where: str
) -> None:
    no_hit = {"body_check": [6, 6, 6, 1, 1]}  # no critical hit
    assert sr2_table.table.act({"type": "wound", "severity": "S", "rolls": no_hit}).status_code == 201
    asked = post(sr2_table, where, "first_aid", MEDIC)
    assert asked.status_code == 200, shown(asked, where)
    before = shown(asked, where)
    (box,) = re.findall(r'name="([rd]_first_aid)" value=""', before)
    refused = post(sr2_table, where, "first_aid", {**MEDIC, box: "7 2 1 3"})
    assert refused.status_code == 400
    after = shown(refused, where)
    assert prompt(after) == prompt(before) and prompt(before).startswith("First aid: roll 4d6; target ")
    why = re.findall(r'<p class="help">Decides [^<]*</p>', before)
    assert why and why == re.findall(r'<p class="help">Decides [^<]*</p>', after)
    assert f'name="{box}" value="7 2 1 3"' in after
    assert 'role="alert">First aid needs 4d6 from 1 to 6 each; 7 is not a d6 roll<' in after
    assert "Expected dice" not in after and "pool of d6" not in after
    assert Event.objects.filter(type__startswith="FirstAid").count() == 0


@pytest.mark.parametrize("where", ["card", "page"])
def test_stabilize_typed_wrong_keeps_its_prompt_and_name(cp2020_dying: Web, where: str) -> None:
    chosen = {"p_target": "dying", "p_skill": "medical_tech", "p_tech": "10", "p_skill_level": "10"}
    before = shown(post(cp2020_dying, where, "stabilize", chosen), where)
    refused = post(cp2020_dying, where, "stabilize", {**chosen, "r_stabilize_0": "11"})
    assert refused.status_code == 400
    after = shown(refused, where)
    assert prompt(after) == prompt(before) == "Stabilize d10: roll 1d10, succeeds on 8 or more"
    assert "Stabilization d10" not in after
    assert 'role="alert">Stabilize d10 needs 1d10 from 1 to 10; 11 is not a d10 roll<' in after
    assert 'name="r_stabilize_0" type="number" min="0" max="10" inputmode="numeric" value="11"' in after
    assert "A d10 that shows 0 is a 10: type 0 or 10." in after


@pytest.mark.parametrize("where", ["card", "page"])
def test_a_d10_typed_0_is_read_as_10(cp2020_dying: Web, where: str) -> None:
    chosen = {"p_target": "dying", "p_skill": "medical_tech", "p_tech": "10", "p_skill_level": "10"}
    done = post(cp2020_dying, where, "stabilize", {**chosen, "r_stabilize_0": "0"})
    assert done.status_code == 200, shown(done, where)
    assert "The medic (medical tech) rolled 30 against 28: stabilized the dying character." in shown(
        done, where
    )
    assert Event.objects.filter(type="StabilizationSucceeded").count() == 1


def test_a_d6_typed_0_is_still_refused(sr2_table: Web) -> None:
    given = {"p_severity": "D", "d_body_check": "1 1 1 1 1", "r_location": "3 4", "r_critical_0": "0"}
    refused = card_post(sr2_table, "wound", given)
    assert refused.status_code == 400
    assert 'role="alert">Critical hit table needs 1d6 from 1 to 6; 0 is not a d6 roll<' in form_of(refused)


def test_the_quick_row_diagnoses_every_hit_a_roll_per_hit(sr2_table: Web) -> None:
    for _ in range(2):
        assert sr2_table.table.act({"type": "wound", "severity": "S", "rolls": HIT}).status_code == 201
    done = card_post(sr2_table, "diagnose", {**MEDIC, "quick": "5 1 2 3 1 1 1 2"})
    assert done.status_code == 200, form_of(done)
    assert diagnoses() == [("ch1", [5, 1, 2, 3], True), ("ch2", [1, 1, 1, 2], False)]


def test_the_clock_row_reads_a_d10_typed_0_as_10(django_user_model: Any) -> None:
    web, ash, bo = stunned_pair(django_user_model)
    board = web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode()
    assert board.count("A d10 that shows 0 is a 10: type 0 or 10.") == 2
    given = web.gm.post(
        f"/campaigns/{web.campaign_id}/clock/roll/",
        {f"roll:{ash}.stun_save": "0", f"roll:{bo}.stun_save": "2"},
    )
    assert given.status_code == 302
    saves = Event.objects.filter(campaign_id=web.campaign_id, type="StunSaveRolled", actor="clock")
    assert sorted((row.character_id, row.data["roll"], row.data["success"]) for row in saves) == [
        (ash, 10, False),
        (bo, 2, True),
    ]
