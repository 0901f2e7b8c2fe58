"""The web app draws and seeds every ruleset from what `rules/<slug>/` says (rules/sheet.py)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from campaign.models import Campaign, Character, Event
from rules.registry import all_rulesets
from tests.web.conftest import Web


def _commands(character: Character) -> int:
    return Event.objects.filter(stream=character.stream).values("cause").distinct().count()


@pytest.mark.django_db
def test_the_demo_loads_each_rulesets_own_campaign_once() -> None:
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    demos = [
        (r.slug, r.sheet.demo) for r in all_rulesets() if r.sheet is not None and r.sheet.demo is not None
    ]
    assert len(demos) == len(all_rulesets())
    campaigns = Campaign.objects.order_by("pk")
    assert [(c.ruleset, c.name) for c in campaigns] == [(slug, demo.title) for slug, demo in demos]
    for campaign, (_slug, demo) in zip(campaigns, demos, strict=True):
        characters = Character.objects.filter(campaign=campaign).order_by("pk")
        assert [(c.name, c.player.get_username(), _commands(c)) for c in characters] == [
            (name, player, len(actions)) for name, player, _attributes, actions in demo.characters
        ]  # every demo action accepted


def test_the_new_campaign_form_offers_the_first_registered_ruleset(sr2_web: Web) -> None:
    html = sr2_web.gm.get("/").content.decode()
    first = all_rulesets()[0]
    assert f'<option value="{first.slug}" selected>{first.title}</option>' in html
    chooser = html[
        html.index('<select id="c-ruleset"') : html.index("</select>", html.index('<select id="c-ruleset"'))
    ]
    assert chooser.count(" selected>") == 1


@pytest.mark.parametrize("fixture", ["sr2_web", "cp2020_web", "df_web"])
def test_the_body_legend_lists_the_colours_the_ruleset_uses(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    web: Web = request.getfixturevalue(fixture)
    html = web.player.get(f"/characters/{web.character_id}/").content.decode()
    rules = next(r for r in all_rulesets() if r.slug == web.table.campaign["ruleset"])
    assert rules.sheet is not None
    legend = html.split('<ul class="legend">', 1)[1].split("</ul>", 1)[0]
    # Dark Future's CON has no hit location: its one colour is a disabled limb's (rules/darkfuture/sheet.py).
    assert legend.count("<li>") == len(rules.sheet.legend) >= 1
    for severity, text in rules.sheet.legend:
        assert f'<li><span class="swatch sev-{severity}"></span>{text}</li>' in legend
