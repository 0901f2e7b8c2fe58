"""An import as a job: requested (the key, the check, the job), written in batches (`import_run`), failed for
good (`import_fail`), or run in this process (`import_file`, the import_campaign command)."""

from __future__ import annotations

import functools
import hashlib
import sqlite3
import sys
import threading
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from campaign import queue, services
from campaign.http import limits
from campaign.ledger import fast
from campaign.ledger.events import CHARACTER_CREATED
from campaign.ledger.eventstore import command_cursor, json_text, json_value, values_placeholders
from campaign.ledger.projections import Folded, Identity, cyclic_gc_paused, write_read_models
from campaign.models import GM, Campaign, Character, Event, ImportFile, ImportJob, Membership
from campaign.services import Conflict, ServiceError, validate_campaign_options
from campaign.transfer.checks import CheckedFile, Checking, EventLine, check_file
from rules.registry import get_ruleset

# Lines per transaction. Each batch saves the job's progress, and on SQLite an UPDATE rewrites the whole row, the
# file it keeps for the worker with it (up to IMPORT_MAX_BYTES): at 5,000 lines a batch, rewriting the file cost
# more than writing the events. 50,000 lines take 2 to 10 s on a busy 2-core machine: the heartbeat stays well
# inside CLOCK_STALLED_AFTER_SECONDS, and the progress of a large file still moves (IMPORT_LINES_PER_TRANSACTION).
BATCH = settings.IMPORT_LINES_PER_TRANSACTION


def file_bytes(upload: Any) -> bytes:
    """The uploaded file's bytes, refused past IMPORT_MAX_BYTES before they are read."""
    limit = settings.IMPORT_MAX_BYTES
    size = getattr(upload, "size", None)
    if size is not None and size > limit:
        raise ServiceError("file", f"expected a file of at most {limit:,} bytes, got {size:,}")
    data = upload.read(limit + 1)
    if len(data) > limit:
        raise ServiceError("file", f"expected a file of at most {limit:,} bytes")
    return data


def _keyed_import(user: AbstractBaseUser, idempotency_key: str | None, digest: str) -> ImportJob | None:
    """The import `user` already made with this key, if any; a 409 if it was another file or another request."""
    if not idempotency_key:
        return None
    with transaction.atomic():
        made = services.campaign_made_with(user, idempotency_key, digest)
        job = ImportJob.objects.filter(user=user, idempotency_key=idempotency_key).first()
        if job is not None:
            if job.file_sha256 != digest:
                raise Conflict("Idempotency-Key", services.KEY_REUSED)
            return job
        if made is not None:
            # Imported before imports were jobs: the campaign is answered as a finished job.
            return ImportJob.objects.create(
                user=user,
                status=ImportJob.DONE,
                file_sha256=digest,
                progress=1.0,
                campaign=made,
                idempotency_key=idempotency_key,
                finished_at=timezone.now(),
            )
    return None


def import_request(*, data: bytes, user: AbstractBaseUser, idempotency_key: str | None = None) -> ImportJob:
    """Check an export and make the job that writes it as a new campaign (run at once when there is no broker).
    The same file with the same `idempotency_key` again returns the first request's job. A user's request, so the
    limits of making the same characters by hand apply before anything is written (`campaign.http.limits`): at most
    CHARACTERS_PER_CAMPAIGN of them, each a place in the user's CHARACTER_THROTTLE."""
    digest = hashlib.sha256(data).hexdigest()
    job = _keyed_import(user, idempotency_key, digest)
    if job is not None:
        return job
    compressed = _compressing(data)
    checked = check_file(data, most_characters=settings.CHARACTERS_PER_CAMPAIGN)
    queue.ensure_broker_for_import()
    taken = limits.imported_characters(user, len(checked.attributes))
    try:
        with transaction.atomic():
            job = _keyed_import(user, idempotency_key, digest)
            if job is not None:
                taken.give_back()  # the first request's job: nothing new
                return job
            job = _job_with_file(
                compressed,
                user=user,
                file_sha256=digest,
                lines=checked.lines,
                idempotency_key=idempotency_key or None,
            )
            if not settings.CELERY_TASK_ALWAYS_EAGER:
                transaction.on_commit(lambda: queue.enqueue_import(job.pk))
    except IntegrityError:
        taken.give_back()
        raise Conflict(
            "Idempotency-Key", "another import with this key was started at the same moment"
        ) from None
    except BaseException:
        taken.give_back()
        raise
    if settings.CELERY_TASK_ALWAYS_EAGER:
        queue.enqueue_import(job.pk)
    return ImportJob.objects.get(pk=job.pk)


