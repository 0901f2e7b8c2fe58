"""How a Shadowrun character is created and drawn: two condition monitors, the critical hits with a monitor each,
their locations on the body diagram (`rules/sheet.py` says what the web app does with these)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.ruleset import GM
from rules.shadowrun2 import tables as t
from rules.sheet import (
    LEGEND,
    SEVERITY_LABELS,
    Attribute,
    Block,
    Board,
    CardAction,
    Character,
    CharacterSheet,
    Demo,
    Mark,
    Severity,
    boxes_severity,
    label,
    stats,
)

ATTRIBUTES = (
    Attribute("body", "int", "Body", required=True, minimum=1, maximum=t.MAX_ATTRIBUTE),
    Attribute(
        "willpower",
        "int",
        "Willpower",
        minimum=1,
        maximum=t.MAX_ATTRIBUTE,
        help="empty: same as Body",
        derive=lambda read: read["body"],
    ),
)

# A monitor's level letter is written beside the first box of the level (1 L, 3 M, 6 S, 10 D).
LEVEL_MARKS = {
    boxes: level
    for boxes, level in enumerate(t.LEVEL_BY_BOXES)
    if level is not None and level != t.LEVEL_BY_BOXES[boxes - 1]
}


def column(title: str, boxes: int | None) -> dict[str, Any]:
    """A condition monitor: boxes 1-10 from the top, the level letters beside them."""
    filled = boxes or 0
    size = t.MONITOR_BOXES
    return {
        "title": title,
        "boxes": [
            {"n": n, "filled": n <= filled, "mark": LEVEL_MARKS.get(n, "")} for n in range(1, size + 1)
        ],
        "text": f"{title}: {filled} of {size} boxes",
    }


def _status_words(hit: Mapping[str, Any]) -> str:
    """A hit no longer active, as it is now: 'replaced by cyberware', 'healed'."""
    if hit.get("status") == "replaced" and hit.get("replacement"):
        return f"replaced by {hit['replacement']}"
    return str(hit.get("status"))


def _hit(hit: Mapping[str, Any], audience: str, alive: bool) -> dict[str, Any]:
    """One hit's words. The chip (what a board card shows of it) is what the hit is now: its lethality while it is
    active, else what became of it ('replaced by cyberware'), the lethality it had said beside it on the page."""
    where = label(hit["location"])
    active = hit.get("status") == "active"
    # A player's diagnosed Mortal hit says "mortal: needs treatment now" (RULES.md); its lethality chip beside it
    # read "Chest mortal mortal: needs treatment now" on the phone (tester's report): the alarm alone says it.
    mortal = hit.get("lethality") == "mortal" and audience != GM and alive
    # A medic's treatment under way: the GM's chips and the player's say it, as the recovery's "treatment of ..."
    # line beside them does; the player's Mortal alarm says it alone ("mortal: being treated").
    under_way = active and alive and hit.get("treatment_completes_at") is not None
    details = []
    if hit.get("part"):
        details.append({"text": hit["part"], "css": ""})
    if hit.get("lethality") and hit["lethality"] != hit.get("status") and not mortal:
        details.append({"text": hit["lethality"], "css": "chip" if active else ""})
    if under_way and not mortal:
        details.append({"text": t.BEING_TREATED, "css": "chip"})
    elif not hit.get("lethality"):
        details.append({"text": "not diagnosed", "css": "chip unknown"})
    if hit.get("penalty"):
        details.append({"text": f"TN +{hit['penalty']}", "css": ""})
    if not active:
        details.append({"text": _status_words(hit), "css": "chip"})
    if audience == GM and hit.get("reason"):
        # What made the hit Mortal, said as past once it is treated: "internal bleeding, treated".
        reason = t.REASONS.get(hit["reason"], hit["reason"])
        details.append({"text": f"{reason}, treated" if hit.get("treated") else reason, "css": ""})
    if hit.get("accepted"):
        # The GM's Accept (RULES.md, "Fit for action"): the crippling hit stays, and the table knows it will.
        details.append({"text": "accepted: crippled for good", "css": "chip"})
    if audience == GM and not hit.get("diagnosed"):
        # A chip, so that the board's card shows it too: the GM sees at a glance that a hit awaits a diagnosis (the
        # player's card already says "not diagnosed" where the lethality would be).
        details.append({"text": "not diagnosed", "css": "chip unknown"})
    return {
        "column": column(where, hit["boxes"]) if hit.get("boxes") is not None else None,
        "title": where[:1].upper() + where[1:],
        "details": details,
        "alarm": (t.MORTAL_BEING_TREATED if under_way else t.MORTAL_FOR_PLAYERS) if mortal else "",
        "symptom": hit.get("symptom", ""),
    }


def monitors(character: Character, audience: str) -> list[Block]:
    sheet = character["sheet"]
    overflow = sheet.get("physical_overflow", 0)
    blocks: list[Block] = [
        {
            "kind": "columns",
            "css": "sr",
            "columns": [
                column("Physical", sheet["physical"]["boxes"]),
                column("Stun", sheet["stun"]["boxes"]),
            ],
            "overflow": {"boxes": overflow, "note": f"dead past Body {character['attributes']['body']}"}
            if overflow
            else None,
        }
    ]
    if hits := sheet.get("critical_hits"):
        blocks.append(
            {
                "kind": "injuries",
                "title": "Critical hits",
                "items": [_hit(hit, audience, character["alive"]) for hit in hits],
            }
        )
    tn = sheet["tn_modifier"]
    blocks.append(
        stats(
            ("TN modifier (general)", f"+{tn['general']}"),
            ("TN modifier (worst case, every hit)", f"+{tn['total']}"),
            ("Care", "in hospital" if sheet["in_hospital"] else "not in hospital"),
        )
    )
    return blocks


def body_marks(sheet: Mapping[str, Any]) -> list[Mark]:
    """Every critical hit not healed, on its location: its lethality as a monitor of that many boxes, or
    `unknown` while it is not diagnosed (a player never learns more from the colour than from the words)."""
    marks = []
    for hit in sheet.get("critical_hits", []):
        if hit.get("status") == "healed":
            continue
        if hit.get("status") == "replaced":
            severity: Severity = "replaced"
        elif hit.get("lethality") is None:
            severity = "unknown"
        else:
            severity = boxes_severity(t.CRITICAL_HIT_BOXES.get(hit["lethality"], 1))
        marks.append(Mark(hit.get("location"), severity, SEVERITY_LABELS[severity]))
    return marks


def severity(sheet: Mapping[str, Any]) -> int:
    return boxes_severity(max(sheet["physical"]["boxes"], sheet["stun"]["boxes"]))


def injury_choices(sheet: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The active critical hits, for the actions that treat, diagnose or replace one."""
    return [
        (
            hit["id"],
            f"Hit {hit['id'].removeprefix('ch')}: {label(hit['location'])}"
            + (f", {hit['part']}" if hit.get("part") else "")
            + f" ({hit.get('lethality') or 'undiagnosed'})",
        )
        for hit in sheet.get("critical_hits", [])
        if hit.get("status") == "active"
    ]


