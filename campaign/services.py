"""The one write path: load state -> rules decide -> append -> project, in one transaction.

Views and tasks parse input and call these functions; nothing else writes events or read models.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone

from campaign import eventstore, game_dates, outages, presenters, secrecy
from campaign.models import (
    GM,
    IDEMPOTENCY_KEY_LENGTH,
    PLAYER,
    Campaign,
    Character,
    Event,
    ImportJob,
    Invitation,
    Job,
    Membership,
    Timer,
)
from campaign.projections import (
    CAMPAIGN_CHANGED,
    CAMPAIGN_CREATED,
    CHARACTER_CREATED,
    CLOCK_ADVANCED,
    CLOCK_REWOUND,
    INVITATION_ACCEPTED,
    INVITATION_CANCELLED,
    INVITATION_DECLINED,
    MEMBER_INVITED,
    MEMBER_LEFT,
    MEMBER_REMOVED,
    character_state_at,
    project_character,
    projection_writes,
)
from rules import clock
from rules import options as declared
from rules import ruleset as ruleset_types
from rules.dice import Dice, RollNeeded, RollRequest
from rules.event_schema import TABLE_DICE
from rules.params import reject_unknown, reject_unknown_params
from rules.registry import get_ruleset
from rules.ruleset import (
    ACTION_UNDONE,
    ACTIONS_REVERTED,
    CHARACTER_CHANGED,
    CHARACTER_RESTORED,
    CHARACTER_RETIRED,
    RuleError,
    Ruleset,
    State,
    copy_state,
    fold_into,
    game_time_mark,
    note_event,
    replay,
    set_options,
    start_state,
)
from rules.ruleset import Event as RuleEvent
from rules.ruleset import Timer as RuleTimer
from rules.text import unreadable

User = get_user_model()
log = logging.getLogger(__name__)

CLOCK_BUSY = "the game clock is advancing (job {job}); try again when it has finished"
VERSION_CONFLICT = (
    "the character changed meanwhile: it is at version {actual}, not {expected}; reload and retry"
)
KEY_REUSED = "this Idempotency-Key was already used for a different request"
LAST_GM = "{name} is the campaign's only GM: make someone else a GM first, or nobody could run the campaign"
NOTHING_TO_UNDO = "there is nothing to undo on this character"
MAX_ADVANCE_SECONDS = 100 * 366 * 86_400
SHARED_OPTIONS = declared.SHARED_NAMES
# A fight ends by itself after this many game minutes without a combat action (option `fight_idle_minutes`; 0: the
# GM ends it), so that downtime is never counted in rounds (docs/web.md, "The round counter").
FIGHT_IDLE_MINUTES = declared.FIGHT_IDLE_MINUTES
COMMAND_ATTEMPTS = 3


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


# --- users and campaigns -------------------------------------------------------------------------------------


def sign_up_problems(*, username: Any, password: Any) -> dict[str, str]:
    """Every reason the user name and the password would be refused, at once (the sign-up form shows them all);
    empty when there is none. A name already taken is found only by saving (`user_sign_up`)."""
    problems: dict[str, str] = {}
    name = username.strip() if isinstance(username, str) else ""
    user = User(username=name)
    if not name:
        problems["username"] = "expected a user name (letters, digits and @/./+/-/_)"
    # Django's validator takes any letter, a Hangul filler (U+3164) that draws nothing included.
    elif problem := unreadable(name, "a user name"):
        problems["username"] = problem
    else:
        try:
            user.full_clean(exclude=["password"])
        except ValidationError as error:
            field, messages = next(iter(error.message_dict.items()))
            problems[field] = " ".join(messages)
    if not isinstance(password, str) or not password:
        problems["password"] = "expected a password"
    else:
        try:
            validate_password(password, user)
        except ValidationError as error:
            problems["password"] = " ".join(error.messages)
    return problems


def user_sign_up(*, username: Any, password: Any) -> AbstractBaseUser:
    problems = sign_up_problems(username=username, password=password)
    if problems:
        field, message = next(iter(problems.items()))
        raise ServiceError(field, message)
    user = User(username=username.strip())
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise ServiceError("username", "a user with that user name already exists") from None
    return user


def validate_campaign_options(ruleset: Ruleset, options: Any) -> dict[str, Any]:
    """The ruleset's options plus the shared ones (`start`, `time_scale`, `table_dice`: `rules.options.SHARED`),
    defaults filled in, each checked by its declaration."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise ServiceError("options", f"expected an object, got {type(options).__name__}")
    given = {"start": ruleset.default_start, **options}
    shared = {setting.name: setting.read(given, "options") for setting in declared.SHARED}
    rest = {name: value for name, value in options.items() if name not in declared.SHARED_NAMES}
    return {**ruleset.validate_options(rest), **shared}


def _hold_campaign_key(user: AbstractBaseUser, idempotency_key: str) -> None:
    """Hold this user's key until the transaction ends. On PostgreSQL a lock on the key alone (an advisory lock):
    a lock on the user's row would hold up their log-ins, which write it, for as long as an import runs. On SQLite
    every writing transaction already holds the database's one write lock (IMMEDIATE)."""
    connection = transaction.get_connection()
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            [f"new campaign:{user.pk}:{idempotency_key}"],
        )


def campaign_made_with(user: AbstractBaseUser, idempotency_key: str | None, digest: str) -> Campaign | None:
    """The campaign `user` created or imported with this key, if any; a 409 if that was another request. A new
    campaign's key is its user's. The same key sent twice at once makes one campaign: see `_hold_campaign_key`."""
    if not idempotency_key:
        return None
    _hold_campaign_key(user, idempotency_key)
    first = Event.objects.filter(
        campaign__created_by=user, type=CAMPAIGN_CREATED, idempotency_key=idempotency_key
    ).first()
    if first is None:
        # An import's key is held by its job until its campaign's first event is written (campaign.transfer).
        if (
            ImportJob.objects.filter(user=user, idempotency_key=idempotency_key)
            .exclude(file_sha256=digest)
            .exists()
        ):
            raise Conflict("Idempotency-Key", KEY_REUSED)
        return None
    if first.request_digest != digest:
        raise Conflict("Idempotency-Key", KEY_REUSED)
    return Campaign.objects.get(pk=first.campaign_id)


def campaign_create(
    *,
    user: AbstractBaseUser,
    name: Any,
    ruleset: Any,
    options: Any = None,
    idempotency_key: str | None = None,
) -> Campaign:
    """A new campaign with `user` as its GM. The same `idempotency_key` from the same user again returns the
    campaign the first request made (a form submitted twice, a retried request)."""
    digest = request_digest({"name": name, "ruleset": ruleset, "options": options})
    name = _name(name, "the campaign's name")
    rules = get_ruleset(ruleset)
    options = validate_campaign_options(rules, options)
    with transaction.atomic():
        made = campaign_made_with(user, idempotency_key, digest)
        if made is not None:
            return made
        campaign = Campaign.objects.create(name=name, ruleset=rules.slug, options=options, created_by=user)
        Membership.objects.create(campaign=campaign, user=user, role=GM)
        eventstore.append(
            campaign=campaign,
            stream=campaign.stream,
            expected_version=0,
            events=[
                RuleEvent(
                    CAMPAIGN_CREATED, {"name": campaign.name, "ruleset": rules.slug, "options": options}, 0
                )
            ],
            cause=f"campaign:{uuid.uuid4()}",
            actor=user.get_username(),
            idempotency_key=idempotency_key,
            request_digest=digest if idempotency_key else "",
        )
        Campaign.objects.filter(pk=campaign.pk).update(version=1)
        campaign.version = 1
    return campaign


