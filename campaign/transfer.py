"""Export a campaign as JSON Lines (one event per line, in global order) and import it as a new campaign.

Streams are written as `campaign` and `character:<id in the file>`; import gives the characters new ids and
replays the log into fresh read models, so the imported characters end in the same states. Players, members,
the file's idempotency keys and jobs are not part of the log and are not carried over: the importer becomes the GM.
The log's history of members (invitations, who joined, left or was removed, CharacterChanged of a character handed
to a GM) comes along as history, user names as text: they name people of the server the file was written on.

An export ends with a trailer: the count and the SHA-256 of the lines before it. An import refuses a file whose
trailer is missing or does not match (cut short, or changed by hand), then checks every line before anything is
written (`check_file`): the envelope, each event against its ruleset's description (`rules/<slug>/events.py`),
game times, versions, positions and undos, and finally a replay of every character through the ruleset with the
replayed state's ranges checked. Each refusal names the line and the field. The checked file is then written by an
`ImportJob` (`import_run`) in batches, the read models built by the rebuild's streaming path.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from campaign import game_dates, services
from campaign.client_input import check_text, no_constants
from campaign.eventstore import json_text, json_value
from campaign.models import GM, PLAYER, Campaign, Character, Event, ImportJob, Membership
from campaign.projections import (
    CAMPAIGN_CHANGED,
    CAMPAIGN_CREATED,
    CHARACTER_CREATED,
    CLOCK_ADVANCED,
    CLOCK_REWOUND,
    INVITATION_ACCEPTED,
    INVITATION_CANCELLED,
    INVITATION_DECLINED,
    MEMBER_INVITED,
    MEMBER_LEFT,
    MEMBER_REMOVED,
    MEMBERSHIP_EVENTS,
    rebuild_campaign,
)
from campaign.services import Conflict, ServiceError, readable, validate_campaign_options
from rules.event_schema import (
    Int,
    Limits,
    ListOf,
    MapOf,
    Obj,
    OneOf,
    SchemaError,
    Text,
    check_event,
    check_state,
    event,
)
from rules.registry import get_ruleset
from rules.ruleset import (
    ACTION_UNDONE,
    ACTIONS_REVERTED,
    CHARACTER_CHANGED,
    INERT_EVENTS,
    RuleError,
    Ruleset,
    State,
    start_state,
    voided_causes,
)
from rules.ruleset import Event as RuleEvent

FORMAT = "wound-ledger/1"
BATCH = 5000
LIMITS = Limits(
    # The rules schedule past the clock's last second (a hit that heals in eight weeks): the calendar keeps a
    # thousand years to spare for that (`game_dates`), and so does a time inside an event's data.
    max_time=2 * game_dates.MAX_GAME_SECONDS
)
TRAILER_EXPECTED = (
    "expected the export's trailer (its line count and SHA-256), the last line of every export; "
    "the file is cut short or was changed"
)


# --- export --------------------------------------------------------------------------------------------------


def export_lines(campaign: Campaign) -> Iterator[dict[str, Any]]:
    rows = Event.objects.filter(campaign=campaign).order_by("position")
    for row in rows.iterator(chunk_size=2000):
        yield {
            "format": FORMAT,
            "position": row.position,
            "stream": "campaign" if row.character_id is None else f"character:{row.character_id}",
            "version": row.version,
            "type": row.type,
            "schema_version": row.schema_version,
            "data": row.data,
            "game_time": row.game_time,
            "recorded_at": row.recorded_at.isoformat(),
            "actor": row.actor,
            "cause": row.cause,
        }


def _line(item: dict[str, Any]) -> str:
    # ASCII only (json.dumps escapes the rest), so the text and the bytes the trailer hashes are one and the same.
    return json.dumps(item, separators=(",", ":")) + "\n"


def export_text(campaign: Campaign) -> Iterator[str]:
    """The export's lines, streamed, then its trailer: the count and SHA-256 of the lines, hashed as they go."""
    digest = hashlib.sha256()
    count = 0
    for item in export_lines(campaign):
        text = _line(item)
        digest.update(text.encode("ascii"))
        count += 1
        yield text
    yield _line({"format": FORMAT, "trailer": True, "lines": count, "sha256": digest.hexdigest()})


