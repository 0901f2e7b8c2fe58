"""The campaign's people, as the GM's forms offer them: the characters a medic may be, the members and invitees a
character may be played by.

Only GM forms use these lists (a player has no action form and no character form), so a player's page never holds
the names of characters the player cannot see. The API takes the same texts as before: a medic is any name, a
player a member's or invitee's user name.
"""

from __future__ import annotations

from collections.abc import Iterable

from campaign.models import GM, Campaign, Invitation, Membership
from campaign.selectors import campaigns, characters
from campaign.web.forms import ActionFormView


def offer_medics(form: ActionFormView, campaign: Campaign) -> ActionFormView:
    """The form with the campaign's characters (`selectors.characters.medics`) suggested by each input naming
    someone (`Param.person`): any other name (the street doc nobody made a character of) is still typed. One query
    for a form that has such an input, none for any other. Built after the form (the character page's, a card's, a
    refused one)."""
    spec = campaign.rules.action_form(form.action)
    named = {param.name for param in spec.params if param.person}
    fields = [field for field in form.fields if field.name in named]
    if fields:
        names = characters.medics(campaign)
        for field in fields:
            field.people = names
    return form


def player_choices(
    members: Iterable[Membership], invited: Iterable[Invitation], current: str = ""
) -> list[tuple[str, str]]:
    """Whom a character may be played by, as (user name, what the option reads): the campaign's members, then its
    pending invitees (the character waits for them: docs/members.md), each by name. `current`: a name posted or
    held that is in neither (a member removed meanwhile), kept so that the form shows what its error is about."""
    choices = [
        (name, f"{name} (GM)" if m.role == GM else name)
        for name, m in sorted((m.user.get_username(), m) for m in members)
    ]
    choices += [
        (name, f"{name} (invited, not yet accepted)")
        for name in sorted(i.user.get_username() for i in invited)
    ]
    if current and current not in {name for name, _ in choices}:
        choices.insert(0, (current, current))
    return choices


def players_of(campaign: Campaign, current: str = "") -> list[tuple[str, str]]:
    """`player_choices` of the campaign, read from the database."""
    return player_choices(
        campaigns.members(campaign, ()), campaigns.pending_invitations(campaign, ()), current
    )
