"""Issue 28's words on the board's card forms: every error a refused post shows, and every help text, is a sentence
in the game's words (a capital first letter, choices named in words, no field name, no bare severity letters, no
None), in every ruleset, for every action a card offers, at a table-dice campaign and at one that rolls."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from campaign.web.forms import card_actions
from rules.registry import get_ruleset
from tests.conftest import make_table
from tests.web.conftest import Web, make_web

HTMX = {"HTTP_HX_REQUEST": "true"}
ATTRIBUTES = {
    "shadowrun2": {"body": 5},
    "cyberpunk2020": {"body": 6, "luck": 2},
    "darkfuture": {"con": 8, "skills": {"driver": 3}},
}
ERROR = re.compile(r'<p class="error"[^>]*>(.*?)</p>', re.S)
HELP = re.compile(r'<p class="help"[^>]*>(.*?)</p>', re.S)
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
BARE_LETTERS = re.compile(r"\bL, M, S,? (or )?D\b")
NONE = re.compile(r"\bNone\b")


def problems_of(text: str) -> list[str]:
    """What is wrong with one text a person reads on the page, as a sentence in the game's words."""
    found = []
    if not text[:1].isupper() and not text[:1].isdigit():
        found.append("no capital first letter")
    if SNAKE.search(text):
        found.append(f"a snake_case name {SNAKE.search(text).group()!r}")  # type: ignore[union-attr]
    if BARE_LETTERS.search(text):
        found.append("bare severity letters")
    if NONE.search(text):
        found.append("None")
    return found


