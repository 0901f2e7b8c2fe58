"""Appending to and reading from the append-only event log.

Callers hold the campaign lock (`lock_campaign`) for the whole command, so appends within a campaign are serialized
and a reader of the campaign feed never sees position P+1 commit before P. The (stream, version) unique constraint
still guards every append: a writer that skipped the lock cannot silently interleave."""

from __future__ import annotations

import datetime
import functools
import json
import weakref
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import orjson
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, IntegrityError, connection, models, transaction
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init
from django.utils import timezone
from psycopg.sql import Literal
from psycopg.types.json import Jsonb

from campaign.ledger import fast, running
from campaign.ledger.fast import PlainWrite
from campaign.models import Campaign, Character, Event, Job
from rules import ruleset as rules_ruleset
from rules.ruleset import NOT_UNDONE, TAKING_BACK
from rules.ruleset import Event as RuleEvent


class Write(NamedTuple):
    """A statement a command runs beside its append, in the same transaction (the read model's rows).

    `one_row_of`: the statement must touch exactly one row of that model; if it touches none, the model's
    `DoesNotExist` is raised."""

    sql: str
    params: Sequence[Any]
    one_row_of: type[models.Model] | None = None


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


class _NativeCursor:
    """The DB-API cursor under Django's, for the few statements every command runs. Django's SQLite cursor rewrites
    the placeholders with a regular expression on every call, over SQL of a kilobyte or more; here the rewritten SQL
    is kept, and Django's translation of database errors still applies (`command_cursor`). Worth about 500,000
    instructions of the 1.16 million an action costs on SQLite (docs/PERFORMANCE.md)."""

    _QMARK: dict[str, str] = {}

    def __init__(self, cursor: Any, sqlite: bool) -> None:
        self.cursor, self.sqlite = cursor, sqlite

    def _native(self, sql: str) -> str:
        native = self._QMARK.get(sql)
        if native is None:
            native = self._QMARK[sql] = sql.replace("%s", "?").replace("%%", "%")
        return native

    def execute(self, sql: str, params: Sequence[Any]) -> None:
        if self.sqlite:
            self.cursor.execute(self._native(sql), params)
        else:
            self.cursor.execute(sql, params)

    def execute_script(self, sql: str) -> None:
        """Run `sql`, several statements and no parameters, in one message; the last statement's rows are read."""
        self.cursor.execute(sql, prepare=False)
        while self.cursor.nextset():
            pass

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        if self.sqlite:
            self.cursor.executemany(self._native(sql), params)
        else:
            self.cursor.executemany(sql, params)

    def fetchone(self) -> Any:
        return self.cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return self.cursor.fetchall()

    @property
    def rowcount(self) -> int:
        return self.cursor.rowcount

    @property
    def lastrowid(self) -> int:
        return self.cursor.lastrowid


@contextmanager
def command_cursor(wrapper: Any = None, *, begins: bool = False) -> Iterator[Any]:
    """A cursor for the statements of a command (the read under the lock, the append, the projection).

    Straight on the driver's cursor when nothing watches Django's (no query log, no `execute_wrapper`: tests and
    fault injection get Django's own cursor), with database errors turned into Django's as usual. A BEGIN the
    PostgreSQL backend owes is sent first, unless the caller `begins` the transaction with its own statement.
    """
    wrapper = wrapper or transaction.get_connection()
    # Django's own cursor checks a kept connection once a request (CONN_HEALTH_CHECKS) and opens a new one when the
    # server has dropped it; the driver's cursor skips that, so it is done here: without it the first token read of
    # each worker after PostgreSQL ended its connections was a 503 "database unreachable" from a database that was
    # up (issue 43). The check is the request's one: Django's cursors do not repeat it.
    wrapper.close_if_health_check_failed()
    if (
        wrapper.queries_logged
        or wrapper.execute_wrappers
        or wrapper.connection is None
        or fast.plain("driver_cursor")
    ):
        with wrapper.cursor() as cursor:
            yield cursor
        return
    wrapper.validate_no_broken_transaction()  # as Django's cursor does before every statement
    with wrapper.wrap_database_errors:
        if not begins and getattr(wrapper, "begin_owed", False):
            wrapper.begin_now()
        cursor = wrapper.connection.cursor()
        try:
            yield _NativeCursor(cursor, wrapper.vendor == "sqlite")
        finally:
            cursor.close()


