"""Cyberpunk 2020: what the GM and a player may see of a character (docs/rules/cyberpunk2020.md). Players see
everything of their own character but the moment of death and GM notes."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from rules import words
from rules.answer_schema import BOOL, INT, SECONDS, STR, mapping, nullable, obj
from rules.cyberpunk2020 import tables
from rules.cyberpunk2020.engine import (
    BONE_SETTING_FAILED,
    BONES_MENDED,
    BONES_SET,
    DAMAGE_HEALED,
    DAMAGE_STOPPED_BY_ARMOR,
    DAMAGE_TAKEN,
    DEATH_OCCURRED,
    DEATH_SAVE_ROLLED,
    HIT_MISSED_SEVERED_LIMB,
    LIMB_CRIPPLED,
    LIMB_REPLACED,
    MINOR_WOUND_HEALED,
    STABILIZATION_FAILED,
    STABILIZATION_SUCCEEDED,
    STUN_DAMAGE_HEALED,
    STUN_SAVE_ROLLED,
    TREATMENT_FAILED,
    TREATMENT_SUCCEEDED,
    death_save_pending,
    death_save_target,
    in_mortal_condition,
    limbs_awaiting_stabilization,
    mortal_level_of,
    stun_save_target,
    track,
    wound_level_of,
)
from rules.ruleset import GM, NOTE_ADDED, Event, State, Timer, fires_at, game_time_mark

# The moment of death is the GM's alone (README): everything else about their character is the player's.
GM_ONLY = frozenset(("death_at",))


def _spoken(location: str) -> str:
    return location.replace("_", " ")


def _places(state: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The state's locations in the body's order (`tables.LOCATIONS`), not the stored object's: PostgreSQL's jsonb
    keeps an object's keys shortest first (the left leg before the right arm), SQLite as they were written."""
    return [(location, state["locations"][location]) for location in tables.LOCATIONS]


def healing_rate(state: Mapping[str, Any]) -> float | int:
    return tables.HEALING_RATE_BY_SKILL.get(state["healing_skill"], 0)


def sheet(state: Mapping[str, Any]) -> dict[str, Any]:
    points = track(state)
    mortal = mortal_level_of(points)
    return {
        "damage": state["damage"],
        "stun_damage": state["stun_damage"],
        "track": points,
        "wound_level": wound_level_of(points),
        "minor_wounds": len(state["minor_wounds"]),
        "stunned": state["stunned"],
        "btm": state["attributes"]["btm"],
        "stun_save_target": stun_save_target(state),
        "death_save_target": death_save_target(state),
        # A copy, flat booleans under each location: copy.deepcopy was a third of an action's answer.
        "locations": {location: dict(place) for location, place in _places(state)},
        # The track's points by where they were taken (a state stored before these has none until a rebuild).
        "location_damage": dict(state.get("location_damage") or dict.fromkeys(tables.LOCATIONS, 0)),
        "location_stun": dict(state.get("location_stun") or dict.fromkeys(tables.LOCATIONS, 0)),
        "healing_rate": healing_rate(state),
        "mortal_condition": mortal is not None,
        "mortal_level": mortal,
        "armor": dict(state["attributes"]["armor"]),
        "stun_special_effect": state["stun_special_effect"],
    }


# The sheet of `sheet` (OpenAPI schema, rules/answer_schema.py): the GM and a player receive the same.
SHEET_SCHEMA = obj(
    {
        "damage": INT,
        "stun_damage": INT,
        "track": INT,
        "wound_level": nullable(STR),
        "minor_wounds": INT,
        "stunned": BOOL,
        "btm": INT,
        "stun_save_target": INT,
        "death_save_target": INT,
        "locations": mapping(
            obj(
                {"crippled": BOOL, "severed": BOOL, "stabilized": BOOL, "mends_at": nullable(SECONDS)},
                "mends_at",
            )
        ),
        "location_damage": mapping(INT),
        "location_stun": mapping(INT),
        "healing_rate": {"type": "number", "description": "points healed a day (0.5 with first aid)"},
        "mortal_condition": BOOL,
        "mortal_level": nullable(INT),
        "armor": mapping(INT),
        "stun_special_effect": BOOL,
    },
    description="a Cyberpunk 2020 character's sheet",
)
PLAYER_SHEET_SCHEMA = SHEET_SCHEMA


