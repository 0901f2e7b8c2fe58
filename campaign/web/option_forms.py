"""The house rules as web forms, drawn from the rulesets' option declarations (`rules/options.py`).

The board's house-rules form and the new-campaign form show each option with the widget its kind asks for: a select
for a choice, a checkbox for a yes/no, a number with its unit beside it, a duration as a number and a unit
(minutes, hours, days, weeks: never game seconds), a date and time typed as the game writes it (a text input:
"2053-01-01 00:00:00", never the browser's own picker and its locale's format, docs/web.md "Dates"), and a table as
rows of numbers. A posted form
becomes the options as the API takes them (the stored shapes), so the service checks it and answers with the same
messages; an error is put beside the option it names, in the option's words.

Inputs: `o_<option>` (a duration's unit `o_<option>__unit`); a table's cells `o_<option>__<row>__<field>` (a row
of one number: `o_<option>__<row>`; a table without rows: `o_<option>__<field>`), a duration cell's unit after them
with `__unit`. The board's form also carries a digest of what it was drawn from (`drawn`): a save of a form drawn
before another change is refused, not allowed to put the old values back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.http import QueryDict

from rules import options as declared
from rules.options import Column, Declarations, Duration, Option, Table
from rules.params import RuleError
from rules.ruleset import Ruleset
from rules.text import given

# A game date and time as the game writes it ('2053-01-01 00:30:00', `rules.game_dates.date_words`): the text input's
# value; the option's `parse` takes it (ISO 8601 with a space), as it takes the API's "2053-01-01T00:30:00".
DATE_TIME_INPUT = "%Y-%m-%d %H:%M:%S"


@dataclass
class Cell:
    """One number of a table (or the one input of a duration or a number): its input, value and unit."""

    input: str
    value: Any
    label: str
    unit: str = ""
    minimum: int | None = None
    maximum: int | None = None
    step: str = ""  # "any": a number with a fraction is taken
    # A duration: the unit's select (`unit_input`), its choices and the one chosen.
    unit_input: str = ""
    units: list[tuple[str, str]] = field(default_factory=list)
    chosen: str = ""


@dataclass
class TableRow:
    label: str
    cells: list[Cell]


@dataclass
class OptionField:
    """An option as the form draws it."""

    name: str
    kind: str
    label: str
    help: str
    origin: str
    now: str  # the value in words ("10 minutes", "yes")
    default: str = ""  # the declared default in words, said beside the origin when the value is another
    input: str = ""
    value: Any = None
    choices: list[tuple[str, str]] = field(default_factory=list)
    cell: Cell | None = None
    columns: list[str] = field(default_factory=list)
    rows: list[TableRow] = field(default_factory=list)
    error: str = ""

    @property
    def help_line(self) -> str:
        """The help, then where the rule comes from in a sentence of its own (with its default when the value is
        another): "The difficulty of a healing treatment roll. A house rule." The declarations' help says
        neither, so each is said once (issue 42: "(house: 15). (house rule) Now: 15.")."""
        said = {declared.SEED: "An optional rule of the source rules", declared.HOUSE: "A house rule"}.get(
            self.origin, ""
        )
        if said and self.default and self.default != self.now:
            said = f"{said}; by default {self.default}"
        return " ".join(text for text in (self.help.strip(), f"{said}." if said else "") if text)


def declarations(ruleset: Ruleset) -> Declarations:
    """The ruleset's options and then the shared ones: the order of the forms."""
    return (*ruleset.options, *declared.SHARED)


def _input(*parts: str) -> str:
    return "o_" + "__".join(part for part in parts if part)


def _duration_cell(setting: Duration | Column, value: int, input_name: str, label: str) -> Cell:
    duration = setting if isinstance(setting, Duration) else setting.as_duration()
    amount, unit = duration.shown(value)
    units = list(duration.units) if unit in duration.units else [*duration.units, unit]
    return Cell(
        input=input_name,
        value=amount,
        label=label,
        minimum=0,
        unit_input=f"{input_name}__unit",
        units=[(name, declared.UNIT_WORDS[name][1]) for name in units],
        chosen=unit,
    )


def _cell(column: Column, value: int, input_name: str, label: str) -> Cell:
    if column.duration:
        return _duration_cell(column, value, input_name, label)
    return Cell(input_name, value, label, unit=column.unit, minimum=column.minimum, maximum=column.maximum)


