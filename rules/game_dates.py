"""The campaign's calendar: where its clock may start, how far it may run, and game seconds as in-world dates in
the words people read (what the services say and what the presenters show alike).

Python's dates end at 9999-12-31. A campaign that started in 9999 and ran one second had no date any more, and
every page or list that showed it failed for good, its players' included. So the clock is bounded: a campaign
starts between the years 1 and 7999 (its `start` option, declared in `rules.options.SHARED`) and runs at most a thousand years, and whatever the rules schedule beyond that
(a hit that heals in eight weeks, a bone that mends in six) still has a date, with a thousand years to spare.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from rules.ruleset import GAME_TIME_MARK

YEAR = 365 * 86_400 + 86_400 // 4
MAX_GAME_SECONDS = 1000 * YEAR
"""The latest game time a campaign's clock may reach, in game seconds since its start (a thousand years)."""


class CalendarError(ValueError):
    """A start or game time outside the calendar; `message` says what was expected."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def check_game_time(value: Any) -> int:
    """A game time (whole game seconds since the start) that the calendar has: 0 to a thousand years."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise CalendarError(f"expected a whole number of game seconds, got {type(value).__name__}")
    if not 0 <= value <= MAX_GAME_SECONDS:
        raise CalendarError(
            f"expected game seconds from 0 to {MAX_GAME_SECONDS} (a thousand years after the start), got {value}"
        )
    return value


def game_datetime(start: str, seconds: int) -> datetime | None:
    """The in-world date and time `seconds` after `start`, or None where the calendar has none. Bounded clocks
    never get there; a database written before the bounds may hold such a time, and its pages must still work."""
    try:
        return datetime.fromisoformat(start) + timedelta(seconds=int(seconds))
    except (OverflowError, ValueError):
        return None


BEYOND_THE_CALENDAR = "after 9999-12-31"


def game_date(start: str, seconds: int | None) -> str | None:
    """Game seconds as the in-world date and time (ISO 8601); None where the calendar has no date."""
    if seconds is None:
        return None
    moment = game_datetime(start, seconds)
    return None if moment is None else moment.isoformat()


def date_words(start: str, seconds: int) -> str:
    """Game seconds as people read the date: '2053-01-01 00:30:00'."""
    moment = game_datetime(start, seconds)
    return BEYOND_THE_CALENDAR if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S")


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
"""The months as the game writes a date to people ("12 March 2054"): one list for what is said and what is read,
whatever the server's locale (`strftime('%B')` follows it)."""


def day_month(moment: datetime) -> str:
    """'12 March': the day and month as people read them."""
    return f"{moment.day} {MONTHS[moment.month - 1]}"


_MONTH_WORDS = {name.lower(): n for n, name in enumerate(MONTHS, 1)} | {
    name[:3].lower(): n for n, name in enumerate(MONTHS, 1)
}
_SPOKEN_DATE = re.compile(r"(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{1,4})")


def read_date(raw: str) -> tuple[datetime, bool] | None:
    """A game date typed as the game writes it, as the moment it names and whether it is a day alone: ISO 8601
    ("2054-03-12", "2054-03-12 22:00", with a space or a T, no time zone), or the day, the month's name or its
    first three letters and the year ("12 March 2054", "12 Mar 2054", any case). None when it is neither, or no
    such day."""
    text = raw.strip()
    spoken = _SPOKEN_DATE.fullmatch(text)
    if spoken:
        month = _MONTH_WORDS.get(spoken.group(2).lower())
        if month is None:
            return None
        try:
            return datetime(int(spoken.group(3)), month, int(spoken.group(1))), True
        except ValueError:
            return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        return None
    return moment, len(text) == len("2053-03-02")


def by_the_minute(moment: datetime, now: datetime | None = None) -> tuple[datetime, str]:
    """A moment to come said to the minute: the moment to say (its date is that moment's) and its time of day,
    '14:33'. The minute is rounded up, never down, so that what is due at 00:00:39 never reads as 00:00, before the
    campaign's now of 00:00:36; within `now`'s own minute it says the seconds instead ('00:00:39'), since the next
    minute would be later than it is. The one way a time to the minute is said (the recovery's dates, its timeline)."""
    if now is not None and moment.replace(second=0, microsecond=0) == now.replace(second=0, microsecond=0):
        return moment, moment.strftime("%H:%M:%S")
    if moment.second or moment.microsecond:
        try:
            moment = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        except OverflowError:  # the calendar's very last minute: its start is as near as it gets
            moment = moment.replace(second=0, microsecond=0)
    return moment, moment.strftime("%H:%M")


def dated(start: str, text: str) -> str:
    """A ruleset's text with its marked game seconds written as in-world dates ('kills at 2053-01-01 00:30:00')."""
    return GAME_TIME_MARK.sub(lambda mark: date_words(start, int(mark.group(1))), text)
