"""The game clock: an advance requested as a job, run in batches of firings, failed for good; stopping on a status."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaign import queue
from campaign.ledger import eventstore, running
from campaign.ledger.events import CLOCK_ADVANCED
from campaign.ledger.projections import keep_clock_due, project_character
from campaign.models import Campaign, Character, Job, Timer
from campaign.notify import outbox
from campaign.selectors.campaigns import asks_the_table
from campaign.selectors.jobs import open_job
from campaign.services.core import (
    KEY_REUSED,
    Conflict,
    ServiceError,
    _evolved_in_place,
    _key_holders,
    _record,
    clock_busy,
    dice_for,
    request_digest,
)
from campaign.services.table_dice import (
    NOT_STOPPABLE,
    ROUND_SECONDS,
    STOPPED_BY_THE_GM,
    DeathAhead,
    asked_death,
    asked_roll,
    death_allowed,
    fired_with_dice,
    given_for,
    kills,
    roll_owner,
    wait_for_rolls,
)
from rules import clock, game_dates
from rules.dice import DiceError, RollNeeded
from rules.event_schema import TABLE_DICE
from rules.ruleset import Event as RuleEvent
from rules.ruleset import Ruleset, State, fold, game_time_mark
from rules.ruleset import Timer as RuleTimer
from rules.text import given

MAX_ADVANCE_SECONDS = 100 * 366 * 86_400


ADVANCE_UNITS = {
    "seconds": 1,
    "minutes": 60,
    "hours": 3600,
    "days": 86_400,
    "weeks": 7 * 86_400,
    "rounds": 3,
    "turns": 30,
}


def parse_advance(advance: Any) -> int:
    """`{"hours": 2}` -> 7200. Exactly one unit."""
    units = ", ".join(ADVANCE_UNITS)
    if not isinstance(advance, Mapping) or len(advance) != 1:
        raise ServiceError("advance", f"expected an object with exactly one of: {units}")
    unit, amount = next(iter(advance.items()))
    if unit not in ADVANCE_UNITS:
        unknown = f"unknown unit {given(unit)}" if unit else "no unit chosen"
        raise ServiceError("advance", f"{unknown}; expected one of: {units}")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise ServiceError(
            f"advance.{unit}", f"expected a whole number above 0, got {given(amount, typed=True)}"
        )
    seconds = amount * ADVANCE_UNITS[unit]
    if seconds > MAX_ADVANCE_SECONDS:
        raise ServiceError(f"advance.{unit}", "expected at most 100 years in one advance")
    return seconds


def _past_the_calendar(campaign: Campaign) -> str:
    start = campaign.start
    end = game_dates.game_datetime(start, game_dates.MAX_GAME_SECONDS)
    end_text = f" ({end:%Y-%m-%d %H:%M:%S})" if end is not None else ""
    return f"expected an advance that ends within a thousand years of the campaign's start{end_text}"


def _too_much_at_once(followed: int) -> str:
    """The 400 for an advance that would cover more than CLOCK_MAX_CHARACTER_YEARS, in the game's words."""
    limit = settings.CLOCK_MAX_CHARACTER_YEARS
    longest = limit * game_dates.YEAR // followed
    for name, size in (("year", game_dates.YEAR), ("day", 86_400), ("hour", 3600), ("minute", 60)):
        if longest >= size or name == "minute":
            count = longest // size
            span = f"{count} {name}{'' if count == 1 else 's'}"
            break
    who = "1 character has" if followed == 1 else f"{followed} characters have"
    return (
        f"expected at most {span} in one advance while {who} injuries the clock follows (one advance covers at "
        f"most {limit:,} years of one such character's clock); advance in shorter steps"
    )


ALREADY_PAST = "the clock already reads {now}, at or past {until}, where this advance was to end"


def _until(until: Any) -> int | None:
    if until is None:
        return None
    if isinstance(until, bool) or not isinstance(until, int) or not 0 <= until <= game_dates.MAX_GAME_SECONDS:
        raise ServiceError("until", "expected the game time the advance ends at, within the calendar")
    return until


