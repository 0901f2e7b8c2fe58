"""The board's forms: the clock's advance, a card's actions, numbered characters, a fight."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import QueryDict

from campaign import services
from campaign.web.forms.actions import action_forms, build_form
from campaign.web.forms.characters import character_inputs, parse_attributes
from campaign.web.forms.core import ActionFormView, _ticked, check_posted
from rules.ruleset import RuleError, Ruleset
from rules.sheet import Board
from rules.text import given

# --- the clock --------------------------------------------------------------------------------------------------

CLOCK_BUTTONS = (
    ("rounds", 1, "+1 round"),
    ("turns", 1, "+1 turn"),
    ("minutes", 10, "+10 min"),
    ("hours", 1, "+1 hour"),
    ("days", 1, "+1 day"),
    ("weeks", 1, "+1 week"),
)
CLOCK_UNITS = ("seconds", "rounds", "turns", "minutes", "hours", "days", "weeks")


def clock_buttons(board: Board) -> tuple[tuple[str, int, str], ...]:
    """The clock's buttons (unit, amount, words) in the words of the ruleset's table: its round is the fight's
    counter's word ("+1 combat turn" beside "Combat turn 2"), and the clock's 30 s is its turn, or ten of its rounds
    when it has no turn of that length (`Board.turn_name`). The units posted are the API's, whatever the words."""
    turn = f"+1 {board.turn_name}" if board.turn_name else f"+10 {board.round_name}s"
    words = {"rounds": f"+1 {board.round_name}", "turns": turn}
    return tuple((unit, amount, words.get(unit, text)) for unit, amount, text in CLOCK_BUTTONS)


def clock_units(board: Board) -> tuple[tuple[str, str], ...]:
    """The custom advance's units (the API's unit, its words): the round in the ruleset's word, and the turn only
    where the ruleset has one."""
    words = {"rounds": f"{board.round_name}s", "turns": f"{board.turn_name}s" if board.turn_name else None}
    return tuple((unit, words.get(unit, unit)) for unit in CLOCK_UNITS if words.get(unit, unit))  # type: ignore[misc]


def clock_help(board: Board) -> str:
    """The lengths of the round and the turn, in the words the buttons use."""
    said = f"A {board.round_name} is {board.round_seconds} s"
    return f"{said}, a {board.turn_name} 30 s." if board.turn_name else f"{said}."


def parse_advance(data: QueryDict) -> dict[str, Any]:
    """The posted clock form as the API's `advance` object (the service checks the unit and the amount)."""
    check_posted(
        data,
        {
            "key": "key",
            "unit": "advance",
            "amount": "advance",
            "stop_on": "stop_on",
            "until": "until",
            "custom": "advance",
        },
    )
    unit = data.get("unit", "")
    raw = data.get("amount", "").strip()
    try:
        amount: Any = int(raw)
    except ValueError:
        raise RuleError(
            f"advance.{unit}" if unit else "advance", f"expected a whole number above 0, got {given(raw)}"
        ) from None
    return {unit: amount}


