"""The Shadowrun campaign options (docs/rules/shadowrun2.md), each one declaration (`rules/options.py`): the API's
check, the web's house-rules and new-campaign forms, the words of a change and the schema are drawn from it."""

from __future__ import annotations

from rules.options import SEED, Choice, Column, Duration, Row, Table, YesNo
from rules.shadowrun2 import tables as t

LEVELS = t.LEVEL_WORDS
TN = Column("", "TN", minimum=2, maximum=30, unit="TN")
TN_FIELD = Column("tn", "TN", minimum=2, maximum=30, unit="TN")


OPTIONS = (
    Choice(
        "body_check_tn",
        "Body-check TNs",
        "standard",
        choices=(
            ("standard", "the standard column (L 2, M 4, S 6, D 10), the one the source rules recommend"),
            ("gentle", "the gentle column (no check for a Light wound; M 2, S 4, D 8)"),
        ),
        help="The target numbers of the Body check that decides whether a wound is a critical hit.",
        origin=SEED,
        api_help="Body-check TNs: standard (the column the source rules recommend, L 2 M 4 S 6 D 10) or gentle",
    ),
    YesNo(
        "critical_category",
        "Critical category",
        True,
        help="Keep the Critical lethality; unticked, 2 Body-check successes already mean no critical hit.",
        origin=SEED,
        api_help="false deletes the Critical category: 2 Body-check successes already mean no critical hit",
    ),
    YesNo(
        "combat_pool_on_body_check",
        "Combat pool on the Body check",
        False,
        help="Combat pool dice may join the Body check.",
        origin=SEED,
        api_help="allow combat pool dice on the Body check (an optional rule of the source rules)",
    ),
    YesNo(
        "stun_causes_critical_hits",
        "Stun wounds make the Body check",
        False,
        help="A stun wound may cause a critical hit too.",
        api_help="stun wounds make the Body check too (house: off)",
    ),
    Table(
        "treatment_table",
        "Treatment",
        {lethality: dict(row) for lethality, row in t.TREATMENT_TABLE.items()},
        rows=(Row("mortal", "Mortal"), Row("critical", "Critical")),
        columns=(
            TN_FIELD,
            Column("base_seconds", "Base time", minimum=1, maximum=10 * 366 * t.DAY, duration="seconds"),
        ),
        help="A medic's treatment of a critical hit: the TN and the base time, divided by the successes.",
        api_help="(house) treatment TN and base time: mortal TN 8 / 10 min, critical TN 4 / 20 min",
    ),
    Duration(
        "deadly_overflow_minutes",
        "Overflow while Deadly",
        t.DEADLY_OVERFLOW_MINUTES,
        stored="minutes",
        units=("minutes", "hours"),
        maximum=10_000,
        zero="off",
        help="A full physical monitor not stabilized takes one overflow box each time this passes; 0: never.",
        api_help="(house, SRII core) minutes per overflow box while physical is full; 0 disables",
    ),
    Duration(
        "rest_minutes",
        "Natural healing waits for rest",
        t.REST_MINUTES,
        stored="minutes",
        units=("minutes", "hours"),
        maximum=10_000,
        zero="no wait: the rolls come as soon as the clock moves",
        help="Every natural healing roll (a critical hit's, a physical healing stage's, stun recovery) waits until "
        "the character has gone this long without a new wound, and the healing counts from that roll: no healing "
        "roll in the middle of a fight. 0: no wait.",
        api_help="(house) minutes without a new wound before the natural healing rolls are made and healing counts; "
        "0: at once",
    ),
    Table(
        "first_aid_tn",
        "First aid TN",
        dict(t.FIRST_AID_TN),
        rows=tuple(Row(level, LEVELS[level]) for level in t.FIRST_AID_TN),
        columns=(TN,),
        help="The TN of first aid by the physical monitor's level.",
        api_help="(house, SRII core simplified) first aid TN by the physical level: L 4, M 6, S 8, D 10",
    ),
    Table(
        "physical_healing_table",
        "Physical healing",
        {
            level: {"tn": row["tn"], "base_seconds": row["base_seconds"]}
            for level, row in t.PHYSICAL_HEALING.items()
        },
        rows=tuple(Row(level, LEVELS[level]) for level in t.PHYSICAL_HEALING),
        columns=(
            TN_FIELD,
            Column(
                "base_seconds",
                "Base time",
                minimum=1,
                maximum=10 * 366 * t.DAY,
                duration="seconds",
                units=("hours", "days", "weeks"),
            ),
        ),
        help="Natural healing of physical damage, one level at a time: its TN and base time, divided by the "
        "successes.",
        api_help="(house, SRII core) natural healing of physical damage, each level's TN and base "
        "time: D TN 10 / 30 days, S TN 8 / 20 days, M TN 6 / 10 days, L TN 4 / 24 hours",
    ),
    Table(
        "stun_healing",
        "Stun recovery",
        {"tn": t.STUN_RECOVERY_BASE_TN, "base_minutes": t.STUN_RECOVERY_BASE_MINUTES},
        columns=(
            TN_FIELD,
            Column(
                "base_minutes",
                "Base time",
                minimum=1,
                maximum=10_000,
                duration="minutes",
                units=("minutes", "hours"),
            ),
        ),
        help="The higher of Body and Willpower against this TN plus the general modifier; one box per base time "
        "divided by the successes, and with none a new roll after the base time.",
        api_help="(house) stun recovery: the higher of Body and Willpower vs this TN + general modifier; one "
        "box per the base minutes / successes, none: roll again after the base minutes (default TN 2 / 60 minutes)",
    ),
    Table(
        "first_aid_floor",
        "First aid floor",
        dict(t.FIRST_AID_FLOOR),
        rows=tuple(
            Row(level, LEVELS[level], maximum=t.LEVEL_BY_BOXES.index(level)) for level in t.FIRST_AID_FLOOR
        ),
        columns=(Column("", "Fewest boxes", unit="boxes"),),
        help="The fewest boxes first aid leaves at each physical level (at most one level healed); at the level's "
        "lowest box count it heals nothing there.",
        api_help="(house-simplified) the fewest boxes first aid leaves at each physical level: S 3, M 1, L 0 "
        "(at most one level healed); at most the level's lowest box count (S 6, M 3, L 1: heals nothing there)",
    ),
)
