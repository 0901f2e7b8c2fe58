"""The OpenAPI components of a campaign's `options` and a character's `attributes`, one per ruleset, written from
the rulesets' declarations (`rules.options`: each option's kind, bounds, unit, default; `rules.sheet.Attribute`),
the same ones the API checks a body with, so the schema and the check cannot drift apart.

`CampaignOptions` is `anyOf` the rulesets' option objects (`Shadowrun2Options`, ...), each with the options every
ruleset shares; `CharacterAttributes` likewise (`Shadowrun2Attributes`, ...). Which one applies is the campaign's
ruleset, which the options themselves do not say: a PATCH names only the options that change (`{"table_dice":
"all"}` fits every ruleset's object), so `oneOf`, which refuses a value that fits more than one, would refuse it, and
no discriminator can sit inside the options. Where the ruleset is a sibling, the new campaign's body, that body is
`oneOf` by ruleset with `ruleset` its discriminator (`CAMPAIGN_CREATE`: `Shadowrun2CampaignCreate`, ...), each
variant's `options` its ruleset's object. The components are added to the schema by `add_components` (a
drf-spectacular post-processing hook, `SPECTACULAR_SETTINGS`); a body's or an answer's schema refers to them with
`OPTIONS` and `ATTRIBUTES`, the new campaign's body with `CAMPAIGN_CREATE`. The
stored shapes are the API's as before: a duration in the unit its option's name says (`_seconds`, `_minutes`, `_days`, `_weeks`), each described so.
"""

from __future__ import annotations

from typing import Any

from rules import options as declared
from rules.answer_schema import BOOL, INT, STR, WORDS, array, nullable, obj
from rules.registry import get_ruleset, ruleset_slugs
from rules.sheet import Attribute

OPTIONS_COMPONENT = "CampaignOptions"
ATTRIBUTES_COMPONENT = "CharacterAttributes"
OPTIONS = {"$ref": f"#/components/schemas/{OPTIONS_COMPONENT}"}
ATTRIBUTES = {"$ref": f"#/components/schemas/{ATTRIBUTES_COMPONENT}"}


# One option's declaration (rules/options.py, `Setting.described`): what every kind has, then its kind's own.
OPTION_DECLARATION = obj(
    {
        "name": STR,
        "kind": {
            "type": "string",
            "enum": ["choice", "yes_no", "number", "duration", "date_time", "table"],
        },
        "label": STR,
        "help": STR,
        "origin": {
            "type": "string",
            "enum": ["seed", "house", "campaign"],
            "description": "seed: an optional rule of the source rules; house: a house rule; campaign: how the campaign is run",
        },
        "default": {
            "nullable": True,
            "description": "the default, in the stored shape (as `options` holds it)",
        },
        "choices": array(obj({"value": STR, "words": STR}), "choice: the values and their words"),
        "minimum": {"type": "integer", "description": "number, duration: in the stored unit"},
        "maximum": {"type": "integer", "description": "number, duration: in the stored unit"},
        "unit": {"type": "string", "description": "number: the words beside it (TN, boxes, on 1d6)"},
        "fraction": {"type": "boolean", "description": "number: a fraction is taken"},
        "stored": {"type": "string", "description": "duration: the unit the API takes and answers it in"},
        "units": array(STR, "duration: the units the rules speak it in, as the form offers them"),
        "zero": {
            "type": "string",
            "description": "duration: what 0 means (empty: 0 is refused or plain)",
        },
        "rows": array(
            obj({"key": STR, "label": STR, "maximum": nullable(INT)}),
            "table: a row per key (none: one row)",
        ),
        "columns": array(
            obj(
                {
                    "name": STR,
                    "label": STR,
                    "kind": {"type": "string", "enum": ["number", "duration"]},
                    "minimum": INT,
                    "maximum": INT,
                    "unit": STR,
                    "stored": STR,
                    "units": WORDS,
                },
                "unit",
                "stored",
                "units",
            ),
            "table: a field per column (one named empty: each row is one number)",
        ),
    },
    *("choices", "minimum", "maximum", "unit", "fraction", "stored", "units", "zero", "rows", "columns"),
)

# One attribute's declaration (rules/sheet.py, `Attribute.described`).
ATTRIBUTE_DECLARATION = obj(
    {
        "name": {"type": "string", "description": "dotted for a key of an object (armor.head)"},
        "kind": {"type": "string", "enum": ["int", "bool", "map"]},
        "label": STR,
        "help": STR,
        "required": BOOL,
        "default": {
            "nullable": True,
            "description": "null: required, or derived from the others (the help)",
        },
        "minimum": nullable(INT),
        "maximum": nullable(INT),
        "changeable": {"type": "boolean", "description": "a GM may change it in play (PATCH)"},
        "columns": array(STR, "map: what its names and its numbers are called"),
    },
    "columns",
)


def _name(slug: str, what: str) -> str:
    return f"{slug[:1].upper()}{slug[1:]}{what}"


def options_schema(slug: str) -> dict[str, Any]:
    """A ruleset's options as the API takes and answers them: its own and the shared ones, each typed."""
    rules = get_ruleset(slug)
    properties = {setting.name: setting.schema() for setting in (*rules.options, *declared.SHARED)}
    properties["start"]["default"] = rules.default_start
    return {
        "type": "object",
        # No title: a generated client names the model by the component (Shadowrun2Options).
        "description": f"{rules.title}: campaign options. Every option may be left out: its default applies (at creation), or it keeps its value (a "
        "PATCH names only what changes).",
        "properties": properties,
        "additionalProperties": False,
    }