def member_add(*, campaign: Campaign, username: Any, role: Any) -> Membership:
    user = _role_and_user(role, username)
    with transaction.atomic():
        # Under the campaign's lock: two GMs making each other players at once must not leave it with none.
        campaign = eventstore.lock_campaign(campaign.pk)
        if (
            role == PLAYER
            and not Membership.objects.filter(campaign=campaign, role=GM).exclude(user=user).exists()
        ):
            raise ServiceError("role", LAST_GM.format(name=username))
        membership, _ = Membership.objects.update_or_create(
            campaign=campaign, user=user, defaults={"role": role}
        )
    return membership


def _role_and_user(role: Any, username: Any) -> AbstractBaseUser:
    """A member's role and user as a request names them: a 400 naming the field for either that is wrong."""
    if role not in (GM, PLAYER):
        raise ServiceError("role", f"expected one of gm, player, got {role!r}")
    if not isinstance(username, str) or not username:
        raise ServiceError("username", "expected a user name")
    return _user_named("username", username)


def _user_named(field: str, name: str) -> AbstractBaseUser:
    # No user's name is longer: a longer one is refused without being echoed back in full.
    longest = User._meta.get_field("username").max_length
    if len(name) > longest:
        raise ServiceError(field, f"expected a user name of at most {longest} characters, got {len(name)}")
    user = User.objects.filter(username=name).first()
    if user is None:
        raise ServiceError(field, f"there is no user named {name!r}")
    return user


def _player_for(campaign: Campaign, player: Any) -> AbstractBaseUser | None:
    if player is None or player == "":
        return None
    if not isinstance(player, str):
        raise ServiceError("player", f"expected a user name or null, got {player!r}")
    user = _user_named("player", player)
    # A pending invitee may be named: the character waits, unseen by them, for the acceptance (docs/members.md).
    if not (
        Membership.objects.filter(campaign=campaign, user=user).exists()
        or Invitation.objects.filter(campaign=campaign, user=user, status=Invitation.PENDING).exists()
    ):
        raise ServiceError("player", NOT_A_MEMBER_OR_INVITED.format(name=player))
    return user


def _valid_attributes(rules: Ruleset, attributes: Any) -> dict[str, Any]:
    """A new character's attributes as the ruleset keeps them (its defaults filled in), or a 400 naming one."""
    if attributes is not None and not isinstance(attributes, Mapping):
        raise ServiceError("attributes", f"expected an object, got {type(attributes).__name__}")
    return rules.validate_attributes(attributes or {})


def character_create(
    *,
    campaign: Campaign,
    actor: str,
    name: Any,
    player: Any = None,
    attributes: Any = None,
    idempotency_key: str | None = None,
) -> Character:
    """A new character in `campaign`. The same `idempotency_key` again returns the character the first request
    made; the key is the campaign's, shared with actions (as the event log keeps it)."""
    digest = request_digest({"name": name, "player": player, "attributes": attributes})
    name = _name(name, "the character's name")
    rules = get_ruleset(campaign.ruleset)
    attributes = _valid_attributes(rules, attributes)
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign.pk)
        if idempotency_key:
            first = _first_with_key(campaign, idempotency_key)
            if first is not None:
                if first.type != CHARACTER_CREATED or first.request_digest != digest:
                    raise Conflict("Idempotency-Key", KEY_REUSED)
                return Character.objects.get(pk=first.data["character"])
        user = _player_for(campaign, player)
        character = Character.objects.create(campaign=campaign, name=name, player=user, attributes=attributes)
        eventstore.append(
            campaign=campaign,
            stream=campaign.stream,
            expected_version=campaign.version,
            events=[
                RuleEvent(
                    CHARACTER_CREATED,
                    {"character": character.pk, "name": character.name, "attributes": attributes},
                    campaign.game_time,
                )
            ],
            cause=f"character:{character.pk}",
            actor=actor,
            idempotency_key=idempotency_key,
            request_digest=digest if idempotency_key else "",
        )
        Campaign.objects.filter(pk=campaign.pk).update(version=campaign.version + 1)
        project_character(character, rules, start_state(rules, attributes, campaign.options), 0)
    return character


# --- actions ---------------------------------------------------------------------------------------------------


@dataclass
class ActionResult:
    events: list[Event]
    character: Character
    state: State
    replayed: bool = False


def _parse_action(
    rules: Ruleset, body: Any
) -> tuple[dict[str, Any], Mapping[str, Any], int | None, bool | None]:
    if not isinstance(body, Mapping):
        raise ServiceError("body", "expected a JSON object with a `type`")
    kind = body.get("type")
    if kind not in rules.all_actions:
        raise ServiceError(
            "type", f"unknown action {kind!r}; expected one of: {', '.join(rules.all_actions)}"
        )
    rolls = body.get("rolls")
    if rolls is None:
        rolls = {}
    if not isinstance(rolls, Mapping):
        raise ServiceError("rolls", f"expected an object of named lists of dice, got {type(rolls).__name__}")
    expected = body.get("expected_version")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int) or expected < 0):
        raise ServiceError("expected_version", f"expected a whole number of 0 or more, got {expected!r}")
    ask = body.get("ask")
    if ask is not None and not isinstance(ask, bool):
        raise ServiceError("ask", f"expected true or false, got {ask!r}")
    action = {name: value for name, value in body.items() if name not in ("rolls", "expected_version", "ask")}
    reject_unknown_params(rules.action_form(kind), action)
    return action, rolls, expected, ask


def open_job(campaign: Campaign) -> Job | None:
    return Job.objects.filter(campaign=campaign, status__in=[Job.QUEUED, Job.RUNNING]).first()


def _undo_events(character: Character, rules: Ruleset, campaign: Campaign) -> tuple[list[RuleEvent], State]:
    taken_back = eventstore.latest_entry(character.stream)
    if not taken_back:
        raise ServiceError("type", NOTHING_TO_UNDO)
    target = taken_back[0]
    rows = eventstore.stream_events(character.stream)
    voided = eventstore.voided_causes(rows)
    undo = RuleEvent(
        ACTION_UNDONE,
        {
            "cause": target.cause,
            "versions": [r.version for r in taken_back],
            "types": [r.type for r in taken_back],
        },
        campaign.game_time,
    )
    voided.add(target.cause)
    take_back_identity(character, taken_back)
    return [undo], replay(rules, character.attributes, campaign.options, eventstore.live_events(rows, voided))