@functools.cache
def values_placeholders(columns: int, rows: int) -> str:
    """`(%s, %s), (%s, %s)` for `rows` rows of `columns` values: one multi-row INSERT for a command's few rows."""
    row = "(" + ", ".join(["%s"] * columns) + ")"
    return ", ".join([row] * rows)


def json_text(value: Any) -> str:
    """JSON text of a state or an event's data: orjson, several times faster than `json` on the action path."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # an int beyond 64 bits: the standard library writes it
        return json.dumps(value)


# orjson reads an integer beyond 64 bits as a float; a run of 19 digits may be one, so the standard library reads it.
# Found by mapping every digit to 0 and looking for nineteen of them: a tenth of a regular expression's time.
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_NUMBER = b"0" * 19


def json_value(text: str | bytes, parse_constant: Any = None) -> Any:
    """`parse_constant`: the standard library's, for text from outside (an import refuses NaN)."""
    if _LONG_NUMBER in (text.encode() if isinstance(text, str) else text).translate(_DIGITS_TO_ZERO):
        return json.loads(text, parse_constant=parse_constant)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN or Infinity, which only the standard library writes (and reads)
        return json.loads(text, parse_constant=parse_constant)


def json_param(value: Any, wrapper: Any) -> Any:
    """A JSON column's parameter, as Django's JSONField would prepare it, with `json_text` for the encoding."""
    if wrapper.vendor == "postgresql":
        return Jsonb(value, dumps=json_text)
    return json_text(value)


def loaded_instance(model: type[models.Model]) -> Any:
    """`model.from_db`, for the rows every command reads and writes: an instance loaded from the database with
    `values` for the fields `names` (the others deferred), without running `Model.__init__`, which costs more than
    the query that read the row. Django's own `from_db` whenever a `pre_init` or `post_init` receiver listens for
    the model (checked on every call: receivers may connect after the loader was made)."""
    new = model.__new__
    django_from_db = model.from_db

    def from_db(alias: str, names: Sequence[str], values: Sequence[Any]) -> Any:
        # `receivers` empty: nobody listens at all (the usual case), without asking for the model's live receivers.
        if (
            (pre_init.receivers or post_init.receivers)
            and (pre_init.has_listeners(model) or post_init.has_listeners(model))
        ) or fast.plain("instance_loader"):
            return django_from_db(alias, names, values)
        instance = new(model)
        instance.__dict__.update(zip(names, values, strict=True))
        state = instance._state = ModelState()
        state.adding = False
        state.db = alias
        return instance

    return from_db


def _from_json_column(value: Any, expression: Any, wrapper: Any) -> Any:
    return None if value is None else json_value(value) if isinstance(value, str | bytes) else value


def _loaded_fields(model: type) -> list[Any]:
    return [field for field in model._meta.concrete_fields if not isinstance(field, models.DateTimeField)]


def _loader(model: type, wrapper: Any) -> tuple[list[str], Any]:
    """The columns of `model` and a function turning one raw row of them into an instance, with Django's own
    converters (JSON decoding, SQLite's booleans and datetimes) applied, as the ORM's compiler would."""
    # Wall-clock timestamps are left deferred (loaded on first access): no command reads them, and SQLite's text
    # datetimes cost more to parse than the rest of the row.
    fields = _loaded_fields(model)
    names = [field.attname for field in fields]
    # Only the columns with converters are visited: most (ids, text, integers) come from the driver as they are.
    steps = []
    for index, field in enumerate(fields):
        column = field.get_col(model._meta.db_table)
        if isinstance(field, models.JSONField) and field.decoder is None:
            converters = [_from_json_column]
        else:
            converters = wrapper.ops.get_db_converters(column) + field.get_db_converters(wrapper)
        if converters:
            steps.append((index, column, converters))
    from_db = loaded_instance(model)

    def build(values: Sequence[Any]) -> Any:
        converted = list(values)
        for index, column, converters in steps:
            value = converted[index]
            for converter in converters:
                value = converter(value, column, wrapper)
            converted[index] = value
        return from_db(wrapper.alias, names, converted)

    return [f'{model._meta.db_table}."{field.column}"' for field in fields], build


