"""Checks on what a client sent, shared by the API's JSON parser and the web's forms: JSON nested too deep for
anyone to walk, and text no database can store (a NUL, a lone surrogate), refused with a 400 naming the field.

Text that people read as a name or a note has its own rule (rules/text.py), asked field by field where each is
read: by the services for the names of users, campaigns and characters, by the rules for an action's text."""

from typing import Any

from rules.params import RuleError
from rules.text import direction_control

MAX_DEPTH = 32


class NotJSON(ValueError):
    pass


def no_constants(name: str) -> Any:
    """`parse_constant` for `json.loads`: NaN and Infinity are Python's, not JSON, and no column stores them."""
    raise NotJSON(f"{name} is not valid JSON")


def nesting(value: Any, limit: int) -> int:
    """How deep `value` nests, counted up to just past `limit`."""
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


def unstorable(text: str) -> str | None:
    """What in `text` no database can store (PostgreSQL refuses both), or None."""
    if "\x00" in text:
        return "contains a NUL character (\\u0000), which cannot be stored"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone UTF-16 surrogate, which is not valid Unicode text"
    return None


def check_text(value: Any, path: str = "", *, readable: bool = False) -> None:
    """Raise a 400 naming the dotted path of the first key or string that cannot be stored; with `readable`, also
    of the first that holds a right-to-left or left-to-right control (an imported file: all its text is shown)."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            problem = unstorable(item)
            if problem:
                raise RuleError(where or "body", f"the text {problem}")
            if readable and (problem := direction_control(item)):
                raise RuleError(where or "body", problem)
        elif isinstance(item, dict):
            for key, child in item.items():
                name = f"{where}.{key}" if where else str(key)
                problem = unstorable(str(key))
                if problem:
                    raise RuleError(where or "body", f"a key {problem}")
                if readable and (problem := direction_control(str(key))):
                    raise RuleError(where or "body", f"a key: {problem}")
                stack.append((child, name))
        elif isinstance(item, list):
            stack.extend((child, where) for child in item)
