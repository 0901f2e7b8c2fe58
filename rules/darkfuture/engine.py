"""Dark Future: the alternate CON damage system for pedestrians and drivers (docs/rules/darkfuture.md).

A wound rolls 1d6 on the Pedestrian Critical Table (pedestrians add the weapon's damage value, everyone subtracts
body armour) and takes that many CON points. The character's current CON against their initial CON gives the
band, which sets the skill and move modifiers and the drivers' safety limit, and says what is rolled on every
wound taken in it: stun; KO then stun; KO, stun and limb disablement; an automatic KO at 0; death below 0.

Events carry every die, the table row, CON and band before and after and the resulting skills, move and safety
limit, so `evolve` never reads a table.

Clock decisions (the loop "fire the earliest timer, re-read the timers" always ends):
- `stun_ends` (priority 20): stun lasts until the next clock advance (house), so its timer is due one second after
  the wound that stunned; firing it clears the stun and no stun timer is left. Option `stun_lasts_seconds` makes it
  last that many game seconds instead.
- `ko_ends` (priority 30): only with option `ko_lasts_seconds` above 0 (house default 0: a KO from a roll ends by
  action `recover` alone), that many game seconds after the wound that knocked the character out.
- `con_recovery` (priority 50): one CON point per `con_recovery_days` of rest, counted from the latest wound
  (a wound interrupts rest) or the latest point regained. Each firing moves the next one a full period on, and the
  timer disappears once CON is back at its initial value or the character is dead, so a game year costs at most
  365 / con_recovery_days firings.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rules import kernel
from rules.darkfuture import tables
from rules.darkfuture.options import OPTIONS
from rules.darkfuture.sheet import ATTRIBUTES
from rules.dice import Dice, certain_at_least, certain_table, faces_text, target_words
from rules.options import read_options
from rules.ruleset import AT_NEXT_ADVANCE, CHARACTER_CHANGED, Event, RuleError, State, Timer, copy_state
from rules.sheet import read_attributes

SLUG = "darkfuture"

# Event types.
WOUND_TAKEN = "WoundTaken"
NEAR_MISS_TAKEN = "NearMissTaken"
DEATH_OCCURRED = "DeathOccurred"
KNOCK_OUT_ENDED = "KnockOutEnded"
LIMBS_RESTORED = "LimbsRestored"
STUN_ENDED = "StunEnded"
CON_RECOVERED = "ConRecovered"

# Timer kinds.
STUN_ENDS = "stun_ends"
KO_ENDS = "ko_ends"
CON_RECOVERY = "con_recovery"
STUN_ENDS_PRIORITY = 20
KO_ENDS_PRIORITY = 30
CON_RECOVERY_PRIORITY = 50

# Error messages the API and tests rely on.
DEAD = kernel.DEAD
NOTHING_TO_RECOVER = (
    "expected the character to come round from a knock-out or limbs to restore: nothing to recover"
)
NOT_KNOCKED_OUT = "the character is not knocked out"
KNOCKED_OUT_BY_ZERO_CON = "a knock-out at 0 CON ends only when CON rises above 0"
LIMBS_EXPECTED = "expected a list of limbs among left arm, right arm, left leg and right leg"
LIMB_TWICE = "expected each limb once, got {value} twice"


def limb_not_disabled(limb: str) -> str:
    return f"{limb} is not disabled"


# --- Options and attributes ----------------------------------------------------------------------------------


def validate_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options as `OPTIONS` declares them (rules/darkfuture/options.py), each absent one its default."""
    return read_options(OPTIONS, options)


