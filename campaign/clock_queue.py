"""The order in which one clock advance fires a campaign's timers, kept in memory for a batch of firings.

A firing changes only its own character's timers, and the ruleset says what they are (`timers(state)`), so the
queue is read from the Timer index once per batch and then kept up to date from the fired character's new state,
instead of asking the database for the next timer after every firing. The order is the documented one
(docs/clock.md): earliest `due` first; ties by character id, then priority, then key. When the clock jumps (an
advance longer than a turn) combat-round checks (`per_round`) come after everything else and fire at the end of the
jump, in (character, priority, key) order.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass

from rules.ruleset import Timer


@dataclass(frozen=True)
class Due:
    """A timer to fire now, and the game second it fires at."""

    character_id: int
    timer: Timer
    fire_at: int


class DueTimers:
    """The due timers of one advance (`from_time` to `to_time`) in firing order.

    `skip` holds (character id, key) pairs that wait for the next advance: a timer that changed nothing, and in a
    jump, a combat-round check that has had its one roll.
    """

    def __init__(self, from_time: int, to_time: int, jump: bool, skip: set[tuple[int, str]]) -> None:
        self.from_time, self.to_time, self.jump, self.skip = from_time, to_time, jump, skip
        self._heap: list[tuple[tuple, int, int, str, Timer]] = []
        self._current: dict[int, dict[str, Timer]] = {}
        self._pushed = 0  # breaks ties between two entries of one key (only the current one fires)

    def set_timers(self, character_id: int, timers: Iterable[Timer]) -> None:
        """What the character's state asks for now (all of it, due or not): entries that changed are queued."""
        before = self._current.get(character_id, {})
        now = {timer.key: timer for timer in timers}
        self._current[character_id] = now
        for key, timer in now.items():
            if before.get(key) != timer and timer.due <= self.to_time:
                self._pushed += 1
                entry = (self._order(character_id, timer), self._pushed, character_id, key, timer)
                heapq.heappush(self._heap, entry)

    def _order(self, character_id: int, timer: Timer) -> tuple:
        if self.jump and timer.per_round:
            return (1, 0, character_id, timer.priority, timer.key)
        return (0, timer.due, character_id, timer.priority, timer.key)

    def peek(self) -> Due | None:
        """The next timer to fire, left in the queue; None when nothing more is due up to `to_time`."""
        while self._heap:
            _, _, character_id, key, timer = self._heap[0]
            if self._current.get(character_id, {}).get(key) != timer or (character_id, key) in self.skip:
                # Replaced or cancelled by a firing since it was queued, or waiting for the next advance.
                heapq.heappop(self._heap)
                continue
            if self.jump and timer.per_round:
                return Due(character_id, timer, self.to_time)
            return Due(character_id, timer, max(timer.due, self.from_time) if timer.per_round else timer.due)
        return None

    def pop(self) -> Due | None:
        """The next timer to fire, or None when nothing more is due up to `to_time`."""
        due = self.peek()
        if due is not None:
            heapq.heappop(self._heap)
        return due
