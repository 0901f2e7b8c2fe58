"""The party's recovery timeline on the board and its page: the GM on a desktop, the player on a phone, under the
CSP; the GM advances to when the party is fit from it. With UPDATE_SCREENSHOTS=1 the pictures go to
docs/screenshots/ (docs/recovery.md shows them)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.api.test_recovery import THREE_LOST, teammate
from tests.browser.test_csp import Watched
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
GAP_ALLOWED = 24  # px: the last line's margin and the form's button's, no more


def test_the_gm_and_the_player_see_the_partys_timeline_and_the_gm_advances_to_it(
    live_server: Any, browser: Any, django_user_model: Any, screenshot: Any
) -> None:
    base = live_server.url
    table = make_table(django_user_model, "darkfuture", {"con": 8, "skills": {"driver": 3}})
    bo = teammate(table, "Bo", {"con": 12})
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
    gm.page.get_by_role("button", name="Advance to when the party is fit (2020-01-15 00:00)").click()
    expect(gm.page.locator("#game-date")).to_have_text("2020-01-15 00:00:00")
    expect(gm.page.locator("#recovery")).to_contain_text("The party: all fit for action now")

    assert gm.problems == [] and player.problems == []


# Every layout shift of the page from its first paint on, as Lighthouse counts them (none after an input).
SHIFTS = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (!entry.hadRecentInput) window.__shifts.push(entry.value);
  }
}).observe({type: "layout-shift", buffered: true});
document.addEventListener("DOMContentLoaded", () => {
  window.__tops = [...document.querySelectorAll("main > *")].map((e) => [e.id, e.getBoundingClientRect().top]);
});
"""
# Where each part of the board is now, by the same measure.
TOPS = '[...document.querySelectorAll("main > *")].map((e) => [e.id, e.getBoundingClientRect().top])'


