"""The API's answers, as the OpenAPI schema declares them: one component per answer the presenters write
(`campaign.presenters`, `campaign.forecast.forecasts`), each error shape of `campaign.api.errors`, and the statuses and
headers of each operation (docs/api.md, "The contract").

The components are JSON Schema written beside the presenters, not serializers: the presenters stay the one place
an answer is made, and the components say what they make. Every answer of a test table and of the fuzz run is
checked against them (tests/api/test_answers_schema.py, tests/fuzz/run_schemathesis.sh), so they cannot drift.

Collections (docs/api.md, "Collections"): a bounded collection is a bare JSON array (rulesets, campaigns, a
campaign's characters, members, invitations, numbered NPCs); an ordered log that grows without bound is a page in an
envelope with its cursor (a character's history `{events, next}`, a campaign's feed `{events, last_position, more}`).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from campaign.api.forecast_schema import FORECAST
from campaign.api.hook_schema import HOOKS
from campaign.models import GM, PLAYER
from rules.answer_schema import (
    ANY_DATA,
    BOOL,
    GAME_DATE,
    INT,
    NUMBER,
    REF,
    SECONDS,
    STR,
    WORDS,
    array,
    nullable,
    obj,
    ref,
)
from rules.registry import get_ruleset, ruleset_slugs

WALL_TIME = nullable({"type": "string", "format": "date-time"})
ROLE = {"type": "string", "enum": [GM, PLAYER]}


# --- the two fields another module types per ruleset --------------------------------------------------------------
# A campaign's `options` and a character's `attributes` are the ruleset's own: declared here, and only here, so that
# their per-ruleset components take these two names' place.
CAMPAIGN_OPTIONS = "CampaignOptions"
CHARACTER_ATTRIBUTES = "CharacterAttributes"
RULESET_FIELDS = {
    CAMPAIGN_OPTIONS: {
        "type": "object",
        "additionalProperties": True,
        "description": "the campaign's options, every one with its value (the ruleset's defaults filled in)",
    },
    CHARACTER_ATTRIBUTES: {
        "type": "object",
        "additionalProperties": True,
        "description": "the character's current attributes, as the ruleset names them",
    },
}


# --- errors (campaign/api/errors.py) ------------------------------------------------------------------------------
ERRORS = {
    "FieldErrors": {
        "type": "object",
        "additionalProperties": array(STR),
        "minProperties": 1,
        "description": "what was refused: each field named (dotted for a nested one, `body` for the body as a whole) "
        "with sentences saying what was expected; nothing was changed",
        "example": {"name": ["expected a name"]},
    },
    "Detail": obj(
        {"detail": STR},
        description="a refusal in one sentence: not logged in (401), not allowed (403), not found (404), too many "
        "requests (429)",
    ),
    "RollNeeded": obj(
        {"needs_roll": ref("RollRequest")},
        description="table dice: the next roll the rules need; send the action again with these dice in `rolls`",
    ),
}
ERRORS["RollRequest"] = obj(
    {
        "name": {"type": "string", "description": "the key of `rolls` to send the dice under"},
        "count": INT,
        "sides": INT,
        "label": STR,
        "why": STR,
        "reading": STR,
        "open_ended": BOOL,
        "success_test": BOOL,
        "prompt": STR,
        "target": INT,
        "target_why": {"type": "string", "description": "how the target was made, when a rule says it"},
    },
    *("target", "target_why"),
)
DESCRIBED = {
    400: ("FieldErrors", "bad input, each field named"),
    401: ("Detail", "no valid token (or session)"),
    403: ("Detail", "the caller may not do this (only a GM may)"),
    404: ("Detail", "no such thing, or not one the caller may see"),
    409: ("FieldErrors", "a conflict: a version, an Idempotency-Key used for another request, a state"),
    422: ("RollNeeded", "table dice: a roll the GM did not give"),
    429: (None, "too many requests: wait the seconds Retry-After says"),
    503: (None, "a service is unavailable (the database, the queue): nothing was written, try again"),
}
# A refusal of the throttles (`Detail`) or of a service's (a field map): both are answered with these statuses.
EITHER = {"anyOf": [ref("Detail"), ref("FieldErrors")]}


# --- users, campaigns, members, invitations ----------------------------------------------------------------------
PEOPLE = {
    "User": obj({"id": INT, "username": STR}),
    "Token": obj({"token": {"type": "string", "description": "send it as `Authorization: Token <token>`"}}),
    "Campaign": obj(
        {
            "id": INT,
            "name": STR,
            "ruleset": {"type": "string", "enum": ruleset_slugs()},
            "options": ref(CAMPAIGN_OPTIONS),
            "game_time": SECONDS,
            "game_date": GAME_DATE,
            "version": nullable(
                {"type": "integer", "description": "the campaign stream's version (GMs; null for a player)"}
            ),
            "role": nullable({**ROLE, "description": "the caller's role in the campaign"}),
        }
    ),
    "Member": obj(
        {
            "username": STR,
            "role": ROLE,
            "status": {"type": "string", "enum": ["member", "invited"]},
            "invitation": {"type": "integer", "description": "the pending invitation (status invited)"},
        },
        "invitation",
    ),
    "InvitationCampaign": obj(
        {"id": INT, "name": STR, "ruleset": {"type": "string", "description": "its title"}}
    ),
    "Invitation": obj(
        {
            "id": INT,
            "campaign": ref("InvitationCampaign"),
            "username": STR,
            "role": ROLE,
            "status": {"type": "string", "enum": ["pending", "accepted", "declined", "cancelled"]},
            "invited_by": nullable(STR),
            "created_at": {"type": "string", "format": "date-time"},
            "characters": array(STR, "the names of the characters that wait for the answer"),
        }
    ),
}


# --- characters ---------------------------------------------------------------------------------------------------
def component_name(slug: str) -> str:
    """A ruleset's part of its components' names: `Shadowrun2GmCharacter`, `Darkfuture...`."""
    return "".join(part.capitalize() for part in slug.split("_"))


def _sheet_name(slug: str, audience: str) -> str:
    """Each ruleset's sheet is declared by its view (`Ruleset.sheet_schemas`); a player's has a component of its
    own only where it differs from the GM's."""
    schemas = get_ruleset(slug).sheet_schemas
    shared = audience == GM or schemas[PLAYER] is schemas[GM]
    return f"{component_name(slug)}{'' if shared else 'Player'}Sheet"


