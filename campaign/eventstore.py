"""Appending to and reading from the append-only event log.

Callers hold the campaign lock (`lock_campaign`) for the whole command, so appends within a campaign are serialized
and a reader of the campaign feed never sees position P+1 commit before P. The (stream, version) unique constraint
still guards every append: a writer that skipped the lock cannot silently interleave.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import IntegrityError, connection, models, transaction
from django.utils import timezone

from campaign.models import Campaign, Character, Event, Job
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


def _loaded_fields(model: type) -> list[Any]:
    return [field for field in model._meta.concrete_fields if not isinstance(field, models.DateTimeField)]


def _loader(model: type, wrapper: Any) -> tuple[list[str], Any]:
    """The columns of `model` and a function turning one raw row of them into an instance, with Django's own
    converters (JSON decoding, SQLite's booleans and datetimes) applied, as the ORM's compiler would."""
    # Wall-clock timestamps are left deferred (loaded on first access): no command reads them, and SQLite's text
    # datetimes cost more to parse than the rest of the row.
    fields = _loaded_fields(model)
    names = [field.attname for field in fields]
    steps = []
    for field in fields:
        column = field.get_col(model._meta.db_table)
        converters = wrapper.ops.get_db_converters(column) + field.get_db_converters(wrapper)
        steps.append((column, converters))

    def build(values: Sequence[Any]) -> Any:
        converted = []
        for value, (column, converters) in zip(values, steps, strict=True):
            for converter in converters:
                value = converter(value, column, wrapper)
            converted.append(value)
        return model.from_db(wrapper.alias, names, converted)

    return [f'{model._meta.db_table}."{field.column}"' for field in fields], build


# Per database connection object: converters are bound to a connection, and each thread has its own.
_COMMAND_READS: weakref.WeakKeyDictionary[Any, tuple[str, str, Any, Any, Any]] = weakref.WeakKeyDictionary()


def _command_read(wrapper: Any) -> tuple[str, str, Any, Any, Any]:
    """The SQL that reads a character, its campaign and the campaign's open job in one round trip (cached)."""
    if wrapper not in _COMMAND_READS:
        character_columns, character = _loader(Character, wrapper)
        campaign_columns, campaign = _loader(Campaign, wrapper)
        job_column = Job._meta.pk.get_col(Job._meta.db_table)
        job_converters = wrapper.ops.get_db_converters(job_column) + Job._meta.pk.get_db_converters(wrapper)

        def open_job(value: Any) -> Any:
            for converter in job_converters:
                value = converter(value, job_column, wrapper)
            return value

        character_table, campaign_table, job_table = (
            Character._meta.db_table,
            Campaign._meta.db_table,
            Job._meta.db_table,
        )
        sql = (
            f"SELECT {', '.join(character_columns)}, {', '.join(campaign_columns)}, "
            f"(SELECT {job_table}.id FROM {job_table} WHERE {job_table}.campaign_id = {campaign_table}.id "
            f"AND {job_table}.status IN ('{Job.QUEUED}', '{Job.RUNNING}') LIMIT 1) "
            f"FROM {character_table} JOIN {campaign_table} ON {campaign_table}.id = {character_table}.campaign_id "
            f"WHERE {character_table}.id = %s"
        )
        lock = ""
        if wrapper.vendor == "postgresql":
            # A statement of its own: in READ COMMITTED a statement that waited for the lock would still return the
            # character as its snapshot saw it before the wait; the read after it sees what the lock holder wrote.
            lock = (
                f"SELECT id FROM {campaign_table} WHERE id = "
                f"(SELECT campaign_id FROM {character_table} WHERE id = %s) FOR UPDATE"
            )
        _COMMAND_READS[wrapper] = (lock, sql, character, campaign, open_job)
    return _COMMAND_READS[wrapper]


def lock_for_character(character_id: int) -> tuple[Character, Any]:
    """Take the write lock of the character's campaign and read, in one query, the character (with its campaign)
    and the id of the campaign's open clock job, if any. Raises `Character.DoesNotExist`.

    This is `lock_campaign` plus three ORM reads folded into one raw statement (two on PostgreSQL) because every
    action pays for it.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("lock_for_character must run inside transaction.atomic()")
    wrapper = transaction.get_connection()
    lock, sql, character_from, campaign_from, open_job_from = _command_read(wrapper)
    width = len(_loaded_fields(Character))
    with wrapper.cursor() as cursor:
        # SQLite transactions are IMMEDIATE (settings): the whole database is already write-locked.
        if lock:
            cursor.execute(lock, [character_id])
        cursor.execute(sql, [character_id])
        row = cursor.fetchone()
    if row is None:
        raise Character.DoesNotExist(f"no character {character_id}")
    character = character_from(row[:width])
    character.campaign = campaign_from(row[width:-1])
    job = row[-1]
    return character, None if job is None else open_job_from(job)


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
    recorded_at = timezone.now()
    values = [
        {
            "campaign_id": campaign.pk,
            "stream": stream,
            "character_id": None if character is None else character.pk,
            "version": expected_version + index,
            "type": event.type,
            "schema_version": event.schema_version,
            "data": event.data,
            "game_time": event.game_time,
            "recorded_at": recorded_at,
            "actor": actor,
            "cause": cause,
            "idempotency_key": idempotency_key if index == 1 else None,
            "request_digest": request_digest if index == 1 else "",
        }
        for index, event in enumerate(events, start=1)
    ]
    try:
        # No savepoint of its own: every caller runs the whole command in one transaction and a conflict aborts it
        # (the command is retried from the start), so a SAVEPOINT/RELEASE pair per append would be pure cost.
        with transaction.atomic(savepoint=False):
            positions = _insert(values)
    except IntegrityError as error:
        raise VersionConflict(stream, expected_version) from error
    alias = transaction.get_connection().alias
    # Instances built positionally from what was written (`Model(**kwargs)` costs more than the INSERT itself).
    return [
        Event.from_db(alias, _ATTNAMES, [position, *(row[name] for name in _ATTNAMES[1:])])
        for position, row in zip(positions, values, strict=True)
    ]


_FIELDS = [field for field in Event._meta.concrete_fields if not field.primary_key]
_ATTNAMES = [Event._meta.pk.attname, *(field.attname for field in _FIELDS)]
_COLUMNS = ", ".join(f'"{field.column}"' for field in _FIELDS)
# Only these columns need Django's preparation (JSON encoding, the backend's datetime format); the others hold
# ints, strings or None as they are.
_PREPARED = {
    field.attname: field for field in _FIELDS if isinstance(field, models.JSONField | models.DateTimeField)
}


def _insert(rows: list[dict[str, Any]]) -> list[int]:
    """One INSERT ... RETURNING for the command's events. Returns their positions, in the order of `rows`."""
    wrapper = transaction.get_connection()
    params: list[Any] = []
    for row in rows:
        for field in _FIELDS:
            value = row[field.attname]
            prepare = _PREPARED.get(field.attname)
            params.append(value if prepare is None else prepare.get_db_prep_save(value, wrapper))
    placeholders = ", ".join(["(" + ", ".join(["%s"] * len(_FIELDS)) + ")"] * len(rows))
    with wrapper.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Event._meta.db_table} ({_COLUMNS}) VALUES {placeholders} RETURNING position",
            params,
        )
        # Positions are assigned in row order within one statement; RETURNING does not promise that order.
        return sorted(position for (position,) in cursor.fetchall())


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
