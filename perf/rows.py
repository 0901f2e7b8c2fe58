"""The workloads, run inside a child process whose database is a throwaway one (see the bench command).

Each returns a dict: `rate` (work per second on the project's path), `baseline` (the same work done raw) where
there is one, and the details a reader needs to trust the figure.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from campaign import services
from campaign.eventstore import json_text
from campaign.models import GM, PLAYER, Campaign, Character, Event, Job, Membership, Timer
from campaign.projections import timer_changes
from perf import machine_busy, postgres_execute, with_database
from perf.board import board
from perf.lighthouse import lighthouse
from perf.mixes import CLOCK_RULESET, CLOCK_WOUNDS, FORECAST_DEAREST, FORECAST_INJURIES, MIXES, RECOVERY_PARTY
from rules.params import RuleError
from rules.registry import get_ruleset

EVENT_COLUMNS = (
    "position, campaign_id, stream, character_id, version, type, schema_version, data, game_time, recorded_at, "
    "actor, cause, idempotency_key, request_digest"
)


@contextmanager
def profiled(path: str | None) -> Iterator[None]:
    """Profile the block with pyinstrument into `path` (text) when asked."""
    if not path:
        yield
        return
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0005)
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()
        Path(path).write_text(profiler.output_text(unicode=True, show_all=False))


def _gm() -> Any:
    user, _ = get_user_model().objects.get_or_create(username="bench-gm")
    return user


def _sqlite_path() -> str:
    return str(settings.DATABASES["default"]["NAME"])


def _scratch() -> Path:
    """Where a row keeps its files: beside its throwaway SQLite database, or in the temporary directory."""
    if connection.vendor == "sqlite":
        return Path(_sqlite_path()).parent
    return Path(tempfile.gettempdir())


def _characters(ruleset: str, count: int, name: str) -> tuple[Campaign, list[Character]]:
    attributes, _ = MIXES[ruleset]
    campaign = services.campaign_create(user=_gm(), name=name, ruleset=ruleset)
    people = [
        services.character_create(
            campaign=campaign, actor="bench", name=f"{ruleset} {n}", attributes=attributes
        )
        for n in range(count)
    ]
    return campaign, people


def _plan(
    characters_by_ruleset: dict[str, list[Character]], actions: int
) -> list[tuple[int, dict[str, Any]]]:
    """`actions` (character id, body) pairs: round-robin over the characters, each walking its ruleset's mix."""
    everyone = [(ruleset, c) for ruleset, people in characters_by_ruleset.items() for c in people]
    plan = []
    for n in range(actions):
        ruleset, character = everyone[n % len(everyone)]
        mix = MIXES[ruleset][1]
        plan.append((character.pk, mix[(n // len(everyone)) % len(mix)]))
    return plan


class Acted(NamedTuple):
    """What one action left, as plain values: the bench keeps thousands, and a server keeps nothing of a request
    it has answered, so they must not give the garbage collector a state's hundreds of dicts and lists to walk on
    every collection (strings, numbers and a tuple of them are never walked). `state` is JSON text."""

    character_id: int
    campaign_id: int
    ruleset: str
    positions: tuple[int, ...]
    version: int
    alive: bool
    conscious: bool
    dying: bool
    death_at: int | None
    state: str


def _acted(result: services.ActionResult) -> Acted:
    character = result.character
    return Acted(
        character.pk,
        character.campaign_id,
        character.campaign.ruleset,
        tuple(event.position for event in result.events),
        character.version,
        character.alive,
        character.conscious,
        character.dying,
        character.death_at,
        json_text(result.state),
    )


def _act_all(plan: list[tuple[int, dict[str, Any]]]) -> tuple[float, list[Acted], int]:
    """Run the plan through the one write path. Returns the seconds spent in it (inside `character_act`, refused
    actions included; what the bench keeps of each answer is its own business, not the path's), what each action
    left and the count of refusals."""
    results, refused, seconds = [], 0, 0.0
    clock = time.perf_counter
    for character_id, body in plan:
        began = clock()
        try:
            result = services.character_act(character_id=character_id, body=body, actor="bench")
        except RuleError:
            seconds += clock() - began
            refused += 1
        else:
            seconds += clock() - began
            results.append(_acted(result))
    return seconds, results, refused


def action_path(actions: int, profile: str | None = None) -> dict[str, Any]:
    """services.character_act, one transaction each, vs raw sqlite3 writing the same rows one transaction each."""
    people = {ruleset: _characters(ruleset, 25, f"bench {ruleset}")[1] for ruleset in MIXES}
    _act_all(_plan(people, 100))  # warm up: imports, caches, the first timers
    before = _last_position()
    snapshot = Path(_sqlite_path()).with_suffix(".raw.sqlite3")
    snapshot.unlink(missing_ok=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(snapshot)])
    states = _states()
    with profiled(profile):
        seconds, results, refused = _act_all(_plan(people, actions))
    done = len(results)
    transactions = _written(results, states, _events_after(before))
    # The raw side takes a fraction of a second: the best of three makes it the strictest baseline, not the noisiest.
    raw_seconds = min(_raw_inserts(snapshot, transactions) for _ in range(3))
    raw_without_timers = min(_raw_inserts(snapshot, transactions, timers=False) for _ in range(3))
    snapshot.unlink(missing_ok=True)
    return {
        "rate": done / seconds,
        "baseline": done / raw_seconds,
        "baseline_without_timers": done / raw_without_timers,
        "unit": "actions/s",
        "actions": done,
        "refused_by_rules": refused,
        "events": sum(len(action.events) for action in transactions),
        "timer_rows_written": sum(len(a.stale_timers) + len(a.fresh_timers) for a in transactions),
        "baseline_what": (
            "raw sqlite3: the same event rows, character row update and timer-index rows, one transaction each"
        ),
    }


def _last_position() -> int:
    return Event.objects.order_by("-position").values_list("position", flat=True).first() or 0


def _states() -> dict[int, Any]:
    """Every character's state as the read model holds it now."""
    return {pk: _json(state) for pk, state in Character.objects.values_list("pk", "state")}


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def _events_after(before: int) -> dict[int, tuple]:
    """The event rows after position `before` as raw inserts write them (their JSON as text), by position."""
    data = "data::text" if connection.vendor == "postgresql" else "data"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {EVENT_COLUMNS.replace('data,', f'{data},')} FROM campaign_event WHERE position > %s",
            [before],
        )
        return {row[0]: row for row in cursor.fetchall()}


def _written(results: list[Acted], states: dict[int, Any], by_position: dict[int, tuple]) -> list[RawAction]:
    """The rows each action wrote, in the order of `results`: its events (`by_position`, copied back out of the
    database), its character row and the timer index rows it replaced (from the states before and after, as the
    projection computes them). `states` holds each character's state before the first of them."""
    states = dict(states)
    transactions = []
    for acted in results:
        ruleset = get_ruleset(acted.ruleset)
        state = json.loads(acted.state)
        stale, fresh = timer_changes(ruleset.timers(states[acted.character_id]), ruleset.timers(state))
        states[acted.character_id] = state
        transactions.append(
            RawAction(
                events=[by_position[position] for position in acted.positions],
                character=(
                    acted.state,
                    acted.version,
                    acted.alive,
                    acted.conscious,
                    acted.dying,
                    acted.death_at,
                    acted.character_id,
                ),
                stale_timers=[(acted.character_id, key) for key in stale],
                fresh_timers=[
                    (
                        acted.campaign_id,
                        acted.character_id,
                        t.due,
                        t.priority,
                        t.kind,
                        t.key,
                        t.per_round,
                        json.dumps(t.data),
                    )
                    for t in fresh
                ],
            )
        )
    return transactions


@dataclass(frozen=True)
class RawAction:
    """What one action wrote, as plain rows for the raw sqlite3 side of the comparison."""

    events: list[tuple]
    character: tuple
    stale_timers: list[tuple[int, str]]
    fresh_timers: list[tuple]


def _raw_inserts(path: Path, transactions: list[RawAction], *, timers: bool = True) -> float:
    """Replay the writes on a fresh copy of the snapshot, one transaction per action. Returns the seconds taken."""
    copy = path.with_suffix(".replay.sqlite3")
    copy.unlink(missing_ok=True)
    shutil.copyfile(path, copy)
    db = sqlite3.connect(copy, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    insert = f"INSERT INTO campaign_event ({EVENT_COLUMNS}) VALUES ({', '.join('?' * 14)})"
    update = (
        "UPDATE campaign_character SET state = ?, version = ?, alive = ?, conscious = ?, dying = ?, "
        "death_at = ? WHERE id = ?"
    )
    delete_timer = "DELETE FROM campaign_timer WHERE character_id = ? AND key = ?"
    insert_timer = (
        "INSERT INTO campaign_timer (campaign_id, character_id, due, priority, kind, key, per_round, data) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    )
    started = time.perf_counter()
    for action in transactions:
        db.execute("BEGIN IMMEDIATE")
        db.executemany(insert, action.events)
        db.execute(update, action.character)
        if timers:
            db.executemany(delete_timer, action.stale_timers)
            db.executemany(insert_timer, action.fresh_timers)
        db.execute("COMMIT")
    seconds = time.perf_counter() - started
    db.close()
    for leftover in (copy, copy.with_name(copy.name + "-wal"), copy.with_name(copy.name + "-shm")):
        leftover.unlink(missing_ok=True)
    return seconds


def postgres_actions(actions: int, threads: int = 8, profile: str | None = None) -> dict[str, Any]:
    """Actions per second of one process on PostgreSQL (target: an absolute rate), and raw psycopg writing the
    same rows from the same threads as the measure of what this machine allows.

    A server process serves many campaigns at once: `threads` threads of this process, each with its own
    connection and its own two campaigns, run the actions row's mix concurrently (commits of different campaigns
    overlap; the same campaign's actions are serialized by its lock whatever the thread count). The same workload
    on one thread, one action at a time, is reported beside it.
    """
    people = {ruleset: _characters(ruleset, 25, f"bench {ruleset}")[1] for ruleset in MIXES}
    _act_all(_plan(people, 100))
    sequential_seconds, sequential, _ = _act_all(_plan(people, actions // 2))
    groups = [
        {ruleset: _characters(ruleset, 6, f"bench {ruleset} {n}")[1] for ruleset in MIXES}
        for n in range(threads)
    ]
    warm_ups = [
        {ruleset: _characters(ruleset, 2, f"warm-up {ruleset} {n}")[1] for ruleset in MIXES}
        for n in range(threads)
    ]
    before, states = _last_position(), _states()
    connection.close()
    raw_database = _copy_of_this_database()  # as the measured run finds it, for the raw side
    start = threading.Barrier(threads)

    def run(n: int) -> tuple[float, float, list[Any], int]:
        try:
            _act_all(_plan(warm_ups[n], 20))  # connect and warm up before the clock starts
            start.wait()
            began = time.perf_counter()
            _, results, refused = _act_all(_plan(groups[n], actions // threads))
            return began, time.perf_counter(), results, refused
        finally:
            connection.close()

    try:
        with cpu_spent() as cpu, profiled(profile), ThreadPoolExecutor(threads) as pool:
            spans = list(pool.map(run, range(threads)))
        seconds = max(end for _, end, _, _ in spans) - min(began for began, _, _, _ in spans)
        done = sum(len(results) for _, _, results, _ in spans)
        by_position = _events_after(before)
        written = [_written(results, states, by_position) for _, _, results, _ in spans]
        raw_seconds, raw_cpu = min(
            (_raw_postgres(raw_database, written) for _ in range(2)), key=lambda r: r[0]
        )
    finally:
        connection.close()
        _postgres_maintenance(f'DROP DATABASE IF EXISTS "{raw_database}" WITH (FORCE)')
    return {
        "rate": done / seconds,
        "baseline": done / raw_seconds,
        "unit": "actions/s",
        "actions": done,
        "threads": threads,
        "refused_by_rules": sum(refused for *_, refused in spans),
        "sequential_rate": len(sequential) / sequential_seconds,
        # CPU per action (warm-up included, so slightly over). This process's: with the GIL it cannot pass one
        # core. The rest of the machine's: the database server's, mostly (None where /proc/stat is not there).
        "python_cpu_ms_per_action": 1000 * cpu.python / done,
        "other_cpu_ms_per_action": None if cpu.other is None else 1000 * cpu.other / done,
        "baseline_python_cpu_ms_per_action": 1000 * raw_cpu.python / done,
        "baseline_other_cpu_ms_per_action": None if raw_cpu.other is None else 1000 * raw_cpu.other / done,
        "server": connection.pg_version if hasattr(connection, "pg_version") else None,
        "baseline_what": (
            f"raw psycopg from {threads} threads, one connection each: the same event rows, character row update "
            "and timer-index rows, one transaction each (best of two)"
        ),
    }


def _postgres_maintenance(statement: str) -> None:
    # The parent process named this row's throwaway database in DATABASE_URL.
    postgres_execute(os.environ["DATABASE_URL"], statement)


def _copy_of_this_database() -> str:
    """A copy of this (throwaway) database, made with it as the template: nobody may be connected to it."""
    template = settings.DATABASES["default"]["NAME"]
    return _fresh_copy(template, f"{template}_raw")


def _fresh_copy(template: str, name: str) -> str:
    """Database `name`, made anew as a copy of `template` (`CREATE DATABASE ... TEMPLATE`). Returns `name`."""
    _postgres_maintenance(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _postgres_maintenance(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return name


def _raw_postgres(database: str, per_thread: list[list[RawAction]]) -> tuple[float, CpuSpent]:
    """Replay each thread's writes on a fresh copy of `database` from a thread of its own, one transaction per
    action, with psycopg's defaults (server-side parameters, statements prepared once repeated). Returns the
    seconds from the common start to the last commit and the CPU spent."""
    import psycopg

    replay = _fresh_copy(database, f"{database}_replay")
    columns = EVENT_COLUMNS.split(", ")
    marks = ", ".join("%s::jsonb" if column == "data" else "%s" for column in columns)
    update = (
        "UPDATE campaign_character SET state = %s::jsonb, version = %s, alive = %s, conscious = %s, dying = %s, "
        "death_at = %s WHERE id = %s"
    )
    delete_timers = "DELETE FROM campaign_timer WHERE character_id = %s AND key = ANY(%s)"
    timer_marks = "(%s, %s, %s, %s, %s, %s, %s, %s::jsonb)"
    start = threading.Barrier(len(per_thread))

    def run(transactions: list[RawAction]) -> tuple[float, float]:
        with psycopg.connect(with_database(os.environ["DATABASE_URL"], replay)) as db:
            db.execute("SELECT 1")
            db.commit()
            start.wait()
            began = time.perf_counter()
            for action in transactions:
                db.execute(
                    f"INSERT INTO campaign_event ({EVENT_COLUMNS}) VALUES "
                    + ", ".join([f"({marks})"] * len(action.events)),
                    [value for row in action.events for value in row],
                )
                db.execute(update, action.character)
                if action.stale_timers:
                    db.execute(
                        delete_timers, [action.stale_timers[0][0], [k for _, k in action.stale_timers]]
                    )
                if action.fresh_timers:
                    db.execute(
                        "INSERT INTO campaign_timer (campaign_id, character_id, due, priority, kind, key, "
                        "per_round, data) VALUES " + ", ".join([timer_marks] * len(action.fresh_timers)),
                        [value for row in action.fresh_timers for value in row],
                    )
                db.commit()
            return began, time.perf_counter()

    try:
        with cpu_spent() as cpu, ThreadPoolExecutor(len(per_thread)) as pool:
            spans = list(pool.map(run, per_thread))
    finally:
        _postgres_maintenance(f'DROP DATABASE IF EXISTS "{replay}" WITH (FORCE)')
    return max(end for _, end in spans) - min(began for began, _ in spans), cpu


@dataclass
class CpuSpent:
    """CPU seconds spent over a block: by this process, and by the rest of the machine (None where unknown)."""

    python: float = 0.0
    other: float | None = None


def _process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def cpu_spent() -> Iterator[CpuSpent]:
    spent = CpuSpent()
    python, machine = _process_cpu(), machine_busy()
    yield spent
    spent.python = _process_cpu() - python
    busy = machine_busy()
    spent.other = None if machine is None or busy is None else max(0.0, busy - machine - spent.python)


# --- rebuild ---------------------------------------------------------------------------------------------------


def _templates(ruleset: str, streams: int, length: int) -> tuple[Campaign, list[Character]]:
    campaign, people = _characters(ruleset, streams, f"template {ruleset}")
    _act_all(_plan({ruleset: people}, streams * length))
    return campaign, people


def _copy_streams(campaign: Campaign, templates: list[Character], target: int) -> int:
    """Insert copies of the template characters' streams into `campaign` until it holds `target` events."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT character_id, version, type, schema_version, data, game_time, cause FROM campaign_event "
            "WHERE character_id IN ({}) ORDER BY position".format(",".join(str(t.pk) for t in templates))
        )
        streams: dict[int, list[tuple]] = {}
        for row in cursor.fetchall():
            streams.setdefault(row[0], []).append(row[1:])
    attributes = {t.pk: t.attributes for t in templates}
    written = Event.objects.filter(campaign=campaign).count()
    campaign_version = Campaign.objects.get(pk=campaign.pk).version
    copy = 0
    now = "2026-01-01 00:00:00"
    while written < target:
        with transaction.atomic(), connection.cursor() as cursor:
            for _ in range(200):
                if written >= target:
                    break
                template = templates[copy % len(templates)]
                stream = streams[template.pk]
                copy += 1
                cursor.execute(
                    "INSERT INTO campaign_character (campaign_id, name, attributes, state, version, alive, "
                    "conscious, dying, created_at) VALUES (%s, %s, %s, '{}', 0, true, true, false, %s)",
                    [campaign.pk, f"copy {copy}", json.dumps(attributes[template.pk]), now],
                )
                character_id = cursor.lastrowid
                campaign_version += 1
                created = {
                    "character": character_id,
                    "name": f"copy {copy}",
                    "attributes": attributes[template.pk],
                }
                rows = [
                    (
                        campaign.pk,
                        f"campaign:{campaign.pk}",
                        None,
                        campaign_version,
                        "CharacterCreated",
                        1,
                        json.dumps(created),
                        0,
                        now,
                        "bench",
                        f"character:{character_id}",
                    )
                ]
                rows += [
                    (
                        campaign.pk,
                        f"character:{character_id}",
                        character_id,
                        version,
                        type_,
                        schema,
                        data,
                        game_time,
                        now,
                        "bench",
                        f"{cause}:{copy}",
                    )
                    for version, type_, schema, data, game_time, cause in stream
                ]
                cursor.executemany(
                    "INSERT INTO campaign_event (campaign_id, stream, character_id, version, type, schema_version, "
                    "data, game_time, recorded_at, actor, cause, request_digest) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, '')",
                    rows,
                )
                written += len(rows)
    Campaign.objects.filter(pk=campaign.pk).update(version=campaign_version)
    return written


def rebuild(events: int, profile: str | None = None) -> dict[str, Any]:
    """rebuild_campaign over `events` events (two rulesets) vs a raw read + json.loads of the same rows."""
    from campaign.projections import rebuild_campaign

    campaigns = []
    for ruleset in MIXES:
        campaign, templates = _templates(ruleset, 20, 40)
        _copy_streams(campaign, templates, events // len(MIXES))
        campaigns.append((campaign, templates))
    total = Event.objects.count()
    template_ids = [t.pk for _, templates in campaigns for t in templates]
    expected = dict(Character.objects.filter(pk__in=template_ids).values_list("pk", "state"))
    raw_seconds = _raw_read(_sqlite_path(), [c.pk for c, _ in campaigns])
    started = time.perf_counter()
    with profiled(profile):
        read = sum(rebuild_campaign(Campaign.objects.get(pk=c.pk)) for c, _ in campaigns)
    seconds = time.perf_counter() - started
    raw_seconds = min(raw_seconds, _raw_read(_sqlite_path(), [c.pk for c, _ in campaigns]))
    # The copies must come out exactly as the templates the action path produced.
    for campaign, templates in campaigns:
        copies = Character.objects.filter(campaign=campaign, name__startswith="copy ").order_by("pk")[
            : len(templates)
        ]
        for template, copied in zip(templates, copies, strict=True):
            template.refresh_from_db()
            assert template.state == expected[template.pk], f"rebuild changed {template.name}"
            assert copied.state == expected[template.pk], f"rebuild diverged for {copied.name}"
    return {
        "rate": read / seconds,
        "baseline": read / raw_seconds,
        "unit": "events/s",
        "events": read,
        "events_in_database": total,
        "characters": Character.objects.count(),
        "baseline_what": "raw sqlite3 SELECT of the same columns in the same order + json.loads of every data",
    }


def _raw_read(path: str, campaign_ids: list[int]) -> float:
    db = sqlite3.connect(path)
    started = time.perf_counter()
    for campaign_id in campaign_ids:
        # The SELECT of rebuild_campaign (same columns, same order).
        cursor = db.execute(
            "SELECT character_id, version, type, schema_version, data, game_time "
            "FROM campaign_event WHERE campaign_id = ? ORDER BY position",
            [campaign_id],
        )
        while batch := cursor.fetchmany(5000):
            for row in batch:
                json.loads(row[4])
    seconds = time.perf_counter() - started
    db.close()
    return seconds


# --- the clock -------------------------------------------------------------------------------------------------


def _broker_up(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def clock_year(characters: int, timers: int, profile: str | None = None) -> dict[str, Any]:
    """One game year for `characters` characters, through a real Celery worker; `timers` firings are expected.

    The rules cap how many timers a character holds at once (about seven), so the 2,000 timers of the target are
    counted as what the clock fires over the year; the index rows at the start are reported beside them.
    """
    broker = settings.CELERY_BROKER_URL
    if not broker or not _broker_up(broker):
        return {"skipped": f"Redis is not reachable at {broker or '(no CELERY_BROKER_URL)'}"}
    import redis

    # The queue is this run's own (CELERY_BROKER_PREFIX): drop whatever a killed earlier row left under it.
    prefix = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("global_keyprefix", "")
    redis.Redis.from_url(broker).delete(f"{prefix}celery")
    campaign, people = _characters(CLOCK_RULESET, characters, "bench clock")
    wounds = 0
    for character in people:
        for body in CLOCK_WOUNDS:
            with suppress(services.ServiceError):
                services.character_act(character_id=character.pk, body=_stunning(body), actor="bench")
                wounds += 1
    timer_count = Timer.objects.filter(campaign=campaign).count()
    if timer_count < characters:
        raise RuntimeError(f"only {timer_count} timers for {characters} characters: the setup is wrong")
    worker = _start_worker(profile)
    try:
        started = time.perf_counter()
        job = services.clock_advance_request(campaign=campaign, seconds=365 * 86_400, actor="bench")
        deadline = started + 600
        while time.perf_counter() < deadline:
            job.refresh_from_db()
            if not job.open:
                break
            time.sleep(0.005)
        seconds = time.perf_counter() - started
    finally:
        _stop_worker(worker)
    if job.status != Job.DONE:
        raise RuntimeError(f"the clock job ended {job.status}: {job.error}")
    stun_saves = Event.objects.filter(
        campaign=campaign, type="StunSaveRolled", cause__startswith="timer:"
    ).count()
    return {
        "seconds": seconds,
        "stun_saves_by_the_clock": stun_saves,
        "unit": "s",
        "characters": characters,
        "timers": timer_count,
        "timers_fired": job.timers_fired,
        "timers_wanted": timers,
        "events_appended": job.events_appended,
        "wounds_dealt": wounds,
    }


def _stunning(body: dict[str, Any]) -> dict[str, Any]:
    """The torso wound's stun save fails (a 10 on the d10): every character starts the year stunned, so the clock
    rolls a stun save each round until one succeeds (docs/rules/cyberpunk2020.md, "Timers": never collapsed into one
    roll)."""
    if body.get("location") == "torso":
        return {**body, "rolls": {"stun_save": [10]}}
    return body


def _start_worker(profile: str | None) -> subprocess.Popen:
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "campaign",
        "worker",
        "--pool=solo",
        "--loglevel=WARNING",
    ]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    env = dict(os.environ)
    if profile:
        command = [sys.executable, "-m", "pyinstrument", "-o", profile, "-r", "text", "-m", *command[2:]]
    log = open(Path(_sqlite_path()).with_suffix(".worker.log"), "w")  # noqa: SIM115 - closed with the worker
    worker = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=settings.BASE_DIR)
    from campaign.celery import app

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise RuntimeError(f"the Celery worker exited with {worker.returncode}; see {log.name}")
        if app.control.ping(timeout=0.5):
            return worker
    _stop_worker(worker)
    raise RuntimeError(f"the Celery worker did not answer within 60 s; see {log.name}")


def _stop_worker(worker: subprocess.Popen) -> None:
    import signal

    if worker.poll() is None:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


# --- the action over HTTP ---------------------------------------------------------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _cpu_of_children(pid: int) -> float:
    """CPU seconds spent so far by the processes `pid` has started (Linux /proc; 0 elsewhere)."""
    ticks = 0
    with suppress(OSError):
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        for child in children:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


@contextmanager
def _gunicorn(
    workers: int,
    *,
    app: str = "campaign.wsgi",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    threads: int = 1,
    log_name: str = "gunicorn",
    extra: tuple[str, ...] = (),
) -> Iterator[tuple[int, int]]:
    """gunicorn serving `app` (by default this project on this throwaway database) on loopback with `workers`
    gthread processes, `threads` threads each, keep-alive on (a sync worker closes every connection); yields its
    port and pid and stops it, workers and all."""
    import signal
    import urllib.error
    import urllib.request

    port = _free_port()
    if env is None:
        env = {**os.environ, "ALLOWED_HOSTS": "127.0.0.1", "DEBUG": "0"}
    command = [sys.executable, "-m", "gunicorn", app, "-w", str(workers)]
    command += ["-b", f"127.0.0.1:{port}", "-k", "gthread", "--threads", str(threads)]
    command += ["--keep-alive", "30", "--graceful-timeout", "1", *extra]
    log = open(_scratch() / f"{log_name}.log", "w")  # noqa: SIM115 - closed with the server
    server = subprocess.Popen(
        command,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=cwd or settings.BASE_DIR,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).read()  # 503 until ready
                break
            except urllib.error.HTTPError:
                break  # it answers: a peer without that path
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn did not start; see {log.name}") from None
                time.sleep(0.1)
        yield port, server.pid
    finally:
        with suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


def _post_all(port: int, token: str, requests: list[tuple[str, str]]) -> tuple[float, dict[int, int]]:
    """POST each (path, JSON body) one after the other on one keep-alive connection with the token, each answer
    read in full. Returns the seconds taken and the count of answers by status."""
    import http.client

    client = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    statuses: dict[int, int] = {}
    clock = time.perf_counter
    began = clock()
    for path, body in requests:
        client.request("POST", path, body, headers)
        answer = client.getresponse()
        answer.read()
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
    seconds = clock() - began
    client.close()
    return seconds, statuses


def _posted_in_process(token: str, requests: list[tuple[str, str]]) -> None:
    """The requests posted through Django's test client in this process: what `--profile` profiles (a profiler in
    the server's worker would measure the profiler)."""
    from django.test import Client, override_settings

    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    with override_settings(ALLOWED_HOSTS=["testserver"]):
        for path, body in requests:
            client.post(path, body, content_type="application/json")


# The sides take turns, a sixth of the requests each time: the machine's other work weighs on each alike.
ROUNDS = 6
HTTP_SIDES = ("app", "peer", "floor")


def http_action(actions: int, profile: str | None = None) -> dict[str, Any]:
    """A GM's note (`POST /api/characters/{id}/actions/`, token auth, the character's answer read in full) through
    gunicorn with one gthread worker and one thread, from one keep-alive client on loopback; vs the same kind of
    write by a minimal idiomatic DRF app (`perf.drf_peer`, built in a temporary folder: TokenAuthentication, one
    read for access, one INSERT, a ModelSerializer answer, SQLite WAL) through the same gunicorn, and beside them
    a bare WSGI function answering 3 KB (`perf.http_floor`): the three take turns (`ROUNDS`) in one run. Each
    worker's CPU per request (/proc) beside the rates."""
    from rest_framework.authtoken.models import Token

    from perf import drf_peer

    people = {ruleset: _characters(ruleset, 25, f"served {ruleset}")[1] for ruleset in MIXES}
    everyone = [character.pk for characters in people.values() for character in characters]
    token = Token.objects.get_or_create(user=_gm())[0].key
    folder = _scratch() / "drf-peer"
    folder.mkdir(exist_ok=True)
    peer_token, tables = drf_peer.build(folder, len(everyone))

    def requests(side: str, count: int, first: int) -> list[tuple[str, str]]:
        """`count` notes, the n-th on table or character n (round robin): the peer's body is the note's text."""
        made = []
        for n in range(first, first + count):
            text = f"Bench note {n}: took a hit in the alley."
            if side == "peer":
                made.append((f"/tables/{tables[n % len(tables)]}/notes/", json.dumps({"text": text})))
            else:
                path = f"/api/characters/{everyone[n % len(everyone)]}/actions/"
                made.append((path, json.dumps({"type": "note", "text": text})))
        return made

    seconds = dict.fromkeys(HTTP_SIDES, 0.0)
    cpu = dict.fromkeys(HTTP_SIDES, 0.0)
    client_cpu = dict.fromkeys(HTTP_SIDES, 0.0)
    statuses: dict[str, dict[int, int]] = {side: {} for side in HTTP_SIDES}
    tokens = {"app": token, "peer": peer_token, "floor": token}
    connection.close()  # the app's server writes the same SQLite file
    with (
        _gunicorn(workers=1) as app,
        _gunicorn(
            workers=1, app="peer_wsgi", cwd=folder, env=drf_peer.environment(folder), log_name="peer"
        ) as peer,
        _gunicorn(
            workers=1, app="http_floor:application", cwd=Path(__file__).parent, log_name="floor"
        ) as floor,
    ):
        servers = {"app": app, "peer": peer, "floor": floor}
        for side, (port, _) in servers.items():  # warm up: the workers' imports, caches, connections
            _post_all(port, tokens[side], requests(side, 100, actions))
        step = -(-actions // ROUNDS)
        for start in range(0, actions, step):
            count = min(step, actions - start)
            for side, (port, pid) in servers.items():
                server, began = _cpu_of_children(pid), _process_cpu()
                took, answered = _post_all(port, tokens[side], requests(side, count, start))
                client_cpu[side] += _process_cpu() - began
                cpu[side] += _cpu_of_children(pid) - server
                seconds[side] += took
                for status, n in answered.items():
                    statuses[side][status] = statuses[side].get(status, 0) + n
    if profile:
        with profiled(profile):
            _posted_in_process(token, requests("app", min(actions, 300), 2 * actions))
    unexpected = {side: answered for side, answered in statuses.items() if set(answered) != {201}}
    if unexpected:
        raise RuntimeError(
            f"answers other than 201: {unexpected}; see the gunicorn logs beside {_sqlite_path()}"
        )
    per = {side: 1000 * seconds[side] / actions for side in HTTP_SIDES}
    worker = {side: 1000 * cpu[side] / actions for side in HTTP_SIDES}
    return {
        "rate": actions / seconds["app"],
        "baseline": actions / seconds["peer"],
        "floor_rate": actions / seconds["floor"],
        "unit": "requests/s",
        "actions": actions,
        "answered": {side: {str(k): v for k, v in answered.items()} for side, answered in statuses.items()},
        "ms_per_request": per["app"],
        "baseline_ms_per_request": per["peer"],
        "floor_ms_per_request": per["floor"],
        "of_floor": seconds["floor"] / seconds["app"],
        "server_processes": 1,
        # CPU per request of each worker, which the machine's load moves less than wall time; and the client's.
        "server_cpu_ms_per_request": worker["app"],
        "baseline_server_cpu_ms_per_request": worker["peer"],
        "floor_server_cpu_ms_per_request": worker["floor"],
        "client_cpu_ms_per_request": 1000 * sum(client_cpu.values()) / (3 * actions),
        "cpu_ratio": worker["peer"] / worker["app"] if worker["app"] else 0.0,
        "baseline_what": (
            "a minimal idiomatic DRF app's note (TokenAuthentication, one read for access, one INSERT, a "
            "ModelSerializer answer, SQLite WAL) through the same gunicorn in the same run"
        ),
    }


# --- import ----------------------------------------------------------------------------------------------------


def _states_of(campaign: Campaign) -> list[Any]:
    return list(Character.objects.filter(campaign=campaign).order_by("pk").values_list("state", flat=True))


def import_rate(events: int, profile: str | None = None) -> dict[str, Any]:
    """An export imported as a new campaign (`transfer.import_file`: every line checked, written in bulk, the read
    models from the check's replay), vs raw `sqlite3` inserting the same rows (`_raw_import`) into the database as
    the import found it, in the same run."""
    from campaign import transfer
    from campaign.projections import rebuild_campaign

    exports, sources = [], []
    for ruleset in MIXES:
        campaign, templates = _templates(ruleset, 20, 40)
        _copy_streams(campaign, templates, events // len(MIXES))
        rebuild_campaign(campaign)  # the copies' read models, to compare the imported characters with
        sources.append(campaign)
        exports.append("".join(transfer.export_text(campaign)).encode())
    snapshot = Path(_sqlite_path()).with_suffix(".before-import.sqlite3")
    snapshot.unlink(missing_ok=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(snapshot)])
    started, cpu = time.perf_counter(), time.process_time()
    with profiled(profile):
        imported = [transfer.import_file(data, user=_gm()) for data in exports]
    seconds, import_cpu = time.perf_counter() - started, time.process_time() - cpu
    # The imported characters end as the sources' do.
    for source, copy in zip(sources, imported, strict=True):
        assert _states_of(source) == _states_of(copy), f"the import of {source.name} diverged"
    # The check alone, again (it writes nothing): the part of the import no raw insert does.
    cpu = time.process_time()
    for data in exports:
        transfer.check_file(data)
    check_cpu = time.process_time() - cpu
    written = [_imported_rows(campaign.pk) for campaign in imported]
    read = sum(len(rows["campaign_event"][1]) for rows in written)
    # The raw side is a burst of about a second: the best of three makes it the strictest baseline.
    raw_seconds, raw_cpu = min((_raw_import(snapshot, written) for _ in range(3)), key=lambda r: r[0])
    snapshot.unlink(missing_ok=True)
    return {
        "rate": read / seconds,
        "baseline": read / raw_seconds,
        "unit": "events/s",
        "events": read,
        "rows": sum(len(table_rows) for rows in written for _, table_rows in rows.values()),
        "lines_per_transaction": settings.IMPORT_LINES_PER_TRANSACTION,
        "bytes": sum(len(data) for data in exports),
        "seconds": seconds,
        "baseline_seconds": raw_seconds,
        "baseline_what": (
            "raw sqlite3 inserting the same rows (campaign, characters as the read models hold them, membership, "
            "timers, events) into the database as the import found it, one transaction per batch of events"
        ),
        "cpu_seconds": import_cpu,
        "baseline_cpu_seconds": raw_cpu,
        "cpu_ratio": raw_cpu / import_cpu,
        "check_cpu_seconds": check_cpu,
    }


# What an import writes, table by table (the job's own row aside), and what ties each row to the campaign.
_IMPORTED_TABLES = {
    "campaign_campaign": "id",
    "campaign_membership": "campaign_id",
    "campaign_character": "campaign_id",
    "campaign_timer": "campaign_id",
    "campaign_event": "campaign_id",
}


def _imported_rows(campaign_id: int) -> dict[str, tuple[list[str], list[tuple]]]:
    """Every row the import of `campaign_id` left, by table: its column names (the events' without their
    position, which the database numbers as it does for the import) and its rows, in the order written."""
    db = sqlite3.connect(_sqlite_path())
    found: dict[str, Any] = {}
    for table, key in _IMPORTED_TABLES.items():
        cursor = db.execute(f"SELECT * FROM {table} WHERE {key} = ? ORDER BY rowid", [campaign_id])
        columns = [column[0] for column in cursor.description]
        rows = cursor.fetchall()
        if table == "campaign_event":
            rows = [row[1:] for row in rows]
            assert columns[0] == "position"
            columns = columns[1:]
        found[table] = (columns, rows)
    db.close()
    return {table: found[table] for table in _IMPORTED_TABLES}


def _raw_import(
    snapshot: Path, imports: list[dict[str, tuple[list[str], list[tuple]]]]
) -> tuple[float, float]:
    """Each import's rows inserted by raw sqlite3 into a fresh copy of `snapshot` (the same schema, indexes,
    triggers and PRAGMAs): the campaign, its characters, membership and timers with the first batch of events,
    then `IMPORT_LINES_PER_TRANSACTION` events a transaction. Returns the wall and CPU seconds taken."""
    copy = snapshot.with_suffix(".raw.sqlite3")
    copy.unlink(missing_ok=True)
    shutil.copyfile(snapshot, copy)
    db = sqlite3.connect(copy, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    statements = {
        table: f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        for table, (columns, _) in imports[0].items()
    }
    batch = settings.IMPORT_LINES_PER_TRANSACTION
    started, cpu = time.perf_counter(), time.process_time()
    for tables in imports:
        events = tables["campaign_event"][1]
        for start in range(0, len(events), batch):
            db.execute("BEGIN IMMEDIATE")
            if start == 0:
                for table, (_, rows) in tables.items():
                    if table != "campaign_event":
                        db.executemany(statements[table], rows)
            db.executemany(statements["campaign_event"], events[start : start + batch])
            db.execute("COMMIT")
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    db.close()
    for leftover in (copy, copy.with_name(copy.name + "-wal"), copy.with_name(copy.name + "-shm")):
        leftover.unlink(missing_ok=True)
    return seconds, cpu


# --- history pages ---------------------------------------------------------------------------------------------


def _long_history(events: int, tag: str) -> tuple[int, Any, Any]:
    """A shadowrun2 character with `events` events (raw INSERTs: three care changes its player sees, then a GM note
    they do not), its read model rebuilt. Returns its id and API clients of its GM and its player."""
    from rest_framework.authtoken.models import Token

    from campaign.projections import rebuild_campaign

    gm, _ = get_user_model().objects.get_or_create(username=f"gm-{tag}")
    player, _ = get_user_model().objects.get_or_create(username=f"player-{tag}")
    campaign = services.campaign_create(user=gm, name=f"history {tag}", ruleset="shadowrun2")
    Membership.objects.create(
        campaign=campaign, user=player, role=PLAYER
    )  # as if the invitation was accepted
    character = services.character_create(
        campaign=campaign, actor="gm", name="Long", player=player.username, attributes={"body": 5}
    )
    columns = (
        "campaign_id, stream, character_id, version, type, schema_version, data, game_time, recorded_at, "
    )
    columns += "actor, cause, request_digest"
    rows = []
    for version in range(1, events + 1):
        if version % 4:
            kind, data = "CareChanged", f'{{"in_hospital": {"true" if version % 2 else "false"}}}'
        else:
            kind, data = "NoteAdded", f'{{"text": "GM note {version}"}}'
        rows.append(
            (campaign.pk, character.stream, character.pk, version, kind, 1, data, 0, "2026-01-01 00:00:00+00")
            + ("gm", f"action:{tag}:{version}", "")
        )
    insert = f"INSERT INTO campaign_event ({columns}) VALUES ({', '.join(['%s'] * 12)})"
    for start in range(0, len(rows), 5000):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.executemany(insert, rows[start : start + 5000])
    rebuild_campaign(Campaign.objects.get(pk=campaign.pk))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # fresh statistics, as a database that grew this much would have
        if connection.vendor == "sqlite":  # and its write-ahead log folded into the file long since
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tokens = [Token.objects.get_or_create(user=user)[0].key for user in (gm, player)]
    return character.pk, *(_WsgiClient(f"Token {key}") for key in tokens)


class _Answer(NamedTuple):
    status_code: int
    content: bytes

    def json(self) -> Any:
        return json.loads(self.content)


class _WsgiClient:
    """GET requests through Django's WSGI handler in this process, as gunicorn calls `campaign.wsgi.application`.
    Not Django's test client: it connects a receiver of its own to a signal on every request, and each connect
    leaves a `weakref.finalize` alive for as long as the client lives; thousands of them made every full
    collection of the row's process walk them, which a served process never does."""

    def __init__(self, authorization: str) -> None:
        from django.core.handlers.wsgi import WSGIHandler

        self.handler = WSGIHandler()
        self.authorization = authorization

    def get(self, url: str) -> _Answer:
        import io

        path, _, query = url.partition("?")
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "testserver",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "testserver",
            "HTTP_AUTHORIZATION": self.authorization,
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(b""),
            "wsgi.errors": sys.stderr,
        }
        status: list[str] = []
        body = self.handler(environ, lambda line, headers, *_: status.append(line))
        try:
            content = b"".join(body)
        finally:
            getattr(body, "close", lambda: None)()
        return _Answer(int(status[0].split()[0]), content)


PAGE = 50  # entries: a full page of the short history as its player sees it (75 of its 100 events)


def _page_times(
    readers: list[tuple[Any, int, bool]],
    pages: int,
    cpu: list[list[float]] | None = None,
    collected: list[int] | None = None,
    collections_ms: list[float] | None = None,
) -> list[list[float]]:
    """Milliseconds per page, for each (client, character id, walks), over `pages` pages of a history (Django's test
    client, the whole request, `PAGE` entries): down the history page after page if it `walks` (from the newest
    again after the oldest), else its newest page each time. The readers take turns, a page each, so that what
    else the machine does weighs on each alike. `cpu` gets each page's CPU time (this thread's), `collected` the
    full collections of the cyclic collector during each reader's pages."""
    times: list[list[float]] = [[] for _ in readers]
    before: list[Any] = [None for _ in readers]
    full = [0]  # the cyclic collector's full collections so far (generation 2)
    began_collecting = [0.0]

    def counted(phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            full[0] += 1
            began_collecting[0] = time.thread_time()
        elif collections_ms is not None:  # its CPU time
            collections_ms.append(1000 * (time.thread_time() - began_collecting[0]))

    gc.callbacks.append(counted)
    try:
        for _ in range(pages):
            for n, (client, character_id, walks) in enumerate(readers):
                url = f"/api/characters/{character_id}/events/?limit={PAGE}"
                began, began_cpu, collections = time.perf_counter(), time.thread_time(), full[0]
                response = client.get(f"{url}&before={before[n]}" if before[n] else url)
                times[n].append(1000 * (time.perf_counter() - began))
                if cpu is not None:
                    cpu[n].append(1000 * (time.thread_time() - began_cpu))
                if collected is not None:
                    collected[n] += full[0] - collections
                if response.status_code != 200 or len(response.json()["events"]) != PAGE:
                    raise RuntimeError(
                        f"history page answered {response.status_code}: {response.content[:300]!r}"
                    )
                before[n] = response.json()["next"] if walks else None
    finally:
        gc.callbacks.remove(counted)
    return times


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def history_page(events: int, pages: int, profile: str | None = None) -> dict[str, Any]:
    """p99 of a history page at `events` events against that at 100, as the GM and as the player, in this process
    through the whole request: the long history read page after page, the short one's newest page again and again
    (`_page_times`); the worse of the two ratios is judged."""
    from django.test import override_settings

    short, long = _long_history(100, "short"), _long_history(events, "long")
    gc.collect()
    tracked = len(gc.get_objects())  # what a full collection walks (the startup's objects are frozen)
    figures: dict[str, dict[str, float]] = {}
    with override_settings(ALLOWED_HOSTS=["testserver"]):
        for n, who in enumerate(("gm", "player"), start=1):
            readers = [(short[n], short[0], False), (long[n], long[0], True)]
            _page_times(readers, 20)  # warm up
            gc.collect()
            figures.setdefault(who, {})["tracked_after_warm_up"] = len(gc.get_objects())
            cpu: list[list[float]] = [[], []]
            collected, collections_ms = [0, 0], []
            with profiled(profile if who == "player" else None):
                measured = _page_times(readers, pages, cpu, collected, collections_ms)
                times = dict(zip(("short", "long"), measured, strict=True))
            figures[who] |= {
                f"{size}_full_collections": n for size, n in zip(("short", "long"), collected, strict=True)
            }
            figures[who]["full_collection_max_cpu_ms"] = max(collections_ms, default=0.0)
            figures[who] |= {f"{size}_p99_ms": _quantile(t, 0.99) for size, t in times.items()}
            figures[who] |= {f"{size}_p50_ms": _quantile(t, 0.5) for size, t in times.items()}
            # The same pages by CPU time (this thread's): what the machine's other work moves much less.
            for size, t in zip(("short", "long"), cpu, strict=True):
                figures[who] |= {
                    f"{size}_cpu_p99_ms": _quantile(t, 0.99),
                    f"{size}_cpu_p50_ms": _quantile(t, 0.5),
                }
    worse = max(figures.values(), key=lambda f: f["long_p99_ms"] / f["short_p99_ms"])
    # By CPU: the pages' own work, which the queue for the machine's cores (most of a p99 under load) is not.
    cpu_worse = max(f["long_cpu_p99_ms"] / f["short_cpu_p99_ms"] for f in figures.values())
    return {
        "rate": worse["long_p99_ms"],
        "baseline": worse["short_p99_ms"],
        "unit": "ms",
        "events": events,
        "pages": pages,
        **{f"{who}_{name}": value for who, f in figures.items() for name, value in f.items()},
        "tracked_objects": tracked,
        "cpu_times": cpu_worse,
        "baseline_what": "p99 of a page of a character with 100 events, read the same way in the same run",
    }


def many_players(
    players: int, seconds: float, warmup: float = 5.0, profile: str | None = None
) -> dict[str, Any]:
    """`perf.players.many_players`: players' pages polling while a GM acts (PostgreSQL, gunicorn -w 4)."""
    from perf import players as crowd

    return crowd.many_players(players, seconds, warmup, profile)


RICHEST = "richest injuries"


def _forecast_state(ruleset: str, case: str = RICHEST) -> tuple[Any, dict[str, Any]]:
    """A state of `ruleset` for the forecast row, every die entered: its richest injuries
    (perf.mixes.FORECAST_INJURIES) or one of its dearest states (perf.mixes.FORECAST_DEAREST)."""
    from rules.dice import Dice
    from rules.ruleset import fold_into, start_state

    rules = get_ruleset(ruleset)
    attributes, steps = FORECAST_INJURIES[ruleset] if case == RICHEST else FORECAST_DEAREST[ruleset][case]
    state = start_state(rules, rules.validate_attributes(attributes), rules.validate_options({}))
    for action, rolls in steps:
        fold_into(rules, state, rules.decide(state, action, Dice(rolls), 0))
    return rules, state


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def _forecast_case(ruleset: str, case: str, runs: int, repeats: int) -> dict[str, Any]:
    """One state, `repeats` seeds: `runs` futures with the chart (as the API and the page run it), and the GM's
    panel as the character page asks it (the whole what-if menu when a death is in sight, the chart, the
    template), not cached."""
    from django.template.loader import render_to_string

    from campaign.web import forecast_panel
    from rules import forecast as fc

    rules, state = _forecast_state(ruleset, case)
    campaign = Campaign(name="bench", ruleset=ruleset, options={}, game_time=0)
    character = Character(campaign=campaign, name=case, state=state)
    times, cpu, panel_times, panel_cpu = [], [], [], []
    for seed in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = fc.forecast(rules, state, 0, player=False, runs=runs, seed=seed)
        fc.chart(result)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        # The panel's seed is the page's own (a digest of the state): each repeat makes the same forecast again.
        started, started_cpu = time.perf_counter(), time.process_time()
        render_to_string("web/forecast.html", forecast_panel.panel_context(character, GM))
        panel_times.append(time.perf_counter() - started)
        panel_cpu.append(time.process_time() - started_cpu)
    return {
        "seconds": _median(times),
        "cpu_seconds": _median(cpu),
        "panel_seconds": _median(panel_times),
        "panel_cpu_seconds": _median(panel_cpu),
        "injuries": [item.what for item in result.untreated.items],
        "distinct_futures": len(result.untreated.futures),
    }


def forecast(runs: int, repeats: int, profile: str | None = None) -> dict[str, Any]:
    """`runs` futures of each ruleset's richest injuries and of its dearest states (perf/mixes.py), the chart
    included, and the GM's panel of each with its what-ifs: the median of `repeats` seeds each. The figures are
    the slowest case's, of either (the row: 1,000 futures under 200 ms, the panel under 500 ms)."""
    per_ruleset: dict[str, Any] = {}
    with profiled(profile):
        for ruleset in FORECAST_INJURIES:
            cases = {
                case: _forecast_case(ruleset, case, runs, repeats)
                for case in (RICHEST, *FORECAST_DEAREST.get(ruleset, {}))
            }
            richest = cases[RICHEST]
            per_ruleset[ruleset] = {
                **{
                    name: max(case[name] for case in cases.values())
                    for name in ("seconds", "cpu_seconds", "panel_seconds", "panel_cpu_seconds")
                },
                "injuries": richest["injuries"],
                "distinct_futures": richest["distinct_futures"],
                "cases": cases,
            }
    rows = per_ruleset.values()
    return {
        "unit": "s",
        **{
            name: max(row[name] for row in rows)
            for name in ("seconds", "cpu_seconds", "panel_seconds", "panel_cpu_seconds")
        },
        "panel_target_seconds": PANEL_TARGET_SECONDS,
        "load_average": os.getloadavg()[:2],
        "runs": runs,
        "repeats": repeats,
        "rulesets": per_ruleset,
    }


def _party(ruleset: str) -> tuple[Campaign, list[Character]]:
    """The recovery row's party of `ruleset` (perf.mixes.RECOVERY_PARTY), every die entered, as unsaved rows: the
    view reads nothing else of them."""
    from rules.dice import Dice
    from rules.ruleset import fold_into, start_state

    rules = get_ruleset(ruleset)
    campaign = Campaign(pk=1, name="bench", ruleset=ruleset, options={}, game_time=0)
    party = []
    for n, (attributes, steps) in enumerate(RECOVERY_PARTY[ruleset], start=1):
        state = start_state(rules, rules.validate_attributes(attributes), rules.validate_options({}))
        for action, rolls in steps:
            fold_into(rules, state, rules.decide(state, action, Dice(rolls), 0))
        party.append(
            Character(pk=n, campaign=campaign, name=f"{ruleset} {n}", state=state, version=len(steps))
        )
    return campaign, party


def recovery(runs: int, repeats: int, profile: str | None = None) -> dict[str, Any]:
    """The party's recovery of six injured characters of each ruleset at `runs` futures each, as the GM's page
    makes it (campaign.recovery.party_recovery, then the chart and the answer's words), the median of `repeats`.
    The figure is the slowest ruleset's. The seed is the default one (a digest of the state), as on the page."""
    from campaign import recovery as rv
    from campaign.web import recovery_chart

    per_ruleset: dict[str, Any] = {}
    with profiled(profile):
        for ruleset in RECOVERY_PARTY:
            campaign, party = _party(ruleset)
            times, cpu = [], []
            for _ in range(repeats):
                started, started_cpu = time.perf_counter(), time.process_time()
                result = rv.party_recovery(campaign, "gm", party, runs=runs)
                recovery_chart.draw(result, {})
                rv.recovery_json(result)
                times.append(time.perf_counter() - started)
                cpu.append(time.process_time() - started_cpu)
            per_ruleset[ruleset] = {
                "seconds": sorted(times)[len(times) // 2],
                "cpu_seconds": sorted(cpu)[len(cpu) // 2],
                "characters": len(party),
                "party": rv.party_text(result, result.party),
                "distinct_futures": sum(len(m.outlook.futures) for m in result.members),
            }
    slowest = max(per_ruleset.values(), key=lambda row: row["seconds"])
    return {
        "unit": "s",
        "seconds": slowest["seconds"],
        "cpu_seconds": slowest["cpu_seconds"],
        "runs": runs,
        "repeats": repeats,
        "rulesets": per_ruleset,
    }


PANEL_TARGET_SECONDS = 0.5  # the GM's forecast panel with its what-ifs (issue 31)


ROWS: dict[str, Callable[..., dict[str, Any]]] = {
    "actions": action_path,
    "rebuild": rebuild,
    "clock": clock_year,
    "postgres": postgres_actions,
    "http_action": http_action,
    "import": import_rate,
    "history_page": history_page,
    "forecast": forecast,
    "recovery": recovery,
    "many_players": many_players,
    "board": board,
    "lighthouse": lighthouse,
}
