"""Celery tasks: thin wrappers that load ids and call the clock and import services.

The job row is the truth and the queue only a trigger: a task for a finished job does nothing, a task for a job
killed half-way resumes it. Without a broker (the embedded default) `delay` runs the task in-process.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from campaign import game_dates, services, transfer
from campaign.models import Campaign, ImportJob, Job

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
    from campaign.celery import app

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


def _failed(fail: Callable[[Any, str], None], job_id: str, error: Exception) -> None:
    """A job that raised is marked failed with the error, for its page and the log."""
    log.exception("job %s failed", job_id)
    fail(job_id, f"{type(error).__name__}: {error}")
    if settings.CELERY_TASK_ALWAYS_EAGER:
        raise error


def enqueue_advance(job_id: Any, ticket: Any = None) -> None:
    _send(advance_clock, str(job_id), None if ticket is None else str(ticket))


def enqueue_import(job_id: Any) -> None:
    _send(run_import, str(job_id))


def resend(job_id: Any) -> None:
    """Send an open advance again under a new ticket: whichever message it had before stops at its next batch, so
    a resend never leaves two messages taking turns for one job."""
    ticket = uuid.uuid4()
    if Job.objects.filter(pk=job_id, status__in=[Job.QUEUED, Job.RUNNING]).update(ticket=ticket):
        enqueue_advance(job_id, ticket)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def advance_clock(job_id: str, ticket: str | None = None) -> None:
    """Work on the job for one slice (CLOCK_SLICE_SECONDS), then send it to the back of the queue, so that one
    campaign's long advance takes turns with every other campaign's instead of holding the worker."""
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
        _failed(services.clock_fail, job_id, error)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_import(job_id: str) -> None:
    try:
        transfer.import_run(job_id)
    except ImportJob.DoesNotExist:
        log.warning("import %s does not exist", job_id)
    except Exception as error:
        _failed(transfer.import_fail, job_id, error)


@shared_task(ignore_result=True)
def tick_running_clocks() -> int:
    """Celery beat: advance the clock of campaigns with `time_scale` > 0 by the real time elapsed x the scale."""
    started = 0
    now = timezone.now()
    for campaign in Campaign.objects.filter(options__time_scale__gt=0):
        last = campaign.clock_ticked_at
        Campaign.objects.filter(pk=campaign.pk).update(clock_ticked_at=now)
        if last is None:
            continue
        seconds = int((now - last).total_seconds() * float(campaign.options["time_scale"]))
        # A clock that runs on its own stops where the calendar does (campaign.game_dates).
        seconds = min(seconds, game_dates.MAX_GAME_SECONDS - campaign.game_time)
        if seconds <= 0:
            continue
        try:
            services.clock_advance_request(campaign=campaign, seconds=seconds, actor="clock")
            started += 1
        except services.ServiceError as error:
            # Busy: the time is picked up by the next tick, measured from this one.
            log.info("campaign %s not advanced: %s", campaign.pk, error.message)
            Campaign.objects.filter(pk=campaign.pk).update(clock_ticked_at=last)
    return started


@shared_task(ignore_result=True)
def resume_stalled_jobs() -> int:
    """Resend open jobs, advances and imports, whose worker went quiet (killed, or the message was lost while
    Redis was down)."""
    cutoff = timezone.now() - timedelta(seconds=settings.CLOCK_STALLED_AFTER_SECONDS)
    # A job waiting for the GM's roll (table dice) is quiet on purpose: the roll resends it.
    stalled = Job.objects.filter(status__in=[Job.QUEUED, Job.RUNNING], needs_roll__isnull=True)
    stalled = stalled.exclude(heartbeat_at__gt=cutoff)
    stalled = stalled.filter(created_at__lt=cutoff)
    count = 0
    for job_id in stalled.values_list("pk", flat=True):
        resend(job_id)
        count += 1
    imports = ImportJob.objects.filter(
        status__in=[ImportJob.QUEUED, ImportJob.RUNNING], created_at__lt=cutoff
    )
    for job_id in imports.exclude(heartbeat_at__gt=cutoff).values_list("pk", flat=True):
        transaction.on_commit(lambda job_id=job_id: enqueue_import(job_id))
        count += 1
    return count


@worker_ready.connect
def resume_open_jobs_on_start(**_: Any) -> None:
    """A worker that starts resumes every open job at once: one may have died with the previous worker."""
    for job_id in Job.objects.filter(status__in=[Job.QUEUED, Job.RUNNING]).values_list("pk", flat=True):
        resend(job_id)
    for job_id in ImportJob.objects.filter(status__in=[ImportJob.QUEUED, ImportJob.RUNNING]).values_list(
        "pk", flat=True
    ):
        enqueue_import(job_id)
