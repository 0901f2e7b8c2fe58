"""The SRII Critical Hit System: decide, evolve, timers, fire and view (docs/rules/shadowrun2.md).

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

Natural healing waits for rest (house, `rest_minutes`): each healing or recovery roll above is due no sooner than
`rest_minutes` after the character's latest wound (`rest_begins`), so a fight's rounds never ask for one and a roll
is never thrown away by the next wound of the same fight; the healing counts from the roll, as it always did.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from rules import kernel
from rules.dice import Dice, faces_text, roll_expression, target_words
from rules.options import read_options
from rules.params import integer
from rules.ruleset import CHARACTER_CHANGED, Event, RuleError, State, Timer, game_time_mark
from rules.shadowrun2 import tables as t
from rules.shadowrun2.options import OPTIONS
from rules.shadowrun2.sheet import ATTRIBUTES
from rules.sheet import read_attributes
from rules.text import given

SLUG = "shadowrun2"

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
CRITICAL_HIT_ACCEPTED = "CriticalHitAccepted"
CARE_CHANGED = "CareChanged"
OVERFLOW_BOX_TAKEN = "OverflowBoxTaken"
CRITICAL_HEALING_ROLLED = "CriticalHealingRolled"
CRITICAL_HIT_HEALED = "CriticalHitHealed"
PHYSICAL_HEALING_ROLLED = "PhysicalHealingRolled"
PHYSICAL_DAMAGE_HEALED = "PhysicalDamageHealed"
STUN_RECOVERY_ROLLED = "StunRecoveryRolled"
STUN_BOX_RECOVERED = "StunBoxRecovered"

# Error messages the tests and the API assert on.
DEAD = kernel.DEAD
MEDIC_NEEDED = "this field is required: expected the medic's name"
TEXT_NEEDED = "this field is required: expected what replaces it, e.g. a cyberarm"
HIT_ID = "expected a critical hit id such as ch1, got {value}"
NO_CRITICAL_HIT = "expected a critical hit: none was chosen (the API takes its id, such as ch1)"
COMBAT_POOL_OFF = (
    "combat pool on the Body check needs the house rule that allows it (Combat pool on the Body check)"
)
NOT_DIAGNOSED = "the medic does not know this critical hit is there"
CRIPPLING_UNTREATABLE = (
    "a medic cannot treat a crippling critical hit; it needs a replacement or healing magic"
)
TREATMENT_UNDER_WAY = "a treatment of this critical hit is already under way"
NOT_ACTIVE = "this critical hit is no longer active (healed or replaced)"
ALREADY_DIAGNOSED = "{hit} is already diagnosed"
# A diagnosis with nothing to look for would roll nothing and write an empty entry ("Diagnosis by Doc: ."): refused.
NOTHING_TO_DIAGNOSE = "there is no undiagnosed critical hit to look for: {why}"
NO_HIT_TAKEN = "the character has taken no critical hit"
NO_HIT_ACTIVE = "every critical hit is healed or replaced"
EVERY_HIT_DIAGNOSED = "every critical hit is already diagnosed"
ALLOCATION_UNDIAGNOSED = (
    "the caster does not know this critical hit is there; only diagnosed hits can be targeted"
)
ALLOCATION_NEEDED = (
    "expected the successes given to the physical monitor or to diagnosed critical hits, for mode allocate"
)
ALLOCATION_ONLY_FOR_ALLOCATE = "an allocation is only given with mode allocate"
NO_PHYSICAL_DAMAGE = "there is no physical damage to give first aid to"
FIRST_AID_TOO_LATE = "first aid must come within one game hour of the latest physical wound"
FIRST_AID_AFTER_MAGIC = "first aid cannot follow a healing spell on the same wound"
FIRST_AID_ALREADY_GIVEN = "first aid was already given for the latest physical wound"
ONLY_CRIPPLING_REPLACED = "only a crippling critical hit is replaced"
REPLACE_UNDIAGNOSED = "nobody knows this critical hit is there; diagnose it before a replacement"
ONLY_CRIPPLING_ACCEPTED = "only a crippling critical hit is accepted (the others heal)"
ACCEPT_UNDIAGNOSED = "nobody knows this critical hit is there; diagnose it before accepting it"
ALREADY_ACCEPTED = "this critical hit is already accepted"


# ----------------------------------------------------------------------------------------------------------------
# Options, attributes, initial state


def validate_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options as `OPTIONS` declares them (rules/shadowrun2/options.py), each absent one its default."""
    return read_options(OPTIONS, options)


