"""The benchmark mixes, read from the registry: each ruleset declares its own beside its contract
(`rules/<slug>/bench.py`, `rules.bench.Bench`), so a registered ruleset is benchmarked without a line here.

The names below are the shapes the rows read, in the registry's order.
"""

from __future__ import annotations

from typing import Any

from rules.bench import Bench, Injuries
from rules.registry import all_rulesets


def _benches() -> dict[str, Bench]:
    benches = {}
    for ruleset in all_rulesets():
        if ruleset.bench is None:
            raise LookupError(
                f"ruleset {ruleset.slug} declares no benchmark mix (rules/{ruleset.slug}/bench.py)"
            )
        benches[ruleset.slug] = ruleset.bench
    return benches


BENCHES = _benches()

# The action rows' mixes: attributes and actions of each ruleset that has an action mix.
MIXES: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    slug: (bench.attributes, bench.actions) for slug, bench in BENCHES.items() if bench.actions
}

# The clock row's ruleset and wounds: the first ruleset whose mix has clock wounds.
CLOCK_RULESET, CLOCK_WOUNDS = next(
    (slug, bench.clock_wounds) for slug, bench in BENCHES.items() if bench.clock_wounds
)

# The forecast row: each ruleset's richest injuries and its dearest states by name.
FORECAST_INJURIES: dict[str, Injuries] = {slug: bench.forecast_injuries for slug, bench in BENCHES.items()}
FORECAST_DEAREST: dict[str, dict[str, Injuries]] = {
    slug: bench.forecast_dearest for slug, bench in BENCHES.items() if bench.forecast_dearest
}

# The recovery row's parties (docs/recovery.md, "Cost"): six injured characters of each ruleset after a fight.
RECOVERY_PARTY: dict[str, list[Injuries]] = {slug: bench.recovery_party for slug, bench in BENCHES.items()}
