"""Table dice: the GM rolls (docs/rules/README.md, "Table dice", campaign option `table_dice`); an advance that waits
for the rolls of a round, and one that the GM stops there to act. And a death that waits for the GM's yes: an
advance that asks before a death (`Job.asks_before_death`, every advance from the board) waits before a firing that
kills, the same way (docs/clock.md, "A death waits for the GM's yes")."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from campaign import queue
from campaign.ledger import eventstore
from campaign.models import Character, Job, old_roll_key, roll_key
from campaign.services.core import Conflict, ServiceError
from rules import clock
from rules.dice import MOST_DIE, DiceError, RollRequest
from rules.ruleset import Event as RuleEvent
from rules.ruleset import Ruleset
from rules.text import given as said_back

NOT_WAITING = "this advance is not waiting for a roll"
ROLLS_EXPECTED = "expected the rolls the clock waits for, by their keys ({asked}), or ask: false"
ANOTHER_ROLL = "the clock waits for {asked}, not this roll"
SAME_NAME = "the clock asks this roll of {who}: give each by its key, {keys}"
SAME_KEY = "the clock asks {who}: give each by its key, {keys}"
GIVEN_TWICE = "this roll is given twice ({keys})"
# Rolls due within one combat round (3 game seconds) of the first one asked are asked together: the saves a round
# asks of several characters (docs/clock.md, "Table dice").
ROUND_SECONDS = 3
# `Job.stopped_because` of an advance the GM stopped at a roll; a stop retried finds it and changes nothing.
STOPPED_BY_THE_GM = "the GM stopped it at {roll}"
NOT_STOPPABLE = "only an advance waiting for a roll can be stopped; this one is {status}"
NOT_AT_A_DEATH = "this advance is not waiting before a death"
WAITS_AT_A_DEATH = (
    "the clock waits before {who}'s death, not for a roll: let it happen, or stop the advance there"
)


def _firing(character: Character, due: clock.Due) -> dict[str, Any]:
    """Which firing of an advance a roll is for: the character, the timer and the game second it fires at."""
    return {"character": character.pk, "key": due.timer.key, "at": due.fire_at}


def _given(job: Job) -> list[dict[str, Any]]:
    """The GM's dice kept for the firings the advance stopped before: `[{firing, dice}]` (a job written before
    several rolls were asked at once kept one firing's, `{firing, dice}`)."""
    if "firing" in job.rolls:
        return [{"firing": job.rolls["firing"], "dice": dict(job.rolls.get("dice", {}))}]
    return [dict(entry) for entry in job.rolls.get("given", [])]


def _keep_given(job: Job, given: list[dict[str, Any]]) -> None:
    rest = {key: value for key, value in job.rolls.items() if key not in ("firing", "dice", "given")}
    job.rolls = {**rest, "given": given} if given else rest


def given_for(job: Job, character: Character, due: clock.Due) -> dict[str, Any]:
    """The GM's dice given for this firing, if the advance stopped before it."""
    firing = _firing(character, due)
    return next((dict(entry["dice"]) for entry in _given(job) if entry["firing"] == firing), {})


def fired_with_dice(job: Job, character: Character, due: clock.Due) -> None:
    """Forget the dice of a firing once it has fired (a save every turn asks for the same roll again)."""
    firing = _firing(character, due)
    given = _given(job)
    if any(entry["firing"] == firing for entry in given):
        _keep_given(job, [entry for entry in given if entry["firing"] != firing])


def asked_roll(rules: Ruleset, character: Character, due: clock.Due, request: RollRequest) -> dict[str, Any]:
    """A roll the advance asks for: the roll (name, dice, label, target, why), for whom, which firing, its key
    (`roll_key`: unique among the rolls asked at once, the same for the same firing), and `about`, the injury its
    timer is about in words ("critical hit 2 to the chest", `Ruleset.timer_subject`; "" for the whole
    character)."""
    return {
        **request.as_data(),
        "key": roll_key(character.pk, request.name, due.timer.key),
        "about": rules.timer_subject(character.state, due.timer),
        "character": character.pk,
        "character_name": character.name,
        "kind": due.timer.kind,
        "game_time": due.fire_at,
        "firing": _firing(character, due),
    }


