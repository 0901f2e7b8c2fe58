"""HTML forms generated from the rulesets' form descriptions, and their parsing into API-shaped bodies.

A posted form becomes exactly the JSON body the API takes, so the service answers with the same messages. Fields
the browser cannot express (a die left half-filled, JSON that does not parse) get a message here, before the
service is asked.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms import widgets
from django.http import QueryDict

from campaign import services
from campaign.client_input import MAX_DEPTH, NotJSON, check_text, nesting, no_constants, unstorable
from rules.registry import get_ruleset
from rules.ruleset import NOTE_FORM, ActionForm, Param, RollSpec, RuleError
from rules.sheet import Attribute, Board
from rules.text import without_direction_controls
from rules.words import count as how_many

KNOWN_KINDS = ("int", "bool", "choice", "choices", "text", "json", "amounts")
# The blank rows a form of typed rows (a character's skills) offers below the filled ones: a GM who needs more saves
# and edits again, with no script to add a row.
EMPTY_ROWS = 3
CSRF_INPUT = "csrfmiddlewaretoken"
NOT_TICKED = "expected the box ticked (on) or not sent, got {!r}"


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
    # choice: the words of its empty entry, "" for none: "(choose)" while a required choice has no value, "(none)"
    # for an optional one with no default (the rules then roll or look at every one); a default is shown chosen
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
    pool_input: str = ""
    pool_value: str = ""
    error: str = ""


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
    # Table dice: the form asks for one roll at a time (`table_dice_form`).
    table_dice: bool = False
    asked: AskedRoll | None = None
    given: list[GivenRoll] = field(default_factory=list)
    quick: list[str] = field(default_factory=list)  # the quick row's rolls, in order, with their dice
    quick_value: str = ""


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
    for number, (raw_name, raw_amount) in enumerate(rows, 1):
        name, amount = raw_name.strip(), raw_amount.strip()
        if words is not None:
            row = words.get(name) or f"row {number}"
            if not amount:
                continue
            if not name:
                raise RuleError(where, f"{row}: expected what the {amount_column} go to")
        else:
            row = f"row {number} ({name})" if name else f"row {number}"
            if not name and not amount:
                continue
            if not name:
                raise RuleError(where, f"{row}: expected the {name_column} for the {amount_column} {amount}")
            if not amount:
                raise RuleError(where, f"{row}: expected the {amount_column} as a whole number")
        try:
            value = int(amount)
        except ValueError:  # not a number, or more digits than Python converts
            raise RuleError(
                where, f"{row}: expected the {amount_column} as a whole number, got {amount!r}"
            ) from None
        if name in rows_of:
            again = "given twice" if words is not None else f"{name} is already in row {rows_of[name]}"
            raise RuleError(where, f"{row}: {again}")
        rows_of[name] = number
        result[name] = value
    return result


def _ticked(data: QueryDict, name: str, where: str) -> bool:
    """A checkbox: a browser sends "on" when it is ticked and nothing otherwise. Anything else is not our form's,
    and reading it as unticked would drop it in silence."""
    raw = data.get(name)
    if raw is not None and raw != "on":
        raise RuleError(where, NOT_TICKED.format(raw))
    return raw == "on"


def idempotency_key(data: QueryDict) -> str | None:
    """The key each rendered form that writes carries (`{% idempotency_key %}`, an action form's own)."""
    return services.idempotency_key("key", data.get("key"))


def action_forms(ruleset: str) -> dict[str, ActionForm]:
    forms = dict(get_ruleset(ruleset).forms)
    forms["note"] = NOTE_FORM
    return forms


def _choices(param: Param, injuries: list[tuple[str, str]]) -> list[tuple[str, str]]:
    if param.picker:
        return injuries
    words = dict(param.choice_words)
    return [(choice, words.get(choice) or choice.replace("_", " ")) for choice in param.choices]


def _empty_choice(param: Param, value: Any) -> str:
    """What a choice's empty entry says, or "" for no empty entry (see `Field.empty`)."""
    if param.required:
        return "(choose)" if value in (None, "") else ""
    return "(none)" if param.default is None else ""


def _targets(param: Param, sheet: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """What an amounts parameter may give to, as (name, words), from the GM's sheet of the character."""
    return param.targets(sheet or {}) if param.targets is not None else []


def _amounts_field(param: Param, name: str, data: QueryDict | None, sheet: Mapping[str, Any] | None) -> Field:
    """An amounts parameter as one number input per target, filled with what was posted to each."""
    posted: dict[str, str] = {}
    if data is not None:
        names, amounts = row_inputs(name)
        if len(data.getlist(names)) == len(data.getlist(amounts)):
            posted = dict(zip(data.getlist(names), data.getlist(amounts), strict=True))
    rows = [AmountRow(key, words, posted.get(key, "")) for key, words in _targets(param, sheet)]
    return Field(param.name, name, "amounts", param.label, param.required, rows=rows, columns=param.columns)


def _amounts_error(errors: dict[str, str], param: Param, sheet: Mapping[str, Any] | None) -> str:
    """The errors the service gave one name of an amounts parameter (`allocation.ch1`), said of the target's
    words ("Critical hit 1: ..."), never its name."""
    words = dict(_targets(param, sheet))
    said = [errors.pop(param.name)] if param.name in errors else []
    for where in [where for where in errors if where.startswith(f"{param.name}.")]:
        key = where.split(".", 1)[1]
        message = errors.pop(where)
        said.append(f"{words[key]}: {message}" if key in words else message)
    return " ".join(said)


def build_form(
    ruleset: str,
    action: str,
    *,
    injuries: list[tuple[str, str]] | None = None,
    data: QueryDict | None = None,
    errors: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
    sheet: Mapping[str, Any] | None = None,
) -> ActionFormView:
    """The form of one action, filled with `data` (a failed post) or the defaults, with `errors` placed.
    `injuries`: what a `picker` parameter may name (`CharacterSheet.injury_choices`); `options`:
    the campaign's, whose switched-off options leave their parameters out (`Param.option`); `sheet`: the
    character's as the GM sees it, for the targets of an amounts parameter (`Param.targets`)."""
    spec = get_ruleset(ruleset).action_form(action)
    errors = dict(errors or {})
    fields: list[Field] = []
    for param in spec.params:
        if param.option is not None and options is not None and not options.get(param.option):
            if param.name in errors:  # posted all the same: its error goes on top of the form, named
                errors[param.name] = f"{param.label}: {errors[param.name]}"
            continue
        if param.kind == "amounts":
            shown = _amounts_field(param, f"p_{param.name}", data, sheet)
            shown.help, shown.error = param.help, _amounts_error(errors, param, sheet)
            fields.append(shown)
            continue
        kind = param.kind if param.kind in (*KNOWN_KINDS, "textarea") else "text"
        if param.picker:
            kind = "picker"  # drawn as a choice of the character's injuries, posted as the text
        name = f"p_{param.name}"
        if data is not None:
            if kind == "bool":
                value: Any = data.get(name) == "on"
            elif kind == "choices":
                value = data.getlist(name)
            else:
                value = data.get(name, "")
        elif kind == "json" and param.default is not None:
            value = json.dumps(param.default)
        elif kind == "choices":
            value = list(param.default or [])
        else:
            value = param.default
        fields.append(
            Field(
                name=param.name,
                input=name,
                kind=kind,
                label=param.label,
                required=param.required,
                value=value,
                choices=_choices(param, injuries or []) if kind in ("choice", "choices", "picker") else [],
                help=param.help,
                error=errors.pop(param.name, ""),
                empty=_empty_choice(param, value) if kind in ("choice", "picker") else "",
            )
        )
    rolls: list[RollField] = []
    for roll in spec.rolls:
        item = RollField(roll.name, roll.label, roll.count, roll.sides, roll.help)
        if roll.count > 0:
            item.inputs = [
                (f"r_{roll.name}_{i}", data.get(f"r_{roll.name}_{i}", "") if data is not None else "")
                for i in range(roll.count)
            ]
        else:
            item.pool_input = f"r_{roll.name}"
            item.pool_value = data.get(item.pool_input, "") if data is not None else ""
        item.error = errors.pop(f"rolls.{roll.name}", "")
        rolls.append(item)
    form = ActionFormView(
        action=action,
        label=spec.label,
        help=spec.help,
        fields=fields,
        rolls=rolls,
        key=str(uuid.uuid4()),
    )
    # Whatever did not land on a field (type, clock, a nested name) is shown on top of the form.
    form.error = " ".join(errors.values())
    return form


def action_inputs(ruleset: str, action: str) -> dict[str, str]:
    """The inputs an action's form posts, each with the field of the API's body its errors name."""
    spec = get_ruleset(ruleset).action_form(action)
    inputs = {"key": "key"}
    for param in spec.params:
        names = row_inputs(f"p_{param.name}") if param.kind == "amounts" else (f"p_{param.name}",)
        inputs.update(dict.fromkeys(names, param.name))
    if spec.rolls:
        inputs["ask"] = "ask"  # table dice: "let the server roll the rest"
        inputs[QUICK_INPUT] = QUICK_INPUT  # table dice: all the dice in one row (`take_from_row`)
    for roll in spec.rolls:
        names = [f"r_{roll.name}_{i}" for i in range(roll.count)] if roll.count > 0 else [f"r_{roll.name}"]
        if roll.open_ended:
            names.append(f"d_{roll.name}")  # the dice as rolled (table dice)
        inputs.update(dict.fromkeys(names, f"rolls.{roll.name}"))
    return inputs


def spec_param(spec: ActionForm, name: str) -> Param:
    return next(param for param in spec.params if param.name == name)


def place_error(ruleset: str, action: str, field_name: str, message: str) -> dict[str, str]:
    """Put a service error on the field it names: `severity`, `rolls.location`, `allocation.ch1` -> allocation."""
    spec = get_ruleset(ruleset).action_form(action)
    params = {p.name for p in spec.params}
    rolls = {r.name for r in spec.rolls}
    if field_name in params:
        return {field_name: message}
    head = field_name.split(".", 1)[0]
    if head in params:
        if spec_param(spec, head).kind == "amounts":
            return {field_name: message}  # `build_form` names the target in words
        return {head: f"{field_name}: {message}"}
    if field_name.startswith("rolls."):
        roll = field_name.split(".", 2)[1].split(":", 1)[0]
        if roll in rolls:
            return {f"rolls.{roll}": message}
    return {"form": f"{field_name}: {message}" if field_name not in ("type", "form") else message}


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


class _Posted(forms.Field):
    """A posted input as the API's value, or None for one left empty: the rules then apply the default, or say the
    parameter is required. The bounds are the rules' own (`rules.params.read_params`), checked once, by the
    service; a field here only turns the browser's strings into the API's types."""

    def __init__(self, param: Param) -> None:
        super().__init__(required=False)
        self.param = param

    def to_python(self, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        return self.convert(value)

    def convert(self, value: str) -> Any:
        return value.strip()


class _Whole(_Posted):
    def convert(self, value: str) -> Any:
        try:
            return int(value.strip())
        except ValueError:  # not a number, or more digits than Python converts
            raise ValidationError(f"expected a whole number, got {value.strip()!r}") from None


class _Ticked(_Posted):
    """A checkbox: a browser sends "on" when it is ticked and nothing otherwise. Anything else is not our form's,
    and reading it as unticked would drop it in silence."""

    def to_python(self, value: Any) -> Any:
        if value is not None and value != "on":
            raise ValidationError(NOT_TICKED.format(value))
        return value == "on"


class _Picked(_Posted):
    widget = widgets.SelectMultiple  # every ticked box, as a list

    def to_python(self, value: Any) -> Any:
        return list(value) or None  # none ticked: the default


class _Textarea(_Posted):
    def convert(self, value: str) -> Any:
        return value  # a note keeps its blanks


class _JSON(_Posted):
    def convert(self, value: str) -> Any:
        try:
            return _json(value, self.param.name, f"JSON such as {self.param.help or '[]'}")
        except RuleError as error:
            raise ValidationError(error.message) from None


class _RowsWidget(widgets.Widget):
    """An amounts field's rows: each row posts its name and its amount under the same two input names."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        names, amounts = row_inputs(name)
        return data.getlist(names), data.getlist(amounts)

    def value_omitted_from_data(self, data: Any, files: Any, name: str) -> bool:
        return not any(input_name in data for input_name in row_inputs(name))


class _Amounts(_Posted):
    """Rows of a target and an amount as the API's object; no amount given (or no row posted): None, which the
    rules read as the parameter left out."""

    widget = _RowsWidget

    def __init__(self, param: Param, words: Mapping[str, str] | None = None) -> None:
        super().__init__(param)
        self.words = dict(words or {})

    def to_python(self, value: Any) -> Any:
        names, amounts = value
        if len(names) != len(amounts):
            raise ValidationError(uneven_rows(len(names), len(amounts)))
        try:
            given = amounts_from_rows(
                list(zip(names, amounts, strict=True)),
                self.param.name,
                columns=self.param.columns,
                words=self.words,
            )
        except RuleError as error:
            raise ValidationError(error.message) from None
        return given or None


POSTED_FIELDS: dict[str, type[_Posted]] = {
    "int": _Whole,
    "bool": _Ticked,
    "choices": _Picked,
    "textarea": _Textarea,
    "json": _JSON,
}


def posted_form(spec: ActionForm, sheet: Mapping[str, Any] | None = None) -> type[forms.Form]:
    """The Django form of an action, built from its `Param`s: one field per parameter, named as the inputs.
    `sheet`: the character's as the GM sees it, whose targets' words name the rows of an amounts parameter."""
    fields: dict[str, forms.Field] = {}
    for param in spec.params:
        if param.kind == "amounts":
            fields[f"p_{param.name}"] = _Amounts(param, dict(_targets(param, sheet)))
        else:
            fields[f"p_{param.name}"] = POSTED_FIELDS.get(param.kind, _Posted)(param)
    return type("PostedActionForm", (forms.Form,), fields)


def parse_action(
    ruleset: str, action: str, data: QueryDict, sheet: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The posted form as the API's action body: {"type": action, params..., "rolls": {...}}. `sheet`: the
    character's as the GM sees it (the words of an amounts parameter's rows, in its errors)."""
    check_posted(data, action_inputs(ruleset, action))
    spec = get_ruleset(ruleset).action_form(action)
    form = posted_form(spec, sheet)(data)
    if not form.is_valid():
        # The first parameter in the form's order that is wrong, as the service would name it.
        param = next(param for param in spec.params if f"p_{param.name}" in form.errors)
        raise RuleError(param.name, form.errors[f"p_{param.name}"][0])
    body: dict[str, Any] = {"type": action}
    for param in spec.params:
        value = form.cleaned_data[f"p_{param.name}"]
        if value is not None:
            body[param.name] = value
    rolls = {}
    for roll in spec.rolls:
        dice = _roll(roll, data)
        if dice is not None:
            rolls[roll.name] = dice
    if rolls:
        body["rolls"] = rolls
    if data.get("ask") == "server":
        body["ask"] = False  # "roll the rest for me": the server rolls what the table did not
    return body


# --- characters -----------------------------------------------------------------------------------------------

# A map attribute (names to numbers) is typed as rows of a name and a number.
ATTRIBUTE_INPUT_KINDS = {"map": "amounts"}


def _attributes(ruleset: str) -> tuple[Attribute, ...]:
    """The attributes a character of the ruleset is created with, as the ruleset describes them."""
    sheet = get_ruleset(ruleset).sheet
    return sheet.attributes if sheet is not None else ()


def _attribute_input(attribute: Attribute) -> str:
    return f"a_{attribute.name.replace('.', '__')}"


def attribute_fields(
    ruleset: str, data: QueryDict | None = None, errors: dict[str, str] | None = None
) -> list[Field]:
    errors = errors or {}
    out = []
    for attribute in _attributes(ruleset):
        input_name = _attribute_input(attribute)
        rows: list[AmountRow] = []
        if attribute.kind == "bool":
            value: Any = (data.get(input_name) == "on") if data is not None else bool(attribute.default)
        elif attribute.kind == "map":
            value, rows = None, _typed_rows(data, input_name)
        else:
            value = data.get(input_name, "") if data is not None else ""
        out.append(
            Field(
                name=attribute.name,
                input=input_name,
                kind=ATTRIBUTE_INPUT_KINDS.get(attribute.kind, attribute.kind),
                label=attribute.label,
                required=attribute.required,
                value=value,
                help=attribute.help,
                error=errors.get(f"attributes.{attribute.name}", ""),
                rows=rows,
                columns=attribute.columns,
                typed=attribute.kind == "map",
            )
        )
    return out


def _typed_rows(data: QueryDict | None, input_name: str) -> list[AmountRow]:
    """The rows of typed names and numbers as they were posted or filled (the rows left empty dropped), then
    `EMPTY_ROWS` empty ones to add to them."""
    names, amounts = row_inputs(input_name)
    filled = []
    if data is not None:
        for name, amount in zip(data.getlist(names), data.getlist(amounts), strict=False):
            if name.strip() or amount.strip():
                filled.append(AmountRow(name, "", amount))
    return filled + [AmountRow("", "", "") for _ in range(EMPTY_ROWS)]


def character_inputs(ruleset: str) -> dict[str, str]:
    """The inputs of the character form, each with the field its errors name."""
    inputs = {"key": "key", "name": "name", "player": "player"}
    for attribute in _attributes(ruleset):
        input_name = _attribute_input(attribute)
        names = row_inputs(input_name) if attribute.kind == "map" else (input_name,)
        inputs.update(dict.fromkeys(names, f"attributes.{attribute.name}"))
    return inputs


def place_character_error(ruleset: str, field_name: str, message: str) -> dict[str, str]:
    """Put an error of the character form on the field it names; one inside an attribute
    (`attributes.skills.driver`) on that attribute, or it would be shown nowhere: named by the row's name
    ("driver: ...") in a map's rows, by its path elsewhere."""
    if field_name in ("name", "player"):
        return {field_name: message}
    for attribute in _attributes(ruleset):
        where = f"attributes.{attribute.name}"
        if field_name == where:
            return {where: message}
        if field_name.startswith(f"{where}."):
            inside = field_name.removeprefix(f"{where}.") if attribute.kind == "map" else field_name
            return {where: f"{inside}: {message}"}
    # `detail`: a refusal of the whole form (a limit on what one user may create, campaign.limits).
    return {"form": message if field_name in ("form", "detail") else f"{field_name}: {message}"}


def parse_attributes(
    ruleset: str, data: QueryDict, inputs: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The posted attributes as the API's object. `inputs`: the form's whole set (the character form's if None)."""
    check_posted(data, character_inputs(ruleset) if inputs is None else inputs)
    attributes: dict[str, Any] = {}
    for attribute in _attributes(ruleset):
        name, input_name = attribute.name, _attribute_input(attribute)
        if attribute.kind == "bool":
            value: Any = _ticked(data, input_name, f"attributes.{name}")
        elif attribute.kind == "map":
            rows = posted_rows(data, input_name, f"attributes.{name}")
            if rows is None:
                continue
            # Every row left empty: none, which an edit takes as every name dropped.
            value = amounts_from_rows(rows, f"attributes.{name}", columns=attribute.columns)
        else:
            raw = data.get(input_name, "").strip()
            if not raw:
                continue
            try:  # an int: the kinds are int, bool and map (rules/sheet.py)
                value = int(raw)
            except ValueError:
                raise RuleError(f"attributes.{name}", f"expected a whole number, got {raw!r}") from None
        if "." in name:
            group, key = name.split(".", 1)
            attributes.setdefault(group, {})[key] = value
        else:
            attributes[name] = value
    return attributes


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


def parse_advance(data: QueryDict) -> dict[str, Any]:
    """The posted clock form as the API's `advance` object (the service checks the unit and the amount)."""
    check_posted(data, {"key": "key", "unit": "advance", "amount": "advance", "stop_on": "stop_on"})
    unit = data.get("unit", "")
    raw = data.get("amount", "").strip()
    try:
        amount: Any = int(raw)
    except ValueError:
        raise RuleError(
            f"advance.{unit}" if unit else "advance", f"expected a whole number above 0, got {raw!r}"
        ) from None
    return {unit: amount}


def board_of(ruleset: str) -> Board | None:
    """What the ruleset says of its table (rules/sheet.py, `Board`), if it says anything."""
    sheet = get_ruleset(ruleset).sheet
    return sheet.board if sheet is not None else None


def card_actions(ruleset: str) -> dict[str, str]:
    """The actions a character's card on the board offers, each with its label: the ruleset's board actions, the
    GM note and Undo every ruleset has, then every other action of the ruleset (`more_card_actions`), so that
    nothing the rules allow needs the character's page."""
    rules = get_ruleset(ruleset)
    board = board_of(ruleset)
    labels = {a.action: a.label for a in board.actions} if board is not None else {}
    first = (*labels, "note", "undo")
    return {
        action: labels.get(action) or rules.action_form(action).label
        for action in (*first, *more_card_actions(ruleset))
    }


def more_card_actions(ruleset: str) -> tuple[str, ...]:
    """The ruleset's actions its board does not name: a card offers them, whole, under "More actions"."""
    board = board_of(ruleset)
    named = {a.action for a in board.actions} if board is not None else set()
    return tuple(action for action in action_forms(ruleset) if action not in named and action != "note")


def _card_inputs(ruleset: str, action: str) -> tuple[str, ...] | None:
    """The inputs of `action` a card shows (None: all of them, as for the note and Undo)."""
    board = board_of(ruleset)
    for card_action in board.actions if board is not None else ():
        if card_action.action == action:
            return card_action.inputs
    return None


def card_form(
    ruleset: str,
    action: str,
    *,
    injuries: list[tuple[str, str]] | None = None,
    data: QueryDict | None = None,
    errors: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
    sheet: Mapping[str, Any] | None = None,
    table: bool = False,
) -> ActionFormView:
    """An action's form as a card shows it: the action's own form (`build_form`) cut down to the inputs the
    ruleset's board names. An error of an input the card does not show is said on top of the form. `table`: the
    campaign rolls at the table, and the card asks every roll itself (`table_dice_form`): its rolls are all kept."""
    form = build_form(
        ruleset, action, injuries=injuries, data=data, errors=errors, options=options, sheet=sheet
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


def parse_numbered(ruleset: str, data: QueryDict) -> tuple[str, Any, dict[str, Any]]:
    """The posted "several NPCs" form: the name they share, how many, their attributes (as the API's body)."""
    inputs = {**NUMBERED_INPUTS, **{k: v for k, v in character_inputs(ruleset).items() if k.startswith("a_")}}
    attributes = parse_attributes(ruleset, data, inputs)
    raw = data.get("count", "").strip()
    try:
        count: Any = int(raw)
    except ValueError:
        raise RuleError(
            "count", f"expected a whole number of 1 to {services.MAX_NUMBERED}, got {raw!r}"
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
        raise RuleError("at", f"expected the game time the fight starts at, got {raw!r}") from None


# --- characters and campaigns change in play --------------------------------------------------------------------


def _current_inputs(ruleset: str, attributes: Mapping[str, Any]) -> QueryDict:
    """The character form's inputs filled with the character's current attributes, as a GM would type them."""
    data = QueryDict(mutable=True)
    for attribute in _attributes(ruleset):
        group, _, key = attribute.name.partition(".")
        value = attributes.get(group)
        if key:
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is None or value is False:
            continue
        if attribute.kind == "bool":
            data[_attribute_input(attribute)] = "on"
        elif attribute.kind == "map" and isinstance(value, Mapping):
            names, amounts = row_inputs(_attribute_input(attribute))
            data.setlist(names, [str(key) for key in value])
            data.setlist(amounts, [str(amount) for amount in value.values()])
        elif isinstance(value, dict | list):
            data[_attribute_input(attribute)] = json.dumps(value)
        else:
            data[_attribute_input(attribute)] = str(value)
    return data


def edit_fields(
    ruleset: str,
    attributes: Mapping[str, Any],
    data: QueryDict | None = None,
    errors: dict[str, str] | None = None,
) -> list[Field]:
    """The attribute inputs of a character's edit: those the ruleset lets change in play, filled with the current
    values (or with what was posted, to correct it)."""
    changeable = get_ruleset(ruleset).changeable_attributes
    shown = data if data is not None else _current_inputs(ruleset, attributes)
    return [f for f in attribute_fields(ruleset, shown, errors) if f.name.split(".")[0] in changeable]


def parse_edit(ruleset: str, data: QueryDict, attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The posted edit as the API's PATCH body. The form shows every value, so a map it shows whole (skills) is
    what the GM wants: a key left out of it is dropped."""
    changeable = get_ruleset(ruleset).changeable_attributes
    posted = parse_attributes(ruleset, data)
    patch: dict[str, Any] = {}
    for name, value in posted.items():
        if name not in changeable:
            continue
        current = attributes.get(name)
        shown_whole = isinstance(value, dict) and any(
            attribute.name == name and attribute.kind == "map" for attribute in _attributes(ruleset)
        )
        if shown_whole and isinstance(current, dict):
            value = {**dict.fromkeys(current), **value}
        patch[name] = value
    return {
        "name": data.get("name", ""),
        "player": data.get("player", "").strip() or None,
        "attributes": patch,
    }


# --- table dice: the action form asks for one roll at a time ------------------------------------------------------

UNFINISHED_CHAIN = (
    "the last die is a 6: roll it again and type that die too (Rule of Six: a 6 is rolled again and added)"
)


QUICK_INPUT = "quick"
QUICK_NOT_HERE = (
    "All the dice: this campaign does not roll at the table (option table_dice); type each roll's dice in its own "
    "boxes, or leave them empty for the server to roll them"
)
ROW_HELP = "a 6's extra roll after it"


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


def _chains(faces: list[int]) -> list[list[int]]:
    """Dice typed as rolled, grouped as the Rule of Six reads them: [1, 6, 3, 4] -> [[1], [6, 3], [4]]."""
    chains: list[list[int]] = [[]]
    for face in faces:
        chains[-1].append(face)
        if face != 6:
            chains.append([])
    return [chain for chain in chains if chain]


def _faces(raw: str) -> list[int] | None:
    try:
        return [int(text) for text in raw.replace(",", " ").split()]
    except ValueError:
        return None


def roll_spec(spec: ActionForm, name: str) -> RollSpec | None:
    return next((r for r in spec.rolls if r.name == name.split(":", 1)[0]), None)


def dice_error_words(ruleset: str, action: str, error: RuleError, data: QueryDict) -> RuleError:
    """A dice error of the rules (`rules.dice.DiceError`) in the words a form says beside the roll: the roll's
    name, how the dice typed were read and what to type ("Body check: the pool is 5 dice, 4 read: 6 then 3 reads
    as one die of 9; type each die as rolled, a 6's extra roll after it"); never a field name or a list's repr."""
    detail, name, count = (getattr(error, key, None) for key in ("detail", "roll", "count"))
    if detail is None or name is None:
        return error
    roll = roll_spec(get_ruleset(ruleset).action_form(action), name)
    if roll is None:
        return error
    as_rolled = data.get(f"d_{name}", "").strip() if roll.open_ended else ""
    faces = _faces(as_rolled) if as_rolled else None
    if faces and count is not None:
        totals = [sum(chain) for chain in _chains(faces)]
        if len(totals) != count:
            read = "; ".join(
                f"{' then '.join(map(str, chain))} reads as one die of {sum(chain)}"
                for chain in _chains(faces)
                if len(chain) > 1
            )
            return RuleError(
                error.field,
                f"{roll.label}: the pool is {_dice(count)}, {len(totals)} read"
                f"{': ' + read if read else ''}; type each die as rolled, {ROW_HELP}",
            )
    words = detail.replace("[", "").replace("]", "")
    return RuleError(error.field, f"{roll.label}: {words}")


def _roll_words(roll: RollSpec) -> str:
    """A roll as the quick row lists it: "Hit location (2d6)", "Body check (a pool of d6: ...; as rolled)"."""
    if roll.count:
        return f"{roll.label} ({roll.count}d{roll.sides})"
    size = f": {roll.size.split(' (')[0]}" if roll.size else ""
    rolled = f"; as rolled, {ROW_HELP} when the Rule of Six applies" if roll.open_ended else ""
    return f"{roll.label} (a pool of d{roll.sides}{size}{rolled})"


def quick_list(spec: ActionForm) -> list[str]:
    """The rolls an action may need, in the order the rules ask them, with their dice (the quick row's help)."""
    return [_roll_words(roll) for roll in spec.rolls]


def quick_row(data: QueryDict) -> list[int]:
    """The dice of the quick row, as typed (each face as rolled), or a RuleError naming the row."""
    raw = data.get(QUICK_INPUT, "").replace(",", " ").split()
    faces = []
    for text in raw:
        try:
            faces.append(int(text))
        except ValueError:
            raise RuleError(QUICK_INPUT, f"All the dice: expected whole numbers, got {text!r}") from None
    return faces


def take_from_row(
    ruleset: str, action: str, faces: list[int], need: Mapping[str, Any], data: QueryDict
) -> tuple[list[int], list[int]]:
    """Take the dice of the roll the rules ask (`needs_roll`) from the front of the quick row: the dice as the rules
    read them and the row's rest. The dice taken go into `data` as the roll's own inputs, so the form keeps them
    (a given roll, or the roll asked again with its error); a row too short for the roll is that roll's error."""
    name, count, sides = need["name"], need["count"], need["sides"]
    where = f"rolls.{name}"
    if need.get("open_ended"):
        taken, totals, chain = 0, [], 0
        while taken < len(faces) and len(totals) < count:
            chain += faces[taken]
            taken += 1
            if faces[taken - 1] != 6:
                totals.append(chain)
                chain = 0
        data[f"d_{name}"] = " ".join(map(str, faces[:taken]))
        if len(totals) < count:
            read = "; ".join(
                f"{' then '.join(map(str, c))} reads as one die of {sum(c)}"
                for c in _chains(faces[:taken])
                if len(c) > 1
            )
            raise RuleError(
                where,
                f"{need['label']}: the pool is {_dice(count)}, the row held {len(totals)}"
                f"{': ' + read if read else ''}; type each die as rolled, {ROW_HELP}",
            )
        return totals, faces[taken:]
    dice = faces[:count]
    if ":" in name or count == 0:
        raise RuleError(where, f"{need['label']}: type this roll on its own")
    roll = roll_spec(get_ruleset(ruleset).action_form(action), name)
    if roll is not None and roll.count == count:
        for i, die in enumerate(dice):
            data[f"r_{name}_{i}"] = str(die)
    else:
        data[f"r_{name}"] = " ".join(map(str, dice))
    if len(dice) < count:
        raise RuleError(
            where,
            f"{need['label']}: {_dice(count)} of 1-{sides}, the row held {len(dice)}; type them all",
        )
    return dice, faces[count:]


def _given_rolls(spec: ActionForm, data: QueryDict, wrong: set[str]) -> list[GivenRoll]:
    """The rolls the form holds (each as the rules read it), to show and to post again; not those given wrong,
    which are asked again with their error."""
    given = []
    for roll in spec.rolls:
        if roll.name in wrong:
            continue
        try:
            dice = _roll(roll, data)
        except RuleError:
            continue  # shown with its error on the asked roll
        if dice is None:
            continue
        text = " ".join(str(die) for die in dice)
        as_rolled = data.get(f"d_{roll.name}", "").strip() if roll.open_ended else ""
        if roll.count > 0 and len(dice) == roll.count:
            hidden = [(f"r_{roll.name}_{i}", str(die)) for i, die in enumerate(dice)]
        elif as_rolled:
            hidden = [(f"d_{roll.name}", " ".join(as_rolled.replace(",", " ").split()))]
        else:
            hidden = [(f"r_{roll.name}", text)]
        shown = ", ".join(str(die) for die in dice)
        if as_rolled:
            shown = f"{' '.join(as_rolled.replace(',', ' ').split())}, totals {shown}"
        given.append(GivenRoll(roll.label, shown, hidden))
    return given


def _asked_again(roll: RollSpec, data: QueryDict, error: str) -> AskedRoll:
    """A roll given wrong, asked again with what was typed in it and its error beside it."""
    as_rolled = roll.open_ended and bool(data.get(f"d_{roll.name}", "").strip())
    if roll.count > 0:
        inputs = [f"r_{roll.name}_{i}" for i in range(roll.count)]
        prompt = f"{roll.label}: roll {roll.count}d{roll.sides}"
    else:
        inputs = [f"d_{roll.name}" if as_rolled or roll.open_ended else f"r_{roll.name}"]
        prompt = f"{roll.label}: roll the pool of d{roll.sides}"
        if not as_rolled and roll.open_ended and data.get(f"r_{roll.name}", "").strip():
            inputs = [f"r_{roll.name}"]
    values = [data.get(name, "") for name in inputs]
    return AskedRoll(
        roll.name,
        prompt,
        "",
        inputs,
        roll.sides,
        as_rolled=inputs[0].startswith("d_"),
        pool=roll.count == 0,
        values=values,
        error=error,
    )


def table_dice_form(
    form: ActionFormView, ruleset: str, data: QueryDict | None, needs: Mapping[str, Any] | None
) -> ActionFormView:
    """The action's form in a table-dice campaign: its parameters and, fresh, the quick row (every die typed at
    once, in the order the rules ask); then the rolls given so far and, when the rules need one more, that roll
    alone with what it decides and its target; or a roll given wrong, asked again with its error beside it."""
    spec = get_ruleset(ruleset).action_form(form.action)
    form.table_dice = bool(spec.rolls)  # a form without dice (a note, Undo) has no dice to ask
    wrong = {r.name: r.error for r in form.rolls if r.error}
    form.given = _given_rolls(spec, data, set(wrong)) if data is not None else []
    for item in form.rolls:
        item.error = ""
    if wrong:
        name, error = next(iter(wrong.items()))
        roll = roll_spec(spec, name)
        assert roll is not None and data is not None
        form.asked = _asked_again(roll, data, error)
        return form
    if needs is None:
        form.quick = quick_list(spec) if not form.given and spec.rolls else []
        form.quick_value = data.get(QUICK_INPUT, "") if data is not None else ""
        return form
    name = needs["name"]
    roll = roll_spec(spec, name)
    fixed = roll is not None and roll.count > 0 and roll.count == needs["count"]
    as_rolled = bool(needs.get("open_ended"))
    if fixed:
        inputs = [f"r_{name}_{i}" for i in range(needs["count"])]
    else:
        inputs = [f"d_{name}" if as_rolled else f"r_{name}"]
    form.asked = AskedRoll(name, needs["prompt"], needs["why"], inputs, needs["sides"], as_rolled, not fixed)
    return form


def parse_clock_roll(data: QueryDict) -> dict[str, Any]:
    """The board's answer to a waiting clock as the API's body: `{name: dice}`, or `{"ask": false}`."""
    check_posted(data, {"key": "key", "roll": "roll", "dice": "dice", "as_rolled": "dice", "ask": "ask"})
    if data.get("ask") == "server":
        return {"ask": False}
    name = data.get("roll", "")
    where = f"rolls.{name}"
    as_rolled = data.get("as_rolled", "").strip()
    if as_rolled:
        return {name: dice_as_rolled(as_rolled, where)}
    text = data.get("dice", "").replace(",", " ").strip()
    if not text:
        raise RuleError(where, "expected the dice rolled, separated by spaces")
    return {name: [_die(value, where) for value in text.split()]}
