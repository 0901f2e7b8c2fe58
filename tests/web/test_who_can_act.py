"""Issue 42's night at the table: the forms offer what can be done and who can do it, so that no refusal comes
after the GM has typed the dice. A treatment's choice offers the hits a medic may treat and says beside it why the
others are not offered (an undiagnosed hit was offered, then refused once the dice were typed); a medic who cannot
act (RULES.md: dead, unconscious, stunned) is refused with a 400 naming the medic, and not offered."""

from __future__ import annotations

import re
from typing import Any

import pytest

from campaign.models import Character, Event
from rules.registry import get_ruleset
from rules.ruleset import out_of_action
from tests.conftest import make_table
from tests.web.conftest import Web, make_web

HTMX = {"HTTP_HX_REQUEST": "true"}
# Moderate, one Body-check success (TN 4): a crippling hit to the left arm's shoulder, which a diagnosis sees at
# once (an open wound).
CRIPPLED_SHOULDER = {"body_check": [4, 1, 1, 1, 1], "location": [5, 5], "critical": [1]}
# Serious, no success, a closed wound: a mortal hit to the chest's ribs nobody has diagnosed.
MORTAL_RIBS = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [4]}
NOT_DIAGNOSED = (
    "Hit 2 to the chest (ribs) is not offered: the medic does not know this critical hit is there."
)


def options_of(html: str, name: str) -> list[str]:
    """The values a select offers, its empty entry left out."""
    select = re.search(rf'<select [^>]*name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert select is not None, html
    return [value for value in re.findall(r'<option value="([^"]*)"', select.group(1)) if value]


def form(web: Web, action: str) -> str:
    return web.gm.get(f"/characters/{web.character_id}/forms/{action}/", **HTMX).content.decode()


@pytest.fixture
def hurt(sr2_web: Web) -> Web:
    table = sr2_web.table
    assert table.act({"type": "wound", "severity": "M", "rolls": CRIPPLED_SHOULDER}).status_code == 201
    wound = {"type": "wound", "severity": "S", "open_wound": False, "rolls": MORTAL_RIBS}
    assert table.act(wound).status_code == 201
    seen = table.act({"type": "diagnose", "medic": "Doc", "skill": 1, "critical_hit": "ch1"})
    assert seen.status_code == 201, seen.content
    return sr2_web


def test_the_treat_form_offers_no_hit_it_would_refuse_and_says_why_beside_the_choice(hurt: Web) -> None:
    treat = form(hurt, "treat")
    assert options_of(treat, "p_critical_hit") == []
    assert (
        "Hit 1 to the left arm (shoulder) is not offered: a medic cannot treat a crippling critical hit; it needs a "
        f"replacement or healing magic. {NOT_DIAGNOSED}"
    ) in treat.replace("&#x27;", "'")
    assert options_of(form(hurt, "diagnose"), "p_critical_hit") == ["ch2"]
    assert options_of(form(hurt, "replace"), "p_critical_hit") == ["ch1"]
    assert options_of(form(hurt, "accept"), "p_critical_hit") == ["ch1"]

    diagnosed = {"type": "diagnose", "medic": "Doc", "skill": 4, "critical_hit": "ch2"}
    assert hurt.table.act({**diagnosed, "rolls": {"diagnosis": [5, 1, 1, 1]}}).status_code == 201
    treat = form(hurt, "treat")
    assert '<option value="ch2">Hit 2: chest, ribs (mortal)</option>' in treat
    assert options_of(treat, "p_critical_hit") == ["ch2"] and NOT_DIAGNOSED not in treat
    assert options_of(form(hurt, "diagnose"), "p_critical_hit") == []

    started = {"type": "treat", "critical_hit": "ch2", "medic": "Doc", "skill": 3}
    assert hurt.table.act({**started, "rolls": {"treatment": [9, 1, 1]}}).status_code == 201
    treat = form(hurt, "treat")
    assert options_of(treat, "p_critical_hit") == []
    assert (
        "Hit 2 to the chest (ribs) is not offered: a treatment of this critical hit is already under way."
        in treat
    )


def make_medic(
    web: Web, name: str, rolls: dict[str, Any], severity: str = "D", damage: str = "physical"
) -> int:
    made = web.table.gm.post(
        f"/api/campaigns/{web.campaign_id}/characters/", {"name": name, "attributes": {"body": 3}}
    )
    assert made.status_code == 201, made.content
    medic = made.json()["id"]
    wound = {"type": "wound", "severity": severity, "damage": damage, "rolls": rolls}
    assert web.table.gm.post(f"/api/characters/{medic}/actions/", wound).status_code == 201
    return medic


def test_an_unconscious_dying_medic_is_refused_naming_the_medic_and_not_offered(
    db: None, django_user_model: Any
) -> None:
    web = make_web(make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "actions"}))
    serious = {"type": "wound", "severity": "S", "rolls": MORTAL_RIBS}
    assert web.table.act(serious).status_code == 201
    # Doc: a Deadly wound (physical 10: unconscious) and a mortal hit to the chest's ribs (dying).
    make_medic(web, "Doc", {"body_check": [1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]})
    make_medic(web, "Bo", {}, severity="L", damage="stun")
    events = Event.objects.count()

    refused = web.table.act({"type": "first_aid", "medic": "Doc", "skill": 4})
    # Refused before any die is asked for (a 422 would ask the first aid roll): nothing written.
    assert (refused.status_code, refused.json()) == (
        400,
        {
            "medic": [
                "Doc is unconscious and dying, and cannot act; choose a medic who can, or type the name of "
                "someone else"
            ]
        },
    )
    assert Event.objects.count() == events
    page = web.gm.post(
        f"/characters/{web.character_id}/act/first_aid/",
        {"key": "k-1", "p_medic": "Doc", "p_skill": "4"},
        **HTMX,
    )
    assert page.status_code == 400
    assert (
        '<p class="error" id="err-first_aid-p_medic" role="alert">Doc is unconscious and dying, and cannot act;'
    ) in page.content.decode()
    aid = form(web, "first_aid")
    offered = re.search(r'<datalist id="first_aid-p_medic-people">(.*?)</datalist>', aid, re.S)
    assert offered is not None
    assert re.findall(r'<option value="([^"]*)">', offered.group(1)) == ["Ash", "Bo"]

    # Someone who can act is taken: a character on their feet, or anyone nobody made a character of.
    for medic in ("Bo", "the street doc"):
        asked = web.table.act({"type": "first_aid", "medic": medic, "skill": 4})
        assert (asked.status_code, asked.json()["needs_roll"]["name"]) == (422, "first_aid")


