"""The HTTP API of docs/api.md. Views parse input, check who may do what, call a service and render the answer.

One module per area: `accounts`, `campaigns` (and the rulesets), `members`, `characters` (and their actions and
forecasts), `history`, `clock` (and its jobs), `hooks` (notifications), `transfer`; `common` holds what they share.
`campaign/api/urls.py` names each view as `views.<name>`, re-exported here.
"""

from __future__ import annotations

from campaign.api.views.accounts import token, users
from campaign.api.views.campaigns import campaign_detail, campaigns, rulesets
from campaign.api.views.characters import (
    actions,
    character_detail,
    character_duplicate,
    character_forecast,
    character_restore,
    characters,
    characters_numbered,
)
from campaign.api.views.clock import clock, clock_rewind, job_detail, job_go_on, job_rolls, job_stop
from campaign.api.views.common import CHARACTER_CACHE, FEED_PAGE
from campaign.api.views.history import BAD_CURSOR, campaign_events, character_events
from campaign.api.views.hooks import hook_detail, hook_test, hooks
from campaign.api.views.members import (
    invitation_accept,
    invitation_decline,
    invitations,
    member_detail,
    members,
)
from campaign.api.views.push import push_key, push_subscription_detail, push_subscriptions
from campaign.api.views.transfer import export, import_campaign

__all__ = [
    "CHARACTER_CACHE",
    "FEED_PAGE",
    "token",
    "users",
    "campaign_detail",
    "campaigns",
    "rulesets",
    "invitation_accept",
    "invitation_decline",
    "invitations",
    "member_detail",
    "members",
    "actions",
    "character_detail",
    "character_duplicate",
    "character_forecast",
    "character_restore",
    "characters",
    "characters_numbered",
    "BAD_CURSOR",
    "campaign_events",
    "character_events",
    "clock",
    "clock_rewind",
    "job_detail",
    "job_rolls",
    "job_stop",
    "job_go_on",
    "hooks",
    "hook_detail",
    "hook_test",
    "export",
    "import_campaign",
    "push_key",
    "push_subscription_detail",
    "push_subscriptions",
]
