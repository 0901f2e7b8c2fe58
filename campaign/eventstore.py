"""Appending to and reading from the append-only event log.

Callers hold the campaign lock (`lock_campaign`) for the whole command, so appends within a campaign are serialized
and a reader of the campaign feed never sees position P+1 commit before P. The (stream, version) unique constraint
still guards every append: a writer that skipped the lock cannot silently interleave.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from campaign.models import Campaign, Character, Event
from rules.ruleset import ACTION_UNDONE
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
        # No savepoint of its own: every caller runs the whole command in one transaction and a conflict aborts it
        # (the command is retried from the start), so a SAVEPOINT/RELEASE pair per append would be pure cost.
        with transaction.atomic(savepoint=False):
            _insert(rows)
    except IntegrityError as error:
        raise VersionConflict(stream, expected_version) from error
    return rows


_FIELDS = [field for field in Event._meta.concrete_fields if not field.primary_key]
_COLUMNS = ", ".join(f'"{field.column}"' for field in _FIELDS)


def _insert(rows: list[Event]) -> None:
    """One INSERT ... RETURNING for the command's events: the ORM's save() costs more than the write itself."""
    now = timezone.now()
    params: list[Any] = []
    for row in rows:
        row.recorded_at = now
        params.extend(field.get_db_prep_save(getattr(row, field.attname), connection) for field in _FIELDS)
    placeholders = ", ".join(["(" + ", ".join(["%s"] * len(_FIELDS)) + ")"] * len(rows))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Event._meta.db_table} ({_COLUMNS}) VALUES {placeholders} RETURNING position",
            params,
        )
        positions = sorted(position for (position,) in cursor.fetchall())
    for row, position in zip(rows, positions, strict=True):
        row.position = position
        row._state.adding = False
        row._state.db = connection.alias


def stream_events(stream: str, *, up_to_version: int | None = None) -> list[Event]:
    query = Event.objects.filter(stream=stream)
    if up_to_version is not None:
        query = query.filter(version__lte=up_to_version)
    return list(query.order_by("version"))


def to_rule_event(row: Event) -> RuleEvent:
    return RuleEvent(type=row.type, data=row.data, game_time=row.game_time, schema_version=row.schema_version)


def voided_causes(rows: Iterable[Event]) -> set[str]:
    """Causes taken back by `ActionUndone` events among `rows`."""
    return {row.data["cause"] for row in rows if row.type == ACTION_UNDONE}


def live_events(rows: Iterable[Event], voided: set[str]) -> list[RuleEvent]:
    """The events that shape the state: neither an undo nor taken back by one."""
    return [to_rule_event(row) for row in rows if row.type != ACTION_UNDONE and row.cause not in voided]