def wait_for_rolls(job: Job, asked: list[dict[str, Any]]) -> None:
    """Stop the advance before the firings that need rolls nobody gave: the job stays open (the campaign's actions
    wait), saying which rolls, for whom and why; `clock_give_roll` goes on, `clock_stop` ends it there. Each key is
    asked once: a firing whose roll's key is taken already (a second timer of the whole character asking a roll of
    the same name at the same second) is asked once the one before it is given."""
    once: dict[str, dict[str, Any]] = {}
    for need in asked:
        once.setdefault(need["key"], need)
    job.needs_rolls = list(once.values())
    job.needs_roll = job.needs_rolls[0]


# --- a death waits for the GM's yes ------------------------------------------------------------------------------


class DeathAhead(Exception):
    """A firing would kill a character and its advance asks before a death: nothing of the firing is written."""

    def __init__(self, asked: dict[str, Any]) -> None:
        super().__init__(asked["character_name"])
        self.asked = asked


def kills(rules: Ruleset, events: list[RuleEvent]) -> bool:
    """Whether these events of one firing end a life: an event the ruleset tells as a death (`Ruleset.notices`)."""
    return any(rules.notices.get(event.type) == "dead" for event in events)


def death_allowed(job: Job, character: Character, due: clock.Due) -> bool:
    """Whether the GM said yes to this firing's death (`clock_go_on`)."""
    return _firing(character, due) in job.rolls.get("deaths", [])


def asked_death(rules: Ruleset, character: Character, due: clock.Due) -> dict[str, Any]:
    """The death an advance waits before: for whom, which firing, when, and what kills in the ruleset's words
    ("bleeds out from critical hit 1 to the chest (lung), unless treated"); `saved_by`, what the GM may do
    instead."""
    saves = rules.saves(character.state, due.fire_at)
    return {
        "character": character.pk,
        "character_name": character.name,
        "kind": due.timer.kind,
        "game_time": due.fire_at,
        "what": rules.timer_words(character.state, due.timer),
        "saved_by": saves.get("saved_by") or "treated",
        "firing": _firing(character, due),
    }


def _locked_job(job_id: Any, idempotency_key: str | None) -> tuple[Job, bool]:
    """The waiting advance, read again under its campaign's lock (inside the caller's transaction: the worker may
    have moved it meanwhile), and whether `idempotency_key` has answered it already (a retry then changes nothing)."""
    job = Job.objects.get(pk=job_id)
    eventstore.lock_campaign(job.campaign_id)
    job = Job.objects.get(pk=job_id)
    return job, bool(idempotency_key) and idempotency_key in job.rolls.get("answered", [])


def clock_go_on(*, job_id: Any, idempotency_key: str | None = None) -> Job:
    """The GM's yes to the death a waiting advance stopped before: it happens, and the advance goes on (asking again
    before another). The same Idempotency-Key again changes nothing: a retried yes must not let the next death
    happen too."""
    with transaction.atomic():
        job, answered_already = _locked_job(job_id, idempotency_key)
        if answered_already:
            return job
        if not job.waiting or job.needs_yes is None:
            raise Conflict("job", NOT_AT_A_DEATH)
        answered = [*job.rolls.get("answered", []), *([idempotency_key] if idempotency_key else [])]
        deaths = [*job.rolls.get("deaths", []), job.needs_yes["firing"]]
        job.rolls = {**job.rolls, "deaths": deaths, "answered": answered[-20:]}
        job.needs_yes = None
        job.ticket = uuid.uuid4()
        job.heartbeat_at = timezone.now()
        job.save(update_fields=["rolls", "needs_yes", "ticket", "heartbeat_at"])
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            transaction.on_commit(lambda: queue.enqueue_advance(job.pk, job.ticket))
    if settings.CELERY_TASK_ALWAYS_EAGER:
        queue.enqueue_advance(job.pk, job.ticket)
    job.refresh_from_db()
    return job


# --- the rolls in words ---------------------------------------------------------------------------------------


def roll_owner(need: Mapping[str, Any]) -> str:
    """Whose roll and which, as the GM reads it: "Ash's stun save", "Ash's physical healing (Body)"; for a roll of
    one injury, that injury too: "Ash's natural healing (Body) for critical hit 2 to the chest (lung)"."""
    label = need["label"]
    about = f" for {need['about']}" if need.get("about") else ""
    return f"{need['character_name']}'s {label[:1].lower()}{label[1:]}{about}"


