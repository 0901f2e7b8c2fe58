"""Celery tasks: thin wrappers that load ids and call the clock and import services.

The job row is the truth and the queue only a trigger: a task for a finished job does nothing, a task for a job
killed half-way resumes it. Without a broker (the embedded default) `delay` runs the task in-process.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from celery import Task, shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from campaign import services, transfer
from campaign.celery import app
from campaign.ledger import running
from campaign.models import ImportJob, Job
from campaign.notify import deliver
from campaign.selectors import campaigns, jobs

log = logging.getLogger(__name__)

BROKER_DOWN = "the task queue (Redis) cannot be reached, so the clock cannot advance now; nothing was changed"
IMPORT_BROKER_DOWN = (
    "the task queue (Redis) cannot be reached, so the import cannot start now; nothing was changed"
)


def ensure_broker(field: str = "clock", message: str = BROKER_DOWN) -> None:
    """Refuse an advance (or an import) up front when the broker is configured but down: nothing is written
    (503)."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, timeout=2)
    except Exception as error:  # kombu raises transport-specific errors
        log.warning("broker unreachable: %s", error)
        raise services.Unavailable(field, message) from None


def _send(task: Any, *args: Any) -> None:
    """Send a job to the worker. If sending fails the job stays queued and `resume_stalled_jobs` resends it."""
    try:
        task.delay(*args)
    except Exception as error:
        if settings.CELERY_TASK_ALWAYS_EAGER:
            raise
        log.warning("could not enqueue job %s: %s", args[0], error)


def transient(error: BaseException) -> bool:
    """A fault of the database's connection or of the moment, not of the job: the connection lost or refused, the
    server restarting or shutting down, a serialization failure or a deadlock, SQLite's busy timeout, a full disk.
    Django raises every one of them as an OperationalError (or an InterfaceError for a connection it had already
    lost). The job's row is the truth, so the slice is simply run again once the fault has passed."""
    return isinstance(error, OperationalError | InterfaceError)


def retry_delay(retries: int) -> float:
    """Seconds before try `retries + 1` of a slice: JOB_RETRY_FIRST_SECONDS, doubled at each try up to
    JOB_RETRY_MAX_SECONDS, and between half and all of that at random, so that the jobs one fault struck do not
    all come back at the same instant."""
    delay = min(settings.JOB_RETRY_MAX_SECONDS, settings.JOB_RETRY_FIRST_SECONDS * 2 ** min(retries, 30))
    return delay * random.uniform(0.5, 1.0)


def _handle(task: Any, fail: Callable[[Any], Any], job_id: str, error: Exception) -> None:
    """What a task does with an error. A transient fault: the same message again after a growing delay, for as
    long as the fault lasts (a worker that starts, and Celery beat for a quiet job, resend it too); the job stays
    open and goes on after its last committed batch. Anything else is a bug: the job fails for good, and `fail`
    leaves it consistent and says so in words (the log keeps the error itself).

    In-process (no broker) the error is the request's: it is raised, and the request's transaction, the job's
    batches with it, is rolled back as a whole (a 503 or a 500)."""
    if not transient(error):
        log.error("job %s failed for good", job_id, exc_info=error)
        try:
            fail(job_id)
        except Exception as failing:
            if settings.CELERY_TASK_ALWAYS_EAGER or not transient(failing):
                raise
            error = failing  # the database went away meanwhile: the next try meets the bug, and fails it then
        else:
            if settings.CELERY_TASK_ALWAYS_EAGER:
                raise error
            return
    if settings.CELERY_TASK_ALWAYS_EAGER:
        raise error
    # Celery's Django fix-up closes the connections before each task: the next try starts on a new one.
    retries = task.request.retries or 0
    delay = retry_delay(retries)
    log.warning("job %s: database fault (%s); retry %d in %.1f s", job_id, error, retries + 1, delay)
    raise task.retry(countdown=delay, max_retries=None, exc=error)


def enqueue_advance(job_id: Any, ticket: Any = None) -> None:
    _send(advance_clock, str(job_id), None if ticket is None else str(ticket))


def enqueue_import(job_id: Any) -> None:
    _send(run_import, str(job_id))


def enqueue_deliveries(delivery_ids: list[str]) -> None:
    deliver.enqueue(delivery_ids)


def resend(job_id: Any) -> None:
    """Send an open advance again under a new ticket (`services.clock_ticket_renew`)."""
    ticket = services.clock_ticket_renew(job_id)
    if ticket is not None:
        enqueue_advance(job_id, ticket)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def advance_clock(self: Task, job_id: str, ticket: str | None = None) -> None:
    """Work on the job for one slice (CLOCK_SLICE_SECONDS), then send it to the back of the queue, so that one
    campaign's long advance takes turns with every other campaign's instead of holding the worker. A database
    fault sends the slice again later (`_handle`)."""
    try:
        if settings.CELERY_TASK_ALWAYS_EAGER:
            services.clock_run(job_id, ticket=ticket)  # in-process: nobody else to take turns with
            return
        job = services.clock_run(job_id, ticket=ticket, slice_seconds=settings.CLOCK_SLICE_SECONDS)
        if job.open and not job.waiting and str(job.ticket) == str(ticket or job.ticket):
            enqueue_advance(job.pk, job.ticket)
    except Job.DoesNotExist:
        log.warning("job %s does not exist", job_id)
    except Exception as error:
        _handle(self, services.clock_fail, job_id, error)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_import(self: Task, job_id: str) -> None:
    """Write an import's batches; a database fault sends it again later and it goes on after the last batch
    written (`_handle`)."""
    try:
        transfer.import_run(job_id)
    except ImportJob.DoesNotExist:
        log.warning("import %s does not exist", job_id)
    except Exception as error:
        _handle(self, transfer.import_fail, job_id, error)


@shared_task(ignore_result=True)
def tick_running_clocks() -> int:
    """Celery beat: advance the clocks that run on their own whose next firing has come, each to where it reads
    now (`services.clock_catch_up`). One indexed query finds them (`Campaign.clock_due_at`); a running clock with
    nothing due is not read, and nothing is written for it (campaign.ledger.running)."""
    now = running.real_now()
    started = 0
    for campaign_id in campaigns.clocks_due(now):
        try:
            started += services.clock_catch_up(campaign_id=campaign_id, now=now) is not None
        except services.ServiceError as error:
            log.info("campaign %s not advanced: %s", campaign_id, error.message)
    return started


@shared_task(ignore_result=True)
def resume_stalled_jobs() -> int:
    """Resend open jobs, advances and imports, whose worker went quiet (killed, or the message was lost while
    Redis was down), and the outbox's deliveries due for a while that nobody holds."""
    cutoff = timezone.now() - timedelta(seconds=settings.CLOCK_STALLED_AFTER_SECONDS)
    count = 0
    for job_id in jobs.stalled_advance_ids(cutoff):
        resend(job_id)
        count += 1
    for job_id in jobs.stalled_import_ids(cutoff):
        transaction.on_commit(lambda job_id=job_id: enqueue_import(job_id))
        count += 1
    stalled_deliveries = deliver.stalled_deliveries()
    if stalled_deliveries:
        deliver.enqueue(stalled_deliveries)
    return count + len(stalled_deliveries)


@worker_ready.connect
def resume_open_jobs_on_start(**_: Any) -> None:
    """A worker that starts resumes every open job at once: one may have died with the previous worker."""
    for job_id in jobs.open_advance_ids():
        resend(job_id)
    for job_id in jobs.open_import_ids():
        enqueue_import(job_id)
    deliver.enqueue(deliver.stalled_deliveries())
