"""The benchmark behind `manage.py bench`: each target of docs/PERFORMANCE.md measured as a ratio against its baseline.

`perf.rows` holds the workloads; each runs in a child process whose DATABASE_URL names a throwaway
database, so the developer's db.sqlite3 is never touched.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit


def with_database(url: str, name: str) -> str:
    """`url` (a database URL) naming the database `name` instead."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def postgres_execute(server: str, statement: str) -> None:
    """Run `statement` (CREATE or DROP DATABASE) on the server of the PostgreSQL URL `server`, outside a
    transaction, from its `postgres` maintenance database."""
    import psycopg

    with psycopg.connect(with_database(server, "postgres"), autocommit=True, connect_timeout=5) as db:
        db.execute(statement)


def machine_busy() -> float | None:
    """CPU seconds the whole machine has been busy since boot (Linux `/proc/stat`), or None."""
    try:
        with open("/proc/stat") as stat:
            user, nice, system, _idle, _iowait, irq, softirq = (int(n) for n in stat.readline().split()[1:8])
    except (OSError, ValueError):
        return None
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")
