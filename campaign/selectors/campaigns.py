"""The reads of campaigns and their people: a user's campaigns and invitations, a campaign's members and pending
invitees, what the clock will do next, the history of who came and went and of the house rules, and what the
campaign asks the table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet

from campaign.ledger.events import MEMBERSHIP_EVENTS
from campaign.models import Campaign, Character, Event, ImportJob, Invitation, Job, Membership, Timer
from rules.words import CAMPAIGN_CHANGED


def asks_the_table(campaign: Campaign, what: str) -> bool:
    """Whether the campaign asks the GM for the dice of `what`: "actions" (with `table_dice` actions or all) or
    "clock" (all)."""
    table_dice = campaign.options.get("table_dice", "none")
    return table_dice == "all" or (what == "actions" and table_dice == "actions")


def projected(campaign: Campaign) -> Campaign:
    """The campaign as its read model holds it now (after a write that moved its clock or version)."""
    campaign.refresh_from_db()
    return campaign


def memberships_of(user: AbstractBaseUser) -> QuerySet[Membership]:
    """The user's memberships with their campaigns, oldest campaign first."""
    return Membership.objects.filter(user=user).select_related("campaign").order_by("campaign_id")


def invitations_to(user: AbstractBaseUser) -> QuerySet[Invitation]:
    """The invitations the user has not answered yet, oldest first."""
    return (
        Invitation.objects.filter(user=user, status=Invitation.PENDING)
        .select_related("campaign", "user", "invited_by")
        .order_by("id")
    )


def waiting_characters(invitation: Invitation) -> list[str]:
    """The names of the characters that wait for a pending invitation's answer (their player is the invitee)."""
    if invitation.status != Invitation.PENDING:
        return []
    rows = Character.objects.filter(campaign_id=invitation.campaign_id, player_id=invitation.user_id)
    return list(rows.order_by("id").values_list("name", flat=True))


def members(campaign: Campaign, order: Iterable[str] = ("id",)) -> QuerySet[Membership]:
    """The campaign's members with their users."""
    return Membership.objects.filter(campaign=campaign).select_related("user").order_by(*order)


def pending_invitations(campaign: Campaign, order: Iterable[str] = ("id",)) -> QuerySet[Invitation]:
    """Who is invited to the campaign and has not answered yet, with their users."""
    rows = Invitation.objects.filter(campaign=campaign, status=Invitation.PENDING).select_related("user")
    return rows.order_by(*order)


def member_events(campaign: Campaign, limit: int = 20) -> list[Event]:
    """The latest entries of the campaign's history of its members (invited, joined, declined, left, removed),
    newest first."""
    rows = Event.objects.filter(campaign=campaign, character__isnull=True, type__in=MEMBERSHIP_EVENTS)
    return list(rows.order_by("-position").only("type", "data", "actor", "recorded_at", "game_time")[:limit])


def house_rules_changes(campaign: Campaign, limit: int = 20) -> list[Event]:
    """The campaign's latest changes (CampaignChanged), newest first: the board finds its latest house rules among
    them."""
    rows = Event.objects.filter(campaign=campaign, character__isnull=True, type=CAMPAIGN_CHANGED)
    return list(rows.order_by("-position")[:limit])


def next_timers(campaign: Campaign, limit: int = 10) -> list[Timer]:
    """What the clock will do next, soonest first, with each character's name and state (the ruleset's words of a
    timer may name what it is about in the state: a hit's place); the states of `limit` characters at most."""
    rows = (
        Timer.objects.filter(campaign=campaign)
        .select_related("character")
        .only("character__name", "character__state", "kind", "key", "data", "due")
        .order_by("due", "character_id", "priority", "key")
    )
    return list(rows[:limit])


def clocks_due(now: float) -> list[int]:
    """The campaigns whose clock runs on its own and whose next firing has come by real time `now` (Unix seconds),
    with no advance open: beat's one indexed question (`Campaign.clock_due_at`)."""
    due = Campaign.objects.filter(clock_due_at__lte=now).exclude(jobs__status__in=[Job.QUEUED, Job.RUNNING])
    return list(due.values_list("pk", flat=True))


# --- what one user may create (campaign.http.limits counts these under its lock) --------------------------------


def campaigns_started_by(user: AbstractBaseUser) -> int:
    """The campaigns the user made, and the imports of theirs under way or done that made none yet."""
    made = Campaign.objects.filter(created_by=user).count()
    importing = ImportJob.objects.filter(user=user, campaign__isnull=True).exclude(status=ImportJob.FAILED)
    return made + importing.count()


def invitations_sent_by(user: AbstractBaseUser) -> int:
    """The user's invitations still waiting for an answer."""
    return Invitation.objects.filter(invited_by=user, status=Invitation.PENDING).count()


def member_or_invited(campaign: Campaign, username: Any) -> bool:
    """Whether the person is a member of the campaign or invited to it already."""
    return (
        Membership.objects.filter(campaign=campaign, user__username=username).exists()
        or Invitation.objects.filter(
            campaign=campaign, user__username=username, status=Invitation.PENDING
        ).exists()
    )


def character_count(campaign: Campaign) -> int:
    """The campaign's characters, retired ones included."""
    return Character.objects.filter(campaign=campaign).count()
