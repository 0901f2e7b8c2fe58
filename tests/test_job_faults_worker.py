"""A real Celery worker whose database connections are dropped (`pg_terminate_backend`) in the middle of an advance
and of an import: both go on and finish, and the campaigns' exports are importable (docs/clock.md, "Faults").

Needs PostgreSQL (the test database is that of DATABASE_URL) and Redis on 127.0.0.1:6379: skipped without them
on a laptop, failing in CI where REQUIRE_SERVICES=1. Run it under `flock /tmp/redis.lock`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from campaign import services, transfer
from campaign.models import Campaign, Event, ImportJob, Job, Membership
from tests.conftest import make_persona, need_service
from tests.test_clock_worker import KILL_BROKER, Worker, broker_for_this_process
from tests.test_job_faults import export, histories, stunned_crowd

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
WEEK = 7 * 86_400
DROPPED = "database fault"  # what the worker logs when it retries a slice (campaign/tasks.py)


@pytest.fixture
def postgres() -> None:
    need_service("PostgreSQL", "127.0.0.1", 5432)
    if connection.vendor != "postgresql":
        pytest.skip(
            "drops connections with PostgreSQL's pg_terminate_backend: run with DATABASE_URL=postgres://..."
        )


@pytest.fixture
def worker(postgres: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Worker]:
    """A worker on a queue of its own, with small batches (a long job) and quick retries."""
    import redis

    need_service("Redis", "127.0.0.1", 6379)
    redis.Redis.from_url(KILL_BROKER).flushdb()
    monkeypatch.setenv("JOB_RETRY_FIRST_SECONDS", "0.2")
    monkeypatch.setenv("JOB_RETRY_MAX_SECONDS", "1")
    monkeypatch.setenv("IMPORT_LINES_PER_TRANSACTION", "3")
    with broker_for_this_process(KILL_BROKER):
        running = Worker(KILL_BROKER, firings_per_transaction=2)
        running.start()
        try:
            yield running
        finally:
            running.stop()


def _log_size(worker: Worker) -> int:
    return worker.log.stat().st_size if worker.log.exists() else 0


def _logged_since(log: Path, offset: int) -> str:
    with open(log, "rb") as text:
        text.seek(offset)
        return text.read().decode(errors="replace")


def _drop_connections() -> int:
    """Terminate every other connection to the test database: the worker's among them."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def _drop_while(open_: Any, worker: Worker, offset: int, timeout: float = 90) -> int:
    """Drop the connections again and again while `open_()` holds, until the worker has logged a retry at least
    twice. Returns how many times a connection was dropped."""
    deadline = time.monotonic() + timeout
    dropped = 0
    while open_() and _logged_since(worker.log, offset).count(DROPPED) < 2:
        assert time.monotonic() < deadline, "the job neither finished nor met a dropped connection"
        dropped += _drop_connections()
        time.sleep(0.15)
    return dropped


def _wait(read: Any, timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = read()
        if not job.open:
            return job
        time.sleep(0.1)
    raise AssertionError(f"the job did not finish in {timeout} s")


def test_dropped_connections_during_an_advance_and_an_import_end_in_finished_jobs_and_importable_exports(
    django_user_model: Any, worker: Worker
) -> None:
    gm = make_persona(django_user_model, "gm")
    calm = services.campaign_create(user=gm.user, name="Calm", ruleset="cyberpunk2020")
    struck = services.campaign_create(user=gm.user, name="Struck", ruleset="cyberpunk2020")
    stunned_crowd(calm, 30)
    stunned_crowd(struck, 30)

    # The advance: 30 characters heal 10 hours of stun each, two firings a transaction (150 transactions).
    offset = _log_size(worker)
    job = services.clock_advance_request(campaign=struck, seconds=WEEK, actor="gm")
    deadline = time.monotonic() + 60
    while Job.objects.get(pk=job.pk).timers_fired < 10:
        assert time.monotonic() < deadline, "the worker never got going"
        time.sleep(0.02)
    assert _drop_while(lambda: Job.objects.get(pk=job.pk).open, worker, offset) > 0
    assert _logged_since(worker.log, offset).count(DROPPED) >= 2, "no dropped connection reached the worker"
    job = _wait(lambda: Job.objects.get(pk=job.pk))
    assert (job.status, job.error) == (Job.DONE, "")
    assert Campaign.objects.get(pk=struck.pk).game_time == WEEK
    assert Event.objects.filter(campaign=struck, type="ClockAdvanced").count() == 1
    # Every firing once, as an uninterrupted run fires them.
    services.clock_run(services.clock_advance_request(campaign=calm, seconds=WEEK, actor="gm").pk)
    assert histories(struck) == histories(calm)
    data = export(struck)
    transfer.check_file(data)

    # The import of that export: three lines a transaction, the connections dropped as it writes.
    offset = _log_size(worker)
    imported = transfer.import_request(data=data, user=gm.user)
    deadline = time.monotonic() + 60
    while ImportJob.objects.get(pk=imported.pk).lines_written == 0:
        assert time.monotonic() < deadline, "the worker never started the import"
        time.sleep(0.02)
    assert _drop_while(lambda: ImportJob.objects.get(pk=imported.pk).open, worker, offset) > 0
    assert _logged_since(worker.log, offset).count(DROPPED) >= 2, "no dropped connection reached the import"
    imported = _wait(lambda: ImportJob.objects.get(pk=imported.pk))
    assert (imported.status, imported.error, imported.lines_written) == (ImportJob.DONE, "", imported.lines)
    copy = Campaign.objects.get(pk=imported.campaign_id)
    assert Membership.objects.filter(campaign=copy, user=gm.user).exists()
    assert [h[1:] for h in histories(copy)] == [h[1:] for h in histories(struck)]
    assert copy.game_time == WEEK
    transfer.check_file(export(copy))
