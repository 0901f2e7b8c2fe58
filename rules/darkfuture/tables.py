"""Dark Future alternate CON damage system: the tables, as data.

Transcribed from the seed (the Future Highways "Alternate damage system" page) as docs/rules/darkfuture.md gives it:
that page restores the lost Pedestrian Critical Table and settles the seed's contradictions. The engine reads these;
events copy what it chose, so a change here never changes a replayed character.
"""

from __future__ import annotations

# --- Pedestrian Critical Table -------------------------------------------------------------------------------
# 1d6, + the weapon's damage value for pedestrians, - body armour. (lowest result, highest result, CON lost);
# None is an open end. The first row is the near miss.
CRITICAL_TABLE: tuple[tuple[int | None, int | None, int], ...] = (
    (None, 1, 0),
    (2, 3, 1),
    (4, 7, 2),
    (8, 9, 3),
    (10, 11, 4),
    (12, 13, 5),
)
# "This table can be continued as needed. For every extra 2 points on the die roll, an additional CON point is
# scored as damage": 14-15 is 6, 16-17 is 7, ...
CONTINUATION_FROM = 14
CONTINUATION_CON_LOST = 6
CONTINUATION_STEP = 2

DAMAGE_DIE_SIDES = 6

# --- CON bands -----------------------------------------------------------------------------------------------
BAND_76 = "76+"
BAND_51 = "51-75"
BAND_26 = "26-50"
BAND_01 = "01-25"
BAND_ZERO = "0"
BAND_DEAD = "dead"
BANDS = (BAND_76, BAND_51, BAND_26, BAND_01, BAND_ZERO, BAND_DEAD)

# The seed's table of current CON points by initial CON 1-10, each band as (lowest, highest) or None ("-").
# The CON 10 row is printed "3-5 | 7-8": it skips 6, which docs/rules/darkfuture.md puts in 51-75.
BANDS_BY_INITIAL_CON: dict[int, dict[str, tuple[int, int] | None]] = {
    1: {BAND_01: None, BAND_26: None, BAND_51: None, BAND_76: (1, 1)},
    2: {BAND_01: None, BAND_26: (1, 1), BAND_51: None, BAND_76: (2, 2)},
    3: {BAND_01: (1, 1), BAND_26: (2, 2), BAND_51: None, BAND_76: (3, 3)},
    4: {BAND_01: (1, 1), BAND_26: (2, 2), BAND_51: (3, 3), BAND_76: (4, 4)},
    5: {BAND_01: (1, 1), BAND_26: (2, 2), BAND_51: (3, 3), BAND_76: (4, 5)},
    6: {BAND_01: (1, 2), BAND_26: (3, 3), BAND_51: (4, 4), BAND_76: (5, 6)},
    7: {BAND_01: (1, 2), BAND_26: (3, 4), BAND_51: (5, 5), BAND_76: (6, 7)},
    8: {BAND_01: (1, 2), BAND_26: (3, 4), BAND_51: (5, 6), BAND_76: (7, 8)},
    9: {BAND_01: (1, 2), BAND_26: (3, 4), BAND_51: (5, 6), BAND_76: (7, 9)},
    10: {BAND_01: (1, 2), BAND_26: (3, 5), BAND_51: (6, 8), BAND_76: (9, 10)},
}
TABLE_MAX_INITIAL_CON = 10

# Above initial CON 10, percentages: current / initial above the fraction (numerator, denominator) gives the band;
# any point left is 01-25.
PERCENT_BANDS: tuple[tuple[str, int, int], ...] = (
    (BAND_76, 3, 4),
    (BAND_51, 1, 2),
    (BAND_26, 1, 4),
)

# --- What each band does -------------------------------------------------------------------------------------
SKILL_FULL = "-0"
SKILL_MINUS_ONE = "-1"
SKILL_HALF = "1/2"
SKILL_QUARTER = "1/4"
SKILL_NONE = "-"

EFFECT_STUN = "stun"
EFFECT_KO = "ko"
EFFECT_LIMB = "limb"
EFFECT_AUTOMATIC_KO = "automatic_ko"
EFFECT_DEAD = "dead"

