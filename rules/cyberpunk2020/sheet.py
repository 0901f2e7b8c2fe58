"""How a Cyberpunk 2020 character is created and drawn: the 40-point wound track in its levels; on the body diagram
the points each location holds, and crippled and severed locations (`rules/sheet.py` says what the web app does
with these)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules import words
from rules.cyberpunk2020 import tables
from rules.sheet import (
    Attribute,
    Block,
    Board,
    CardAction,
    Character,
    CharacterSheet,
    Demo,
    Mark,
    label,
    stats,
    title,
)


def btm_for_body(body: int) -> int:
    for low, high, btm in tables.BTM_BY_BODY:
        if body >= low and (high is None or body <= high):
            return btm
    raise ValueError(f"no BTM for body {body}")


ATTRIBUTES = (
    Attribute("body", "int", "Body Type", required=True, minimum=1, maximum=30),
    Attribute("luck", "int", "Luck", default=0, minimum=0, maximum=30),
    *(
        Attribute(
            f"armor.{location}", "int", f"Armor SP: {label(location)}", default=0, minimum=0, maximum=100
        )
        for location in tables.LOCATIONS
    ),
    Attribute(
        "btm",
        "int",
        "BTM override",
        minimum=-10,
        maximum=0,
        help="empty: from Body Type",
        derive=lambda read: btm_for_body(read["body"]),
    ),
    Attribute("stun_save_bonus", "int", "Stun save bonus", default=0, minimum=-10, maximum=10),
)

# The body diagram draws the torso as chest and abdomen.
REGIONS = {"torso": ("chest", "abdomen")}
LEVEL_NAMES = tuple(level for _first, _last, level, _penalty in tables.WOUND_LEVELS)


def track(sheet: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The wound track in its levels of 4 boxes: real damage filled, then stun damage hatched."""
    real = min(tables.TRACK_MAX, sheet.get("damage", 0))
    points = min(tables.TRACK_MAX, sheet.get("track", real))
    return [
        {
            "title": title(level),
            "boxes": [
                {"n": n, "kind": "real" if n <= real else "stun" if n <= points else "empty"}
                for n in range(first, last + 1)
            ],
        }
        for first, last, level, _penalty in tables.WOUND_LEVELS
    ]


def monitors(character: Character, audience: str) -> list[Block]:
    sheet = character["sheet"]
    return [
        {
            "kind": "track",
            "text": f"Wound track: {sheet['track']} of {tables.TRACK_MAX} points ({sheet['damage']} real,"
            f" {sheet['stun_damage']} stun), level {label(sheet['wound_level'] or 'none')}",
            "groups": track(sheet),
            "legend": [("real", "real damage"), ("stun", "stun damage")],
        },
        stats(*_rows(character, sheet)),
    ]


