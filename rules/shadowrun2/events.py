"""What each Shadowrun event's data holds (data only; `rules.event_schema` reads it). The engine writes these
fields (`engine.py`, decide and fire); an imported file must hold the same, within the rules' ranges."""

from __future__ import annotations

from rules.event_schema import (
    DICE_LIST,
    Bool,
    Int,
    ListOf,
    MapOf,
    Maybe,
    Obj,
    OneOf,
    Text,
    Time,
    character_changed,
    event,
)
from rules.shadowrun2 import tables as t

BOXES = Int(0, t.MONITOR_BOXES)
# A character dies when the overflow passes their Body (at most 99), so it never holds more than that plus one.
OVERFLOW = Int(0, 100)
HIT = Text(20)  # a critical hit's id within its character: "ch1", "ch2", ...
LEVEL = OneOf(tuple(t.WOUND_BOXES))
LETHALITY = OneOf(tuple(t.CRITICAL_HIT_BOXES))
LOCATION = OneOf(t.LOCATIONS)
MEDIC = Text(200)
SKILL = Int(0, 99)
SUCCESS_TEST = {"pool": Int(0, 1000), "target": Int(), "dice": DICE_LIST, "successes": Int(0, 1000)}

EVENTS = {
    "WoundTaken": event(
        severity=LEVEL,
        damage=OneOf(("physical", "stun")),
        boxes=BOXES,
        open_wound=Bool(),
        stun=BOXES,
        physical=BOXES,
        physical_overflow=OVERFLOW,
        carried_to_physical=BOXES,
        physical_added=BOXES,
        body_check=Maybe(Obj({**SUCCESS_TEST, "combat_pool": Int(0, 99)})),
    ),
    "CriticalHitTaken": event(
        # Hits taken before the symptoms were shown by location (rules/shadowrun2/README.md) kept their text.
        optional=("symptom",),
        critical_hit=HIT,
        lethality=LETHALITY,
        boxes=BOXES,
        location_roll=ListOf(Int(1, 6), max_items=2),
        location=LOCATION,
        table=OneOf(tuple(t.CRITICAL_HIT_TABLE)),
        critical_roll=Int(1, 6),
        part=Text(40),
        reason=OneOf(tuple(t.REASONS)),
        time_expression=Text(40),
        diagnose_tn=Int(0, 30),
        diagnosed_automatically_when_open=Bool(),
        open_wound=Bool(),
        symptom=Text(400),
        death_time_dice=ListOf(Int(1, 6), max_items=10),
        death_after_seconds=Maybe(Int(0, 10 * t.DAY)),
        death_at=Maybe(Time()),
    ),
    # A death of a critical hit names where it was (its location and part, as the card does); older deaths did not.
    "DeathOccurred": event(
        optional=("location", "part"),
        cause=OneOf(("overflow", "critical_hit")),
        critical_hit=Maybe(HIT),
        location=LOCATION,
        part=Text(40),
    ),
    "DiagnosisMade": event(
        medic=MEDIC,
        skill=SKILL,
        defaulting=Bool(),
        assensing=Bool(),
        results=ListOf(
            Obj(
                {
                    "critical_hit": HIT,
                    "location": LOCATION,
                    "part": Text(40),
                    "lethality": LETHALITY,
                    "target": Maybe(Int()),
                    "dice": DICE_LIST,
                    "successes": Maybe(Int(0, 1000)),
                    "diagnosed": Bool(),
                    "automatic": Bool(),
                }
            )
        ),
    ),
    "TreatmentStarted": event(
        critical_hit=HIT,
        lethality=LETHALITY,
        medic=MEDIC,
        skill=SKILL,
        defaulting=Bool(),
        **SUCCESS_TEST,
        base_seconds=Int(0, 10 * t.WEEK),
        duration=Int(0, 10 * t.WEEK),
        completes_at=Time(),
    ),
    "TreatmentFailed": event(
        critical_hit=HIT, lethality=LETHALITY, medic=MEDIC, skill=SKILL, defaulting=Bool(), **SUCCESS_TEST
    ),
    "TreatmentCompleted": event(
        optional=("still_dying",),  # only when a Mortal hit's death timer stopped (and not before issue 42)
        critical_hit=HIT,
        from_lethality=LETHALITY,
        lethality=LETHALITY,
        boxes=BOXES,
        boxes_before=BOXES,
        still_dying=Bool(),
    ),
    "MagicHealingApplied": event(
        successes=Int(0, 1000),
        mode=OneOf(("split_evenly", "damage_only", "allocate")),
        shares=MapOf(Int(0, 1000)),
        physical=Obj(
            {
                "given": Int(0, 1000),
                "erased": BOXES,
                "erased_overflow": OVERFLOW,
                "boxes": BOXES,
                "physical_overflow": OVERFLOW,
            }
        ),
        critical_hits=ListOf(
            Obj(
                {
                    "critical_hit": HIT,
                    "part": Text(40),
                    "given": Int(0, 1000),
                    "erased": BOXES,
                    "boxes": BOXES,
                    "lethality": OneOf((*t.CRITICAL_HIT_BOXES, "healed")),
                    "diagnosed": Bool(),
                }
            )
        ),
    ),
    "FirstAidGiven": event(
        medic=MEDIC,
        skill=SKILL,
        defaulting=Bool(),
        medkit=Bool(),
        level=LEVEL,
        **SUCCESS_TEST,
        boxes_before=BOXES,
        boxes=BOXES,
        stabilized=Bool(),
    ),
    "CriticalHitReplaced": event(critical_hit=HIT, replacement=Text(200)),
    "CriticalHitAccepted": event(critical_hit=HIT),
    "CareChanged": event(in_hospital=Bool()),
    "OverflowBoxTaken": event(physical_overflow=OVERFLOW),
    "CriticalHealingRolled": event(
        critical_hit=HIT,
        diagnosed=Bool(),
        modifiers=MapOf(Int()),
        **SUCCESS_TEST,
        heals_at=Maybe(Time()),
        next_roll_at=Maybe(Time()),
    ),
    "CriticalHitHealed": event(critical_hit=HIT, diagnosed=Bool()),
    "PhysicalHealingRolled": event(
        level=LEVEL,
        **SUCCESS_TEST,
        to_boxes=BOXES,
        heals_at=Maybe(Time()),
        next_roll_at=Maybe(Time()),
    ),
    "PhysicalDamageHealed": event(boxes_before=BOXES, boxes=BOXES, physical_overflow=OVERFLOW),
    "StunRecoveryRolled": event(
        **SUCCESS_TEST,
        interval=Maybe(Int(1, 10 * t.WEEK)),
        next_box_at=Maybe(Time()),
        next_roll_at=Maybe(Time()),
    ),
    "StunBoxRecovered": event(stun=BOXES),
    "CharacterChanged": character_changed(
        {"body": Int(1, t.MAX_ATTRIBUTE), "willpower": Int(1, t.MAX_ATTRIBUTE)}
    ),
}

# The replayed state, checked after every event of an import: the monitors the pages draw as boxes.
STATE = Obj({"physical": BOXES, "stun": BOXES, "physical_overflow": OVERFLOW}, open=True)
