"""A campaign's members: invitations, roles, leaving and removal (issue 19; docs/members.md)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from campaign.ledger import eventstore, running
from campaign.ledger.events import (
    INVITATION_ACCEPTED,
    INVITATION_CANCELLED,
    INVITATION_DECLINED,
    MEMBER_INVITED,
    MEMBER_LEFT,
    MEMBER_REMOVED,
)
from campaign.models import GM, PLAYER, Campaign, Character, Invitation, Membership, PushSubscription
from campaign.notify import outbox
from campaign.selectors.jobs import open_job
from campaign.services.characters import change_character
from campaign.services.core import CLOCK_BUSY, Conflict, ServiceError, _user_named
from rules.ruleset import Event as RuleEvent
from rules.text import given

LAST_GM = "the user {name} is the campaign's only GM: make someone else a GM first, or nobody could run the campaign"


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
        _devices_told(campaign, user, gm=role == GM)
    return membership


def _devices_told(campaign: Campaign, user: AbstractBaseUser, *, gm: bool) -> None:
    """A member came, went or changed role (the campaign's lock held): a GM's devices stop being told of the
    campaign's characters when the GM leaves it or is a GM no more (docs/notifications.md, "Push to a phone"); a
    player's devices, of characters the player no longer plays, by themselves; and, when the member has a device,
    whether a device listens to the campaign (`Campaign.notify`) is asked again."""
    devices = PushSubscription.objects.filter(user=user)
    if not gm:
        PushSubscription.campaigns.through.objects.filter(
            pushsubscription__in=devices, campaign=campaign
        ).delete()
    if devices.exists():
        outbox.refresh_notify(campaign)


def _role_and_user(role: Any, username: Any) -> AbstractBaseUser:
    """A member's role and user as a request names them: a 400 naming the field for either that is wrong."""
    if role not in (GM, PLAYER):
        raise ServiceError("role", f"expected one of gm, player, got {given(role)}")
    if not isinstance(username, str) or not username:
        raise ServiceError("username", "expected a user name")
    return _user_named("username", username)


NOT_IN_CAMPAIGN = "the user {name} is not a member of this campaign, nor invited to it"
ONLY_GMS_REMOVE = "only a GM of this campaign may remove other members"
LAST_GM_LEAVING = (
    "the user {name} is the campaign's only GM and cannot leave or be removed: make someone else a GM first, or nobody "
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
            _devices_told(campaign, user, gm=invitation.role == GM)
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
        _devices_told(campaign, user, gm=False)
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
    running.settle(campaign)
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