SHEETS = {
    _sheet_name(slug, audience): get_ruleset(slug).sheet_schemas[audience]
    for slug in ruleset_slugs()
    for audience in (GM, PLAYER)
}

CHARACTER_PARTS = {
    "RecoveryItem": obj(
        {
            "what": STR,
            "ends_at": nullable(SECONDS),
            "ends_at_date": GAME_DATE,
            "why": {
                **nullable(STR),
                "description": "with no date yet, why: the roll that will set it, or the care",
            },
            "at_next_advance": {
                **BOOL,
                "description": "true: it ends at the clock's next advance, whatever its length (a Dark Future stun);"
                " `ends_at` is the second the clock then fires it",
            },
        },
        "at_next_advance",
    ),
    "Timer": obj({"due": SECONDS, "due_date": GAME_DATE, "kind": STR, "key": STR, "data": ANY_DATA}),
    "Note": obj({"text": STR, "game_time": SECONDS}),
    "UndoTarget": obj(
        {"version": INT, "type": STR, "game_time": SECONDS, "summary": STR, "by_clock": BOOL},
        description="what undo would take back now",
    ),
}


def character_component(slug: str, audience: str) -> dict[str, Any]:
    """One ruleset's character as `audience` sees it (`presenters.character_json`). A player's has no field the
    rules keep for the GM (death_at, timers, notes, undo)."""
    properties: dict[str, Any] = {
        "id": INT,
        "name": STR,
        "player": nullable({"type": "string", "description": "the player's user name; null: no player"}),
        "ruleset": {"type": "string", "enum": [slug]},
        "version": {
            "type": "integer",
            "description": "the stream's version (GM); for a player, the count of the player's history entries",
        },
        "alive": BOOL,
        "conscious": BOOL,
        "dying": BOOL,
        "attributes": ref(CHARACTER_ATTRIBUTES),
        "retired": BOOL,
        "sheet": ref(_sheet_name(slug, audience)),
        "status": WORDS,
        "symptoms": WORDS,
        "warnings": WORDS,
        "recovery": array(ref("RecoveryItem")),
        "game_time": SECONDS,
    }
    optional: tuple[str, ...] = ()
    if audience == GM:
        properties |= {
            "death_at": nullable(SECONDS),
            "death_at_date": GAME_DATE,
            "timers": array(ref("Timer")),
            "notes": array(ref("Note")),
            "undo": {**nullable(ref("UndoTarget")), "description": "the character's own answer only"},
        }
        optional = ("undo",)
    return obj(properties, *optional)


