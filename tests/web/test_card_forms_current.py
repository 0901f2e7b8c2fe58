"""A card's forms and messages on the GM's board as the browser holds them (tests/web/live_page.py): a form is drawn for
the character's version it was fetched at and drawn again once the character is another (a GM's walkthrough: after a
Diagnose on a card, its Treat still said the hit was not diagnosed); a card's message belongs to the answer that made
it; a dead character's card offers only what the services still take (docs/web.md, "A card's forms and messages")."""

from __future__ import annotations

import re
from typing import Any

import pytest

from campaign.models import Character
from campaign.web import forms
from rules.registry import get_ruleset
from tests.api.test_forecast import MORTAL, chest_hit
from tests.web.conftest import Web
from tests.web.live_page import LivePage, Node
from tests.web.test_clock_rolls import SPINE_IN_3_MIN
from tests.web.test_player_secrets import DIAGNOSE_CH1

NOT_DIAGNOSED = "the medic does not know this critical hit is there"
# A Serious wound whose critical hit is the chest's lung, Mortal (internal bleeding), dead in 30 minutes.
LUNG = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}


def live_board(web: Web) -> LivePage:
    return LivePage(web.gm, web.campaign_id, lambda live, swapped: None)


def said(live: LivePage, character_id: int, action: str) -> str:
    """The words of a card's form as the GM's page holds it (fetched, answered or still to fetch), and what the
    card says its last form did (web/board_card_said.html: the form closes once it has acted)."""
    form = live.page.get(f"card-{character_id}-form-{action}").text()
    return f"{form} {live.page.get(f'card-{character_id}-said').text()}".strip()


def messages(live: LivePage, character_id: int) -> list[str]:
    """Every message (what happened, a refusal) the card's actions show."""
    actions = live.page.get(f"card-{character_id}-actions")
    return [
        node.text()
        for node in actions.walk()
        if node.attrs.get("role") in ("status", "alert") and node.text()
    ]


def treat_offers(form: Node) -> list[str]:
    """The critical hits the Treat form offers."""
    picker = next(n for n in form.walk() if n.attrs.get("name") == "p_critical_hit")
    return [str(n.attrs.get("value")) for n in picker.walk() if n.tag == "option" and n.attrs.get("value")]


def test_a_treat_form_opened_before_a_diagnosis_on_the_card_offers_the_hit_after_it(sr2_web: Web) -> None:
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": LUNG}).status_code == 201
    ash = sr2_web.character_id
    live = live_board(sr2_web)
    stale = live.card_form(ash, "treat")
    assert treat_offers(stale) == [] and NOT_DIAGNOSED in said(live, ash, "treat")

    diagnosed = live.card_post(
        ash, "diagnose", p_medic="Doc", p_skill="1", p_critical_hit="ch1", r_diagnosis="6"
    )
    assert diagnosed.status_code == 200
    assert messages(live, ash) == [
        "Ash: Diagnosis by Doc: critical hit 1 to the chest (lung) is mortal: 1 success (TN 4; dice 6). "
        "Dies in about 30 min unless treated (2053-01-01 00:30:00)."
    ]

    # Treat, opened again as the page does (its form fetched with htmx's headers), is the character's as it is now.
    treat = live.card_form(ash, "treat")
    assert treat_offers(treat) == ["ch1"]
    assert NOT_DIAGNOSED not in said(live, ash, "treat")


def test_a_form_open_on_the_board_is_drawn_again_once_another_tab_changes_the_character(sr2_web: Web) -> None:
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": LUNG}).status_code == 201
    ash = sr2_web.character_id
    live = live_board(sr2_web)
    assert treat_offers(live.card_form(ash, "treat")) == []
    assert live.poll() == 304  # nothing changed: the form fetched stays
    assert NOT_DIAGNOSED in said(live, ash, "treat")

    diagnose = DIAGNOSE_CH1
    assert sr2_web.table.act(diagnose).status_code == 201  # another GM's tab, or the API
    assert live.poll() == 200
    assert NOT_DIAGNOSED not in said(live, ash, "treat")
    assert treat_offers(live.card_form(ash, "treat")) == ["ch1"]


