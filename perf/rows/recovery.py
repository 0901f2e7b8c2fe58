"""The recovery row: the party's recovery of six injured characters of each ruleset, as the GM's page makes it."""

from __future__ import annotations

import time
from typing import Any

from django.core.cache import caches

from campaign.forecast import recovery as rv
from campaign.forecast import recovery_words as rw
from campaign.web import recovery_chart
from perf.harness.measure import median, profiled
from perf.harness.mixes import RECOVERY_PARTY
from perf.harness.seeding import party


def recovery(runs: int, repeats: int, profile: str | None = None) -> dict[str, Any]:
    """The party's recovery of six injured characters of each ruleset at `runs` futures each, as the GM's page
    makes it (campaign.forecast.recovery.party_recovery, then the chart and the answer's words), the median of `repeats`.
    The figure is the slowest ruleset's. The seed is the default one (a digest of the state), as on the page."""
    per_ruleset: dict[str, Any] = {}
    with profiled(profile):
        for ruleset in RECOVERY_PARTY:
            campaign, members = party(ruleset)
            times, cpu = [], []
            for _ in range(repeats):
                # Each repeat simulates the party whole: the characters' futures kept from the one before (a
                # refresh's saving, docs/forecast.md, "Budget") would time a cache read.
                caches[rv.SIMULATIONS].clear()
                started, started_cpu = time.perf_counter(), time.process_time()
                result = rv.party_recovery(campaign, "gm", members, runs=runs)
                recovery_chart.draw(result, {})
                rw.recovery_json(result)
                times.append(time.perf_counter() - started)
                cpu.append(time.process_time() - started_cpu)
            per_ruleset[ruleset] = {
                "seconds": median(times),
                "cpu_seconds": median(cpu),
                "characters": len(members),
                "party": rw.party_text(result, result.party),
                "distinct_futures": sum(len(m.outlook.futures) for m in result.members),
            }
    slowest = max(per_ruleset.values(), key=lambda row: row["seconds"])
    return {
        "unit": "s",
        "seconds": slowest["seconds"],
        "cpu_seconds": slowest["cpu_seconds"],
        "runs": runs,
        "repeats": repeats,
        "rulesets": per_ruleset,
    }
