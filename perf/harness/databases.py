"""Throwaway databases: the bench's command names one for each row's child process (a SQLite file in a temporary
folder, or `wl_bench_<pid>` on a PostgreSQL server); a row copies it for its raw side; a load test makes a served
copy of the app on one of its own.

Django is imported inside the functions: a load test imports this module before it has set its environment up.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]


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


def postgres_maintenance(statement: str) -> None:
    """`statement` on the server of this row's database (the parent process named it in DATABASE_URL)."""
    postgres_execute(os.environ["DATABASE_URL"], statement)


def fresh_copy(template: str, name: str) -> str:
    """Database `name`, made anew as a copy of `template` (`CREATE DATABASE ... TEMPLATE`). Returns `name`."""
    postgres_maintenance(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    postgres_maintenance(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return name


def copy_of_this_database() -> str:
    """A copy of this (throwaway) PostgreSQL database, made with it as the template: nobody may be connected."""
    from django.conf import settings

    template = settings.DATABASES["default"]["NAME"]
    return fresh_copy(template, f"{template}_raw")


def sqlite_path() -> str:
    """The file of this row's SQLite database."""
    from django.conf import settings

    return str(settings.DATABASES["default"]["NAME"])


def scratch() -> Path:
    """Where a row keeps its files (servers' logs, copies): beside its throwaway SQLite database, or in the
    temporary directory."""
    from django.db import connection

    if connection.vendor == "sqlite":
        return Path(sqlite_path()).parent
    return Path(tempfile.gettempdir())


def snapshot(suffix: str) -> Path:
    """This SQLite database as it is now, copied (`VACUUM INTO`) beside it with `suffix`: what a raw side starts
    from."""
    from django.db import connection

    copy = Path(sqlite_path()).with_suffix(suffix)
    copy.unlink(missing_ok=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(copy)])
    return copy


def remove_sqlite(path: Path) -> None:
    """A SQLite file and its write-ahead log and shared memory files."""
    for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        leftover.unlink(missing_ok=True)


def collected_static(env: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """The static files collected into a new temporary folder, as a deployment does (DEBUG off reads their
    manifest); the folder and `env` naming it in STATIC_ROOT, for a server to start with."""
    static = Path(tempfile.mkdtemp(prefix="wl-static-"))
    env = {**env, "STATIC_ROOT": str(static)}
    command = [sys.executable, str(ROOT / "manage.py"), "collectstatic", "--noinput", "-v", "0"]
    subprocess.run(command, cwd=ROOT, env=env, check=True, timeout=300)
    return static, env


def served_copy(folder: Path, database: Path, **extra: str) -> dict[str, str]:
    """A served copy of the app in this process and the environment its servers start with: SQLite at `database`,
    DEBUG off, the static files collected into `folder`/static, `extra` settings beside; Django set up, the database
    migrated."""
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "DEBUG": "0",
        "SECRET_KEY": "load-test",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SETTINGS_MODULE": "campaign.settings",
        "STATIC_ROOT": str(folder / "static"),
        "PYTHONPATH": str(ROOT),
        **extra,
    }
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)
    return env
