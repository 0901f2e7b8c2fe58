"""A medic or a player chosen from the campaign's people (issue 18, campaign/web/people.py): a medic's input suggests
the campaign's characters and still takes any name; a character's player is a select of the members and invitees.
A player's pages hold neither list. And a campaign form with an error opens the section that holds it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from campaign.models import Campaign, Character, Event
from tests.web.conftest import Web, form_inputs

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
SERIOUS_NO_HIT = {"type": "wound", "severity": "S", "rolls": {"body_check": [6, 6, 6, 1, 1]}}
CP_TORSO_7 = {"type": "damage", "damage": 7, "location": "torso", "rolls": {"stun_save": [1]}}


def add_characters(web: Web) -> None:
    """Kessler, an NPC on the board, and Gonzales, a retired one, beside the player's Ash."""
    campaign = f"/api/campaigns/{web.campaign_id}/characters/"
    attributes = web.table.character["attributes"]
    assert web.table.gm.post(campaign, {"name": "Kessler", "attributes": attributes}).status_code == 201
    gone = web.table.gm.post(campaign, {"name": "Gonzales", "attributes": attributes}).json()
    assert web.table.gm.delete(f"/api/characters/{gone['id']}/").status_code in (200, 204)


def datalist(html: str, input_id: str) -> list[str]:
    """The names the input `input_id` suggests (its <datalist>), checking that the input points at it."""
    assert re.search(
        rf'<input id="{input_id}" name="p_medic" value="[^"]*" list="{input_id}-people"', html
    ), html
    found = re.search(rf'<datalist id="{input_id}-people">(.*?)</datalist>', html, re.S)
    assert found, html
    return re.findall(r'<option value="([^"]*)">', found.group(1))


def medic_events(character_id: int) -> list[dict[str, Any]]:
    return [
        e.data
        for e in Event.objects.filter(character_id=character_id).order_by("position")
        if "medic" in e.data
    ]


def test_the_medic_input_suggests_the_campaigns_characters_on_the_page_and_the_card(sr2_web: Web) -> None:
    add_characters(sr2_web)
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/?form=diagnose").content.decode()
    assert datalist(page, "diagnose-p_medic") == [
        "Ash",
        "Kessler",
    ]  # PCs and NPCs; a retired one is off the list
    # One sentence after the help's own, never ".; pick one" (issue 42).
    assert (
        "Who does it; retries are counted per medic. Pick one of the campaign's characters or type any name."
        in page
    )
    fetched = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/forms/treat/", **HTMX).content.decode()
    assert datalist(fetched, "treat-p_medic") == ["Ash", "Kessler"]
    card = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/card/first_aid/form/", **HTMX).content.decode()
    assert datalist(card, f"c{sr2_web.character_id}-first_aid-p_medic") == ["Ash", "Kessler"]
    # A form that names nobody suggests nobody.
    wound = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/forms/wound/", **HTMX).content.decode()
    assert "<datalist" not in wound


@pytest.mark.parametrize("medic", ["Kessler", "Street doc"])
def test_a_chosen_or_typed_medic_is_the_medic_of_the_first_aid(sr2_web: Web, medic: str) -> None:
    add_characters(sr2_web)
    assert sr2_web.table.act(SERIOUS_NO_HIT).status_code == 201
    posted = sr2_web.gm.post(
        f"/characters/{sr2_web.character_id}/act/first_aid/",
        {"p_medic": medic, "p_skill": "3", "p_medkit": "on", "r_first_aid": "7 8 1"},
    )
    assert posted.status_code == 302, posted.content.decode()
    (given,) = medic_events(sr2_web.character_id)
    assert (given["medic"], given["successes"], given["boxes"]) == (medic, 2, 4)


def test_a_cards_first_aid_takes_the_medic_chosen_on_it(sr2_web: Web) -> None:
    add_characters(sr2_web)
    assert sr2_web.table.act(SERIOUS_NO_HIT).status_code == 201
    posted = sr2_web.gm.post(
        f"/characters/{sr2_web.character_id}/card/first_aid/",
        {"p_medic": "Kessler", "p_skill": "3", "r_first_aid": "7 8 1"},
        **HTMX,
    )
    assert posted.status_code == 200, posted.content.decode()
    assert [e["medic"] for e in medic_events(sr2_web.character_id)] == ["Kessler"]
    # The fresh form the card answers with suggests the people again.
    assert datalist(posted.content.decode(), f"c{sr2_web.character_id}-first_aid-p_medic") == [
        "Ash",
        "Kessler",
    ]


