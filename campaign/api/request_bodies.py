"""The API's request bodies, as the OpenAPI schema shows them: what the services accept (names, choices, lengths),
so that a client, and the fuzzer, knows what a valid request is. The services check it all and answer 400 naming
the field; these only describe it, and `views._body` holds a body to the fields its description names (a misspelt
field is a 400, not dropped). An action's body is described from the rulesets' forms (`action_schema.py`)."""

from __future__ import annotations

from typing import Any

from campaign import services
from campaign.api import option_schema
from campaign.models import GM, PLAYER, Hook
from campaign.notify import words as notify_words
from campaign.services.hooks import URL_LENGTH as HOOK_URL_LENGTH
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
        "ask_before_death": {
            "type": "boolean",
            "description": "wait for the GM's yes before a firing that kills (status waiting, `needs_yes`): "
            "`POST /api/jobs/{id}/go-on/` lets it happen, `POST /api/jobs/{id}/stop/` ends the advance where it "
            "stands; default false (the board's advances always ask)",
        },
    },
    "advance",
)
IMPORT = closed({"file": {"type": "string", "format": "binary"}}, "file")
CLOCK_ROLLS = {
    "type": "object",
    "description": "the dice of the rolls the job waits for, each under its key (`needs_rolls[].key`: "
    '{"9.death_save": [4], "10.stun_save": [7]}; one character\'s two rolls of one name by their injuries, '
    '{"9.critical_healing:ch1": [...], "9.critical_healing:ch2": [...]}), or where it names one roll asked, '
    "under the character's id and the roll's name ({\"9.critical_healing\": [...]}) or its name alone "
    '({"death_save": [4]}); any of the rolls asked, the rest asked again. Or {"ask": false}: the server rolls the '
    "rest of this advance",
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


# --- push to a phone (docs/notifications.md) ----------------------------------------------------------------
PUSH_SUBSCRIPTION = closed(
    {
        "endpoint": text(1000, description="PushSubscription.endpoint: the push service's https URL"),
        "keys": closed(
            {
                "p256dh": text(100, description="the browser's P-256 public key, base64url"),
                "auth": text(100, description="the browser's 16-byte auth secret, base64url"),
            },
            "p256dh",
            "auth",
        ),
        "campaigns": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "GMs: campaigns of yours whose every character this device is told of (added to those "
            "named before)",
        },
    },
    "endpoint",
    "keys",
)


# --- notifications out of the game (docs/notifications.md) --------------------------------------------------------
HOOK_CREATE = closed(
    {
        "kind": {
            "type": "string",
            "enum": [Hook.DISCORD, Hook.WEBHOOK],
            "description": "discord: a Discord channel's webhook; webhook: a signed POST of JSON",
        },
        "url": text(
            HOOK_URL_LENGTH,
            pattern=r"^https://",
            description="https only; a Discord hook's is https://discord.com/api/webhooks/...",
        ),
        "audience": {
            "type": "string",
            "enum": list(notify_words.AUDIENCES),
            "description": "table: for each character what its own player may see (everyone in the channel reads "
            "it); gm: everything the GM sees, for a GM's private channel",
        },
        "events": {
            "type": "array",
            "items": {"type": "string", "enum": list(notify_words.KINDS)},
            "minItems": 1,
            "uniqueItems": True,
            "description": "the kinds of notice to tell; absent: every one but the clock's digest. "
            + "; ".join(f"{kind}: {words}" for kind, words in notify_words.KIND_HELP.items()),
        },
    },
    "kind",
    "url",
    "audience",
)
