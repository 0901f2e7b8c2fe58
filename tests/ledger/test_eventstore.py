"""The event store's guarantees, on whichever database DATABASE_URL names (CI runs this file on PostgreSQL and SQLite)."""

from __future__ import annotations

import contextlib
import gc
import json
import tempfile
import threading
import time
from typing import Any

import pytest
from django.db import DatabaseError, IntegrityError, connection, connections, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from campaign import services
from campaign.ledger import eventstore, fast
from campaign.ledger.projections import character_state_at, project_character, rebuild_all, timer_changes
from campaign.models import Campaign, Character, Event, Job, Timer
from campaign.transfer import export_text, import_file
from perf.harness.mixes import MIXES
from rules.dice import Dice
from rules.registry import get_ruleset
from rules.ruleset import fold
from tests.conftest import ServerDice, Table, make_persona, make_table, seeded_dice, tricks_on

pytestmark = pytest.mark.django_db


def _one_event(table: Table) -> Event:
    response = table.act({"type": "note", "text": "first"})
    assert response.status_code == 201
    return Event.objects.get(stream=f"character:{table.character['id']}", version=1)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE campaign_event SET type = 'Forged' WHERE position = %s",
        "UPDATE campaign_event SET data = '{}' WHERE position = %s",
        "DELETE FROM campaign_event WHERE position = %s",
    ],
)
def test_raw_sql_cannot_change_or_remove_an_event(sr2: Table, statement: str) -> None:
    event = _one_event(sr2)
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement, [event.position])
    event.refresh_from_db()
    assert event.type == "NoteAdded"
    assert event.data == {"text": "first"}


@pytest.mark.parametrize(
    "statement",
    [
        "TRUNCATE campaign_event",
        "TRUNCATE TABLE campaign_event RESTART IDENTITY CASCADE",
        # The log references its campaigns and characters: emptying them with CASCADE empties the log too.
        "TRUNCATE campaign_campaign CASCADE",
        "TRUNCATE campaign_character CASCADE",
    ],
)
def test_truncate_cannot_empty_the_event_log_on_postgresql(sr2: Table, statement: str) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no TRUNCATE, and its DELETE trigger refuses a DELETE of every row")
    _one_event(sr2)
    before = list(Event.objects.order_by("position").values_list("position", "type", "data"))
    with connection.cursor() as cursor:
        # The test's own transaction wrote rows whose foreign keys are checked at commit; PostgreSQL would
        # refuse a TRUNCATE while those checks wait ("pending trigger events"), before any trigger is asked.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with (
        pytest.raises(DatabaseError, match="campaign_event is append-only: TRUNCATE refused"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement)
    assert list(Event.objects.order_by("position").values_list("position", "type", "data")) == before
    assert Campaign.objects.filter(pk=sr2.campaign["id"]).exists()


def test_the_orm_cannot_delete_an_event_either(sr2: Table) -> None:
    event = _one_event(sr2)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        Event.objects.filter(pk=event.pk).delete()
    assert Event.objects.filter(pk=event.pk).exists()


@pytest.mark.parametrize("watched", [False, True], ids=["driver cursor", "django cursor"])
def test_two_events_cannot_share_a_stream_version(sr2: Table, watched: bool) -> None:
    """Commands run their statements on the driver's cursor unless something watches Django's (fault injection,
    query capture); either way a duplicate version is Django's IntegrityError, turned into VersionConflict."""
    from rules.ruleset import Event as RuleEvent

    _one_event(sr2)
    campaign = Campaign.objects.get(pk=sr2.campaign["id"])
    character = Character.objects.get(pk=sr2.character["id"])
    seen: list[str] = []

    def watch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append(sql)
        return execute(sql, params, many, context)

    with contextlib.ExitStack() as stack:
        if watched:
            stack.enter_context(connection.execute_wrapper(watch))
        with pytest.raises(eventstore.VersionConflict), transaction.atomic():
            eventstore.append(
                campaign=campaign,
                stream=character.stream,
                character=character,
                expected_version=0,
                events=[RuleEvent("NoteAdded", {"text": "late"}, 0)],
                cause="test",
            )
    inserts = ("INSERT INTO campaign_event", 'INSERT INTO "campaign_event"')  # by hand, or the ORM's
    assert any(sql.startswith(inserts) for sql in seen) == watched
    assert Event.objects.filter(stream=character.stream).count() == 1


def _in_thread(work: Any) -> Any:
    def run(*args: Any) -> None:
        try:
            work(*args)
        finally:
            connections.close_all()

    return run


