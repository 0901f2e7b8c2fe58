"""The house rules in the game's words, in the browser (issue 29): the new-campaign form swaps in the chosen
ruleset's options, and neither it, the board's house-rules form nor the character forms (new, NPCs, edit) show JSON,
quote marks, true/false or game seconds. With UPDATE_SCREENSHOTS=1 each ruleset's house-rules form goes to
docs/screenshots/house-rules-<slug>.png (docs/web.md and docs/RULESETS.md show them)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from rules.registry import get_ruleset, ruleset_slugs
from tests.browser.test_scenarios import sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# What a form in the game's words never shows: JSON's braces and quote marks, its true and false, game seconds.
BANNED = re.compile(r'[{}"]|\btrue\b|\bfalse\b|\bseconds?\b|JSON', re.IGNORECASE)
ATTRIBUTES = {"shadowrun2": {"body": "5"}, "cyberpunk2020": {"body": "6"}, "darkfuture": {"con": "8"}}


def words_of(page: Page, selector: str) -> str:
    """What a person reads in a part of the page: its text, and what its inputs and selects show."""
    return page.locator(selector).evaluate(
        """(root) => [root.innerText,
            ...[...root.querySelectorAll('input:not([type=hidden]):not([type=checkbox])')].map((i) => i.value),
            ...[...root.querySelectorAll('select')].map((s) => s.selectedOptions[0]?.text || '')].join(' | ')"""
    )


def assert_in_words(text: str, where: str) -> None:
    found = BANNED.findall(text)
    assert not found, f"{where}: {found} in {text!r}"


def open_house_rules(page: Page) -> None:
    """The new-campaign form's house rules, open, once the chosen ruleset's have come in (htmx swaps them open)."""
    page.wait_for_load_state("networkidle")
    if page.locator("#new-options").get_attribute("open") is None:
        page.locator("#new-options summary").click()


def ready(page: Page) -> None:
    page.wait_for_function("() => window.htmx !== undefined && document.readyState === 'complete'")


@pytest.mark.parametrize("slug", ruleset_slugs())
def test_every_form_of_a_campaign_speaks_the_games_words(
    live_server: Any, browser: Any, screenshot: Any, slug: str
) -> None:
    rules = get_ruleset(slug)
    base = live_server.url
    gm = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_up(gm, base, "eve_gm")
    ready(gm)
    gm.locator("#c-name").fill("Words")
    gm.locator("#c-ruleset").select_option(slug)
    open_house_rules(gm)
    # The chosen ruleset's options come in with their defaults, the shared ones after them.
    first = rules.options[0]
    expect(gm.locator(f"#c-{first.name}")).to_be_visible()
    expect(gm.locator("#new-options")).to_contain_text(first.label)
    # The game's own format, never the browser's picker (docs/web.md, "Dates").
    expect(gm.locator("#c-start")).to_have_value(rules.default_start.replace("T", " "))
    assert gm.locator("#c-start").get_attribute("type") is None
    assert_in_words(words_of(gm, "#new-options"), "the new-campaign form")
    gm.get_by_role("button", name="Create campaign").click()
    expect(gm.get_by_role("heading", name="Words", exact=True)).to_be_visible()
    board = gm.url

    house_rules = gm.locator("#house-rules")
    expect(house_rules).to_contain_text(first.label)
    assert_in_words(words_of(gm, "#house-rules"), "the house-rules form")
    screenshot(gm, f"house-rules-{slug}", house_rules)
    assert_in_words(words_of(gm, "#character-form"), "the new-character form")
    assert_in_words(words_of(gm, "#npcs"), "the NPCs form")

    # A change saved says itself as a sentence, and the edit page of a character is in words too.
    gm.locator("#ch-name").fill("Ash")
    for name, value in ATTRIBUTES[slug].items():
        gm.locator(f"#ch-a_{name}").fill(value)
    gm.get_by_role("button", name="Add character").click()
    expect(gm.locator("#character-form")).to_contain_text("Ash joined the campaign")
    gm.goto(board)
    gm.locator("#o-table_dice").select_option("actions")
    gm.get_by_role("button", name="Save house rules").click()
    expect(gm.locator("main")).to_contain_text(
        "From now on: Who rolls the dice: the table rolls for actions: every action asks for each die it needs."
    )
    gm.locator("#live").get_by_role("link", name="Ash").click()
    gm.get_by_role("link", name="Edit or retire").click()
    assert_in_words(words_of(gm, 'form[action$="/edit/"]'), "the character's edit form")


def test_the_new_campaigns_house_rules_stay_as_the_gm_left_them_when_the_ruleset_changes(
    live_server: Any, browser: Any
) -> None:
    """Choosing a ruleset swaps its house rules in: the section stays open or closed as the GM left it. Swapped in
    open, it shut on the GM's first click, which was meant to open it."""
    gm = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_up(gm, live_server.url, "eve_gm")
    ready(gm)
    section = gm.locator("#new-options")
    options_for = gm.locator('#new-options input[name="options_for"]')
    gm.locator("#c-ruleset").select_option("cyberpunk2020")
    expect(options_for).to_have_value("cyberpunk2020")
    expect(section).not_to_have_attribute("open", "")  # closed, as the GM left it
    gm.locator("#new-options summary").click()
    expect(section).to_have_attribute("open", "")
    gm.locator("#c-ruleset").select_option("darkfuture")
    expect(options_for).to_have_value("darkfuture")
    expect(section).to_have_attribute("open", "")  # open, as the GM left it
    expect(gm.locator("#c-con_recovery_days")).to_be_visible()
    # A click that comes before the swap it follows: open after both.
    gm.locator("#new-options summary").click()
    gm.locator("#c-ruleset").select_option("shadowrun2")
    gm.locator("#new-options summary").click()
    expect(options_for).to_have_value("shadowrun2")
    gm.wait_for_load_state("networkidle")
    expect(section).to_have_attribute("open", "")
