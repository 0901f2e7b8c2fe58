"""A character's attributes as form fields, and parsed from a posted form."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import QueryDict

from campaign.web.forms.core import (
    EMPTY_ROWS,
    AmountRow,
    Field,
    _ticked,
    amounts_from_rows,
    check_posted,
    posted_rows,
    row_inputs,
)
from rules.ruleset import RuleError, Ruleset
from rules.sheet import Attribute
from rules.text import given

# --- characters -----------------------------------------------------------------------------------------------

# A map attribute (names to numbers) is typed as rows of a name and a number.
ATTRIBUTE_INPUT_KINDS = {"map": "amounts"}


def _attributes(ruleset: Ruleset) -> tuple[Attribute, ...]:
    """The attributes a character of the ruleset is created with, as the ruleset describes them."""
    sheet = ruleset.sheet
    return sheet.attributes if sheet is not None else ()


def _attribute_input(attribute: Attribute) -> str:
    return f"a_{attribute.name.replace('.', '__')}"


def attribute_fields(
    ruleset: Ruleset, data: QueryDict | None = None, errors: dict[str, str] | None = None
) -> list[Field]:
    errors = errors or {}
    out = []
    for attribute in _attributes(ruleset):
        input_name = _attribute_input(attribute)
        rows: list[AmountRow] = []
        if attribute.kind == "bool":
            value: Any = (data.get(input_name) == "on") if data is not None else bool(attribute.default)
        elif attribute.kind == "map":
            value, rows = None, _typed_rows(data, input_name)
        else:
            value = data.get(input_name, "") if data is not None else ""
        out.append(
            Field(
                name=attribute.name,
                input=input_name,
                kind=ATTRIBUTE_INPUT_KINDS.get(attribute.kind, attribute.kind),
                label=attribute.label,
                required=attribute.required,
                value=value,
                help=attribute.help,
                error=errors.get(f"attributes.{attribute.name}", ""),
                rows=rows,
                columns=attribute.columns,
                typed=attribute.kind == "map",
            )
        )
    return out


def _typed_rows(data: QueryDict | None, input_name: str) -> list[AmountRow]:
    """The rows of typed names and numbers as they were posted or filled (the rows left empty dropped), then
    `EMPTY_ROWS` empty ones to add to them."""
    names, amounts = row_inputs(input_name)
    filled = []
    if data is not None:
        for name, amount in zip(data.getlist(names), data.getlist(amounts), strict=False):
            if name.strip() or amount.strip():
                filled.append(AmountRow(name, "", amount))
    return filled + [AmountRow("", "", "") for _ in range(EMPTY_ROWS)]


def character_inputs(ruleset: Ruleset) -> dict[str, str]:
    """The inputs of the character form, each with the field its errors name."""
    inputs = {"key": "key", "name": "name", "player": "player"}
    for attribute in _attributes(ruleset):
        input_name = _attribute_input(attribute)
        names = row_inputs(input_name) if attribute.kind == "map" else (input_name,)
        inputs.update(dict.fromkeys(names, f"attributes.{attribute.name}"))
    return inputs


def place_character_error(ruleset: Ruleset, field_name: str, message: str) -> dict[str, str]:
    """Put an error of the character form on the field it names; one inside an attribute
    (`attributes.skills.driver`) on that attribute, or it would be shown nowhere: named by the row's name
    ("driver: ...") in a map's rows, by its path elsewhere."""
    if field_name in ("name", "player"):
        return {field_name: message}
    for attribute in _attributes(ruleset):
        where = f"attributes.{attribute.name}"
        if field_name == where:
            return {where: message}
        if field_name.startswith(f"{where}."):
            inside = field_name.removeprefix(f"{where}.") if attribute.kind == "map" else field_name
            return {where: f"{inside}: {message}"}
    # `detail`: a refusal of the whole form (a limit on what one user may create, campaign.http.limits).
    return {"form": message if field_name in ("form", "detail") else f"{field_name}: {message}"}


def parse_attributes(
    ruleset: Ruleset, data: QueryDict, inputs: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The posted attributes as the API's object. `inputs`: the form's whole set (the character form's if None)."""
    check_posted(data, character_inputs(ruleset) if inputs is None else inputs)
    attributes: dict[str, Any] = {}
    for attribute in _attributes(ruleset):
        name, input_name = attribute.name, _attribute_input(attribute)
        if attribute.kind == "bool":
            value: Any = _ticked(data, input_name, f"attributes.{name}")
        elif attribute.kind == "map":
            rows = posted_rows(data, input_name, f"attributes.{name}")
            if rows is None:
                continue
            # Every row left empty: none, which an edit takes as every name dropped.
            value = amounts_from_rows(rows, f"attributes.{name}", columns=attribute.columns)
        else:
            raw = data.get(input_name, "").strip()
            if not raw:
                continue
            try:  # an int: the kinds are int, bool and map (rules/sheet.py)
                value = int(raw)
            except ValueError:
                raise RuleError(f"attributes.{name}", f"expected a whole number, got {given(raw)}") from None
        if "." in name:
            group, key = name.split(".", 1)
            attributes.setdefault(group, {})[key] = value
        else:
            attributes[name] = value
    return attributes