# --- checks --------------------------------------------------------------------------------------------------


def _fail(line: int, message: str) -> ServiceError:
    return ServiceError("file", f"line {line}: {message}")


@dataclass(frozen=True)
class GameTime:
    """A game time the campaign's calendar has (`game_dates.check_game_time`), as a field of a description."""

    def check(self, value: Any, path: str, limits: Limits) -> None:
        try:
            game_dates.check_game_time(value)
        except game_dates.CalendarError as error:
            raise SchemaError(path, error.message) from None


ANY_OBJECT = Obj({}, open=True)
USERNAME = Text(150)
ROLE = OneOf((GM, PLAYER))
HANDED = ListOf(Text(200), max_items=100_000)  # the names of the characters handed to a GM


@dataclass(frozen=True)
class AnyValue:
    """Any JSON value: an option's old or new value, which the campaign's options check as a whole."""

    def check(self, value: Any, path: str, limits: Limits) -> None:
        return None


ANY_VALUE = AnyValue()
ENVELOPE = Obj(
    {
        "format": OneOf((FORMAT,)),
        "position": Int(1, 2**63 - 1),
        "stream": Text(64),
        "version": Int(1, 2**31 - 1),
        "type": Text(64),
        "schema_version": Int(1, 32767),
        "data": ANY_OBJECT,
        "game_time": GameTime(),
        "recorded_at": Text(40),
        "actor": Text(150),
        "cause": Text(80),
    },
    optional=frozenset({"recorded_at"}),
)
# The campaign stream's own events (campaign/projections.py); a CharacterCreated's attributes and a
# CampaignCreated's options are checked by the ruleset and the campaign, as a new character's or campaign's are.
CAMPAIGN_EVENTS = {
    CAMPAIGN_CREATED: event(name=Text(200), ruleset=Text(32), options=ANY_OBJECT),
    CHARACTER_CREATED: event(character=Int(1, 2**63 - 1), name=Text(200), attributes=ANY_OBJECT),
    CLOCK_ADVANCED: event(
        **{"from": GameTime(), "to": GameTime()}, job=Text(64), timers_fired=Int(0, 2**31 - 1)
    ),
    CLOCK_REWOUND: event(**{"from": GameTime(), "to": GameTime()}, job=Text(64)),
    # A GM's edit of the campaign: `name` and `options.<name>`, each with its old and new value.
    CAMPAIGN_CHANGED: event(changes=MapOf(Obj({"old": ANY_VALUE, "new": ANY_VALUE}), max_items=200)),
    # Who joined and left (docs/members.md): history only, the importer is the new campaign's one member.
    MEMBER_INVITED: event(username=USERNAME, role=ROLE),
    INVITATION_ACCEPTED: event(username=USERNAME, role=ROLE),
    INVITATION_DECLINED: event(username=USERNAME, characters=HANDED, to=USERNAME),
    INVITATION_CANCELLED: event(username=USERNAME, characters=HANDED, to=USERNAME),
    MEMBER_REMOVED: event(username=USERNAME, role=ROLE, characters=HANDED, to=USERNAME),
    MEMBER_LEFT: event(username=USERNAME, role=ROLE, characters=HANDED, to=USERNAME),
}


@dataclass
class _Stream:
    """What the checks remember of a stream while reading the file."""

    version: int = 0
    game_time: int = 0
    causes: dict[str, list[int]] = field(default_factory=dict)
    voided: set[str] = field(default_factory=set)
    takebacks: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)  # undos and reverts


@dataclass
class CheckedFile:
    lines: int
    name: str
    ruleset: str


