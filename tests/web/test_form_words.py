"""Issue 42's words on forms: a house rule's origin said once, a Biotech rating called so, the quick row's help
naming the combat pool only where the form takes it."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from tests.conftest import make_table
from tests.web.conftest import Web, make_web

HTMX = {"HTTP_HX_REQUEST": "true"}
ATTRIBUTES = {
    "shadowrun2": {"body": 5},
    "cyberpunk2020": {"body": 6, "luck": 2},
    "darkfuture": {"con": 8, "skills": {"driver": 3}},
}
OPTION_HELP = re.compile(r'<p class="help" id="help-o-(\w+)">(.*?)</p>', re.S)


def option_helps(page: str) -> dict[str, str]:
    """Each house rule's help line on the board, as read."""
    return {name: html.unescape(re.sub(r"<[^>]+>", "", text)) for name, text in OPTION_HELP.findall(page)}


@pytest.mark.parametrize("ruleset", sorted(ATTRIBUTES))
def test_each_house_rule_says_where_it_comes_from_once_in_a_sentence_of_its_own(
    db: None, django_user_model: Any, ruleset: str
) -> None:
    web = make_web(make_table(django_user_model, ruleset, ATTRIBUTES[ruleset]))
    helps = option_helps(web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode())
    assert helps
    for name, line in helps.items():
        assert "(house" not in line and ". (" not in line, (name, line)
        assert line.count("house rule") + line.count("optional rule") <= 1, (name, line)
        assert re.fullmatch(r"[A-Z].*\. Now: .+\.", line), (name, line)


def test_a_house_rule_changed_from_its_default_says_the_default(db: None, django_user_model: Any) -> None:
    table = make_table(
        django_user_model, "cyberpunk2020", ATTRIBUTES["cyberpunk2020"], {"treatment_difficulty": 12}
    )
    web = make_web(table)
    helps = option_helps(web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode())
    assert helps["treatment_difficulty"] == (
        "The difficulty of a healing treatment roll. A house rule; by default 15. Now: 12."
    )
    assert helps["bone_mend_weeks"] == (
        "How long set bones take to mend before the limb is usable again. A house rule. Now: 6 weeks."
    )


def test_the_seeds_optional_rule_is_said_once(sr2_web: Web) -> None:
    helps = option_helps(sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode())
    assert helps["combat_pool_on_body_check"] == (
        "Combat pool dice may join the Body check. An optional rule of the source rules. Now: no."
    )


def test_a_medics_dice_are_called_a_biotech_rating(sr2_web: Web) -> None:
    for url in (
        f"/characters/{sr2_web.character_id}/card/first_aid/form/",
        f"/characters/{sr2_web.character_id}/forms/diagnose/",
    ):
        form = sr2_web.gm.get(url, **HTMX).content.decode()
        assert re.search(
            r'<label for="[\w-]+-p_skill">Biotech rating <span aria-hidden="true">\*</span>', form
        )
        assert "Intelligence instead when defaulting." in form
        assert ">Dice <span" not in form


@pytest.mark.parametrize("combat_pool", [False, True])
def test_the_quick_rows_help_names_the_combat_pool_only_where_the_form_takes_it(
    db: None, django_user_model: Any, combat_pool: bool
) -> None:
    options = {"table_dice": "actions", "combat_pool_on_body_check": combat_pool}
    web = make_web(make_table(django_user_model, "shadowrun2", {"body": 5}, options))
    page = web.gm.get(f"/characters/{web.character_id}/forms/wound/", **HTMX).content.decode()
    card = web.gm.get(f"/characters/{web.character_id}/card/wound/form/", **HTMX).content.decode()
    for form in (page, card):
        assert "Body check (a pool of d6: Body" in form
    # The page's form takes a combat pool while the rule is on; the card never shows it.
    assert ("combat pool" in page.lower()) is combat_pool
    assert ("p_combat_pool" in page) is combat_pool
    assert "combat pool" not in card.lower()