def test_a_what_if_opens_inside_the_board_and_nothing_moves_when_the_section_comes(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    base = live_server.url
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    crippling = {"body_check": [6, 1, 1, 1, 1], "location": [3, 4], "critical": 3}  # the chest's spine
    assert table.act({"type": "wound", "severity": "S", "rolls": crippling}).status_code == 201
    diagnosis = {
        "type": "diagnose",
        "medic": "Doc",
        "skill": 1,
        "critical_hit": "ch1",
        "rolls": {"diagnosis": [6]},
    }
    assert table.act(diagnosis).status_code == 201
    for name in ("Bo", "Cy", "Di", "Ed", "Fa"):
        made = teammate(table, name, {"body": 5})
        wound = {"type": "wound", "severity": "M", "rolls": {"body_check": [6, 6, 6, 6, 6]}}
        assert table.gm.post(f"/api/characters/{made['id']}/actions/", wound).status_code == 201
    campaign = table.campaign["id"]
    gm = Watched(browser, viewport={"width": 412, "height": 823}, is_mobile=True)
    gm.log_in(base, "gm")
    gm.context.add_init_script(SHIFTS)
    board = f"{base}/campaigns/{campaign}/"
    gm.page.goto(board)
    section = gm.page.locator("#recovery")
    expect(section).to_contain_text(
        "The party: not all fit until cared for: Ash: the chest's crippling hit (spine)"
    )
    # Every part of the board is where it was at the first paint (the section, last, grew; nothing moved).
    first, now = gm.page.evaluate("window.__tops"), gm.page.evaluate(TOPS)
    assert [part for part, _ in first] == [part for part, _ in now] and first[-1][0] == "recovery"
    assert first == now, (first, now)
    assert gm.page.evaluate("window.__shifts.reduce((a, b) => a + b, 0)") < 0.05

    # The GM asks "with Ash's spine replaced": the answer comes inside the section, the board stays.
    section.get_by_label("Ash's spine replaced").check()
    section.get_by_role("button", name="Show").click()
    answer = section.locator(".recovery-what-ifs li")
    expect(answer).to_contain_text("With Ash's spine replaced: all fit most likely by ")
    assert gm.page.url == board
    # A change (what the live region's refresh says after each action, in every tab) asks the same question
    # again: it stays.
    with gm.page.expect_response(lambda r: "with=replace" in r.url and r.request.headers.get("hx-request")):
        gm.page.evaluate("htmx.trigger(document.body, 'changed')")
    expect(answer).to_contain_text("With Ash's spine replaced: all fit most likely by ")
    expect(section.locator("input[value^='replace:']")).to_be_checked()
    # A box ticked and not yet shown survives the refresh too (the walkthrough: cleared mid-fight): the refresh
    # carries the form's fields, and a click in the section fetches nothing of its own.
    section.get_by_label("everyone in hospital").check()
    with gm.page.expect_response(lambda r: "with=hospital" in r.url and r.request.headers.get("hx-request")):
        gm.page.evaluate("htmx.trigger(document.body, 'changed')")
    expect(section.locator("input[value='hospital']")).to_be_checked()
    expect(section.locator("input[value^='replace:']")).to_be_checked()
    expect(answer.first).to_contain_text("With everyone in hospital: ")
    # Loaded again, the board draws the kept panel in the page. A click on a box there asks nothing: the drawn
    # section's body had htmx's default trigger for a div's hx-get, a click, and fetched the bare panel over it.
    asked: list[str] = []
    gm.page.on("request", lambda r: asked.append(r.url) if "/recovery/" in r.url else None)
    gm.page.goto(board)
    expect(section.locator(".recovery-characters")).to_be_visible()
    assert asked == []  # drawn, not fetched
    section.get_by_label("everyone in hospital").check()
    gm.page.wait_for_timeout(500)
    assert asked == []
    expect(section.locator("input[value='hospital']")).to_be_checked()
    assert gm.problems == []


def test_a_players_recovery_on_the_board_follows_the_gms_action_by_itself(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    """The walkthrough's phone read "all fit for action now" beside a dying card: only the tab that acted fetched
    the section again. Now the live region's refresh says `changed` and every phone fetches it."""
    base = live_server.url
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    phone = Watched(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.log_in(base, "player")
    phone.page.goto(f"{base}/campaigns/{table.campaign['id']}/")
    section = phone.page.locator("#recovery .recovery")
    expect(section).to_contain_text("Your characters: all fit for action now")
    # The GM's wound through the API: nothing happens in the phone's tab but its own refresh every 2 s.
    wound = {"type": "wound", "severity": "M", "rolls": {"body_check": [6, 6, 6, 6, 6]}}
    assert table.act(wound).status_code == 201
    expect(phone.page.locator("#live")).to_contain_text("Physical: 3 of 10 boxes", timeout=30_000)
    expect(section).to_contain_text("physical damage (Moderate, 3 boxes)", timeout=30_000)
    expect(section).not_to_contain_text("all fit for action now")
    assert phone.problems == []


def test_a_players_phone_shows_their_recovery_before_the_leave_button(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    """Issue 42: on a phone the player's board read "Leave this campaign" above "Your recovery". What the player
    came for comes first: the leave section is the page's last, below the section, and nothing that was shown at
    the first paint moves when the section grows."""
    base = live_server.url
    table = make_table(django_user_model, "darkfuture", {"con": 8, "skills": {"driver": 3}})
    assert table.act(THREE_LOST).status_code == 201
    phone = Watched(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.log_in(base, "player")
    phone.context.add_init_script(SHIFTS)

    def late(
        route: Any,
    ) -> None:  # a phone's network: the section comes after the first paint, as it does there
        phone.page.wait_for_timeout(800)
        route.continue_()

    phone.page.route("**/recovery/", late)
    phone.page.goto(f"{base}/campaigns/{table.campaign['id']}/")
    expect(phone.page.locator("#recovery .recovery")).to_contain_text("Ash: fit for action by 15 January")
    parts = [part for part, _top in phone.page.evaluate(TOPS)]
    assert parts[-2:] == ["recovery", "leave"], parts
    recovery = phone.page.locator("#recovery").bounding_box()
    leave = phone.page.locator("#leave").bounding_box()
    assert recovery is not None and leave is not None
    assert leave["y"] >= recovery["y"] + recovery["height"]
    assert phone.page.evaluate("window.__shifts.reduce((a, b) => a + b, 0)") < 0.05
    assert phone.problems == []


def test_a_player_asks_how_many_fit_by_a_date_inside_the_boards_section(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    """Issue 42: a date entered in "How many fit by" answered nothing. On the player's board it answers inside the
    section, and the section's refresh after a change asks the same date again."""
    base = live_server.url
    table = make_table(django_user_model, "darkfuture", {"con": 8, "skills": {"driver": 3}})
    assert table.act(THREE_LOST).status_code == 201  # Ash: fit on 15 January
    phone = Watched(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.log_in(base, "player")
    board = f"{base}/campaigns/{table.campaign['id']}/"
    phone.page.goto(board)
    section = phone.page.locator("#recovery")
    date = section.get_by_label("How many fit by")
    # Typed as the game writes its dates, not the browser's picker (docs/web.md, "Dates").
    expect(date).to_have_attribute("placeholder", "e.g. 2020-01-01")
    date.fill("2020-01-15")
    section.get_by_role("button", name="Show").click()
    answer = section.locator("#rec-fit-by")
    expect(answer).to_have_text("By 15 January: Ash fit")
    assert phone.page.url == board
    with phone.page.expect_response(
        lambda r: "by=2020-01-15" in r.url and r.request.headers.get("hx-request")
    ):
        phone.page.evaluate("htmx.trigger(document.body, 'changed')")
    expect(answer).to_have_text("By 15 January: Ash fit")
    expect(section.get_by_label("How many fit by")).to_have_value("2020-01-15")
    assert phone.problems == []


# What a card holds that reads as nothing: an element with no words and nothing drawn or to press in it, that still
# takes room (its height or its margins). A <div class="card-kept"> (display: contents) has no box of its own.
EMPTY_BOXES = """(root) => {
  const found = [];
  const drawn = 'svg, input, select, textarea, button, img';
  for (const element of root.querySelectorAll('*')) {
    if (element.closest('svg') || element.matches(drawn) || ['BR', 'OPTION'].includes(element.tagName)) continue;
    const style = getComputedStyle(element);
    if (['none', 'contents'].includes(style.display) || style.visibility === 'hidden') continue;
    const room = element.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
    if (room > 0 && element.textContent.trim() === '' && !element.querySelector(drawn)) {
      found.push(element.outerHTML.slice(0, 160));
    }
  }
  return found;
}"""
# The room between the last thing a card shows (words, a drawing, a button) and its own bottom edge, in pixels.
GAP = """(root) => {
  const shown = [...root.querySelectorAll('*')].filter((element) => {
    if (element.closest('svg') && element.tagName !== 'svg') return false;
    const words = [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim() !== '');
    return (words || element.matches('svg, input, select, textarea, button, img')) && element.getClientRects().length;
  });
  const last = Math.max(...shown.map((element) => element.getBoundingClientRect().bottom));
  const style = getComputedStyle(root);
  const inner = root.getBoundingClientRect().bottom - parseFloat(style.paddingBottom) - parseFloat(style.borderBottomWidth);
  return inner - last;
}"""


def test_a_players_phone_recovery_cards_hold_no_empty_box_and_no_gap(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    """A player's walkthrough on a 390x844 phone: an empty gap in the recovery card. "Your recovery" on the board
    held a screen's height after its panel came (the room kept for it while it was fetched), half of it empty under
    a short panel ("all fit for action now"). It and the forecast's card on the character page hold no empty box,
    and end where what they show ends."""
    base = live_server.url
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    phone = Watched(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.log_in(base, "player")

    phone.page.goto(f"{base}/campaigns/{table.campaign['id']}/")
    section = phone.page.locator("#recovery")
    expect(section.locator(".party-fit")).to_have_text("Your characters: all fit for action now")
    assert section.evaluate(EMPTY_BOXES) == []
    assert section.evaluate(GAP) <= GAP_ALLOWED

    wound = {"type": "wound", "severity": "M", "rolls": {"body_check": [6, 6, 6, 6, 6]}}
    assert table.act(wound).status_code == 201
    phone.page.goto(f"{base}/characters/{table.character['id']}/")
    forecast = phone.page.locator("#forecast")
    expect(forecast.locator(".full-health")).to_be_visible()
    assert forecast.evaluate(EMPTY_BOXES) == []
    assert forecast.evaluate(GAP) <= GAP_ALLOWED
    assert phone.problems == []
