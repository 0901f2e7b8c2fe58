"""The game clock for the rule tests: `rules.clock.run`, a round at a time, with the checks that keep it honest."""

from __future__ import annotations

from collections.abc import Callable

from rules import clock
from rules.dice import Dice
from rules.ruleset import Ruleset, State


def step_clock(ruleset: Ruleset, state: State, to: int, dice: Callable[[], Dice], limit: int) -> clock.Run:
    """Fire every timer due by game second `to`, as the service does: a combat-round check fires every round or
    turn, so the tests see each roll.

    Fails the test unless the clock settles within `limit` firings, every firing appends events at its own second,
    and the clock never goes back in time: no firing leaves its own timer due at or before its second (the service
    would fire it again at the next advance) or makes a later firing happen at an earlier second.
    """
    ran = clock.run(ruleset, state, 0, to, dice, limit=limit)
    assert ran.reached == to, "the clock did not settle"
    for firing in ran.fired:
        assert firing.events, f"{firing.timer} fired nothing: the clock would wait for the next advance"
        assert all(event.game_time == firing.at for event in firing.events)
        again = [t for t in ruleset.timers(firing.state) if t.key == firing.timer.key and t.due <= firing.at]
        assert again == [], f"{firing.timer} is due again at or before {firing.at} after firing"
    seconds = [firing.at for firing in ran.fired]
    assert seconds == sorted(seconds), "a timer went back in time"
    return ran
