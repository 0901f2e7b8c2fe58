"""The checks of an export before anything of it is written: the trailer, then every line against its
description and the lines before it, every character replayed through its ruleset (`check_file`)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.conf import settings

from campaign.http.client_input import check_text, no_constants
from campaign.ledger.events import (
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
from campaign.ledger.eventstore import json_text, json_value
from campaign.ledger.projections import Folded, Identity, changed_options, cyclic_gc_paused
from campaign.ledger.secrecy import stream_entries
from campaign.models import GM, PLAYER
from campaign.services import HOOK_EVENT_SCHEMAS, ServiceError, readable, validate_campaign_options
from campaign.transfer.export import FORMAT
from rules import game_dates
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
    copy_state,
    set_options,
    shown_by,
    start_state,
    voided_causes,
)
from rules.ruleset import Event as RuleEvent
from rules.text import given

LIMITS = Limits(
    # The rules schedule past the clock's last second (a hit that heals in eight weeks): the calendar keeps a
    # thousand years to spare for that (`game_dates`), and so does a time inside an event's data.
    max_time=2 * game_dates.MAX_GAME_SECONDS
)
TRAILER_EXPECTED = (
    "expected the export's trailer (its line count and SHA-256), the last line of every export; "
    "the file is cut short or was changed"
)


def _fail(line: int, message: str) -> ServiceError:
    return ServiceError("file", f"line {line}: {message}")


_GAME_SECONDS = Int(0, game_dates.MAX_GAME_SECONDS)  # the whole numbers of seconds the calendar has


@dataclass(frozen=True)
class GameTime:
    """A game time the campaign's calendar has (`game_dates.check_game_time`), as a field of a description."""

    def check(self, value: Any, path: str, limits: Limits) -> None:
        try:
            game_dates.check_game_time(value)
        except game_dates.CalendarError as error:
            raise SchemaError(path, error.message) from None

    def fits(self, value: Any, limits: Limits) -> bool:
        return _GAME_SECONDS.fits(value, limits)

    def source(self, build: Any, value: str) -> str:
        # Inline in a description's `fits` (rules.event_schema._Builder): every line's envelope has one.
        return _GAME_SECONDS.source(build, value)


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
# The campaign stream's own events (campaign/ledger/events.py); a CharacterCreated's attributes and a
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
    **HOOK_EVENT_SCHEMAS,  # where notifications went: history only, an import makes no hook
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


# A checked line as the import writes it, by the file's stream names: (stream, version, type, schema_version, data,
# game_time, actor, cause), a plain tuple (a NamedTuple cost 0.3 us more a line to make). `data` is the event's data
# as JSON text (`json_text`), except on a CampaignCreated or CharacterCreated line, which the write reads again (the
# campaign to make, the character's new id): there it is the line as the file has it, parsed again as it is written.
EventLine = tuple[str, int, str, int, str | bytes, int, str, str]


# The lines whose data the write reads: kept as the file's bytes, the rest as the text the write stores.
_READ_BY_THE_WRITE = frozenset({CAMPAIGN_CREATED, CHARACTER_CREATED})
TOO_MANY_CHARACTERS = (
    "at most {most:,} characters per campaign, retired ones included, and this file creates more;"
    " nothing was imported"
)


@dataclass
class CheckedFile:
    lines: int
    name: str
    ruleset: str
    folded: Folded  # the read models the file's log gives, by the file's character ids
    attributes: dict[
        int, dict[str, Any]
    ]  # each character's, as the ruleset validated them, by the file's ids
    sha256: str  # the whole file's, as its job keeps it
    events: list[EventLine] | None = None  # every line as the write takes it, when asked for (`check_file`)


def _trailer(data: bytes) -> tuple[int, int, str]:
    """Where the events end (the trailer's offset) and how many lines they are, once the trailer matches; and the
    SHA-256 of the whole file, as its job keeps it (`ImportJob.file_sha256`), from the same pass."""
    end = _stripped_end(data)
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
        raise _fail(line_no, f"format: expected {FORMAT}, got {given(str(trailer.get('format')))}")
    if trailer.get("lines") != count:
        raise _fail(
            line_no,
            f"lines: the trailer counts {str(trailer.get('lines'))[:20]} lines before it and the file has {count}; "
            "the file is cut short or was changed",
        )
    digest = hashlib.sha256(memoryview(data)[:start])
    if trailer.get("sha256") != digest.hexdigest():
        raise _fail(
            line_no,
            "sha256: the lines before the trailer are not the ones it was written for; the file was changed",
        )
    if count > settings.IMPORT_MAX_LINES:
        raise _fail(line_no, f"expected at most {settings.IMPORT_MAX_LINES:,} events, got {count:,}")
    digest.update(memoryview(data)[start:])
    return start, count, digest.hexdigest()


def _stripped_end(data: bytes) -> int:
    """`len(data.rstrip(b"\n"))`, from the file's tail: stripping the whole file would copy it."""
    end = len(data)
    while end:
        start = max(end - 4096, 0)
        kept = len(data[start:end].rstrip(b"\n"))
        if kept:
            return start + kept
        end = start
    return 0


