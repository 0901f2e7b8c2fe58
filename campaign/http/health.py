"""Health checks for a load balancer or an orchestrator (docs/operations.md, "Health checks").

`/healthz`: the process answers (liveness); it touches no service. `/readyz`: the database answers, every migration
is applied, the shared cache and the task queue answer (readiness); 503 naming what is down. Both JSON, without
authentication, and without anything an outsider could use: no URL, host, password, version or error text (those
go to the log).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from campaign.celery import app

log = logging.getLogger(__name__)

OK = "ok"
NOT_CHECKED = "not checked"
WORDS = {
    "database": "the database cannot be reached",
    "cache": "the shared cache cannot be reached",
    "broker": "the task queue cannot be reached",
}
PROBE_KEY = "readyz-probe"
_migrated = (
    False  # once every migration this process knows is applied, it stays so (the code does not change)
)


def _database() -> str:
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return OK


def _migrations() -> str:
    global _migrated
    if _migrated:
        return OK
    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        count = len(pending)
        return f"{count} migration{'s' if count != 1 else ''} not applied yet"
    _migrated = True
    return OK


def _cache() -> str:
    caches["default"].get(PROBE_KEY)  # the process's own memory without CACHE_URL: always answers
    return OK


def _broker() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "ok (none: tasks run in the server's process)"
    with app.connection_for_write() as connection:
        connection.ensure_connection(max_retries=1, timeout=2)
    return OK


def checks() -> dict[str, str]:
    """Each service's state in words: "ok", or what is wrong with it."""
    found: dict[str, str] = {}
    probes: tuple[tuple[str, Callable[[], str]], ...] = (
        ("database", _database),
        ("migrations", _migrations),
        ("cache", _cache),
        ("broker", _broker),
    )
    for name, probe in probes:
        if name == "migrations" and found["database"] != OK:
            found[name] = f"{NOT_CHECKED}: the database cannot be reached"
            continue
        try:
            found[name] = probe()
        except (
            Exception
        ) as error:  # each driver raises its own; the answer names the service, the log the error
            log.warning("readiness: %s down: %s: %s", name, type(error).__name__, error)
            found[name] = WORDS[name]
    return found


@require_safe
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is up and answers: nothing else is asked."""
    return JsonResponse({"status": "alive"})


@require_safe
@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    """Ready for traffic: every service answers and the schema is current; 503 naming what is not."""
    found = checks()
    down = [name for name, state in found.items() if not state.startswith((OK, NOT_CHECKED))]
    if down:
        return JsonResponse({"status": "not ready", "down": down, "checks": found}, status=503)
    return JsonResponse({"status": "ready", "checks": found})
