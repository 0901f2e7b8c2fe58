"""Cyberpunk 2020 with the X-Com: Gray Dawn damage application (docs/rules/cyberpunk2020.md).

Repeating checks and the game clock (a year's advance must take a bounded number of firings):
- A crippled limb not yet stabilized, or stun unconsciousness, asks for one death save per turn (30 s). When the
  death save target is 10 or more the save cannot fail: a limb-only save is then not scheduled at all (nothing
  could happen), while a waking save fires once and wakes the character. When the target is 0 or less the save
  cannot succeed: a waking-only save is not scheduled (the character sleeps until healing raises the target); a
  limb save fires once and the character starts dying.
- `stunned` asks for a stun save every round (3 s). A target of 0 or less cannot succeed: no timer until healing
  raises it. A target of 10 or more fires once and ends the stun.
- Stun damage heals one point per hour, real damage one point per treatment period, minor wounds once each: every
  firing removes a point, so the number of firings is bounded by the points on the track.
- A timer never comes due before the latest event applied (`last_event_at`), so the clock never goes backwards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules import kernel, params
from rules.cyberpunk2020 import tables
from rules.cyberpunk2020.options import OPTIONS
from rules.cyberpunk2020.sheet import ATTRIBUTES, btm_for_body
from rules.dice import Dice, certain_at_least, certain_at_most, faces_text, target_words
from rules.options import read_options
from rules.ruleset import CHARACTER_CHANGED, Event, RuleError, State, Timer, copy_state, game_time_mark
from rules.sheet import read_attributes

SLUG = "cyberpunk2020"

# Event types.
DAMAGE_TAKEN = "DamageTaken"
DAMAGE_STOPPED_BY_ARMOR = "DamageStoppedByArmor"
HIT_MISSED_SEVERED_LIMB = "HitMissedSeveredLimb"
LIMB_CRIPPLED = "LimbCrippled"
STUN_SAVE_ROLLED = "StunSaveRolled"
DEATH_SAVE_ROLLED = "DeathSaveRolled"
DEATH_OCCURRED = "DeathOccurred"
STABILIZATION_SUCCEEDED = "StabilizationSucceeded"
STABILIZATION_FAILED = "StabilizationFailed"
TREATMENT_SUCCEEDED = "TreatmentSucceeded"
TREATMENT_FAILED = "TreatmentFailed"
STUN_DAMAGE_HEALED = "StunDamageHealed"
MINOR_WOUND_HEALED = "MinorWoundHealed"
DAMAGE_HEALED = "DamageHealed"
BONES_SET = "BonesSet"
BONE_SETTING_FAILED = "BoneSettingFailed"
BONES_MENDED = "BonesMended"
LIMB_REPLACED = "LimbReplaced"

# Timer kinds.
DEATH = "death"
DEATH_SAVE = "death_save"
STUN_SAVE = "stun_save"
STUN_HEAL = "stun_heal"
MINOR_WOUND = "minor_wound"
HEAL = "heal"
BONE_MEND = "bone_mend"

# Error messages the tests (and the API tests) assert on.
DEAD = kernel.DEAD
EXPLOSION_HAS_NO_LOCATION = "an explosion hits the whole body: no location, cover or center of mass"
EXPLOSION_NOT_AP = "explosions are not armor piercing in this ruleset"
COVER_PROTECTS_ONLY_EXPLOSIONS = "only explosions use the extremities behind cover"
COVER_PROTECTS_EXPECTED = "expected a list of extremities: " + ", ".join(
    extremity.replace("_", " ") for extremity in tables.EXTREMITIES
)
AIMED_AND_CENTER_OF_MASS = "an aimed shot names its location; center of mass rolls a d6 instead"
SEVERED_LOCATION = "the {location} is severed: it cannot be hit"
TARGET_EXPECTED = f"expected dying or limb:<{'|'.join(tables.LIMBS)}>"
NOT_DYING = "the character is not dying"
NOT_CRIPPLED = "the {location} is not crippled"
ALREADY_STABILIZED = "the {location} is already stabilized"
DYING_NEEDS_MEDICAL_TECH = (
    "stabilizing a dying character needs Medical Tech (the doctor's skill), not First Aid"
)
TOTAL_EXPECTED = "expected total, or tech and skill_level (with the d10 roll)"
NO_DAMAGE_TO_TREAT = "there is no real damage to treat"
TREATMENT_RETRY_TOO_SOON = "a failed treatment may be retried from {at} ({days} after it failed)"
NOT_STUNNED = "the character is not stunned: no stun save is pending"
NO_DEATH_SAVE_PENDING = (
    "no death save is pending (no crippled limb awaits stabilization, and the character is awake)"
)
DYING_NEEDS_STABILIZATION = "a dying character cannot save their way out: stabilize them (Medical Tech)"
SEVERED_HAS_NO_BONES_TO_SET = (
    "the {location} is severed: there are no bones to set; replace it (replace_limb)"
)
SET_BONES_NEEDS_STABILIZATION = (
    "the {location} still bleeds: stabilize it first (stabilize, target limb:{limb})"
)
BONES_ALREADY_SET = "the {location}'s bones are already set: they mend on their own"
BONE_SETTING_RETRY_TOO_SOON = (
    "a failed bone setting may be tried again one game day after it failed: in {wait} of game time"
)
NOTHING_TO_REPLACE = "the {location} is neither severed nor crippled: there is nothing to replace"

KINDS = ("normal", "stun", "blunt", "explosion")


# --- options and attributes ---------------------------------------------------------------------------------


def validate_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options as `OPTIONS` declares them (rules/cyberpunk2020/options.py), each absent one its default."""
    return read_options(OPTIONS, options)


