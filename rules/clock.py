"""The game clock's loop: which due timer fires next, at which game second, and what waits for the next advance.

One advance runs from `from_time` to `to_time`. `DueTimers` holds its due timers in firing order (docs/clock.md,
"The clock loop"): earliest `due` first; ties by character id, then priority (lower first), then key. A firing
changes only its own character's state, so after each one the queue takes that character's timers again (a
treatment finishing cancels a death) and queues the entries that changed.

Combat-round checks (`Timer.per_round`: a save every round or every turn) fire at their own second like any timer, so
an advance of ten minutes rolls a crippled limb's death save for each of its twenty turns until one fails
(docs/rules/cyberpunk2020.md, "Timers": never collapsed into one roll). A timer the state has in the past (an undo or
a revert rebuilt it) is due now: it fires at the advance's start, never before it, so no event is dated before the
clock. A timer whose firing changed nothing waits for the next advance.

Two loops follow this queue: `run` below, over one character's state (the rule tests use it), and the service's
`clock_run`, which interleaves a campaign's characters and writes each firing's events in batches. Both fire with
`fire`, choose with `DueTimers.next` and follow a firing with `DueTimers.fired`, so they cannot disagree.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from rules.dice import Dice
from rules.ruleset import Event, Ruleset, State, Timer, fires_at, fold


@dataclass(frozen=True, init=False)
class Due:
    """A timer to fire now, and the game second it fires at."""

    character_id: int
    timer: Timer
    fire_at: int

    def __init__(self, character_id: int, timer: Timer, fire_at: int) -> None:
        # One per firing: the fields set at once, not through object.__setattr__ each (as `Timer`'s).
        fields = self.__dict__
        fields["character_id"], fields["timer"], fields["fire_at"] = character_id, timer, fire_at


_NO_TIMERS: dict[str, Timer] = {}  # a character the queue has no timers of yet (never changed)


class DueTimers:
    """The due timers of one advance (`from_time` to `to_time`) in firing order.

    `skip` holds (character id, key) pairs that wait for the next advance: a timer that changed nothing. `reached` is the latest game second fired at (the
    advance's start before any firing); `stopped` says that `next` ended the advance early at its firing limit.
    """

    def __init__(
        self,
        from_time: int,
        to_time: int,
        skip: set[tuple[int, str]],
        reached: int | None = None,
    ) -> None:
        self.from_time, self.to_time, self.skip = from_time, to_time, skip
        self.reached = from_time if reached is None else reached
        self.stopped = False
        self._heap: list[tuple[tuple, int, int, str, Timer]] = []
        self._current: dict[int, dict[str, Timer]] = {}
        self._pushed = 0  # breaks ties between two entries of one key (only the current one fires)

    def set_timers(self, character_id: int, timers: Iterable[Timer]) -> None:
        """What the character's state asks for now (all of it, due or not): entries that changed are queued."""
        # Every firing comes here (the service's clock and each of a forecast's futures): the order is written out
        # in the loop, (fires at, character, priority, key), where a timer fires at its own `due`, or at the
        # advance's start for one the state has in the past (undo and revert take back events, never time:
        # docs/rules/README.md).
        before = self._current.get(character_id, _NO_TIMERS)
        now = {timer.key: timer for timer in timers}
        self._current[character_id] = now
        to_time, from_time, heap = self.to_time, self.from_time, self._heap
        for key, timer in now.items():
            due = timer.due
            if due > to_time:
                continue
            # A key the queue had not (None): queued without asking `Timer.__eq__` to compare it with None.
            old = before.get(key)
            if old is None or old.due != due or old != timer:
                self._pushed += 1
                at = fires_at(due, from_time)
                entry = ((at, character_id, timer.priority, key), self._pushed, character_id, key, timer)
                heapq.heappush(heap, entry)

    def peek(self) -> Due | None:
        """The next timer to fire, left in the queue; None when nothing more is due up to `to_time`."""
        heap, current, skip = self._heap, self._current, self.skip
        while heap:
            _, _, character_id, key, timer = heap[0]
            queued = current.get(character_id, _NO_TIMERS).get(key)
            if (queued is not timer and queued != timer) or (character_id, key) in skip:
                # Replaced or cancelled by a firing since it was queued, or waiting for the next advance.
                heapq.heappop(heap)
                continue
            return Due(character_id, timer, fires_at(timer.due, self.from_time))
        return None

    def pop(self) -> Due | None:
        """The next timer to fire, or None when nothing more is due up to `to_time`."""
        # `peek`, then its entry popped: one walk of the heap instead of two, once per firing.
        heap, current, skip = self._heap, self._current, self.skip
        while heap:
            _, _, character_id, key, timer = heapq.heappop(heap)
            queued = current.get(character_id, _NO_TIMERS).get(key)
            if (queued is not timer and queued != timer) or (character_id, key) in skip:
                continue
            return Due(character_id, timer, fires_at(timer.due, self.from_time))
        return None

    def next(self, *, at_limit: bool = False) -> Due | None:
        """`pop`, but once the advance has made as many firings as it may (`at_limit`) it ends where it stands:
        the rest of the game second it has reached still fires, and a later timer sets `stopped` instead."""
        due = self.peek()
        if due is not None and at_limit and due.fire_at > self.reached:
            self.stopped = True
            return None
        return self.pop()

    def fired(self, due: Due, changed: bool, timers: Iterable[Timer]) -> None:
        """Follow a firing: the character's timers after it, and whether it appended any event."""
        self.set_timers(due.character_id, timers)
        # A timer that changed nothing would be found again at once: it waits for the next advance.
        if not changed:
            self.skip.add((due.character_id, due.timer.key))
        if due.fire_at > self.reached:
            self.reached = due.fire_at

    @property
    def end(self) -> int:
        """Where the advance stands once `next` has returned None: `to_time`, or where the limit stopped it."""
        return self.reached if self.stopped else self.to_time


def fire(ruleset: Ruleset, state: State, due: Due, dice: Dice) -> list[Event]:
    """The events of one due timer, at the second it fires at (the advance's start for one overdue)."""
    timer = due.timer if due.fire_at == due.timer.due else dataclasses.replace(due.timer, due=due.fire_at)
    return ruleset.fire(state, timer, dice)


@dataclass(frozen=True)
class Firing:
    """One timer the clock fired: the timer as it was queued, the second it fired at, its events, and the
    character's state after them."""

    timer: Timer
    at: int
    events: list[Event]
    state: State


class Run(NamedTuple):
    """What `run` did: the state at the end, the firings in order, and where the clock stands (`end`, or the
    game second the firing limit stopped it at)."""

    state: State
    fired: list[Firing]
    reached: int


CHARACTER = 0  # `run` follows one character; the queue's character id breaks no tie then


def run(
    ruleset: Ruleset,
    state: State,
    start: int,
    end: int,
    dice: Callable[[], Dice] = Dice,
    *,
    limit: int | None = None,
) -> Run:
    """Advance one character's clock from `start` to `end`, firing its due timers in the service's order. Pure.

    `dice()` gives the dice of one firing; it is called once per firing, in firing order (the default rolls them):
    a save every turn asks for its one die when its turn comes. After `limit` firings the run ends after the game second it has reached, as the service does at
    CLOCK_MAX_FIRINGS_PER_ADVANCE.
    """
    queue = DueTimers(start, end, set())
    queue.set_timers(CHARACTER, ruleset.timers(state))
    fired: list[Firing] = []
    while (due := queue.next(at_limit=limit is not None and len(fired) >= limit)) is not None:
        events = fire(ruleset, state, due, dice())
        state = fold(ruleset, state, events)
        fired.append(Firing(due.timer, due.fire_at, events, state))
        queue.fired(due, bool(events), ruleset.timers(state))
    return Run(state, fired, queue.end)
