"""The clock row: one game year for a campaign of characters, through a real Celery worker."""

from __future__ import annotations

import time
from contextlib import suppress
from typing import Any

from django.conf import settings

from campaign import services
from campaign.models import Event, Job, Timer
from perf.harness import seeding
from perf.harness.mixes import CLOCK_RULESET, CLOCK_WOUNDS
from perf.harness.servers import broker_up, celery_worker


def clock_year(characters: int, timers: int, profile: str | None = None) -> dict[str, Any]:
    """One game year for `characters` characters, through a real Celery worker; `timers` firings are expected.

    The rules cap how many timers a character holds at once (about seven), so the 2,000 timers of the target are
    counted as what the clock fires over the year; the index rows at the start are reported beside them.
    """
    broker = settings.CELERY_BROKER_URL
    if not broker or not broker_up(broker):
        return {"skipped": f"Redis is not reachable at {broker or '(no CELERY_BROKER_URL)'}"}
    import redis

    # The queue is this run's own (CELERY_BROKER_PREFIX): drop whatever a killed earlier row left under it.
    prefix = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("global_keyprefix", "")
    redis.Redis.from_url(broker).delete(f"{prefix}celery")
    campaign, people = seeding.characters(CLOCK_RULESET, characters, "bench clock")
    wounds = 0
    for character in people:
        for body in CLOCK_WOUNDS:
            with suppress(services.ServiceError):
                services.character_act(character_id=character.pk, body=_stunning(body), actor="bench")
                wounds += 1
    timer_count = Timer.objects.filter(campaign=campaign).count()
    if timer_count < characters:
        raise RuntimeError(f"only {timer_count} timers for {characters} characters: the setup is wrong")
    with celery_worker(profile):
        started = time.perf_counter()
        job = services.clock_advance_request(campaign=campaign, seconds=365 * 86_400, actor="bench")
        deadline = started + 600
        while time.perf_counter() < deadline:
            job.refresh_from_db()
            if not job.open:
                break
            time.sleep(0.005)
        seconds = time.perf_counter() - started
    if job.status != Job.DONE:
        raise RuntimeError(f"the clock job ended {job.status}: {job.error}")
    stun_saves = Event.objects.filter(
        campaign=campaign, type="StunSaveRolled", cause__startswith="timer:"
    ).count()
    return {
        "seconds": seconds,
        "stun_saves_by_the_clock": stun_saves,
        "unit": "s",
        "characters": characters,
        "timers": timer_count,
        "timers_fired": job.timers_fired,
        "timers_wanted": timers,
        "events_appended": job.events_appended,
        "wounds_dealt": wounds,
    }


def _stunning(body: dict[str, Any]) -> dict[str, Any]:
    """The torso wound's stun save fails (a 10 on the d10): every character starts the year stunned, so the clock
    rolls a stun save each round until one succeeds (docs/rules/cyberpunk2020.md, "Timers": never collapsed into one
    roll)."""
    if body.get("location") == "torso":
        return {**body, "rolls": {"stun_save": [10]}}
    return body
