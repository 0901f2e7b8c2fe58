"""A tester's Shadowrun night on the GM's board (table dice "all", 1280x800) and a player's phone (390x844), in
Chromium: a typo in the clock's row of rolls puts the focus on the box the error is about, the fight's panel keeps
"End the fight" on one line, and a critical hit's "TN +3" is never split across two lines (docs/web.md)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.test_csp import Watched
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def light(body: int) -> dict[str, Any]:
    """A Light wound, no critical hit (a Body check of `body` dice): its healing roll waits for the rest."""
    return {"type": "wound", "severity": "L", "rolls": {"body_check": [2] * body}}


def test_a_typo_in_the_clocks_second_roll_puts_the_focus_on_that_box_in_view(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    campaign_id = table.campaign["id"]
    ganger = table.gm.post(
        f"/api/campaigns/{campaign_id}/characters/", {"name": "Ganger 1", "attributes": {"body": 4}}
    ).json()
    for character, body in ((table.character["id"], 5), (ganger["id"], 4)):
        wounded = table.gm.post(f"/api/characters/{character}/actions/", light(body))
        assert wounded.status_code == 201, wounded.content
    gm = Watched(browser, viewport={"width": 1280, "height": 800})
    gm.log_in(live_server.url, "gm")
    page = gm.page
    page.goto(f"{live_server.url}/campaigns/{campaign_id}/")
    gm.htmx_ready()
    ten = page.locator("#clock-minutes-10")
    ten.scroll_into_view_if_needed()
    ten.click()
    prompt = page.locator("#clock-roll")
    expect(prompt).to_contain_text("The clock waits for 2 rolls")
    ash_box = prompt.get_by_label("Ash's physical healing (Body)")
    ganger_box = prompt.get_by_label("Ganger 1's physical healing (Body)")
    expect(ash_box).to_be_focused()
    ash_box.fill("1 1 1 1 1")
    ganger_box.fill("7 1 1 1")
    prompt.get_by_role("button", name="Give the rolls").click()
    expect(prompt.locator(".error")).to_have_text(
        "Ganger 1's physical healing (Body) needs 4d6 from 1 to 6 each; 7 is not a d6 roll"
    )
    # What was typed is kept, and the focus is on the box the error is about, not on Ash's correct roll.
    expect(ash_box).to_have_value("1 1 1 1 1")
    expect(ganger_box).to_have_value("7 1 1 1")
    expect(ganger_box).to_be_focused()
    box = prompt.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800
    # Sent again as it was, refused in the same words: the focus goes back to that box, not left on the button.
    prompt.get_by_role("button", name="Give the rolls").click()
    expect(ganger_box).to_be_focused()
    expect(prompt.locator(".error")).to_have_count(1)
    assert not gm.problems, gm.problems


def test_end_the_fight_stays_on_one_line_at_1280(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    gm = Watched(browser, viewport={"width": 1280, "height": 800})
    gm.log_in(live_server.url, "gm")
    page = gm.page
    page.goto(f"{live_server.url}/campaigns/{table.campaign['id']}/")
    gm.htmx_ready()
    page.locator("#fight").get_by_role("button", name="Start a fight").click()
    expect(page.locator("#fight").get_by_role("button", name="End the fight")).to_be_visible()
    # Five minutes into the fight: its counter is as long as the tester's, "Combat turn 102 of the fight started
    # 2053-01-01 00:00:00 (5 min 3 s ago)", which put "End the fight" alone on a second line.
    assert table.advance(seconds=303).status_code == 202
    page.reload()
    fight = page.locator("#fight")
    expect(fight).to_contain_text("Combat turn 102")
    end = fight.get_by_role("button", name="End the fight")
    next_turn = fight.get_by_role("button", name="Next combat turn").bounding_box()
    box = end.bounding_box()
    assert next_turn is not None and box is not None
    # On the row of the fight's other buttons, as tall as "Next combat turn" (one line of text), its words on one
    # line box.
    assert abs(box["y"] - next_turn["y"]) <= 1 and abs(box["height"] - next_turn["height"]) <= 1, (
        box,
        next_turn,
    )
    lines = end.evaluate(
        "b => { const r = document.createRange(); r.selectNodeContents(b);"
        " return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }"
    )
    assert lines == 1
    assert not gm.problems, gm.problems


def test_a_critical_hits_tn_modifier_is_never_split_on_the_phone(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    """The phone read "... crippling · TN" then "+3" on the next line: at every width a phone may have, the words
    "TN +3" sit on one line."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    # A Serious open wound, its critical hit the chest's lung (Mortal), diagnosed and treated: crippling, TN +3.
    lung = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
    diagnose = {
        "type": "diagnose",
        "medic": "Doc",
        "skill": 1,
        "critical_hit": "ch1",
        "rolls": {"diagnosis": [6]},
    }
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 3,
        "rolls": {"treatment": [9, 13, 2]},
    }
    for action in ({"type": "wound", "severity": "S", "rolls": lung}, diagnose, treat):
        assert table.gm.post(f"/api/characters/{table.character['id']}/actions/", action).status_code == 201
    assert table.advance(minutes=10).status_code == 202  # the treatment completes at 00:05
    phone = Watched(browser, viewport={"width": 390, "height": 844}, is_mobile=True)
    phone.log_in(live_server.url, "player")
    page = phone.page
    page.goto(f"{live_server.url}/characters/{table.character['id']}/")
    hit = page.locator("li.hit").filter(has_text="TN +")
    expect(hit).to_contain_text("crippling")
    split = []
    for width in range(300, 431, 2):
        page.set_viewport_size({"width": width, "height": 844})
        lines = hit.evaluate(
            r"""li => {
              const walker = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
              for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const found = /TN \+\d+/.exec(node.data);
                if (!found) continue;
                const range = document.createRange();
                range.setStart(node, found.index);
                range.setEnd(node, found.index + found[0].length);
                return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
              }
              return 0;
            }"""
        )
        if lines != 1:
            split.append((width, lines))
    assert not split, f"'TN +...' over several lines at these widths: {split}"
    assert not phone.problems, phone.problems