# Per database connection object: converters are bound to a connection, and each thread has its own.
_ROW_LOADERS: weakref.WeakKeyDictionary[Any, dict[type, tuple[list[str], Any]]] = weakref.WeakKeyDictionary()


def row_loader(model: type, wrapper: Any) -> tuple[list[str], Any]:
    """`_loader` of `model` on this connection, made once: the columns to select (timestamps left out, loaded on
    first access) and the function building an instance from a raw row of them. For a hot read whose ORM query
    costs more to build than to run."""
    loaders = _ROW_LOADERS.setdefault(wrapper, {})
    if model not in loaders:
        loaders[model] = _loader(model, wrapper)
    return loaders[model]


class CommandRead(NamedTuple):
    """What a command reads under its campaign's lock (`lock_for_character`): the character (its campaign
    attached), the id of the campaign's open clock job, and for an Idempotency-Key what already holds it in the
    campaign: the position of the first event of the command that used it and the id of an advance that used it
    (both None for a fresh key, or without one)."""

    character: Character
    open_job_id: Any
    key_event_position: int | None
    key_job_id: Any


_COMMAND_READS: weakref.WeakKeyDictionary[Any, tuple[str, Any]] = weakref.WeakKeyDictionary()


def _command_read(wrapper: Any) -> tuple[str, Any]:
    """The SQL that reads, in one round trip, a character, its campaign, the campaign's open job and what holds a
    key in the campaign, with the character's id and the key (or None) as parameters; and the function that turns
    its row into a `CommandRead`, or None if there is no such character (cached per connection).

    On PostgreSQL the statement calls `campaign_command_read` (migration 0017), which also takes the campaign's
    lock and answers one JSON array: the rows as `row_to_json` writes them, then the three ids.
    """
    if wrapper not in _COMMAND_READS:
        if wrapper.vendor == "postgresql":
            _COMMAND_READS[wrapper] = ("SELECT campaign_command_read(%s, %s)::text", _json_read(wrapper))
        else:
            _COMMAND_READS[wrapper] = _joined_read(wrapper)
    return _COMMAND_READS[wrapper]


def _joined_read(wrapper: Any) -> tuple[str, Any]:
    character_columns, character = _loader(Character, wrapper)
    campaign_columns, campaign = _loader(Campaign, wrapper)
    job_column = Job._meta.pk.get_col(Job._meta.db_table)
    job_converters = wrapper.ops.get_db_converters(job_column) + Job._meta.pk.get_db_converters(wrapper)
    character_table, campaign_table, job_table, event_table = (
        Character._meta.db_table,
        Campaign._meta.db_table,
        Job._meta.db_table,
        Event._meta.db_table,
    )
    # The parameters in `wanted`, in the order of PostgreSQL's function; a NULL key finds nothing.
    sql = (
        "WITH wanted (id, key) AS (VALUES (%s, %s)) "
        f"SELECT {', '.join(character_columns)}, {', '.join(campaign_columns)}, "
        f"(SELECT {job_table}.id FROM {job_table} WHERE {job_table}.campaign_id = {campaign_table}.id "
        f"AND {job_table}.status IN ('{Job.QUEUED}', '{Job.RUNNING}') LIMIT 1), "
        f"(SELECT held.position FROM {event_table} held WHERE held.campaign_id = {campaign_table}.id "
        "AND held.idempotency_key = wanted.key ORDER BY held.position LIMIT 1), "
        f"(SELECT advance.id FROM {job_table} advance WHERE advance.campaign_id = {campaign_table}.id "
        "AND advance.idempotency_key = wanted.key LIMIT 1) "
        f"FROM wanted JOIN {character_table} ON {character_table}.id = wanted.id "
        f"JOIN {campaign_table} ON {campaign_table}.id = {character_table}.campaign_id"
    )
    width = len(character_columns)
    campaign_of = Character._meta.get_field("campaign").set_cached_value

    def job_id(job: Any) -> Any:
        for converter in job_converters if job is not None else ():
            job = converter(job, job_column, wrapper)
        return job

    def parse(row: Sequence[Any] | None) -> CommandRead | None:
        if row is None:
            return None
        job, position, advance = row[-3:]
        found = character(row[:width])
        # What `found.campaign = ...` does for a campaign of the row's own id, without the descriptor's checks.
        campaign_of(found, campaign(row[width:-3]))
        return CommandRead(found, job_id(job), position, job_id(advance))

    return sql, parse


