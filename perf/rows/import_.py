"""The import row: an export imported as a new campaign, against raw sqlite3 inserting the same rows."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

from django.conf import settings

from campaign import transfer
from campaign.ledger.projections import rebuild_campaign
from campaign.models import Campaign, Character
from perf.harness.databases import remove_sqlite, snapshot, sqlite_path
from perf.harness.measure import profiled
from perf.harness.mixes import MIXES
from perf.harness.seeding import bench_gm, copy_streams, templates


def _states_of(campaign: Campaign) -> list[Any]:
    return list(Character.objects.filter(campaign=campaign).order_by("pk").values_list("state", flat=True))


def import_rate(events: int, profile: str | None = None) -> dict[str, Any]:
    """An export imported as a new campaign (`transfer.import_file`: every line checked, written in bulk, the read
    models from the check's replay), vs raw `sqlite3` inserting the same rows (`_raw_import`) into the database as
    the import found it, in the same run."""
    exports, sources = [], []
    for ruleset in MIXES:
        campaign, originals = templates(ruleset, 20, 40)
        copy_streams(campaign, originals, events // len(MIXES))
        rebuild_campaign(campaign)  # the copies' read models, to compare the imported characters with
        sources.append(campaign)
        exports.append("".join(transfer.export_text(campaign)).encode())
    start = snapshot(".before-import.sqlite3")
    started, cpu = time.perf_counter(), time.process_time()
    with profiled(profile):
        imported = [transfer.import_file(data, user=bench_gm()) for data in exports]
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
    raw_seconds, raw_cpu = min((_raw_import(start, written) for _ in range(3)), key=lambda r: r[0])
    start.unlink(missing_ok=True)
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
    db = sqlite3.connect(sqlite_path())
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


def _raw_import(start: Path, imports: list[dict[str, tuple[list[str], list[tuple]]]]) -> tuple[float, float]:
    """Each import's rows inserted by raw sqlite3 into a fresh copy of `start` (the same schema, indexes, triggers
    and PRAGMAs): the campaign, its characters, membership and timers with the first batch of events, then
    `IMPORT_LINES_PER_TRANSACTION` events a transaction. Returns the wall and CPU seconds taken."""
    copy = start.with_suffix(".raw.sqlite3")
    copy.unlink(missing_ok=True)
    shutil.copyfile(start, copy)
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
        for first in range(0, len(events), batch):
            db.execute("BEGIN IMMEDIATE")
            if first == 0:
                for table, (_, rows) in tables.items():
                    if table != "campaign_event":
                        db.executemany(statements[table], rows)
            db.executemany(statements["campaign_event"], events[first : first + batch])
            db.execute("COMMIT")
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    db.close()
    remove_sqlite(copy)
    return seconds, cpu
