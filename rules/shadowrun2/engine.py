"""The SRII Critical Hit System: decide, evolve, timers, fire and view (RULES.md section 1).

Timed effects and why the game clock always terminates:
- `death:<hit>` (priority 90) fires at a Mortal hit's `death_at`; dead characters have no timers at all.
- `treatment:<hit>` (priority 10) completes a treatment; at the same second it comes before a death.
- `overflow` (priority 80) adds one overflow box every `deadly_overflow_minutes` while physical is full and not
  stabilized; it always ends, since overflow above body kills.
- `healing_roll:<hit>` (30) / `healed:<hit>` (20): natural healing of a Critical hit. A roll with no success
  moves the next roll 8 weeks on, so a game year needs at most 7 rolls per hit; a roll never comes back at or
  before the second it fired.
- `physical_roll` (40) / `physical_heal` (20): the SRII physical healing stages; a failed roll waits one base time
  (24 hours to 30 days). A Deadly monitor heals only in hospital and once stabilized (or with the overflow clock
  off): otherwise there is no physical healing timer, so a year outside hospital costs no firings.
- `stun_roll` (40) / `stun_box` (20): stun recovery, one firing per box (at most 10) plus a roll per failed hour.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.dice import Dice, roll_expression
from rules.params import boolean, choice, integer, reject_unknown, require_mapping, text
from rules.ruleset import (
    GM,
    PLAYER,
    ActionForm,
    Event,
    Param,
    RollSpec,
    RuleError,
    Ruleset,
    State,
    Timer,
    copy_state,
    game_time_mark,
)
from rules.shadowrun2 import tables as t

SLUG = "shadowrun2"
ACTIONS = ("wound", "diagnose", "treat", "heal_magic", "first_aid", "replace", "set_care")

# Event types.
WOUND_TAKEN = "WoundTaken"
CRITICAL_HIT_TAKEN = "CriticalHitTaken"
DEATH_OCCURRED = "DeathOccurred"
DIAGNOSIS_MADE = "DiagnosisMade"
TREATMENT_STARTED = "TreatmentStarted"
TREATMENT_FAILED = "TreatmentFailed"
TREATMENT_COMPLETED = "TreatmentCompleted"
MAGIC_HEALING_APPLIED = "MagicHealingApplied"
FIRST_AID_GIVEN = "FirstAidGiven"
CRITICAL_HIT_REPLACED = "CriticalHitReplaced"
CARE_CHANGED = "CareChanged"
OVERFLOW_BOX_TAKEN = "OverflowBoxTaken"
CRITICAL_HEALING_ROLLED = "CriticalHealingRolled"
CRITICAL_HIT_HEALED = "CriticalHitHealed"
PHYSICAL_HEALING_ROLLED = "PhysicalHealingRolled"
PHYSICAL_DAMAGE_HEALED = "PhysicalDamageHealed"
STUN_RECOVERY_ROLLED = "StunRecoveryRolled"
STUN_BOX_RECOVERED = "StunBoxRecovered"

# Error messages the tests and the API assert on.
DEAD = "the character is dead"
UNKNOWN_ACTION = f"expected one of {', '.join(ACTIONS)}"
COMBAT_POOL_OFF = "combat pool on the Body check needs the campaign option combat_pool_on_body_check"
NOT_DIAGNOSED = "the medic does not know this critical hit is there"
CRIPPLING_UNTREATABLE = (
    "a medic cannot treat a crippling critical hit; it needs a replacement or healing magic"
)
TREATMENT_UNDER_WAY = "a treatment of this critical hit is already under way"
NOT_ACTIVE = "this critical hit is no longer active (healed or replaced)"
ALREADY_DIAGNOSED = "this critical hit is already diagnosed"
ALLOCATION_UNDIAGNOSED = (
    "the caster does not know this critical hit is there; only diagnosed hits can be targeted"
)
ALLOCATION_NEEDED = "expected an object of successes per monitor for mode allocate"
ALLOCATION_ONLY_FOR_ALLOCATE = "an allocation is only given with mode allocate"
NO_PHYSICAL_DAMAGE = "there is no physical damage to give first aid to"
FIRST_AID_TOO_LATE = "first aid must come within one game hour of the latest physical wound"
FIRST_AID_AFTER_MAGIC = "first aid cannot follow a healing spell on the same wound"
FIRST_AID_ALREADY_GIVEN = "first aid was already given for the latest physical wound"
ONLY_CRIPPLING_REPLACED = "only a crippling critical hit is replaced"
REPLACE_UNDIAGNOSED = "nobody knows this critical hit is there; diagnose it before a replacement"

DEFAULT_OPTIONS: dict[str, Any] = {
    "body_check_tn": "standard",
    "critical_category": True,
    "combat_pool_on_body_check": False,
    "stun_causes_critical_hits": False,
    "treatment_table": copy.deepcopy(t.TREATMENT_TABLE),
    "deadly_overflow_minutes": t.DEADLY_OVERFLOW_MINUTES,
}
SHARED_OPTIONS = ("start", "time_scale")  # handled by the campaign, not by this engine


# ----------------------------------------------------------------------------------------------------------------
# Options, attributes, initial state


def _treatment_table(value: Any) -> dict[str, dict[str, int]]:
    field = "options.treatment_table"
    override = require_mapping(value, field)
    reject_unknown(override, t.TREATMENT_TABLE, prefix=field)
    result = copy_state(t.TREATMENT_TABLE)
    for lethality, row in override.items():
        row_field = f"{field}.{lethality}"
        row = require_mapping(row, row_field)
        reject_unknown(row, ("tn", "base_seconds"), prefix=row_field)
        default = t.TREATMENT_TABLE[lethality]
        result[lethality] = {
            "tn": integer(row, "tn", default=default["tn"], minimum=2, maximum=30, prefix=row_field),
            "base_seconds": integer(
                row, "base_seconds", default=default["base_seconds"], minimum=1, prefix=row_field
            ),
        }
    return result


def validate_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    raw = dict(require_mapping(options, "options"))
    for shared in SHARED_OPTIONS:
        raw.pop(shared, None)
    reject_unknown(raw, DEFAULT_OPTIONS, prefix="options")
    d = DEFAULT_OPTIONS
    return {
        "body_check_tn": choice(
            raw, "body_check_tn", t.BODY_CHECK_TN, default=d["body_check_tn"], prefix="options"
        ),
        "critical_category": boolean(raw, "critical_category", default=True, prefix="options"),
        "combat_pool_on_body_check": boolean(
            raw, "combat_pool_on_body_check", default=False, prefix="options"
        ),
        "stun_causes_critical_hits": boolean(
            raw, "stun_causes_critical_hits", default=False, prefix="options"
        ),
        "treatment_table": _treatment_table(raw.get("treatment_table")),
        "deadly_overflow_minutes": integer(
            raw,
            "deadly_overflow_minutes",
            default=d["deadly_overflow_minutes"],
            minimum=0,
            maximum=10_000,
            prefix="options",
        ),
    }


MAX_ATTRIBUTE = 99


def validate_attributes(attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    raw = require_mapping(attributes, "attributes")
    reject_unknown(raw, ("body", "willpower"), prefix="attributes")
    body = integer(raw, "body", minimum=1, maximum=MAX_ATTRIBUTE, prefix="attributes")
    willpower = integer(raw, "willpower", default=body, minimum=1, maximum=MAX_ATTRIBUTE, prefix="attributes")
    return {"body": body, "willpower": willpower}


def initial_state(attributes: Mapping[str, Any], options: Mapping[str, Any]) -> State:
    return {
        "attributes": validate_attributes(attributes),
        "options": validate_options(options),
        "alive": True,
        "death": None,
        "physical": 0,
        "stun": 0,
        "physical_overflow": 0,
        "stabilized": False,
        "overflow_clock": None,
        "in_hospital": False,
        "critical_hits": [],
        "next_critical_hit": 1,
        "failed_diagnoses": [],
        "last_physical_wound_at": None,
        "first_aid_given": False,
        "magic_since_wound": False,
        "physical_healing": None,
        "stun_recovery": None,
    }


# ----------------------------------------------------------------------------------------------------------------
# Small rules in the game's words


def level(boxes: int) -> str | None:
    return t.LEVEL_BY_BOXES[max(0, min(t.MONITOR_BOXES, boxes))]


def modifier(boxes: int) -> int:
    return t.LEVEL_MODIFIER[level(boxes)]


def lethality_of(boxes: int) -> str:
    """Rule 8: lethality always follows the hit's own monitor."""
    if boxes >= 10:
        return "mortal"
    if boxes >= 6:
        return "crippling"
    if boxes >= 1:
        return "critical"
    return "healed"


