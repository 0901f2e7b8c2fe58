"""Appending to and reading from the append-only event log.

Callers hold the campaign lock (`lock_campaign`) for the whole command, so appends within a campaign are serialized
and a reader of the campaign feed never sees position P+1 commit before P. The (stream, version) unique constraint
still guards every append: a writer that skipped the lock cannot silently interleave.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import IntegrityError, connection, transaction

from campaign.models import Campaign, Character, Event
from rules.ruleset import Event as RuleEvent


class VersionConflict(Exception):
    """Someone else appended to the stream first."""

    def __init__(self, stream: str, expected: int, actual: int | None = None) -> None:
        self.stream, self.expected, self.actual = stream, expected, actual
        message = f"{stream} is at version {actual}, not {expected}" if actual is not None else stream
        super().__init__(f"version conflict: {message}")


def lock_campaign(campaign_id: int) -> Campaign:
    """Take the campaign's write lock for the current transaction and return a fresh row."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("lock_campaign must run inside transaction.atomic()")
    # SQLite transactions are IMMEDIATE (settings): the whole database is already write-locked.
    if connection.vendor == "sqlite":
        return Campaign.objects.get(pk=campaign_id)
    return Campaign.objects.select_for_update().get(pk=campaign_id)


def append(
    *,
    campaign: Campaign,
    stream: str,
    expected_version: int,
    events: Sequence[RuleEvent],
    cause: str,
    actor: str = "",
    character: Character | None = None,
    idempotency_key: str | None = None,
    request_digest: str = "",
) -> list[Event]:
    """Append `events` to `stream`, which must be at `expected_version`. Returns the stored rows."""
    rows = [
        Event(
            campaign=campaign,
            stream=stream,
            character=character,
            version=expected_version + index,
            type=event.type,
            schema_version=event.schema_version,
            data=event.data,
            game_time=event.game_time,
            actor=actor,
            cause=cause,
            idempotency_key=idempotency_key if index == 1 else None,
            request_digest=request_digest if index == 1 else "",
        )
        for index, event in enumerate(events, start=1)
    ]
    try:
        with transaction.atomic():
            if len(rows) == 1:
                rows[0].save(force_insert=True)
            else:
                # bulk_create fills primary keys on both PostgreSQL and SQLite 3.35+.
                Event.objects.bulk_create(rows)
    except IntegrityError as error:
        raise VersionConflict(stream, expected_version) from error
    return rows


def stream_events(stream: str, *, up_to_version: int | None = None) -> list[Event]:
    query = Event.objects.filter(stream=stream)
    if up_to_version is not None:
        query = query.filter(version__lte=up_to_version)
    return list(query.order_by("version"))


def to_rule_event(row: Event) -> RuleEvent:
    return RuleEvent(type=row.type, data=row.data, game_time=row.game_time, schema_version=row.schema_version)


def voided_causes(rows: Iterable[Event]) -> set[str]:
    """Causes taken back by `ActionUndone` events among `rows`."""
    return {row.data["cause"] for row in rows if row.type == "ActionUndone"}
