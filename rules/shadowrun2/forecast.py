"""Shadowrun 2: what the recovery forecast follows (`rules.forecast`), what a player may know of it, and the GM's
what-if menu.

Injuries: every active critical hit (its own monitor), the physical monitor (with overflow) and the stun monitor. A
player's forecast leaves out every undiagnosed hit ("unknown until diagnosed"): its healing time or odds would tell
its lethality (docs/rules/shadowrun2.md, "What players see"), and a diagnosed Mortal hit's time of death is never
simulated for a player. The what-ifs' medic is the forecast's own (house): Biotech `MEDIC_SKILL`, a medkit, one
diagnosis and up to `TREATMENT_TRIES` tries at each treatment (a failed one may be tried again at once).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.forecast import ForecastRules, Injury, Known, WhatIf
from rules.ruleset import State, copy_state
from rules.shadowrun2 import tables as t
from rules.shadowrun2.engine import (
    is_active,
    level,
    physical_healing_possible,
)
from rules.shadowrun2.view import death_times

MEDIC = "the forecast's medic"
MEDIC_SKILL = 4
TREATMENT_TRIES = 3
LEVEL_WORDS = t.LEVEL_WORDS
CARE = {
    "mortal": "a mortal hit kills unless it is treated",
    "crippling": "a crippling hit never heals on its own. It needs a replacement or healing magic",
}
DEADLY_CARE = "deadly damage heals only in hospital, once stabilized"
# A Mortal hit under treatment is Crippling when the treatment completes (docs/rules/shadowrun2.md, "Treatment of a
# critical hit"): still not without care. Unless its time of death comes first (the GM's state only: a player's has no
# `death_at`). Short sentences, said after "needs care:" (campaign/forecast/recovery_words.py, `item_text`).
UNDER_TREATMENT = "the treatment under way will leave a crippling hit, which "
DIES_UNDER_TREATMENT = "a mortal hit kills before its treatment completes unless healing magic brings it down"


def hit_care(hit: dict[str, Any], care: dict[str, str]) -> str | None:
    """Why the rules never heal an active hit on its own (`care`: the words by lethality), or None."""
    treatment = hit["treatment"]
    if hit["lethality"] != "mortal" or treatment is None:
        return care.get(hit["lethality"])
    if hit["death_at"] is not None and hit["death_at"] < treatment["completes_at"]:
        return DIES_UNDER_TREATMENT  # at the same second the treatment completes first (its timer's priority)
    return UNDER_TREATMENT + care["crippling"].removeprefix("a crippling hit ")


def _boxes(count: int) -> str:
    return f"{count} {'box' if count == 1 else 'boxes'}"


def _monitor_words(name: str, boxes: int) -> str:
    return f"{name} damage ({LEVEL_WORDS[level(boxes)]}, {_boxes(boxes)})"


def _where(hit: dict[str, Any]) -> str:
    return hit["location"].replace("_", " ")


def _hit_boxes(hit_id: str) -> Callable[[State], int]:
    where = [0]  # the hit's place in the list when last found: asked first (hits are only ever appended)

    def amount(state: State) -> int:
        hits = state["critical_hits"]
        at = where[0]
        if at < len(hits) and (hit := hits[at])["id"] == hit_id:
            return hit["boxes"] if hit["status"] == "active" else 0  # `is_active`: after every firing
        for at, hit in enumerate(hits):
            if hit["id"] == hit_id:
                where[0] = at
                return hit["boxes"] if hit["status"] == "active" else 0
        return 0

    return amount


def _physical(state: State) -> int:
    return state["physical"] + state["physical_overflow"]


def _stun(state: State) -> int:
    return state["stun"]


def injuries(state: State) -> list[Injury]:
    found = [
        Injury(
            hit["id"],
            f"{_where(hit)}, {hit['part']} ({hit['lethality']})",
            _hit_boxes(hit["id"]),
            t.MONITOR_BOXES,
            hit_care(hit, CARE),
        )
        for hit in state["critical_hits"]
        if is_active(hit)
    ]
    if _physical(state):
        care = None if physical_healing_possible(state) else DEADLY_CARE
        found.append(
            Injury(
                "physical", _monitor_words("physical", state["physical"]), _physical, t.MONITOR_BOXES, care
            )
        )
    if state["stun"]:
        found.append(Injury("stun", _monitor_words("stun", state["stun"]), _stun, t.MONITOR_BOXES))
    return found


def known(state: State) -> Known:
    """The state without what a player may not know: undiagnosed hits (named by their location only) and any time
    of death (a diagnosed Mortal hit shows "not without care", never when it kills)."""
    mine = copy_state(state)
    hidden = [hit for hit in mine["critical_hits"] if not hit["diagnosed"]]
    mine["critical_hits"] = [hit for hit in mine["critical_hits"] if hit["diagnosed"]]
    for hit in mine["critical_hits"]:
        hit["death_at"] = None
    mine["failed_diagnoses"] = []
    unknown = [f"a critical hit to the {_where(hit)}" for hit in hidden if is_active(hit)]
    return Known(mine, unknown)


def _medic(**extra: Any) -> dict[str, Any]:
    return {"medic": MEDIC, "skill": MEDIC_SKILL, **extra}


def _first_aid(state: State) -> list[dict[str, Any]]:
    return [_medic(type="first_aid")]


def _treatment(state: State) -> list[dict[str, Any]]:
    """Diagnose every hit, treat each Mortal and Critical one (the rules refuse what the medic cannot do), and give
    first aid to the physical damage."""
    treat = [
        _medic(type="treat", critical_hit=hit["id"])
        for hit in state["critical_hits"]
        if is_active(hit) and hit["lethality"] in ("mortal", "critical")
        for _ in range(TREATMENT_TRIES)
    ]
    return [_medic(type="diagnose"), *treat, *_first_aid(state)]


def _hospital(state: State) -> list[dict[str, Any]]:
    return [{"type": "set_care", "in_hospital": True}]


WHAT_IFS = {
    "treat_now": WhatIf("treated now", 0, _treatment),
    "treat_in_5_min": WhatIf("treated in 5 min", 5 * t.MINUTE, _treatment),
    "treat_in_10_min": WhatIf("treated in 10 min", 10 * t.MINUTE, _treatment),
    "first_aid_now": WhatIf("first aid now", 0, _first_aid),
    "in_hospital": WhatIf("in hospital from now", 0, _hospital),
}

# What can kill on the clock: a Mortal hit's time of death and a Deadly monitor's overflow. No other firing starts
# either (a treatment only lowers a hit's boxes; healing only lowers the monitors): a wound or healing magic, a GM's
# action, does (`tests/rules/test_forecast_settled.py` walks the clock to hold it).
DEADLY = frozenset({"death", "overflow"})


def dies_by(state: State) -> int | None:
    """When the clock alone kills: the overflow box past Body (nothing on the clock stops a running overflow: only
    a GM's first aid or healing magic does, and Deadly damage does not heal while it runs), or a Mortal hit's time
    of death with no treatment under way to complete first (at the same second the treatment completes first).
    None when neither is under way."""
    # The view's times of death (`death_times`), as the state has them: a future starts at the campaign's time,
    # and one due before it is due by any horizon after it all the same.
    deaths = death_times(state, None)
    for hit in state["critical_hits"]:
        treatment = hit["treatment"]
        if hit["id"] in deaths and treatment is not None and treatment["completes_at"] <= deaths[hit["id"]]:
            del deaths[hit["id"]]
    return min(deaths.values(), default=None)


FORECAST = ForecastRules(injuries=injuries, known=known, what_ifs=WHAT_IFS, deadly=DEADLY, dies_by=dies_by)
