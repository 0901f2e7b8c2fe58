"""Cyberpunk 2020: the forms of its actions (the parameters `read_params` holds them to) and the options' help."""

from __future__ import annotations

from rules.cyberpunk2020 import tables
from rules.cyberpunk2020.engine import COVER_PROTECTS_EXPECTED, KINDS
from rules.cyberpunk2020.sheet import settable_bones
from rules.params import ActionForm, Param, RollSpec

_TOTAL_PARAMS = (
    Param(
        "total",
        "int",
        "Total (TECH + skill + d10)",
        minimum=0,
        maximum=100,
        help="Or give tech and skill level and the d10 roll.",
    ),
    Param("tech", "int", "TECH", minimum=0, maximum=20),
    Param("skill_level", "int", "Skill level", minimum=0, maximum=20),
)

FORMS = {
    "damage": ActionForm(
        "Damage",
        params=(
            Param("damage", "int", "Weapon damage rolled", required=True, minimum=0, maximum=1000),
            Param("kind", "choice", "Kind", default="normal", choices=KINDS),
            Param("ap", "bool", "Armor piercing", default=False),
            Param(
                "location",
                "choice",
                "Aimed at",
                choices=tables.LOCATIONS,
                help="Empty: roll the location.",
                empty="roll the location",
            ),
            Param("cover", "bool", "Target behind cover", default=False, help="Uses the standard table."),
            Param(
                "center_of_mass",
                "bool",
                "Center of mass shot",
                default=False,
                help="A d6 on the standard table.",
            ),
            Param(
                "cover_protects",
                "choices",
                "Extremities behind cover (explosions)",
                choices=tables.EXTREMITIES,
                invalid=COVER_PROTECTS_EXPECTED,
                help="Explosions only: the parts the cover shields.",
            ),
        ),
        rolls=(
            RollSpec(
                "location",
                1,
                10,
                "Hit location",
                help="A d10; a d8 for the d8 model; a d6 for center of mass.",
            ),
            RollSpec("side", 1, 10, "Side of a groin hit", help="Modified model: 1-5 left, 6-10 right."),
            RollSpec("sever", 1, 10, "Sever check", help="Body + Luck + d10 against the location damage."),
            RollSpec("stun_save", 1, 10, "Stun save"),
            RollSpec("death_save", 1, 10, "Death save"),
        ),
        help="Armor, limb halving, BTM, the wound track, crippling and the saves of one attack.",
    ),
    "stabilize": ActionForm(
        "Stabilize",
        params=(
            Param(
                "target",
                "text",
                "Target",
                required=True,
                picker=True,
                what="a target: the dying character or a crippled limb",
                help="A crippled limb, or the dying character.",
            ),
            Param("medic", "text", "Medic", what="a name", person=True),
            Param("skill", "choice", "Skill", required=True, choices=tables.SKILLS),
            *_TOTAL_PARAMS,
        ),
        rolls=(RollSpec("stabilize", 1, 10, "Stabilization d10"),),
        help="A crippled limb: difficulty 15, first aid is enough. Dying: medical tech against the real damage.",
    ),
    "treat": ActionForm(
        "Treat",
        params=(
            Param("medic", "text", "Medic", what="a name", person=True),
            Param("skill", "choice", "Skill", required=True, choices=tables.SKILLS),
            *_TOTAL_PARAMS,
        ),
        rolls=(RollSpec("treatment", 1, 10, "Treatment d10"),),
        help="Sets the healing rate: first aid 0.5 point per day, medical tech 1 point per day.",
    ),
    "save": ActionForm(
        "Save rolled at the table",
        params=(Param("kind", "choice", "Save", required=True, choices=("stun", "death")),),
        rolls=(RollSpec("save", 1, 10, "Save d10", help="Succeeds when equal to or less than the target."),),
        help="A stun save to end being stunned, or a death save for a crippled limb or to wake up.",
    ),
    "set_bones": ActionForm(
        "Set bones",
        params=(
            Param(
                "limb",
                "choice",
                "Limb",
                required=True,
                choices=tables.LIMBS,
                picker=True,
                offers=settable_bones,  # only a crippled limb not yet set, never one the decider refuses
            ),
            Param("medic", "text", "Medic", what="a name", person=True),
            *_TOTAL_PARAMS,
        ),
        rolls=(RollSpec("set_bones", 1, 10, "Bone setting d10"),),
        help="House: a crippled, stabilized limb's broken bones set and immobilized, difficulty 15 (first aid or "
        "medical tech). Success: the limb mends and is usable again after the weeks of game time the campaign's house "
        "rule sets (bone mend weeks). Failure: try again one game day later.",
    ),
    "replace_limb": ActionForm(
        "Replace limb",
        params=(
            Param("limb", "choice", "Limb", required=True, choices=tables.LIMBS),
            Param(
                "replacement",
                "text",
                "Replacement",
                required=True,
                max_length=200,
                blank="expected what replaces the limb, e.g. cyberarm",
                what="a replacement",
                help="What replaces it, e.g. cyberarm, clone, regrown by magic.",
            ),
        ),
        help="House: a severed or crippled limb replaced; usable again at once. Its points stay on the wound track "
        "until healed.",
    ),
}


CLOCK_ROLLS = (
    RollSpec(
        "death_save", 1, 10, "Death save", "every turn while a crippled limb is not stabilized, or to wake"
    ),
    RollSpec("stun_save", 1, 10, "Stun save", "every round while stunned"),
)
