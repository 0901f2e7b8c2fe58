"""The contract every ruleset keeps, parametrized over the registry: a ruleset registered in `rules/registry.py`
gets every test here without a line written for it, and nothing here names one.

The histories come from the ruleset itself: its demo (`sheet.demo`, every die entered) and histories hypothesis
draws from its forms (each `Param`'s kind, bounds and choices; the injuries `sheet.injury_choices` names), played
with server dice from a seeded `Random` and the service's clock loop over one character (`rules.clock.run`).
Every step is recorded (the state before, the action or the timer, the events), and each test holds the recorded
steps to one sentence of the contract.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import secrets
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules.kernel
from rules import clock
from rules.dice import Dice
from rules.event_schema import Limits, check_event, check_state
from rules.params import ActionForm, Param, read_params
from rules.registry import all_rulesets
from rules.ruleset import (
    GM,
    NOTE_ADDED,
    PLAYER,
    Event,
    RuleError,
    Ruleset,
    State,
    Timer,
    apply,
    copy_state,
    fold,
    game_time_mark,
    replay,
    start_state,
)
from rules.words import SHARED_SENTENCES

RULESETS = all_rulesets()
every_ruleset = pytest.mark.parametrize("ruleset", RULESETS, ids=lambda ruleset: ruleset.slug)
generated = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ADVANCES = (1, 3, 10, 30, 60, 600, 3600, 6 * 3600, 86400, 7 * 86400, 30 * 86400)
FIRINGS = 5_000  # per advance: more means the clock would not settle
LIMITS = Limits(max_time=10**9)
STATUS_FIELDS = ("alive", "conscious", "dying", "death_at")
MEDIC_NAMES = ("Doc", "Street medic", "")


class _NoRolls(random.Random):
    def randint(self, a: int, b: int) -> int:
        raise AssertionError("a demo must enter every die it needs")


@dataclass(frozen=True)
class Step:
    """One thing that happened to the character: an action decided at `now`, or a timer fired at `now`."""

    before: State
    now: int
    events: list[Event]
    action: Mapping[str, Any] | None = None
    rolls: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    timer: Timer | None = None

    def dice(self) -> Dice:
        """The dice the step was played with, afresh: the same rolls again."""
        return Dice(self.rolls, rng=_NoRolls() if self.seed is None else random.Random(self.seed))


@dataclass
class History:
    ruleset: Ruleset
    attributes: dict[str, Any]
    options: dict[str, Any]
    start: State
    steps: list[Step] = field(default_factory=list)
    refused: list[tuple[State, Mapping[str, Any]]] = field(default_factory=list)

    @property
    def events(self) -> list[Event]:
        return [event for step in self.steps for event in step.events]

    def states(self) -> Iterator[tuple[State, Event]]:
        """Each event with the state it was applied to."""
        for step in self.steps:
            state = step.before
            for event in step.events:
                yield state, event
                state = apply(self.ruleset, state, event)

    def every_state(self) -> list[State]:
        return [self.start, *(apply(self.ruleset, state, event) for state, event in self.states())]

    @property
    def final(self) -> State:
        return self.every_state()[-1]


def _history(ruleset: Ruleset, attributes: Mapping[str, Any]) -> History:
    attributes, options = ruleset.validate_attributes(attributes), ruleset.validate_options({})
    return History(ruleset, attributes, options, start_state(ruleset, attributes, options))


def _record(history: History, state: State, step: Step) -> State:
    history.steps.append(step)
    for event in step.events:
        state = apply(history.ruleset, state, event)
    return state


def _act(history: History, state: State, action: Mapping[str, Any], now: int, **dice: Any) -> State:
    step = Step(state, now, [], action=action, **dice)
    try:
        events = history.ruleset.decide(state, action, step.dice(), now)
    except RuleError:
        history.refused.append((state, action))
        return state
    return _record(history, state, Step(state, now, events, action=action, **dice))


def _advance(history: History, state: State, start: int, end: int) -> State:
    """The service's clock over one character, each firing with server dice from a seed of its own."""
    seeds: list[int] = []

    def dice() -> Dice:
        seeds.append(zlib.crc32(f"{start}:{end}:{len(seeds)}".encode()))
        return Dice(rng=random.Random(seeds[-1]))

    ran = clock.run(history.ruleset, state, start, end, dice, limit=FIRINGS)
    assert ran.reached == end, f"the clock did not settle between {start} and {end}"
    for firing, seed in zip(ran.fired, seeds, strict=True):
        fired = dataclasses.replace(firing.timer, due=firing.at)
        state = _record(history, state, Step(state, firing.at, firing.events, seed=seed, timer=fired))
    return state