def _table_rows(setting: Table, value: Mapping[str, Any]) -> list[TableRow]:
    if not setting.rows:
        return [
            TableRow(
                "",
                [
                    _cell(column, value[column.name], _input(setting.name, column.name), column.label)
                    for column in setting.columns
                ],
            )
        ]
    rows = []
    for row in setting.rows:
        if setting.flat:
            column = setting.columns[0]
            cells = [
                _cell(column, value[row.key], _input(setting.name, row.key), f"{row.label}, {column.label}")
            ]
        else:
            cells = [
                _cell(
                    column,
                    value[row.key][column.name],
                    _input(setting.name, row.key, column.name),
                    f"{row.label}, {column.label}",
                )
                for column in setting.columns
            ]
        rows.append(TableRow(row.label, cells))
    return rows


def option_field(setting: Option, value: Any, now: Any, error: str = "") -> OptionField:
    """The field of an option holding `value` (what a refused form was sent, or the value now), with the words of
    `now`, its value in the campaign."""
    out = OptionField(
        name=setting.name,
        kind=setting.kind,
        label=setting.label,
        help=setting.help,
        origin=setting.origin,
        now=setting.words(now),
        default=setting.words(setting.default) if setting.origin in (declared.SEED, declared.HOUSE) else "",
        input=_input(setting.name),
        value=value,
        error=error,
    )
    if isinstance(setting, declared.Choice):
        out.choices = list(setting.choices)
    elif isinstance(setting, declared.Number):
        out.cell = Cell(
            out.input,
            value,
            setting.label,
            unit=setting.unit,
            minimum=setting.minimum,
            maximum=setting.maximum,
            step="any" if setting.fraction else "",
        )
    elif isinstance(setting, Duration):
        out.cell = _duration_cell(setting, value, out.input, setting.label)
    elif isinstance(setting, declared.DateTime):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:  # a refused form's text, shown again as it was typed
            moment = None
        # A refused time zone is shown as typed too: drawn without it, the input would hide why it was refused.
        out.value = value if moment is None or moment.tzinfo is not None else moment.strftime(DATE_TIME_INPUT)
    elif isinstance(setting, Table):
        out.columns = [column.label for column in setting.columns]
        out.rows = _table_rows(setting, value)
    return out


def option_fields(
    ruleset: Ruleset,
    options: Mapping[str, Any],
    errors: Mapping[str, str] | None = None,
    posted: Mapping[str, Any] | None = None,
) -> list[OptionField]:
    """Every option of the campaign (or of a new one: its defaults), with the error that names it; `posted`: what
    a refused form was sent, shown again in its inputs."""
    errors = errors or {}
    shown = shown_values(options, posted or {})
    return [
        option_field(
            setting, shown[setting.name], options[setting.name], errors.get(f"options.{setting.name}", "")
        )
        for setting in declarations(ruleset)
        if setting.name in options
    ]


# --- reading a posted form --------------------------------------------------------------------------------------


def inputs(ruleset: Ruleset) -> dict[str, str]:
    """Every input of the options, each with the field its errors name."""
    out: dict[str, str] = {}
    for setting in declarations(ruleset):
        where = f"options.{setting.name}"
        for input_name in _inputs_of(setting):
            out[input_name] = where
    return out


def _inputs_of(setting: Option) -> list[str]:
    if isinstance(setting, Duration):
        return [_input(setting.name), _input(setting.name, "unit")]
    if not isinstance(setting, Table):
        return [_input(setting.name)]
    names = []
    for row in setting.rows or (None,):
        for column in setting.columns:
            name = _input(setting.name, row.key if row else "", column.name)
            names.append(name)
            if column.duration:
                names.append(f"{name}__unit")
    return names


