"""Issue 16 in the browser: time travel's "make this the present" and the board's "take back the latest advance"."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_scenarios import add_character, advance, create_campaign, open_action, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def note(page: Page, text: str) -> None:
    open_action(page, "note")
    page.locator("#note-p_text").fill(text)
    page.locator("#form-note").get_by_role("button", name="GM note").click()
    expect(page.locator("#form-note .ok")).to_contain_text(f"GM note: {text}")


def test_a_gm_makes_the_past_the_present_and_takes_back_an_advance(live_server: Any, browser: Any) -> None:
    base = live_server.url
    gm = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_up(gm, base, "ren_gm")
    create_campaign(gm, base, "Night City", "cyberpunk2020")
    board_url = gm.url
    add_character(gm, "Johnny", "", {"body": "6"})
    character_url = gm.url
    for text in ("Arrived at the Afterlife.", "Picked a fight.", "Lost it."):
        note(gm, text)

    # Time travel to after the first note, then make it the present: the two later notes go, as one group.
    gm.goto(f"{character_url}?version=1")
    expect(gm.locator(".travel")).to_contain_text("as it was after event 1")
    gm.get_by_role("button", name="Make this the present").click()
    expect(gm.locator(".travel")).to_have_count(0)
    group = gm.locator("#live .timeline .entry-group.voided > details > summary")
    expect(group).to_contain_text("Taken back: 2 entries")
    expect(gm.locator("#live")).to_contain_text("Arrived at the Afterlife.")
    expect(gm.locator("#live .notes")).not_to_contain_text("Lost it.")

    # On the board: +1 day pressed for +1 hour, taken back in one click.
    gm.goto(board_url)
    gm.wait_for_function("() => window.htmx !== undefined && document.readyState === 'complete'")
    advance(gm, "+1 day")
    expect(gm.locator("#live")).to_contain_text("2020-01-02 00:00:00")
    gm.get_by_role("button", name="Take back the latest advance").click()
    expect(gm.locator("#clock-form .ok")).to_contain_text(
        "Advance taken back: the clock is back at 2020-01-01 00:00:00"
    )
    expect(gm.locator("#live")).to_contain_text("2020-01-01 00:00:00")
    # Nothing to take back any more: refused, in words.
    gm.get_by_role("button", name="Take back the latest advance").click()
    expect(gm.locator("#clock-form .error")).to_contain_text("there is no clock advance to take back")
