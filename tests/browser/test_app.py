"""The player's page as an app, in Chromium (docs/notifications.md, "The app"; docs/web.md, "Polling"): it
registers its service worker and offers the opt-in; offline, a reload shows the last page seen, marked with when it
was seen; a hidden page asks nothing until it is shown again, and an untouched one asks seldom. The polling pace is
shortened through the POLL_* settings, so that minutes take seconds."""

from __future__ import annotations

import base64
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from campaign.management.commands.vapid_keys import new_pair
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery"  # the personas' (tests/conftest.py)
# The tab hidden, or shown, as the browser tells a page when another tab comes to the front or its phone sleeps.
SHOWN = """(state) => {
  Object.defineProperty(document, "visibilityState", { value: state, configurable: true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def players_page(live_server: Any, browser: Any, django_user_model: Any) -> tuple[Any, Page, str]:
    """The player of Ash on a phone, on Ash's page: the browser context, the page and the page's URL."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("player")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    url = f"{live_server.url}/characters/{table.character['id']}/"
    page.goto(url)
    expect(page.get_by_role("heading", name="Ash", exact=True)).to_be_visible()
    return context, page, url


def clock(page: Page) -> str:
    return page.evaluate(
        "() => new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })"
    )


def test_the_players_page_registers_its_worker_offers_the_opt_in_and_shows_the_last_page_offline(
    live_server: Any, browser: Any, django_user_model: Any, settings: Any
) -> None:
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = new_pair()
    context, page, url = players_page(live_server, browser, django_user_model)

    assert page.evaluate("() => navigator.serviceWorker.ready.then((r) => r.scope)") == f"{live_server.url}/"
    expect(page.get_by_role("button", name="Tell me on this phone")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="When Ash is wounded")).to_be_visible()

    # The worker has taken the page over: the next load comes through it, and it keeps a copy.
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    before = clock(page)
    page.reload()
    expect(page.get_by_role("button", name="Tell me on this phone")).to_be_visible()
    after = clock(page)

    context.set_offline(True)
    page.reload()
    mark = page.locator("p.offline")
    expect(mark).to_have_text(re.compile(r"Seen at \d\d:\d\d, offline"))
    assert mark.text_content() in {f"Seen at {before}, offline", f"Seen at {after}, offline"}
    expect(page.get_by_role("heading", name="Ash", exact=True)).to_be_visible()
    expect(page.locator("#live")).to_contain_text("Game time")

    # Back online, the page is the server's again, unmarked.
    context.set_offline(False)
    page.reload()
    expect(page.get_by_role("heading", name="Ash", exact=True)).to_be_visible()
    expect(page.locator("p.offline")).to_have_count(0)

    # Logged out, the phone keeps nothing of the player's characters for the next person.
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("button", name="Log in")).to_be_visible()
    context.set_offline(True)
    page.goto(url)
    expect(page.get_by_role("heading", name="Offline")).to_be_visible()
    expect(page.locator("body")).to_contain_text("this page was not seen on it before")
    expect(page.get_by_text("Ash")).to_have_count(0)
    context.close()


def _polls(page: Page, url: str, every: list[str] | None = None) -> list[float]:
    """When each of the live region's polls left (the monotonic clock's seconds); `every`: each request's URL."""
    polls: list[float] = []

    def seen(request: Any) -> None:
        if every is not None:
            every.append(request.url)
        if request.headers.get("hx-request") == "true" and request.url == url:
            polls.append(time.monotonic())

    page.on("request", seen)
    return polls


def _wait_for(page: Page, polls: list[float], count: int, seconds: float, what: str) -> None:
    end = time.monotonic() + seconds
    while len(polls) < count:
        assert time.monotonic() < end, f"{what}: {len(polls)} polls of {count}"
        page.wait_for_timeout(50)