def _attribute_schema(attribute: Attribute) -> dict[str, Any]:
    bounds = {
        key: value
        for key, value in (("minimum", attribute.minimum), ("maximum", attribute.maximum))
        if value is not None
    }
    described = {"title": attribute.label, **({"description": attribute.help} if attribute.help else {})}
    if attribute.default is not None:
        described["default"] = attribute.default
    if attribute.kind == "bool":
        return {"type": "boolean", **described}
    if attribute.kind == "map":
        return {
            "type": "object",
            "additionalProperties": {"type": "integer", **bounds},
            "description": f"{attribute.columns[0]} to {attribute.columns[1].lower()}"
            + (f"; {attribute.help}" if attribute.help else ""),
            "title": attribute.label,
        }
    return {"type": "integer", **bounds, **described}


def attributes_schema(slug: str) -> dict[str, Any]:
    """A ruleset's attributes as `rules/<slug>/sheet.py` declares them: a dotted name (`armor.head`) is a key of an
    object."""
    rules = get_ruleset(slug)
    attributes = rules.sheet.attributes if rules.sheet is not None else ()
    properties: dict[str, Any] = {}
    required = []
    for attribute in attributes:
        if "." in attribute.name:
            group, key = attribute.name.split(".", 1)
            holder = properties.setdefault(
                group, {"type": "object", "properties": {}, "additionalProperties": False}
            )
            holder["properties"][key] = _attribute_schema(attribute)
        else:
            properties[attribute.name] = _attribute_schema(attribute)
            if attribute.required:
                required.append(attribute.name)
    return {
        "type": "object",
        "description": f"{rules.title}: character attributes. At creation the required ones must be given; a PATCH names only those that change, among "
        f"those that may change in play ({', '.join(rules.changeable_attributes)}).",
        "properties": properties,
        **({"required": required} if required else {}),
        "additionalProperties": False,
    }


CAMPAIGN_CREATE = {
    # A new campaign names its ruleset beside its options, so each ruleset's body is a variant of its own and
    # exactly one fits: `oneOf`, with `ruleset` the discriminator.
    "oneOf": [{"$ref": f"#/components/schemas/{_name(slug, 'CampaignCreate')}"} for slug in ruleset_slugs()],
    "discriminator": {
        "propertyName": "ruleset",
        "mapping": {
            slug: f"#/components/schemas/{_name(slug, 'CampaignCreate')}" for slug in ruleset_slugs()
        },
    },
}


# A campaign's name as a body gives it (request_bodies.CAMPAIGN_CREATE's too).
CAMPAIGN_NAME = {"type": "string", "maxLength": 200, "pattern": r"\S"}


def campaign_create_schema(slug: str) -> dict[str, Any]:
    """A ruleset's body of `POST /api/campaigns/`: the fields of `request_bodies.CAMPAIGN_CREATE`, the view's
    closed set, with `ruleset` this one and `options` this ruleset's."""
    rules = get_ruleset(slug)
    return {
        "type": "object",
        "description": f"A new {rules.title} campaign.",
        "properties": {
            "name": CAMPAIGN_NAME,
            "ruleset": {"type": "string", "enum": [slug]},
            "options": {"$ref": f"#/components/schemas/{_name(slug, 'Options')}"},
        },
        "required": ["name", "ruleset"],
        "additionalProperties": False,
    }


def components() -> dict[str, dict[str, Any]]:
    """Every component this module writes, by name."""
    out: dict[str, dict[str, Any]] = {
        "OptionDeclaration": OPTION_DECLARATION,
        "AttributeDeclaration": ATTRIBUTE_DECLARATION,
    }
    for slug in ruleset_slugs():
        out[_name(slug, "Options")] = options_schema(slug)
        out[_name(slug, "Attributes")] = attributes_schema(slug)
        out[_name(slug, "CampaignCreate")] = campaign_create_schema(slug)
    out[OPTIONS_COMPONENT] = {
        # anyOf, not oneOf: where no sibling names the ruleset (a PATCH, which names only the options that change:
        # `{"table_dice": "all"}` fits every ruleset's component, and oneOf would refuse it for fitting three) or
        # where this is one field of an answer, more than one component may fit, and nothing in the options says
        # which applies: the campaign's `ruleset` does. A new campaign's body is `oneOf` by ruleset
        # (`CAMPAIGN_CREATE`).
        "description": "The campaign's options, by its ruleset (the campaign's `ruleset` says which).",
        "anyOf": [{"$ref": f"#/components/schemas/{_name(slug, 'Options')}"} for slug in ruleset_slugs()],
    }
    # anyOf likewise: a character's body names no ruleset (its campaign's is), and a PATCH names only what changes.
    out[ATTRIBUTES_COMPONENT] = {
        "description": "The character's attributes, by its campaign's ruleset (the character's `ruleset`).",
        "anyOf": [{"$ref": f"#/components/schemas/{_name(slug, 'Attributes')}"} for slug in ruleset_slugs()],
    }
    return out


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's post-processing hook: the schema gains the components `OPTIONS` and `ATTRIBUTES` name."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(components())
    return result