def dice_words(need: Mapping[str, Any], *, as_rolled: bool = False) -> str:
    """The dice a roll takes: "1d10 from 1 to 10", "5d6 from 1 to 6 each". A Rule-of-Six pool as the API takes it,
    "5d6, each die's total (a 6 is rolled again and added: 6 then 4 is 10)", or as the board's row takes it
    (`as_rolled`), "5d6, typed as rolled, a 6 then the die rolled after it: 6 4": one way to type it each, never
    both at once. The count is said as the prompt says it ("roll 5d6"), digits for any pool (docs/web.md)."""
    count, sides = need["count"], need["sides"]
    number = f"{count}d{sides}"
    if need.get("open_ended"):
        if as_rolled:
            return f"{number}, typed as rolled, a 6 then the die rolled after it: 6 4"
        return f"{number}, each die's total (a 6 is rolled again and added: 6 then 4 is 10)"
    return f"{number} from 1 to {sides}{'' if count == 1 else ' each'}"


def asked_words(need: Mapping[str, Any], *, as_rolled: bool = False) -> str:
    """ "Ash's stun save needs 1d10 from 1 to 10": the start of every refusal of a roll."""
    return f"{roll_owner(need)} needs {dice_words(need, as_rolled=as_rolled)}"


def _listed(values: list[int]) -> str:
    return (
        " and ".join([", ".join(map(str, values[:-1])), str(values[-1])])
        if len(values) > 1
        else str(values[0])
    )


def roll_refusal(need: Mapping[str, Any], values: Any, *, as_rolled: bool = False) -> str:
    """Why these dice cannot be the roll asked, in words ("Ash's stun save needs 1d10 from 1 to 10; 11 is not a
    d10 roll"), or "" when they can. What `RollRequest.check` accepts is the rule; this only says it. `as_rolled`:
    the values are the totals of a Rule-of-Six pool the board's row read from the dice as typed, and the words say
    it that way."""
    if isinstance(values, int) and not isinstance(values, bool):
        values = [values]
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        return f"{asked_words(need)}; expected a list of whole numbers"
    sides = need["sides"]
    if len(values) != need["count"]:
        if as_rolled and values:
            read = f"{len(values)} {'die was' if len(values) == 1 else 'dice were'} read"
            chained = " (a 6 and the die after it are one die)" if any(v > 6 for v in values) else ""
            return f"{asked_words(need, as_rolled=True)}; {read}: {_listed(values)}{chained}"
        given = (
            "none was given" if not values else f"{len(values)} {'was' if len(values) == 1 else 'were'} given"
        )
        return f"{asked_words(need)}; {given}{f' ({_listed(values)})' if values else ''}"
    if need.get("open_ended"):
        bad = [v for v in values if v < 1 or v % 6 == 0]
        if bad:
            are = "is not a total" if len(bad) == 1 else "are not totals"
            return f"{asked_words(need)}; {_listed(bad)} {are} (a 6 is always followed by the die after it)"
        big = [v for v in values if v > MOST_DIE]
        if big:
            are = "is" if len(big) == 1 else "are"
            return f"{asked_words(need)}; {_listed(big)} {are} past the largest total the ledger keeps ({MOST_DIE:,})"
    else:
        bad = [v for v in values if not 1 <= v <= sides]
        if bad:
            are = f"is not a d{sides} roll" if len(bad) == 1 else f"are not d{sides} rolls"
            return f"{asked_words(need)}; {_listed(bad)} {are}"
    try:
        RollRequest.from_data(need).check(values)
    except DiceError as error:
        return f"{asked_words(need)}; {error.detail.replace('[', '').replace(']', '')}"
    return ""


class RollsRefused(ServiceError):
    """Rolls given wrong, each with its words: `errors` maps each field (`rolls.<key>`) to its message, the first
    being the error's own `field` and `message`, so that a row of rolls can say each beside its own input."""

    def __init__(self, errors: dict[str, str]) -> None:
        field, message = next(iter(errors.items()))
        super().__init__(field, message)
        self.errors = errors