def _trailer(data: bytes) -> tuple[int, int]:
    """Where the events end (the trailer's offset) and how many lines they are, once the trailer matches."""
    end = len(data.rstrip(b"\n"))
    start = data.rfind(b"\n", 0, end) + 1
    count = data.count(b"\n", 0, start)
    line_no = count + 1
    try:
        trailer = json.loads(data[start:end], parse_constant=no_constants)
    except (ValueError, UnicodeDecodeError, RecursionError):
        trailer = None
    if not isinstance(trailer, dict) or trailer.get("trailer") is not True:
        raise _fail(line_no, TRAILER_EXPECTED)
    if trailer.get("format") != FORMAT:
        raise _fail(line_no, f"format: expected {FORMAT}, got {str(trailer.get('format'))[:40]!r}")
    if trailer.get("lines") != count:
        raise _fail(
            line_no,
            f"lines: the trailer counts {str(trailer.get('lines'))[:20]} lines before it and the file has {count}; "
            "the file is cut short or was changed",
        )
    if trailer.get("sha256") != hashlib.sha256(memoryview(data)[:start]).hexdigest():
        raise _fail(
            line_no,
            "sha256: the lines before the trailer are not the ones it was written for; the file was changed",
        )
    if count > settings.IMPORT_MAX_LINES:
        raise _fail(line_no, f"expected at most {settings.IMPORT_MAX_LINES:,} events, got {count:,}")
    return start, count


def _lines(data: bytes, end: int) -> Iterator[tuple[int, bytes]]:
    return enumerate(io.BytesIO(memoryview(data)[:end]), start=1)


_ESCAPES_TO_CHECK = re.compile(rb"\\u(0000|[dD][89a-fA-F])")
# rules/text.py's direction controls as UTF-8 (U+061C, U+200E-F, U+202A-E, U+2066-9) or as JSON escapes.
_DIRECTION_CONTROLS = re.compile(
    rb"\xd8\x9c|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\\u(061[cC]|200[eEfF]|202[a-eA-E]|206[6-9])"
)


def _parse(line_no: int, raw: bytes) -> dict[str, Any]:
    try:
        item = json_value(raw, parse_constant=no_constants)
    except (ValueError, UnicodeDecodeError) as error:
        raise _fail(line_no, f"expected a JSON object ({error})") from None
    except RecursionError:
        raise _fail(line_no, "expected a JSON object, got JSON nested too deeply") from None
    if not isinstance(item, dict):
        raise _fail(line_no, "expected a JSON object")
    try:
        ENVELOPE.check(item, "", LIMITS)
        # As the API's and the web's input: a NUL or a lone surrogate would be a 500 or a campaign no read survives.
        # JSON can only spell either as an escape (raw, neither decodes): the walk looks for it where one is.
        # The file's notes and medics are shown as they are, never asked of the rules again: no direction
        # control anywhere, as none gets in through the API or the pages; it is looked for where one may be.
        if _ESCAPES_TO_CHECK.search(raw) or _DIRECTION_CONTROLS.search(raw):
            check_text(item, readable=True)
    except (SchemaError, RuleError) as error:
        raise _fail(line_no, f"{error.field}: {error.message}") from None
    return item


def check_file(data: bytes) -> CheckedFile:
    """Check an export before anything is written: the trailer, then every line (see the module's docstring).
    Raises ServiceError("file", "line N: <field>: ...") at the first line that is wrong."""
    end, count = _trailer(data)
    rules, options, characters, voided = _check_events(data, end)
    _check_replay(data, end, rules, options, characters, voided)
    first = json.loads(next(_lines(data, end))[1])
    return CheckedFile(lines=count, name=first["data"]["name"], ruleset=rules.slug)


