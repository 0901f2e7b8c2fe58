"""Small helpers for the shadowrun2 engine tests: a character, an action with entered dice, a clock."""

from __future__ import annotations

import random
import re
from typing import Any

from rules.dice import Dice
from rules.ruleset import GM, Event, apply, start_state
from rules.shadowrun2 import RULESET, tables
from rules.shadowrun2.view import view
from tests.rules.clock_steps import step_clock

# Body-check dice for a body 4 character against TN 6 (a Serious wound, standard column).
MORTAL = [1, 1, 1, 1]
CRIPPLING = [6, 1, 1, 1]
CRITICAL = [6, 6, 1, 1]
NO_CRITICAL_HIT = [6, 6, 6, 1]


# Every word of every part name of the table, but the location groups' own words (the "arm" of "upper arm"): what
# no text may say of a hit its player has not had diagnosed (docs/rules/shadowrun2.md, "Symptoms").
GROUP_WORDS = {word for location in tables.LOCATIONS for word in location.split("_")}
PART_WORDS = sorted(
    {word for rows in tables.CRITICAL_HIT_TABLE.values() for row in rows.values() for word in row[0].split()}
    - GROUP_WORDS
)


def part_words_in(text: str) -> list[str]:
    """The words of `text` that are a part word, singular or plural ("rib" and "ribs", "eye" and "eyes"). Random
    tokens are left out first (a page's CSRF token, 64 letters and digits, twice in every page): a CI run found
    "rib" in one ("...7rIb2..."), twice, on a page that said nothing of ribs."""
    stems = {word.removesuffix("s") for word in PART_WORDS}
    forms = stems | {stem + "s" for stem in stems} | {stem + "es" for stem in stems}
    prose = re.sub(r"[A-Za-z0-9_-]{32,}", " ", text)
    return [word for word in re.findall(r"[a-z]+", prose.lower()) if word in forms]


def character(body: int = 4, willpower: int | None = None, **options: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {"body": body}
    if willpower is not None:
        attributes["willpower"] = willpower
    return start_state(RULESET, RULESET.validate_attributes(attributes), RULESET.validate_options(options))


def act(
    state: dict[str, Any], action: dict[str, Any], rolls: dict[str, Any] | None = None, now: int = 0
) -> tuple[dict[str, Any], list[Event]]:
    """decide + apply with the dice entered; a test that needs a roll must enter it (no rng: it would fail)."""
    events = RULESET.decide(state, action, Dice(rolls or {}, rng=_NoRolls()), now)
    for event in events:
        state = apply(RULESET, state, event)
    return state, events


def wounded(
    body_check: list[int],
    *,
    severity: str = "S",
    location: list[int] | None = None,
    critical: int = 1,
    death_time: list[int] | None = None,
    state: dict[str, Any] | None = None,
    now: int = 0,
    **params: Any,
) -> dict[str, Any]:
    """A character wounded once; the critical hit (if any) lands on the chest's lung unless told otherwise."""
    state = state if state is not None else character()
    rolls: dict[str, Any] = {
        "body_check": body_check,
        "location": location or [3, 4],
        "critical": [critical],
        "death_time": death_time or [3],
    }
    state, _ = act(state, {"type": "wound", "severity": severity, **params}, rolls, now)
    return state


def hit(state: dict[str, Any], hit_id: str = "ch1", audience: str = GM) -> dict[str, Any]:
    return next(h for h in view(state, audience)["sheet"]["critical_hits"] if h["id"] == hit_id)


class _NoRolls(random.Random):
    """Fails the test when the engine needs a die the test did not enter."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError("the engine rolled a die the test did not enter")


class Clock:
    """The service's clock over one character (`rules.clock.run`, a round at a time), remembering what it fired.

    Each firing takes the first entered roll of every name and uses up those it rolled; the rest are left for the
    next firing. A roll nobody entered fails the test, unless `rng` is given.
    """

    def __init__(self, rolls: dict[str, list[Any]] | None = None, rng: random.Random | None = None) -> None:
        self.rolls = {name: list(values) for name, values in (rolls or {}).items()}
        self.rng = rng
        self.fired: list[tuple[int, str, str]] = []
        self.events: list[Event] = []
        self._last: Dice | None = None

    def _dice(self) -> Dice:
        self._use_up()
        entered = {name: values[0] for name, values in self.rolls.items() if values}
        self._last = Dice(entered, rng=self.rng if self.rng is not None else _NoRolls())
        return self._last

    def _use_up(self) -> None:
        """Each entered roll is used by one firing: drop those the previous firing rolled."""
        if self._last is not None:
            for name in self._last.used:
                if self.rolls.get(name):
                    self.rolls[name].pop(0)
            self._last = None

    def advance(self, state: dict[str, Any], to: int, limit: int = 10_000) -> dict[str, Any]:
        ran = step_clock(RULESET, state, to, self._dice, limit)
        self._use_up()
        self.fired += [(firing.at, firing.timer.kind, firing.timer.key) for firing in ran.fired]
        self.events += [event for firing in ran.fired for event in firing.events]
        return ran.state


def entered(rolls: dict[str, Any]) -> Dice:
    """Dice with exactly these rolls entered; any other roll fails the test."""
    return Dice(rolls, rng=_NoRolls())


# Ash, body 5 (willpower 5): the character of the API tests, whose worked examples run here without a database.
# Against the Serious TN 6 no success is Mortal, one is Crippling, two are Critical.
# A Mortal hit on the chest's lung (location 3+4 = 7 chest, table die 1): `1d6x10 min`, diagnose TN 4, no `*`.
MORTAL_LUNG = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
# A Crippling hit on the chest's ribs (table die 2): diagnose TN 4, no `*`.
CRIPPLING_RIBS = {"body_check": [6, 1, 1, 1, 1], "location": [3, 4], "critical": [2]}
# Moderate (TN 4), two successes: a Critical hit on the abdomen's ribs (location 2+3 = 5, table die 6), TN 4.
CRITICAL_RIBS = {"body_check": [4, 5, 1, 1, 1], "location": [2, 3], "critical": [6]}
# Moderate (TN 4), one success: a Crippling hit on the abdomen's ribs.
CRIPPLING_ABDOMEN = {"body_check": [4, 1, 1, 1, 1], "location": [2, 3], "critical": [6]}
# Three successes: no critical hit.
NO_HIT_SERIOUS = {"body_check": [6, 6, 6, 1, 1]}


def ash(**options: Any) -> dict[str, Any]:
    return character(body=5, **options)


def wound(
    state: dict[str, Any], severity: str, rolls: dict[str, Any], **params: Any
) -> tuple[dict[str, Any], list[Event]]:
    return act(state, {"type": "wound", "severity": severity, **params}, rolls)


def diagnosed(state: dict[str, Any], hit_id: str = "ch1") -> dict[str, Any]:
    action = {"type": "diagnose", "medic": "Doc", "skill": 1, "critical_hit": hit_id}
    state, _ = act(state, action, {"diagnosis": [6]})
    return state


def types(events: list[Event]) -> list[str]:
    return [event.type for event in events]
