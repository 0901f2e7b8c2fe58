"""Read models: the Character rows (state and status columns), the Timer index and the campaign clock.

`project_character` runs in the same transaction as the append that produced the state. `rebuild` recomputes every
read model from the events alone and must give identical rows.
"""

from __future__ import annotations

import gc
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction
from django.db.models import F

from campaign.ledger import eventstore, fast, running
from campaign.ledger.events import (
    CAMPAIGN_CHANGED,
    CAMPAIGN_CREATED,
    CHARACTER_CREATED,
    CLOCK_ADVANCED,
    CLOCK_REWOUND,
)
from campaign.ledger.secrecy import stream_entries
from campaign.models import Campaign, Character, Event, Timer
from rules.ruleset import (
    CHARACTER_CHANGED,
    CHARACTER_RESTORED,
    CHARACTER_RETIRED,
    INERT_EVENTS,
    TAKING_BACK,
    Ruleset,
    State,
    copy_state,
    replay,
    set_options,
    shown_by,
    start_state,
)
from rules.ruleset import Event as RuleEvent
from rules.ruleset import Timer as RuleTimer


def status_columns(ruleset: Ruleset, state: State) -> dict[str, Any]:
    status = ruleset.status(state)
    return {
        "alive": bool(status["alive"]),
        "conscious": bool(status["conscious"]),
        "dying": bool(status["dying"]),
        "death_at": status["death_at"],
    }


def project_character(
    character: Character,
    ruleset: Ruleset,
    state: State,
    version: int,
    *,
    previous_timers: list[RuleTimer] | None = None,
    wrapper: Any = None,
    seen: int = 0,
) -> list[RuleTimer]:
    """Store the new state and version on the read model and re-index its timers, which it returns.

    `previous_timers` are the timers of the state the read model held, for a caller that changed that state in
    place; without them they are taken from `character.state`. `wrapper` is the command's database connection,
    if the caller has it at hand. `seen`: how many of the new events a player's history shows (`secrecy`).
    """
    wrapper = wrapper or transaction.get_connection()
    if previous_timers is None:
        previous_timers = ruleset.timers(character.state) if character.state else []
    writes, timers = projection_writes(character, ruleset, state, version, previous_timers, wrapper, seen)
    eventstore.run_writes(writes, wrapper)
    keep_clock_due(character.campaign, wrapper, previous_timers, timers)
    return timers


def keep_clock_due(
    campaign: Campaign,
    wrapper: Any = None,
    before: list[RuleTimer] | None = None,
    after: list[RuleTimer] | None = None,
) -> None:
    """Keep a running clock's `clock_due_at` with the timer rows just written (`running.due_write`), unless a
    character's timers went from `before` to the same `after`. After the rows, as a statement of its own: on
    PostgreSQL the projection's writes ride in the append's statement, whose WITH queries all read one snapshot.
    Nothing for a clock the GM advances, whose column stays null."""
    if running.runs(campaign) and (before is None or before != after):
        sql, params = running.due_write(campaign)
        write = eventstore.Write(sql, params, one_row_of=Campaign)
        eventstore.run_writes([write], wrapper or transaction.get_connection())


def projection_writes(
    character: Character,
    ruleset: Ruleset,
    state: State,
    version: int,
    previous_timers: list[RuleTimer] | None,
    wrapper: Any,
    seen: int = 0,
) -> tuple[list[eventstore.Write], list[RuleTimer]]:
    """What `project_character` writes, for a command that sends it with its append (`eventstore.append`'s
    `alongside`): the character row's UPDATE and the timer rows that changed. Sets the new state, version (and
    player version, `seen` more) and status columns on `character`. Returns the writes and the new timers."""
    if previous_timers is None:
        # A character being created has no state yet, and no timer rows.
        previous_timers = ruleset.timers(character.state) if character.state else []
    character.state = state
    character.version = version
    character.player_version += seen
    for name, value in status_columns(ruleset, state).items():
        setattr(character, name, value)
    timers = ruleset.timers(state)
    if fast.plain("command_write"):
        return [
            _plain_projection_update(character),
            *_plain_timer_writes(character, previous_timers, timers),
        ], timers
    return [
        _projection_update(character, wrapper),
        *_timer_writes(character, previous_timers, timers, wrapper),
    ], timers