def _json_read(wrapper: Any) -> Any:
    character, campaign = _json_row_loader(Character, wrapper), _json_row_loader(Campaign, wrapper)
    job_id = Job._meta.pk.to_python

    def parse(row: Sequence[Any]) -> CommandRead | None:
        if row[0] is None:
            return None
        character_row, campaign_row, job, position, advance = json_value(row[0])
        found = character(character_row)
        found.campaign = campaign(campaign_row)
        return CommandRead(
            found,
            None if job is None else job_id(job),
            position,
            None if advance is None else job_id(advance),
        )

    return parse


def _json_row_loader(model: type, wrapper: Any) -> Any:
    """A function turning `row_to_json` of a `model` row (decoded) into an instance, as `_loader` does a row: JSON
    columns as they are, the others through their field's `to_python` (JSON has no bigint or float of its own),
    timestamps deferred."""
    fields = _loaded_fields(model)
    names = [field.attname for field in fields]
    steps = [
        (field.column, None if isinstance(field, models.JSONField) else field.to_python) for field in fields
    ]
    from_db = loaded_instance(model)

    def build(row: dict[str, Any]) -> Any:
        values = [row[column] if to_python is None else to_python(row[column]) for column, to_python in steps]
        return from_db(wrapper.alias, names, values)

    return build


def lock_for_character(
    character_id: int, wrapper: Any = None, idempotency_key: str | None = None
) -> CommandRead:
    """Take the write lock of the character's campaign and read, in one statement, the character (with its
    campaign), the id of the campaign's open clock job, if any, and what holds `idempotency_key` in the campaign
    (no lookup without a key). Raises `Character.DoesNotExist`.

    This is `lock_campaign` plus four ORM reads folded into one round trip because every action pays for it.
    `wrapper` is the command's database connection, if the caller has it at hand.
    """
    wrapper = wrapper or transaction.get_connection()
    if not wrapper.in_atomic_block:
        raise RuntimeError("lock_for_character must run inside transaction.atomic()")
    if fast.plain("command_read"):
        return _plain_command_read(character_id, idempotency_key)
    sql, parse = _command_read(wrapper)
    with command_cursor(wrapper, begins=True) as cursor:
        if getattr(wrapper, "begin_owed", False):
            # The transaction's first statement: BEGIN goes in the same message (the PostgreSQL backend), which
            # takes no parameters: the key goes as a literal quoted by psycopg.
            key = (
                "NULL" if idempotency_key is None else Literal(idempotency_key).as_string(wrapper.connection)
            )
            read = sql % (int(character_id), key)
            with wrapper.beginning():
                cursor.execute_script(f"{wrapper.take_begin()}; {read}")
        else:
            # SQLite transactions are IMMEDIATE (settings): the whole database is already write-locked.
            cursor.execute(sql, [character_id, idempotency_key])
        found = parse(cursor.fetchone())
    if found is None:
        raise Character.DoesNotExist(f"no character {character_id}")
    running.settle(found.character.campaign)  # the command writes at the clock's reading
    return found


