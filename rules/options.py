"""House rules in the game's words: each campaign option of a ruleset is one typed declaration.

A ruleset lists its options in `rules/<slug>/options.py` as `OPTIONS`, beside its action forms; the options every
ruleset shares (`start`, `time_scale`, `table_dice`, `fight_idle_minutes`) are `SHARED` here. One declaration says
what the option is (a `Choice`, a `YesNo`, a whole `Number` with its range and unit, a `Duration` in the units the
rules speak, a game `DateTime`, or a `Table` of values per level), its label and help in words, its default, and
whether it is the seed's optional rule or a house rule. From it come:

- the check of an option as the API takes it (`read_options`): the stored shape is the API's and stays as it always
  was (a duration in the unit its name says: `_seconds`, `_minutes`, `_days`, `_weeks`), and so do the messages;
- the web forms (`campaign/web/option_forms.py`): a select, a checkbox, a number with its unit beside it, a
  date-time input, rows of numbers; never JSON, and a duration in minutes, hours, days or weeks;
- the words of a value and of a change (`Setting.words`, `change_sentence`): "From now on: Body-check TNs: the
  gentle column (M 2, S 4, D 8)";
- the API's list of rulesets (`Setting.described`: each option's kind, label, help, default, bounds, units,
  choices and origin; the defaults and `api_help`, its words for JSON clients, unchanged) and the OpenAPI schema
  (`Setting.schema`, a JSON Schema of the stored shape);
- what a new value must be beyond its type (`off_units`): a duration a whole number of the smallest unit the rules
  speak it in, never game seconds the form could not show.

Pure Python, no Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rules.params import RuleError, boolean, choice, integer, reject_unknown, require_mapping
from rules.text import given

START_EXAMPLE = (
    "2053-03-14T22:00:00"  # the API's shape (its `options.start`): what its refusals give as an example
)
START_TYPED = "2053-03-14 22:00:00"  # the forms' shape, as the game writes a date: what their refusals give
SEED = "seed"  # the seed's optional rule
HOUSE = "house"  # a house rule (docs/rules/ marks it)
CAMPAIGN = "campaign"  # how the campaign is run (its clock, who rolls): every ruleset's

# The units a duration is shown and typed in, in game seconds; a stored duration's unit is its option's name's.
# A round is every ruleset's combat round or turn (3 s: `rules/<slug>/sheet.py`, `Board.round_seconds`).
UNIT_SECONDS = {"seconds": 1, "rounds": 3, "minutes": 60, "hours": 3600, "days": 86_400, "weeks": 7 * 86_400}
UNIT_WORDS = {"minutes": ("minute", "minutes"), "hours": ("hour", "hours"), "days": ("day", "days")}
UNIT_WORDS |= {"weeks": ("week", "weeks"), "seconds": ("second", "seconds"), "rounds": ("round", "rounds")}


# A number's unit when the number is one ("1 box", not "1 boxes").
SINGULAR = {"boxes": "box", "points": "point", "dice": "die", "successes": "success"}


def amount_words(value: Any, unit: str) -> str:
    """A number with its unit as read aloud: "TN 4", "1 box", "3 boxes", "0.5"."""
    text = f"{value:g}" if isinstance(value, float) else str(value)
    if unit == "TN":
        return f"{unit} {text}"
    return f"{text} {SINGULAR.get(unit, unit) if value == 1 else unit}".strip()


def unit_count(amount: int, unit: str) -> str:
    one, many = UNIT_WORDS[unit]
    return f"{amount} {one if amount == 1 else many}"


@dataclass(frozen=True)
class Setting:
    """What every declaration has. `api_help`: the API's words for it (`GET /api/rulesets/`'s `option_help`,
    written for a JSON client); `help`: a person's, in the game's words."""

    name: str
    label: str
    default: Any
    help: str = ""
    origin: str = HOUSE
    api_help: str = ""

    kind = ""

    def words(self, value: Any) -> str:
        return str(value)

    def described(self) -> dict[str, Any]:
        """The declaration as data (`GET /api/rulesets/`'s `option_declarations`): what every kind has, then
        its kind's own (`_own`): a choice's choices, a number's range and unit, a duration's units, a table's rows
        and columns."""
        return {
            "name": self.name,
            "kind": self.kind,
            "label": self.label,
            "help": self.help,
            "origin": self.origin,
            "default": self.default,
            **self._own(),
        }

    def _own(self) -> dict[str, Any]:
        return {}

    def _schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {**schema, "title": self.label, "description": self.help, "default": self.default}


@dataclass(frozen=True)
class Choice(Setting):
    """One of `choices`, each (value, words)."""

    choices: tuple[tuple[str, str], ...] = ()
    kind = "choice"

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.choices)

    def read(self, raw: Mapping[str, Any], prefix: str) -> Any:
        return choice(raw, self.name, self.values, default=self.default, prefix=prefix)

    def words(self, value: Any) -> str:
        return dict(self.choices).get(value, str(value))

    def schema(self) -> dict[str, Any]:
        return self._schema({"type": "string", "enum": list(self.values)})

    def _own(self) -> dict[str, Any]:
        return {"choices": [{"value": value, "words": words} for value, words in self.choices]}


@dataclass(frozen=True)
class YesNo(Setting):
    kind = "yes_no"

    def read(self, raw: Mapping[str, Any], prefix: str) -> Any:
        return boolean(raw, self.name, default=self.default, prefix=prefix)

    def words(self, value: Any) -> str:
        return "yes" if value else "no"

    def schema(self) -> dict[str, Any]:
        return self._schema({"type": "boolean"})


@dataclass(frozen=True)
class Number(Setting):
    """A whole number from `minimum` to `maximum`; `unit` its words beside the input ("TN", "boxes", "points");
    `fraction`: a number with a fraction is taken too (the clock's speed)."""

    minimum: int = 0
    maximum: int = 1_000_000
    unit: str = ""
    fraction: bool = False
    invalid: str = (
        ""  # the message for a value out of range or of the wrong type, where the reader's would not do
    )
    kind = "number"

    def read(self, raw: Mapping[str, Any], prefix: str) -> Any:
        if not self.fraction:
            return integer(
                raw,
                self.name,
                default=self.default,
                minimum=self.minimum,
                maximum=self.maximum,
                prefix=prefix,
            )
        value = raw.get(self.name, self.default)
        if value is None:
            value = self.default
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not self.minimum <= value <= self.maximum
        ):
            raise RuleError(f"{prefix}.{self.name}", self.invalid.format(value=given(value, typed=True)))
        return value

    def words(self, value: Any) -> str:
        return amount_words(value, self.unit)

    def schema(self) -> dict[str, Any]:
        kind = "number" if self.fraction else "integer"
        return self._schema({"type": kind, "minimum": self.minimum, "maximum": self.maximum})

    def _own(self) -> dict[str, Any]:
        return {
            "minimum": self.minimum,
            "maximum": self.maximum,
            "unit": self.unit,
            "fraction": self.fraction,
        }


@dataclass(frozen=True)
class Duration(Setting):
    """A length of game time, stored as a whole number of `stored` units (the option's name says which), shown
    and typed in one of `units`. `zero`: what 0 means ("off"), or "" when 0 is not allowed (`minimum` above 0)."""

    stored: str = "seconds"
    units: tuple[str, ...] = ("minutes", "hours", "days")
    minimum: int = 0
    maximum: int = 1_000_000
    zero: str = ""
    kind = "duration"

    def read(self, raw: Mapping[str, Any], prefix: str) -> Any:
        return integer(
            raw, self.name, default=self.default, minimum=self.minimum, maximum=self.maximum, prefix=prefix
        )

    @property
    def smallest(self) -> str:
        """The smallest unit the rules speak this time in: a new value is a whole number of it (`off_units`)."""
        return min(self.units, key=UNIT_SECONDS.__getitem__)

    def spoken(self, value: int) -> bool:
        """Whether a stored value is a whole number of `smallest`, so the form shows it in the rules' units."""
        return (value * UNIT_SECONDS[self.stored]) % UNIT_SECONDS[self.smallest] == 0

    def shown(self, value: int) -> tuple[int, str]:
        """The stored value as the form shows it: a whole number of the largest of `units` it is a whole number
        of (a stored value of none of them: in the stored unit)."""
        seconds = value * UNIT_SECONDS[self.stored]
        for unit in sorted(self.units, key=UNIT_SECONDS.__getitem__, reverse=True):
            if seconds % UNIT_SECONDS[unit] == 0:
                return seconds // UNIT_SECONDS[unit], unit
        return value, self.stored

    def stored_value(self, amount: int, unit: str, where: str) -> int:
        """A typed amount of `unit` as stored; a RuleError when it is no whole number of the stored unit."""
        seconds = amount * UNIT_SECONDS[unit]
        whole, left = divmod(seconds, UNIT_SECONDS[self.stored])
        if left:
            raise RuleError(where, f"expected a whole number of {self.stored}, got {amount} {unit}")
        return whole

    def words(self, value: Any) -> str:
        if value == 0 and self.zero:
            return self.zero
        amount, unit = self.shown(value)
        return unit_count(amount, unit)

    def schema(self) -> dict[str, Any]:
        described = f"{self.help} Stored in game {self.stored}. {self.step_words()}".strip()
        return {
            **self._schema({"type": "integer", "minimum": self.minimum, "maximum": self.maximum}),
            "description": described,
        }

    def step_words(self) -> str:
        """What a new value must be beyond its range (`off_units`), for the schema. Not `multipleOf`: a campaign
        stored before keeps its value, and the same schema describes the answers."""
        step = UNIT_SECONDS[self.smallest] // UNIT_SECONDS[self.stored]
        if step == 1:
            return ""
        return f"A new value is a whole number of {self.smallest} (a multiple of {step}); one stored before is kept."

    def _own(self) -> dict[str, Any]:
        return {
            "minimum": self.minimum,
            "maximum": self.maximum,
            "stored": self.stored,
            "units": list(self.units),
            "zero": self.zero,
        }


@dataclass(frozen=True)
class DateTime(Setting):
    """A game date and time, stored as ISO 8601 without a time zone ("2053-01-01T00:00:00"), from year 1 to
    `latest_year`: a game's calendar has no zones, and an offset is refused, not dropped."""

    latest_year: int = 7999
    kind = "date_time"

    def read(self, raw: Mapping[str, Any], prefix: str) -> Any:
        return self.parse(raw.get(self.name, self.default), f"{prefix}.{self.name}")

    def parse(
        self, value: Any, where: str, example: str = START_EXAMPLE, what: str = "an ISO date and time"
    ) -> str:
        """The value as stored, or a RuleError naming `where`. Both shapes are taken (a space or a `T`); the refusal
        says `what` is expected with an `example` in the asker's own shape: the API's by default, a form's
        `START_TYPED` (`campaign.web.option_forms.check_typed`)."""
        if not isinstance(value, str):
            raise RuleError(where, f"expected {what} such as {example}, got {given(value, typed=True)}")
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise RuleError(where, f"expected {what} such as {example}, got {given(value)}") from None
        if moment.tzinfo is not None:
            raise RuleError(
                where,
                f"expected a game date and time without a time zone, such as {example}, got {given(value)}",
            )
        if moment.year > self.latest_year:
            raise RuleError(
                where,
                f"expected a date in the years 1 to {self.latest_year} (the clock may run a thousand years from "
                f"it), got {moment.year}",
            )
        return moment.isoformat()

    def words(self, value: Any) -> str:
        return datetime.fromisoformat(value).strftime("%Y-%m-%d %H:%M")

    def schema(self) -> dict[str, Any]:
        return self._schema(
            # No `format: date-time`: RFC 3339 wants a zone, and the game's calendar has none (an offset is a 400).
            {
                "type": "string",
                "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$",
                "example": self.default or START_EXAMPLE,
            }
        )


@dataclass(frozen=True)
class Row:
    """A row of a table: its key as stored (a wound level, a lethality), its words, and a bound of its own."""

    key: str
    label: str
    maximum: int | None = None


@dataclass(frozen=True)
class Column:
    """A column of a table: a field of each row (`name` "" when each row is one number), a whole number or a
    duration (`duration`: the unit it is stored in, its name's), with its bounds."""

    name: str
    label: str
    minimum: int = 0
    maximum: int = 1_000_000
    unit: str = ""
    duration: str = ""
    units: tuple[str, ...] = ("minutes", "hours", "days")

    def as_duration(self) -> Duration:
        return Duration(
            self.name,
            self.label,
            None,
            stored=self.duration,
            units=self.units,
            minimum=self.minimum,
            maximum=self.maximum,
        )

    def described(self) -> dict[str, Any]:
        """The column as data: a duration's `stored` unit and `units`, else its `unit` ("TN")."""
        out: dict[str, Any] = {"name": self.name, "label": self.label, "minimum": self.minimum}
        out["maximum"] = self.maximum
        if self.duration:
            return {**out, "kind": "duration", "stored": self.duration, "units": list(self.units)}
        return {**out, "kind": "number", "unit": self.unit}

    def words(self, value: int) -> str:
        if self.duration:
            return self.as_duration().words(value)
        return amount_words(value, self.unit)


@dataclass(frozen=True)
class Table(Setting):
    """Values per level: a row per `rows` key (none: the value is one row of fields), a column per `columns`
    field (one column named "": each row is a number). An override names the rows and fields it changes; the rest
    keep their defaults."""

    rows: tuple[Row, ...] = ()
    columns: tuple[Column, ...] = ()
    kind = "table"

    @property
    def flat(self) -> bool:
        return len(self.columns) == 1 and not self.columns[0].name

    def _read_row(self, raw: Any, default: Any, where: str, row: Row | None) -> Any:
        if self.flat:
            column = self.columns[0]
            top = row.maximum if row is not None and row.maximum is not None else column.maximum
            return integer(
                raw,
                row.key if row else "",
                default=default,
                minimum=column.minimum,
                maximum=top,
                prefix=where,
            )
        given = require_mapping(raw, where)
        reject_unknown(given, [column.name for column in self.columns], prefix=where)
        return {
            column.name: integer(
                given,
                column.name,
                default=default[column.name],
                minimum=column.minimum,
                maximum=row.maximum if row is not None and row.maximum is not None else column.maximum,
                prefix=where,
            )
            for column in self.columns
        }

    def read(self, raw: Mapping[str, Any], prefix: str) -> Any:
        where = f"{prefix}.{self.name}"
        given = require_mapping(raw.get(self.name), where)
        if not self.rows:
            return self._read_row(given, self.default, where, None)
        reject_unknown(given, [row.key for row in self.rows], prefix=where)
        if self.flat:
            return {row.key: self._read_row(given, self.default[row.key], where, row) for row in self.rows}
        return {
            row.key: self._read_row(given.get(row.key), self.default[row.key], f"{where}.{row.key}", row)
            for row in self.rows
        }

    def row_words(self, value: Any) -> str:
        """One row (or the fields of a table without rows): 'TN 8, 10 minutes'."""
        if self.flat:
            return self.columns[0].words(value)
        return ", ".join(column.words(value[column.name]) for column in self.columns if column.name in value)

    def words(self, value: Any) -> str:
        if not self.rows:
            return self.row_words(value)
        return "; ".join(
            f"{row.label}: {self.row_words(value[row.key])}" for row in self.rows if row.key in value
        )

    def _column_schema(self, column: Column, row: Row | None) -> dict[str, Any]:
        top = row.maximum if row is not None and row.maximum is not None else column.maximum
        unit = f" (game {column.duration})" if column.duration else ""
        step = column.as_duration().step_words() if column.duration else ""
        return {
            "type": "integer",
            "minimum": column.minimum,
            "maximum": top,
            "title": f"{column.label}{unit}",
            **({"description": step} if step else {}),
        }

    def _row_schema(self, row: Row | None) -> dict[str, Any]:
        if self.flat:
            return self._column_schema(self.columns[0], row)
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {column.name: self._column_schema(column, row) for column in self.columns},
            **({"title": row.label} if row is not None else {}),
        }

    def _own(self) -> dict[str, Any]:
        return {
            "rows": [{"key": row.key, "label": row.label, "maximum": row.maximum} for row in self.rows],
            "columns": [column.described() for column in self.columns],
        }

    def schema(self) -> dict[str, Any]:
        if not self.rows:
            return self._schema(self._row_schema(None))
        return self._schema(
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {row.key: self._row_schema(row) for row in self.rows},
            }
        )