_PROJECTED = [
    Character._meta.get_field(name)
    for name in ("state", "version", "player_version", "alive", "conscious", "dying", "death_at")
]
_PROJECTION_UPDATE = 'UPDATE {} SET {} WHERE "id" = %s'.format(
    Character._meta.db_table, ", ".join(f'"{field.column}" = %s' for field in _PROJECTED)
)
_IDENTITY_UPDATE = f'UPDATE {Character._meta.db_table} SET "name" = %s, "retired" = %s WHERE "id" = %s'
_TIMER_FIELDS = [field for field in Timer._meta.concrete_fields if not field.primary_key]
_TIMER_INSERT_INTO = "INSERT INTO {} ({})".format(
    Timer._meta.db_table, ", ".join(f'"{field.column}"' for field in _TIMER_FIELDS)
)
_TIMER_INSERT = f"{_TIMER_INSERT_INTO} VALUES {eventstore.values_placeholders(len(_TIMER_FIELDS), 1)}"
# A changed timer keeps its row (one_timer_per_key): the new values replace the old in place, so one statement
# can write it beside the deletes of the timers that are gone, whatever order the two run in.
_TIMER_REPLACE = " ON CONFLICT ({}) DO UPDATE SET {}".format(
    ", ".join(f'"{Timer._meta.get_field(name).column}"' for name in ("character", "key")),
    ", ".join(
        f'"{field.column}" = excluded."{field.column}"'
        for field in _TIMER_FIELDS
        if field.name not in ("character", "key")
    ),
)


def _timer_row(campaign_id: int, character_id: int, timer: RuleTimer, wrapper: Any) -> tuple:
    """One Timer index row, in the column order of `_TIMER_INSERT`."""
    row = {
        "campaign_id": campaign_id,
        "character_id": character_id,
        "due": timer.due,
        "priority": timer.priority,
        "kind": timer.kind,
        "key": timer.key,
        "per_round": timer.per_round,
        "data": eventstore.json_param(timer.data, wrapper),
    }
    return tuple(row[field.attname] for field in _TIMER_FIELDS)


def _projection_update(character: Character, wrapper: Any) -> eventstore.Write:
    """One prepared UPDATE of the projected columns: `Model.save(update_fields=...)` costs several times the write."""
    values = [
        eventstore.json_param(character.state, wrapper),
        character.version,
        character.player_version,
        character.alive,
        character.conscious,
        character.dying,
        character.death_at,
        character.pk,
    ]
    return eventstore.Write(_PROJECTION_UPDATE, values, one_row_of=Character)


def state_at_version(character: Character, version: int) -> State:
    """The character as it was right after its event `version` (time travel)."""
    return character_state_at(character, eventstore.stream_events(character.stream, up_to_version=version))


def _plain_projection_update(character: Character) -> fast.PlainWrite:
    """`_projection_update` through the ORM: `QuerySet.update` of the projected columns."""
    values = {field.attname: getattr(character, field.attname) for field in _PROJECTED}
    return fast.PlainWrite(
        lambda: Character.objects.filter(pk=character.pk).update(**values), one_row_of=Character
    )


def _timer(campaign_id: int, character_id: int, timer: RuleTimer) -> Timer:
    return Timer(
        campaign_id=campaign_id,
        character_id=character_id,
        due=timer.due,
        priority=timer.priority,
        kind=timer.kind,
        key=timer.key,
        per_round=timer.per_round,
        data=timer.data,
    )


def _plain_timer_writes(
    character: Character, before: list[RuleTimer], after: list[RuleTimer]
) -> list[fast.PlainWrite]:
    """`_timer_writes` through the ORM: a `delete` of the rows that are gone, a `bulk_create` that replaces the
    changed ones in place (`update_conflicts`) and adds the new."""
    stale, fresh = timer_changes(before, after)
    writes = []
    gone = sorted(set(stale) - {timer.key for timer in fresh})
    if gone:
        rows = Timer.objects.filter(character_id=character.pk, key__in=gone)
        writes.append(fast.PlainWrite(lambda: rows.delete()[0]))
    if fresh:
        made = [_timer(character.campaign_id, character.pk, timer) for timer in fresh]
        writes.append(
            fast.PlainWrite(
                lambda: len(
                    Timer.objects.bulk_create(
                        made,
                        update_conflicts=True,
                        unique_fields=["character", "key"],
                        update_fields=[f.name for f in _TIMER_FIELDS if f.name not in ("character", "key")],
                    )
                )
            )
        )
    return writes


def character_state_at(character: Character, rows: Iterable[Event]) -> State:
    """Replay `rows` (the stream's events in version order) honouring the undos among them."""
    rows = list(rows)
    ruleset = character.campaign.rules
    events = eventstore.live_events(rows, eventstore.voided_causes(rows))
    return replay(ruleset, character.attributes, character.campaign.options, events)


