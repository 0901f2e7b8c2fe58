"""The recovery forecast's chart on the character page, for the GM and for the player on a phone, under the CSP.
With UPDATE_SCREENSHOTS=1 the pictures go to docs/screenshots/ (docs/forecast.md shows them)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.api.test_forecast import CRITICAL, chest_hit
from tests.browser.test_csp import Watched
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gm_and_the_player_see_the_forecast_chart_drawn_by_the_server(
    live_server: Any, browser: Any, django_user_model: Any, screenshot: Any
) -> None:
    base = live_server.url
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    character_id = table.character["id"]
    assert table.act(chest_hit(CRITICAL)).status_code == 201
    assert table.act({"type": "wound", "severity": "M", "damage": "stun"}).status_code == 201
    gm = Watched(browser, viewport={"width": 1280, "height": 900})
    player = Watched(browser, viewport={"width": 390, "height": 844}, is_mobile=True)

    # The GM's character page fetches the panel once shown: a lane per injury, the hit named.
    gm.log_in(base, "gm")
    gm.page.goto(f"{base}/characters/{character_id}/")
    chart = gm.page.locator("#forecast svg.chart")
    expect(chart).to_be_visible()
    expect(chart.locator("polyline.median")).to_have_count(3)
    expect(gm.page.locator("#forecast")).to_contain_text("chest, spine (critical): healed most likely by ")
    expect(gm.page.locator("#forecast")).to_contain_text("Back to full health:")
    gm.page.goto(f"{base}/characters/{character_id}/forecast/")
    expect(gm.page.locator("svg.chart")).to_be_visible()
    screenshot(gm.page, "gm-forecast")

    # The player, on a phone: the undiagnosed hit is left out of the chart and said to be unknown.
    player.log_in(base, "player")
    player.page.goto(f"{base}/characters/{character_id}/")
    chart = player.page.locator("#forecast svg.chart")
    expect(chart).to_be_visible()
    expect(chart.locator("polyline.median")).to_have_count(2)
    expect(player.page.locator("#forecast")).to_contain_text(
        "a critical hit to the chest: unknown until diagnosed"
    )
    expect(player.page.locator("#forecast")).not_to_contain_text("spine")
    player.page.locator("#forecast").scroll_into_view_if_needed()
    player.page.goto(f"{base}/characters/{character_id}/forecast/")
    expect(player.page.locator("svg.chart")).to_be_visible()
    screenshot(player.page, "player-forecast-phone")

    assert gm.problems == [] and player.problems == []
