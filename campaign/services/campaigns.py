"""Campaigns: creating one (its options checked), changing it in play, the board's fight counter."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F

from campaign.ledger import eventstore, running
from campaign.ledger.events import CAMPAIGN_CHANGED, CAMPAIGN_CREATED
from campaign.ledger.projections import keep_clock_due, project_character
from campaign.models import GM, Campaign, Character, Event, ImportJob, Membership
from campaign.notify import outbox
from campaign.selectors.jobs import open_job
from campaign.services.core import (
    KEY_REUSED,
    Conflict,
    ServiceError,
    _body_of,
    _name,
    clock_busy,
    request_digest,
)
from rules import options as declared
from rules.registry import get_ruleset
from rules.ruleset import Event as RuleEvent
from rules.ruleset import Ruleset, copy_state, options_in_force, set_options

# A fight ends by itself after this many game minutes without a combat action (option `fight_idle_minutes`; 0: the
# GM ends it), so that downtime is never counted in rounds (docs/web.md, "The round counter").
FIGHT_IDLE_MINUTES = declared.FIGHT_IDLE_MINUTES


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
    declared.off_units((*rules.options, *declared.SHARED), options, {})
    with transaction.atomic():
        made = campaign_made_with(user, idempotency_key, digest)
        if made is not None:
            return made
        campaign = Campaign(name=name, ruleset=rules.slug, options=options, created_by=user)
        running.anchor(campaign, 0)  # a clock that runs on its own runs from the campaign's start
        campaign.save()
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


def fight_start(*, campaign: Campaign, at: Any) -> Campaign:
    """Start counting a fight's rounds at game second `at` (the game time the GM's board showed): the counter is
    round 1 there. Setting a moment, not "now", makes a retried request set the same one."""
    if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= running.reading(campaign):
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


CAMPAIGN_FIELDS = ("name", "options")


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
        campaign = running.settle(eventstore.lock_campaign(campaign_id))
        busy = open_job(campaign)
        if busy is not None:
            raise Conflict("clock", clock_busy(busy.pk))
        rules = campaign.rules
        options = validate_campaign_options(rules, {**campaign.options, **(patch or {})})
        # An option the campaign never stored holds its default: given it, nothing changes.
        before = options_in_force(rules, campaign.options)
        # Only a value that changes is held to the rules' units: an old campaign keeps what it was stored with.
        declared.off_units((*rules.options, *declared.SHARED), options, before)
        told: dict[str, Any] = {}
        if name is not None and name != campaign.name:
            told["name"] = {"old": campaign.name, "new": name}
        for option, value in options.items():
            if value != before.get(option):
                told[f"options.{option}"] = {"old": before.get(option), "new": value}
        if not told:
            return campaign
        rows = eventstore.append(
            campaign=campaign,
            stream=campaign.stream,
            expected_version=campaign.version,
            events=[RuleEvent(CAMPAIGN_CHANGED, {"changes": told}, campaign.game_time)],
            cause=f"campaign:{uuid.uuid4()}",
            actor=actor,
        )
        house_rules = {key: change for key, change in told.items() if key.startswith("options.")}
        outbox.house_rules_changed(campaign, rows[0], house_rules)
        scale, stored_options = running.scale(campaign), campaign.options
        campaign.options = options
        # The GM started, stopped or changed a running clock: it reads from here on at the new scale (the
        # CampaignChanged just written, dated at its reading, records it).
        clock = running.anchor(campaign, campaign.game_time) if running.scale(campaign) != scale else {}
        Campaign.objects.filter(pk=campaign.pk).update(
            name=name or campaign.name,
            options=options,
            version=campaign.version + 1,
            projection_epoch=F("projection_epoch") + 1,
            **clock,
        )
        if options != stored_options:
            _characters_take_options(campaign, rules, options)
        keep_clock_due(campaign)
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
