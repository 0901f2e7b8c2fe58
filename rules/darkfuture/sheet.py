"""How a Dark Future character is created and drawn: CON as numbered boxes, kept or lost, and disabled limbs on
the body diagram (`rules/sheet.py` says what the web app does with these)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.darkfuture import tables
from rules.sheet import (
    Attribute,
    Block,
    Board,
    CardAction,
    Character,
    CharacterSheet,
    Demo,
    Mark,
    boxes_severity,
    label,
    stats,
)

ATTRIBUTES = (
    Attribute(
        "con",
        "int",
        "CON",
        required=True,
        minimum=1,
        maximum=1000,
        help="5 or more is what the system is meant for",
    ),
    Attribute(
        "skills",
        "map",
        "Skills",
        default={},
        minimum=0,
        maximum=100,
        help="One skill a row, its name and level (0-100), e.g. driver 3; a row left empty is left out.",
        columns=("Skill", "Level"),
        key_what="a skill name",
        key_names="skill names",
    ),
    Attribute("move", "int", "Move", default=0, minimum=0, maximum=1000),
    Attribute("armour", "int", "Body armour", default=0, minimum=0, maximum=1000),
    Attribute("pedestrian", "bool", "Pedestrian", default=True),
    Attribute("driver", "bool", "Driver", default=False),
)


def band_words(band: str) -> str:
    """'51-75' -> '51-75% of CON'; the two bands that are no percentage say what they are."""
    if band == tables.BAND_DEAD:
        return "dead"
    if band == tables.BAND_ZERO:
        return "0 CON"
    return f"{band}% of CON"


def monitors(character: Character, audience: str) -> list[Block]:
    sheet = character["sheet"]
    con = sheet["con"]
    skills = ", ".join(f"{name} {s['current']}/{s['base']}" for name, s in sheet["skills"].items())
    limit = sheet["safety_limit_mph"]
    return [
        {
            "kind": "bar",
            "text": f"CON {con['current']} of {con['initial']}, {band_words(sheet['band'])}",
            "title": f"CON {con['current']} / {con['initial']}",
            "boxes": [{"n": n, "lost": n > max(0, con["current"])} for n in range(1, con["initial"] + 1)],
        },
        stats(
            ("Band", band_words(sheet["band"])),
            ("Skills", skills or "none"),
            ("Move", f"{sheet['move']['current']}/{sheet['move']['base']}"),
            ("Safety limit", f"{limit} mph" if limit else "none"),
            (
                "Disabled limbs",
                ", ".join(label(limb) for limb in sheet.get("disabled_limbs") or []) or "none",
            ),
            # What the next wound is rolled with (they change in play: armour bought, a driver on foot).
            ("Body armour", str(sheet.get("armour", 0))),
            ("Takes wounds as", _role(sheet)),
        ),
    ]


def _role(sheet: Mapping[str, Any]) -> str:
    """A pedestrian adds the weapon's damage to the roll; a driver does not (docs/rules/darkfuture.md)."""
    roles = [name for name in ("pedestrian", "driver") if sheet.get(name, name == "pedestrian")]
    return " and ".join(roles) or "neither pedestrian nor driver"


def body_marks(sheet: Mapping[str, Any]) -> list[Mark]:
    return [Mark(limb, 3, "disabled") for limb in sheet.get("disabled_limbs") or []]


def severity(sheet: Mapping[str, Any]) -> int:
    """CON lost, as the boxes of a ten-box monitor."""
    con = sheet["con"]
    return boxes_severity(round(10 * (con["initial"] - con["current"]) / max(1, con["initial"])))


DEMO = Demo(
    title="Route 66 Run (demo)",
    characters=(
        (
            "Jet",
            "player",
            {"con": 8, "skills": {"driver": 3, "gunner": 4}, "driver": True},
            (
                {"type": "damage", "weapon_damage": 1, "rolls": {"damage": [2]}},
                {"type": "damage", "weapon_damage": 1, "rolls": {"damage": [4], "stun": [2]}},
            ),
        ),
    ),
)

# The board: the pedestrian rules give a turn no length, so a fight counts the campaign clock's 3 s rounds (called
# rounds: "+1 turn" is the clock's 30 s); a card takes the weapon's damage and the Critical Table die, and a recovery
# from a KO roll (Dark Future has no saves).
BOARD = Board(
    round_seconds=3,
    round_name="round",
    actions=(
        CardAction("damage", ("weapon_damage", "rolls.damage")),
        CardAction("recover", ("knocked_out", "limbs")),
    ),
)

# The legend lists the one colour the diagram uses: CON is lost by the whole body, never by a hit location, so the
# severities of a hit-location legend (light to deadly / severed: `rules.sheet.LEGEND`) mean nothing here; only a
# disabled limb (house limb disablement, 01-25%) is drawn on the body (`body_marks`).
LEGEND = ((3, "disabled limb"),)
SHEET = CharacterSheet(
    attributes=ATTRIBUTES,
    monitors=monitors,
    body_marks=body_marks,
    severity=severity,
    legend=LEGEND,
    demo=DEMO,
    board=BOARD,
)
