"""What the API and the pages show of campaigns, characters and events, for a GM or a player.

Everything a player receives passes through here with `audience=PLAYER`: the ruleset's `view` and `public_event`
remove what RULES.md keeps for the GM, and this module drops GM notes, timers and `death_at` on top.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from campaign import eventstore
from campaign.game_dates import game_datetime
from campaign.models import Campaign, Character, Event, ImportJob, Job
from campaign.projections import CLOCK_ADVANCED
from rules.registry import get_ruleset
from rules.ruleset import ACTION_UNDONE, GAME_TIME_MARK, GM, NOTE_ADDED, PLAYER, State

BEYOND_THE_CALENDAR = "after 9999-12-31"


def campaign_start(campaign: Campaign) -> str:
    return campaign.options.get("start") or get_ruleset(campaign.ruleset).default_start


def game_date(campaign: Campaign, seconds: int | None) -> str | None:
    """Game seconds as the in-world date and time (ISO 8601); None where the calendar has no date
    (`campaign.game_dates`)."""
    if seconds is None:
        return None
    moment = game_datetime(campaign_start(campaign), seconds)
    return None if moment is None else moment.isoformat()


def _date_words(campaign: Campaign, seconds: int) -> str:
    moment = game_datetime(campaign_start(campaign), seconds)
    return BEYOND_THE_CALENDAR if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S")


def _dated(campaign: Campaign, text: str) -> str:
    """A ruleset's text with its marked game seconds written as in-world dates ('kills at 2053-01-01 00:30:00')."""
    return GAME_TIME_MARK.sub(lambda mark: _date_words(campaign, int(mark.group(1))), text)


def campaign_json(campaign: Campaign, role: str | None) -> dict[str, Any]:
    return {
        "id": campaign.pk,
        "name": campaign.name,
        "ruleset": campaign.ruleset,
        "options": campaign.options,
        "game_time": campaign.game_time,
        "game_date": game_date(campaign, campaign.game_time),
        "version": campaign.version,
        "role": role,
    }


def player_name(character: Character) -> str | None:
    return character.player.get_username() if character.player_id else None


def character_json(
    character: Character,
    audience: str,
    *,
    state: State | None = None,
    version: int | None = None,
) -> dict[str, Any]:
    """The character JSON of DESIGN.md, as `audience` may see it. `state`/`version`: a past state (time travel)."""
    campaign = character.campaign
    rules = get_ruleset(campaign.ruleset)
    state = character.state if state is None else state
    view = rules.view(state, audience)
    data: dict[str, Any] = {
        "id": character.pk,
        "name": character.name,
        "player": player_name(character),
        "ruleset": campaign.ruleset,
        "version": character.version if version is None else version,
        "alive": view["alive"],
        "conscious": view["conscious"],
        "dying": view["dying"],
        "attributes": character.attributes,
        "sheet": view["sheet"],
        "status": view.get("status", []),
        "symptoms": view.get("symptoms", []),
        "warnings": [_dated(campaign, warning) for warning in view.get("warnings", [])],
        "recovery": [
            {**item, "ends_at_date": game_date(campaign, item.get("ends_at"))}
            for item in view.get("recovery", [])
        ],
        "game_time": campaign.game_time,
    }
    if audience == GM:
        data["death_at"] = view["death_at"]
        data["death_at_date"] = game_date(campaign, view["death_at"])
        data["timers"] = [
            {
                "due": t.due,
                "due_date": game_date(campaign, t.due),
                "kind": t.kind,
                "key": t.key,
                "data": t.data,
            }
            for t in sorted(rules.timers(state), key=lambda t: (t.due, t.priority, t.key))
        ]
        data["notes"] = gm_notes(character, version)
    return data


GM_NOTES_SHOWN = 50


