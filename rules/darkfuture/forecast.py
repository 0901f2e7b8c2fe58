"""Dark Future: what the recovery forecast follows (`rules.forecast`) and the GM's what-if menu.

Injuries: the CON lost (a point back per `con_recovery_days` of rest, no dice: the forecast is exact), a knock-out
from a roll and each disabled limb (both end only by the GM's action `recover`). Nothing but GM notes is secret in
this ruleset, so a player's forecast simulates the whole state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.darkfuture import tables
from rules.darkfuture.engine import ko_ends_at
from rules.forecast import ForecastRules, Injury, Known, WhatIf
from rules.ruleset import State

KNOCK_OUT_CARE = "a knock-out from a roll lasts until the GM says they come round"
LIMB_CARE = "a disabled limb stays disabled until the GM restores it"


def _con_lost(state: State) -> int:
    con = state["con"]
    return max(0, con["initial"] - con["current"])


def _knocked_out(state: State) -> int:
    return int(state["knocked_out_by_roll"])


def knock_out_care(state: State) -> str | None:
    """Why a knock-out from a roll needs care: it ends by the GM's `recover` alone (RULES.md, "Recovery"), unless
    the campaign's `ko_lasts_seconds` ends it on the clock (then it is dated, like any timer)."""
    return None if ko_ends_at(state) is not None else KNOCK_OUT_CARE


def _limb(limb: str) -> Callable[[State], int]:
    def amount(state: State) -> int:
        return int(limb in state["disabled_limbs"])

    return amount


def injuries(state: State) -> list[Injury]:
    found = []
    con = state["con"]
    lost = _con_lost(state)
    if lost:
        what = f"CON {con['current']} of {con['initial']} ({lost} lost)"
        found.append(Injury("con", what, _con_lost, con["initial"]))
    if state["knocked_out_by_roll"]:
        found.append(Injury("knocked_out", "knocked out", _knocked_out, 1, knock_out_care(state)))
    for limb in tables.LIMBS:
        if limb in state["disabled_limbs"]:
            found.append(Injury(limb, f"{limb.replace('_', ' ')} disabled", _limb(limb), 1, LIMB_CARE))
    return found


def known(state: State) -> Known:
    return Known(state)


def _recover(state: State) -> list[dict[str, Any]]:
    return [
        {
            "type": "recover",
            "knocked_out": state["knocked_out_by_roll"],
            "limbs": list(state["disabled_limbs"]),
        }
    ]


WHAT_IFS = {"recover_now": WhatIf("comes round now, limbs restored", 0, _recover)}

FORECAST = ForecastRules(injuries=injuries, known=known, what_ifs=WHAT_IFS)
