"""Which events a player's history shows: the one rule every number a player is told is counted by.

A player's character `version` is the count of the events shown here (`Character.player_version`, kept by the
projections), a player's history numbers its entries 1, 2, 3 ... in that count, and a player's cursors are sealed
(`campaign.selectors.cursors`). So a GM note or a roll on an undiagnosed hit changes nothing a player receives: not a body,
not an ETag, not a number (README, "Security").

- An event of a character's stream shows when the ruleset's `public_event` gives it (`rules.ruleset.player_sees`):
  never a GM note; in Shadowrun never a healing roll or healing of an undiagnosed critical hit.
- An undo or a revert shows exactly when something it takes back showed, listing only the types that showed.
- Of the campaign's own stream a player sees the clock's advances (from and to), nothing else: the creation of
  characters they cannot see and the count of timers fired (hidden ones among them) stay with the GM.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from campaign.ledger import eventstore
from campaign.ledger.events import CLOCK_ADVANCED
from campaign.models import Event
from rules.ruleset import TAKING_BACK, Ruleset, player_sees, taken_back
from rules.ruleset import Event as RuleEvent


def _plain_shown(rules: Ruleset, row: Event) -> bool:
    """Whether a row that is not an undo shows."""
    if row.character_id is None:
        return row.type == CLOCK_ADVANCED
    return player_sees(rules, eventstore.to_rule_event(row))


def shown_types(rules: Ruleset, rows: Iterable[Event]) -> dict[tuple[str, str], list[str]]:
    """(stream, cause) -> the types of its events that show, for the causes among `rows` that have any."""
    out: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        if row.type not in TAKING_BACK and _plain_shown(rules, row):
            out.setdefault((row.stream, row.cause), []).append(row.type)
    return out


def _taken_back(rules: Ruleset, undos: Sequence[Event]) -> dict[tuple[str, str], list[str]]:
    """What the undos among a page took back and showed: the causes' events, found by their index."""
    causes = {cause for undo in undos for cause in taken_back(undo.data)}
    streams = {undo.stream for undo in undos}
    if not causes:
        return {}
    rows = Event.objects.filter(cause__in=causes, stream__in=streams).exclude(type__in=sorted(TAKING_BACK))
    return shown_types(rules, rows)


def _shown_of(shown: dict[tuple[str, str], list[str]], stream: str, data: dict[str, Any]) -> list[str] | None:
    """The types that showed among what an undo or a revert took back; None when none showed."""
    types = [kind for cause in taken_back(data) for kind in shown.get((stream, cause), [])]
    return types or None


def shown_data(rules: Ruleset, rows: Sequence[Event]) -> list[dict[str, Any] | None]:
    """What a player reads of each row: its public data, or None where the row does not show."""
    shown = _taken_back(rules, [row for row in rows if row.type in TAKING_BACK])
    out: list[dict[str, Any] | None] = []
    for row in rows:
        if row.type in TAKING_BACK:
            types = _shown_of(shown, row.stream, row.data)
            out.append(None if types is None else {"types": types})
        elif row.character_id is None:
            out.append(
                {"from": row.data["from"], "to": row.data["to"]} if row.type == CLOCK_ADVANCED else None
            )
        else:
            out.append(rules.public_event(eventstore.to_rule_event(row)))
    return out


def new_entries(rules: Ruleset, stream: str, events: Sequence[RuleEvent]) -> int:
    """How many of a command's new events a player's history shows (the player version's increase). An undo
    looks up what it takes back; nothing else reads the database."""
    count = 0
    for event in events:
        if event.type in TAKING_BACK:
            taken = Event.objects.filter(stream=stream, cause__in=taken_back(event.data)).exclude(
                type__in=sorted(TAKING_BACK)
            )
            count += any(_plain_shown(rules, row) for row in taken)
        else:
            count += player_sees(rules, event)
    return count


def stream_entries(rules: Ruleset, rows: Iterable[Any]) -> int:
    """How many events of a whole character stream (rows in version order, with type, data, game_time,
    schema_version and cause) a player's history shows: a rebuild's and a migration's count."""
    shown_causes: set[str] = set()
    count = 0
    for row in rows:
        if row.type in TAKING_BACK:
            count += any(cause in shown_causes for cause in taken_back(row.data))
        elif player_sees(rules, RuleEvent(row.type, row.data, row.game_time, row.schema_version)):
            shown_causes.add(row.cause)
            count += 1
    return count