def gm_notes(character: Character, version: int | None = None) -> list[dict[str, Any]]:
    """The latest GM notes on the character (not taken back), oldest first; all of them are in the history."""
    rows = Event.objects.filter(stream=character.stream)
    if version is not None:
        rows = rows.filter(version__lte=version)
    voided = {data["cause"] for data in rows.filter(type=ACTION_UNDONE).values_list("data", flat=True)}
    notes = rows.filter(type=NOTE_ADDED).exclude(cause__in=voided).order_by("-version")
    latest = list(notes.values_list("data", "game_time")[:GM_NOTES_SHOWN])
    return [{"text": data["text"], "game_time": game_time} for data, game_time in reversed(latest)]


def events_json(rows: list[Event], audience: str, ruleset_slug: str) -> list[dict[str, Any]]:
    """History entries, oldest first. Players get `public_event` data; notes and undos of hidden entries vanish."""
    rules = get_ruleset(ruleset_slug)
    voided = eventstore.voided_causes(rows)
    out: list[dict[str, Any]] = []
    visible_causes: set[str] = set()
    for row in rows:
        data: dict[str, Any] | None = row.data
        if audience == PLAYER:
            # Of the campaign stream a player sees only the clock; GM notes never.
            if row.type == NOTE_ADDED or (row.character_id is None and row.type != CLOCK_ADVANCED):
                continue
            if row.type == ACTION_UNDONE:
                if row.data["cause"] not in visible_causes:
                    continue
                data = {"types": row.data.get("types", [])}
            else:
                data = rules.public_event(eventstore.to_rule_event(row))
                if data is None:
                    continue
                visible_causes.add(row.cause)
        out.append(
            {
                "position": row.position,
                "stream": row.stream,
                "character": row.character_id,
                "version": row.version,
                "type": row.type,
                "game_time": row.game_time,
                "recorded_at": row.recorded_at.isoformat() if row.recorded_at else None,
                "actor": row.actor if audience == GM else None,
                "data": data,
                "voided": row.cause in voided,
            }
        )
    return out


JOB_STALLED = "the worker stopped answering at {at}; the job will be resumed"
JOB_STOPPED = (
    "stopped at {date} after {fired:,} timer firings, the most one advance may make; advance again to go on"
)


def job_json(job: Job) -> dict[str, Any]:
    """A clock job as its GM sees it. An open job that nothing has touched for a while is `stalled`, not `running`:
    its worker died, or its message was lost, and Celery beat resends it."""
    stalled = job.stalled_since(timezone.now())
    if stalled is not None:
        message = JOB_STALLED.format(at=timezone.localtime(stalled).strftime("%Y-%m-%d %H:%M:%S %Z"))
    elif job.stopped_early:
        message = JOB_STOPPED.format(date=_date_words(job.campaign, job.reached), fired=job.timers_fired)
    else:
        message = ""
    return {
        "id": str(job.pk),
        "campaign": job.campaign_id,
        "status": "stalled" if stalled is not None else job.status,
        "message": message,
        "from": job.from_time,
        "to": job.to_time,
        "reached": job.reached,
        "progress": round(job.progress, 4),
        "events_appended": job.events_appended,
        "timers_fired": job.timers_fired,
        "error": job.error,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "heartbeat_at": job.heartbeat_at.isoformat() if job.heartbeat_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }


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


def timer_phrase(kind: str) -> str:
    return kind.replace("_", " ")


def upcoming(campaign: Campaign, limit: int = 10) -> list[dict[str, Any]]:
    """What the clock will do next (GM only): "Ash: death at 2053-01-01T14:32:30"."""
    from campaign.models import Timer

    rows = (
        Timer.objects.filter(campaign=campaign)
        .select_related("character")
        .order_by("due", "character_id", "priority", "key")[:limit]
    )
    return [
        {
            "character": t.character_id,
            "name": t.character.name,
            "kind": t.kind,
            "what": timer_phrase(t.kind),
            "due": t.due,
            "due_date": game_date(campaign, t.due),
            "in_seconds": t.due - campaign.game_time,
        }
        for t in rows
    ]