def _decode(data: Any) -> Any:
    return json.loads(data) if isinstance(data, str | bytes) else data


@dataclass
class Identity:
    """What a rebuild gives back besides the states: names and retirement, which are no ruleset's state but are
    kept by the log (CampaignChanged, CharacterChanged, CharacterRetired and CharacterRestored)."""

    campaign_name: str
    names: dict[int, str] = field(default_factory=dict)
    retired: dict[int, bool] = field(default_factory=dict)

    def renamed(self, character_id: int, changes: Any) -> None:
        if "name" in changes:
            self.names[character_id] = changes["name"]["new"]


def changed_options(options: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The options after a CampaignChanged: its `options.<name>` changes applied."""
    new = dict(options)
    for key, change in changes.items():
        if key.startswith("options."):
            new[key.removeprefix("options.")] = change["new"]
    return new


@dataclass
class Folded:
    """A campaign's log folded: what its read models hold (`write_read_models`), by character id."""

    states: dict[int, State]
    versions: dict[int, int]
    seen: dict[int, int]  # the events a player's history shows (`secrecy`): the player version
    game_time: int
    campaign_version: int
    options: dict[str, Any]
    identity: Identity


def _fold_campaign(campaign: Campaign, ruleset: Ruleset) -> tuple[int, Folded]:
    """One streaming pass over the campaign's log: every character's state, version and player version (the
    events a player's history shows, `secrecy`), and the clock; names and retirement into `identity`.

    Each character's state is a fresh `start_state`, owned here, so its events are folded in place
    (`evolve_into`): no copy per event. Notes and undos change no state: they are counted, not decoded.
    A character with an undo in its stream (rare) is replayed afterwards from its own stream, without the causes
    its undos took back, as the action path does (`character_state_at`): an undo voids its cause in its own stream
    only, even where a clock firing gave another character's events the same cause.
    """
    evolve_into = ruleset.evolve_into
    shows = shown_by(ruleset)
    loads = json.loads
    encoded = (str, bytes)
    states: dict[int, State] = {}
    versions: dict[int, int] = {}
    seen: dict[int, int] = {}
    created: dict[int, tuple[Any, Any]] = {}
    undone: set[int] = set()
    game_time, campaign_version, options = 0, 0, campaign.options
    identity = Identity(campaign.name)
    options_changed = False
    count = 0
    # A fresh state per attributes under the options in force, copied for each character created with them:
    # `start_state` checks every option table (Shadowrun's: about 33 us a character, a copy 5 us). Emptied when
    # the options change.
    started: dict[str, Callable[[], State]] = {}
    with _log_of(campaign) as batches:
        for batch in batches:
            count += len(batch)
            for character_id, version, type_, schema_version, data, event_game_time in batch:
                # The log's clock is its latest game time: a running clock's action is dated at its reading,
                # with no ClockAdvanced before it (campaign.ledger.running). Only a take-back moves it back.
                if event_game_time > game_time:
                    game_time = event_game_time
                if character_id is None:
                    data = _decode(data)
                    campaign_version = version
                    if type_ == CLOCK_ADVANCED:
                        game_time = max(game_time, data["to"])
                    elif type_ == CLOCK_REWOUND:
                        game_time = data["to"]
                    elif type_ == CAMPAIGN_CREATED:
                        options = data["options"]
                        started.clear()
                        identity.campaign_name = data["name"]
                    elif type_ == CAMPAIGN_CHANGED:
                        options = changed_options(options, data["changes"])
                        started.clear()
                        options_changed = True
                        if "name" in data["changes"]:
                            identity.campaign_name = data["changes"]["name"]["new"]
                    elif type_ == CHARACTER_CREATED:
                        character_id = data["character"]
                        key = eventstore.json_text(data["attributes"])
                        if key not in started:
                            started[key] = start_state(ruleset, data["attributes"], options)
                        states[character_id] = copy_state(started[key])
                        versions[character_id] = 0
                        seen[character_id] = 0
                        created[character_id] = (data["attributes"], options, data["name"])
                        identity.names[character_id] = data["name"]
                        identity.retired[character_id] = False
                    continue
                versions[character_id] = version
                if type_ in INERT_EVENTS:
                    if type_ in TAKING_BACK:
                        undone.add(character_id)
                    elif type_ in (CHARACTER_RETIRED, CHARACTER_RESTORED):
                        identity.retired[character_id] = type_ == CHARACTER_RETIRED
                    continue
                if undone and character_id in undone:
                    continue  # replayed below
                if isinstance(data, encoded):
                    data = loads(data)
                event = RuleEvent(type_, data, event_game_time, schema_version)
                evolve_into(states[character_id], event)
                seen[character_id] += shows(event)
                if type_ == CHARACTER_CHANGED:
                    identity.renamed(character_id, data["changes"])
    for character_id in undone:
        rows = eventstore.stream_events(f"character:{character_id}")
        attributes, created_options, name = created[character_id]
        live = eventstore.live_events(rows, eventstore.voided_causes(rows))
        states[character_id] = replay(ruleset, attributes, created_options, live)
        seen[character_id] = stream_entries(ruleset, rows)
        # A rename taken back is no rename (`services.take_back_identity`).
        identity.names[character_id] = name
        for event in live:
            if event.type == CHARACTER_CHANGED:
                identity.renamed(character_id, event.data["changes"])
    if options_changed:
        # The options in force now, as the command path gives every character when they change (no evolver
        # reads them, so a state folded under older options differs in nothing else).
        for state in states.values():
            set_options(ruleset, state, options)
    return count, Folded(states, versions, seen, game_time, campaign_version, options, identity)


_LOG_COLUMNS = ("character_id", "version", "type", "schema_version", "data", "game_time")


@contextmanager
def _log_of(campaign: Campaign) -> Iterator[Iterator[list[tuple]]]:
    """The campaign's events, in batches of rows of `_LOG_COLUMNS` in log order: on a raw cursor, each `data` as the
    driver gives it (JSON text on SQLite: the fold decodes only the events that change a state); or, the
    `rebuild_read` trick switched off, through the ORM's `values_list`, every `data` decoded."""
    if fast.plain("rebuild_read"):
        rows = (
            Event.objects.filter(campaign=campaign)
            .order_by("position")
            .values_list(*_LOG_COLUMNS)
            .iterator(chunk_size=5000)
        )
        yield iter(lambda: list(itertools.islice(rows, 5000)), [])
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(_LOG_COLUMNS)} FROM campaign_event WHERE campaign_id = %s ORDER BY position",
            [campaign.pk],
        )
        yield iter(lambda: cursor.fetchmany(5000), [])


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block, then put it back as it was.

    A rebuild keeps every character's state alive as it grows, then builds a row per character and timer, so the
    collector walks those states again and again (about 5% of a rebuild of 1,000,000 events), while the rebuild's
    own objects (decoded events, states, rows) hold no reference cycles: what it drops is freed by reference
    counting as before.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@transaction.atomic
