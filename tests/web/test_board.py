"""The GM's board (campaign/web/board.py): character cards, their actions, NPCs in a hurry and the fight's rounds,
each form with good input, bad input (the message on the card or form, nothing written) and a player refused."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.utils.html import escape
from django.utils.text import capfirst

from campaign.models import Campaign, Character, Event
from tests.web.conftest import Web
from tests.web.live_page import LivePage
from tests.web.test_hostile_forms import counts
from tests.web.test_player_secrets import DIAGNOSE_CH1
from tests.web.test_treated_hit_words import LUNG

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
    assert (
        'On the clock at 2020-01-01 00:00:30 <span class="muted">(in 30 s):</span> dies unless stabilized'
        in card
    )
    for label in ("Damage", "Save", "GM note", "Undo"):
        assert f"<summary>{label}</summary>" in card
    # The forms are fetched when opened: the board holds none.
    assert f'action="/characters/{cp2020_web.character_id}/card/' not in card[: card.index("</article>")]
    assert f'hx-get="/characters/{cp2020_web.character_id}/card/damage/form/"' in card


def test_a_shadowrun_cards_clock_names_the_mortal_hit_or_the_overflow_that_kills(sr2_web: Web) -> None:
    """A dying character's card names its death on the clock before anything sooner (it named the healing roll the
    wound had started). A Mortal hit to the lung bleeds out in 30 min: the card names that death. A Deadly wound
    kills by its overflow: the card names the overflow's next box, before a stun recovery roll due as soon."""
    mortal = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
    done = sr2_web.table.act({"type": "wound", "severity": "S", "rolls": mortal})
    assert done.status_code == 201, done.content
    html = board(sr2_web)
    card = html[html.index(f'id="card-{sr2_web.character_id}"') :]
    assert (
        'On the clock at 2053-01-01 00:30:00 <span class="muted">(in 30 min):</span> bleeds out from critical hit 1 '
        "to the chest (lung), unless treated</p>" in card
    )
    # Bex: a Deadly wound bleeds into overflow, one box every 10 min, dead at the sixth (Body 5) at 01:00:00; a Light
    # stun wound beside it starts a stun recovery. The card names the overflow's next box, the way to that death.
    made = sr2_web.table.gm.post(
        f"/api/campaigns/{sr2_web.campaign_id}/characters/", {"name": "Bex", "attributes": {"body": 5}}
    )
    bex = made.json()["id"]
    for wound in (
        {"type": "wound", "severity": "D", "rolls": {"body_check": [10] * 5}},
        {"type": "wound", "severity": "L", "damage": "stun"},
    ):
        assert sr2_web.table.gm.post(f"/api/characters/{bex}/actions/", wound).status_code == 201
    html = board(sr2_web)
    card = html[html.index(f'id="card-{bex}"') :]
    assert "dying: 1 h left unless stabilized by first aid (dies 2053-01-01 01:00:00)" in card
    # The overflow's line names what stops it, as the dying chip and the clock's prompt do (issue 42).
    assert (
        'On the clock at 2053-01-01 00:10:00 <span class="muted">(in 10 min):</span> bleeds into another overflow '
        "box, unless stabilized by first aid</p>" in card
    )


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
    assert 'On the clock at 2020-01-01 00:00:03 <span class="muted">(in 3 s):</span> next stun save' in state
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
        ("damage", {"p_damage": "lots"}, "expected a whole number, got lots"),
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
        '<p class="ok" role="status" id="npc-said">Ganger 1 to Ganger 4 joined the campaign.</p>'
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
            "expected a whole number of 1 to 20, got many",
        ),
        (
            {"prefix": "Ganger", "count": "2", "a_body": "lots"},
            "a_body",
            "expected a whole number, got lots",
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


def test_shadowruns_clock_buttons_and_fight_counter_say_combat_turn(sr2_web: Web) -> None:
    """Shadowrun's 3 s is its combat turn on the button and the counter alike (it read "+1 round", then "Combat turn
    2"); its clock has no 30-second turn, which would clash with the combat turn, so the 30 s are ten combat turns."""
    sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/fight/", {"at": "0"})
    clock = f"/campaigns/{sr2_web.campaign_id}/clock/"
    assert sr2_web.gm.post(clock, {"unit": "rounds", "amount": "1", "key": "k1"}).status_code == 302
    html = board(sr2_web)
    assert 'Combat turn <strong id="round-number">2</strong>' in html
    assert 'id="clock-rounds-1">+1 combat turn</button>' in html
    assert 'id="clock-turns-1">+10 combat turns</button>' in html
    assert 'aria-label="+1 combat turn, stopping when a status changes"' in html
    assert '<option value="rounds">combat turns</option>' in html and '<option value="turns">' not in html
    assert "A combat turn is 3 s." in html
    # No other word for it where the GM runs the fight (the house rules' help is every ruleset's).
    fight = html[: html.index('id="house-rules"')]
    assert not re.findall(
        r"\b(?:round|turn)s?\b", re.sub(r"<[^>]+>|combat turns?", " ", fight, flags=re.I), re.I
    )
    assert sr2_web.gm.post(clock, {"unit": "turns", "amount": "1", "key": "k2"}).status_code == 302
    assert 'Combat turn <strong id="round-number">12</strong>' in board(sr2_web)  # 33 s: the 12th combat turn


def test_cyberpunks_clock_buttons_and_fight_counter_say_round_and_turn_as_the_rules_do(
    cp2020_web: Web,
) -> None:
    cp2020_web.gm.post(f"/campaigns/{cp2020_web.campaign_id}/fight/", {"at": "0"})
    html = board(cp2020_web)
    assert 'Round <strong id="round-number">1</strong>' in html and "Next round" in html
    assert 'id="clock-rounds-1">+1 round</button>' in html and 'id="clock-turns-1">+1 turn</button>' in html
    assert '<option value="rounds">rounds</option><option value="turns">turns</option>' in html
    assert "A round is 3 s, a turn 30 s." in html


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"at": "60"}, "expected the game time the board showed, not later than the campaign&#x27;s"),
        ({"at": "-1"}, "expected the game time the board showed"),
        ({"at": "soon"}, "expected the game time the fight starts at, got soon"),
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