# The file is kept compressed, at zlib's fastest level: an export is about a ninth of its size for 0.14 s of CPU per
# 40 MB, and the database writes, checkpoints and frees that much less (about 0.4 s of the bench's import of two
# 40 MB files on SQLite; PostgreSQL's own compression of a large value gives up on it at once).
FILE_COMPRESSION = 1


def _compressing(data: bytes) -> Future[bytes]:
    """The file compressed for keeping, in a thread of its own started now: zlib lets go of the interpreter while it
    works, so the compression runs beside the check, on another core (0.14 s of a 40 MB file's wait)."""
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="import-file")
    compressed = executor.submit(zlib.compress, data, FILE_COMPRESSION)
    executor.shutdown(wait=False)
    return compressed


def _job_with_file(compressed: Future[bytes], **fields: Any) -> ImportJob:
    """A new import job (`fields`) and its file (`_compressing`), the one row kept for the worker until the job is
    done."""
    kept = compressed.result()
    with transaction.atomic():
        job = ImportJob.objects.create(**fields)
        ImportFile.objects.create(job=job, data=kept)
    return job


def _kept_file(job_id: Any) -> bytes:
    """The file kept for the job (`_job_with_file`, or the write beside the check, `_BesideTheCheck`)."""
    return zlib.decompress(ImportFile.objects.values_list("data", flat=True).get(pk=job_id))


