"""The Ruleset protocol every injury system implements, the shared event and timer types, and the registry.

A ruleset is a bundle of pure functions over a JSON-serialisable state dict:

    initial_state(attributes, options) -> State       a new state: shares no mutable object with its arguments
    decide(state, action, dice, now) -> list[Event]   validates; raises RuleError with a message for the user
    evolve(state, event) -> State                     pure and total; never rolls
    evolve_into(state, event) -> None                 the same change made in place, on a state the caller owns
    timers(state) -> list[Timer]                      what the clock must do and when (game seconds)
    fire(state, timer, dice) -> list[Event]           what happens when the clock reaches it
    view(state, audience, now) -> dict                "gm" or "player" (secrets removed); times as the clock acts
    status(state, now) -> dict                        view(state, "gm", now)'s alive, conscious, dying, death_at
    public_event(event) -> dict | None                what a player may read of one history entry
    summary(event) -> str                             the short form of describe's sentence (the Undo button's)
    describe(event) -> str                            one history entry in the game's words (rules/words.py)
    said(events, state) -> str                        the GM's answer to an action, in the game's words
    shows(event) -> bool                              optional: public_event(event) is not None, cheaply

`evolve(state, event)` equals `new = copy_state(state)` after `evolve_into(new, event)`: each engine writes its
rules once, as in-place changes, and `evolve` copies then changes (an engine may return `state` itself when the
event changes nothing). `evolve_into` never keeps a mutable object of `event.data` in the state, so evolving the
state further never changes the events. Folding many events (`fold`, `replay`, a rebuild) copies the state once
instead of once per event.

The actions `note` and `undo` belong to every ruleset and are handled here and in the service layer, so the
engines never see them. The registry of the rulesets is `rules.registry`; `rules.kernel` assembles a `Ruleset`
from a ruleset's folder.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rules.options import SHARED, Declarations
from rules.options import option_help as help_of

# Re-exported: the protocol's users import these from here.
from rules.params import ActionForm as ActionForm
from rules.params import Param as Param
from rules.params import RollSpec as RollSpec
from rules.params import RuleError as RuleError
from rules.sheet import CharacterSheet
from rules.text import unreadable

if TYPE_CHECKING:
    from rules.bench import Bench
    from rules.forecast import ForecastRules

State = dict[str, Any]
GM = "gm"
PLAYER = "player"

NOTE_ADDED = "NoteAdded"
ACTION_UNDONE = "ActionUndone"
ACTIONS_REVERTED = "ActionsReverted"
TAKING_BACK = frozenset((ACTION_UNDONE, ACTIONS_REVERTED))  # events that void other entries of their stream
# A GM's edit of a character in play (its name, player or attributes: docs/rules/README.md), and its
# retirement and return. Every ruleset evolves CharacterChanged (its attributes); retiring changes no state.
CHARACTER_CHANGED = "CharacterChanged"
CHARACTER_RETIRED = "CharacterRetired"
CHARACTER_RESTORED = "CharacterRestored"
COMMON_ACTIONS = ("note", "undo", "revert")
# The events of every ruleset that are no combat action (docs/clock.md, "The fight's rounds"): a GM note, an edit,
# a retirement or a return never starts a fight nor keeps one going. A ruleset's board adds its own care
# (`rules.sheet.Board.care_events`).
CALM_EVENTS = frozenset((NOTE_ADDED, CHARACTER_CHANGED, CHARACTER_RETIRED, CHARACTER_RESTORED))
# What a notification out of the game may say of an event (a ruleset's `notices`): the events that wound a character,
# heal it, or kill it. The rest of what is told (dying, stabilized, fit for action again) is read from the states.
NOTICE_KINDS = ("wounded", "healed", "dead")
NOTE_LENGTH = 10_000


@dataclass(frozen=True, init=False)
class Event:
    """An outcome, as stored: the type is a past-tense name; data carries every die and computed number."""

    type: str
    data: dict[str, Any]
    game_time: int
    schema_version: int = 1

    def __init__(self, type: str, data: dict[str, Any], game_time: int, schema_version: int = 1) -> None:
        # As `Timer`'s: the fields set in the instance's dict at once, not through object.__setattr__ each (half
        # the time). Every firing of a forecast's futures makes one, and an import's check one a line.
        fields = self.__dict__
        fields["type"], fields["data"], fields["game_time"], fields["schema_version"] = (
            type,
            data,
            game_time,
            schema_version,
        )


def fires_at(due: int, now: int | None) -> int:
    """The game second at which the clock fires a timer due at `due` when the campaign's time is `now`: one the
    state has in the past (an undo, a revert or a house rule took back what had passed it) fires at the next
    advance's start, the campaign's time (docs/clock.md, "Due now"). `now` None: the state's own time (a past
    moment shown as it was). Every time a person reads of a timer, a time of death first, comes through here, as
    the clock's own order does (`rules.clock.DueTimers`), so what is shown is when the clock acts."""
    return due if now is None or due > now else now