@pytest.mark.django_db(transaction=True)
def test_sixteen_writers_leave_contiguous_versions_and_a_projection_equal_to_a_replay(
    django_user_model: Any,
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    character_id = table.character["id"]
    errors: list[BaseException] = []

    @_in_thread
    def writer(number: int) -> None:
        for index in range(50):
            try:
                services.character_act(
                    character_id=character_id,
                    body={"type": "note", "text": f"writer {number} note {index}"},
                    actor="gm",
                )
            except BaseException as error:  # collected and asserted below
                errors.append(error)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    character = Character.objects.select_related("campaign").get(pk=character_id)
    rows = list(Event.objects.filter(stream=character.stream).order_by("version"))
    assert [row.version for row in rows] == list(range(1, 801))
    assert character.version == 800
    assert sum(1 for row in rows if row.type == "NoteAdded") == 800
    assert character_state_at(character, rows) == character.state


def test_the_same_idempotency_key_twenty_times_appends_once_and_answers_the_same(sr2: Table) -> None:
    body = {"type": "wound", "severity": "M", "rolls": {"body_check": [6, 6, 6, 6, 6]}}
    answers = [sr2.act(body, HTTP_IDEMPOTENCY_KEY="wound-1") for _ in range(20)]
    assert {a.status_code for a in answers} == {201}
    first = answers[0].json()
    for answer in answers[1:]:
        data = answer.json()
        assert data["events"] == first["events"]
        assert data["character"] == first["character"]
    assert Event.objects.filter(stream=f"character:{sr2.character['id']}").count() == 1


def test_an_idempotency_key_reused_for_another_request_is_refused(sr2: Table) -> None:
    assert sr2.act({"type": "note", "text": "a"}, HTTP_IDEMPOTENCY_KEY="k").status_code == 201
    response = sr2.act({"type": "note", "text": "b"}, HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 409
    assert response.json() == {"Idempotency-Key": [services.KEY_REUSED]}
    assert Event.objects.filter(stream=f"character:{sr2.character['id']}").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_storm_of_concurrent_requests_with_one_key_appends_once(django_user_model: Any) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    character_id = table.character["id"]
    results: list[Any] = []
    body = {"type": "note", "text": "only once"}

    @_in_thread
    def send() -> None:
        results.append(
            services.character_act(character_id=character_id, body=body, actor="gm", idempotency_key="storm")
        )

    threads = [threading.Thread(target=send) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 12
    assert sum(1 for r in results if not r.replayed) == 1
    assert {r.events[0].position for r in results} == {results[0].events[0].position}
    assert Event.objects.filter(stream=f"character:{character_id}").count() == 1


def _read_models() -> dict[str, Any]:
    return {
        "characters": list(
            Character.objects.order_by("pk").values(
                "pk", "name", "attributes", "state", "version", "alive", "conscious", "dying", "death_at"
            )
        ),
        "timers": sorted(
            Timer.objects.values_list("character_id", "key", "due", "priority", "kind", "per_round", "data"),
            key=lambda row: (row[0], row[1]),
        ),
        "campaigns": list(Campaign.objects.order_by("pk").values("pk", "game_time", "version", "options")),
    }


def _busy_history(django_user_model: Any) -> list[Table]:
    sr2 = make_table(django_user_model, "shadowrun2", {"body": 4})
    sr2.act(
        {
            "type": "wound",
            "severity": "S",
            "rolls": {"body_check": [1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [4]},
        }
    )
    sr2.act(
        {
            "type": "wound",
            "severity": "M",
            "rolls": {"body_check": [1, 1, 6, 6], "location": [1, 1], "critical": [3]},
        }
    )
    sr2.act({"type": "note", "text": "will be undone"})
    sr2.act({"type": "undo"})
    sr2.act({"type": "wound", "severity": "L", "damage": "stun"})
    assert sr2.advance(minutes=5).status_code == 202
    return [sr2]


def test_rebuild_gives_identical_rows(django_user_model: Any) -> None:
    _busy_history(django_user_model)
    before = _read_models()
    assert before["timers"], "the history must leave timers to rebuild"
    rebuild_all()
    assert _read_models() == before


def test_rebuild_repairs_a_damaged_read_model(django_user_model: Any) -> None:
    _busy_history(django_user_model)
    before = _read_models()
    Character.objects.update(state={}, version=0, alive=False)
    Timer.objects.all().delete()
    rebuild_all()
    assert _read_models() == before


@pytest.mark.parametrize(
    ("ruleset", "attributes", "actions"),
    [
        (
            "cyberpunk2020",
            {"body": 4, "luck": 1},
            [
                {"type": "damage", "damage": 14, "location": "left_arm"},
                {"type": "note", "text": "knifed"},
                {"type": "damage", "damage": 9, "kind": "stun"},
                {"type": "undo"},
                {"type": "damage", "damage": 25, "location": "torso"},
                {"type": "treat", "skill": "first_aid", "total": 15},
            ],
        ),
        (
            "darkfuture",
            {"con": 9, "skills": {"driver": 3}},
            [
                {"type": "damage", "weapon_damage": 3},
                {"type": "note", "text": "clipped"},
                {"type": "damage", "weapon_damage": 2},
                {"type": "undo"},
                {"type": "recover"},
            ],
        ),
    ],
)
def test_rebuild_of_every_ruleset_repairs_the_read_model(
    django_user_model: Any, ruleset: str, attributes: dict[str, Any], actions: list[dict[str, Any]]
) -> None:
    """The in-place fold of a rebuild gives the rows the action path wrote (state, status columns, timers)."""
    table = make_table(django_user_model, ruleset, attributes)
    for action in actions:
        table.act(action)
    assert table.advance(minutes=5).status_code == 202
    before = _read_models()
    assert max(c["version"] for c in before["characters"]) >= 4
    Character.objects.update(state={}, version=0, alive=False, conscious=False, dying=True, death_at=1)
    Timer.objects.all().delete()
    rebuild_all()
    assert _read_models() == before


def test_a_rebuild_starts_characters_of_the_same_attributes_apart_and_under_their_own_options(
    django_user_model: Any,
) -> None:
    """The fold starts each character from one fresh state per attributes and options (`_fold_campaign`'s
    `started`): the copies share nothing, and a change of options starts the next ones afresh."""
    table = make_table(django_user_model, "shadowrun2", {"body": 4})
    url = f"/api/campaigns/{table.campaign['id']}/"

    twins = iter(range(1, 10))

    def character() -> int:
        # Twins of one Body, each its own name: a campaign's characters never share a name.
        response = table.gm.post(
            f"{url}characters/", {"name": f"Twin {next(twins)}", "attributes": {"body": 4}}
        )
        assert response.status_code == 201, response.content
        return response.json()["id"]

    twin = character()
    changed = table.gm.client.patch(url, {"options": {"stun_healing": {"tn": 3}}}, format="json")
    assert changed.status_code == 200, changed.content
    later = character()
    table.act({"type": "wound", "severity": "M", "rolls": {"body_check": [1, 1, 6, 6], "location": [1, 1]}})
    before = _read_models()
    Character.objects.update(state={}, version=0, alive=False)
    rebuild_all()
    assert _read_models() == before
    states = {pk: state for pk, state in Character.objects.values_list("pk", "state")}
    assert states[table.character["id"]]["physical"] > 0 and states[twin]["physical"] == 0
    assert states[later]["options"]["stun_healing"] == {"tn": 3, "base_minutes": 60}


def _two_stunned(django_user_model: Any) -> tuple[Table, list[int]]:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 8, "luck": 0})
    other = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/", {"name": "Bo", "attributes": {"body": 8}}
    ).json()
    ids = [table.character["id"], other["id"]]
    for character_id in ids:
        response = table.gm.post(
            f"/api/characters/{character_id}/actions/",
            {"type": "damage", "damage": 3, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}},
        )
        assert response.status_code == 201, response.content
    return table, ids