def _revert_events(
    character: Character, rules: Ruleset, campaign: Campaign, to_version: Any
) -> tuple[list[RuleEvent], State]:
    """One event taking back every entry after `to_version`, and the state it leaves: the state at that version
    (time travel's), undos after it included (RULES.md, "Every ruleset": revert)."""
    if isinstance(to_version, bool) or not isinstance(to_version, int) or to_version < 0:
        raise ServiceError(
            "to_version", f"expected a version, a whole number of 0 or more, got {to_version!r}"
        )
    rows = eventstore.stream_events(character.stream)
    # Retiring stays as it is: restoring takes it back, as with an undo.
    after = [
        row
        for row in rows
        if row.version > to_version and row.type not in (CHARACTER_RETIRED, CHARACTER_RESTORED)
    ]
    if not after:
        raise ServiceError(
            "to_version", f"expected a version before {character.version}: nothing comes after {to_version}"
        )
    kept = [row for row in rows if row.version <= to_version]
    if kept and kept[-1].cause == after[0].cause:
        start = next(row.version for row in kept if row.cause == after[0].cause)
        end = max(row.version for row in after if row.cause == after[0].cause)
        raise ServiceError(
            "to_version",
            f"version {to_version} is in the middle of one entry (versions {start} to {end}): expected "
            f"{start - 1} or {end}",
        )
    revert = RuleEvent(
        ACTIONS_REVERTED,
        {
            "to_version": to_version,
            "causes": list(dict.fromkeys(row.cause for row in after)),
            "versions": [row.version for row in after],
            "types": [row.type for row in after],
        },
        campaign.game_time,
    )
    voided = eventstore.voided_causes(kept)
    take_back_identity(character, after)
    return [revert], replay(
        rules, character.attributes, campaign.options, eventstore.live_events(kept, voided)
    )


def _decide(
    character: Character, rules: Ruleset, campaign: Campaign, action: dict[str, Any], dice: Dice
) -> tuple[list[RuleEvent], State, list[RuleTimer]]:
    """The command's events, the state after them and the timers of the state before. With table dice a roll
    nobody gave raises `RollNeeded` here, before anything is written."""
    state = character.state
    if action["type"] == "undo":
        events, replayed = _undo_events(character, rules, campaign)
        return events, replayed, rules.timers(state)
    if action["type"] == "revert":
        events, replayed = _revert_events(character, rules, campaign, action.get("to_version"))
        return events, replayed, rules.timers(state)
    if action["type"] == "note":
        events = [note_event(action, campaign.game_time)]
    else:
        try:
            events = rules.decide(state, action, dice, campaign.game_time)
        except RuleError as error:
            raise _refusal_in_dates(campaign, error) from None
    return events, *_evolved_in_place(rules, character, events)


def _evolved_in_place(
    rules: Ruleset, character: Character, events: list[RuleEvent]
) -> tuple[State, list[RuleTimer]]:
    """Fold `events` into the character's state itself, not a copy: it was read for this command alone (a failed
    command is retried from a fresh read). Returns the state and the timers it had before."""
    before = rules.timers(character.state)
    return fold_into(rules, character.state, events), before


