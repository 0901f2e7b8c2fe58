"""Realistic action mixes, one per ruleset: the shapes a GM sends during a fight and its aftermath."""

from __future__ import annotations

from typing import Any

SHADOWRUN2_ATTRIBUTES = {"body": 5, "willpower": 4}
CYBERPUNK2020_ATTRIBUTES = {"body": 6, "luck": 2}

SHADOWRUN2_ACTIONS: list[dict[str, Any]] = [
    {"type": "wound", "severity": "L"},
    {"type": "note", "text": "Took a hit in the alley behind the Matchstick."},
    {"type": "first_aid", "medic": "Doc Wagon", "skill": 5},
    {"type": "wound", "severity": "M", "damage": "stun"},
    {"type": "diagnose", "medic": "Doc Wagon", "skill": 5},
    {"type": "set_care", "in_hospital": True},
    {"type": "heal_magic", "successes": 2, "mode": "damage_only"},
]
CYBERPUNK2020_ACTIONS: list[dict[str, Any]] = [
    {"type": "damage", "damage": 4, "location": "left_arm"},
    {"type": "note", "text": "Knifed outside the Afterlife."},
    {"type": "treat", "skill": "first_aid", "total": 15},
    {"type": "damage", "damage": 3, "kind": "stun"},
    {"type": "treat", "skill": "medical_tech", "total": 18},
]

MIXES: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    "shadowrun2": (SHADOWRUN2_ATTRIBUTES, SHADOWRUN2_ACTIONS),
    "cyberpunk2020": (CYBERPUNK2020_ATTRIBUTES, CYBERPUNK2020_ACTIONS),
}

# The richest injuries the clock has to work through (cyberpunk2020): four 1-point minor wounds (each stops counting
# on its own timer a day later, and at most four are pending), stun damage that heals a point an hour, a torso wound
# and a Medical Tech treatment that heals the track a point per period. The rules give a character at most about
# seven pending timers at once; these fire about twelve times over a game year (200 characters: about 2,400).
CLOCK_RULESET = "cyberpunk2020"
CLOCK_WOUNDS: list[dict[str, Any]] = [
    {"type": "damage", "damage": 1, "location": "left_arm"},
    {"type": "damage", "damage": 1, "location": "right_arm"},
    {"type": "damage", "damage": 1, "location": "left_leg"},
    {"type": "damage", "damage": 1, "location": "right_leg"},
    {"type": "damage", "damage": 3, "kind": "stun"},
    {"type": "damage", "damage": 8, "location": "torso"},
    {"type": "treat", "skill": "medical_tech", "total": 18},
]

# The richest injuries of each ruleset for the forecast row: what makes a future long and full of rolls.
# shadowrun2: a Serious wound with an untreated Critical hit to the chest outside hospital (a Body test every eight
# weeks against TN 11, the Rule of Six), the physical healing stages and a Moderate stun wound (hourly boxes).
# cyberpunk2020: the clock row's wounds (four minor wounds, stun, a torso wound, medical tech).
# darkfuture: two wounds, down to a quarter of CON (a point back a week), a leg disabled.
FORECAST_INJURIES: dict[str, tuple[dict[str, Any], list[tuple[dict[str, Any], dict[str, Any]]]]] = {
    "shadowrun2": (
        SHADOWRUN2_ATTRIBUTES,
        [
            (
                {"type": "wound", "severity": "S"},
                {"body_check": [6, 6, 1, 1, 1], "location": [3, 4], "critical": 2},
            ),
            ({"type": "wound", "severity": "M", "damage": "stun"}, {}),
        ],
    ),
    "cyberpunk2020": (
        CYBERPUNK2020_ATTRIBUTES,
        [
            (action, {"stun_save": [1], "death_save": [1]} if action["type"] == "damage" else {})
            for action in CLOCK_WOUNDS
        ],
    ),
    "darkfuture": (
        {"con": 12, "skills": {"driver": 3}},
        [
            ({"type": "damage", "weapon_damage": 5}, {"damage": [6], "ko": [1], "stun": [1]}),
            (
                {"type": "damage", "weapon_damage": 6},
                {"damage": [6], "ko": [1], "stun": [1], "limb_check": [6], "limb": [5], "side": [2]},
            ),
        ],
    ),
}

