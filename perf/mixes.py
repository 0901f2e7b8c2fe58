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
