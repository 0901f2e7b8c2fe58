"""What each Dark Future event's data holds (data only; `rules.event_schema` reads it). The engine writes these
fields (`engine.py`, decide and fire); an imported file must hold the same, within the rules' ranges."""

from __future__ import annotations

from rules.darkfuture import tables
from rules.event_schema import (
    DICE,
    Bool,
    Int,
    ListOf,
    MapOf,
    Maybe,
    Obj,
    OneOf,
    Text,
    character_changed,
    event,
)

# CON starts at 1 to 1,000 (the attribute's limit) and falls below 0 on the killing wound: a wound takes at most
# the whole table's continuation for a 1,000-point weapon.
CON = Int(-2000, 1000)
CON_LOST = Int(0, 2000)
BAND = OneOf(tables.BANDS)
LIMB = OneOf(tables.LIMBS)
LIMBS = ListOf(LIMB, max_items=len(tables.LIMBS))
MOVE = Int(0, 1000)
D6 = Int(1, tables.DAMAGE_DIE_SIDES)
ATTACK = {
    "damage_roll": D6,
    "weapon_damage": Int(0, 1000),
    "weapon_damage_added": Bool(),
    "armour": Int(0, 1000),
    "result": Int(-1000, 2000),
    "table_row": Text(20),
    "con_lost": CON_LOST,
    "dice": DICE,
}
BAND_OUTCOME = {
    "con_after": CON,
    "band_after": BAND,
    "skills_after": MapOf(Int(0, 100)),
    "move_after": MOVE,
    "safety_limit_mph_after": Maybe(Int(0, 1000)),
}
TARGET = Int(1, tables.DAMAGE_DIE_SIDES)
LIMB_TARGET = Int(0, tables.DAMAGE_DIE_SIDES)  # option `limb_check_target`
BASE_AND_CURRENT = Obj({"base": Int(0, 1000), "current": Int(0, 1000)})
EFFECTS = (
    tables.EFFECT_STUN,
    tables.EFFECT_KO,
    tables.EFFECT_LIMB,
    tables.EFFECT_AUTOMATIC_KO,
    tables.EFFECT_DEAD,
)

EVENTS = {
    "WoundTaken": event(
        **ATTACK,
        con_before=CON,
        band_before=BAND,
        **BAND_OUTCOME,
        wound_effects=ListOf(OneOf(EFFECTS), max_items=len(EFFECTS)),
        ko=Maybe(Obj({"roll": D6, "target": TARGET})),
        stun=Maybe(Obj({"roll": Maybe(D6), "target": TARGET, "automatic": Bool()})),
        limb_check=Maybe(
            Obj(
                {
                    "roll": D6,
                    "target": LIMB_TARGET,
                    "disabled": Bool(),
                    "limb": Maybe(LIMB),
                    "limb_roll": D6,
                    "side_roll": D6,
                    # the rolls the table was not asked for, nothing it could roll changing them (view.py words)
                    "certain": ListOf(OneOf(("limb_check", "limb", "side")), max_items=3),
                },
                optional=frozenset({"limb_roll", "side_roll", "certain"}),
            )
        ),
        knocked_out_by_roll=Bool(),
        stunned_by_wound=Bool(),
        automatic_ko=Bool(),
        knocked_out_by_roll_after=Bool(),
        stunned_after=Bool(),
        disabled_limbs_after=LIMBS,
        vehicle_driverless_after=Bool(),
    ),
    "NearMissTaken": event(**ATTACK),
    "DeathOccurred": event(cause=OneOf(("con",)), con=CON),
    "KnockOutEnded": event(
        ended_by=OneOf(("recover", "clock")), still_out_at_zero_con=Bool(), vehicle_driverless_after=Bool()
    ),
    "LimbsRestored": event(limbs=LIMBS, disabled_limbs_after=LIMBS, move_after=MOVE),
    "StunEnded": event(),
    "ConRecovered": event(
        con_before=CON,
        band_before=BAND,
        **BAND_OUTCOME,
        rest_days=Int(0, 1000),
        zero_con_ko_ended=Bool(),
    ),
    "CharacterChanged": character_changed(
        {
            "armour": Int(0, 1000),
            "pedestrian": Bool(),
            "driver": Bool(),
            "skills": MapOf(Int(0, 100)),
            "move": MOVE,
        },
        skills_after=MapOf(BASE_AND_CURRENT),
        move_after=Obj({"base": MOVE, "current": MOVE}),
        safety_limit_mph_after=Maybe(Int(0, 1000)),
    ),
}

# The replayed state, checked after every event of an import: CON and movement, which the pages show as numbers.
STATE = Obj(
    {"con": Obj({"initial": Int(1, 1000), "current": CON}), "move": Obj({"base": MOVE, "current": MOVE})},
    open=True,
)
