"""What a served process does once it has started: its long-lived objects set aside from the garbage collector."""

from __future__ import annotations

import ast
import gc
import os
import subprocess
import sys

import pytest
from celery.signals import worker_init
from django.conf import settings

from campaign import celery


def test_the_wsgi_application_freezes_what_start_up_built() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "campaign.settings"}
    code = "import gc, campaign.wsgi; print(gc.get_freeze_count(), gc.get_threshold()[2])"
    frozen = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    # Django, the URLconf, the rule tables: tens of thousands of objects no collection needs to walk again.
    count, full_every = (int(n) for n in frozen.stdout.split())
    assert count > 20_000
    # And the full collections ten times rarer than Python's default (10 generation-1 collections between two).
    assert full_every == 100


def test_a_celery_worker_freezes_what_start_up_built_too() -> None:
    assert any(receiver() is celery.freeze_after_start for _, receiver in worker_init.receivers)
    gc.unfreeze()  # whatever an earlier test in this process froze
    assert gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    try:
        celery.freeze_after_start()
        assert gc.get_freeze_count() > 20_000
        assert gc.isenabled()  # objects created later are still collected
        assert gc.get_threshold()[2] == 100
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def _database_options(**env: str) -> dict:
    code = "import django; django.setup(); from django.conf import settings; print(settings.DATABASES['default']['OPTIONS'])"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "campaign.settings", **env},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    return ast.literal_eval(done.stdout.strip())


def test_postgresql_prepares_repeated_statements_unless_a_pooler_needs_it_off() -> None:
    url = "postgres://postgres@127.0.0.1:5432/test"
    assert _database_options(DATABASE_URL=url) == {"server_side_binding": True, "prepare_threshold": 5}
    off = _database_options(DATABASE_URL=url, DATABASE_PREPARE_THRESHOLD="off")
    assert off == {"server_side_binding": True, "prepare_threshold": None}
    with pytest.raises(subprocess.CalledProcessError) as refused:
        _database_options(DATABASE_URL=url, DATABASE_PREPARE_THRESHOLD="0")
    assert (
        "DATABASE_PREPARE_THRESHOLD: expected a whole number above 0 or off, got '0'" in refused.value.stderr
    )


def _in_a_process(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        env={**_without_cache_url(), "DJANGO_SETTINGS_MODULE": "campaign.settings", **env},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _without_cache_url() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name != "CACHE_URL"}


def test_server_processes_share_the_log_in_throttles_through_cache_url() -> None:
    """What one process counts (a failed log-in) another sees: with CACHE_URL the default cache is Redis."""
    from tests.conftest import need_service

    need_service("Redis", "127.0.0.1", 6379)
    from tests.celery_worker import Queue

    url = "redis://127.0.0.1:6379/13"
    probe = f"{Queue.own('throttle').prefix}probe"  # a key of this run's own
    backend = "from django.core.cache import caches; print(type(caches['default']).__name__)"
    assert _in_a_process(backend) == "LocMemCache"
    assert _in_a_process(backend, CACHE_URL=url) == "RedisCache"
    counted = (
        f"from django.core.cache import cache; cache.set({probe!r}, 0, 60); print(cache.incr({probe!r}))"
    )
    assert _in_a_process(counted, CACHE_URL=url) == "1"
    seen = f"from django.core.cache import cache; print(cache.get({probe!r})); cache.delete({probe!r})"
    assert _in_a_process(seen, CACHE_URL=url) == "1"
    assert _in_a_process(seen) == "None"  # without it, each process counts alone
