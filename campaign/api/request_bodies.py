"""The API's request bodies, as the OpenAPI schema shows them: what the services accept (names, choices, lengths),
so that a client, and the fuzzer, knows what a valid request is. The services check it all and answer 400 naming
the field; these only describe it, and `views._body` holds a body to the fields its description names (a misspelt
field is a 400, not dropped). An action's body is described from the rulesets' forms (`action_schema.py`)."""

from __future__ import annotations

from typing import Any

from campaign import services
from campaign.api import option_schema
from campaign.models import GM, PLAYER
from rules.registry import ruleset_slugs

NOT_BLANK = r"\S"


def closed(properties: dict[str, Any], *required: str) -> dict[str, Any]:
    """An object with these properties and no other (OpenAPI 3.0 takes no empty `required`)."""
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def text(max_length: int | None = None, **more: Any) -> dict[str, Any]:
    return {"type": "string", **({"maxLength": max_length} if max_length else {}), **more}


SIGN_UP = closed(
    {
        "username": text(150, description="letters, digits and @/./+/-/_"),
        "password": text(minLength=8),
    },
    "username",
    "password",
)
CREDENTIALS = closed({"username": text(), "password": text()}, "username", "password")
CAMPAIGN_CREATE = closed(  # the fields the view takes; the schema's body is option_schema.CAMPAIGN_CREATE
    {
        "name": option_schema.CAMPAIGN_NAME,
        "ruleset": {"type": "string", "enum": ruleset_slugs()},
        "options": option_schema.OPTIONS,
    },
    "name",
    "ruleset",
)
MEMBER_ADD = closed(
    {"username": text(150), "role": {"type": "string", "enum": [GM, PLAYER]}},
    "username",
    "role",
)
CHARACTER_CREATE = closed(
    {
        "name": text(200, pattern=NOT_BLANK),
        "player": text(150, nullable=True, description="empty: no player"),
        "attributes": option_schema.ATTRIBUTES,
    },
    "name",
)
CHARACTER_CHANGE = closed(
    {
        "name": text(200, pattern=NOT_BLANK),
        "player": text(150, nullable=True, description="a member's user name; empty or null: no player"),
        # Only the attributes that change, among those the ruleset lets change in play.
        "attributes": option_schema.ATTRIBUTES,
    }
)
CAMPAIGN_CHANGE = closed(
    {
        "name": text(200, pattern=NOT_BLANK),
        "options": option_schema.OPTIONS,  # only the options that change; the rest keep their values
    }
)
CLOCK_ADVANCE = closed(
    {
        "advance": {
            "type": "object",
            "description": 'exactly one unit and a whole number of it, at most 100 years, e.g. {"hours": 2}',
            "properties": {
                unit: {"type": "integer", "minimum": 1, "maximum": services.MAX_ADVANCE_SECONDS // seconds}
                for unit, seconds in services.ADVANCE_UNITS.items()
            },
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": False,
        },
        "stop_on": {
            "type": "string",
            "enum": ["status"],
            "description": "stop at the first firing that changes a character's status (dies, starts dying, "
            "falls unconscious, wakes, is stunned); the job says where and why",
        },
    },
    "advance",
)
IMPORT = closed({"file": {"type": "string", "format": "binary"}}, "file")
CLOCK_ROLLS = {
    "type": "object",
    "description": "the dice of the rolls the job waits for, each under its key (`needs_rolls[].key`, the "
    'character\'s id and the roll\'s name: {"9.death_save": [4], "10.stun_save": [7]}), or under its name alone '
    'where one roll of that name is asked ({"death_save": [4]}); any of the rolls asked, the rest asked again. '
    'Or {"ask": false}: the server rolls the rest of this advance',
    "properties": {
        "ask": {"type": "boolean", "description": "false: the server rolls the rest of this advance"}
    },
    "additionalProperties": {
        "type": "array",
        "items": {"type": "integer", "minimum": 1},
        "description": "the roll's dice as rolled (an open-ended pool's: each die's total, 6 then 4 is 10)",
    },
    "minProperties": 1,
}


# --- the GM's board (docs/web.md, "The board") ----------------------------------------------------------------------
CHARACTERS_NUMBERED = closed(
    {
        "prefix": text(
            services.PREFIX_LENGTH, pattern=NOT_BLANK, description='"Ganger": Ganger 1, Ganger 2...'
        ),
        "count": {"type": "integer", "minimum": 1, "maximum": services.MAX_NUMBERED},
        "attributes": option_schema.ATTRIBUTES,
    },
    "prefix",
    "count",
)
CHARACTER_DUPLICATE = closed({})
