"""The names of the campaign stream's own events (`campaign:<id>`), read by the services that append them, the
projections and the secrecy rule that fold them, the presenters that word them and the import that checks them.

A character's events are the rulesets' (`rules.ruleset`, `rules/<slug>/events.py`); these are the app's.
"""

from __future__ import annotations

CAMPAIGN_CREATED = "CampaignCreated"
CAMPAIGN_CHANGED = "CampaignChanged"
CHARACTER_CREATED = "CharacterCreated"
CLOCK_ADVANCED = "ClockAdvanced"
# Who joined and left: the campaign's history of its members (docs/members.md). They change no read model.
MEMBER_INVITED = "MemberInvited"
INVITATION_ACCEPTED = "InvitationAccepted"
INVITATION_DECLINED = "InvitationDeclined"
INVITATION_CANCELLED = "InvitationCancelled"
MEMBER_REMOVED = "MemberRemoved"
MEMBER_LEFT = "MemberLeft"
MEMBERSHIP_EVENTS = (
    MEMBER_INVITED,
    INVITATION_ACCEPTED,
    INVITATION_DECLINED,
    INVITATION_CANCELLED,
    MEMBER_REMOVED,
    MEMBER_LEFT,
)
CLOCK_REWOUND = "ClockRewound"  # an advance taken back: the clock returns to `to`, where the advance began
# A campaign's hooks, where its notifications go out of the game (docs/notifications.md): added and removed by a GM,
# switched off when the receiver keeps refusing. They change no read model; the URL is never in them.
HOOK_ADDED = "HookAdded"
HOOK_REMOVED = "HookRemoved"
HOOK_SWITCHED_OFF = "HookSwitchedOff"
HOOKS_CAUSE = (
    "hooks:"  # the causes of the hooks' events begin so: they are no action the clock's rewind waits on
)
