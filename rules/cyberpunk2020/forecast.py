"""Cyberpunk 2020: what the recovery forecast follows (`rules.forecast`) and the GM's what-if menu.

Injuries: the real damage on the wound track, the stun damage, and each crippled limb. Untreated real damage never
heals (CP2020 core) except minor wounds, which stop counting a day after they were taken; a crippled limb needs its
bones set or a replacement, and once set mends on its own `bone_mend_weeks` later. Everything about the player's own
character is visible (docs/rules/cyberpunk2020.md), so a player's forecast simulates the whole state; it never names a
time of death. The what-ifs' medic is the forecast's own (house): TECH `MEDIC_TECH`, skill `MEDIC_SKILL`, plus a d10.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.cyberpunk2020 import tables
from rules.cyberpunk2020.engine import limbs_awaiting_stabilization, wound_level_of
from rules.forecast import ForecastRules, Injury, Known, WhatIf
from rules.ruleset import State

MEDIC = "the forecast's medic"
MEDIC_TECH = 6
MEDIC_SKILL = 4
UNTREATED_CARE = "untreated wounds do not heal: they need first aid or medical tech"
LIMB_CARE = "a crippled limb needs its bones set, or a replacement"
# A severed limb has no bones to set (RULES.md, `set_bones` and `replace_limb`): a replacement alone.
SEVERED_CARE = "a severed limb cannot be set. It needs a replacement"


def _points(count: int) -> str:
    return f"{count} {'point' if count == 1 else 'points'}"


def _damage(state: State) -> int:
    return state["damage"]


def _stun(state: State) -> int:
    return state["stun_damage"]


def _limb(limb: str) -> Callable[[State], int]:
    def amount(state: State) -> int:
        return int(state["locations"][limb]["crippled"])

    return amount


def limb_care(place: dict[str, Any]) -> str:
    """Why a limb crippled or severed, its bones not set, needs care: a severed one only a replacement mends."""
    return SEVERED_CARE if place["severed"] else LIMB_CARE


def injuries(state: State) -> list[Injury]:
    found = []
    damage = state["damage"]
    if damage:
        # Minor wounds heal on their own; anything more waits for a treatment's healing rate.
        untreated = state["healing_skill"] is None and damage > len(state["minor_wounds"])
        level = wound_level_of(damage).replace("_", " ")
        found.append(
            Injury(
                "damage",
                f"wound track: {_points(damage)} ({level})",
                _damage,
                tables.TRACK_MAX,
                UNTREATED_CARE if untreated else None,
            )
        )
    if state["stun_damage"]:
        found.append(Injury("stun", f"stun damage: {_points(state['stun_damage'])}", _stun, tables.TRACK_MAX))
    for limb in tables.LIMBS:
        place = state["locations"][limb]
        if place["crippled"]:
            # Bones set mend on their own (the `bone_mend` timer): dated, not "not without care".
            care = None if place.get("mends_at") is not None else limb_care(place)
            how = "severed" if place["severed"] else "crippled"
            found.append(Injury(limb, f"{how} {limb.replace('_', ' ')}", _limb(limb), 1, care))
    return found


def known(state: State) -> Known:
    return Known(state)


def _medic(skill: str, **extra: Any) -> dict[str, Any]:
    return {"medic": MEDIC, "skill": skill, "tech": MEDIC_TECH, "skill_level": MEDIC_SKILL, **extra}


def _care(skill: str) -> Callable[[State], list[dict[str, Any]]]:
    def actions(state: State) -> list[dict[str, Any]]:
        """Stop the dying (the doctor skill only), stabilize each bleeding limb, then treat the wounds."""
        stabilize = [
            _medic(skill, type="stabilize", target=f"limb:{limb}")
            for limb in limbs_awaiting_stabilization(state)
        ]
        return [_medic(skill, type="stabilize", target="dying"), *stabilize, _medic(skill, type="treat")]

    return actions


WHAT_IFS = {
    "treat_now": WhatIf("treated now", 0, _care("medical_tech")),
    "treat_in_5_min": WhatIf("treated in 5 min", 5 * 60, _care("medical_tech")),
    "treat_in_10_min": WhatIf("treated in 10 min", 10 * 60, _care("medical_tech")),
    "first_aid_now": WhatIf("first aid now", 0, _care("first_aid")),
}

FORECAST = ForecastRules(injuries=injuries, known=known, what_ifs=WHAT_IFS)