# skill modifier, move factor (numerator, denominator), wound effects in the order they are rolled,
# drivers' safety limit in mph (None: no limit, or no driver at all).
BAND_EFFECTS: dict[str, dict] = {
    BAND_76: {"skill": SKILL_FULL, "move": (1, 1), "effects": (), "safety_limit_mph": None},
    BAND_51: {"skill": SKILL_MINUS_ONE, "move": (1, 1), "effects": (EFFECT_STUN,), "safety_limit_mph": 40},
    BAND_26: {
        "skill": SKILL_HALF,
        "move": (3, 4),
        "effects": (EFFECT_KO, EFFECT_STUN),
        "safety_limit_mph": 20,
    },
    BAND_01: {
        "skill": SKILL_QUARTER,
        "move": (1, 2),
        "effects": (EFFECT_KO, EFFECT_STUN, EFFECT_LIMB),
        "safety_limit_mph": 20,
    },
    BAND_ZERO: {
        "skill": SKILL_NONE,
        "move": (0, 1),
        "effects": (EFFECT_AUTOMATIC_KO,),
        "safety_limit_mph": None,
    },
    BAND_DEAD: {"skill": SKILL_NONE, "move": (0, 1), "effects": (EFFECT_DEAD,), "safety_limit_mph": None},
}

# The seed's "Current Skill" columns for ratings 1-10 (0 added: there is nothing to reduce).
SKILL_HALF_TABLE: dict[int, int] = {0: 0, 1: 0, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4, 9: 5, 10: 5}
SKILL_QUARTER_TABLE: dict[int, int] = {0: 0, 1: 0, 2: 0, 3: 1, 4: 1, 5: 1, 6: 2, 7: 2, 8: 2, 9: 3, 10: 3}

# --- KO, stun and limb disablement ---------------------------------------------------------------------------
# "the target number is 3 ... a roll of 4 or more is required to stun or KO a character".
KO_STUN_TARGET = 3
# House (the seed gives no table): 1d6, 4+ disables a limb; which one by `limb` (1-3 arm, 4-6 leg) and `side`
# (1-3 left, 4-6 right). Options `limb_check_target`, `limb_arm_up_to` and `limb_left_up_to` change them.
LIMB_CHECK_TARGET = 3
LIMB_ARM_UP_TO = 3
LIMB_LEFT_UP_TO = 3


def limb_by_roll(arm_up_to: int) -> dict[int, str]:
    return {face: "arm" if face <= arm_up_to else "leg" for face in range(1, DAMAGE_DIE_SIDES + 1)}


def side_by_roll(left_up_to: int) -> dict[int, str]:
    return {face: "left" if face <= left_up_to else "right" for face in range(1, DAMAGE_DIE_SIDES + 1)}


LIMB_BY_ROLL: dict[int, str] = limb_by_roll(LIMB_ARM_UP_TO)
SIDE_BY_ROLL: dict[int, str] = side_by_roll(LIMB_LEFT_UP_TO)
LIMBS = ("left_arm", "right_arm", "left_leg", "right_leg")
LEGS = ("left_leg", "right_leg")
# A disabled leg halves move; the worst factor wins.
DISABLED_LEG_MOVE = (1, 2)

# --- Recovery (house) ----------------------------------------------------------------------------------------
DEFAULT_CON_RECOVERY_DAYS = 7
SECONDS_PER_DAY = 86_400

# --- Texts for players ---------------------------------------------------------------------------------------
LOW_CON_WARNING = "this system is meant for 5 CON or more"
RECOMMENDED_MINIMUM_CON = 5

BAND_SYMPTOMS: dict[str, str] = {
    BAND_76: "",
    BAND_51: "Hurt: every skill is one lower.",
    BAND_26: "Badly hurt: skills at half, moving at three quarters.",
    BAND_01: "Gravely hurt: skills at a quarter, moving at half pace.",
    BAND_ZERO: "Out cold from the wounds: no CON left.",
    BAND_DEAD: "Dead.",
}