def status_chips(state: Mapping[str, Any]) -> list[str]:
    if not state["alive"]:
        return ["dead"]
    chips = []
    if state["dying"]:
        chips.append("dying")
    if not state["conscious"]:
        chips.append("unconscious")
    if state["stunned"]:
        chips.append("stunned")
    if in_mortal_condition(state):
        chips.append("mortal")
    # Each limb by name ("left leg crippled", "right arm severed"): a crippled limb is plain to see, the player's too.
    for location, place in _places(state):
        if place["severed"]:
            chips.append(f"{_spoken(location)} {'destroyed' if location == 'head' else 'severed'}")
        elif place["crippled"]:
            # Set bones say so, as the page does: the chip read "crippled" alone while the limb mended.
            mending = " (bones set)" if place.get("mends_at") is not None else ""
            chips.append(f"{_spoken(location)} crippled{mending}")
    return chips


def _limbs_words(limbs: list[str]) -> str:
    """'the left leg', 'the left leg and the right arm'."""
    named = [f"the {_spoken(limb)}" for limb in limbs]
    return " and ".join(filter(None, (", ".join(named[:-1]), *named[-1:])))


def _death_save_words(state: Mapping[str, Any], timer: Timer) -> str:
    """The clock's next death save and what stops them: waking up, or stabilizing each crippled limb."""
    limbs = limbs_awaiting_stabilization(state)
    until = f"until {_limbs_words(limbs)} {'is' if len(limbs) == 1 else 'are'} stabilized" if limbs else ""
    if state["conscious"]:
        return f"next death save, {until}" if until else "next death save"
    return f"next death save, to wake up{f' and {until}' if until else ''}"


def symptoms(state: Mapping[str, Any]) -> list[str]:
    if not state["alive"]:
        return []  # the status says "dead": a body has no symptoms to treat (as in every ruleset)
    texts = []
    level = wound_level_of(track(state))
    if level != "none":
        texts.append(f"Wound level {level.replace('_', ' ')} ({track(state)} of 40 points).")
    if state["dying"]:
        texts.append(
            "Unconscious and bleeding out: dies at the end of the turn unless a doctor stabilizes them."
        )
    elif state["alive"] and not state["conscious"]:
        texts.append("Unconscious: wakes with a successful death save (one each turn).")
    if state["alive"] and state["stunned"]:
        texts.append("Stunned: out of action until a stun save succeeds.")
    for location, place in _places(state):
        if place["severed"]:
            texts.append(
                f"{_spoken(location).capitalize()} {'destroyed' if location == 'head' else 'severed'}."
            )
        elif place["crippled"] and place.get("mends_at") is not None:
            texts.append(f"{_spoken(location).capitalize()} crippled (bones set): unusable until they mend.")
        elif place["crippled"]:
            what = "cracked skull or broken jaw" if location == "head" else "broken bones"
            texts.append(f"{_spoken(location).capitalize()} crippled ({what}): unusable.")
        if place.get("replacement") and not place["severed"]:
            texts.append(f"{_spoken(location).capitalize()} replaced: {place['replacement']}.")
    if state["minor_wounds"]:
        texts.append(f"{words.count(len(state['minor_wounds']), 'minor wound')}: dings, bruises and scrapes.")
    return texts


def warnings(state: Mapping[str, Any]) -> list[str]:
    if not state["alive"]:
        return []
    found = []
    for limb in limbs_awaiting_stabilization(state):
        found.append(f"{_spoken(limb).capitalize()} crippled and not stabilized: a death save every turn.")
    target = death_save_target(state)
    if death_save_pending(state) and not state["conscious"] and target <= 0:
        found.append(f"Death save target {target}: cannot wake until healing raises it.")
    if limbs_awaiting_stabilization(state) and target >= 10:
        found.append(f"Death save target {target}: the every-turn death saves cannot fail.")
    if state["stunned"] and stun_save_target(state) <= 0:
        found.append(f"Stun save target {stun_save_target(state)}: cannot recover until healing raises it.")
    if state["stun_special_effect"]:
        found.append("Over 8 stun points in one attack: the Ref may add a special effect.")
    if state["damage"] > len(state["minor_wounds"]) and state["healing_skill"] is None:
        found.append("Untreated wounds do not heal: needs first aid or medical tech.")
    return found


