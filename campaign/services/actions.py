"""An action on a character: parsed, decided by the rules, recorded; undo and revert."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from typing import Any

from django.db import OperationalError, transaction

from campaign.ledger import eventstore
from campaign.ledger.projections import state_at_version, states_named
from campaign.ledger.reachable import database_unreachable
from campaign.models import Campaign, Character, Event
from campaign.notify import outbox
from campaign.selectors.campaigns import asks_the_table
from campaign.services.characters import RETIRED, take_back_identity
from campaign.services.core import (
    KEY_REUSED,
    VERSION_CONFLICT,
    ActionResult,
    ClockBusy,
    Conflict,
    ServiceError,
    Unavailable,
    _evolved_in_place,
    _first_held,
    _record,
    dice_for,
    request_digest,
)
from rules import game_dates
from rules.dice import Dice, RollNeeded
from rules.params import CheckedAction, reject_unknown_params
from rules.ruleset import (
    ACTION_UNDONE,
    ACTIONS_REVERTED,
    RuleError,
    Ruleset,
    State,
    note_event,
    out_of_action,
    replay,
    reverted_rows,
)
from rules.ruleset import Event as RuleEvent
from rules.ruleset import Timer as RuleTimer
from rules.text import given

log = logging.getLogger(__name__)
NOTHING_TO_UNDO = "there is nothing to undo on this character"
MEDIC_CANNOT_ACT = "{name} {why}, and cannot act; choose a medic who can, or type the name of someone else"
COMMAND_ATTEMPTS = 3


def _parse_action(
    rules: Ruleset, body: Any
) -> tuple[dict[str, Any], Mapping[str, Any], int | None, bool | None]:
    if not isinstance(body, Mapping):
        raise ServiceError("body", "expected a JSON object with a `type`")
    kind = body.get("type")
    if kind not in rules.all_actions:
        unknown = "no action type given" if kind is None else f"unknown action {given(kind)}"
        raise ServiceError("type", f"{unknown}; expected one of: {', '.join(rules.all_actions)}")
    rolls = body.get("rolls")
    if rolls is None:
        rolls = {}
    if not isinstance(rolls, Mapping):
        raise ServiceError("rolls", f"expected an object of named lists of dice, got {type(rolls).__name__}")
    expected = body.get("expected_version")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int) or expected < 0):
        raise ServiceError(
            "expected_version", f"expected a whole number of 0 or more, got {given(expected, typed=True)}"
        )
    ask = body.get("ask")
    if ask is not None and not isinstance(ask, bool):
        raise ServiceError("ask", f"expected true or false, got {given(ask, typed=True)}")
    action = {name: value for name, value in body.items() if name not in ("rolls", "expected_version", "ask")}
    reject_unknown_params(rules.action_form(kind), action)
    # Checked here once, in the API's words and before the character is asked about: the rules read it as it is.
    return CheckedAction(action), rolls, expected, ask


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
    (time travel's), undos after it included (docs/rules/README.md: revert)."""
    if isinstance(to_version, bool) or not isinstance(to_version, int) or to_version < 0:
        raise ServiceError(
            "to_version",
            f"expected a version, a whole number of 0 or more, got {given(to_version, typed=True)}",
        )
    rows = eventstore.stream_events(character.stream)
    after = reverted_rows(rows, to_version)
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


# The actions this service decides itself, whatever the character's state (`_decide`): the only ones a dead
# character still takes, since the ruleset refuses every action of its own then (`rules.kernel.DEAD`). A dead
# character's card offers these and no other (`campaign.web.forms.card_actions`).
STREAM_ACTIONS = ("undo", "revert", "note")


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


def roll_asked(character: Character, body: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """The roll `name` as the rules ask it of the table now (`RollRequest.as_data`: its label, dice, target and
    why), the action's other rolls as given; None when the rules do not come to it. Nothing is written: the web
    form asks again, in the same words, for a roll it refused (a die typed wrong)."""
    try:
        action, rolls, _, _ = _parse_action(character.campaign.rules, body)
        rest = {key: value for key, value in rolls.items() if key != name}
        _decide(character, character.campaign.rules, character.campaign, action, dice_for(rest, ask=True))
    except RollNeeded as need:
        return need.request.as_data() if need.request.name == name else None
    except (RuleError, ServiceError):
        return None
    return None


def _medics_can_act(rules: Ruleset, character: Character, action: Mapping[str, Any]) -> None:
    """Refuse a medic who is one of the campaign's characters and cannot act (RULES.md: dead, unconscious,
    stunned; `rules.ruleset.out_of_action`), naming the medic's field. A name no character has (the street doc
    nobody made a character of) is anyone's; a name several characters share is refused only if none of them can
    act. The patient is read as this command holds it."""
    spec = rules.forms.get(str(action.get("type")))
    for param in spec.params if spec is not None else ():
        name = action.get(param.name)
        if not param.person or not isinstance(name, str) or not name.strip():
            continue
        named = states_named(character.campaign_id, name.strip())
        states = [character.state if pk == character.pk else state for pk, state in named.items()]
        why = [out_of_action(rules, state) for state in states]
        if why and all(why):
            raise ServiceError(param.name, MEDIC_CANNOT_ACT.format(name=name.strip(), why=why[0]))


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
            if database_unreachable(error):
                raise  # not busy but gone: a 503 naming the database (campaign/http/outages.py)
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
        # Read under the lock: no other command can change the character until this one commits. The read finds
        # where the key is held too (a retry's first event, an advance's job).
        read = eventstore.lock_for_character(character_id, wrapper, idempotency_key or None)
        character, open_job_id = read.character, read.open_job_id
        campaign = character.campaign
        if idempotency_key:
            first = _first_held(read.key_event_position, read.key_job_id)
            if first is not None:
                return _replayed(character, first, digest)
        rules = campaign.rules
        action, rolls, expected, ask = _parse_action(rules, body)
        if open_job_id is not None:
            raise ClockBusy(open_job_id)
        if character.retired:
            raise ServiceError("type", RETIRED)
        if expected is not None and expected != character.version:
            raise Conflict(
                "expected_version", VERSION_CONFLICT.format(actual=character.version, expected=expected)
            )
        dice = dice_for(rolls, ask=ask is not False and asks_the_table(campaign, "actions"))
        before = outbox.standing_before(rules, character)  # None: nobody listens (no work at all)
        _medics_can_act(rules, character, action)
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
        # What the hooks are told, decided with the events it speaks of: the outbox's rows commit with them.
        outbox.action_recorded(campaign, rules, character, before, rows)
    return ActionResult(rows, character, state)


def _refusal_in_dates(campaign: Campaign, error: RuleError) -> RuleError:
    """A rule's refusal with its marked game seconds written as the campaign's dates ("may try again from
    2053-01-01 00:01:00"): the engines cannot know the calendar (rules.ruleset.GAME_TIME_MARK)."""
    message = game_dates.dated(campaign.start, error.message)
    return error if message == error.message else type(error)(error.field, message)