Option = Choice | YesNo | Number | Duration | DateTime | Table
Declarations = tuple[Option, ...]

TABLE_DICE = Choice(
    "table_dice",
    "Who rolls the dice",
    "none",
    choices=(
        ("none", "the server rolls every die the GM does not give"),
        ("actions", "the table rolls for actions: every action asks for each die it needs"),
        ("all", "the table rolls for actions and for the clock: an advance waits for the GM's roll"),
    ),
    help="Who rolls the dice the GM does not type in.",
    origin=CAMPAIGN,
)
# A fight ends by itself after this many game minutes without a combat action, so that downtime is never counted
# in rounds (docs/web.md, "The round counter").
FIGHT_IDLE_MINUTES = 10
FIGHT_IDLE = Duration(
    "fight_idle_minutes",
    "A fight ends by itself after",
    FIGHT_IDLE_MINUTES,
    help="Game time without a combat action after which the board ends the fight and stops counting rounds; 0: the "
    "GM ends it.",
    origin=CAMPAIGN,
    stored="minutes",
    units=("minutes", "hours"),
    maximum=10_080,
    zero="never: the GM ends it",
    api_help="game minutes without a combat action after which a fight ends by itself (0: the GM ends it)",
)
# The options every ruleset shares, checked by the campaign (`campaign.services.validate_campaign_options`).
SHARED: Declarations = (
    DateTime(
        "start",
        "Campaign starts",
        None,  # the ruleset's `default_start`
        help="The game date and time the campaign's clock starts at.",
        origin=CAMPAIGN,
        api_help="the game date and time the campaign's clock starts at",
    ),
    Number(
        "time_scale",
        "Clock speed",
        0,
        help="How much faster than real time the game clock runs on its own; 0: only the GM advances it.",
        origin=CAMPAIGN,
        maximum=86_400,
        unit="times real time",
        fraction=True,
        invalid="expected game seconds per real second, 0 to 86400 (0: manual), got {value}",
        api_help="game seconds per real second for a clock that runs on its own; 0: the GM advances it",
    ),
    TABLE_DICE,
    FIGHT_IDLE,
)
SHARED_NAMES = tuple(setting.name for setting in SHARED)