def test_a_refused_cyberpunk_treatment_keeps_the_typed_medic_and_the_suggestions(cp2020_web: Web) -> None:
    add_characters(cp2020_web)
    url = f"/characters/{cp2020_web.character_id}/act/treat/"
    refused = cp2020_web.gm.post(url, {"p_medic": "Nurse Ratchet", "p_skill": "first_aid"}, **HTMX)
    html = refused.content.decode()
    assert refused.status_code == 400  # htmx swaps the refused form in place
    assert 'name="p_medic" value="Nurse Ratchet" list="treat-p_medic-people"' in html
    assert datalist(html, "treat-p_medic") == ["Ash", "Kessler"]
    assert cp2020_web.table.act(CP_TORSO_7).status_code == 201
    done = cp2020_web.gm.post(
        url,
        {
            "p_medic": "Kessler",
            "p_skill": "first_aid",
            "p_tech": "6",
            "p_skill_level": "4",
            "r_treatment_0": "5",
        },
    )
    assert done.status_code == 302, done.content.decode()
    assert [(e["medic"], e["healing_rate"]) for e in medic_events(cp2020_web.character_id)] == [
        ("Kessler", 0.5)
    ]


def player_options(html: str, select_id: str) -> list[tuple[str, str]]:
    found = re.search(rf'<select id="{select_id}" name="player".*?</select>', html, re.S)
    assert found, html
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', found.group(0))


def test_a_characters_player_is_chosen_from_the_members_and_invitees(
    sr2_web: Web, django_user_model: Any
) -> None:
    django_user_model.objects.create_user(username="newcomer", password="correct horse battery")
    board = f"/campaigns/{sr2_web.campaign_id}/"
    invited = sr2_web.gm.post(f"{board}members/", {"username": "newcomer", "role": "player"}, **HTMX)
    # The answer swaps the add-a-character form's choice in too: the invitee is there to choose at once.
    oob = invited.content.decode().split('<div id="ch-player-field" hx-swap-oob="true">')[1]
    assert '<option value="newcomer">newcomer (invited, not yet accepted)</option>' in oob
    choices = [
        ("", "(nobody: the GM plays it)"),
        ("gm", "gm (GM)"),
        ("gm2", "gm2 (GM)"),
        ("player", "player"),
        ("newcomer", "newcomer (invited, not yet accepted)"),
    ]
    page = sr2_web.gm.get(board).content.decode()
    assert player_options(page, "ch-player") == choices
    assert not re.search(r'<input[^>]*name="player"', page)  # never a user name typed blind
    assert (
        sr2_web.gm.post(
            f"{board}characters/", {"name": "Bex", "player": "newcomer", "a_body": "4"}
        ).status_code
        == 302
    )
    assert Character.objects.get(name="Bex").player.get_username() == "newcomer"
    edit = sr2_web.gm.get(reverse("character-edit", args=[sr2_web.character_id])).content.decode()
    assert player_options(edit, "e-player") == choices
    assert '<option value="player" selected>player</option>' in edit


def test_a_refused_player_stays_shown_with_its_error(sr2_web: Web) -> None:
    board = f"/campaigns/{sr2_web.campaign_id}/"
    refused = sr2_web.gm.post(
        f"{board}characters/", {"name": "Bex", "player": "stranger", "a_body": "4"}, **HTMX
    )
    html = refused.content.decode()
    assert refused.status_code == 200  # htmx swaps the refused form in place
    assert player_options(html, "ch-player")[1] == ("stranger", "stranger")
    assert '<option value="stranger" selected>stranger</option>' in html
    assert re.search(r'<p class="error" id="err-ch-player" role="alert">[^<]*invite them first', html), html
    assert not Character.objects.filter(name="Bex").exists()


