"""Helpers to write the shape of an answer as OpenAPI 3.0 schema (JSON Schema with `nullable`), as plain data: each
ruleset's view declares its sheet with them (`SHEET_SCHEMA`, `PLAYER_SHEET_SCHEMA`), and the API's components are
written with them (campaign/api/answers.py). Nothing here imports Django."""

from __future__ import annotations

from typing import Any


def obj(properties: dict[str, Any], *optional: str, description: str = "") -> dict[str, Any]:
    """An object whose properties are all present except those named `optional` (a server may add more)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = [name for name in properties if name not in optional]
    if required:
        schema["required"] = required
    if description:
        schema["description"] = description
    return schema


def array(items: dict[str, Any], description: str = "") -> dict[str, Any]:
    return {"type": "array", "items": items, **({"description": description} if description else {})}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema or null (OpenAPI 3.0: a reference takes no siblings, so it is wrapped)."""
    if "$ref" in schema:
        return {"allOf": [schema], "nullable": True}
    return {**schema, "nullable": True}


def mapping(values: dict[str, Any]) -> dict[str, Any]:
    """An object of any keys (locations, skills...), each holding `values`."""
    return {"type": "object", "additionalProperties": values}


INT = {"type": "integer"}
STR = {"type": "string"}
BOOL = {"type": "boolean"}
NUMBER = {"type": "number"}
SECONDS = {"type": "integer", "description": "game seconds since the campaign's start"}
WORDS = array(STR)
ANY_DATA = {"type": "object", "additionalProperties": True}


REF = "#/components/schemas/"


def ref(name: str) -> dict[str, Any]:
    """A reference to the component `name` of the API's schema."""
    return {"$ref": REF + name}


GAME_DATE = nullable(
    {"type": "string", "description": "the in-world date and time (ISO 8601); null past the calendar"}
)
