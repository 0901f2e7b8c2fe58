"""A board of more than `BOARD_WHOLE` characters in Chromium: "Show the last ... characters" brings the next page in
below the first, the focus on the first card it brought; the live region's refresh keeps both pages, asks with
them (a 304 while nothing changes) and brings a wound on the second page's last card (docs/web.md, "A large
board")."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from campaign import services
from campaign.models import Campaign
from campaign.web.views.board import BOARD_PAGE
from tests.browser.test_csp import Watched
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_next_page_of_a_large_board_stays_through_the_refresh_and_shows_what_changes(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    campaign = Campaign.objects.get(pk=table.campaign["id"])
    runners = [
        services.character_create(
            campaign=campaign, actor="gm", name=f"Runner {n + 1}", player=None, attributes={"body": 5}
        ).pk
        for n in range(39)
    ]
    gm = Watched(browser, viewport={"width": 1280, "height": 800})
    gm.log_in(live_server.url, "gm")
    page = gm.page
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    gm.htmx_ready()
    cards = page.locator("#cards > .board-card")
    expect(cards).to_have_count(BOARD_PAGE)
    expect(page.locator("#cards-shown")).to_contain_text("24 of the 40 characters shown.")

    more = page.get_by_role("link", name="Show the last 16 characters")
    more.scroll_into_view_if_needed()
    more.click()
    expect(cards).to_have_count(40)
    expect(page.locator("#more-cards")).to_have_count(0)
    expect(page.locator("#cards-shown")).to_contain_text("40 of the 40 characters shown.")
    expect(page.locator(f"#card-{runners[23]}-name a")).to_be_focused()  # the first card of the second page

    # The refresh asks with both pages: nothing changed, a 304; every card stays.
    with page.expect_response(lambda r: "pages=2" in r.url and r.status == 304):
        pass
    expect(cards).to_have_count(40)

    # A wound on the last runner, from elsewhere (the API): the next refresh brings its card, both pages kept.
    wounded = table.gm.post(
        f"/api/characters/{runners[-1]}/actions/",
        {"type": "wound", "severity": "M", "damage": "stun", "rolls": {"body_check": [1, 1, 1, 1, 1]}},
    )
    assert wounded.status_code == 201, wounded.content
    expect(page.locator(f"#card-{runners[-1]}-state")).to_contain_text("Stun: 3 of 10 boxes")
    expect(cards).to_have_count(40)
    ids = page.evaluate("[...document.querySelectorAll('[id]')].map(e => e.id)")
    assert len(ids) == len(set(ids))
    assert gm.problems == []
