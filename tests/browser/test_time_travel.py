"""Issue 16 and 18 in the browser: time travel (the clock and timers of that moment, the GM's place kept, "make this
the present") and the board's "take back the latest advance"."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_scenarios import (
    add_character,
    advance,
    create_campaign,
    fill_dice,
    open_action,
    sign_up,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def settled_scroll(page: Page) -> None:
    """Wait until the page has scrolled and stopped: the same scroll position two animation frames in a row."""
    page.wait_for_function(
        """() => new Promise(resolve => {
            let last = -1;
            const look = () => {
                const now = window.scrollY;
                if (now > 0 && now === last) { resolve(true); } else { last = now; requestAnimationFrame(look); }
            };
            requestAnimationFrame(look);
        })"""
    )


def note(page: Page, text: str) -> None:
    open_action(page, "note")
    page.locator("#note-p_text").fill(text)
    page.locator("#form-note").get_by_role("button", name="GM note").click()
    expect(page.locator("#character-said .ok")).to_contain_text(f"GM note: {text}")


def johnny(live_server: Any, browser: Any, gm_name: str, height: int) -> tuple[Page, str, str]:
    """A GM's Cyberpunk campaign with Johnny (body 6), 1280 px wide: the GM's page (on Johnny's), the board's
    address and Johnny's."""
    gm = browser.new_context(viewport={"width": 1280, "height": height}).new_page()
    sign_up(gm, live_server.url, gm_name)
    create_campaign(gm, live_server.url, "Night City", "cyberpunk2020")
    board_url = gm.url
    add_character(gm, "Johnny", "", {"body": "6"})
    return gm, board_url, gm.url


def test_a_gm_makes_the_past_the_present_and_takes_back_an_advance(live_server: Any, browser: Any) -> None:
    gm, board_url, character_url = johnny(live_server, browser, "ren_gm", 900)
    for text in ("Arrived at the Afterlife.", "Picked a fight.", "Lost it."):
        note(gm, text)

    # Time travel to after the first note, then make it the present: the two later notes go, as one group.
    gm.goto(f"{character_url}?version=1")
    expect(gm.locator(".travel")).to_contain_text("as it was after event 1")
    # It asks first, saying what goes: the two later notes (a revert takes back every entry, notes too).
    gm.locator(".revert-form > summary", has_text="Make this the present").click()
    expect(gm.locator("#revert-said")).to_contain_text("Takes back 2 entries of Johnny's after event 1")
    gm.get_by_role("button", name="Yes, take back 2 entries").click()
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
    gm.locator("#clock-rewind").click()  # it asks first, saying what it takes back
    expect(gm.locator("#rewind-said")).to_contain_text("Takes back the advance of 1 day")
    gm.get_by_role("button", name="Yes, take back the advance of 1 day").click()
    expect(gm.locator("#clock-form .ok")).to_contain_text(
        "Took back the advance of 1 day: the clock is at 2020-01-01 00:00:00"
    )
    expect(gm.locator("#live")).to_contain_text("2020-01-01 00:00:00")
    # Nothing to take back any more: none offered.
    expect(gm.locator("#clock-rewind")).to_have_count(0)


def test_time_travel_shows_the_clock_of_that_moment_and_keeps_the_gm_s_place(
    live_server: Any, browser: Any, screenshot: Any
) -> None:
    gm, board_url, character_url = johnny(live_server, browser, "travel_gm", 600)
    # 12 stun to the torso, the stun save made with a 1: ten stun points (versions 1-2), one heals every hour.
    open_action(gm, "damage")
    gm.locator("#damage-p_damage").fill("12")
    gm.locator("#damage-p_kind").select_option("stun")
    gm.locator("#damage-p_location").select_option("torso")
    fill_dice(gm, "damage", "stun_save", [1])
    gm.locator("#form-damage").get_by_role("button", name="Damage").click()
    expect(gm.locator("#character-said .ok")).to_be_visible()
    # A day passes: the ten points heal, one an hour, in one advance (one folded entry in the history).
    gm.goto(board_url)
    gm.wait_for_function("() => window.htmx !== undefined && document.readyState === 'complete'")
    advance(gm, "+1 day")
    gm.goto(character_url)
    gm.wait_for_function("() => window.htmx !== undefined && document.readyState === 'complete'")
    for text in ("Back on his feet.", "Looking for the fixer.", "Found her."):
        note(gm, text)
    expect(gm.locator("#live .clock")).to_contain_text("2020-01-02 00:00:00")
    expect(gm.locator("#timers")).to_have_text("Nothing scheduled.")

    # The GM opens the advance's folded entry and scrolls down to the damage, which is under it.
    group = gm.locator("#live .timeline .entry-group > details")
    group.locator("summary").click()
    expect(group).to_have_attribute("open", "")
    damage = gm.locator("#entry-2")
    damage.scroll_into_view_if_needed()
    gm.mouse.wheel(0, 120)
    settled_scroll(gm)
    before = damage.bounding_box()
    scrolled = gm.evaluate("window.scrollY")
    assert scrolled > 0

    # Travels to right after the damage: the clock and the timers of that moment, the GM's place kept.
    damage.get_by_role("link", name="view as it was").click()
    travel = gm.locator("#live .travel")
    expect(travel).to_contain_text("as it was after event 2 of")
    expect(travel).to_contain_text("at 2020-01-01 00:00:00 (now 2020-01-02 00:00:00)")
    expect(travel).to_be_in_viewport()  # sticky: the past is said wherever the GM is
    expect(gm.locator("#clock-then")).to_contain_text("Game time then: 2020-01-01 00:00:00")
    expect(gm.locator("#timers")).to_have_text("At 2020-01-01 01:00:00 (in 1 h): a stun point heals")
    expect(group).to_have_attribute("open", "")
    expect(gm.locator(".actions-aside")).to_be_hidden()  # the present's actions, while the past is shown
    assert "version=2" in gm.url
    after = damage.bounding_box()
    assert abs(after["y"] - before["y"]) <= 2, (before, after)
    gm.evaluate("window.scrollTo(0, 0)")
    screenshot(gm, "gm-time-travel-clock")

    # Back to now, from further down: the present's clock, and still the same place.
    damage.scroll_into_view_if_needed()
    before = damage.bounding_box()
    travel.get_by_role("link", name="Back to now").click()
    expect(gm.locator("#live .travel")).to_have_count(0)
    expect(gm.locator("#timers")).to_have_text("Nothing scheduled.")
    expect(group).to_have_attribute("open", "")
    expect(gm.locator(".actions-aside")).to_be_visible()
    back = damage.bounding_box()
    assert abs(back["y"] - before["y"]) <= 2, (before, back)
