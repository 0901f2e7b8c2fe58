"""What each Cyberpunk 2020 event's data holds (data only; `rules.event_schema` reads it). The engine writes these
fields (`engine.py`, decide and fire); an imported file must hold the same, within the rules' ranges."""

from __future__ import annotations

from rules.cyberpunk2020 import tables
from rules.event_schema import (
    DICE,
    Bool,
    Int,
    ListOf,
    Maybe,
    Num,
    Obj,
    OneOf,
    Text,
    Time,
    character_changed,
    event,
)

KINDS = ("normal", "stun", "blunt", "explosion")
# A hit takes at most 1,000 damage (the action's limit), doubled on the head: no track holds more.
POINTS = Int(0, 5000)
LOCATION = OneOf(tables.LOCATIONS)
LIMB = OneOf(tables.LIMBS)
EXTREMITY = OneOf(tables.EXTREMITIES)
SKILL = OneOf(tables.SKILLS)
HIT = Obj(
    {
        "location": LOCATION,
        "part": Text(40),
        "how": Text(40),
        "roll": Maybe(Int(1, 10)),
        "side": Maybe(Int(1, 10)),
    }
)
ATTACK = {
    "damage": Int(0, 1000),
    "kind": OneOf(KINDS),
    "ap": Bool(),
    "location": Maybe(LOCATION),
    "dice": DICE,
}
# An aimed or rolled hit names its location; an explosion lists the extremities its armour or cover protected.
HIT_FIELDS = {
    "hit": HIT,
    "sp": Int(0, 1000),
    "btm": Int(-100, 0),
    "protected": ListOf(EXTREMITY, max_items=6),
    "unprotected": ListOf(EXTREMITY, max_items=6),
    "main_wound": POINTS,
    "secondary_wound": POINTS,
}
EXPLOSION_OR_HIT = ("hit", "btm", "protected", "unprotected", "main_wound", "secondary_wound")
SKILL_ROLL = {
    "medic": Text(200),
    "skill": SKILL,
    "total": Int(0, 1000),
    "tech": Maybe(Int(0, 20)),
    "skill_level": Maybe(Int(0, 20)),
    "roll": Maybe(Int(1, 10)),
    "difficulty": Int(0, 1000),
    "success": Bool(),
    "dice": DICE,
    "certain": Bool(),
}
# set_bones (house): no skill is named, first aid and medical tech both do.
BONE_SETTING = {"limb": LIMB, **{name: spec for name, spec in SKILL_ROLL.items() if name != "skill"}}
# A roll the server rolled only because nothing the table could roll changes it, while the table rolls
# (`rules.dice.Dice.unasked`): kept so that its words name no die nobody rolled (view.py).
CERTAIN = frozenset({"certain"})
SAVE = {
    "roll": Maybe(Int(1, 10)),
    "target": Int(-1000, 1000),
    "success": Bool(),
    "dice": DICE,
    "certain": Bool(),
}

EVENTS = {
    "DamageTaken": event(
        (*EXPLOSION_OR_HIT, "through", "location_damage", "wounds"),
        **ATTACK,
        **HIT_FIELDS,
        through=POINTS,
        location_damage=POINTS,
        wounds=ListOf(POINTS, max_items=2),
        track_points=POINTS,
        real_points=POINTS,
        stun_points=POINTS,
        minor_wounds=Int(0, tables.MINOR_WOUNDS_PENDING_MAX),
        stun_special_effect=Bool(),
    ),
    "DamageStoppedByArmor": event(EXPLOSION_OR_HIT, **ATTACK, **HIT_FIELDS),
    "HitMissedSeveredLimb": event((), **ATTACK, hit=HIT),
    "LimbCrippled": event(
        location=EXTREMITY,
        location_damage=POINTS,
        sever_check=Obj(
            {
                "body": Int(0, 100),
                "luck": Int(0, 100),
                "roll": Int(1, 10),
                "total": Int(0, 1000),
                "needed": POINTS,
                "kept": Bool(),
                "certain": Bool(),
            },
            optional=CERTAIN,
        ),
    ),
    "StunSaveRolled": event(("dice", "certain"), **SAVE, cause=Text(40)),
    "DeathSaveRolled": event(
        ("dice", "limbs", "certain"),
        **SAVE,
        automatic=Bool(),
        cause=Text(40),
        limbs=ListOf(LIMB, max_items=4),
        outcome=OneOf(("survived", "woke", "dying", "unconscious", "stayed_unconscious")),
        death_at=Maybe(Time()),
    ),
    "DeathOccurred": event(("track",), cause=Text(40), track=POINTS),
    "StabilizationSucceeded": event(
        ("certain",), target=OneOf(("dying", *(f"limb:{limb}" for limb in tables.LIMBS))), **SKILL_ROLL
    ),
    "StabilizationFailed": event(
        ("certain",), target=OneOf(("dying", *(f"limb:{limb}" for limb in tables.LIMBS))), **SKILL_ROLL
    ),
    "TreatmentSucceeded": event(
        ("certain",),
        **SKILL_ROLL,
        healing_skill=SKILL,
        healing_rate=Num(0, 100),
        seconds_per_point=Int(1, 100 * tables.DAY),
    ),
    "TreatmentFailed": event(("certain",), **SKILL_ROLL),
    "StunDamageHealed": event(points=POINTS, stun_damage=POINTS),
    "MinorWoundHealed": event(id=Int(1, 10**9)),
    "DamageHealed": event(points=POINTS, damage=POINTS, healing_skill=SKILL),
    "BonesSet": event(("certain",), **BONE_SETTING, mend_weeks=Int(0, 104), mends_at=Time()),
    "BoneSettingFailed": event(("certain",), **BONE_SETTING),
    "BonesMended": event(limb=LIMB),
    "LimbReplaced": event(limb=LIMB, replacement=Text(200), was=OneOf(("severed", "crippled"))),
    "CharacterChanged": character_changed(
        {
            "body": Int(1, 30),
            "luck": Int(0, 30),
            "armor": Obj({location: Int(0, 100) for location in tables.LOCATIONS}),
            "btm": Int(-10, 0),
            "stun_save_bonus": Int(-10, 10),
        }
    ),
}

# The replayed state, checked after every event of an import: the wound track and the damage per location the
# pages draw.
PER_LOCATION = Obj({location: POINTS for location in tables.LOCATIONS})
STATE = Obj(
    {
        "damage": POINTS,
        "stun_damage": POINTS,
        "location_damage": PER_LOCATION,
        "location_stun": PER_LOCATION,
    },
    open=True,
)
