"""The campaign's people in the browser (issue 18): the invitee is chosen as a character's player at once, a medic
is chosen from the campaign's characters or typed, and a refused house rule opens the board at its error."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.test_scenarios import add_player, create_campaign, open_action, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_chosen_a_medic_suggested_and_a_house_rules_error_in_view(
    live_server: Any, browser: Any
) -> None:
    base = live_server.url
    gm = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    sign_up(gm, base, "ada_gm")
    sign_up(browser.new_context().new_page(), base, "bo_player")
    create_campaign(gm, base, "Redmond Barrens", "shadowrun2")
    board = gm.url
    gm.wait_for_function("() => window.htmx !== undefined && document.readyState === 'complete'")

    # Invited through htmx: the add-a-character form offers bo_player at once, without a reload.
    add_player(gm, "bo_player")
    gm.locator("#ch-player").select_option("bo_player")
    gm.locator("#ch-name").fill("Ash")
    gm.locator("#ch-a_body").fill("5")
    gm.get_by_role("button", name="Add character").click()
    expect(gm.locator("#character-form")).to_contain_text("Ash joined the campaign")
    expect(gm.locator("#live")).to_contain_text("played by bo_player")

    # The medic's input suggests the campaign's characters (its datalist) and takes a name typed.
    gm.locator("#live").get_by_role("link", name="Ash").click()
    gm.wait_for_function("() => window.htmx !== undefined && document.readyState === 'complete'")
    open_action(gm, "diagnose")
    medic = gm.locator("#diagnose-p_medic")
    expect(medic).to_have_attribute("list", "diagnose-p_medic-people")
    expect(gm.locator("#diagnose-p_medic-people option")).to_have_count(1)
    expect(gm.locator("#diagnose-p_medic-people option")).to_have_attribute("value", "Ash")

    # A refused house rule: the whole board comes back, opened at the option with its error.
    gm.goto(board)
    gm.locator("#o-first_aid_tn").get_by_label("Deadly, TN").fill("40")
    gm.get_by_role("button", name="Save house rules").click()
    error = gm.locator("#house-rules .error")
    expect(error).to_have_text("Deadly, TN: expected a whole number of at most 30, got 40")
    expect(error).to_be_in_viewport()
