"""Dark Future: what stands between a character and "fit for action" (docs/rules/README.md; docs/recovery.md).

Fit: CON in the 76%+ band, no limb disabled, and not knocked out by a roll (a knock-out from a roll ends by the GM's
`recover` alone, RULES.md "Recovery (house)": the character page's forecast says so, and the party's view agrees;
docs/recovery.md). CON comes back a point per `con_recovery_days` of rest with no dice, so a Dark Future party's
dates are exact. The only care is the GM's `recover` (the forecast's `recover_now`): it brings the knocked out
round and restores the limbs; no medic, no hospital.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.darkfuture import forecast as df
from rules.darkfuture import tables
from rules.darkfuture.engine import con_band
from rules.forecast import Injury, WhatIf
from rules.ruleset import State

MEDIC_SKILLS: tuple[int, int] | None = None  # no medic in Dark Future's menu


def fit_con(initial: int) -> int:
    """The least CON in the 76%+ band for this initial CON."""
    return next(c for c in range(1, initial + 1) if con_band(c, initial) == tables.BAND_76)


def _con_short(state: State) -> int:
    con = state["con"]
    return max(0, fit_con(con["initial"]) - con["current"])


def _knocked_out(state: State) -> int:
    return int(state["knocked_out_by_roll"])


def _limb(limb: str) -> Callable[[State], int]:
    def amount(state: State) -> int:
        return int(limb in state["disabled_limbs"])

    return amount


def obstacles(state: State) -> list[Injury]:
    found = []
    con = state["con"]
    short = _con_short(state)
    if short:
        need = fit_con(con["initial"])
        what = f"CON {con['current']} of {con['initial']} ({need} needed)"
        found.append(Injury("con", what, _con_short, need))
    if state["knocked_out_by_roll"]:
        # The forecast's own words and reason: the two views of one knock-out agree (dated only when the campaign's
        # `ko_lasts_seconds` ends it on the clock).
        found.append(Injury("knocked_out", "knocked out", _knocked_out, 1, df.knock_out_care(state)))
    for limb in tables.LIMBS:
        if limb in state["disabled_limbs"]:
            found.append(Injury(limb, f"the {limb.replace('_', ' ')} disabled", _limb(limb), 1, df.LIMB_CARE))
    return found


HOSPITAL: WhatIf | None = None


def hospital_helps(state: State) -> bool:
    """Dark Future has no hospital."""
    return False


def treatment_words(state: State, now: int) -> str | None:
    """What the GM's `recover` now (the party's "treat now" what-if here: Dark Future has no medic's care) changes
    for this character, in words after its name: the knock-out it ends and the disabled limbs it restores
    ("recovered now (comes round, right arm restored)"). None without either: CON comes back with rest alone."""
    limbs = [limb.replace("_", " ") for limb in tables.LIMBS if limb in state["disabled_limbs"]]
    parts = ["comes round"] if state["knocked_out_by_roll"] else []
    if limbs:
        named = limbs[0] if len(limbs) == 1 else ", ".join(limbs[:-1]) + f" and {limbs[-1]}"
        parts.append(f"{named} restored")
    return f"recovered now ({', '.join(parts)})" if parts else None


def treatment(skill: int | None) -> WhatIf:
    """The GM's `recover` now (the forecast's `recover_now`); Dark Future has no medic's skill."""
    return df.WHAT_IFS["recover_now"]


def remedies(state: State, now: int) -> list[tuple[str, str, str, dict[str, Any]]]:
    """None: a disabled limb comes back with the GM's `recover`, the party's "treat now" what-if."""
    return []