# A timer's data (and a recovery item of a view) with this key true fires at the clock's next advance, whatever the
# advance's length: its second is an artefact of the clock (Dark Future's stun, "ends at the next clock advance", is
# due one second after the wound), so people read "at the clock's next advance", never "in 1 s" (docs/clock.md).
AT_NEXT_ADVANCE = "at_next_advance"

_NO_DATA: Any = object()  # `Timer`'s data not given: a new empty dict, as `field(default_factory=dict)` makes


@dataclass(frozen=True, init=False, eq=False)
class Timer:
    """Something the game clock must do for a character at game second `due`.

    `key` identifies the timer within the character (the same pending effect keeps the same key as the state
    evolves). Ties at the same `due` fire in `priority` order (lower first), so a treatment that completes at the
    same second as a death saves the patient. `per_round` timers are combat-round checks (saves every 3 s or every
    turn): the clock fires them at their own second like any timer, one roll for each round or turn it passes.
    """

    due: int
    kind: str
    key: str
    priority: int = 50
    data: dict[str, Any] = field(default_factory=dict)
    per_round: bool = False

    def __init__(
        self,
        due: int,
        kind: str,
        key: str,
        priority: int = 50,
        data: dict[str, Any] = _NO_DATA,
        per_round: bool = False,
    ) -> None:
        # The dataclass's own __init__ of a frozen class sets each field through object.__setattr__: a third of a
        # microsecond each. Every firing of the clock builds its character's timers again (`timers`), so this is
        # the same fields, set in the instance's dict at once (a third of the time; docs/forecast.md, "Cost").
        fields = self.__dict__
        fields["due"], fields["kind"], fields["key"], fields["priority"] = due, kind, key, priority
        fields["data"], fields["per_round"] = {} if data is _NO_DATA else data, per_round

    def __eq__(self, other: object) -> bool:
        # The clock's queue compares each timer a firing leaves with the one before it
        # (`rules.clock.DueTimers.set_timers`), and most are unchanged. The instance dict holds the fields and
        # nothing else, so comparing the dicts compares every field, in C: a quarter of the time of the dataclass's
        # tuples or of the fields compared one by one in Python.
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # as the dataclass's: its data is a dict


NOTE_FORM = ActionForm(
    label="GM note",
    params=(Param("text", "textarea", "Note", required=True, help="Only GMs ever see notes."),),
    help="A note on the character, kept in the history. Players never see it.",
)
UNDO_FORM = ActionForm(
    label="Undo",
    help="Take back the latest action that is not already taken back. Repeat to go further back.",
)
REVERT_FORM = ActionForm(
    label="Make this the present",
    params=(
        Param(
            "to_version",
            "int",
            "Version",
            required=True,
            minimum=0,
            help="Every entry after this version is taken back, in one entry.",
        ),
    ),
    help="Take back every entry after a version (time travel shows that version's state first).",
)
COMMON_FORMS = {"note": NOTE_FORM, "undo": UNDO_FORM, "revert": REVERT_FORM}


