"""Table dice in the browser: an action's form asks for each roll at a time, and a waiting clock is answered from
the board (campaign option `table_dice`)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from campaign import services
from campaign.models import Character, Event
from rules.registry import get_ruleset
from tests.browser.test_house_rules import open_house_rules
from tests.browser.test_scenarios import add_character, open_action, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def create_campaign(page: Page, base: str, name: str, ruleset: str, table_dice: str) -> None:
    page.goto(f"{base}/")
    page.wait_for_function("() => window.htmx !== undefined && document.readyState === 'complete'")
    page.locator("#c-name").fill(name)
    page.locator("#c-ruleset").select_option(ruleset)
    # The chosen ruleset's house rules come in its place (htmx): its first option is there.
    expect(page.locator('#new-options input[name="options_for"]')).to_have_value(ruleset)
    open_house_rules(page)
    expect(page.locator(f"#c-{get_ruleset(ruleset).options[0].name}")).to_be_visible()
    page.locator("#c-table_dice").select_option(table_dice)
    page.get_by_role("button", name="Create campaign").click()
    expect(page.get_by_role("heading", name=name)).to_be_visible()


def gm_at_a_new_table(live_server: Any, browser: Any, name: str, ruleset: str, table_dice: str) -> Page:
    """The GM signed up, on the board of a new campaign with this `table_dice`."""
    gm = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_up(gm, live_server.url, "anna_gm")
    create_campaign(gm, live_server.url, name, ruleset, table_dice)
    return gm


def send(page: Page) -> None:
    page.locator("#form-wound").get_by_role("button", name="Wound").click()


def test_a_shadowrun_wound_is_entered_die_by_die_as_the_form_asks(live_server: Any, browser: Any) -> None:
    gm = gm_at_a_new_table(live_server, browser, "Seattle 2053", "shadowrun2", "actions")
    add_character(gm, "Ash", "", {"body": "5"})
    form = gm.locator("#form-wound")

    # A Deadly wound without dice: the form asks for the Body check first, its pool, target and Rule of Six.
    open_action(gm, "wound")
    gm.locator("#wound-p_severity").select_option("D")
    send(gm)
    expect(form).to_contain_text(
        "Body check: roll 5d6, each die whose total reaches 10 is a success, a 6 rolled again and added (6 then 4 is 10)"
    )
    expect(form).to_contain_text("Decides whether the wound is a critical hit")
    # The dice as rolled: a 6 and the 3 rolled after it are one die of 9.
    form.get_by_label("Dice as rolled").fill("6 3 1 2 3 1")
    send(gm)
    expect(form).to_contain_text("Body check: 6 3 1 2 3 1, totals 9, 1, 2, 3, 1")
    expect(form).to_contain_text("Hit location: roll 2d6")

    # No success: Mortal. The location, then the entry, each asked in turn; earlier rolls stay on screen.
    gm.locator("#wound-r_location").fill("3 4")  # a 2d6 in one box
    send(gm)
    expect(form).to_contain_text("Critical hit table: roll 1d6")
    expect(form).to_contain_text("Hit location: 3, 4")
    gm.locator("#wound-r_critical_0").fill("4")
    send(gm)
    # Diaphragm, "2d6 min": the death-time pool is two dice, known only now.
    expect(form).to_contain_text("Time before death: roll 2d6")
    expect(form).to_contain_text("Critical hit table: 4")
    assert Event.objects.filter(type="WoundTaken").count() == 0  # nothing written yet
    gm.locator("#wound-r_death_time").fill("2 3")
    send(gm)
    # Done, the form closes and what happened is said above the actions (docs/web.md, "The character page's forms").
    expect(gm.locator("#character-said .ok")).to_contain_text("Critical hit 1")

    (hit,) = Event.objects.filter(type="CriticalHitTaken")
    assert (hit.data["part"], hit.data["death_time_dice"], hit.data["death_after_seconds"]) == (
        "diaphragm",
        [2, 3],
        300,
    )
    (wound,) = Event.objects.filter(type="WoundTaken")
    assert wound.data["body_check"]["dice"] == [9, 1, 2, 3, 1]


def ash_with_a_crippled_leg(gm: Page) -> None:
    """Ash, added from the board, with a crippled left leg not stabilized: a death save every turn."""
    add_character(gm, "Ash", "", {"body": "6", "luck": "2"})
    services.character_act(
        character_id=Character.objects.get(name="Ash").pk,
        body={
            "type": "damage",
            "damage": 20,
            "rolls": {"location": [7], "sever": [5], "stun_save": [3], "death_save": [4]},
        },
        actor="anna_gm",
    )


def reads_as_a_fresh_load(page: Page, url: str) -> None:
    """The clock's panel and the live region read as a fresh load of the board reads them, once the advance has
    ended: nothing the answers to the clock said while it ran stays behind."""
    page.evaluate(
        "document.getElementById('clock-said')?.remove()"
    )  # a stop's message, said once (its test's)
    fresh = page.context.new_page()
    fresh.goto(url)
    for region in ("#clock-form", "#live"):
        expect(page.locator(region)).to_have_text(fresh.locator(region).inner_text(), use_inner_text=True)
    fresh.close()


def test_a_waiting_clock_is_answered_from_the_board(live_server: Any, browser: Any) -> None:
    gm = gm_at_a_new_table(live_server, browser, "Night City", "cyberpunk2020", "all")
    board_url = gm.url
    ash_with_a_crippled_leg(gm)

    gm.goto(board_url)
    gm.get_by_role("button", name="+1 turn", exact=True).click()
    prompt = gm.locator("#clock-roll")
    expect(prompt).to_contain_text("The clock waits for a roll")
    expect(prompt).to_contain_text("Ash")
    expect(prompt).to_contain_text("Death save: roll 1d10, succeeds on 6 or less")
    expect(prompt).to_contain_text(
        "Decides whether the character holds on while the left leg (crippled) is not stabilized"
    )

    die = "Ash's death save: 1d10 from 1 to 10"
    prompt.get_by_label(die).fill("11")
    prompt.get_by_role("button", name="Give the roll").click()
    expect(gm.locator("#clock-roll .error")).to_have_text(
        "Ash's death save needs 1d10 from 1 to 10; 11 is not a d10 roll"
    )
    expect(gm.locator("#clock-roll").get_by_label(die)).to_have_value("11")  # what was typed, kept
    gm.locator("#clock-roll").get_by_label(die).fill("3")
    gm.locator("#clock-roll").get_by_role("button", name="Give the roll").click()
    expect(gm.locator("#clock-roll")).to_have_count(0)
    expect(gm.locator("#game-date")).to_contain_text("00:00:30")
    reads_as_a_fresh_load(gm, board_url)

    (save,) = Event.objects.filter(type="DeathSaveRolled", actor="clock")
    assert (save.game_time, save.data["roll"], save.data["table_dice"]) == (30, 3, ["death_save"])


def test_a_long_advance_is_stopped_at_a_roll_from_the_board(live_server: Any, browser: Any) -> None:
    gm = gm_at_a_new_table(live_server, browser, "Night City", "cyberpunk2020", "all")
    board_url = gm.url
    ash_with_a_crippled_leg(gm)
    gm.goto(board_url)
    gm.get_by_role("button", name="+10 min", exact=True).click()
    prompt = gm.locator("#clock-roll")
    expect(prompt).to_contain_text("Stop here: the clock stays at 00:00:00")
    prompt.get_by_label("Ash's death save: 1d10 from 1 to 10").fill("3")
    prompt.get_by_role("button", name="Give the roll").click()
    stop = gm.locator("#clock-roll").get_by_role("button", name="Stop here: the clock stays at 00:00:30")
    expect(stop).to_be_visible()
    stop.click()
    expect(gm.locator("#clock-roll")).to_have_count(0)
    expect(gm.locator("#game-date")).to_contain_text("00:00:30")
    expect(gm.locator("#clock-said")).to_have_text("Stopped at 00:00:30; act, then advance again to go on.")
    reads_as_a_fresh_load(gm, board_url)
    (advanced,) = Event.objects.filter(type="ClockAdvanced")
    assert (advanced.data["from"], advanced.data["to"]) == (0, 30)


@pytest.mark.parametrize("width", [390, 1280])
def test_the_clocks_roll_box_shows_nine_dice_whole(live_server: Any, browser: Any, width: int) -> None:
    """Issue 42 (walkthrough, 5): nine dice typed in the clock's roll box ran past its 7rem; the box is sized by the
    dice it takes, on a phone and on a laptop."""
    gm = gm_at_a_new_table(live_server, browser, "Seattle 2053", "shadowrun2", "all")
    board_url = gm.url
    gm.set_viewport_size({"width": width, "height": 900})
    add_character(gm, "Ash", "", {"body": "9"})
    # A light stun wound: its recovery roll (Body 9, nine dice) comes when the rest begins.
    services.character_act(
        character_id=Character.objects.get(name="Ash").pk,
        body={"type": "wound", "severity": "L", "damage": "stun"},
        actor="anna_gm",
    )
    gm.goto(board_url)
    gm.get_by_role("button", name="+1 hour", exact=True).click()
    prompt = gm.locator("#clock-roll")
    expect(prompt).to_contain_text("9d6 from 1 to 6 each")
    box = prompt.get_by_role("textbox")
    box.fill("3 4 1 6 2 5 1 3 2")
    # The whole text in view: nothing scrolled out of the box, and the box within the page.
    assert box.evaluate("el => el.scrollWidth <= el.clientWidth"), box.evaluate(
        "el => [el.scrollWidth, el.clientWidth]"
    )
    right = box.evaluate("el => el.getBoundingClientRect().right")
    assert right <= width, right
