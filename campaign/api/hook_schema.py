"""The answers of a campaign's hooks (docs/notifications.md), as the schema declares them: components of
`campaign.api.answers`, each with its example."""

from __future__ import annotations

from typing import Any

from campaign.models import Hook
from campaign.notify.words import AUDIENCES
from campaign.notify.words import KINDS as NOTICE_KINDS
from rules.answer_schema import INT, array, nullable, obj

HOOKS = {
    "Hook": obj(
        {
            "id": INT,
            "kind": {"type": "string", "enum": [Hook.DISCORD, Hook.WEBHOOK]},
            "url": {
                "type": "string",
                "description": "where it sends (a Discord webhook's address is its password)",
            },
            "audience": {
                "type": "string",
                "enum": list(AUDIENCES),
                "description": "table: for each character what its own player may see (everyone in the channel "
                "reads it); gm: everything the GM sees",
            },
            "events": array({"type": "string", "enum": list(NOTICE_KINDS)}, "the kinds of notice it tells"),
            "active": {
                "type": "boolean",
                "description": "false: switched off for failing (`last_error` says why)",
            },
            "last_error": nullable({"type": "string", "description": "its last delivery's error, in words"}),
            "last_sent_at": nullable(
                {"type": "string", "format": "date-time", "description": "when a message last reached it"}
            ),
            "secret": {
                "type": "string",
                "description": "a signed webhook's key for `X-Ledger-Signature`: in the answer that made it, only",
            },
        },
        "secret",
        description="where a campaign's notifications go",
    ),
    "HookTest": obj(
        {
            "delivery": {"type": "string", "format": "uuid", "description": "its `X-Ledger-Delivery`"},
            "status": {"type": "string", "enum": ["queued"]},
        },
        description="a hook's test message, sent once the answer is given: how it went is the hook's "
        "`last_error` (null: it went) and `active`",
    ),
}

EXAMPLES: dict[str, Any] = {
    "Hook": {
        "id": 3,
        "kind": "discord",
        "url": "https://discord.com/api/webhooks/1234567890/AbCdEf",
        "audience": "table",
        "events": [
            "wounded",
            "healed",
            "stabilized",
            "dying",
            "dead",
            "fit_again",
            "party_fit",
            "house_rules",
        ],
        "active": True,
        "last_error": None,
        "last_sent_at": "2026-12-01T20:15:00+00:00",
    },
    "HookTest": {"delivery": "0b7e3c52-9a51-4d0e-8f4a-63c1a2d9e2b7", "status": "queued"},
}
for _name, _example in EXAMPLES.items():
    HOOKS[_name]["example"] = _example