def _play_demo(history: History, actions: tuple[Mapping[str, Any], ...]) -> State:
    """The demo's actions at game second 0 with the dice they enter (its GM notes change no state)."""
    state = history.start
    for action in actions:
        body = dict(action)
        rolls = body.pop("rolls", {})
        if body["type"] != "note":
            state = _act(history, state, body, 0, rolls=rolls)
    return state


# --- the demos --------------------------------------------------------------------------------------------------


@cache
def demo_histories(slug: str) -> list[History]:
    """Each demo character's history, played with the dice it enters."""
    ruleset = next(ruleset for ruleset in RULESETS if ruleset.slug == slug)
    assert ruleset.sheet is not None and ruleset.sheet.demo is not None, f"{slug} has no demo"
    histories = []
    for _name, _player, attributes, actions in ruleset.sheet.demo.characters:
        history = _history(ruleset, attributes)
        _play_demo(history, actions)
        assert not history.refused, f"{slug}'s demo has refused actions: {history.refused}"
        histories.append(history)
    return histories


# --- generated histories, from the forms --------------------------------------------------------------------------


def _injury_ids(ruleset: Ruleset, state: State) -> list[str]:
    if ruleset.sheet is None or ruleset.sheet.injury_choices is None:
        return []
    return [key for key, _words in ruleset.sheet.choices_of(ruleset.view(state, GM))]


def param_values(ruleset: Ruleset, param: Param, state: State) -> st.SearchStrategy[Any]:
    """Values of `param` as its form allows them (kind, bounds, choices), most of them small."""
    if param.kind == "int":
        low = param.minimum if param.minimum is not None else -20
        high = param.maximum if param.maximum is not None else low + 1000
        return st.one_of(st.integers(low, min(high, low + 12)), st.sampled_from((low, high)))
    if param.kind == "bool":
        return st.booleans()
    if param.kind == "choice":
        return st.sampled_from(param.choices)
    if param.kind == "choices":
        return st.lists(st.sampled_from(param.choices), max_size=len(param.choices), unique=True)
    if param.kind in ("text", "textarea"):
        return st.sampled_from(MEDIC_NAMES)
    injuries = _injury_ids(ruleset, state)
    if param.kind == "id":
        return st.sampled_from([*injuries, "ch99"])
    if param.kind in ("json", "amounts"):
        keys = [*injuries, *ruleset.view(state, GM)["sheet"]]
        return st.dictionaries(st.sampled_from(keys), st.integers(0, 12), max_size=3)
    raise AssertionError(f"a parameter of kind {param.kind!r} has no reader to test")


def action_for(data: st.DataObject, ruleset: Ruleset, state: State) -> dict[str, Any]:
    kind = data.draw(st.sampled_from(ruleset.actions))
    action: dict[str, Any] = {"type": kind}
    for param in ruleset.forms[kind].params:
        if param.required or data.draw(st.booleans()):
            action[param.name] = data.draw(param_values(ruleset, param, state))
    return action


def draw_history(data: st.DataObject, ruleset: Ruleset) -> History:
    """A demo character (as the demo leaves it, or fresh), then actions from the forms and clock advances."""
    assert ruleset.sheet is not None and ruleset.sheet.demo is not None
    _name, _player, attributes, demo = data.draw(st.sampled_from(ruleset.sheet.demo.characters))
    history = _history(ruleset, attributes)
    state, now = _play_demo(history, demo if data.draw(st.booleans()) else ()), 0
    for _ in range(data.draw(st.integers(1, 16))):
        if data.draw(st.integers(0, 2)):
            seed = data.draw(st.integers(0, 2**32 - 1))
            state = _act(history, state, action_for(data, ruleset, state), now, seed=seed)
        else:
            later = now + data.draw(st.sampled_from(ADVANCES))
            state, now = _advance(history, state, now, later), later
    return history


def histories(data: st.DataObject, ruleset: Ruleset) -> list[History]:
    return [*demo_histories(ruleset.slug), draw_history(data, ruleset)]


