"""The actions row: the one write path on SQLite against raw sqlite3 writing the same rows."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

from perf.harness.databases import remove_sqlite, snapshot
from perf.harness.measure import profiled
from perf.harness.mixes import MIXES
from perf.harness.raw import EVENT_COLUMNS, RawAction, events_after, last_position, states, written
from perf.harness.seeding import act_all, characters, plan


def action_path(actions: int, profile: str | None = None) -> dict[str, Any]:
    """services.character_act, one transaction each, vs raw sqlite3 writing the same rows one transaction each."""
    people = {ruleset: characters(ruleset, 25, f"bench {ruleset}")[1] for ruleset in MIXES}
    act_all(plan(people, 100))  # warm up: imports, caches, the first timers
    before = last_position()
    start = snapshot(".raw.sqlite3")
    before_states = states()
    with profiled(profile):
        seconds, results, refused = act_all(plan(people, actions))
    done = len(results)
    transactions = written(results, before_states, events_after(before))
    # The raw side takes a fraction of a second: the best of three makes it the strictest baseline, not the noisiest.
    raw_seconds = min(_raw_inserts(start, transactions) for _ in range(3))
    raw_without_timers = min(_raw_inserts(start, transactions, timers=False) for _ in range(3))
    start.unlink(missing_ok=True)
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
    remove_sqlite(copy)
    return seconds
