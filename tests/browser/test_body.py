"""Issue 18 in Chromium: a Cyberpunk torso hit colours the body diagram, with the words right under it (readable
without a tooltip), on the GM's screen (1280x800) and on the player's phone (390x844)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.test_csp import Watched
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GM_SCREEN = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
BADLY_WOUNDED = "rgb(240, 160, 75)"  # --sev-2
UNHURT = "rgb(44, 53, 64)"  # --sev-0


def test_a_torso_hit_colours_the_diagram_with_words_for_the_gm_and_on_the_players_phone(
    live_server: Any, browser: Any, django_user_model: Any, screenshot: Any
) -> None:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})
    # 9 - 2 (BTM) = 7 points on the torso; then 10 to the left leg: halved to 5, - 2 = 3.
    torso = {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [1]}}
    leg = {"type": "damage", "damage": 10, "location": "left_leg", "rolls": {"stun_save": [1]}}
    for body in (torso, leg):
        assert table.act(body).status_code == 201
    url = f"{live_server.url}/characters/{table.character['id']}/"
    for who, viewport, extra in (("gm", GM_SCREEN, {}), ("player", PHONE, {"is_mobile": True})):
        watched = Watched(browser, viewport=viewport, **extra)
        watched.log_in(live_server.url, who)
        page = watched.page
        page.goto(url)
        fills = {
            name: page.locator(f'svg.body [data-region="{name}"]').evaluate("e => getComputedStyle(e).fill")
            for name in ("chest", "abdomen", "head", "right_leg")
        }
        assert fills == {
            "chest": BADLY_WOUNDED,
            "abdomen": BADLY_WOUNDED,
            "head": UNHURT,
            "right_leg": UNHURT,
        }
        words = page.locator("#body-words li")
        expect(words).to_have_text(["Torso: badly wounded (7 points)", "Left leg: wounded (3 points)"])
        expect(words.first).to_be_visible()
        figure, caption = (
            page.locator(f".body-figure {part}").bounding_box() for part in ("svg", "figcaption")
        )
        assert figure is not None and caption is not None
        assert caption["y"] >= figure["y"] + figure["height"], (figure, caption)  # right under the figure
        if who == "gm":
            # About as narrow as the figure: the monitors beside the body panel keep their room.
            rem = page.evaluate("() => parseFloat(getComputedStyle(document.documentElement).fontSize)")
            assert caption["width"] <= 12 * rem, caption
        else:
            assert caption["x"] + caption["width"] <= PHONE["width"], caption  # no sideways scrolling
            screenshot(page, "player-body-cyberpunk-phone")
        assert watched.problems == [], "\n".join(watched.problems)
        watched.context.close()


PANEL_GAPS = """() => {
  const panels = [...document.querySelectorAll('#live .panel')].filter(p => p.getBoundingClientRect().height > 0);
  return panels.slice(1).map((panel, n) => ({
    after: panels[n].querySelector('h2')?.textContent.trim(),
    before: panel.querySelector('h2')?.textContent.trim(),
    gap: panel.getBoundingClientRect().top - panels[n].getBoundingClientRect().bottom,
  }));
}"""


def test_the_players_phone_spaces_every_panel_of_the_character_page_alike(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    """A player's walkthrough at 390x844: the Body and forecast panels had about twice the space above them that
    every other panel has (the panels' own margins added to the grid's gap, where the sheet stacks Monitors and
    Body in one column). Every gap between panels is now the same, within 2 px."""
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})
    torso = {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [1]}}
    assert table.act(torso).status_code == 201
    watched = Watched(browser, viewport=PHONE, is_mobile=True)
    watched.log_in(live_server.url, "player")
    page = watched.page
    page.goto(f"{live_server.url}/characters/{table.character['id']}/")
    expect(page.locator("#forecast h2")).to_be_visible()
    gaps = page.evaluate(PANEL_GAPS)
    titles = [(gap["after"], gap["before"]) for gap in gaps]
    assert ("Monitors", "Body") in titles and ("Body", "Recovery forecast") in titles, titles
    sizes = [gap["gap"] for gap in gaps]
    assert max(sizes) - min(sizes) <= 2, gaps
    assert watched.problems == [], "\n".join(watched.problems)
    watched.context.close()
