"""Parameters declared once: the descriptions of an action's parameters, and the one reader that holds an action to
them.

An action's `ActionForm` lists its `Param`s with their kind, bounds, default and help. The same description draws
the web form, writes the API's schema and is read here: `read_params(form, action)` refuses an unknown parameter,
applies the defaults and checks every value, and the deciders receive the typed values. The small readers
(`integer`, `boolean`, `choice`, `text`) also read campaign options and character attributes.

Every reader raises `RuleError(field, message)`; the API turns it into a 400 `{field: [message]}`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rules.text import given, unreadable

_MISSING: Any = object()
MAX_INT = 1_000_000
TEXT_LENGTH = 200
REQUIRED = "this field is required"
# The kind the API's description gives a parameter drawn its own way on the web (`Param.described`).
API_KINDS = {"amounts": "json"}


class RuleError(ValueError):
    """A rule forbids the action, or a parameter is wrong. `field` names what the user must fix.

    The one error type for the user, from the rules through the services to the views, which answer it with
    `status` (a refusal, 400; the services' conflicts and outages are subclasses that say 409 or 503)."""

    status = 400

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


@dataclass(frozen=True)
class Param:
    """One action parameter, for the form, the schema and `read_params`.

    kind: int (`minimum` to `maximum`), bool, choice (one of `choices`), choices (a list of some of `choices`; one
    name alone is a list of one), text (at most `max_length` characters once trimmed; `blank`: the message when
    only blanks are given, or "" when an empty text is fine), textarea (drawn as a text area, read as a text),
    id (the id of something the character has, that the decider looks up; `invalid` says what one looks like), json (an object), amounts (an object of whole numbers by
    name: successes per monitor; read as an object, the decider checks each name and amount; the web form draws
    one number input per name `targets` offers, never the object's braces). `invalid`: the message for a value of
    the wrong shape, where the kind's own would not do (a format string with `{value}`, the value `given`); `repeated`: for
    choices, the message when a name is given twice (format `{value}`), "" when repeats are fine. `what`: what a
    text is called when it shows nothing ("a name" for a medic's).
    """

    name: str
    kind: str
    label: str
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    help: str = ""
    minimum: int | None = None
    maximum: int | None = MAX_INT
    max_length: int = TEXT_LENGTH
    blank: str = ""
    invalid: str = ""
    repeated: str = ""
    what: str = "a text"
    # The boolean campaign option without which the parameter does nothing: the web form leaves it out then.
    option: str | None = None
    # A text the web form offers as a choice of the character's injuries (`CharacterSheet.injury_choices`).
    picker: bool = False
    # For a picker: what this action may name, from the GM's sheet, and why the others are not offered ("Not
    # offered: hit 1 (chest): the medic does not know this critical hit is there."), said beside the choice before
    # any die is typed; so the form never offers what the decider then refuses. None: every injury is offered.
    offers: Callable[[Mapping[str, Any]], tuple[list[tuple[str, str]], str]] | None = None
    # A choice's words on a form, by value ("D": "Deadly (D)"); a value without words reads as itself.
    choice_words: tuple[tuple[str, str], ...] = ()
    # For amounts: the names the value may hold, each with its words, from the character's sheet as the GM sees it
    # (the web form's one number input each); `columns`: what the names and the amounts are called.
    targets: Callable[[Mapping[str, Any]], list[tuple[str, str]]] | None = None
    columns: tuple[str, str] = ("Name", "Amount")
    # The value written out as the API takes it (JSON), for the API's description alone: a person filling the web
    # form reads the help.
    example: str = ""
    # A text naming someone in the game (a medic): the web form offers the campaign's characters and keeps free
    # text for anyone else (an NPC nobody made a character of). The API takes the same text either way.
    person: bool = False
    # What the API's list of rulesets calls the kind, where a ruleset's own name for it predates the generic one;
    # `means`: what the value names, for the API's schema alone.
    described_kind: str = ""
    means: str = ""
    # For an optional choice with no default: what its empty entry means, the words a form's empty entry says
    # ("every undiagnosed hit", "roll the location"); "" for "(none)".
    empty: str = ""
    # The value a form starts from for this character, from the GM's sheet of it (Shadowrun's Care: ticked when the
    # character is in hospital), so that the form drawn again never undoes what stands; None: the `default`. A form
    # alone reads it (the card's, the page's, quick entry's): the API's unset parameter takes the `default`.
    initial: Callable[[Mapping[str, Any]], Any] | None = None

    def described(self) -> dict[str, Any]:
        """What the API's list of rulesets says of the parameter. Its answer predates the bounds and the amounts
        kind: an amounts value is the object the API has always taken, so it says "json", with the example."""
        return {
            "name": self.name,
            "kind": self.described_kind or API_KINDS.get(self.kind, self.kind),
            "label": self.label,
            "required": self.required,
            "default": self.default,
            "choices": list(self.choices),
            "help": self.api_help,
        }

    def initial_for(self, sheet: Mapping[str, Any] | None) -> Any:
        """The value a form starts from: `initial` of the character's sheet as the GM sees it, else the default."""
        if self.initial is not None and sheet is not None:
            return self.initial(sheet)
        return self.default

    def word(self, value: str) -> str:
        """A choice's words, as the form offers it: its `choice_words`, or the value with spaces ("first aid")."""
        return dict(self.choice_words).get(value) or value.replace("_", " ")

    @property
    def api_help(self) -> str:
        """The help as the API says it: the example first."""
        return "; ".join(text for text in (self.example, self.help) if text)


@dataclass(frozen=True)
class RollSpec:
    """A named roll an action may take from the GM: `count` dice of `sides` faces (count 0: the pool varies, and
    `size` says how its size is found). `open_ended`: a success-test pool, where with a target above 6 the Rule of
    Six applies and each die is entered as its total."""

    name: str
    count: int
    sides: int
    label: str
    help: str = ""
    size: str = ""
    open_ended: bool = False
    # The size as a form says it, in parts, each with the parameter it speaks of ("" for none): a form that does
    # not show that parameter (its campaign option off, or a card without it) does not say the part. Empty: the
    # form says `size` up to its parenthesis.
    size_words: tuple[tuple[str, str], ...] = ()
    # The parameter whose choices the roll may also be given for, one roll each (`<name>:<choice>`): Shadowrun's
    # diagnosis of every undiagnosed hit, `diagnosis:ch1` (a form asks and reads one per choice); "" for none.
    per: str = ""

    def described(self) -> dict[str, Any]:
        """What the API's list of rulesets says of the roll."""
        return {
            "name": self.name,
            "count": self.count,
            "sides": self.sides,
            "label": self.label,
            "help": self.help,
            "size": self.size,
            "open_ended": self.open_ended,
        }

    def size_said(self, shown: Iterable[str]) -> str:
        """The pool's size in a form's words, naming only the parameters the form shows (`shown`)."""
        if not self.size_words:
            return self.size.split(" (")[0]
        given = set(shown)
        return ", ".join(part for part, param in self.size_words if not param or param in given)


@dataclass(frozen=True)
class ActionForm:
    label: str
    params: tuple[Param, ...] = ()
    rolls: tuple[RollSpec, ...] = ()
    help: str = ""
    # The target number the action's dice are read against as it stands for this character, in words after the
    # help ("Target now 7: 8 for Serious physical damage (house rule), -1 for the patient's Body 5."): from the GM's
    # sheet, the character's attributes and the campaign's options; "" when there is none to say.
    target_help: Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], str] | None = None

    def help_for(
        self,
        sheet: Mapping[str, Any] | None,
        attributes: Mapping[str, Any] | None,
        options: Mapping[str, Any] | None,
    ) -> str:
        """The help a form shows: the declaration's, then the target now (`target_help`) when it can be said."""
        if self.target_help is None or sheet is None or attributes is None or options is None:
            return self.help
        now = self.target_help(sheet, attributes, options)
        return f"{self.help} {now}".strip() if now else self.help


