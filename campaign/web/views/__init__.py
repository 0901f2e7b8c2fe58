"""The web app: server-rendered pages with htmx. Views parse forms, check who may do what, call a service or a
selector, render.

One view serves the full page and its fragments (as django-htmx's examples do): `request.htmx.target == "live"` asks for the part
of the page that refreshes itself, answered with 304 when its ETag has not changed.

One module per page or area, over `cache` (the live region's cache and the ETags):

- `app`: the web manifest and the service worker; `auth`: logging in and out, signing up; `home`: the user's
  campaigns; `imports`: a campaign from a file;
- `board`: the campaign's board and the answer to a form posted on it; `clock`: the game clock from the board;
- `members`: members and invitations; `hooks`: where the campaign's notifications go (its GMs' page); `cards`: the
  board's characters and cards;
- `character`: the character page; `actions`: an action posted on it; `changes`: edits, NPCs, fights, options;
- `forecast`: the recovery forecast.

The views `campaign/web/urls.py` names are re-exported here: `from campaign.web import views; views.character_page`.
"""

from __future__ import annotations

from campaign.web.views.actions import character_act
from campaign.web.views.app import manifest, service_worker
from campaign.web.views.auth import LoginView, LogoutView, favicon, signup
from campaign.web.views.board import campaign_board
from campaign.web.views.cache import LIVE_CACHE
from campaign.web.views.cards import campaign_characters, card_act, character_duplicate
from campaign.web.views.changes import (
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
    _live_cache_key,
    character_form,
    character_history,
    character_page,
)
from campaign.web.views.clock import (
    campaign_clock,
    campaign_clock_go_on,
    campaign_clock_rewind,
    campaign_clock_roll,
    campaign_clock_stop,
)
from campaign.web.views.forecast import character_forecast
from campaign.web.views.home import home, new_campaign_options
from campaign.web.views.hooks import campaign_hooks, hook_remove, hook_test
from campaign.web.views.imports import campaign_import, import_progress
from campaign.web.views.members import campaign_members, invitation_answer, member_remove

__all__ = [
    "_live_cache_key",
    "campaign_board",
    "campaign_characters",
    "campaign_clock",
    "campaign_clock_rewind",
    "campaign_clock_roll",
    "campaign_clock_stop",
    "campaign_clock_go_on",
    "campaign_fight",
    "campaign_hooks",
    "campaign_import",
    "campaign_members",
    "campaign_npcs",
    "campaign_options",
    "card_act",
    "card_form",
    "character_act",
    "character_duplicate",
    "character_edit",
    "character_forecast",
    "character_form",
    "character_history",
    "character_page",
    "character_restore",
    "character_retire",
    "favicon",
    "HISTORY_LIMIT",
    "home",
    "hook_remove",
    "hook_test",
    "import_progress",
    "invitation_answer",
    "LIVE_CACHE",
    "LoginView",
    "LogoutView",
    "manifest",
    "member_remove",
    "new_campaign_options",
    "service_worker",
    "signup",
]
