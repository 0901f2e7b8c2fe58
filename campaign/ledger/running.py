"""A clock that runs on its own (campaign option `time_scale`, game seconds per real second).

Its game time is read, never ticked: `anchor game + scale x (now - anchor real)`, where the anchor is set when the GM
starts, stops or changes the clock (a `CampaignChanged`, as before), when an advance takes it back (`ClockRewound`)
and when a GM's advance takes it past that line. Between them nothing is written while nothing fires: the campaign row
keeps `clock_due_at`, the real time of its next due firing (the earliest timer converted through the scale), beside
the timers the projections write, and Celery beat advances only the campaigns whose `clock_due_at` has come
(`campaign.tasks.tick_running_clocks`).

Two bounds keep the reading honest. It never passes the next due firing: until beat has fired it (within one beat
period, or when the GM gives the roll it waits for) the clock reads that firing's second, so that nothing is shown or
decided after a firing that has not happened. And it is never behind the log's clock (`Campaign.game_time`, the
latest game time of any event).

A command that writes at the campaign's time (an action, a new character, a changed option) writes at the reading
(`settle`); the append that dates an event there moves the stored clock with it (`clock_moved`), so the log's clock
is always the latest game time in the log (`projections._fold_campaign`).
"""

from __future__ import annotations

import math
import time
from typing import Any

from campaign.models import Campaign, Timer
from rules.game_dates import MAX_GAME_SECONDS


def real_now() -> float:
    """The real time, Unix seconds: the one clock the running clocks read (tests replace it)."""
    return time.time()


def scale(campaign: Campaign) -> float:
    """Game seconds per real second; 0 for a clock only the GM advances."""
    return float(campaign.options.get("time_scale") or 0)


def runs(campaign: Campaign) -> bool:
    return scale(campaign) > 0 and campaign.clock_anchor_real is not None


def line(campaign: Campaign, now: float) -> int:
    """Where the running clock's line stands at real time `now`: anchor game + scale x (now - anchor real), whole
    game seconds, within the calendar."""
    seconds = campaign.clock_anchor_game + math.floor(scale(campaign) * (now - campaign.clock_anchor_real))
    return min(seconds, MAX_GAME_SECONDS)


def next_due(campaign: Campaign) -> int | None:
    """The game second of the running clock's next due firing, from `clock_due_at` (which the projections keep);
    None when nothing is due. Rounded: the real time holds the game second to well under a second."""
    if campaign.clock_due_at is None or not runs(campaign):
        return None
    return campaign.clock_anchor_game + round(
        scale(campaign) * (campaign.clock_due_at - campaign.clock_anchor_real)
    )


def reading(campaign: Campaign, now: float | None = None) -> int:
    """The campaign's game time now: the stored clock for a clock the GM advances; for a running one its line, not
    past its next due firing and not behind the stored clock."""
    if not runs(campaign):
        return campaign.game_time
    value = line(campaign, real_now() if now is None else now)
    due = next_due(campaign)
    if due is not None:
        value = min(value, due)
    return max(campaign.game_time, value)


def settle(campaign: Campaign, now: float | None = None) -> Campaign:
    """Set `campaign.game_time` to the reading, for a command that writes or shows the campaign's time now. The
    stored clock is kept aside (`stored`): an append dated past it moves it (`clock_moved`); a command that writes
    nothing leaves it."""
    if runs(campaign):
        stored = stored_time(campaign)
        campaign.game_time = reading(campaign, now)
        campaign.stored_game_time = stored
    return campaign


def stored_time(campaign: Campaign) -> int:
    """The clock as the campaign row holds it (before `settle` read a running clock into `game_time`)."""
    return getattr(campaign, "stored_game_time", campaign.game_time)


def clock_moved(campaign: Campaign, latest: int) -> tuple[str, list[Any]] | None:
    """The UPDATE that moves the stored clock to `latest`, the game time of the events being appended, when a
    settled running clock dates them past it; None otherwise: for a clock the GM advances, and for a command that
    did not read the clock's time (an advance's firings and its ClockAdvanced, which set the clock themselves)."""
    stored = getattr(campaign, "stored_game_time", None)
    if stored is None or latest <= stored:
        return None
    campaign.stored_game_time = latest
    return f'UPDATE {Campaign._meta.db_table} SET "game_time" = %s WHERE "id" = %s', [latest, campaign.pk]


def anchor(campaign: Campaign, game_time: int, now: float | None = None) -> dict[str, Any]:
    """Set the running clock's anchor on `campaign` (the GM started, changed or took back the clock, or an advance
    took it past its line): it reads `game_time` at real time `now`. Null for a stopped clock. Returns the fields,
    for the caller's UPDATE."""
    if scale(campaign) > 0:
        campaign.clock_anchor_game = game_time
        campaign.clock_anchor_real = real_now() if now is None else now
    else:
        campaign.clock_anchor_game = campaign.clock_anchor_real = campaign.clock_due_at = None
    return {
        "clock_anchor_game": campaign.clock_anchor_game,
        "clock_anchor_real": campaign.clock_anchor_real,
        "clock_due_at": campaign.clock_due_at,
    }


def due_write(campaign: Campaign) -> tuple[str, list[Any]]:
    """The UPDATE that keeps `clock_due_at` with the timers: the earliest due timer of the campaign (one due before
    the clock's time is due at the clock's time, as the clock fires it) converted through the scale, found by the
    campaign's `timer_next` index; null when no timer is left. One statement, run beside the timer rows a command
    writes, so that the two commit together. For a running clock only."""
    # CASE, not GREATEST: PostgreSQL's GREATEST skips a NULL, which would make "nothing due" due now.
    earliest = (
        'SELECT CASE WHEN MIN("due") < %s THEN %s ELSE MIN("due") END '
        f'FROM {Timer._meta.db_table} WHERE "campaign_id" = %s'
    )
    sql = (
        f'UPDATE {Campaign._meta.db_table} SET "clock_due_at" = %s + (({earliest}) - %s) / %s WHERE "id" = %s'
    )
    now = campaign.game_time
    return sql, [
        campaign.clock_anchor_real,
        now,
        now,
        campaign.pk,
        campaign.clock_anchor_game,
        scale(campaign),
        campaign.pk,
    ]