def real_damage_healed_at(state: Mapping[str, Any], now: int | None = None) -> int:
    """When treated real damage is all healed, as the clock fires it (`engine.timers`, no dice): a point each
    healing period from the anchor, while each pending minor wound stops counting on its own a day after it was
    taken, once the track is out of mortal condition (stun damage healing a point an hour brings it there), and
    healed points take the oldest minor wounds with them. So a minor wound pending shortens the wait by a period
    (a day with medical tech): the recovery forecast's date, which runs the same clock. From the campaign's time
    `now` when the state's last event is before it: what is overdue then fires at once (`fires_at`)."""
    damage, stun, last = state["damage"], state["stun_damage"], fires_at(state["last_event_at"], now)
    per = state["healing_seconds_per_point"]
    heal_at = max(state["heal_anchor"] + per, last)
    stun_at = max((state["stun_heal_anchor"] or last) + tables.STUN_HEALS_EVERY, last)
    minors = [wound["taken_at"] for wound in state["minor_wounds"]]  # oldest first
    left_mortal_at = state["left_mortal_at"]
    at = last
    while damage > 0:
        mortal = damage + stun > tables.MORTAL_CONDITION_OVER
        # The next firing, in the clock's order: the earliest, then stun (30) before minor wounds (35) before healing.
        choices = [(heal_at, 40, "heal")]
        if stun > 0:
            choices.append((stun_at, 30, "stun"))
        if minors and not mortal:
            choices.append(
                (max(minors[0] + tables.MINOR_WOUND_HEALS_AFTER, left_mortal_at, last), 35, "minor")
            )
        at, _, kind = min(choices)
        if kind == "stun":
            stun -= 1
            stun_at = at + tables.STUN_HEALS_EVERY
        elif kind == "minor":
            damage -= 1
            minors.pop(0)
        else:
            damage -= 1
            heal_at = at + per
            del minors[: max(0, len(minors) - damage)]
        if mortal and damage + stun <= tables.MORTAL_CONDITION_OVER:
            left_mortal_at = at
    return at


def recovery(state: Mapping[str, Any], audience: str, now: int | None = None) -> list[dict[str, Any]]:
    """What heals and when, as the clock fires it with the campaign's time at `now` (`fires_at`): a chain (a stun
    point an hour) starts where its first link fires."""
    if not state["alive"]:
        return []
    items: list[dict[str, Any]] = []
    if state["stun_damage"] > 0:
        first = fires_at(state["stun_heal_anchor"] + tables.STUN_HEALS_EVERY, now)
        items.append(
            {
                "what": f"stun damage ({state['stun_damage']} points, 1 per hour)",
                "ends_at": first + (state["stun_damage"] - 1) * tables.STUN_HEALS_EVERY,
            }
        )
    for wound in state["minor_wounds"]:
        ends_at = None
        if not in_mortal_condition(state):
            ends_at = fires_at(
                max(wound["taken_at"] + tables.MINOR_WOUND_HEALS_AFTER, state["left_mortal_at"]), now
            )
        item = {"what": "minor wound stops counting", "ends_at": ends_at}
        if ends_at is None:
            item["why"] = "it counts while the wound track is in mortal condition"
        items.append(item)
    if state["damage"] > 0:
        ends_at = None
        if state["healing_skill"] is not None:
            ends_at = real_damage_healed_at(state, now)
        item = {"what": f"real damage ({state['damage']} points)", "ends_at": ends_at}
        if ends_at is None:
            item["why"] = "real damage heals once treated: the treatment sets its rate"
        items.append(item)
    for location, place in _places(state):
        if place.get("mends_at") is not None:
            items.append(
                {
                    "what": f"the {_spoken(location)}'s set bones mend",
                    "ends_at": fires_at(place["mends_at"], now),
                }
            )
    if state["stunned"]:
        items.append({"what": "stunned", "ends_at": None, "why": "a stun save each round ends it"})
    if state["dying"]:
        items.append({"what": "dying", "ends_at": death_at(state, now) if audience == GM else None})
    return items


