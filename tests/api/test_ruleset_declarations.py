"""`GET /api/rulesets/` says each ruleset's options and attributes from the one declaration (rules/options.py,
rules/<slug>/sheet.py) that the forms, the check and the schema read."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from rules import options as declared
from rules.registry import get_ruleset, ruleset_slugs
from tests.api.schema_check import as_json_schema


@pytest.fixture
def answer(client: Any, db: None) -> dict[str, dict[str, Any]]:
    response = client.get("/api/rulesets/")
    assert response.status_code == 200
    return {ruleset["slug"]: ruleset for ruleset in response.json()}


@pytest.mark.parametrize("slug", ruleset_slugs())
def test_each_ruleset_lists_its_options_as_declared(answer: dict[str, dict[str, Any]], slug: str) -> None:
    rules = get_ruleset(slug)
    described = answer[slug]["option_declarations"]
    settings = (*rules.options, *declared.SHARED)
    assert [item["name"] for item in described] == [setting.name for setting in settings]
    for item, setting in zip(described, settings, strict=True):
        assert item["label"] == setting.label
        assert item["help"] == setting.help
        assert item["kind"] == setting.kind
        assert item["origin"] == setting.origin
        # The default is the one a new campaign gets (the start: the ruleset's own date).
        assert item["default"] == answer[slug]["options"][setting.name]
        if isinstance(setting, declared.Choice):
            assert [choice["value"] for choice in item["choices"]] == list(setting.values)
        if isinstance(setting, declared.Duration):
            assert (item["stored"], item["units"]) == (setting.stored, list(setting.units))
        if isinstance(setting, declared.Number):
            assert (item["minimum"], item["maximum"], item["unit"]) == (
                setting.minimum,
                setting.maximum,
                setting.unit,
            )
        if isinstance(setting, declared.Table):
            assert [row["key"] for row in item["rows"]] == [row.key for row in setting.rows]
            assert [column["name"] for column in item["columns"]] == [c.name for c in setting.columns]
    # The old keys stay for the clients that read them.
    assert set(answer[slug]["option_help"]) >= {setting.name for setting in rules.options}


@pytest.mark.parametrize("slug", ruleset_slugs())
def test_each_ruleset_lists_its_attributes_as_declared(answer: dict[str, dict[str, Any]], slug: str) -> None:
    rules = get_ruleset(slug)
    assert rules.sheet is not None
    described = answer[slug]["attribute_declarations"]
    assert [item["name"] for item in described] == [attribute.name for attribute in rules.sheet.attributes]
    for item, attribute in zip(described, rules.sheet.attributes, strict=True):
        assert (item["kind"], item["label"], item["help"]) == (
            attribute.kind,
            attribute.label,
            attribute.help,
        )
        assert (item["required"], item["minimum"], item["maximum"]) == (
            attribute.required,
            attribute.minimum,
            attribute.maximum,
        )
        assert item["changeable"] == (attribute.name.split(".")[0] in rules.changeable_attributes)


def test_the_rulesets_answer_is_typed_in_the_schema(client: Any, answer: dict[str, dict[str, Any]]) -> None:
    schema = client.get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    ruleset = components["Ruleset"]["properties"]
    assert ruleset["option_declarations"]["items"] == {"$ref": "#/components/schemas/OptionDeclaration"}
    assert ruleset["attribute_declarations"]["items"] == {"$ref": "#/components/schemas/AttributeDeclaration"}
    whole = {**as_json_schema(components["Ruleset"]), "components": as_json_schema(schema["components"])}
    validator = jsonschema.Draft7Validator(whole)
    for item in answer.values():
        validator.validate(item)
