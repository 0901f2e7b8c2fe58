"""JSON that is too deep, too big or not JSON is refused with a 400 naming the body; text no database can store
(NUL, lone surrogates) with a 400 naming the field that carries it."""

import json
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from campaign.services import ServiceError

MAX_DEPTH = 32


def _depth(value: Any, limit: int) -> int:
    stack = [(value, 1)]
    deepest = 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _unstorable(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character (\\u0000), which cannot be stored"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone UTF-16 surrogate, which is not valid Unicode text"
    return None


def check_text(value: Any, path: str = "") -> None:
    """Raise a 400 naming the dotted path of the first key or string that cannot be stored."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            problem = _unstorable(item)
            if problem:
                raise ServiceError(where or "body", f"the text {problem}")
        elif isinstance(item, dict):
            for key, child in item.items():
                name = f"{where}.{key}" if where else str(key)
                problem = _unstorable(str(key))
                if problem:
                    raise ServiceError(where or "body", f"a key {problem}")
                stack.append((child, name))
        elif isinstance(item, list):
            stack.extend((child, where) for child in item)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class StrictJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict | None = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ParseError(f"body: the request body is larger than {limit} bytes")
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw.decode("utf-8"), parse_constant=_no_constants)
        except (ValueError, UnicodeDecodeError) as error:
            raise ParseError(f"body: expected a JSON object ({error})") from None
        except RecursionError:
            raise ParseError(f"body: JSON nested deeper than {MAX_DEPTH} levels") from None
        if _depth(data, MAX_DEPTH) > MAX_DEPTH:
            raise ParseError(f"body: JSON nested deeper than {MAX_DEPTH} levels")
        check_text(data)
        return data