def _whole(data: QueryDict, input_name: str, where: str) -> int | None:
    raw = data.get(input_name, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise RuleError(where, f"expected a whole number, got {given(raw)}") from None


def _duration(duration: Duration, data: QueryDict, input_name: str, where: str) -> int | None:
    amount = _whole(data, input_name, where)
    if amount is None:
        return None
    unit = data.get(f"{input_name}__unit", duration.stored)
    if unit not in (*duration.units, duration.stored):
        raise RuleError(where, f"expected a unit among {', '.join(duration.units)}, got {given(unit)}")
    return duration.stored_value(amount, unit, where)


def _number(setting: declared.Number, data: QueryDict, where: str) -> Any:
    raw = data.get(_input(setting.name), "").strip()
    if not raw:
        return None
    if not setting.fraction:
        return _whole(data, _input(setting.name), where)
    try:
        value = float(raw)
    except ValueError:
        raise RuleError(where, f"expected a number, got {given(raw)}") from None
    return int(value) if value.is_integer() else value


def _table(setting: Table, data: QueryDict, where: str) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for row in setting.rows or (None,):
        for column in setting.columns:
            name = _input(setting.name, row.key if row else "", column.name)
            cell_where = ".".join(part for part in (where, row.key if row else "", column.name) if part)
            if column.duration:
                value = _duration(column.as_duration(), data, name, cell_where)
            else:
                value = _whole(data, name, cell_where)
            if value is None:
                continue
            if row is None:
                out[column.name] = value
            elif setting.flat:
                out[row.key] = value
            else:
                out.setdefault(row.key, {})[column.name] = value
    return out or None


def _posted(setting: Option, data: QueryDict) -> Any:
    where = f"options.{setting.name}"
    if isinstance(setting, declared.YesNo):
        raw = data.get(_input(setting.name))
        if raw not in (None, "on"):
            raise RuleError(where, f"expected the box ticked (on) or not sent, got {given(raw)}")
        return raw == "on"
    if isinstance(setting, declared.Number):
        return _number(setting, data, where)
    if isinstance(setting, Duration):
        return _duration(setting, data, _input(setting.name), where)
    if isinstance(setting, Table):
        return _table(setting, data, where)
    raw = data.get(_input(setting.name), "").strip()
    if raw and isinstance(setting, declared.DateTime):
        # Typed as the game writes it ("2053-01-01 00:30:00"), posted as the API's value ("2053-01-01T00:30:00");
        # a date the declaration refuses is passed on as typed, for the service to refuse in the same words and
        # the form to show it again.
        try:
            return setting.parse(raw, where)
        except RuleError:
            return raw
    return raw or None


def check_typed(ruleset: Ruleset, posted: Mapping[str, Any]) -> None:
    """Refuse a date the form's options hold as typed (`parse_options` passes a refused one on, so that the form
    shows it again) in the form's words: its example is the form's own shape, "2053-03-14 22:00:00", the one its
    placeholder and help ask for, not the API's with a `T` (the service would refuse it in the API's words)."""
    for setting in declarations(ruleset):
        value = posted.get(setting.name)
        if isinstance(setting, declared.DateTime) and value is not None:
            setting.parse(value, f"options.{setting.name}", declared.START_TYPED, "a game date and time")


def parse_options(ruleset: Ruleset, data: QueryDict) -> dict[str, Any]:
    """The posted options as the API's object: an input left empty leaves its option out (its default, or its
    value now for the house rules), a box not ticked is no. The form's other inputs are the caller's."""
    options = {}
    for setting in declarations(ruleset):
        value = _posted(setting, data)
        if value is not None:
            options[setting.name] = value
    return options


def place_error(ruleset: Ruleset, field_name: str, message: str) -> dict[str, str]:
    """An error of the service put on the option it names, in the option's words: `options.first_aid_tn.D` ->
    on First aid TN, "Deadly: ..."."""
    head, _, rest = field_name.partition(".")
    if head != "options" or not rest:
        return {field_name if field_name in ("form", "options", "name") else "form": message}
    name, _, part = rest.partition(".")
    setting = declared.by_name(declarations(ruleset)).get(name)
    if setting is None:
        return {"form": f"{name.replace('_', ' ')}: {message}"}
    if part and isinstance(setting, Table):
        row_key, _, column_name = part.partition(".")
        row = next((row for row in setting.rows if row.key == row_key), None)
        column = next((column for column in setting.columns if column.name in (column_name, row_key)), None)
        words = ", ".join(text for text in (row.label if row else "", column.label if column else "") if text)
        message = f"{words}: {message}" if words else message
    return {f"options.{name}": message}


def shown_values(options: Mapping[str, Any], posted: Mapping[str, Any]) -> dict[str, Any]:
    """A refused form's options as it shows them again: what was posted over what there was, row by row."""
    shown = dict(options)
    for name, value in posted.items():
        current = shown.get(name)
        if isinstance(value, Mapping) and isinstance(current, Mapping):
            shown[name] = {
                key: {**current[key], **item}
                if isinstance(item, Mapping) and isinstance(current.get(key), Mapping)
                else item
                for key, item in {**current, **value}.items()
            }
        else:
            shown[name] = value
    return shown


DRAWN_INPUT = "drawn"  # the board's house-rules form: what it was drawn from (`drawn`)
CHANGED_SINCE_DRAWN = (
    "the house rules changed after this form was drawn (in another tab, or by another GM): nothing was saved. "
    "They are shown as they are now: make your change again"
)


def drawn(name: str, in_force: Mapping[str, Any]) -> str:
    """The house-rules form's hidden `drawn`: a digest of the campaign's name and options in force as the form is
    drawn. The form posts every option back, so one drawn before another change would put the old value back when
    its GM saved anything else: a save whose digest is no longer the campaign's is refused (`CHANGED_SINCE_DRAWN`)."""
    shown = json.dumps({"name": name, "options": dict(in_force)}, sort_keys=True, default=str)
    return hashlib.sha256(shown.encode()).hexdigest()[:32]
