"""The forecast row: 1,000 futures of each ruleset's richest injuries and dearest states, and the GM's panel of
each with its what-ifs."""

from __future__ import annotations

import os
import time
from typing import Any

from django.template.loader import render_to_string

from campaign.models import GM, Campaign, Character
from campaign.web import forecast_panel
from perf.harness.measure import median, profiled
from perf.harness.mixes import FORECAST_DEAREST, FORECAST_INJURIES
from perf.harness.seeding import RICHEST, forecast_state
from rules import forecast as fc

PANEL_TARGET_SECONDS = 0.5  # the GM's forecast panel with its what-ifs (issue 31)


def _case(ruleset: str, case: str, runs: int, repeats: int) -> dict[str, Any]:
    """One state, `repeats` seeds: `runs` futures with the chart (as the API and the page run it), and the GM's
    panel as the character page asks it (the whole what-if menu when a death is in sight, the chart, the
    template), not cached."""
    rules, state = forecast_state(ruleset, case)
    campaign = Campaign(name="bench", ruleset=ruleset, options={}, game_time=0)
    character = Character(campaign=campaign, name=case, state=state)
    times, cpu, panel_times, panel_cpu = [], [], [], []
    for seed in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = fc.forecast(rules, state, 0, player=False, runs=runs, seed=seed)
        fc.chart(result)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        # The panel's seed is the page's own (a digest of the state): each repeat makes the same forecast again.
        started, started_cpu = time.perf_counter(), time.process_time()
        render_to_string("web/forecast.html", forecast_panel.panel_context(character, GM))
        panel_times.append(time.perf_counter() - started)
        panel_cpu.append(time.process_time() - started_cpu)
    return {
        "seconds": median(times),
        "cpu_seconds": median(cpu),
        "panel_seconds": median(panel_times),
        "panel_cpu_seconds": median(panel_cpu),
        "injuries": [item.what for item in result.untreated.items],
        "distinct_futures": len(result.untreated.futures),
    }


def forecast(runs: int, repeats: int, profile: str | None = None) -> dict[str, Any]:
    """`runs` futures of each ruleset's richest injuries and of its dearest states (the harness's mixes), the
    chart included, and the GM's panel of each with its what-ifs: the median of `repeats` seeds each. The figures
    are the slowest case's, of either (the row: 1,000 futures under 200 ms, the panel under 500 ms)."""
    per_ruleset: dict[str, Any] = {}
    with profiled(profile):
        for ruleset in FORECAST_INJURIES:
            cases = {
                case: _case(ruleset, case, runs, repeats)
                for case in (RICHEST, *FORECAST_DEAREST.get(ruleset, {}))
            }
            richest = cases[RICHEST]
            per_ruleset[ruleset] = {
                **{
                    name: max(case[name] for case in cases.values())
                    for name in ("seconds", "cpu_seconds", "panel_seconds", "panel_cpu_seconds")
                },
                "injuries": richest["injuries"],
                "distinct_futures": richest["distinct_futures"],
                "cases": cases,
            }
    rows = per_ruleset.values()
    return {
        "unit": "s",
        **{
            name: max(row[name] for row in rows)
            for name in ("seconds", "cpu_seconds", "panel_seconds", "panel_cpu_seconds")
        },
        "panel_target_seconds": PANEL_TARGET_SECONDS,
        "load_average": os.getloadavg()[:2],
        "runs": runs,
        "repeats": repeats,
        "rulesets": per_ruleset,
    }