def test_two_characters_timers_firing_at_the_same_second_have_causes_of_their_own(
    django_user_model: Any,
) -> None:
    table, ids = _two_stunned(django_user_model)
    assert table.advance(hours=1).status_code == 202
    causes = [Event.objects.filter(character_id=i).order_by("version").last().cause for i in ids]
    assert all(cause.startswith("timer:") for cause in causes) and causes[0] != causes[1]
    untouched = table.gm.get(f"/api/characters/{ids[1]}/").json()
    assert table.act({"type": "undo"}).status_code == 201
    assert table.gm.get(f"/api/characters/{ids[1]}/").json() == untouched


def test_an_undo_voids_its_cause_in_its_own_stream_only(django_user_model: Any) -> None:
    """Firings recorded before causes named the character could share one across characters: undoing one
    character's leaves the other's events live, in the action path and in a rebuild alike."""
    table, ids = _two_stunned(django_user_model)
    rules = get_ruleset("cyberpunk2020")
    with transaction.atomic():
        for character_id in ids:
            character = eventstore.lock_for_character(character_id).character
            events = rules.decide(
                character.state, {"type": "damage", "damage": 2, "kind": "stun"}, Dice({"stun_save": [1]}), 0
            )
            rows = eventstore.append(
                campaign=character.campaign,
                stream=character.stream,
                character=character,
                expected_version=character.version,
                events=events,
                cause="timer:legacy:stun_heal:3600",
                actor="clock",
            )
            project_character(character, rules, fold(rules, character.state, events), rows[-1].version)
    untouched = table.gm.get(f"/api/characters/{ids[1]}/").json()
    assert table.act({"type": "undo"}).status_code == 201
    assert table.gm.get(f"/api/characters/{ids[1]}/").json() == untouched
    before = _read_models()
    Character.objects.update(state={}, version=0)
    Timer.objects.all().delete()
    rebuild_all()
    assert _read_models() == before


def test_rebuild_leaves_the_garbage_collector_as_it_found_it(django_user_model: Any) -> None:
    _busy_history(django_user_model)
    assert gc.isenabled()
    rebuild_all()
    assert gc.isenabled()
    gc.disable()
    try:
        rebuild_all()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_export_then_import_gives_identical_character_states(django_user_model: Any) -> None:
    (table,) = _busy_history(django_user_model)
    original = Campaign.objects.get(pk=table.campaign["id"])
    copy = import_file("".join(export_text(original)).encode(), user=table.gm.user)
    assert copy.pk != original.pk
    assert copy.game_time == original.game_time
    assert copy.options == original.options
    old = list(Character.objects.filter(campaign=original).order_by("pk").values("name", "state", "version"))
    new = list(Character.objects.filter(campaign=copy).order_by("pk").values("name", "state", "version"))
    assert new == old
    old_timers = sorted(Timer.objects.filter(campaign=original).values_list("key", "due", "kind"))
    assert sorted(Timer.objects.filter(campaign=copy).values_list("key", "due", "kind")) == old_timers


def test_json_on_the_command_path_reads_and_writes_what_the_standard_library_does() -> None:
    value = {"hits": [{"boxes": 3, "death_at": None, "part": "ribs ✓"}], "by_location": {"head": 0}}
    assert json.loads(eventstore.json_text(value)) == value
    assert eventstore.json_value(json.dumps(value)) == value
    # What orjson refuses falls back to the standard library rather than failing the command.
    huge = {"n": 2**70}
    assert json.loads(eventstore.json_text(huge)) == huge
    assert eventstore.json_value('{"x": NaN}')["x"] != eventstore.json_value('{"x": NaN}')["x"]  # NaN
    assert json.loads(eventstore.json_text({1: "one"})) == {"1": "one"}  # as json.dumps writes int keys
    # orjson reads an integer beyond 64 bits as a float; these come back as the standard library reads them.
    for text in (
        '{"n": 1180591620717411303424}',
        b'{"n": -9223372036854775809}',
        '{"s": "grüße", "n": 18446744073709551616}',  # 2**64, past orjson's unsigned limit, and not ASCII
        '{"n": 9999999999999999999}',  # nineteen digits, past the signed limit
    ):
        value = eventstore.json_value(text)
        assert value == json.loads(text) and isinstance(value["n"], int)


