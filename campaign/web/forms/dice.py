"""Dice typed on a form: a die, a roll of several, a chain of 6s rolled again, as the table rolled them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from django.http import QueryDict

from rules.ruleset import ActionForm, RollSpec, RuleError
from rules.text import given


def read_face(face: int, sides: int) -> int:
    """A die as typed, as the rules read it: a d10 shows 0 for its 10 (the only die that does)."""
    return 10 if sides == 10 and face == 0 else face


def _die(raw: str, where: str, sides: int = 0) -> int:
    try:
        return read_face(int(raw.strip()), sides)
    except ValueError:
        raise RuleError(where, f"expected whole numbers, got {given(raw.strip())}") from None


def _roll(roll: RollSpec, data: QueryDict) -> list[int] | None:
    """A roll's dice when the GM entered them; None to let the server roll. One die has its box (`r_<roll>_0`);
    several dice, fixed (a 2d6) or a pool, are typed in one box (`r_<roll>`), separated by spaces or commas, and an
    open-ended pool may be typed as rolled (`d_<roll>`)."""
    where = f"rolls.{roll.name}"
    if roll.count == 1:
        raw = data.get(f"r_{roll.name}_0", "").strip()
        return [_die(raw, where, roll.sides)] if raw else None
    as_rolled = data.get(f"d_{roll.name}", "").strip() if roll.open_ended else ""
    if as_rolled:
        return dice_as_rolled(as_rolled, where)
    text = data.get(f"r_{roll.name}", "").replace(",", " ").strip()
    if not text:
        return None
    if roll.count == 0:
        return [_die(value, where, roll.sides) for value in text.split()]
    # A roll of several dice in one box: what was typed is named back whole, so the GM sees what to retype.
    typed = " ".join(data.get(f"r_{roll.name}", "").split())
    expected = (
        f"{roll.label}: expected {roll.count} dice of 1-{roll.sides}, separated by spaces or commas "
        f"(e.g. {dice_example(roll.count)}), got {given(typed)}"
    )
    try:
        dice = [read_face(int(value), roll.sides) for value in text.split()]
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


# What may follow a roll's name and a colon in a per-choice roll's input (`r_diagnosis:ch1`): a choice's id.
CHOICE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")


def per_choice_rolls(spec: ActionForm, posted: Iterable[str]) -> list[RollSpec]:
    """The rolls posted for one choice each (`RollSpec.per`: `r_diagnosis:ch1`, as rolled `d_diagnosis:ch1`), each
    as a roll of its own, named as the API takes it (`diagnosis:ch1`), in the order posted."""
    found: dict[str, RollSpec] = {}
    for name in posted:
        kind, _, rest = name.partition("_")
        roll_name, colon, choice = rest.partition(":")
        if kind not in ("r", "d") or not colon or not CHOICE_ID.fullmatch(choice):
            continue
        roll = next((r for r in spec.rolls if r.per and r.name == roll_name), None)
        if roll is None or (kind == "d" and not roll.open_ended):
            continue
        found.setdefault(f"{roll_name}:{choice}", replace(roll, name=f"{roll_name}:{choice}"))
    return list(found.values())