# A combat action: 6 damage to the right leg, 1 point on the track, the stun save made. (A GM note is none.)
GRAZE = {"type": "damage", "damage": 6, "location": "right_leg", "rolls": {"stun_save": [1]}}


def test_a_fight_ends_by_itself_after_its_idle_minutes_and_never_counts_downtime(cp2020_web: Web) -> None:
    path = f"/campaigns/{cp2020_web.campaign_id}/fight/"
    cp2020_web.gm.post(path, {"at": "0"})
    cp2020_web.table.advance(seconds=300)
    shot = cp2020_web.table.act(GRAZE)  # a combat action at 5 min
    assert shot.status_code == 201
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
    assert cp2020_web.table.act(GRAZE).status_code == 201
    cp2020_web.table.advance(seconds=7)
    html = board(cp2020_web)
    assert 'Round <strong id="round-number">3</strong>' in html
    assert "of the fight started 2020-01-01 00:11:03 (7 s ago)" in html


def test_an_undo_after_the_fight_ended_shows_the_fight_as_it_was(cp2020_web: Web) -> None:
    """An undo is no combat action: after the fight ended by itself it starts no "Round 1 of the fight started ...
    (just now)", and taking back the action that began a new fight shows the old one ended, with its own times."""
    campaign = f"/campaigns/{cp2020_web.campaign_id}/"
    cp2020_web.gm.post(f"{campaign}fight/", {"at": "0"})
    damage = {"type": "damage", "damage": 6, "location": "right_leg", "rolls": {"stun_save": [1]}}
    assert cp2020_web.table.act(damage).status_code == 201  # a combat action at 00:00:00
    cp2020_web.table.advance(seconds=663)  # 11 min 3 s later: ended at 00:10:00
    ended = "The fight ended by itself at 2020-01-01 00:10:00, 10 min after its last combat action."
    assert ended in board(cp2020_web)
    assert cp2020_web.table.act({"type": "undo"}).status_code == 201  # the damage of 00:00:00 taken back
    html = board(cp2020_web)
    assert 'id="round-number"' not in html and "just now" not in html
    # The fight's start is its only moment left: it ended 10 min after that.
    assert ended in html
    # A late action begins a new fight; taking it back shows the old one as it was, ended at 00:10:00.
    assert cp2020_web.table.act(GRAZE).status_code == 201
    assert 'Round <strong id="round-number">1</strong>' in board(cp2020_web)
    assert cp2020_web.table.act({"type": "undo"}).status_code == 201
    html = board(cp2020_web)
    assert 'id="round-number"' not in html and ended in html


def test_the_fights_idle_option_is_a_whole_number_of_minutes(cp2020_web: Web) -> None:
    refused = cp2020_web.table.gm.client.patch(
        f"/api/campaigns/{cp2020_web.campaign_id}/",
        {"options": {"fight_idle_minutes": "soon"}},
        format="json",
    )
    assert refused.status_code == 400
    assert refused.json()["options.fight_idle_minutes"] == ["expected a whole number, got the text soon"]


def test_a_cards_undo_names_the_entry_as_the_character_page_does(cp2020_web: Web) -> None:
    cp2020_web.table.act(
        {"type": "damage", "damage": 6, "location": "right_leg", "rolls": {"stun_save": [1]}}
    )
    card = cp2020_web.gm.get(card_url(cp2020_web, "undo") + "form/", **HTMX).content.decode()
    page = cp2020_web.gm.get(f"/characters/{cp2020_web.character_id}/forms/undo/", **HTMX).content.decode()
    named = (
        "Undo the entry at 2020-01-01 00:00:00 game time: 6 normal damage to the right leg: 1 point on the track;"
        " Stun save: rolled 1 against 6, made"
    )
    assert f"{named}</button>" in card and f"{named}</button>" in page


