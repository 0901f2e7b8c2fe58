"""The pages, htmx and the API docs under the Content-Security-Policy, in Chromium: no violation, no console error,
and the API docs fetch nothing from any host but ours."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from rules.registry import get_ruleset
from tests.browser.test_scenarios import fill_dice, open_action
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery"  # the personas' (tests/conftest.py)

# Reports each violation to the test through a binding, which outlives navigations (a page's own state does not).
LISTEN = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.cspViolation(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} in ${e.documentURI}` +
                      (e.sample ? `: ${e.sample}` : ""));
}, true);
"""


class Watched:
    """A browser context whose pages report every CSP violation, console error and uncaught exception."""

    def __init__(self, browser: Any, **options: Any) -> None:
        self.context: BrowserContext = browser.new_context(**options)
        self.problems: list[str] = []
        self.context.expose_binding(
            "cspViolation", lambda _source, text: self.problems.append(f"CSP: {text}")
        )
        self.context.add_init_script(LISTEN)
        self.page: Page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"exception: {error}"))

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console: {message.text} ({message.location.get('url')})")

    def log_in(self, base: str, username: str) -> None:
        self.page.goto(f"{base}/login/")
        self.page.get_by_label("User name").fill(username)
        self.page.get_by_label("Password").fill(PASSWORD)
        self.page.get_by_role("button", name="Log in").click()
        expect(self.page.get_by_role("heading", name="Your campaigns")).to_be_visible()

    def htmx_ready(self) -> None:
        self.page.wait_for_function("() => window.htmx !== undefined && document.readyState === 'complete'")

    def live_refresh(self) -> None:
        """Waits for the live region's next poll (every 2 s), so that htmx has asked and answered once."""
        with self.page.expect_response(lambda r: r.request.headers.get("hx-request") == "true"):
            pass


def test_the_pages_htmx_and_the_api_docs_run_under_the_policy_with_no_violation(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    base = live_server.url
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    campaign_id, character_id = table.campaign["id"], table.character["id"]
    gm = Watched(browser, viewport={"width": 1280, "height": 900})
    player = Watched(browser, viewport={"width": 390, "height": 844}, is_mobile=True)

    # The GM's board, with a live refresh.
    gm.log_in(base, "gm")
    gm.page.goto(f"{base}/campaigns/{campaign_id}/")
    expect(gm.page.locator("#live").get_by_role("link", name="Ash")).to_be_visible()
    gm.htmx_ready()
    gm.live_refresh()

    # The character page: a lazily fetched form, a wound posted through htmx, the answer and the body swapped in.
    gm.page.goto(f"{base}/characters/{character_id}/")
    gm.htmx_ready()
    open_action(gm.page, "wound")
    gm.page.locator("#wound-p_severity").select_option("S")
    gm.page.locator("#wound-r_body_check").fill("1 1 1 1 1")
    fill_dice(gm.page, "wound", "location", [3, 4])
    fill_dice(gm.page, "wound", "critical", [2])
    gm.page.locator("#wound-r_death_time").fill("3")
    gm.page.locator("#form-wound").get_by_role("button", name="Wound").click()
    expect(gm.page.locator("#character-said .ok")).to_contain_text(
        "Critical hit 1 to the chest (ribs), Mortal"
    )
    expect(gm.page.locator("#live")).to_contain_text("ribs")
    # Time travel to the oldest entry through htmx (a swap and a pushed URL), and back.
    gm.page.locator("#live .travel-link").last.click()
    expect(gm.page.locator(".travel")).to_contain_text("as it was after event 1 of 2")
    gm.page.get_by_role("link", name="Back to now").first.click()
    expect(gm.page.locator("#symptoms")).to_contain_text("every breath hurts and comes short")

    # The player's page, refreshing itself.
    player.log_in(base, "player")
    player.page.goto(f"{base}/characters/{character_id}/")
    expect(player.page.locator("#symptoms")).to_contain_text("every breath hurts and comes short")
    player.htmx_ready()
    player.live_refresh()

    # The API docs: Swagger UI renders the schema and runs a request, from our static files and our server alone.
    requested: list[str] = []
    gm.page.on("request", lambda request: requested.append(request.url))
    gm.page.goto(f"{base}/api/docs/")
    expect(gm.page.locator(".swagger-ui .info .title")).to_contain_text("Wound Ledger API")
    actions = gm.page.get_by_role(
        "button",
        name="POST /api/characters/{character_id}/actions/ Act on a character: a wound, care, a note, undo, revert (GMs)",
        exact=True,
    )
    expect(actions).to_be_visible()
    gm.page.get_by_role(
        "button",
        name="GET /api/rulesets/ The rulesets: actions, their parameters and dice, campaign options",
        exact=True,
    ).click()
    gm.page.get_by_role("button", name="Try it out").click()
    gm.page.get_by_role("button", name="Execute").click()
    expect(gm.page.locator(".live-responses-table tbody .response-col_status")).to_have_text("200")
    urls = [urlsplit(url) for url in requested if not url.startswith("data:")]
    assert {url.netloc for url in urls} == {urlsplit(base).netloc}
    paths = {url.path for url in urls}
    for path in (
        "/api/docs/",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
        "/api/schema/",
        "/api/rulesets/",
    ):
        assert path in paths, sorted(paths)

    assert gm.problems == [], "\n".join(gm.problems)
    assert player.problems == [], "\n".join(player.problems)
    gm.context.close()
    player.context.close()


@pytest.mark.parametrize("ruleset", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_every_form_of_the_gms_character_page_and_of_a_card_opens_under_the_policy(
    live_server: Any, browser: Any, django_user_model: Any, ruleset: str
) -> None:
    attributes = {
        "shadowrun2": {"body": 5},
        "cyberpunk2020": {"body": 6, "luck": 2},
        "darkfuture": {"con": 8},
    }
    table = make_table(django_user_model, ruleset, attributes[ruleset], {"table_dice": "actions"})
    base, character_id = live_server.url, table.character["id"]
    gm = Watched(browser, viewport={"width": 1280, "height": 900})
    gm.log_in(base, "gm")

    # The board: every action of the card opened (those under "More actions" too), each form fetched.
    gm.page.goto(f"{base}/campaigns/{table.campaign['id']}/")
    gm.htmx_ready()
    more = gm.page.locator(f"#card-{character_id}-more > summary")
    if more.count():  # Dark Future's card names every action of its rules: nothing more
        more.click()
    actions = gm.page.locator(f"#card-{character_id}-actions details.card-action")
    assert actions.count() == len(get_ruleset(ruleset).forms) + 2  # with the GM note and Undo
    for index in range(actions.count()):
        details = actions.nth(index)
        details.locator("summary").click()
        expect(details.locator("form button[type=submit]")).to_be_visible()
    gm.live_refresh()

    # The GM's character page: every action's form opened.
    gm.page.goto(f"{base}/characters/{character_id}/")
    gm.htmx_ready()
    opened = gm.page.locator(".actions-aside details.action")
    for index in range(opened.count()):
        details = opened.nth(index)
        if details.get_attribute("open") is None:
            details.locator("summary").first.click()
        # One at a time, as a GM opens them: a form arriving moves every summary below it, and a click aimed at the
        # next one while it moved landed elsewhere (CI, 6 December: that action's form was never asked for).
        expect(details.locator("section.action-form")).to_be_visible()
    expect(gm.page.locator(".actions-aside section.action-form")).to_have_count(opened.count())
    gm.live_refresh()

    # The icon browsers ask for.
    assert gm.page.goto(f"{base}/favicon.ico").status == 200
    assert gm.problems == [], "\n".join(gm.problems)
    gm.context.close()