def death_at(state: Mapping[str, Any], now: int | None) -> int | None:
    """The time of death the GM reads, everywhere: when the clock fires the death (`fires_at`), the end of the turn
    the character started dying, or the campaign's time when an undo or a revert left it in the past."""
    if not state["alive"] or not state["dying"] or state["death_at"] is None:
        return None
    return fires_at(state["death_at"], now)


def status(state: State, now: int | None = None) -> dict[str, Any]:
    """view(state, GM, now)'s alive, conscious, dying and death_at, without building the rest of the view."""
    return {
        "alive": state["alive"],
        "conscious": state["conscious"],
        "dying": state["dying"],
        "death_at": death_at(state, now),
    }


# What stops a dying character's death (docs/rules/README.md, "What players see"): a stabilization, never a treatment.
SAVED_BY = "stabilized"


def view(state: State, audience: str, now: int | None = None) -> dict[str, Any]:
    result = {
        "alive": state["alive"],
        "conscious": state["conscious"],
        "dying": state["dying"],
        "death_at": death_at(state, now) if audience == GM else None,
        "cause_of_death": state["cause_of_death"],
        "sheet": sheet(state),
        "status": status_chips(state),
        "symptoms": symptoms(state),
        "warnings": warnings(state),
        "recovery": recovery(state, audience, now),
    }
    return result


def public_event(event: Event) -> dict[str, Any] | None:
    """Players see everything about their own character except GM notes and the moment of death."""
    if event.type == NOTE_ADDED:
        return None
    return {key: copy.deepcopy(value) for key, value in event.data.items() if key != "death_at"}


def shows(event: Event) -> bool:
    """`public_event(event) is not None` for any event but a note: a player sees every other entry."""
    return event.type != NOTE_ADDED


# What each timer will do, for the GM (the character page's clock, now or in the past).
TIMER_WORDS = {
    "death": f"dies {words.unless(SAVED_BY)}",
    "death_save": _death_save_words,
    "stun_save": "next stun save",
    "stun_heal": "a stun point heals",
    "minor_wound": "a minor wound heals",
    "heal": "a point of damage heals",
    "bone_mend": lambda state, timer: f"the bones of the {_spoken(timer.data['limb'])} mend",
}

# ----------------------------------------------------------------------------------------------------------------
# The game's words for one history entry or an action's answer (rules/words.py). A player's data lacks `death_at`
# alone, and `describe` never needs it: the GM's answer tells the time left from the state (`said`).

OUTCOMES = {
    "survived": "survived",
    "woke": "woke up",
    "dying": "is dying",
    "unconscious": "fell unconscious",
    "stayed_unconscious": "stays unconscious",
}


def _where(hit: Mapping[str, Any] | None) -> str:
    if not hit:
        return "the whole body"
    return f"the {hit.get('part') or _spoken(hit['location'])}"


def _save(name: str, data: Mapping[str, Any]) -> str:
    if data.get("automatic"):
        return f"{name}: automatic"
    if data.get("certain"):  # not asked at the table (rules/dice.py `Dice.unasked`): no die to name
        return (
            f"{name}: made (it could not fail)"
            if data["success"]
            else f"{name}: failed (it could not succeed)"
        )
    roll = f"rolled {data['roll']}" if data.get("roll") is not None else "no roll"
    return f"{name}: {roll} against {data['target']}, {'made' if data['success'] else 'failed'}"


