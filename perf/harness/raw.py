"""The raw side of a comparison: what the project's path wrote, read back as plain rows for a raw driver (sqlite3,
psycopg) to write again, the same rows in the same transactions, without the project's code."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db import connection

from campaign.ledger.projections import timer_changes
from campaign.models import Character, Event
from perf.harness.seeding import Acted
from rules.registry import get_ruleset

EVENT_COLUMNS = (
    "position, campaign_id, stream, character_id, version, type, schema_version, data, game_time, recorded_at, "
    "actor, cause, idempotency_key, request_digest"
)


@dataclass(frozen=True)
class RawAction:
    """What one action wrote, as plain rows for the raw side of the comparison."""

    events: list[tuple]
    character: tuple
    stale_timers: list[tuple[int, str]]
    fresh_timers: list[tuple]


def last_position() -> int:
    return Event.objects.order_by("-position").values_list("position", flat=True).first() or 0


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def states() -> dict[int, Any]:
    """Every character's state as the read model holds it now."""
    return {pk: _json(state) for pk, state in Character.objects.values_list("pk", "state")}


def events_after(before: int) -> dict[int, tuple]:
    """The event rows after position `before` as raw inserts write them (their JSON as text), by position."""
    data = "data::text" if connection.vendor == "postgresql" else "data"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {EVENT_COLUMNS.replace('data,', f'{data},')} FROM campaign_event WHERE position > %s",
            [before],
        )
        return {row[0]: row for row in cursor.fetchall()}


def written(results: list[Acted], before: dict[int, Any], by_position: dict[int, tuple]) -> list[RawAction]:
    """The rows each action wrote, in the order of `results`: its events (`by_position`, copied back out of the
    database), its character row and the timer index rows it replaced (from the states before and after, as the
    projection computes them). `before` holds each character's state before the first of them."""
    now = dict(before)
    transactions = []
    for acted in results:
        ruleset = get_ruleset(acted.ruleset)
        state = json.loads(acted.state)
        stale, fresh = timer_changes(ruleset.timers(now[acted.character_id]), ruleset.timers(state))
        now[acted.character_id] = state
        transactions.append(
            RawAction(
                events=[by_position[position] for position in acted.positions],
                character=(
                    acted.state,
                    acted.version,
                    acted.alive,
                    acted.conscious,
                    acted.dying,
                    acted.death_at,
                    acted.character_id,
                ),
                stale_timers=[(acted.character_id, key) for key in stale],
                fresh_timers=[
                    (
                        acted.campaign_id,
                        acted.character_id,
                        t.due,
                        t.priority,
                        t.kind,
                        t.key,
                        t.per_round,
                        json.dumps(t.data),
                    )
                    for t in fresh
                ],
            )
        )
    return transactions
