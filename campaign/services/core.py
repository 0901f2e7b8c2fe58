"""What every service shares: the refusals, names and keys, the lock's busy clock, and the record step (a
character's new events appended with their projection in one write)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import OuterRef, Subquery

from campaign.ledger import eventstore, secrecy
from campaign.ledger.projections import keep_clock_due, projection_writes
from campaign.models import IDEMPOTENCY_KEY_LENGTH, Campaign, Character, Event, Job
from rules.dice import Dice
from rules.params import reject_unknown
from rules.ruleset import Event as RuleEvent
from rules.ruleset import RuleError, Ruleset, State, fold_into
from rules.ruleset import Timer as RuleTimer
from rules.text import given, unreadable

User = get_user_model()

CLOCK_BUSY = "the game clock is advancing (job {job}); try again when it has finished"
VERSION_CONFLICT = (
    "the character changed meanwhile: it is at version {actual}, not {expected}; reload and retry"
)
KEY_REUSED = "this Idempotency-Key was already used for a different request"


class ServiceError(RuleError):
    """A refusal of the services' own (who may do what, names, keys, the clock): the rules' one error type."""


class Conflict(ServiceError):
    status = 409


class Unavailable(ServiceError):
    status = 503


def readable(field: str, text: str, what: str) -> None:
    """Refuse a name people would read wrong or not at all (rules/text.py), as the rules refuse a medic's."""
    if problem := unreadable(text, what):
        raise ServiceError(field, problem)


def _name(name: Any, expected: str) -> str:
    """A campaign's or a character's name as it is kept: stripped, at most 200 characters, readable."""
    if not isinstance(name, str) or not name.strip():
        raise ServiceError("name", f"expected {expected} (a non-empty text)")
    if len(name) > 200:
        raise ServiceError("name", f"expected at most 200 characters, got {len(name)}")
    readable("name", name.strip(), "a name")
    return name.strip()


def idempotency_key(field: str, raw: str | None) -> str | None:
    """The key a write came with (the API's `Idempotency-Key` header, a web form's hidden `key`): the same key and
    request again return the first answer. Too long is refused, not cut short: two keys could be taken for one."""
    key = (raw or "").strip()
    if len(key) > IDEMPOTENCY_KEY_LENGTH:
        raise ServiceError(field, f"expected at most {IDEMPOTENCY_KEY_LENGTH} characters, got {len(key)}")
    return key or None