def _check_events(
    data: bytes, end: int
) -> tuple[Ruleset, dict[str, Any], dict[str, dict[str, Any]], dict[str, set[str]]]:
    """The first pass: each line on its own, and each against the lines before it. Returns the ruleset, the
    campaign's options, each character's attributes (by stream) and each character stream's voided causes."""
    rules: Ruleset | None = None
    options: dict[str, Any] = {}
    streams: dict[str, _Stream] = {}
    characters: dict[str, dict[str, Any]] = {}
    position = 0
    for line_no, raw in _lines(data, end):
        item = _parse(line_no, raw)
        name, kind, payload = item["stream"], item["type"], item["data"]
        if item["position"] <= position:
            raise _fail(
                line_no, f"position: expected more than {position} (the line before), got {item['position']}"
            )
        position = item["position"]
        if rules is None:
            if name != "campaign" or kind != CAMPAIGN_CREATED:
                raise _fail(line_no, "type: the first event must be the campaign's CampaignCreated")
            rules, options = _check_campaign_created(line_no, item)
        stream = streams.get(name)
        if stream is None:
            if name != "campaign":
                raise _fail(line_no, f"stream: events of {name[:64]} before its CharacterCreated")
            stream = streams[name] = _Stream()
        if item["version"] != stream.version + 1:
            raise _fail(line_no, f"version: expected {stream.version + 1} in {name}, got {item['version']}")
        stream.version = item["version"]
        if item["game_time"] < stream.game_time and not _takes_back_an_advance(kind, payload):
            raise _fail(
                line_no,
                f"game_time: expected {stream.game_time} or later (the time of {name}'s event before), "
                f"got {item['game_time']}",
            )
        stream.game_time = item["game_time"]
        try:
            if name == "campaign" and kind == CAMPAIGN_CHANGED:
                options = _check_campaign_changed(payload, rules, options)
            elif name == "campaign":
                _check_campaign_event(line_no, item, rules, characters, streams)
            else:
                check_event(rules, kind, item["schema_version"], payload, LIMITS)
                if kind == CHARACTER_CHANGED and "name" in payload["changes"]:
                    _check_name(payload["changes"]["name"]["new"], "data.changes.name.new")
        except (SchemaError, RuleError) as error:
            raise _fail(line_no, f"{error.field}: {error.message}") from None
        if kind == ACTION_UNDONE:
            _check_undo(line_no, stream, payload)
            stream.takebacks.append((kind, item["version"], payload))
        elif kind == ACTIONS_REVERTED:
            if payload["to_version"] >= item["version"]:
                raise _fail(line_no, f"data.to_version: expected a version before {item['version']}")
            stream.takebacks.append((kind, item["version"], payload))
            stream.voided = voided_causes(stream.takebacks)
        elif name != "campaign":
            stream.causes.setdefault(item["cause"], []).append(item["version"])
    if rules is None:
        raise ServiceError("file", "the file holds no events")
    voided = {name: streams[name].voided for name in characters}
    return rules, options, characters, voided


def _check_campaign_created(line_no: int, item: dict[str, Any]) -> tuple[Ruleset, dict[str, Any]]:
    payload = item["data"]
    try:
        CAMPAIGN_EVENTS[CAMPAIGN_CREATED].check(payload, "data", LIMITS)
        rules = get_ruleset(payload["ruleset"])
        if not payload["name"].strip():
            raise ServiceError("data.name", "expected the campaign's name (a non-empty text)")
        readable("data.name", payload["name"].strip(), "a name")
        options = validate_campaign_options(rules, payload["options"])
    except RuleError as error:
        field = error.field if error.field.startswith("data.") else f"data.{error.field}"
        raise _fail(line_no, f"{field}: {error.message}") from None
    return rules, options