def test_a_players_pages_hold_no_list_of_people(sr2_web: Web) -> None:
    add_characters(sr2_web)
    pages = [
        sr2_web.player.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode(),
        sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode(),
        sr2_web.player.get(f"/characters/{sr2_web.character_id}/?form=diagnose").content.decode(),
    ]
    for html in pages:
        assert "<datalist" not in html and 'name="player"' not in html
        assert not re.search(r"\b(Kessler|Gonzales|gm2)\b", html)
    # The GM's board does name them (the check above could not pass for want of them).
    gm_board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert "Kessler" in gm_board and "gm2 (GM)" in gm_board
    assert (
        sr2_web.player.get(f"/characters/{sr2_web.character_id}/forms/diagnose/", **HTMX).status_code == 403
    )
    card_form = f"/characters/{sr2_web.character_id}/card/first_aid/form/"
    assert sr2_web.player.get(card_form, **HTMX).status_code == 403


# --- a campaign form with an error opens the section that holds it ------------------------------------------------


def test_the_new_campaign_form_opens_its_house_rules_when_the_error_is_there(sr2_web: Web) -> None:
    closed = sr2_web.gm.get("/").content.decode()
    assert '<details id="new-options">\n    <summary>House rules (campaign options)</summary>' in closed
    bad = sr2_web.gm.post("/", {"name": "Chicago", "ruleset": "shadowrun2", "o_first_aid_tn__D": "40"})
    html = bad.content.decode()
    assert bad.status_code == 400
    assert '<details id="new-options" open>\n    <summary>House rules (campaign options)</summary>' in html
    assert re.search(r'id="err-c-first_aid_tn">Deadly, TN: expected a whole number of at most 30', html), html
    # An error elsewhere leaves the section as it was: closed.
    nameless = sr2_web.gm.post("/", {"name": "", "ruleset": "shadowrun2"}).content.decode()
    assert '<details id="new-options">\n    <summary>House rules (campaign options)</summary>' in nameless
    assert 'id="err-c-name"' in nameless


def test_every_medic_of_every_ruleset_is_offered_the_campaigns_people() -> None:
    """A new form with a medic (or another name of someone, `what="a name"`) must not fall back to a bare text."""
    from rules.registry import all_rulesets

    named = {
        (rules.slug, action, param.name): param.person
        for rules in all_rulesets()
        for action, form in rules.forms.items()
        for param in form.params
        if param.name == "medic" or param.what == "a name" or param.person
    }
    assert all(named.values()), named
    assert {(slug, action) for slug, action, _ in named} == {
        ("shadowrun2", "diagnose"),
        ("shadowrun2", "treat"),
        ("shadowrun2", "first_aid"),
        ("cyberpunk2020", "stabilize"),
        ("cyberpunk2020", "treat"),
        ("cyberpunk2020", "set_bones"),
    }


def house_rules_post(web: Web, **changed: str) -> Any:
    """The board's house-rules form as it shows, with `changed` inputs."""
    board = web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode()
    posted = form_inputs(board, f"/campaigns/{web.campaign_id}/options/")
    return web.gm.post(f"/campaigns/{web.campaign_id}/options/", {**posted, **changed})


def test_a_refused_house_rule_shows_its_error_at_its_option_and_the_page_opens_there(sr2_web: Web) -> None:
    assert "autofocus" not in sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    # An error inside an option (one level of first aid's TN) is said beside that option, in its words.
    nested = house_rules_post(sr2_web, o_first_aid_tn__D="x")
    html = nested.content.decode()
    assert nested.status_code == 400
    assert re.search(
        r'<fieldset id="o-first_aid_tn" aria-describedby="help-o-first_aid_tn" aria-invalid="true">', html
    )
    assert re.search(
        r'<p class="error" role="alert" tabindex="-1" autofocus id="err-o-first_aid_tn">Deadly, TN: expected a whole number',
        html,
    )
    # An option's own error, and one with no field of its own, likewise take the page there.
    flag = house_rules_post(sr2_web, o_critical_category="7").content.decode()
    assert re.search(
        r'<input type="checkbox" id="o-critical_category" [^>]*aria-invalid="true" autofocus', flag
    )
    assert 'id="err-o-critical_category">Expected the box ticked (on) or not sent, got 7</p>' in flag
    assert flag.count("autofocus") == 1
    named = house_rules_post(sr2_web, name="").content.decode()
    assert re.search(
        r'<input id="o-name" name="name" required value="" aria-invalid="true" autofocus>', named
    )
    assert Campaign.objects.get(pk=sr2_web.campaign_id).name == "Seattle 2053"
