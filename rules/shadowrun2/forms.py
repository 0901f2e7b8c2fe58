"""Shadowrun 2: the forms of its actions (the parameters `read_params` holds them to) and the options' help."""

from __future__ import annotations

from rules.params import ActionForm, Param, RollSpec
from rules.shadowrun2 import tables as t
from rules.shadowrun2.engine import HIT_ID, MAX_ATTRIBUTE, MEDIC_NEEDED, TEXT_NEEDED
from rules.shadowrun2.sheet import heal_targets

_MEDIC = (
    Param(
        "medic",
        "text",
        "Medic",
        required=True,
        blank=MEDIC_NEEDED,
        help="Who does it; retries are counted per medic.",
        what="a name",
        person=True,
    ),
    Param(
        "skill",
        "int",
        "Biotech rating",
        required=True,
        minimum=1,
        maximum=MAX_ATTRIBUTE,
        help="Intelligence instead when defaulting.",
    ),
    Param("defaulting", "bool", "Defaulting", default=False, help="No Biotech: Intelligence dice, TN +4."),
)

# A wound's severity in words on a form: never a bare letter.
SEVERITY_WORDS = (("L", "Light (L)"), ("M", "Moderate (M)"), ("S", "Serious (S)"), ("D", "Deadly (D)"))


def _hit(required: bool, help: str = "") -> Param:
    """A critical hit, picked on the web from the character's hits and named by its id in the API."""
    return Param(
        "critical_hit",
        "id",
        "Critical hit",
        required=required,
        help=help,
        picker=True,
        invalid=HIT_ID,
        described_kind="critical_hit",
        means="the id of one of the character's critical hits, e.g. ch1",
    )


_SKILL_POOL = "the medic's skill: Biotech rating, or Intelligence when defaulting"

FORMS = {
    "wound": ActionForm(
        "Wound",
        params=(
            Param(
                "severity",
                "choice",
                "Severity",
                required=True,
                choices=tuple(t.WOUND_BOXES),
                choice_words=SEVERITY_WORDS,
            ),
            Param("damage", "choice", "Damage", default="physical", choices=("physical", "stun")),
            Param(
                "open_wound",
                "bool",
                "Open wound",
                default=True,
                help="Bullet, blade; not falls, blunt, spells.",
            ),
            Param(
                "combat_pool",
                "int",
                "Combat pool",
                minimum=0,
                maximum=MAX_ATTRIBUTE,
                help="Combat pool dice added to the Body check (when the campaign option combat pool on Body check is on).",
                option="combat_pool_on_body_check",
            ),
        ),
        rolls=(
            RollSpec(
                "body_check",
                0,
                6,
                "Body check",
                "Body (+ combat pool) dice; GM only.",
                size="Body, plus the combat pool given (option combat_pool_on_body_check)",
                open_ended=True,
                size_words=(("Body", ""), ("plus the combat pool given", "combat_pool")),
            ),
            RollSpec("location", 2, 6, "Hit location"),
            RollSpec("critical", 1, 6, "Critical hit table"),
            RollSpec(
                "death_time",
                0,
                6,
                "Time before death",
                "The dice of the entry's expression (1 or 2).",
                size="the Mortal entry's time expression (1d6 or 2d6), known once location and critical are rolled",
            ),
        ),
        help="Adds boxes; a Body check decides whether it is a critical hit.",
    ),
    "diagnose": ActionForm(
        "Diagnose",
        params=(
            *_MEDIC,
            Param("assensing", "bool", "Assensing", default=False, help="A magician with Biotech: TN -2."),
            _hit(required=False, help="Empty: roll for every undiagnosed hit."),
        ),
        rolls=(
            RollSpec(
                "diagnosis",
                0,
                6,
                "Diagnosis",
                "One hit; per hit: diagnosis:<id>.",
                size=_SKILL_POOL,
                open_ended=True,
            ),
        ),
        help="One success diagnoses a hit; * entries on open wounds need no roll. Retry after 1 game minute.",
    ),
    "treat": ActionForm(
        "Treat a critical hit",
        params=(_hit(required=True), *_MEDIC),
        rolls=(RollSpec("treatment", 0, 6, "Treatment", size=_SKILL_POOL, open_ended=True),),
        help="Diagnosed Mortal or Critical hits only; duration = base time / successes.",
    ),
    "heal_magic": ActionForm(
        "Heal or Treat spell",
        params=(
            Param("successes", "int", "Successes", required=True, minimum=0, maximum=1000),
            Param(
                "mode", "choice", "Mode", required=True, choices=("allocate", "damage_only", "split_evenly")
            ),
            Param(
                "allocation",
                "amounts",
                "Allocation",
                help="Diagnosed hits only.",
                example='{"physical": 3, "ch1": 6}',
                targets=heal_targets,
                columns=("To", "Successes"),
            ),
        ),
        help="Each success erases one box; stun cannot be healed this way.",
    ),
    "first_aid": ActionForm(
        "First aid",
        params=(*_MEDIC, Param("medkit", "bool", "Medkit", default=True, help="Without: TN +4.")),
        rolls=(RollSpec("first_aid", 0, 6, "First aid", size=_SKILL_POOL, open_ended=True),),
        help="Within one game hour of the latest physical wound; heals at most one level (a house rule the campaign may change); "
        "stabilizes a Deadly one.",
    ),
    "replace": ActionForm(
        "Replace",
        params=(
            _hit(required=True),
            Param(
                "replacement",
                "text",
                "Replacement",
                required=True,
                blank=TEXT_NEEDED,
                what="a replacement",
                help="Cyberware or organic.",
            ),
        ),
        help="Resolves a crippling critical hit.",
    ),
    "accept": ActionForm(
        "Accept",
        params=(_hit(required=True),),
        help="The character goes into action with a crippling critical hit: its modifier stays, but it no longer "
        "stands in the way of fit for action.",
    ),
    "set_care": ActionForm(
        "Care", params=(Param("in_hospital", "bool", "In hospital", required=True),), help="Natural healing."
    ),
}


CLOCK_ROLLS = (
    RollSpec(
        "critical_healing",
        0,
        6,
        "Natural healing (Body)",
        "a Critical hit's healing period: Body vs TN 6 + modifiers; 8 weeks / successes",
        size="the character's Body",
        open_ended=True,
    ),
    RollSpec(
        "physical_healing",
        0,
        6,
        "Physical healing (Body)",
        "one healing stage of the physical monitor: Body vs the level's TN; base time / successes",
        size="the character's Body",
        open_ended=True,
    ),
    RollSpec(
        "stun_recovery",
        0,
        6,
        "Stun recovery",
        "TN 2 + general modifier; one box per 60 minutes / successes (house; option stun_healing)",
        size="the higher of the character's Body and Willpower",
        open_ended=True,
    ),
)
