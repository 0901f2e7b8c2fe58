"""Tables of the SRII Critical Hit System ("Critical Hit System" seed) and the house tables of
docs/rules/shadowrun2.md. Data only.

Lethality names are lowercase (`mortal`, `crippling`, `critical`, `healed` for an empty monitor); monitor levels are
`L`, `M`, `S`, `D`; locations are `head, chest, abdomen, left_arm, right_arm, left_leg, right_leg`.
"""

from __future__ import annotations

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR
WEEK = 7 * DAY

MONITOR_BOXES = 10
MAX_ATTRIBUTE = 99  # Body and Willpower

# Wound sizes in boxes (SRII core).
WOUND_BOXES = {"L": 1, "M": 3, "S": 6, "D": 10}

# Box count -> level, for every monitor: 0 none, 1-2 L, 3-5 M, 6-9 S, 10 D.
# The levels in words, as the seed names them.
LEVEL_WORDS = {"L": "Light", "M": "Moderate", "S": "Serious", "D": "Deadly"}
LEVEL_BY_BOXES = (None, "L", "L", "M", "M", "M", "S", "S", "S", "S", "D")

# Target-number modifier of a monitor at each level (seed "Step 5", SRII core for physical and stun).
LEVEL_MODIFIER = {None: 0, "L": 1, "M": 2, "S": 3, "D": 4}

# Step 1: Body-check base TN by wound severity. The seed prints "gentle/standard"; None = no check (auto).
BODY_CHECK_TN = {
    "standard": {"L": 2, "M": 4, "S": 6, "D": 10},
    "gentle": {"L": None, "M": 2, "S": 4, "D": 8},
}

# Step 1.1: successes on the Body check -> lethality; more successes than listed = no critical hit.
LETHALITY_BY_SUCCESSES = {0: "mortal", 1: "crippling", 2: "critical"}
# The seed's option "delete the critical category": 2 successes are already enough for no critical hit.
LETHALITY_BY_SUCCESSES_WITHOUT_CRITICAL = {0: "mortal", 1: "crippling"}

# Step 5: boxes marked on a new critical hit's own monitor.
CRITICAL_HIT_BOXES = {"mortal": 10, "crippling": 6, "critical": 3}

# Step 2: 2d6 hit location.
HIT_LOCATION = {
    2: "head",
    3: "right_leg",
    4: "right_arm",
    5: "abdomen",
    6: "chest",
    7: "chest",
    8: "chest",
    9: "abdomen",
    10: "left_arm",
    11: "left_leg",
    12: "head",
}

LOCATIONS = ("head", "chest", "abdomen", "left_arm", "right_arm", "left_leg", "right_leg")

# Which part of the critical hit table a location uses (arms and legs share a table; the side is the location's).
TABLE_FOR_LOCATION = {
    "head": "HEAD",
    "chest": "CHEST",
    "abdomen": "ABDOMEN",
    "left_arm": "ARM",
    "right_arm": "ARM",
    "left_leg": "LEG",
    "right_leg": "LEG",
}

