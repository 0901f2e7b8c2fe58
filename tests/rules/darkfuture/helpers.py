"""Small helpers for the darkfuture tests: build a character, act, and run the game clock."""

from __future__ import annotations

from typing import Any

from rules.darkfuture import RULESET
from rules.dice import Dice
from rules.ruleset import Event, State
from tests.rules.clock_steps import step_clock

DAY = 86_400


class EnteredOnly:
    """A stand-in random source that fails the test when the engine needs a roll the test did not enter."""

    def randint(self, low: int, high: int) -> int:
        raise AssertionError("the engine needed a roll this test did not enter")


def entered(rolls: dict[str, Any] | None = None) -> Dice:
    return Dice(rolls or {}, rng=EnteredOnly())


def character(**attributes: Any) -> State:
    options = attributes.pop("options", None)
    attributes.setdefault("con", 8)
    return RULESET.initial_state(attributes, options)


def act(
    state: State, action: dict[str, Any], rolls: dict[str, Any] | None = None, now: int = 0
) -> tuple[State, list[Event]]:
    """decide then evolve every event, as the service does."""
    events = RULESET.decide(state, action, entered(rolls), now)
    for event in events:
        state = RULESET.evolve(state, event)
    return state, events


def hit(
    state: State, rolls: dict[str, Any], weapon_damage: int = 0, now: int = 0
) -> tuple[State, list[Event]]:
    return act(state, {"type": "damage", "weapon_damage": weapon_damage}, rolls, now)


def advance(
    state: State, to: int, dice: Dice | None = None, limit: int = 10_000
) -> tuple[State, list[Event]]:
    """The service's clock (`rules.clock.run`) until nothing is due by `to`; every firing rolls with `dice`."""
    ran = step_clock(RULESET, state, to, lambda: dice or entered(), limit)
    return ran.state, [event for firing in ran.fired for event in firing.events]


def gm_view(state: State) -> dict[str, Any]:
    """What the GM sees: the view, with the timers' kinds in the clock's order."""
    timers = sorted(RULESET.timers(state), key=lambda t: (t.due, t.priority, t.key))
    return {**RULESET.view(state, "gm"), "timers": [t.kind for t in timers]}


def wound_of(events: list[Event]) -> dict[str, Any]:
    [event] = [e for e in events if e.type == "WoundTaken"]
    return event.data


def lose(state: State, con: int, **rolls: Any) -> tuple[State, list[Event]]:
    """A hit that costs exactly `con` points (1-5) with weapon damage 0 and no armour; extra rolls as given."""
    damage = {1: 2, 2: 4, 3: 8, 4: 10, 5: 12}[con]
    weapon = max(0, damage - 6)
    return hit(state, {"damage": [damage - weapon], **rolls}, weapon)


def ash_sheet(
    current: int, band: str, driver: int, gunner: int, skill_modifier: str, **changes: Any
) -> dict[str, Any]:
    """The sheet of the API tests' character (CON 8, driver 3, gunner 4, pedestrian, move 0) at `current` CON."""
    sheet = {
        "con": {"initial": 8, "current": current},
        "band": band,
        "skills": {"driver": {"base": 3, "current": driver}, "gunner": {"base": 4, "current": gunner}},
        "move": {"base": 0, "current": 0},
        "safety_limit_mph": None,
        "knocked_out": False,
        "stunned": False,
        "vehicle_driverless": False,
        "disabled_limbs": [],
        "skill_modifier": skill_modifier,
        "pedestrian": True,
        "driver": False,
        "armour": 0,
    }
    sheet.update(changes)
    return sheet
