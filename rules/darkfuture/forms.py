"""Dark Future: the forms of its actions (the parameters `read_params` holds them to) and the options' help."""

from __future__ import annotations

from rules.darkfuture import tables
from rules.darkfuture.engine import LIMB_TWICE, LIMBS_EXPECTED
from rules.params import ActionForm, Param, RollSpec

FORMS = {
    "damage": ActionForm(
        label="Damage",
        params=(
            Param(
                "weapon_damage",
                "int",
                "Weapon damage value",
                default=0,
                minimum=0,
                maximum=1000,
                help="Added to the roll for pedestrians only; body armour is subtracted for everyone.",
            ),
        ),
        rolls=(
            RollSpec("damage", 1, 6, "Pedestrian Critical Table"),
            RollSpec(
                "ko",
                1,
                6,
                "KO roll",
                "A roll of 4 or more knocks the character out (26-50% and 01-25% bands).",
            ),
            RollSpec("stun", 1, 6, "Stun roll", "A 4 or more stuns the character (51-75% and lower bands)."),
            RollSpec(
                "limb_check",
                1,
                6,
                "Limb disablement",
                "01-25% band: 4 or more disables a limb (house rule: Limb check).",
            ),
            RollSpec("limb", 1, 6, "Which limb", "1-3 arm, 4-6 leg (house rule: An arm up to)."),
            RollSpec("side", 1, 6, "Which side", "1-3 left, 4-6 right (house rule: The left side up to)."),
        ),
        help="Roll on the Pedestrian Critical Table, take the CON loss and roll the wound effects of the new band.",
    ),
    "recover": ActionForm(
        label="Recover",
        params=(
            Param("knocked_out", "bool", "Comes round from a KO roll", default=False),
            Param(
                "limbs",
                "choices",
                "Limbs restored",
                choices=tables.LIMBS,
                invalid=f"{LIMBS_EXPECTED}, got {{value}}",
                repeated=LIMB_TWICE,
            ),
        ),
        help="End a knock-out from a KO roll and restore disabled limbs. A KO at 0 CON ends when CON comes back.",
    ),
}


CLOCK_ROLLS: tuple[RollSpec, ...] = ()  # Dark Future's clock rolls no dice: stun ends, CON comes back
