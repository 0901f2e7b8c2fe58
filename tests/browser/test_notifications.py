"""The GM's notifications page in the browser, on a phone (docs/web.md, "Notifications"): from the board to the page,
an address refused beside its field, a Discord channel added (a local fake of Discord's, `HOOKS_ALLOW_PRIVATE` on as
the tests do), its test message delivered through the outbox and said on the page, the hook removed; the page never
wider than the phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.test_scenarios import create_campaign, sign_up
from tests.notify.fakes import DiscordFake, serving

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_gm_adds_tests_and_removes_a_discord_channel_on_a_phone(
    live_server: Any, browser: Any, screenshot: Any, settings: Any
) -> None:
    settings.HOOKS_ALLOW_PRIVATE = True
    base = live_server.url
    gm = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    sign_up(gm, base, "ivy_gm")
    create_campaign(gm, base, "Night City", "cyberpunk2020")
    gm.get_by_role("link", name="Notifications: Discord channels and webhooks").click()
    expect(gm.get_by_role("heading", name="Notifications", exact=True)).to_be_visible()
    gm.wait_for_function("() => window.htmx !== undefined && document.readyState === 'complete'")

    # A wrong address: the service's words beside the field, what was typed kept.
    gm.get_by_label("Its address").fill("ftp://discord.com/api/webhooks/42/x")
    gm.get_by_role("button", name="Add", exact=True).click()
    expect(gm.locator("#err-hook-url")).to_have_text("Expected an https:// address")
    expect(gm.get_by_label("Its address")).to_have_value("ftp://discord.com/api/webhooks/42/x")

    with serving(DiscordFake()) as discord:
        discord.answers.clear()  # no rate limit this time: the test arrives at once
        gm.get_by_label("Its address").fill(f"{discord.url}/api/webhooks/42/the-token")
        gm.get_by_role("button", name="Add", exact=True).click()
        hooks = gm.locator("#hooks")
        expect(hooks).to_contain_text("Added: the Discord channel at 127.0.0.1 is told from now on.")
        expect(hooks).to_contain_text(f"Sends to {discord.url}/api/webhooks/42/••••••")
        assert "the-token" not in gm.content()
        assert gm.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

        gm.get_by_role("button", name="Send a test message").click()
        expect(hooks).to_contain_text("A test message is on its way to 127.0.0.1")
        # A moment later the section says how it went, by itself.
        expect(hooks).to_contain_text("Last delivered ")
        assert [request.json()["embeds"][0]["title"] for request in discord.received] == [
            "A test from Wound Ledger: the notifications of Night City will reach this channel"
        ]
        assert discord.problems == []
        screenshot(gm, "gm-notifications-phone")

    gm.locator("summary", has_text="Remove").click()
    gm.get_by_role("button", name="Yes, remove the Discord channel at 127.0.0.1").click()
    expect(hooks).to_contain_text("Removed: the Discord channel at 127.0.0.1 is told nothing more.")
    expect(hooks).to_contain_text("Nothing is sent out of the game yet")
