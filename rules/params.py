"""Reading action parameters, attributes and options with messages that name the field and what was expected.

Every reader raises `RuleError(field, message)`; the API turns it into a 400 `{field: [message]}`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.ruleset import ActionForm, RuleError
from rules.text import unreadable

_MISSING = object()
MAX_INT = 1_000_000
TEXT_LENGTH = 200


def _prefixed(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def require_mapping(value: Any, field: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise RuleError(field, f"expected an object, got {type(value).__name__}")
    return value


def integer(
    params: Mapping[str, Any],
    name: str,
    *,
    default: Any = _MISSING,
    minimum: int | None = None,
    maximum: int | None = MAX_INT,
    prefix: str = "",
) -> int:
    """A whole number; `default` when absent (required when no default is given)."""
    field = _prefixed(prefix, name)
    value = params.get(name, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise RuleError(field, "this field is required: expected a whole number")
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(field, f"expected a whole number, got {value!r}")
    if minimum is not None and value < minimum:
        raise RuleError(field, f"expected a whole number of at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise RuleError(field, f"expected a whole number of at most {maximum}, got {value}")
    return value


def boolean(params: Mapping[str, Any], name: str, *, default: Any = _MISSING, prefix: str = "") -> bool:
    field = _prefixed(prefix, name)
    value = params.get(name, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise RuleError(field, "this field is required: expected true or false")
        return default
    if not isinstance(value, bool):
        raise RuleError(field, f"expected true or false, got {value!r}")
    return value


def choice(
    params: Mapping[str, Any], name: str, choices: Iterable[str], *, default: Any = _MISSING, prefix: str = ""
) -> str:
    field = _prefixed(prefix, name)
    options = list(choices)
    value = params.get(name, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise RuleError(field, f"this field is required: expected one of {', '.join(options)}")
        return default
    if not isinstance(value, str) or value not in options:
        raise RuleError(field, f"expected one of {', '.join(options)}, got {value!r}")
    return value


def text(
    params: Mapping[str, Any],
    name: str,
    *,
    default: Any = _MISSING,
    max_length: int = TEXT_LENGTH,
    prefix: str = "",
    what: str = "a text",
) -> str:
    """A text people will read (`what` names it in the message), stripped; "" when given empty, which the caller
    refuses when the parameter is required."""
    field = _prefixed(prefix, name)
    value = params.get(name, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise RuleError(field, "this field is required: expected a text")
        return default
    if not isinstance(value, str):
        raise RuleError(field, f"expected a text, got {value!r}")
    value = value.strip()
    if len(value) > max_length:
        raise RuleError(field, f"expected at most {max_length} characters, got {len(value)}")
    if value and (problem := unreadable(value, what)):
        raise RuleError(field, problem)
    return value


def reject_unknown(params: Mapping[str, Any], known: Iterable[str], *, prefix: str = "") -> None:
    """Options and attributes are closed sets: a typo must not be silently ignored."""
    allowed = set(known)
    for name in params:
        if name not in allowed:
            raise RuleError(
                _prefixed(prefix, str(name)), f"unknown field; expected one of {', '.join(sorted(allowed))}"
            )


def reject_unknown_params(form: ActionForm, action: Mapping[str, Any]) -> None:
    """An action's parameters are the closed set its form describes: a misspelt one would silently take its
    default. (Rolls are not: RULES.md has rolls the action does not need ignored.)"""
    reject_unknown(action, ("type", *(param.name for param in form.params)))
