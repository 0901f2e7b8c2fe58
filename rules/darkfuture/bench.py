"""Dark Future: the benchmark mix (rules/bench.py). It has no action mix yet: the action rows play Shadowrun 2 and
Cyberpunk 2020 alone, and a third mix there would change the figures docs/PERFORMANCE.md compares with."""

from __future__ import annotations

from rules.bench import Bench, Injuries

# The richest injuries: two wounds, down to a quarter of CON (a point back a week), a leg disabled.
FORECAST_INJURIES: Injuries = (
    {"con": 12, "skills": {"driver": 3}},
    [
        ({"type": "damage", "weapon_damage": 5}, {"damage": [6], "ko": [1], "stun": [1]}),
        (
            {"type": "damage", "weapon_damage": 6},
            {"damage": [6], "ko": [1], "stun": [1], "limb_check": [6], "limb": [5], "side": [2]},
        ),
    ],
)

BENCH = Bench(
    attributes={},
    actions=[],  # none yet (the docstring)
    forecast_injuries=FORECAST_INJURIES,
    # The dearest state: low CON (10, down to 1: a point back a week) with a leg disabled.
    forecast_dearest={
        "low CON with a disabled leg": ({"con": 10, "skills": {"driver": 3}}, FORECAST_INJURIES[1])
    },
    # Six of the forecast's injuries: their futures roll no die until fit, so six cost about as much as one.
    recovery_party=[FORECAST_INJURIES] * 6,
)
