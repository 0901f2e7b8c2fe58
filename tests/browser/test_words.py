"""Issue 18 in Chromium: every page and fragment a GM (1280x800) and a player (390x844) read, for each ruleset, holds
no JSON, no Python value, no game-seconds number and no internal id; the player's first screen says how the
character is; a self-refresh keeps an opened <details> open. Under the CSP, with no violation or console error."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from rules import game_dates
from rules.registry import get_ruleset
from tests.browser.test_csp import Watched
from tests.conftest import Table, make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GM_SCREEN = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
HTMX = {"HX-Request": "true"}

# What a person must never read. Dates and the campaign's own name are taken out first: they hold long numbers.
# A date as the game writes it to people, "12 March 2054", is one too (rules.game_dates.MONTHS).
DATE = re.compile(
    r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?|\b\d{1,2} (" + "|".join(game_dates.MONTHS) + r") \d{4}\b"
)
NEVER = {
    "a JSON brace": re.compile(r"[{}]"),
    "a Python value": re.compile(r"\b(True|False|None)\b|\['|'\]|\{'"),
    "a game-seconds number": re.compile(r"\b\d{4,}\b"),
    "an internal id": re.compile(r"\bch\d+\b|\[t=|\b(IB|suffo)\b|\b[a-z]+_[a-z_]+\b"),
}
SETUPS: dict[str, dict[str, Any]] = {
    "shadowrun2": {
        "attributes": {"body": 5},
        "actions": [
            {"type": "wound", "severity": "M", "rolls": {"body_check": [6, 6, 6, 6, 6]}},
            {
                "type": "wound",
                "severity": "S",
                "rolls": {
                    "body_check": [1, 1, 1, 1, 1],
                    "location": [3, 4],
                    "critical": [2],
                    "death_time": [3],
                },
            },
            {
                "type": "diagnose",
                "medic": "Doc",
                "skill": 3,
                "critical_hit": "ch1",
                "rolls": {"diagnosis": [1, 1, 1]},
            },
            # another medic diagnoses it: the healing spell's form offers it by name
            {
                "type": "diagnose",
                "medic": "Kay",
                "skill": 1,
                "critical_hit": "ch1",
                "rolls": {"diagnosis": [6]},
            },
            {"type": "note", "text": "the sniper was Lone Star"},
        ],
        "advance": {"minutes": 2},
    },
    "cyberpunk2020": {
        "attributes": {"body": 6, "luck": 2},
        "actions": [
            {
                "type": "damage",
                "damage": 20,
                "location": "left_leg",
                "rolls": {"sever": [3], "stun_save": [4], "death_save": [3]},
            },
            {"type": "damage", "damage": 5, "location": "torso", "rolls": {"stun_save": [4]}},
            {"type": "note", "text": "the booster had a monoblade"},
        ],
        "advance": {"hours": 2},
    },
    "darkfuture": {
        "attributes": {"con": 8, "skills": {"driver": 3, "gunner": 4}},
        "actions": [
            {"type": "damage", "weapon_damage": 6, "rolls": {"damage": [2]}},
            {"type": "note", "text": "the interceptor's plates"},
        ],
        "advance": {"weeks": 2},
    },
}


def _table(django_user_model: Any, ruleset: str) -> Table:
    setup = SETUPS[ruleset]
    table = make_table(django_user_model, ruleset, setup["attributes"])
    for body in setup["actions"]:
        answer = table.act(body)
        assert answer.status_code == 201, answer.content
    assert table.advance(**setup["advance"]).status_code in (200, 202)
    return table


def _problems(where: str, text: str) -> list[str]:
    for name in ("Seattle 2053", "Cyberpunk 2020"):  # the campaign's and a ruleset's name
        text = text.replace(name, " ")
    text = DATE.sub(" ", text)
    found = []
    for what, pattern in NEVER.items():
        for match in pattern.finditer(text):
            context = text[max(0, match.start() - 40) : match.end() + 40].replace("\n", " ")
            found.append(f"{where}: {what} {match.group(0)!r} in ...{context}...")
    return found


# Every text node of the page, closed <details> and <option>s included, each apart (boxes numbered 1, 2, 3 ...
# side by side are not the number 123).
TEXT = """() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  while (walker.nextNode()) texts.push(walker.currentNode.nodeValue);
  return texts.join(" ");
}"""


def _page_text(page: Page, base: str, path: str) -> str:
    # Until what the page fetches as it loads (a character's forecast) has come: a forecast still running when
    # the next page asks for its own is the budget's 429 (one at a time per user), as a reader would meet it.
    page.goto(base + path, wait_until="networkidle")
    return page.evaluate(TEXT)


def _fragment_text(page: Page, base: str, path: str, headers: dict[str, str]) -> str:
    """A fragment as htmx fetches it, read as text (its tags, and the attributes in them, taken out)."""
    answer = page.request.get(base + path, headers=headers)
    assert answer.status == 200, (path, answer.status)
    return html.unescape(re.sub(r"<[^>]*>", " ", answer.text(), flags=re.DOTALL))


def _scan(
    watched: Watched, base: str, pages: list[str], fragments: list[tuple[str, dict[str, str]]]
) -> list[str]:
    problems = []
    for path in pages:
        problems += _problems(path, _page_text(watched.page, base, path))
    for path, headers in fragments:
        problems += _problems(f"{path} (fragment)", _fragment_text(watched.page, base, path, headers))
    return problems


@pytest.mark.parametrize("ruleset", list(SETUPS))
def test_no_page_or_fragment_shows_json_python_values_game_seconds_or_ids(
    live_server: Any, browser: Any, django_user_model: Any, ruleset: str
) -> None:
    base = live_server.url
    table = _table(django_user_model, ruleset)
    campaign, character = table.campaign["id"], table.character["id"]
    page = f"/characters/{character}/"
    from campaign.models import Character
    from campaign.web.forms.board import offered

    # The forms the character's page offers: of a dead character (the Cyberpunk table's), the note and Undo alone.
    alive = Character.objects.get(pk=character).alive
    actions = [a for a in (*get_ruleset(ruleset).actions, "note", "undo") if offered(a, alive=alive)]

    gm = Watched(browser, viewport=GM_SCREEN)
    gm.log_in(base, "gm")
    gm_pages = ["/", f"/campaigns/{campaign}/", page, f"{page}?version=1", f"{page}history/?before=2"]
    gm_pages += [f"{page}edit/"]  # the attributes that change in play (Dark Future's skills as rows)
    gm_pages += [f"{page}?form={action}" for action in actions]
    gm_fragments = [(f"{page}forms/{action}/", HTMX) for action in actions]
    gm_fragments += [
        (page, {**HTMX, "HX-Target": "live", "HX-Trigger": "live"}),
        (f"/campaigns/{campaign}/", {**HTMX, "HX-Target": "live", "HX-Trigger": "live"}),
        (f"{page}history/?before=2", HTMX),
    ]
    problems = _scan(gm, base, gm_pages, gm_fragments)

    player = Watched(browser, viewport=PHONE, is_mobile=True)
    player.log_in(base, "player")
    player_pages = ["/", f"/campaigns/{campaign}/", page]
    player_fragments = [
        (page, {**HTMX, "HX-Target": "live", "HX-Trigger": "live"}),
        (f"/campaigns/{campaign}/", {**HTMX, "HX-Target": "live", "HX-Trigger": "live"}),
    ]
    problems += _scan(player, base, player_pages, player_fragments)

    assert problems == [], "\n".join(problems)
    assert gm.problems == [] and player.problems == [], "\n".join(gm.problems + player.problems)
    gm.context.close()
    player.context.close()


def test_the_players_first_screen_says_how_the_character_is(
    live_server: Any, browser: Any, django_user_model: Any, screenshot: Any
) -> None:
    table = _table(django_user_model, "shadowrun2")
    player = Watched(browser, viewport=PHONE, is_mobile=True)
    player.log_in(live_server.url, "player")
    player.page.goto(f"{live_server.url}/characters/{table.character['id']}/")
    summary = player.page.locator("#summary")
    expect(summary).to_contain_text("every breath hurts")  # what the character feels
    expect(summary).to_contain_text("Should be healed")
    box = summary.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
    expect(player.page.locator("#status-chips")).to_be_in_viewport()
    screenshot(player.page, "player-character-phone")
    assert player.problems == [], "\n".join(player.problems)
    player.context.close()


def test_a_refresh_keeps_an_opened_details_open(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    table = _table(
        django_user_model, "darkfuture"
    )  # two weeks of rest: one advance, its entries one group ("Clock, A to B: N entries")
    player = Watched(browser, viewport=PHONE, is_mobile=True)
    player.log_in(live_server.url, "player")
    player.page.goto(f"{live_server.url}/characters/{table.character['id']}/")
    player.htmx_ready()
    group = player.page.locator("li.entry-group details").first
    expect(group).to_contain_text("CON recovered twice")
    group_id = group.get_attribute("id")
    group = player.page.locator(f"details#{group_id}")
    group.locator("summary").click()
    expect(group).to_have_attribute("open", "")

    entries = player.page.locator("#live li.event").count()
    assert table.advance(weeks=1).status_code in (200, 202)  # a third recovery: the region refreshes itself
    expect(player.page.locator("#live li.event")).not_to_have_count(entries)
    expect(group).to_have_attribute("open", "")
    assert player.problems == [], "\n".join(player.problems)
    player.context.close()
