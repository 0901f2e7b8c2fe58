"""`fits`, the import's fast check of a description, answers as `check` does: never yes where `check` refuses.

Every description of every ruleset (events and state), the import's envelope and campaign events: values built
to fit each, then each mutated (a field missing or unknown, a wrong type, a bound crossed, true for a number),
compared one by one. The values are drawn from a seeded generator, so a failure is repeatable."""

from __future__ import annotations

import random
from typing import Any

import pytest

from campaign.transfer import CAMPAIGN_EVENTS, ENVELOPE, LIMITS, AnyValue, GameTime
from rules.event_schema import (
    COMMON_EVENTS,
    Bool,
    Int,
    ListOf,
    MapOf,
    Maybe,
    Num,
    Obj,
    OneOf,
    SchemaError,
    Text,
    Time,
)
from rules.registry import all_rulesets

STRANGE = [None, True, False, 0, -1, 1.5, 10**7, "", "x" * 300, [], {}, [1], {"a": 1}]


def _fitting(spec: Any, rng: random.Random, depth: int = 0) -> Any:
    """A value that fits `spec`."""
    if isinstance(spec, Int):
        return rng.choice([spec.low, spec.high, rng.randint(spec.low, spec.high)])
    if isinstance(spec, Num):
        return rng.choice([spec.low, spec.high, (spec.low + spec.high) / 2])
    if isinstance(spec, Time):
        return rng.choice([0, LIMITS.max_time, rng.randint(0, LIMITS.max_time)])
    if isinstance(spec, GameTime):
        return rng.randint(0, 1000)
    if isinstance(spec, Bool):
        return rng.choice([True, False])
    if isinstance(spec, Text):
        return rng.choice(["", "a", "é" * spec.max_length])
    if isinstance(spec, OneOf):
        return rng.choice(spec.choices)
    if isinstance(spec, Maybe):
        return None if rng.random() < 0.3 else _fitting(spec.spec, rng, depth)
    if isinstance(spec, ListOf):
        return [_fitting(spec.item, rng, depth + 1) for _ in range(rng.randint(0, min(3, spec.max_items)))]
    if isinstance(spec, MapOf):
        return {
            f"k{i}": _fitting(spec.value, rng, depth + 1)
            for i in range(rng.randint(0, min(3, spec.max_items)))
        }
    if isinstance(spec, Obj):
        value = {
            name: _fitting(field, rng, depth + 1)
            for name, field in spec.fields.items()
            if name not in spec.optional or rng.random() < 0.5
        }
        if spec.open and rng.random() < 0.5:
            value["extra"] = 1
        return value
    if isinstance(spec, AnyValue):
        return rng.choice(STRANGE)
    raise AssertionError(f"no generator for {spec!r}")


def _mutated(spec: Any, value: Any, rng: random.Random) -> Any:
    """`value` with one thing changed somewhere inside it (which may or may not still fit)."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        name = rng.choice(list(value))
        field = spec.fields.get(name) if isinstance(spec, Obj) else getattr(spec, "value", None)
        copy = dict(value)
        roll = rng.random()
        if roll < 0.15:
            del copy[name]
        elif roll < 0.25:
            copy["unknown"] = 1
        elif roll < 0.35 and len(name) < 70:
            copy[name + "x" * 64] = copy.pop(name)
        elif field is not None:
            copy[name] = _mutated(field, copy[name], rng)
        else:
            copy[name] = rng.choice(STRANGE)
        return copy
    if isinstance(value, list) and value and rng.random() < 0.7:
        copy = list(value)
        index = rng.randrange(len(copy))
        item = getattr(spec, "item", None)
        copy[index] = _mutated(item, copy[index], rng) if item is not None else rng.choice(STRANGE)
        return copy
    if isinstance(spec, Maybe):
        return _mutated(spec.spec, value, rng)
    if isinstance(spec, Int | Num) and rng.random() < 0.5:
        return rng.choice([spec.low - 1, spec.high + 1, float(spec.low), True, str(spec.low)])
    if isinstance(spec, Text) and rng.random() < 0.5:
        return "y" * (spec.max_length + 1)
    if isinstance(spec, ListOf) and rng.random() < 0.3:
        return [None] * (spec.max_items + 1) if spec.max_items < 2000 else (value or [None])
    return rng.choice(STRANGE)


def _checks(spec: Any, value: Any) -> bool:
    try:
        spec.check(value, "data", LIMITS)
    except SchemaError:
        return False
    return True


def _descriptions() -> list[tuple[str, Any]]:
    found = [("envelope", ENVELOPE)]
    found += [(f"campaign {kind}", spec) for kind, spec in CAMPAIGN_EVENTS.items()]
    found += [(f"common {kind}", spec) for kind, spec in COMMON_EVENTS.items()]
    for ruleset in all_rulesets():
        found += [(f"{ruleset.slug} {kind}", spec) for kind, spec in ruleset.event_schemas.items()]
        if ruleset.state_schema is not None:
            found.append((f"{ruleset.slug} state", ruleset.state_schema))
    return found


@pytest.mark.parametrize(("name", "spec"), _descriptions(), ids=[name for name, _ in _descriptions()])
def test_fits_answers_as_check_does(name: str, spec: Any) -> None:
    rng = random.Random(name)
    refused = 0
    for _ in range(300):
        value = _fitting(spec, rng)
        assert spec.fits(value, LIMITS) and _checks(spec, value), value
        for _ in range(3):
            value = _mutated(spec, value, rng)
            fits = spec.fits(value, LIMITS)
            assert fits == _checks(spec, value), value
            refused += not fits
    assert refused > 0  # the mutations reach what the description refuses
