"""Shadowrun 2: the benchmark mix (rules/bench.py)."""

from __future__ import annotations

from typing import Any

from rules.bench import Bench, Injuries

ATTRIBUTES = {"body": 5, "willpower": 4}

ACTIONS: list[dict[str, Any]] = [
    {"type": "wound", "severity": "L"},
    {"type": "note", "text": "Took a hit in the alley behind the Matchstick."},
    {"type": "first_aid", "medic": "Doc Wagon", "skill": 5},
    {"type": "wound", "severity": "M", "damage": "stun"},
    {"type": "diagnose", "medic": "Doc Wagon", "skill": 5},
    {"type": "set_care", "in_hospital": True},
    {"type": "heal_magic", "successes": 2, "mode": "damage_only"},
]

# The richest injuries: a Serious wound with an untreated Critical hit to the chest outside hospital (a Body test
# every eight weeks against TN 11, the Rule of Six), the physical healing stages and a Moderate stun wound (hourly
# boxes).
FORECAST_INJURIES: Injuries = (
    ATTRIBUTES,
    [
        (
            {"type": "wound", "severity": "S"},
            {"body_check": [6, 6, 1, 1, 1], "location": [3, 4], "critical": 2},
        ),
        ({"type": "wound", "severity": "M", "damage": "stun"}, {}),
    ],
)

# The dearest states (issue 31): several undiagnosed Critical hits (a Body test every eight weeks each). Three
# Medium wounds: the slowest untreated forecast. Light, Medium and Serious: Deadly physical damage, so a death is in
# sight and the panel runs the whole menu, whose treated futures then heal the three hits for a year.
_MEDIUM, _LIGHT, _SERIOUS = ({"type": "wound", "severity": severity} for severity in "MLS")
_CRITICAL = {"body_check": [6, 6, 1, 1, 1]}  # Body 5: two successes, a Critical hit
FORECAST_DEAREST: dict[str, Injuries] = {
    "three undiagnosed critical hits": (
        ATTRIBUTES,
        [
            (_MEDIUM, {**_CRITICAL, "location": [3, 4], "critical": 2}),
            (_MEDIUM, {**_CRITICAL, "location": [4, 5], "critical": 1}),
            (_MEDIUM, {**_CRITICAL, "location": [5, 5], "critical": 4}),
        ],
    ),
    "three undiagnosed critical hits, deadly damage": (
        ATTRIBUTES,
        [
            (_LIGHT, {**_CRITICAL, "location": [3, 4], "critical": 2}),
            (_MEDIUM, {**_CRITICAL, "location": [4, 5], "critical": 1}),
            (_SERIOUS, {**_CRITICAL, "location": [5, 5], "critical": 4}),
        ],
    ),
}

# The recovery party: the richest injuries above (an untreated Critical hit outside hospital, the dearest), a
# Critical hit and a Serious wound in hospital, a Serious wound in hospital, a Moderate wound with Light stun, a
# Light wound and a Moderate stun wound.
_WOUND = {"body_check": [6, 6, 6, 6, 6]}  # 5 successes of Body 5: no critical hit
_CHEST = {"body_check": [6, 6, 1, 1, 1], "location": [3, 4], "critical": 2}  # the chest's ribs
_HOSPITAL = ({"type": "set_care", "in_hospital": True}, {})
RECOVERY_PARTY: list[Injuries] = [
    FORECAST_INJURIES,
    (ATTRIBUTES, [_HOSPITAL, ({"type": "wound", "severity": "S"}, _CHEST)]),
    (ATTRIBUTES, [_HOSPITAL, ({"type": "wound", "severity": "S"}, _WOUND)]),
    (
        ATTRIBUTES,
        [
            ({"type": "wound", "severity": "M"}, _WOUND),
            ({"type": "wound", "severity": "L", "damage": "stun"}, {}),
        ],
    ),
    (ATTRIBUTES, [({"type": "wound", "severity": "L"}, _WOUND)]),
    (ATTRIBUTES, [({"type": "wound", "severity": "M", "damage": "stun"}, {})]),
]

BENCH = Bench(
    attributes=ATTRIBUTES,
    actions=ACTIONS,
    forecast_injuries=FORECAST_INJURIES,
    forecast_dearest=FORECAST_DEAREST,
    recovery_party=RECOVERY_PARTY,
)
