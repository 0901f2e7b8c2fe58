"""What every ruleset shares, written once: the decide preamble, the evolve wrappers, fire's dispatch and the
assembly of a `Ruleset` from a ruleset's folder.

A ruleset's folder (`rules/<slug>/`) holds
    tables.py   the printed tables, as data
    engine.py   SLUG; validate_options, validate_attributes, initial_state; DECIDERS (action -> decider),
                evolve_into and evolve (`evolution(EVOLVERS)` builds both), timers, FIRERS (timer kind -> firer);
                reindex_timers if it keeps times an option's interval set (`rules.ruleset.set_options`)
    view.py     view, status, public_event, shows: what the GM and a player may see; GM_ONLY, the fields a
                player never receives a value of; SHEET_SCHEMA and PLAYER_SHEET_SCHEMA, the shape of the view's
                sheet as the GM and a player receive it (OpenAPI schema, rules/answer_schema.py);
                TIMER_WORDS (timer kind -> what it will do, the GM's: 'bleeds out', 'next healing roll');
                SENTENCES (event type -> its sentence), from which describe and said are made: events in the
                game's words (rules/words.py), the one source of an event's
                words: the Undo button's summary is the short form of its describe sentence (`words.short`);
                NOTICES (event type -> what a notification says it did: wounded, healed, dead)
    forms.py    FORMS (action -> ActionForm: the parameters `read_params` holds an action to),
                CLOCK_ROLLS (the rolls its clock makes, described as an action's are)
    options.py  OPTIONS: the campaign options, each one typed declaration (rules/options.py) that the check,
                the forms, the words of a change and the schema are drawn from
    sheet.py    SHEET: how a character is created and drawn, and the ruleset's demo (rules/sheet.py)
    events.py   EVENTS and STATE: what each event type's data holds and the replayed state's ranges
                (rules/event_schema.py), against which an import checks a file written elsewhere
    forecast.py FORECAST: the injuries the recovery forecast follows, what a player may know of them and the GM's
                what-if menu (rules/forecast.py)
    bench.py    BENCH: what `manage.py bench` plays of the ruleset, its benchmark mix (rules/bench.py)
    __init__.py RULESET = assemble(__name__, title=..., default_start=...), which `rules.registry` lists.

A decider is `(state, params, dice, now) -> events`, where `params` are the action's parameters as its form declares
them, already checked (`rules.params.read_params`). An evolver is `(state, data, game_time) -> None`, changing the
state in place. A firer is `(state, timer, dice) -> events`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Container, Mapping
from typing import Any

from rules import words
from rules.dice import Dice
from rules.options import Declarations, change_sentence
from rules.params import CheckedAction, RuleError, read_params, require_mapping
from rules.ruleset import (
    CHARACTER_RESTORED,
    CHARACTER_RETIRED,
    GM,
    PLAYER,
    Event,
    Ruleset,
    State,
    Timer,
    copy_state,
)
from rules.text import given

DEAD = "the character is dead"

Decider = Callable[[State, Mapping[str, Any], Dice, int], list[Event]]
Evolver = Callable[[State, Mapping[str, Any], int], None]
Firer = Callable[[State, Timer, Dice | None], list[Event]]
EvolveInto = Callable[[State, Event], None]
Evolve = Callable[[State, Event], State]


def decider(deciders: Mapping[str, Decider], forms: Mapping[str, Any]) -> Callable[..., list[Event]]:
    """decide: the action is known, the character alive, its parameters those its form declares; then the
    action's own decider. A `CheckedAction` (the service's) has its type and parameters' names checked already."""
    actions = tuple(deciders)
    unknown = f"expected one of {', '.join(actions)}"
    read: dict[tuple[Any, ...], dict[str, Any]] = {}

    def decide(state: State, action: Mapping[str, Any], dice: Dice, now: int) -> list[Event]:
        action = require_mapping(action, "action")
        kind = action.get("type")
        if kind not in actions and action.__class__ is not CheckedAction:
            raise RuleError("type", f"{unknown}, got {given(kind)}")
        if not state["alive"]:
            raise RuleError("type", DEAD)
        events = deciders[kind](state, _read_once(forms[kind], action, read), dice, now)
        dice.check_unused(forms[kind].rolls)
        return events

    return decide