def clock_advance_request(
    *,
    campaign: Campaign,
    seconds: int = 0,
    actor: str,
    idempotency_key: str | None = None,
    stop_on: Any = None,
    until: Any = None,
    ask_before_death: Any = False,
) -> Job:
    """Create the Job for an advance and enqueue it once the transaction commits. The same `idempotency_key` again
    returns the job the first request made, finished or not, and advances nothing more. `stop_on="status"` ends
    the advance at the first firing that changes a character's status (`STOP_ON`).

    The advance starts at the clock's reading (a clock that runs on its own has moved since the GM looked) and
    goes `seconds` on, or up to the game second `until` (the party's "advance to" a date), which must be ahead of
    the reading. `ask_before_death`: a firing that would kill waits for the GM's yes (`clock_go_on`) or a stop
    (`clock_stop`), as a roll at the table does."""
    if stop_on not in (None, "", STOP_ON_STATUS):
        raise ServiceError("stop_on", f'expected "{STOP_ON_STATUS}" or nothing, got {given(stop_on)}')
    if not isinstance(ask_before_death, bool):
        raise ServiceError("ask_before_death", f"expected true or false, got {given(ask_before_death)}")
    until = _until(until)
    asked = {"until": until} if until is not None else {"seconds": seconds}
    digest = request_digest(
        {**asked, **({"stop_on": stop_on} if stop_on else {}), **({"ask": True} if ask_before_death else {})}
    )
    queue.ensure_broker_for_advance()
    try:
        with transaction.atomic():
            campaign = running.settle(eventstore.lock_campaign(campaign.pk))
            if idempotency_key:
                event, first = _key_holders(campaign, idempotency_key)
                if event is not None or (first is not None and first.request_digest != digest):
                    raise Conflict("Idempotency-Key", KEY_REUSED)
                if first is not None:
                    return first
            busy = open_job(campaign)
            if busy is not None:
                raise Conflict("clock", clock_busy(busy.pk))
            if until is not None:
                if until <= campaign.game_time:
                    raise ServiceError("until", _already_past(campaign, until))
                seconds = until - campaign.game_time
            if campaign.game_time + seconds > game_dates.MAX_GAME_SECONDS:
                raise ServiceError("advance", _past_the_calendar(campaign))
            followed = _followed(campaign)
            if followed * seconds > settings.CLOCK_MAX_CHARACTER_YEARS * game_dates.YEAR:
                raise ServiceError("advance", _too_much_at_once(followed))
            job = _open_advance(
                campaign,
                campaign.game_time + seconds,
                actor=actor,
                idempotency_key=idempotency_key,
                request_digest=digest if idempotency_key else "",
                stop_on=stop_on or "",
                asks_before_death=ask_before_death,
            )
    except IntegrityError:
        raise Conflict("clock", "another advance of this campaign was started at the same moment") from None
    return _run_eagerly(job)


def _followed(campaign: Campaign) -> int:
    """How many characters the clock follows (those with a timer): what one advance's work is counted in."""
    return Timer.objects.filter(campaign=campaign).values("character_id").distinct().count()


def _open_advance(campaign: Campaign, to_time: int, **fields: Any) -> Job:
    """The job of an advance from the campaign's time to `to_time`, sent to the worker once the transaction
    commits (so the worker never sees a job that was rolled back)."""
    job = Job.objects.create(
        campaign=campaign,
        from_time=campaign.game_time,
        to_time=to_time,
        reached=campaign.game_time,
        asks=asks_the_table(campaign, "clock"),
        **fields,
    )
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        transaction.on_commit(lambda: queue.enqueue_advance(job.pk, job.ticket))
    return job


def _run_eagerly(job: Job) -> Job:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        # In-process: run it now, after the job row is written (the 202 then reports a finished job).
        queue.enqueue_advance(job.pk, job.ticket)
    job.refresh_from_db()
    return job


def clock_catch_up(*, campaign_id: int, now: float) -> Job | None:
    """Beat's advance of a clock that runs on its own whose next firing has come (`clock_due_at` at or before real
    time `now`): from the log's clock to where the clock's line stands at `now`, through every firing due by then,
    as the GM's advance would fire them. None when there is nothing to do: another beat came first, the GM stopped
    or changed the clock, or an advance is open (one waiting for the GM's roll holds the clock at its firing).

    At most what one advance may cover (CLOCK_MAX_CHARACTER_YEARS): a clock that comes back after a long time down
    catches up over several beats instead of being refused."""
    try:
        with transaction.atomic():
            campaign = eventstore.lock_campaign(campaign_id)
            due = running.next_due(campaign)
            if due is None or campaign.clock_due_at > now or open_job(campaign) is not None:
                return None
            to_time = max(running.line(campaign, now), due)
            followed = _followed(campaign)
            if followed:
                longest = settings.CLOCK_MAX_CHARACTER_YEARS * game_dates.YEAR // followed
                to_time = min(to_time, campaign.game_time + longest)
            job = _open_advance(campaign, min(to_time, game_dates.MAX_GAME_SECONDS), actor="clock")
    except IntegrityError:
        return None  # a GM's advance started at the same moment: it fires what was due
    return _run_eagerly(job)