def test_a_hidden_page_asks_nothing_and_once_when_shown_again(
    live_server: Any, browser: Any, django_user_model: Any, settings: Any
) -> None:
    settings.POLL_SECONDS = 0.5
    context, page, url = players_page(live_server, browser, django_user_model)
    requests: list[str] = []
    polls = _polls(page, url, requests)
    _wait_for(page, polls, 2, 30, "a visible page polls")

    page.evaluate(SHOWN, "hidden")
    page.wait_for_timeout(300)  # a poll that had already left
    polls.clear()
    requests.clear()
    page.wait_for_timeout(6000)  # twelve polls' time at the visible pace
    assert requests == []

    page.evaluate(SHOWN, "visible")
    _wait_for(page, polls, 1, 10, "a page shown again refreshes")
    shown_at = polls[0]
    _wait_for(page, polls, 3, 30, "and polls again")
    context.close()
    assert polls[1] - shown_at >= 0.4  # the refresh when shown, then the pace again


def test_an_untouched_page_polls_seldom_and_a_touch_brings_the_pace_back(
    live_server: Any, browser: Any, django_user_model: Any, settings: Any
) -> None:
    # The idle pace far from the visible one: three polls 1 s apart at the visible pace are told from the idle pace's
    # 20 s even when a busy machine answers each poll seconds late (a poll in flight holds back the next).
    settings.POLL_SECONDS, settings.POLL_IDLE_AFTER_SECONDS, settings.POLL_IDLE_SECONDS = 0.5, 2, 10
    context, page, url = players_page(live_server, browser, django_user_model)
    polls = _polls(page, url)
    page.wait_for_timeout(2500)  # nobody has touched it since it loaded

    polls.clear()
    page.wait_for_timeout(6500)
    assert len(polls) <= 2, polls  # one every 10 s, and one that had already left (13 at the visible pace)

    polls.clear()
    page.keyboard.press("Shift")
    _wait_for(page, polls, 3, 30, "a touched page polls at its pace again")
    context.close()
    assert polls[2] - polls[0] < 10, polls  # two polls at the idle pace are 20 s


# The browser's push service stands in for Chromium's own (which this machine cannot reach): `subscribe` answers a
# subscription of the keys a test gives, as a browser does, and keeps the key it was asked with.
FAKE_PUSH_MANAGER = """(subscription) => {
  let current = null;
  const made = () => ({
    endpoint: subscription.endpoint,
    toJSON: () => ({ ...subscription, expirationTime: null }),
    unsubscribe: () => { current = null; return Promise.resolve(true); },
  });
  PushManager.prototype.subscribe = function (options) {
    window.askedWithKey = btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey)));
    current = made();
    return Promise.resolve(current);
  };
  PushManager.prototype.getSubscription = () => Promise.resolve(current);
}"""


def test_tell_me_on_this_phone_subscribes_with_the_servers_key_and_its_undo_unsubscribes(
    live_server: Any, browser: Any, django_user_model: Any, settings: Any
) -> None:
    from campaign.models import PushSubscription
    from campaign.notify.push import unb64url
    from tests.notify.fake_push import Phone

    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = new_pair()
    context, page, url = players_page(live_server, browser, django_user_model)
    context.grant_permissions(["notifications"], origin=live_server.url)
    subscription = Phone("https://push.example.net/wpush/v2/ash-phone").subscription()
    page.evaluate(FAKE_PUSH_MANAGER, subscription)

    page.get_by_role("button", name="Tell me on this phone").click()
    expect(page.locator("#push-state")).to_have_text("This phone is told of Ash.")
    kept = PushSubscription.objects.get()
    assert (kept.user.get_username(), kept.endpoint, kept.p256dh, kept.auth) == (
        "player",
        subscription["endpoint"],
        subscription["keys"]["p256dh"],
        subscription["keys"]["auth"],
    )
    assert page.evaluate("() => atob(window.askedWithKey).length") == 65
    server_key = base64.b64encode(unb64url(settings.VAPID_PUBLIC_KEY)).decode()
    assert page.evaluate("() => window.askedWithKey") == server_key

    page.get_by_role("button", name="Stop telling this phone").click()
    expect(page.get_by_role("button", name="Tell me on this phone")).to_be_visible()
    expect(page.locator("#push-state")).to_contain_text("When Ash is wounded")
    assert not PushSubscription.objects.exists()
    context.close()
