"""A ruleset's benchmark mix (`manage.py bench`, perf/): what the bench's rows play of it, declared beside its
contract in `rules/<slug>/bench.py` and read through the registry, so a new ruleset is benchmarked as soon as it
is registered (tests/perf/test_bench.py fails for a ruleset without one).

An action is an API body (`{"type": "wound", ...}`); a step is an action with the dice entered for it (roll name
-> dice, `{}` for the server's); injuries are the attributes of a character and the steps that hurt it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Action = dict[str, Any]
Step = tuple[Action, dict[str, Any]]
Injuries = tuple[dict[str, Any], list[Step]]


@dataclass(frozen=True)
class Bench:
    """What the bench plays of one ruleset.

    attributes and actions: the action rows' mix, the shapes a GM sends during a fight and its aftermath (an empty
    list, said so: the ruleset is left out of the action rows). forecast_injuries: the richest injuries, what makes a
    future long and full of rolls (the forecast row). forecast_dearest: the dearest states by name, what makes the
    forecast or the GM's panel with its what-ifs cost the most (docs/forecast.md, "Cost"). recovery_party: six
    injured characters after a fight (the recovery row, docs/recovery.md). clock_wounds: the richest injuries the
    clock works through (the clock row plays the first ruleset that has them)."""

    attributes: dict[str, Any]
    actions: list[Action]
    forecast_injuries: Injuries
    recovery_party: list[Injuries]
    forecast_dearest: dict[str, Injuries] = field(default_factory=dict)
    clock_wounds: list[Action] = field(default_factory=list)