@tricks_on("command_read")
def test_the_command_path_builds_the_instances_django_would(sr2: Table) -> None:
    """`loaded_instance` skips `Model.__init__`; what it builds is what `from_db` builds, deferred fields too."""
    sr2.act({"type": "note", "text": "first"})
    with transaction.atomic():
        character = eventstore.lock_for_character(sr2.character["id"]).character
    orm = Character.objects.defer("created_at").select_related("campaign").get(pk=sr2.character["id"])
    assert character.get_deferred_fields() == orm.get_deferred_fields() == {"created_at"}
    for field in Character._meta.concrete_fields:
        if field.attname != "created_at":
            assert getattr(character, field.attname) == getattr(orm, field.attname), field.attname
    assert (character._state.db, character._state.adding) == ("default", False)
    assert character.campaign.pk == orm.campaign.pk and character.campaign.options == orm.campaign.options
    assert character._state.fields_cache.keys() == orm._state.fields_cache.keys() == {"campaign"}
    assert character.created_at == orm.created_at  # a deferred field loads on first access, as Django's does
    event = Event.objects.get(stream=character.stream, version=1)
    names = [field.attname for field in Event._meta.concrete_fields]
    values = [getattr(event, name) for name in names]
    built = eventstore.loaded_instance(Event)("default", names, values)
    assert built.__dict__.keys() == event.__dict__.keys()
    assert {name: getattr(built, name) for name in names} == {name: getattr(event, name) for name in names}
    assert built == event and not built._state.adding


def test_a_model_with_init_signals_gets_djangos_own_from_db(sr2: Table) -> None:
    """Receivers connected after the loaders were made (at import, or per connection) still see every instance."""
    from django.db.models.signals import post_init

    sr2.act({"type": "note", "text": "loaders made"})
    seen: list[Any] = []

    def record(sender: Any, instance: Any, **kwargs: Any) -> None:
        seen.append(instance)

    post_init.connect(record, sender=Event)
    post_init.connect(record, sender=Character)
    try:
        sr2.act({"type": "note", "text": "watched"})
    finally:
        post_init.disconnect(record, sender=Event)
        post_init.disconnect(record, sender=Character)
    assert {type(instance) for instance in seen} >= {Event, Character}
    assert any(isinstance(i, Event) and i.data == {"text": "watched"} for i in seen)


def test_the_read_under_the_lock_gives_the_open_jobs_id_as_the_model_does(sr2: Table) -> None:
    campaign = Campaign.objects.get(pk=sr2.campaign["id"])
    job = Job.objects.create(campaign=campaign, from_time=0, to_time=60, reached=0, actor="gm")
    with transaction.atomic():
        open_job = eventstore.lock_for_character(sr2.character["id"]).open_job_id
    assert open_job == job.pk and type(open_job) is type(job.pk)


# Keys a literal must quote (the read goes with BEGIN as one message without parameters on PostgreSQL).
AWKWARD_KEYS = ["plain", "it's", "back\\slash", "100%s", "$$; DROP TABLE campaign_event; --", "é ü"]


def _key_holders_read(character_id: int, key: str | None) -> tuple[Any, Any]:
    with transaction.atomic():
        read = eventstore.lock_for_character(character_id, idempotency_key=key)
    return read.key_event_position, read.key_job_id


@pytest.mark.django_db(transaction=True)
def test_the_read_under_the_lock_finds_a_keys_holders_as_the_orm_does(django_user_model: Any) -> None:
    """The key's lookup folded into the read: what `core._key_positions` finds, for keys held by an action, by an
    advance, by nothing, and for no key at all; in the transaction's first message on PostgreSQL."""
    from campaign.services.core import _key_positions

    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    character_id = table.character["id"]
    campaign = Campaign.objects.get(pk=table.campaign["id"])
    for key in AWKWARD_KEYS:
        answer = table.act({"type": "note", "text": key}, HTTP_IDEMPOTENCY_KEY=key)
        assert answer.status_code == 201, answer.content
    Job.objects.create(
        campaign=campaign,
        from_time=0,
        to_time=60,
        reached=0,
        actor="gm",
        status=Job.DONE,
        idempotency_key="adv",
    )
    assert _key_holders_read(character_id, None) == (None, None)
    for key in [*AWKWARD_KEYS, "adv", "fresh", "IT'S"]:
        found = _key_holders_read(character_id, key)
        assert found == _key_positions(campaign, key), key
        assert [type(held) for held in found] == [type(held) for held in _key_positions(campaign, key)], key
    position, job_id = _key_holders_read(character_id, "it's")
    assert Event.objects.get(position=position).data == {"text": "it's"} and job_id is None
    assert _key_holders_read(character_id, "adv")[1] == Job.objects.get(idempotency_key="adv").pk


@pytest.mark.django_db(transaction=True)
def test_a_command_that_waited_for_the_lock_reads_what_its_holder_committed(django_user_model: Any) -> None:
    """The read under the lock sees the rows the previous holder wrote while it waited: here a clock job created
    under the campaign's lock, which must make the waiting action answer 409 rather than slip in before it."""
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6})
    character_id = table.character["id"]
    holding, answers = threading.Event(), []

    @_in_thread
    def clock_request() -> None:
        with transaction.atomic():
            campaign = eventstore.lock_campaign(table.campaign["id"])
            Job.objects.create(campaign=campaign, from_time=0, to_time=60, reached=0, actor="gm")
            holding.set()
            time.sleep(0.5)  # the action below is waiting for the lock meanwhile

    @_in_thread
    def action() -> None:
        try:
            services.character_act(
                character_id=character_id, body={"type": "note", "text": "late"}, actor="gm"
            )
            answers.append("appended")
        except services.ServiceError as error:
            answers.append(error.field)

    first = threading.Thread(target=clock_request)
    first.start()
    assert holding.wait(5)
    second = threading.Thread(target=action)
    second.start()
    first.join()
    second.join()
    assert answers == ["clock"]
    assert not Event.objects.filter(stream=f"character:{character_id}", type="NoteAdded").exists()


