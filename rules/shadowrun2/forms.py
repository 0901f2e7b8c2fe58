"""Shadowrun 2: the forms of its actions (the parameters `read_params` holds them to) and the options' help."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rules.dice import success_target
from rules.params import ActionForm, Param, RollSpec
from rules.shadowrun2 import tables as t
from rules.shadowrun2.engine import (
    HIT_ID,
    MAX_ATTRIBUTE,
    MEDIC_NEEDED,
    TEXT_NEEDED,
    first_aid_target,
    first_aid_target_words,
    resolve_refusal,
    treat_refusal,
)
from rules.shadowrun2.sheet import heal_targets, injury_choices
from rules.sheet import label

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


Refusal = Callable[[Mapping[str, Any]], "str | None"]


def _offered(sheet: Mapping[str, Any], refusal: Refusal) -> tuple[list[tuple[str, str]], str]:
    """The active hits an action may name (`refusal` None for them), and why the others are not offered, in the
    decider's own words, a sentence each: "Hit 1 to the chest is not offered: the medic does not know this critical
    hit is there." Healed and replaced hits are not offered and need no word."""
    hits = {hit["id"]: hit for hit in sheet.get("critical_hits", [])}
    offered, refused = [], []
    for hit_id, words in injury_choices(sheet):
        hit = hits[hit_id]
        why = refusal(hit)
        if why is None:
            offered.append((hit_id, words))
        else:
            part = f" ({hit['part']})" if hit.get("part") else ""
            name = f"Hit {hit_id.removeprefix('ch')} to the {label(hit['location'])}{part}"
            refused.append(f"{name} is not offered: {why}.")
    return offered, " ".join(refused)


def treatable(sheet: Mapping[str, Any]) -> tuple[list[tuple[str, str]], str]:
    """The hits a medic may treat: diagnosed, Mortal or Critical, no treatment under way."""
    return _offered(
        sheet,
        lambda hit: treat_refusal(
            active=hit["status"] == "active",
            diagnosed=bool(hit["diagnosed"]),
            lethality=hit["lethality"],
            under_way=hit.get("treatment_completes_at") is not None,
        ),
    )


def undiagnosed(sheet: Mapping[str, Any]) -> tuple[list[tuple[str, str]], str]:
    """The hits a diagnosis may look for: those not diagnosed yet (the others need no word)."""
    found, _ = _offered(sheet, lambda hit: None if not hit["diagnosed"] else "")
    return found, ""


def resolvable(action: str) -> Callable[[Mapping[str, Any]], tuple[list[tuple[str, str]], str]]:
    """The hits a replacement or the GM's Accept may name: diagnosed crippling hits."""
    return lambda sheet: _offered(
        sheet,
        lambda hit: resolve_refusal(
            action,
            active=hit["status"] == "active",
            diagnosed=bool(hit["diagnosed"]),
            lethality=hit["lethality"],
        ),
    )


def _hit(
    required: bool,
    help: str = "",
    offers: Callable[[Mapping[str, Any]], tuple[list[tuple[str, str]], str]] | None = None,
    empty: str = "",
) -> Param:
    """A critical hit, picked on the web from the character's hits that the action may name (`offers`) and
    named by its id in the API."""
    return Param(
        "critical_hit",
        "id",
        "Critical hit",
        required=required,
        help=help,
        picker=True,
        offers=offers,
        empty=empty,
        invalid=HIT_ID,
        described_kind="critical_hit",
        means="the id of one of the character's critical hits, e.g. ch1",
    )


_SKILL_POOL = "the medic's skill: Biotech rating, or Intelligence when defaulting"


def first_aid_now(sheet: Mapping[str, Any], attributes: Mapping[str, Any], options: Mapping[str, Any]) -> str:
    """First aid's target for this character now, with a medkit and not defaulting, as it is made."""
    boxes = (sheet.get("physical") or {}).get("boxes") or 0
    if not boxes or "body" not in attributes:
        return ""
    state = {"physical": boxes, "attributes": attributes, "options": options}
    tn = success_target(first_aid_target(state, True, False))
    return (
        f"Target now {tn}: {first_aid_target_words(state, True, False)}; +{t.FIRST_AID_WITHOUT_MEDKIT} without "
        f"a medkit, +{t.DEFAULTING_TN} when defaulting."
    )


def treatment_now(sheet: Mapping[str, Any], attributes: Mapping[str, Any], options: Mapping[str, Any]) -> str:
    """A treatment's targets by lethality, the campaign's house rule (option `treatment_table`)."""
    table = options.get("treatment_table")
    if not table:
        return ""
    rows = ", ".join(f"{row['tn']} for a {lethality} hit" for lethality, row in table.items())
    return f"Target: {rows} (house rule); +{t.DEFAULTING_TN} when defaulting."


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
            _hit(
                required=False,
                help="Empty: roll for every undiagnosed hit.",
                offers=undiagnosed,
                empty="every undiagnosed hit",
            ),
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
                per="critical_hit",
            ),
        ),
        help="One success diagnoses a hit; * entries on open wounds need no roll. Retry after 1 game minute.",
    ),
    "treat": ActionForm(
        "Treat a critical hit",
        params=(_hit(required=True, offers=treatable), *_MEDIC),
        rolls=(RollSpec("treatment", 0, 6, "Treatment", size=_SKILL_POOL, open_ended=True),),
        help="Diagnosed Mortal or Critical hits only; duration = base time / successes.",
        target_help=treatment_now,
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
        target_help=first_aid_now,
    ),
    "replace": ActionForm(
        "Replace",
        params=(
            _hit(required=True, offers=resolvable("replace")),
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
        params=(_hit(required=True, offers=resolvable("accept")),),
        help="The character goes into action with a crippling critical hit: its modifier stays, but it no longer "
        "stands in the way of fit for action.",
    ),
    "set_care": ActionForm(
        "Care",
        params=(
            Param(
                "in_hospital",
                "bool",
                "In hospital",
                required=True,
                # Ticked as the character is cared for now: pressing Care again changes nothing by itself.
                initial=lambda sheet: bool(sheet.get("in_hospital")),
            ),
        ),
        help="Natural healing.",
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
