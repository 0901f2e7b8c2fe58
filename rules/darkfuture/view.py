"""Dark Future: what the GM and a player may see of a character (docs/rules/darkfuture.md). Players see everything of
their own character's wounds; GM notes stay hidden."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from rules import words
from rules.answer_schema import BOOL, INT, STR, WORDS, mapping, nullable, obj
from rules.darkfuture import tables
from rules.darkfuture.engine import (
    CON_RECOVERED,
    DEATH_OCCURRED,
    KNOCK_OUT_ENDED,
    LIMBS_RESTORED,
    NEAR_MISS_TAKEN,
    STUN_ENDED,
    WOUND_TAKEN,
    con_recovery_period,
    knocked_out,
    ko_ends_at,
    stun_ends_at,
    stun_ends_at_next_advance,
    vehicle_driverless,
)
from rules.darkfuture.sheet import band_words
from rules.ruleset import AT_NEXT_ADVANCE, NOTE_ADDED, Event, State, fires_at

# Nothing but GM notes is secret here (README); `death_at` is listed as in every ruleset, though always null.
GM_ONLY = frozenset(("death_at",))


def _limb_text(limb: str) -> str:
    return limb.replace("_", " ")


def _symptoms(state: State) -> list[str]:
    if not state["alive"]:
        return []  # the status says "dead": a body has no symptoms to treat (as in every ruleset)
    symptoms = []
    band_text = tables.BAND_SYMPTOMS[state["band"]]
    if band_text:
        symptoms.append(band_text)
    if state["knocked_out_by_roll"] and state["band"] != tables.BAND_ZERO:
        symptoms.append("Knocked out.")
    if state["stunned"]:
        symptoms.append("Stunned.")
    symptoms.extend(f"{_limb_text(limb).capitalize()} disabled." for limb in state["disabled_limbs"])
    return symptoms


def _recovery(state: State, now: int | None) -> list[dict[str, Any]]:
    if not state["alive"]:
        return []
    # Each date is when the clock fires its timer (`engine.timers`, `fires_at`): a point of CON a period after
    # the last, from where the first fires.
    items = []
    if state["stunned"]:
        stun: dict[str, Any] = {"what": "stun wears off", "ends_at": fires_at(stun_ends_at(state), now)}
        if stun_ends_at_next_advance(state):
            stun[AT_NEXT_ADVANCE] = True  # "at the clock's next advance", never "in 1 s"
        items.append(stun)
    if state["knocked_out_by_roll"]:
        ko_ends = ko_ends_at(state)
        if ko_ends is None:
            items.append({"what": "knocked out: until the GM says they come round", "ends_at": None})
        else:
            items.append({"what": "knocked out: comes round", "ends_at": fires_at(ko_ends, now)})
    con = state["con"]
    if con["current"] < con["initial"] and state["resting_since"] is not None:
        period = con_recovery_period(state)
        first = fires_at(state["resting_since"] + period, now)
        items.append({"what": f"CON {con['current'] + 1} of {con['initial']}", "ends_at": first})
        missing = con["initial"] - con["current"]
        if missing > 1:
            items.append({"what": f"CON back to {con['initial']}", "ends_at": first + (missing - 1) * period})
    items.extend(
        {"what": f"{_limb_text(limb)} disabled: until the GM restores it", "ends_at": None}
        for limb in state["disabled_limbs"]
    )
    return items


def _warnings(state: State) -> list[str]:
    warnings = []
    if state["con"]["initial"] < tables.RECOMMENDED_MINIMUM_CON:
        warnings.append(
            f"{tables.LOW_CON_WARNING}; this character started with {state['con']['initial']} CON"
        )
    if vehicle_driverless(state):
        warnings.append("the vehicle has no driver")
    return warnings


def _status(state: State) -> list[str]:
    if not state["alive"]:
        return ["dead"]
    status = []
    if knocked_out(state):
        status.append("unconscious")
    if state["stunned"]:
        status.append("stunned")
    # Each limb by name, as the page's symptoms say it ("left leg disabled"): "limb disabled" left the GM asking which.
    status.extend(f"{_limb_text(limb)} disabled" for limb in state["disabled_limbs"])
    if vehicle_driverless(state):
        status.append("no driver")
    return status


# The sheet of `sheet` (OpenAPI schema, rules/answer_schema.py): the GM and a player receive the same.
SHEET_SCHEMA = obj(
    {
        "con": obj({"current": INT, "initial": INT}),
        "band": STR,
        "skill_modifier": nullable(STR),
        "skills": mapping(obj({"base": INT, "current": INT})),
        "move": obj({"base": INT, "current": INT}),
        "armour": INT,
        "disabled_limbs": WORDS,
        "driver": BOOL,
        "pedestrian": BOOL,
        "knocked_out": BOOL,
        "stunned": BOOL,
        "safety_limit_mph": nullable(INT),
        "vehicle_driverless": BOOL,
    },
    description="a Dark Future character's sheet",
)
PLAYER_SHEET_SCHEMA = SHEET_SCHEMA


def sheet(state: State) -> dict[str, Any]:
    band_modifiers = tables.BAND_EFFECTS[state["band"]]
    return {
        "con": dict(state["con"]),
        "band": state["band"],
        "skills": copy.deepcopy(state["skills"]),
        "move": dict(state["move"]),
        "safety_limit_mph": state["safety_limit_mph"],
        "knocked_out": knocked_out(state),
        "stunned": state["stunned"],
        "vehicle_driverless": vehicle_driverless(state),
        "disabled_limbs": list(state["disabled_limbs"]),
        "skill_modifier": band_modifiers["skill"],
        "pedestrian": state["attributes"]["pedestrian"],
        "driver": state["attributes"]["driver"],
        "armour": state["attributes"]["armour"],
    }


def status(state: State, now: int | None = None) -> dict[str, Any]:
    """view(state, GM, now)'s alive, conscious, dying and death_at, without building the rest of the view."""
    return {
        "alive": state["alive"],
        "conscious": state["alive"] and not knocked_out(state),
        "dying": False,
        "death_at": None,
    }