def parse_until(data: QueryDict) -> int | None:
    """The game second an advance from the party's view ends at (its button names that date), or None."""
    raw = data.get("until", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or len(raw) > 18:
        raise RuleError("until", "expected the game time the advance ends at")
    return int(raw)


def board_of(ruleset: Ruleset) -> Board | None:
    """What the ruleset says of its table (rules/sheet.py, `Board`), if it says anything."""
    sheet = ruleset.sheet
    return sheet.board if sheet is not None else None


def card_actions(ruleset: Ruleset, *, alive: bool = True) -> dict[str, str]:
    """The actions a character's card on the board offers, each with its label: the ruleset's board actions, the
    GM note and Undo every ruleset has, then every other action of the ruleset (`more_card_actions`), so that
    nothing the rules allow needs the character's page. A dead character's card (`alive` false) offers only the
    actions the services still take of the dead (`services.STREAM_ACTIONS`: the GM note and Undo), never one they
    would refuse with "the character is dead"."""
    rules = ruleset
    board = board_of(ruleset)
    labels = {a.action: a.label for a in board.actions} if board is not None else {}
    first = (*labels, "note", "undo")
    return {
        action: labels.get(action) or rules.action_form(action).label
        for action in (*first, *more_card_actions(ruleset))
        if offered(action, alive=alive)
    }


def offered(action: str, *, alive: bool) -> bool:
    """Whether a GM is offered `action` on a character, alive or dead: the one rule of the board's cards and the
    character's page alike. Of the dead, only what the services still take (`services.STREAM_ACTIONS`: the GM note,
    Undo, revert), never an action the ruleset would refuse with "the character is dead"."""
    return alive or action in services.STREAM_ACTIONS


def more_card_actions(ruleset: Ruleset) -> tuple[str, ...]:
    """The ruleset's actions its board does not name: a card offers them, whole, under "More actions"."""
    board = board_of(ruleset)
    named = {a.action for a in board.actions} if board is not None else set()
    return tuple(action for action in action_forms(ruleset) if action not in named and action != "note")


def _card_inputs(ruleset: Ruleset, action: str) -> tuple[str, ...] | None:
    """The inputs of `action` a card shows (None: all of them, as for the note and Undo)."""
    board = board_of(ruleset)
    for card_action in board.actions if board is not None else ():
        if card_action.action == action:
            return card_action.inputs
    return None


def card_form(
    ruleset: Ruleset,
    action: str,
    *,
    injuries: list[tuple[str, str]] | None = None,
    data: QueryDict | None = None,
    errors: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
    sheet: Mapping[str, Any] | None = None,
    table: bool = False,
    attributes: Mapping[str, Any] | None = None,
) -> ActionFormView:
    """An action's form as a card shows it: the action's own form (`build_form`) cut down to the inputs the
    ruleset's board names. An error of an input the card does not show is said on top of the form. `table`: the
    campaign rolls at the table, and the card asks every roll itself (`table_dice_form`): its rolls are all kept."""
    form = build_form(
        ruleset,
        action,
        injuries=injuries,
        data=data,
        errors=errors,
        options=options,
        sheet=sheet,
        attributes=attributes,
    )
    shown = _card_inputs(ruleset, action)
    if shown is None:
        return form
    hidden = [f.error for f in form.fields if f.name not in shown and f.error]
    form.fields = [f for f in form.fields if f.name in shown]
    if not table:
        hidden += [r.error for r in form.rolls if f"rolls.{r.name}" not in shown and r.error]
        form.rolls = [r for r in form.rolls if f"rolls.{r.name}" in shown]
    form.error = " ".join(text for text in (form.error, *hidden) if text)
    return form


NUMBERED_INPUTS = {"key": "key", "prefix": "prefix", "count": "count"}


def parse_numbered(ruleset: Ruleset, data: QueryDict) -> tuple[str, Any, dict[str, Any]]:
    """The posted "several NPCs" form: the name they share, how many, their attributes (as the API's body)."""
    inputs = {**NUMBERED_INPUTS, **{k: v for k, v in character_inputs(ruleset).items() if k.startswith("a_")}}
    attributes = parse_attributes(ruleset, data, inputs)
    raw = data.get("count", "").strip()
    try:
        count: Any = int(raw)
    except ValueError:
        raise RuleError(
            "count", f"expected a whole number of 1 to {services.MAX_NUMBERED}, got {given(raw)}"
        ) from None
    return data.get("prefix", ""), count, attributes


def parse_fight(data: QueryDict) -> int | None:
    """The posted fight form: the game second a new fight starts at (the game time the board showed), or None
    to end the fight."""
    check_posted(data, {"at": "at", "end": "end"})
    if _ticked(data, "end", "end"):
        return None
    raw = data.get("at", "").strip()
    try:
        return int(raw)
    except ValueError:
        raise RuleError("at", f"expected the game time the fight starts at, got {given(raw)}") from None
