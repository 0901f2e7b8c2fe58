"""An action's form built from the ruleset's description, and a posted action parsed into the API's body."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms import widgets
from django.http import QueryDict

from campaign.web.forms.core import (
    KNOWN_KINDS,
    UNTICKED,
    ActionFormView,
    AmountRow,
    Field,
    RollField,
    _json,
    amounts_from_rows,
    check_posted,
    row_inputs,
    ticked,
    uneven_rows,
)
from campaign.web.forms.dice import QUICK_INPUT, _roll, dice_example, per_choice_rolls
from rules.ruleset import NOTE_FORM, ActionForm, Param, RuleError, Ruleset
from rules.text import given


def action_forms(ruleset: Ruleset) -> dict[str, ActionForm]:
    forms = dict(ruleset.forms)
    forms["note"] = NOTE_FORM
    return forms


def _choices(
    param: Param, injuries: list[tuple[str, str]], sheet: Mapping[str, Any] | None = None
) -> list[tuple[str, str]]:
    if param.picker:
        if param.offers is not None and sheet is not None:
            return param.offers(sheet)[0]
        if param.choices:  # a choice picked from the sheet (a limb whose bones may be set), drawn without one
            return [(choice, param.word(choice)) for choice in param.choices]
        return injuries
    return [(choice, param.word(choice)) for choice in param.choices]


def _help(param: Param, sheet: Mapping[str, Any] | None) -> str:
    """A parameter's help, and for a picker that offers some injuries only, why the others are not offered."""
    if not param.picker or param.offers is None or sheet is None:
        return param.help
    return " ".join(text for text in (param.help, param.offers(sheet)[1]) if text)


def _empty_choice(param: Param, value: Any) -> str:
    """What a choice's empty entry says, or "" for no empty entry (see `Field.empty`): an optional choice's in its
    declared words (`Param.empty`: "every undiagnosed hit"), "(none)" where the declaration gives none."""
    if param.required:
        return "(choose)" if value in (None, "") else ""
    return (f"({param.empty})" if param.empty else "(none)") if param.default is None else ""


def _targets(param: Param, sheet: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """What an amounts parameter may give to, as (name, words), from the GM's sheet of the character."""
    return param.targets(sheet or {}) if param.targets is not None else []


# The GM's sheet of a character, or how to draw it when it is needed (a posted form's refusal naming a row).
Sheet = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None


class _Words(Mapping[str, str]):
    """An amounts parameter's targets' words, drawn from the sheet the first time one is asked for: a posted form
    that is not refused never presents the character."""

    def __init__(self, param: Param, sheet: Sheet) -> None:
        self.param, self.sheet = param, sheet
        self.drawn: dict[str, str] | None = None

    def _drawn(self) -> dict[str, str]:
        if self.drawn is None:
            sheet = self.sheet() if callable(self.sheet) else self.sheet
            self.drawn = dict(_targets(self.param, sheet))
        return self.drawn

    def __getitem__(self, key: str) -> str:
        return self._drawn()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._drawn())

    def __len__(self) -> int:
        return len(self._drawn())


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
    ruleset: Ruleset,
    action: str,
    *,
    injuries: list[tuple[str, str]] | None = None,
    data: QueryDict | None = None,
    errors: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
    sheet: Mapping[str, Any] | None = None,
    attributes: Mapping[str, Any] | None = None,
) -> ActionFormView:
    """The form of one action, filled with `data` (a failed post) or the defaults, with `errors` placed.
    `injuries`: what a `picker` parameter may name (`CharacterSheet.injury_choices`); `options`:
    the campaign's, whose switched-off options leave their parameters out (`Param.option`); `sheet`: the
    character's as the GM sees it, for the targets of an amounts parameter (`Param.targets`); with `attributes`
    (the character's now) and the options, the target its dice are read against now (`ActionForm.help_for`)."""
    spec = ruleset.action_form(action)
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
                # A box the post did not show (a card's form) is drawn as its declaration has it.
                raw = data.get(name)
                value: Any = raw == "on" if raw in ("on", UNTICKED) else param.initial_for(sheet)
            elif kind == "choices":
                value = data.getlist(name)
            else:
                value = data.get(name, "")
        elif kind == "json" and param.initial_for(sheet) is not None:
            value = json.dumps(param.initial_for(sheet))
        elif kind == "choices":
            value = list(param.initial_for(sheet) or [])
        else:
            value = param.initial_for(sheet)
        fields.append(
            Field(
                name=param.name,
                input=name,
                kind=kind,
                label=param.label,
                required=param.required,
                value=value,
                choices=_choices(param, injuries or [], sheet)
                if kind in ("choice", "choices", "picker")
                else [],
                help=_help(param, sheet),
                error=errors.pop(param.name, ""),
                empty=_empty_choice(param, value) if kind in ("choice", "picker") else "",
            )
        )
    rolls: list[RollField] = []
    for roll in spec.rolls:
        item = RollField(roll.name, roll.label, roll.count, roll.sides, roll.help)
        if roll.count == 1:
            item.inputs = [(f"r_{roll.name}_0", data.get(f"r_{roll.name}_0", "") if data is not None else "")]
        else:  # several dice in one box (`forms.dice._roll`): a 2d6 is one input, "3 4"
            item.pool_input = f"r_{roll.name}"
            item.pool_value = data.get(item.pool_input, "") if data is not None else ""
            if roll.count:
                item.example = dice_example(roll.count)
        item.error = errors.pop(f"rolls.{roll.name}", "")
        rolls.append(item)
    form = ActionFormView(
        action=action,
        label=spec.label,
        help=spec.help_for(sheet, attributes, options),
        fields=fields,
        rolls=rolls,
        key=str(uuid.uuid4()),
    )
    form.quick_error = errors.pop(QUICK_INPUT, "")  # table dice: the row of every die, as typed
    # Whatever did not land on a field (type, clock, a nested name) is shown on top of the form.
    form.error = " ".join(errors.values())
    return form