def _plain_command_read(character_id: int, idempotency_key: str | None) -> CommandRead:
    """`lock_for_character` through the ORM: the campaign's lock (`lock_campaign`), then the character, the open
    job and the key's holders, each a query of its own, read after the lock to see what its last holder committed."""
    campaign_id = Character.objects.filter(pk=character_id).values_list("campaign_id", flat=True).first()
    if campaign_id is None:
        raise Character.DoesNotExist(f"no character {character_id}")
    campaign = lock_campaign(campaign_id)
    character = Character.objects.get(pk=character_id)
    character.campaign = campaign
    jobs = Job.objects.filter(campaign_id=campaign_id)
    open_job_id = jobs.filter(status__in=[Job.QUEUED, Job.RUNNING]).values_list("pk", flat=True).first()
    if idempotency_key is None:
        return CommandRead(character, open_job_id, None, None)
    held = Event.objects.filter(campaign_id=campaign_id, idempotency_key=idempotency_key).order_by("position")
    return CommandRead(
        character,
        open_job_id,
        held.values_list("position", flat=True).first(),
        jobs.filter(idempotency_key=idempotency_key).values_list("pk", flat=True).first(),
    )


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
    alongside: Sequence[Write | PlainWrite] = (),
    wrapper: Any = None,
) -> list[Event]:
    """Append `events` to `stream`, which must be at `expected_version`, and run the `alongside` writes. Returns
    the stored rows.

    On PostgreSQL the writes ride in the INSERT's statement (one round trip for the whole command's writes);
    elsewhere they run right after it. `wrapper` is the command's database connection, if the caller has it at hand.
    """
    recorded_at = timezone.now()
    character_id = None if character is None else character.pk
    moved = running.clock_moved(campaign, max(event.game_time for event in events))
    if moved is not None:
        alongside = [*alongside, Write(*moved, one_row_of=Campaign)]
    # One tuple per event, in the order of _COLUMNS (checked against the model below).
    rows = [
        (
            campaign.pk,
            stream,
            character_id,
            expected_version + index,
            event.type,
            event.schema_version,
            event.data,
            event.game_time,
            recorded_at,
            actor,
            cause,
            idempotency_key if index == 1 else None,
            request_digest if index == 1 else "",
        )
        for index, event in enumerate(events, start=1)
    ]
    wrapper = wrapper or transaction.get_connection()
    if fast.plain("command_write"):
        return _plain_append(rows, alongside, stream, expected_version, wrapper)
    together = wrapper.vendor == "postgresql"
    try:
        positions = _insert(rows, alongside if together else (), wrapper)
    except DatabaseError as error:
        # No savepoint of its own: every caller runs the whole command in one transaction and a conflict aborts it
        # (the command is retried from the start). The transaction is marked for rollback, as an inner
        # `atomic(savepoint=False)` would mark it, without that block's cost on every append.
        _abandon(wrapper)
        if isinstance(error, IntegrityError) and _refused_by_the_log(error):
            raise VersionConflict(stream, expected_version) from error
        raise
    if not together:
        run_writes(alongside, wrapper)
    alias = wrapper.alias
    # Instances built positionally from what was written (`Model(**kwargs)` costs more than the INSERT itself).
    return [
        _event_from_db(alias, _ATTNAMES, (position, *row))
        for position, row in zip(positions, rows, strict=True)
    ]


def _plain_append(
    rows: list[tuple],
    alongside: Sequence[Write | PlainWrite],
    stream: str,
    expected_version: int,
    wrapper: Any,
) -> list[Event]:
    """`append`'s write through the ORM: `bulk_create` of the events (in the order of `_INSERTED`), then the
    writes beside it, each on its own."""
    try:
        stored = Event.objects.using(wrapper.alias).bulk_create(
            [Event(**dict(zip(_INSERTED, row, strict=True))) for row in rows]
        )
    except DatabaseError as error:
        _abandon(wrapper)
        if isinstance(error, IntegrityError) and _refused_by_the_log(error):
            raise VersionConflict(stream, expected_version) from error
        raise
    run_writes(alongside, wrapper)
    return stored


