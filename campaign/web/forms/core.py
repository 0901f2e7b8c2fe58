"""What every posted form shares: the fields' descriptions, the posted inputs checked, typed rows of a name and an amount, the idempotency key."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict

from campaign import services
from campaign.http.client_input import MAX_DEPTH, NotJSON, check_text, nesting, no_constants, unstorable
from rules.ruleset import RuleError
from rules.text import given, without_direction_controls
from rules.words import count as how_many

KNOWN_KINDS = ("int", "bool", "choice", "choices", "text", "json", "amounts")
# The blank rows a form of typed rows (a character's skills) offers below the filled ones: a GM who needs more saves
# and edits again, with no script to add a row.
EMPTY_ROWS = 3
CSRF_INPUT = "csrfmiddlewaretoken"
NOT_TICKED = "expected the box ticked (on), left unticked (off) or not sent, got {}"
# A box a form shows posts this hidden before it (`web/field.html`): the box shown and left unticked. A browser
# sends the box's own "on" after it when ticked; a box the form does not show sends neither.
UNTICKED = "off"


@dataclass
class AmountRow:
    """One row of an amounts field: the name it gives an amount to (a target's, posted hidden, or the name typed),
    the target's words ("" for a typed name) and the amount as typed."""

    name: str
    words: str
    amount: str


@dataclass
class Field:
    name: str
    input: str  # the HTML input's name
    kind: str
    label: str
    required: bool = False
    value: Any = None
    choices: list[tuple[str, str]] = field(default_factory=list)
    help: str = ""
    error: str = ""
    # amounts: the rows, what the names and the amounts are called, and whether the names are typed (a character's
    # skills) or the form's own (a spell's targets)
    rows: list[AmountRow] = field(default_factory=list)
    columns: tuple[str, str] = ("", "")
    typed: bool = False
    # choice: the words of its empty entry, "" for none: "(choose)" while a required choice has no value, for an
    # optional one with no default what leaving it empty means (`Param.empty`: "(roll the location)"), else
    # "(none)"; a default is shown chosen
    empty: str = ""
    # A text naming someone (`Param.person`): the names the input suggests, any other still typed
    # (`campaign.web.people.offer_medics`).
    people: list[str] = field(default_factory=list)


@dataclass
class RollField:
    name: str
    label: str
    count: int
    sides: int
    help: str = ""
    inputs: list[tuple[str, str]] = field(default_factory=list)  # (input name, value)
    pool_input: str = ""  # one box of several dice: a pool, or a fixed roll of more than one die
    pool_value: str = ""
    error: str = ""
    example: str = "3 5 1 6"  # what the box's placeholder shows


@dataclass
class ActionFormView:
    action: str
    label: str
    help: str
    fields: list[Field]
    rolls: list[RollField]
    key: str
    error: str = ""
    success: str = ""
    errors: dict[str, str] = field(default_factory=dict)
    undo_text: str = (
        ""  # the undo form's button: what it takes back ("Undo: death save failed, 00:30 (clock)")
    )
    # The character's version when the button named its entry: posted back, so that an Undo drawn before another
    # entry came never takes back that other one (the service refuses a version it is not at).
    undo_version: int | None = None
    # Table dice: the form asks for one roll at a time (`table_dice_form`).
    table_dice: bool = False
    asked: AskedRoll | None = None
    given: list[GivenRoll] = field(default_factory=list)
    quick: list[str] = field(default_factory=list)  # the quick row's rolls, in order, with their dice
    quick_value: str = ""
    quick_error: str = ""  # the row refused as typed (not dice), said beside it

    @property
    def focus(self) -> str:
        """Where the focus goes once the answer is swapped in (`autofocus`), so it stays on the form, never on
        `<body>`: the first input refused (a field, then a roll's first die), else the button when there is an
        answer (what happened, or a refusal said on top); "" for a fresh form. A roll asked at the table has its
        own `autofocus` (`table_dice_rolls.html`), after any refused field."""
        for shown in self.fields:
            if shown.error and shown.kind != "amounts":
                return shown.input
        for roll in self.rolls:
            if roll.error and (roll.inputs or roll.pool_input):
                return roll.inputs[0][0] if roll.inputs else roll.pool_input
        return "button" if self.success or self.error or any(f.error for f in self.fields) else ""


def check_posted(data: QueryDict, inputs: Mapping[str, str]) -> None:
    """Refuse a post our form could not have sent. `inputs` maps each input of the form to the field its errors
    name. An input the form does not have (misspelt, stale, forged) would otherwise be dropped in silence, as the
    API refuses an unknown field; a NUL is refused before PostgreSQL refuses it with a 500."""
    for name in data:
        if name != CSRF_INPUT and name not in inputs:
            raise RuleError("form", f"{name}: unknown field; expected one of {', '.join(sorted(inputs))}")
    for name, values in data.lists():
        for value in values:
            if problem := unstorable(value):
                raise RuleError(inputs.get(name, name), f"the text {problem}")


def echoed(data: QueryDict) -> QueryDict:
    """A refused post as its form shows it back for correcting: without the right-to-left and left-to-right
    controls it was refused for, which would reorder what the page shows around them."""
    shown = QueryDict(mutable=True)
    for name, values in data.lists():
        shown.setlist(name, [without_direction_controls(value) for value in values])
    return shown


def _json(raw: str, where: str, expected: str) -> Any:
    """A JSON input, refused as the API's parser refuses a body: not JSON (NaN included), nested too deep (the
    decoder's own recursion is a 500 otherwise) or holding text no database can store (a NUL, a lone surrogate
    written as an escape), which PostgreSQL refuses with a 500 and SQLite stores for every later read to fail on."""
    too_deep = RuleError(where, f"expected {expected}, nested at most {MAX_DEPTH} levels deep")
    try:
        value = json.loads(raw, parse_constant=no_constants)
    except json.JSONDecodeError as error:
        raise RuleError(where, f"expected {expected}: {error.msg}") from None
    except NotJSON as error:
        raise RuleError(where, f"expected {expected}: {error}") from None
    except ValueError:  # Python's own limit on the digits it converts to an int
        raise RuleError(
            where, f"expected {expected}: a number of over {sys.get_int_max_str_digits()} digits"
        ) from None
    except RecursionError:
        raise too_deep from None
    if nesting(value, MAX_DEPTH) > MAX_DEPTH:
        raise too_deep
    check_text(value, where)
    return value


def uneven_rows(names: int, amounts: int) -> str:
    got = f"{how_many(names, 'name')} and {how_many(amounts, 'amount')}"
    return f"expected a name and an amount in every row, got {got}"


def row_inputs(input_name: str) -> tuple[str, str]:
    """The two inputs each row of an amounts field posts, once per row: its name and its amount."""
    return f"{input_name}_name", f"{input_name}_amount"


def posted_rows(data: QueryDict, input_name: str, where: str) -> list[tuple[str, str]] | None:
    """The rows an amounts field posted, as (name, amount) in the form's order; None when it posted none."""
    name_input, amount_input = row_inputs(input_name)
    names, amounts = data.getlist(name_input), data.getlist(amount_input)
    if len(names) != len(amounts):
        raise RuleError(where, uneven_rows(len(names), len(amounts)))
    if not names:
        return None
    return list(zip(names, amounts, strict=True))


def amounts_from_rows(
    rows: list[tuple[str, str]],
    where: str,
    *,
    columns: tuple[str, str],
    words: Mapping[str, str] | None = None,
) -> dict[str, int]:
    """Rows of a name and a whole number as the API's object {name: number}, in the rows' order.

    `words`: the form's own names (a spell's targets), each row called by its words; a row whose amount is left
    empty gives that target nothing. Without, the names are typed (a character's skills): a row left wholly empty
    is left out, a name without a number or a number without a name is refused, each row called by its number. The
    names and the bounds are the rules' to check (the service answers for them); only the shape is checked here."""
    name_column, amount_column = (column.lower() for column in columns)
    result: dict[str, int] = {}
    rows_of: dict[str, int] = {}

    def called(number: int, name: str) -> str:
        """How a refusal names the row (its words looked up only then: a sheet may be drawn to find them)."""
        if words is not None:
            return words.get(name) or f"row {number}"
        return f"row {number} ({name})" if name else f"row {number}"

    for number, (raw_name, raw_amount) in enumerate(rows, 1):
        name, amount = raw_name.strip(), raw_amount.strip()
        if words is not None:
            if not amount:
                continue
            if not name:
                raise RuleError(where, f"{called(number, name)}: expected what the {amount_column} go to")
        else:
            if not name and not amount:
                continue
            if not name:
                raise RuleError(
                    where,
                    f"{called(number, name)}: expected the {name_column} for the {amount_column} {amount}",
                )
            if not amount:
                raise RuleError(
                    where, f"{called(number, name)}: expected the {amount_column} as a whole number"
                )
        try:
            value = int(amount)
        except ValueError:  # not a number, or more digits than Python converts
            raise RuleError(
                where,
                f"{called(number, name)}: expected the {amount_column} as a whole number, got {given(amount)}",
            ) from None
        if name in rows_of:
            again = "given twice" if words is not None else f"{name} is already in row {rows_of[name]}"
            raise RuleError(where, f"{called(number, name)}: {again}")
        rows_of[name] = number
        result[name] = value
    return result


def ticked(raw: str | None) -> bool | None:
    """A checkbox as posted (the last value of its input): True ticked ("on" after the hidden "off"), False shown
    and left unticked ("off" alone), None not shown. Anything else is not our form's, and reading it as unticked
    would drop it in silence: a ValueError."""
    if raw is None:
        return None
    if raw not in ("on", UNTICKED):
        raise ValueError(NOT_TICKED.format(given(raw)))
    return raw == "on"


def _ticked(data: QueryDict, name: str, where: str) -> bool:
    """A checkbox every form that has it shows (an attribute, the fight's end): not sent is unticked."""
    try:
        return bool(ticked(data.get(name)))
    except ValueError as error:
        raise RuleError(where, str(error)) from None


def idempotency_key(data: QueryDict) -> str | None:
    """The key each rendered form that writes carries (`{% idempotency_key %}`, an action form's own)."""
    return services.idempotency_key("key", data.get("key"))


@dataclass
class AskedRoll:
    """The roll the rules need next (the service's `needs_roll`), with the inputs the GM types it in; or a roll
    given wrong, asked again with what was typed and its error beside it."""

    name: str
    prompt: str
    why: str
    inputs: list[str]  # one input per die, or one text input of the dice as rolled
    sides: int
    as_rolled: bool  # a Rule-of-Six pool: the dice are typed as rolled, each 6 followed by its next die
    pool: bool  # one text input of all the dice (a pool), not one input per die
    values: list[str] = field(default_factory=list)  # what was typed in each input (a roll asked again)
    error: str = ""
    example: str = "3 5 1"  # what a box of several dice shows before anything is typed
    label: str = ""  # the roll's name ("Critical hit table"): what its one die's box is for

    @property
    def typed(self) -> list[tuple[str, str]]:
        """Each input with what was typed in it."""
        return [(name, self.values[i] if i < len(self.values) else "") for i, name in enumerate(self.inputs)]


@dataclass
class GivenRoll:
    """A roll already given, kept on screen and posted again with the next one."""

    label: str
    text: str
    hidden: list[tuple[str, str]]
