"""A real Celery worker whose database connections are dropped (`pg_terminate_backend`) in the middle of an advance
and of an import: both go on and finish, and the campaigns' exports are importable (docs/clock.md, "Faults").

Needs PostgreSQL (the test database is that of DATABASE_URL) and Redis on 127.0.0.1:6379: skipped without them
on a laptop, failing in CI where REQUIRE_SERVICES=1. The worker's queue is this run's own (tests/celery_worker.py).
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
from tests.celery_worker import JOB_IDLE, Worker, broker_for_this_process, own_queue, wait_for_job
from tests.clock.test_job_faults import export, histories, stunned_crowd
from tests.conftest import make_persona, need_service

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
    need_service("Redis", "127.0.0.1", 6379)
    monkeypatch.setenv("JOB_RETRY_FIRST_SECONDS", "0.2")
    monkeypatch.setenv("JOB_RETRY_MAX_SECONDS", "1")
    monkeypatch.setenv("IMPORT_LINES_PER_TRANSACTION", "3")
    with own_queue("faults") as queue, broker_for_this_process(queue), Worker(queue, 2) as running:
        yield running


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


def _drop_while(job: Any, worker: Worker, offset: int) -> int:
    """Drop the connections again and again while the job is open, until the worker has logged a retry at least
    twice; a job that stops moving fails the test. Returns how many times a connection was dropped."""
    dropped = 0
    moved, seen = time.monotonic(), None
    while (now := job()).open and _logged_since(worker.log, offset).count(DROPPED) < 2:
        progress = (
            worker.log_size(),
            now.status,
            getattr(now, "reached", None),
            getattr(now, "lines_written", None),
        )
        if progress != seen:
            moved, seen = time.monotonic(), progress
        assert time.monotonic() - moved < JOB_IDLE, "the job neither moved nor met a dropped connection"
        assert worker.running(), worker.logged()[-3000:]
        dropped += _drop_connections()
        time.sleep(0.15)
    return dropped


def test_dropped_connections_during_an_advance_and_an_import_end_in_finished_jobs_and_importable_exports(
    django_user_model: Any, worker: Worker
) -> None:
    gm = make_persona(django_user_model, "gm")
    calm = services.campaign_create(user=gm.user, name="Calm", ruleset="cyberpunk2020")
    struck = services.campaign_create(user=gm.user, name="Struck", ruleset="cyberpunk2020")
    stunned_crowd(calm, 30)
    stunned_crowd(struck, 30)

    # The advance: 30 characters heal 10 hours of stun each, two firings a transaction (150 transactions).
    offset = worker.log_size()
    job = services.clock_advance_request(campaign=struck, seconds=WEEK, actor="gm")
    wait_for_job(Job, job.pk, lambda job: job.timers_fired >= 10 or not job.open, worker)
    assert _drop_while(lambda: Job.objects.get(pk=job.pk), worker, offset) > 0
    assert _logged_since(worker.log, offset).count(DROPPED) >= 2, "no dropped connection reached the worker"
    job = wait_for_job(Job, job.pk, worker=worker)
    assert (job.status, job.error) == (Job.DONE, "")
    assert Campaign.objects.get(pk=struck.pk).game_time == WEEK
    assert Event.objects.filter(campaign=struck, type="ClockAdvanced").count() == 1
    # Every firing once, as an uninterrupted run fires them.
    services.clock_run(services.clock_advance_request(campaign=calm, seconds=WEEK, actor="gm").pk)
    assert histories(struck) == histories(calm)
    data = export(struck)
    transfer.check_file(data)

    # The import of that export: three lines a transaction, the connections dropped as it writes.
    offset = worker.log_size()
    imported = transfer.import_request(data=data, user=gm.user)
    wait_for_job(ImportJob, imported.pk, lambda job: job.lines_written > 0 or not job.open, worker)
    assert _drop_while(lambda: ImportJob.objects.get(pk=imported.pk), worker, offset) > 0
    assert _logged_since(worker.log, offset).count(DROPPED) >= 2, "no dropped connection reached the import"
    imported = wait_for_job(ImportJob, imported.pk, worker=worker)
    assert (imported.status, imported.error, imported.lines_written) == (ImportJob.DONE, "", imported.lines)
    copy = Campaign.objects.get(pk=imported.campaign_id)
    assert Membership.objects.filter(campaign=copy, user=gm.user).exists()
    assert [h[1:] for h in histories(copy)] == [h[1:] for h in histories(struck)]
    assert copy.game_time == WEEK
    transfer.check_file(export(copy))
