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


def created(attributes: dict[str, Any], **options: Any) -> dict:
    """A character from the attributes as the API would take them (the defaults the engine fills in)."""
    return engine.initial_state(engine.validate_attributes(attributes), engine.validate_options(options))


def rache() -> dict:
    """The character of the API tests: body 6 (BTM -2), luck 2, no armor."""
    return created({"body": 6, "luck": 2})


def data_of(events: list[Event], event_type: str) -> dict:
    (data,) = [event.data for event in events if event.type == event_type]
    return data


def rolled(state: dict, body: dict, now: int = 0) -> tuple[dict, list[Event]]:
    """An action written as an API body: the dice under `rolls`."""
    action = {key: value for key, value in body.items() if key != "rolls"}
    return act(state, action, body.get("rolls"), now)


# Bodies of actions, as the API takes them, that bring Rache (`rache()`) into a state.
CRIPPLE_LEFT_LEG = {
    "type": "damage",
    "damage": 20,
    "location": "left_leg",
    "rolls": {"sever": [1], "stun_save": [1], "death_save": [1]},
}
SEVER_RIGHT_ARM = {
    "type": "damage",
    "damage": 26,
    "location": "right_arm",
    "rolls": {"sever": [2], "stun_save": [1], "death_save": [6]},
}
DESTROY_HEAD = {"type": "damage", "damage": 14, "location": "head", "rolls": {"sever": [3]}}
MAKE_DYING = {
    "type": "damage",
    "damage": 16,
    "location": "torso",
    "rolls": {"stun_save": [1], "death_save": [7]},
}
WOUND_TORSO_7 = {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [1]}}

# The standard hit location table of the seed, by d10 face.
STANDARD = {
    1: "head",
    2: "torso",
    3: "torso",
    4: "torso",
    5: "left_arm",
    6: "right_arm",
    7: "left_leg",
    8: "left_leg",
    9: "right_leg",
    10: "right_leg",
}


def expected_level(points: int) -> str:
    """docs/rules/cyberpunk2020.md: Light 1-4, Serious 5-8, Critical 9-12, Mortal 0 13-16 ... Mortal 6 37-40, over 40
    dead."""
    if points <= 0:
        return "none"
    if points > 40:
        return "dead"
    return ["light", "serious", "critical", *(f"mortal_{n}" for n in range(7))][(points - 1) // 4]