_INSERTED = (
    "campaign_id",
    "stream",
    "character_id",
    "version",
    "type",
    "schema_version",
    "data",
    "game_time",
    "recorded_at",
    "actor",
    "cause",
    "idempotency_key",
    "request_digest",
)
_FIELDS = [Event._meta.get_field(name.removesuffix("_id")) for name in _INSERTED]
if {field.attname for field in Event._meta.concrete_fields if not field.primary_key} != set(_INSERTED):
    raise ImproperlyConfigured("eventstore.append must write every column of Event: update _INSERTED")
_ATTNAMES = [Event._meta.pk.attname, *_INSERTED]
_event_from_db = loaded_instance(Event)
_COLUMNS = ", ".join(f'"{field.column}"' for field in _FIELDS)
_DATA = _INSERTED.index("data")
_RECORDED_AT = _INSERTED.index("recorded_at")


_TAKEN_FIRST = {"one_event_per_stream_version", "one_command_per_idempotency_key"}
if not _TAKEN_FIRST.issubset(constraint.name for constraint in Event._meta.constraints):
    raise ImproperlyConfigured(
        "eventstore: the event table's unique constraints were renamed: update _TAKEN_FIRST"
    )


def _timestamp_param(value: datetime.datetime, wrapper: Any) -> Any:
    """`recorded_at` as Django's DateTimeField prepares it (a third of the INSERT's own cost through the field):
    on SQLite the UTC wall time as naive text, on PostgreSQL the aware datetime psycopg adapts. Django's field for
    anything else (a naive value, a connection in another time zone)."""
    if value.tzinfo is datetime.UTC:
        if wrapper.vendor == "postgresql":
            return value
        if wrapper.vendor == "sqlite" and wrapper.timezone is datetime.UTC:
            return str(value.replace(tzinfo=None))
    return _FIELDS[_RECORDED_AT].get_db_prep_save(value, wrapper)


def _refused_by_the_log(error: IntegrityError) -> bool:
    """Whether another writer came first: the event table's unique version or idempotency key refused the rows (a
    retry may succeed), not another constraint or a write riding along with them. SQLite does not say which
    constraint; only the event INSERT runs under this test there."""
    diagnosis = getattr(error.__cause__, "diag", None)
    if diagnosis is None:
        return True
    return diagnosis.constraint_name in _TAKEN_FIRST


def _abandon(wrapper: Any) -> None:
    """The command's writes went wrong half-way: its transaction must not commit, even if the error is caught."""
    if wrapper.in_atomic_block:
        transaction.set_rollback(True, using=wrapper.alias)


def _row_missing(model: Any, wrapper: Any) -> Exception:
    """A write that must touch one row of `model` touched none: the command cannot commit."""
    _abandon(wrapper)
    return model.DoesNotExist(f"no {model._meta.model_name} row to write")


def run_writes(writes: Iterable[Write | PlainWrite], wrapper: Any) -> None:
    """Run `writes` one statement each (a `PlainWrite` as the ORM makes it), in order."""
    with command_cursor(wrapper) as cursor:
        for write in writes:
            if isinstance(write, PlainWrite):
                touched = write.run()
            else:
                cursor.execute(write.sql, write.params)
                touched = cursor.rowcount
            if write.one_row_of is not None and touched != 1:
                raise _row_missing(write.one_row_of, wrapper)


