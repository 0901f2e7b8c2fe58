"""What the API and the pages show of campaigns, characters, the log and the jobs, for a GM or a player: words and
JSON only. A presenter reads nothing (the rows come from `campaign.selectors`) and imports no model.

Everything a player receives passes through here with `audience=PLAYER`: the ruleset's `view` and `public_event`
remove what docs/rules/ keeps for the GM, and `characters` drops GM notes, timers and `death_at` on top. No number a
player receives counts what the player may not see (`campaign.ledger.secrecy`).

- `campaigns`: a campaign's JSON and dates, what the clock will do next, members, invitations, who came and went;
- `characters`: a character's JSON for its audience, what undo would take back;
- `history`: history and feed entries, an event and an action in the game's words;
- `jobs`: a clock advance and an import as their readers see them.

Every name a caller uses is re-exported here: `from campaign import presenters; presenters.character_json(...)`.
"""

from __future__ import annotations

from campaign.presenters.campaigns import (
    campaign_json,
    clock_words,
    game_date,
    invitation_json,
    member_history,
    members_json,
    not_before,
    upcoming,
)
from campaign.presenters.characters import LOOK_UP, character_json, player_name, undo_json
from campaign.presenters.history import (
    action_said,
    advance_summary,
    death_moment,
    death_said,
    entries,
    event_words,
    events_json,
    player_feed_json,
    revert_said,
)
from campaign.presenters.jobs import import_job_json, job_json

__all__ = [
    "LOOK_UP",
    "clock_words",
    "action_said",
    "revert_said",
    "advance_summary",
    "death_moment",
    "death_said",
    "campaign_json",
    "character_json",
    "entries",
    "event_words",
    "events_json",
    "game_date",
    "import_job_json",
    "invitation_json",
    "job_json",
    "member_history",
    "members_json",
    "not_before",
    "player_feed_json",
    "player_name",
    "undo_json",
    "upcoming",
]