def read_options(declarations: Declarations, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """A ruleset's options as the API gives them (the shared ones are the campaign's and pass by), checked in the
    declarations' order, each absent one its default."""
    raw = require_mapping(options, "options")
    reject_unknown(raw, [*(setting.name for setting in declarations), *SHARED_NAMES], prefix="options")
    return {setting.name: setting.read(raw, "options") for setting in declarations}


def defaults(declarations: Declarations) -> dict[str, Any]:
    return read_options(declarations, {})


def option_help(declarations: Declarations) -> dict[str, str]:
    """The API's help of each option (`GET /api/rulesets/`), as it has always read."""
    return {setting.name: setting.api_help or setting.help for setting in declarations}


def by_name(declarations: Declarations) -> dict[str, Option]:
    return {setting.name: setting for setting in declarations}


def _cells(setting: Option, value: Any, where: str) -> list[tuple[Duration, Any, str, str]]:
    """The durations of an option's value: (declaration, value, field, words of the field), a table's by cell."""
    if isinstance(setting, Duration):
        return [(setting, value, where, setting.label)]
    if not isinstance(setting, Table) or not isinstance(value, Mapping):
        return []
    out = []
    for row in setting.rows or (None,):
        held = value.get(row.key) if row is not None else value
        for column in setting.columns:
            if not column.duration:
                continue
            cell = held.get(column.name) if isinstance(held, Mapping) else None
            path = ".".join(part for part in (where, row.key if row else "", column.name) if part)
            words = ", ".join(
                part for part in (setting.label, row.label if row else "", column.label) if part
            )
            out.append((column.as_duration(), cell, path, words))
    return out


def off_units(declarations: Declarations, new: Mapping[str, Any], before: Mapping[str, Any]) -> None:
    """Refuse a new duration that is not a whole number of the smallest unit the rules speak it in (a treatment's
    base time of 90 game seconds: 1.5 minutes, which no form could show), naming the field in words. Only what
    changes is held to it (`before`: the options as stored, {} for a new campaign): a campaign stored or imported
    with such a value keeps it, and saving its form unchanged is no new value."""
    for setting in declarations:
        if setting.name not in new:
            continue
        where = f"options.{setting.name}"
        old_cells = {path: cell for _, cell, path, _ in _cells(setting, before.get(setting.name), where)}
        for duration, cell, path, words in _cells(setting, new[setting.name], where):
            if not isinstance(cell, int) or cell == old_cells.get(path) or duration.spoken(cell):
                continue
            unit = duration.smallest
            raise RuleError(
                path,
                f"{words}: expected a whole number of {unit} (the rules speak it in "
                f"{', '.join(duration.units)}), got {cell} game {duration.stored}",
            )


def change_sentence(declarations: Declarations, changes: Mapping[str, Any]) -> str:
    """The house rules a CampaignChanged changed, as the history says it: "From now on: Body-check TNs: the gentle
    column (M 2, S 4, D 8); Who rolls the dice: ..." (the campaign's name: "Renamed Old to New")."""
    named = by_name((*declarations, *SHARED))
    parts = []
    renamed = ""
    for key, change in changes.items():
        if not isinstance(change, Mapping):
            continue
        if key == "name":
            renamed = f"Renamed from {change.get('old')} to {change.get('new')}."
            continue
        setting = named.get(key.removeprefix("options."))
        new = change.get("new")
        if setting is None:
            parts.append(f"{key.removeprefix('options.').replace('_', ' ')}: {new}")
            continue
        try:
            parts.append(f"{setting.label}: {setting.words(new)}")
        except (KeyError, TypeError, ValueError):
            parts.append(f"{setting.label}: changed")
    sentence = f"From now on: {'; '.join(parts)}." if parts else ""
    return " ".join(text for text in (renamed, sentence) if text) or "House rules saved, nothing changed."
