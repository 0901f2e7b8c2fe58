"""Table dice (RULES.md "Dice", "Every ruleset": `table_dice`): the campaign option, and actions that ask the GM for
each die they need, one at a time, writing nothing until the last is given."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Persona, make_persona


@pytest.fixture
def gm(db: None, django_user_model: Any) -> Persona:
    return make_persona(django_user_model, "gm")


def new_campaign(gm: Persona, ruleset: str, options: dict[str, Any]) -> Any:
    return gm.post("/api/campaigns/", {"name": "Table", "ruleset": ruleset, "options": options})


@pytest.mark.parametrize("ruleset", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_the_server_rolls_unless_the_campaign_says_the_table_does(gm: Persona, ruleset: str) -> None:
    assert new_campaign(gm, ruleset, {}).json()["options"]["table_dice"] == "none"
    for value in ("none", "actions", "all"):
        answer = new_campaign(gm, ruleset, {"table_dice": value})
        assert answer.status_code == 201, answer.content
        assert answer.json()["options"]["table_dice"] == value


def test_an_unknown_table_dice_value_is_refused_naming_the_choices(gm: Persona) -> None:
    answer = new_campaign(gm, "shadowrun2", {"table_dice": "sometimes"})
    assert answer.status_code == 400
    assert answer.json() == {"options.table_dice": ["expected one of none, actions, all, got 'sometimes'"]}
