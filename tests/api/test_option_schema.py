"""The OpenAPI schema types each ruleset's campaign options and character attributes (campaign/api/option_schema.py),
from the same declarations the API checks them with (rules/options.py, rules/<slug>/sheet.py)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from campaign.api import request_bodies as bodies
from rules import options as declared
from rules.registry import get_ruleset, ruleset_slugs
from tests.conftest import Table

NAMES = {"shadowrun2": "Shadowrun2", "cyberpunk2020": "Cyberpunk2020", "darkfuture": "Darkfuture"}


@pytest.fixture
def schema(client: Any) -> dict[str, Any]:
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def _validator(schema: dict[str, Any], component: str) -> jsonschema.Validator:
    """A validator of one component, its references resolved in the whole schema."""
    whole = {**schema["components"]["schemas"][component], "components": schema["components"]}
    return jsonschema.Draft7Validator(whole)


def test_the_bodies_and_answers_name_the_typed_components(schema: dict[str, Any]) -> None:
    paths = schema["paths"]

    def body(path: str, method: str) -> dict[str, Any]:
        return paths[path][method]["requestBody"]["content"]["application/json"]["schema"]["properties"]

    options = {"$ref": "#/components/schemas/CampaignOptions"}
    attributes = {"$ref": "#/components/schemas/CharacterAttributes"}
    # A new campaign names its ruleset beside its options: oneOf by ruleset, each variant its ruleset's options.
    create = paths["/api/campaigns/"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    variants = {slug: f"#/components/schemas/{NAMES[slug]}CampaignCreate" for slug in ruleset_slugs()}
    assert create["oneOf"] == [{"$ref": ref} for ref in variants.values()]
    assert create["discriminator"] == {"propertyName": "ruleset", "mapping": variants}
    for slug in ruleset_slugs():
        variant = schema["components"]["schemas"][f"{NAMES[slug]}CampaignCreate"]
        assert variant["properties"]["ruleset"] == {"type": "string", "enum": [slug]}
        assert variant["properties"]["options"] == {"$ref": f"#/components/schemas/{NAMES[slug]}Options"}
        assert variant["additionalProperties"] is False and variant["required"] == ["name", "ruleset"]
        # The fields the view takes (its closed set) are the ones each variant lists.
        assert list(variant["properties"]) == list(bodies.CAMPAIGN_CREATE["properties"])
        assert variant["properties"]["name"] == bodies.CAMPAIGN_CREATE["properties"]["name"]
    assert body("/api/campaigns/{campaign_id}/", "patch")["options"] == options
    assert body("/api/campaigns/{campaign_id}/characters/", "post")["attributes"] == attributes
    assert body("/api/characters/{character_id}/", "patch")["attributes"] == attributes
    components = schema["components"]["schemas"]
    # The answers are components of their own (docs/api.md), which name the same two.
    assert components["Campaign"]["properties"]["options"] == options
    for slug in ruleset_slugs():
        assert components[f"{NAMES[slug]}GmCharacter"]["properties"]["attributes"] == attributes
    components = schema["components"]["schemas"]
    assert components["CampaignOptions"]["anyOf"] == [
        {"$ref": f"#/components/schemas/{NAMES[slug]}Options"} for slug in ruleset_slugs()
    ]


@pytest.mark.parametrize("slug", ruleset_slugs())
def test_each_rulesets_options_are_typed_by_their_declarations(schema: dict[str, Any], slug: str) -> None:
    rules = get_ruleset(slug)
    component = schema["components"]["schemas"][f"{NAMES[slug]}Options"]
    assert component["additionalProperties"] is False
    assert list(component["properties"]) == [setting.name for setting in (*rules.options, *declared.SHARED)]
    shared = component["properties"]
    assert shared["start"] == {
        "type": "string",
        "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$",  # no zone: not RFC 3339
        "example": "2053-03-14T22:00:00",
        "title": "Campaign starts",
        "description": "The game date and time the campaign's clock starts at.",
        "default": rules.default_start,
    }
    assert shared["table_dice"]["enum"] == ["none", "actions", "all"]
    assert shared["time_scale"]["type"] == "number" and shared["time_scale"]["maximum"] == 86_400
    for setting in rules.options:
        assert component["properties"][setting.name]["title"] == setting.label
        assert component["properties"][setting.name]["default"] == setting.default
    # The defaults the API lists (GET /api/rulesets/) are valid options, and one out of bounds is not.
    validator = _validator(schema, f"{NAMES[slug]}Options")
    validator.validate(declared.defaults(rules.options))
    assert not validator.is_valid({"no_such_option": 1})


def test_the_schema_says_each_kind_and_bound(schema: dict[str, Any]) -> None:
    sr2 = schema["components"]["schemas"]["Shadowrun2Options"]["properties"]
    assert sr2["body_check_tn"]["enum"] == ["standard", "gentle"]
    assert sr2["critical_category"]["type"] == "boolean"
    assert sr2["first_aid_tn"]["properties"]["D"] == {
        "type": "integer",
        "minimum": 2,
        "maximum": 30,
        "title": "TN",
    }
    assert sr2["first_aid_floor"]["properties"]["M"]["maximum"] == 3
    mortal = sr2["treatment_table"]["properties"]["mortal"]["properties"]
    assert mortal["base_seconds"]["title"] == "Base time (game seconds)"
    assert sr2["deadly_overflow_minutes"]["description"].endswith("Stored in game minutes.")
    validator = _validator(schema, "Shadowrun2Options")
    assert validator.is_valid({"first_aid_tn": {"D": 12}})
    assert not validator.is_valid({"first_aid_tn": {"D": 31}})
    assert not validator.is_valid({"body_check_tn": "hard"})
    cp = schema["components"]["schemas"]["Cyberpunk2020Attributes"]
    assert cp["required"] == ["body"]
    assert cp["properties"]["armor"]["properties"]["head"] == {
        "type": "integer",
        "minimum": 0,
        "maximum": 100,
        "title": "Armor SP: head",
        "default": 0,
    }
    df = schema["components"]["schemas"]["DarkfutureAttributes"]["properties"]
    assert df["skills"]["additionalProperties"] == {"type": "integer", "minimum": 0, "maximum": 100}


def test_a_campaigns_stored_options_and_a_characters_attributes_match_the_schema(
    schema: dict[str, Any], sr2: Table
) -> None:
    campaign = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/").json()
    _validator(schema, "CampaignOptions").validate(campaign["options"])
    _validator(schema, "Shadowrun2Options").validate(campaign["options"])
    character = sr2.gm.get(sr2.character_url()).json()
    _validator(schema, "Shadowrun2Attributes").validate(character["attributes"])