def _already_past(campaign: Campaign, until: int) -> str:
    marks = {"now": game_time_mark(campaign.game_time), "until": game_time_mark(until)}
    return game_dates.dated(campaign.start, ALREADY_PAST.format(**marks))


def clock_run(job_id: Any, *, ticket: Any = None, slice_seconds: float | None = None) -> Job:
    """Fire every due timer of the job's campaign in game-time order, then append ClockAdvanced.

    Each batch of firings is one transaction under the campaign lock: the events, the projections, the timer index
    and the job's progress commit together, so a worker killed at any point leaves a job that the next run resumes
    without firing a timer twice.

    `ticket` is the queue message's: once the job has been resent with a new one, an older message stops at its
    next batch. With `slice_seconds` the run returns, the job still open, after the first batch that ends that long
    after it began, so that the task can queue the rest behind other campaigns' jobs; None runs it to the end.
    Once the job has fired CLOCK_MAX_FIRINGS_PER_ADVANCE timers it ends at the game second it has reached.
    """
    job = Job.objects.get(pk=job_id)
    if not job.open or not _holds(job, ticket) or job.waiting:
        return job
    Job.objects.filter(pk=job.pk, status=Job.QUEUED).update(status=Job.RUNNING, started_at=timezone.now())
    began = time.monotonic()
    while True:
        with transaction.atomic():
            campaign = eventstore.lock_campaign(job.campaign_id)
            job = Job.objects.get(pk=job.pk)
            if not job.open or not _holds(job, ticket) or job.waiting:
                return job
            rules = campaign.rules
            fired = appended = 0
            finished = False
            characters, queue = _due_timers(campaign, rules, job)
            listening = outbox.listens_to_characters(campaign)
            while fired < settings.CLOCK_FIRINGS_PER_TRANSACTION:
                due = queue.next(at_limit=job.timers_fired + fired >= settings.CLOCK_MAX_FIRINGS_PER_ADVANCE)
                if due is None:
                    finished = True
                    break
                character = characters[due.character_id]
                before = status_of(rules, character.state) if job.stop_on else None
                if listening:  # the advance's digest compares each character with its standing before
                    outbox.remember_before(job, rules, character, due.fire_at)
                try:
                    produced, timers = _fire(rules, character, due, job)
                except DeathAhead as death:
                    # A death waits for the GM's yes: the advance stops before it, everything before it kept.
                    job.needs_yes = death.asked
                    break
                except RollNeeded as need:
                    # Table dice: the advance stops before this firing, everything before it kept, and asks
                    # with it the other characters' rolls of the same round.
                    first = asked_roll(rules, character, due, need.request)
                    wait_for_rolls(
                        job, [first, *_rolls_of_the_round(rules, characters, job, due, queue.skip)]
                    )
                    break
                queue.fired(due, produced > 0, timers)
                appended += produced
                fired += 1
                if before is not None and produced and (change := status_change(before, rules, character)):
                    job.stopped_because = f"{character.name} {change}"
                    queue.reached = due.fire_at
                    finished = True
                    break
            job.reached = queue.reached
            span = max(1, job.to_time - job.from_time)
            job.timers_fired += fired
            job.events_appended += appended
            job.progress = min(1.0, (job.reached - job.from_time) / span) if not finished else 1.0
            job.heartbeat_at = timezone.now()
            job.skips = sorted([character_id, key] for character_id, key in queue.skip)
            if finished:
                _finish(campaign, job, end=queue.reached if job.stopped_because else queue.end)
            elif job.reached != campaign.game_time:
                # The clock moves with each batch: whatever becomes of the job, the clock is never behind a
                # firing it committed (docs/clock.md, "Faults").
                Campaign.objects.filter(pk=campaign.pk).update(game_time=job.reached)
            job.save()
        if (
            finished
            or job.waiting
            or (slice_seconds is not None and time.monotonic() - began >= slice_seconds)
        ):
            return job