def _each_value(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """(key, value) for every value inside `value` at any depth, with the key it is under ("" in a list)."""
    yield key, value
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _each_value(item, str(name))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _each_value(item, "")


def _containers(value: Any) -> set[int]:
    return {id(item) for _key, item in _each_value(value) if isinstance(item, dict | list)}


def _through_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


@contextmanager
def no_randomness() -> Iterator[None]:
    """Any use of Python's random numbers, seeded or not, or of the system's, fails the test."""

    def rolled(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("evolve rolled a die")

    with (
        mock.patch.object(random.Random, "random", rolled),
        mock.patch.object(random.Random, "getrandbits", rolled),
        mock.patch.object(random.Random, "randint", rolled),
        mock.patch.object(random.Random, "randrange", rolled),
        mock.patch.object(random.Random, "choice", rolled),
        mock.patch.object(random.SystemRandom, "random", rolled),
        mock.patch.object(random.SystemRandom, "getrandbits", rolled),
        mock.patch.object(secrets, "randbelow", rolled),
        mock.patch.object(os, "urandom", rolled),
    ):
        yield


class Recording(dict):
    """The parameters a decider receives, noting every name it asks for."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.asked: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.asked.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return super().__contains__(key)


def valid_action(ruleset: Ruleset, kind: str) -> dict[str, Any]:
    """The action with each required parameter at a value its form allows, nothing else."""
    form = ruleset.forms[kind]
    action: dict[str, Any] = {"type": kind}
    for param in form.params:
        if param.required:
            action[param.name] = {
                "int": param.minimum,
                "bool": False,
                "choice": param.choices[:1] and param.choices[0],
                "choices": list(param.choices[:1]),
                "text": "Doc",
                "textarea": "Doc",
                "id": "ch1",
                "json": {},
                "amounts": {},
            }[param.kind]
    return action


def _refused(ruleset: Ruleset, action: Mapping[str, Any]) -> RuleError:
    state = start_state(
        ruleset, ruleset.validate_attributes(_demo_attributes(ruleset)), ruleset.validate_options({})
    )
    with pytest.raises(RuleError) as refused:
        ruleset.decide(state, action, Dice(rng=_NoRolls()), 0)
    return refused.value


def _demo_attributes(ruleset: Ruleset) -> Mapping[str, Any]:
    assert ruleset.sheet is not None and ruleset.sheet.demo is not None
    return ruleset.sheet.demo.characters[0][2]


def _forms(ruleset: Ruleset) -> list[tuple[str, ActionForm]]:
    return [(kind, ruleset.forms[kind]) for kind in ruleset.actions]


# --- replay, evolve ---------------------------------------------------------------------------------------------


@every_ruleset
@generated
@given(data=st.data())
def test_replaying_the_events_gives_the_state_evolve_reached_one_event_at_a_time(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        state = history.start
        for event in history.events:
            state = ruleset.evolve(state, event)
        assert replay(ruleset, history.attributes, history.options, history.events) == state
        assert fold(ruleset, history.start, history.events) == state
        assert history.final == state


@every_ruleset
@generated
@given(data=st.data())
def test_evolve_is_a_copy_changed_by_evolve_into_and_leaves_the_state_and_the_event_alone(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        for state, event in history.states():
            state_before, data_before = copy_state(state), copy_state(event.data)
            evolved = ruleset.evolve(state, event)
            changed = copy_state(state)
            ruleset.evolve_into(changed, event)
            assert (evolved, state, event.data) == (changed, state_before, data_before), event.type
            # Evolving the state further must never change a stored event.
            assert not _containers(changed) & _containers(event.data), event.type


@every_ruleset
@generated
@given(data=st.data())
def test_evolve_never_rolls_a_die(ruleset: Ruleset, data: st.DataObject) -> None:
    for history in histories(data, ruleset):
        with no_randomness():
            pure = history.start
            for event in history.events:
                pure = ruleset.evolve(pure, event)
            in_place = replay(ruleset, history.attributes, history.options, history.events)
        assert pure == in_place == history.final


@every_ruleset
@generated
@given(data=st.data())
def test_deciding_again_with_the_same_dice_writes_the_same_events(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        for step in history.steps:
            if step.action is not None:
                assert ruleset.decide(step.before, step.action, step.dice(), step.now) == step.events
            else:
                assert step.timer is not None
                assert ruleset.fire(step.before, step.timer, step.dice()) == step.events


# --- what is stored ---------------------------------------------------------------------------------------------


@every_ruleset
@generated
@given(data=st.data())
def test_the_state_survives_json_and_its_own_schema_after_every_event(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        for state in history.every_state():
            assert _through_json(state) == state
            check_state(ruleset, state, LIMITS)


@every_ruleset
@generated
@given(data=st.data())
def test_every_event_decide_and_fire_write_survives_json_and_fits_the_rulesets_event_schema(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        for step in history.steps:
            for event in step.events:
                assert event.game_time == step.now, event.type
                assert _through_json(event.data) == event.data, event.type
                check_event(ruleset, event.type, event.schema_version, event.data, LIMITS)


@every_ruleset
def test_every_event_type_has_its_sentence_and_every_sentence_an_event_type(ruleset: Ruleset) -> None:
    """The history words each event by a lookup of its type, as the deciders and evolvers are tables: an event type
    without a sentence would read as its bare title."""
    own = set(ruleset.sentences)
    assert set(ruleset.event_schemas) - own - set(SHARED_SENTENCES) == set()
    assert own - set(ruleset.event_schemas) == set()
    assert own & set(SHARED_SENTENCES) == set()


# --- what a player sees -----------------------------------------------------------------------------------------


def test_every_ruleset_keeps_a_time_of_death_from_players() -> None:
    assert [("death_at" in ruleset.gm_only) for ruleset in RULESETS] == [True] * len(RULESETS)


def _gm_only_values(ruleset: Ruleset, seen: Any) -> list[tuple[str, Any]]:
    return [(key, value) for key, value in _each_value(seen) if key in ruleset.gm_only and value is not None]


def _death_moved(value: Any) -> Any:
    """A state with every time of death a second later, all else as it was."""
    if isinstance(value, dict):
        return {
            key: item + 1
            if key == "death_at" and isinstance(item, int) and not isinstance(item, bool)
            else _death_moved(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_death_moved(item) for item in value]
    return value


@every_ruleset
@generated
@given(data=st.data())
def test_a_players_view_holds_no_value_of_a_gm_only_field_nor_the_time_of_death(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        for state in history.every_state():
            seen = ruleset.view(state, PLAYER)
            assert _gm_only_values(ruleset, seen) == []
            death_at = ruleset.status(state)["death_at"]
            if death_at is not None:
                mark = game_time_mark(death_at)
                texts = [value for _key, value in _each_value(seen) if isinstance(value, str)]
                # A public time may fall on the death's second (the rest begins 10 minutes after the wound, and a
                # hit's death may come 10 minutes after it too): a text leaks the death only if it follows it.
                moved = ruleset.view(_death_moved(state), PLAYER)
                still = {value for _key, value in _each_value(moved) if isinstance(value, str)}
                assert [text for text in texts if mark in text and text not in still] == []


@every_ruleset
@generated
@given(data=st.data())
def test_a_public_event_holds_no_value_of_a_gm_only_field_and_shows_agrees_with_it(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        for event in history.events:
            public = ruleset.public_event(event)
            assert _gm_only_values(ruleset, public) == [], event.type
            assert _through_json(public) == public
            if ruleset.shows is not None:
                assert ruleset.shows(event) == (public is not None), event.type
    assert ruleset.public_event(Event(NOTE_ADDED, {"text": "GM only"}, 0)) is None


@every_ruleset
@generated
@given(data=st.data())
def test_status_is_the_gm_views_alive_conscious_dying_and_death_at(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        for state in history.every_state():
            view = ruleset.view(state, GM)
            assert ruleset.status(state) == {name: view[name] for name in STATUS_FIELDS}


# --- timers -----------------------------------------------------------------------------------------------------


@every_ruleset
@generated
@given(data=st.data())
def test_timers_have_one_key_each_a_game_second_and_none_once_dead(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        for state in history.every_state():
            before = copy_state(state)
            timers = ruleset.timers(state)
            assert state == before and ruleset.timers(state) == timers
            keys = [timer.key for timer in timers]
            assert len(set(keys)) == len(keys), keys  # the clock's queue holds one timer per key
            for timer in timers:
                assert type(timer.due) is int and timer.due >= 0 and type(timer.priority) is int, timer
                assert _through_json(timer.data) == timer.data, timer
            if not state["alive"]:
                assert timers == []


@every_ruleset
@generated
@given(data=st.data())
def test_an_action_sets_no_timer_before_its_own_game_second(ruleset: Ruleset, data: st.DataObject) -> None:
    for history in histories(data, ruleset):
        for step in history.steps:
            if step.action is None or not step.events:
                continue
            old = ruleset.timers(step.before)
            after = fold(ruleset, step.before, step.events)
            new = [timer for timer in ruleset.timers(after) if timer not in old]
            assert [timer for timer in new if timer.due < step.now and not timer.per_round] == []


@every_ruleset
@generated
@given(data=st.data())
def test_a_timer_that_fired_is_not_due_again_at_or_before_its_second(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    for history in histories(data, ruleset):
        for step in history.steps:
            if step.timer is None or not step.events:
                continue
            after = fold(ruleset, step.before, step.events)
            again = [t for t in ruleset.timers(after) if t.key == step.timer.key and t.due <= step.timer.due]
            assert again == [], step.timer


# --- forms and decide -------------------------------------------------------------------------------------------


@every_ruleset
@generated
@given(data=st.data())
def test_decide_reads_no_parameter_its_form_does_not_declare(ruleset: Ruleset, data: st.DataObject) -> None:
    history = draw_history(data, ruleset)
    tried = [(step.before, step.action, step.dice(), step.now) for step in history.steps if step.action]
    tried += [(state, action, Dice(rng=random.Random(0)), 0) for state, action in history.refused]
    for state, action, dice, now in tried:
        asked: list[Recording] = []

        def recording(
            form: ActionForm, action: Mapping[str, Any], asked: list[Recording] = asked
        ) -> Recording:
            asked.append(Recording(read_params(form, action)))
            return asked[-1]

        with mock.patch.object(rules.kernel, "read_params", recording), suppress(RuleError):
            ruleset.decide(state, action, dice, now)
        declared = {param.name for param in ruleset.forms[action["type"]].params}
        assert [params.asked - declared for params in asked] == [set()] * len(asked), action


@every_ruleset
def test_each_action_with_its_required_parameters_passes_the_form(ruleset: Ruleset) -> None:
    for kind, form in _forms(ruleset):
        read = read_params(form, valid_action(ruleset, kind))
        assert sorted(read) == sorted(param.name for param in form.params), kind


@every_ruleset
def test_a_parameter_no_form_declares_is_refused_by_its_name(ruleset: Ruleset) -> None:
    for kind, _form in _forms(ruleset):
        refused = _refused(ruleset, {**valid_action(ruleset, kind), "no_such_parameter": 1})
        assert (refused.status, refused.field) == (400, "no_such_parameter"), kind
        assert "unknown field" in refused.message


@every_ruleset
def test_a_whole_number_one_past_either_bound_is_refused_by_its_name(ruleset: Ruleset) -> None:
    checked = 0
    for kind, form in _forms(ruleset):
        for param in form.params:
            if param.kind != "int":
                continue
            for value, words in ((param.minimum, "at least"), (param.maximum, "at most")):
                if value is None:
                    continue
                past = value - 1 if words == "at least" else value + 1
                refused = _refused(ruleset, {**valid_action(ruleset, kind), param.name: past})
                assert (refused.status, refused.field) == (400, param.name), (kind, param.name)
                assert f"{words} {value}, got {past}" in refused.message
                checked += 1
    assert checked == sum(
        (p.minimum is not None) + (p.maximum is not None)
        for _k, f in _forms(ruleset)
        for p in f.params
        if p.kind == "int"
    )


@every_ruleset
def test_a_required_parameter_left_out_and_a_choice_off_its_list_are_refused_by_name(
    ruleset: Ruleset,
) -> None:
    for kind, form in _forms(ruleset):
        for param in form.params:
            if param.required:
                action = valid_action(ruleset, kind)
                del action[param.name]
                refused = _refused(ruleset, action)
                assert (refused.field, "expected" in refused.message) == (param.name, True), (
                    kind,
                    param.name,
                )
            if param.kind in ("choice", "choices"):
                refused = _refused(ruleset, {**valid_action(ruleset, kind), param.name: "no such choice"})
                assert refused.field == param.name, (kind, param.name)