def test_the_dead_and_the_stunned_cannot_act() -> None:
    cyberpunk = get_ruleset("cyberpunk2020")
    state = cyberpunk.initial_state({"body": 6, "luck": 2}, cyberpunk.validate_options({}))
    assert out_of_action(cyberpunk, state) is None
    assert out_of_action(cyberpunk, {**state, "stunned": True}) == "is stunned, out of action"
    dead = {**state, "alive": False, "conscious": False}
    assert out_of_action(cyberpunk, dead) == "is dead"


def test_a_medic_who_is_the_patient_is_read_as_the_action_finds_them(sr2_web: Web) -> None:
    table = sr2_web.table
    assert table.act({"type": "wound", "severity": "D", "damage": "stun"}).status_code == 201
    assert Character.objects.get(pk=sr2_web.character_id).conscious is False
    refused = table.act(
        {"type": "first_aid", "medic": "Ash", "skill": 4, "rolls": {"first_aid": [1, 1, 1, 1]}}
    )
    assert refused.json() == {
        "medic": [
            "Ash is unconscious, and cannot act; choose a medic who can, or type the name of someone else"
        ]
    }


def test_a_stunned_medic_is_not_offered(cp2020_web: Web) -> None:
    for name, stun_save in (("Bo", 10), ("Cy", 1)):
        made = cp2020_web.table.gm.post(
            f"/api/campaigns/{cp2020_web.campaign_id}/characters/", {"name": name, "attributes": {"body": 6}}
        )
        hit = {"type": "damage", "damage": 10, "location": "torso", "rolls": {"stun_save": [stun_save]}}
        assert (
            cp2020_web.table.gm.post(f"/api/characters/{made.json()['id']}/actions/", hit).status_code == 201
        )
    assert Character.objects.get(name="Bo").state["stunned"] is True
    stabilize = form(cp2020_web, "stabilize")
    offered = re.search(r'<datalist id="stabilize-p_medic-people">(.*?)</datalist>', stabilize, re.S)
    assert offered is not None
    assert re.findall(r'<option value="([^"]*)">', offered.group(1)) == ["Ash", "Cy"]
    refused = cp2020_web.table.act(
        {"type": "stabilize", "target": "dying", "medic": "Bo", "skill": "medical_tech", "total": 20}
    )
    assert refused.json() == {
        "medic": [
            "Bo is stunned, out of action, and cannot act; choose a medic who can, or type the name of someone else"
        ]
    }