@pytest.mark.django_db(transaction=True)
@tricks_on("command_read", "command_write")
def test_postgresql_prepares_the_write_every_action_repeats(django_user_model: Any) -> None:
    """The write is prepared once a connection has run it a few times; the read goes with BEGIN as one simple
    message, which cannot be prepared (its function's own statements are, inside the server)."""
    _postgresql_only()
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    # The service's own transaction (over HTTP, a write's transaction begins with the request's first statement).
    for number in range(8):
        services.character_act(
            character_id=table.character["id"], body={"type": "note", "text": f"note {number}"}, actor="gm"
        )
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = " ".join(statement for (statement,) in cursor.fetchall())
    assert "INSERT INTO campaign_event" in prepared and "WITH w0 AS (UPDATE campaign_character" in prepared
    assert "campaign_command_read" not in prepared


def _timer_rows(character_id: int) -> list[tuple]:
    return sorted(
        Timer.objects.filter(character_id=character_id).values_list(
            "key", "due", "priority", "kind", "per_round", "data"
        )
    )


def _rule_timer_rows(rules: Any, state: Any) -> list[tuple]:
    return sorted((t.key, t.due, t.priority, t.kind, t.per_round, t.data) for t in rules.timers(state))


def test_the_timer_index_follows_every_action_and_firing_through_changed_and_gone_timers(
    django_user_model: Any, server_dice: ServerDice
) -> None:
    """A timer whose key stays but whose values change is rewritten in place, beside the deletes of the timers
    that are gone, in the command's one write (PostgreSQL) or its statements after the append (SQLite)."""
    server_dice(seeded_dice(11))
    changed = gone = 0
    gm = make_persona(django_user_model, "gm")
    for ruleset, (attributes, mix) in MIXES.items():
        campaign = gm.post("/api/campaigns/", {"name": ruleset, "ruleset": ruleset}).json()
        character_id = gm.post(
            f"/api/campaigns/{campaign['id']}/characters/", {"name": "Ash", "attributes": attributes}
        ).json()["id"]
        rules = get_ruleset(ruleset)
        for step in [request for body in mix * 3 for request in (body, {"minutes": 20})]:
            before = Character.objects.get(pk=character_id).state
            if "type" in step:
                response = gm.post(f"/api/characters/{character_id}/actions/", step)
                assert response.status_code in (201, 400), response.content
            else:
                response = gm.post(f"/api/campaigns/{campaign['id']}/clock/", {"advance": step})
                assert response.status_code == 202, response.content
            state = Character.objects.get(pk=character_id).state
            stale, fresh = timer_changes(rules.timers(before), rules.timers(state))
            changed += bool(set(stale) & {t.key for t in fresh})
            gone += bool(set(stale) - {t.key for t in fresh})
            assert _timer_rows(character_id) == _rule_timer_rows(rules, state), (ruleset, step)
    assert changed and gone, (changed, gone)


@tricks_on("command_read", "command_write")
def _mix_written(gm: Any, ruleset: str) -> dict[str, Any]:
    """A ruleset's bench mix, three times over with the clock advanced between, as `gm` acts it over HTTP (an
    Idempotency-Key each, sent twice), then its campaign rebuilt: the answers' statuses and what the log and the
    read models hold, without what names the GM, the ids or wall-clock times."""
    attributes, mix = MIXES[ruleset]
    campaign = gm.post("/api/campaigns/", {"name": ruleset, "ruleset": ruleset}).json()
    character_id = gm.post(
        f"/api/campaigns/{campaign['id']}/characters/", {"name": "Ash", "attributes": attributes}
    ).json()["id"]
    statuses = []
    for number, step in enumerate([request for body in mix * 3 for request in (body, {"minutes": 20})]):
        if "type" in step:
            path, key = f"/api/characters/{character_id}/actions/", f"k{number}"
            statuses.append(gm.post(path, step, HTTP_IDEMPOTENCY_KEY=key).status_code)
            statuses.append(gm.post(path, step, HTTP_IDEMPOTENCY_KEY=key).status_code)  # its retry
        else:
            statuses.append(gm.post(f"/api/campaigns/{campaign['id']}/clock/", {"advance": step}).status_code)
    written = {
        "statuses": statuses,
        "events": list(
            Event.objects.filter(character_id=character_id)
            .order_by("version")
            .values_list("version", "type", "schema_version", "data", "game_time", "idempotency_key")
        ),
        "character": Character.objects.filter(pk=character_id)
        .values("state", "version", "player_version", "alive", "conscious", "dying", "death_at")
        .get(),
        "timers": _timer_rows(character_id),
        "campaign": Campaign.objects.filter(pk=campaign["id"]).values("game_time", "version").get(),
    }
    rebuild_all()
    rebuilt = Character.objects.filter(pk=character_id).values(*written["character"]).get()
    assert (rebuilt, _timer_rows(character_id)) == (written["character"], written["timers"])
    return written


