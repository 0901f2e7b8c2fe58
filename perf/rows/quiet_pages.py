"""The quiet_pages row: what a page left open asks of the server, measured in Chromium rather than modelled.

The player's character page and the GM's board, served by gunicorn as deployed (DEBUG off, the poll's intervals as
served: every 2 s, every 60 s once untouched for 5 minutes), opened in Debian's Chromium (Playwright) with the
page's clock under Playwright's control (`page.clock`): ten minutes of the page's time run in a few seconds, one
second at a time, and every request the page sends is counted. Two ways of leaving a page:

- hidden: its tab sent to the back (`visibilitychange` to hidden, as a phone that sleeps or another tab does) at
  once after it loaded, for ten minutes. Goal: no request.
- idle: visible, nobody touching it, for ten minutes. Goal: at most one request a minute after the fifth minute.

tenants' `hidden_pages` count the hidden pages of many tables by the schedule this row measures.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from perf.harness.databases import collected_static
from perf.harness.seeding import seeded_table, session_cookie
from perf.harness.servers import gunicorn

CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
HIDE = """() => {
  Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
IDLE_AFTER_MINUTES = 5


def missing() -> str | None:
    if not Path(CHROME).exists():
        return f"no Chromium at {CHROME} (apt-get install chromium, or set CHROME_PATH)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed"
    return None


def _left_open(browser: Any, url: str, cookie: str, hidden: bool, minutes: int) -> list[tuple[float, str]]:
    """When (in seconds of the page's own time after it loaded) a page left open for `minutes` sent a request,
    and the request's path."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": url}])
        page = context.new_page()
        page.clock.install()
        page.goto(url, wait_until="networkidle")
        if hidden:
            page.evaluate(HIDE)
        sent: list[tuple[float, str]] = []
        elapsed = [0.0]
        page.on("request", lambda request: sent.append((elapsed[0], urlsplit(request.url).path)))
        for second in range(1, 60 * minutes + 1):
            page.clock.run_for(1000)
            elapsed[0] = float(second)
            time.sleep(0.005)  # the answers of what was sent come back in real time
        page.wait_for_load_state("networkidle")
        return sent
    finally:
        context.close()


def quiet_pages(minutes: int = 10, profile: str | None = None) -> dict[str, Any]:
    """The player's character page and the GM's board of a seeded table (`seeded_table`: six wounded Shadowrun
    characters), each left hidden and left idle for `minutes`; the requests each sent, when."""
    why = missing()
    if why:
        return {"skipped": why}
    from playwright.sync_api import sync_playwright

    campaign, gm, player, ids = seeded_table(6, tag="quiet")
    static, env = collected_static(dict(os.environ))
    os.environ.update({"STATIC_ROOT": env["STATIC_ROOT"], "SECURE_COOKIES": "0"})
    pages: dict[str, dict[str, Any]] = {}
    # Before Playwright's loop starts: the ORM refuses to run inside it.
    cookies = {"player_character": session_cookie(player), "gm_board": session_cookie(gm)}
    try:
        with gunicorn(2) as (port, _), sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROME, args=CHROME_ARGS)
            base = f"http://127.0.0.1:{port}"
            for name, url in (
                ("player_character", f"{base}/characters/{ids[0]}/"),
                ("gm_board", f"{base}/campaigns/{campaign.pk}/"),
            ):
                cookie = cookies[name]
                hidden = _left_open(browser, url, cookie, True, minutes)
                idle = _left_open(browser, url, cookie, False, minutes)
                late = [at for at, _ in idle if at > 60 * IDLE_AFTER_MINUTES]
                pages[name] = {
                    "hidden_requests": len(hidden),
                    "hidden_paths": dict(Counter(path for _, path in hidden)),
                    "idle_paths": dict(Counter(path for _, path in idle)),
                    "idle_requests": len(idle),
                    "idle_requests_after_5_minutes": len(late),
                    "idle_minutes_after_5": minutes - IDLE_AFTER_MINUTES,
                }
            browser.close()
    finally:
        shutil.rmtree(static, ignore_errors=True)
    met = all(
        page["hidden_requests"] == 0 and page["idle_requests_after_5_minutes"] <= page["idle_minutes_after_5"]
        for page in pages.values()
    )
    summary = "; ".join(
        f"{name}: hidden {p['hidden_requests']} requests in {minutes} min, idle {p['idle_requests']} "
        f"({p['idle_requests_after_5_minutes']} after the 5th minute)"
        for name, p in pages.items()
    )
    return {"unit": "requests", "minutes": minutes, "pages": pages, "met_all": met, "summary": summary}