def _lines_at(data: bytes, end: int) -> Iterator[tuple[int, int, bytes]]:
    """The lines before `end`, each with its newline, numbered, with the offset of each."""
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
# Every match of `_TEXT_TO_CHECK` holds one of these bytes. A file without any (plain ASCII with no escape, as an
# export of plain text is) needs no search of its lines: three scans of the whole file for one byte cost about a
# twentieth of the searches (0.012 against 0.25 s for the bench's two files).
_TEXT_TO_CHECK_BYTES = (b"\\", b"\xd8", b"\xe2")


def _may_hold_text_to_check(data: bytes, end: int) -> bool:
    return any(data.find(byte, 0, end) >= 0 for byte in _TEXT_TO_CHECK_BYTES)


def _parse(line_no: int, raw: bytes, look_for_text: bool) -> dict[str, Any]:
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
        if look_for_text and _TEXT_TO_CHECK.search(raw):
            check_text(item, readable=True)
    except (SchemaError, RuleError) as error:
        raise _fail(line_no, f"{error.field}: {error.message}") from None
    return item


@dataclass
class Checking:
    """What a check has passed so far, for a write that goes on beside it (`importing`): the file's line count and
    digest once its trailer is read (`lines` stays 0 until then), every line checked so far as the write takes it
    (`events`) and each character's validated attributes by the file's ids (`attributes`), both growing as the
    check reads on. A line is appended once its own checks have passed (its replay follows): what is here may be
    written, but never committed before the whole file has passed."""

    lines: int = 0
    sha256: str = ""
    events: list[EventLine] = field(default_factory=list)
    attributes: dict[int, dict[str, Any]] = field(default_factory=dict)


def check_file(
    data: bytes, *, events: bool = False, checking: Checking | None = None, most_characters: int | None = None
) -> CheckedFile:
    """Check an export before anything is written: the trailer, then every line (see the module's docstring).
    Raises ServiceError("file", "line N: <field>: ...") at the first line that is wrong. The check's replay is
    the rebuild's fold: what it gives is what the import writes as the read models. With `events`, the checked
    file keeps every line as the write takes it (`CheckedFile.events`), so the write need not parse the file
    again; a check that writes nothing (the web request's) keeps none. With `checking`, the lines and the
    attributes are kept there as the check goes (`events` implied). With `most_characters` (a user's import:
    CHARACTERS_PER_CAMPAIGN), a file that creates more characters is refused at the first one too many."""
    end, count, sha256 = _trailer(data)
    if checking is not None:
        checking.sha256, checking.lines = sha256, count
        kept: list[EventLine] | None = checking.events
        characters = checking.attributes
    else:
        kept, characters = [] if events else None, {}
    with cyclic_gc_paused():  # the states grow as the rebuild's do, and hold no cycles
        rules, folded = _check_lines(data, end, kept, characters, most_characters)
    return CheckedFile(
        lines=count,
        name=folded.identity.campaign_name,
        ruleset=rules.slug,
        folded=folded,
        attributes=characters,
        events=kept,
        sha256=sha256,
    )