def _prefixed(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def require_mapping(value: Any, field: str) -> Mapping[str, Any]:
    if value.__class__ is dict:  # the usual case, without the abstract class's isinstance
        return value
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise RuleError(field, f"expected an object, got {type(value).__name__}")
    return value


def integer(
    params: Mapping[str, Any],
    name: str,
    *,
    default: Any = _MISSING,
    minimum: int | None = None,
    maximum: int | None = MAX_INT,
    prefix: str = "",
) -> int:
    """A whole number; `default` when absent (required when no default is given)."""
    field = _prefixed(prefix, name)
    value = params.get(name, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise RuleError(field, f"{REQUIRED}: expected a whole number")
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(field, f"expected a whole number, got {given(value, typed=True)}")
    if minimum is not None and value < minimum:
        raise RuleError(field, f"expected a whole number of at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise RuleError(field, f"expected a whole number of at most {maximum}, got {value}")
    return value


def boolean(params: Mapping[str, Any], name: str, *, default: Any = _MISSING, prefix: str = "") -> bool:
    field = _prefixed(prefix, name)
    value = params.get(name, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise RuleError(field, f"{REQUIRED}: expected true or false")
        return default
    if not isinstance(value, bool):
        raise RuleError(field, f"expected true or false, got {given(value, typed=True)}")
    return value


def either(words: Iterable[str], conjunction: str = "or") -> str:
    """Words joined as a sentence says a choice: "Light, Moderate or Serious"."""
    said = list(words)
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} {conjunction} {said[-1]}"


def choice(
    params: Mapping[str, Any],
    name: str,
    choices: Iterable[str],
    *,
    default: Any = _MISSING,
    prefix: str = "",
    words: Mapping[str, str] | None = None,
) -> str:
    """One of `choices`. With `words` (a choice's words by value) the errors name the choices in them ("expected
    Light (L), Moderate (M), Serious (S) or Deadly (D)"), as a form offers them; without, by value."""
    field = _prefixed(prefix, name)
    options = list(choices)
    expected = f"one of {', '.join(options)}" if words is None else either(words[o] for o in options)
    value = params.get(name, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise RuleError(field, f"{REQUIRED}: expected {expected}")
        return default
    if not isinstance(value, str) or value not in options:
        raise RuleError(field, f"expected {expected}, got {given(value)}")
    return value


def text(
    params: Mapping[str, Any],
    name: str,
    *,
    default: Any = _MISSING,
    max_length: int = TEXT_LENGTH,
    blank: str = "",
    prefix: str = "",
    what: str = "a text",
) -> str:
    """A text people will read, trimmed. Every text a user gives an action or an attribute passes here. `blank`:
    the message for a text of blanks alone ("" when an empty text is fine); `what` names it in the message for a
    text that shows nothing or holds direction controls (rules/text.py)."""
    field = _prefixed(prefix, name)
    value = params.get(name, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise RuleError(field, f"{REQUIRED}: expected {what}")
        return default
    if not isinstance(value, str):
        raise RuleError(field, f"expected a text, got {given(value, typed=True)}")
    value = value.strip()
    if len(value) > max_length:
        raise RuleError(field, f"expected at most {max_length} characters, got {len(value)}")
    if blank and not value:
        raise RuleError(field, blank)
    if value and (problem := unreadable(value, what)):
        raise RuleError(field, problem)
    return value


def reject_unknown(params: Mapping[str, Any], known: Iterable[str], *, prefix: str = "") -> None:
    """Options and attributes are closed sets: a typo must not be silently ignored."""
    allowed = set(known)
    for name in params:
        if name not in allowed:
            raise RuleError(
                _prefixed(prefix, str(name)), f"unknown field; expected one of {', '.join(sorted(allowed))}"
            )


class CheckedAction(dict[str, Any]):
    """An action whose caller has checked its type (one the ruleset decides) and that its parameters are all its
    form's (`reject_unknown_params`), in the caller's own words: the service checks every action first, before it
    knows the character may act. `decide` and `read_params` do not check those again."""


def reject_unknown_params(form: ActionForm, action: Mapping[str, Any]) -> None:
    """An action's parameters are the closed set its form describes: a misspelt one would silently take its
    default. (Rolls are not: docs/rules/README.md, "Explicit rolls", has rolls the action does not need ignored.)"""
    reject_unknown(action, ("type", *(param.name for param in form.params)))


# --- one reader per kind of parameter ---------------------------------------------------------------------------


def _default(param: Param) -> Any:
    return _MISSING if param.required else param.default


def _read_int(param: Param, action: Mapping[str, Any]) -> Any:
    return integer(action, param.name, default=_default(param), minimum=param.minimum, maximum=param.maximum)


def _read_bool(param: Param, action: Mapping[str, Any]) -> Any:
    return boolean(action, param.name, default=_default(param))


def _read_choice(param: Param, action: Mapping[str, Any]) -> Any:
    words = {value: param.word(value) for value in param.choices}
    return choice(action, param.name, param.choices, default=_default(param), words=words)


def _read_text(param: Param, action: Mapping[str, Any]) -> Any:
    # An optional text left out reads as an empty one.
    default = _MISSING if param.required else ("" if param.default is None else param.default)
    return text(
        action, param.name, default=default, max_length=param.max_length, blank=param.blank, what=param.what
    )


def _read_choices(param: Param, action: Mapping[str, Any]) -> Any:
    value = action.get(param.name)
    some = either((param.word(value) for value in param.choices), "and")
    invalid = param.invalid or f"expected a list of some of {some}, got {{value}}"
    if value is None:
        if param.required:
            raise RuleError(param.name, f"{REQUIRED}: {invalid.format(value=None)}")
        return param.default
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise RuleError(param.name, invalid.format(value=given(value)))
    picked: list[str] = []
    for item in value:
        if not isinstance(item, str) or item not in param.choices:
            raise RuleError(param.name, invalid.format(value=given(item)))
        if item in picked and param.repeated:
            raise RuleError(param.name, param.repeated.format(value=item))
        picked.append(item)
    return picked


def _read_id(param: Param, action: Mapping[str, Any]) -> Any:
    value = action.get(param.name)
    if value is None and not param.required:
        return param.default
    if value is None or value == "":  # a picker left on its first line: said in words, never "got None"
        raise RuleError(param.name, f"expected a {param.label.lower()}: none was chosen")
    if not isinstance(value, str):
        raise RuleError(
            param.name, (param.invalid or "expected an id, got {value}").format(value=given(value))
        )
    return value


def _read_json(param: Param, action: Mapping[str, Any]) -> Any:
    value = action.get(param.name)
    if value is None:
        if param.required:
            raise RuleError(param.name, f"{REQUIRED}: expected an object")
        return param.default
    return require_mapping(value, param.name)


READERS: dict[str, Callable[[Param, Mapping[str, Any]], Any]] = {
    "int": _read_int,
    "bool": _read_bool,
    "choice": _read_choice,
    "choices": _read_choices,
    "text": _read_text,
    "textarea": _read_text,
    "id": _read_id,
    "json": _read_json,
    "amounts": _read_json,  # the decider knows the names and bounds; the form only draws the rows
}


def read_params(form: ActionForm, action: Mapping[str, Any]) -> dict[str, Any]:
    """The action's parameters as its form declares them, checked in the form's order: each one present, of its
    kind and within its bounds, or its default. The deciders read only what this returns. A `CheckedAction`'s
    names were checked by its caller."""
    if action.__class__ is not CheckedAction:
        reject_unknown_params(form, action)
    return {param.name: READERS[param.kind](param, action) for param in form.params}