def validate_attributes(attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    """The attributes as `rules/cyberpunk2020/sheet.py` declares them; an explicit BTM (cyberware may change it)
    overrides the one derived from body."""
    return read_attributes(ATTRIBUTES, attributes)


def initial_state(attributes: Mapping[str, Any], options: Mapping[str, Any]) -> State:
    return {
        "ruleset": SLUG,
        "attributes": copy_state(dict(attributes)),
        "options": copy_state(dict(options)),
        "alive": True,
        "conscious": True,
        "dying": False,
        "death_at": None,
        "cause_of_death": None,
        "damage": 0,  # real damage on the track, minor wounds included
        "stun_damage": 0,
        "minor_wounds": [],  # pending minor wounds [{id, taken_at, location}]
        "next_minor_id": 1,
        "stunned": False,
        "stun_special_effect": False,
        "locations": {
            location: {"crippled": False, "severed": False, "stabilized": False}
            for location in tables.LOCATIONS
        },
        # Where the track's points are (README, "Damage per location"): they add up to `damage` and `stun_damage`.
        "location_damage": dict.fromkeys(tables.LOCATIONS, 0),
        "location_stun": dict.fromkeys(tables.LOCATIONS, 0),
        "healing_skill": None,
        "healing_seconds_per_point": None,
        "heal_anchor": None,
        "treatment_failed_at": None,
        "stun_heal_anchor": None,
        "next_stun_save_at": None,
        "next_death_save_at": None,
        "left_mortal_at": 0,
        "last_event_at": 0,
    }


# --- derived numbers ----------------------------------------------------------------------------------------


def track(state: Mapping[str, Any]) -> int:
    """Real and stun damage both count for the wound level and the saves."""
    return state["damage"] + state["stun_damage"]


def wound_level_of(points: int) -> str:
    if points <= 0:
        return "none"
    for low, high, level, _penalty in tables.WOUND_LEVELS:
        if low <= points <= high:
            return level
    return "dead"


def stun_penalty_of(points: int) -> int:
    for low, high, _level, penalty in tables.WOUND_LEVELS:
        if low <= points <= high:
            return penalty
    return tables.WOUND_LEVELS[-1][3] if points > tables.TRACK_MAX else 0


def mortal_level_of(points: int) -> int | None:
    if points <= tables.MORTAL_CONDITION_OVER:
        return None
    return (min(points, tables.TRACK_MAX) - tables.MORTAL_CONDITION_OVER - 1) // 4


def in_mortal_condition(state: Mapping[str, Any]) -> bool:
    return track(state) > tables.MORTAL_CONDITION_OVER


def stun_save_target(state: Mapping[str, Any]) -> int:
    attributes = state["attributes"]
    return attributes["body"] + attributes["stun_save_bonus"] + stun_penalty_of(track(state))


def death_save_target(state: Mapping[str, Any]) -> int:
    return state["attributes"]["body"] - (mortal_level_of(track(state)) or 0)


def limbs_awaiting_stabilization(state: Mapping[str, Any]) -> list[str]:
    locations = state["locations"]
    found = []
    for limb in tables.LIMBS:
        place = locations[limb]
        if place["crippled"] and not place["stabilized"]:
            found.append(limb)
    return found


# The save each roll is, by kind: its label and what it decides. A hit's first saves ("stun", "death"); then, each
# round or turn, a stunned character's recovery ("stun_recovery"), an unconscious one's waking ("wake", "wake_limb"
# with a crippled limb not yet stabilized) and a conscious one's save while such a limb bleeds ("limb").
SAVE_WHY = {
    "stun": ("Stun save", "whether {name} stays in action (failed: stunned, out of action)"),
    "death": (
        "Death save",
        "whether {name} stays alive and awake (failed: unconscious, and dying from real damage)",
    ),
    "stun_recovery": ("Stun save", "whether {name} recovers from the stun (failed: stays stunned)"),
    "wake": ("Death save", "whether {name} wakes up (failed: stays unconscious)"),
    "wake_limb": (
        "Death save",
        "whether {name} wakes up (failed: stays unconscious, and dying until {limbs} {is_are} stabilized)",
    ),
    "limb": (
        "Death save",
        "whether {name} holds on while {limbs} {is_are} not stabilized (failed: dying until {it_is})",
    ),
}


_SAVE_WORDS: dict[
    tuple[str, str, int, str], tuple[str, str, str]
] = {}  # the words of a save, by kind, who, target and the limbs it names


def limbs_words(state: Mapping[str, Any], limbs: list[str]) -> str:
    """The limbs awaiting stabilization as a player says them: "the right leg (severed) and the left arm (crippled)"."""
    said = [
        f"the {limb.replace('_', ' ')} ({'severed' if state['locations'][limb]['severed'] else 'crippled'})"
        for limb in limbs
    ]
    return " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said)


def save_roll(
    dice: Dice, name: str, target: int, kind: str, who: str = "the character", limbs: str = ""
) -> dict[str, Any]:
    """A save succeeds when the d10 is equal to or less than the target (the seed). `kind`: one of SAVE_WHY;
    `limbs`: the limbs awaiting stabilization, said (`limbs_words`), for the kinds that name them."""
    # A save every round or turn of the clock: its words are made once (a few dozen of them in all).
    words = _SAVE_WORDS.get((kind, who, target, limbs))
    if words is None:
        label, why = SAVE_WHY[kind]
        several = " and " in limbs
        words = _SAVE_WORDS[(kind, who, target, limbs)] = (
            label,
            why.format(
                name=who,
                limbs=limbs or "a crippled limb",
                is_are="are" if several else "is",
                it_is="they are" if several else "it is",
            ),
            f"succeeds on {target} or less",
        )
    label, why, reading = words
    roll = dice.die(
        name, 10, label=label, why=why, target=target, reading=reading, certain=certain_at_most(target, 10)
    )
    save = {"roll": roll, "target": target, "success": roll <= target}
    if name in dice.unasked:  # the table was not asked: it could not fail (or succeed), its words name no die
        save["certain"] = True
    return save


# --- damage -------------------------------------------------------------------------------------------------


def _location_why(table: Mapping[int, tuple[str, str]]) -> str:
    return "where the hit lands: " + faces_text({roll: part for roll, (_, part) in table.items()})


def hit_location(state: State, p: Mapping[str, Any], dice: Dice) -> dict[str, Any]:
    """Where the attack lands: aimed, center of mass, behind cover (standard table) or the campaign's model."""
    aimed, cover, center_of_mass = p["location"], p["cover"], p["center_of_mass"]
    if aimed is not None:
        if center_of_mass:
            raise RuleError("center_of_mass", AIMED_AND_CENTER_OF_MASS)
        if state["locations"][aimed]["severed"]:
            raise RuleError("location", SEVERED_LOCATION.format(location=aimed.replace("_", " ")))
        return {
            "location": aimed,
            "part": aimed.replace("_", " "),
            "how": "aimed",
            "roll": None,
            "side": None,
        }
    if center_of_mass:
        roll = dice.die(
            "location", 6, label="Hit location (center of mass)", why=_location_why(tables.CENTER_OF_MASS_D6)
        )
        location, part = tables.CENTER_OF_MASS_D6[roll]
        return {"location": location, "part": part, "how": "center_of_mass", "roll": roll, "side": None}
    model = "standard" if cover else state["options"]["hit_location_model"]
    sides, table = tables.HIT_LOCATION_MODELS[model]
    roll = dice.die("location", sides, label=f"Hit location ({model} table)", why=_location_why(table))
    location, part = table[roll]
    side = None
    if location == tables.LEG_NEEDS_SIDE:
        side = dice.die("side", 10, label="Side of a groin hit", why="which leg: 1-5 left, 6-10 right")
        location = tables.MODIFIED_SIDE_D10[side]
    how = "cover" if cover else model
    return {"location": location, "part": part, "how": how, "roll": roll, "side": side}


def penetrating_damage(damage: int, sp: int, ap: bool) -> int:
    """Damage past the armor. AP: the SP is halved, then what gets through is halved (both rounded down)."""
    if ap:
        return max(0, damage - sp // 2) // 2
    return max(0, damage - sp)


def location_damage_of(through: int, location: str, ap: bool, btm: int) -> int:
    """Limbs halve (minimum 1) unless AP already halved; then the BTM, never below 1."""
    if location in tables.LIMBS and not ap:
        through = max(1, through // 2)
    return max(1, through + btm)


def track_points_of(location_damage: int, location: str, crippled_before: bool) -> int:
    if location == "head":
        return location_damage * tables.HEAD_TRACK_MULTIPLIER
    if location in tables.LIMBS:
        return 0 if crippled_before else min(location_damage, tables.LIMB_TRACK_CAP)
    return location_damage


def split_by_kind(points: int, kind: str) -> tuple[int, int]:
    """(real, stun). Blunt is half and half, the odd point to stun."""
    if kind == "stun":
        return 0, points
    if kind == "blunt":
        return points // 2, points - points // 2
    return points, 0


def minor_wounds_added(state: Mapping[str, Any], wounds: list[int], kind: str) -> int:
    """1-point real wounds are minor, while fewer than four minor wounds are pending (README)."""
    if kind in ("stun", "blunt"):
        return 0
    ones = sum(1 for points in wounds if points == tables.MINOR_WOUND_POINTS)
    room = max(0, tables.MINOR_WOUNDS_PENDING_MAX - len(state["minor_wounds"]))
    return min(ones, room)


def sever_check(state: Mapping[str, Any], location_damage: int, dice: Dice) -> dict[str, Any]:
    """Body + Luck + d10 against the location damage: less means severed (or the head destroyed)."""
    attributes = state["attributes"]
    needed = location_damage - attributes["body"] - attributes["luck"]
    roll = dice.die(
        "sever",
        10,
        label="Sever check",
        why=f"whether the part is kept (broken bones) or severed: Body {attributes['body']} + Luck "
        f"{attributes['luck']} + d10 against {location_damage}",
        target=max(1, needed),
        reading=f"keeps it on {max(1, needed)} or more",
        certain=certain_at_least(needed, 10),  # kept whatever the die (or severed whatever): never asked
    )
    total = attributes["body"] + attributes["luck"] + roll
    check = {
        "body": attributes["body"],
        "luck": attributes["luck"],
        "roll": roll,
        "total": total,
        "needed": location_damage,
        "kept": total >= location_damage,
    }
    if "sever" in dice.unasked:  # the table was not asked: its words name no die (view.py `_sever_check`)
        check["certain"] = True
    return check


def decide_damage(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    damage, kind, ap = p["damage"], p["kind"], p["ap"]
    if kind == "explosion":
        return decide_explosion(state, p, damage, ap, dice, now)
    if p["cover_protects"] is not None:
        raise RuleError("cover_protects", COVER_PROTECTS_ONLY_EXPLOSIONS)
    hit = hit_location(state, p, dice)
    location = hit["location"]
    base = {"damage": damage, "kind": kind, "ap": ap, "hit": hit, "location": location}
    if state["locations"][location]["severed"]:
        return [Event(HIT_MISSED_SEVERED_LIMB, {**base, "dice": dict(dice.used)}, now)]
    sp = state["attributes"]["armor"][location]
    through = penetrating_damage(damage, sp, ap)
    if through <= 0:
        return [Event(DAMAGE_STOPPED_BY_ARMOR, {**base, "sp": sp, "dice": dict(dice.used)}, now)]

    crippled_before = state["locations"][location]["crippled"]
    location_damage = location_damage_of(through, location, ap, state["attributes"]["btm"])
    points = track_points_of(location_damage, location, crippled_before)
    real, stun = split_by_kind(points, kind)
    taken = {
        **base,
        "sp": sp,
        "through": through,
        "btm": state["attributes"]["btm"],
        "location_damage": location_damage,
        "track_points": points,
        "real_points": real,
        "stun_points": stun,
        "minor_wounds": minor_wounds_added(state, [points], kind),
        "stun_special_effect": stun > tables.STUN_SPECIAL_EFFECT_OVER,
    }
    events = [Event(DAMAGE_TAKEN, taken, now)]

    crippling = kind != "stun" and location != "torso" and location_damage >= tables.CRIPPLING_DAMAGE
    newly_crippled = False
    head_crippled = False
    if crippling:
        check = sever_check(state, location_damage, dice)
        newly_crippled = location != "head" and (not crippled_before or not check["kept"])
        head_crippled = location == "head"
        events.append(
            Event(
                LIMB_CRIPPLED,
                {"location": location, "location_damage": location_damage, "sever_check": check},
                now,
            )
        )
        if head_crippled and not check["kept"]:
            events.append(Event(DEATH_OCCURRED, {"cause": "head destroyed"}, now))
            return with_dice(events, dice)

    events += after_the_wound(
        state,
        events,
        dice,
        now,
        death_save_needed_by_crippling=newly_crippled,
        head_crippled=head_crippled,
        from_stun_only=real == 0 and stun > 0,
    )
    return with_dice(events, dice)


def decide_explosion(
    state: State, p: Mapping[str, Any], damage: int, ap: bool, dice: Dice, now: int
) -> list[Event]:
    for name in ("location", "cover", "center_of_mass"):
        if p[name] not in (None, False):
            raise RuleError(name, EXPLOSION_HAS_NO_LOCATION)
    if ap:
        raise RuleError("ap", EXPLOSION_NOT_AP)
    cover_protects = p["cover_protects"] or []
    armor = state["attributes"]["armor"]
    present = [part for part in tables.EXTREMITIES if not state["locations"][part]["severed"]]
    protected = [
        part for part in present if armor[part] >= tables.EXPLOSION_PROTECTING_SP or part in cover_protects
    ]
    unprotected = [part for part in present if part not in protected]
    effective_sp = armor["torso"] + tables.EXPLOSION_SP_PER_PROTECTED_EXTREMITY * len(protected)
    main = max(0, damage - effective_sp)
    secondary = sum(
        tables.EXPLOSION_SECONDARY_HEAD if part == "head" else tables.EXPLOSION_SECONDARY_PER_LIMB
        for part in unprotected
    )
    btm = state["attributes"]["btm"]
    wounds = [max(1, wound + btm) if wound > 0 else 0 for wound in (main, secondary)]
    base = {
        "damage": damage,
        "kind": "explosion",
        "ap": False,
        "location": None,
        "protected": protected,
        "unprotected": unprotected,
        "sp": effective_sp,
        "main_wound": main,
        "secondary_wound": secondary,
        "btm": btm,
    }
    points = sum(wounds)
    if points == 0:
        return [Event(DAMAGE_STOPPED_BY_ARMOR, {**base, "dice": dict(dice.used)}, now)]
    taken = {
        **base,
        "wounds": wounds,
        "track_points": points,
        "real_points": points,
        "stun_points": 0,
        "minor_wounds": minor_wounds_added(state, wounds, "explosion"),
        "stun_special_effect": False,
    }
    events = [Event(DAMAGE_TAKEN, taken, now)]
    events += after_the_wound(state, events, dice, now)
    return with_dice(events, dice)


def after_the_wound(
    state: State,
    events: list[Event],
    dice: Dice,
    now: int,
    *,
    death_save_needed_by_crippling: bool = False,
    head_crippled: bool = False,
    from_stun_only: bool = False,
) -> list[Event]:
    """Death over the track, then one stun save and, when needed, one death save, on the damaged state."""
    after = state
    for event in events:
        after = evolve(after, event)
    if track(after) > tables.TRACK_MAX:
        return [Event(DEATH_OCCURRED, {"cause": "wound track over 40", "track": track(after)}, now)]
    saves: list[Event] = []
    # Already unconscious: a stun save could change nothing.
    if after["conscious"]:
        stun = save_roll(dice, "stun_save", stun_save_target(after), "stun")
        saves.append(Event(STUN_SAVE_ROLLED, {**stun, "cause": "damage"}, now))
    if after["dying"]:
        return saves  # already bleeding out: only stabilization helps
    death_at = now + tables.TURN
    if head_crippled:
        # A crippled head fails the death save outright; it can still be stabilized.
        saves.append(
            Event(
                DEATH_SAVE_ROLLED,
                {
                    "roll": None,
                    "target": death_save_target(after),
                    "success": False,
                    "automatic": True,
                    "cause": "head crippled",
                    "outcome": "dying",
                    "death_at": death_at,
                },
                now,
            )
        )
    elif in_mortal_condition(after) or death_save_needed_by_crippling:
        death = save_roll(dice, "death_save", death_save_target(after), "death")
        if death["success"]:
            outcome = "survived" if after["conscious"] else "stayed_unconscious"
        else:
            outcome = "unconscious" if from_stun_only else "dying"
        saves.append(
            Event(
                DEATH_SAVE_ROLLED,
                {
                    **death,
                    "automatic": False,
                    "cause": "limb crippled" if death_save_needed_by_crippling else "mortal condition",
                    "outcome": outcome,
                    "death_at": death_at if outcome == "dying" else None,
                },
                now,
            )
        )
    return saves


def with_dice(events: list[Event], dice: Dice) -> list[Event]:
    """Every die of the action is stored on its first event."""
    events[0].data["dice"] = {name: list(values) for name, values in dice.used.items()}
    return events


# --- stabilize, treat, save ----------------------------------------------------------------------------------


def skill_total(
    p: Mapping[str, Any], dice: Dice, roll_name: str, difficulty: int, why: str, house: str = ""
) -> dict[str, Any]:
    """TECH + skill + d10, entered as a total or as its parts with the d10 roll, against `difficulty`; `house`:
    what the difficulty is for when a house rule gives it (the roll's target says so: `target_words`)."""
    total, tech, skill_level = p["total"], p["tech"], p["skill_level"]
    if total is not None:
        return {"total": total, "tech": None, "skill_level": None, "roll": None}
    if tech is None or skill_level is None:
        raise RuleError("total", TOTAL_EXPECTED)
    needed = difficulty - tech - skill_level
    roll = dice.die(
        roll_name,
        10,
        label=f"{roll_name.capitalize()} d10",
        why=f"{why}: TECH {tech} + skill {skill_level} + d10 against {difficulty}",
        target=max(1, needed),
        reading=f"succeeds on {max(1, needed)} or more",
        certain=certain_at_least(needed, 10),
        target_why=target_words(
            (house, difficulty, True),
            (f"TECH {tech}", -tech),
            (f"skill {skill_level}", -skill_level),
            floor=1,
        )
        if house
        else "",
    )
    result = {"total": tech + skill_level + roll, "tech": tech, "skill_level": skill_level, "roll": roll}
    if roll_name in dice.unasked:  # the table was not asked: its words name no die (view.py `_skill_roll`)
        result["certain"] = True
    return result


def decide_stabilize(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    target, medic, skill = p["target"], p["medic"], p["skill"]
    if target == "dying":
        if not state["dying"]:
            raise RuleError("target", NOT_DYING)
        if skill != "medical_tech":
            raise RuleError("skill", DYING_NEEDS_MEDICAL_TECH)
        difficulty = state["damage"]  # CP2020 core: the real damage on the track
    elif target.startswith("limb:") and target[len("limb:") :] in tables.LIMBS:
        limb = target[len("limb:") :]
        spoken = limb.replace("_", " ")
        if not state["locations"][limb]["crippled"]:
            raise RuleError("target", NOT_CRIPPLED.format(location=spoken))
        if state["locations"][limb]["stabilized"]:
            raise RuleError("target", ALREADY_STABILIZED.format(location=spoken))
        difficulty = tables.LIMB_STABILIZATION_DIFFICULTY
    else:
        raise RuleError("target", TARGET_EXPECTED)
    patient = (
        "the dying character" if target == "dying" else f"the {target[len('limb:') :].replace('_', ' ')}"
    )
    result = skill_total(p, dice, "stabilize", difficulty, f"whether {medic} stabilizes {patient}")
    success = result["total"] >= difficulty
    data = {
        "target": target,
        "medic": medic,
        "skill": skill,
        **result,
        "difficulty": difficulty,
        "success": success,
        "dice": dict(dice.used),
    }
    return [Event(STABILIZATION_SUCCEEDED if success else STABILIZATION_FAILED, data, now)]


def treatment_refused(state: Mapping[str, Any], now: int) -> str | None:
    """Why a treatment may not be tried now (no damage, or a failed one too recent), or None."""
    if state["damage"] <= 0:
        return NO_DAMAGE_TO_TREAT
    failed_at = state["treatment_failed_at"]
    days = state["options"]["treatment_retry_days"]
    if failed_at is not None and now < failed_at + days * tables.DAY:
        return TREATMENT_RETRY_TOO_SOON.format(
            at=game_time_mark(failed_at + days * tables.DAY),
            days="1 game day" if days == 1 else f"{days} game days",
        )
    return None


def decide_treat(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    medic, skill = p["medic"], p["skill"]
    refused = treatment_refused(state, now)
    if refused is not None:
        raise RuleError("type", refused)
    difficulty = state["options"]["treatment_difficulty"]
    result = skill_total(
        p, dice, "treatment", difficulty, f"whether {medic}'s care starts the healing", house="a treatment"
    )
    success = result["total"] >= difficulty
    # Medical tech replaces first aid and never adds to it; first aid never lowers a medical tech rate.
    better = max(skill, state["healing_skill"], key=lambda name: tables.SKILL_RANK[name])
    data = {
        "medic": medic,
        "skill": skill,
        **result,
        "difficulty": difficulty,
        "success": success,
        "dice": dict(dice.used),
    }
    if not success:
        return [Event(TREATMENT_FAILED, data, now)]
    data["healing_skill"] = better
    data["healing_rate"] = tables.HEALING_RATE_BY_SKILL[better]
    data["seconds_per_point"] = tables.SECONDS_PER_POINT_BY_SKILL[better]
    return [Event(TREATMENT_SUCCEEDED, data, now)]


def death_save_pending(state: Mapping[str, Any]) -> bool:
    return (
        state["alive"]
        and not state["dying"]
        and (not state["conscious"] or bool(limbs_awaiting_stabilization(state)))
    )


def death_save_event(state: State, dice: Dice, now: int, cause: str) -> Event:
    """A per-turn death save: success wakes; failure with a limb awaiting stabilization starts the dying."""
    limbs = limbs_awaiting_stabilization(state)
    kind = "limb" if state["conscious"] else "wake_limb" if limbs else "wake"
    death = save_roll(
        dice,
        "death_save" if cause != "table" else "save",
        death_save_target(state),
        kind,
        limbs=limbs_words(state, limbs) if limbs else "",
    )
    if death["success"]:
        outcome = "survived" if state["conscious"] else "woke"
    elif limbs:
        outcome = "dying"
    else:
        outcome = "stayed_unconscious"
    return Event(
        DEATH_SAVE_ROLLED,
        {
            **death,
            "automatic": False,
            "cause": cause,
            "limbs": limbs,
            "outcome": outcome,
            "death_at": now + tables.TURN if outcome == "dying" else None,
            "dice": dict(dice.used),
        },
        now,
    )


def stun_save_event(state: State, dice: Dice, now: int, cause: str) -> Event:
    stun = save_roll(
        dice, "stun_save" if cause != "table" else "save", stun_save_target(state), "stun_recovery"
    )
    return Event(STUN_SAVE_ROLLED, {**stun, "cause": cause, "dice": dict(dice.used)}, now)


def decide_save(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    kind = p["kind"]
    if kind == "stun":
        if not state["stunned"]:
            raise RuleError("kind", NOT_STUNNED)
        return [stun_save_event(state, dice, now, "table")]
    if state["dying"]:
        raise RuleError("kind", DYING_NEEDS_STABILIZATION)
    if not death_save_pending(state):
        raise RuleError("kind", NO_DEATH_SAVE_PENDING)
    return [death_save_event(state, dice, now, "table")]


# --- set_bones, replace_limb (house) ------------------------------------------------------------------------


def _wait_words(seconds: int) -> str:
    """A short wait in game time as people say it: '20 h 30 min', '45 min'."""
    minutes = -(-seconds // 60)  # a part of a minute still to wait is a minute
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def decide_set_bones(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    """A crippled, unsevered, stabilized limb's broken bones set and immobilized: on success the limb mends after
    `bone_mend_weeks` of game time (a clock timer), on failure it may be tried again a game day later."""
    limb = p["limb"]
    spoken = limb.replace("_", " ")
    place = state["locations"][limb]
    if place["severed"]:
        raise RuleError("limb", SEVERED_HAS_NO_BONES_TO_SET.format(location=spoken))
    if not place["crippled"]:
        raise RuleError("limb", NOT_CRIPPLED.format(location=spoken))
    if place.get("mends_at") is not None:
        raise RuleError("limb", BONES_ALREADY_SET.format(location=spoken))
    if not place["stabilized"]:
        raise RuleError("limb", SET_BONES_NEEDS_STABILIZATION.format(location=spoken, limb=limb))
    failed_at = place.get("bone_setting_failed_at")
    if failed_at is not None and now < failed_at + tables.BONE_SETTING_RETRY:
        wait = _wait_words(failed_at + tables.BONE_SETTING_RETRY - now)
        raise RuleError("limb", BONE_SETTING_RETRY_TOO_SOON.format(wait=wait))
    result = skill_total(
        p,
        dice,
        "set_bones",
        tables.BONE_SETTING_DIFFICULTY,
        f"whether {p['medic']} sets the {spoken}'s bones",
        house="setting bones",
    )
    success = result["total"] >= tables.BONE_SETTING_DIFFICULTY
    data = {
        "limb": limb,
        "medic": p["medic"],
        **result,
        "difficulty": tables.BONE_SETTING_DIFFICULTY,
        "success": success,
        "dice": dict(dice.used),
    }
    if not success:
        return [Event(BONE_SETTING_FAILED, data, now)]
    weeks = state["options"].get("bone_mend_weeks", tables.BONE_MEND_WEEKS)
    return [Event(BONES_SET, {**data, "mend_weeks": weeks, "mends_at": now + weeks * tables.WEEK}, now)]


def decide_replace_limb(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    """A severed or crippled limb replaced (cyberware, a clone, magic): usable at once; its points stay on the
    track until healed."""
    limb = p["limb"]
    place = state["locations"][limb]
    if not place["severed"] and not place["crippled"]:
        raise RuleError("limb", NOTHING_TO_REPLACE.format(location=limb.replace("_", " ")))
    was = "severed" if place["severed"] else "crippled"
    return [Event(LIMB_REPLACED, {"limb": limb, "replacement": p["replacement"], "was": was}, now)]


DECIDERS = {
    "damage": decide_damage,
    "stabilize": decide_stabilize,
    "treat": decide_treat,
    "save": decide_save,
    "set_bones": decide_set_bones,
    "replace_limb": decide_replace_limb,
}


# --- damage per location (README, "Damage per location") -----------------------------------------------------


def explosion_shares(points: int, parts: list[str]) -> dict[str, int]:
    """An explosion's secondary wound spread over the unprotected extremities it came from, in proportion to what
    each adds (4 the head, 2 a limb), rounded down; the points left over go one each to the first parts in table
    order, so that the shares add up to the wound."""
    weights = [
        tables.EXPLOSION_SECONDARY_HEAD if part == "head" else tables.EXPLOSION_SECONDARY_PER_LIMB
        for part in parts
    ]
    total = sum(weights)
    shares = [points * weight // total for weight in weights]
    for index in range(points - sum(shares)):
        shares[index % len(shares)] += 1
    return dict(zip(parts, shares, strict=True))


def wound_places(data: Mapping[str, Any]) -> list[tuple[str, int]]:
    """Where a DamageTaken's real points land, wound by wound: a hit on its location; an explosion's main wound on
    the torso (its armour took the blast) and its secondary wound on the unprotected extremities. The points add
    up to `real_points` whatever a file holds (a location it does not name goes to the torso)."""
    real = data["real_points"]
    location = data.get("location")
    if location in tables.LOCATIONS:
        return [(location, real)]
    wounds = data.get("wounds") or []
    parts = [part for part in data.get("unprotected") or [] if part in tables.EXTREMITIES]
    secondary = min(real, wounds[1]) if len(wounds) == 2 and parts else 0
    spread = (
        [(part, points) for part, points in explosion_shares(secondary, parts).items()] if secondary else []
    )
    return [("torso", real - secondary), *spread]


def _minor_places(data: Mapping[str, Any], places: list[tuple[str, int]]) -> list[str | None]:
    """The location of each minor wound the event adds: the wounds of exactly 1 point, in order (an explosion's
    secondary wound of 1 point is on the one extremity its share went to)."""
    found = [where for where, points in places if points == tables.MINOR_WOUND_POINTS]
    count = data["minor_wounds"]
    return [*found[:count], *[None] * max(0, count - len(found))]


def _smallest(points: Mapping[str, int], less: Mapping[str, int] | None = None) -> str | None:
    """The location with the fewest points above 0 (`less` not counted), the first in table order on a tie: small
    wounds close before big ones."""
    less = less or {}
    held = [(points.get(where, 0) - less.get(where, 0), index, where) for index, where in enumerate(points)]
    held = [item for item in held if item[0] > 0]
    return min(held)[2] if held else None


def _take_stun(state: State, points: int) -> None:
    places = state.get("location_stun")
    if places is None:  # a state stored before damage per location (rebuild_projections gives it)
        return
    for _ in range(points):
        where = _smallest(places)
        if where is None:
            return
        places[where] -= 1


def _pending_minor_at(state: Mapping[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for wound in state["minor_wounds"]:
        where = wound.get("location")
        if where is not None:
            counts[where] = counts.get(where, 0) + 1
    return counts


def _take_real(state: State, points: int) -> None:
    """Healed real points leave the smallest wound that is not a pending minor wound first; once only minor wounds
    are left, the oldest one's location (it is the one `_damage_healed` drops)."""
    places = state.get("location_damage")
    if places is None:
        return
    for _ in range(points):
        minors = [wound for wound in state["minor_wounds"] if places.get(wound.get("location"), 0) > 0]
        where = _smallest(places, _pending_minor_at(state))
        if where is None and minors:
            where = minors[0]["location"]
            state["minor_wounds"].remove(minors[0])
        where = where or _smallest(places)
        if where is None:
            return
        places[where] -= 1


# --- evolve --------------------------------------------------------------------------------------------------


def _damage_taken(state: State, data: Mapping[str, Any], at: int) -> None:
    state["damage"] += data["real_points"]
    if data["stun_points"] and state["stun_damage"] == 0:
        state["stun_heal_anchor"] = at  # the hourly healing starts with the first stun point
    state["stun_damage"] += data["stun_points"]
    places = wound_places(data)
    located = state.get("location_damage")
    if located is not None:  # None: a state stored before damage per location (README)
        for where, points in places:
            located[where] += points
        state["location_stun"][places[0][0]] += data["stun_points"]  # a hit's location; never an explosion's
    if data["minor_wounds"]:
        for where in _minor_places(data, places):
            state["minor_wounds"].append({"id": state["next_minor_id"], "taken_at": at, "location": where})
            state["next_minor_id"] += 1
    if data["stun_special_effect"]:
        state["stun_special_effect"] = True


def _limb_crippled(state: State, data: Mapping[str, Any], at: int) -> None:
    place = state["locations"][data["location"]]
    severed_now = not data["sever_check"]["kept"] and not place["severed"]
    if not place["crippled"] or severed_now:
        place["stabilized"] = False  # a new crippling or a severing bleeds again
    place["crippled"] = True
    place["severed"] = place["severed"] or not data["sever_check"]["kept"]
    place.pop("mends_at", None)  # broken again: bones set before must be set anew
    if data["location"] != "head":
        state["next_death_save_at"] = at + tables.TURN


def _stun_save_rolled(state: State, data: Mapping[str, Any], at: int) -> None:
    state["stunned"] = not data["success"]
    state["next_stun_save_at"] = at + tables.ROUND if state["stunned"] else None


def _death_save_rolled(state: State, data: Mapping[str, Any], at: int) -> None:
    outcome = data["outcome"]
    if outcome == "dying":
        state["conscious"] = False
        state["dying"] = True
        state["death_at"] = data["death_at"]
    elif outcome in ("unconscious", "stayed_unconscious"):
        state["conscious"] = False
    elif outcome == "woke":
        state["conscious"] = True
    state["next_death_save_at"] = at + tables.TURN
    if state["stunned"] and state["conscious"]:
        state["next_stun_save_at"] = max(state["next_stun_save_at"] or 0, at + tables.ROUND)


def _death_occurred(state: State, data: Mapping[str, Any], at: int) -> None:
    state["alive"] = False
    state["conscious"] = False
    state["dying"] = False
    state["cause_of_death"] = data["cause"]


def _stabilization_succeeded(state: State, data: Mapping[str, Any], at: int) -> None:
    if data["target"] == "dying":
        # The doctor stops all the bleeding: every crippled part counts as stabilized.
        state["dying"] = False
        state["death_at"] = None
        for place in state["locations"].values():
            if place["crippled"]:
                place["stabilized"] = True
        state["next_death_save_at"] = at + tables.TURN  # still unconscious until a death save succeeds
    else:
        state["locations"][data["target"][len("limb:") :]]["stabilized"] = True


def _treatment_succeeded(state: State, data: Mapping[str, Any], at: int) -> None:
    if state["healing_skill"] != data["healing_skill"] or state["heal_anchor"] is None:
        state["heal_anchor"] = at
    state["healing_skill"] = data["healing_skill"]
    state["healing_seconds_per_point"] = data["seconds_per_point"]
    state["treatment_failed_at"] = None


def _treatment_failed(state: State, data: Mapping[str, Any], at: int) -> None:
    state["treatment_failed_at"] = at


def _stun_damage_healed(state: State, data: Mapping[str, Any], at: int) -> None:
    before = state["stun_damage"]
    state["stun_damage"] = max(0, state["stun_damage"] - data["points"])
    state["stun_heal_anchor"] = at if state["stun_damage"] else None
    _take_stun(state, before - state["stun_damage"])


def _minor_wound_healed(state: State, data: Mapping[str, Any], at: int) -> None:
    healed = [wound for wound in state["minor_wounds"] if wound["id"] == data["id"]]
    state["minor_wounds"] = [wound for wound in state["minor_wounds"] if wound["id"] != data["id"]]
    if healed and state["damage"] > 0:
        state["damage"] -= 1
        places = state.get("location_damage")
        where = healed[0].get("location")
        if places is not None and places.get(where, 0) > 0:
            places[where] -= 1  # the ding stops counting where it was taken
        else:
            _take_real(state, 1)


def _damage_healed(state: State, data: Mapping[str, Any], at: int) -> None:
    before = state["damage"]
    state["damage"] = max(0, state["damage"] - data["points"])
    _take_real(state, before - state["damage"])
    state["heal_anchor"] = at
    if state["damage"] == 0:
        state["healing_skill"] = None  # healed completely: new wounds need new care
        state["heal_anchor"] = None
        state["healing_seconds_per_point"] = None
    # Healed points take the oldest minor wounds with them.
    excess = len(state["minor_wounds"]) - state["damage"]
    if excess > 0:
        state["minor_wounds"] = state["minor_wounds"][excess:]


def _bones_set(state: State, data: Mapping[str, Any], at: int) -> None:
    place = state["locations"][data["limb"]]
    # As the event has it (`mend_weeks` is the option in force), but from the state's options: a state folded
    # under older options (a rebuild, an import) and given the new ones (`reindex_timers`) is then the same.
    place["mends_at"] = at + state["options"]["bone_mend_weeks"] * tables.WEEK
    place.pop("bone_setting_failed_at", None)


def _bone_setting_failed(state: State, data: Mapping[str, Any], at: int) -> None:
    state["locations"][data["limb"]]["bone_setting_failed_at"] = at


def _usable_again(place: dict[str, Any]) -> None:
    place["crippled"] = False
    place["severed"] = False
    place["stabilized"] = False
    place.pop("mends_at", None)
    place.pop("bone_setting_failed_at", None)


def _bones_mended(state: State, data: Mapping[str, Any], at: int) -> None:
    _usable_again(state["locations"][data["limb"]])


def _limb_replaced(state: State, data: Mapping[str, Any], at: int) -> None:
    place = state["locations"][data["limb"]]
    _usable_again(place)
    place["replacement"] = data["replacement"]


EVOLVERS = {
    DAMAGE_TAKEN: _damage_taken,
    LIMB_CRIPPLED: _limb_crippled,
    STUN_SAVE_ROLLED: _stun_save_rolled,
    DEATH_SAVE_ROLLED: _death_save_rolled,
    DEATH_OCCURRED: _death_occurred,
    STABILIZATION_SUCCEEDED: _stabilization_succeeded,
    TREATMENT_SUCCEEDED: _treatment_succeeded,
    TREATMENT_FAILED: _treatment_failed,
    STUN_DAMAGE_HEALED: _stun_damage_healed,
    MINOR_WOUND_HEALED: _minor_wound_healed,
    DAMAGE_HEALED: _damage_healed,
    BONES_SET: _bones_set,
    BONE_SETTING_FAILED: _bone_setting_failed,
    BONES_MENDED: _bones_mended,
    LIMB_REPLACED: _limb_replaced,
    CHARACTER_CHANGED: lambda state, data, at: kernel.take_attribute_changes(state, data),
}


def evolve_into(state: State, event: Event) -> None:
    """Apply one event to `state` in place. Events without an effect (armor stopped it, failed stabilization,
    unknown types) only move `last_event_at`."""
    at = event.game_time
    was_mortal = in_mortal_condition(state)
    handler = EVOLVERS.get(event.type)
    if handler is not None:
        handler(state, event.data, at)
    if was_mortal and not in_mortal_condition(state):
        state["left_mortal_at"] = at
    if at > state["last_event_at"]:
        state["last_event_at"] = at


# Every event may move `last_event_at`: evolve always copies.
evolve = kernel.copying(evolve_into)


def reindex_timers(state: State, before: Mapping[str, Any]) -> None:
    """The campaign's house rules changed (`state["options"]` the new ones): set bones mend `bone_mend_weeks` after
    they were set, with the new value (README, "House rules changed in play"); mended in the past, they mend at the
    next advance. A failed treatment's day of waiting is read from the options when a treatment is tried."""
    change = (state["options"]["bone_mend_weeks"] - before["bone_mend_weeks"]) * tables.WEEK
    for place in state["locations"].values():
        if place.get("mends_at") is not None:
            place["mends_at"] += change


# --- timers and fire -----------------------------------------------------------------------------------------


def timers(state: State) -> list[Timer]:
    if not state["alive"]:
        return []
    now = state["last_event_at"]
    found: list[Timer] = []
    dying, conscious = state["dying"], state["conscious"]
    if dying and state["death_at"] is not None:
        found.append(Timer(due=state["death_at"], kind=DEATH, key=DEATH, priority=90))
    # Every firing of the clock asks (a save every round or turn): `death_save_pending`, `death_save_target`,
    # `stun_save_target` and `in_mortal_condition` with the track and the limbs read once.
    points = state["damage"] + state["stun_damage"]
    if not dying:
        limbs = limbs_awaiting_stabilization(state)
        if not conscious or limbs:
            death_target = state["attributes"]["body"] - (mortal_level_of(points) or 0)
            # A save that cannot change anything is not scheduled (module docstring).
            if (limbs and death_target < 10) or (not conscious and death_target > 0):
                due = max(state["next_death_save_at"] or now, now)
                found.append(Timer(due=due, kind=DEATH_SAVE, key=DEATH_SAVE, priority=60, per_round=True))
    if state["stunned"] and conscious and stun_save_target(state) > 0:
        due = max(state["next_stun_save_at"] or now, now)
        found.append(Timer(due=due, kind=STUN_SAVE, key=STUN_SAVE, priority=55, per_round=True))
    if state["stun_damage"] > 0:
        due = max((state["stun_heal_anchor"] or now) + tables.STUN_HEALS_EVERY, now)
        found.append(Timer(due=due, kind=STUN_HEAL, key=STUN_HEAL, priority=30))
    if points <= tables.MORTAL_CONDITION_OVER:  # not `in_mortal_condition`
        for wound in state["minor_wounds"]:
            due = max(wound["taken_at"] + tables.MINOR_WOUND_HEALS_AFTER, state["left_mortal_at"], now)
            found.append(
                Timer(
                    due=due,
                    kind=MINOR_WOUND,
                    key=f"minor:{wound['id']}",
                    priority=35,
                    data={"id": wound["id"]},
                )
            )
    if state["healing_skill"] is not None and state["damage"] > 0:
        due = max(state["heal_anchor"] + state["healing_seconds_per_point"], now)
        found.append(Timer(due=due, kind=HEAL, key=HEAL, priority=40))
    for limb in tables.LIMBS:
        mends_at = state["locations"][limb].get("mends_at")
        if mends_at is not None:
            found.append(
                Timer(
                    due=max(mends_at, now),
                    kind=BONE_MEND,
                    key=f"{BONE_MEND}:{limb}",
                    priority=45,
                    data={"limb": limb},
                )
            )
    return found


def _fire_death(state: State, timer: Timer, dice: Dice) -> list[Event]:
    if not state["dying"]:
        return []
    return [Event(DEATH_OCCURRED, {"cause": "bled out"}, timer.due)]


def _fire_death_save(state: State, timer: Timer, dice: Dice) -> list[Event]:
    if not death_save_pending(state):
        return []
    return [death_save_event(state, dice, timer.due, "every turn")]


def _fire_stun_save(state: State, timer: Timer, dice: Dice) -> list[Event]:
    if not state["stunned"]:
        return []
    return [stun_save_event(state, dice, timer.due, "every round")]


def _fire_stun_heal(state: State, timer: Timer, dice: Dice) -> list[Event]:
    if state["stun_damage"] <= 0:
        return []
    return [Event(STUN_DAMAGE_HEALED, {"points": 1, "stun_damage": state["stun_damage"] - 1}, timer.due)]


def _fire_minor_wound(state: State, timer: Timer, dice: Dice) -> list[Event]:
    pending = any(wound["id"] == timer.data.get("id") for wound in state["minor_wounds"])
    if not pending or in_mortal_condition(state):
        return []
    return [Event(MINOR_WOUND_HEALED, {"id": timer.data["id"]}, timer.due)]


def _fire_heal(state: State, timer: Timer, dice: Dice) -> list[Event]:
    if state["damage"] <= 0 or state["healing_skill"] is None:
        return []
    data = {"points": 1, "damage": state["damage"] - 1, "healing_skill": state["healing_skill"]}
    return [Event(DAMAGE_HEALED, data, timer.due)]


def _fire_bone_mend(state: State, timer: Timer, dice: Dice) -> list[Event]:
    limb = timer.data.get("limb")
    if limb not in tables.LIMBS or state["locations"][limb].get("mends_at") is None:
        return []
    return [Event(BONES_MENDED, {"limb": limb}, timer.due)]


FIRERS = {
    DEATH: _fire_death,
    DEATH_SAVE: _fire_death_save,
    STUN_SAVE: _fire_stun_save,
    STUN_HEAL: _fire_stun_heal,
    MINOR_WOUND: _fire_minor_wound,
    HEAL: _fire_heal,
    BONE_MEND: _fire_bone_mend,
}


# --- characters change in play -------------------------------------------------------------------------------

CHANGEABLE = ("body", "luck", "armor", "btm", "stun_save_bonus")


def change_attributes(state: State, patch: Mapping[str, Any]) -> dict[str, Any]:
    """Armour bought or lost (SP per location), BODY or LUCK raised, cyberware that moves the BTM: the saves,
    armour and BTM of every later attack and clock roll use the new values; wounds already on the track stay.

    A BTM that followed BODY (the table's value) follows a new BODY; one the GM set for cyberware stays unless the
    edit names it."""
    patch = params.require_mapping(patch, "attributes")
    current = state["attributes"]
    body = patch.get("body")
    follows = current["btm"] == btm_for_body(current["body"])
    named = "btm" in patch and patch["btm"] != current["btm"]
    if not named and follows and isinstance(body, int) and not isinstance(body, bool) and body >= 1:
        patch = {**patch, "btm": btm_for_body(body)}
    _, changes = kernel.changed_attributes(
        state, patch, changeable=CHANGEABLE, fixed={}, validate=validate_attributes
    )
    return {"changes": changes}