def action_inputs(ruleset: Ruleset, action: str) -> dict[str, str]:
    """The inputs an action's form posts, each with the field of the API's body its errors name."""
    spec = ruleset.action_form(action)
    inputs = {"key": "key"}
    if action == "undo":
        inputs[UNDO_VERSION_INPUT] = "expected_version"  # the version whose latest entry the button names
    for param in spec.params:
        names = row_inputs(f"p_{param.name}") if param.kind == "amounts" else (f"p_{param.name}",)
        inputs.update(dict.fromkeys(names, param.name))
    if spec.rolls:
        inputs["ask"] = "ask"  # table dice: "let the server roll the rest"
        inputs[QUICK_INPUT] = QUICK_INPUT  # table dice: all the dice in one row (`take_from_row`)
    for roll in spec.rolls:
        names = [f"r_{roll.name}_0"] if roll.count == 1 else [f"r_{roll.name}"]
        if roll.open_ended:
            names.append(f"d_{roll.name}")  # the dice as rolled (table dice)
        inputs.update(dict.fromkeys(names, f"rolls.{roll.name}"))
    return inputs


def spec_param(spec: ActionForm, name: str) -> Param:
    return next(param for param in spec.params if param.name == name)


def place_error(ruleset: Ruleset, action: str, field_name: str, message: str) -> dict[str, str]:
    """Put a service error on the field it names: `severity`, `rolls.location`, `allocation.ch1` -> allocation."""
    spec = ruleset.action_form(action)
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
    return {
        "form": f"{field_name}: {message}"
        if field_name not in ("type", "form", "expected_version")
        else message
    }


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
            raise ValidationError(f"expected a whole number, got {given(value.strip())}") from None


class _Ticked(_Posted):
    """A checkbox (`core.ticked`): yes, no, or None when the form did not show it, which the rules read as the
    parameter left out (its declared default), as the API does."""

    def to_python(self, value: Any) -> Any:
        try:
            return ticked(value)
        except ValueError as error:
            raise ValidationError(str(error)) from None


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
        self.words: Mapping[str, str] = {} if words is None else words

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


def posted_form(spec: ActionForm, sheet: Sheet = None) -> type[forms.Form]:
    """The Django form of an action, built from its `Param`s: one field per parameter, named as the inputs.
    `sheet`: the character's as the GM sees it (or how to draw it), whose targets' words name the rows of an
    amounts parameter in a refusal."""
    fields: dict[str, forms.Field] = {}
    for param in spec.params:
        if param.kind == "amounts":
            fields[f"p_{param.name}"] = _Amounts(param, _Words(param, sheet))
        else:
            fields[f"p_{param.name}"] = POSTED_FIELDS.get(param.kind, _Posted)(param)
    return type("PostedActionForm", (forms.Form,), fields)


def parse_action(ruleset: Ruleset, action: str, data: QueryDict, sheet: Sheet = None) -> dict[str, Any]:
    """The posted form as the API's action body: {"type": action, params..., "rolls": {...}}. `sheet`: the
    character's as the GM sees it, or how to draw it (the words of an amounts parameter's rows, in its errors: drawn
    only for a refusal that names a row)."""
    spec = ruleset.action_form(action)
    inputs = action_inputs(ruleset, action)
    per_choice = per_choice_rolls(spec, data)
    for roll in per_choice:  # table dice: a roll for each choice (`diagnosis:ch1`), as the form asked it
        names = [f"r_{roll.name}", *([f"d_{roll.name}"] if roll.open_ended else [])]
        inputs.update(dict.fromkeys(names, f"rolls.{roll.name}"))
    check_posted(data, inputs)
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
    for roll in (*spec.rolls, *per_choice):
        dice = _roll(roll, data)
        if dice is not None:
            rolls[roll.name] = dice
    if rolls:
        body["rolls"] = rolls
    if data.get("ask") == "server":
        body["ask"] = False  # "roll the rest for me": the server rolls what the table did not
    if action == "undo" and data.get(UNDO_VERSION_INPUT, "").strip():
        body["expected_version"] = _undo_version(data[UNDO_VERSION_INPUT])
    return body


UNDO_VERSION_INPUT = "expected_version"


def _undo_version(raw: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        raise RuleError("expected_version", f"expected a whole number, got {given(raw)}") from None