def texts(pattern: re.Pattern[str], page: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", found)).strip() for found in pattern.findall(page)]


def card_web(django_user_model: Any, ruleset: str, table_dice: str) -> Web:
    return make_web(make_table(django_user_model, ruleset, ATTRIBUTES[ruleset], {"table_dice": table_dice}))


@pytest.mark.parametrize("table_dice", ["none", "actions"])
@pytest.mark.parametrize("ruleset", sorted(ATTRIBUTES))
def test_a_refused_card_post_says_its_errors_as_sentences_in_the_games_words(
    db: None, django_user_model: Any, ruleset: str, table_dice: str
) -> None:
    web = card_web(django_user_model, ruleset, table_dice)
    seen: dict[str, list[str]] = {}
    wrong: dict[str, list[str]] = {}
    for action in card_actions(get_ruleset(ruleset)):
        if action == "undo":
            continue  # nothing to take back is said on top; it has no field to leave empty
        url = f"/characters/{web.character_id}/card/{action}/"
        form = web.gm.get(f"{url}form/", **HTMX).content.decode()
        refused = web.gm.post(url, {"key": f"k-{action}"}, **HTMX)
        page = refused.content.decode()
        errors = texts(ERROR, page)
        seen[action] = errors
        for text in [*errors, *texts(HELP, form)]:
            if found := problems_of(text):
                wrong.setdefault(action, []).append(f"{text!r}: {', '.join(found)}")
    assert not wrong, wrong
    assert seen.get("note"), "the GM note with no text is refused: the scan read its error"


def test_the_severity_left_empty_names_the_severities_in_words(sr2_web: Web) -> None:
    refused = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/card/wound/", {"key": "k"}, **HTMX)
    assert refused.status_code == 400
    assert (
        "This field is required: expected Light (L), Moderate (M), Serious (S) or Deadly (D)"
        in html.unescape(refused.content.decode())
    )


def test_the_cyberpunk_skill_and_target_left_empty_are_named_in_words(cp2020_web: Web) -> None:
    refused = cp2020_web.gm.post(
        f"/characters/{cp2020_web.character_id}/card/stabilize/", {"key": "k"}, **HTMX
    )
    assert refused.status_code == 400
    page = html.unescape(refused.content.decode())
    assert "This field is required: expected a target: the dying character or a crippled limb" in page
    treat = cp2020_web.gm.post(
        f"/characters/{cp2020_web.character_id}/card/treat/", {"key": "k", "p_total": "20"}, **HTMX
    )
    assert "This field is required: expected first aid or medical tech" in html.unescape(
        treat.content.decode()
    )


def test_dark_futures_recover_with_nothing_to_recover_names_no_field(df_web: Web) -> None:
    refused = df_web.gm.post(f"/characters/{df_web.character_id}/card/recover/", {"key": "k"}, **HTMX)
    assert refused.status_code == 400
    page = html.unescape(refused.content.decode())
    assert (
        "Expected the character to come round from a knock-out or limbs to restore: nothing to recover"
        in page
    )
    assert not [text for text in texts(ERROR, page) if "knocked_out" in text]


# --- the focus after an answer: always on the card's form, the first refused input on a refusal -----------------

AUTOFOCUSED = re.compile(r"<(input|select|textarea|button)\b[^>]*\bautofocus\b[^>]*>")


def focused(response: Any) -> list[str]:
    """The elements of the card's form that ask for the focus once htmx swaps the answer in."""
    form = response.content.decode().split("</section>")[0]
    return [match.group(0) for match in AUTOFOCUSED.finditer(form)]


def test_a_refused_field_on_a_card_takes_the_focus(sr2_web: Web) -> None:
    refused = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/card/wound/", {"key": "k"}, **HTMX)
    assert refused.status_code == 400
    [element] = focused(refused)
    assert (
        element.startswith("<select") and 'name="p_severity"' in element and 'aria-invalid="true"' in element
    )


def test_a_refused_die_on_a_card_takes_the_focus(sr2_web: Web) -> None:
    data = {"key": "k", "p_severity": "S", "r_location": "7 3"}
    refused = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/card/wound/", data, **HTMX)
    assert refused.status_code == 400
    [element] = focused(refused)
    assert 'name="r_location"' in element


def test_a_refusal_said_on_top_and_a_success_focus_the_cards_button(sr2_web: Web) -> None:
    nothing = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/card/undo/", {"key": "k1"}, **HTMX)
    assert nothing.status_code in (400, 409)
    [element] = focused(nothing)
    assert element.startswith("<button")
    wound = {"key": "k2", "p_severity": "L"}
    done = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/card/wound/", wound, **HTMX)
    assert done.status_code == 200
    # Done, the form closes and the focus goes back to the card's button that opened it (static/js/focus.js,
    # on `data-acted`): nothing in the answered form asks for it; what happened is said on the card.
    answer = done.content.decode()
    assert focused(done) == []
    assert f'<section class="card-form" id="card-{sr2_web.character_id}-form-wound" data-acted>' in answer
    said = answer[
        answer.index(f'<div class="card-kept" id="card-{sr2_web.character_id}-said" hx-swap-oob="true">') :
    ]
    assert '<p class="ok" role="status">Ash: ' in said
    assert 'class="ok' not in answer.split("</section>")[0]  # not in the closed form


def test_a_refused_field_on_the_character_page_takes_the_focus(cp2020_web: Web) -> None:
    refused = cp2020_web.gm.post(
        f"/characters/{cp2020_web.character_id}/act/treat/", {"key": "k", "p_total": "20"}, **HTMX
    )
    assert refused.status_code == 400
    page = refused.content.decode()
    [element] = [match.group(0) for match in AUTOFOCUSED.finditer(page)]
    assert 'name="p_skill"' in element


def test_the_character_pages_form_closes_once_done_and_says_what_happened_above_the_actions(
    sr2_web: Web,
) -> None:
    """The character page's forms behave as a card's (docs/web.md, "The character page's forms"): done, the answer
    is the form drawn fresh and marked `data-acted` (static/js/focus.js closes it and gives the focus back to its
    summary), nothing in it asks for the focus, and what happened is said above the actions, out of band; refused,
    it stays open with what was typed, and the words above the actions go."""
    url = f"/characters/{sr2_web.character_id}/act/wound/"
    done = sr2_web.gm.post(url, {"key": "k1", "p_severity": "L", "p_damage": "stun"}, **HTMX)
    assert done.status_code == 200
    answer = done.content.decode()
    form = answer.split("</section>")[0]
    assert '<section class="action-form" id="form-wound" aria-labelledby="h-wound" data-acted>' in form
    assert focused(done) == [] and 'class="ok' not in form
    said = answer[answer.index('<div class="action-said" id="character-said" hx-swap-oob="true">') :]
    assert said.startswith(
        '<div class="action-said" id="character-said" hx-swap-oob="true"><p class="ok" role="status">Light stun '
        "wound: 1 box (physical 0, stun 1).</p></div>"
    )
    assert done["HX-Trigger"] == "refresh"
    refused = sr2_web.gm.post(url, {"key": "k2", "p_severity": "L", "r_location": "7 3"}, **HTMX)
    assert refused.status_code == 400
    answer = refused.content.decode()
    form = answer.split("</section>")[0]
    assert "data-acted" not in form and 'value="7 3"' in form
    assert "Hit location: expected 2 dice of 1-6" in form
    assert '<div class="action-said" id="character-said" hx-swap-oob="true"></div>' in answer
    # The page draws the place empty, above the actions.
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert '<h2 id="actions">Actions</h2>' in page
    assert '<div class="action-said" id="character-said"></div>' in page


def card_state_text(web: Web) -> str:
    """The words of the character's card on the board, as a reader reads them."""
    board = web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode()
    start = board.index(f'<div class="card-state" id="card-{web.character_id}-state">')
    state = board[start : board.index('<p class="next">', start)]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", state)).split())


def test_a_replaced_crippling_hit_reads_replaced_on_the_card_as_on_the_page(sr2_web: Web) -> None:
    crippling = {
        "type": "wound",
        "severity": "S",
        "rolls": {"body_check": [6, 1, 1, 1, 1], "location": [3, 4], "critical": [6]},
    }
    assert sr2_web.table.act(crippling).status_code == 201
    assert sr2_web.table.act({"type": "diagnose", "medic": "Doc", "skill": 4}).status_code == 201
    assert "Chest crippling" in card_state_text(sr2_web)
    replaced = sr2_web.gm.post(
        f"/characters/{sr2_web.character_id}/card/replace/",
        {"key": "k-r", "p_critical_hit": "ch1", "p_replacement": "cyberware"},
        **HTMX,
    )
    assert replaced.status_code == 200, replaced.content.decode()[:3000]
    # The card's state the answer takes into the card, the board's next load and the page read alike.
    answered = replaced.content.decode().split("</section>", 1)[1]
    assert "replaced by cyberware" in answered and ">crippling<" not in answered
    card = card_state_text(sr2_web)
    assert "Chest replaced by cyberware" in card and "crippling" not in card
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    hits = page[page.index("Critical hits") :]
    hits = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", hits[: hits.index("</ul>")])).split())
    assert "Chest · collarbone · crippling · replaced by cyberware" in hits


def test_a_replaced_cyberpunk_limb_no_longer_reads_crippled_on_the_card(cp2020_web: Web) -> None:
    crippled = {
        "type": "damage",
        "damage": 20,
        "location": "left_arm",
        "rolls": {"sever": [9], "stun_save": [3], "death_save": [2]},
    }
    assert cp2020_web.table.act(crippled).status_code == 201
    assert "crippled" in card_state_text(cp2020_web)
    replaced = cp2020_web.gm.post(
        f"/characters/{cp2020_web.character_id}/card/replace_limb/",
        {"key": "k-r", "p_limb": "left_arm", "p_replacement": "cyberarm"},
        **HTMX,
    )
    assert replaced.status_code == 200
    assert "crippled" not in card_state_text(cp2020_web)