@dataclass(frozen=True)
class Ruleset:
    slug: str
    title: str
    actions: tuple[str, ...]
    default_start: str
    validate_options: Callable[[Mapping[str, Any] | None], dict[str, Any]]
    validate_attributes: Callable[[Mapping[str, Any] | None], dict[str, Any]]
    initial_state: Callable[[Mapping[str, Any], Mapping[str, Any]], State]
    decide: Callable[..., list[Event]]
    evolve: Callable[[State, Event], State]
    evolve_into: Callable[[State, Event], None]
    timers: Callable[[State], list[Timer]]
    fire: Callable[..., list[Event]]
    # `now`: the campaign's game time, so that every time shown is when the clock will act (`fires_at`); None for
    # a past moment, whose times are shown as they were.
    view: Callable[..., dict[str, Any]]
    status: Callable[..., dict[str, Any]]
    public_event: Callable[[Event], dict[str, Any] | None]
    # One line naming an entry for the GM (the Undo button, a 409's list of actions): the short form of `describe`'s
    # sentence (`rules.words.summary_with`); a ruleset without sentences names an entry by its type.
    summary: Callable[[Event], str] = field(default=lambda event: type_words(event.type))
    forms: Mapping[str, ActionForm] = field(default_factory=dict)
    # The campaign options, each a typed declaration (rules/options.py): `validate_options` reads them.
    options: Declarations = ()
    # How a character is created and drawn, and the ruleset's demo (rules/sheet.py); the web app asks nothing else.
    sheet: CharacterSheet | None = None
    # The shape of `view`'s sheet by audience (GM, PLAYER), as OpenAPI schema (rules/answer_schema.py): the API's
    # components for each ruleset's character (campaign/api/answers.py).
    sheet_schemas: Mapping[str, Any] = field(default_factory=dict)
    # What each event type's data holds and the ranges of the replayed state (`rules.event_schema`): an import
    # checks a file written elsewhere against them.
    event_schemas: Mapping[str, Any] = field(default_factory=dict)
    state_schema: Any = None
    # `public_event(event) is not None` for an event that is neither a note nor an undo, without building the data
    # (a rebuild asks it of every event). None: `public_event` decides.
    shows: Callable[[Event], bool] | None = None
    # The fields docs/rules/ keeps for the GM: at any depth of a player's view or of a public event such a field is
    # absent or null (tests/rules/test_contract.py holds every ruleset to it).
    gm_only: frozenset[str] = frozenset()
    # The rolls the game clock makes (a campaign with table_dice "all" asks the GM for them): name, dice, and for a
    # pool how its size is found.
    clock_rolls: tuple[RollSpec, ...] = ()
    # A GM's edit of the attributes in play: `(state, patch) -> data` of the CharacterChanged event (its `changes`,
    # old and new, and whatever else the state takes from them); a RuleError names an attribute that may not change.
    change_attributes: Callable[[State, Mapping[str, Any]], dict[str, Any]] | None = None
    # The attributes `change_attributes` takes (the rest are fixed once the character is made).
    changeable_attributes: tuple[str, ...] = ()
    # The recovery forecast's part (`rules.forecast.ForecastRules`): the injuries it follows, what a player may know
    # of them, the GM's what-if menu.
    forecast: ForecastRules | None = None
    # The game's words (rules/words.py): one history entry as a sentence, from the data its reader holds, and the
    # GM's answer to an action from its events and the state after them. Dates are `game_time_mark`s.
    describe: Callable[[Event], str] | None = None
    # The ruleset's own sentences, by event type (`view.SENTENCES`, from which `describe` is made): every event type
    # of `event_schemas` has its sentence here or among the shared ones (`rules.words.SHARED_SENTENCES`).
    sentences: Mapping[str, Callable[[Event], str]] = field(default_factory=dict)
    said: Callable[[list[Event], State], str] | None = None
    # What a timer of `state` will do when it fires, in the game's words, for the GM ("bleeds out: critical hit 1
    # to the chest", "next healing roll"): the character page's clock, now or in the past (time travel).
    timer_words: Callable[[State, Timer], str] = field(
        default=lambda state, timer: timer.kind.replace("_", " ")
    )
    # The injury a timer is about, in the GM's words ("critical hit 2 to the chest (lung)"), for a timer of one
    # injury among several (its key "<kind>:<injury>"); "" for one about the whole character. A roll the clock asks
    # says it, so that one character's two rolls of one name at one second read apart (campaign/services/table_dice).
    timer_subject: Callable[[State, Timer], str] = field(default=lambda state, timer: "")
    # A state whose options just changed (`set_options`; `state["options"]` the new ones, the old given): the times
    # it keeps that an option's interval set are moved by the change (docs/rules/README.md, "House options").
    # None: the ruleset's timers read their intervals from the options whenever they are asked.
    reindex_timers: Callable[[State, Mapping[str, Any]], None] | None = None
    # What `manage.py bench` plays of the ruleset (`rules.bench.Bench`, its `bench.py`): perf/ reads it from here.
    bench: Bench | None = None

    # What a player reads of an entry taken back (its public data given): what it told may be secret again in the
    # state that stands (a diagnosis taken back: the hit's part and lethality are the GM's again). None: as is.
    public_taken_back: Callable[[Event, dict[str, Any]], dict[str, Any]] | None = None
    # What stops the time of death of `state`, for the GM's words (`rules.words.threat`): `saved_by` ("stabilized",
    # "treated") and `treatment_ends`, when a treatment under way ends first; `timer`, the key of the timer that
    # brings that death (a card names it first, before any sooner timer). Empty: "treated", the soonest timer.
    saves: Callable[..., dict[str, Any]] = field(default=lambda state, now=None: {})
    # An entry's data with what it names by id alone resolved from the character's state (`(event, state, audience)
    # -> data`), for its sentence (`named_event`): a Shadowrun treatment, healing roll or acceptance holds its hit's
    # id, and its words name the hit's place, and its part where the reader may know it (RULES.md, diagnosis
    # secrecy). None: the data as it is.
    named: Callable[[Event, State, str], dict[str, Any]] | None = None
    # What a notification out of the game says an event did (`NOTICE_KINDS`), by event type: the wounds and the
    # healing a GM may choose to tell the table (campaign/notify). An event absent here is told only by its state.
    notices: Mapping[str, str] = field(default_factory=dict)

    @property
    def option_help(self) -> dict[str, str]:
        """The API's help of each option (`GET /api/rulesets/`), from the declarations."""
        return help_of(self.options)

    @property
    def all_actions(self) -> tuple[str, ...]:
        return (*self.actions, *COMMON_ACTIONS)

    def action_form(self, action: str) -> ActionForm:
        """The description of `action`: its parameters and named rolls are all it takes."""
        return COMMON_FORMS[action] if action in COMMON_FORMS else self.forms[action]