def _key_holders(campaign: Campaign, idempotency_key: str) -> tuple[Event | None, Job | None]:
    """What already holds this key in the campaign: the first event of a command (an action, a new character) and
    an advance, found in one query. A campaign's keys are one set, kept by its event log and by its jobs; a command
    with a fresh key (the usual case) costs the one lookup it cost when only the log kept them."""
    position, job_id = (
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
    event = None if position is None else Event.objects.get(position=position)
    return event, None if job_id is None else Job.objects.get(pk=job_id)


def _first_with_key(campaign: Campaign, idempotency_key: str) -> Event | None:
    """The first event of the command this key was used for, if any; a 409 if an advance used it."""
    event, advance = _key_holders(campaign, idempotency_key)
    if advance is not None:
        raise Conflict("Idempotency-Key", KEY_REUSED)
    return event


def _replayed(character: Character, first: Event, digest: str) -> ActionResult:
    if first.request_digest != digest or first.character_id != character.pk:
        raise Conflict("Idempotency-Key", KEY_REUSED)
    rows = list(Event.objects.filter(stream=first.stream, cause=first.cause).order_by("version"))
    state = state_at_version(character, rows[-1].version)
    return ActionResult(rows, character, state, replayed=True)


def character_act(
    *, character_id: int, body: Any, actor: str, idempotency_key: str | None = None
) -> ActionResult:
    """Run one action on a character. Retries a conflicting append a few times, then answers 409."""
    digest = request_digest({"character": character_id, "body": body}) if idempotency_key else ""
    for attempt in range(COMMAND_ATTEMPTS):
        try:
            return _character_act_once(character_id, body, actor, idempotency_key, digest)
        except eventstore.VersionConflict:
            if attempt == COMMAND_ATTEMPTS - 1:
                raise Conflict(
                    "expected_version", "another change was being saved at the same time; retry"
                ) from None
        except OperationalError as error:
            if outages.database_unreachable(error):
                raise  # not busy but gone: a 503 naming the database (campaign/outages.py)
            # SQLite's busy timeout or PostgreSQL's serialization failure: nothing was written.
            if attempt == COMMAND_ATTEMPTS - 1:
                log.warning("action on character %s not written: %s", character_id, error)
                raise Unavailable("database", "the database is busy or refusing writes; try again") from None
    raise AssertionError("unreachable")


def _character_act_once(
    character_id: int, body: Any, actor: str, idempotency_key: str | None, digest: str
) -> ActionResult:
    with transaction.atomic():
        wrapper = transaction.get_connection()
        # Read under the lock: no other command can change the character until this one commits.
        character, open_job_id = eventstore.lock_for_character(character_id, wrapper)
        campaign = character.campaign
        if idempotency_key:
            first = _first_with_key(campaign, idempotency_key)
            if first is not None:
                return _replayed(character, first, digest)
        rules = get_ruleset(campaign.ruleset)
        action, rolls, expected, ask = _parse_action(rules, body)
        if open_job_id is not None:
            raise Conflict("clock", clock_busy(open_job_id))
        if character.retired:
            raise ServiceError("type", RETIRED)
        if expected is not None and expected != character.version:
            raise Conflict(
                "expected_version", VERSION_CONFLICT.format(actual=character.version, expected=expected)
            )
        dice = Dice(rolls, ask=ask is not False and asks_the_table(campaign, "actions"))
        events, state, previous_timers = _decide(character, rules, campaign, action, dice)
        rows, _ = _record(
            character,
            rules,
            events,
            state,
            previous_timers,
            cause=f"action:{uuid.uuid4()}",
            actor=actor,
            wrapper=wrapper,
            idempotency_key=idempotency_key or None,
            digest=digest,
        )
    return ActionResult(rows, character, state)


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
    return rows, timers


def state_at_version(character: Character, version: int) -> State:
    """The character as it was right after its event `version` (time travel)."""
    return character_state_at(character, eventstore.stream_events(character.stream, up_to_version=version))


# --- the game clock ----------------------------------------------------------------------------------------------

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
        raise ServiceError("advance", f"unknown unit {unit!r}; expected one of: {units}")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise ServiceError(f"advance.{unit}", f"expected a whole number above 0, got {amount!r}")
    seconds = amount * ADVANCE_UNITS[unit]
    if seconds > MAX_ADVANCE_SECONDS:
        raise ServiceError(f"advance.{unit}", "expected at most 100 years in one advance")
    return seconds


def _past_the_calendar(campaign: Campaign) -> str:
    start = campaign.options.get("start") or get_ruleset(campaign.ruleset).default_start
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


def clock_advance_request(
    *, campaign: Campaign, seconds: int, actor: str, idempotency_key: str | None = None, stop_on: Any = None
) -> Job:
    """Create the Job for an advance and enqueue it once the transaction commits. The same `idempotency_key` again
    returns the job the first request made, finished or not, and advances nothing more. `stop_on="status"` ends
    the advance at the first firing that changes a character's status (`STOP_ON`)."""
    from campaign import tasks

    if stop_on not in (None, "", STOP_ON_STATUS):
        raise ServiceError("stop_on", f'expected "{STOP_ON_STATUS}" or nothing, got {stop_on!r}')
    digest = request_digest({"seconds": seconds, **({"stop_on": stop_on} if stop_on else {})})
    tasks.ensure_broker()
    try:
        with transaction.atomic():
            campaign = eventstore.lock_campaign(campaign.pk)
            if idempotency_key:
                event, first = _key_holders(campaign, idempotency_key)
                if event is not None or (first is not None and first.request_digest != digest):
                    raise Conflict("Idempotency-Key", KEY_REUSED)
                if first is not None:
                    return first
            busy = open_job(campaign)
            if busy is not None:
                raise Conflict("clock", clock_busy(busy.pk))
            if campaign.game_time + seconds > game_dates.MAX_GAME_SECONDS:
                raise ServiceError("advance", _past_the_calendar(campaign))
            followed = Timer.objects.filter(campaign=campaign).values("character_id").distinct().count()
            if followed * seconds > settings.CLOCK_MAX_CHARACTER_YEARS * game_dates.YEAR:
                raise ServiceError("advance", _too_much_at_once(followed))
            job = Job.objects.create(
                campaign=campaign,
                from_time=campaign.game_time,
                to_time=campaign.game_time + seconds,
                reached=campaign.game_time,
                actor=actor,
                asks=asks_the_table(campaign, "clock"),
                idempotency_key=idempotency_key,
                request_digest=digest if idempotency_key else "",
                stop_on=stop_on or "",
            )
            if not settings.CELERY_TASK_ALWAYS_EAGER:
                transaction.on_commit(lambda: tasks.enqueue_advance(job.pk, job.ticket))
    except IntegrityError:
        raise Conflict("clock", "another advance of this campaign was started at the same moment") from None
    if settings.CELERY_TASK_ALWAYS_EAGER:
        # In-process: run it now, after the job row is written (the 202 then reports a finished job).
        tasks.enqueue_advance(job.pk, job.ticket)
    job.refresh_from_db()
    return job


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
            rules = get_ruleset(campaign.ruleset)
            fired = appended = 0
            finished = False
            characters, queue = _due_timers(campaign, rules, job)
            while fired < settings.CLOCK_FIRINGS_PER_TRANSACTION:
                due = queue.next(at_limit=job.timers_fired + fired >= settings.CLOCK_MAX_FIRINGS_PER_ADVANCE)
                if due is None:
                    finished = True
                    break
                character = characters[due.character_id]
                before = status_of(rules, character.state) if job.stop_on else None
                try:
                    produced, timers = _fire(rules, character, due, job)
                except RollNeeded as need:
                    # Table dice: the advance stops before this firing, everything before it kept.
                    _wait_for_roll(job, character, due, need.request)
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
    """Append ClockAdvanced up to `end` and set the clock there: the time asked for, or where the limit stopped it."""
    eventstore.append(
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
    Campaign.objects.filter(pk=campaign.pk).update(game_time=end, version=campaign.version + 1)
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


def _fire(rules: Ruleset, character: Character, due: clock.Due, job: Job) -> tuple[int, list[RuleTimer]]:
    """Fire one timer. Returns how many events it appended and the character's timers after it. With table dice,
    the firing takes the GM's dice given for it (`Job.rolls`) and raises `RollNeeded` for one nobody gave."""
    given = _given_for(job, character, due)
    dice = Dice(given, ask=job.asks)
    events = clock.fire(rules, character.state, due, dice)
    job.rolls = {"answered": job.rolls.get("answered", [])} if job.rolls else {}
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
        job.needs_roll = None
        if job.events_appended == 0 and job.reached == job.from_time:
            job.status, job.finished_at = Job.FAILED, timezone.now()
            job.error = ADVANCE_FAILED_UNTOUCHED
        else:
            _finish(campaign, job, end=job.reached)
            job.status = Job.FAILED
            fired = f"{job.timers_fired:,} timer firing{'' if job.timers_fired == 1 else 's'}"
            job.error = presenters.dated(
                campaign, ADVANCE_FAILED.format(date=game_time_mark(job.reached), fired=fired)
            )
        job.save()
    return job


# --- the GM's board: a fight's round counter, NPCs in a hurry (docs/web.md, "The board") -----------------------

MAX_NUMBERED = 20  # characters made at once from one template: a fight's gang, not a city
PREFIX_LENGTH = 190


def fight_start(*, campaign: Campaign, at: Any) -> Campaign:
    """Start counting a fight's rounds at game second `at` (the game time the GM's board showed): the counter is
    round 1 there. Setting a moment, not "now", makes a retried request set the same one."""
    if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= campaign.game_time:
        # Not echoed: a number of game seconds means nothing to the GM who reads it.
        raise ServiceError("at", "expected the game time the board showed, not later than the campaign's")
    Campaign.objects.filter(pk=campaign.pk).update(fight_started_at=at)
    campaign.fight_started_at = at
    return campaign


def fight_end(*, campaign: Campaign) -> Campaign:
    """No fight: the board's round counter is hidden until the next one starts."""
    Campaign.objects.filter(pk=campaign.pk).update(fight_started_at=None)
    campaign.fight_started_at = None
    return campaign


def characters_create_numbered(
    *,
    campaign: Campaign,
    actor: str,
    prefix: Any,
    count: Any,
    attributes: Any = None,
    idempotency_key: str | None = None,
) -> list[Character]:
    """`count` characters from one template, named "<prefix> N" after the highest N the campaign already has
    ("Ganger 1" to "Ganger 4", then "Ganger 5"...), all with `attributes` and no player, as one command: the same
    `idempotency_key` again returns the same characters."""
    digest = request_digest({"prefix": prefix, "count": count, "attributes": attributes})
    try:
        prefix = _name(prefix, "the name the characters share")
    except ServiceError as error:
        raise ServiceError("prefix", error.message) from None
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_NUMBERED:
        raise ServiceError("count", f"expected a whole number of 1 to {MAX_NUMBERED}, got {count!r}")
    if len(prefix) > PREFIX_LENGTH:  # room for " 12345" in a name's 200 characters
        raise ServiceError("prefix", f"expected at most {PREFIX_LENGTH} characters, got {len(prefix)}")
    rules = get_ruleset(campaign.ruleset)
    attributes = _valid_attributes(rules, attributes)
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign.pk)
        made = _characters_made_with(campaign, idempotency_key, digest)
        if made is not None:
            return made
        names = _numbered_names(campaign, prefix, count, first=1)
        return _add_characters(
            campaign, rules, actor, [(name, attributes) for name in names], idempotency_key, digest
        )


def character_duplicate(*, character: Character, actor: str, idempotency_key: str | None = None) -> Character:
    """A new character with `character`'s attributes (not its history, injuries or player), named with the next
    free number: "Ganger 4" -> "Ganger 5", "Ash" -> "Ash 2"."""
    digest = request_digest({"duplicate": character.pk})
    rules = get_ruleset(character.campaign.ruleset)
    with transaction.atomic():
        campaign = eventstore.lock_campaign(character.campaign_id)
        made = _characters_made_with(campaign, idempotency_key, digest)
        if made is not None:
            return made[0]
        stem, number = _name_and_number(character.name)
        [name] = _numbered_names(campaign, stem, 1, first=max(number + 1, 2))
        attributes = rules.validate_attributes(character.attributes)
        return _add_characters(campaign, rules, actor, [(name, attributes)], idempotency_key, digest)[0]


def _name_and_number(name: str) -> tuple[str, int]:
    """'Ganger 4' -> ('Ganger', 4); 'Ash' -> ('Ash', 0)."""
    stem, _, last = name.rpartition(" ")
    return (stem, int(last)) if stem and last.isdigit() else (name, 0)


def _numbered_names(campaign: Campaign, stem: str, count: int, *, first: int) -> list[str]:
    """`count` names "<stem> N", numbered on from the highest the campaign has (at least `first`)."""
    taken = Character.objects.filter(campaign=campaign, name__startswith=f"{stem} ").values_list(
        "name", flat=True
    )
    highest = max((n for s, n in map(_name_and_number, taken) if s == stem), default=0)
    start = max(highest, first - 1) + 1
    return [f"{stem} {n}" for n in range(start, start + count)]


def _characters_made_with(
    campaign: Campaign, idempotency_key: str | None, digest: str
) -> list[Character] | None:
    """The characters the command with this key made, if any (a 409 if the key was another request's)."""
    if not idempotency_key:
        return None
    first = _first_with_key(campaign, idempotency_key)
    if first is None:
        return None
    if first.type != CHARACTER_CREATED or first.request_digest != digest:
        raise Conflict("Idempotency-Key", KEY_REUSED)
    made = Event.objects.filter(stream=campaign.stream, cause=first.cause).order_by("version")
    ids = [data["character"] for data in made.values_list("data", flat=True)]
    found = Character.objects.in_bulk(ids)
    return [found[pk] for pk in ids]


def _add_characters(
    campaign: Campaign,
    rules: Ruleset,
    actor: str,
    named: list[tuple[str, dict[str, Any]]],
    idempotency_key: str | None,
    digest: str,
) -> list[Character]:
    """New characters without players under the campaign's lock, their creations one command on the campaign's
    stream (one cause, the key on the first event), each projected at its start."""
    characters = [
        Character.objects.create(campaign=campaign, name=name, attributes=attributes)
        for name, attributes in named
    ]
    events = [
        RuleEvent(
            CHARACTER_CREATED,
            {"character": c.pk, "name": c.name, "attributes": c.attributes},
            campaign.game_time,
        )
        for c in characters
    ]
    eventstore.append(
        campaign=campaign,
        stream=campaign.stream,
        expected_version=campaign.version,
        events=events,
        cause=f"characters:{uuid.uuid4()}",
        actor=actor,
        idempotency_key=idempotency_key,
        request_digest=digest if idempotency_key else "",
    )
    Campaign.objects.filter(pk=campaign.pk).update(version=campaign.version + len(events))
    for character in characters:
        project_character(character, rules, start_state(rules, character.attributes, campaign.options), 0)
    return characters


# --- characters and campaigns change in play (RULES.md, "Every ruleset") -----------------------------------------

CHARACTER_FIELDS = ("name", "player", "attributes")
CAMPAIGN_FIELDS = ("name", "options")
RETIRED = "the character is retired: restore it first"
NOT_A_MEMBER = "{name} is neither a member of this campaign nor invited to it: invite them first"
# Retiring is taken back by restoring, never by an undo (README, "Characters change in play").
NOT_UNDONE = ruleset_types.NOT_UNDONE


def _body_of(changes: Any, fields: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(changes, Mapping):
        raise ServiceError("body", f"expected a JSON object with any of {', '.join(fields)}")
    reject_unknown(changes, fields)
    return changes


def _member(campaign: Campaign, player: Any) -> AbstractBaseUser | None:
    """A character's new player: a member of the campaign or someone invited to it (the character waits for their
    answer, docs/members.md), or nobody."""
    if player is None or player == "":
        return None
    if not isinstance(player, str):
        raise ServiceError("player", f"expected a user name or null, got {player!r}")
    user = _user_named("player", player)
    member = Membership.objects.filter(campaign=campaign, user=user).exists()
    if not member and not _invited(campaign, user):
        raise ServiceError("player", NOT_A_MEMBER.format(name=player))
    return user


def _invited(campaign: Campaign, user: AbstractBaseUser) -> bool:
    return Invitation.objects.filter(campaign=campaign, user=user, status=Invitation.PENDING).exists()


def _username(user_id: int | None) -> str | None:
    return None if user_id is None else User.objects.get(pk=user_id).get_username()


def change_character(*, character_id: int, actor: str, changes: Any) -> ActionResult:
    """A GM's edit of a character in play. `changes` holds any of `name`, `player` (a member's user name, or null
    for none) and `attributes` (only those that change; the ruleset says which may). Appends CharacterChanged with
    the old and new values of what differs; the rules use the new attributes from then on and recompute nothing
    already decided. When nothing differs nothing is written (a retried edit writes once): `events` is empty.

    Usable for a player change alone, e.g. a removed player's characters handed to the GM:
    `change_character(character_id=..., actor=gm, changes={"player": gm})`."""
    changes = _body_of(changes, CHARACTER_FIELDS)
    name = _name(changes["name"], "the character's name") if "name" in changes else None
    attributes = changes.get("attributes")
    if attributes is not None and not isinstance(attributes, Mapping):
        raise ServiceError("attributes", f"expected an object, got {type(attributes).__name__}")
    try:
        return _change_character_once(character_id, actor, changes, name, attributes or {})
    except eventstore.VersionConflict:
        raise Conflict("version", "another change was being saved at the same time; retry") from None


def _change_character_once(
    character_id: int, actor: str, changes: Mapping[str, Any], name: str | None, attributes: Mapping[str, Any]
) -> ActionResult:
    with transaction.atomic():
        wrapper = transaction.get_connection()
        character, open_job_id = eventstore.lock_for_character(character_id, wrapper)
        campaign = character.campaign
        rules = get_ruleset(campaign.ruleset)
        if open_job_id is not None:
            raise Conflict("clock", clock_busy(open_job_id))
        if character.retired:
            raise ServiceError("character", RETIRED)
        if rules.change_attributes is None:
            raise ServiceError("attributes", f"{rules.title} characters cannot change in play")
        data = rules.change_attributes(character.state, attributes)
        identity: dict[str, Any] = {}
        told: dict[str, Any] = {}
        if name is not None and name != character.name:
            told["name"] = {"old": character.name, "new": name}
            identity["name"] = name
        if "player" in changes:
            user = _member(campaign, changes["player"])
            old, new = _username(character.player_id), None if user is None else user.get_username()
            if old != new:
                told["player"] = {"old": old, "new": new}
                identity["player"] = user
        data["changes"] = {**told, **data["changes"]}
        if not data["changes"]:
            return ActionResult([], character, character.state)
        events = [RuleEvent(CHARACTER_CHANGED, data, campaign.game_time)]
        state, previous_timers = _evolved_in_place(rules, character, events)
        rows, _ = _record(
            character,
            rules,
            events,
            state,
            previous_timers,
            cause=f"change:{uuid.uuid4()}",
            actor=actor,
            wrapper=wrapper,
        )
        if identity:
            Character.objects.filter(pk=character.pk).update(**identity)
            for field, value in identity.items():
                setattr(character, field, value)
    return ActionResult(rows, character, state)


def take_back_identity(character: Character, rows: list[Event]) -> None:
    """Give the read model back the name and player that the taken-back CharacterChanged `rows` replaced: each
    change's old value, newest change first (an undo takes back one command, a revert everything after a version)."""
    identity: dict[str, Any] = {}
    for row in sorted(rows, key=lambda row: row.version, reverse=True):
        if row.type != CHARACTER_CHANGED:
            continue
        changes = row.data["changes"]
        if "name" in changes:
            identity["name"] = changes["name"]["old"]
        if "player" in changes:
            old = changes["player"]["old"]
            identity["player"] = None if old is None else User.objects.filter(username=old).first()
    if identity:
        Character.objects.filter(pk=character.pk).update(**identity)
        for field, value in identity.items():
            setattr(character, field, value)


def retire_character(*, character_id: int, actor: str) -> Character:
    """Retire a character: CharacterRetired; out of the board and the lists, its timers gone (the clock no longer
    fires for it), its history kept. Retiring a retired character writes nothing."""
    return _set_retired(character_id, actor, retired=True)


def restore_character(*, character_id: int, actor: str) -> Character:
    """Bring a retired character back: CharacterRestored; its timers return, and one that fell due while it was
    retired fires at the next advance, at the campaign's current time (as after an undo). Restoring an active
    character writes nothing."""
    return _set_retired(character_id, actor, retired=False)


def _set_retired(character_id: int, actor: str, *, retired: bool) -> Character:
    with transaction.atomic():
        wrapper = transaction.get_connection()
        character, open_job_id = eventstore.lock_for_character(character_id, wrapper)
        if open_job_id is not None:
            raise Conflict("clock", clock_busy(open_job_id))
        if character.retired == retired:
            return character
        campaign = character.campaign
        rules = get_ruleset(campaign.ruleset)
        event = RuleEvent(CHARACTER_RETIRED if retired else CHARACTER_RESTORED, {}, campaign.game_time)
        eventstore.append(
            campaign=campaign,
            stream=character.stream,
            character=character,
            expected_version=character.version,
            events=[event],
            cause=f"{'retire' if retired else 'restore'}:{uuid.uuid4()}",
            actor=actor,
            wrapper=wrapper,
        )
        character.retired = retired
        if retired:
            character.version += 1
            Character.objects.filter(pk=character.pk).update(retired=True, version=character.version)
            Timer.objects.filter(character=character).delete()
        else:
            Character.objects.filter(pk=character.pk).update(retired=False)
            project_character(character, rules, character.state, character.version + 1, previous_timers=[])
    return character


def change_campaign(*, campaign_id: int, actor: str, changes: Any) -> Campaign:
    """A GM's edit of a campaign: its name, and options (only those named change; checked as at creation). Appends
    CampaignChanged with the old and new values; every character's rules use the new options from then on (their
    states take them, their timers are indexed anew), nothing already decided is recomputed. When nothing differs
    nothing is written."""
    changes = _body_of(changes, CAMPAIGN_FIELDS)
    name = _name(changes["name"], "the campaign's name") if "name" in changes else None
    patch = changes.get("options")
    if patch is not None and not isinstance(patch, Mapping):
        raise ServiceError("options", f"expected an object, got {type(patch).__name__}")
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign_id)
        busy = open_job(campaign)
        if busy is not None:
            raise Conflict("clock", clock_busy(busy.pk))
        rules = get_ruleset(campaign.ruleset)
        options = validate_campaign_options(rules, {**campaign.options, **(patch or {})})
        told: dict[str, Any] = {}
        if name is not None and name != campaign.name:
            told["name"] = {"old": campaign.name, "new": name}
        for option, value in options.items():
            if value != campaign.options.get(option):
                told[f"options.{option}"] = {"old": campaign.options.get(option), "new": value}
        if not told:
            return campaign
        eventstore.append(
            campaign=campaign,
            stream=campaign.stream,
            expected_version=campaign.version,
            events=[RuleEvent(CAMPAIGN_CHANGED, {"changes": told}, campaign.game_time)],
            cause=f"campaign:{uuid.uuid4()}",
            actor=actor,
        )
        Campaign.objects.filter(pk=campaign.pk).update(
            name=name or campaign.name,
            options=options,
            version=campaign.version + 1,
            projection_epoch=F("projection_epoch") + 1,
        )
        if options != campaign.options:
            _characters_take_options(campaign, rules, options)
    return Campaign.objects.get(pk=campaign.pk)


def _characters_take_options(campaign: Campaign, rules: Ruleset, options: Mapping[str, Any]) -> None:
    """Every character's state takes the campaign's new options, and the active ones' timers are indexed anew
    (a rest period or a stun's length may have changed). Their versions stay: no character event happened."""
    for character in Character.objects.filter(campaign=campaign).select_related("campaign"):
        state = copy_state(character.state)
        set_options(rules, state, options)
        if character.retired:
            Character.objects.filter(pk=character.pk).update(state=state)
        else:
            project_character(character, rules, state, character.version)


# --- taking back an advance (RULES.md, "Every ruleset") -------------------------------------------------------------

NOTHING_TO_REWIND = "there is no clock advance to take back"
ACTIONS_SINCE = "the latest advance can no longer be taken back: since it, {actions}"


@dataclass
class Rewind:
    job: Job
    characters: int  # how many characters had firings taken back
    to: int  # the game time the clock is back at


def _rewound_jobs(campaign: Campaign) -> set[str]:
    rows = Event.objects.filter(stream=campaign.stream, type=CLOCK_REWOUND).values_list("data", flat=True)
    return {data["job"] for data in rows}


def _latest_advance(campaign: Campaign) -> Event | None:
    """The campaign's latest ClockAdvanced that was not taken back."""
    rewound = _rewound_jobs(campaign)
    advances = Event.objects.filter(stream=campaign.stream, type=CLOCK_ADVANCED).order_by("-version")
    return next((row for row in advances.iterator() if row.data["job"] not in rewound), None)


def _since(campaign: Campaign, advance: Event) -> list[Event]:
    """What was recorded after `advance` other than advances taken back (their firings, their ClockAdvanced, the
    events that took them back): the actions that keep it from being taken back."""
    rewound = _rewound_jobs(campaign)
    later = Event.objects.filter(campaign=campaign, position__gt=advance.position).order_by("position")
    return [
        row
        for row in later
        if not (
            row.cause.startswith("rewind:")
            or any(row.cause.startswith(f"timer:{job}:") or row.cause == f"job:{job}" for job in rewound)
        )
    ]


def _actions_named(campaign: Campaign, rows: list[Event]) -> str:
    """'Johnny: 9 normal damage to the torso: 7 points on the track (2020-01-01 00:10:00); a new character, Ash' for a 409."""
    rules = get_ruleset(campaign.ruleset)
    names = dict(Character.objects.filter(campaign=campaign).values_list("pk", "name"))
    seen: dict[str, str] = {}
    for row in rows:
        if row.cause in seen:
            continue
        when = game_dates.game_datetime(campaign.options.get("start") or rules.default_start, row.game_time)
        at = f" ({when:%Y-%m-%d %H:%M:%S})" if when is not None else ""
        if row.character_id is None:
            what = f"a new character, {row.data.get('name')}" if row.type == CHARACTER_CREATED else "a change"
            seen[row.cause] = f"{what}{at}"
        else:
            line = presenters.dated(campaign, rules.summary(eventstore.to_rule_event(row)))
            seen[row.cause] = f"{names.get(row.character_id, 'a character')}: {line}{at}"
    shown = list(seen.values())
    more = f"; and {len(shown) - 5} more" if len(shown) > 5 else ""
    return "; ".join(shown[:5]) + more


def clock_rewind(*, campaign: Campaign, actor: str) -> Rewind:
    """Take back the campaign's latest advance: every firing of it on every character is voided (one revert per
    character, to the version before its first firing) and the clock returns to where the advance began. Only
    while nothing else was recorded since; otherwise a 409 naming what was. The one case where time goes back."""
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign.pk)
        busy = open_job(campaign)
        if busy is not None:
            raise Conflict("clock", CLOCK_BUSY.format(job=busy.pk))
        advance = _latest_advance(campaign)
        if advance is None:
            raise ServiceError("clock", NOTHING_TO_REWIND)
        since = _since(campaign, advance)
        if since:
            raise Conflict("clock", ACTIONS_SINCE.format(actions=_actions_named(campaign, since)))
        job = Job.objects.get(pk=advance.data["job"])
        rules = get_ruleset(campaign.ruleset)
        fired = Event.objects.filter(campaign=campaign, cause__startswith=f"timer:{job.pk}:")
        firsts: dict[int, int] = {}
        for character_id, version in fired.values_list("character_id", "version"):
            firsts[character_id] = min(version, firsts.get(character_id, version))
        wrapper = transaction.get_connection()
        for character in Character.objects.filter(pk__in=firsts).order_by("pk"):
            character.campaign = campaign
            events, state = _revert_events(character, rules, campaign, firsts[character.pk] - 1)
            events = [
                RuleEvent(event.type, {**event.data, "advance": str(job.pk)}, advance.data["from"])
                for event in events
            ]
            _record(
                character,
                rules,
                events,
                state,
                rules.timers(character.state),
                cause=f"rewind:{job.pk}:{character.pk}",
                actor=actor,
                wrapper=wrapper,
            )
        back_to = advance.data["from"]
        eventstore.append(
            campaign=campaign,
            stream=campaign.stream,
            expected_version=campaign.version,
            events=[
                RuleEvent(
                    CLOCK_REWOUND, {"job": str(job.pk), "from": advance.data["to"], "to": back_to}, back_to
                )
            ],
            cause=f"rewind:{job.pk}",
            actor=actor,
        )
        Campaign.objects.filter(pk=campaign.pk).update(game_time=back_to, version=campaign.version + 1)
    return Rewind(job, len(firsts), back_to)


