"""Turn presenter output (already filtered for the audience) into what the templates draw.

Nothing here reads a model or a state: only the dicts that `campaign.presenters` produced for the audience, so a
player's page can never show more than the player's view holds.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

SEVERITY_LABELS = {
    0: "unhurt",
    1: "light",
    2: "moderate",
    3: "serious",
    4: "deadly",
    "unknown": "injured (not diagnosed)",
    "replaced": "replaced",
}

SR_LOCATIONS = ("head", "chest", "abdomen", "left_arm", "right_arm", "left_leg", "right_leg")
CP_LOCATIONS = ("head", "torso", "left_arm", "right_arm", "left_leg", "right_leg")
DF_LIMBS = ("left_arm", "right_arm", "left_leg", "right_leg")

SR_LETHALITY_SEVERITY = {"mortal": 4, "crippling": 3, "critical": 2}
SR_LEVEL_MARKS = {1: "L", 3: "M", 6: "S", 10: "D"}
CP_GROUPS = (
    "Light",
    "Serious",
    "Critical",
    "Mortal 0",
    "Mortal 1",
    "Mortal 2",
    "Mortal 3",
    "Mortal 4",
    "Mortal 5",
    "Mortal 6",
)
CP_WOUND_SEVERITY = {"none": 0, "light": 1, "serious": 2, "critical": 3}


def label(name: str) -> str:
    return name.replace("_", " ")


def date_text(iso: str | None) -> str:
    """'2053-01-01T14:32:30' -> '2053-01-01 14:32:30' (game dates have no time zone)."""
    if not iso:
        return ""
    return datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M:%S")


def duration_text(seconds: int | None) -> str:
    """Game seconds as '2d 4h', '14m 30s', '3s'."""
    if seconds is None:
        return ""
    sign = "-" if seconds < 0 else ""
    seconds = abs(int(seconds))
    parts = []
    for unit, size in (("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size or (unit == "s" and not parts):
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
        if len(parts) == 2:
            break
    return sign + " ".join(parts)


def event_title(kind: str) -> str:
    """'CriticalHitTaken' -> 'Critical hit taken'."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", kind).lower()
    return words[:1].upper() + words[1:]


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):
        return option_text(value)
    if value is None:
        return "-"
    return str(value)


# The options every ruleset shares (`services.validate_campaign_options`); each ruleset explains its own.
SHARED_OPTION_HELP = {
    "start": "the game date and time the campaign's clock starts at",
    "time_scale": "game seconds per real second for a clock that runs on its own; 0: the GM advances it",
}


def option_text(value: Any) -> str:
    """A campaign option's value as the JSON the campaign form's options field takes (`true`, not `True`); also
    how a history entry shows a nested value."""
    return json.dumps(value, separators=(", ", ": "))


