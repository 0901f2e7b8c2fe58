"""Characters: creating them (one, numbered from a template, a duplicate), changing them in play, retiring and
restoring them (docs/rules/README.md)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from campaign.ledger import eventstore, running
from campaign.ledger.events import CHARACTER_CREATED
from campaign.ledger.projections import keep_clock_due, project_character
from campaign.models import Campaign, Character, Event, Invitation, Membership, Timer
from campaign.services.core import (
    KEY_REUSED,
    ActionResult,
    Conflict,
    ServiceError,
    User,
    _body_of,
    _evolved_in_place,
    _first_with_key,
    _name,
    _record,
    _user_named,
    clock_busy,
    request_digest,
)
from rules import ruleset as ruleset_types
from rules.ruleset import CHARACTER_CHANGED, CHARACTER_RESTORED, CHARACTER_RETIRED, Ruleset, start_state
from rules.ruleset import Event as RuleEvent
from rules.text import given


def _player_for(campaign: Campaign, player: Any) -> AbstractBaseUser | None:
    if player is None or player == "":
        return None
    if not isinstance(player, str):
        raise ServiceError("player", f"expected a user name or null, got {given(player, typed=True)}")
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
    rules = campaign.rules
    attributes = _valid_attributes(rules, attributes)
    with transaction.atomic():
        campaign = running.settle(eventstore.lock_campaign(campaign.pk))
        if idempotency_key:
            first = _first_with_key(campaign, idempotency_key)
            if first is not None:
                if first.type != CHARACTER_CREATED or first.request_digest != digest:
                    raise Conflict("Idempotency-Key", KEY_REUSED)
                return Character.objects.get(pk=first.data["character"])
        _name_free(campaign, name)
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


MAX_NUMBERED = 20  # characters made at once from one template: a fight's gang, not a city
PREFIX_LENGTH = 190


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
        raise ServiceError(
            "count", f"expected a whole number of 1 to {MAX_NUMBERED}, got {given(count, typed=True)}"
        )
    if len(prefix) > PREFIX_LENGTH:  # room for " 12345" in a name's 200 characters
        raise ServiceError("prefix", f"expected at most {PREFIX_LENGTH} characters, got {len(prefix)}")
    rules = campaign.rules
    attributes = _valid_attributes(rules, attributes)
    with transaction.atomic():
        campaign = running.settle(eventstore.lock_campaign(campaign.pk))
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
    rules = character.campaign.rules
    with transaction.atomic():
        campaign = running.settle(eventstore.lock_campaign(character.campaign_id))
        made = _characters_made_with(campaign, idempotency_key, digest)
        if made is not None:
            return made[0]
        stem, number = _name_and_number(character.name)
        [name] = _numbered_names(campaign, stem, 1, first=max(number + 1, 2))
        attributes = rules.validate_attributes(character.attributes)
        return _add_characters(campaign, rules, actor, [(name, attributes)], idempotency_key, digest)[0]


def _name_free(campaign: Campaign, name: str, *, other_than: int | None = None) -> None:
    """A 400 naming the name if another character of `campaign` has it (docs/play.md, "Names"): two "Ganger 2"
    at one table cannot be told apart on the board, in a form's choice or a message. Letter case does not make a
    name new ("ganger 2" is Ganger 2). A retired character's name stays taken: it may come back (`restore`). Read
    under the campaign's lock, so two requests cannot both take a name."""
    taken = Character.objects.filter(campaign=campaign, name__iexact=name)
    if other_than is not None:
        taken = taken.exclude(pk=other_than)
    retired = taken.order_by("retired").values_list("retired", flat=True).first()
    if retired is not None:
        raise ServiceError("name", (NAME_TAKEN_RETIRED if retired else NAME_TAKEN).format(name=name))


def _name_and_number(name: str) -> tuple[str, int]:
    """'Ganger 4' -> ('Ganger', 4); 'Ash' -> ('Ash', 0)."""
    stem, _, last = name.rpartition(" ")
    return (stem, int(last)) if stem and last.isdigit() else (name, 0)


def _numbered_names(campaign: Campaign, stem: str, count: int, *, first: int) -> list[str]:
    """`count` names "<stem> N", numbered on from the highest the campaign has (at least `first`), retired
    characters' and other letter cases' included, so that none is taken (`_name_free`)."""
    taken = Character.objects.filter(campaign=campaign, name__istartswith=f"{stem} ").values_list(
        "name", flat=True
    )
    highest = max((n for s, n in map(_name_and_number, taken) if s.casefold() == stem.casefold()), default=0)
    start = max(highest, first - 1) + 1
    names = [f"{stem} {n}" for n in range(start, start + count)]
    for name in names:  # "Ganger 07" counts as 7, so "Ganger 7" is past it; this is the guard all the same
        _name_free(campaign, name)
    return names


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


CHARACTER_FIELDS = ("name", "player", "attributes")
RETIRED = "the character is retired: restore it first"
NOT_A_MEMBER = "the user {name} is neither a member of this campaign nor invited to it: invite them first"
# Retiring is taken back by restoring, never by an undo (README, "Characters change in play").
NOT_UNDONE = ruleset_types.NOT_UNDONE


def _member(campaign: Campaign, player: Any) -> AbstractBaseUser | None:
    """A character's new player: a member of the campaign or someone invited to it (the character waits for their
    answer, docs/members.md), or nobody."""
    if player is None or player == "":
        return None
    if not isinstance(player, str):
        raise ServiceError("player", f"expected a user name or null, got {given(player, typed=True)}")
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
        read = eventstore.lock_for_character(character_id, wrapper)
        character, open_job_id = read.character, read.open_job_id
        campaign = character.campaign
        rules = campaign.rules
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
            _name_free(campaign, name, other_than=character.pk)
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
    given_back = identity.get("name")
    if given_back is not None and given_back != character.name:
        try:
            _name_free(character.campaign, given_back, other_than=character.pk)
        except ServiceError:
            raise ServiceError("name", NAME_GIVEN_BACK_TAKEN.format(name=given_back)) from None
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
        read = eventstore.lock_for_character(character_id, wrapper)
        character, open_job_id = read.character, read.open_job_id
        if open_job_id is not None:
            raise Conflict("clock", clock_busy(open_job_id))
        if character.retired == retired:
            return character
        campaign = character.campaign
        rules = campaign.rules
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
            keep_clock_due(campaign)
        else:
            Character.objects.filter(pk=character.pk).update(retired=False)
            project_character(character, rules, character.state, character.version + 1, previous_timers=[])
    return character


NAME_TAKEN = "a character named {name} is already in this campaign"
NAME_TAKEN_RETIRED = (
    "a retired character named {name} is in this campaign: bring it back, or choose another name"
)
NAME_GIVEN_BACK_TAKEN = "this would give the name {name} back, and another character of this campaign has it now: rename that one first"
NOT_A_MEMBER_OR_INVITED = "the user {name} is neither a member of this campaign nor invited to it: invite them first (members and invitations)"
