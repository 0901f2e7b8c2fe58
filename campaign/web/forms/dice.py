"""Dice typed on a form: a die, a roll of several, a chain of 6s rolled again, as the table rolled them."""

from __future__ import annotations

from django.http import QueryDict

from rules.ruleset import RollSpec, RuleError


def _die(raw: str, where: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        raise RuleError(where, f"expected whole numbers, got {raw.strip()!r}") from None


def _roll(roll: RollSpec, data: QueryDict) -> list[int] | None:
    """A roll's dice when the GM entered them all; None to let the server roll."""
    where = f"rolls.{roll.name}"
    if roll.count > 0:
        raw = [data.get(f"r_{roll.name}_{i}", "").strip() for i in range(roll.count)]
        if not any(raw):
            return None
        if not all(raw):
            typed = sum(1 for value in raw if value)
            raise RuleError(
                where,
                f"{roll.label}: {_dice(typed)} of {roll.count} typed; type every die, or leave them "
                "all empty for the server to roll them",
            )
        return [_die(value, where) for value in raw]
    as_rolled = data.get(f"d_{roll.name}", "").strip() if roll.open_ended else ""
    if as_rolled:
        return dice_as_rolled(as_rolled, where)
    text = data.get(f"r_{roll.name}", "").replace(",", " ").strip()
    if not text:
        return None
    return [_die(value, where) for value in text.split()]


UNFINISHED_CHAIN = (
    "the last die is a 6: roll it again and type that die too (Rule of Six: a 6 is rolled again and added)"
)


QUICK_INPUT = "quick"


def dice_as_rolled(raw: str, where: str) -> list[int]:
    """A Rule-of-Six pool typed die by die as rolled, as the die totals the rules read: "6 4 3 6 6 1" -> [10, 3,
    13]. A 6 is rolled again and added, so a 6 at the end is a chain not finished."""
    totals: list[int] = []
    chain = 0
    for text in raw.replace(",", " ").split():
        face = _die(text, where)
        if not 1 <= face <= 6:
            raise RuleError(where, f"expected dice of 1-6 as rolled, got {face}")
        chain += face
        if face != 6:
            totals.append(chain)
            chain = 0
    if chain:
        raise RuleError(where, UNFINISHED_CHAIN)
    return totals


def _dice(count: int) -> str:
    return f"{count} {'die' if count == 1 else 'dice'}"
