"""Read models: the Character rows (state and status columns), the Timer index and the campaign clock.

`project_character` runs in the same transaction as the append that produced the state. `rebuild` recomputes every
read model from the events alone and must give identical rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from django.db import connection, transaction

from campaign import eventstore
from campaign.models import Campaign, Character, Event, Timer
from rules.ruleset import ACTION_UNDONE, Ruleset, State, apply, get_ruleset, replay, start_state
from rules.ruleset import Event as RuleEvent
from rules.ruleset import Timer as RuleTimer

CAMPAIGN_CREATED = "CampaignCreated"
CHARACTER_CREATED = "CharacterCreated"
CLOCK_ADVANCED = "ClockAdvanced"


def status_columns(ruleset: Ruleset, state: State) -> dict[str, Any]:
    status = ruleset.status_of(state)
    return {
        "alive": bool(status["alive"]),
        "conscious": bool(status["conscious"]),
        "dying": bool(status["dying"]),
        "death_at": status["death_at"],
    }


def project_character(character: Character, ruleset: Ruleset, state: State, version: int) -> None:
    """Store the new state and version on the read model and re-index its timers."""
    previous = character.state
    character.state = state
    character.version = version
    for name, value in status_columns(ruleset, state).items():
        setattr(character, name, value)
    _save_projection(character)
    index_timers(character, ruleset, state, previous=previous)


_PROJECTED = [
    Character._meta.get_field(name)
    for name in ("state", "version", "alive", "conscious", "dying", "death_at")
]
_STATE = _PROJECTED[0]


def _save_projection(character: Character) -> None:
    """One prepared UPDATE of the projected columns: `Model.save(update_fields=...)` costs several times the write."""
    columns = ", ".join(f'"{field.column}" = %s' for field in _PROJECTED)
    state = _STATE.get_db_prep_save(character.state, connection)
    values = [
        state,
        character.version,
        character.alive,
        character.conscious,
        character.dying,
        character.death_at,
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE {Character._meta.db_table} SET {columns} WHERE "id" = %s', [*values, character.pk]
        )
        if cursor.rowcount != 1:
            raise Character.DoesNotExist(f"no character {character.pk}")


def timer_rows(character: Character, ruleset: Ruleset, state: State) -> list[Timer]:
    return [
        Timer(
            campaign_id=character.campaign_id,
            character_id=character.pk,
            due=timer.due,
            priority=timer.priority,
            kind=timer.kind,
            key=timer.key,
            per_round=timer.per_round,
            data=timer.data,
        )
        for timer in ruleset.timers(state)
    ]


def index_timers(
    character: Character, ruleset: Ruleset, state: State, *, previous: State | None = None
) -> None:
    """Make the Timer rows of `character` those of `state`.

    `previous` is the state the read model held until now. The index is its projection, written in the same
    transaction, so the rows are known without reading them: only the timers that changed are deleted and
    inserted, and when none did, as for most actions, the database is not touched. Without `previous` the rows
    are read and compared.
    """
    if previous:
        _index_changed_timers(character, ruleset.timers(previous), ruleset.timers(state))
        return
    wanted = {
        (t.key, t.due, t.priority, t.kind, t.per_round): t for t in timer_rows(character, ruleset, state)
    }
    existing = {
        (t.key, t.due, t.priority, t.kind, t.per_round): t
        for t in Timer.objects.filter(character_id=character.pk)
    }
    # Most actions leave the timers as they were: touch only what changed.
    stale = [
        t.pk for key, t in existing.items() if key not in wanted or existing[key].data != wanted[key].data
    ]
    if stale:
        Timer.objects.filter(pk__in=stale).delete()
    fresh = [t for key, t in wanted.items() if key not in existing or t.data != existing[key].data]
    if fresh:
        Timer.objects.bulk_create(fresh)


def character_state_at(character: Character, rows: Iterable[Event]) -> State:
    """Replay `rows` (the stream's events in version order) honouring the undos among them."""
    rows = list(rows)
    ruleset = get_ruleset(character.campaign.ruleset)
    events = eventstore.live_events(rows, eventstore.voided_causes(rows))
    return replay(ruleset, character.attributes, character.campaign.options, events)


def _campaign_rows(campaign_id: int) -> Iterable[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT stream, character_id, version, type, schema_version, data, game_time, cause "
            "FROM campaign_event WHERE campaign_id = %s ORDER BY position",
            [campaign_id],
        )
        while batch := cursor.fetchmany(5000):
            yield from batch


def _decode(data: Any) -> Any:
    return json.loads(data) if isinstance(data, str | bytes) else data


@transaction.atomic
def rebuild_campaign(campaign: Campaign) -> int:
    """Recompute the campaign clock, every character's state and the timer index from events. Returns events read."""
    ruleset = get_ruleset(campaign.ruleset)
    characters = {c.pk: c for c in Character.objects.filter(campaign=campaign)}
    # Undos are rare: find every voided cause first, then fold the log in one streaming pass.
    voided = {
        _decode(data)["cause"]
        for (data,) in Event.objects.filter(campaign=campaign, type=ACTION_UNDONE).values_list("data")
    }
    states: dict[int, State] = {}
    versions: dict[int, int] = {}
    game_time, campaign_version, options = 0, 0, campaign.options
    count = 0
    for _stream, character_id, version, type_, schema_version, data, event_game_time, cause in _campaign_rows(
        campaign.pk
    ):
        count += 1
        if character_id is None:
            data = _decode(data)
            campaign_version = version
            if type_ == CLOCK_ADVANCED:
                game_time = max(game_time, data["to"])
            elif type_ == CAMPAIGN_CREATED:
                options = data["options"]
            elif type_ == CHARACTER_CREATED:
                states[data["character"]] = start_state(ruleset, data["attributes"], options)
                versions[data["character"]] = 0
            continue
        versions[character_id] = version
        if cause in voided or type_ == ACTION_UNDONE:
            continue
        event = RuleEvent(type_, _decode(data), event_game_time, schema_version)
        states[character_id] = apply(ruleset, states[character_id], event)
    Timer.objects.filter(campaign=campaign).delete()
    for character_id, state in states.items():
        character = characters[character_id]
        character.state = state
        character.version = versions[character_id]
        for name, value in status_columns(ruleset, state).items():
            setattr(character, name, value)
    # One prepared UPDATE per character (executemany): Django's bulk_update builds CASE WHEN expressions that cost
    # more than the writes themselves.
    state_field = Character._meta.get_field("state")
    with connection.cursor() as cursor:
        cursor.executemany(
            "UPDATE campaign_character SET state = %s, version = %s, alive = %s, conscious = %s, dying = %s, "
            "death_at = %s WHERE id = %s",
            [
                (
                    state_field.get_db_prep_save(c.state, connection),
                    c.version,
                    c.alive,
                    c.conscious,
                    c.dying,
                    c.death_at,
                    c.pk,
                )
                for c in characters.values()
            ],
        )
    Timer.objects.bulk_create(
        [row for c in characters.values() for row in timer_rows(c, ruleset, c.state)], batch_size=1000
    )
    Campaign.objects.filter(pk=campaign.pk).update(
        game_time=game_time, version=campaign_version, options=options
    )
    return count


def rebuild_all() -> int:
    return sum(rebuild_campaign(campaign) for campaign in Campaign.objects.order_by("pk"))


_TIMER_FIELDS = [field for field in Timer._meta.concrete_fields if not field.primary_key]
_TIMER_DATA = Timer._meta.get_field("data")


def _index_changed_timers(character: Character, before: list[RuleTimer], after: list[RuleTimer]) -> None:
    old = {timer.key: timer for timer in before}
    new = {timer.key: timer for timer in after}
    if old == new:
        return
    table = Timer._meta.db_table
    stale = [key for key, timer in old.items() if new.get(key) != timer]
    fresh = [timer for key, timer in new.items() if old.get(key) != timer]
    with connection.cursor() as cursor:
        if stale:
            keys = ", ".join(["%s"] * len(stale))
            cursor.execute(
                f'DELETE FROM {table} WHERE "character_id" = %s AND "key" IN ({keys})', [character.pk, *stale]
            )
        if fresh:
            columns = ", ".join(f'"{field.column}"' for field in _TIMER_FIELDS)
            values = ", ".join(["(" + ", ".join(["%s"] * len(_TIMER_FIELDS)) + ")"] * len(fresh))
            params: list[Any] = []
            for timer in fresh:
                row = {
                    "campaign_id": character.campaign_id,
                    "character_id": character.pk,
                    "due": timer.due,
                    "priority": timer.priority,
                    "kind": timer.kind,
                    "key": timer.key,
                    "per_round": timer.per_round,
                    "data": _TIMER_DATA.get_db_prep_save(timer.data, connection),
                }
                params.extend(row[field.attname] for field in _TIMER_FIELDS)
            cursor.execute(f"INSERT INTO {table} ({columns}) VALUES {values}", params)