# --- stopping an advance when something happens -----------------------------------------------------------------

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


# --- table dice: the GM rolls (RULES.md "Dice", campaign option `table_dice`) -------------------------------------

CLOCK_WAITS = (
    "the game clock waits for a roll: {character_name}'s {what} ({count}d{sides}); give it on the board, or let the "
    "server roll the rest of the advance"
)
NOT_WAITING = "this advance is not waiting for a roll"
ROLL_EXPECTED = "expected the roll the clock waits for, {name} ({count}d{sides}), or ask: false"
ANOTHER_ROLL = "the clock waits for {name}, not this roll"


def asks_the_table(campaign: Campaign, what: str) -> bool:
    """Whether the campaign asks the GM for the dice of `what`: "actions" (with `table_dice` actions or all) or
    "clock" (all)."""
    table_dice = campaign.options.get("table_dice", "none")
    return table_dice == "all" or (what == "actions" and table_dice == "actions")


def clock_busy(job_id: Any) -> str:
    """Why the campaign's actions wait (409): the clock is advancing, or it waits for the GM's roll, and which."""
    needs = Job.objects.filter(pk=job_id).values_list("needs_roll", flat=True).first()
    if not needs:
        return CLOCK_BUSY.format(job=job_id)
    return CLOCK_WAITS.format(**needs, what=needs["label"][:1].lower() + needs["label"][1:])


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
    from campaign import tasks

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
            transaction.on_commit(lambda: tasks.enqueue_advance(job.pk, job.ticket))
    if settings.CELERY_TASK_ALWAYS_EAGER:
        tasks.enqueue_advance(job.pk, job.ticket)
    job.refresh_from_db()
    return job