def _check_campaign_event(
    line_no: int,
    item: dict[str, Any],
    rules: Ruleset,
    characters: dict[str, dict[str, Any]],
    streams: dict[str, _Stream],
) -> None:
    kind, payload = item["type"], item["data"]
    if kind == CAMPAIGN_CREATED:
        if item["version"] != 1:
            raise ServiceError("type", "expected one CampaignCreated, the campaign's first event")
        return
    spec = CAMPAIGN_EVENTS.get(kind)
    if spec is None:
        expected = ", ".join((CHARACTER_CREATED, CLOCK_ADVANCED, CLOCK_REWOUND, *MEMBERSHIP_EVENTS))
        raise ServiceError("type", f"expected one of {expected} on the campaign stream, got {kind!r}")
    spec.check(payload, "data", LIMITS)
    if kind in MEMBERSHIP_EVENTS:
        return
    if kind == CLOCK_REWOUND:
        if item["game_time"] != payload["to"] or payload["to"] > payload["from"]:
            raise ServiceError("game_time", f"expected the time the clock went back to ({payload['to']})")
        return
    if kind == CLOCK_ADVANCED:
        if payload["to"] < payload["from"]:
            raise ServiceError(
                "data.to", f"expected {payload['from']} (data.from) or later, got {payload['to']}"
            )
        if item["game_time"] != payload["to"]:
            raise ServiceError("game_time", f"expected the time the clock reached ({payload['to']})")
        return
    stream = f"character:{payload['character']}"
    if stream in characters:
        raise ServiceError(
            "data.character", f"character {payload['character']} was created on an earlier line"
        )
    if not payload["name"].strip():
        raise ServiceError("data.name", "expected the character's name (a non-empty text)")
    readable("data.name", payload["name"].strip(), "a name")
    try:
        characters[stream] = rules.validate_attributes(payload["attributes"])
    except RuleError as error:
        raise ServiceError(f"data.{error.field}", error.message) from None
    streams[stream] = _Stream(game_time=item["game_time"])


def _takes_back_an_advance(kind: str, payload: Any) -> bool:
    """The one case where a stream's time goes back: an advance taken back (the clock, and each character's
    revert of that advance's firings, return to where it began)."""
    return kind == CLOCK_REWOUND or (
        kind == ACTIONS_REVERTED and isinstance(payload, dict) and bool(payload.get("advance"))
    )


def _check_name(name: str, field: str) -> None:
    if not name.strip():
        raise ServiceError(field, "expected the character's name (a non-empty text)")
    readable(field, name.strip(), "a name")


def _check_campaign_changed(
    payload: dict[str, Any], rules: Ruleset, options: dict[str, Any]
) -> dict[str, Any]:
    """A CampaignChanged: a new name as a created campaign's, new options checked as a PATCH checks them. Returns
    the options from then on."""
    CAMPAIGN_EVENTS[CAMPAIGN_CHANGED].check(payload, "data", LIMITS)
    changes = payload["changes"]
    if "name" in changes:
        _check_name(changes["name"]["new"], "data.changes.name.new")
    named = {
        key.removeprefix("options."): change["new"]
        for key, change in changes.items()
        if key.startswith("options.")
    }
    try:
        return validate_campaign_options(rules, {**options, **named})
    except RuleError as error:
        raise ServiceError(f"data.changes.{error.field}", error.message) from None


def _check_undo(line_no: int, stream: _Stream, payload: dict[str, Any]) -> None:
    """An undo takes back something its stream holds and nothing twice, as the action path's undo does."""
    cause = payload["cause"]
    versions = stream.causes.get(cause)
    if versions is None:
        raise _fail(
            line_no, f"data.cause: expected the cause of an earlier event of the stream, got {cause!r}"
        )
    if cause in stream.voided:
        raise _fail(line_no, f"data.cause: {cause!r} was already taken back by an earlier undo")
    if payload["versions"] != versions:
        raise _fail(
            line_no,
            f"data.versions: expected {versions} (the events of {cause!r}), got {payload['versions']}",
        )
    stream.voided.add(cause)


def _check_replay(
    data: bytes,
    end: int,
    rules: Ruleset,
    options: dict[str, Any],
    characters: dict[str, dict[str, Any]],
    voided: dict[str, set[str]],
) -> None:
    """The second pass: every character's events that shape its state (none an undo took back), through the
    ruleset's evolve, as a rebuild folds them; the state after each must be within the rules' ranges."""
    states: dict[str, State] = {}
    for line_no, raw in _lines(data, end):
        item = json_value(raw)
        name, kind = item["stream"], item["type"]
        if name == "campaign":
            if kind == CHARACTER_CREATED:
                stream = f"character:{item['data']['character']}"
                states[stream] = start_state(rules, characters[stream], options)
            continue
        if kind in INERT_EVENTS or item["cause"] in voided[name]:
            continue
        state = states[name]
        try:
            rules.evolve_into(state, RuleEvent(kind, item["data"], item["game_time"], item["schema_version"]))
        except Exception as error:  # evolve trusts its own events; any failure here is the file's
            raise _fail(
                line_no, f"data: the event cannot be replayed ({type(error).__name__}: {error})"
            ) from None
        try:
            check_state(rules, state, LIMITS)
        except SchemaError as error:
            raise _fail(line_no, f"{error.field}: {error.message} after this event") from None