def _check_lines(
    data: bytes,
    end: int,
    kept: list[EventLine] | None,
    characters: dict[int, dict[str, Any]],
    most: int | None,
) -> tuple[Ruleset, Folded]:
    """One pass: each line on its own, against the lines before it, and every character's state replayed through
    its ruleset as it goes (`_Replay`). Returns the ruleset and what the replay gives; sets each character's
    validated attributes in `characters` (by the file's ids) and appends each line to `kept` as the write takes
    it, unless it is None, once the line has passed."""
    # A line kept shares its stream's, type's and actor's text with the lines before it: a file's few hundred
    # distinct names, not a copy a line.
    shared: dict[str, str] = {}
    share = shared.setdefault
    rules: Ruleset | None = None
    replayed: _Replay | None = None
    options: dict[str, Any] = {}
    streams: dict[str, _Stream] = {}
    position = 0
    look_for_text = _may_hold_text_to_check(data, end)
    for line_no, start, raw in _lines_at(data, end):
        item = _parse(line_no, raw, look_for_text)
        name, kind, payload = item["stream"], item["type"], item["data"]
        version, game_time = item["version"], item["game_time"]
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
        if version != stream.version + 1:
            raise _fail(line_no, f"version: expected {stream.version + 1} in {name}, got {version}")
        stream.version = version
        if game_time < stream.game_time and not _takes_back_an_advance(kind, payload):
            raise _fail(
                line_no,
                f"game_time: expected {stream.game_time} or later (the time of {name}'s event before), "
                f"got {game_time}",
            )
        stream.game_time = game_time
        try:
            if name == "campaign" and kind == CAMPAIGN_CHANGED:
                options = _check_campaign_changed(payload, rules, options)
            elif name == "campaign":
                if kind == CHARACTER_CREATED and most is not None and len(characters) >= most:
                    raise ServiceError("data.character", TOO_MANY_CHARACTERS.format(most=most))
                _check_campaign_event(line_no, item, rules, characters, streams)
            else:
                check_event(rules, kind, item["schema_version"], payload, LIMITS)
                if kind == CHARACTER_CHANGED and "name" in payload["changes"]:
                    _check_name(payload["changes"]["name"]["new"], "data.changes.name.new")
        except (SchemaError, RuleError) as error:
            raise _fail(line_no, f"{error.field}: {error.message}") from None
        if kind == ACTION_UNDONE:
            _check_undo(line_no, stream, payload)
            stream.takebacks.append((kind, version, payload))
        elif kind == ACTIONS_REVERTED:
            if payload["to_version"] >= version:
                raise _fail(line_no, f"data.to_version: expected a version before {version}")
            stream.takebacks.append((kind, version, payload))
            stream.voided = voided_causes(stream.takebacks)
        elif name != "campaign":
            stream.causes.setdefault(item["cause"], []).append(version)
        if kept is not None:
            # Encoded before the replay: an evolver may keep a part of the data in the state it changes in place.
            kept.append(
                (
                    share(name, name),
                    version,
                    share(kind, kind),
                    item["schema_version"],
                    raw if kind in _READ_BY_THE_WRITE else json_text(payload),
                    game_time,
                    share(item["actor"], item["actor"]),
                    item["cause"],
                )
            )
        assert replayed is not None  # made with the ruleset, on the first line
        # The log's clock is its latest game time (`projections._fold_campaign`); a take-back moves it back.
        replayed.game_time = max(replayed.game_time, game_time)
        if name == "campaign":
            replayed.campaign_event(line_no, kind, version, payload)
        else:
            stream.lines.append((line_no, start))
            replayed.character_event(line_no, name, kind, item)
    if rules is None or replayed is None:
        raise ServiceError("file", "the file holds no events")
    return rules, replayed.folded(data, streams)


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
        # A fresh state per attributes under the options in force, copied for each character created with them, as
        # the rebuild's fold does (`started`): `start_state` checks every option table. Emptied when they change.
        self.started: dict[str, Callable[[], State]] = {}

    def campaign_event(self, line_no: int, kind: str, version: int, payload: dict[str, Any]) -> None:
        self.campaign_version = version
        if kind == CLOCK_ADVANCED:
            self.game_time = max(self.game_time, payload["to"])
        elif kind == CLOCK_REWOUND:
            self.game_time = payload["to"]
        elif kind == CAMPAIGN_CREATED:
            self.options = payload["options"]
            self.started.clear()
            self.campaign_name = payload["name"]
        elif kind == CAMPAIGN_CHANGED:
            self.options = changed_options(self.options, payload["changes"])
            self.started.clear()
            self.options_changed = True
            if "name" in payload["changes"]:
                self.campaign_name = payload["changes"]["name"]["new"]
        elif kind == CHARACTER_CREATED:
            stream = f"character:{payload['character']}"
            # From the attributes as the file holds them, as a rebuild of the log starts the character.
            key = json_text(payload["attributes"])
            fresh = self.started.get(key)
            if fresh is None:
                try:
                    fresh = self.started[key] = start_state(self.rules, payload["attributes"], self.options)
                except Exception as error:  # validated, but a rebuild must start from them too
                    raise _fail(
                        line_no,
                        f"data.attributes: the character cannot be replayed ({type(error).__name__}: {error})",
                    ) from None
            self.states[stream] = copy_state(fresh)
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
    characters: dict[int, dict[str, Any]],
    streams: dict[str, _Stream],
) -> None:
    kind, payload = item["type"], item["data"]
    if kind == CAMPAIGN_CREATED:
        if item["version"] != 1:
            raise ServiceError("type", "expected one CampaignCreated, the campaign's first event")
        return
    spec = CAMPAIGN_EVENTS.get(kind)
    if spec is None:
        expected = ", ".join(name for name in CAMPAIGN_EVENTS if name != CAMPAIGN_CREATED)
        raise ServiceError("type", f"expected one of {expected} on the campaign stream, got {given(kind)}")
    spec.check(payload, "data", LIMITS)
    if kind in MEMBERSHIP_EVENTS or kind in HOOK_EVENT_SCHEMAS:
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
    if payload["character"] in characters:
        raise ServiceError(
            "data.character", f"character {payload['character']} was created on an earlier line"
        )
    if not payload["name"].strip():
        raise ServiceError("data.name", "expected the character's name (a non-empty text)")
    readable("data.name", payload["name"].strip(), "a name")
    try:
        characters[payload["character"]] = rules.validate_attributes(payload["attributes"])
    except RuleError as error:
        raise ServiceError(f"data.{error.field}", error.message) from None
    streams[f"character:{payload['character']}"] = _Stream(game_time=item["game_time"])


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
        raise _fail(line_no, f"data.cause: expected the cause of an earlier event of the stream, got {cause}")
    if cause in stream.voided:
        raise _fail(line_no, f"data.cause: {cause} was already taken back by an earlier undo")
    if payload["versions"] != versions:
        raise _fail(
            line_no,
            f"data.versions: expected {versions} (the events of {cause}), got {payload['versions']}",
        )
    stream.voided.add(cause)