# --- members: invitations, leaving, removal (issue 19; docs/members.md) -----------------------------------------

NOT_A_MEMBER_OR_INVITED = "{name} is neither a member of this campaign nor invited to it: invite them first (members and invitations)"
NOT_IN_CAMPAIGN = "{name} is not a member of this campaign, nor invited to it"
ONLY_GMS_REMOVE = "only a GM of this campaign may remove other members"
LAST_GM_LEAVING = (
    "{name} is the campaign's only GM and cannot leave or be removed: make someone else a GM first, or nobody "
    "could run the campaign"
)
INVITATION_ANSWERED = "this invitation was already {status}"


@dataclass
class Invited:
    """What a POST to a campaign's members did: invited someone (`created`), found the pending invitation a
    retried request made, or changed a member's role (`membership`, no invitation: members are not asked again)."""

    invitation: Any = None
    membership: Membership | None = None
    created: bool = False


def member_invite(*, campaign: Campaign, username: Any, role: Any, by: AbstractBaseUser) -> Invited:
    """A GM adds someone to a campaign: a pending invitation they accept or decline, and `MemberInvited` in the
    campaign's history. A member's role changes at once (the last GM's never to player). The same request again
    finds the pending invitation (its role updated) and writes nothing more."""
    user = _role_and_user(role, username)
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign.pk)
        if Membership.objects.filter(campaign=campaign, user=user).exists():
            return Invited(membership=member_add(campaign=campaign, username=username, role=role))
        pending = Invitation.objects.filter(campaign=campaign, user=user, status=Invitation.PENDING).first()
        if pending is not None:
            if pending.role != role:
                Invitation.objects.filter(pk=pending.pk).update(role=role)
                pending.role = role
            return Invited(invitation=pending)
        invitation = Invitation.objects.create(campaign=campaign, user=user, role=role, invited_by=by)
        _member_history(campaign, MEMBER_INVITED, {"username": user.get_username(), "role": role}, by)
    return Invited(invitation=invitation, created=True)


