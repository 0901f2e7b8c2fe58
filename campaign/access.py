"""Who may see and do what. Outsiders get 404 for anything in a campaign: existence never leaks."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import OuterRef, Subquery
from django.http import Http404
from rest_framework.exceptions import PermissionDenied

from campaign.models import GM, PLAYER, Campaign, Character, Membership


def role_in(user: AbstractBaseUser | AnonymousUser, campaign_id: int) -> str | None:
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(campaign_id=campaign_id, user=user).values_list("role", flat=True).first()
    )


def campaign_for(user: AbstractBaseUser | AnonymousUser, campaign_id: int) -> tuple[Campaign, str]:
    role = role_in(user, campaign_id)
    if role is None:
        raise Http404("no such campaign")
    return Campaign.objects.get(pk=campaign_id), role


def character_for(user: AbstractBaseUser | AnonymousUser, character_id: int) -> tuple[Character, str]:
    """GMs see every character of their campaigns; a player sees only the characters they play.

    One query: the character with its campaign and player, and the user's role in that campaign as a subquery.
    """
    if not user.is_authenticated:
        raise Http404("no such character")
    role_query = Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user.pk).values(
        "role"
    )
    character = (
        Character.objects.select_related("campaign", "player")
        .annotate(viewer_role=Subquery(role_query[:1]))
        .filter(pk=character_id)
        .first()
    )
    if character is None:
        raise Http404("no such character")
    role = character.viewer_role
    if role == GM or (role == PLAYER and character.player_id == user.pk):
        return character, role
    raise Http404("no such character")


def require_gm(role: str, what: str) -> None:
    if role != GM:
        raise PermissionDenied(f"only a GM of this campaign may {what}")