# The critical hit table: 1d6 -> (part, reason, time before death, diagnose TN, `*` = automatic when open).
# Reasons: IB internal bleeding, brain, heart, suffo suffocation, art artery.
CRITICAL_HIT_TABLE = {
    "CHEST": {
        1: ("lung", "IB", "1d6x10 min", 4, False),
        2: ("ribs", "IB", "1d6x10 min", 4, False),
        3: ("spine", "suffo", "1d6 min", 4, False),
        4: ("diaphragm", "suffo", "2d6 min", 6, False),
        5: ("heart", "heart", "1d6/2 min", 2, False),
        6: ("collarbone", "art", "1d6 min", 4, True),
    },
    "ABDOMEN": {
        1: ("stomach", "IB", "2d6 hours", 8, False),
        2: ("intestines", "IB", "2d6 hours", 8, False),
        3: ("diaphragm", "suffo", "2d6 min", 6, False),
        4: ("spleen", "IB", "1d6 hours", 8, False),
        5: ("kidney", "IB", "1d6 hours", 8, False),
        6: ("ribs", "IB", "1d6x10 min", 4, False),
    },
    "HEAD": {
        1: ("skull", "brain", "1d6/2 min", 2, False),
        2: ("eye", "brain", "1d6/2 min", 2, False),
        3: ("ear", "brain", "1d6/2 min", 2, False),
        4: ("nose", "brain", "1d6/2 min", 2, False),
        5: ("jaw", "art", "2d6 min", 4, True),
        6: ("neck", "art", "1d6/2 min", 4, True),
    },
    "ARM": {
        1: ("shoulder", "art", "1d6 min", 4, True),
        2: ("upper arm", "art", "2d6 min", 4, True),
        3: ("elbow", "art", "1d6 min", 4, True),
        4: ("lower arm", "art", "2d6 min", 4, True),
        5: ("wrist", "art", "1d6 min", 4, True),
        6: ("hand", "art", "2d6 min", 4, True),
    },
    "LEG": {
        1: ("hip", "art", "1d6 min", 4, True),
        2: ("thigh", "art", "1d6 min", 4, True),
        3: ("knee", "art", "1d6 min", 4, True),
        4: ("calf", "art", "2d6 min", 4, True),
        5: ("ankle", "art", "1d6 min", 4, True),
        6: ("foot", "art", "2d6 min", 4, True),
    },
}

REASONS = {
    "IB": "internal bleeding",
    "brain": "brain death",
    "heart": "heart attack",
    "suffo": "suffocation",
    "art": "severed artery",
}
# How a Mortal hit of each reason kills, said of the character: only a bleeding bleeds out.
DEATH_WORDS = {
    "IB": "bleeds out",
    "brain": "dies of brain death",
    "heart": "dies of a heart attack",
    "suffo": "suffocates",
    "art": "bleeds out",
}

# A player's diagnosed Mortal hit, in words (RULES.md, "Player view": never the time left): it needs treatment now,
# or, once a medic's treatment is under way, is being treated (the player sees that treatment's own end).
MORTAL_FOR_PLAYERS = "mortal: needs treatment now"
MORTAL_BEING_TREATED = "mortal: being treated"
# A hit with a medic's treatment under way, as its chip says it.
BEING_TREATED = "being treated"

# Units of the time-before-death expressions ("1d6/2 min" is die x 30 s: no rounding is needed).
TIME_UNIT_SECONDS = {"min": MINUTE, "hours": HOUR}

# What the wounded feels and what others see, for players (docs/rules/shadowrun2.md, "Symptoms"; the seed's "immediate
# effects" section is missing). One text per location table and kind of wound, shared by the table's six entries: a
# text that differed between two entries would name the entry as surely as its part does, to anyone holding this table
# or who has seen one such hit diagnosed (the part is shown beside the text from then on). Whether the wound is open
# (bullet, blade) or closed (fall, blunt, spell) the player already knows, so the text may follow it. Never a
# lethality, a time or a severity word: the same text stands for a Mortal hit and a Critical one.
# An open wound once treated ("dressed") no longer bleeds: its text says what is left (a hit treated or healed by a
# medic or a spell; a closed wound's text never bled). A hit no longer active (healed, replaced) has no symptom.
SYMPTOMS = {
    "CHEST": {
        "open": "A wound in the chest bleeds through the clothes; every breath hurts and comes short.",
        "dressed": "A dressed wound in the chest; every breath hurts and comes short.",
        "closed": "The chest aches deep inside; every breath hurts and comes short.",
    },
    "ABDOMEN": {
        "open": "A wound in the belly bleeds through the clothes; a sick ache spreads inside and standing straight "
        "hurts.",
        "dressed": "A dressed wound in the belly; a sick ache spreads inside and standing straight hurts.",
        "closed": "A sick ache deep in the belly; nauseous, and standing straight hurts.",
    },
    "HEAD": {
        "open": "A wound on the head bleeds; dazed, the head rings and pounds and the world will not stay still.",
        "dressed": "A dressed wound on the head; dazed, the head rings and pounds and the world will not stay still.",
        "closed": "Dazed; the head rings and pounds and the world will not stay still.",
    },
    "ARM": {
        "open": "A wound in the arm bleeds and throbs; the arm is weak and clumsy and hurts to move.",
        "dressed": "A dressed wound in the arm throbs; the arm is weak and clumsy and hurts to move.",
        "closed": "The arm goes numb, then throbs; it is weak and clumsy and hurts to move.",
    },
    "LEG": {
        "open": "A wound in the leg bleeds and throbs; the leg shakes and will barely take any weight.",
        "dressed": "A dressed wound in the leg throbs; the leg shakes and will barely take any weight.",
        "closed": "The leg goes numb, then throbs; it shakes and will barely take any weight.",
    },
}

