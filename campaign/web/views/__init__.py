"""The web app: server-rendered pages with htmx. Views parse forms, check who may do what, call a service, render.

One view serves the full page and its fragments (as django-htmx's examples do): `request.htmx.target == "live"` asks for the part
of the page that refreshes itself, answered with 304 when its ETag has not changed.

One module per page or area, over `cache` (the live region's cache and the ETags):

- `auth`: logging in and out, signing up; `home`: the user's campaigns; `imports`: a campaign from a file;
- `board`: the campaign's board and the answer to a form posted on it; `clock`: the game clock from the board;
- `members`: members and invitations; `cards`: the board's characters and cards;
- `character`: the character page; `actions`: an action posted on it; `changes`: edits, NPCs, fights, options;
- `forecast`: the recovery forecast.

Every name a caller uses is re-exported here, `from campaign.web import views; views.character_page`, and patching
one here reaches the modules that use it (`campaign.facade`).
"""

from __future__ import annotations

from campaign.facade import facade
from campaign.web.views.actions import Posted, _posted_action, _unused_text, character_act
from campaign.web.views.auth import LoginView, LogoutView, _sign_up_errors, favicon, signup
from campaign.web.views.board import (
    _BOARD_PAGE_SQL,
    _CARD_KEY_FIELDS,
    _NOT_READ,
    _board_cards,
    _board_characters,
    _board_context,
    _board_etag,
    _board_form_response,
    _board_page_sql,
    _card_cache_key,
    _gm_board_page,
    _members_context,
    _open_card_form,
    _player_board_live,
    campaign_board,
)
from campaign.web.views.cache import (
    ETAG_PENDING,
    LIVE_CACHE,
    LIVE_CACHE_FORMAT,
    LIVE_CACHE_SECONDS,
    SIGN_UPS_THROTTLED,
    _etag_response,
    _limited,
    _live,
    _with_etag,
    _with_keyed_forms,
)
from campaign.web.views.cards import _card_for, campaign_characters, card_act, character_duplicate
from campaign.web.views.changes import (
    _changed_text,
    _edit_context,
    _npcs_response,
    campaign_fight,
    campaign_npcs,
    campaign_options,
    card_form,
    character_edit,
    character_restore,
    character_retire,
)
from campaign.web.views.character import (
    HISTORY_LIMIT,
    _action_list,
    _action_param,
    _advance_of,
    _attach_entry_html,
    _cached_html,
    _character_etag,
    _decorate_entry,
    _form_of,
    _gm_acting_on,
    _group_entries,
    _history,
    _live_cache_key,
    _live_context,
    _live_html,
    _named_undo,
    _page_context,
    _require_action,
    _timers_shown,
    _version_param,
    character_form,
    character_history,
    character_page,
)
from campaign.web.views.clock import (
    campaign_clock,
    campaign_clock_rewind,
    campaign_clock_roll,
    campaign_clock_stop,
)
from campaign.web.views.forecast import character_forecast
from campaign.web.views.home import (
    _chosen_ruleset,
    _home_page,
    _invitations_of,
    _new_campaign,
    _new_campaign_options,
    home,
    new_campaign_options,
)
from campaign.web.views.imports import campaign_import, import_progress
from campaign.web.views.members import _invited_text, campaign_members, invitation_answer, member_remove

__all__ = [
    "LIVE_CACHE",
    "LIVE_CACHE_SECONDS",
    "LIVE_CACHE_FORMAT",
    "ETAG_PENDING",
    "SIGN_UPS_THROTTLED",
    "_live",
    "_etag_response",
    "_with_etag",
    "_with_keyed_forms",
    "_limited",
    "LoginView",
    "LogoutView",
    "favicon",
    "signup",
    "_sign_up_errors",
    "home",
    "_chosen_ruleset",
    "_new_campaign_options",
    "new_campaign_options",
    "_home_page",
    "_new_campaign",
    "_invitations_of",
    "campaign_import",
    "import_progress",
    "_NOT_READ",
    "_board_etag",
    "_board_characters",
    "_CARD_KEY_FIELDS",
    "_board_cards",
    "_card_cache_key",
    "_board_context",
    "campaign_board",
    "_board_page_sql",
    "_BOARD_PAGE_SQL",
    "_gm_board_page",
    "_player_board_live",
    "_board_form_response",
    "_open_card_form",
    "_members_context",
    "campaign_clock",
    "campaign_clock_rewind",
    "campaign_clock_roll",
    "campaign_clock_stop",
    "campaign_members",
    "_invited_text",
    "member_remove",
    "invitation_answer",
    "campaign_characters",
    "_card_for",
    "card_act",
    "character_duplicate",
    "HISTORY_LIMIT",
    "_version_param",
    "_character_etag",
    "_live_cache_key",
    "_history",
    "_advance_of",
    "_group_entries",
    "_decorate_entry",
    "_live_context",
    "_timers_shown",
    "_live_html",
    "_cached_html",
    "_attach_entry_html",
    "_form_of",
    "_action_list",
    "_page_context",
    "_require_action",
    "_action_param",
    "character_page",
    "_named_undo",
    "_gm_acting_on",
    "character_form",
    "character_history",
    "Posted",
    "_posted_action",
    "_unused_text",
    "character_act",
    "_changed_text",
    "_edit_context",
    "character_edit",
    "campaign_npcs",
    "_npcs_response",
    "character_retire",
    "campaign_fight",
    "card_form",
    "character_restore",
    "campaign_options",
    "character_forecast",
]

facade(__name__)