@pytest.mark.parametrize("ruleset", list(MIXES))
def test_the_plain_orm_path_writes_what_the_tricks_write(
    django_user_model: Any, server_dice: ServerDice, settings: Any, ruleset: str
) -> None:
    """LEDGER_PLAIN_ORM switches the ledger's speed tricks to their plain ORM ways (campaign/ledger/fast.py, the
    database backends aside: settings choose those once): the same mix writes the same events, read models and
    timers, answers the same statuses and rebuilds to the same rows either way."""
    server_dice(seeded_dice(5))
    settings.LEDGER_PLAIN_ORM = frozenset()
    tricked = _mix_written(make_persona(django_user_model, "gm"), ruleset)
    settings.LEDGER_PLAIN_ORM = frozenset({"all"})
    plain = _mix_written(make_persona(django_user_model, "gm2"), ruleset)
    assert 201 in tricked["statuses"] and len(tricked["events"]) > len(MIXES[ruleset][1])
    assert plain == tricked


def test_a_trick_the_setting_names_must_exist() -> None:
    """A misspelt trick in LEDGER_PLAIN_ORM stops the server at start-up rather than leave the trick on; the two
    that settings read themselves (the database backends) are tricks of `fast`."""
    import os
    import subprocess
    import sys

    from django.conf import settings

    env = {**os.environ, "LEDGER_PLAIN_ORM": "driver_cursor,driver_cursers"}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0 and "LEDGER_PLAIN_ORM: no trick named driver_cursers" in done.stderr
    assert {"postgres_begin", "sqlite_transactions"} <= fast.TRICKS.keys()