def rebuild_campaign(campaign: Campaign) -> int:
    """Recompute the campaign clock, every character's state and the timer index from events. Returns events read."""
    with cyclic_gc_paused():
        return _rebuild_campaign(campaign)


def _rebuild_campaign(campaign: Campaign) -> int:
    ruleset = campaign.rules
    count, folded = _fold_campaign(campaign, ruleset)
    write_read_models(campaign, ruleset, folded)
    return count


def write_read_models(campaign: Campaign, ruleset: Ruleset, folded: Folded) -> None:
    """Write what a fold of the whole log gives: every character's row, the timer index, names and retirement,
    and the campaign's clock, version and options. The rebuild's and the import's last step."""
    states, versions, seen, identity = folded.states, folded.versions, folded.seen, folded.identity
    ids = list(Character.objects.filter(campaign=campaign).values_list("pk", flat=True))
    unknown = states.keys() - set(ids)
    if unknown:
        raise KeyError(f"events create characters that are not in the campaign: {sorted(unknown)}")
    # A character without a creation event (none should exist) keeps its stored state, as it always did.
    kept = (
        {c.pk: c for c in Character.objects.filter(pk__in=[pk for pk in ids if pk not in states])}
        if len(states) < len(ids)
        else {}
    )
    wrapper = transaction.get_connection()
    rows: list[tuple] = []  # in the order of `_PROJECTED`, the id last
    timers: list[tuple[int, RuleTimer]] = []
    for pk in ids:
        if pk in states:
            state, version, player_version = states[pk], versions[pk], seen[pk]
            status = ruleset.status(state)
            alive, conscious, dying = bool(status["alive"]), bool(status["conscious"]), bool(status["dying"])
            death_at = status["death_at"]
        else:
            character = kept[pk]
            state, version, player_version = character.state, character.version, character.player_version
            alive, conscious, dying, death_at = (
                character.alive,
                character.conscious,
                character.dying,
                character.death_at,
            )
        rows.append((state, version, player_version, alive, conscious, dying, death_at, pk))
        if not identity.retired.get(pk, False):
            timers.extend((pk, timer) for timer in ruleset.timers(state))
    Timer.objects.filter(campaign=campaign).delete()
    named = [(identity.names[pk], identity.retired[pk], pk) for pk in ids if pk in identity.names]
    if fast.plain("read_model_writes"):
        Character.objects.bulk_update(
            [
                Character(**dict(zip([f.attname for f in _PROJECTED] + ["pk"], row, strict=True)))
                for row in rows
            ],
            [field.name for field in _PROJECTED],
        )
        Timer.objects.bulk_create([_timer(campaign.pk, pk, timer) for pk, timer in timers])
        Character.objects.bulk_update(
            [Character(pk=pk, name=name, retired=retired) for name, retired, pk in named], ["name", "retired"]
        )
    else:
        # Prepared statements through executemany: Django's bulk_update builds CASE WHEN expressions, and building
        # a model instance per row costs more than the writes themselves.
        with connection.cursor() as cursor:
            cursor.executemany(
                _PROJECTION_UPDATE, [(eventstore.json_param(row[0], wrapper), *row[1:]) for row in rows]
            )
            cursor.executemany(
                _TIMER_INSERT, [_timer_row(campaign.pk, pk, timer, wrapper) for pk, timer in timers]
            )
            cursor.executemany(_IDENTITY_UPDATE, named)
    campaign.game_time, campaign.options = folded.game_time, folded.options
    # The anchor is no event's: a rebuild keeps a running clock's, an import (whose clock stood still until now)
    # starts it where the log's clock stands.
    clock = {} if running.runs(campaign) else running.anchor(campaign, folded.game_time)
    Campaign.objects.filter(pk=campaign.pk).update(
        name=identity.campaign_name,
        game_time=folded.game_time,
        version=folded.campaign_version,
        options=folded.options,
        projection_epoch=F("projection_epoch") + 1,
        **clock,
    )
    keep_clock_due(campaign)


