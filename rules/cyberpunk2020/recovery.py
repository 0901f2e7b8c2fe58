"""Cyberpunk 2020: what stands between a character and "fit for action" (docs/rules/README.md;
docs/recovery.md).

Fit: not dying, the wound track at Light or better (4 points or fewer), not stunned, and no crippled or severed limb
that is neither mended nor replaced. Dying comes first: the clock kills at the time of death unless a doctor
stabilizes the character, so nothing else has a date until then, and the words say no time of death to a player
(docs/rules/cyberpunk2020.md, "What players see"; the GM's say it: `gm_care`). A limb whose bones are set mends on its own when its `bone_mend` timer fires
(`bone_mend_weeks` after the setting), so it is dated; one not yet set needs care. The party's what-ifs are the
forecast's menu (`rules.cyberpunk2020.forecast`): the medic's treatment, with the medic's skill set to a level the GM
picks; and for a crippled limb its bones set or a replacement (`remedies`). Cyberpunk has no hospital of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.cyberpunk2020 import forecast as cp
from rules.cyberpunk2020 import tables
from rules.cyberpunk2020.engine import limbs_awaiting_stabilization, treatment_refused
from rules.cyberpunk2020.view import SAVED_BY, death_at
from rules.forecast import Injury, WhatIf
from rules.ruleset import State
from rules.words import duration, unless

LIGHT = tables.WOUND_LEVELS[0][1]  # the most points still Light
MEDIC_SKILLS = (1, 10)
# The track untreated since a treatment failed (a what-if's medic who failed, as one at the table): the words say so,
# not only that the wounds are untreated. Short sentences, said after "needs care:" (docs/recovery.md).
FAILED_CARE = (
    "the treatment failed, and untreated wounds do not heal. A failed treatment may be tried again {when}"
)


# A dying character (a failed death save from real damage, or a crippled head): first in the way, in words without
# the time of death (a player's), said after "dying: needs to be stabilized.". Short sentences (docs/recovery.md).
DYING_NEED = "needs to be stabilized"
DYING_CARE = "a dying character dies unless a doctor stabilizes them. Only medical tech can"


def _dying(state: State) -> int:
    return int(state["dying"])


def _over_light(state: State) -> int:
    return max(0, state["damage"] - LIGHT)


def _stunned(state: State) -> int:
    return int(state["stunned"])


def _limb(limb: str) -> Callable[[State], int]:
    def amount(state: State) -> int:
        place = state["locations"][limb]
        return int(place["crippled"] or place["severed"])

    return amount


def _untreated_care(state: State) -> str:
    """Why an untreated track over Light needs care: untreated wounds do not heal, and after a failed treatment
    that the treatment failed (when it may be tried again is the campaign's `treatment_retry_days`)."""
    if state["treatment_failed_at"] is None:
        return cp.UNTREATED_CARE
    days = state["options"]["treatment_retry_days"]
    when = "at once" if not days else "1 game day later" if days == 1 else f"{days} game days later"
    return FAILED_CARE.format(when=when)


def uncertain(state: State) -> bool:
    """Whether a roll at the table stands in the way, which the untreated futures do not roll: a stabilization of
    the dying, or the death saves of a crippled limb bleeding. No date is then "certain", even when
    every future of the clock alone is the same (docs/recovery.md, "Exact or sampled")."""
    return bool(state["dying"] or limbs_awaiting_stabilization(state))


def waits_for(state: State) -> str | None:
    """What an undated obstacle waits for, said instead of "still in the way a year from now" (the untreated
    futures of the dying all die): "no date until stabilized"."""
    return f"no date until {SAVED_BY}" if state["dying"] else None


def gm_care(state: State, now: int) -> dict[str, str]:
    """The GM's reason for what needs care, where it says more than the player's: the dying's time of death."""
    if not state["dying"]:
        return {}
    at = death_at(state, now)
    if at is None:
        return {}
    when = "at the next advance" if at <= now else f"in about {duration(at - now)}"
    return {"dying": f"dies {when} {unless(SAVED_BY)}. Only medical tech can stabilize them"}


def obstacles(state: State) -> list[Injury]:
    found = []
    if state["dying"]:
        found.append(Injury("dying", "dying", _dying, 1, DYING_CARE, DYING_NEED))
    over = _over_light(state)
    if over:
        # Minor wounds stop counting a day after they were taken; the rest waits for a treatment's healing rate.
        untreated = state["healing_skill"] is None and state["damage"] - len(state["minor_wounds"]) > LIGHT
        found.append(
            Injury(
                "damage",
                f"the wound track: {cp._points(state['damage'])}, {cp._points(over)} over Light",
                _over_light,
                tables.TRACK_MAX,
                _untreated_care(state) if untreated else None,
            )
        )
    if state["stunned"]:
        found.append(Injury("stunned", "stunned", _stunned, 1))
    for limb in tables.LIMBS:
        place = state["locations"][limb]
        if place["crippled"] or place["severed"]:
            how = "severed" if place["severed"] else "crippled"
            # Bones set mend on their own: the clock's `bone_mend` timer, `bone_mend_weeks` after the setting.
            mending = place.get("mends_at") is not None
            what = f"the {how} {limb.replace('_', ' ')}" + (" (bones set)" if mending else "")
            found.append(Injury(limb, what, _limb(limb), 1, None if mending else cp.limb_care(place)))
    return found


HOSPITAL: WhatIf | None = None


def hospital_helps(state: State) -> bool:
    """Cyberpunk has no hospital of its own."""
    return False


def treatment_words(state: State, now: int) -> str | None:
    """What the party's "treat now" what-if (the forecast's medical tech: stabilize the dying and each crippled
    limb, then treat the wounds) does for this character, in words after its name; None where it changes
    nothing: nobody to stabilize, and the track at Light, or treated by medical tech already (first aid's rate is
    the lower one), or a failed treatment too recent to try again (RULES.md, `stabilize` and `treat`)."""
    stabilize = state["dying"] or bool(limbs_awaiting_stabilization(state))
    heal = (
        _over_light(state) > 0
        and state["healing_skill"] != "medical_tech"
        and treatment_refused(state, now) is None
    )
    return "treated now" if stabilize or heal else None


def treatment(skill: int | None) -> WhatIf:
    """The forecast's medical tech now, by a medic of skill `skill` (None: the forecast's own medic)."""
    base = cp.WHAT_IFS["treat_now"]
    if skill is None:
        return base

    def actions(state: State) -> list[dict[str, Any]]:
        return [{**action, "skill_level": skill} for action in base.actions(state)]

    return WhatIf(f"treated now by a medic of skill {skill}", 0, actions)


def _settable(place: dict[str, Any], now: int) -> bool:
    """Whether the rules would set the limb's bones now (RULES.md, `set_bones`): crippled, not severed, not set
    yet, stabilized, and no failed setting within the day."""
    failed_at = place.get("bone_setting_failed_at")
    return (
        place["crippled"]
        and not place["severed"]
        and place.get("mends_at") is None
        and place["stabilized"]
        and (failed_at is None or now >= failed_at + tables.BONE_SETTING_RETRY)
    )


def remedies(state: State, now: int) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Each crippled limb the rules would set now: its bones set (RULES.md, `set_bones`; the what-if is of the
    setting done, a total at its difficulty, as a replacement is done); and each crippled or severed limb whose
    bones are not mending: replaced (`replace_limb`); as `rules.recovery.Remedy`'s fields."""
    found: list[tuple[str, str, str, dict[str, Any]]] = []
    for limb in tables.LIMBS:
        place = state["locations"][limb]
        spoken = limb.replace("_", " ")
        if _settable(place, now):
            total = {"medic": cp.MEDIC, "total": tables.BONE_SETTING_DIFFICULTY}
            found.append(("set", limb, f"{spoken} set", {"type": "set_bones", "limb": limb, **total}))
        if (place["crippled"] or place["severed"]) and place.get("mends_at") is None:
            action = {"type": "replace_limb", "limb": limb, "replacement": "a replacement"}
            found.append(("replace", limb, f"{spoken} replaced", action))
    return found
