"""Dice: server rolls from a cryptographic source, or the physical dice a GM types in.

Every roll an engine makes goes through a `Dice` object under a name (`location`, `body_check`, ...). A GM may
enter any of them in the action's `rolls` object; whatever is not entered is rolled by the server. `Dice.used`
records every die actually used so that events can store outcomes and replays never roll again.

Table dice (docs/rules/README.md, "Table dice"): a `Dice` made with `ask=True` never rolls, but for a roll the rules
call `certain` (its outcome the same whatever the dice show: `certain_at_least`, `certain_at_most`, `certain_table`),
which the server rolls and records as it does when the table does not roll; one the GM typed is used all the same.
Any other roll that is needed and was not entered raises `RollNeeded` with what the GM must roll (`RollRequest`: its name, dice, what it decides, its
target), at the moment the rules need it, so the rolls are asked for in the rules' own order and a roll whose size
depends on earlier dice (a death-time expression) is asked for once they are known. Deciding and firing are pure, so a
`RollNeeded` leaves nothing behind: the caller gives the roll and decides again from scratch.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from fractions import Fraction
from random import Random
from typing import Any

from rules.params import RollSpec, RuleError
from rules.text import given

# The one range of a die's reading, for every roll: actions, the clock's table dice (`RollRequest.check`), the events
# that keep them (`rules.event_schema.DICE`) and so the import. A Rule-of-Six total is unbounded by the rules; 1,000
# is 166 sixes in a row, which no table rolls, and a number past it a typo (or a hostile client) whose event no
# export could carry back.
MOST_DIE = 1000
MOST_DICE = 1000  # dice in one roll, as an event may keep them

# The campaign option `table_dice` (every ruleset), as the GM reads it beside the option.
TABLE_DICE_HELP = (
    "who rolls the dice the GM does not give: none (the server), actions (every action asks the GM for each die it "
    "needs), all (the clock asks too, and an advance waits for the GM's roll)"
)


class DiceError(RuleError):
    """Entered dice that cannot be right. `field` is the dotted name the API reports (`rolls.location`), which the
    message repeats: the GM reads it beside the form, not the field."""

    def __init__(self, name: str, message: str, *, count: int | None = None) -> None:
        field = f"rolls.{name}"
        super().__init__(field, f"{field}: {message}")
        self.args = (self.message,)
        self.roll = name
        self.detail = message  # the message without the field, for a form that says it beside the roll
        self.count = count  # how many dice the roll takes, when the rules know it (a form says it in words)


def _dice_word(count: int) -> str:
    return "die" if count == 1 else "dice"


@dataclass(frozen=True)
class RollRequest:
    """A roll the rules need from the table: `count` dice of `sides` faces under `name`. `label` names it, `why`
    says what it decides, `target` is the number the dice are read against (if any), `target_why` how that number
    was made ("8 for a Serious wound (house rule), -1 for Body 5": `target_words`) and `reading` how the dice are
    read ("each die of 4 or more is a success": `success_reading`). `success_test`: a pool read die by die against
    the target; `open_ended`: the Rule of Six applies to it, and each die is entered as its total (6 then 4 is 10)."""

    name: str
    count: int
    sides: int
    label: str
    why: str = ""
    target: int | None = None
    reading: str = ""
    open_ended: bool = False
    success_test: bool = False
    target_why: str = ""

    def as_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "count": self.count,
            "sides": self.sides,
            "label": self.label,
            "why": self.why,
            "reading": self.reading,
            "open_ended": self.open_ended,
            "success_test": self.success_test,
            "prompt": self.prompt,
        }
        if self.target is not None:
            data["target"] = self.target
        if self.target_why:
            data["target_why"] = self.target_why
        return data

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> RollRequest:
        """The request `as_data` wrote (kept while the clock waits for it)."""
        return cls(
            data["name"],
            data["count"],
            data["sides"],
            data["label"],
            data.get("why", ""),
            data.get("target"),
            data.get("reading", ""),
            data.get("open_ended", False),
            data.get("success_test", False),
            data.get("target_why", ""),
        )

    @property
    def prompt(self) -> str:
        """What the GM reads: "First aid: roll 4d6; target 7: 8 for a Serious wound (house rule), -1 for Body 5;
        each die whose total reaches 7 is a success, a 6 rolled again and added (6 then 1 is 7)". The target and
        how it was made are said where the rules gave them (`target_why`)."""
        text = f"{self.label}: roll {self.count}d{self.sides}"
        if self.target is not None and self.target_why:
            return (
                text
                + f"; target {self.target}: {self.target_why}"
                + (f"; {self.reading}" if self.reading else "")
            )
        return text + (f", {self.reading}" if self.reading else "")

    def check(self, values: Any) -> list[int]:
        """The dice the GM gives for this request, as `Dice` would accept them (DiceError otherwise)."""
        dice = Dice({self.name: values})
        if self.success_test:
            return list(dice.success_test(self.name, self.count, self.target or 2).dice)
        return dice.roll(self.name, self.count, self.sides)


class RollNeeded(Exception):  # no Error suffix: a request to the table, not an error of the user
    """A roll the rules need and nobody gave, in table-dice mode: the action is refused before anything is written,
    the clock waits. Not a RuleError: nothing is wrong with the request."""

    def __init__(self, request: RollRequest) -> None:
        super().__init__(request.prompt)
        self.request = request


def certain_at_least(target: int, sides: int) -> bool:
    """Whether a die of `sides` faces read "`target` or more" comes out the same whatever it shows: every face
    reaches the target (1 or less: Cyberpunk's sever check "keeps it on 1 or more") or none does (above `sides`).
    Such a roll is `certain` (`Dice.roll`): a table that rolls is not asked for it."""
    return target <= 1 or target > sides


def certain_at_most(target: int, sides: int) -> bool:
    """Whether a die of `sides` faces read "`target` or less" comes out the same whatever it shows: every face is at
    or below the target (`sides` or more: a save that cannot fail) or none is (below 1: one that cannot succeed)."""
    return target >= sides or target < 1


def certain_table(table: Mapping[int, Any]) -> bool:
    """Whether a table read off a die gives the same whatever face it shows (Dark Future's house rule "An arm up to"
    6: always an arm)."""
    return len(set(table.values())) <= 1


def faces_text(table: Mapping[int, str]) -> str:
    """A table read off a die, for a GM: {1: "arm", 2: "arm", 3: "arm", 4: "leg", ...} -> "1-3 arm, 4-6 leg"."""
    runs: list[tuple[int, int, str]] = []
    for face in sorted(table):
        if runs and runs[-1][2] == table[face] and runs[-1][1] == face - 1:
            runs[-1] = (runs[-1][0], face, table[face])
        else:
            runs.append((face, face, table[face]))
    return ", ".join(f"{low}-{high} {what}" if low != high else f"{low} {what}" for low, high, what in runs)


def target_words(base: tuple[str, int, bool], *modifiers: tuple[str, int], floor: int | None = None) -> str:
    """How a target number was made, in words (a roll's `target_why`): `base` is (what it is for, its number,
    whether a house rule gives it: a campaign option), each modifier (what, how much; 0 is left out). "house rule
    for a Serious wound" when the house rule alone makes it, "" when the rules' own number alone does (nothing to
    explain); "8 for a Serious wound (house rule), -1 for Body 5, +4 without a medkit" otherwise; `floor`: the
    lowest a target may be (Shadowrun's 2), said when it lifted the sum."""
    what, number, house = base
    moved = [(words, value) for words, value in modifiers if value]
    if not moved:  # the house rule alone, or a number of the rules' own with nothing to explain
        return f"house rule for {what}" if house else ""
    parts = [f"{number} for {what}" + (" (house rule)" if house else "")]
    parts += [f"{value:+d} for {words}" for words, value in moved]
    if floor is not None and number + sum(value for _, value in moved) < floor:
        parts.append(f"never below {floor}")
    return ", ".join(parts)


def success_reading(target: int) -> str:
    """How a success test's d6 are read against its target, in words a GM checks the dice by: "each die of 4 or
    more is a success"; above 6 no face reaches the target alone (the Rule of Six): "each die whose total reaches
    10 is a success, a 6 rolled again and added (6 then 4 is 10)", the example the shortest chain that does."""
    if target <= 6:
        return f"each die of {target} or more is a success"
    sixes, rest = divmod(target - 1, 6)
    faces = [6] * sixes + [rest + 1]
    if faces[-1] == 6:  # a chain never ends on a 6 (it is rolled again): 12 is reached by 6, 6 then anything
        faces.append(1)
    chain = ", ".join(map(str, faces[:-1])) + f" then {faces[-1]} is {sum(faces)}"
    return f"each die whose total reaches {target} is a success, a 6 rolled again and added ({chain})"


def _label(name: str) -> str:
    return name.split(":", 1)[0].replace("_", " ").capitalize()


@dataclass(frozen=True, init=False)
class SuccessTest:
    """A Shadowrun-style success test: each die total at or above the target number is a success.

    The contract every ruleset keeps: what the rules decide from a success test depends on it only through
    `successes` (its `dice` are a record, for the history and the GM, never read by a rule). Two tests of the same
    pool and target with the same successes must give the same events apart from that record. The forecast relies
    on it to fire once per number of successes instead of once per future (docs/forecast.md, "Cost"); the
    contract tests (tests/rules/test_forecast.py) hold every ruleset to it.
    """

    pool: int
    target: int
    dice: tuple[int, ...]
    successes: int

    def __init__(self, pool: int, target: int, dice: tuple[int, ...], successes: int) -> None:
        # One per rolled firing of the clock: the fields set at once, as `rules.ruleset.Timer`'s.
        fields = self.__dict__
        fields["pool"], fields["target"], fields["dice"], fields["successes"] = pool, target, dice, successes

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


def success_chance(target: int) -> Fraction:
    """The exact chance that one die of a success test reaches `target` (already `success_target`'s). Up to 6 a
    face of `target` or more; above, the Rule of Six: with target = 6m + r (r from 1 to 6), m sixes in a row, then
    a face of r or more (a 6 goes on, and is enough), (1/6)^m * (7 - r)/6."""
    sixes, rest = divmod(target - 1, 6)
    return Fraction(6 - rest, 6) / 6**sixes


def successes_odds(pool: int, target: int) -> tuple[Fraction, ...]:
    """The exact chance of 0, 1, ... `pool` successes: the binomial of `pool` dice of `success_chance(target)`."""
    p = success_chance(target)
    return tuple(math.comb(pool, k) * p**k * (1 - p) ** (pool - k) for k in range(pool + 1))


def success_totals(pool: int, target: int, successes: int) -> list[int]:
    """Die totals of a test with exactly `successes` (the first ones at the target, the rest 1s), each a total the
    dice could show (a Rule-of-Six total is never a multiple of 6): what a replayed test records."""
    hit = target if target <= 6 or target % 6 else target + 1
    return [hit] * successes + [1] * (pool - successes)


class Dice:
    """Named rolls: entered ones are validated and used, missing ones are rolled."""

    # The rolls the server rolled only because they were `certain` while the table rolls (`ask`): nobody at the table
    # rolled them, so their words never name the die (docs/rules/README.md, "Table dice"). Empty for dice that never
    # ask (the forecast's `ReplayDice`).
    unasked: AbstractSet[str] = frozenset()

    def __init__(
        self, entered: Mapping[str, Any] | None = None, rng: Random | None = None, *, ask: bool = False
    ) -> None:
        if entered is not None and not isinstance(entered, Mapping):
            raise DiceError("", "expected an object of named lists of dice")
        self.entered: dict[str, Any] = dict(entered or {})
        self.rng: Random = rng if rng is not None else secrets.SystemRandom()
        self.used: dict[str, list[int]] = {}
        self.ask = ask  # table dice: a missing roll raises RollNeeded instead of being rolled

    def _missing(self, request: RollRequest, certain: bool = False) -> None:
        """A needed roll nobody entered: asked for at the table, or rolled (the caller rolls when this returns). A
        `certain` roll is rolled whoever rolls: nothing the table could roll changes what it decides."""
        if self.ask and request.count > 0:
            if not certain:
                raise RollNeeded(request)
            self.unasked = {*self.unasked, request.name}  # rare: a roll nothing at the table could turn

    def _entered_list(self, name: str) -> list[int] | None:
        if name not in self.entered or self.entered[name] is None:
            return None
        value = self.entered[name]
        if isinstance(value, bool):
            raise DiceError(name, f"expected a list of whole numbers, got {given(value, typed=True)}")
        if isinstance(value, int):
            value = [value]
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise DiceError(name, f"expected a list of whole numbers, got {given(value, typed=True)}")
        return list(value)

    def entered_for(self, name: str) -> bool:
        """True when the GM typed this roll in."""
        return self._entered_list(name) is not None

    def roll(
        self,
        name: str,
        count: int,
        sides: int = 6,
        *,
        label: str = "",
        why: str = "",
        target: int | None = None,
        reading: str = "",
        target_why: str = "",
        certain: bool = False,
    ) -> list[int]:
        """`count` dice of `sides` faces under `name`. The keywords describe the roll to a GM asked for it;
        `certain`: its outcome is the same whatever the dice show (`certain_at_least`...), so that a table that rolls
        is not asked for it: the server rolls it, unless the GM gave it."""
        values = self._entered_list(name)
        if values is not None:
            if len(values) != count or any(v < 1 or v > sides for v in values):
                raise DiceError(
                    name, f"expected {count} {_dice_word(count)} of 1-{sides}, got {values}", count=count
                )
        else:
            self._missing(
                RollRequest(
                    name, count, sides, label or _label(name), why, target, reading, target_why=target_why
                ),
                certain,
            )
            values = [self.rng.randint(1, sides) for _ in range(count)]
        self.used[name] = values
        return values

    def die(self, name: str, sides: int = 6, **described: Any) -> int:
        """One die."""
        return self.roll(name, 1, sides, **described)[0]

    def success_test(
        self, name: str, pool: int, tn: int, *, label: str = "", why: str = "", target_why: str = ""
    ) -> SuccessTest:
        """Roll `pool` d6 against `tn` (minimum 2). Rule of Six only when the target is above 6. A rule may read
        only the test's `successes` (the contract in `SuccessTest`'s documentation).

        Entered dice are die totals: a 6 followed by a 4 is entered as 10. With the Rule of Six a total that is a
        multiple of 6 is an unfinished chain and is refused.
        """
        target = success_target(tn)
        pool = max(0, pool)
        values = self._entered_list(name)
        rule_of_six = target > 6
        if values is not None:
            if len(values) != pool:
                raise DiceError(
                    name, f"expected {pool} {_dice_word(pool)} (the pool), got {values}", count=pool
                )
            if rule_of_six:
                bad = [v for v in values if v < 1 or v > MOST_DIE or v % 6 == 0]
                if bad:
                    raise DiceError(
                        name,
                        f"expected {pool} die totals of 1 to {MOST_DIE:,}, not a multiple of 6 (Rule of Six: a 6 "
                        f"is rolled again and added, so 6 then 4 is entered as 10), got {values}",
                        count=pool,
                    )
            elif any(v < 1 or v > 6 for v in values):
                raise DiceError(name, f"expected {pool} {_dice_word(pool)} of 1-6, got {values}", count=pool)
        else:
            self._missing(
                RollRequest(
                    name,
                    pool,
                    6,
                    label or _label(name),
                    why,
                    target,
                    success_reading(target),
                    open_ended=rule_of_six,
                    success_test=True,
                    target_why=target_why,
                )
            )
            values = [self._roll_open_ended() if rule_of_six else self.rng.randint(1, 6) for _ in range(pool)]
        self.used[name] = values
        return SuccessTest(
            pool=pool, target=target, dice=tuple(values), successes=count_successes(values, target)
        )

    def check_unused(self, specs: Iterable[RollSpec]) -> None:
        """Entered rolls the action did not use are ignored, but only when they could be right (docs/rules/README.md,
        "Explicit rolls": a typo is never accepted in silence): a roll the action's form names (`diagnosis:<id>` is a
        `diagnosis`), with its dice (any number for a roll whose size varies), each within the die's faces (a
        Rule-of-Six total for an open-ended pool)."""
        if not self.entered:  # nothing entered: nothing to check (the forecast's dice, every decided what-if)
            return
        known = {spec.name: spec for spec in specs}
        for name in self.entered:
            if name in self.used or self.entered[name] is None:
                continue
            spec = known.get(str(name).split(":", 1)[0])
            if spec is None:
                expected = ", ".join(known) or "none (this action rolls no dice)"
                raise DiceError(str(name), f"unknown roll; expected one of {expected}")
            values = self._entered_list(name) or []
            if spec.open_ended:
                if any(v < 1 or v > MOST_DIE or (v > spec.sides and v % 6 == 0) for v in values):
                    raise DiceError(
                        name,
                        f"expected die totals of 1 to {MOST_DIE:,}, not a multiple of 6 above 6, got {values}",
                    )
            elif spec.count and len(values) != spec.count or any(v < 1 or v > spec.sides for v in values):
                count = spec.count or len(values)
                raise DiceError(name, f"expected {count} {_dice_word(count)} of 1-{spec.sides}, got {values}")

    def _roll_open_ended(self) -> int:
        total = 0
        while True:
            face = self.rng.randint(1, 6)
            total += face
            # Past MOST_DIE the chain stops where it stands: never in play (6**-166), but a total stays in range.
            if face != 6 or total > MOST_DIE - 6:
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


def roll_expression(dice: Dice, name: str, text: str, **described: Any) -> tuple[Fraction, list[int]]:
    """Roll a table expression under `name`; returns the exact value and the dice used."""
    expression = parse_expression(text)
    faces = dice.roll(name, expression.count, expression.sides, **described)
    return expression.value(faces), faces