def view(state: State, audience: str, now: int | None = None) -> dict[str, Any]:
    result = {
        "alive": state["alive"],
        "conscious": state["alive"] and not knocked_out(state),
        "dying": False,  # nothing in this system bleeds out: below 0 CON is dead at once
        "death_at": None,
        "sheet": sheet(state),
        "status": _status(state),
        "symptoms": _symptoms(state),
        "warnings": _warnings(state),
        "recovery": _recovery(state, now),
    }
    return result


def public_event(event: Event) -> dict[str, Any] | None:
    """Players see everything about their own character's wounds; GM notes stay hidden."""
    if event.type == NOTE_ADDED:
        return None
    return copy.deepcopy(event.data)


def shows(event: Event) -> bool:
    """`public_event(event) is not None` for any event but a note: a player sees every other entry."""
    return event.type != NOTE_ADDED


# What each timer will do, for the GM (the character page's clock, now or in the past).
TIMER_WORDS = {
    "stun_ends": "is no longer stunned",
    "ko_ends": "comes round",
    "con_recovery": "recovers a CON point",
}

# ----------------------------------------------------------------------------------------------------------------
# The game's words for one history entry or an action's answer (rules/words.py). A player reads all of it.


def _attack(data: dict[str, Any]) -> str:
    return (
        f"Damage roll {data['damage_roll']} + weapon {data['weapon_damage']} - armour {data['armour']}"
        f" = {data['result']} (row {data['table_row']})"
    )


def _outcome(data: dict[str, Any]) -> str:
    text = f"CON {data['con_before']} to {data['con_after']}, {band_words(data['band_after'])}"
    if data.get("skills_after"):
        text += "; skills " + ", ".join(
            f"{words.spoken(name)} {value}" for name, value in data["skills_after"].items()
        )
    return text


