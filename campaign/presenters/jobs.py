"""What the API and the pages show of the worker's jobs: a clock advance as its GM sees it (its progress, why it
stopped, the rolls it waits for), an import as its user sees it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils import timezone

from rules import game_dates

if TYPE_CHECKING:  # types only: a presenter reads nothing (campaign.selectors does)
    from campaign.models import ImportJob, Job

JOB_STALLED = "the worker stopped answering at {at}; the job will be resumed"
JOB_STOPPED_BECAUSE = "stopped at {date}: {why}"
JOB_STOPPED = (
    "stopped at {date} after {fired:,} timer firings, the most one advance may make; advance again to go on"
)


def job_json(job: Job) -> dict[str, Any]:
    """A clock job as its GM sees it. An open job that nothing has touched for a while is `stalled`, not `running`:
    its worker died, or its message was lost, and Celery beat resends it."""
    stalled = job.stalled_since(timezone.now())
    asked = job_rolls_json(job)
    if stalled is not None:
        message = JOB_STALLED.format(at=timezone.localtime(stalled).strftime("%Y-%m-%d %H:%M:%S %Z"))
    elif job.stopped_because:
        date = game_dates.date_words(job.campaign.start, job.reached)
        message = JOB_STOPPED_BECAUSE.format(date=date, why=job.stopped_because)
    elif job.stopped_early:
        date = game_dates.date_words(job.campaign.start, job.reached)
        message = JOB_STOPPED.format(date=date, fired=job.timers_fired)
    else:
        message = ""
    return {
        "id": str(job.pk),
        "campaign": job.campaign_id,
        "status": "stalled" if stalled is not None else "waiting" if job.waiting else job.status,
        "message": message,
        "from": job.from_time,
        "to": job.to_time,
        "reached": job.reached,
        "progress": round(job.progress, 4),
        "events_appended": job.events_appended,
        "timers_fired": job.timers_fired,
        "stop_on": job.stop_on or None,
        "stopped_because": job.stopped_because or None,
        "error": job.error,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "heartbeat_at": job.heartbeat_at.isoformat() if job.heartbeat_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
        # Table dice: the rolls the advance waits for (`POST /api/jobs/{id}/rolls/` gives them), the first alone
        # as `needs_roll` (null when it waits for none).
        "needs_roll": asked[0] if asked else None,
        "needs_rolls": asked,
        # A death waits for the GM's yes (`ask_before_death`): the death the advance stopped before, or null;
        # `POST /api/jobs/{id}/go-on/` lets it happen, `POST /api/jobs/{id}/stop/` ends the advance there.
        "ask_before_death": job.asks_before_death,
        "needs_yes": job_death_json(job),
    }


def job_death_json(job: Job) -> dict[str, Any] | None:
    """The death a waiting advance stopped before, in the game's words beside the numbers: for whom, when (its date),
    what kills and what would save them."""
    if not job.waiting or job.needs_yes is None:
        return None
    death = {key: value for key, value in job.needs_yes.items() if key != "firing"}
    death["date"] = game_dates.date_words(job.campaign.start, death["game_time"])
    return death


def job_rolls_json(job: Job) -> list[dict[str, Any]]:
    """What a waiting advance asks the GM: each roll (its key, name, dice, label, target, why), for whom, the injury
    it is about (`about`, "" for the whole character; a roll asked before it was said has none), what fires and
    when, in the game's words beside the numbers; [] when it waits for none."""
    asked = []
    for need in job.asked:
        need.pop("firing", None)
        need.setdefault("about", "")
        need["date"] = game_dates.date_words(job.campaign.start, need["game_time"])
        asked.append(need)
    return asked


def import_job_json(job: ImportJob) -> dict[str, Any]:
    """An import as its user sees it: `job` repeats the id as a clock advance's 202 names it."""
    return {
        "id": str(job.pk),
        "job": str(job.pk),
        "kind": "import",
        "status": job.status,
        "progress": round(job.progress, 4),
        "lines": job.lines,
        "lines_written": job.lines_written,
        "campaign": job.campaign_id if job.status == job.DONE else None,
        "error": job.error,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
