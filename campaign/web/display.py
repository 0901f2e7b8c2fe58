"""Turn presenter output (already filtered for the audience) into what the templates draw.

Nothing here reads a model or a state: only the dicts that `campaign.presenters` produced for the audience, so a
player's page can never show more than the player's view holds.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from rules import words
from rules.ruleset import Ruleset
from rules.sheet import BODY_REGIONS, CharacterSheet, Mark, Severity, label, worse


def date_text(iso: str | None) -> str:
    """'2053-01-01T14:32:30' -> '2053-01-01 14:32:30' (game dates have no time zone)."""
    if not iso:
        return ""
    return datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M:%S")


def duration_text(seconds: int | None) -> str:
    """Game seconds as people say them: '3 h 20 min', '2 days 4 h', '45 s' (rules/words.py); before now, '-'."""
    if seconds is None:
        return ""
    return ("-" if seconds < 0 else "") + words.duration(seconds)


NEXT_ADVANCE_TEXT = "at the clock's next advance"


def when_text(seconds: int, at_next_advance: Any = False) -> str:
    """How long until the clock acts, `seconds` from the moment shown: 'in 4 min', or 'due now' when it fires at
    the next advance (never 'in 0 s'). The one wording of every surface that says when a timer fires.
    `at_next_advance`: the timer fires at the clock's next advance whatever its length (`AT_NEXT_ADVANCE` of its
    data: a Dark Future stun), whose second is the clock's: "at the clock's next advance", never "in 1 s"."""
    if seconds <= 0:
        return "due now"
    return NEXT_ADVANCE_TEXT if at_next_advance else f"in {words.duration(seconds)}"


def left_text(seconds: int) -> str:
    """The time left before a death: '30 s left', or 'due now' (the clock kills at its next advance)."""
    return f"{words.duration(seconds)} left" if seconds > 0 else "due now"


def ago_text(seconds: int) -> str:
    """How long ago something happened: '7 s ago', or 'just now' (never '0 s ago')."""
    return f"{words.duration(seconds)} ago" if seconds > 0 else "just now"


def event_title(kind: str) -> str:
    """'CriticalHitTaken' -> 'Critical hit taken'; the entries every ruleset shares by their names (rules/words.py)."""
    return words.title_of(kind)


# --- body diagram and monitors: what the ruleset draws (rules/sheet.py) ----------------------------------------


def body_regions(ruleset: Ruleset, sheet: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Severity per drawn body region, the worst of the ruleset's marks on it, with the words for each mark."""
    marks = _sheet(ruleset).body_marks(sheet)
    drawn = _by_place(marks, lambda mark: mark.region, BODY_REGIONS)
    regions = {}
    for name in BODY_REGIONS:
        severity, notes = drawn[name]
        wheres = {mark.where for mark in marks if mark.region == name and mark.where}
        named = f"{label(name)} ({label(wheres.pop())})" if len(wheres) == 1 else label(name)
        regions[name] = {
            "severity": severity,
            "css": f"sev-{severity}",
            "text": f"{named}: {', '.join(notes) if notes else 'unhurt'}",
        }
    return regions


def body_words(ruleset: Ruleset, sheet: dict[str, Any]) -> list[dict[str, Any]]:
    """What the diagram colours, in words beside it (a phone shows no tooltip): each hurt place once, by the
    ruleset's name for it (the torso, not its chest and abdomen), its worst severity and every mark's words."""
    marks = _sheet(ruleset).body_marks(sheet)
    places = _by_place(marks, lambda mark: mark.where or mark.region, ())
    return [
        {"css": f"sev-{severity}", "text": f"{words.capital(label(where))}: {', '.join(notes)}"}
        for where, (severity, notes) in places.items()
    ]


def _by_place(
    marks: list[Mark], place: Callable[[Mark], str], names: tuple[str, ...]
) -> dict[str, tuple[Severity, list[str]]]:
    """The worst severity and the words of the marks on each place (`names` first, unhurt, then the others in
    the order the marks come); a text two marks share (one wound drawn on two regions) once."""
    found: dict[str, tuple[Severity, list[str]]] = {name: (0, []) for name in names}
    for mark in marks:
        severity, notes = found.setdefault(place(mark), (0, []))
        if mark.text not in notes:
            notes.append(mark.text)
        found[place(mark)] = (worse(severity, mark.severity), notes)
    return found


def overall_severity(ruleset: Ruleset, character: dict[str, Any]) -> int:
    """How hurt the whole body looks (the outline of the diagram)."""
    return _sheet(ruleset).severity(character["sheet"]) if character["alive"] else 4


OUTLINE_RED = (
    3  # `overall_severity` from which the diagram's outline is red (static/css/app.css, `overall-3`)
)


def outline_words(overall: int, alive: bool) -> str:
    """What a red outline says, beside the diagram: the whole body, not every place on it (a Dark Future knock-out
    outlined every limb red beside a legend whose one red meant a disabled limb). "" while it is not red."""
    if overall < OUTLINE_RED:
        return ""
    return "Red outline: dead" if not alive else "Red outline: the whole body is badly hurt"


def monitors(ruleset: Ruleset, character: dict[str, Any], audience: str) -> list[dict[str, Any]]:
    return _sheet(ruleset).monitors(character, audience)


def _sheet(ruleset: Ruleset) -> CharacterSheet:
    if ruleset.sheet is None:
        raise LookupError(f"the ruleset {ruleset.slug} does not say how its characters are drawn")
    return ruleset.sheet


def role_words(role: str) -> str:
    """'gm' -> 'a GM', 'player' -> 'a player'."""
    return "a GM" if role == "gm" else "a player"
