"""The reads of characters: the lists a reader may see (the API's, the board's, the party's), a character as its
read model holds it now, and the names the GM's forms offer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Q, QuerySet

from campaign.models import PLAYER, Campaign, Character


def characters_of(
    campaign: Campaign, role: str, user: AbstractBaseUser, *, retired: bool = False
) -> QuerySet[Character]:
    """The characters the reader may see, in the board's order: a GM every one, a player their own; retired ones
    instead with `retired` (a list of their own)."""
    rows = Character.objects.filter(campaign=campaign, retired=retired)
    return rows.filter(player=user) if role == PLAYER else rows


def listed(
    campaign: Campaign, role: str, user: AbstractBaseUser, *, retired: bool = False
) -> list[Character]:
    """`characters_of` with their players and campaign: each presented whole (the API's list)."""
    return list(characters_of(campaign, role, user, retired=retired).select_related("player", "campaign"))


def party(campaign: Campaign, role: str, user: AbstractBaseUser) -> list[Character]:
    """The characters of the party's recovery: those the reader may see, not retired, with their campaign."""
    return list(characters_of(campaign, role, user).select_related("campaign"))


def in_party(characters: Sequence[Any]) -> list[bool]:
    """Who the party's date counts, for each of `characters` (`Character` rows, or anything with a `player_id`):
    the characters a player plays. An NPC (nobody plays it: an enemy, a bystander, a hireling) has its own date
    but is not counted. A campaign where nobody plays any of them (a GM keeping the table's sheets alone) has no
    other way to tell, so there every character counts (docs/recovery.md, "Who the party is"; the GM's "whole party is fit" notice counts the same)."""
    played = [c.player_id is not None for c in characters]
    return played if any(played) else [True] * len(played)


def keyed(
    campaign: Campaign, role: str, user: AbstractBaseUser, fields: Iterable[str]
) -> list[tuple[Any, ...]]:
    """`fields` of the characters the reader may see, not retired: what a cache key is made of, no state."""
    return list(characters_of(campaign, role, user).values_list(*fields))


def whole(ids: Iterable[int]) -> dict[int, Character]:
    """The characters of these ids, whole, with their players, by id."""
    return {c.pk: c for c in Character.objects.filter(pk__in=list(ids)).select_related("player")}


def shown(character_id: int) -> Character:
    """A character with its campaign and player, for a page that shows it (`DoesNotExist` when there is none)."""
    return Character.objects.select_related("campaign", "player").get(pk=character_id)


def card_of(campaign: Campaign, raw_id: str) -> Character | None:
    """The campaign's character whose id was typed in a query (`?card=`), or None."""
    pk = int(raw_id) if raw_id.isascii() and raw_id.isdigit() and len(raw_id) < 19 else None
    return Character.objects.filter(campaign=campaign, pk=pk).first()


def retired(campaign: Campaign) -> QuerySet[Character]:
    """The campaign's retired characters, by id and name (the board's list to restore from)."""
    return Character.objects.filter(campaign=campaign, retired=True).values("pk", "name")


def medics(campaign: Campaign) -> list[str]:
    """The names a medic's input suggests: the campaign's characters on the board, PCs and NPCs alike (a medic is
    someone in the game, not a person at the table), who can act (`rules.ruleset.out_of_action`: not dead,
    unconscious or stunned, which the service refuses); a retired character is off the board and out of the list."""
    able = Character.objects.filter(campaign=campaign, retired=False, alive=True, conscious=True)
    # Not `exclude(state__stunned=True)`: a state without the key (Shadowrun's) would read as NULL and be left out.
    not_stunned = Q(state__stunned=False) | ~Q(state__has_key="stunned")
    names = able.filter(not_stunned).values_list("name", flat=True)
    return sorted(set(names), key=str.casefold)


def projected(character: Character) -> Character:
    """The character as its read model holds it now (after a write: its state as projected)."""
    character.refresh_from_db()
    return character
