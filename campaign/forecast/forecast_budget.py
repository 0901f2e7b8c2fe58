"""The forecast's budget (docs/forecast.md, "Budget"): what one user's forecasts may cost the server.

A forecast is the dearest read there is (5,000 futures with every what-if: seconds of CPU), and it holds a server
worker while it runs. So every forecast that is computed (a cached answer costs nothing and takes none of this)
runs inside `budget(user_id)`:

- **One at a time per user.** The user's lease is a key of the shared cache (`CACHE_URL`: Redis in production, so
  it holds across processes and servers; each process's memory otherwise), taken with `cache.add` (one wins). It
  expires after `FORECAST_LEASE_SECONDS`, so a worker that dies mid-forecast locks its user out that long at most.
- **At most `FORECAST_AT_ONCE` forecasts at once on the whole server**, as many leases (slots) of the cache, so
  the other workers stay free for everyone's pages however many users ask.
- **A budget of work per user and minute** (`FORECAST_BUDGET` seconds of CPU, counted per minute of the clock):
  the work is CPU time, not futures, because a future's cost differs a thousandfold between states (1,000
  Cyberpunk futures that roll nothing cost a millisecond; 5,000 of a bleeding limb, seconds), and CPU time is what
  the other users wait for. A forecast may start while the minute's budget is not spent.
- **A time box** (`Box`): at most `FORECAST_TIME_BOX` seconds of wall time (less when less of the budget is left),
  given to `rules.forecast.forecast` as its `allow`. The forecast then answers with the futures it had time for.

A refusal is `Refused`: its message says in words when to try again, `retry_after` in whole seconds (the API's and
the page's `Retry-After`). Use it for any view that computes forecasts, one `with` around all of them:

    with forecast_budget.budget(request.user.pk) as box:
        result = forecasts.forecast_of(character, role, asked, allow=box.allow)
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache

WINDOW = 60  # the budget's window: a minute of the clock
BUSY_YOURS = "another forecast of yours is still running; try again in {wait}"
BUSY_SERVER = "the server is running as many forecasts as it may at once; try again in {wait}"
SPENT = "your forecasts have used this minute's budget of {budget} of computing; try again in {wait}"

# The clocks, here so that a test can set them: leases and windows (the shared cache's), the time box (wall time
# of this process), the work (CPU time of this thread: a gunicorn worker's thread runs one request at a time).
now = time.time
wall = time.monotonic
cpu = time.thread_time


def seconds_text(seconds: float) -> str:
    whole = math.ceil(seconds)
    return "1 second" if whole == 1 else f"{whole:,} seconds"


class Refused(Exception):
    """A forecast refused for now: `message` in words, `retry_after` whole seconds from now."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message, self.retry_after = message, retry_after


def _refused(template: str, wait: float, **words: str) -> Refused:
    wait = max(1, math.ceil(wait))
    return Refused(template.format(wait=seconds_text(wait), **words), wait)


class Box:
    """The time box of one forecast, as `rules.forecast`'s `allow(done, left)`: the futures that fit in what is left
    of `seconds` of wall time, at the pace of the round just run (its time over its futures, measured from the
    previous call: the engine calls with `done == 0` before each scenario's first round)."""

    def __init__(self, seconds: float) -> None:
        self.deadline = wall() + seconds
        self.mark = wall()

    def over(self) -> bool:
        """The box's time is up (a party's recovery asks this before each character's futures)."""
        return wall() >= self.deadline

    def allow(self, done: int, left: int) -> int:
        moment = wall()
        pace = (moment - self.mark) / done if done else 0.0
        self.mark = moment
        room = self.deadline - moment
        if room <= 0:
            return 0
        return left if pace * left <= room else int(room / pace)


def _take(key: str, value: tuple[str, float]) -> bool:
    return bool(cache.add(key, value, settings.FORECAST_LEASE_SECONDS))


def _give_back(key: str, value: tuple[str, float]) -> None:
    # Only our own lease: once it expired (its holder outlived FORECAST_LEASE_SECONDS), another may hold the key.
    if cache.get(key) == value:
        cache.delete(key)


def _wait_for(key: str, moment: float) -> float:
    """Until the forecast holding `key` should be done (its time box), or else until its lease expires."""
    held = cache.get(key)
    started = held[1] if isinstance(held, tuple) else moment
    done_by = started + settings.FORECAST_TIME_BOX
    return done_by - moment if done_by > moment else started + settings.FORECAST_LEASE_SECONDS - moment


def spent(user_id: int) -> float:
    """The CPU seconds the user's forecasts have used in this minute of the clock."""
    return (cache.get(_spent_key(user_id, now())) or 0) / 1000


def _spent_key(user_id: int, moment: float) -> str:
    return f"forecast:spent:{user_id}:{int(moment // WINDOW)}"


def _charge(user_id: int, seconds: float) -> None:
    key, milliseconds = _spent_key(user_id, now()), max(0, round(seconds * 1000))
    cache.add(key, 0, 2 * WINDOW)
    try:
        cache.incr(key, milliseconds)
    except ValueError:  # the key aged out between the two calls
        cache.add(key, milliseconds, 2 * WINDOW)


@contextmanager
def budget(user_id: int) -> Iterator[Box]:
    """One forecast (or several in a row: a party's) of `user_id` within the budget: raises `Refused` when another
    of the user's runs, when the server runs `FORECAST_AT_ONCE` already, or when the minute's budget is spent;
    else yields the time box and, on the way out, charges the CPU time spent in the block and gives the leases
    back."""
    moment = now()
    value = (uuid.uuid4().hex, moment)
    lease = f"forecast:lease:{user_id}"
    if not _take(lease, value):
        raise _refused(BUSY_YOURS, _wait_for(lease, moment))
    try:
        left = settings.FORECAST_BUDGET - spent(user_id)
        if left <= 0:
            raise _refused(SPENT, WINDOW - moment % WINDOW, budget=seconds_text(settings.FORECAST_BUDGET))
        with _slot(value, moment):
            started = cpu()
            try:
                yield Box(min(settings.FORECAST_TIME_BOX, left))
            finally:
                _charge(user_id, cpu() - started)
    finally:
        _give_back(lease, value)


@contextmanager
def _slot(value: tuple[str, float], moment: float) -> Iterator[None]:
    """One of the server's `FORECAST_AT_ONCE` slots (0: no such limit)."""
    slots = [f"forecast:slot:{n}" for n in range(settings.FORECAST_AT_ONCE)]
    taken = next((key for key in slots if _take(key, value)), None)
    if slots and taken is None:
        raise _refused(BUSY_SERVER, min(_wait_for(key, moment) for key in slots))
    try:
        yield
    finally:
        if taken is not None:
            _give_back(taken, value)