@tricks_on("command_read", "command_write")
def test_an_action_is_two_statements_on_postgresql(sr2: Table) -> None:
    """The read under the lock, then one statement for the events, the character row and its timer rows."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only: SQLite has no data-modifying WITH queries")
    body = {"type": "wound", "severity": "M", "rolls": {"body_check": [1, 1, 1, 1, 1]}}
    with CaptureQueriesContext(connection) as captured:
        services.character_act(character_id=sr2.character["id"], body=body, actor="gm")
    # Without the test's own transaction's savepoints.
    statements = [query["sql"] for query in captured if "SAVEPOINT" not in query["sql"]]
    assert len(statements) == 2
    assert "campaign_command_read" in statements[0]
    write = statements[1]
    assert write.startswith("WITH w0 AS (UPDATE campaign_character")
    assert "INSERT INTO campaign_timer" in write and "INSERT INTO campaign_event" in write
    rules = get_ruleset("shadowrun2")
    state = Character.objects.get(pk=sr2.character["id"]).state
    assert rules.timers(state) and _timer_rows(sr2.character["id"]) == _rule_timer_rows(rules, state)


def _append_note(character: Character, alongside: list[eventstore.Write]) -> None:
    from rules.ruleset import Event as RuleEvent

    eventstore.append(
        campaign=character.campaign,
        stream=character.stream,
        character=character,
        expected_version=character.version,
        events=[RuleEvent("NoteAdded", {"text": "with company"}, 0)],
        cause="test",
        alongside=alongside,
    )


def test_a_write_beside_the_append_that_finds_no_row_undoes_the_append(sr2: Table) -> None:
    _one_event(sr2)
    character = Character.objects.get(pk=sr2.character["id"])
    missing = eventstore.Write(
        "UPDATE campaign_character SET version = version WHERE id = %s", [0], one_row_of=Character
    )
    with transaction.atomic():
        with pytest.raises(Character.DoesNotExist):
            _append_note(character, [missing])
        assert connection.needs_rollback  # even when the caller catches it, the append does not commit
    assert Event.objects.filter(stream=character.stream).count() == 1


def test_an_integrity_error_beside_the_append_is_not_a_version_conflict(sr2: Table) -> None:
    """Only the event log's own constraints mean another writer came first (and a retry may succeed)."""
    _one_event(sr2)
    character = Character.objects.get(pk=sr2.character["id"])
    timer = (character.campaign_id, character.pk, 0, 0, "test", "same", False, eventstore.json_text({}))
    insert = (
        "INSERT INTO campaign_timer (campaign_id, character_id, due, priority, kind, key, per_round, data) "
    )
    duplicate = eventstore.Write(
        insert + "VALUES (%s, %s, %s, %s, %s, %s, %s, %s), (%s, %s, %s, %s, %s, %s, %s, %s)", [*timer, *timer]
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        _append_note(character, [duplicate])
    assert Event.objects.filter(stream=character.stream).count() == 1
    assert not Timer.objects.filter(character=character).exists()


@contextlib.contextmanager
def _wire(wrapper: Any) -> Any:
    """The client's side of the PostgreSQL protocol while the block runs (libpq's trace), as lines."""
    from psycopg import pq

    lines: list[str] = []
    with tempfile.TemporaryFile("w+") as trace:
        wrapper.ensure_connection()
        wrapper.connection.pgconn.trace(trace.fileno())
        wrapper.connection.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            yield lines
        finally:
            wrapper.connection.pgconn.untrace()
            trace.seek(0)
            lines.extend(trace.read().splitlines())


def _round_trips(lines: list[str]) -> int:
    return sum("ReadyForQuery" in line for line in lines)


def _postgresql_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only: the backend that sends BEGIN with the first statement")


@pytest.mark.django_db(transaction=True)
@tricks_on("postgres_begin", "command_read", "command_write")
def test_an_action_takes_three_round_trips_on_postgresql(django_user_model: Any) -> None:
    """BEGIN with the read under the lock, one statement for all the writes, COMMIT."""
    _postgresql_only()
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    body = {"type": "wound", "severity": "M", "rolls": {"body_check": [1, 1, 1, 1, 1]}}
    with _wire(connection) as lines:
        services.character_act(character_id=table.character["id"], body=body, actor="gm")
    queries = [line for line in lines if line.startswith("F") and ("Query" in line or "Parse" in line)]
    assert _round_trips(lines) == 3, lines
    assert 'Query\t "BEGIN; SELECT campaign_command_read(' in queries[0]
    assert "WITH w0 AS (UPDATE campaign_character" in queries[1]
    assert 'Query\t "COMMIT"' in queries[2]
    assert Character.objects.get(pk=table.character["id"]).version == 2


@pytest.mark.django_db(transaction=True)
def test_a_transaction_that_starts_with_any_other_statement_begins_before_it(django_user_model: Any) -> None:
    _postgresql_only()
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    with pytest.raises(RuntimeError), transaction.atomic():
        Campaign.objects.filter(pk=table.campaign["id"]).update(name="renamed")
        raise RuntimeError("changed my mind")
    character = Character.objects.select_related("campaign").get(pk=table.character["id"])
    with pytest.raises(RuntimeError), transaction.atomic():
        _append_note(character, [])  # the INSERT is the block's first statement
        raise RuntimeError("changed my mind")
    assert Campaign.objects.get(pk=table.campaign["id"]).name == "Seattle 2053"
    assert Event.objects.filter(stream=character.stream).count() == 0


@pytest.mark.django_db(transaction=True)
@tricks_on("postgres_begin")
def test_a_block_that_runs_nothing_sends_nothing_and_leaves_no_transaction(django_user_model: Any) -> None:
    from psycopg.pq import TransactionStatus

    _postgresql_only()
    with _wire(connection) as lines, transaction.atomic():
        pass
    assert lines == []
    assert connection.connection.info.transaction_status == TransactionStatus.IDLE
    assert not connection.begin_owed


@pytest.mark.django_db(transaction=True)
@tricks_on("postgres_begin")
def test_a_failed_first_read_rolls_back_and_the_next_action_runs(django_user_model: Any) -> None:
    from psycopg.pq import TransactionStatus

    _postgresql_only()
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    campaign = Campaign.objects.filter(pk=table.campaign["id"])
    with pytest.raises(RuntimeError), transaction.atomic():
        with pytest.raises(ValueError):
            eventstore.lock_for_character("1; DROP TABLE campaign_event")  # type: ignore[arg-type]
        assert connection.begin_owed  # nothing was sent: the next statement still begins the transaction
        campaign.update(name="renamed")
        raise RuntimeError("changed my mind")
    assert campaign.get().name == "Seattle 2053"
    character = Character.objects.select_related("campaign").get(pk=table.character["id"])
    with transaction.atomic():
        with pytest.raises(DatabaseError):
            eventstore.lock_for_character(10**20)  # no such function for a number beyond bigint
        assert connection.needs_rollback
        with pytest.raises(TransactionManagementError):
            _append_note(character, [])  # refused, as Django's cursor refuses, in a block that must roll back
    assert connection.connection.info.transaction_status == TransactionStatus.IDLE
    with pytest.raises(Character.DoesNotExist), transaction.atomic():
        eventstore.lock_for_character(0)
    assert table.act({"type": "note", "text": "still here"}).status_code == 201
    assert Event.objects.count() > 0


@pytest.mark.django_db(transaction=True)
@tricks_on("postgres_begin")
def test_the_owed_begin_names_the_connections_isolation_level() -> None:
    from psycopg import IsolationLevel

    _postgresql_only()
    connection.ensure_connection()
    assert connection.begin_statement() == "BEGIN"
    driver = connection.connection
    driver.isolation_level = IsolationLevel.REPEATABLE_READ
    try:
        with _wire(connection) as lines, transaction.atomic():
            Campaign.objects.count()
    finally:
        driver.isolation_level = None
    assert any('Query\t "BEGIN ISOLATION LEVEL REPEATABLE READ"' in line for line in lines), lines


@pytest.mark.django_db(transaction=True)
def test_a_server_side_cursor_in_a_transaction_does_not_outlive_it(django_user_model: Any) -> None:
    """The backend leaves the driver in autocommit inside transactions; Django would take that for outside one and
    make `.iterator()`'s cursor WITH HOLD."""
    _postgresql_only()
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    table.act({"type": "note", "text": "one"})
    table.act({"type": "note", "text": "two"})
    with transaction.atomic():
        rows = Event.objects.order_by("position").iterator(chunk_size=1)
        next(rows)
        with connection.cursor() as cursor:
            cursor.execute("SELECT is_holdable FROM pg_cursors WHERE name LIKE '_django_curs_%%'")
            assert cursor.fetchall() == [(False,)]
        assert len(list(rows)) >= 1
    with pytest.raises(RuntimeError), transaction.atomic():
        rows = Event.objects.order_by("position").iterator(chunk_size=1)
        next(rows)
        raise RuntimeError("rolled back with the cursor open")
    rows.close()  # no CLOSE for a cursor the rollback ended (a WITH HOLD one would still be asked for it)
    assert Event.objects.count() >= 2


def test_only_the_logs_own_unique_constraints_mean_a_version_conflict(sr2: Table) -> None:
    """Another constraint refusing the event rows is a bug to report, not a race to retry."""
    from rules.ruleset import Event as RuleEvent

    _postgresql_only()
    _one_event(sr2)
    character = Character.objects.select_related("campaign").get(pk=sr2.character["id"])
    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        eventstore.append(
            campaign=character.campaign,
            stream=character.stream,
            character=character,
            expected_version=character.version,
            events=[RuleEvent("NoteAdded", {"text": "bad"}, 0, schema_version=-1)],
            cause="test",
        )
    assert not isinstance(refused.value, eventstore.VersionConflict)
    assert "schema_version" in str(refused.value)


@pytest.mark.django_db(transaction=True)
@tricks_on("postgres_begin")
def test_autocommit_turned_off_by_hand_still_runs_in_a_transaction(django_user_model: Any) -> None:
    """Only an `atomic` block's BEGIN is owed; code that turns autocommit off itself gets the driver's BEGIN."""
    _postgresql_only()
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    campaign = Campaign.objects.filter(pk=table.campaign["id"])
    transaction.set_autocommit(False)
    try:
        assert not connection.begin_owed
        campaign.update(name="renamed")
        transaction.rollback()
    finally:
        transaction.set_autocommit(True)
    assert campaign.get().name == "Seattle 2053"


def test_the_undos_of_a_stream_are_read_by_its_type_index_without_an_order(sr2: Table) -> None:
    """With an ORDER BY (the model's own by position, or by version) SQLite walked the whole table or stream to
    skip a sort: a history page at 100,000 events cost four times one at 100 (docs/PERFORMANCE.md)."""
    sr2.act({"type": "note", "text": "first"})
    sr2.act({"type": "note", "text": "second"})
    sr2.act({"type": "undo"})
    sr2.act({"type": "undo"})
    stream = Character.objects.get(pk=sr2.character["id"]).stream
    with CaptureQueriesContext(connection) as queries:
        voided = eventstore.stream_voided(stream)
    assert len(voided) == 2
    (query,) = queries.captured_queries
    assert "ORDER BY" not in query["sql"].upper()
    undos = eventstore.taking_back_rows(Event.objects.filter(stream=stream))
    assert [row.type for row in undos] == ["ActionUndone", "ActionUndone"]
    assert [row.version for row in undos] == sorted(row.version for row in undos)


def _sqlite_only() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only: the backend that sends BEGIN and COMMIT to the driver")


@contextlib.contextmanager
def _statements(wrapper: Any) -> Any:
    """Every statement SQLite runs on the connection while the block runs, as the driver hands them over."""
    lines: list[str] = []
    wrapper.ensure_connection()
    wrapper.connection.set_trace_callback(lines.append)
    try:
        yield lines
    finally:
        wrapper.connection.set_trace_callback(None)


@pytest.mark.django_db(transaction=True)
@tricks_on("sqlite_transactions", "command_read", "command_write")
def test_an_action_on_sqlite_is_its_read_and_writes_between_begin_and_commit(django_user_model: Any) -> None:
    """The events' positions come from the last row's id, without RETURNING; BEGIN and COMMIT go to the driver."""
    _sqlite_only()
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    body = {"type": "wound", "severity": "M", "rolls": {"body_check": [1, 1, 1, 1, 1]}}
    with _statements(connection) as lines:
        result = services.character_act(character_id=table.character["id"], body=body, actor="gm")
    # The read, the event, the character row, the Medium wound's timer.
    assert [line.split(" ")[0] for line in lines] == [
        "BEGIN",
        "WITH",
        "INSERT",
        "UPDATE",
        "INSERT",
        "COMMIT",
    ], lines
    assert lines[0] == "BEGIN IMMEDIATE" and "RETURNING" not in lines[2]
    assert lines[2].startswith("INSERT INTO campaign_event") and lines[4].startswith(
        "INSERT INTO campaign_timer"
    )
    stored = Event.objects.filter(stream=result.character.stream).order_by("version")
    assert [event.position for event in result.events] == list(stored.values_list("position", flat=True))


@pytest.mark.django_db(transaction=True)
def test_a_watched_connection_sees_every_begin_on_sqlite(django_user_model: Any) -> None:
    """With an execute wrapper (the tests' fault injection) or the query log, BEGIN takes Django's own path."""
    _sqlite_only()
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    seen: list[str] = []

    def watch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append(sql.split(" ")[0])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        services.character_act(
            character_id=table.character["id"], body={"type": "note", "text": "a"}, actor="gm"
        )
    with CaptureQueriesContext(connection) as queries:
        services.character_act(
            character_id=table.character["id"], body={"type": "note", "text": "b"}, actor="gm"
        )
    assert seen[0] == "BEGIN" and "INSERT" in seen
    assert queries.captured_queries[0]["sql"] == "BEGIN IMMEDIATE"
    assert queries.captured_queries[-1]["sql"] == "COMMIT"


def test_several_events_appended_at_once_get_the_positions_they_were_stored_at(sr2: Table) -> None:
    from rules.ruleset import Event as RuleEvent

    _one_event(sr2)
    character = Character.objects.select_related("campaign").get(pk=sr2.character["id"])
    with transaction.atomic():
        rows = eventstore.append(
            campaign=character.campaign,
            stream=character.stream,
            character=character,
            expected_version=character.version,
            events=[RuleEvent("NoteAdded", {"text": text}, 0) for text in ("one", "two", "three")],
            cause="test",
        )
    stored = {event.version: event for event in Event.objects.filter(stream=character.stream)}
    assert [(row.version, row.position) for row in rows] == [
        (version, stored[version].position) for version in (2, 3, 4)
    ]
    assert [stored[version].data["text"] for version in (2, 3, 4)] == ["one", "two", "three"]


def test_the_recorded_time_is_written_as_djangos_field_would_write_it() -> None:
    import datetime

    from django.utils import timezone

    field = Event._meta.get_field("recorded_at")
    connection.ensure_connection()
    for moment in (
        timezone.now(),
        timezone.now().replace(microsecond=0),
        datetime.datetime(2053, 1, 2, 3, 4, 5, 6, tzinfo=datetime.UTC),
    ):
        assert eventstore._timestamp_param(moment, connection) == field.get_db_prep_save(moment, connection)
