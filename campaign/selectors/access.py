"""Who may see and do what. Outsiders get 404 for anything in a campaign: existence never leaks."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.http import Http404

from campaign.ledger.eventstore import command_cursor
from campaign.models import GM, PLAYER, Campaign, Character, Membership
from rules.registry import get_ruleset
from rules.ruleset import Ruleset


def role_in(user: AbstractBaseUser | AnonymousUser, campaign_id: int) -> str | None:
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(campaign_id=campaign_id, user=user).values_list("role", flat=True).first()
    )


def campaign_for(user: AbstractBaseUser | AnonymousUser, campaign_id: int) -> tuple[Campaign, str]:
    """The campaign and the user's role in it, in one raw query (the ORM's building of two queries cost more than
    the board's own work once its parts are cached); a 404 for a campaign the user is no member of."""
    if not user.is_authenticated:
        raise Http404("no such campaign")
    found = list(Campaign.objects.raw(_CAMPAIGN_FOR_SQL, [user.pk, campaign_id]))
    if not found or found[0].viewer_role is None:
        raise Http404("no such campaign")
    return found[0], found[0].viewer_role


_CAMPAIGN_FOR_SQL = (
    f"SELECT c.*, (SELECT m.role FROM {Membership._meta.db_table} m WHERE m.campaign_id = c.id AND m.user_id = %s)"
    f" AS viewer_role FROM {Campaign._meta.db_table} c WHERE c.id = %s"
)


def may_see_character(role: str | None, player_id: int | None, user: AbstractBaseUser) -> bool:
    """The rule for characters: a GM sees every character of the campaign, a player only those they play."""
    return role == GM or (role == PLAYER and player_id == user.pk)


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
    if may_see_character(role, character.player_id, user):
        return character, role
    raise Http404("no such character")


def character_etag(character_id: int, version: int, game_time: int, epoch: int, role: str) -> str:
    """The ETag of a character's page region and API answer: a new event, clock time or rebuild, or another role,
    is another tag."""
    return f'"c{character_id}-{version}-{game_time}-e{epoch}-{role}"'


@dataclass(frozen=True)
class CharacterStamp:
    """What a conditional read needs to answer before loading the character: who may see it, and its versions."""

    character_id: int
    version: int
    created: (
        str  # the row's created_at as the database returns it: tells a character from an earlier one's id
    )
    campaign_id: int
    game_time: int
    campaign_version: int
    epoch: int  # the campaign's projection_epoch: a rebuild changes every key and ETag below
    role: str
    name: str
    player: str | None
    campaign_name: str
    ruleset: str
    player_id: int | None = None
    alive: bool = True  # the GM's page offers the dead only what the services take of them (`forms.offered`)

    @property
    def etag(self) -> str:
        """The GM's ETag (a player's is the digest of the answer, `conditional.digest_etag`: these numbers count
        hidden events)."""
        return character_etag(self.character_id, self.version, self.game_time, self.epoch, self.role)

    @property
    def rules(self) -> Ruleset:
        """The campaign's ruleset, as `Campaign.rules` (the stamp holds its slug, as read)."""
        return get_ruleset(self.ruleset)

    @property
    def character_key(self) -> str:
        """This character, not an earlier one with the same id: for what is cached of it whoever reads it."""
        born = re.sub(r"\W", "", self.created)
        return f"c{self.character_id}@{born}"

    @property
    def audience_key(self) -> str:
        """Who a rendering of this character is for: this character (`character_key`) as this role sees it. What
        a page or answer shows depends on the role, never on which user holds it, so every GM of a campaign
        shares one rendering and every player another (tested: tests/web/test_read_cache.py)."""
        return f"{self.character_key}:{self.role}"

    def cache_key(self, kind: str) -> str:
        """A rendering of this character as it is now for its audience: any new event, clock advance or campaign
        event, or another role is another key."""
        return f"{kind}:v{self.version}:t{self.game_time}:cv{self.campaign_version}:e{self.epoch}:{self.audience_key}"


_User = get_user_model()
_STAMP_SQL = (
    "SELECT c.version, c.created_at, c.player_id, c.campaign_id, k.game_time, k.version, k.projection_epoch, m.role,"
    f" c.name, p.{_User._meta.get_field(_User.USERNAME_FIELD).column}, k.name, k.ruleset, c.alive"
    f" FROM {Character._meta.db_table} c"
    f" JOIN {Campaign._meta.db_table} k ON k.id = c.campaign_id"
    f" LEFT JOIN {Membership._meta.db_table} m ON m.campaign_id = c.campaign_id AND m.user_id = %s"
    f" LEFT JOIN {_User._meta.db_table} p ON p.{_User._meta.pk.column} = c.player_id"
    " WHERE c.id = %s"
)


def character_stamp(user: AbstractBaseUser | AnonymousUser, character_id: int) -> CharacterStamp:
    """The same check as `character_for` (the same 404s) in one raw query that loads no model and no JSON."""
    if not user.is_authenticated:
        raise Http404("no such character")
    # Straight on the driver's cursor, as a command's statements: Django's cost more than the query on SQLite.
    with command_cursor() as cursor:
        cursor.execute(_STAMP_SQL, [user.pk, character_id])
        row = cursor.fetchone()
    if row is None:
        raise Http404("no such character")
    version, created, player_id, campaign_id, game_time, campaign_version, epoch, role, *names, alive = row
    if may_see_character(role, player_id, user):
        return CharacterStamp(
            character_id,
            version,
            str(created),
            campaign_id,
            game_time,
            campaign_version,
            epoch,
            role,
            *names,
            player_id=player_id,
            alive=bool(alive),
        )
    raise Http404("no such character")


def stamped_character(stamp: CharacterStamp) -> Character:
    """The character a stamp let through, with its campaign: the stamp has answered who may see it (a read model
    and its state, nothing of the viewer, is left to load)."""
    character = Character.objects.select_related("campaign").filter(pk=stamp.character_id).first()
    if character is None:
        raise Http404("no such character")
    return character


def require_gm(role: str, what: str) -> None:
    if role != GM:
        # Django's: the pages answer it with their 403 page, the API with {"detail": ...} (DRF keeps the message).
        raise PermissionDenied(f"only a GM of this campaign may {what}")