def _insert(rows: list[tuple], alongside: Sequence[Write], wrapper: Any) -> list[int]:
    """One INSERT for the command's events, with the `alongside` writes as data-modifying WITH queries of the same
    statement (PostgreSQL). Returns the events' positions, in the order of `rows`.

    Only the JSON and the datetime columns need Django's preparation; the others hold ints, strings or None.
    """
    recorded_at = _timestamp_param(rows[0][_RECORDED_AT], wrapper)
    params: list[Any] = []
    for row in rows:
        prepared = list(row)
        prepared[_DATA] = json_param(row[_DATA], wrapper)
        prepared[_RECORDED_AT] = recorded_at
        params.extend(prepared)
    placeholders = values_placeholders(len(_FIELDS), len(rows))
    sql = f"INSERT INTO {Event._meta.db_table} ({_COLUMNS}) VALUES {placeholders}"
    if wrapper.vendor == "sqlite" and not alongside:
        # The write lock is held (IMMEDIATE) and AUTOINCREMENT numbers one statement's rows in their order, one
        # after the other: the last row's id gives every position. RETURNING costs more than the INSERT's own
        # index writes would suggest (a third of the statement).
        with command_cursor(wrapper) as cursor:
            cursor.execute(sql, params)
            last = cursor.lastrowid
        return list(range(last - len(rows) + 1, last + 1))
    sql += " RETURNING position"
    checked = [n for n, write in enumerate(alongside) if write.one_row_of is not None]
    if alongside:
        # Each WITH query runs once whether or not the INSERT reads it; the checked ones report their row count.
        queries = ", ".join(
            f"w{n} AS ({write.sql}{' RETURNING 1' if n in checked else ''})"
            for n, write in enumerate(alongside)
        )
        counts = "".join(f", (SELECT count(*) FROM w{n})" for n in checked)
        sql = f"WITH {queries} {sql}{counts}"
        params = [value for write in alongside for value in write.params] + params
    with command_cursor(wrapper) as cursor:
        cursor.execute(sql, params)
        returned = cursor.fetchall()
    for column, n in enumerate(checked, start=1):
        if returned[0][column] != 1:
            raise _row_missing(alongside[n].one_row_of, wrapper)
    # Positions are assigned in row order within one statement; RETURNING does not promise that order.
    return sorted(row[0] for row in returned)


def stream_events(stream: str, *, up_to_version: int | None = None) -> list[Event]:
    query = Event.objects.filter(stream=stream)
    if up_to_version is not None:
        query = query.filter(version__lte=up_to_version)
    return list(query.order_by("version"))


def to_rule_event(row: Event) -> RuleEvent:
    return RuleEvent(type=row.type, data=row.data, game_time=row.game_time, schema_version=row.schema_version)


def voided_causes(rows: Iterable[Event]) -> set[str]:
    """Causes taken back by the undos and reverts among `rows` (in version order; a revert needs the stream's
    undos before it among them: `rules.ruleset.voided_causes`)."""
    return rules_ruleset.voided_causes(
        (row.type, row.version, row.data) for row in rows if row.type in TAKING_BACK
    )


def taking_back_rows(rows: models.QuerySet[Event]) -> list[Event]:
    """The undos and reverts among `rows` (one stream's), in version order. Sorted here, not by the database: with an
    `ORDER BY` (the model's own by position, or by version) SQLite walks the whole table or stream to skip a sort,
    about 20 ms at 100,000 events; without one it reads the (stream, type, version) index, a few rows."""
    fields = ("type", "version", "data", "game_time")  # the time: when each took back, which the history says
    taking_back = rows.filter(type__in=sorted(TAKING_BACK)).only(*fields).order_by()
    return sorted(taking_back, key=lambda row: row.version)


def stream_voided(stream: str) -> set[str]:
    """Every cause of the stream taken back so far, read by the (stream, type) index."""
    return voided_causes(taking_back_rows(Event.objects.filter(stream=stream)))


def live_events(rows: Iterable[Event], voided: set[str]) -> list[RuleEvent]:
    """The events that shape the state: neither an undo or a revert nor taken back by one."""
    return [to_rule_event(row) for row in rows if row.type not in TAKING_BACK and row.cause not in voided]


def latest_entry(stream: str) -> list[Event]:
    """The rows of the stream's latest entry not taken back, GM action or clock firing (one cause; never an undo, a
    revert or a retirement: `NOT_UNDONE`), oldest first: what an undo would take back next; [] when there is none.
    Reads the undos by the (stream, type) index, then the newest other row: the same cost at any history length."""
    voided = stream_voided(stream)
    latest = (
        Event.objects.filter(stream=stream)
        .exclude(type__in=sorted(NOT_UNDONE))
        .exclude(cause__in=sorted(voided))
        .order_by("-version")
        .first()
    )
    if latest is None:
        return []
    return list(Event.objects.filter(stream=stream, cause=latest.cause).order_by("version"))