def _name(slug: str, audience: str) -> str:
    return f"{component_name(slug)}{'Gm' if audience == GM else 'Player'}Character"


def _by_ruleset(audience: str, description: str) -> dict[str, Any]:
    return {
        "oneOf": [ref(_name(slug, audience)) for slug in ruleset_slugs()],
        "discriminator": {
            "propertyName": "ruleset",
            "mapping": {slug: REF + _name(slug, audience) for slug in ruleset_slugs()},
        },
        "description": description,
    }


CHARACTERS = {
    **{_name(slug, who): character_component(slug, who) for slug in ruleset_slugs() for who in (GM, PLAYER)},
    "GmCharacter": _by_ruleset(GM, "a character as a GM sees it, by its ruleset"),
    "PlayerCharacter": _by_ruleset(PLAYER, "a character as its player sees it, by its ruleset"),
    # A GM's view is a player's and more: the first that fits is the caller's (a client tries the GM's first).
    "Character": {
        "anyOf": [ref("GmCharacter"), ref("PlayerCharacter")],
        "description": "a character as the caller may see it: a GM's view or a player's",
    },
}


# --- history, feed, actions ---------------------------------------------------------------------------------------
HISTORY = {
    "HistoryEntry": obj(
        {
            "position": nullable(
                {"type": "integer", "description": "the log's position (GMs; null for a player)"}
            ),
            "stream": STR,
            "character": nullable(INT),
            "version": nullable(
                {
                    "type": "integer",
                    "description": "the entry's version (GM); a player's history numbers its own entries, the feed "
                    "none",
                }
            ),
            "type": STR,
            "game_time": SECONDS,
            "recorded_at": WALL_TIME,
            "actor": nullable({"type": "string", "description": "who recorded it (GMs; null for a player)"}),
            "data": ANY_DATA,
            "voided": {"type": "boolean", "description": "taken back by an undo or a revert"},
        }
    ),
    "HistoryPage": obj(
        {
            "events": array(ref("HistoryEntry"), "newest first"),
            "next": nullable(
                {
                    "oneOf": [INT, STR],
                    "description": "the `before` of the next (older) page: a GM's is a version, a player's an "
                    "opaque cursor; null on the last page",
                }
            ),
        }
    ),
    "Feed": obj(
        {
            "events": array(ref("HistoryEntry"), "in the log's order"),
            "last_position": {
                "oneOf": [INT, STR],
                "description": "the `after` of the next request: a GM's is a log position, a player's an opaque "
                "cursor",
            },
            "more": {"type": "boolean", "description": "a full page: ask again with `after` for the rest"},
        }
    ),
    "ActionAnswer": obj(
        {
            "events": array(ref("HistoryEntry")),
            "character": ref("GmCharacter"),
            "replayed": {
                "type": "boolean",
                "description": "an Idempotency-Key seen before: the first answer again",
            },
            "said": {"type": "string", "description": "what the action did, in the game's words"},
        }
    ),
    "CharacterChanged": obj({"events": array(ref("HistoryEntry")), "character": ref("GmCharacter")}),
}


