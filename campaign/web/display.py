"""Turn presenter output (already filtered for the audience) into what the templates draw.

Nothing here reads a model or a state: only the dicts that `campaign.presenters` produced for the audience, so a
player's page can never show more than the player's view holds.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from rules.dice import TABLE_DICE_HELP
from rules.event_schema import TABLE_DICE
from rules.ruleset import Ruleset
from rules.sheet import BODY_REGIONS, CharacterSheet, Severity, label, worse


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
    "table_dice": TABLE_DICE_HELP,
}


def option_text(value: Any) -> str:
    """A campaign option's value as the JSON the campaign form's options field takes (`true`, not `True`); also
    how a history entry shows a nested value."""
    return json.dumps(value, separators=(", ", ": "))


def _changed_value(value: Any) -> str:
    if isinstance(value, dict):  # armour by location, skills: 'head 12, torso 0'
        return ", ".join(f"{label(key)} {_value_text(item)}" for key, item in value.items()) or "none"
    return _value_text(value)


def change_text(change: dict[str, Any]) -> str:
    """An edit's old and new value: 'from 0 to 2'."""
    return f"from {_changed_value(change['old'])} to {_changed_value(change['new'])}"


def event_details(data: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The event's data as (label, value) pairs, in the order the engine wrote them; an edit's changes (a
    CharacterChanged's, a CampaignChanged's) one per line."""
    if not data:
        return []
    if isinstance(data.get("changes"), dict):
        return [(label(key.split(".")[-1]), change_text(change)) for key, change in data["changes"].items()]
    return [
        # Table dice: the rolls the GM gave a clock firing, in words (never the list).
        ("rolled at the table", ", ".join(label(name) for name in value))
        if key == TABLE_DICE
        else (label(key), _value_text(value))
        for key, value in data.items()
    ]


# --- body diagram and monitors: what the ruleset draws (rules/sheet.py) ----------------------------------------


def body_regions(ruleset: Ruleset, sheet: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Severity per drawn body region, the worst of the ruleset's marks on it, with the words for each mark."""
    severities: dict[str, Severity] = dict.fromkeys(BODY_REGIONS, 0)
    notes: dict[str, list[str]] = {name: [] for name in BODY_REGIONS}
    for mark in _sheet(ruleset).body_marks(sheet):
        if mark.region in severities:
            severities[mark.region] = worse(severities[mark.region], mark.severity)
            notes[mark.region].append(mark.text)
    return {
        name: {
            "severity": severity,
            "css": f"sev-{severity}",
            "text": f"{label(name)}: {', '.join(notes[name]) if notes[name] else 'unhurt'}",
        }
        for name, severity in severities.items()
    }


def overall_severity(ruleset: Ruleset, character: dict[str, Any]) -> int:
    """How hurt the whole body looks (the outline of the diagram)."""
    return _sheet(ruleset).severity(character["sheet"]) if character["alive"] else 4


def monitors(ruleset: Ruleset, character: dict[str, Any], audience: str) -> list[dict[str, Any]]:
    return _sheet(ruleset).monitors(character, audience)


def _sheet(ruleset: Ruleset) -> CharacterSheet:
    if ruleset.sheet is None:
        raise LookupError(f"the ruleset {ruleset.slug} does not say how its characters are drawn")
    return ruleset.sheet


def role_words(role: str) -> str:
    """'gm' -> 'a GM', 'player' -> 'a player'."""
    return "a GM" if role == "gm" else "a player"