def import_run(job_id: Any, checked: CheckedFile | None = None) -> ImportJob:
    """Write a checked file as a new campaign, `BATCH` lines per transaction with the job's progress: the
    events in bulk, each new character's row as its CharacterCreated comes, then in the last transaction the read
    models and the importer as its GM. The events are the lines the check kept and the read models what its replay
    gave (`checked`, or the file checked again here, as a worker does), the latter written as the rebuild writes
    them (`write_read_models`): the file is parsed once. A run resumes after the last batch written; a second run
    of the same job finds the batch already written and stops."""
    job = ImportJob.objects.get(pk=job_id)
    if not job.open:
        return job
    ImportJob.objects.filter(pk=job.pk, status=ImportJob.QUEUED).update(
        status=ImportJob.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    # The check's states and lines and the batches' rows hold no cycles: the collector would walk them again and
    # again (`check_file` pauses it too; paused from there to here, it walks what the check kept once, not twice).
    with cyclic_gc_paused():
        if checked is None or checked.events is None:
            # The worker's check is its replay, what `_finish` writes, and it keeps the lines the batches write.
            data = _kept_file(job.pk)
            if _writes_beside_the_check():
                checked, _ = _check_beside_the_write(data, job_id=job.pk)
                job = ImportJob.objects.get(pk=job_id)  # as the write beside the check left it
            else:
                checked = check_file(data, events=True)
            del data  # the lines kept are all the write reads
        events = checked.events
        assert events is not None
        position = job.lines_written
        while True:
            with transaction.atomic():
                job = ImportJob.objects.select_for_update().get(pk=job_id)
                if not job.open or job.lines_written != position:
                    return job
                batch = events[position : position + BATCH]
                _write_batch(job, position + 1, batch, checked.attributes)
                position += len(batch)
                if position >= job.lines:
                    _note_progress(job, position, save=False)
                    _finish(job, checked.folded)
                    return job
                _note_progress(job, position)


def _note_progress(job: ImportJob, written: int, *, save: bool = True) -> None:
    """The job's progress once `written` lines are written, saved with the campaign and characters made so far
    (`_finish` saves the last)."""
    job.lines_written = written
    job.progress = round(min(written / max(job.lines, 1), 1.0), 4)
    job.heartbeat_at = timezone.now()
    if save:
        job.save(update_fields=["lines_written", "progress", "heartbeat_at", "campaign", "characters"])


def _finish(job: ImportJob, folded: Folded) -> None:
    """The last batch's transaction: the read models, the importer as the campaign's GM, the job done."""
    campaign = Campaign.objects.get(pk=job.campaign_id)
    ids = {int(theirs): ours for theirs, ours in job.characters.items()}
    write_read_models(
        campaign,
        campaign.rules,
        Folded(
            {ids[theirs]: state for theirs, state in folded.states.items()},
            {ids[theirs]: version for theirs, version in folded.versions.items()},
            {ids[theirs]: seen for theirs, seen in folded.seen.items()},
            folded.game_time,
            folded.campaign_version,
            folded.options,
            Identity(
                folded.identity.campaign_name,
                {ids[theirs]: name for theirs, name in folded.identity.names.items()},
                {ids[theirs]: retired for theirs, retired in folded.identity.retired.items()},
            ),
        ),
    )
    Membership.objects.create(campaign=campaign, user=job.user, role=GM)
    job.status = ImportJob.DONE
    job.progress = 1.0
    job.finished_at = timezone.now()
    job.save()
    ImportFile.objects.filter(pk=job.pk).delete()  # written: the file is the campaign's event log now


_EVENT_COLUMNS = [field for field in Event._meta.concrete_fields if not field.primary_key]
_EVENT_ATTNAMES = [field.attname for field in _EVENT_COLUMNS]
_EVENT_DATA = _EVENT_ATTNAMES.index("data")
_EVENT_COLUMN_NAMES = ", ".join(f'"{field.column}"' for field in _EVENT_COLUMNS)
_EVENT_COPY = f"COPY {Event._meta.db_table} ({_EVENT_COLUMN_NAMES}) FROM STDIN"
_EVENT_INSERT_INTO = f"INSERT INTO {Event._meta.db_table} ({_EVENT_COLUMN_NAMES})"


def _write_batch(
    job: ImportJob, first: int, batch: list[EventLine], attributes: dict[int, dict[str, Any]]
) -> None:
    """One batch of checked lines, the first numbered `first` in the file: a character row for each
    CharacterCreated, then the events in one COPY (PostgreSQL) or in INSERTs of many rows (SQLite).
    `bulk_create` cost three times the whole write: a model instance per event, and on PostgreSQL arrays of JSON
    documents for its UNNEST."""
    # The lines the check kept as the file has them (`EventLine`), parsed as the file was.
    parsed = {
        index: json_value(data)["data"]
        for index, (_, _, _, _, data, _, _, _) in enumerate(batch)
        if type(data) is bytes
    }
    if job.campaign_id is None:
        job.campaign = _create_campaign(parsed[0], job.user)
    campaign_id = job.campaign_id
    # The batch's CharacterCreated lines, by their type (an `EventLine`'s third value).
    created = [payload for index, payload in parsed.items() if batch[index][2] == CHARACTER_CREATED]
    _create_characters(job, created, attributes)
    recorded_at = Event._meta.get_field("recorded_at").get_db_prep_value(timezone.now(), connection)
    campaign_stream = (f"campaign:{campaign_id}", None)
    # Each stream of the file as the database names it, and its character: one text a stream, shared by its rows.
    streams = {f"character:{theirs}": (f"character:{ours}", ours) for theirs, ours in job.characters.items()}
    rows = []
    for index, (stream, version, kind, schema_version, data, game_time, actor, cause) in enumerate(batch):
        written, character_id = campaign_stream if stream == "campaign" else streams[stream]
        if index in parsed:
            payload = parsed[index]
            if character_id is None and kind == CHARACTER_CREATED:
                payload = {**payload, "character": job.characters[str(payload["character"])]}
            data = json_text(payload)
        first_line = first + index == 1
        rows.append(  # in the order of `_EVENT_COLUMNS`
            (
                campaign_id,
                written,
                character_id,
                version,
                kind,
                schema_version,
                data,
                game_time,
                recorded_at,
                actor,
                cause,
                # The campaign's first event holds the import's key, as a created campaign's does.
                job.idempotency_key if first_line else None,
                job.file_sha256 if first_line and job.idempotency_key else "",
            )
        )
    if fast.plain("import_inserts"):
        Event.objects.bulk_create(
            [Event(**dict(zip(_EVENT_ATTNAMES, _plain_row(row), strict=True))) for row in rows]
        )
        return
    if connection.vendor != "postgresql":
        _insert_rows(rows)
        return
    # psycopg's own cursor: its errors are raised as Django's (a dropped connection an OperationalError, which the
    # worker retries), as every query's are.
    with (
        connection.cursor() as cursor,
        connection.wrap_database_errors,
        cursor.cursor.copy(_EVENT_COPY) as copy,
    ):
        for row in rows:
            copy.write_row(row)


def _plain_row(row: tuple) -> tuple:
    """An event row of `_write_batch` as `bulk_create` takes it: its data decoded (the field encodes it again)."""
    return (*row[:_EVENT_DATA], json_value(row[_EVENT_DATA]), *row[_EVENT_DATA + 1 :])


# Rows an INSERT on SQLite: one statement of many rows is one step of SQLite's, which lets go of the interpreter for
# all of them (an `executemany` steps once a row, taking the interpreter back each time), and costs about 5% less.
# A batch is written in statements of these sizes, largest first: a handful of statement texts, each prepared once.
_ROWS_PER_INSERT = (2000, 100, 10, 1)


@functools.cache
def _event_insert(rows: int) -> str:
    return f"{_EVENT_INSERT_INTO} VALUES {values_placeholders(len(_EVENT_COLUMNS), rows)}"


def _insert_rows(rows: list[tuple]) -> None:
    """The batch's event rows on SQLite, in statements of `_ROWS_PER_INSERT` rows (none of more values than the
    build allows in one statement), through the command cursor (`eventstore.command_cursor`)."""
    most = connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(_EVENT_COLUMNS)
    start = 0
    with command_cursor(connection) as cursor:
        for size in _ROWS_PER_INSERT:
            if size > most:
                continue
            while len(rows) - start >= size:
                chunk = rows[start : start + size]
                cursor.execute(_event_insert(size), [value for row in chunk for value in row])
                start += size


_CHARACTER_FIELDS = [field for field in Character._meta.concrete_fields if not field.primary_key]
_CHARACTER_INSERT = "INSERT INTO {} ({}) VALUES {{}} RETURNING {}".format(
    Character._meta.db_table,
    ", ".join(f'"{field.column}"' for field in _CHARACTER_FIELDS),
    f'"{Character._meta.pk.column}"',
)
_NAME = _CHARACTER_FIELDS.index(Character._meta.get_field("name"))
_ATTRIBUTES = _CHARACTER_FIELDS.index(Character._meta.get_field("attributes"))
# Rows a statement: SQLite's limit of 999 values gives 76; PostgreSQL's of 65,535 values more than 1,000.
_CHARACTERS_PER_INSERT = 1000


def _create_characters(
    job: ImportJob, created: list[dict[str, Any]], attributes: dict[int, dict[str, Any]]
) -> None:
    """The batch's new characters, with the attributes the check validated; their read models are written at the
    end (`_finish`). The rows are those `bulk_create` wrote (INSERT ... RETURNING, each value as its field
    prepares it), without a model instance per character, which cost about 35 us each (the bench's two files
    hold 4,151 characters): one instance gives every column but the name and the attributes."""
    if not created:
        return
    if fast.plain("import_inserts"):
        made = Character.objects.bulk_create(
            [
                Character(
                    campaign_id=job.campaign_id, name=data["name"], attributes=attributes[data["character"]]
                )
                for data in created
            ]
        )
        for data, character in zip(created, made, strict=True):
            job.characters[str(data["character"])] = character.pk
        return
    blank = Character(campaign_id=job.campaign_id, name="", attributes={})
    # The defaults, the campaign and the time of creation (`pre_save`), the same for the batch's characters.
    values = [
        field.get_db_prep_save(field.pre_save(blank, add=True), connection) for field in _CHARACTER_FIELDS
    ]
    name, prepared = _CHARACTER_FIELDS[_NAME], _CHARACTER_FIELDS[_ATTRIBUTES]
    rows = []
    for data in created:
        values[_NAME] = name.get_db_prep_save(data["name"], connection)
        values[_ATTRIBUTES] = prepared.get_db_prep_save(attributes[data["character"]], connection)
        rows.append(tuple(values))
    size = min(connection.ops.bulk_batch_size(_CHARACTER_FIELDS, rows), _CHARACTERS_PER_INSERT)
    ids = []
    with connection.cursor() as cursor:
        for start in range(0, len(rows), size):
            chunk = rows[start : start + size]
            placeholders = values_placeholders(len(_CHARACTER_FIELDS), len(chunk))
            cursor.execute(_CHARACTER_INSERT.format(placeholders), [value for row in chunk for value in row])
            ids.extend(pk for (pk,) in cursor.fetchall())
    for data, pk in zip(created, ids, strict=True):
        job.characters[str(data["character"])] = pk


def _create_campaign(payload: dict[str, Any], user: AbstractBaseUser) -> Campaign:
    rules = get_ruleset(payload["ruleset"])
    options = validate_campaign_options(rules, payload["options"])
    # A clock that runs on its own stays still until the import is done: `_finish` then sets the options of
    # the CampaignCreated event, and the clock's version and time with them.
    return Campaign.objects.create(
        name=payload["name"].strip(),
        ruleset=rules.slug,
        options={**options, "time_scale": 0},
        created_by=user,
    )


IMPORT_FAILED = (
    "the import stopped after {written:,} of {lines:,} events because of an error on the server (its log has the "
    "details); no campaign was made of it and nothing of it shows anywhere"
)


def import_fail(job_id: Any) -> None:
    """End an import that failed for good (a bug; a fault of the database is retried). The campaign it was writing
    gets its GM only in the last batch, so what it wrote stays out of everyone's sight; the job says so in words,
    the log keeps the error."""
    with transaction.atomic():
        job = ImportJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or not job.open:
            return
        job.status, job.finished_at = ImportJob.FAILED, timezone.now()
        job.error = IMPORT_FAILED.format(written=job.lines_written, lines=job.lines)
        job.save(update_fields=["status", "finished_at", "error"])


def import_file(data: bytes, *, user: AbstractBaseUser) -> Campaign:
    """Check and write a file in this process, whatever the broker (the import_campaign command)."""
    # The collector paused from the check to the end of the write, and what they held dropped before it resumes: it
    # never walks the check's lines and states (about 0.07 s of the bench's two files otherwise).
    with cyclic_gc_paused():
        campaign_id = _check_and_write(data, user)
    return Campaign.objects.get(pk=campaign_id)


def _check_and_write(data: bytes, user: AbstractBaseUser) -> Any:
    compressed = _compressing(data)
    if _writes_beside_the_check():
        checked, job_id = _check_beside_the_write(data, user=user, compressed=compressed)
        return import_run(job_id, checked).campaign_id
    checked = check_file(data, events=True)
    job = _job_with_file(compressed, **_job_fields(user, checked.sha256, checked.lines))
    return import_run(job.pk, checked).campaign_id


def _job_fields(user: AbstractBaseUser, sha256: str, lines: int) -> dict[str, Any]:
    """A job of `import_file`'s: running from the start, in this process."""
    now = timezone.now()
    return {
        "user": user,
        "file_sha256": sha256,
        "lines": lines,
        "status": ImportJob.RUNNING,
        "started_at": now,
        "heartbeat_at": now,
    }


def _writes_beside_the_check() -> bool:
    """Whether the first batches may be written beside the check, from a connection of their own: on SQLite, and
    not inside a transaction of the caller's (which a second connection could neither see nor wait for)."""
    return connection.vendor == "sqlite" and not connection.in_atomic_block


# How long a thread waits for the interpreter before the one holding it is asked to let go (seconds): the write
# takes it back after each statement SQLite ran without it, and waited up to Python's default of 5 ms each time.
_SWITCH_INTERVAL = 0.0002
# How long the write beside the check waits for the check to pass more lines (seconds).
_WAIT_FOR_LINES = 0.002


class _CheckFailed(Exception):
    """The file failed its check while its first batches were being written beside it."""


class _BesideTheCheck:
    """The first transaction of an import's write, in a thread of its own while this one checks the file: the lines
    as the check passes them (`Checking`), for a job made here with its file (`import_file`: `user`, `compressed`)
    or for a worker's job (`job_id`), after the lines it has written. It commits only once the whole file has
    passed; a file that fails the check leaves nothing, a new job included. SQLite runs each statement of rows
    without the interpreter (`_insert_rows`), so the write goes on beside the check, on the other core; the lines
    the write had not reached when the check ended are `import_run`'s, in its own transactions. On SQLite the
    transaction holds the database's write lock while the file is checked (about 1.2 s a 100,000 lines): other
    writers wait for it (the busy timeout is 30 s), as they wait for each batch's."""

    def __init__(
        self,
        *,
        job_id: Any = None,
        user: AbstractBaseUser | None = None,
        compressed: Future[bytes] | None = None,
    ) -> None:
        self.job_id, self.user, self.compressed = job_id, user, compressed
        self.checking = Checking()
        self.passed = threading.Event()  # the whole file has passed
        self.over = threading.Event()  # the check has ended, passed or not
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="import-write", daemon=True)

    def _run(self) -> None:
        try:
            with transaction.atomic():
                self._write()
        except BaseException as error:  # raised again by the thread that waits for it
            self.error = error
        finally:
            connection.close()  # this thread's own connection

    def _job(self) -> ImportJob | None:
        """The job to write for: made now (its file comes last, compressed beside the check too, and kept in the
        same transaction as the lines a worker resuming the job reads it for), or the worker's, if still open."""
        checking = self.checking
        if self.job_id is None:
            assert self.user is not None
            return ImportJob.objects.create(**_job_fields(self.user, checking.sha256, checking.lines))
        job = ImportJob.objects.select_for_update().get(pk=self.job_id)
        return job if job.open else None

    def _write(self) -> None:
        checking = self.checking
        while not checking.lines and not self.over.is_set():
            self.over.wait(_WAIT_FOR_LINES)
        if not checking.lines:
            return  # the trailer failed: nothing was written
        job = self._job()
        if job is None:
            return
        position = start = job.lines_written
        # What the check has passed, as it passes it, in whole statements of the largest size, a batch at most; what
        # it passes after the write's last look is `import_run`'s.
        statement = _ROWS_PER_INSERT[0]
        while not self.over.is_set():
            passed = min(len(checking.events) - position, BATCH) // statement * statement
            if not passed:
                self.over.wait(_WAIT_FOR_LINES)
                continue
            batch = checking.events[position : position + passed]
            _write_batch(job, position + 1, batch, checking.attributes)
            position += len(batch)
        if not self.passed.is_set():
            raise _CheckFailed  # rolled back; the check's own error is the one raised
        if position > start:
            _note_progress(job, position)
        if self.compressed is not None:
            ImportFile.objects.create(job=job, data=self.compressed.result())
        self.job_id = job.pk


def _check_beside_the_write(
    data: bytes,
    *,
    job_id: Any = None,
    user: AbstractBaseUser | None = None,
    compressed: Future[bytes] | None = None,
) -> tuple[CheckedFile, Any]:
    """The file checked here, its first lines written beside the check (`_BesideTheCheck`): the checked file and
    the job's id."""
    beside = _BesideTheCheck(job_id=job_id, user=user, compressed=compressed)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(_SWITCH_INTERVAL)
    beside.thread.start()
    try:
        checked = check_file(data, events=True, checking=beside.checking)
        beside.passed.set()
    finally:
        beside.over.set()
        beside.thread.join()
        sys.setswitchinterval(switch)
    if beside.error is not None:
        raise beside.error
    return checked, beside.job_id