def request_digest(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def _user_named(field: str, name: str) -> AbstractBaseUser:
    # No user's name is longer: a longer one is refused without being echoed back in full.
    longest = User._meta.get_field("username").max_length
    if len(name) > longest:
        raise ServiceError(field, f"expected a user name of at most {longest} characters, got {len(name)}")
    user = User.objects.filter(username=name).first()
    if user is None:
        raise ServiceError(field, f"there is no user named {given(name)}")
    return user


# The dice the services roll what nobody gave with: the server's own, from the system's randomness. The one place a
# test gives dice of its own: the `server_dice` fixture (tests/conftest.py) sets this.
DICE: type[Dice] = Dice


def dice_for(given: Mapping[str, Any] | None = None, *, ask: bool = False) -> Dice:
    """The dice of one command or one firing of the clock: `given` are the GM's, and anything else is rolled by
    `DICE`; with `ask` (table dice) a roll nobody gave raises `RollNeeded` instead."""
    return DICE(given, ask=ask)


@dataclass
class ActionResult:
    events: list[Event]
    character: Character
    state: State
    replayed: bool = False


def _evolved_in_place(
    rules: Ruleset, character: Character, events: list[RuleEvent]
) -> tuple[State, list[RuleTimer]]:
    """Fold `events` into the character's state itself, not a copy: it was read for this command alone (a failed
    command is retried from a fresh read). Returns the state and the timers it had before."""
    before = rules.timers(character.state)
    return fold_into(rules, character.state, events), before


def _key_positions(campaign: Campaign, idempotency_key: str) -> tuple[int | None, Any]:
    """Where this key is held in the campaign, found in one query: the position of the first event of a command
    that used it (an action, a new character) and the id of an advance that used it. A campaign's keys are one set,
    kept by its event log and by its jobs. A command on a character finds the same in its read under the lock
    (`eventstore.lock_for_character`), without a query of its own."""
    return (
        Campaign.objects.filter(pk=campaign.pk)
        .annotate(
            event_position=Subquery(
                Event.objects.filter(campaign=OuterRef("pk"), idempotency_key=idempotency_key).values(
                    "position"
                )[:1]
            ),
            job_id=Subquery(
                Job.objects.filter(campaign=OuterRef("pk"), idempotency_key=idempotency_key).values("pk")[:1]
            ),
        )
        .values_list("event_position", "job_id")
        .get()
    )


def _key_holders(campaign: Campaign, idempotency_key: str) -> tuple[Event | None, Job | None]:
    """What already holds this key in the campaign: the first event of a command and an advance."""
    position, job_id = _key_positions(campaign, idempotency_key)
    event = None if position is None else Event.objects.get(position=position)
    return event, None if job_id is None else Job.objects.get(pk=job_id)


def _first_with_key(campaign: Campaign, idempotency_key: str) -> Event | None:
    """The first event of the command this key was used for, if any; a 409 if an advance used it."""
    return _first_held(*_key_positions(campaign, idempotency_key))


def _first_held(event_position: int | None, job_id: Any) -> Event | None:
    """The first event of the command that used a key, from where the key is held (`_key_positions`, or the read
    under a character's lock); a 409 if an advance used it. Only a key used before (a retry) reads a row."""
    if job_id is not None:
        raise Conflict("Idempotency-Key", KEY_REUSED)
    return None if event_position is None else Event.objects.get(position=event_position)


def _record(
    character: Character,
    rules: Ruleset,
    events: list[RuleEvent],
    state: State,
    previous_timers: list[RuleTimer],
    *,
    cause: str,
    actor: str,
    wrapper: Any,
    idempotency_key: str | None = None,
    digest: str = "",
) -> tuple[list[Event], list[RuleTimer]]:
    """Append a character's new events with the projection of the state they lead to, in one write (the
    projection rides along with the append). Returns the stored rows and the character's timers after them."""
    version = character.version
    seen = secrecy.new_entries(rules, character.stream, events)
    projection, timers = projection_writes(
        character, rules, state, version + len(events), previous_timers, wrapper, seen
    )
    rows = eventstore.append(
        campaign=character.campaign,
        stream=character.stream,
        character=character,
        expected_version=version,
        events=events,
        cause=cause,
        actor=actor,
        idempotency_key=idempotency_key,
        request_digest=digest,
        alongside=projection,
        wrapper=wrapper,
    )
    keep_clock_due(character.campaign, wrapper, previous_timers, timers)
    return rows, timers


def _body_of(changes: Any, fields: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(changes, Mapping):
        raise ServiceError("body", f"expected a JSON object with any of {', '.join(fields)}")
    reject_unknown(changes, fields)
    return changes


# How to act first while the clock waits (the board's button, the API's `POST /api/jobs/{id}/stop/`): said alike
# on the web and in the API, without the job's id (words for people).
STOP_HERE = 'press "Stop here" there (the job\'s stop in the API) to act first'
CLOCK_WAITS = (
    "the game clock waits for a roll: {character_name}'s {what} ({count}d{sides}); give it on the board, "
    + STOP_HERE
    + ", or let the server roll the rest of the advance"
)


CLOCK_WAITS_AT_A_DEATH = (
    "the game clock waits before {character_name}'s death ({what}): stop the advance there on the board to act, or "
    "let it happen"
)
CLOCK_WAITS_FOR_ROLLS = (
    "the game clock waits for {count} rolls: {rolls}; give them on the board, "
    + STOP_HERE
    + ", or let the server roll the rest of the advance"
)


class ClockBusy(Conflict):
    """An action refused while an advance is under way (`clock_busy`): `job_id` names it when it waits for the GM
    (a roll, a death), so that a form refused for it says what of the clock it was refused at
    (`campaign.web.board.clock_drawn`); None for one merely running."""

    def __init__(self, job_id: Any) -> None:
        message = clock_busy(job_id)
        super().__init__("clock", message)
        self.job_id = None if message == CLOCK_BUSY.format(job=job_id) else job_id


def _roll_words(need: Mapping[str, Any]) -> str:
    """A roll the clock waits for, after its character's name: "stun save", "natural healing (Body) for critical
    hit 2 to the chest" (the injury it is about, `services.table_dice.asked_roll`)."""
    about = f" for {need['about']}" if need.get("about") else ""
    return f"{need['label'][:1].lower()}{need['label'][1:]}{about}"


def clock_busy(job_id: Any) -> str:
    """Why the campaign's actions wait (409): the clock is advancing, or it waits for the GM's rolls, and which."""
    row = Job.objects.filter(pk=job_id).values_list("needs_roll", "needs_rolls", "needs_yes").first()
    if row and row[2]:
        return CLOCK_WAITS_AT_A_DEATH.format(**row[2])
    if not row or not row[0]:
        return CLOCK_BUSY.format(job=job_id)
    needs, several, _ = row
    if len(several) < 2:
        return CLOCK_WAITS.format(**needs, what=_roll_words(needs))
    rolls = [
        f"{need['character_name']}'s {_roll_words(need)} ({need['count']}d{need['sides']})"
        for need in several
    ]
    return CLOCK_WAITS_FOR_ROLLS.format(count=len(rolls), rolls=", ".join(rolls))