def test_a_form_typed_into_is_kept_by_a_refresh_of_the_same_version_and_clock(cp2020_web: Web) -> None:
    ash = cp2020_web.character_id
    bo = cp2020_web.table.gm.post(
        f"/api/campaigns/{cp2020_web.campaign_id}/characters/",
        {"name": "Bo", "attributes": {"body": 6, "luck": 2}},
    ).json()["id"]
    live = live_board(cp2020_web)
    form = live.card_form(ash, "damage")
    typed = next(n for n in form.walk() if n.attrs.get("name") == "p_damage")
    typed.attrs["value"] = "17"
    noted = cp2020_web.table.gm.post(f"/api/characters/{bo}/actions/", {"type": "note", "text": "reloads"})
    assert noted.status_code == 201  # another card changes; Ash is the same version, the clock where it was
    assert live.poll() == 200
    kept = live.page.get(f"card-{ash}-form-damage")
    assert any(n.attrs.get("name") == "p_damage" and n.attrs.get("value") == "17" for n in kept.walk())
    # The clock moves: the form is drawn again (what was typed put back by static/js/lazy-forms.js, as for a new
    # version of Ash: a refusal made before the clock moved may hold no more).
    cp2020_web.table.advance(minutes=1)
    assert live.poll() == 200
    again = live.page.get(f"card-{ash}-form-damage")
    assert [n.attrs.get("class") for n in again.walk() if n.tag == "div"] == ["lazy-form"]


def test_a_cards_message_stays_with_its_answer_and_goes_at_the_next_drawing_of_the_card(
    cp2020_web: Web,
) -> None:
    ash = cp2020_web.character_id
    live = live_board(cp2020_web)
    recorded = live.card_post(
        ash, "damage", p_damage="12", p_location="torso", r_stun_save_0="10", r_death_save_0="1"
    )
    # The answer asked for a refresh, and the page polled: the card drawn for the version the answer was drawn for.
    assert recorded["HX-Trigger"] == "refresh"
    wounded = "Ash: 12 normal damage to the torso (SP 0, BTM -2): 10 points on the track."
    assert [m[: len(wounded)] for m in messages(live, ash)] == [wounded]

    # Another action on the card: its answer draws the card's other forms again, the wound's message gone.
    refused = live.card_post(ash, "stabilize", p_medic="", p_skill="", r_stabilize_0="")
    assert refused.status_code == 400
    shown = messages(live, ash)
    assert len(shown) == 1 and not shown[0].startswith("Ash:")  # the refusal alone
    live.card_post(ash, "note", p_text="covers the door")
    assert messages(live, ash) == ["Ash: GM note: covers the door."]

    # The card drawn for another version (here another tab's note): the note's message is gone too.
    assert cp2020_web.table.act({"type": "note", "text": "out of ammo"}).status_code == 201
    assert live.poll() == 200
    assert messages(live, ash) == []


def kill(web: Web, ruleset: str) -> None:
    if ruleset == "shadowrun2":
        # A closed wound: the spine's mortal hit, undiagnosed, dead in 6 minutes.
        assert web.table.act({**chest_hit(MORTAL), "open_wound": False}).status_code == 201
        assert web.table.advance(minutes=10).status_code == 202
    elif ruleset == "cyberpunk2020":
        fatal = {
            "type": "damage",
            "damage": 60,
            "location": "torso",
            "rolls": {"stun_save": [1], "death_save": [1]},
        }
        assert web.table.act(fatal).status_code == 201
    else:
        assert (
            web.table.act({"type": "damage", "weapon_damage": 14, "rolls": {"damage": [6]}}).status_code
            == 201
        )
    assert Character.objects.get(pk=web.character_id).alive is False


