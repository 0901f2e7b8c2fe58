"""Issue 18 in Chromium at 1280x800: a GM fills a healing spell's allocation and a new character's skills as rows
of inputs, each found by its words, and the same service records them as the API's object would."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from campaign.models import Character, Event
from tests.api.test_shadowrun2 import CRIPPLING_ABDOMEN, MORTAL_LUNG, diagnosed, wound
from tests.browser.test_csp import Watched
from tests.conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GM_SCREEN = {"width": 1280, "height": 800}


def test_a_gm_gives_a_spells_successes_to_targets_named_in_words(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    wound(table, "S", MORTAL_LUNG)
    wound(table, "M", CRIPPLING_ABDOMEN)
    diagnosed(table, "ch1")
    diagnosed(table, "ch2")
    gm = Watched(browser, viewport=GM_SCREEN)
    gm.log_in(live_server.url, "gm")
    gm.page.goto(f"{live_server.url}/characters/{table.character['id']}/?form=heal_magic")
    gm.htmx_ready()
    form = gm.page.locator("#form-heal_magic")
    form.get_by_role("spinbutton", name="Successes", exact=True).fill("10")
    form.get_by_label("Mode").select_option("allocate")
    form.get_by_label("Physical monitor").fill("6")
    form.get_by_label("Hit 1: chest, lung (mortal)").fill("1")
    form.get_by_label("Hit 2: abdomen, ribs (crippling)").fill("3")
    form.get_by_role("button", name="Heal or Treat spell").click()
    expect(gm.page.locator("#character-said .ok")).to_contain_text(
        "Healing spell (allocate): physical monitor at 3 boxes; critical hit 1 to the chest (lung) falls from "
        "Mortal to Crippling (9 boxes): its death timer stops; critical hit 2 to the abdomen (ribs) falls from "
        "Crippling to Critical (3 boxes). No longer dying."
    )
    assert Event.objects.get(type="MagicHealingApplied").data["shares"] == {"physical": 6, "ch1": 1, "ch2": 3}
    assert gm.problems == [], "\n".join(gm.problems)
    gm.context.close()


def test_a_gm_adds_a_character_with_skills_typed_in_rows(
    live_server: Any, browser: Any, django_user_model: Any
) -> None:
    table = make_table(django_user_model, "darkfuture", {"con": 8})
    gm = Watched(browser, viewport=GM_SCREEN)
    gm.log_in(live_server.url, "gm")
    gm.page.goto(f"{live_server.url}/campaigns/{table.campaign['id']}/")
    gm.htmx_ready()
    form = gm.page.locator("#character-form")
    form.get_by_label("Name", exact=True).fill("Zed")
    form.get_by_label("CON").fill("7")
    form.get_by_label("Skill, row 1").fill("driver")
    form.get_by_label("Level, row 1").fill("2")
    form.get_by_label("Skill, row 3").fill("mechanic")
    form.get_by_label("Level, row 3").fill("5")
    form.get_by_role("button", name="Add character").click()
    expect(gm.page.locator("#character-form [role=status]")).to_be_visible()
    skills = Character.objects.get(name="Zed").state["skills"]
    assert skills == {"driver": {"base": 2, "current": 2}, "mechanic": {"base": 5, "current": 5}}
    assert gm.problems == [], "\n".join(gm.problems)
    gm.context.close()
