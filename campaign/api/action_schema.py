"""The OpenAPI schema of an action's body, written from the rulesets' form descriptions: the same `Param`s the rules
read an action's parameters with (`rules.params.read_params`), bounds included, so the two cannot drift apart.

One schema per ruleset and action, offered as `anyOf`: an action's name alone does not say its parameters
(`damage` is Cyberpunk 2020's or Dark Future's, by the character's campaign).
"""

from __future__ import annotations

from typing import Any

from rules.registry import get_ruleset, ruleset_slugs
from rules.ruleset import NOTE_LENGTH, ActionForm, Param, RollSpec


def param_schema(param: Param) -> dict[str, Any]:
    schema: dict[str, Any]
    if param.kind == "int":
        schema = {"type": "integer"}
        if param.minimum is not None:
            schema["minimum"] = param.minimum
        if param.maximum is not None:
            schema["maximum"] = param.maximum
    elif param.kind == "bool":
        schema = {"type": "boolean"}
    elif param.kind == "choice":
        schema = {"type": "string", "enum": list(param.choices)}
    elif param.kind == "choices":
        schema = {"type": "array", "items": {"type": "string", "enum": list(param.choices)}}
        if param.repeated:
            schema["uniqueItems"] = True
    elif param.kind == "text":
        schema = {"type": "string", "maxLength": param.max_length}
        if param.blank:
            schema["pattern"] = r"\S"
    elif param.kind == "textarea":
        schema = {"type": "string", "maxLength": NOTE_LENGTH, "pattern": r"\S"}
    elif param.kind == "id":
        schema = {"type": "string", "description": param.means} if param.means else {"type": "string"}
    elif param.kind == "json":
        schema = {"type": "object"}
    elif param.kind == "amounts":
        schema = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
    else:
        raise ValueError(f"parameter {param.name}: no schema for kind {param.kind!r}")
    if param.default is not None:
        schema["default"] = list(param.default) if isinstance(param.default, tuple) else param.default
    described = ". ".join(text.rstrip(".") for text in (param.label, param.api_help) if text)
    if described:
        schema["description"] = ". ".join(filter(None, (described, schema.get("description"))))
    return schema


def roll_schema(roll: RollSpec) -> dict[str, Any]:
    if roll.count:
        dice = "die" if roll.count == 1 else "dice"
        return {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": roll.sides},
            "minItems": roll.count,
            "maxItems": roll.count,
            "description": f"{roll.label}: {roll.count} {dice} of 1-{roll.sides}",
        }
    # A pool: as many dice as the test takes, each entered as its total (a Rule of Six total may pass the sides).
    return {
        "type": "array",
        "items": {"type": "integer", "minimum": 1},
        "description": f"{roll.label}: the pool's dice, each its total",
    }


def action_schema(ruleset: str, action: str, form: ActionForm) -> dict[str, Any]:
    rolls: dict[str, Any] = {
        "type": "object",
        "properties": {roll.name: roll_schema(roll) for roll in form.rolls},
        "description": "The GM's dice by roll name; a roll not given is rolled by the server (with the campaign's "
        "table_dice, asked for: a 422 names the next roll needed), and one the action does not need is ignored "
        "if it could be right (a 400 otherwise).",
    }
    return {
        "title": f"{ruleset} {action}",
        "description": form.help or form.label,
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": [action]},
            **{param.name: param_schema(param) for param in form.params},
            "rolls": rolls,
            "ask": {
                "type": "boolean",
                "description": "false: with table_dice, the server rolls what is not given instead of asking",
            },
            "expected_version": {
                "type": "integer",
                "minimum": 0,
                "description": "refuse with 409 unless the character is at this version",
            },
        },
        "required": ["type", *(param.name for param in form.params if param.required)],
        "additionalProperties": False,
    }


def actions_schema() -> dict[str, Any]:
    """The body of `POST /api/characters/{id}/actions/`: any one ruleset's action (the character's ruleset's)."""
    return {
        "anyOf": [
            action_schema(slug, action, get_ruleset(slug).action_form(action))
            for slug in ruleset_slugs()
            for action in get_ruleset(slug).all_actions
        ]
    }