DEFAULT_OPTIONS: dict[str, Any] = validate_options(None)


MAX_ATTRIBUTE = t.MAX_ATTRIBUTE


def validate_attributes(attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    """The attributes as `rules/shadowrun2/sheet.py` declares them (Willpower left out: Body's)."""
    return read_attributes(ATTRIBUTES, attributes)


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
        "wounded_at": None,
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


def symptom(table: str, open_wound: bool, treated: bool = False) -> str:
    """What a hit on this table feels and looks like (docs/rules/shadowrun2.md, "Symptoms"), read when shown rather
    than stored in the event: a hit recorded before a text changed shows today's text, never a retired one that named
    its part. An open wound `treated` is dressed and bleeds no more."""
    return t.SYMPTOMS[table]["closed" if not open_wound else "dressed" if treated else "open"]


def hit_symptom(hit: Mapping[str, Any]) -> str:
    """What a hit feels and looks like now: nothing once it is no longer active (healed, replaced), its dressed
    text once treated (a GM's walkthrough: a treated hit still "bled through the clothes")."""
    return symptom(hit["table"], hit["open_wound"], hit["treated"]) if is_active(hit) else ""


def hit_penalty(hit: Mapping[str, Any]) -> int:
    return modifier(hit["boxes"]) if is_active(hit) else 0


def general_modifier(state: Mapping[str, Any]) -> int:
    """Physical and stun level modifiers are cumulative in SRII."""
    return modifier(state["physical"]) + modifier(state["stun"])


def overflow_interval(state: Mapping[str, Any]) -> int:
    return state["options"]["deadly_overflow_minutes"] * t.MINUTE


def overflow_running(state: Mapping[str, Any]) -> bool:
    """A full, unstabilized physical monitor takes overflow boxes: its clock started, and the option is not 0."""
    return state["overflow_clock"] is not None and overflow_interval(state) > 0


def conscious(state: Mapping[str, Any]) -> bool:
    return state["alive"] and state["physical"] < t.MONITOR_BOXES and state["stun"] < t.MONITOR_BOXES


def death_time_seconds(expression: str, dice: Dice) -> tuple[int, list[int]]:
    """`1d6x10 min` -> seconds, with the dice used (the `death_time` roll)."""
    dice_part, unit = expression.split(" ")
    value, faces = roll_expression(
        dice, "death_time", dice_part, label="Time before death", why=f"how long until death: {expression}"
    )
    seconds = value * t.TIME_UNIT_SECONDS[unit]
    return int(seconds), faces


LOCATION_WHY = "where the critical hit lands: " + faces_text(
    {roll: location.replace("_", " ") for roll, location in t.HIT_LOCATION.items()}
)


def body_check_why(options: Mapping[str, Any]) -> str:
    """What the Body check's successes decide, under the campaign's options."""
    table = (
        t.LETHALITY_BY_SUCCESSES
        if options["critical_category"]
        else t.LETHALITY_BY_SUCCESSES_WITHOUT_CRITICAL
    )
    spoken = ", ".join(f"{n} {lethality}" for n, lethality in table.items())
    return f"whether the wound is a critical hit: successes {spoken}, {len(table)} or more none"


def _critical_entries(table: str) -> str:
    return ", ".join(f"{roll} {entry[0]}" for roll, entry in t.CRITICAL_HIT_TABLE[table].items())


def spoken(name: str) -> str:
    return name.replace("_", " ")


# The natural-healing roll's modifiers (`natural_healing_target`), as its target's words say them.
HEALING_MODIFIER_WORDS = {
    "not_in_hospital": "not in hospital",
    "not_treated": "not treated",
    "improperly_treated": "improperly treated",
    "body": "Body {body}",
}


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


def first_aid_parts(
    state: Mapping[str, Any], medkit: bool, defaulting: bool, wound_level: str | None = None
) -> tuple[tuple[str, int, bool], list[tuple[str, int]]]:
    """First aid's target as it is made (RULES.md, `first_aid`): the house rule's number for the physical level
    (`wound_level`, the monitor's now unless given), then the patient's Body, a missing medkit and defaulting."""
    at = wound_level or level(state["physical"])
    body = state["attributes"]["body"]
    base = (
        f"{t.LEVEL_WORDS[at]} physical damage",
        state["options"].get("first_aid_tn", t.FIRST_AID_TN)[at],
        True,
    )
    return base, [
        (f"the patient's Body {body}", body_range_modifier(body, t.FIRST_AID_BODY)),
        ("no medkit", 0 if medkit else t.FIRST_AID_WITHOUT_MEDKIT),
        ("defaulting", t.DEFAULTING_TN if defaulting else 0),
    ]


def first_aid_target(state: Mapping[str, Any], medkit: bool, defaulting: bool) -> int:
    base, modifiers = first_aid_parts(state, medkit, defaulting)
    return base[1] + sum(value for _, value in modifiers)


def first_aid_target_words(
    state: Mapping[str, Any], medkit: bool, defaulting: bool, wound_level: str | None = None
) -> str:
    """How first aid's target is made, in words ("8 for Serious physical damage (house rule), -1 for the patient's
    Body 5"): the prompt's, the form's and the answer's."""
    base, modifiers = first_aid_parts(state, medkit, defaulting, wound_level)
    return target_words(base, *modifiers, floor=2)


def treatment_target_words(options: Mapping[str, Any], lethality: str, defaulting: bool) -> str:
    """How a treatment's target is made: the house rule's TN for the hit's lethality, and defaulting."""
    tn = options["treatment_table"][lethality]["tn"]
    return target_words(
        (f"a {lethality} hit", tn, True), ("defaulting", t.DEFAULTING_TN if defaulting else 0), floor=2
    )


def rest_begins(state: Mapping[str, Any]) -> int | None:
    """When the character's rest begins: `rest_minutes` after its latest wound, physical or stun (house); None
    when it was never wounded (a state kept before the rule came has no `wounded_at`: it rests already)."""
    wounded = state.get("wounded_at")
    if wounded is None:
        return None
    return int(wounded + state["options"].get("rest_minutes", t.REST_MINUTES) * t.MINUTE)


def roll_due(state: Mapping[str, Any], next_roll_at: int) -> int:
    """When a natural healing roll kept for `next_roll_at` is made: then, or once the rest begins if later."""
    rest = rest_begins(state)
    return next_roll_at if rest is None or rest <= next_roll_at else rest


def physical_healing_possible(state: Mapping[str, Any]) -> bool:
    """Deadly heals only in hospital, and not while the overflow clock still runs."""
    physical = state["physical"]
    if physical == 0 and state["physical_overflow"] == 0:
        return False
    if physical >= t.MONITOR_BOXES:  # `level(physical) == "D"`: every firing's `timers` asks
        return state["in_hospital"] and (state["stabilized"] or overflow_interval(state) == 0)
    return True


# ----------------------------------------------------------------------------------------------------------------
# decide


def _hit(state: Mapping[str, Any], hit_id: Any, field: str = "critical_hit") -> dict[str, Any]:
    if hit_id is None or hit_id == "":
        raise RuleError(field, NO_CRITICAL_HIT)
    if not isinstance(hit_id, str):
        raise RuleError(field, HIT_ID.format(value=given(hit_id, typed=True)))
    for hit in state["critical_hits"]:
        if hit["id"] == hit_id:
            return hit
    raise RuleError(field, f"no critical hit {hit_id} on this character")


def treat_refusal(*, active: bool, diagnosed: bool, lethality: str | None, under_way: bool) -> str | None:
    """Why a medic may not treat a critical hit (RULES.md, `treat`), or None: the decider's refusal, and what the
    form says of a hit it does not offer (`forms.treatable`), so that no refusal comes after the dice."""
    if not active:
        return NOT_ACTIVE
    if not diagnosed:
        return NOT_DIAGNOSED
    if lethality == "crippling":
        return CRIPPLING_UNTREATABLE
    if under_way:
        return TREATMENT_UNDER_WAY
    return None


def resolve_refusal(action: str, *, active: bool, diagnosed: bool, lethality: str | None) -> str | None:
    """Why a critical hit may not be replaced or accepted (`action`), or None (RULES.md, `replace`)."""
    if not active:
        return NOT_ACTIVE
    if not diagnosed:
        return REPLACE_UNDIAGNOSED if action == "replace" else ACCEPT_UNDIAGNOSED
    if lethality != "crippling":
        only = ONLY_CRIPPLING_REPLACED if action == "replace" else ONLY_CRIPPLING_ACCEPTED
        return f"{only}; this one is {lethality}"
    return None


def _medic_params(p: Mapping[str, Any]) -> tuple[str, int, bool]:
    return p["medic"], p["skill"], p["defaulting"]


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


def decide_wound(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    options = state["options"]
    severity, damage, open_wound = p["severity"], p["damage"], p["open_wound"]
    combat_pool = 0
    if p["combat_pool"] is not None:
        if not options["combat_pool_on_body_check"]:
            raise RuleError("combat_pool", COMBAT_POOL_OFF)
        combat_pool = p["combat_pool"]

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
        test = dice.success_test("body_check", pool, tn, label="Body check", why=body_check_why(options))
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
    location_roll = dice.roll("location", 2, 6, label="Hit location", why=LOCATION_WHY)
    location = t.HIT_LOCATION[sum(location_roll)]
    table = t.TABLE_FOR_LOCATION[location]
    critical_roll = dice.die(
        "critical",
        6,
        label="Critical hit table",
        why=f"the entry of the {table.lower()} table: {_critical_entries(table)}",
    )
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
        f"{medic} failed to diagnose critical hit {hit_id.removeprefix('ch')} at {game_time_mark(failed_at)}; the same"
        f" medic may try again on that hit only after 1 game minute (from {game_time_mark(again)})"
    )


def _rolled_on_sight(hit: dict[str, Any]) -> bool:
    return bool(hit["diagnosed_automatically_when_open"] and hit["open_wound"])


def _every_hit_to_diagnose(state: State, dice: Dice) -> list[tuple[dict[str, Any], str]]:
    """Every undiagnosed hit with the name of its roll: `diagnosis:<id>`, or `diagnosis` when one hit alone needs a
    roll (docs/rules/shadowrun2.md, "Diagnosis": `diagnosis` is one hit's). Dice entered as `diagnosis` while several
    hits need one would fit none of them: refused, not rolled over in silence."""
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


def _named_hit(hit: Mapping[str, Any]) -> str:
    """A diagnosed hit as every line names it: "critical hit 1 to the chest (ribs)" (its part is known)."""
    return f"{_hit_words(hit)} ({hit['part']})"


def _why_nothing_to_diagnose(state: State) -> str:
    """Why a diagnosis of every undiagnosed hit finds none to look for."""
    hits = state["critical_hits"]
    if not hits:
        return NO_HIT_TAKEN
    return EVERY_HIT_DIAGNOSED if any(is_active(hit) for hit in hits) else NO_HIT_ACTIVE


def decide_diagnose(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    medic, skill, defaulting = _medic_params(p)
    assensing = p["assensing"]
    hit_id = p["critical_hit"]
    if hit_id is not None:
        hit = _hit(state, hit_id)
        if not is_active(hit):
            raise RuleError("critical_hit", NOT_ACTIVE)
        if hit["diagnosed"]:
            raise RuleError("critical_hit", ALREADY_DIAGNOSED.format(hit=_named_hit(hit)))
        targets = [(hit, "diagnosis")]
    else:
        targets = _every_hit_to_diagnose(state, dice)
        if not targets:
            raise RuleError("critical_hit", NOTHING_TO_DIAGNOSE.format(why=_why_nothing_to_diagnose(state)))
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
            test = dice.success_test(
                roll_name,
                skill,
                tn,
                label="Diagnosis",
                why=f"whether {medic} finds {_hit_words(hit)}: one success",
                target_why=target_words(
                    (f"diagnosing {_hit_words(hit)}", hit["diagnose_tn"], False),
                    ("defaulting", t.DEFAULTING_TN if defaulting else 0),
                    ("assensing", t.ASSENSING_TN if assensing else 0),
                    floor=2,
                ),
            )
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


def decide_treat(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    hit = _hit(state, p["critical_hit"])
    medic, skill, defaulting = _medic_params(p)
    refused = treat_refusal(
        active=is_active(hit),
        diagnosed=hit["diagnosed"],
        lethality=hit["lethality"],
        under_way=hit["treatment"] is not None,
    )
    if refused is not None:
        raise RuleError("critical_hit", refused)
    row = state["options"]["treatment_table"][hit["lethality"]]
    tn = row["tn"] + (t.DEFAULTING_TN if defaulting else 0)
    test = dice.success_test(
        "treatment",
        skill,
        tn,
        label="Treatment",
        why=f"how long {medic}'s treatment of {_hit_words(hit)} takes: base time / successes; none fails",
        target_why=treatment_target_words(state["options"], hit["lethality"], defaulting),
    )
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


def _allocation(state: State, allocation: Mapping[str, Any] | None, successes: int) -> dict[str, int]:
    if allocation is None:
        raise RuleError("allocation", ALLOCATION_NEEDED)
    shares: dict[str, int] = {}
    for key in allocation:
        field = f"allocation.{key}"
        if key != "physical":
            if not isinstance(key, str) or not any(h["id"] == key for h in state["critical_hits"]):
                raise RuleError(field, f"expected physical or a critical hit id, got {given(key)}")
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


def decide_heal_magic(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    successes, mode = p["successes"], p["mode"]
    if mode != "allocate" and p["allocation"] is not None:
        raise RuleError("allocation", ALLOCATION_ONLY_FOR_ALLOCATE)
    active = [hit for hit in state["critical_hits"] if is_active(hit)]
    if mode == "allocate":
        shares = _allocation(state, p["allocation"], successes)
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


def first_aid_refused(state: Mapping[str, Any], now: int) -> str | None:
    """Why first aid may not be given now (RULES.md, `first_aid`), or None."""
    if state["physical"] == 0:
        return NO_PHYSICAL_DAMAGE
    wound_at = state["last_physical_wound_at"]
    if wound_at is None or now - wound_at > t.FIRST_AID_WINDOW_SECONDS:
        return FIRST_AID_TOO_LATE
    if state["magic_since_wound"]:
        return FIRST_AID_AFTER_MAGIC
    if state["first_aid_given"]:
        return FIRST_AID_ALREADY_GIVEN
    return None


def decide_first_aid(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    medic, skill, defaulting = _medic_params(p)
    medkit = p["medkit"]
    refused = first_aid_refused(state, now)
    if refused is not None:
        raise RuleError("type", refused)
    wound_level = level(state["physical"])
    test = dice.success_test(
        "first_aid",
        skill,
        first_aid_target(state, medkit, defaulting),
        label="First aid",
        why="boxes healed, one per success and at most one level; on a Deadly monitor one success stabilizes",
        target_why=first_aid_target_words(state, medkit, defaulting),
    )
    boxes = state["physical"]
    stabilized = state["stabilized"]
    if wound_level == "D":
        # On a Deadly monitor first aid only stabilizes: the overflow clock stops.
        stabilized = stabilized or test.successes >= 1
    else:
        boxes = max(
            state["options"].get("first_aid_floor", t.FIRST_AID_FLOOR)[wound_level], boxes - test.successes
        )
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


def decide_replace(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    hit = _hit(state, p["critical_hit"])
    replacement = p["replacement"]
    refused = resolve_refusal(
        "replace", active=is_active(hit), diagnosed=hit["diagnosed"], lethality=hit["lethality"]
    )
    if refused is not None:
        raise RuleError("critical_hit", refused)
    return [Event(CRITICAL_HIT_REPLACED, {"critical_hit": hit["id"], "replacement": replacement}, now)]


def decide_accept(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    """The GM accepts a crippling hit: the character goes into action with it (its modifier stays), so it no
    longer stands in the way of fit for action (docs/rules/README.md)."""
    hit = _hit(state, p["critical_hit"])
    refused = resolve_refusal(
        "accept", active=is_active(hit), diagnosed=hit["diagnosed"], lethality=hit["lethality"]
    )
    if refused is not None:
        raise RuleError("critical_hit", refused)
    if hit.get("accepted"):
        raise RuleError("critical_hit", ALREADY_ACCEPTED)
    return [Event(CRITICAL_HIT_ACCEPTED, {"critical_hit": hit["id"]}, now)]


def decide_set_care(state: State, p: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
    return [Event(CARE_CHANGED, {"in_hospital": p["in_hospital"]}, now)]


DECIDERS = {
    "wound": decide_wound,
    "diagnose": decide_diagnose,
    "treat": decide_treat,
    "heal_magic": decide_heal_magic,
    "first_aid": decide_first_aid,
    "replace": decide_replace,
    "accept": decide_accept,
    "set_care": decide_set_care,
}


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
    """The clock starts with a full monitor even while the option is 0 (no box then comes: `overflow_running`), so
    that a later change of the option finds the moment it started (`reindex_timers`)."""
    full = state["physical"] == t.MONITOR_BOXES
    if full and not state["stabilized"] and state["overflow_clock"] is None:
        state["overflow_clock"] = {"next_at": now + overflow_interval(state)}


def _stun_changed(state: State, now: int) -> None:
    state["stun_recovery"] = {"next_roll_at": now} if state["stun"] > 0 else None


def evolve_wound_taken(state: State, data: Mapping[str, Any], now: int) -> None:
    state["wounded_at"] = now  # the rest starts again (`rest_begins`)
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


def evolve_accepted(state: State, data: Mapping[str, Any], now: int) -> None:
    _find(state, data["critical_hit"])["accepted"] = True


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
    CRITICAL_HIT_ACCEPTED: evolve_accepted,
    CARE_CHANGED: evolve_care,
    OVERFLOW_BOX_TAKEN: evolve_overflow_box,
    CRITICAL_HEALING_ROLLED: evolve_critical_healing_rolled,
    CRITICAL_HIT_HEALED: evolve_critical_healed,
    PHYSICAL_HEALING_ROLLED: evolve_physical_healing_rolled,
    PHYSICAL_DAMAGE_HEALED: evolve_physical_healed,
    STUN_RECOVERY_ROLLED: evolve_stun_recovery_rolled,
    STUN_BOX_RECOVERED: evolve_stun_box,
    CHARACTER_CHANGED: lambda state, data, at: kernel.take_attribute_changes(state, data),
}


evolve_into, evolve = kernel.evolution(EVOLVERS)


def reindex_timers(state: State, before: Mapping[str, Any]) -> None:
    """The campaign's house rules changed (`state["options"]` holds the new ones, `before` the old): a running
    overflow clock's next box comes the new interval after the moment its interval began (the wound, or the last
    box), which is the box it was due at moved by the change. Due in the past: it comes at the next advance. Every
    other time of this ruleset was fixed by a roll when it was decided (README, "House rules changed in play")."""
    clock = state["overflow_clock"]
    if clock is not None:
        change = state["options"]["deadly_overflow_minutes"] - before["deadly_overflow_minutes"]
        state["overflow_clock"] = {"next_at": clock["next_at"] + change * t.MINUTE}


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
        if hit["status"] != "active":  # `is_active`, inline: every firing of the clock asks
            continue
        treatment, lethality = hit["treatment"], hit["lethality"]
        if treatment is not None:
            found.append(
                Timer(
                    treatment["completes_at"],
                    "treatment_complete",
                    f"treatment:{hit['id']}",
                    PRIORITY_TREATMENT,
                )
            )
        if lethality == "mortal" and hit["death_at"] is not None:
            found.append(Timer(hit["death_at"], "death", f"death:{hit['id']}", PRIORITY_DEATH))
        if lethality == "critical" and treatment is None and (healing := hit["healing"]) is not None:
            if hit["heals_at"] is not None:
                found.append(
                    Timer(hit["heals_at"], "critical_healed", f"healed:{hit['id']}", PRIORITY_HEALED)
                )
            elif healing["next_roll_at"] is not None:
                found.append(
                    Timer(
                        roll_due(state, healing["next_roll_at"]),
                        "critical_healing_roll",
                        f"healing_roll:{hit['id']}",
                        PRIORITY_HEALING_ROLL,
                    )
                )
    # `overflow_running`, inline (the interval is positive when its minutes are).
    if state["overflow_clock"] is not None and state["options"]["deadly_overflow_minutes"] > 0:
        found.append(Timer(state["overflow_clock"]["next_at"], "overflow", "overflow", PRIORITY_OVERFLOW))
    stage = state["physical_healing"]
    if stage is not None and physical_healing_possible(state):
        if stage["heals_at"] is not None:
            found.append(Timer(stage["heals_at"], "physical_healed", "physical_heal", PRIORITY_HEALED))
        elif stage["next_roll_at"] is not None:
            found.append(
                Timer(
                    roll_due(state, stage["next_roll_at"]),
                    "physical_healing_roll",
                    "physical_roll",
                    PRIORITY_RECOVERY_ROLL,
                )
            )
    recovery = state["stun_recovery"]
    if recovery is not None and state["stun"] > 0:
        if "next_box_at" in recovery:
            found.append(Timer(recovery["next_box_at"], "stun_box", "stun_box", PRIORITY_HEALED))
        else:
            found.append(
                Timer(
                    roll_due(state, recovery["next_roll_at"]),
                    "stun_recovery_roll",
                    "stun_roll",
                    PRIORITY_RECOVERY_ROLL,
                )
            )
    # Every firing of the clock asks: the same order as sorted()'s, with no sort of a single timer.
    if len(found) > 1:
        found.sort(key=_timer_order)
    return found


# The order sorted() gives timers (due, then priority, then key), read in C: every firing of the clock sorts them.
_timer_order = attrgetter("due", "priority", "key")


def _timer_hit(state: State, timer: Timer) -> dict[str, Any]:
    return _find(state, timer.key.split(":", 1)[1])


def _still_dying_without(state: State, hid: str) -> bool:
    """Whether a death stays on the clock once the hit `hid` is no longer Mortal: another active Mortal hit's, or
    the overflow's."""
    return overflow_running(state) or any(
        is_active(h) and h["lethality"] == "mortal" and h["death_at"] is not None and h["id"] != hid
        for h in state["critical_hits"]
    )


def fire_treatment_complete(state: State, timer: Timer, dice: Dice) -> list[Event]:
    hit = _timer_hit(state, timer)
    target = t.TREATED_BOXES[hit["treatment"]["lethality"]]
    boxes = min(hit["boxes"], target)
    data = {
        "critical_hit": hit["id"],
        "from_lethality": hit["treatment"]["lethality"],
        "boxes_before": hit["boxes"],
        "boxes": boxes,
        "lethality": lethality_of(boxes),
    }
    if lethality_of(hit["boxes"]) == "mortal" and data["lethality"] != "mortal":
        # Its death timer stops: whether another still kills, for the words ("No longer dying."; issue 42). An
        # event recorded before this key says only that the hit's timer stopped.
        data["still_dying"] = _still_dying_without(state, hit["id"])
    return [Event(TREATMENT_COMPLETED, data, timer.due)]


def fire_death(state: State, timer: Timer, dice: Dice) -> list[Event]:
    hit = _timer_hit(state, timer)
    data = {
        "cause": "critical_hit",
        "critical_hit": hit["id"],
        "location": hit["location"],
        "part": hit["part"],
    }
    return [Event(DEATH_OCCURRED, data, timer.due)]


def _hit_words(hit: Mapping[str, Any]) -> str:
    """A hit as a roll's prompt names it: "critical hit 1 to the chest", its number on the character, never its
    stored id."""
    return f"critical hit {str(hit['id']).removeprefix('ch')} to the {spoken(hit['location'])}"


def fire_critical_healing_roll(state: State, timer: Timer, dice: Dice) -> list[Event]:
    now = timer.due
    hit = _timer_hit(state, timer)
    tn, mods = natural_healing_target(state, hit)
    test = dice.success_test(
        "critical_healing",
        state["attributes"]["body"],
        tn,
        label="Natural healing (Body)",
        why=f"when {_hit_words(hit)} heals: 8 weeks / successes; none: roll again in 8 weeks",
        target_why=target_words(
            ("natural healing", t.NATURAL_HEALING_BASE_TN, False),
            *(
                (HEALING_MODIFIER_WORDS[key].format(body=state["attributes"]["body"]), value)
                for key, value in mods.items()
            ),
            floor=2,
        ),
    )
    data = {"critical_hit": hit["id"], "diagnosed": hit["diagnosed"], "modifiers": mods, **test.as_data()}
    if test.successes:
        data.update(heals_at=now + t.NATURAL_HEALING_BASE_TIME // test.successes, next_roll_at=None)
    else:
        data.update(heals_at=None, next_roll_at=now + t.NATURAL_HEALING_BASE_TIME)
    return [Event(CRITICAL_HEALING_ROLLED, data, now)]


def fire_critical_healed(state: State, timer: Timer, dice: Dice) -> list[Event]:
    hit = _timer_hit(state, timer)
    return [Event(CRITICAL_HIT_HEALED, {"critical_hit": hit["id"], "diagnosed": hit["diagnosed"]}, timer.due)]


def fire_overflow(state: State, timer: Timer, dice: Dice) -> list[Event]:
    overflow = state["physical_overflow"] + 1
    events = [Event(OVERFLOW_BOX_TAKEN, {"physical_overflow": overflow}, timer.due)]
    if overflow > state["attributes"]["body"]:
        events.append(Event(DEATH_OCCURRED, {"cause": "overflow", "critical_hit": None}, timer.due))
    return events


def fire_physical_healing_roll(state: State, timer: Timer, dice: Dice) -> list[Event]:
    now = timer.due
    stage_level = level(state["physical"])
    table = state["options"].get("physical_healing_table", t.PHYSICAL_HEALING)
    row = {**t.PHYSICAL_HEALING[stage_level], **table[stage_level]}
    test = dice.success_test(
        "physical_healing",
        state["attributes"]["body"],
        row["tn"],
        label="Physical healing (Body)",
        why=f"when the {t.LEVEL_WORDS[stage_level].lower()} physical damage heals one level: base time / successes; "
        "none: roll again",
        target_why=target_words(
            (f"healing {t.LEVEL_WORDS[stage_level]} physical damage", row["tn"], True), floor=2
        ),
    )
    data = {"level": stage_level, "to_boxes": row["to_boxes"], **test.as_data()}
    if test.successes:
        data.update(heals_at=now + row["base_seconds"] // test.successes, next_roll_at=None)
    else:
        data.update(heals_at=None, next_roll_at=now + row["base_seconds"])
    return [Event(PHYSICAL_HEALING_ROLLED, data, now)]


def fire_physical_healed(state: State, timer: Timer, dice: Dice) -> list[Event]:
    to_boxes = state["physical_healing"]["to_boxes"]
    data = {
        "boxes_before": state["physical"],
        "boxes": min(to_boxes, state["physical"]),
        "physical_overflow": 0,
    }
    return [Event(PHYSICAL_DAMAGE_HEALED, data, timer.due)]


def fire_stun_recovery_roll(state: State, timer: Timer, dice: Dice) -> list[Event]:
    now = timer.due
    attributes = state["attributes"]
    pool = max(attributes["body"], attributes["willpower"])
    healing = state["options"].get("stun_healing", DEFAULT_OPTIONS["stun_healing"])
    minutes = healing["base_minutes"]
    test = dice.success_test(
        "stun_recovery",
        pool,
        healing["tn"] + general_modifier(state),
        label="Stun recovery (Body or Willpower)",
        why=f"how fast stun boxes come back: one box per {minutes} minutes / successes; "
        f"none: roll again in {minutes} minutes",
        target_why=target_words(
            ("stun recovery", healing["tn"], True), ("the wound modifiers", general_modifier(state)), floor=2
        ),
    )
    base_seconds = minutes * t.MINUTE
    data = test.as_data()
    if test.successes:
        interval = base_seconds // test.successes
        data.update(interval=interval, next_box_at=now + interval, next_roll_at=None)
    else:
        data.update(interval=None, next_box_at=None, next_roll_at=now + base_seconds)
    return [Event(STUN_RECOVERY_ROLLED, data, now)]


def fire_stun_box(state: State, timer: Timer, dice: Dice) -> list[Event]:
    return [Event(STUN_BOX_RECOVERED, {"stun": state["stun"] - 1}, timer.due)]


FIRERS = {
    "treatment_complete": fire_treatment_complete,
    "death": fire_death,
    "critical_healing_roll": fire_critical_healing_roll,
    "critical_healed": fire_critical_healed,
    "overflow": fire_overflow,
    "physical_healing_roll": fire_physical_healing_roll,
    "physical_healed": fire_physical_healed,
    "stun_recovery_roll": fire_stun_recovery_roll,
    "stun_box": fire_stun_box,
}


# ----------------------------------------------------------------------------------------------------------------
# characters change in play

CHANGEABLE = ("body", "willpower")


def change_attributes(state: State, patch: Mapping[str, Any]) -> dict[str, Any]:
    """Body or Willpower raised (or lowered): every later Body check, healing roll, first aid and overflow count
    uses the new value. The boxes already marked keep their meaning: no monitor is redrawn, and a character whose
    overflow is above a lowered Body dies at the next overflow box, not at the edit."""
    _, changes = kernel.changed_attributes(
        state, patch, changeable=CHANGEABLE, fixed={}, validate=validate_attributes
    )
    return {"changes": changes}
