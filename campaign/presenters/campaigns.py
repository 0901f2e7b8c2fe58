"""What the API and the pages show of a campaign: its JSON, its dates, what the clock will do next, its members and
invitations, and the history of who came and went."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from campaign.ledger import running
from campaign.ledger.events import (
    INVITATION_ACCEPTED,
    INVITATION_CANCELLED,
    INVITATION_DECLINED,
    MEMBER_INVITED,
    MEMBER_LEFT,
    MEMBER_REMOVED,
)
from rules import game_dates
from rules.ruleset import AT_NEXT_ADVANCE, GM, PLAYER, Ruleset, State, fires_at, options_in_force
from rules.ruleset import Timer as RuleTimer

if TYPE_CHECKING:  # types only: a presenter reads nothing (campaign.selectors does)
    from campaign.models import Campaign, Event, Invitation, Membership, Timer


def game_date(campaign: Campaign, seconds: int | None) -> str | None:
    """Game seconds as the in-world date and time (ISO 8601); None where the calendar has no date
    (`rules.game_dates`)."""
    return game_dates.game_date(campaign.start, seconds)


def not_before(campaign: Campaign, seconds: int) -> int:
    """A time the clock must still reach: one in the past is due now, at the campaign's game time."""
    return fires_at(seconds, campaign.game_time)


def campaign_json(campaign: Campaign, role: str | None) -> dict[str, Any]:
    return {
        "id": campaign.pk,
        "name": campaign.name,
        "ruleset": campaign.ruleset,
        # A campaign made or imported before an option came holds its default: the answer says it.
        "options": options_in_force(campaign.rules, campaign.options),
        # A clock that runs on its own is read now, not where its last write left it.
        "game_time": (now := running.reading(campaign)),
        "game_date": game_date(campaign, now),
        # The campaign's stream also records characters a player cannot see: players are not told its length.
        "version": campaign.version if role == GM else None,
        "role": role,
    }


def clock_words(campaign: Campaign, rules: Ruleset, state: State, timer: RuleTimer) -> str:
    """What a timer will do in the ruleset's words (`Ruleset.timer_words`), its moments as in-world dates: every list
    of the clock and the clock's prompt take their words here ("bleeds out from critical hit 1 to the chest (lung),
    unless treated: the treatment under way ends at 2053-01-01 00:20:00, before the death (2053-01-01 00:30:00)")."""
    return game_dates.dated(campaign.start, rules.timer_words(state, timer))


def upcoming(campaign: Campaign, timers: Iterable[Timer]) -> list[dict[str, Any]]:
    """What the clock will do next (GM only), from the timers soonest first (`selectors.campaigns.next_timers`), in
    the ruleset's words (`clock_words`): "bleeds out from critical hit 1 to the chest (lung), unless treated", due
    2053-01-01T14:32:30 (each page says the time first: web/clock_line.html). The words of a timer may name what it is about in the character's state (a hit's
    place): the selector reads the states with the timers."""
    rules = campaign.rules
    return [
        {
            "character": t.character_id,
            "name": t.character.name,
            "kind": t.kind,
            "what": clock_words(
                campaign, rules, t.character.state, RuleTimer(t.due, t.kind, t.key, data=t.data)
            ),
            "due": not_before(campaign, t.due),
            "due_date": game_date(campaign, not_before(campaign, t.due)),
            "in_seconds": not_before(campaign, t.due) - campaign.game_time,
            # Its second is the clock's, not a wait: "at the clock's next advance" (a Dark Future stun).
            "at_next_advance": bool(t.data.get(AT_NEXT_ADVANCE)),
        }
        for t in timers
    ]


# --- members and invitations (docs/members.md) ------------------------------------------------------------------


def invitation_json(invitation: Invitation, waiting: list[str]) -> dict[str, Any]:
    """An invitation as its invitee and the campaign's GMs see it: the campaign's name (the invitee is no member
    yet, this is all they learn of it), the role offered, who asked, and the characters that wait for the answer
    (`waiting`: `selectors.campaigns.waiting_characters`)."""
    campaign = invitation.campaign
    return {
        "id": invitation.pk,
        "campaign": {"id": campaign.pk, "name": campaign.name, "ruleset": campaign.rules.title},
        "username": invitation.user.get_username(),
        "role": invitation.role,
        "status": invitation.status,
        "invited_by": invitation.invited_by.get_username() if invitation.invited_by_id else None,
        "created_at": invitation.created_at.isoformat(),
        "characters": waiting,
    }


def members_json(members: Iterable[Membership], pending: Iterable[Invitation]) -> list[dict[str, Any]]:
    """A campaign's members, then the people invited and not yet answering (`status` says which)."""
    return [
        *({"username": m.user.get_username(), "role": m.role, "status": "member"} for m in members),
        *(
            {"username": i.user.get_username(), "role": i.role, "status": "invited", "invitation": i.pk}
            for i in pending
        ),
    ]


MEMBER_SENTENCES = {
    MEMBER_INVITED: "{actor} invited {username} as {role}",
    INVITATION_ACCEPTED: "{username} accepted the invitation and joined as {role}",
    INVITATION_DECLINED: "{username} declined the invitation",
    INVITATION_CANCELLED: "{actor} withdrew the invitation of {username}",
    MEMBER_REMOVED: "{actor} removed {username} ({role}) from the campaign",
    MEMBER_LEFT: "{username} ({role}) left the campaign",
}
ROLE_WORDS = {GM: "GM", PLAYER: "player"}


def member_history(campaign: Campaign, rows: Iterable[Event]) -> list[dict[str, Any]]:
    """The campaign's history of its members as sentences, in the order of `rows`
    (`selectors.campaigns.member_events`): who invited, joined, declined, left or was removed, and which
    characters changed hands (the GM's campaign page)."""
    out = []
    for row in rows:
        data = row.data
        text = MEMBER_SENTENCES[row.type].format(
            actor=row.actor,
            username=data["username"],
            role=ROLE_WORDS.get(data.get("role"), data.get("role")),
        )
        if data.get("characters"):
            text += f"; {', '.join(data['characters'])} now played by {data['to']}"
        out.append(
            {"text": text, "recorded_at": row.recorded_at, "game_date": game_date(campaign, row.game_time)}
        )
    return out