def rebuild_all() -> int:
    return sum(rebuild_campaign(campaign) for campaign in Campaign.objects.order_by("pk"))


def timer_changes(before: list[RuleTimer], after: list[RuleTimer]) -> tuple[list[str], list[RuleTimer]]:
    """What re-indexing from `before` to `after` changes: the keys of the rows that are gone or changed, and the
    rows that are new or changed."""
    old = {timer.key: timer for timer in before}
    new = {timer.key: timer for timer in after}
    stale = [key for key, timer in old.items() if new.get(key) != timer]
    return stale, [timer for key, timer in new.items() if old.get(key) != timer]


def _timer_writes(
    character: Character, before: list[RuleTimer], after: list[RuleTimer], wrapper: Any
) -> list[eventstore.Write]:
    """The writes that make the character's Timer rows those of `after`, knowing they are those of `before`.

    The index is the projection of the state the read model held, written in the same transaction, so its rows
    are known without reading them: only the timers that changed are written, and when none did, as for most
    actions, nothing is.
    """
    stale, fresh = timer_changes(before, after)
    writes = []
    table = Timer._meta.db_table
    gone = sorted(set(stale) - {timer.key for timer in fresh})
    if gone:
        keys = ", ".join(["%s"] * len(gone))
        writes.append(
            eventstore.Write(
                f'DELETE FROM {table} WHERE "character_id" = %s AND "key" IN ({keys})', [character.pk, *gone]
            )
        )
    if fresh:
        values = eventstore.values_placeholders(len(_TIMER_FIELDS), len(fresh))
        writes.append(
            eventstore.Write(
                f"{_TIMER_INSERT_INTO} VALUES {values}{_TIMER_REPLACE}",
                [v for t in fresh for v in _timer_row(character.campaign_id, character.pk, t, wrapper)],
            )
        )
    return writes


def states_named(campaign_id: int, name: str, wrapper: Any = None) -> dict[int, Any]:
    """The state of each character of the campaign, not retired, named `name`, by id: who a medic's name is (the
    services' `_medics_can_act`). Asked of every action naming a medic, mostly of nobody (a street doc nobody made a
    character of), so on the command's cursor: the ORM's queryset cost a sixth of an action on SQLite."""
    with eventstore.command_cursor(wrapper) as cursor:
        cursor.execute(_STATES_NAMED, [campaign_id, name, False])
        return {
            row[0]: eventstore.json_value(row[1]) if isinstance(row[1], str | bytes) else row[1]
            for row in cursor.fetchall()
        }


_STATES_NAMED = (
    f"SELECT id, state FROM {Character._meta.db_table} WHERE campaign_id = %s AND name = %s AND retired = %s"
)
