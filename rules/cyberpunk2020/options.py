"""The Cyberpunk 2020 campaign options (docs/rules/cyberpunk2020.md), each one declaration (`rules/options.py`)."""

from __future__ import annotations

from rules.cyberpunk2020 import tables
from rules.options import Choice, Duration, Number

OPTIONS = (
    Choice(
        "hit_location_model",
        "Hit location table",
        "standard",
        choices=(
            ("standard", "standard (d10)"),
            ("d8", "a d8 on the standard table"),
            ("modified", "modified (d10)"),
        ),
        help="The table a hit's location is rolled on.",
        api_help="Hit location table: standard (d10), d8 (a d8 on the standard table) or modified (d10).",
    ),
    Number(
        "treatment_difficulty",
        "Treatment difficulty",
        tables.TREATMENT_DIFFICULTY,
        minimum=1,
        maximum=100,
        help="The difficulty of a healing treatment roll.",
        api_help="Difficulty of a healing treatment roll (house: 15).",
    ),
    Duration(
        "treatment_retry_days",
        "Wait before a failed treatment is retried",
        tables.TREATMENT_RETRY_DAYS,
        stored="days",
        units=("days", "weeks"),
        maximum=365,
        zero="no wait",
        help="How long after a failed treatment it may be tried again.",
        api_help="Game days before a failed treatment may be retried (house: 1).",
    ),
    Duration(
        "bone_mend_weeks",
        "Set bones mend in",
        tables.BONE_MEND_WEEKS,
        stored="weeks",
        units=("weeks",),
        maximum=104,
        zero="at once",
        help="How long set bones take to mend before the limb is usable again.",
        api_help="Game weeks before set bones mend and the limb is usable again (house: 6).",
    ),
)
