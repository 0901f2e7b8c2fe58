"""Cyberpunk 2020: the benchmark mix (rules/bench.py)."""

from __future__ import annotations

from typing import Any

from rules.bench import Bench, Injuries

ATTRIBUTES = {"body": 6, "luck": 2}

ACTIONS: list[dict[str, Any]] = [
    {"type": "damage", "damage": 4, "location": "left_arm"},
    {"type": "note", "text": "Knifed outside the Afterlife."},
    {"type": "treat", "skill": "first_aid", "total": 15},
    {"type": "damage", "damage": 3, "kind": "stun"},
    {"type": "treat", "skill": "medical_tech", "total": 18},
]

# The richest injuries the clock has to work through: four 1-point minor wounds (each stops counting on its own
# timer a day later, and at most four are pending), stun damage that heals a point an hour, a torso wound and a
# Medical Tech treatment that heals the track a point per period. The rules give a character at most about seven
# pending timers at once; these fire about twelve times over a game year (200 characters: about 2,400).
CLOCK_WOUNDS: list[dict[str, Any]] = [
    {"type": "damage", "damage": 1, "location": "left_arm"},
    {"type": "damage", "damage": 1, "location": "right_arm"},
    {"type": "damage", "damage": 1, "location": "left_leg"},
    {"type": "damage", "damage": 1, "location": "right_leg"},
    {"type": "damage", "damage": 3, "kind": "stun"},
    {"type": "damage", "damage": 8, "location": "torso"},
    {"type": "treat", "skill": "medical_tech", "total": 18},
]

# The forecast's richest injuries: the clock's wounds (four minor wounds, stun, a torso wound, medical tech).
FORECAST_INJURIES: Injuries = (
    ATTRIBUTES,
    [
        (action, {"stun_save": [1], "death_save": [1]} if action["type"] == "damage" else {})
        for action in CLOCK_WOUNDS
    ],
)

# The dearest state: a crippled arm not stabilized (a death save every turn), stunned (a stun save every round) and
# mortal (15 points): body 9 makes the death save fail on a 10 only, so the futures live longest.
FORECAST_DEAREST: dict[str, Injuries] = {
    "a bleeding arm, stunned and mortal": (
        {"body": 9, "luck": 2},
        [
            (
                {"type": "damage", "damage": 40, "location": "left_arm"},
                {"sever": [10], "stun_save": [10], "death_save": [1]},
            ),
            (
                {"type": "damage", "damage": 10, "location": "torso"},
                {"stun_save": [10], "death_save": [1]},
            ),
        ],
    ),
}

BENCH = Bench(
    attributes=ATTRIBUTES,
    actions=ACTIONS,
    forecast_injuries=FORECAST_INJURIES,
    forecast_dearest=FORECAST_DEAREST,
    # Six of the forecast's injuries: their futures roll no die until fit, so six cost about as much as one.
    recovery_party=[FORECAST_INJURIES] * 6,
    clock_wounds=CLOCK_WOUNDS,
)