# The dearest states of each ruleset for the forecast row (issue 31), beside the richest injuries above: what makes
# the forecast itself, or the GM's panel with its what-ifs, cost the most (docs/forecast.md, "Cost").
# shadowrun2: several undiagnosed Critical hits (a Body test every eight weeks each). Three Medium wounds: the
# slowest untreated forecast. Light, Medium and Serious: Deadly physical damage, so a death is in sight and the
# panel runs the whole menu, whose treated futures then heal the three hits for a year.
# cyberpunk2020: a crippled arm not stabilized (a death save every turn), stunned (a stun save every round) and
# mortal (15 points): body 9 makes the death save fail on a 10 only, so the futures live longest.
# darkfuture: low CON (10, down to 1: a point back a week) with a leg disabled.
_MEDIUM, _LIGHT, _SERIOUS = ({"type": "wound", "severity": severity} for severity in "MLS")
_CRITICAL = {"body_check": [6, 6, 1, 1, 1]}  # Body 5: two successes, a Critical hit
FORECAST_DEAREST: dict[str, dict[str, tuple[dict[str, Any], list[tuple[dict[str, Any], dict[str, Any]]]]]] = {
    "shadowrun2": {
        "three undiagnosed critical hits": (
            SHADOWRUN2_ATTRIBUTES,
            [
                (_MEDIUM, {**_CRITICAL, "location": [3, 4], "critical": 2}),
                (_MEDIUM, {**_CRITICAL, "location": [4, 5], "critical": 1}),
                (_MEDIUM, {**_CRITICAL, "location": [5, 5], "critical": 4}),
            ],
        ),
        "three undiagnosed critical hits, deadly damage": (
            SHADOWRUN2_ATTRIBUTES,
            [
                (_LIGHT, {**_CRITICAL, "location": [3, 4], "critical": 2}),
                (_MEDIUM, {**_CRITICAL, "location": [4, 5], "critical": 1}),
                (_SERIOUS, {**_CRITICAL, "location": [5, 5], "critical": 4}),
            ],
        ),
    },
    "cyberpunk2020": {
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
    },
    "darkfuture": {
        "low CON with a disabled leg": (
            {"con": 10, "skills": {"driver": 3}},
            FORECAST_INJURIES["darkfuture"][1],
        ),
    },
}

# The recovery row's parties (docs/recovery.md, "Cost"): six injured characters of each ruleset after a fight.
# shadowrun2: the forecast row's richest injuries (an untreated Critical hit outside hospital, the dearest), a
# Critical hit and a Serious wound in hospital, a Serious wound in hospital, a Moderate wound with Light stun, a
# Light wound and a Moderate stun wound. cyberpunk2020 and darkfuture: six of the forecast row's injuries (their
# futures roll no die until fit, so six cost about as much as one).
_SR_WOUND = {"body_check": [6, 6, 6, 6, 6]}  # 5 successes of Body 5: no critical hit
_SR_CRITICAL = {"body_check": [6, 6, 1, 1, 1], "location": [3, 4], "critical": 2}  # the chest's ribs
_HOSPITAL = ({"type": "set_care", "in_hospital": True}, {})
RECOVERY_PARTY: dict[str, list[tuple[dict[str, Any], list[tuple[dict[str, Any], dict[str, Any]]]]]] = {
    "shadowrun2": [
        FORECAST_INJURIES["shadowrun2"],
        (SHADOWRUN2_ATTRIBUTES, [_HOSPITAL, ({"type": "wound", "severity": "S"}, _SR_CRITICAL)]),
        (SHADOWRUN2_ATTRIBUTES, [_HOSPITAL, ({"type": "wound", "severity": "S"}, _SR_WOUND)]),
        (
            SHADOWRUN2_ATTRIBUTES,
            [
                ({"type": "wound", "severity": "M"}, _SR_WOUND),
                ({"type": "wound", "severity": "L", "damage": "stun"}, {}),
            ],
        ),
        (SHADOWRUN2_ATTRIBUTES, [({"type": "wound", "severity": "L"}, _SR_WOUND)]),
        (SHADOWRUN2_ATTRIBUTES, [({"type": "wound", "severity": "M", "damage": "stun"}, {})]),
    ],
    "cyberpunk2020": [FORECAST_INJURIES["cyberpunk2020"]] * 6,
    "darkfuture": [FORECAST_INJURIES["darkfuture"]] * 6,
}
