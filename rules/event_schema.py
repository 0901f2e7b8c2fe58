"""What an event's data may hold, described as data, and the one checker that reads the descriptions.

Each ruleset describes its event types next to its rules (`rules/<slug>/events.py`): the fields each type
carries, their kinds and their ranges, and which of them may be missing. The same checker serves every ruleset, so
an import refuses `{"physical": -1000}` or `{"lethality": "immortal"}` naming the field and what was expected, as
the API does for an action's parameters. The engines trust their own events (evolve is total over what decide and
fire write); these descriptions are what lets a file written elsewhere be trusted as much.

A description is a tree of the specs below; `check(spec, value, path, limits)` raises `SchemaError` with the
dotted path of the first field that does not fit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.ruleset import (
    ACTION_UNDONE,
    ACTIONS_REVERTED,
    CHARACTER_RESTORED,
    CHARACTER_RETIRED,
    NOTE_ADDED,
    NOTE_LENGTH,
    RuleError,
    Ruleset,
    State,
)

# Numbers an event only reports (dice, targets, modifiers): bounded, so that no file can hold a number no column or
# page can take, but wide enough for any table a campaign may configure.
REPORTED = 1_000_000
# The schema versions an event may carry: every event is at version 1 (no upcaster exists yet).
SCHEMA_VERSIONS = frozenset({1})


_MISSING = object()


class SchemaError(RuleError):
    """Event data that does not fit its description; `field` is the dotted path of the field."""


@dataclass(frozen=True)
class Limits:
    """What the checker cannot know by itself: the latest game second a time in the data may name."""

    max_time: int


def _got(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Int:
    """A whole number from `low` to `high`."""

    low: int = -REPORTED
    high: int = REPORTED

    def check(self, value: Any, path: str, limits: Limits) -> None:
        # `type` rather than isinstance: true and false are ints to Python, not to a file.
        if type(value) is not int or not self.low <= value <= self.high:
            raise SchemaError(
                path, f"expected a whole number from {self.low} to {self.high}, got {_got(value)}"
            )


@dataclass(frozen=True)
class Num:
    """A number (whole or not) from `low` to `high`."""

    low: float
    high: float

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not self.low <= value <= self.high
        ):
            raise SchemaError(path, f"expected a number from {self.low} to {self.high}, got {_got(value)}")


@dataclass(frozen=True)
class Time:
    """A game second: from 0 to the latest the campaign's calendar allows (`Limits.max_time`)."""

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if type(value) is not int or not 0 <= value <= limits.max_time:
            raise SchemaError(
                path, f"expected a game time in seconds from 0 to {limits.max_time}, got {_got(value)}"
            )


@dataclass(frozen=True)
class Bool:
    def check(self, value: Any, path: str, limits: Limits) -> None:
        if not isinstance(value, bool):
            raise SchemaError(path, f"expected true or false, got {_got(value)}")


@dataclass(frozen=True)
class Text:
    max_length: int = 200

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if not isinstance(value, str) or len(value) > self.max_length:
            raise SchemaError(
                path, f"expected a text of at most {self.max_length} characters, got {_got(value)}"
            )


@dataclass(frozen=True)
class OneOf:
    choices: tuple[Any, ...]

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if isinstance(value, bool) or value not in self.choices:
            names = ", ".join(str(choice) for choice in self.choices)
            raise SchemaError(path, f"expected one of {names}, got {_got(value)}")


@dataclass(frozen=True)
class Maybe:
    """`spec`, or null."""

    spec: Any

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if value is not None:
            self.spec.check(value, path, limits)


@dataclass(frozen=True)
class ListOf:
    item: Any
    max_items: int = 100

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if not isinstance(value, list) or len(value) > self.max_items:
            raise SchemaError(path, f"expected a list of at most {self.max_items} items, got {_got(value)}")
        for index, item in enumerate(value):
            self.item.check(item, f"{path}[{index}]", limits)


@dataclass(frozen=True)
class MapOf:
    """An object of named values, each fitting `value` (dice by roll name, skill ratings by skill)."""

    value: Any
    max_items: int = 100
    key_length: int = 64

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if not isinstance(value, dict) or len(value) > self.max_items:
            raise SchemaError(
                path, f"expected an object of at most {self.max_items} fields, got {_got(value)}"
            )
        for key, item in value.items():
            if len(key) > self.key_length:
                raise SchemaError(path, f"expected field names of at most {self.key_length} characters")
            self.value.check(item, f"{path}.{key}", limits)


