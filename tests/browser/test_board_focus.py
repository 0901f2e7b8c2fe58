"""The board through a night's clock, in Chromium on a Shadowrun board with table dice "all": the focus stays on the
card just answered, a clock button never scrolls the page, the clock's prompt takes the focus in view and gives it
back to the button that advanced the clock once it goes, and every card keeps its actions after the clock's rolls
(docs/web.md, "The board's regions")."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from campaign.web import forms
from rules.registry import get_ruleset
from tests.browser.test_card_table_dice import Counted
from tests.browser.test_csp import Watched
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOCATION_DIE = "wound-r_location"  # the hit location's 2d6, in one box
LOCATION_ERROR = "Hit location: expected 2 dice of 1-6, got 7, 3"


def focused_card(page: Page) -> str | None:
    return page.evaluate("(document.activeElement.closest('article') || {}).id || null")


def scroll_y(page: Page) -> float:
    return float(page.evaluate("window.scrollY"))


def on_screen(page: Page, selector: str) -> float:
    """Where an element's top is in the viewport: what the GM sees move, or not."""
    return float(page.evaluate("s => document.querySelector(s).getBoundingClientRect().top", selector))


def test_shadowrun_the_board_keeps_focus_place_and_actions_through_the_clock(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    campaign_id = table.campaign["id"]
    ids = [table.character["id"]]
    for name in ("Bex", "Cole"):
        made = table.gm.post(
            f"/api/campaigns/{campaign_id}/characters/", {"name": name, "attributes": {"body": 5}}
        )
        ids.append(made.json()["id"])
    gm = Watched(browser, viewport={"width": 1280, "height": 800})
    gm.log_in(live_server.url, "gm")
    page = gm.page
    page.goto(f"{live_server.url}/campaigns/{campaign_id}/")
    gm.htmx_ready()
    bex, cole = Counted(page, ids[1]), Counted(page, ids[2])

    # A GM note on Bex's card: the focus stays on that card, through the refresh its answer asks for.
    note = bex.open("note")
    bex.fill("note-p_text", "covers the door")
    bex.send(note)
    expect(bex.card().locator(".card-said")).to_contain_text("covers the door")
    bex.settled()
    assert focused_card(page) == f"card-{ids[1]}"
    # Done, the form has closed: the focus is back on the button that opened it.
    expect(page.locator(f"#card-{ids[1]}-note")).not_to_have_attribute("open", "")
    expect(page.locator(f"#card-{ids[1]}-note > summary")).to_be_focused()

    # A clock button, pressed down at the clock's panel: it stays where it is on the screen, under the GM's pointer
    # (the refresh used to focus the answered card's button again, scrolling up to Bex's card; the advance's summary
    # that now comes above the panel is made up for by the browser's scroll anchoring), and the focus stays on it.
    page.locator("#clock-form").scroll_into_view_if_needed()
    assert scroll_y(page) > 0
    before = on_screen(page, "#clock-rounds-1")
    page.locator("#clock-rounds-1").click()
    expect(page.locator("#clock-form .ok")).to_contain_text("Advanced 3 s")
    expect(page.locator("#game-date")).to_contain_text("00:00:03")
    bex.settled()
    assert abs(on_screen(page, "#clock-rounds-1") - before) <= 2
    expect(page.locator("#clock-rounds-1")).to_be_focused()

    # A wound on Cole's card by the quick row: the focus is on Cole's card, not on Bex's answered one.
    wound = cole.open("wound")
    cole.choose("wound-p_severity", "S")
    cole.fill("wound-quick", "1 1 1 1 1 3 4 2 3")
    cole.send(wound)
    expect(cole.card().locator(".card-said")).to_contain_text("Critical hit 1 to the chest (ribs), Mortal")
    cole.settled()
    gm.live_refresh()
    cole.settled()
    assert focused_card(page) == f"card-{ids[2]}"

    # "Next combat turn" asks nothing (healing waits for the rest); "+10 min" asks the table for Cole's healing roll
    # once his rest begins, 10 min after his wound: the prompt takes the focus, in view.
    page.get_by_role("button", name="Next combat turn").click()
    expect(page.locator("#game-date")).to_contain_text("00:00:06")
    expect(page.locator("#clock-roll")).to_have_count(0)
    ten = page.locator("#clock-minutes-10")
    ten.scroll_into_view_if_needed()
    ten.click()
    prompt = page.locator("#clock-roll")
    expect(prompt).to_contain_text("Physical healing")
    expect(prompt.locator("input[name^='roll:']").first).to_be_focused()
    box = prompt.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800

    # The roll given, then the server rolls the rest: every card still has each of its actions, poll after poll.
    prompt.locator("input[name^='roll:']").first.fill("1 1 1 1 1")
    prompt.get_by_role("button", name="Give the roll").click()
    expect(page.locator("#game-date")).to_contain_text("00:10:06")
    if page.locator("#clock-roll").count():
        page.locator("#clock-roll").get_by_role("button", name="Let the server roll the rest").click()
    expect(page.locator("#clock-roll")).to_have_count(0)
    # The prompt gone with its input, the focus is back on the button that advanced the clock, not on <body>.
    expect(ten).to_be_focused()
    actions = list(forms.card_actions(get_ruleset("shadowrun2")))
    for _ in range(2):
        gm.live_refresh()
        bex.settled()
        for character_id in ids:
            shown = page.locator(f"#card-{character_id}-actions details.card-action")
            expect(shown).to_have_count(len(actions))
            expect(page.locator(f"#card-{character_id}-wound > summary")).to_have_text("Wound")

    # Cole dies within the next hour: the clock asks first (docs/clock.md, "A death waits for the GM's yes"), its
    # prompt focused on the stop and in view, and the GM lets it happen. The prompt gone, the focus is back on the
    # button that advanced the clock (given back without scrolling, as after a roll), Cole's card dead.
    hour = page.locator("#clock-hours-1")
    hour.scroll_into_view_if_needed()
    hour.click()
    prompt = page.locator("#clock-roll")
    expect(prompt.locator("h3")).to_have_text("Cole dies at 2053-01-01 00:30:03")
    expect(prompt.get_by_role("button", name=re.compile("^Stop here"))).to_be_focused()
    box = prompt.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800
    prompt.get_by_role("button", name="Go on: Cole dies").click()
    expect(page.locator("#clock-roll")).to_have_count(0)
    expect(page.locator(f"#card-{ids[2]} .chip.dead")).to_be_visible()
    bex.settled()
    expect(hour).to_be_focused()
    assert gm.problems == []


def test_house_rules_being_typed_stay_put_and_keep_their_text_through_refreshes(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    campaign_id = table.campaign["id"]
    gm = Watched(browser, viewport={"width": 1280, "height": 800})
    gm.log_in(live_server.url, "gm")
    page = gm.page
    page.goto(f"{live_server.url}/campaigns/{campaign_id}/")
    gm.htmx_ready()
    expect(page.locator("#recovery .party-fit")).to_be_visible()

    # The GM scrolls down to the house rules and starts typing the campaign's new name.
    name = page.locator("#o-name")
    name.scroll_into_view_if_needed()
    name.fill("Seattle 2054")
    name.focus()
    top = name.bounding_box()
    assert top is not None

    # Meanwhile a wound from the API grows Ash's card above (the poll's morph), and an answer's refresh fetches
    # the party's section again, longer: the input stays where it was on screen, with its text and the focus.
    table.act(
        {"type": "wound", "severity": "D", "damage": "physical", "rolls": {"body_check": [1, 1, 1, 1, 1]}}
    )
    with page.expect_response(lambda r: r.url.endswith(f"/campaigns/{campaign_id}/") and r.status == 200):
        pass
    with page.expect_response(lambda r: "/recovery/" in r.url):
        page.evaluate("htmx.trigger(document.body, 'refresh')")
    page.wait_for_function("() => document.querySelector('.htmx-request') === null")
    expect(page.locator(f"#card-{table.character['id']} .chips")).not_to_contain_text("on their feet")
    now = name.bounding_box()
    assert now is not None and abs(now["y"] - top["y"]) <= 2, (top, now)
    expect(name).to_have_value("Seattle 2054")
    expect(name).to_be_focused()
    assert gm.problems == []


def test_a_cards_form_closes_once_it_has_acted_and_a_refused_one_stays_open_through_the_poll(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    """A GM's walkthrough: a card's form stayed open after it had acted. Done, it closes, what happened is said on
    the card, and the focus is back on the action's button that opened it (issue 42: "focus stays on the card just
    answered"); refused, it stays open with what was typed and the error beside its field, through the board's
    2-second redraws (docs/web.md, "A card's forms and messages")."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    campaign_id, ash_id = table.campaign["id"], table.character["id"]
    gm = Watched(browser, viewport={"width": 1280, "height": 800})
    gm.log_in(live_server.url, "gm")
    page = gm.page
    page.goto(f"{live_server.url}/campaigns/{campaign_id}/")
    gm.htmx_ready()
    ash = Counted(page, ash_id)
    details = page.locator(f"#card-{ash_id}-wound")

    # Refused: a hit location's 2d6 with a 7. The form stays open, the dice as typed, the error beside them.
    wound = ash.open("wound")
    ash.choose("wound-p_severity", "M")
    ash.fill(LOCATION_DIE, "7 3")
    ash.send(wound)
    error = wound.locator(".roll .error")
    expect(error).to_have_text(LOCATION_ERROR)
    expect(page.locator(f"#c{ash_id}-{LOCATION_DIE}")).to_have_value("7 3")
    gm.problems = [p for p in gm.problems if "status of 400" not in p]  # the refusal's 400, noted by Chromium
    # Another character comes (the API): the board's poll redraws the live region, and the refused form is as it
    # was, open, with its words and what was typed.
    made = table.gm.post(
        f"/api/campaigns/{campaign_id}/characters/", {"name": "Bex", "attributes": {"body": 5}}
    )
    expect(page.locator(f"#card-{made.json()['id']}")).to_be_visible()
    ash.settled()
    expect(details).to_have_attribute("open", "")
    expect(error).to_have_text(LOCATION_ERROR)
    expect(page.locator(f"#c{ash_id}-{LOCATION_DIE}")).to_have_value("7 3")

    # Corrected and sent, it acts: the form closes, the focus is back on its "Wound" button, what happened is said
    # on the card, and both stay through the refresh the answer asks for and the next poll.
    page.locator(f"#c{ash_id}-{LOCATION_DIE}").fill("3 4")
    ash.send(wound)
    said = ash.card().locator(".card-said")
    expect(said).to_contain_text("Ash: ")
    expect(details).not_to_have_attribute("open", "")
    expect(details.locator("> summary")).to_be_focused()
    ash.settled()
    gm.live_refresh()
    ash.settled()
    expect(said).to_contain_text("Ash: ")
    expect(details).not_to_have_attribute("open", "")
    expect(details.locator("> summary")).to_be_focused()
    # Enter opens it again, a fresh form: no refusal, nothing typed.
    page.keyboard.press("Enter")
    expect(details).to_have_attribute("open", "")
    expect(wound.locator("button[type=submit]")).to_be_visible()
    expect(wound.locator(".error")).to_have_count(0)
    assert gm.problems == [], "\n".join(gm.problems)


def test_the_character_pages_form_closes_once_it_has_acted_as_a_cards_does(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    """The GM's page of one character: its action forms stayed open after they had acted. They behave as a card's
    now, by the same mechanism (`data-acted`, static/js/focus.js): done, the form closes, the focus is back on the
    action's summary, what happened is said above the actions; refused, it stays open with what was typed and the
    error beside its field, through the page's 2-second poll (docs/web.md, "The character page's forms")."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    gm = Watched(browser, viewport={"width": 1280, "height": 800})
    gm.log_in(live_server.url, "gm")
    page = gm.page
    page.goto(f"{live_server.url}/characters/{table.character['id']}/")
    gm.htmx_ready()
    details = page.locator("#action-wound")
    form = page.locator("#form-wound")
    said = page.locator("#character-said")
    expect(said).to_be_hidden()  # empty, not drawn

    # Refused: a hit location's 2d6 with a 7. The form stays open, the dice as typed, the error beside them.
    details.locator("> summary").click()
    expect(form.get_by_role("button", name="Wound")).to_be_visible()
    page.locator("#wound-p_severity").select_option("M")
    page.locator("#wound-r_location").fill("7 3")
    form.get_by_role("button", name="Wound").click()
    error = form.locator(".roll .error")
    expect(error).to_have_text(LOCATION_ERROR)
    gm.problems = [p for p in gm.problems if "status of 400" not in p]  # the refusal's 400, noted by Chromium
    # Another entry comes (a note by the API): the page's poll redraws the live region; the form is as it was.
    assert table.act({"type": "note", "text": "covers the door"}).status_code == 201
    expect(page.locator("#live")).to_contain_text("covers the door")
    gm.live_refresh()
    expect(details).to_have_attribute("open", "")
    expect(error).to_have_text(LOCATION_ERROR)
    expect(page.locator("#wound-r_location")).to_have_value("7 3")
    expect(said).to_be_hidden()

    # Corrected and sent, it acts: the form closes, the focus is back on its "Wound" summary, what happened is
    # said above the actions, and all stay through the refresh the answer asks for and the next poll.
    page.locator("#wound-r_location").fill("3 4")
    form.get_by_role("button", name="Wound").click()
    expect(said.locator(".ok")).to_contain_text("Moderate")
    expect(said).to_be_visible()
    expect(details).not_to_have_attribute("open", "")
    expect(details.locator("> summary")).to_be_focused()
    gm.live_refresh()
    expect(said.locator(".ok")).to_contain_text("Moderate")
    expect(details).not_to_have_attribute("open", "")
    expect(details.locator("> summary")).to_be_focused()
    # Enter opens it again, a fresh form: no refusal, nothing typed.
    page.keyboard.press("Enter")
    expect(details).to_have_attribute("open", "")
    expect(form.get_by_role("button", name="Wound")).to_be_visible()
    expect(form.locator(".error")).to_have_count(0)
    expect(page.locator("#wound-r_location")).to_have_value("")
    assert gm.problems == [], "\n".join(gm.problems)