def lethality_for_successes(successes: int, critical_category: bool) -> str | None:
    table = t.LETHALITY_BY_SUCCESSES if critical_category else t.LETHALITY_BY_SUCCESSES_WITHOUT_CRITICAL
    return table.get(successes)


def body_range_modifier(body: int, ranges: tuple[tuple[int, int | None, int], ...]) -> int:
    for low, high, mod in ranges:
        if body >= low and (high is None or body <= high):
            return mod
    return 0


def is_active(hit: Mapping[str, Any]) -> bool:
    return hit["status"] == "active"


def hit_penalty(hit: Mapping[str, Any]) -> int:
    return modifier(hit["boxes"]) if is_active(hit) else 0


def general_modifier(state: Mapping[str, Any]) -> int:
    """Physical and stun level modifiers are cumulative in SRII."""
    return modifier(state["physical"]) + modifier(state["stun"])


def overflow_interval(state: Mapping[str, Any]) -> int:
    return state["options"]["deadly_overflow_minutes"] * t.MINUTE


def conscious(state: Mapping[str, Any]) -> bool:
    return state["alive"] and state["physical"] < t.MONITOR_BOXES and state["stun"] < t.MONITOR_BOXES


def death_time_seconds(expression: str, dice: Dice) -> tuple[int, list[int]]:
    """`1d6x10 min` -> seconds, with the dice used (the `death_time` roll)."""
    dice_part, unit = expression.split(" ")
    value, faces = roll_expression(dice, "death_time", dice_part)
    seconds = value * t.TIME_UNIT_SECONDS[unit]
    return int(seconds), faces


def natural_healing_target(state: Mapping[str, Any], hit: Mapping[str, Any]) -> tuple[int, dict[str, int]]:
    mods: dict[str, int] = {}
    if not state["in_hospital"]:
        mods["not_in_hospital"] = t.NATURAL_HEALING_NOT_IN_HOSPITAL
    if not hit["treated"]:
        if hit["improperly_treated"]:
            mods["improperly_treated"] = t.NATURAL_HEALING_IMPROPERLY_TREATED
        else:
            mods["not_treated"] = t.NATURAL_HEALING_NOT_TREATED
    body_mod = body_range_modifier(state["attributes"]["body"], t.NATURAL_HEALING_BODY)
    if body_mod:
        mods["body"] = body_mod
    return t.NATURAL_HEALING_BASE_TN + sum(mods.values()), mods


def first_aid_target(state: Mapping[str, Any], medkit: bool, defaulting: bool) -> int:
    tn = t.FIRST_AID_TN[level(state["physical"])]
    tn += body_range_modifier(state["attributes"]["body"], t.FIRST_AID_BODY)
    if not medkit:
        tn += t.FIRST_AID_WITHOUT_MEDKIT
    if defaulting:
        tn += t.DEFAULTING_TN
    return tn


def physical_healing_possible(state: Mapping[str, Any]) -> bool:
    """Deadly heals only in hospital, and not while the overflow clock still runs."""
    if state["physical"] == 0 and state["physical_overflow"] == 0:
        return False
    if level(state["physical"]) == "D":
        return state["in_hospital"] and (state["stabilized"] or overflow_interval(state) == 0)
    return True


# ----------------------------------------------------------------------------------------------------------------
# decide


def _hit(state: Mapping[str, Any], hit_id: Any, field: str = "critical_hit") -> dict[str, Any]:
    if not isinstance(hit_id, str) or not hit_id:
        raise RuleError(field, f"expected a critical hit id such as ch1, got {hit_id!r}")
    for hit in state["critical_hits"]:
        if hit["id"] == hit_id:
            return hit
    raise RuleError(field, f"no critical hit {hit_id} on this character")


def _medic_params(action: Mapping[str, Any]) -> tuple[str, int, bool]:
    medic = text(action, "medic")
    if not medic:
        raise RuleError("medic", "this field is required: expected the medic's name")
    skill = integer(action, "skill", minimum=1, maximum=MAX_ATTRIBUTE)
    defaulting = boolean(action, "defaulting", default=False)
    return medic, skill, defaulting


def _damage_outcome(state: Mapping[str, Any], boxes: int, damage: str) -> dict[str, int]:
    """Stun beyond 10 carries into physical; physical beyond 10 goes into overflow."""
    stun = state["stun"]
    to_physical = boxes
    carried = 0
    if damage == "stun":
        stun += boxes
        carried = max(0, stun - t.MONITOR_BOXES)
        stun = min(stun, t.MONITOR_BOXES)
        to_physical = carried
    physical = state["physical"] + to_physical
    overflow = state["physical_overflow"] + max(0, physical - t.MONITOR_BOXES)
    return {
        "stun": stun,
        "physical": min(physical, t.MONITOR_BOXES),
        "physical_overflow": overflow,
        "carried_to_physical": carried,
        "physical_added": to_physical,
    }