# --- the clock and jobs -------------------------------------------------------------------------------------------
JOB_STATUS = {"type": "string", "enum": ["queued", "running", "waiting", "stalled", "done", "failed"]}
JOBS = {
    "Upcoming": obj(
        {
            "character": INT,
            "name": STR,
            "kind": STR,
            "what": STR,
            "due": SECONDS,
            "due_date": GAME_DATE,
            "in_seconds": INT,
            "at_next_advance": {
                **BOOL,
                "description": "true: the clock fires it at its next advance, whatever its length (a Dark Future"
                " stun): `in_seconds` is the clock's second, not a wait",
            },
        }
    ),
    "JobRoll": obj(
        {
            "key": {
                "type": "string",
                "description": "what the roll is given under in `POST /api/jobs/{id}/rolls/`, unique among the "
                "rolls asked and the same for the same firing: the character's id and the roll's name, "
                '"9.death_save"; for a roll of one injury among several, the injury too, "9.critical_healing:ch2" '
                "(one character's two rolls of one name at one second)",
            },
            "about": {
                "type": "string",
                "description": 'the injury the roll is about, in words: "critical hit 2 to the chest (lung)"; '
                '"" for a roll of the whole character',
            },
            "character": INT,
            "character_name": STR,
            "name": STR,
            "count": INT,
            "sides": INT,
            "label": STR,
            "game_time": SECONDS,
            "date": {"type": "string", "description": "when the roll is made, in the campaign's calendar"},
        },
        description="the roll a waiting advance asks the GM for, for whom and why",
    ),
    "JobDeath": obj(
        {
            "character": INT,
            "character_name": STR,
            "kind": {"type": "string", "description": "the timer that kills (its kind)"},
            "game_time": SECONDS,
            "date": {"type": "string", "description": "when the death comes, in the campaign's calendar"},
            "what": {"type": "string", "description": "what kills, in the ruleset's words"},
            "saved_by": {
                "type": "string",
                "description": 'what the GM may do instead: "treated", "stabilized"',
            },
        },
        description="the death a waiting advance stopped before (`ask_before_death`)",
    ),
    "ClockJob": obj(
        {
            "id": {"type": "string", "format": "uuid"},
            "campaign": INT,
            "status": JOB_STATUS,
            "message": STR,
            "from": SECONDS,
            "to": SECONDS,
            "reached": SECONDS,
            "progress": NUMBER,
            "events_appended": INT,
            "timers_fired": INT,
            "stop_on": nullable(STR),
            "stopped_because": nullable(STR),
            "error": STR,
            "created_at": WALL_TIME,
            "heartbeat_at": WALL_TIME,
            "finished_at": WALL_TIME,
            "needs_roll": nullable(ref("JobRoll")),
            "needs_rolls": array(
                ref("JobRoll"),
                "every roll the advance waits for (the saves a round asks of several characters, one a "
                "character), `needs_roll` first; empty when it waits for none",
            ),
            "ask_before_death": {
                **BOOL,
                "description": "the advance waits for the GM's yes before a firing that kills",
            },
            "needs_yes": {
                **nullable(ref("JobDeath")),
                "description": "the death the advance waits before: `POST /api/jobs/{id}/go-on/` lets it happen, "
                "`POST /api/jobs/{id}/stop/` ends the advance there; null when it waits for none",
            },
        },
        description="a clock advance",
    ),
    "ImportJob": obj(
        {
            "id": {"type": "string", "format": "uuid"},
            "job": {"type": "string", "format": "uuid", "description": "the id again"},
            "kind": {"type": "string", "enum": ["import"]},
            "status": JOB_STATUS,
            "progress": NUMBER,
            "lines": INT,
            "lines_written": INT,
            "campaign": nullable({"type": "integer", "description": "the new campaign, once done"}),
            "error": STR,
            "created_at": WALL_TIME,
            "finished_at": WALL_TIME,
        },
        description="an import of an export",
    ),
    "Clock": obj(
        {
            "game_time": SECONDS,
            "game_date": GAME_DATE,
            "job": {**nullable(ref("ClockJob")), "description": "the open advance (GMs; null for a player)"},
            "next": array(ref("Upcoming"), "what the clock will do next (GMs only)"),
        },
        "next",
    ),
    "AdvanceAccepted": obj(
        {"job": {"type": "string", "format": "uuid"}, "from": SECONDS, "to": SECONDS, "status": JOB_STATUS},
        description="the advance is under way: GET /api/jobs/{job}/ follows it",
    ),
    "Rewind": obj(
        {
            "job": {"type": "string", "format": "uuid", "description": "the advance taken back"},
            "characters": {"type": "integer", "description": "how many characters had firings taken back"},
            "game_time": SECONDS,
            "game_date": GAME_DATE,
        }
    ),
    "Job": {"oneOf": [ref("ClockJob"), ref("ImportJob")], "description": "a clock advance or an import"},
}