def invitation_answer(*, invitation_id: int, user: AbstractBaseUser, accept: bool) -> Any:
    """The invitee accepts (a member from now on, `InvitationAccepted`) or declines (`InvitationDeclined`; the
    characters that waited for them become the inviting GM's). Answering again the same way changes nothing; the
    other way is a 409. Raises Invitation.DoesNotExist for an invitation that is not the user's."""
    wanted = Invitation.ACCEPTED if accept else Invitation.DECLINED
    campaign_id = Invitation.objects.values_list("campaign_id", flat=True).get(pk=invitation_id, user=user)
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign_id)
        invitation = Invitation.objects.select_related("invited_by").get(pk=invitation_id, user=user)
        if invitation.status == wanted:
            return invitation
        if invitation.status != Invitation.PENDING:
            raise Conflict("invitation", INVITATION_ANSWERED.format(status=invitation.status))
        invitation.status = wanted
        invitation.answered_at = timezone.now()
        invitation.save(update_fields=["status", "answered_at"])
        name = user.get_username()
        if accept:
            Membership.objects.update_or_create(
                campaign=campaign, user=user, defaults={"role": invitation.role}
            )
            _member_history(campaign, INVITATION_ACCEPTED, {"username": name, "role": invitation.role}, user)
        else:
            owner = _new_owner(campaign, invitation.invited_by)
            handed = _characters_handed_over(campaign, user, owner, name)
            data = {"username": name, "characters": handed, "to": owner.get_username()}
            _member_history(campaign, INVITATION_DECLINED, data, user)
    return invitation