def decide_wound(state: State, action: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    options = state["options"]
    severity = choice(action, "severity", t.WOUND_BOXES)
    damage = choice(action, "damage", ("physical", "stun"), default="physical")
    open_wound = boolean(action, "open_wound", default=True)
    combat_pool = 0
    if "combat_pool" in action and action["combat_pool"] is not None:
        if not options["combat_pool_on_body_check"]:
            raise RuleError("combat_pool", COMBAT_POOL_OFF)
        combat_pool = integer(action, "combat_pool", minimum=0, maximum=MAX_ATTRIBUTE)

    boxes = t.WOUND_BOXES[severity]
    outcome = _damage_outcome(state, boxes, damage)
    dies = outcome["physical_overflow"] > state["attributes"]["body"]

    body_check = None
    lethality = None
    tn = t.BODY_CHECK_TN[options["body_check_tn"]][severity]
    checks = damage == "physical" or options["stun_causes_critical_hits"]
    if checks and tn is not None and not dies:
        # Each wound is checked on its own: no wound modifiers apply to this test.
        pool = state["attributes"]["body"] + combat_pool
        test = dice.success_test("body_check", pool, tn)
        body_check = {**test.as_data(), "combat_pool": combat_pool}
        lethality = lethality_for_successes(test.successes, options["critical_category"])

    events = [
        Event(
            WOUND_TAKEN,
            {
                "severity": severity,
                "damage": damage,
                "boxes": boxes,
                "open_wound": open_wound,
                "stun": outcome["stun"],
                "physical": outcome["physical"],
                "physical_overflow": outcome["physical_overflow"],
                "carried_to_physical": outcome["carried_to_physical"],
                "physical_added": outcome["physical_added"],
                "body_check": body_check,
            },
            now,
        )
    ]
    if lethality is not None:
        events.append(_critical_hit_taken(state, lethality, open_wound, dice, now))
    if dies:
        events.append(Event(DEATH_OCCURRED, {"cause": "overflow", "critical_hit": None}, now))
    return events


def _critical_hit_taken(state: State, lethality: str, open_wound: bool, dice: Dice, now: int) -> Event:
    location_roll = dice.roll("location", 2, 6)
    location = t.HIT_LOCATION[sum(location_roll)]
    table = t.TABLE_FOR_LOCATION[location]
    critical_roll = dice.die("critical", 6)
    part, reason, time_expression, diagnose_tn, asterisk = t.CRITICAL_HIT_TABLE[table][critical_roll]
    death_after = None
    death_dice: list[int] = []
    if lethality == "mortal":
        death_after, death_dice = death_time_seconds(time_expression, dice)
    return Event(
        CRITICAL_HIT_TAKEN,
        {
            "critical_hit": f"ch{state['next_critical_hit']}",
            "lethality": lethality,
            "boxes": t.CRITICAL_HIT_BOXES[lethality],
            "location_roll": location_roll,
            "location": location,
            "table": table,
            "critical_roll": critical_roll,
            "part": part,
            "reason": reason,
            "time_expression": time_expression,
            "diagnose_tn": diagnose_tn,
            "diagnosed_automatically_when_open": asterisk,
            "open_wound": open_wound,
            "symptom": t.SYMPTOMS[table][critical_roll],
            "death_time_dice": death_dice,
            "death_after_seconds": death_after,
            "death_at": None if death_after is None else now + death_after,
        },
        now,
    )


def _retry_blocked(state: Mapping[str, Any], medic: str, hit_id: str, now: int) -> int | None:
    """When the same medic failed on this hit less than a game minute ago: the second they may try again."""
    for failure in state["failed_diagnoses"]:
        if failure["medic"] == medic and failure["critical_hit"] == hit_id:
            again = failure["game_time"] + t.DIAGNOSIS_RETRY_SECONDS
            if now < again:
                return again
    return None


def retry_too_soon(medic: str, hit_id: str, failed_at: int, again: int) -> str:
    return (
        f"{medic} failed to diagnose critical hit {hit_id} at {failed_at}; the same medic may try again on that "
        f"hit only after 1 game minute (at {again})"
    )


def _rolled_on_sight(hit: dict[str, Any]) -> bool:
    return bool(hit["diagnosed_automatically_when_open"] and hit["open_wound"])


def _every_hit_to_diagnose(state: State, dice: Dice) -> list[tuple[dict[str, Any], str]]:
    """Every undiagnosed hit with the name of its roll: `diagnosis:<id>`, or `diagnosis` when one hit alone needs a
    roll (RULES.md: `diagnosis` is one hit's). Dice entered as `diagnosis` while several hits need one would fit
    none of them: refused, not rolled over in silence."""
    hits = [hit for hit in state["critical_hits"] if is_active(hit) and not hit["diagnosed"]]
    rolled = [hit for hit in hits if not _rolled_on_sight(hit)]
    if dice.entered_for("diagnosis") and len(rolled) > 1:
        raise RuleError(
            "rolls.diagnosis",
            f"{len(rolled)} hits need a diagnosis roll ({', '.join(hit['id'] for hit in rolled)}): choose the hit, "
            "or enter each hit's dice as diagnosis:<id>",
        )
    alone = len(rolled) == 1 and not dice.entered_for(f"diagnosis:{rolled[0]['id']}")
    return [(hit, "diagnosis" if alone and hit is rolled[0] else f"diagnosis:{hit['id']}") for hit in hits]


def decide_diagnose(state: State, action: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    medic, skill, defaulting = _medic_params(action)
    assensing = boolean(action, "assensing", default=False)
    hit_id = action.get("critical_hit")
    if hit_id is not None:
        hit = _hit(state, hit_id)
        if not is_active(hit):
            raise RuleError("critical_hit", NOT_ACTIVE)
        if hit["diagnosed"]:
            raise RuleError("critical_hit", ALREADY_DIAGNOSED)
        targets = [(hit, "diagnosis")]
    else:
        targets = _every_hit_to_diagnose(state, dice)
    for hit, _ in targets:
        again = _retry_blocked(state, medic, hit["id"], now)
        if again is not None:
            raise RuleError(
                "critical_hit" if hit_id is not None else "medic",
                retry_too_soon(medic, hit["id"], again - t.DIAGNOSIS_RETRY_SECONDS, again),
            )

    results = []
    for hit, roll_name in targets:
        result: dict[str, Any] = {
            "critical_hit": hit["id"],
            "location": hit["location"],
            "part": hit["part"],
            "lethality": hit["lethality"],
        }
        if _rolled_on_sight(hit):
            result.update(automatic=True, target=None, dice=[], successes=None, diagnosed=True)
        else:
            tn = (
                hit["diagnose_tn"]
                + (t.DEFAULTING_TN if defaulting else 0)
                + (t.ASSENSING_TN if assensing else 0)
            )
            test = dice.success_test(roll_name, skill, tn)
            result.update(
                automatic=False,
                target=test.target,
                dice=list(test.dice),
                successes=test.successes,
                diagnosed=test.successes >= 1,
            )
        results.append(result)
    data = {
        "medic": medic,
        "skill": skill,
        "defaulting": defaulting,
        "assensing": assensing,
        "results": results,
    }
    return [Event(DIAGNOSIS_MADE, data, now)]


def decide_treat(state: State, action: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    hit = _hit(state, action.get("critical_hit"))
    medic, skill, defaulting = _medic_params(action)
    if not is_active(hit):
        raise RuleError("critical_hit", NOT_ACTIVE)
    if not hit["diagnosed"]:
        raise RuleError("critical_hit", NOT_DIAGNOSED)
    if hit["lethality"] == "crippling":
        raise RuleError("critical_hit", CRIPPLING_UNTREATABLE)
    if hit["treatment"] is not None:
        raise RuleError("critical_hit", TREATMENT_UNDER_WAY)
    row = state["options"]["treatment_table"][hit["lethality"]]
    tn = row["tn"] + (t.DEFAULTING_TN if defaulting else 0)
    test = dice.success_test("treatment", skill, tn)
    data: dict[str, Any] = {
        "critical_hit": hit["id"],
        "medic": medic,
        "skill": skill,
        "defaulting": defaulting,
        "lethality": hit["lethality"],
        **test.as_data(),
    }
    if test.successes == 0:
        return [Event(TREATMENT_FAILED, data, now)]
    duration = row["base_seconds"] // test.successes
    data.update(base_seconds=row["base_seconds"], duration=duration, completes_at=now + duration)
    return [Event(TREATMENT_STARTED, data, now)]


def _allocation(state: State, action: Mapping[str, Any], successes: int) -> dict[str, int]:
    allocation = action.get("allocation")
    if allocation is None:
        raise RuleError("allocation", ALLOCATION_NEEDED)
    allocation = require_mapping(allocation, "allocation")
    shares: dict[str, int] = {}
    for key in allocation:
        field = f"allocation.{key}"
        if key != "physical":
            if not isinstance(key, str) or not any(h["id"] == key for h in state["critical_hits"]):
                raise RuleError(field, f"expected physical or a critical hit id, got {key!r}")
            hit = _hit(state, key, field)
            if not hit["diagnosed"]:
                raise RuleError(field, ALLOCATION_UNDIAGNOSED)
            if not is_active(hit):
                raise RuleError(field, NOT_ACTIVE)
        shares[key] = integer(allocation, key, minimum=0, prefix="allocation")
    total = sum(shares.values())
    if total > successes:
        raise RuleError("allocation", f"allocates {total} successes, expected at most {successes}")
    return shares


def split_evenly(successes: int, hit_ids: list[str]) -> dict[str, int]:
    """Seed: even shares between physical and every active hit; physical gets the remainder (10, 2 hits: 4/3/3)."""
    share, remainder = divmod(successes, 1 + len(hit_ids))
    return {"physical": share + remainder, **{hit_id: share for hit_id in hit_ids}}


def decide_heal_magic(state: State, action: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    successes = integer(action, "successes", minimum=0, maximum=1000)
    mode = choice(action, "mode", ("allocate", "damage_only", "split_evenly"))
    if mode != "allocate" and action.get("allocation") is not None:
        raise RuleError("allocation", ALLOCATION_ONLY_FOR_ALLOCATE)
    active = [hit for hit in state["critical_hits"] if is_active(hit)]
    if mode == "allocate":
        shares = _allocation(state, action, successes)
    elif mode == "damage_only":
        shares = {"physical": successes}
    else:
        shares = split_evenly(successes, [hit["id"] for hit in active])

    given = shares.get("physical", 0)
    # Overflow is the damage beyond the monitor: it is erased first.
    from_overflow = min(given, state["physical_overflow"])
    from_physical = min(given - from_overflow, state["physical"])
    physical = {
        "given": given,
        "erased_overflow": from_overflow,
        "erased": from_physical,
        "physical_overflow": state["physical_overflow"] - from_overflow,
        "boxes": state["physical"] - from_physical,
    }
    hits = []
    for hit in active:
        if hit["id"] not in shares:
            continue
        erased = min(shares[hit["id"]], hit["boxes"])
        boxes = hit["boxes"] - erased
        hits.append(
            {
                "critical_hit": hit["id"],
                "diagnosed": hit["diagnosed"],
                "part": hit["part"],
                "given": shares[hit["id"]],
                "erased": erased,
                "boxes": boxes,
                "lethality": lethality_of(boxes),
            }
        )
    data = {
        "successes": successes,
        "mode": mode,
        "shares": shares,
        "physical": physical,
        "critical_hits": hits,
    }
    return [Event(MAGIC_HEALING_APPLIED, data, now)]


def decide_first_aid(state: State, action: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    medic, skill, defaulting = _medic_params(action)
    medkit = boolean(action, "medkit", default=True)
    if state["physical"] == 0:
        raise RuleError("type", NO_PHYSICAL_DAMAGE)
    wound_at = state["last_physical_wound_at"]
    if wound_at is None or now - wound_at > t.FIRST_AID_WINDOW_SECONDS:
        raise RuleError("type", FIRST_AID_TOO_LATE)
    if state["magic_since_wound"]:
        raise RuleError("type", FIRST_AID_AFTER_MAGIC)
    if state["first_aid_given"]:
        raise RuleError("type", FIRST_AID_ALREADY_GIVEN)
    wound_level = level(state["physical"])
    test = dice.success_test("first_aid", skill, first_aid_target(state, medkit, defaulting))
    boxes = state["physical"]
    stabilized = state["stabilized"]
    if wound_level == "D":
        # On a Deadly monitor first aid only stabilizes: the overflow clock stops.
        stabilized = stabilized or test.successes >= 1
    else:
        boxes = max(t.FIRST_AID_FLOOR[wound_level], boxes - test.successes)
    data = {
        "medic": medic,
        "skill": skill,
        "defaulting": defaulting,
        "medkit": medkit,
        "level": wound_level,
        **test.as_data(),
        "boxes_before": state["physical"],
        "boxes": boxes,
        "stabilized": stabilized,
    }
    return [Event(FIRST_AID_GIVEN, data, now)]


def decide_replace(state: State, action: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    hit = _hit(state, action.get("critical_hit"))
    replacement = text(action, "replacement")
    if not replacement:
        raise RuleError("replacement", "this field is required: expected a text")
    if not is_active(hit):
        raise RuleError("critical_hit", NOT_ACTIVE)
    if not hit["diagnosed"]:
        raise RuleError("critical_hit", REPLACE_UNDIAGNOSED)
    if hit["lethality"] != "crippling":
        raise RuleError("critical_hit", f"{ONLY_CRIPPLING_REPLACED}; this one is {hit['lethality']}")
    return [Event(CRITICAL_HIT_REPLACED, {"critical_hit": hit["id"], "replacement": replacement}, now)]


def decide_set_care(state: State, action: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    return [Event(CARE_CHANGED, {"in_hospital": boolean(action, "in_hospital")}, now)]


DECIDERS = {
    "wound": decide_wound,
    "diagnose": decide_diagnose,
    "treat": decide_treat,
    "heal_magic": decide_heal_magic,
    "first_aid": decide_first_aid,
    "replace": decide_replace,
    "set_care": decide_set_care,
}


def decide(state: State, action: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    action = require_mapping(action, "action")
    kind = action.get("type")
    if kind not in DECIDERS:
        raise RuleError("type", f"{UNKNOWN_ACTION}, got {kind!r}")
    if not state["alive"]:
        raise RuleError("type", DEAD)
    return DECIDERS[kind](state, action, dice, now)


# ----------------------------------------------------------------------------------------------------------------
# evolve


def _find(state: State, hit_id: str) -> dict[str, Any]:
    for hit in state["critical_hits"]:
        if hit["id"] == hit_id:
            return hit
    raise KeyError(hit_id)  # an event names a hit its own stream created: cannot happen on a true replay


def _set_hit_boxes(hit: dict[str, Any], boxes: int, now: int) -> None:
    """Rule 8, and what a change of lethality starts or stops."""
    before = hit["lethality"]
    hit["boxes"] = boxes
    hit["lethality"] = lethality_of(boxes)
    if hit["lethality"] != "mortal":
        hit["death_at"] = None
    if boxes == 0:
        hit["status"] = "healed"
        hit["healing"] = None
        hit["heals_at"] = None
        hit["treatment"] = None
    elif hit["lethality"] == "critical" and before != "critical":
        _start_healing_period(hit, now)


def _start_healing_period(hit: dict[str, Any], now: int) -> None:
    hit["healing"] = {"next_roll_at": now}
    hit["heals_at"] = None


def _physical_changed(state: State, now: int) -> None:
    """Any change of the physical monitor starts a new healing stage; a full monitor starts the overflow clock."""
    if state["physical"] == 0 and state["physical_overflow"] == 0:
        state["physical_healing"] = None
    else:
        state["physical_healing"] = {"next_roll_at": now, "heals_at": None, "to_boxes": None}
    if state["physical"] < t.MONITOR_BOXES:
        state["overflow_clock"] = None
        state["stabilized"] = False


def _start_overflow_clock(state: State, now: int) -> None:
    interval = overflow_interval(state)
    full = state["physical"] == t.MONITOR_BOXES
    if interval and full and not state["stabilized"] and state["overflow_clock"] is None:
        state["overflow_clock"] = {"next_at": now + interval}


def _stun_changed(state: State, now: int) -> None:
    state["stun_recovery"] = {"next_roll_at": now} if state["stun"] > 0 else None


def evolve_wound_taken(state: State, data: Mapping[str, Any], now: int) -> None:
    stun_before = state["stun"]
    state["stun"] = data["stun"]
    state["physical"] = data["physical"]
    state["physical_overflow"] = data["physical_overflow"]
    if data["stun"] != stun_before:
        _stun_changed(state, now)
    if data["physical_added"] > 0:
        # New physical damage reopens the wound: a full monitor bleeds again until stabilized anew.
        state["stabilized"] = False
        state["last_physical_wound_at"] = now
        state["first_aid_given"] = False
        state["magic_since_wound"] = False
        _physical_changed(state, now)
        _start_overflow_clock(state, now)


def evolve_critical_hit_taken(state: State, data: Mapping[str, Any], now: int) -> None:
    hit = {
        "id": data["critical_hit"],
        "location": data["location"],
        "table": data["table"],
        "part": data["part"],
        "reason": data["reason"],
        "diagnose_tn": data["diagnose_tn"],
        "diagnosed_automatically_when_open": data["diagnosed_automatically_when_open"],
        "symptom": data["symptom"],
        "lethality": data["lethality"],
        "boxes": data["boxes"],
        "diagnosed": False,
        "open_wound": data["open_wound"],
        "treated": False,
        "improperly_treated": False,
        "death_at": data["death_at"],
        "status": "active",
        "heals_at": None,
        "healing": None,
        "treatment": None,
        "replacement": None,
        "taken_at": now,
    }
    if hit["lethality"] == "critical":
        _start_healing_period(hit, now)
    state["critical_hits"].append(hit)
    state["next_critical_hit"] += 1


def evolve_death(state: State, data: Mapping[str, Any], now: int) -> None:
    state["alive"] = False
    state["death"] = {"cause": data["cause"], "critical_hit": data.get("critical_hit"), "game_time": now}
    state["overflow_clock"] = None


def evolve_diagnosis(state: State, data: Mapping[str, Any], now: int) -> None:
    for result in data["results"]:
        hit = _find(state, result["critical_hit"])
        key = (data["medic"], result["critical_hit"])
        state["failed_diagnoses"] = [
            f for f in state["failed_diagnoses"] if (f["medic"], f["critical_hit"]) != key
        ]
        if result["diagnosed"]:
            hit["diagnosed"] = True
        else:
            state["failed_diagnoses"].append(
                {"medic": data["medic"], "critical_hit": result["critical_hit"], "game_time": now}
            )


def evolve_treatment_started(state: State, data: Mapping[str, Any], now: int) -> None:
    hit = _find(state, data["critical_hit"])
    hit["treatment"] = {
        "medic": data["medic"],
        "lethality": data["lethality"],
        "completes_at": data["completes_at"],
    }


def evolve_treatment_failed(state: State, data: Mapping[str, Any], now: int) -> None:
    hit = _find(state, data["critical_hit"])
    hit["improperly_treated"] = True
    if hit["lethality"] == "critical":
        _start_healing_period(hit, now)


def evolve_treatment_completed(state: State, data: Mapping[str, Any], now: int) -> None:
    hit = _find(state, data["critical_hit"])
    hit["treatment"] = None
    hit["treated"] = True
    hit["improperly_treated"] = False
    _set_hit_boxes(hit, data["boxes"], now)
    if hit["lethality"] == "critical":
        # Treated now: a new healing period, rolled with the better modifiers.
        _start_healing_period(hit, now)


def evolve_magic_healing(state: State, data: Mapping[str, Any], now: int) -> None:
    physical = data["physical"]
    if physical["given"] > 0:
        state["magic_since_wound"] = True
    if physical["erased"] or physical["erased_overflow"]:
        state["physical"] = physical["boxes"]
        state["physical_overflow"] = physical["physical_overflow"]
        _physical_changed(state, now)
        _start_overflow_clock(state, now)
    for result in data["critical_hits"]:
        if result["erased"] == 0:
            continue
        hit = _find(state, result["critical_hit"])
        hit["treated"] = True
        hit["improperly_treated"] = False
        _set_hit_boxes(hit, result["boxes"], now)
        if hit["lethality"] == "critical":
            _start_healing_period(hit, now)


def evolve_first_aid(state: State, data: Mapping[str, Any], now: int) -> None:
    state["first_aid_given"] = True
    if data["boxes"] != state["physical"]:
        state["physical"] = data["boxes"]
        _physical_changed(state, now)
    if data["stabilized"] and not state["stabilized"] and state["physical"] == t.MONITOR_BOXES:
        # Stabilized: the overflow clock stops, and a Deadly monitor may start healing (in hospital).
        state["stabilized"] = True
        state["overflow_clock"] = None
        state["physical_healing"] = {"next_roll_at": now, "heals_at": None, "to_boxes": None}


def evolve_replaced(state: State, data: Mapping[str, Any], now: int) -> None:
    hit = _find(state, data["critical_hit"])
    hit["status"] = "replaced"
    hit["replacement"] = data["replacement"]
    hit["healing"] = None
    hit["treatment"] = None


def evolve_care(state: State, data: Mapping[str, Any], now: int) -> None:
    changed = state["in_hospital"] != data["in_hospital"]
    state["in_hospital"] = data["in_hospital"]
    if changed and level(state["physical"]) == "D":
        # Deadly heals only in hospital: the stage starts (or stops) with the change of care.
        state["physical_healing"] = {"next_roll_at": now, "heals_at": None, "to_boxes": None}


def evolve_overflow_box(state: State, data: Mapping[str, Any], now: int) -> None:
    state["physical_overflow"] = data["physical_overflow"]
    if state["overflow_clock"] is not None:
        state["overflow_clock"] = {"next_at": now + overflow_interval(state)}


def evolve_critical_healing_rolled(state: State, data: Mapping[str, Any], now: int) -> None:
    hit = _find(state, data["critical_hit"])
    if data["successes"]:
        hit["healing"] = {"next_roll_at": None}
        hit["heals_at"] = data["heals_at"]
    else:
        hit["healing"] = {"next_roll_at": data["next_roll_at"]}
        hit["heals_at"] = None


def evolve_critical_healed(state: State, data: Mapping[str, Any], now: int) -> None:
    _set_hit_boxes(_find(state, data["critical_hit"]), 0, now)


def evolve_physical_healing_rolled(state: State, data: Mapping[str, Any], now: int) -> None:
    state["physical_healing"] = {
        "next_roll_at": data["next_roll_at"],
        "heals_at": data["heals_at"],
        "to_boxes": data["to_boxes"],
    }


def evolve_physical_healed(state: State, data: Mapping[str, Any], now: int) -> None:
    state["physical"] = data["boxes"]
    state["physical_overflow"] = data["physical_overflow"]
    _physical_changed(state, now)


def evolve_stun_recovery_rolled(state: State, data: Mapping[str, Any], now: int) -> None:
    if data["successes"]:
        state["stun_recovery"] = {"next_box_at": data["next_box_at"], "interval": data["interval"]}
    else:
        state["stun_recovery"] = {"next_roll_at": data["next_roll_at"]}


def evolve_stun_box(state: State, data: Mapping[str, Any], now: int) -> None:
    state["stun"] = data["stun"]
    recovery = state["stun_recovery"] or {}
    if state["stun"] == 0 or "interval" not in recovery:
        state["stun_recovery"] = None
    else:
        state["stun_recovery"] = {"next_box_at": now + recovery["interval"], "interval": recovery["interval"]}


EVOLVERS = {
    WOUND_TAKEN: evolve_wound_taken,
    CRITICAL_HIT_TAKEN: evolve_critical_hit_taken,
    DEATH_OCCURRED: evolve_death,
    DIAGNOSIS_MADE: evolve_diagnosis,
    TREATMENT_STARTED: evolve_treatment_started,
    TREATMENT_FAILED: evolve_treatment_failed,
    TREATMENT_COMPLETED: evolve_treatment_completed,
    MAGIC_HEALING_APPLIED: evolve_magic_healing,
    FIRST_AID_GIVEN: evolve_first_aid,
    CRITICAL_HIT_REPLACED: evolve_replaced,
    CARE_CHANGED: evolve_care,
    OVERFLOW_BOX_TAKEN: evolve_overflow_box,
    CRITICAL_HEALING_ROLLED: evolve_critical_healing_rolled,
    CRITICAL_HIT_HEALED: evolve_critical_healed,
    PHYSICAL_HEALING_ROLLED: evolve_physical_healing_rolled,
    PHYSICAL_DAMAGE_HEALED: evolve_physical_healed,
    STUN_RECOVERY_ROLLED: evolve_stun_recovery_rolled,
    STUN_BOX_RECOVERED: evolve_stun_box,
}


def evolve_into(state: State, event: Event) -> None:
    """Apply one event to `state` in place; an unknown event type changes nothing (total)."""
    evolver = EVOLVERS.get(event.type)
    if evolver is not None:
        evolver(state, event.data, event.game_time)


def evolve(state: State, event: Event) -> State:
    """Pure: returns a new state; an unknown event type changes nothing (total)."""
    if event.type not in EVOLVERS:
        return state
    new = copy_state(state)
    evolve_into(new, event)
    return new


# ----------------------------------------------------------------------------------------------------------------
# timers and fire

PRIORITY_TREATMENT = 10
PRIORITY_HEALED = 20
PRIORITY_HEALING_ROLL = 30
PRIORITY_RECOVERY_ROLL = 40
PRIORITY_OVERFLOW = 80
PRIORITY_DEATH = 90


def timers(state: State) -> list[Timer]:
    if not state["alive"]:
        return []
    found: list[Timer] = []
    for hit in state["critical_hits"]:
        if not is_active(hit):
            continue
        hid = hit["id"]
        if hit["treatment"] is not None:
            found.append(
                Timer(
                    hit["treatment"]["completes_at"],
                    "treatment_complete",
                    f"treatment:{hid}",
                    PRIORITY_TREATMENT,
                )
            )
        if hit["lethality"] == "mortal" and hit["death_at"] is not None:
            found.append(Timer(hit["death_at"], "death", f"death:{hid}", PRIORITY_DEATH))
        if hit["lethality"] == "critical" and hit["treatment"] is None and hit["healing"] is not None:
            if hit["heals_at"] is not None:
                found.append(Timer(hit["heals_at"], "critical_healed", f"healed:{hid}", PRIORITY_HEALED))
            elif hit["healing"]["next_roll_at"] is not None:
                found.append(
                    Timer(
                        hit["healing"]["next_roll_at"],
                        "critical_healing_roll",
                        f"healing_roll:{hid}",
                        PRIORITY_HEALING_ROLL,
                    )
                )
    if state["overflow_clock"] is not None:
        found.append(Timer(state["overflow_clock"]["next_at"], "overflow", "overflow", PRIORITY_OVERFLOW))
    stage = state["physical_healing"]
    if stage is not None and physical_healing_possible(state):
        if stage["heals_at"] is not None:
            found.append(Timer(stage["heals_at"], "physical_healed", "physical_heal", PRIORITY_HEALED))
        elif stage["next_roll_at"] is not None:
            found.append(
                Timer(stage["next_roll_at"], "physical_healing_roll", "physical_roll", PRIORITY_RECOVERY_ROLL)
            )
    recovery = state["stun_recovery"]
    if recovery is not None and state["stun"] > 0:
        if "next_box_at" in recovery:
            found.append(Timer(recovery["next_box_at"], "stun_box", "stun_box", PRIORITY_HEALED))
        else:
            found.append(
                Timer(recovery["next_roll_at"], "stun_recovery_roll", "stun_roll", PRIORITY_RECOVERY_ROLL)
            )
    return sorted(found, key=lambda timer: (timer.due, timer.priority, timer.key))


def fire(state: State, timer: Timer, dice: Dice) -> list[Event]:
    now = timer.due
    kind = timer.kind
    if kind in ("treatment_complete", "death", "critical_healed", "critical_healing_roll"):
        hit = _find(state, timer.key.split(":", 1)[1])
    if kind == "treatment_complete":
        target = t.TREATED_BOXES[hit["treatment"]["lethality"]]
        boxes = min(hit["boxes"], target)
        data = {
            "critical_hit": hit["id"],
            "from_lethality": hit["treatment"]["lethality"],
            "boxes_before": hit["boxes"],
            "boxes": boxes,
            "lethality": lethality_of(boxes),
        }
        return [Event(TREATMENT_COMPLETED, data, now)]
    if kind == "death":
        return [Event(DEATH_OCCURRED, {"cause": "critical_hit", "critical_hit": hit["id"]}, now)]
    if kind == "critical_healing_roll":
        tn, mods = natural_healing_target(state, hit)
        test = dice.success_test("critical_healing", state["attributes"]["body"], tn)
        data = {"critical_hit": hit["id"], "diagnosed": hit["diagnosed"], "modifiers": mods, **test.as_data()}
        if test.successes:
            data.update(heals_at=now + t.NATURAL_HEALING_BASE_TIME // test.successes, next_roll_at=None)
        else:
            data.update(heals_at=None, next_roll_at=now + t.NATURAL_HEALING_BASE_TIME)
        return [Event(CRITICAL_HEALING_ROLLED, data, now)]
    if kind == "critical_healed":
        return [Event(CRITICAL_HIT_HEALED, {"critical_hit": hit["id"], "diagnosed": hit["diagnosed"]}, now)]
    if kind == "overflow":
        overflow = state["physical_overflow"] + 1
        events = [Event(OVERFLOW_BOX_TAKEN, {"physical_overflow": overflow}, now)]
        if overflow > state["attributes"]["body"]:
            events.append(Event(DEATH_OCCURRED, {"cause": "overflow", "critical_hit": None}, now))
        return events
    if kind == "physical_healing_roll":
        stage_level = level(state["physical"])
        row = t.PHYSICAL_HEALING[stage_level]
        test = dice.success_test("physical_healing", state["attributes"]["body"], row["tn"])
        data = {"level": stage_level, "to_boxes": row["to_boxes"], **test.as_data()}
        if test.successes:
            data.update(heals_at=now + row["base_seconds"] // test.successes, next_roll_at=None)
        else:
            data.update(heals_at=None, next_roll_at=now + row["base_seconds"])
        return [Event(PHYSICAL_HEALING_ROLLED, data, now)]
    if kind == "physical_healed":
        to_boxes = state["physical_healing"]["to_boxes"]
        data = {
            "boxes_before": state["physical"],
            "boxes": min(to_boxes, state["physical"]),
            "physical_overflow": 0,
        }
        return [Event(PHYSICAL_DAMAGE_HEALED, data, now)]
    if kind == "stun_recovery_roll":
        attributes = state["attributes"]
        pool = max(attributes["body"], attributes["willpower"])
        test = dice.success_test("stun_recovery", pool, t.STUN_RECOVERY_BASE_TN + general_modifier(state))
        data = test.as_data()
        if test.successes:
            interval = t.STUN_RECOVERY_BASE_SECONDS // test.successes
            data.update(interval=interval, next_box_at=now + interval, next_roll_at=None)
        else:
            data.update(interval=None, next_box_at=None, next_roll_at=now + t.STUN_RECOVERY_BASE_SECONDS)
        return [Event(STUN_RECOVERY_ROLLED, data, now)]
    if kind == "stun_box":
        return [Event(STUN_BOX_RECOVERED, {"stun": state["stun"] - 1}, now)]
    raise ValueError(f"unknown timer kind {kind!r}")


# ----------------------------------------------------------------------------------------------------------------
# view

MORTAL_FOR_PLAYERS = "mortal: needs treatment now"
HIDDEN_HIT_KEYS = ("part", "reason", "lethality", "boxes", "penalty", "death_at", "heals_at", "treated")


def _monitor(boxes: int) -> dict[str, Any]:
    return {"boxes": boxes, "level": level(boxes)}


def _hit_sheet(hit: Mapping[str, Any], audience: str) -> dict[str, Any]:
    sheet = {
        "id": hit["id"],
        "location": hit["location"],
        "part": hit["part"],
        "reason": hit["reason"],
        "lethality": hit["lethality"],
        "boxes": hit["boxes"],
        "penalty": hit_penalty(hit),
        "diagnosed": hit["diagnosed"],
        "open_wound": hit["open_wound"],
        "treated": hit["treated"],
        "improperly_treated": hit["improperly_treated"],
        "death_at": hit["death_at"],
        "status": hit["status"],
        "heals_at": hit["heals_at"],
        "symptom": hit["symptom"],
        "replacement": hit["replacement"],
        "treatment_completes_at": hit["treatment"]["completes_at"] if hit["treatment"] else None,
    }
    if audience == PLAYER:
        sheet["death_at"] = None
        if not hit["diagnosed"]:
            for key in (*HIDDEN_HIT_KEYS, "improperly_treated"):
                sheet[key] = None
    return sheet


def _visible(hit: Mapping[str, Any], audience: str) -> bool:
    return audience == GM or hit["diagnosed"]


def _tn_modifier(state: Mapping[str, Any], audience: str) -> dict[str, Any]:
    general = general_modifier(state)
    by_location = dict.fromkeys(t.LOCATIONS, 0)
    for hit in state["critical_hits"]:
        if _visible(hit, audience):
            by_location[hit["location"]] += hit_penalty(hit)
    return {"general": general, "by_location": by_location, "total": general + sum(by_location.values())}


def _overflow_death_at(state: Mapping[str, Any]) -> int | None:
    clock = state["overflow_clock"]
    if clock is None:
        return None
    boxes_to_death = state["attributes"]["body"] + 1 - state["physical_overflow"]
    return clock["next_at"] + (boxes_to_death - 1) * overflow_interval(state)


def _mortal_hits(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The active mortal hits with a time of death."""
    return [
        h
        for h in state["critical_hits"]
        if is_active(h) and h["lethality"] == "mortal" and h["death_at"] is not None
    ]


def status(state: State) -> dict[str, Any]:
    """view(state, GM)'s alive, conscious, dying and death_at, without building the rest of the view."""
    alive = state["alive"]
    mortal_hits = _mortal_hits(state)
    bleeding_out = alive and state["overflow_clock"] is not None
    deaths = [h["death_at"] for h in mortal_hits] + ([_overflow_death_at(state)] if bleeding_out else [])
    return {
        "alive": alive,
        "conscious": conscious(state),
        "dying": alive and (bool(mortal_hits) or bleeding_out),
        "death_at": min(deaths) if deaths and alive else None,
    }


def view(state: State, audience: str) -> dict[str, Any]:
    alive = state["alive"]
    hits = state["critical_hits"]
    mortal_hits = _mortal_hits(state)
    bleeding_out = alive and state["overflow_clock"] is not None
    deaths = [h["death_at"] for h in mortal_hits] + ([_overflow_death_at(state)] if bleeding_out else [])
    visible_mortal = [h for h in mortal_hits if _visible(h, audience)]
    dying = alive and (bool(visible_mortal) or bleeding_out)

    status: list[str] = []
    symptoms: list[str] = []
    warnings: list[str] = []
    recovery: list[dict[str, Any]] = []
    if not alive:
        status.append("dead")
    else:
        if dying:
            status.append("dying")
        if not conscious(state):
            status.append("unconscious")
        if state["stabilized"]:
            status.append("stabilized")
    if state["in_hospital"]:
        status.append("in hospital")

    for name in ("physical", "stun"):
        wound_level = level(state[name])
        if wound_level:
            symptoms.append(f"{name} damage: {wound_level} ({state[name]} boxes)")
    for hit in hits:
        if not is_active(hit):
            continue
        where = hit["location"].replace("_", " ")
        symptoms.append(f"{where}: {hit['symptom']}")
        if alive and hit in mortal_hits and _visible(hit, audience):  # the dead need no treatment now
            if audience == GM:
                warnings.append(
                    f"{hit['id']} ({hit['part']}, {hit['reason']}) kills at {game_time_mark(hit['death_at'])}"
                )
            else:
                warnings.append(f"{where}, {hit['part']}: {MORTAL_FOR_PLAYERS}")
        if audience == GM and not hit["diagnosed"]:
            warnings.append(f"{hit['id']} ({hit['lethality']}) is not diagnosed")
        if hit["treatment"] is not None and _visible(hit, audience):
            recovery.append(
                {
                    "what": f"treatment of {hit['id']} ({hit['part']})",
                    "ends_at": hit["treatment"]["completes_at"],
                }
            )
        if hit["lethality"] == "critical" and _visible(hit, audience):
            recovery.append({"what": f"{hit['id']} ({hit['part']}) heals", "ends_at": hit["heals_at"]})
    if bleeding_out:
        warnings.append(
            f"bleeding out: one overflow box every {state['options']['deadly_overflow_minutes']} minutes "
            "until stabilized"
            + (f" (dies at {game_time_mark(_overflow_death_at(state))})" if audience == GM else "")
        )
    stage = state["physical_healing"]
    if alive and stage is not None:
        ends_at = stage["heals_at"] if physical_healing_possible(state) else None
        target = _stage_target(state)
        recovery.append(
            {
                "what": f"physical damage heals to {target} {'box' if target == 1 else 'boxes'}",
                "ends_at": ends_at,
            }
        )
    if alive and state["stun_recovery"] is not None:
        recovery.append({"what": "stun damage recovers", "ends_at": _stun_recovered_at(state)})

    sheet = {
        "physical": _monitor(state["physical"]),
        "stun": _monitor(state["stun"]),
        "physical_overflow": state["physical_overflow"],
        "critical_hits": [_hit_sheet(hit, audience) for hit in hits],
        "tn_modifier": _tn_modifier(state, audience),
        "in_hospital": state["in_hospital"],
        "stabilized": state["stabilized"],
    }
    return {
        "alive": alive,
        "conscious": conscious(state),
        "dying": dying,
        "death_at": (min(deaths) if deaths and alive else None) if audience == GM else None,
        "sheet": sheet,
        "status": status,
        "symptoms": symptoms,
        "warnings": warnings,
        "recovery": recovery,
    }


def _stage_target(state: Mapping[str, Any]) -> int:
    wound_level = level(state["physical"])
    return t.PHYSICAL_HEALING[wound_level]["to_boxes"] if wound_level else 0


def _stun_recovered_at(state: Mapping[str, Any]) -> int | None:
    recovery = state["stun_recovery"]
    if "next_box_at" not in recovery:
        return None
    return recovery["next_box_at"] + (state["stun"] - 1) * recovery["interval"]


# ----------------------------------------------------------------------------------------------------------------
# What a player may read of one history entry: when in doubt, leave it out.


def public_event(event: Event) -> dict[str, Any] | None:
    data = event.data
    kind = event.type
    if kind == WOUND_TAKEN:
        keys = ("severity", "damage", "boxes", "open_wound", "stun", "physical", "physical_overflow")
        return {key: data[key] for key in keys}
    if kind == CRITICAL_HIT_TAKEN:
        return {
            "critical_hit": data["critical_hit"],
            "location": data["location"],
            "symptom": data["symptom"],
        }
    if kind == DEATH_OCCURRED:
        return {}
    if kind == DIAGNOSIS_MADE:
        found = [
            {key: result[key] for key in ("critical_hit", "location", "part", "lethality")}
            for result in data["results"]
            if result["diagnosed"]
        ]
        return {"medic": data["medic"], "found": found}
    if kind in (TREATMENT_STARTED, TREATMENT_FAILED):
        keys = ("critical_hit", "medic", "lethality", "successes", "completes_at")
        return {key: data[key] for key in keys if key in data}
    if kind == TREATMENT_COMPLETED:
        return {key: data[key] for key in ("critical_hit", "boxes", "lethality")}
    if kind == MAGIC_HEALING_APPLIED:
        physical = data["physical"]
        hits = [
            {key: result[key] for key in ("critical_hit", "part", "erased", "boxes", "lethality")}
            for result in data["critical_hits"]
            if result["diagnosed"]
        ]
        return {
            "mode": data["mode"],
            "physical": {"boxes": physical["boxes"], "physical_overflow": physical["physical_overflow"]},
            "critical_hits": hits,
        }
    if kind == FIRST_AID_GIVEN:
        return {key: data[key] for key in ("medic", "successes", "boxes_before", "boxes", "stabilized")}
    if kind in (CRITICAL_HIT_REPLACED, CARE_CHANGED, OVERFLOW_BOX_TAKEN, STUN_BOX_RECOVERED):
        return dict(data)
    if kind == CRITICAL_HEALING_ROLLED:
        return (
            {"critical_hit": data["critical_hit"], "heals_at": data["heals_at"]}
            if data["diagnosed"]
            else None
        )
    if kind == CRITICAL_HIT_HEALED:
        return {"critical_hit": data["critical_hit"]} if data["diagnosed"] else None
    if kind == PHYSICAL_HEALING_ROLLED:
        return {"level": data["level"], "heals_at": data["heals_at"], "next_roll_at": data["next_roll_at"]}
    if kind == PHYSICAL_DAMAGE_HEALED:
        return {"boxes": data["boxes"]}
    if kind == STUN_RECOVERY_ROLLED:
        return {"next_box_at": data["next_box_at"], "next_roll_at": data["next_roll_at"]}
    return None


_SHOWN_IF_DIAGNOSED = frozenset((CRITICAL_HEALING_ROLLED, CRITICAL_HIT_HEALED))


def shows(event: Event) -> bool:
    """`public_event(event) is not None`, without building the data: a player's history skips the healing of an
    undiagnosed hit, and what this ruleset does not know."""
    if event.type in _SHOWN_IF_DIAGNOSED:
        return bool(event.data["diagnosed"])
    return event.type in EVOLVERS


# ----------------------------------------------------------------------------------------------------------------
# Forms and option help

_MEDIC = (
    Param("medic", "text", "Medic", required=True, help="who does it; retries are counted per medic"),
    Param("skill", "int", "Dice", required=True, help="Biotech rating, or Intelligence when defaulting"),
    Param("defaulting", "bool", "Defaulting", default=False, help="no Biotech: Intelligence dice, TN +4"),
)

FORMS = {
    "wound": ActionForm(
        "Wound",
        params=(
            Param("severity", "choice", "Severity", required=True, choices=("L", "M", "S", "D")),
            Param("damage", "choice", "Damage", default="physical", choices=("physical", "stun")),
            Param(
                "open_wound",
                "bool",
                "Open wound",
                default=True,
                help="bullet, blade; not falls, blunt, spells",
            ),
            Param("combat_pool", "int", "Combat pool", help="only with option combat_pool_on_body_check"),
        ),
        rolls=(
            RollSpec("body_check", 0, 6, "Body check", "body (+ combat pool) dice; GM only"),
            RollSpec("location", 2, 6, "Hit location"),
            RollSpec("critical", 1, 6, "Critical hit table"),
            RollSpec("death_time", 0, 6, "Time before death", "the dice of the entry's expression (1 or 2)"),
        ),
        help="Adds boxes; a Body check decides whether it is a critical hit.",
    ),
    "diagnose": ActionForm(
        "Diagnose",
        params=(
            *_MEDIC,
            Param("assensing", "bool", "Assensing", default=False, help="a magician with Biotech: TN -2"),
            Param(
                "critical_hit", "critical_hit", "Critical hit", help="empty: roll for every undiagnosed hit"
            ),
        ),
        rolls=(RollSpec("diagnosis", 0, 6, "Diagnosis", "one hit; per hit: diagnosis:<id>"),),
        help="One success diagnoses a hit; * entries on open wounds need no roll. Retry after 1 game minute.",
    ),
    "treat": ActionForm(
        "Treat a critical hit",
        params=(Param("critical_hit", "critical_hit", "Critical hit", required=True), *_MEDIC),
        rolls=(RollSpec("treatment", 0, 6, "Treatment"),),
        help="Diagnosed Mortal or Critical hits only; duration = base time / successes.",
    ),
    "heal_magic": ActionForm(
        "Heal or Treat spell",
        params=(
            Param("successes", "int", "Successes", required=True),
            Param(
                "mode", "choice", "Mode", required=True, choices=("allocate", "damage_only", "split_evenly")
            ),
            Param("allocation", "json", "Allocation", help='{"physical": 3, "ch1": 6}; diagnosed hits only'),
        ),
        help="Each success erases one box; stun cannot be healed this way.",
    ),
    "first_aid": ActionForm(
        "First aid",
        params=(*_MEDIC, Param("medkit", "bool", "Medkit", default=True, help="without: TN +4")),
        rolls=(RollSpec("first_aid", 0, 6, "First aid"),),
        help="Within one game hour of the latest physical wound; heals at most one level; stabilizes a Deadly one.",
    ),
    "replace": ActionForm(
        "Replace",
        params=(
            Param("critical_hit", "critical_hit", "Critical hit", required=True),
            Param("replacement", "text", "Replacement", required=True, help="cyberware or organic"),
        ),
        help="Resolves a crippling critical hit.",
    ),
    "set_care": ActionForm(
        "Care", params=(Param("in_hospital", "bool", "In hospital", required=True),), help="Natural healing."
    ),
}

OPTION_HELP = {
    "body_check_tn": "Body-check TNs: standard (the seed's recommended column, L 2 M 4 S 6 D 10) or gentle",
    "critical_category": "false deletes the Critical category: 2 Body-check successes already mean no critical hit",
    "combat_pool_on_body_check": "allow combat pool dice on the Body check (the seed's optional rule)",
    "stun_causes_critical_hits": "stun wounds make the Body check too (house: off)",
    "treatment_table": "(house) treatment TN and base time: mortal TN 8 / 600 s, critical TN 4 / 1200 s",
    "deadly_overflow_minutes": "(house, SRII core) minutes per overflow box while physical is full; 0 disables",
}

RULESET = Ruleset(
    slug=SLUG,
    title="Shadowrun 2nd Edition: Critical Hit System",
    actions=ACTIONS,
    default_start="2053-01-01T00:00:00",
    validate_options=validate_options,
    validate_attributes=validate_attributes,
    initial_state=initial_state,
    decide=decide,
    evolve=evolve,
    evolve_into=evolve_into,
    timers=timers,
    fire=fire,
    view=view,
    status=status,
    public_event=public_event,
    forms=FORMS,
    option_help=OPTION_HELP,
    shows=shows,
)