# --- the rulesets -------------------------------------------------------------------------------------------------
ROLL_SPEC = obj(
    {
        "name": STR,
        "count": {"type": "integer", "description": "0: a pool whose size `size` says"},
        "sides": INT,
        "label": STR,
        "help": STR,
        "size": STR,
        "open_ended": BOOL,
    }
)
RULESETS = {
    "RollSpec": ROLL_SPEC,
    "ActionParam": obj(
        {
            "name": STR,
            "kind": STR,
            "label": STR,
            "required": BOOL,
            "default": {"nullable": True, "description": "any JSON value"},
            "choices": WORDS,
            "help": STR,
        }
    ),
    "ActionForm": obj(
        {"label": STR, "help": STR, "params": array(ref("ActionParam")), "rolls": array(ref("RollSpec"))}
    ),
    "Ruleset": obj(
        {
            "slug": {"type": "string", "enum": ruleset_slugs()},
            "title": STR,
            "actions": WORDS,
            "options": ref(CAMPAIGN_OPTIONS),
            "option_help": {"type": "object", "additionalProperties": STR},
            "option_declarations": array(
                ref("OptionDeclaration"),
                "every option, the ruleset's then the shared, as the forms draw them",
            ),
            "attribute_declarations": array(
                ref("AttributeDeclaration"),
                "every attribute a character is made with, as the forms draw them",
            ),
            "forms": {"type": "object", "additionalProperties": ref("ActionForm")},
            "clock_rolls": array(
                ref("RollSpec"), "what the clock rolls (asked of the GM with table_dice all)"
            ),
        }
    ),
}

# Example answers, shown in the docs page (Swagger UI composes a larger answer's example from its parts'); each is
# checked against its component (tests/api/test_answers_schema.py).
EXAMPLES: dict[str, Any] = {
    "Detail": {"detail": "only a GM of this campaign may advance the clock"},
    "RollRequest": {
        "name": "body_check",
        "count": 5,
        "sides": 6,
        "label": "Body check",
        "why": "whether the wound is a critical hit: successes 0 mortal, 1 crippling, 2 critical, 3 or more none",
        "reading": "each die of 4 or more is a success",
        "open_ended": False,
        "success_test": True,
        "prompt": "Body check: roll 5d6, each die of 4 or more is a success",
        "target": 4,
    },
    "User": {"id": 3, "username": "kim"},
    "Token": {"token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"},
    "Campaign": {
        "id": 1,
        "name": "Seattle 2053",
        "ruleset": ruleset_slugs()[0],
        "options": {"table_dice": "none"},
        "game_time": 3600,
        "game_date": "2053-01-01T01:00:00",
        "version": 4,
        "role": "gm",
    },
    "Member": {"username": "kim", "role": "player", "status": "invited", "invitation": 2},
    "Invitation": {
        "id": 2,
        "campaign": {"id": 1, "name": "Seattle 2053", "ruleset": "Shadowrun 2"},
        "username": "kim",
        "role": "player",
        "status": "pending",
        "invited_by": "gm",
        "created_at": "2026-12-01T20:15:00+00:00",
        "characters": ["Ash"],
    },
    "RecoveryItem": {
        "what": "stun damage recovers",
        "ends_at": 7200,
        "ends_at_date": "2053-01-01T02:00:00",
        "why": None,
    },
    "Timer": {"due": 120, "due_date": "2053-01-01T00:02:00", "kind": "death", "key": "death:ch1", "data": {}},
    "Note": {"text": "the sniper was Lone Star", "game_time": 0},
    "UndoTarget": {
        "version": 9,
        "type": "CareChanged",
        "game_time": 0,
        "summary": "Taken into hospital",
        "by_clock": False,
    },
    "HistoryEntry": {
        "position": 41,
        "stream": "character:7",
        "character": 7,
        "version": 3,
        "type": "NoteAdded",
        "game_time": 0,
        "recorded_at": "2026-12-01T20:15:00+00:00",
        "actor": "gm",
        "data": {"text": "the sniper was Lone Star"},
        "voided": False,
    },
    "AdvanceAccepted": {
        "job": "5b0f8c1e-4a0b-4c55-9d1b-2f3e4a5b6c7d",
        "from": 0,
        "to": 7200,
        "status": "queued",
    },
    "Rewind": {
        "job": "5b0f8c1e-4a0b-4c55-9d1b-2f3e4a5b6c7d",
        "characters": 2,
        "game_time": 0,
        "game_date": "2053-01-01T00:00:00",
    },
}
for _name, _example in EXAMPLES.items():
    (ERRORS | PEOPLE | CHARACTER_PARTS | HISTORY | JOBS)[_name]["example"] = _example

