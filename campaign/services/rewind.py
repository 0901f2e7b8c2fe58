"""Taking back the latest advance (docs/rules/README.md)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from campaign.ledger import eventstore, running
from campaign.ledger.events import CHARACTER_CREATED, CLOCK_ADVANCED, CLOCK_REWOUND, HOOKS_CAUSE
from campaign.ledger.projections import keep_clock_due
from campaign.models import Campaign, Character, Event, Job
from campaign.notify import outbox
from campaign.selectors.jobs import open_job
from campaign.services.actions import _revert_events
from campaign.services.core import CLOCK_BUSY, Conflict, ServiceError, _record
from rules import game_dates
from rules.ruleset import Event as RuleEvent

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
    events that took them back) and the campaign's hooks (where notifications go changes nothing in the game): the
    actions that keep it from being taken back."""
    rewound = _rewound_jobs(campaign)
    later = Event.objects.filter(campaign=campaign, position__gt=advance.position).order_by("position")
    return [
        row
        for row in later
        if not (
            row.cause.startswith(("rewind:", HOOKS_CAUSE))
            or any(row.cause.startswith(f"timer:{job}:") or row.cause == f"job:{job}" for job in rewound)
        )
    ]


def _actions_named(campaign: Campaign, rows: list[Event]) -> str:
    """'Johnny: 9 normal damage to the torso: 7 points on the track (2020-01-01 00:10:00); a new character, Ash' for a 409."""
    rules = campaign.rules
    names = dict(Character.objects.filter(campaign=campaign).values_list("pk", "name"))
    seen: dict[str, str] = {}
    for row in rows:
        if row.cause in seen:
            continue
        when = game_dates.game_datetime(campaign.start, row.game_time)
        at = f" ({when:%Y-%m-%d %H:%M:%S})" if when is not None else ""
        if row.character_id is None:
            what = f"a new character, {row.data.get('name')}" if row.type == CHARACTER_CREATED else "a change"
            seen[row.cause] = f"{what}{at}"
        else:
            line = game_dates.dated(campaign.start, rules.summary(eventstore.to_rule_event(row)))
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
        rules = campaign.rules
        fired = Event.objects.filter(campaign=campaign, cause__startswith=f"timer:{job.pk}:")
        firsts: dict[int, int] = {}
        for character_id, version in fired.values_list("character_id", "version"):
            firsts[character_id] = min(version, firsts.get(character_id, version))
        wrapper = transaction.get_connection()
        corrected: list[outbox.Change] = []
        for character in Character.objects.filter(pk__in=firsts).order_by("pk"):
            character.campaign = campaign
            before = outbox.standing_before(rules, character)  # None: nobody listens
            events, state = _revert_events(character, rules, campaign, firsts[character.pk] - 1)
            events = [
                RuleEvent(event.type, {**event.data, "advance": str(job.pk)}, advance.data["from"])
                for event in events
            ]
            rows, _ = _record(
                character,
                rules,
                events,
                state,
                rules.timers(character.state),
                cause=f"rewind:{job.pk}:{character.pk}",
                actor=actor,
                wrapper=wrapper,
            )
            if before is not None:
                corrected.append(
                    outbox.Change(
                        character, before, outbox.standing(rules, state, advance.data["from"]), rows
                    )
                )
        back_to = advance.data["from"]
        # A death or a dying the advance brought, and told, is taken back with it: told too.
        outbox.taken_back(campaign, rules, corrected, game_time=back_to)
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
        campaign.game_time = back_to
        # A running clock runs on from where the advance began, as it did then (campaign.ledger.running).
        clock = running.anchor(campaign, back_to) if running.runs(campaign) else {}
        Campaign.objects.filter(pk=campaign.pk).update(
            game_time=back_to, version=campaign.version + 1, **clock
        )
        keep_clock_due(campaign)
    return Rewind(job, len(firsts), back_to)