_PLAIN = frozenset((str, int, float, bool, type(None)))
READ_KEPT = 512  # actions whose parameters `_read_once` keeps at most (then it starts again)


def _read_once(
    form: Any, action: Mapping[str, Any], read: dict[tuple[Any, ...], dict[str, Any]]
) -> dict[str, Any]:
    """`read_params(form, action)`, kept for an action of plain values (the forecast's what-ifs take the same few
    actions in every future: reading them again was a sixth of a Shadowrun what-if). The key holds each value's
    class (True is not 1), and only parameters that are plain values themselves are kept; each caller gets its
    own dict of them. An action that is refused is read again, and refused again, every time."""
    try:
        key = tuple([(name, value.__class__, value) for name, value in action.items()])
        found = read.get(key)
    except TypeError:  # a list or a mapping among the values: read every time
        return read_params(form, action)
    if found is None:
        found = read_params(form, action)
        if not all(value.__class__ in _PLAIN for value in found.values()):
            return found
        if len(read) >= READ_KEPT:
            read.clear()
        read[key] = found
    return dict(found)


def evolution(evolvers: Mapping[str, Evolver]) -> tuple[EvolveInto, Evolve]:
    """evolve_into and evolve from a table of evolvers. An event type without one changes nothing (evolve stays
    total), and `evolve` then returns the state itself instead of a copy."""

    def evolve_into(state: State, event: Event) -> None:
        evolver = evolvers.get(event.type)
        if evolver is not None:
            evolver(state, event.data, event.game_time)

    return evolve_into, copying(evolve_into, evolvers)


def copying(evolve_into: EvolveInto, changes: Container[str] | None = None) -> Evolve:
    """evolve (pure) from evolve_into: copy, then change the copy. `changes`: the event types that may change a
    state (others return it as it is); None when every event may."""

    def evolve(state: State, event: Event) -> State:
        if changes is not None and event.type not in changes:
            return state
        new = copy_state(state)
        evolve_into(new, event)
        return new

    return evolve


def firer(firers: Mapping[str, Firer]) -> Callable[..., list[Event]]:
    """fire: a dead character's clock does nothing; otherwise the timer kind's own firer. A kind without one (a
    timer of an older version of the engine) fires nothing."""

    def fire(state: State, timer: Timer, dice: Dice | None = None) -> list[Event]:
        handler = firers.get(timer.kind)
        if handler is None or not state["alive"]:
            return []
        return handler(state, timer, dice)

    return fire


TimerPhrase = str | Callable[[State, Timer], str]


def timer_worder(phrases: Mapping[str, TimerPhrase]) -> Callable[[State, Timer], str]:
    """A ruleset's `timer_words` from its view's TIMER_WORDS (timer kind -> a phrase, or a function of the state
    and the timer for one that names an injury); a kind without words reads as its name ('stun save')."""

    def timer_words(state: State, timer: Timer) -> str:
        phrase = phrases.get(timer.kind)
        if phrase is None:
            return timer.kind.replace("_", " ")
        return phrase if isinstance(phrase, str) else phrase(state, timer)

    return timer_words


def house_rules_words(describe: Callable[[Event], str], declarations: Declarations) -> Callable[[Event], str]:
    """A ruleset's sentences, with a change of its house rules said in the options' words (`rules.options`)."""

    def said(event: Event) -> str:
        if event.type == words.CAMPAIGN_CHANGED:
            return change_sentence(declarations, event.data.get("changes") or {})
        return describe(event)

    return said


