"""`/healthz` (the process answers) and `/readyz` (database, migrations, cache and task queue): JSON, no
authentication, no secrets, 503 naming what is down (docs/operations.md, "Health checks")."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client, override_settings

from campaign.celery import app
from campaign.http import health
from tests.edge.test_services_down import broker_down, cache_down, database_down

IN_PROCESS = "ok (none: tasks run in the server's process)"
READY = {"database": "ok", "migrations": "ok", "cache": "ok", "broker": IN_PROCESS}


@pytest.fixture(autouse=True)
def _migrations_checked_afresh(monkeypatch: Any) -> None:
    monkeypatch.setattr(health, "_migrated", False)


def _json(response: Any) -> Any:
    assert response["Content-Type"] == "application/json"
    assert "no-store" in response["Cache-Control"]
    return response.json()


@pytest.mark.django_db
def test_healthz_says_the_process_answers_to_anyone() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert _json(response) == {"status": "alive"}
    assert Client().head("/healthz").status_code == 200
    assert Client().post("/healthz").status_code == 405


@pytest.mark.django_db
def test_readyz_is_ready_when_every_service_answers() -> None:
    response = Client().get("/readyz")
    assert response.status_code == 200
    assert _json(response) == {"status": "ready", "checks": READY}


@pytest.mark.django_db(transaction=True)
def test_with_the_database_down_healthz_answers_and_readyz_is_a_503_naming_it() -> None:
    with database_down():
        alive = Client().get("/healthz")
        ready = Client().get("/readyz")
    assert (alive.status_code, _json(alive)) == (200, {"status": "alive"})
    assert ready.status_code == 503
    assert _json(ready) == {
        "status": "not ready",
        "down": ["database"],
        "checks": {
            "database": "the database cannot be reached",
            "migrations": "not checked: the database cannot be reached",
            "cache": "ok",
            "broker": IN_PROCESS,
        },
    }


@pytest.mark.django_db
def test_readyz_says_how_many_migrations_are_not_applied() -> None:
    # The app's latest migration not applied (as after a deploy whose migrate has not run yet).
    latest = max(name for app, name in MigrationLoader(None).graph.leaf_nodes() if app == "campaign")
    MigrationRecorder.Migration.objects.filter(app="campaign", name=latest).delete()
    response = Client().get("/readyz")
    assert response.status_code == 503
    assert _json(response) == {
        "status": "not ready",
        "down": ["migrations"],
        "checks": {**READY, "migrations": "1 migration not applied yet"},
    }


@pytest.mark.django_db
def test_with_the_shared_cache_or_the_task_queue_down_readyz_names_it_and_no_address() -> None:
    with cache_down():
        cache = Client().get("/readyz")
    with broker_down():
        broker = Client().get("/readyz")
    assert cache.status_code == broker.status_code == 503
    assert _json(cache) == {
        "status": "not ready",
        "down": ["cache"],
        "checks": {**READY, "cache": "the shared cache cannot be reached"},
    }
    assert _json(broker) == {
        "status": "not ready",
        "down": ["broker"],
        "checks": {**READY, "broker": "the task queue cannot be reached"},
    }


@pytest.mark.django_db
def test_readyz_with_a_real_shared_cache_and_task_queue(redis_service: str) -> None:
    from tests.celery_worker import Queue

    # Keys of this run's own (tests/celery_worker.py): the cache's probe never meets another run's.
    own = Queue.own("readyz")
    cache = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_service,
            "KEY_PREFIX": own.prefix,
        }
    }
    saved = app.conf.broker_url, app.conf.task_always_eager
    app.conf.broker_url, app.conf.task_always_eager = redis_service, False
    try:
        with override_settings(CACHES=cache, CELERY_TASK_ALWAYS_EAGER=False, CELERY_BROKER_URL=redis_service):
            response = Client().get("/readyz")
    finally:
        app.conf.broker_url, app.conf.task_always_eager = saved
        app._pool = None
        own.clear()
    assert response.status_code == 200
    assert _json(response) == {"status": "ready", "checks": {**READY, "broker": "ok"}}