def _skill_roll(data: Mapping[str, Any]) -> str:
    """'Doc (medical tech) rolled 20 against 27'; a roll no d10 could turn (never asked at the table, rules/dice.py
    `certain`) says so instead of naming a die nobody rolled: 'needed 27, and TECH 6 + skill 5 + a d10 make 21 at
    most'."""
    medic, difficulty = data.get("medic") or "The medic", data["difficulty"]
    who = f"{medic} ({_spoken(data['skill'])})"
    tech, level = data.get("tech"), data.get("skill_level")
    if tech is not None and level is not None and data.get("roll") is not None:
        parts = f"TECH {tech} + skill {level}"
        if tech + level + 10 < difficulty:
            return f"{who} needed {difficulty}, and {parts} + a d10 make {tech + level + 10} at most"
        if tech + level + 1 >= difficulty:
            return f"{who} needed {difficulty}, and {parts} make it whatever the d10"
    return f"{who} rolled {data['total']} against {difficulty}"


def _sever_check(check: Mapping[str, Any], kept: str) -> str:
    """'sever check 18 against 11: kept'; one the table was not asked for (it could not fail, or not succeed:
    rules/dice.py `Dice.unasked`) names no die nobody rolled: 'sever check: kept (it could not fail: 11 needed, Body
    10 + Luck 0 make it whatever the d10)'."""
    if not check.get("certain"):
        return f"sever check {check['total']} against {check['needed']}: {kept}"
    parts = f"Body {check['body']} + Luck {check['luck']}"
    if check["kept"]:
        return f"sever check: {kept} (it could not fail: {check['needed']} needed, {parts} make it whatever the d10)"
    most = check["body"] + check["luck"] + 10
    return f"sever check: {kept} (it could not succeed: {check['needed']} needed, {parts} + a d10 make {most} at most)"


def _certain_skill_roll(who: str, data: Mapping[str, Any]) -> str | None:
    """A TECH + skill + d10 roll the table was not asked for (rules/dice.py `Dice.unasked`), in words that name no
    die: 'needed 15, and TECH 9 + skill 9 make it whatever the d10'; None for a rolled one."""
    tech, level, difficulty = data.get("tech"), data.get("skill_level"), data["difficulty"]
    if not data.get("certain") or tech is None or level is None:
        return None
    parts = f"TECH {tech} + skill {level}"
    if data["success"]:
        return f"{who} needed {difficulty}, and {parts} make it whatever the d10"
    return f"{who} needed {difficulty}, and {parts} + a d10 make {tech + level + 10} at most"


def _target(target: str) -> str:
    return "the dying character" if target == "dying" else f"the {_spoken(target.removeprefix('limb:'))}"


def _damage_taken(event: Event) -> str:
    data = event.data
    text = f"{data['damage']} {data['kind']} damage to {_where(data.get('hit'))}"
    if "sp" in data:
        text += f" (SP {data['sp']}, BTM {data['btm']})"
    taken = []
    if data["real_points"]:
        taken.append(words.count(data["real_points"], "point"))
    if data["stun_points"]:
        taken.append(words.count(data["stun_points"], "stun point"))
    return text + (f": {' and '.join(taken)} on the track." if taken else ": no harm.")


def _damage_stopped_by_armor(event: Event) -> str:
    data = event.data
    return f"{data['damage']} {data['kind']} damage to {_where(data.get('hit'))}: stopped by armor."


def _hit_missed_severed_limb(event: Event) -> str:
    data = event.data
    return f"{data['damage']} damage at {_where(data.get('hit'))}: the limb is gone, the hit misses."


def _limb_crippled(event: Event) -> str:
    data = event.data
    check = data["sever_check"]
    kept = "kept" if check["kept"] else ("destroyed" if data["location"] == "head" else "severed")
    return (
        f"{words.capital(_spoken(data['location']))} crippled ({words.count(data['location_damage'], 'point')});"
        f" {_sever_check(check, kept)}."
    )


def _stun_save_rolled(event: Event) -> str:
    data = event.data
    return _save("Stun save", data) + "."


def _death_save_rolled(event: Event) -> str:
    data = event.data
    return f"{_save('Death save', data)}: {OUTCOMES[data['outcome']]}."


# The cause too: the history and the Undo button say why ("Died: bled out").
def _death_occurred(event: Event) -> str:
    data = event.data
    return f"Died: {data['cause']}." if data.get("cause") else "Died."


