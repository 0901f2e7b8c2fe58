"""The GM's board (campaign/web/board.py): character cards, their actions, NPCs in a hurry and the fight's rounds,
each form with good input, bad input (the message on the card or form, nothing written) and a player refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils.html import escape
from django.utils.text import capfirst

from campaign.models import Campaign, Character, Event
from tests.web.conftest import Web
from tests.web.test_hostile_forms import counts

HTMX = {"HTTP_HX_REQUEST": "true"}
ASH_ON_THEIR_FEET = "Wound track: 0 of 40 points (0 real, 0 stun), level none"


def board(web: Web, client: Any = None) -> str:
    response = (client or web.gm).get(f"/campaigns/{web.campaign_id}/")
    assert response.status_code == 200
    return response.content.decode()


def card_url(web: Web, action: str) -> str:
    return f"/characters/{web.character_id}/card/{action}/"


def names(web: Web) -> list[str]:
    return list(
        Character.objects.filter(campaign_id=web.campaign_id).order_by("pk").values_list("name", flat=True)
    )


# --- cards --------------------------------------------------------------------------------------------------------


def test_each_character_is_a_card_with_its_track_chips_next_timer_and_actions(cp2020_web: Web) -> None:
    cp2020_web.table.act(
        {"type": "damage", "damage": 30, "location": "torso", "rolls": {"stun_save": [1], "death_save": [10]}}
    )
    html = board(cp2020_web)
    card = html[html.index(f'id="card-{cp2020_web.character_id}"') :]
    assert "Wound track: 28 of 40 points (28 real, 0 stun), level mortal 3" in card
    assert (
        '<span class="chip dying">dying: 30 s left unless stabilized (dies 2020-01-01 00:00:30)</span>'
        in card
    )
    assert '<span class="chip down">unconscious</span>' in card
    assert "Next: death at 2020-01-01 00:00:30 <span" in card
    for label in ("Damage", "Save", "GM note", "Undo"):
        assert f"<summary>{label}</summary>" in card
    # The forms are fetched when opened: the board holds none.
    assert f'action="/characters/{cp2020_web.character_id}/card/' not in card[: card.index("</article>")]
    assert f'hx-get="/characters/{cp2020_web.character_id}/card/damage/form/"' in card


def test_a_cards_form_is_fetched_when_opened_or_opened_on_the_board_without_javascript(
    cp2020_web: Web,
) -> None:
    path = f"/characters/{cp2020_web.character_id}/card/damage/form/"
    form = cp2020_web.gm.get(path, **HTMX).content.decode()
    # Only what a fight needs: the damage, where, and the two saves.
    assert sorted(set(_inputs(form))) == ["key", "p_damage", "p_location", "r_death_save_0", "r_stun_save_0"]
    response = cp2020_web.gm.get(path)
    board_path = f"/campaigns/{cp2020_web.campaign_id}/"
    opened = f"{board_path}?card={cp2020_web.character_id}&form=damage#card-{cp2020_web.character_id}"
    assert response.status_code == 302 and response["Location"] == opened
    page = cp2020_web.gm.get(opened).content.decode()
    assert f'<details class="card-action" id="card-{cp2020_web.character_id}-damage" open>' in page
    assert 'name="p_damage"' in page
    assert cp2020_web.gm.get(f"{board_path}?card=999&form=damage").status_code == 404
    assert cp2020_web.gm.get(f"{board_path}?card={cp2020_web.character_id}&form=wound").status_code == 404
    assert (
        cp2020_web.gm.get(f"/characters/{cp2020_web.character_id}/card/first_aid/form/", **HTMX).status_code
        == 404
    )
    assert cp2020_web.player.get(path, **HTMX).status_code == 403
    assert cp2020_web.stranger.get(path, **HTMX).status_code == 404


def _inputs(html: str) -> list[str]:
    import re

    return [name for name in re.findall(r'name="([^"]+)"', html) if name != "csrfmiddlewaretoken"]


def test_a_players_card_has_no_forms_timers_or_time_of_death(cp2020_web: Web) -> None:
    cp2020_web.table.act(
        {"type": "damage", "damage": 30, "location": "torso", "rolls": {"stun_save": [1], "death_save": [10]}}
    )
    html = board(cp2020_web, cp2020_web.player)
    assert "Wound track: 28 of 40 points" in html
    for secret in (
        "card-actions",
        "/card/",
        "Next:",
        "Nothing on the clock",
        "30 s left",
        "00:00:30",
        "Duplicate",
    ):
        assert secret not in html, secret


# --- actions from a card ------------------------------------------------------------------------------------------


def test_a_wound_from_a_card_answers_with_the_form_and_the_cards_state(cp2020_web: Web) -> None:
    before = Event.objects.count()
    response = cp2020_web.gm.post(
        card_url(cp2020_web, "damage"),
        {"p_damage": "12", "p_location": "torso", "r_stun_save_0": "10", "r_death_save_0": "1", "key": "k1"},
        **HTMX,
    )
    assert response.status_code == 200
    assert response["HX-Trigger"] == "refresh"
    html = response.content.decode()
    assert (
        '<p class="ok" role="status">Ash: 12 normal damage to the torso (SP 0, BTM -2): 10 points on the track. '
        "Stun save: rolled 10 against 4, failed.</p>" in html
    )
    # The card's state as the board draws it, which the form takes into the card out of band.
    assert f'hx-select-oob="#card-{cp2020_web.character_id}-state"' in html
    state = html[html.index(f'<div class="card-state" id="card-{cp2020_web.character_id}-state">') :]
    assert state in board(cp2020_web)
    assert "Wound track: 10 of 40 points (10 real, 0 stun), level critical" in state
    assert '<span class="chip">stunned</span>' in state
    assert "Next: stun save at 2020-01-01 00:00:03" in state
    assert Event.objects.count() == before + 2
    # The same post again (a double click) writes nothing more.
    again = cp2020_web.gm.post(
        card_url(cp2020_web, "damage"),
        {"p_damage": "12", "p_location": "torso", "r_stun_save_0": "10", "r_death_save_0": "1", "key": "k1"},
        **HTMX,
    )
    assert "Ash: already recorded: 12 normal damage to the torso" in again.content.decode()
    assert Event.objects.count() == before + 2


@pytest.mark.parametrize(
    ("action", "data", "message"),
    [
        ("damage", {"p_damage": "lots"}, "expected a whole number, got &#x27;lots&#x27;"),
        ("damage", {"p_damage": "-1"}, "expected a whole number of at least 0, got -1"),
        ("damage", {"p_damage": "5", "p_location": "tail"}, "expected head, torso, left arm"),
        (
            "save",
            {"p_kind": "stun", "r_save_0": "1"},
            "the character is not stunned: no stun save is pending",
        ),
        ("note", {"p_text": "  "}, "expected"),
        ("undo", {}, "there is nothing to undo on this character"),
        ("damage", {"p_damage": "5", "p_invented": "1"}, "p_invented: unknown field"),
    ],
)
def test_bad_input_on_a_card_is_shown_on_its_form_and_writes_nothing(
    cp2020_web: Web, action: str, data: dict[str, str], message: str
) -> None:
    before = counts()
    response = cp2020_web.gm.post(card_url(cp2020_web, action), data, **HTMX)
    # A refusal is never a 200: htmx swaps a 400 or 409 in (base.html's responseHandling), the error in the form.
    assert response.status_code in (400, 409)
    assert "HX-Trigger" not in response
    html = response.content.decode()
    assert 'class="error"' in html and capfirst(message) in html, html
    assert ASH_ON_THEIR_FEET in html  # the card's state, unchanged
    assert counts() == before
    # Without htmx: the board again, 400, the card's form open with the message.
    response = cp2020_web.gm.post(card_url(cp2020_web, action), data)
    assert response.status_code in (400, 409)
    page = response.content.decode()
    assert f'<details class="card-action" id="card-{cp2020_web.character_id}-{action}" open>' in page
    assert capfirst(message) in page
    assert counts() == before


def test_without_htmx_a_card_action_redirects_to_its_card_with_a_message(cp2020_web: Web) -> None:
    response = cp2020_web.gm.post(card_url(cp2020_web, "note"), {"p_text": "Behind the van"})
    assert response.status_code == 302
    assert response["Location"] == f"/campaigns/{cp2020_web.campaign_id}/#card-{cp2020_web.character_id}"
    assert "Ash: GM note: Behind the van." in cp2020_web.gm.get(response["Location"]).content.decode()
    response = cp2020_web.gm.post(card_url(cp2020_web, "undo"), {})
    assert response.status_code == 302
    assert Event.objects.filter(type="ActionUndone").count() == 1


def test_an_action_of_another_ruleset_is_not_found_on_a_card(cp2020_web: Web) -> None:
    before = counts()
    assert cp2020_web.gm.post(card_url(cp2020_web, "first_aid"), {"p_medic": "x"}).status_code == 404
    assert cp2020_web.gm.post(card_url(cp2020_web, "wound"), {}).status_code == 404  # another ruleset's
    assert counts() == before


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("other_player", 404), ("stranger", 404)])
def test_nobody_but_the_gm_posts_a_board_form(cp2020_web: Web, who: str, status: int) -> None:
    client = getattr(cp2020_web, who)
    board_path = f"/campaigns/{cp2020_web.campaign_id}/"
    posts = [
        (card_url(cp2020_web, "damage"), {"p_damage": "5"}),
        (card_url(cp2020_web, "note"), {"p_text": "x"}),
        (card_url(cp2020_web, "undo"), {}),
        (f"/characters/{cp2020_web.character_id}/duplicate/", {}),
        (f"{board_path}npcs/", {"prefix": "Ganger", "count": "2", "a_body": "6"}),
        (f"{board_path}fight/", {"at": "0"}),
    ]
    for path, data in posts:
        before = counts()
        assert client.post(path, data).status_code == status, path
        assert counts() == before, path
    assert Campaign.objects.get(pk=cp2020_web.campaign_id).fight_started_at is None
    response = cp2020_web.anonymous.post(card_url(cp2020_web, "note"), {"p_text": "x"})
    assert response.status_code == 302 and response["Location"].startswith("/login/")


# --- NPCs in a hurry ----------------------------------------------------------------------------------------------


def test_several_npcs_from_one_template_are_numbered_on_and_made_once_per_key(cp2020_web: Web) -> None:
    path = f"/campaigns/{cp2020_web.campaign_id}/npcs/"
    response = cp2020_web.gm.post(
        path, {"prefix": "Ganger", "count": "4", "a_body": "6", "key": "n1"}, **HTMX
    )
    assert response.status_code == 200 and response["HX-Trigger"] == "refresh"
    assert (
        '<p class="ok" role="status">Ganger 1 to Ganger 4 joined the campaign.</p>'
        in response.content.decode()
    )
    assert names(cp2020_web) == ["Ash", "Ganger 1", "Ganger 2", "Ganger 3", "Ganger 4"]
    gangers = Character.objects.filter(name__startswith="Ganger")
    assert {(c.player_id, c.attributes["body"], c.version) for c in gangers} == {(None, 6, 0)}
    # Their creation is one command on the campaign's stream, which a retry with the key does not repeat.
    created = Event.objects.filter(stream=f"campaign:{cp2020_web.campaign_id}", type="CharacterCreated")
    assert created.count() == 5
    assert len({e.cause for e in created if e.data["name"].startswith("Ganger")}) == 1
    again = cp2020_web.gm.post(path, {"prefix": "Ganger", "count": "4", "a_body": "6", "key": "n1"}, **HTMX)
    assert "Ganger 1 to Ganger 4 joined the campaign." in again.content.decode()
    assert created.count() == 5
    # A second batch numbers on; without htmx the answer is the board with a message.
    response = cp2020_web.gm.post(path, {"prefix": "Ganger", "count": "2", "a_body": "5"})
    assert response.status_code == 302
    assert (
        "Ganger 5 to Ganger 6 joined the campaign."
        in cp2020_web.gm.get(response["Location"]).content.decode()
    )
    assert names(cp2020_web)[-2:] == ["Ganger 5", "Ganger 6"]


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"prefix": "", "count": "2", "a_body": "6"}, "prefix", "expected the name the characters share"),
        (
            {"prefix": "Ganger", "count": "0", "a_body": "6"},
            "count",
            "expected a whole number of 1 to 20, got 0",
        ),
        (
            {"prefix": "Ganger", "count": "21", "a_body": "6"},
            "count",
            "expected a whole number of 1 to 20, got 21",
        ),
        (
            {"prefix": "Ganger", "count": "many", "a_body": "6"},
            "count",
            "expected a whole number of 1 to 20, got &#x27;many&#x27;",
        ),
        (
            {"prefix": "Ganger", "count": "2", "a_body": "lots"},
            "a_body",
            "expected a whole number, got &#x27;lots&#x27;",
        ),
        ({"prefix": "Ganger", "count": "2"}, "a_body", "this field is required: expected a whole number"),
        ({"prefix": "Ganger", "count": "2", "a_body": "6", "name": "x"}, "form", "name: unknown field"),
    ],
)
def test_bad_npc_input_names_the_field_and_makes_no_one(
    cp2020_web: Web, data: dict[str, str], field: str, message: str
) -> None:
    path = f"/campaigns/{cp2020_web.campaign_id}/npcs/"
    before = counts()
    html = cp2020_web.gm.post(path, data, **HTMX).content.decode()
    assert capfirst(message) in html, html
    assert 'aria-invalid="true"' in html or field == "form"
    response = cp2020_web.gm.post(path, data)
    assert response.status_code == 400
    assert capfirst(message) in response.content.decode()
    assert counts() == before


def test_duplicate_copies_the_attributes_not_the_history_or_the_player(cp2020_web: Web) -> None:
    cp2020_web.table.act({"type": "damage", "damage": 6, "location": "torso", "rolls": {"stun_save": [1]}})
    path = f"/characters/{cp2020_web.character_id}/duplicate/"
    response = cp2020_web.gm.post(path, {"key": "d1"}, **HTMX)
    assert response["HX-Trigger"] == "refresh"
    assert '<span class="ok" role="status">Ash 2 joined the campaign.</span>' in response.content.decode()
    copy = Character.objects.get(name="Ash 2")
    ash = Character.objects.get(pk=cp2020_web.character_id)
    assert (copy.attributes, copy.player_id, copy.version) == (ash.attributes, None, 0)
    assert copy.state["damage"] == 0 and ash.state["damage"] > 0
    cp2020_web.gm.post(path, {"key": "d1"}, **HTMX)  # a double click
    assert names(cp2020_web) == ["Ash", "Ash 2"]
    # A numbered name numbers on; without htmx the answer is the board at the copy's card.
    response = cp2020_web.gm.post(f"/characters/{copy.pk}/duplicate/", {})
    assert response.status_code == 302
    assert names(cp2020_web) == ["Ash", "Ash 2", "Ash 3"]
    assert response["Location"].endswith(f"#card-{Character.objects.get(name='Ash 3').pk}")
    before = counts()
    html = cp2020_web.gm.post(path, {"key": "d1", "name": "x"}, **HTMX).content.decode()
    assert escape("Name: unknown field") in html
    assert counts() == before


# --- the fight's rounds -------------------------------------------------------------------------------------------


def test_the_round_counter_counts_the_rulesets_rounds_from_the_fights_start(cp2020_web: Web) -> None:
    path = f"/campaigns/{cp2020_web.campaign_id}/fight/"
    assert "No fight running." in board(cp2020_web)
    response = cp2020_web.gm.post(path, {"at": "0"}, **HTMX)
    assert response["HX-Trigger"] == "refresh"
    assert 'Round <strong id="round-number">1</strong>' in response.content.decode()
    cp2020_web.table.advance(seconds=7)
    html = board(cp2020_web)
    assert 'Round <strong id="round-number">3</strong>' in html
    assert "of the fight started 2020-01-01 00:00:00 (7 s ago)" in html
    assert (
        '<input type="hidden" name="amount" value="3">\n    <button type="submit">Next round</button>' in html
    )
    # The player sees the round too (nothing secret in it), without the buttons.
    player = board(cp2020_web, cp2020_web.player)
    assert 'Round <strong id="round-number">3</strong>' in player and "Next round" not in player
    # A new fight at the game time shown; then the fight ends.
    assert cp2020_web.gm.post(path, {"at": "7"}).status_code == 302
    assert 'Round <strong id="round-number">1</strong>' in board(cp2020_web)
    assert cp2020_web.gm.post(path, {"end": "on"}).status_code == 302
    assert "No fight running." in board(cp2020_web)


def test_a_shadowrun_fight_counts_combat_turns(sr2_web: Web) -> None:
    sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/fight/", {"at": "0"})
    html = board(sr2_web)
    assert 'Combat turn <strong id="round-number">1</strong>' in html and "Next combat turn" in html


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"at": "60"}, "expected the game time the board showed, not later than the campaign&#x27;s"),
        ({"at": "-1"}, "expected the game time the board showed"),
        ({"at": "soon"}, "expected the game time the fight starts at, got &#x27;soon&#x27;"),
        ({"end": "yes"}, "expected the box ticked (on), left unticked (off) or not sent"),
        ({"at": "0", "round": "4"}, "round: unknown field"),
    ],
)
def test_a_bad_fight_post_is_refused_and_changes_nothing(
    cp2020_web: Web, data: dict[str, str], message: str
) -> None:
    path = f"/campaigns/{cp2020_web.campaign_id}/fight/"
    html = cp2020_web.gm.post(path, data, **HTMX).content.decode()
    assert '<p class="error" role="alert">' in html and capfirst(message) in html, html
    response = cp2020_web.gm.post(path, data)
    assert response.status_code == 400 and capfirst(message) in response.content.decode()
    assert Campaign.objects.get(pk=cp2020_web.campaign_id).fight_started_at is None


def test_a_fight_ends_by_itself_after_its_idle_minutes_and_never_counts_downtime(cp2020_web: Web) -> None:
    path = f"/campaigns/{cp2020_web.campaign_id}/fight/"
    cp2020_web.gm.post(path, {"at": "0"})
    cp2020_web.table.advance(seconds=300)
    note = cp2020_web.table.act(
        {"type": "note", "text": "Ash ducks behind the van"}
    )  # a combat action at 5 min
    assert note.status_code == 201
    cp2020_web.table.advance(seconds=599)  # a second short of 10 min after it: still the fight (the default)
    assert 'Round <strong id="round-number">300</strong>' in board(cp2020_web)
    cp2020_web.table.advance(seconds=1)  # 10 min without an action: over, not "Round 301"
    assert "The fight ended by itself at 2020-01-01 00:15:00" in board(cp2020_web)
    cp2020_web.table.advance(days=21)  # three weeks of downtime
    html = board(cp2020_web)
    assert 'id="round-number"' not in html
    assert "The fight ended by itself at 2020-01-01 00:15:00, 10 min after its last combat action." in html
    # The campaign's own option: 0 leaves the fight to the GM.
    options = cp2020_web.table.gm.client.patch(
        f"/api/campaigns/{cp2020_web.campaign_id}/", {"options": {"fight_idle_minutes": 0}}, format="json"
    )
    assert options.status_code == 200, options.content
    assert 'id="round-number"' in board(cp2020_web)


def test_an_action_after_a_fight_ended_by_itself_starts_round_1_of_a_new_fight(cp2020_web: Web) -> None:
    """A late action does not bring the old fight back at "Round 222": the pause ended it, the action begins anew."""
    cp2020_web.gm.post(f"/campaigns/{cp2020_web.campaign_id}/fight/", {"at": "0"})
    cp2020_web.table.advance(seconds=663)  # 11 min 3 s without a combat action: ended at 00:10:00
    html = board(cp2020_web)
    assert "The fight ended by itself at 2020-01-01 00:10:00" in html and 'id="round-number"' not in html
    assert cp2020_web.table.act({"type": "note", "text": "Ash shoots again"}).status_code == 201
    cp2020_web.table.advance(seconds=7)
    html = board(cp2020_web)
    assert 'Round <strong id="round-number">3</strong>' in html
    assert "of the fight started 2020-01-01 00:11:03 (7 s ago)" in html


def test_the_fights_idle_option_is_a_whole_number_of_minutes(cp2020_web: Web) -> None:
    refused = cp2020_web.table.gm.client.patch(
        f"/api/campaigns/{cp2020_web.campaign_id}/",
        {"options": {"fight_idle_minutes": "soon"}},
        format="json",
    )
    assert refused.status_code == 400
    assert refused.json()["options.fight_idle_minutes"] == ["expected a whole number, got 'soon'"]


def test_a_cards_undo_names_the_entry_as_the_character_page_does(cp2020_web: Web) -> None:
    cp2020_web.table.act(
        {"type": "damage", "damage": 6, "location": "right_leg", "rolls": {"stun_save": [1]}}
    )
    card = cp2020_web.gm.get(card_url(cp2020_web, "undo") + "form/", **HTMX).content.decode()
    page = cp2020_web.gm.get(f"/characters/{cp2020_web.character_id}/forms/undo/", **HTMX).content.decode()
    named = (
        "Undo: 6 normal damage to the right leg: 1 point on the track; Stun save: rolled 1 against 6, made,"
        " 2020-01-01 00:00:00"
    )
    assert f"{named}</button>" in card and f"{named}</button>" in page