def _matched(asked: list[dict[str, Any]], rolls: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each roll given and the roll it answers: by its key; or, as before keys named a timer's injury, by the
    character's id and the roll's name ("9.critical_healing") or by the name alone, where that names one roll
    asked."""
    by_key = {need["key"]: need for need in asked}
    matched: dict[str, dict[str, Any]] = {}
    for posted in rolls:
        need = by_key.get(posted)
        if need is None:
            need = _one_named(asked, posted)
        twice = [key for key, other in matched.items() if other is need]
        if twice:
            raise ServiceError(f"rolls.{posted}", GIVEN_TWICE.format(keys=f"{twice[0]} and {posted}"))
        matched[posted] = need
    return matched


def _one_named(asked: list[dict[str, Any]], posted: str) -> dict[str, Any]:
    """The one roll asked that `posted`, not a key, names: as the character's id and the roll's name, or as the name
    alone; a 400 saying the keys to give when it names several (Ash and Bo's stun saves, or Ash's two critical
    hits' natural healing), or none."""
    named = [n for n in asked if old_roll_key(n) == posted] or [n for n in asked if n["name"] == posted]
    if len(named) == 1:
        return named[0]
    if not named:
        waits = " and ".join(f"{roll_owner(n)} under {n['key']}" for n in asked)
        raise ServiceError(f"rolls.{posted}", ANOTHER_ROLL.format(asked=waits))
    keys = " or ".join(n["key"] for n in named)
    people = [n["character_name"] for n in named]
    if len(set(people)) == len(people):
        raise ServiceError(f"rolls.{posted}", SAME_NAME.format(who=" and ".join(people), keys=keys))
    who = " and ".join(roll_owner(n) for n in named)
    raise ServiceError(f"rolls.{posted}", SAME_KEY.format(who=who, keys=keys))


def clock_give_roll(*, job_id: Any, body: Any, idempotency_key: str | None = None) -> Job:
    """The GM's rolls for the firings a waiting advance stopped before (`{key: [dice]}`, each key one of
    `needs_rolls`; the character's id and the roll's name, or the name alone, where that names one roll asked), or
    `{"ask": false}`: the server rolls the rest of this advance. Any of the rolls asked may be given; the advance
    goes on in the worker and asks again for what it still needs. Rolls given wrong are refused together, each in
    words, and nothing is kept. The same Idempotency-Key again changes nothing: a retried request must not answer
    the next roll the clock asks for (a death save every turn asks for the same roll again)."""
    if not isinstance(body, Mapping):
        raise ServiceError("body", "expected a JSON object of the rolls' dice")
    ask = body.get("ask")
    if ask is not None and not isinstance(ask, bool):
        raise ServiceError("ask", f"expected true or false, got {said_back(ask, typed=True)}")
    rolls = {name: value for name, value in body.items() if name != "ask"}
    with transaction.atomic():
        job, answered_already = _locked_job(job_id, idempotency_key)
        if answered_already:
            return job
        if not job.waiting:
            raise Conflict("job", NOT_WAITING)
        if job.needs_roll is None:
            raise Conflict("job", WAITS_AT_A_DEATH.format(who=job.needs_yes["character_name"]))
        asked = job.asked
        matched = _matched(asked, rolls)
        if not matched and ask is not False:
            keys = "; ".join(f"{n['key']}, {roll_owner(n)} ({n['count']}d{n['sides']})" for n in asked)
            raise ServiceError("rolls", ROLLS_EXPECTED.format(asked=keys))
        errors = {
            f"rolls.{posted}": problem
            for posted, need in matched.items()
            if (problem := roll_refusal(need, rolls[posted]))
        }
        if errors:
            raise RollsRefused(errors)
        given = _given(job)
        for posted, need in matched.items():
            entry = next((e for e in given if e["firing"] == need["firing"]), None)
            if entry is None:
                entry = {"firing": need["firing"], "dice": {}}
                given.append(entry)
            entry["dice"] = {**entry["dice"], need["name"]: RollRequest.from_data(need).check(rolls[posted])}
        _keep_given(job, given)
        answered = [*job.rolls.get("answered", []), *([idempotency_key] if idempotency_key else [])]
        job.rolls = {**job.rolls, "answered": answered[-20:]}
        job.asks = job.asks and ask is not False
        job.needs_roll = None
        job.needs_rolls = []
        job.ticket = uuid.uuid4()
        job.heartbeat_at = timezone.now()
        job.save(update_fields=["rolls", "asks", "needs_roll", "needs_rolls", "ticket", "heartbeat_at"])
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            transaction.on_commit(lambda: queue.enqueue_advance(job.pk, job.ticket))
    if settings.CELERY_TASK_ALWAYS_EAGER:
        queue.enqueue_advance(job.pk, job.ticket)
    job.refresh_from_db()
    return job