def _holds(job: Job, ticket: Any) -> bool:
    """Whether a run with this ticket may work on the job (None: a direct call, or a message from before tickets)."""
    return ticket is None or str(job.ticket) == str(ticket)


def _finish(campaign: Campaign, job: Job, end: int) -> None:
    """Append ClockAdvanced up to `end` and set the clock there: the time asked for, or where the limit stopped it;
    the advance's digest for the hooks is written with it."""
    rows = eventstore.append(
        campaign=campaign,
        stream=campaign.stream,
        expected_version=campaign.version,
        events=[
            RuleEvent(
                CLOCK_ADVANCED,
                {"from": job.from_time, "to": end, "job": str(job.pk), "timers_fired": job.timers_fired},
                end,
            )
        ],
        cause=f"job:{job.pk}",
        actor=job.actor,
    )
    job.events_appended += 1
    clock = {"game_time": end, "version": campaign.version + 1}
    campaign.game_time = end
    if running.runs(campaign) and end > running.line(campaign, running.real_now()):
        # A GM's advance took a running clock past its line: it runs on from where the advance ended. (Beat's
        # advances end on the line.)
        clock.update(running.anchor(campaign, end))
    Campaign.objects.filter(pk=campaign.pk).update(**clock)
    keep_clock_due(campaign)
    outbox.advance_finished(campaign, campaign.rules, job, rows[0])
    job.status = Job.DONE
    job.reached = end
    job.finished_at = timezone.now()


def _due_timers(campaign: Campaign, rules: Ruleset, job: Job) -> tuple[dict[int, Character], clock.DueTimers]:
    """The characters with something due by the end of the advance, and their timers in firing order.

    The Timer index only says who has work; each queue entry comes from the character's state, which the index
    projects, so the queue can follow firings in memory for the rest of the batch.
    """
    due = Timer.objects.filter(campaign=campaign, due__lte=job.to_time).values_list("character_id", flat=True)
    characters = {character.pk: character for character in Character.objects.filter(pk__in=set(due))}
    skip = {(character_id, key) for character_id, key in job.skips}
    queue = clock.DueTimers(job.from_time, job.to_time, skip, reached=job.reached)
    for character in characters.values():
        character.campaign = campaign
        queue.set_timers(character.pk, rules.timers(character.state))
    return characters, queue


def _rolls_of_the_round(
    rules: Ruleset,
    characters: dict[int, Character],
    job: Job,
    first: clock.Due,
    skip: set[tuple[int, str]],
) -> list[dict[str, Any]]:
    """The rolls the other characters' firings ask within one round (ROUND_SECONDS) of `first`, the firing that
    stopped the advance: a character's first roll, in firing order, and its other rolls at that same second
    (`_rolls_of_the_second`). A firing changes its own character alone, so another character's firings up to there
    are known without `first`'s dice; each is tried on a copy of the state (the pure clock loop), nothing written.
    `first`'s own character's other rolls at the same second are asked with it; its later firings wait for its
    dice, as each character's rolls at later seconds than its first wait for that first's."""
    end = min(job.to_time, first.fire_at + ROUND_SECONDS - 1)
    asked: list[tuple[tuple[int, int, int, str], dict[str, Any]]] = []
    for character_id, character in characters.items():
        if character_id == first.character_id:
            asked.extend(_rolls_of_the_second(rules, character, job, first, skip))
            continue
        own_skip = {(cid, key) for cid, key in skip if cid == character_id}
        queue = clock.DueTimers(job.from_time, end, own_skip)
        state = character.state
        queue.set_timers(character_id, rules.timers(state))
        while (due := queue.pop()) is not None:
            try:
                events = clock.fire(rules, state, due, dice_for(given_for(job, character, due), ask=True))
            except RollNeeded as need:
                order = (due.fire_at, character_id, due.timer.priority, due.timer.key)
                asked.append((order, asked_roll(rules, character, due, need.request)))
                asked.extend(_rolls_of_the_second(rules, character, job, due, queue.skip, state))
                break
            state = fold(rules, state, events)
            queue.fired(due, bool(events), rules.timers(state))
    return [need for _, need in sorted(asked, key=lambda pair: pair[0])]