def _knock_rolls(data: dict[str, Any]) -> list[str]:
    """The KO and stun rolls the wound made, each with what it did ("KO roll 2: stays up; stun roll 5: stunned")."""
    rolls = []
    ko, stun = data.get("ko"), data.get("stun")
    if ko:
        rolls.append(f"KO roll {ko['roll']}: {'knocked out' if data['knocked_out_by_roll'] else 'stays up'}")
    if stun and stun.get("automatic"):
        rolls.append("stunned, no stun roll (a passed KO roll stuns)")
    elif stun:
        rolls.append(f"stun roll {stun['roll']}: {'stunned' if data['stunned_by_wound'] else 'not stunned'}")
    effects = data.get("wound_effects") or []
    if not ko and not stun and (tables.EFFECT_KO in effects or tables.EFFECT_STUN in effects):
        rolls.append("no KO or stun roll: already out cold")
    return rolls


def _limb_roll(data: dict[str, Any]) -> list[str]:
    check = data.get("limb_check")
    if not check:
        return []
    # A roll the table was not asked for (nothing it could roll changed it, rules/dice.py `Dice.unasked`) names no
    # die nobody rolled: 'limb check: no limb disabled (it could not succeed: 7 or more disables a limb, house rule)'.
    certain = check.get("certain") or []
    details = []
    if "limb_check" in certain:
        how = "could not fail" if check["disabled"] else "could not succeed"
        details.append(f"it {how}: {check['target'] + 1} or more disables a limb, house rule")
    said = "limb check" if "limb_check" in certain else f"limb check {check['roll']}"
    if check["disabled"]:
        rolls = [f"{name} roll {check[f'{name}_roll']}" for name in ("limb", "side") if name not in certain]
        details += [", ".join(rolls)] if rolls else []
        done = f"{words.spoken(check['limb'])} disabled"
    else:
        done = "no limb disabled"
    return [f"{said}: {done}" + (f" ({'; '.join(details)})" if details else "")]


def _wound_taken(event: Event) -> str:
    """The wound, then each roll its band made and what it did; then an automatic KO at 0 CON."""
    data = event.data
    text = f"{_attack(data)}: {words.count(data['con_lost'], 'CON point')} lost; {_outcome(data)}."
    rolls = _knock_rolls(data) + _limb_roll(data)
    if rolls:
        text += f" {words.capital('; '.join(rolls))}."
    if data["automatic_ko"]:
        text += " Knocked out."
    return text


def _near_miss_taken(event: Event) -> str:
    data = event.data
    return f"{_attack(data)}: a near miss, no CON lost."


def _death_occurred(event: Event) -> str:
    data = event.data
    return f"Died: CON fell to {data['con']}."


def _knock_out_ended(event: Event) -> str:
    data = event.data
    return (
        "Came round."
        if not data["still_out_at_zero_con"]
        else "Came round from the blow, still out at 0 CON."
    )


def _limbs_restored(event: Event) -> str:
    data = event.data
    return f"Restored: {', '.join(words.spoken(limb) for limb in data['limbs'])}."


def _stun_ended(event: Event) -> str:
    return "The stun wore off."


def _con_recovered(event: Event) -> str:
    data = event.data
    return f"{words.count(data['rest_days'], 'day')} of rest: {_outcome(data)}."


# Each event type's sentence (rules/words.py), as the deciders and evolvers are tables.
SENTENCES: dict[str, Callable[[Event], str]] = {
    WOUND_TAKEN: _wound_taken,
    NEAR_MISS_TAKEN: _near_miss_taken,
    DEATH_OCCURRED: _death_occurred,
    KNOCK_OUT_ENDED: _knock_out_ended,
    LIMBS_RESTORED: _limbs_restored,
    STUN_ENDED: _stun_ended,
    CON_RECOVERED: _con_recovered,
}


# What a notification out of the game says happened, by event type (`rules.ruleset.NOTICE_KINDS`): the events that
# wound or heal. Dying, stabilized, dead and fit for action are read from the states before and after.
NOTICES: dict[str, str] = {
    WOUND_TAKEN: "wounded",
    CON_RECOVERED: "healed",
    LIMBS_RESTORED: "healed",
    DEATH_OCCURRED: "dead",
}


# The sentences of one entry and the GM's answer to an action (rules/words.py).
describe, said = words.speaker(SENTENCES, status)