def event_details(data: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The event's data as (label, value) pairs, in the order the engine wrote them."""
    if not data:
        return []
    return [(label(key), _value_text(value)) for key, value in data.items()]


# --- body diagram ---------------------------------------------------------------------------------------------


def _worse(current: Any, new: Any) -> Any:
    order = {0: 0, "replaced": 1, 1: 2, "unknown": 3, 2: 4, 3: 5, 4: 6}
    return new if order[new] > order[current] else current


def body_regions(ruleset: str, sheet: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Severity per drawn body region, from the sheet as the audience sees it.

    Shadowrun: the worst active critical hit of each location (undiagnosed hits seen by a player are 'unknown',
    never their lethality). Cyberpunk: crippled (3) or severed (4) limbs; the torso and head by the same marks.
    Dark Future: disabled limbs (3).
    """
    regions = {
        name: 0 for name in ("head", "chest", "abdomen", "left_arm", "right_arm", "left_leg", "right_leg")
    }
    notes: dict[str, list[str]] = {name: [] for name in regions}
    if ruleset == "shadowrun2":
        for hit in sheet.get("critical_hits", []):
            where = hit.get("location")
            if where not in regions:
                continue
            if hit.get("status") == "healed":
                continue
            if hit.get("status") == "replaced":
                severity: Any = "replaced"
            elif hit.get("lethality") is None:
                severity = "unknown"
            else:
                severity = SR_LETHALITY_SEVERITY.get(hit["lethality"], 1)
            regions[where] = _worse(regions[where], severity)
            notes[where].append(SEVERITY_LABELS[severity])
    elif ruleset == "cyberpunk2020":
        for where, marks in (sheet.get("locations") or {}).items():
            targets = ("chest", "abdomen") if where == "torso" else (where,)
            severity = 4 if marks.get("severed") else 3 if marks.get("crippled") else 0
            if marks.get("crippled") and marks.get("stabilized") and not marks.get("severed"):
                severity = 2
            for target in targets:
                if target in regions and severity:
                    regions[target] = _worse(regions[target], severity)
                    notes[target].append(
                        "severed"
                        if marks.get("severed")
                        else "crippled, stabilized"
                        if severity == 2
                        else "crippled"
                    )
    elif ruleset == "darkfuture":
        for limb in sheet.get("disabled_limbs") or []:
            if limb in regions:
                regions[limb] = 3
                notes[limb].append("disabled")
    return {
        name: {
            "severity": severity,
            "css": f"sev-{severity}",
            "text": f"{label(name)}: {', '.join(notes[name]) if notes[name] else 'unhurt'}",
        }
        for name, severity in regions.items()
    }


def overall_severity(ruleset: str, character: dict[str, Any]) -> int:
    """How hurt the whole body looks (the outline of the diagram)."""
    sheet = character["sheet"]
    if not character["alive"]:
        return 4
    if ruleset == "shadowrun2":
        boxes = max(sheet["physical"]["boxes"], sheet["stun"]["boxes"])
    elif ruleset == "cyberpunk2020":
        level = sheet.get("wound_level") or "none"
        return 4 if level.startswith("mortal") else CP_WOUND_SEVERITY.get(level, 0)
    else:
        con = sheet["con"]
        lost = con["initial"] - con["current"]
        boxes = round(10 * lost / max(1, con["initial"]))
    return 0 if boxes == 0 else 1 if boxes < 3 else 2 if boxes < 6 else 3 if boxes < 10 else 4


# --- monitors ---------------------------------------------------------------------------------------------------


def sr_column(title: str, boxes: int | None, size: int = 10) -> dict[str, Any]:
    """A Shadowrun condition monitor column: boxes 1-10 from the top, L/M/S/D marked at 1, 3, 6 and 10."""
    filled = boxes or 0
    return {
        "title": title,
        "boxes": [
            {"n": n, "filled": n <= filled, "mark": SR_LEVEL_MARKS.get(n, "")} for n in range(1, size + 1)
        ],
        "text": f"{title}: {filled} of {size} boxes",
    }


def cp_track(sheet: dict[str, Any]) -> list[dict[str, Any]]:
    """The 40-point wound track in 10 groups of 4: real damage filled, then stun damage hatched."""
    real = min(40, sheet.get("damage", 0))
    track = min(40, sheet.get("track", real))
    groups = []
    for index, title in enumerate(CP_GROUPS):
        boxes = []
        for offset in range(4):
            n = index * 4 + offset + 1
            boxes.append({"n": n, "kind": "real" if n <= real else "stun" if n <= track else "empty"})
        groups.append({"title": title, "boxes": boxes})
    return groups


def df_con(sheet: dict[str, Any]) -> list[dict[str, Any]]:
    con = sheet["con"]
    return [{"n": n, "lost": n > max(0, con["current"])} for n in range(1, con["initial"] + 1)]


def monitors(ruleset: str, sheet: dict[str, Any]) -> dict[str, Any]:
    if ruleset == "shadowrun2":
        hits = []
        for hit in sheet.get("critical_hits", []):
            column = (
                sr_column(f"{label(hit['location'])}", hit.get("boxes"))
                if hit.get("boxes") is not None
                else None
            )
            hits.append({"hit": hit, "column": column, "where": label(hit["location"])})
        return {
            "columns": [
                sr_column("Physical", sheet["physical"]["boxes"]),
                sr_column("Stun", sheet["stun"]["boxes"]),
            ],
            "overflow": sheet.get("physical_overflow", 0),
            "hits": hits,
        }
    if ruleset == "cyberpunk2020":
        return {"groups": cp_track(sheet)}
    if ruleset == "darkfuture":
        return {"con": df_con(sheet)}
    return {}


def sheet_labels(ruleset: str, sheet: dict[str, Any]) -> dict[str, str]:
    if ruleset == "cyberpunk2020":
        return {"wound_level": label(sheet.get("wound_level") or "none")}
    if ruleset == "darkfuture":
        return {"disabled_limbs": ", ".join(label(limb) for limb in sheet.get("disabled_limbs") or [])}
    return {}