def _rolls_of_the_second(
    rules: Ruleset,
    character: Character,
    job: Job,
    first: clock.Due,
    skip: set[tuple[int, str]],
    state: State | None = None,
) -> list[tuple[tuple[int, int, int, str], dict[str, Any]]]:
    """The rolls a character's other firings ask at the second of `first`, its firing that asks a roll (issue 42: a
    healing roll due with a stun recovery roll was asked in a second prompt; two critical hits' natural healing
    rolls, both due when the rest begins, one after the other): tried on its state without `first` (`state`, the
    state before `first`: the character's own by default; its dice are not known yet), each under its own key
    (`roll_key`: a roll of one injury names it, so one name may be asked twice). A firing whose roll's key is asked
    already waits for the one before it (`wait_for_rolls`). Should `first`'s outcome change what a later firing
    needs, its dice do not fit and it is asked again (`_fire`)."""
    character_id = first.character_id
    own_skip = {(cid, key) for cid, key in skip if cid == character_id} | {(character_id, first.timer.key)}
    queue = clock.DueTimers(job.from_time, first.fire_at, own_skip)
    state = character.state if state is None else state
    queue.set_timers(character_id, rules.timers(state))
    found: list[tuple[tuple[int, int, int, str], dict[str, Any]]] = []
    while (due := queue.pop()) is not None:
        if due.fire_at != first.fire_at:
            queue.fired(due, False, rules.timers(state))
            continue
        try:
            events = clock.fire(rules, state, due, dice_for(given_for(job, character, due), ask=True))
        except RollNeeded as need:
            asked = asked_roll(rules, character, due, need.request)
            if any(other["key"] == asked["key"] for _, other in found):
                break  # the same roll again: asked once the one before it is given
            order = (due.fire_at, character_id, due.timer.priority, due.timer.key)
            found.append((order, asked))
            queue.fired(due, False, rules.timers(state))  # asked: skipped from here on
            continue
        state = fold(rules, state, events)
        queue.fired(due, bool(events), rules.timers(state))
    return found


def _fire(rules: Ruleset, character: Character, due: clock.Due, job: Job) -> tuple[int, list[RuleTimer]]:
    """Fire one timer. Returns how many events it appended and the character's timers after it. With table dice,
    the firing takes the GM's dice given for it (`Job.rolls`) and raises `RollNeeded` for one nobody gave."""
    given = given_for(job, character, due)
    dice = dice_for(given, ask=job.asks)
    try:
        events = clock.fire(rules, character.state, due, dice)
    except DiceError:
        if not given:
            raise
        # Dice asked beside an earlier firing of the same second (`_rolls_of_the_second`) that no longer fit
        # what this firing needs, now that the earlier one has fired: forgotten, and the roll asked again.
        fired_with_dice(job, character, due)
        given, dice = {}, dice_for({}, ask=job.asks)
        events = clock.fire(rules, character.state, due, dice)
    if job.asks_before_death and kills(rules, events) and not death_allowed(job, character, due):
        raise DeathAhead(asked_death(rules, character, due))
    fired_with_dice(job, character, due)
    if given and events:
        events[0].data[TABLE_DICE] = sorted(name for name in given if name in dice.used)
    state, previous_timers = _evolved_in_place(rules, character, events)
    if not events:
        return 0, project_character(
            character, rules, state, character.version, previous_timers=previous_timers
        )
    _, timers = _record(
        character,
        rules,
        events,
        state,
        previous_timers,
        cause=f"timer:{job.pk}:{character.pk}:{due.timer.key}:{due.fire_at}",
        actor="clock",
        wrapper=transaction.get_connection(),
    )
    return len(events), timers


ADVANCE_FAILED = (
    "the advance stopped at {date} after {fired} because of an error on the server (its log has the details); "
    "what fired up to there is kept and the clock stands there: take this advance back, or advance again to go on"
)
ADVANCE_FAILED_UNTOUCHED = (
    "the advance stopped before it fired anything because of an error on the server (its log has the details); "
    "nothing was changed"
)