def heal_targets(sheet: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What a healing spell's successes may go to (docs/rules/shadowrun2.md, "Healing magic": the physical monitor and
    the diagnosed critical hits; stun cannot be healed this way), for the spell's allocation."""
    diagnosed = {hit["id"] for hit in sheet.get("critical_hits", []) if hit.get("diagnosed")}
    hits = [(hit_id, words) for hit_id, words in injury_choices(sheet) if hit_id in diagnosed]
    return [("physical", "Physical monitor"), *hits]


DEMO = Demo(
    title="Seattle Shadows (demo)",
    characters=(
        (
            "Ash",
            "player",
            {"body": 4, "willpower": 5},
            (
                {
                    "type": "wound",
                    "severity": "S",
                    "open_wound": True,
                    "rolls": {
                        "body_check": [2, 5, 1, 3],
                        "location": [3, 4],
                        "critical": [2],
                        "death_time": [4],
                    },
                },
                {"type": "note", "text": "Shot by the Lone Star sniper on the roof."},
            ),
        ),
        (
            "Brick",
            "player2",
            {"body": 7},
            ({"type": "wound", "severity": "M", "rolls": {"body_check": [6, 6, 3, 1, 5, 2, 4]}},),
        ),
    ),
)

# The board: a combat turn is 3 s; a card takes a wound's severity, damage, whether it is open (a blunt wound hides
# the hits an open one shows) and hit location (the Body check is rolled by the server unless the full page gives
# it), and first aid, Shadowrun's way to save a Deadly wound, with or without a medkit (4 on the target) and
# defaulting (4 more): what changes its target is on the card, where a GM records it mid-fight.
BOARD = Board(
    round_seconds=3,
    round_name="combat turn",
    turn_name=None,  # SRII has no 30-second turn: the clock's 30 s is "+10 combat turns"
    # Care that is not urgent: diagnose, treat, replace ... (docs/clock.md, "The fight's rounds").
    care_events=frozenset(
        (
            "DiagnosisMade",
            "TreatmentStarted",
            "TreatmentFailed",
            "CriticalHitReplaced",
            "CriticalHitAccepted",
            "CareChanged",
        )
    ),
    actions=(
        CardAction("wound", ("severity", "damage", "open_wound", "rolls.location")),
        CardAction("first_aid", ("medic", "skill", "medkit", "defaulting", "rolls.first_aid")),
    ),
)


SHEET = CharacterSheet(
    attributes=ATTRIBUTES,
    monitors=monitors,
    body_marks=body_marks,
    severity=severity,
    legend=(*LEGEND, ("unknown", "not diagnosed"), ("replaced", "replaced")),
    injury_choices=injury_choices,
    demo=DEMO,
    board=BOARD,
)