COMPONENTS: dict[str, dict[str, Any]] = {
    **RULESET_FIELDS,
    **ERRORS,
    **PEOPLE,
    **SHEETS,
    **CHARACTER_PARTS,
    **CHARACTERS,
    **HISTORY,
    **JOBS,
    **HOOKS,
    **FORECAST,
    **RULESETS,
}


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's post-processing hook: the answers' components into the schema."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in COMPONENTS.items():
        schemas.setdefault(name, schema)
    return result


# Sent with a 429 (a rate, the forecast's budget, a throttle) and with a 503 of an unreachable service
# (campaign/api/errors.py); a 503 of a refused write has none, so it is not required.
RETRY_AFTER = {
    "schema": {"type": "integer", "minimum": 0},
    "description": "the seconds to wait before trying again",
}


def add_retry_after(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's post-processing hook: `Retry-After` declared on every 429 and 503 (drf-spectacular 0.30's
    `OpenApiResponse` takes no headers, and a header parameter would be repeated on every operation)."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for status in ("429", "503"):
                if status in operation.get("responses", {}):
                    operation["responses"][status].setdefault("headers", {})["Retry-After"] = RETRY_AFTER
    return result


# --- the operations' answers --------------------------------------------------------------------------------------
ETAG = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    description="the answer's version: send it back as If-None-Match for a 304 while it has not changed",
    response=[200, 304],
)
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    description="the ETag of an earlier answer: 304 without a body while the character has not changed",
)


def request_example(value: Any, name: str = "request", media_type: str | None = None) -> OpenApiExample:
    """A request body's example; `media_type` for another than JSON (the import's multipart form)."""
    return OpenApiExample(name, value=value, request_only=True, media_type=media_type)


def answer(
    schema: dict[str, Any] | str | None,
    description: str,
    example: Any = None,
    *,
    named: dict[str, Any] | None = None,
) -> OpenApiResponse:
    """An answer's schema (a component's name or a schema) with its example (`campaign.api.examples`), or several
    `named` ones (a GM's view and a player's)."""
    body = ref(schema) if isinstance(schema, str) else schema
    given = named or ({"answer": example} if example is not None else {})
    examples = [OpenApiExample(name, value=value, response_only=True) for name, value in given.items()]
    return OpenApiResponse(response=body, description=description, examples=examples)


def responses(
    ok: dict[int, OpenApiResponse | tuple[Any, ...]], *errors: int, auth: bool = True
) -> dict[Any, OpenApiResponse]:
    """An operation's answers: `ok` (status: answer), the `errors` it may give, 401 when it needs a token, and the
    statuses any request may meet (429 with Retry-After, 503)."""
    out: dict[Any, OpenApiResponse] = {}
    for code, given in ok.items():
        out[code] = given if isinstance(given, OpenApiResponse) else answer(*given)
    codes = {*errors, 429, 503} | ({401} if auth else set())
    for code in sorted(codes):
        component, description = DESCRIBED[code]
        body = EITHER if component is None else ref(component)
        out[code] = OpenApiResponse(response=body, description=description)
    return out
