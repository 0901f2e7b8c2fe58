"""Characters and campaigns change in play: the edit form, filled with the current attributes, and its parsing."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.http import QueryDict

from campaign.web.forms.characters import _attribute_input, _attributes, attribute_fields, parse_attributes
from campaign.web.forms.core import Field, row_inputs
from rules.ruleset import Ruleset

# --- characters and campaigns change in play --------------------------------------------------------------------


def _current_inputs(ruleset: Ruleset, attributes: Mapping[str, Any]) -> QueryDict:
    """The character form's inputs filled with the character's current attributes, as a GM would type them."""
    data = QueryDict(mutable=True)
    for attribute in _attributes(ruleset):
        group, _, key = attribute.name.partition(".")
        value = attributes.get(group)
        if key:
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is None or value is False:
            continue
        if attribute.kind == "bool":
            data[_attribute_input(attribute)] = "on"
        elif attribute.kind == "map" and isinstance(value, Mapping):
            names, amounts = row_inputs(_attribute_input(attribute))
            data.setlist(names, [str(key) for key in value])
            data.setlist(amounts, [str(amount) for amount in value.values()])
        elif isinstance(value, dict | list):
            data[_attribute_input(attribute)] = json.dumps(value)
        else:
            data[_attribute_input(attribute)] = str(value)
    return data


def edit_fields(
    ruleset: Ruleset,
    attributes: Mapping[str, Any],
    data: QueryDict | None = None,
    errors: dict[str, str] | None = None,
) -> list[Field]:
    """The attribute inputs of a character's edit: those the ruleset lets change in play, filled with the current
    values (or with what was posted, to correct it)."""
    changeable = ruleset.changeable_attributes
    shown = data if data is not None else _current_inputs(ruleset, attributes)
    return [f for f in attribute_fields(ruleset, shown, errors) if f.name.split(".")[0] in changeable]


def parse_edit(ruleset: Ruleset, data: QueryDict, attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The posted edit as the API's PATCH body. The form shows every value, so a map it shows whole (skills) is
    what the GM wants: a key left out of it is dropped."""
    changeable = ruleset.changeable_attributes
    posted = parse_attributes(ruleset, data)
    patch: dict[str, Any] = {}
    for name, value in posted.items():
        if name not in changeable:
            continue
        current = attributes.get(name)
        shown_whole = isinstance(value, dict) and any(
            attribute.name == name and attribute.kind == "map" for attribute in _attributes(ruleset)
        )
        if shown_whole and isinstance(current, dict):
            value = {**dict.fromkeys(current), **value}
        patch[name] = value
    return {
        "name": data.get("name", ""),
        "player": data.get("player", "").strip() or None,
        "attributes": patch,
    }
