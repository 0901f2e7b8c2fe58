"""The reads of the worker's jobs: a campaign's open advance, a job by its id for whoever may see it, the jobs a
worker picks up again, and the advances a history's entries came from."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db.models import F

from campaign.ledger.events import CLOCK_ADVANCED, CLOCK_REWOUND
from campaign.models import Campaign, Character, Event, ImportJob, Job

OPEN = (Job.QUEUED, Job.RUNNING)


def open_job(campaign: Campaign) -> Job | None:
    """The campaign's advance under way (at most one: `one_open_job_per_campaign`), or None."""
    return Job.objects.filter(campaign=campaign, status__in=OPEN).first()


def job(job_id: Any, *, with_campaign: bool = False) -> Job | None:
    """The clock job of this id, or None (`with_campaign`: its campaign read with it)."""
    rows = Job.objects.select_related("campaign") if with_campaign else Job.objects
    return rows.filter(pk=job_id).first()


def campaign_job(campaign: Campaign, job_id: Any) -> Job | None:
    """The campaign's clock job of this id, or None (a job of another campaign is none of this one's)."""
    return Job.objects.filter(campaign=campaign, pk=job_id).first()


def rolls_answered(campaign: Campaign, idempotency_key: str | None) -> bool:
    """Whether the campaign's latest advance took the GM's rolls under this Idempotency-Key: a retried post of the
    board's row of rolls, once the advance has gone on or ended, is the same answer, and writes nothing."""
    if not idempotency_key:
        return False
    latest = Job.objects.filter(campaign=campaign).only("rolls").first()
    return latest is not None and idempotency_key in latest.rolls.get("answered", [])


def import_job(user: Any, job_id: Any) -> ImportJob | None:
    """The user's import of this id, or None (another user's import is not theirs to see)."""
    return ImportJob.objects.filter(pk=job_id, user=user).first()


def advances(job_ids: Iterable[str]) -> dict[str, Job]:
    """The clock jobs of these ids, by id: where a history's run of clock entries began and ended."""
    ids = sorted(job_ids)
    return {str(found.pk): found for found in Job.objects.filter(pk__in=ids)} if ids else {}


def open_advance_ids() -> list[Any]:
    """Every advance under way (a worker that starts resumes them)."""
    return list(Job.objects.filter(status__in=OPEN).values_list("pk", flat=True))


def open_import_ids() -> list[Any]:
    """Every import under way (a worker that starts resumes them)."""
    return list(
        ImportJob.objects.filter(status__in=[ImportJob.QUEUED, ImportJob.RUNNING]).values_list(
            "pk", flat=True
        )
    )


def stalled_advance_ids(cutoff: datetime) -> list[Any]:
    """The advances under way that nothing has touched since `cutoff`. An advance waiting for the GM's roll (table
    dice) is quiet on purpose: the roll resends it."""
    stalled = Job.objects.filter(status__in=OPEN, needs_roll__isnull=True)
    stalled = stalled.exclude(heartbeat_at__gt=cutoff).filter(created_at__lt=cutoff)
    return list(stalled.values_list("pk", flat=True))


def stalled_import_ids(cutoff: datetime) -> list[Any]:
    """The imports under way that nothing has touched since `cutoff`."""
    imports = ImportJob.objects.filter(
        status__in=[ImportJob.QUEUED, ImportJob.RUNNING], created_at__lt=cutoff
    )
    return list(imports.exclude(heartbeat_at__gt=cutoff).values_list("pk", flat=True))


# The most entries the board's summary of the latest advance says; the characters' histories have them all.
SUMMARY_ENTRIES = 12


def last_advance(
    campaign: Campaign,
) -> tuple[Event, list[Event], int, dict[int, str], dict[int, dict[str, Any]]] | None:
    """The campaign's latest advance not taken back, for the board's summary of it: its `ClockAdvanced`, the first
    SUMMARY_ENTRIES events its firings wrote (in order), how many they wrote, and the names and the states of their
    characters (an entry that names a hit by its id alone is named from the state: `presenters.event_words`). None
    before any advance, or when the latest was taken back. Two indexed reads of the campaign's stream, one range of
    the cause index (`timer:<job>:...`), whatever the log's length."""
    rows = Event.objects.filter(stream=campaign.stream)
    advance = rows.filter(type=CLOCK_ADVANCED).order_by("-version").first()
    if advance is None:
        return None
    rewound = rows.filter(type=CLOCK_REWOUND).order_by("-version").values_list("version", flat=True).first()
    if rewound is not None and rewound > advance.version:
        return None  # a rewind takes back the latest advance: this one
    job = advance.data.get("job", "")
    fired = Event.objects.filter(campaign=campaign, cause__gte=f"timer:{job}:", cause__lt=f"timer:{job};")
    said = list(fired.order_by("position")[:SUMMARY_ENTRIES])
    count = len(said) if len(said) < SUMMARY_ENTRIES else fired.count()
    ids = {row.character_id for row in said}
    found = list(Character.objects.filter(pk__in=ids).values_list("pk", "name", "state")) if ids else []
    names = {pk: name for pk, name, _state in found}
    states = {pk: state for pk, _name, state in found}
    return advance, said, count, names, states


def long_advances(campaign: Campaign, since: int, idle: int) -> list[tuple[int, int]]:
    """The clock's advances of `idle` game seconds or more asked from `since` on, as (the second each began, the
    length asked), in order: under way, waiting for the table's rolls, stopped part-way or done, not taken back
    (a done one that never moved the clock, stopped where it began, is none). Such an advance is past any fight:
    it ends the one going on where it began (docs/clock.md, "The fight's rounds"). Advances are no secret, so a
    player's fight counts them alike."""
    if not idle:
        return []
    rewound = {
        str(data.get("job"))
        for data in Event.objects.filter(stream=campaign.stream, type=CLOCK_REWOUND).values_list(
            "data", flat=True
        )
    }
    asked = Job.objects.filter(
        campaign=campaign, from_time__gte=since, to_time__gte=F("from_time") + idle
    ).order_by("from_time", "created_at")
    return [
        (job.from_time, job.to_time - job.from_time)
        for job in asked.only("id", "status", "from_time", "to_time", "reached")
        if str(job.pk) not in rewound and (job.open or job.reached > job.from_time)
    ]