def assemble(package: str, *, title: str, default_start: str) -> Ruleset:
    """The Ruleset of one folder (`package`, its `__name__`), from the names its modules define (this module's
    docstring): every folder has the same files, so none lists them."""
    engine, view, forms, sheet, events, forecast, options, bench = (
        importlib.import_module(f"{package}.{name}")
        for name in ("engine", "view", "forms", "sheet", "events", "forecast", "options", "bench")
    )
    return Ruleset(
        slug=engine.SLUG,
        title=title,
        actions=tuple(engine.DECIDERS),
        default_start=default_start,
        validate_options=engine.validate_options,
        validate_attributes=engine.validate_attributes,
        initial_state=engine.initial_state,
        decide=decider(engine.DECIDERS, forms.FORMS),
        evolve=engine.evolve,
        evolve_into=engine.evolve_into,
        timers=engine.timers,
        fire=firer(engine.FIRERS),
        view=view.view,
        status=view.status,
        public_event=unretired(view.public_event, None),
        summary=words.summary_with(house_rules_words(view.describe, options.OPTIONS)),
        timer_words=timer_worder(view.TIMER_WORDS),
        timer_subject=getattr(view, "timer_subject", lambda state, timer: ""),
        saves=getattr(view, "saves", lambda state, now=None: {}),
        public_taken_back=getattr(view, "public_taken_back", None),
        named=getattr(view, "named", None),
        shows=unretired(view.shows, False),
        gm_only=view.GM_ONLY,
        describe=house_rules_words(view.describe, options.OPTIONS),
        sentences=view.SENTENCES,
        notices=view.NOTICES,
        said=view.said,
        clock_rolls=forms.CLOCK_ROLLS,
        forms=forms.FORMS,
        options=options.OPTIONS,
        sheet=sheet.SHEET,
        sheet_schemas={GM: view.SHEET_SCHEMA, PLAYER: view.PLAYER_SHEET_SCHEMA},
        event_schemas=events.EVENTS,
        state_schema=events.STATE,
        change_attributes=engine.change_attributes,
        changeable_attributes=engine.CHANGEABLE,
        forecast=forecast.FORECAST,
        reindex_timers=getattr(engine, "reindex_timers", None),
        bench=bench.BENCH,
    )


# --- characters change in play (docs/rules/README.md) ------------------------------------------------------------

ATTRIBUTE = "attributes."
RETIREMENT = frozenset((CHARACTER_RETIRED, CHARACTER_RESTORED))


def unretired(public: Callable[[Event], Any], hidden: Any) -> Callable[[Event], Any]:
    """A view's `public_event` (`hidden` None) or `shows` (`hidden` False), with retiring and restoring kept for
    the GM: they are the GM's bookkeeping, not something that happened to the character."""

    def shown(event: Event) -> Any:
        return hidden if event.type in RETIREMENT else public(event)

    return shown


def changed_attributes(
    state: State,
    patch: Any,
    *,
    changeable: tuple[str, ...],
    fixed: Mapping[str, str],
    validate: Callable[[Mapping[str, Any]], dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A GM's edit of the attributes: the new attributes and the `changes` of the CharacterChanged event,
    `{"attributes.<name>": {"old", "new"}}` for each attribute whose value differs.

    `patch` names only what changes. An attribute that is an object (armour by location, skills) takes the named
    keys and keeps the rest; a key given null is dropped (a skill forgotten; a location's SP back to its default).
    An attribute outside `changeable` is refused, naming it, unless it is given its current value (a form sends
    every field): with the reason in `fixed`, or as unknown.
    """
    patch = require_mapping(patch, "attributes")
    current = state["attributes"]
    merged = copy_state(current)
    for name, value in patch.items():
        field = f"{ATTRIBUTE}{name}"
        unchanged = name in current and value == current[name]
        if name not in changeable and not unchanged:
            may = ", ".join(changeable)
            if name in current:
                raise RuleError(field, f"{fixed.get(name, 'it is fixed')}; in play only {may} may change")
            raise RuleError(field, f"unknown attribute; expected one of {may}")
        if isinstance(current.get(name), dict) and isinstance(value, Mapping):
            joined = {**current[name], **value}
            merged[name] = {key: item for key, item in joined.items() if item is not None}
        else:
            merged[name] = copy_state(value)
    new = validate(merged)
    changes = {
        f"{ATTRIBUTE}{name}": {"old": copy_state(current.get(name)), "new": copy_state(value)}
        for name, value in new.items()
        if value != current.get(name)
    }
    return new, changes


def take_attribute_changes(state: State, data: Mapping[str, Any]) -> None:
    """The state's attributes take the new values of a CharacterChanged event (name and player are the read
    model's, not the state's)."""
    for key, change in data["changes"].items():
        if key.startswith(ATTRIBUTE):
            state["attributes"][key.removeprefix(ATTRIBUTE)] = copy_state(change["new"])
