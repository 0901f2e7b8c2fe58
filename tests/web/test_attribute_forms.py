"""Every attribute of every ruleset round-trips through the character forms drawn from its declaration
(rules/sheet.py, campaign/web/forms/characters.py): the new-character form and the several-NPCs form make the
character the API makes with the same value, and the edit form shows the value set through the API and, saved
unchanged, writes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import QueryDict
from django.urls import reverse

from campaign.models import Character, Event
from campaign.web import forms
from campaign.web.forms.core import row_inputs
from rules.registry import get_ruleset, ruleset_slugs
from rules.sheet import Attribute, read_attributes
from tests.web.conftest import Web, form_items
from tests.web.test_house_rules import ATTRIBUTES, web_of

CASES = [
    (slug, attribute.name)
    for slug in ruleset_slugs()
    for attribute in (get_ruleset(slug).sheet.attributes if get_ruleset(slug).sheet else ())
]


def _declared(slug: str, name: str) -> Attribute:
    sheet = get_ruleset(slug).sheet
    assert sheet is not None
    return next(attribute for attribute in sheet.attributes if attribute.name == name)


def _get(attributes: dict[str, Any], name: str) -> Any:
    group, _, key = name.partition(".")
    return attributes[group][key] if key else attributes[group]


def _put(attributes: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    group, _, key = name.partition(".")
    out = {**attributes}
    if key:
        out[group] = {**out.get(group, {}), key: value}
    else:
        out[group] = value
    return out


def other_value(attribute: Attribute, current: Any) -> Any:
    """A value of the attribute other than the one a character made with the least attributes holds, in bounds."""
    if attribute.kind == "bool":
        return not current
    if attribute.kind == "map":
        return {"driver": 3, "gunner": 4} if current != {"driver": 3, "gunner": 4} else {"medic": 2}
    top = attribute.maximum if attribute.maximum is not None else current + 1
    return current + 1 if current + 1 <= top else current - 1


def typed(attribute: Attribute, value: Any) -> list[tuple[str, str]]:
    """The inputs a GM types for the attribute's value."""
    input_name = forms.characters._attribute_input(attribute)
    if attribute.kind == "bool":
        return [(input_name, "on")] if value else []
    if attribute.kind == "map":
        names, amounts = row_inputs(input_name)
        return [item for key, amount in value.items() for item in ((names, key), (amounts, str(amount)))]
    return [(input_name, str(value))]


def filled(items: list[tuple[str, str]], slug: str, given: dict[str, Any]) -> QueryDict:
    """A character form as drawn, its attributes' inputs replaced by what the GM types for `given`."""
    attributes = get_ruleset(slug).sheet.attributes  # type: ignore[union-attr]
    typed_names = {
        name
        for attribute in attributes
        if attribute.name.partition(".")[0] in given
        for name in (
            forms.characters._attribute_input(attribute),
            *row_inputs(forms.characters._attribute_input(attribute)),
        )
    }
    data = QueryDict(mutable=True)
    for name, value in items:
        if name not in typed_names:
            data.appendlist(name, value)
    for attribute in attributes:
        group, _, key = attribute.name.partition(".")
        if group in given and (not key or key in given[group]):
            for name, value in typed(attribute, _get(given, attribute.name)):
                data.appendlist(name, value)
    return data


# A QueryDict is posted as `dict(data.lists())`: the test client posts a QueryDict's last value of each input only.


@pytest.mark.parametrize(("slug", "name"), CASES)
def test_every_attribute_round_trips_through_the_character_forms(
    db: None, django_user_model: Any, slug: str, name: str
) -> None:
    web: Web = web_of(slug, django_user_model)
    rules = get_ruleset(slug)
    attribute = _declared(slug, name)
    least = read_attributes(rules.sheet.attributes, ATTRIBUTES[slug])  # type: ignore[union-attr]
    value = other_value(attribute, _get(least, name))
    given = _put(ATTRIBUTES[slug], name, value)
    # Through the API.
    made = web.table.gm.client.post(
        f"/api/campaigns/{web.campaign_id}/characters/",
        {"name": "By API", "attributes": given},
        format="json",
    )
    assert made.status_code == 201, made.content
    by_api = Character.objects.get(pk=made.json()["id"])
    assert _get(by_api.state["attributes"], name) == value
    board = web.gm.get(reverse("campaign", args=[web.campaign_id])).content.decode()

    # The new-character form, typed as a GM would, makes the same character.
    action = reverse("campaign-characters", args=[web.campaign_id])
    data = filled(form_items(board, action), slug, given)
    data["name"] = "By form"
    declared = rules.sheet.attributes  # type: ignore[union-attr]
    assert read_attributes(declared, forms.parse_attributes(get_ruleset(slug), data)) == read_attributes(
        declared, given
    )
    posted = web.gm.post(action, dict(data.lists()))
    assert posted.status_code in (200, 302), posted.content.decode()[:2000]
    by_form = Character.objects.get(campaign_id=web.campaign_id, name="By form")
    assert by_form.state["attributes"] == by_api.state["attributes"]

    # So does the several-NPCs form.
    action = reverse("campaign-npcs", args=[web.campaign_id])
    data = filled(form_items(board, action), slug, given)
    data["prefix"], data["count"] = "Ganger", "2"
    posted = web.gm.post(action, dict(data.lists()))
    assert posted.status_code in (200, 302), posted.content.decode()[:2000]
    npcs = Character.objects.filter(campaign_id=web.campaign_id, name__startswith="Ganger")
    assert [npc.state["attributes"] for npc in npcs] == [by_api.state["attributes"]] * 2

    # The edit form shows the value set through the API (an attribute that may change in play), and saved
    # unchanged writes nothing.
    action = reverse("character-edit", args=[by_api.pk])
    items = form_items(web.gm.get(action).content.decode(), action)
    names = {input_name for input_name, _ in items}
    own = {
        forms.characters._attribute_input(attribute),
        *row_inputs(forms.characters._attribute_input(attribute)),
    }
    if name.partition(".")[0] not in rules.changeable_attributes:
        assert not names & own, f"{name} may not change in play, yet the edit form has it"
        return
    data = QueryDict(mutable=True)
    for input_name, input_value in items:
        data.appendlist(input_name, input_value)
    shown = forms.parse_edit(get_ruleset(slug), data, by_api.state["attributes"])["attributes"]
    group = name.partition(".")[0]
    expected = by_api.state["attributes"][group]
    assert (
        shown[group] == expected if attribute.kind != "bool" or value else shown.get(group, False) == expected
    )
    before = Event.objects.count()
    saved = web.gm.post(action, dict(data.lists()))
    assert saved.status_code == 302, saved.content.decode()[:2000]
    assert Event.objects.count() == before
    assert Character.objects.get(pk=by_api.pk).state["attributes"] == by_api.state["attributes"]