# A game second inside a text meant for people (a GM warning): the engines cannot know the campaign's calendar, so
# they mark the second and the presenters write the in-world date in its place.
GAME_TIME_MARK = re.compile(r"\[t=(\d+)\]")


def game_time_mark(seconds: int) -> str:
    return f"[t={int(seconds)}]"


def type_words(kind: str) -> str:
    """'CriticalHitTaken' -> 'critical hit taken': the summary of an entry a ruleset has no words of its own for."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", kind).lower()


def taken_back(data: Mapping[str, Any]) -> list[str]:
    """The causes an undo (one) or a revert (every one after its version) takes back."""
    return list(data["causes"]) if "causes" in data else [data["cause"]]


def voided_causes(takebacks: Iterable[tuple[str, int, Mapping[str, Any]]]) -> set[str]:
    """The causes taken back by a stream's undos and reverts, given as (type, version, data) in version order.

    An undo voids its cause. A revert to version N makes the stream what it was at N: what was taken back then,
    plus every entry after N, undos and reverts among them (an undo after N no longer counts)."""
    seen: list[tuple[str, int, Mapping[str, Any]]] = []
    voided: set[str] = set()
    for kind, version, data in takebacks:
        if kind == ACTIONS_REVERTED:
            voided = voided_causes(item for item in seen if item[1] <= data["to_version"])
        voided.update(taken_back(data))
        seen.append((kind, version, data))
    return voided


def reverted_rows(rows: Iterable[Any], to_version: int) -> list[Any]:
    """The rows (anything with `version` and `type`) a revert to `to_version` takes back, of one stream's rows in
    version order: every entry after it, GM notes included (RULES.md: "every entry of the character after that
    version"); a retirement or its restoring stays as it is (restoring takes it back, as with an undo). What the
    revert writes and what its confirmation says."""
    return [
        row
        for row in rows
        if row.version > to_version and row.type not in (CHARACTER_RETIRED, CHARACTER_RESTORED)
    ]


def voided_moments(takebacks: Iterable[tuple[str, int, Mapping[str, Any], int]]) -> dict[str, int]:
    """`voided_causes`, each cause with the game second it was taken back at: the undo's or the revert's that
    takes it back in the stream as it stands ((type, version, data, game time) in version order). An entry a
    revert takes back again keeps the moment it was first taken back, if that undo still counts."""
    seen: list[tuple[str, int, Mapping[str, Any], int]] = []
    moments: dict[str, int] = {}
    for kind, version, data, at in takebacks:
        if kind == ACTIONS_REVERTED:
            moments = voided_moments(item for item in seen if item[1] <= data["to_version"])
        for cause in taken_back(data):
            moments.setdefault(cause, at)
        seen.append((kind, version, data, at))
    return moments


def copy_state(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars), several times faster than copy.deepcopy.

    evolve must not change its input, so it copies the state; a fold copies it once (see `fold`).
    """
    if isinstance(value, dict):
        return {key: copy_state(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_state(item) for item in value]
    return value


def out_of_action(ruleset: Ruleset, state: State) -> str | None:
    """Why a character cannot act now (RULES.md: the dead; the unconscious, a Shadowrun full monitor, a Cyberpunk
    failed death save, a Dark Future KO; the stunned, "out of action until a later stun save succeeds"), in
    words after their name ("is unconscious and dying"), or None: who may give care as a medic (docs/play.md)."""
    status = ruleset.status(state)
    if not status["alive"]:
        return "is dead"
    if not status["conscious"]:
        return "is unconscious and dying" if status["dying"] else "is unconscious"
    if state.get("stunned"):
        return "is stunned, out of action"
    return None


def start_state(ruleset: Ruleset, attributes: Mapping[str, Any], options: Mapping[str, Any]) -> State:
    return ruleset.initial_state(attributes, options)


def options_in_force(ruleset: Ruleset, stored: Mapping[str, Any]) -> dict[str, Any]:
    """A campaign's options as they hold: what it stored, and each option it never stored (a campaign made or
    imported before the option came) its default, which the rules read for it. Not checked again: a stored value
    stays as it was."""
    shared = {setting.name: setting.read({"start": ruleset.default_start}, "options") for setting in SHARED}
    return {**ruleset.validate_options({}), **shared, **stored}


def set_options(ruleset: Ruleset, state: State, options: Mapping[str, Any]) -> None:
    """The state takes a campaign's new options (CampaignChanged), as a character created now would hold them.
    Events carry every outcome: later decisions, timers and firings read the options, and a time the state keeps
    from an option's interval (Shadowrun's next overflow box) moves with the change (`reindex_timers`), so a state
    folded under older options and given the new ones is the state the options' history made."""
    before = state["options"]
    state["options"] = start_state(ruleset, state["attributes"], options)["options"]
    if ruleset.reindex_timers is not None:
        ruleset.reindex_timers(state, before)


# Events every ruleset shares that change no character state. GM notes stay in the history (the presenters read
# the latest ones from there), so a campaign with a hundred thousand notes still has a small state to load, copy
# and replay. An undo is applied by the service, which rebuilds the state without the voided events.
# Retiring and restoring a character change no state either: the service keeps the read model's `retired` flag.
INERT_EVENTS = frozenset((NOTE_ADDED, *TAKING_BACK, CHARACTER_RETIRED, CHARACTER_RESTORED))
# What an undo never takes back: an undo or a revert, and retiring (taken back by restoring: README, "Characters
# change in play"). A revert leaves retiring alone too.
NOT_UNDONE = frozenset((*TAKING_BACK, CHARACTER_RETIRED, CHARACTER_RESTORED))


def shown_by(ruleset: Ruleset) -> Callable[[Event], bool]:
    """`player_sees` for events known to be neither notes nor undos: a loop over many events looks it up once."""
    if ruleset.shows is not None:
        return ruleset.shows
    public_event = ruleset.public_event
    return lambda event: public_event(event) is not None


def named_event(ruleset: Ruleset, event: Event, state: State | None, audience: str) -> Event:
    """`event` as its sentence names what its data names by id alone, resolved from `state` (the character's as the
    reader sees it) as `audience` may know it (`Ruleset.named`): the history, the notices, the board's summary of an
    advance and the Undo button all name it so. No state (an entry taken back) or no `named`: the event as it is."""
    if state is None or ruleset.named is None:
        return event
    return Event(event.type, ruleset.named(event, state, audience), event.game_time)


def player_sees(ruleset: Ruleset, event: Event) -> bool:
    """Whether the event is an entry of a player's history: `public_event` gives it, and it is no GM note.

    An undo is not decided here: it shows exactly when what it takes back showed (the service layer knows that).
    Everything a player is told about numbers (their character's version, their history's cursors) counts only
    the events this says yes to.
    """
    if event.type in INERT_EVENTS:
        return False
    return shown_by(ruleset)(event)


def apply(ruleset: Ruleset, state: State, event: Event) -> State:
    """evolve, with the events every ruleset shares (pure)."""
    if event.type in INERT_EVENTS:
        return state
    return ruleset.evolve(state, event)


def fold_into(ruleset: Ruleset, state: State, events: Iterable[Event]) -> State:
    """apply every event in turn, changing `state` in place; returns it.

    `state` must be the caller's own: a fresh `start_state`, or a `copy_state` of a state someone else holds.
    """
    evolve_into = ruleset.evolve_into
    for event in events:
        if event.type not in INERT_EVENTS:
            evolve_into(state, event)
    return state


def fold(ruleset: Ruleset, state: State, events: Iterable[Event]) -> State:
    """The state after `events`, as `apply` one event at a time gives it, with one copy instead of one per event.

    Pure: `state` and the events are left unchanged. When no event can change a state (notes, undos, none at all)
    `state` itself is returned, as `apply` does.
    """
    changing = [event for event in events if event.type not in INERT_EVENTS]
    if not changing:
        return state
    return fold_into(ruleset, copy_state(state), changing)


def replay(
    ruleset: Ruleset, attributes: Mapping[str, Any], options: Mapping[str, Any], events: Iterable[Event]
) -> State:
    return fold_into(ruleset, start_state(ruleset, attributes, options), events)


def note_event(action: Mapping[str, Any], now: int) -> Event:
    text = action.get("text")
    if not isinstance(text, str) or not text.strip():
        raise RuleError("text", "expected the note's text")
    if len(text) > NOTE_LENGTH:
        raise RuleError("text", f"expected at most {NOTE_LENGTH} characters, got {len(text)}")
    if problem := unreadable(text, "a note"):
        raise RuleError("text", problem)
    return Event(NOTE_ADDED, {"text": text.strip()}, now)