def _stabilization(event: Event) -> str:
    data = event.data
    done = "stabilized" if event.type == STABILIZATION_SUCCEEDED else "could not stabilize"
    return f"{_skill_roll(data)}: {done} {_target(data['target'])}."


def _treatment_succeeded(event: Event) -> str:
    data = event.data
    rate = words.count(data["healing_rate"], "point")
    return f"{_skill_roll(data)}: treated; heals {rate} a day."


def _treatment_failed(event: Event) -> str:
    data = event.data
    return f"{_skill_roll(data)}: treatment failed."


def _stun_damage_healed(event: Event) -> str:
    data = event.data
    return f"{words.count(data['points'], 'stun point')} healed; {data['stun_damage']} left."


def _minor_wound_healed(event: Event) -> str:
    return "A minor wound stopped counting."


def _damage_healed(event: Event) -> str:
    data = event.data
    return f"{words.count(data['points'], 'point')} healed; {words.count(data['damage'], 'point')} of damage left."


def _limb_words(event: Event) -> str:
    """Setting a crippled limb's bones, their mending, a limb replaced (house rules: docs/rules/cyberpunk2020.md,
    "Broken bones and replaced limbs")."""
    data, kind = event.data, event.type
    limb = _spoken(data["limb"])
    if kind == BONES_MENDED:
        return f"The {limb}'s bones mended: the limb works again."
    if kind == LIMB_REPLACED:
        return f"The {data['was']} {limb} replaced ({data['replacement']}): usable at once."
    medic = data.get("medic") or "The medic"
    roll = _certain_skill_roll(medic, data) or f"{medic} rolled {data['total']} against {data['difficulty']}"
    if kind == BONE_SETTING_FAILED:
        return f"{roll}: could not set the {limb}'s bones."
    weeks = words.count(data["mend_weeks"], "week")
    return f"{roll}: the {limb}'s bones set; they mend in {weeks} ({game_time_mark(data['mends_at'])})."


# Each event type's sentence (rules/words.py), as the deciders and evolvers are tables.
SENTENCES: dict[str, Callable[[Event], str]] = {
    DAMAGE_TAKEN: _damage_taken,
    DAMAGE_STOPPED_BY_ARMOR: _damage_stopped_by_armor,
    HIT_MISSED_SEVERED_LIMB: _hit_missed_severed_limb,
    LIMB_CRIPPLED: _limb_crippled,
    STUN_SAVE_ROLLED: _stun_save_rolled,
    DEATH_SAVE_ROLLED: _death_save_rolled,
    DEATH_OCCURRED: _death_occurred,
    STABILIZATION_SUCCEEDED: _stabilization,
    STABILIZATION_FAILED: _stabilization,
    TREATMENT_SUCCEEDED: _treatment_succeeded,
    TREATMENT_FAILED: _treatment_failed,
    STUN_DAMAGE_HEALED: _stun_damage_healed,
    MINOR_WOUND_HEALED: _minor_wound_healed,
    DAMAGE_HEALED: _damage_healed,
    BONES_SET: _limb_words,
    BONE_SETTING_FAILED: _limb_words,
    BONES_MENDED: _limb_words,
    LIMB_REPLACED: _limb_words,
}


# What a notification out of the game says happened, by event type (`rules.ruleset.NOTICE_KINDS`): the events that
# wound or heal. Dying, stabilized, dead and fit for action are read from the states before and after.
NOTICES: dict[str, str] = {
    DAMAGE_TAKEN: "wounded",
    LIMB_CRIPPLED: "wounded",
    MINOR_WOUND_HEALED: "healed",
    DAMAGE_HEALED: "healed",
    BONES_MENDED: "healed",
    DEATH_OCCURRED: "dead",
}


# The sentences of one entry and the GM's answer to an action (rules/words.py).
def saves(state: State, now: int | None = None) -> dict[str, Any]:
    """What stops a dying character's death: a stabilization (`rules.words.threat`). `timer`: the death's own."""
    return {"saved_by": SAVED_BY, "timer": "death"}


describe, said = words.speaker(SENTENCES, status, saves)
