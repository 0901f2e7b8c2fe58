"""Shared test helpers: characters, strict dice (a roll a test forgot to enter fails the test) and a clock."""

from __future__ import annotations

from typing import Any

from rules.cyberpunk2020 import RULESET, engine
from rules.dice import Dice
from rules.ruleset import Event
from tests.rules.clock_steps import step_clock


class NoRandomRolls:
    """An rng that refuses: every roll a test depends on must be entered."""

    def randint(self, low: int, high: int) -> int:
        raise AssertionError("a roll the test did not enter was needed")


def strict_dice(rolls: dict[str, Any] | None = None) -> Dice:
    return Dice(rolls or {}, rng=NoRandomRolls())


def character(
    body: int = 6, luck: int = 0, armor: dict | None = None, btm: int | None = None, **options: Any
):
    attributes: dict[str, Any] = {"body": body, "luck": luck, "armor": armor or {}}
    if btm is not None:
        attributes["btm"] = btm
    return engine.initial_state(engine.validate_attributes(attributes), engine.validate_options(options))


def apply_all(state: dict, events: list[Event]) -> dict:
    for event in events:
        state = engine.evolve(state, event)
    return state


def act(state: dict, action: dict, rolls: dict | None = None, now: int = 0) -> tuple[dict, list[Event]]:
    events = RULESET.decide(state, action, strict_dice(rolls), now)
    return apply_all(state, events), events


def types(events: list[Event]) -> list[str]:
    return [event.type for event in events]


def advance(state: dict, until: int, rolls: list[dict] | None = None, limit: int = 5000):
    """The service's clock (`rules.clock.run`, a round at a time) until nothing is due by `until`.

    Each firing that rolls takes the next entry of `rolls`. Returns the state and every event fired.
    """
    queue = list(rolls or [])
    last: list[Dice] = []

    def dice() -> Dice:
        if last and last.pop().used:
            queue.pop(0)
        last.append(strict_dice(queue[0] if queue else {}))
        return last[0]

    ran = step_clock(RULESET, state, until, dice, limit)
    return ran.state, [event for firing in ran.fired for event in firing.events]