@dataclass(frozen=True)
class Obj:
    """An object with these fields and no other (unless `open`); the fields in `optional` may be missing."""

    fields: Mapping[str, Any]
    optional: frozenset[str] = field(default_factory=frozenset)
    open: bool = False

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if not isinstance(value, dict):
            raise SchemaError(path, f"expected an object, got {_got(value)}")
        found = 0
        for name, spec in self.fields.items():
            item = value.get(name, _MISSING)
            if item is _MISSING:
                if name in self.optional:
                    continue
                raise SchemaError(f"{path}.{name}" if path else name, "this field is required")
            found += 1
            spec.check(item, f"{path}.{name}" if path else name, limits)
        if not self.open and found != len(value):
            for name in value:
                if name not in self.fields:
                    where = f"{path}.{name}" if path else str(name)
                    raise SchemaError(where, f"unknown field; expected only {', '.join(self.fields)}")


def event(optional: tuple[str, ...] = (), **fields: Any) -> Obj:
    """An event type's data: these fields and no other."""
    return Obj(fields, frozenset(optional))


DICE = MapOf(ListOf(Int(0, 1000), max_items=1000))
"""The dice an event used, by roll name (`Dice.used`)."""
DICE_LIST = ListOf(Int(0, 1000), max_items=1000)


# The events every ruleset shares (`rules.ruleset`): a GM's note, an undo naming the cause it took back, and a
# revert naming every cause after its version.
COMMON_EVENTS = {
    NOTE_ADDED: event(text=Text(NOTE_LENGTH)),
    ACTION_UNDONE: event(
        cause=Text(80),
        versions=ListOf(Int(1, 2**31 - 1), max_items=100_000),
        types=ListOf(Text(64), max_items=100_000),
    ),
    ACTIONS_REVERTED: event(
        optional=("advance",),
        advance=Text(80),
        to_version=Int(0, 2**31 - 1),
        causes=ListOf(Text(80), max_items=100_000),
        versions=ListOf(Int(1, 2**31 - 1), max_items=100_000),
        types=ListOf(Text(64), max_items=100_000),
    ),
    CHARACTER_RETIRED: event(),
    CHARACTER_RESTORED: event(),
}


# The names of the rolls of a clock firing that the GM gave at the table (campaign option table_dice "all"), on the
# firing's first event: what tells a GM's roll from a server's in the history.
TABLE_DICE = "table_dice"
TABLE_DICE_SPEC = ListOf(Text(64), max_items=100)


def character_changed(attributes: Mapping[str, Any], **extra: Any) -> Obj:
    """A CharacterChanged event's data (`rules.kernel.changed_attributes`): the changes, old and new, of the name,
    the player and each attribute that may change (described by `attributes`), and what the ruleset's state takes
    from them (`extra`)."""
    changes = {
        "name": Obj({"old": Text(200), "new": Text(200)}),
        "player": Obj({"old": Maybe(Text(150)), "new": Maybe(Text(150))}),
        **{f"attributes.{name}": Obj({"old": spec, "new": spec}) for name, spec in attributes.items()},
    }
    return event(changes=Obj(changes, optional=frozenset(changes)), **extra)


def check_event(ruleset: Ruleset, type_: Any, schema_version: Any, data: Any, limits: Limits) -> None:
    """An event of `ruleset` as a file holds it: a type the ruleset (or every ruleset) has, a known schema
    version, and data that fits the type's description. Raises `SchemaError` naming the field."""
    spec = COMMON_EVENTS.get(type_) or ruleset.event_schemas.get(type_)
    if spec is None:
        known = ", ".join([*ruleset.event_schemas, *COMMON_EVENTS])
        raise SchemaError("type", f"expected an event type of {ruleset.title} ({known}), got {_got(type_)}")
    if isinstance(schema_version, bool) or schema_version not in SCHEMA_VERSIONS:
        versions = ", ".join(str(version) for version in sorted(SCHEMA_VERSIONS))
        raise SchemaError("schema_version", f"expected one of {versions}, got {_got(schema_version)}")
    if isinstance(data, dict) and TABLE_DICE in data:
        # Any firing of the clock may carry the names of the rolls the GM gave it (table dice).
        TABLE_DICE_SPEC.check(data[TABLE_DICE], f"data.{TABLE_DICE}", limits)
        data = {name: value for name, value in data.items() if name != TABLE_DICE}
    spec.check(data, "data", limits)


def check_state(ruleset: Ruleset, state: State, limits: Limits) -> None:
    """The ranges of a replayed state (the monitors and tracks the pages draw)."""
    if ruleset.state_schema is not None:
        ruleset.state_schema.check(state, "state", limits)