def clock_fail(job_id: Any) -> Job | None:
    """End an advance that failed for good (a bug, not a fault of the database: those are retried). What its
    committed batches fired stays, closed by a `ClockAdvanced` up to the second they reached, as an advance the
    firing limit stopped is: the clock stands there, the log agrees with it, and the advance can be taken back
    (`clock_rewind`). The job says so in words; the log keeps the error."""
    campaign_id = Job.objects.filter(pk=job_id).values_list("campaign_id", flat=True).first()
    if campaign_id is None:
        return None
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign_id)  # first, as `clock_run` takes it: no deadlock
        job = Job.objects.get(pk=job_id)
        if not job.open:
            return job
        job.needs_roll, job.needs_rolls, job.needs_yes = None, [], None
        if job.events_appended == 0 and job.reached == job.from_time:
            job.status, job.finished_at = Job.FAILED, timezone.now()
            job.error = ADVANCE_FAILED_UNTOUCHED
        else:
            _finish(campaign, job, end=job.reached)
            job.status = Job.FAILED
            fired = f"{job.timers_fired:,} timer firing{'' if job.timers_fired == 1 else 's'}"
            job.error = game_dates.dated(
                campaign.start, ADVANCE_FAILED.format(date=game_time_mark(job.reached), fired=fired)
            )
        job.save()
    return job


def clock_stop(*, job_id: Any) -> Job:
    """End an advance that waits for a roll (or before a death) where it stands, so that the GM may act before it:
    what it fired stays,
    closed by a `ClockAdvanced` up to the second it reached (the clock already stands there), as the firing limit
    closes one; the job is `done`, `stopped_because` naming the roll it stopped at. An advance that had fired
    nothing ends without an event: nothing changed. A stop retried finds the job it stopped and writes nothing."""
    campaign_id = Job.objects.filter(pk=job_id).values_list("campaign_id", flat=True).first()
    if campaign_id is None:
        raise Job.DoesNotExist
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign_id)  # first, as `clock_run` takes it: no deadlock
        job = Job.objects.get(pk=job_id)
        stopped = STOPPED_BY_THE_GM.format(roll="")
        if job.status == Job.DONE and job.stopped_because.startswith(stopped):
            return job
        if not job.waiting:
            status = "running" if job.open else f"{job.status} already"
            raise Conflict("job", NOT_STOPPABLE.format(status=status))
        at = roll_owner(job.asked[0]) if job.asked else f"{job.needs_yes['character_name']}'s death"
        job.stopped_because = STOPPED_BY_THE_GM.format(roll=at)
        job.needs_roll, job.needs_rolls, job.needs_yes = None, [], None
        job.rolls = {}
        job.ticket = uuid.uuid4()  # a message still queued for it stops at once
        if job.events_appended == 0 and job.reached == job.from_time:
            job.status, job.finished_at = Job.DONE, timezone.now()
        else:
            _finish(campaign, job, end=job.reached)
        job.progress = 1.0
        job.save()
    return job


STOP_ON_STATUS = "status"
# A status as the board reads it, and the words for each change: (field, was, now) -> words.
STATUS_WORDS = {
    ("alive", True, False): "dies",
    ("dying", False, True): "starts dying",
    ("dying", True, False): "stops dying",
    ("conscious", True, False): "falls unconscious",
    ("conscious", False, True): "wakes",
    ("stunned", False, True): "is stunned",
    ("stunned", True, False): "is no longer stunned",
}


def status_of(rules: Ruleset, state: State) -> dict[str, bool]:
    """What `stop_on: "status"` watches: alive, dying, conscious (the ruleset's status) and stunned (a state's
    `stunned`, in the rulesets that have it)."""
    status = rules.status(state)
    return {
        "alive": bool(status["alive"]),
        "dying": bool(status["dying"]),
        "conscious": bool(status["conscious"]),
        "stunned": bool(state.get("stunned")),
    }


def status_change(before: dict[str, bool], rules: Ruleset, character: Character) -> str:
    """The change a firing made to the character's status, in words ('dies'), or '' for none. A death says only
    that: it also ends the dying and the consciousness."""
    after = status_of(rules, character.state)
    changes = [STATUS_WORDS[(name, was, after[name])] for name, was in before.items() if after[name] != was]
    if "dies" in changes:
        return "dies"
    return " and ".join(changes)


def clock_ticket_renew(job_id: Any) -> uuid.UUID | None:
    """A new ticket for an advance under way, for a resend: whichever message it had before stops at its next batch,
    so a resend never leaves two messages taking turns for one job. None when the advance is open no longer."""
    ticket = uuid.uuid4()
    if Job.objects.filter(pk=job_id, status__in=[Job.QUEUED, Job.RUNNING]).update(ticket=ticket):
        return ticket
    return None
