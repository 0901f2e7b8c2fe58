"""The party's recovery timeline on the board and its page: the GM on a desktop, the player on a phone, under the
CSP; the GM advances to when the party is fit from it. With UPDATE_SCREENSHOTS=1 the pictures go to
docs/screenshots/ (docs/recovery.md shows them)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.api.test_recovery import THREE_LOST, npc
from tests.browser.test_csp import Watched
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gm_and_the_player_see_the_partys_timeline_and_the_gm_advances_to_it(
    live_server: Any, browser: Any, django_user_model: Any, screenshot: Any
) -> None:
    base = live_server.url
    table = make_table(django_user_model, "darkfuture", {"con": 8, "skills": {"driver": 3}})
    bo = npc(table, "Bo", {"con": 12})
    assert table.act(THREE_LOST).status_code == 201
    assert table.gm.post(f"/api/characters/{bo['id']}/actions/", THREE_LOST).status_code == 201
    campaign = table.campaign["id"]
    gm = Watched(browser, viewport={"width": 1280, "height": 900})
    player = Watched(browser, viewport={"width": 390, "height": 844}, is_mobile=True)

    # The GM's board fetches the section once shown: a lane per character, a bar each, the party's line.
    gm.log_in(base, "gm")
    gm.page.goto(f"{base}/campaigns/{campaign}/")
    section = gm.page.locator("#recovery")
    chart = section.locator("svg.timeline")
    expect(chart).to_be_visible()
    expect(chart.locator("rect.lane")).to_have_count(2)
    expect(chart.locator("rect.bar")).to_have_count(2)
    expect(chart.locator("line.party-line")).to_have_count(1)
    expect(section).to_contain_text("The party: all fit by 15 January")
    gm.page.goto(f"{base}/campaigns/{campaign}/recovery/")
    expect(gm.page.locator("svg.timeline")).to_be_visible()
    screenshot(gm.page, "gm-recovery")

    # The player, on a phone: their own lane only, the chart within the screen's width.
    player.log_in(base, "player")
    player.page.goto(f"{base}/campaigns/{campaign}/recovery/")
    chart = player.page.locator("svg.timeline")
    expect(chart).to_be_visible()
    expect(chart.locator("rect.lane")).to_have_count(1)
    expect(player.page.locator("#recovery")).to_contain_text("Ash: fit for action by 15 January")
    expect(player.page.locator("#recovery")).not_to_contain_text("Bo")
    box = chart.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert player.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(player.page, "player-recovery-phone")

    # The GM advances the clock to the party's median from the page: the board says where it went.
    gm.page.get_by_role(
        "button", name="Advance to when the party is most likely fit (2020-01-15 00:00)"
    ).click()
    expect(gm.page.locator("#game-date")).to_have_text("2020-01-15 00:00:00")
    expect(gm.page.locator("#recovery")).to_contain_text("The party: all fit for action now")

    assert gm.problems == [] and player.problems == []
