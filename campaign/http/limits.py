"""What one user may create over HTTP: campaigns (made or imported), invitations, characters (one, a duplicate, a
batch of NPCs). Each has a rate per user, past which a 429 says when to try again, and a total, past which a 400
says what the limit is (docs/security.md, "What one user may create"; the settings in campaign/settings.py).

The API's and the pages' views hold a limit around the one service call that creates:

    with limits.campaigns(request.user):
        campaign = services.campaign_create(...)

The check and the creation are one transaction, under a lock (the user's for campaigns and invitations, the
campaign's row for characters), so requests sent at once cannot pass a total together; a rate's places are taken
in the cache before the creation (atomically) and given back when it creates nothing (a repeated request, a
refusal). The operator's own tools (seed_demo, import_campaign, the bench) call the services directly and are not
limited.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from campaign.http import throttles
from campaign.ledger import eventstore, locks
from campaign.models import Campaign
from campaign.selectors import campaigns as counts
from campaign.services import MAX_NUMBERED, ServiceError

PERIOD_WORDS = throttles.PERIOD_WORDS


class LimitReached(ServiceError):
    """A limit on what one user may create: 429 for a rate (`retry_after` seconds), 400 for a total. Not tied to
    one field: the API answers it as `detail`, a form shows it above its inputs."""

    def __init__(self, message: str, status: int, retry_after: int | None = None) -> None:
        super().__init__("detail", message)
        self.status = status
        self.retry_after = retry_after


def _rate(user: AbstractBaseUser, kind: str, setting: tuple[int, int], what: str, places: int) -> Any:
    """Take `places` of this user's rate of `kind`; a 429 (nothing taken) when that would pass it."""
    most, seconds = setting
    window = throttles.WindowCount(f"limits:{kind}:{user.pk}", seconds)
    if window.take(places) > most:
        window.give_back(places)
        left = window.left()
        period = PERIOD_WORDS.get(seconds, f"per {seconds} seconds")
        raise LimitReached(
            f"at most {most} {what} {period} per user; try again in {throttles.wait_words(left)}",
            429,
            math.ceil(left),
        )
    return window


@contextmanager
def _held(
    total: Callable[[], int], rates: list[tuple[str, tuple[int, int], str, int]], user: AbstractBaseUser
) -> Iterator[None]:
    """Take the rates' places, run the creation, and give the places back if it made nothing."""
    before = total()
    taken: list[tuple[Any, int]] = []
    try:
        for kind, setting, what, places in rates:
            taken.append((_rate(user, kind, setting, what, places), places))
        yield
    except BaseException:
        for window, places in taken:
            window.give_back(places)
        raise
    if total() == before:  # a repeated request: the first one's answer, nothing new
        for window, places in taken:
            window.give_back(places)


@contextmanager
def campaigns(user: AbstractBaseUser) -> Iterator[None]:
    """Around a new campaign or an import: CAMPAIGN_THROTTLE and CAMPAIGNS_PER_USER (imports under way count)."""

    def total() -> int:
        return counts.campaigns_started_by(user)

    with transaction.atomic():
        locks.lock_key(f"limits:campaigns:{user.pk}")
        most = settings.CAMPAIGNS_PER_USER
        if (have := total()) >= most:
            raise LimitReached(f"at most {most} campaigns per user, and you have started {have}", 400)
        with _held(total, [("campaigns", settings.CAMPAIGN_RATE, "new campaigns", 1)], user):
            yield


@contextmanager
def invitations(user: AbstractBaseUser, campaign: Campaign, username: Any) -> Iterator[None]:
    """Around an invitation: INVITATION_THROTTLE and PENDING_INVITATIONS_PER_USER (those waiting for an answer). A
    member's new role, or a pending invitation asked again, invites nobody new and is not limited."""
    if counts.member_or_invited(campaign, username):
        yield
        return

    def total() -> int:
        return counts.invitations_sent_by(user)

    with transaction.atomic():
        locks.lock_key(f"limits:invitations:{user.pk}")
        most = settings.PENDING_INVITATIONS_PER_USER
        if (have := total()) >= most:
            raise LimitReached(
                f"at most {most} invitations waiting for an answer per user, and you have {have}: withdraw some"
                " or wait for their answers",
                400,
            )
        with _held(total, [("invitations", settings.INVITATION_RATE, "invitations", 1)], user):
            yield


@contextmanager
def characters(
    user: AbstractBaseUser, campaign: Campaign, count: Any = 1, *, batch: bool = False
) -> Iterator[None]:
    """Around new characters in `campaign` (one, a duplicate, or a batch of NPCs: `batch`): CHARACTER_THROTTLE
    (each character counts), NPC_BATCH_THROTTLE for a batch, and CHARACTERS_PER_CAMPAIGN (retired ones count). A
    count the service will refuse is taken as one: the service says what is wrong with it."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_NUMBERED:
        count = 1

    def total() -> int:
        return counts.character_count(campaign)

    with transaction.atomic():
        eventstore.lock_campaign(campaign.pk)  # the service locks it again, in the same transaction
        most = settings.CHARACTERS_PER_CAMPAIGN
        have = total()
        if have + count > most:
            more = "" if count == 1 else f": {count} more would make {have + count}"
            raise LimitReached(f"at most {most} characters per campaign, and this one has {have}{more}", 400)
        rates = [("characters", settings.CHARACTER_RATE, "new characters", count)]
        if batch:
            rates.insert(0, ("npc-batches", settings.NPC_BATCH_RATE, "batches of NPCs", 1))
        with _held(total, rates, user):
            yield


def imported_characters(user: AbstractBaseUser, count: int) -> Any:
    """An import's `count` characters taken in the user's CHARACTER_THROTTLE, as making them one by one would take
    them (their total per campaign is the check's: `check_file`'s `most_characters`). More than the rate allows
    at all is a 400 that says so; more than it has left, a 429 saying when. Returns the places taken, for
    `give_back` when the import starts nothing."""
    most, seconds = settings.CHARACTER_RATE
    if count > most:
        period = PERIOD_WORDS.get(seconds, f"per {seconds} seconds")
        raise LimitReached(
            f"at most {most:,} new characters {period} per user, and this file creates {count:,}: an import"
            " counts its characters as if they were made one by one",
            400,
        )
    window = _rate(user, "characters", settings.CHARACTER_RATE, "new characters", count)
    return _Taken(window, count)


class _Taken:
    """Places taken in a rate, to give back."""

    def __init__(self, window: Any, places: int) -> None:
        self.window, self.places = window, places

    def give_back(self) -> None:
        if self.places:
            self.window.give_back(self.places)
