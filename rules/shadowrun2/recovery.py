"""Shadowrun 2: what stands between a character and "fit for action" (docs/rules/README.md; docs/recovery.md).

Fit: no wound modifier left from either monitor (a Light level is +1: every box healed, overflow too) and every
critical hit healed, replaced or marked accepted by the GM. Each is an obstacle the party's recovery follows through
the forecast's futures (`rules.forecast.simulate`): its amount is what is left of it, 0 when out of the way. The
party's what-ifs are the forecast's menu (`rules.shadowrun2.forecast`): hospital for all, the medic's treatment,
with the medic's Biotech set to a skill the GM picks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.forecast import Injury, WhatIf
from rules.ruleset import State
from rules.shadowrun2 import forecast as sr
from rules.shadowrun2 import tables as t
from rules.shadowrun2.engine import first_aid_refused, is_active, physical_healing_possible
from rules.shadowrun2.view import OVERFLOW_SAVED_BY, SAVED_BY, death_times
from rules.words import duration, unless

MEDIC_SKILLS = (1, 12)  # the Biotech a what-if's medic may have
CARE = {
    **sr.CARE,
    "crippling": "a crippling hit never heals on its own. It needs a replacement, healing magic, or the GM's Accept",
}


def _hit_in_the_way(hit_id: str) -> Callable[[State], int]:
    def amount(state: State) -> int:
        for hit in state["critical_hits"]:
            if hit["id"] == hit_id:
                return hit["boxes"] if is_active(hit) and not hit.get("accepted") else 0
        return 0

    return amount


def _monitor(name: str, boxes: int) -> str:
    return f"{name} damage ({sr.LEVEL_WORDS[t.LEVEL_BY_BOXES[boxes]]}, {sr._boxes(boxes)})"


def obstacles(state: State) -> list[Injury]:
    """Every active critical hit not accepted, the physical monitor (with overflow) and the stun monitor."""
    found = [
        Injury(
            hit["id"],
            f"the {sr._where(hit)}'s {hit['lethality']} hit ({hit['part']})",
            _hit_in_the_way(hit["id"]),
            t.MONITOR_BOXES,
            sr.hit_care(hit, CARE),
        )
        for hit in state["critical_hits"]
        if is_active(hit) and not hit.get("accepted")
    ]
    physical = state["physical"] + state["physical_overflow"]
    if physical:
        care = None if physical_healing_possible(state) else sr.DEADLY_CARE
        words = _monitor("physical", min(state["physical"], t.MONITOR_BOXES))
        found.append(Injury("physical", words, sr._physical, t.MONITOR_BOXES, care))
    if state["stun"]:
        found.append(Injury("stun", _monitor("stun", state["stun"]), sr._stun, t.MONITOR_BOXES))
    return found


def gm_care(state: State, now: int) -> dict[str, str]:
    """The GM's reasons where they say more than a player's: when each death comes and what stops it (a tester's GM
    read "physical damage (Deadly, 10 boxes): needs care" ten minutes before the character bled out, and nothing of
    the death). A player's never say a time of death (RULES.md, "Player view")."""
    found = {}
    treated = {hit["id"] for hit in state["critical_hits"] if hit["treatment"] is not None}
    for kills, at in death_times(state, now).items():
        when = "at the next advance" if at <= now else f"in about {duration(at - now)}"
        if kills == "overflow":
            found["physical"] = f"bleeds to death {when} {unless(OVERFLOW_SAVED_BY)}. Then {sr.DEADLY_CARE}"
        elif kills not in treated:  # a treatment under way says when it ends, or that the death comes first
            found[kills] = f"a mortal hit kills {when} {unless(SAVED_BY)}"
    return found


HOSPITAL: WhatIf | None = sr.WHAT_IFS["in_hospital"]


def hospital_helps(state: State) -> bool:
    """Whether "everyone in hospital" changes anything for this character: hurt, and not in hospital already."""
    return not state["in_hospital"] and bool(obstacles(state))


def treatment_words(state: State, now: int) -> str | None:
    """What the party's "treat now" what-if (the forecast's: diagnose, treat each Mortal and Critical hit, first
    aid) does for this character, in words after its name; None where it changes nothing: each such hit treated
    already or under treatment, and first aid refused now (RULES.md, `treat` and `first_aid`)."""
    treatable = any(
        is_active(hit)
        and hit["lethality"] in ("mortal", "critical")
        and hit["treatment"] is None
        and not hit["treated"]
        for hit in state["critical_hits"]
    )
    return "treated now" if treatable or first_aid_refused(state, now) is None else None


def treatment(skill: int | None) -> WhatIf:
    """The forecast's treatment now, by a medic of Biotech `skill` (None: the forecast's own medic)."""
    base = sr.WHAT_IFS["treat_now"]
    if skill is None:
        return base

    def actions(state: State) -> list[dict[str, Any]]:
        return [{**action, "skill": skill} for action in base.actions(state)]

    return WhatIf(f"treated now by a medic of Biotech {skill}", 0, actions)


def remedies(state: State, now: int) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Each diagnosed crippling hit not yet accepted: replaced (RULES.md, `replace`), or the GM's Accept; as
    `rules.recovery.Remedy`'s fields."""
    found: list[tuple[str, str, str, dict[str, Any]]] = []
    for hit in state["critical_hits"]:
        if (
            is_active(hit)
            and hit["diagnosed"]
            and hit["lethality"] == "crippling"
            and not hit.get("accepted")
        ):
            replacement = {"type": "replace", "critical_hit": hit["id"], "replacement": "a replacement"}
            found.append(("replace", hit["id"], f"{hit['part']} replaced", replacement))
            accept = {"type": "accept", "critical_hit": hit["id"]}
            found.append(("accept", hit["id"], f"crippled {hit['part']} accepted by the GM", accept))
    return found
