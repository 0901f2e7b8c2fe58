"""The one write path: load state -> rules decide -> append -> project, in one transaction.

Views and tasks parse input and call these functions; nothing else writes events or read models. One module per
area over a shared core (docs/architecture.md):

- `core`: the refusals (`ServiceError`, `Conflict`, `Unavailable`), names and idempotency keys, the busy clock,
  and the record step (`_record`: a character's new events appended with their projection in one write);
- `accounts`: signing up; `campaigns`: creating and changing a campaign, the board's fight counter;
- `members`: invitations, roles, leaving and removal; `characters`: creating, changing, retiring, restoring;
- `actions`: an action on a character (`character_act`), undo and revert;
- `clock`: advances as jobs, run in batches; `table_dice`: an advance waiting for the GM's rolls;
- `rewind`: taking back the latest advance;
- `hooks`: where notifications go out of the game (docs/notifications.md), and a hook switched off for failing.

The services hand jobs to the task queue through `campaign.queue`, never importing the tasks, and roll what nobody
gave with `core.dice_for` (the one place a test gives dice: `core.DICE`). Every public name a caller uses is
re-exported here, `from campaign import services; services.character_act(...)`; a module's own names (`clock._fire`)
stay its own.
"""

from __future__ import annotations

from campaign.ledger.projections import state_at_version
from campaign.services.accounts import sign_up_problems, token_issue, user_sign_up
from campaign.services.actions import (
    COMMAND_ATTEMPTS,
    NOTHING_TO_UNDO,
    STREAM_ACTIONS,
    character_act,
    roll_asked,
)
from campaign.services.campaigns import (
    CAMPAIGN_FIELDS,
    FIGHT_IDLE_MINUTES,
    campaign_create,
    campaign_made_with,
    change_campaign,
    fight_end,
    fight_start,
    options_in_force,
    validate_campaign_options,
)
from campaign.services.characters import (
    CHARACTER_FIELDS,
    MAX_NUMBERED,
    NOT_A_MEMBER,
    NOT_A_MEMBER_OR_INVITED,
    NOT_UNDONE,
    PREFIX_LENGTH,
    RETIRED,
    change_character,
    character_create,
    character_duplicate,
    characters_create_numbered,
    restore_character,
    retire_character,
    take_back_identity,
)
from campaign.services.clock import (
    ADVANCE_FAILED,
    ADVANCE_FAILED_UNTOUCHED,
    ADVANCE_UNITS,
    MAX_ADVANCE_SECONDS,
    STATUS_WORDS,
    STOP_ON_STATUS,
    clock_advance_request,
    clock_catch_up,
    clock_fail,
    clock_run,
    clock_stop,
    clock_ticket_renew,
    parse_advance,
    status_change,
    status_of,
)
from campaign.services.core import (
    CLOCK_BUSY,
    CLOCK_WAITS,
    KEY_REUSED,
    VERSION_CONFLICT,
    ActionResult,
    ClockBusy,
    Conflict,
    ServiceError,
    Unavailable,
    clock_busy,
    idempotency_key,
    readable,
    request_digest,
)
from campaign.services.hooks import (
    HOOK_EVENT_SCHEMAS,
    HOOKS_PER_CAMPAIGN,
    NOT_DISCORD,
    hook_create,
    hook_delete,
    hook_test,
)
from campaign.services.members import (
    INVITATION_ANSWERED,
    LAST_GM,
    LAST_GM_LEAVING,
    NOT_IN_CAMPAIGN,
    ONLY_GMS_REMOVE,
    Invited,
    invitation_answer,
    member_add,
    member_invite,
    member_remove,
)
from campaign.services.rewind import ACTIONS_SINCE, NOTHING_TO_REWIND, Rewind, clock_rewind
from campaign.services.table_dice import (
    NOT_AT_A_DEATH,
    NOT_WAITING,
    RollsRefused,
    asked_words,
    clock_give_roll,
    clock_go_on,
    dice_words,
    roll_owner,
    roll_refusal,
)

__all__ = [
    "ActionResult",
    "CLOCK_BUSY",
    "CLOCK_WAITS",
    "ClockBusy",
    "Conflict",
    "KEY_REUSED",
    "ServiceError",
    "Unavailable",
    "VERSION_CONFLICT",
    "clock_busy",
    "idempotency_key",
    "readable",
    "request_digest",
    "state_at_version",
    "sign_up_problems",
    "token_issue",
    "user_sign_up",
    "CAMPAIGN_FIELDS",
    "FIGHT_IDLE_MINUTES",
    "campaign_create",
    "campaign_made_with",
    "change_campaign",
    "fight_end",
    "fight_start",
    "options_in_force",
    "validate_campaign_options",
    "INVITATION_ANSWERED",
    "Invited",
    "LAST_GM",
    "LAST_GM_LEAVING",
    "NOT_IN_CAMPAIGN",
    "ONLY_GMS_REMOVE",
    "invitation_answer",
    "member_add",
    "member_invite",
    "member_remove",
    "CHARACTER_FIELDS",
    "MAX_NUMBERED",
    "STREAM_ACTIONS",
    "NOT_A_MEMBER",
    "NOT_A_MEMBER_OR_INVITED",
    "NOT_UNDONE",
    "PREFIX_LENGTH",
    "RETIRED",
    "change_character",
    "character_create",
    "character_duplicate",
    "characters_create_numbered",
    "restore_character",
    "retire_character",
    "take_back_identity",
    "COMMAND_ATTEMPTS",
    "NOTHING_TO_UNDO",
    "character_act",
    "roll_asked",
    "ADVANCE_FAILED",
    "ADVANCE_FAILED_UNTOUCHED",
    "ADVANCE_UNITS",
    "MAX_ADVANCE_SECONDS",
    "STATUS_WORDS",
    "STOP_ON_STATUS",
    "clock_advance_request",
    "clock_catch_up",
    "clock_fail",
    "clock_stop",
    "clock_ticket_renew",
    "clock_run",
    "parse_advance",
    "status_change",
    "status_of",
    "NOT_AT_A_DEATH",
    "NOT_WAITING",
    "RollsRefused",
    "asked_words",
    "roll_owner",
    "roll_refusal",
    "dice_words",
    "clock_give_roll",
    "clock_go_on",
    "ACTIONS_SINCE",
    "NOTHING_TO_REWIND",
    "Rewind",
    "clock_rewind",
    "HOOK_EVENT_SCHEMAS",
    "HOOKS_PER_CAMPAIGN",
    "NOT_DISCORD",
    "hook_create",
    "hook_delete",
    "hook_test",
]
