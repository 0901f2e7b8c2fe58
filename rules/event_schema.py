"""What an event's data may hold, described as data, and the one checker that reads the descriptions.

Each ruleset describes its event types next to its rules (`rules/<slug>/events.py`): the fields each type
carries, their kinds and their ranges, and which of them may be missing. The same checker serves every ruleset, so
an import refuses `{"physical": -1000}` or `{"lethality": "immortal"}` naming the field and what was expected, as
the API does for an action's parameters. The engines trust their own events (evolve is total over what decide and
fire write); these descriptions are what lets a file written elsewhere be trusted as much.

A description is a tree of the specs below; `spec.check(value, path, limits)` raises `SchemaError` with the
dotted path of the first field that does not fit. `spec.fits(value, limits)` answers the same question without
building a path or a message: an import asks it of every line, and `check` only of one that does not fit, for
the error. `fits` is never more lenient than `check` (`tests/ledger/test_event_schema.py` compares the two).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.dice import MOST_DICE, MOST_DIE
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
from rules.text import given

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


def _got(value: Any, *, typed: bool = True) -> str:
    """The value an imported file holds, said back in words (`rules.text.given`): "got the text 6" where a number
    was expected, "got immortal" where the value is a name that is not one of the names expected (`typed` False)."""
    return given(value, typed=typed)


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

    def fits(self, value: Any, limits: Limits) -> bool:
        return type(value) is int and self.low <= value <= self.high

    def source(self, build: _Builder, value: str) -> str:
        v = build.name()
        return f"(type({v} := {value}) is int and {self.low!r} <= {v} <= {self.high!r})"


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

    def fits(self, value: Any, limits: Limits) -> bool:
        return (type(value) is int or type(value) is float) and self.low <= value <= self.high

    def source(self, build: _Builder, value: str) -> str:
        v, low, high = build.name(), build.constant(self.low), build.constant(self.high)
        return f"((type({v} := {value}) is int or type({v}) is float) and {low} <= {v} <= {high})"


@dataclass(frozen=True)
class Time:
    """A game second: from 0 to the latest the campaign's calendar allows (`Limits.max_time`)."""

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if type(value) is not int or not 0 <= value <= limits.max_time:
            raise SchemaError(
                path, f"expected a game time in seconds from 0 to {limits.max_time}, got {_got(value)}"
            )

    def fits(self, value: Any, limits: Limits) -> bool:
        return type(value) is int and 0 <= value <= limits.max_time

    def source(self, build: _Builder, value: str) -> str:
        v = build.name()
        return f"(type({v} := {value}) is int and 0 <= {v} <= limits.max_time)"


@dataclass(frozen=True)
class Bool:
    def check(self, value: Any, path: str, limits: Limits) -> None:
        if not isinstance(value, bool):
            raise SchemaError(path, f"expected true or false, got {_got(value)}")

    def fits(self, value: Any, limits: Limits) -> bool:
        return value is True or value is False

    def source(self, build: _Builder, value: str) -> str:
        v = build.name()
        return f"(({v} := {value}) is True or {v} is False)"


@dataclass(frozen=True)
class Text:
    max_length: int = 200

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if not isinstance(value, str) or len(value) > self.max_length:
            raise SchemaError(
                path, f"expected a text of at most {self.max_length} characters, got {_got(value)}"
            )

    def fits(self, value: Any, limits: Limits) -> bool:
        return type(value) is str and len(value) <= self.max_length

    def source(self, build: _Builder, value: str) -> str:
        v = build.name()
        return f"(type({v} := {value}) is str and len({v}) <= {self.max_length!r})"


@dataclass(frozen=True)
class OneOf:
    choices: tuple[Any, ...]

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if isinstance(value, bool) or value not in self.choices:
            names = ", ".join(str(choice) for choice in self.choices)
            raise SchemaError(path, f"expected one of {names}, got {_got(value, typed=False)}")

    def fits(self, value: Any, limits: Limits) -> bool:
        return not isinstance(value, bool) and value in self.choices

    def source(self, build: _Builder, value: str) -> str:
        v, choices = build.name(), build.constant(self.choices)
        return f"(not isinstance({v} := {value}, bool) and {v} in {choices})"


@dataclass(frozen=True)
class Maybe:
    """`spec`, or null."""

    spec: Any

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if value is not None:
            self.spec.check(value, path, limits)

    def fits(self, value: Any, limits: Limits) -> bool:
        return value is None or self.spec.fits(value, limits)

    def source(self, build: _Builder, value: str) -> str:
        v = build.name()
        return f"(({v} := {value}) is None or {build.source(self.spec, v)})"


