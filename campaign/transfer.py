"""Export a campaign as JSON Lines (one event per line, in global order) and import it as a new campaign.

Streams are written as `campaign` and `character:<id in the file>`; import gives the characters new ids and
replays the log into fresh read models, so the imported characters end in the same states. Players, members,
the file's idempotency keys and jobs are not part of the log and are not carried over: the importer becomes the GM.
The log's history of members (invitations, who joined, left or was removed, CharacterChanged of a character handed
to a GM) comes along as history, user names as text: they name people of the server the file was written on.

An export ends with a trailer: the count and the SHA-256 of the lines before it. An import refuses a file whose
trailer is missing or does not match (cut short, or changed by hand), then checks every line before anything is
written (`check_file`), in one pass: the envelope, each event against its ruleset's description
(`rules/<slug>/events.py`), game times, versions, positions and undos, and a replay of every character through the
ruleset with the replayed state's ranges checked after each event. Each refusal names the line and the field. The
checked file is then written by an `ImportJob` (`import_run`) in batches, the events in bulk; the read models are
what the check's replay gave (it is the rebuild's fold), written by the rebuild's own write (`write_read_models`).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from campaign import game_dates, queue, services
from campaign.client_input import check_text, no_constants
from campaign.events import (
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
)
from campaign.eventstore import json_text, json_value
from campaign.models import GM, PLAYER, Campaign, Character, Event, ImportJob, Membership
from campaign.projections import (
    Folded,
    Identity,
    changed_options,
    cyclic_gc_paused,
    write_read_models,
)
from campaign.secrecy import stream_entries
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
    CHARACTER_RESTORED,
    CHARACTER_RETIRED,
    INERT_EVENTS,
    TAKING_BACK,
    RuleError,
    Ruleset,
    State,
    set_options,
    shown_by,
    start_state,
    voided_causes,
)
from rules.ruleset import Event as RuleEvent

FORMAT = "wound-ledger/1"
# Lines per transaction. Each batch saves the job's progress, and on SQLite an UPDATE rewrites the whole row, the
# file it keeps for the worker with it (up to IMPORT_MAX_BYTES): at 5,000 lines a batch, rewriting the file cost
# more than writing the events. 50,000 lines take 2 to 10 s on a busy 2-core machine: the heartbeat stays well
# inside CLOCK_STALLED_AFTER_SECONDS, and the progress of a large file still moves (IMPORT_LINES_PER_TRANSACTION).
BATCH = settings.IMPORT_LINES_PER_TRANSACTION
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
    """The export's lines, streamed, then its trailer: the count and SHA-256 of the lines, hashed as they go.

    Refused (409) while an advance is open: its firings are in the log before its `ClockAdvanced` is, so a copy
    made from the file would have its clock behind them, and the copy's next note would be dated before them
    (docs/clock.md, "Faults"). Checked here, before the first line, so that the answer can still be a 409."""
    busy = services.open_job(campaign)
    if busy is not None:
        raise Conflict("clock", services.clock_busy(busy.pk))
    return _export_text(campaign)


def _export_text(campaign: Campaign) -> Iterator[str]:
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

    def fits(self, value: Any, limits: Limits) -> bool:
        return type(value) is int and 0 <= value <= game_dates.MAX_GAME_SECONDS


ANY_OBJECT = Obj({}, open=True)
USERNAME = Text(150)
ROLE = OneOf((GM, PLAYER))
HANDED = ListOf(Text(200), max_items=100_000)  # the names of the characters handed to a GM


@dataclass(frozen=True)
class AnyValue:
    """Any JSON value: an option's old or new value, which the campaign's options check as a whole."""

    def check(self, value: Any, path: str, limits: Limits) -> None:
        return None

    def fits(self, value: Any, limits: Limits) -> bool:
        return True


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
    lines: list[tuple[int, int]] = field(
        default_factory=list
    )  # a character's: (line number, offset), to replay


@dataclass
class CheckedFile:
    lines: int
    name: str
    ruleset: str
    folded: Folded  # the read models the file's log gives, by the file's character ids
    attributes: dict[
        int, dict[str, Any]
    ]  # each character's, as the ruleset validated them, by the file's ids


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


def _lines_at(data: bytes, end: int) -> Iterator[tuple[int, int, bytes]]:
    """The lines before `end` (each with its newline, as `_lines`), numbered, with the offset of each."""
    find = data.find
    start, line_no = 0, 0
    while start < end:
        stop = find(b"\n", start, end)
        stop = end if stop < 0 else stop + 1
        line_no += 1
        yield line_no, start, data[start:stop]
        start = stop


# A NUL or a lone surrogate as a JSON escape, or rules/text.py's direction controls as UTF-8 (U+061C, U+200E-F,
# U+202A-E, U+2066-9) or as JSON escapes: one search of the line for either.
_TEXT_TO_CHECK = re.compile(
    rb"\\u(0000|[dD][89a-fA-F])"
    rb"|\xd8\x9c|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\\u(061[cC]|200[eEfF]|202[a-eA-E]|206[6-9])"
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
        if not ENVELOPE.fits(item, LIMITS):
            ENVELOPE.check(item, "", LIMITS)
        # As the API's and the web's input: a NUL or a lone surrogate would be a 500 or a campaign no read survives.
        # JSON can only spell either as an escape (raw, neither decodes): the walk looks for it where one is.
        # The file's notes and medics are shown as they are, never asked of the rules again: no direction
        # control anywhere, as none gets in through the API or the pages; it is looked for where one may be.
        if _TEXT_TO_CHECK.search(raw):
            check_text(item, readable=True)
    except (SchemaError, RuleError) as error:
        raise _fail(line_no, f"{error.field}: {error.message}") from None
    return item


def check_file(data: bytes) -> CheckedFile:
    """Check an export before anything is written: the trailer, then every line (see the module's docstring).
    Raises ServiceError("file", "line N: <field>: ...") at the first line that is wrong. The check's replay is
    the rebuild's fold: what it gives is what the import writes as the read models."""
    end, count = _trailer(data)
    with cyclic_gc_paused():  # the states grow as the rebuild's do, and hold no cycles
        rules, folded, characters = _check_lines(data, end)
    return CheckedFile(
        lines=count,
        name=folded.identity.campaign_name,
        ruleset=rules.slug,
        folded=folded,
        attributes={int(stream.removeprefix("character:")): value for stream, value in characters.items()},
    )


def _check_lines(data: bytes, end: int) -> tuple[Ruleset, Folded, dict[str, dict[str, Any]]]:
    """One pass: each line on its own, against the lines before it, and every character's state replayed through
    its ruleset as it goes (`_Replay`). Returns the ruleset, what the replay gives and each character's validated
    attributes (by stream)."""
    rules: Ruleset | None = None
    replayed: _Replay | None = None
    options: dict[str, Any] = {}
    streams: dict[str, _Stream] = {}
    characters: dict[str, dict[str, Any]] = {}
    position = 0
    for line_no, start, raw in _lines_at(data, end):
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
            replayed = _Replay(rules)
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
        assert replayed is not None  # made with the ruleset, on the first line
        if name == "campaign":
            replayed.campaign_event(line_no, kind, item["version"], payload)
        else:
            stream.lines.append((line_no, start))
            replayed.character_event(line_no, name, kind, item)
    if rules is None or replayed is None:
        raise ServiceError("file", "the file holds no events")
    return rules, replayed.folded(data, streams), characters


class _Replay:
    """The check's replay of every character through its ruleset, the state after each event checked within the
    rules' ranges: the rebuild's fold (`projections._fold_campaign`) of the file's lines, so that what it gives is
    the read models (`write_read_models`), by the file's character ids.

    A stream's events are folded in place as they come. Once a stream holds an undo or a revert (rare), its events
    are no longer folded as they come: at the end it is replayed from its own lines without the causes taken back,
    as the rebuild does. The states folded before its first undo were the stream's states then, and checked as such.
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.evolve_into = rules.evolve_into
        self.shows = shown_by(rules)
        self.states: dict[str, State] = {}
        self.seen: dict[str, int] = {}
        self.created: dict[str, tuple[Any, Any, str]] = {}  # attributes, options and name at its creation
        self.undone: set[str] = set()
        self.campaign_name = ""
        self.names: dict[str, str] = {}
        self.retired: dict[str, bool] = {}
        self.game_time = 0
        self.campaign_version = 0
        self.options: dict[str, Any] = {}
        self.options_changed = False

    def campaign_event(self, line_no: int, kind: str, version: int, payload: dict[str, Any]) -> None:
        self.campaign_version = version
        if kind == CLOCK_ADVANCED:
            self.game_time = max(self.game_time, payload["to"])
        elif kind == CLOCK_REWOUND:
            self.game_time = payload["to"]
        elif kind == CAMPAIGN_CREATED:
            self.options = payload["options"]
            self.campaign_name = payload["name"]
        elif kind == CAMPAIGN_CHANGED:
            self.options = changed_options(self.options, payload["changes"])
            self.options_changed = True
            if "name" in payload["changes"]:
                self.campaign_name = payload["changes"]["name"]["new"]
        elif kind == CHARACTER_CREATED:
            stream = f"character:{payload['character']}"
            # From the attributes as the file holds them, as a rebuild of the log starts the character.
            try:
                self.states[stream] = start_state(self.rules, payload["attributes"], self.options)
            except Exception as error:  # validated, but a rebuild must start from them too
                raise _fail(
                    line_no,
                    f"data.attributes: the character cannot be replayed ({type(error).__name__}: {error})",
                ) from None
            self.seen[stream] = 0
            self.created[stream] = (payload["attributes"], self.options, payload["name"])
            self.names[stream] = payload["name"]
            self.retired[stream] = False

    def character_event(self, line_no: int, stream: str, kind: str, item: dict[str, Any]) -> None:
        if kind in INERT_EVENTS:
            if kind in TAKING_BACK:
                self.undone.add(stream)
            elif kind in (CHARACTER_RETIRED, CHARACTER_RESTORED):
                self.retired[stream] = kind == CHARACTER_RETIRED
            return
        if stream in self.undone:
            return  # replayed at the end
        payload = item["data"]
        event = RuleEvent(kind, payload, item["game_time"], item["schema_version"])
        self._evolve(line_no, self.states[stream], event)
        self.seen[stream] += self.shows(event)
        if kind == CHARACTER_CHANGED and "name" in payload["changes"]:
            self.names[stream] = payload["changes"]["name"]["new"]

    def _evolve(self, line_no: int, state: State, event: RuleEvent) -> None:
        try:
            self.evolve_into(state, event)
        except Exception as error:  # evolve trusts its own events; any failure here is the file's
            raise _fail(
                line_no, f"data: the event cannot be replayed ({type(error).__name__}: {error})"
            ) from None
        try:
            check_state(self.rules, state, LIMITS)
        except SchemaError as error:
            raise _fail(line_no, f"{error.field}: {error.message} after this event") from None

    def _replay_undone(
        self, stream: str, data: bytes, lines: list[tuple[int, int]], voided: set[str]
    ) -> None:
        """A stream with an undo or a revert, from its own lines, as `projections._fold_campaign` replays one."""
        attributes, options, name = self.created[stream]
        state = self.states[stream] = start_state(self.rules, attributes, options)
        self.names[stream] = name  # a rename taken back is no rename (`services.take_back_identity`)
        rows = []
        for line_no, start in lines:
            item = json_value(data[start : data.index(b"\n", start)])
            row = _Row(item["type"], item["data"], item["game_time"], item["schema_version"], item["cause"])
            rows.append(row)
            if row.type in INERT_EVENTS or row.cause in voided:
                continue
            self._evolve(line_no, state, RuleEvent(row.type, row.data, row.game_time, row.schema_version))
            if row.type == CHARACTER_CHANGED and "name" in row.data["changes"]:
                self.names[stream] = row.data["changes"]["name"]["new"]
        self.seen[stream] = stream_entries(self.rules, rows)

    def folded(self, data: bytes, streams: dict[str, _Stream]) -> Folded:
        for stream in sorted(self.undone, key=lambda name: streams[name].lines[0]):
            self._replay_undone(stream, data, streams[stream].lines, streams[stream].voided)
        if self.options_changed:
            # The options in force now, as the rebuild gives every character (no evolver reads them).
            for state in self.states.values():
                set_options(self.rules, state, self.options)
        # By the file's character ids (a stream is "character:<id>", as its CharacterCreated names it).
        ids = {stream: int(stream.removeprefix("character:")) for stream in self.states}
        return Folded(
            {ids[stream]: state for stream, state in self.states.items()},
            {ids[stream]: streams[stream].version for stream in self.states},
            {ids[stream]: seen for stream, seen in self.seen.items()},
            self.game_time,
            self.campaign_version,
            self.options,
            Identity(
                self.campaign_name,
                {ids[stream]: name for stream, name in self.names.items()},
                {ids[stream]: retired for stream, retired in self.retired.items()},
            ),
        )


class _Row(NamedTuple):
    """A line of a stream as `secrecy.stream_entries` reads an event row."""

    type: str
    data: Any
    game_time: int
    schema_version: int
    cause: str


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
    digest = hashlib.sha256(data).hexdigest()
    job = _keyed_import(user, idempotency_key, digest)
    if job is not None:
        return job
    checked = check_file(data)
    queue.ensure_broker_for_import()
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
                transaction.on_commit(lambda: queue.enqueue_import(job.pk))
    except IntegrityError:
        raise Conflict(
            "Idempotency-Key", "another import with this key was started at the same moment"
        ) from None
    if settings.CELERY_TASK_ALWAYS_EAGER:
        queue.enqueue_import(job.pk)
    return ImportJob.objects.defer("file").get(pk=job.pk)


def import_run(job_id: Any, checked: CheckedFile | None = None) -> ImportJob:
    """Write a checked file as a new campaign, `BATCH` lines per transaction with the job's progress: the
    events in bulk, each new character's row as its CharacterCreated comes, then in the last transaction the read
    models and the importer as its GM. The read models are what the check's replay gave (`checked`, or the file
    checked again here, as a worker does), written as the rebuild writes them (`write_read_models`). A run resumes
    after the last batch written; a second run of the same job finds the batch already written and stops."""
    job = ImportJob.objects.get(pk=job_id)
    if not job.open:
        return job
    ImportJob.objects.filter(pk=job.pk, status=ImportJob.QUEUED).update(
        status=ImportJob.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    data = bytes(job.file)
    if checked is None:
        checked = check_file(data)  # the worker's check is its replay: what `_finish` writes
    end = len(data.rstrip(b"\n"))
    end = data.rfind(b"\n", 0, end) + 1
    lines = _lines(data, end)
    position = job.lines_written
    for _ in range(position):
        next(lines)
    with cyclic_gc_paused():  # the batches' parsed lines hold no cycles; the collector would walk the states
        while True:
            with transaction.atomic():
                job = ImportJob.objects.defer("file").select_for_update().get(pk=job_id)
                if not job.open or job.lines_written != position:
                    return job
                batch = [(line_no, json_value(raw)) for line_no, raw in _take(lines, BATCH)]
                _write_batch(job, batch, checked.attributes)
                position += len(batch)
                job.lines_written = position
                job.progress = round(min(position / max(job.lines, 1), 1.0), 4)
                job.heartbeat_at = timezone.now()
                if position >= job.lines:
                    _finish(job, checked.folded)
                    return job
                job.save(
                    update_fields=["lines_written", "progress", "heartbeat_at", "campaign", "characters"]
                )


def _finish(job: ImportJob, folded: Folded) -> None:
    """The last batch's transaction: the read models, the importer as the campaign's GM, the job done."""
    campaign = Campaign.objects.get(pk=job.campaign_id)
    ids = {int(theirs): ours for theirs, ours in job.characters.items()}
    write_read_models(
        campaign,
        get_ruleset(campaign.ruleset),
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
    job.file = b""  # written: the file is the campaign's event log now
    job.save()


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


def _write_batch(
    job: ImportJob, batch: list[tuple[int, dict[str, Any]]], attributes: dict[int, dict[str, Any]]
) -> None:
    """One batch of lines: a character row for each CharacterCreated, then the events in one COPY (PostgreSQL)
    or one executemany (SQLite). `bulk_create` cost three times the whole write: a model instance per event, and
    on PostgreSQL arrays of JSON documents for its UNNEST."""
    rows = []
    if job.campaign_id is None:
        job.campaign = _create_campaign(batch[0][1]["data"], job.user)
    campaign_id = job.campaign_id
    created = [item["data"] for _, item in batch if item["type"] == CHARACTER_CREATED]
    _create_characters(job, created, attributes)
    recorded_at = Event._meta.get_field("recorded_at").get_db_prep_value(timezone.now(), connection)
    campaign_stream = f"campaign:{campaign_id}"
    characters = {f"character:{theirs}": ours for theirs, ours in job.characters.items()}
    for line_no, item in batch:
        stream, payload, character_id = item["stream"], item["data"], None
        if stream == "campaign" and item["type"] == CHARACTER_CREATED:
            payload = {**payload, "character": job.characters[str(payload["character"])]}
        elif stream != "campaign":
            character_id = characters[stream]
        first = line_no == 1
        rows.append(  # in the order of `_EVENT_COLUMNS`
            (
                campaign_id,
                campaign_stream if character_id is None else f"character:{character_id}",
                character_id,
                item["version"],
                item["type"],
                item["schema_version"],
                json_text(payload),
                item["game_time"],
                recorded_at,
                item["actor"],
                item["cause"],
                # The campaign's first event holds the import's key, as a created campaign's does.
                job.idempotency_key if first else None,
                job.file_sha256 if first and job.idempotency_key else "",
            )
        )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # psycopg's own cursor: its errors are raised as Django's (a dropped connection an OperationalError,
            # which the worker retries), as every query's are.
            with connection.wrap_database_errors, cursor.cursor.copy(_EVENT_COPY) as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            cursor.executemany(_EVENT_INSERT, rows)


def _create_characters(
    job: ImportJob, created: list[dict[str, Any]], attributes: dict[int, dict[str, Any]]
) -> None:
    """The batch's new characters, in one insert, with the attributes the check validated; their read models are
    written at the end (`_finish`)."""
    if not created:
        return
    characters = Character.objects.bulk_create(
        Character(campaign_id=job.campaign_id, name=data["name"], attributes=attributes[data["character"]])
        for data in created
    )
    for data, character in zip(created, characters, strict=True):
        job.characters[str(data["character"])] = character.pk


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
        job = ImportJob.objects.defer("file").select_for_update().filter(pk=job_id).first()
        if job is None or not job.open:
            return
        job.status, job.finished_at = ImportJob.FAILED, timezone.now()
        job.error = IMPORT_FAILED.format(written=job.lines_written, lines=job.lines)
        job.save(update_fields=["status", "finished_at", "error"])


def import_file(data: bytes, *, user: AbstractBaseUser) -> Campaign:
    """Check and write a file in this process, whatever the broker (the import_campaign command)."""
    checked = check_file(data)
    # Made running: on SQLite an UPDATE rewrites the whole row, the file with it.
    job = ImportJob.objects.create(
        user=user,
        file=data,
        file_sha256=hashlib.sha256(data).hexdigest(),
        lines=checked.lines,
        status=ImportJob.RUNNING,
        started_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )
    job = import_run(job.pk, checked)
    return Campaign.objects.get(pk=job.campaign_id)
