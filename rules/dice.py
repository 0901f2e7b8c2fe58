"""Dice: server rolls from a cryptographic source, or the physical dice a GM types in.

Every roll an engine makes goes through a `Dice` object under a name (`location`, `body_check`, ...). A GM may
enter any of them in the action's `rolls` object; whatever is not entered is rolled by the server. `Dice.used`
records every die actually used so that events can store outcomes and replays never roll again.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from random import Random
from typing import Any

from rules.params import RuleError


class DiceError(RuleError):
    """Entered dice that cannot be right. `field` is the dotted name the API reports (`rolls.location`), which the
    message repeats: the GM reads it beside the form, not the field."""

    def __init__(self, name: str, message: str) -> None:
        field = f"rolls.{name}"
        super().__init__(field, f"{field}: {message}")
        self.args = (self.message,)


def _dice_word(count: int) -> str:
    return "die" if count == 1 else "dice"


@dataclass(frozen=True)
class SuccessTest:
    """A Shadowrun-style success test: each die total at or above the target number is a success."""

    pool: int
    target: int
    dice: tuple[int, ...]
    successes: int

    def as_data(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "target": self.target,
            "dice": list(self.dice),
            "successes": self.successes,
        }


def success_target(tn: int) -> int:
    """Target numbers never go below 2 (SRII)."""
    return max(2, tn)


def count_successes(totals: list[int] | tuple[int, ...], target: int) -> int:
    return sum(1 for total in totals if total >= target)


class Dice:
    """Named rolls: entered ones are validated and used, missing ones are rolled."""

    def __init__(self, entered: Mapping[str, Any] | None = None, rng: Random | None = None) -> None:
        if entered is not None and not isinstance(entered, Mapping):
            raise DiceError("", "expected an object of named lists of dice")
        self.entered: dict[str, Any] = dict(entered or {})
        self.rng: Random = rng if rng is not None else secrets.SystemRandom()
        self.used: dict[str, list[int]] = {}

    def _entered_list(self, name: str) -> list[int] | None:
        if name not in self.entered or self.entered[name] is None:
            return None
        value = self.entered[name]
        if isinstance(value, bool):
            raise DiceError(name, f"expected a list of whole numbers, got {value!r}")
        if isinstance(value, int):
            value = [value]
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise DiceError(name, f"expected a list of whole numbers, got {value!r}")
        return list(value)

    def entered_for(self, name: str) -> bool:
        """True when the GM typed this roll in."""
        return self._entered_list(name) is not None

    def roll(self, name: str, count: int, sides: int = 6) -> list[int]:
        """`count` dice of `sides` faces under `name`."""
        values = self._entered_list(name)
        if values is not None:
            if len(values) != count or any(v < 1 or v > sides for v in values):
                raise DiceError(name, f"expected {count} {_dice_word(count)} of 1-{sides}, got {values}")
        else:
            values = [self.rng.randint(1, sides) for _ in range(count)]
        self.used[name] = values
        return values

    def die(self, name: str, sides: int = 6) -> int:
        """One die."""
        return self.roll(name, 1, sides)[0]

    def success_test(self, name: str, pool: int, tn: int) -> SuccessTest:
        """Roll `pool` d6 against `tn` (minimum 2). Rule of Six only when the target is above 6.

        Entered dice are die totals: a 6 followed by a 4 is entered as 10. With the Rule of Six a total that is a
        multiple of 6 is an unfinished chain and is refused.
        """
        target = success_target(tn)
        pool = max(0, pool)
        values = self._entered_list(name)
        rule_of_six = target > 6
        if values is not None:
            if len(values) != pool:
                raise DiceError(name, f"expected {pool} {_dice_word(pool)} (the pool), got {values}")
            if rule_of_six:
                bad = [v for v in values if v < 1 or v % 6 == 0]
                if bad:
                    raise DiceError(
                        name,
                        f"expected {pool} die totals of 1 or more, not a multiple of 6 (Rule of Six: a 6 is "
                        f"rolled again and added, so 6 then 4 is entered as 10), got {values}",
                    )
            elif any(v < 1 or v > 6 for v in values):
                raise DiceError(name, f"expected {pool} {_dice_word(pool)} of 1-6, got {values}")
        else:
            values = [self._roll_open_ended() if rule_of_six else self.rng.randint(1, 6) for _ in range(pool)]
        self.used[name] = values
        return SuccessTest(
            pool=pool, target=target, dice=tuple(values), successes=count_successes(values, target)
        )

    def _roll_open_ended(self) -> int:
        total = 0
        while True:
            face = self.rng.randint(1, 6)
            total += face
            if face != 6:
                return total


_EXPRESSION = re.compile(r"^(?P<count>\d+)d(?P<sides>\d+)(?:(?P<op>[x*/])(?P<factor>\d+))?$")


@dataclass(frozen=True)
class Expression:
    """A table's dice expression such as `1d6x10`, `1d6/2` or `2d6`."""

    count: int
    sides: int
    multiplier: int = 1
    divisor: int = 1

    def value(self, dice: list[int]) -> Fraction:
        return Fraction(sum(dice) * self.multiplier, self.divisor)


def parse_expression(text: str) -> Expression:
    match = _EXPRESSION.match(text.replace(" ", ""))
    if not match:
        raise ValueError(f"not a dice expression: {text!r}")
    count, sides = int(match["count"]), int(match["sides"])
    op, factor = match["op"], int(match["factor"] or 1)
    if op in ("x", "*"):
        return Expression(count, sides, multiplier=factor)
    if op == "/":
        return Expression(count, sides, divisor=factor)
    return Expression(count, sides)


def roll_expression(dice: Dice, name: str, text: str) -> tuple[Fraction, list[int]]:
    """Roll a table expression under `name`; returns the exact value and the dice used."""
    expression = parse_expression(text)
    faces = dice.roll(name, expression.count, expression.sides)
    return expression.value(faces), faces