@dataclass(frozen=True)
class ListOf:
    item: Any
    max_items: int = 100

    def check(self, value: Any, path: str, limits: Limits) -> None:
        if not isinstance(value, list) or len(value) > self.max_items:
            raise SchemaError(path, f"expected a list of at most {self.max_items} items, got {_got(value)}")
        for index, item in enumerate(value):
            self.item.check(item, f"{path}[{index}]", limits)

    def fits(self, value: Any, limits: Limits) -> bool:
        if type(value) is not list or len(value) > self.max_items:
            return False
        fits = self.item.fits
        return all(fits(item, limits) for item in value)

    def source(self, build: _Builder, value: str) -> str:
        v, item = build.name(), build.name()
        each = build.source(self.item, item)
        return f"(type({v} := {value}) is list and len({v}) <= {self.max_items!r} and all({each} for {item} in {v}))"


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

    def fits(self, value: Any, limits: Limits) -> bool:
        if type(value) is not dict or len(value) > self.max_items:
            return False
        fits, key_length = self.value.fits, self.key_length
        return all(len(key) <= key_length and fits(item, limits) for key, item in value.items())

    def source(self, build: _Builder, value: str) -> str:
        v, key, item = build.name(), build.name(), build.name()
        each = f"len({key}) <= {self.key_length!r} and {build.source(self.value, item)}"
        return (
            f"(type({v} := {value}) is dict and len({v}) <= {self.max_items!r}"
            f" and all({each} for {key}, {item} in {v}.items()))"
        )


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

    def fits(self, value: Any, limits: Limits) -> bool:
        # Built on first use, then the instance's own `fits`: later calls go straight to the built function.
        fits = _Builder().function(self)
        object.__setattr__(self, "fits", fits)
        return bool(fits(value, limits))

    def source(self, build: _Builder, value: str) -> str:
        v = build.name()
        required = frozenset(self.fields) - self.optional
        if self.open:  # any other names; with nothing required (any object: every line's data) no test at all
            names = [f"{v}.keys() >= {build.constant(required)}"] if required else []
        elif self.optional:
            names = [
                f"{v}.keys() <= {build.constant(frozenset(self.fields))}",
                f"{v}.keys() >= {build.constant(required)}",
            ]
        else:
            names = [f"{v}.keys() == {build.constant(required)}"]
        each = [
            build.source(spec, f"{v}[{name!r}]")
            if name in required
            else f"({name!r} not in {v} or {build.source(spec, f'{v}[{name!r}]')})"
            for name, spec in self.fields.items()
        ]
        return f"(type({v} := {value}) is dict{''.join(f' and {item}' for item in [*names, *each])})"


class _Builder:
    """Writes a description's `fits` as one Python expression, built once: the checks of every field inline, no
    call per field and no path built. A spec without `source` (one of a caller's own) is called as `spec.fits`."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {}
        self.count = 0

    def name(self) -> str:
        self.count += 1
        return f"_v{self.count}"

    def constant(self, value: Any) -> str:
        name = self.name()
        self.namespace[name] = value
        return name

    def source(self, spec: Any, value: str) -> str:
        if hasattr(spec, "source"):
            return str(spec.source(self, value))
        return f"{self.constant(spec.fits)}({value}, limits)"

    def function(self, spec: Any) -> Any:
        code = f"def fits(value, limits):\n    return bool({self.source(spec, 'value')})\n"
        exec(compile(code, f"<fits of {type(spec).__name__}>", "exec"), self.namespace)
        return self.namespace["fits"]


def event(optional: tuple[str, ...] = (), **fields: Any) -> Obj:
    """An event type's data: these fields and no other."""
    return Obj(fields, frozenset(optional))


DICE = MapOf(ListOf(Int(0, MOST_DIE), max_items=MOST_DICE))
"""The dice an event used, by roll name (`Dice.used`)."""
DICE_LIST = ListOf(Int(0, MOST_DIE), max_items=MOST_DICE)


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
        raise SchemaError(
            "type", f"expected an event type of {ruleset.title} ({known}), got {_got(type_, typed=False)}"
        )
    if isinstance(schema_version, bool) or schema_version not in SCHEMA_VERSIONS:
        versions = ", ".join(str(version) for version in sorted(SCHEMA_VERSIONS))
        raise SchemaError("schema_version", f"expected one of {versions}, got {_got(schema_version)}")
    if isinstance(data, dict) and TABLE_DICE in data:
        # Any firing of the clock may carry the names of the rolls the GM gave it (table dice).
        TABLE_DICE_SPEC.check(data[TABLE_DICE], f"data.{TABLE_DICE}", limits)
        data = {name: value for name, value in data.items() if name != TABLE_DICE}
    if not spec.fits(data, limits):
        spec.check(data, "data", limits)


def check_state(ruleset: Ruleset, state: State, limits: Limits) -> None:
    """The ranges of a replayed state (the monitors and tracks the pages draw)."""
    schema = ruleset.state_schema
    if schema is not None and not schema.fits(state, limits):
        schema.check(state, "state", limits)
