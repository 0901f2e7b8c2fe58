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

# The recovery party: six after a fight, each dated (treated, bones set: nobody "not without care"), so the row
# times the party's date. Body 6 (BTM -2) and every save passed on a 1 unless said; the medics' totals entered.
_SAVED = {"stun_save": [1], "death_save": [1]}
_FIRST_AID = ({"type": "treat", "skill": "first_aid", "total": 15}, {})  # half a point a day
_MEDICAL_TECH = ({"type": "treat", "skill": "medical_tech", "total": 18}, {})  # a point a day
_DOC = {"medic": "Doc", "total": 15}
RECOVERY_PARTY: list[Injuries] = [
    FORECAST_INJURIES,  # four minor wounds, stun and a torso wound under medical tech
    # 8 points on the torso under first aid: at Light on day 8.
    (ATTRIBUTES, [({"type": "damage", "damage": 10, "location": "torso"}, _SAVED), _FIRST_AID]),
    # A crippled left leg (20: 10 halved less BTM 2 is 8; kept, 6 + 2 + 1 >= 8), stabilized, its bones set: it
    # mends at 6 weeks; the track under medical tech.
    (
        ATTRIBUTES,
        [
            ({"type": "damage", "damage": 20, "location": "left_leg"}, {**_SAVED, "sever": [1]}),
            ({"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", **_DOC}, {}),
            ({"type": "set_bones", "limb": "left_leg", **_DOC}, {}),
            _MEDICAL_TECH,
        ],
    ),
    # Mortal 0 (16 less BTM 2: 14 points), under medical tech: at Light on day 10.
    (ATTRIBUTES, [({"type": "damage", "damage": 16, "location": "torso"}, _SAVED), _MEDICAL_TECH]),
    # 4 points (Light) but stunned (the save failed on a 10): a stun save every round until one passes (6 or less).
    (
        ATTRIBUTES,
        [({"type": "damage", "damage": 6, "location": "torso"}, {"stun_save": [10], "death_save": [1]})],
    ),
    # A blunt blow (12 less BTM 2: 5 stun, 5 real), stunned, the real points under first aid.
    (
        ATTRIBUTES,
        [
            (
                {"type": "damage", "damage": 12, "location": "torso", "kind": "blunt"},
                {"stun_save": [10], "death_save": [1]},
            ),
            _FIRST_AID,
        ],
    ),
]

BENCH = Bench(
    attributes=ATTRIBUTES,
    actions=ACTIONS,
    forecast_injuries=FORECAST_INJURIES,
    forecast_dearest=FORECAST_DEAREST,
    recovery_party=RECOVERY_PARTY,
    clock_wounds=CLOCK_WOUNDS,
)