def validate_attributes(attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    """The attributes as `rules/darkfuture/sheet.py` declares them."""
    return read_attributes(ATTRIBUTES, attributes)


# --- Table look-ups ------------------------------------------------------------------------------------------


def critical_table_row(result: int) -> tuple[str, int]:
    """The Pedestrian Critical Table row for a result, as (printed range, CON lost), continued past 13."""
    for low, high, con_lost in tables.CRITICAL_TABLE:
        if (low is None or result >= low) and (high is None or result <= high):
            label = f"<= {high}" if low is None else f"{low}-{high}"
            return label, con_lost
    extra_steps = (result - tables.CONTINUATION_FROM) // tables.CONTINUATION_STEP
    low = tables.CONTINUATION_FROM + extra_steps * tables.CONTINUATION_STEP
    return f"{low}-{low + tables.CONTINUATION_STEP - 1}", tables.CONTINUATION_CON_LOST + extra_steps


def con_band(current: int, initial: int) -> str:
    """The band of current CON out of initial CON: the seed's table for 1-10, percentages above."""
    if current < 0:
        return tables.BAND_DEAD
    if current == 0:
        return tables.BAND_ZERO
    if initial <= tables.TABLE_MAX_INITIAL_CON:
        for band, points in tables.BANDS_BY_INITIAL_CON[initial].items():
            if points is not None and points[0] <= current <= points[1]:
                return band
        raise ValueError(f"CON {current} is not in the band table for initial CON {initial}")
    for band, numerator, denominator in tables.PERCENT_BANDS:
        if current * denominator > initial * numerator:
            return band
    return tables.BAND_01


def reduced_skill(rating: int, band: str) -> int:
    """A skill rating under the band's modifier."""
    modifier = tables.BAND_EFFECTS[band]["skill"]
    if modifier == tables.SKILL_FULL:
        return rating
    if modifier == tables.SKILL_MINUS_ONE:
        return max(0, rating - 1)
    if modifier == tables.SKILL_HALF:
        # Above the seed's table, half rounds half up: 11 -> 6.
        return tables.SKILL_HALF_TABLE.get(rating, (rating + 1) // 2)
    if modifier == tables.SKILL_QUARTER:
        return tables.SKILL_QUARTER_TABLE.get(rating, (rating + 2) // 4)
    return 0


def move_factor(band: str, disabled_limbs: list[str]) -> Fraction:
    """The worst of the band's move factor and a disabled leg's; they never stack."""
    factor = Fraction(*tables.BAND_EFFECTS[band]["move"])
    if any(limb in tables.LEGS for limb in disabled_limbs):
        factor = min(factor, Fraction(*tables.DISABLED_LEG_MOVE))
    return factor


def current_move(base: int, band: str, disabled_limbs: list[str]) -> int:
    return int(base * move_factor(band, disabled_limbs))  # rounds down


def safety_limit_mph(band: str, driver: bool) -> int | None:
    return tables.BAND_EFFECTS[band]["safety_limit_mph"] if driver else None


def band_outcome(state: State, con: int, disabled_limbs: list[str]) -> dict[str, Any]:
    """Everything a CON total decides, ready to copy into an event."""
    initial = state["con"]["initial"]
    band = con_band(con, initial)
    return {
        "con_after": con,
        "band_after": band,
        "skills_after": {name: reduced_skill(skill["base"], band) for name, skill in state["skills"].items()},
        "move_after": current_move(state["move"]["base"], band, disabled_limbs),
        "safety_limit_mph_after": safety_limit_mph(band, state["attributes"]["driver"]),
    }


# --- State ---------------------------------------------------------------------------------------------------


def initial_state(attributes: Mapping[str, Any], options: Mapping[str, Any]) -> State:
    attributes = validate_attributes(attributes)
    options = validate_options(options)
    con = attributes["con"]
    band = con_band(con, con)
    return {
        "ruleset": SLUG,
        "attributes": attributes,
        "options": options,
        "alive": True,
        "con": {"initial": con, "current": con},
        "band": band,
        "skills": {
            name: {"base": rating, "current": rating} for name, rating in attributes["skills"].items()
        },
        "move": {"base": attributes["move"], "current": attributes["move"]},
        "safety_limit_mph": safety_limit_mph(band, attributes["driver"]),
        "knocked_out_by_roll": False,
        "knocked_out_at": None,
        "stunned": False,
        "stunned_at": None,
        "disabled_limbs": [],
        "resting_since": None,
        "notes": [],
    }


def knocked_out(state: State) -> bool:
    return state["alive"] and (state["knocked_out_by_roll"] or state["band"] == tables.BAND_ZERO)


def vehicle_driverless(state: State) -> bool:
    """A driver knocked out, at 0 CON or dead leaves the vehicle with no driver."""
    return state["attributes"]["driver"] and (not state["alive"] or knocked_out(state))


# --- decide --------------------------------------------------------------------------------------------------


def _knock_roll(dice: Dice, name: str, label: str, does: str) -> int:
    """A KO or stun roll: 1d6, over the target number (4 or more) it does what it says."""
    return dice.die(
        name,
        label=label,
        why=f"whether the wound {does}",
        target=tables.KO_STUN_TARGET,
        reading=f"{tables.KO_STUN_TARGET + 1} or more {does.split()[0]}",
    )


def roll_ko_and_stun(band: str, already_out: bool, options: Mapping[str, Any], dice: Dice) -> dict[str, Any]:
    """KO first; only if not knocked out, stun. A character already out cold makes neither roll."""
    effects = tables.BAND_EFFECTS[band]["effects"]
    outcome: dict[str, Any] = {"ko": None, "stun": None, "knocked_out": False, "stunned": False}
    if already_out:
        return outcome
    if tables.EFFECT_KO in effects:
        roll = _knock_roll(dice, "ko", "KO roll", "knocks them out")
        outcome["ko"] = {"roll": roll, "target": tables.KO_STUN_TARGET}
        if roll > tables.KO_STUN_TARGET:
            outcome["knocked_out"] = True
            return outcome
        if options["ko_pass_means_stun"]:
            # The seed's optional rule: nearly knocked out is always shaken.
            outcome["stun"] = {"roll": None, "target": tables.KO_STUN_TARGET, "automatic": True}
            outcome["stunned"] = True
            return outcome
    if tables.EFFECT_STUN in effects:
        roll = _knock_roll(dice, "stun", "Stun roll", "stuns them")
        outcome["stun"] = {"roll": roll, "target": tables.KO_STUN_TARGET, "automatic": False}
        outcome["stunned"] = roll > tables.KO_STUN_TARGET
    return outcome


def roll_limb_disablement(options: Mapping[str, Any], dice: Dice) -> dict[str, Any]:
    target = options.get("limb_check_target", tables.LIMB_CHECK_TARGET)
    check = dice.die(
        "limb_check",
        label="Limb disablement",
        why="whether the wound disables a limb",
        target=target,
        reading=f"{target + 1} or more disables a limb",
        target_why=target_words(("limb disablement", target, True)),
        certain=certain_at_least(target + 1, tables.DAMAGE_DIE_SIDES),  # house rule 0: always; 6: never
    )
    outcome: dict[str, Any] = {
        "roll": check,
        "target": target,
        "disabled": False,
        "limb": None,
    }
    if check > target:
        limbs = tables.limb_by_roll(options.get("limb_arm_up_to", tables.LIMB_ARM_UP_TO))
        sides = tables.side_by_roll(options.get("limb_left_up_to", tables.LIMB_LEFT_UP_TO))
        limb_roll = dice.die(
            "limb",
            label="Which limb",
            why="which limb is disabled",
            reading=faces_text(limbs),
            certain=certain_table(limbs),  # house rule "An arm up to" 0 or 6: always a leg, or an arm
        )
        side_roll = dice.die(
            "side",
            label="Which side",
            why="which side's limb is disabled",
            reading=faces_text(sides),
            certain=certain_table(sides),
        )
        outcome.update(
            disabled=True,
            limb_roll=limb_roll,
            side_roll=side_roll,
            limb=f"{sides[side_roll]}_{limbs[limb_roll]}",
        )
    # The rolls the table was not asked for (nothing it could roll changes them): their words name no die.
    certain = [name for name in ("limb_check", "limb", "side") if name in dice.unasked]
    if certain:
        outcome["certain"] = certain
    return outcome


def take_damage(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    weapon_damage = p["weapon_damage"]
    attributes = state["attributes"]
    added = weapon_damage if attributes["pedestrian"] else 0
    roll = dice.die(
        "damage",
        tables.DAMAGE_DIE_SIDES,
        label="Pedestrian Critical Table",
        why=f"the CON lost: the die + {added} (weapon, pedestrians only) - {attributes['armour']} (armour) on the "
        "Pedestrian Critical Table",
    )
    result = roll + added - attributes["armour"]
    row, con_lost = critical_table_row(result)
    attack = {
        "damage_roll": roll,
        "weapon_damage": weapon_damage,
        "weapon_damage_added": attributes["pedestrian"],
        "armour": attributes["armour"],
        "result": result,
        "table_row": row,
        "con_lost": con_lost,
    }
    if con_lost == 0:
        return [Event(NEAR_MISS_TAKEN, {**attack, "dice": copy.deepcopy(dice.used)}, now)]

    con_before = state["con"]["current"]
    con_after = con_before - con_lost
    band = con_band(con_after, state["con"]["initial"])
    effects = tables.BAND_EFFECTS[band]["effects"]
    checks = roll_ko_and_stun(band, knocked_out(state), state["options"], dice)
    limb_check = roll_limb_disablement(state["options"], dice) if tables.EFFECT_LIMB in effects else None
    disabled_limbs = list(state["disabled_limbs"])
    if limb_check and limb_check["disabled"] and limb_check["limb"] not in disabled_limbs:
        disabled_limbs = sorted([*disabled_limbs, limb_check["limb"]])
    dead = band == tables.BAND_DEAD
    knocked_out_by_roll = (state["knocked_out_by_roll"] or checks["knocked_out"]) and not dead
    stunned = (state["stunned"] or checks["stunned"]) and not dead
    data = {
        **attack,
        "con_before": con_before,
        "band_before": state["band"],
        **band_outcome(state, con_after, disabled_limbs),
        "wound_effects": list(effects),
        "ko": checks["ko"],
        "stun": checks["stun"],
        "limb_check": limb_check,
        "knocked_out_by_roll": checks["knocked_out"],
        "stunned_by_wound": checks["stunned"],
        "automatic_ko": band == tables.BAND_ZERO,
        "knocked_out_by_roll_after": knocked_out_by_roll,
        "stunned_after": stunned,
        "disabled_limbs_after": disabled_limbs,
        "vehicle_driverless_after": attributes["driver"] and (dead or knocked_out_by_roll or con_after == 0),
        "dice": copy.deepcopy(dice.used),
    }
    events = [Event(WOUND_TAKEN, data, now)]
    if dead:
        events.append(Event(DEATH_OCCURRED, {"cause": "con", "con": con_after}, now))
    return events


def recover(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    wake = p["knocked_out"]
    limbs = p["limbs"] or []
    if not wake and not limbs:
        raise RuleError("knocked_out", NOTHING_TO_RECOVER)
    events = []
    if wake:
        if not state["knocked_out_by_roll"]:
            if state["band"] == tables.BAND_ZERO:
                raise RuleError("knocked_out", KNOCKED_OUT_BY_ZERO_CON)
            raise RuleError("knocked_out", NOT_KNOCKED_OUT)
        still_out = state["band"] == tables.BAND_ZERO
        events.append(
            Event(
                KNOCK_OUT_ENDED,
                {
                    "ended_by": "recover",
                    "still_out_at_zero_con": still_out,
                    "vehicle_driverless_after": state["attributes"]["driver"] and still_out,
                },
                now,
            )
        )
    if limbs:
        for limb in limbs:
            if limb not in state["disabled_limbs"]:
                raise RuleError("limbs", limb_not_disabled(limb))
        remaining = [limb for limb in state["disabled_limbs"] if limb not in limbs]
        events.append(
            Event(
                LIMBS_RESTORED,
                {
                    "limbs": limbs,
                    "disabled_limbs_after": remaining,
                    "move_after": current_move(state["move"]["base"], state["band"], remaining),
                },
                now,
            )
        )
    return events


DECIDERS = {"damage": take_damage, "recover": recover}


# --- evolve --------------------------------------------------------------------------------------------------


def _set_band(state: State, data: Mapping[str, Any]) -> None:
    state["con"]["current"] = data["con_after"]
    state["band"] = data["band_after"]
    for name, rating in data["skills_after"].items():
        if name in state["skills"]:
            state["skills"][name]["current"] = rating
    state["move"]["current"] = data["move_after"]
    state["safety_limit_mph"] = data["safety_limit_mph_after"]


def _die(state: State) -> None:
    state.update(
        alive=False,
        stunned=False,
        stunned_at=None,
        knocked_out_by_roll=False,
        knocked_out_at=None,
        resting_since=None,
    )


def _wound_taken(state: State, data: Mapping[str, Any], at: int) -> None:
    _set_band(state, data)
    state["knocked_out_by_roll"] = data["knocked_out_by_roll_after"]
    if data["knocked_out_by_roll"]:
        state["knocked_out_at"] = at
    elif not state["knocked_out_by_roll"]:
        state["knocked_out_at"] = None
    if data["stunned_by_wound"]:
        state["stunned_at"] = at
    state["stunned"] = data["stunned_after"]
    if not state["stunned"]:
        state["stunned_at"] = None
    state["disabled_limbs"] = list(data["disabled_limbs_after"])
    state["resting_since"] = at
    if state["band"] == tables.BAND_DEAD:
        # The state after the wound is already the dead one, so time travel never shows a "living dead".
        _die(state)


def _death_occurred(state: State, data: Mapping[str, Any], at: int) -> None:
    _die(state)


def _knock_out_ended(state: State, data: Mapping[str, Any], at: int) -> None:
    state["knocked_out_by_roll"] = False
    state["knocked_out_at"] = None


def _limbs_restored(state: State, data: Mapping[str, Any], at: int) -> None:
    state["disabled_limbs"] = list(data["disabled_limbs_after"])
    state["move"]["current"] = data["move_after"]


def _stun_ended(state: State, data: Mapping[str, Any], at: int) -> None:
    state["stunned"] = False
    state["stunned_at"] = None


def _con_recovered(state: State, data: Mapping[str, Any], at: int) -> None:
    _set_band(state, data)
    state["resting_since"] = at


def _character_changed(state: State, data: Mapping[str, Any], at: int) -> None:
    kernel.take_attribute_changes(state, data)
    state["skills"] = copy_state(data["skills_after"])
    state["move"] = dict(data["move_after"])
    state["safety_limit_mph"] = data["safety_limit_mph_after"]


# NearMissTaken changes nothing; unknown types are ignored so that evolve stays total.
EVOLVERS = {
    WOUND_TAKEN: _wound_taken,
    DEATH_OCCURRED: _death_occurred,
    KNOCK_OUT_ENDED: _knock_out_ended,
    LIMBS_RESTORED: _limbs_restored,
    STUN_ENDED: _stun_ended,
    CON_RECOVERED: _con_recovered,
    CHARACTER_CHANGED: _character_changed,
}


evolve_into, evolve = kernel.evolution(EVOLVERS)


# --- the clock -----------------------------------------------------------------------------------------------


def con_recovery_period(state: State) -> int:
    return state["options"]["con_recovery_days"] * tables.SECONDS_PER_DAY


def stun_ends_at(state: State) -> int:
    """When a stun wears off (the view's date and the clock's timer alike)."""
    return state["stunned_at"] + max(1, state["options"].get("stun_lasts_seconds", 0))


def stun_ends_at_next_advance(state: State) -> bool:
    """Whether the stun lasts until the clock's next advance (the house default, option `stun_lasts_seconds` 0): its
    second after the wound is the clock's, and people read "at the clock's next advance" (`AT_NEXT_ADVANCE`)."""
    return not state["options"].get("stun_lasts_seconds", 0)


def ko_ends_at(state: State) -> int | None:
    """When a KO from a roll wears off by itself (option `ko_lasts_seconds`); None: when the GM says."""
    ko_lasts = state["options"].get("ko_lasts_seconds", 0)
    if ko_lasts and state["knocked_out_by_roll"] and state.get("knocked_out_at") is not None:
        return state["knocked_out_at"] + ko_lasts
    return None


def timers(state: State) -> list[Timer]:
    if not state["alive"]:
        return []
    pending = []
    if state["stunned"]:
        # The house default, a stun until the next advance, says so (`AT_NEXT_ADVANCE`), never "in 1 s".
        next_advance = {AT_NEXT_ADVANCE: True} if stun_ends_at_next_advance(state) else {}
        pending.append(Timer(stun_ends_at(state), STUN_ENDS, "stun", STUN_ENDS_PRIORITY, next_advance))
    ko_ends = ko_ends_at(state)
    if ko_ends is not None:
        pending.append(Timer(ko_ends, KO_ENDS, "ko", KO_ENDS_PRIORITY))
    con = state["con"]
    if con["current"] < con["initial"] and state["resting_since"] is not None:
        pending.append(
            Timer(
                state["resting_since"] + con_recovery_period(state),
                CON_RECOVERY,
                "con_recovery",
                CON_RECOVERY_PRIORITY,
                {"con": con["current"]},
            )
        )
    return pending


def _stun_ends(state: State, timer: Timer, dice: Dice | None) -> list[Event]:
    return [Event(STUN_ENDED, {}, timer.due)] if state["stunned"] else []


def _ko_ends(state: State, timer: Timer, dice: Dice | None) -> list[Event]:
    """A KO from a roll wears off by itself (option `ko_lasts_seconds`); at 0 CON the character stays out."""
    if not state["knocked_out_by_roll"]:
        return []
    still_out = state["band"] == tables.BAND_ZERO
    data = {
        "ended_by": "clock",
        "still_out_at_zero_con": still_out,
        "vehicle_driverless_after": state["attributes"]["driver"] and still_out,
    }
    return [Event(KNOCK_OUT_ENDED, data, timer.due)]


def _con_recovery(state: State, timer: Timer, dice: Dice | None) -> list[Event]:
    con = state["con"]
    if con["current"] >= con["initial"]:
        return []
    con_after = con["current"] + 1
    outcome = band_outcome(state, con_after, state["disabled_limbs"])
    data = {
        "con_before": con["current"],
        "band_before": state["band"],
        **outcome,
        "rest_days": state["options"]["con_recovery_days"],
        "zero_con_ko_ended": state["band"] == tables.BAND_ZERO,
    }
    return [Event(CON_RECOVERED, data, timer.due)]


FIRERS = {STUN_ENDS: _stun_ends, KO_ENDS: _ko_ends, CON_RECOVERY: _con_recovery}


# --- characters change in play -------------------------------------------------------------------------------

CHANGEABLE = ("armour", "pedestrian", "driver", "skills", "move")
FIXED = {"con": "the initial CON cannot change: the CON bands are counted from it"}


def change_attributes(state: State, patch: Mapping[str, Any]) -> dict[str, Any]:
    """Armour bought, a driver who leaves the car, a skill learnt: the new attributes apply from now on. Skills and
    move take the current band's modifiers at once; nothing already rolled changes."""
    new, changes = kernel.changed_attributes(
        state, patch, changeable=CHANGEABLE, fixed=FIXED, validate=validate_attributes
    )
    band = state["band"]
    return {
        "changes": changes,
        "skills_after": {
            name: {"base": rating, "current": reduced_skill(rating, band)}
            for name, rating in new["skills"].items()
        },
        "move_after": {
            "base": new["move"],
            "current": current_move(new["move"], band, state["disabled_limbs"]),
        },
        "safety_limit_mph_after": safety_limit_mph(band, new["driver"]),
    }
