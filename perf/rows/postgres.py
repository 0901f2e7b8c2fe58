"""The postgres row: actions per second of one process on PostgreSQL, against raw psycopg writing the same rows."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.db import connection

from perf.harness.databases import copy_of_this_database, fresh_copy, postgres_maintenance, with_database
from perf.harness.measure import CpuSpent, cpu_spent, profiled
from perf.harness.mixes import MIXES
from perf.harness.raw import EVENT_COLUMNS, RawAction, events_after, last_position, states, written
from perf.harness.seeding import act_all, characters, plan


def postgres_actions(actions: int, threads: int = 8, profile: str | None = None) -> dict[str, Any]:
    """Actions per second of one process on PostgreSQL (target: an absolute rate), and raw psycopg writing the
    same rows from the same threads as the measure of what this machine allows.

    A server process serves many campaigns at once: `threads` threads of this process, each with its own
    connection and its own two campaigns, run the actions row's mix concurrently (commits of different campaigns
    overlap; the same campaign's actions are serialized by its lock whatever the thread count). The same workload
    on one thread, one action at a time, is reported beside it.
    """
    people = {ruleset: characters(ruleset, 25, f"bench {ruleset}")[1] for ruleset in MIXES}
    act_all(plan(people, 100))
    sequential_seconds, sequential, _ = act_all(plan(people, actions // 2))
    groups = [
        {ruleset: characters(ruleset, 6, f"bench {ruleset} {n}")[1] for ruleset in MIXES}
        for n in range(threads)
    ]
    warm_ups = [
        {ruleset: characters(ruleset, 2, f"warm-up {ruleset} {n}")[1] for ruleset in MIXES}
        for n in range(threads)
    ]
    before, before_states = last_position(), states()
    connection.close()
    raw_database = copy_of_this_database()  # as the measured run finds it, for the raw side
    start = threading.Barrier(threads)

    def run(n: int) -> tuple[float, float, list[Any], int]:
        try:
            act_all(plan(warm_ups[n], 20))  # connect and warm up before the clock starts
            start.wait()
            began = time.perf_counter()
            _, results, refused = act_all(plan(groups[n], actions // threads))
            return began, time.perf_counter(), results, refused
        finally:
            connection.close()

    try:
        with cpu_spent() as cpu, profiled(profile), ThreadPoolExecutor(threads) as pool:
            spans = list(pool.map(run, range(threads)))
        seconds = max(end for _, end, _, _ in spans) - min(began for began, _, _, _ in spans)
        done = sum(len(results) for _, _, results, _ in spans)
        by_position = events_after(before)
        per_thread = [written(results, before_states, by_position) for _, _, results, _ in spans]
        raw_seconds, raw_cpu = min(
            (_raw_postgres(raw_database, per_thread) for _ in range(2)), key=lambda r: r[0]
        )
    finally:
        connection.close()
        postgres_maintenance(f'DROP DATABASE IF EXISTS "{raw_database}" WITH (FORCE)')
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


def _raw_postgres(database: str, per_thread: list[list[RawAction]]) -> tuple[float, CpuSpent]:
    """Replay each thread's writes on a fresh copy of `database` from a thread of its own, one transaction per
    action, with psycopg's defaults (server-side parameters, statements prepared once repeated). Returns the
    seconds from the common start to the last commit and the CPU spent."""
    import psycopg

    replay = fresh_copy(database, f"{database}_replay")
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
        postgres_maintenance(f'DROP DATABASE IF EXISTS "{replay}" WITH (FORCE)')
    return max(end for _, end in spans) - min(began for began, _ in spans), cpu