# Step 6: natural healing of a Critical-lethality hit: Body vs this TN, base time / successes.
NATURAL_HEALING_BASE_TN = 6
NATURAL_HEALING_BASE_TIME = 8 * WEEK
NATURAL_HEALING_NOT_IN_HOSPITAL = 2
NATURAL_HEALING_NOT_TREATED = 4
NATURAL_HEALING_IMPROPERLY_TREATED = 2
# (lowest body, highest body or None, modifier). The seed's "12+" overlaps "9-12"; docs/rules/shadowrun2.md: 12 is -2.
NATURAL_HEALING_BODY = ((1, 2, 1), (3, 4, 0), (5, 8, -1), (9, 12, -2), (13, None, -3))

# House (the seed's treatment chart is missing): lethality -> TN and base time; duration = base / successes.
TREATMENT_TABLE = {
    "mortal": {"tn": 8, "base_seconds": 10 * MINUTE},
    "critical": {"tn": 4, "base_seconds": 20 * MINUTE},
}
# A Mortal hit treated becomes Crippling (6 boxes); a Critical one drops to a Light wound (1 box).
TREATED_BOXES = {"mortal": 6, "critical": 1}

# SRII defaulting (no Biotech: use Intelligence) and Biotech with assensing.
DEFAULTING_TN = 4
ASSENSING_TN = -2
DIAGNOSIS_RETRY_SECONDS = MINUTE

# First aid (SRII core, house-simplified).
FIRST_AID_TN = {"L": 4, "M": 6, "S": 8, "D": 10}
FIRST_AID_BODY = ((4, 6, -1), (7, 9, -2), (10, None, -3))
FIRST_AID_WITHOUT_MEDKIT = 4
FIRST_AID_WINDOW_SECONDS = HOUR
# First aid heals at most one level: the lowest box count it may reach from each level.
FIRST_AID_FLOOR = {"L": 0, "M": 1, "S": 3}

# Physical healing stages (SRII core, house): level -> TN, base time, boxes after the stage.
PHYSICAL_HEALING = {
    "D": {"tn": 10, "base_seconds": 30 * DAY, "to_boxes": 6},
    "S": {"tn": 8, "base_seconds": 20 * DAY, "to_boxes": 3},
    "M": {"tn": 6, "base_seconds": 10 * DAY, "to_boxes": 1},
    "L": {"tn": 4, "base_seconds": 24 * HOUR, "to_boxes": 0},
}

# Stun recovery (house): the higher of body and willpower vs TN 2 + general modifier; one box per 60 min /
# successes. Option `stun_healing` changes the TN and the minutes.
STUN_RECOVERY_BASE_TN = 2
STUN_RECOVERY_BASE_MINUTES = 60

# House, SRII core: a full physical monitor not stabilized takes one overflow box per this many minutes.
DEADLY_OVERFLOW_MINUTES = 10
# Natural healing waits for rest (house, option `rest_minutes`): its rolls come this long after the latest wound,
# so that a fight's rounds never ask for them (the board's fight ends by itself after as long without an action).
REST_MINUTES = 10