def _rows(character: Character, sheet: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The sheet's figures; a dead character has no saves to make and nothing to heal."""
    rows: list[tuple[str, Any]] = [
        ("Wound level", label(sheet.get("wound_level") or "none")),
        ("BTM", sheet["btm"]),
    ]
    if character.get("alive", True):
        rows += [
            ("Stun save", f"{sheet['stun_save_target']} or less on a d10"),
            ("Death save", f"{sheet['death_save_target']} or less on a d10"),
        ]
        healing = _healing_rate(sheet)
        if healing:
            rows.append(("Healing rate", healing))
    return [*rows, ("Minor wounds", sheet["minor_wounds"])]


def _healing_rate(sheet: Mapping[str, Any]) -> str:
    """What treatment does for the real damage left: its rate; untreated, that it does not heal; minor wounds alone
    stop counting on their own. No real damage: nothing (the rate of a healed character was "not treated: no
    healing", stale once the engine forgets the care of a track healed to 0)."""
    if sheet["healing_rate"]:
        return f"{sheet['healing_rate']} point/day"
    if sheet["damage"] > sheet["minor_wounds"]:
        return "not treated: no healing"
    if sheet["damage"] > 0:
        return "not needed: minor wounds stop counting on their own"
    return ""


# The words for a location's own points on the track, by the wound levels they would make alone (README, "Damage
# per location"): Light (1-4) wounded, Serious and Critical (5-12) badly wounded, Mortal (13 and more) mortally.
POINT_WORDS = ((13, 3, "mortally wounded"), (5, 2, "badly wounded"), (1, 1, "wounded"))
LEGEND = (
    (0, "unhurt"),
    (1, "wounded (1-4 points)"),
    (2, "badly wounded (5-12 points) / crippled, stabilized or bones set"),
    (3, "mortally wounded (13 points or more) / crippled"),
    (4, "severed / head destroyed"),
    ("replaced", "replaced limb"),
)


def point_mark(real: int, stun: int) -> tuple[int, str] | None:
    """A location's points as a severity and words: 'badly wounded (6 points, 2 stun points)'; stun alone is a bruise
    (pain that leaves no lasting harm, the seed)."""
    if real <= 0 and stun <= 0:
        return None
    amounts = [words.count(real, "point")] if real > 0 else []
    if stun > 0:
        amounts.append(words.count(stun, "stun point"))
    if real <= 0:
        return 1, f"bruised ({amounts[0]})"
    severity, name = next((severity, name) for low, severity, name in POINT_WORDS if real >= low)
    return severity, f"{name} ({', '.join(amounts)})"


def body_marks(sheet: Mapping[str, Any]) -> list[Mark]:
    """Each location's points on the track (wounded 1, badly wounded 2, mortally wounded 3); crippled (3) or
    severed (4) locations, a crippled limb that is stabilized or whose bones are set no longer serious (2). A
    replaced limb is whole again: it is marked replaced, and the points of the wound it replaced stay on it until
    they heal."""
    marks = []
    real_points = sheet.get("location_damage") or {}
    stun_points = sheet.get("location_stun") or {}
    for where, state in (sheet.get("locations") or {}).items():
        found = []
        if state.get("severed"):
            found.append((4, "destroyed" if where == "head" else "severed"))
        elif state.get("crippled") and state.get("mends_at") is not None:
            found.append((2, "crippled, bones set"))
        elif state.get("crippled") and state.get("stabilized"):
            found.append((2, "crippled, stabilized"))
        elif state.get("crippled"):
            found.append((3, "crippled"))
        if state.get("replacement") and not state.get("severed"):
            found.append(("replaced", f"replaced ({state['replacement']})"))
        points = point_mark(real_points.get(where, 0), stun_points.get(where, 0))
        if points is not None:
            found.append(points)
        regions = REGIONS.get(where)
        marks.extend(
            Mark(region, severity, text, where if regions else "")
            for severity, text in found
            for region in regions or (where,)
        )
    return marks


def severity(sheet: Mapping[str, Any]) -> int:
    """The wound level: none 0, light 1, serious 2, critical 3, and 4 for every mortal level."""
    level = sheet.get("wound_level")
    return min(LEVEL_NAMES.index(level) + 1, 4) if level in LEVEL_NAMES else 0


DEMO = Demo(
    title="Night City Blues (demo)",
    characters=(
        (
            "Vex",
            "player",
            {"body": 6, "luck": 4},
            (
                {
                    "type": "damage",
                    "damage": 20,
                    "kind": "normal",
                    "location": "left_arm",
                    "rolls": {"stun_save": [3], "death_save": [2], "sever": [7]},
                },
            ),
        ),
    ),
)


def injury_choices(sheet: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What a stabilization may name: each crippled limb not yet stabilized, a severed one too (it bleeds: RULES.md,
    a crippled limb not stabilized makes a death save every turn, and severed is crippled with no limb kept), and
    the character if dying (the sheet's `dying`, `CharacterSheet.choices_of`): the decider refuses "the character
    is not dying" otherwise."""
    limbs = [
        (f"limb:{where}", f"{label(where)} ({'severed' if place.get('severed') else 'crippled'})")
        for where, place in (sheet.get("locations") or {}).items()
        if place.get("crippled") and not place.get("stabilized")
    ]
    dying = [("dying", "the dying character (medical tech)")] if sheet.get("dying") else []
    return [*limbs, *dying]


def settable_bones(sheet: Mapping[str, Any]) -> tuple[list[tuple[str, str]], str]:
    """The limbs whose bones may be set (house, `set_bones`): crippled, not severed, not set yet; and why a crippled
    limb not yet stabilized is not offered, as the decider says it."""
    offered, refused = [], []
    for where, place in (sheet.get("locations") or {}).items():
        if where not in tables.LIMBS or not place.get("crippled") or place.get("severed"):
            continue
        if place.get("mends_at") is not None:
            continue  # set already: mending
        if not place.get("stabilized"):
            refused.append(f"The {label(where)} is not offered: it still bleeds; stabilize it first.")
            continue
        offered.append((where, f"{label(where)} (crippled)"))
    return offered, " ".join(refused)


# The board: a round is 3 s and a turn 10 rounds (docs/rules/README.md, "Game time"); a card takes the attack's
# damage, where it was aimed (empty: rolled) and the target's stun and death saves (empty: rolled), and a save rolled
# at the table.
BOARD = Board(
    round_seconds=3,
    round_name="round",
    # Care that is not urgent: diagnose, treat, replace ... (docs/clock.md, "The fight's rounds").
    care_events=frozenset(
        ("TreatmentSucceeded", "TreatmentFailed", "BonesSet", "BoneSettingFailed", "LimbReplaced")
    ),
    actions=(
        CardAction("damage", ("damage", "location", "rolls.stun_save", "rolls.death_save")),
        CardAction("save", ("kind", "rolls.save"), label="Save"),
        # The one action that saves a dying character before the next round's death save.
        CardAction(
            "stabilize",
            ("target", "medic", "skill", "tech", "skill_level", "rolls.stabilize"),
            label="Stabilize",
        ),
    ),
)

SHEET = CharacterSheet(
    attributes=ATTRIBUTES,
    monitors=monitors,
    body_marks=body_marks,
    severity=severity,
    legend=LEGEND,
    injury_choices=injury_choices,
    demo=DEMO,
    board=BOARD,
)