# --- the import job --------------------------------------------------------------------------------------------


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
        job = ImportJob.objects.defer("file").filter(user=user, idempotency_key=idempotency_key).first()
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
    The same file with the same `idempotency_key` again returns the first request's job."""
    from campaign import tasks

    digest = hashlib.sha256(data).hexdigest()
    job = _keyed_import(user, idempotency_key, digest)
    if job is not None:
        return job
    checked = check_file(data)
    tasks.ensure_broker("file", tasks.IMPORT_BROKER_DOWN)
    try:
        with transaction.atomic():
            job = _keyed_import(user, idempotency_key, digest)
            if job is not None:
                return job
            job = ImportJob.objects.create(
                user=user,
                file=data,
                file_sha256=digest,
                lines=checked.lines,
                idempotency_key=idempotency_key or None,
            )
            if not settings.CELERY_TASK_ALWAYS_EAGER:
                transaction.on_commit(lambda: tasks.enqueue_import(job.pk))
    except IntegrityError:
        raise Conflict(
            "Idempotency-Key", "another import with this key was started at the same moment"
        ) from None
    if settings.CELERY_TASK_ALWAYS_EAGER:
        tasks.enqueue_import(job.pk)
    return ImportJob.objects.defer("file").get(pk=job.pk)


def import_run(job_id: Any) -> ImportJob:
    """Write a checked file as a new campaign, `BATCH` lines per transaction with the job's progress: the
    events in bulk, each new character's row as its CharacterCreated comes, then in the last transaction the read
    models by the rebuild's path (`rebuild_campaign`) and the importer as its GM. A run resumes after the last
    batch written; a second run of the same job finds the batch already written and stops."""
    job = ImportJob.objects.get(pk=job_id)
    if not job.open:
        return job
    ImportJob.objects.filter(pk=job.pk, status=ImportJob.QUEUED).update(
        status=ImportJob.RUNNING, started_at=timezone.now()
    )
    data = bytes(job.file)
    end = len(data.rstrip(b"\n"))
    end = data.rfind(b"\n", 0, end) + 1
    lines = _lines(data, end)
    position = job.lines_written
    for _ in range(position):
        next(lines)
    while True:
        with transaction.atomic():
            job = ImportJob.objects.defer("file").select_for_update().get(pk=job_id)
            if not job.open or job.lines_written != position:
                return job
            batch = [(line_no, json_value(raw)) for line_no, raw in _take(lines, BATCH)]
            _write_batch(job, batch)
            position += len(batch)
            job.lines_written = position
            job.progress = round(min(position / max(job.lines, 1), 1.0), 4)
            job.heartbeat_at = timezone.now()
            finished = position >= job.lines
            if finished:
                campaign = Campaign.objects.get(pk=job.campaign_id)
                rebuild_campaign(campaign)
                Membership.objects.create(campaign=campaign, user=job.user, role=GM)
                job.status = ImportJob.DONE
                job.progress = 1.0
                job.finished_at = timezone.now()
                job.file = b""  # written: the file is the campaign's event log now
                job.save()
            else:
                job.save(
                    update_fields=["lines_written", "progress", "heartbeat_at", "campaign", "characters"]
                )
        if finished:
            return job


def _take(lines: Iterator[tuple[int, bytes]], count: int) -> Iterator[tuple[int, bytes]]:
    for _ in range(count):
        item = next(lines, None)
        if item is None:
            return
        yield item


