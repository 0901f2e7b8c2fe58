"""The Dark Future campaign options (docs/rules/darkfuture.md), each one declaration (`rules/options.py`)."""

from __future__ import annotations

from rules.darkfuture import tables
from rules.options import SEED, Duration, Number, YesNo

MAX_LASTING = 365 * 86_400
SIDES = tables.DAMAGE_DIE_SIDES

OPTIONS = (
    YesNo(
        "ko_pass_means_stun",
        "A passed KO roll stuns",
        False,
        help="A passed KO roll is an automatic stun, with no stun roll.",
        origin=SEED,
        api_help="An optional rule of the source rules: a passed KO roll is an automatic stun, no stun roll (default off).",
    ),
    Duration(
        "con_recovery_days",
        "Rest for each CON point",
        tables.DEFAULT_CON_RECOVERY_DAYS,
        stored="days",
        units=("days", "weeks"),
        minimum=1,
        maximum=3650,
        help="The game time of rest for each CON point to come back.",
        api_help="(house) Game days of rest for each CON point to come back (default 7).",
    ),
    Number(
        "limb_check_target",
        "Limb check",
        tables.LIMB_CHECK_TARGET,
        maximum=SIDES,
        unit="on 1d6",
        help="In the 01-25% band a 1d6 above this disables a limb (3: 4 or more; 0: always, 6: never).",
        api_help="(house) In the 01-25% band a 1d6 above this disables a limb (default 3: 4 or more; "
        "0: always, 6: never).",
    ),
    Number(
        "limb_arm_up_to",
        "An arm up to",
        tables.LIMB_ARM_UP_TO,
        maximum=SIDES,
        unit="on 1d6",
        help="Which limb a disablement takes: a 1d6 at or below this is an arm, above it a leg (0: always a "
        "leg, 6: always an arm).",
        api_help="(house) Which limb a disablement takes: a 1d6 at or below this is an arm, above it a leg "
        "(default 3: 1-3 arm, 4-6 leg; 0: always a leg, 6: always an arm).",
    ),
    Number(
        "limb_left_up_to",
        "The left side up to",
        tables.LIMB_LEFT_UP_TO,
        maximum=SIDES,
        unit="on 1d6",
        help="Which side: a 1d6 at or below this is the left, above it the right (0: always right, 6: always "
        "left).",
        api_help="(house) Which side: a 1d6 at or below this is the left, above it the right (default 3: "
        "1-3 left, 4-6 right; 0: always right, 6: always left).",
    ),
    Duration(
        "stun_lasts_seconds",
        "A stun lasts",
        0,
        stored="seconds",
        units=("rounds", "minutes", "hours", "days"),
        maximum=MAX_LASTING,
        zero="until the next clock advance",
        help="How long a stun lasts; 0: until the next clock advance.",
        api_help="(house) Game seconds a stun lasts; 0 (default): until the next clock advance.",
    ),
    Duration(
        "ko_lasts_seconds",
        "A KO wears off after",
        0,
        stored="seconds",
        units=("rounds", "minutes", "hours", "days"),
        maximum=MAX_LASTING,
        zero="never by itself: only the GM's Recover ends it",
        help="How long until a KO from a roll wears off by itself; 0: only the GM's Recover ends it.",
        api_help="(house) Game seconds until a KO from a roll wears off by itself; 0 (default): only the GM's "
        "Recover ends it.",
    ),
)