def member_remove(*, campaign: Campaign, username: Any, by: AbstractBaseUser, role: str) -> str:
    """A GM removes a member (or withdraws a pending invitation); a member leaves (their own name). Never the last
    GM. The member's characters become a GM's, each by a CharacterChanged event, and `MemberRemoved` or
    `MemberLeft` goes into the campaign's history. Returns the campaign event's type."""
    if not isinstance(username, str) or not username:
        raise ServiceError("username", "expected a user name")
    leaving = username == by.get_username()
    if not leaving and role != GM:
        raise PermissionDenied(ONLY_GMS_REMOVE)
    user = _user_named("username", username)
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign.pk)
        busy = open_job(campaign)
        if busy is not None:
            raise Conflict("clock", CLOCK_BUSY.format(job=busy.pk))
        membership = Membership.objects.filter(campaign=campaign, user=user).first()
        if membership is None:
            pending = Invitation.objects.filter(campaign=campaign, user=user, status=Invitation.PENDING)
            if leaving or not pending.exists():
                raise ServiceError("username", NOT_IN_CAMPAIGN.format(name=username))
            pending.update(status=Invitation.CANCELLED, answered_at=timezone.now())
            handed = _characters_handed_over(campaign, user, by, by.get_username())
            data = {"username": username, "characters": handed, "to": by.get_username()}
            _member_history(campaign, INVITATION_CANCELLED, data, by)
            return INVITATION_CANCELLED
        if (
            membership.role == GM
            and not Membership.objects.filter(campaign=campaign, role=GM).exclude(user=user).exists()
        ):
            raise Conflict("username", LAST_GM_LEAVING.format(name=username))
        membership.delete()
        owner = by if not leaving else _new_owner(campaign, None)
        handed = _characters_handed_over(campaign, user, owner, by.get_username())
        kind = MEMBER_LEFT if leaving else MEMBER_REMOVED
        data = {
            "username": username,
            "role": membership.role,
            "characters": handed,
            "to": owner.get_username(),
        }
        _member_history(campaign, kind, data, by)
    return kind


def _new_owner(campaign: Campaign, preferred: AbstractBaseUser | None) -> AbstractBaseUser:
    """The GM who takes over characters nobody plays any more: `preferred` while a GM, else the longest-standing
    GM."""
    gms = Membership.objects.filter(campaign=campaign, role=GM).select_related("user").order_by("id")
    if preferred is not None and gms.filter(user=preferred).exists():
        return preferred
    return gms.first().user


def _characters_handed_over(
    campaign: Campaign, player: AbstractBaseUser, owner: AbstractBaseUser, actor: str
) -> list[str]:
    """Every character `player` plays in the campaign becomes `owner`'s, by the character edits' own
    CharacterChanged (`change_character`). Returns their names. A retired character keeps its player: it changes
    in play no more (`RETIRED`), nobody but the GMs sees it, and restoring it lets a GM give it to someone."""
    names = []
    rows = Character.objects.filter(campaign=campaign, player=player, retired=False).order_by("id")
    for character_id, name in rows.values_list("id", "name"):
        change_character(character_id=character_id, actor=actor, changes={"player": owner.get_username()})
        names.append(name)
    return names


def _member_history(campaign: Campaign, kind: str, data: dict[str, Any], by: AbstractBaseUser) -> None:
    """One entry of the campaign's history of its members, on the campaign's stream (exported with it)."""
    eventstore.append(
        campaign=campaign,
        stream=campaign.stream,
        expected_version=campaign.version,
        events=[RuleEvent(kind, data, campaign.game_time)],
        cause=f"members:{uuid.uuid4()}",
        actor=by.get_username(),
    )
    campaign.version += 1
    Campaign.objects.filter(pk=campaign.pk).update(version=campaign.version)


# --- the game's words in refusals (issue 18) ---------------------------------------------------------------------


def _refusal_in_dates(campaign: Campaign, error: RuleError) -> RuleError:
    """A rule's refusal with its marked game seconds written as the campaign's dates ("may try again from
    2053-01-01 00:01:00"): the engines cannot know the calendar (rules.ruleset.GAME_TIME_MARK)."""
    message = presenters.dated(campaign, error.message)
    return error if message == error.message else type(error)(error.field, message)
