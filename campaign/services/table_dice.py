"""Table dice: the GM rolls (docs/rules/README.md, "Table dice", campaign option `table_dice`); an advance that waits
for a roll."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from campaign import eventstore, queue
from campaign.models import Campaign, Character, Job
from campaign.services.core import Conflict, ServiceError
from rules import clock
from rules.dice import RollRequest

NOT_WAITING = "this advance is not waiting for a roll"
ROLL_EXPECTED = "expected the roll the clock waits for, {name} ({count}d{sides}), or ask: false"
ANOTHER_ROLL = "the clock waits for {name}, not this roll"


def asks_the_table(campaign: Campaign, what: str) -> bool:
    """Whether the campaign asks the GM for the dice of `what`: "actions" (with `table_dice` actions or all) or
    "clock" (all)."""
    table_dice = campaign.options.get("table_dice", "none")
    return table_dice == "all" or (what == "actions" and table_dice == "actions")


def _firing(character: Character, due: clock.Due) -> dict[str, Any]:
    """Which firing of an advance a roll is for: the character, the timer and the game second it fires at."""
    return {"character": character.pk, "key": due.timer.key, "at": due.fire_at}


def _given_for(job: Job, character: Character, due: clock.Due) -> dict[str, Any]:
    """The GM's dice given for this firing, if the advance stopped before it."""
    if job.rolls.get("firing") != _firing(character, due):
        return {}
    return dict(job.rolls.get("dice", {}))


def _wait_for_roll(job: Job, character: Character, due: clock.Due, request: RollRequest) -> None:
    """Stop the advance before a firing that needs a roll nobody gave: the job stays open (the campaign's actions
    wait), saying which roll, for whom and why; `clock_give_roll` goes on."""
    firing = _firing(character, due)
    job.needs_roll = {
        **request.as_data(),
        "character": character.pk,
        "character_name": character.name,
        "kind": due.timer.kind,
        "game_time": due.fire_at,
        "firing": firing,
    }
    dice = job.rolls.get("dice", {}) if job.rolls.get("firing") == firing else {}
    job.rolls = {**job.rolls, "firing": firing, "dice": dice}


def clock_give_roll(*, job_id: Any, body: Any, idempotency_key: str | None = None) -> Job:
    """The GM's roll for the firing a waiting advance stopped before (`{name: [dice]}`), or `{"ask": false}`: the
    server rolls the rest of this advance. The job goes on in the worker. The same Idempotency-Key again changes
    nothing: a retried request must not answer the next roll the clock asks for (a death save every turn asks for
    the same roll again)."""
    if not isinstance(body, Mapping):
        raise ServiceError("body", "expected a JSON object of the roll's dice")
    ask = body.get("ask")
    if ask is not None and not isinstance(ask, bool):
        raise ServiceError("ask", f"expected true or false, got {ask!r}")
    rolls = {name: value for name, value in body.items() if name != "ask"}
    with transaction.atomic():
        job = Job.objects.get(pk=job_id)
        eventstore.lock_campaign(job.campaign_id)
        job = Job.objects.get(pk=job_id)
        if idempotency_key and idempotency_key in job.rolls.get("answered", []):
            return job
        if not job.waiting:
            raise Conflict("job", NOT_WAITING)
        need = job.needs_roll
        for name in rolls:
            if name != need["name"]:
                raise ServiceError(f"rolls.{name}", ANOTHER_ROLL.format(name=need["name"]))
        dice = dict(job.rolls.get("dice", {}))
        if need["name"] in rolls:
            dice[need["name"]] = RollRequest.from_data(need).check(rolls[need["name"]])
        elif ask is not False:
            raise ServiceError(need["name"], ROLL_EXPECTED.format(**need))
        answered = [*job.rolls.get("answered", []), *([idempotency_key] if idempotency_key else [])]
        job.rolls = {**job.rolls, "dice": dice, "answered": answered[-20:]}
        job.asks = job.asks and ask is not False
        job.needs_roll = None
        job.ticket = uuid.uuid4()
        job.heartbeat_at = timezone.now()
        job.save(update_fields=["rolls", "asks", "needs_roll", "ticket", "heartbeat_at"])
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            transaction.on_commit(lambda: queue.enqueue_advance(job.pk, job.ticket))
    if settings.CELERY_TASK_ALWAYS_EAGER:
        queue.enqueue_advance(job.pk, job.ticket)
    job.refresh_from_db()
    return job