@pytest.mark.parametrize("ruleset", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_a_dead_characters_card_offers_exactly_the_actions_the_services_take(
    ruleset: str, request: Any
) -> None:
    web: Web = request.getfixturevalue(
        {"shadowrun2": "sr2_web", "cyberpunk2020": "cp2020_web"}.get(ruleset, "df_web")
    )
    kill(web, ruleset)
    ash = web.character_id
    live = live_board(web)
    actions = live.page.get(f"card-{ash}-actions")
    offered = [
        str(n.attrs["id"]).removeprefix(f"card-{ash}-")
        for n in actions.walk()
        if n.attrs.get("class") == "card-action"
    ]
    assert offered == ["note", "undo"]
    # Each action the card does not offer is refused by the service, nothing written.
    for action in forms.card_actions(get_ruleset(ruleset)):
        if action not in offered:
            refused = web.table.act({"type": action})
            assert refused.status_code == 400, action
            assert "the character is dead" in refused.content.decode(), action
    # Nor is the form of one drawn: not fetched, not opened without JavaScript.
    wound = next(action for action in forms.card_actions(get_ruleset(ruleset)) if action not in offered)
    fetched = web.gm.get(f"/characters/{ash}/card/{wound}/form/", HTTP_HX_REQUEST="true")
    opened = web.gm.get(f"/campaigns/{web.campaign_id}/?card={ash}&form={wound}")
    assert (fetched.status_code, opened.status_code) == (404, 404)
    # Each one it offers is taken, from the card as the page posts it.
    noted = live.card_post(ash, "note", p_text="buried at dawn")
    assert (noted.status_code, messages(live, ash)) == (200, ["Ash: GM note: buried at dawn."])
    undone = live.card_post(ash, "undo")
    assert undone.status_code == 200 and "Took back the latest entry" in said(live, ash, "undo")


@pytest.mark.parametrize("ruleset", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_a_dead_characters_page_offers_what_the_card_offers(ruleset: str, request: Any) -> None:
    """The walkthrough's dead character's page showed every action form and answered "The character is dead": it
    offers what the dead character's card offers (`forms.offered`), the GM note and Undo, and draws no other form."""
    web: Web = request.getfixturevalue(
        {"shadowrun2": "sr2_web", "cyberpunk2020": "cp2020_web"}.get(ruleset, "df_web")
    )
    ash = web.character_id
    alive = web.gm.get(f"/characters/{ash}/").content.decode()
    every = re.findall(r'<details class="card action" id="action-(\w+)"', alive)
    assert len(every) > 2 and every[-2:] == ["note", "undo"]
    kill(web, ruleset)
    page = web.gm.get(f"/characters/{ash}/").content.decode()
    assert re.findall(r'<details class="card action" id="action-(\w+)"', page) == ["note", "undo"]
    wound = every[0]
    fetched = web.gm.get(f"/characters/{ash}/forms/{wound}/", HTTP_HX_REQUEST="true")
    opened = web.gm.get(f"/characters/{ash}/?form={wound}")
    assert (fetched.status_code, opened.status_code) == (404, 404)
    assert web.gm.get(f"/characters/{ash}/forms/note/", HTTP_HX_REQUEST="true").status_code == 200
    # Undone, the death's page offers every action again.
    assert web.table.act({"type": "undo"}).status_code == 201
    page = web.gm.get(f"/characters/{ash}/").content.decode()
    assert re.findall(r'<details class="card action" id="action-(\w+)"', page) == every


def test_a_refusal_because_the_clock_waits_goes_once_the_clock_waits_no_more(sr2_web: Web) -> None:
    """Issue 42, "a night at the table": a card's action refused while the clock waited before a death still said
    so after the GM stopped the advance there, the card drawn again: the character's version is the same, so the
    refused form was kept, refusal and all. A refusal holds for the board it was made on: once the clock moves or
    stops waiting, the form is drawn again without it (what was typed is put back by static/js/lazy-forms.js)."""
    assert sr2_web.table.act(SPINE_IN_3_MIN).status_code == 201
    ash = sr2_web.character_id
    live = live_board(sr2_web)
    live.clock_button("clock-minutes-10")  # the board's advance waits before Ash's death
    assert live.page.find("clock-roll") is not None
    refused = live.card_post(ash, "note", p_text="holds his breath")
    assert refused.status_code == 409
    waits = "Clock: the game clock waits before Ash's death"
    assert [m[: len(waits)] for m in messages(live, ash)] == [waits]

    stop = next(
        n for n in live.page.get("clock-roll").walk() if n.tag == "form" and "stop" in str(n.attrs["hx-post"])
    )
    live._post(stop)
    live.poll()
    assert live.page.find("clock-roll") is None
    assert Character.objects.get(pk=ash).alive
    assert waits not in said(live, ash, "note")
    # The form, fetched again, takes the note now.
    noted = live.card_post(ash, "note", p_text="holds his breath")
    assert noted.status_code == 200
    assert [m[:31] for m in messages(live, ash)] == ["Ash: GM note: holds his breath."]
