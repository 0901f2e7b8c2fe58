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
    """A roll's dice when the GM entered them; None to let the server roll. One die has its box (`r_<roll>_0`);
    several dice, fixed (a 2d6) or a pool, are typed in one box (`r_<roll>`), separated by spaces or commas, and an
    open-ended pool may be typed as rolled (`d_<roll>`)."""
    where = f"rolls.{roll.name}"
    if roll.count == 1:
        raw = data.get(f"r_{roll.name}_0", "").strip()
        return [_die(raw, where)] if raw else None
    as_rolled = data.get(f"d_{roll.name}", "").strip() if roll.open_ended else ""
    if as_rolled:
        return dice_as_rolled(as_rolled, where)
    text = data.get(f"r_{roll.name}", "").replace(",", " ").strip()
    if not text:
        return None
    if roll.count == 0:
        return [_die(value, where) for value in text.split()]
    # A roll of several dice in one box: what was typed is named back whole, so the GM sees what to retype.
    typed = " ".join(data.get(f"r_{roll.name}", "").split())
    expected = (
        f"{roll.label}: expected {roll.count} dice of 1-{roll.sides}, separated by spaces or commas "
        f"(e.g. {dice_example(roll.count)}), got {typed!r}"
    )
    try:
        dice = [int(value) for value in text.split()]
    except ValueError:
        raise RuleError(where, expected) from None
    if len(dice) != roll.count:
        raise RuleError(where, expected)
    return dice


def dice_example(count: int) -> str:
    """Dice as a GM types them in one box: "3 4" for two."""
    return " ".join(("3", "4", "1", "6", "2", "5")[i % 6] for i in range(count))


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