def test_the_custom_advance_keeps_its_last_amount_and_unit(cp2020_web: Web) -> None:
    """The walkthrough's "4 weeks" was gone once used: the custom advance keeps the amount and unit it last
    advanced by, through the buttons pressed since and a fresh load of the board; what was typed wrong is shown back."""
    board = f"/campaigns/{cp2020_web.campaign_id}/"
    amount = re.compile(r'<input id="adv-amount"[^>]*value="([^"]*)"')
    unit = re.compile(r'<select id="adv-unit" name="unit">.*?<option value="(\w+)" selected>', re.S)
    page = cp2020_web.gm.get(board).content.decode()
    assert (amount.search(page).group(1), unit.search(page).group(1)) == ("", "minutes")
    used = cp2020_web.gm.post(
        f"{board}clock/", {"custom": "1", "unit": "weeks", "amount": "4", "key": "c1"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "Advanced 4 weeks to 2020-01-29 00:00:00." in used
    assert (amount.search(used).group(1), unit.search(used).group(1)) == ("4", "weeks")
    button = cp2020_web.gm.post(
        f"{board}clock/", {"unit": "hours", "amount": "1", "key": "b1"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert (amount.search(button).group(1), unit.search(button).group(1)) == ("4", "weeks")
    page = cp2020_web.gm.get(board).content.decode()
    assert (amount.search(page).group(1), unit.search(page).group(1)) == ("4", "weeks")
    wrong = cp2020_web.gm.post(
        f"{board}clock/", {"custom": "1", "unit": "days", "amount": "x", "key": "c2"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert (amount.search(wrong).group(1), unit.search(wrong).group(1)) == ("x", "days")
    assert Campaign.objects.get(pk=cp2020_web.campaign_id).game_time == 4 * 7 * 86400 + 3600


def test_a_board_forms_message_is_gone_at_the_next_change_of_the_board(cp2020_web: Web) -> None:
    """The walkthrough's "Booster joined the campaign." sat under "Add a character" long after. It belongs to the
    answer that made it: the refresh that answer asks for keeps it, to be read; the board's next change ends it."""
    live = LivePage(cp2020_web.gm, cp2020_web.campaign_id, lambda page, swapped: None)
    form = live.page.get("character-form").walk()
    (adding,) = [node for node in form if node.tag == "form"]
    live._post(adding, name="Booster", a_body="6")
    assert live.page.get("character-said").text() == "Booster joined the campaign."  # after its refresh
    assert live.poll() == 304 and live.page.get("character-said").text() == "Booster joined the campaign."
    live.clock_button("clock-minutes-10")  # the board changes: its refresh takes the message away
    said = live.page.get("character-said")
    assert (said.text(), "hidden" in said.attrs) == ("", True)
    assert "Booster" in live.page.get("live").text()


def test_care_after_a_fight_starts_none_and_a_long_advance_shows_it_ended(sr2_web: Web) -> None:
    """The walkthrough's diagnose and treat at 00:13, after the fight had ended, began a new fight that counted
    "Combat turn 134" through a week's advance. Care that is not urgent (diagnose, treat, replace, a GM note) is no
    combat action: it neither starts a fight nor keeps one going (docs/clock.md, "The fight's rounds")."""
    table = sr2_web.table
    sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/fight/", {"at": "0"})
    assert table.act({"type": "wound", "severity": "S", "rolls": LUNG}).status_code == 201  # combat, 00:00:00
    table.advance(minutes=13)
    ended = "The fight ended by itself at 2053-01-01 00:10:00, 10 min after its last combat action."
    assert ended in board(sr2_web)
    diagnose = DIAGNOSE_CH1
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 3,
        "rolls": {"treatment": [9, 13, 2]},
    }
    for care in (diagnose, treat, {"type": "note", "text": "Doc stays the night."}):
        assert table.act(care).status_code == 201  # at 00:13:00
    html = board(sr2_web)
    assert ended in html and 'id="round-number"' not in html
    table.advance(weeks=1)
    html = board(sr2_web)
    assert (
        ended in html
        and 'id="round-number"' not in html
        and "Combat turn" not in html.split('id="fight"')[1][:400]
    )
    # A fight going on: care during it does not keep it going past its idle span after the last combat action.
    start = Campaign.objects.get(pk=sr2_web.campaign_id).game_time
    sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/fight/", {"at": str(start)})
    assert table.act({"type": "wound", "severity": "M", "rolls": LUNG}).status_code == 201  # combat, at start
    table.advance(minutes=5)
    diagnose2 = {**diagnose, "critical_hit": "ch2"}
    assert table.act(diagnose2).status_code == 201
    assert 'Combat turn <strong id="round-number">101</strong>' in board(sr2_web)  # 5 min of 3 s: going on
    table.advance(minutes=5)
    assert "The fight ended by itself at 2053-01-08 00:23:00, 10 min after its last combat action." in board(
        sr2_web
    )