_EVENT_COLUMNS = [field for field in Event._meta.concrete_fields if not field.primary_key]
_EVENT_COLUMN_NAMES = ", ".join(f'"{field.column}"' for field in _EVENT_COLUMNS)
_EVENT_COPY = f"COPY {Event._meta.db_table} ({_EVENT_COLUMN_NAMES}) FROM STDIN"
_EVENT_INSERT = "INSERT INTO {} ({}) VALUES ({})".format(
    Event._meta.db_table, _EVENT_COLUMN_NAMES, ", ".join(["%s"] * len(_EVENT_COLUMNS))
)


def _write_batch(job: ImportJob, batch: list[tuple[int, dict[str, Any]]]) -> None:
    """One batch of lines: a character row for each CharacterCreated, then the events in one COPY (PostgreSQL)
    or one executemany (SQLite). `bulk_create` cost three times the whole write: a model instance per event, and
    on PostgreSQL arrays of JSON documents for its UNNEST."""
    rows = []
    if job.campaign_id is None:
        job.campaign = _create_campaign(batch[0][1]["data"], job.user)
    campaign_id = job.campaign_id
    _create_characters(job, [item["data"] for _, item in batch if item["type"] == CHARACTER_CREATED])
    recorded_at = Event._meta.get_field("recorded_at").get_db_prep_value(timezone.now(), connection)
    for line_no, item in batch:
        stream, payload, character_id = item["stream"], item["data"], None
        if stream == "campaign" and item["type"] == CHARACTER_CREATED:
            payload = {**payload, "character": job.characters[str(payload["character"])]}
        elif stream != "campaign":
            character_id = job.characters[stream.removeprefix("character:")]
        first = line_no == 1
        row = {
            "campaign_id": campaign_id,
            "stream": f"campaign:{campaign_id}" if character_id is None else f"character:{character_id}",
            "character_id": character_id,
            "version": item["version"],
            "type": item["type"],
            "schema_version": item["schema_version"],
            "data": json_text(payload),
            "game_time": item["game_time"],
            "recorded_at": recorded_at,
            "actor": item["actor"],
            "cause": item["cause"],
            # The campaign's first event holds the import's key, as a created campaign's does.
            "idempotency_key": job.idempotency_key if first else None,
            "request_digest": job.file_sha256 if first and job.idempotency_key else "",
        }
        rows.append(tuple(row[field.attname] for field in _EVENT_COLUMNS))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(_EVENT_COPY) as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            cursor.executemany(_EVENT_INSERT, rows)


def _create_characters(job: ImportJob, created: list[dict[str, Any]]) -> None:
    """The batch's new characters, in one insert; their read models are the rebuild's to write."""
    if not created:
        return
    rules = get_ruleset(job.campaign.ruleset)
    characters = Character.objects.bulk_create(
        Character(
            campaign_id=job.campaign_id,
            name=data["name"],
            attributes=rules.validate_attributes(data["attributes"]),
        )
        for data in created
    )
    for data, character in zip(created, characters, strict=True):
        job.characters[str(data["character"])] = character.pk


def _create_campaign(payload: dict[str, Any], user: AbstractBaseUser) -> Campaign:
    rules = get_ruleset(payload["ruleset"])
    options = validate_campaign_options(rules, payload["options"])
    # A clock that runs on its own stays still until the import is done: the rebuild then sets the options of
    # the CampaignCreated event, and the clock's version and time with them.
    return Campaign.objects.create(
        name=payload["name"].strip(),
        ruleset=rules.slug,
        options={**options, "time_scale": 0},
        created_by=user,
    )


def import_fail(job_id: Any, error: str) -> None:
    ImportJob.objects.filter(pk=job_id, status__in=[ImportJob.QUEUED, ImportJob.RUNNING]).update(
        status=ImportJob.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def import_file(data: bytes, *, user: AbstractBaseUser) -> Campaign:
    """Check and write a file in this process, whatever the broker (the import_campaign command)."""
    checked = check_file(data)
    job = ImportJob.objects.create(
        user=user, file=data, file_sha256=hashlib.sha256(data).hexdigest(), lines=checked.lines
    )
    job = import_run(job.pk)
    return Campaign.objects.get(pk=job.campaign_id)
