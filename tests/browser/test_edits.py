"""Characters change in play, in the browser (issue 19): armour bought and a driver who leaves the car change the
next wound and not the last, an edit is undone, and a retired character leaves the board and the player's page.
Every die is entered. Dark Future: CON 8; a driver does not add the weapon's damage, a pedestrian does."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_scenarios import (
    REFRESH_MS,
    accept_invitation,
    add_character,
    add_player,
    create_campaign,
    open_action,
    sign_up,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def damage(page: Page, weapon: int, die: int, stun: int = 1) -> None:
    open_action(page, "damage")
    page.locator("#damage-p_weapon_damage").fill(str(weapon))
    page.locator("#damage-r_damage_0").fill(str(die))
    page.locator("#damage-r_stun_0").fill(str(stun))
    page.locator("#form-damage").get_by_role("button", name="Damage").click()
    expect(page.locator("#character-said .ok")).to_be_visible()


def edit(page: Page, character_url: str, **change: Any) -> None:
    """The edit page from the character page's link; `change` maps input ids to text or a box's tick."""
    page.goto(character_url)
    page.get_by_role("link", name="Edit or retire").click()
    for field, value in change.items():
        box = page.locator(f"#e-{field}")
        if isinstance(value, bool):
            box.set_checked(value)
        else:
            box.fill(value)
    page.get_by_role("button", name="Save changes").click()


def test_armour_a_driver_on_foot_an_undone_edit_and_a_retirement(
    live_server: Any, browser: Any, screenshot: Any
) -> None:
    base = live_server.url
    gm = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    player = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    sign_up(gm, base, "eve_gm")
    sign_up(player, base, "finn_player")
    create_campaign(gm, base, "Highway 2025", "darkfuture")
    board = gm.url
    add_player(gm, "finn_player")
    gm.locator("#ch-a_pedestrian").set_checked(False)
    gm.locator("#ch-a_driver").set_checked(True)
    add_character(gm, "Ash", "finn_player", {"con": "8"})
    ash = gm.url

    # At the wheel: 3, the weapon's 4 not added -> 3 -> 1 CON.
    damage(gm, 4, 3)
    expect(gm.locator("#live .con")).to_contain_text("CON 7 / 8")

    # Armour bought: the wound taken stays as it was, the next one meets the armour (3 - 2 = 1: a near miss).
    edit(gm, ash, a_armour="2")
    expect(gm.locator(".messages")).to_contain_text("Saved: armour from 0 to 2.")
    damage(gm, 4, 3)
    expect(gm.locator("#character-said .ok")).to_contain_text("a near miss, no CON lost")
    expect(gm.locator("#live .con")).to_contain_text("CON 7 / 8")
    history = gm.locator("#live .event")
    expect(history.filter(has_text="Character changed")).to_contain_text("armour")

    # Out of the car: the pedestrian table from then on, 3 + 4 - 2 = 5 -> 2 CON.
    edit(gm, ash, a_pedestrian=True, a_driver=False)
    expect(gm.locator(".messages")).to_contain_text("pedestrian from no to yes; driver from yes to no")
    damage(gm, 4, 3)
    expect(gm.locator("#live .con")).to_contain_text("CON 5 / 8")

    # A misspelt name, put right, then taken back by an undo.
    edit(gm, ash, name="Asher")
    expect(gm.get_by_role("heading", name="Asher", exact=True)).to_be_visible()
    open_action(gm, "undo")
    gm.locator("#form-undo").get_by_role(
        "button", name=re.compile("^Undo the entry at .* game time: Changed: name from Ash to Asher")
    ).click()
    expect(gm.locator("#live .event").first).to_contain_text("Taken back")
    gm.goto(ash)
    expect(gm.get_by_role("heading", name="Ash", exact=True)).to_be_visible()
    screenshot(gm, "gm-character-edited")

    # The player sees Ash on their page of the campaign; retired, Ash is gone from it and from the board.
    accept_invitation(player, base, "Highway 2025")
    player.goto(f"{base}/")
    player.get_by_role("link", name="Highway 2025").click()
    expect(player.locator("#live").get_by_role("link", name="Ash")).to_be_visible()
    gm.get_by_role("link", name="Edit or retire").click()
    gm.get_by_role("button", name="Retire Ash").click()
    expect(gm.locator(".messages")).to_contain_text("Ash is retired")
    assert gm.url.rstrip("/") == board.rstrip("/")
    expect(gm.locator("#live").get_by_role("link", name="Ash")).to_have_count(0)
    expect(gm.locator("#retired-h")).to_be_visible()
    expect(player.locator("#live").get_by_role("link", name="Ash")).to_have_count(0, timeout=REFRESH_MS)
    screenshot(gm, "gm-board-retired")

    # Restored from the board, Ash is back for both.
    gm.get_by_role("button", name="Restore Ash").click()
    expect(gm.locator(".messages")).to_contain_text("Ash is back on the board")
    expect(player.locator("#live").get_by_role("link", name="Ash")).to_be_visible(timeout=REFRESH_MS)
