"""The in-place fold (`evolve_into`, `fold`, `replay`) equals the pure one (`evolve` one event at a time), for every
ruleset, over random histories; `status` equals the view's four status fields; folding never changes the events."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import Dice
from rules.event_schema import Limits, check_event, check_state
from rules.registry import get_ruleset
from rules.ruleset import (
    ACTION_UNDONE,
    GM,
    NOTE_ADDED,
    Event,
    RuleError,
    Ruleset,
    State,
    apply,
    copy_state,
    fold,
    fold_into,
    replay,
)
from tests.rules.cyberpunk2020 import test_cp2020_properties as cp2020
from tests.rules.darkfuture import test_properties as darkfuture
from tests.rules.shadowrun2 import test_sr2_properties as shadowrun2
from tests.rules.shadowrun2.helpers import Clock

STATUS_KEYS = ("alive", "conscious", "dying", "death_at")
# Longer histories than the rulesets' own property tests use: most of each ruleset's event types show up.
SHADOWRUN2_STEPS = st.lists(shadowrun2.step, min_size=10, max_size=40)
CYBERPUNK2020_STEPS = st.lists(
    st.tuples(cp2020.actions, st.sampled_from([0, 3, 30, 300, 3600, 86400, 7 * 86400])),
    min_size=4,
    max_size=20,
)
DARKFUTURE_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("damage"), st.integers(0, 8)),
        st.tuples(st.just("advance"), st.sampled_from([1, 30, 3600, darkfuture.DAY, 7 * darkfuture.DAY])),
        st.tuples(st.just("recover"), st.booleans()),
    ),
    min_size=6,
    max_size=20,
)


def containers(value: Any) -> list[Any]:
    """Every dict and list inside `value`, itself included."""
    found, todo = [], [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            found.append(item)
            todo.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            todo.extend(item)
    return found


def through_json(events: list[Event]) -> list[Event]:
    """The events as a rebuild reads them back from the log."""
    return [Event(e.type, json.loads(json.dumps(e.data)), e.game_time, e.schema_version) for e in events]


def with_shared_events(events: list[Event], seed: int) -> list[Event]:
    """Sprinkle notes and undos (which change no state) through the history."""
    rng = random.Random(seed)
    mixed: list[Event] = []
    for event in events:
        if rng.random() < 0.2:
            mixed.append(Event(NOTE_ADDED, {"text": "a note"}, event.game_time))
        if rng.random() < 0.05:
            mixed.append(Event(ACTION_UNDONE, {"cause": "x"}, event.game_time))
        mixed.append(event)
    return mixed


def check_fold(ruleset: Ruleset, initial: State, events: list[Event], final: State) -> None:
    events = through_json(events)
    events_before = copy.deepcopy(events)
    initial_before = copy.deepcopy(initial)

    # The pure fold, one event at a time, checking evolve never changes its input.
    pure, states = initial, [initial]
    for event in events:
        snapshot = copy.deepcopy(pure)
        after = apply(ruleset, pure, event)
        assert pure == snapshot, f"evolve changed its input on {event.type}"
        # evolve = copy + evolve_into, event by event.
        in_place = copy_state(pure)
        if event.type not in (NOTE_ADDED, ACTION_UNDONE):
            assert ruleset.evolve_into(in_place, event) is None
        assert in_place == after, f"evolve_into differs from evolve on {event.type}"
        pure = after
        states.append(pure)
    assert pure == final

    folded = fold(ruleset, initial, events)
    assert folded == pure
    assert initial == initial_before, "fold changed the state it was given"
    assert replay(ruleset, initial["attributes"], initial["options"], events) == pure

    owned = copy_state(initial)
    assert fold_into(ruleset, owned, events) is owned
    assert owned == pure
    # The folded state keeps no object of the events: evolving it further cannot change the history.
    event_objects = {id(item) for event in events for item in containers(event.data)}
    assert not event_objects & {id(item) for item in containers(owned)}
    assert events == events_before, "folding changed the events"

    for state in states:
        view = ruleset.view(state, GM)
        assert ruleset.status(state) == {key: view[key] for key in STATUS_KEYS}


def check_described(ruleset: Ruleset, initial: State, events: list[Event]) -> None:
    """Every event the engine wrote fits its type's description (`rules/<slug>/events.py`), which an import holds
    a file to, and so does every state along the way."""
    limits = Limits(max_time=10**12)
    state = copy_state(initial)
    for event in through_json(events):
        check_event(ruleset, event.type, event.schema_version, event.data, limits)
        ruleset.evolve_into(state, event)
        check_state(ruleset, state, limits)


def check_initial_state(ruleset: Ruleset, attributes: dict[str, Any], options: dict[str, Any]) -> None:
    """initial_state shares no mutable object with its arguments, so a fold may evolve it in place."""
    state = ruleset.initial_state(attributes, options)
    given_objects = {id(item) for item in containers(attributes) + containers(options)}
    assert not given_objects & {id(item) for item in containers(state)}
    again = ruleset.initial_state(attributes, options)
    assert not {id(item) for item in containers(state)} & {id(item) for item in containers(again)}


@settings(max_examples=100, deadline=None)
@given(
    body=st.integers(1, 8),
    options=st.fixed_dictionaries(
        {
            "body_check_tn": st.sampled_from(("standard", "gentle")),
            "critical_category": st.booleans(),
            "stun_causes_critical_hits": st.booleans(),
            "deadly_overflow_minutes": st.sampled_from((0, 1, 10)),
        }
    ),
    steps=SHADOWRUN2_STEPS,
    seed=st.integers(0, 2**32 - 1),
)
def test_shadowrun2_fold_in_place_equals_the_pure_fold(body, options, steps, seed):
    ruleset = get_ruleset("shadowrun2")
    attributes = ruleset.validate_attributes({"body": body})
    check_initial_state(ruleset, attributes, ruleset.validate_options(options))
    rng = random.Random(seed)
    initial = ruleset.initial_state(attributes, options)
    state, now, events = initial, 0, []
    for kind, a, b, flag in [(0, 2, 1, True), (0, 1, 1, False), *steps]:
        if kind >= 9:
            now += shadowrun2.ADVANCES[a % len(shadowrun2.ADVANCES)]
            clock = Clock(rng=rng)
            state = clock.advance(state, now, limit=2000)
            events.extend(clock.events)
            continue
        try:
            new_events = ruleset.decide(
                state, shadowrun2.action_for(state, kind, a, b, flag), Dice(rng=rng), now
            )
        except RuleError:
            continue
        for event in new_events:
            state = ruleset.evolve(state, event)
        events.extend(new_events)
    check_described(ruleset, initial, events)
    check_fold(ruleset, initial, with_shared_events(events, seed), state)


@settings(max_examples=100, deadline=None)
@given(
    attrs=cp2020.attributes,
    model=st.sampled_from(("standard", "d8", "modified")),
    script=CYBERPUNK2020_STEPS,
    seed=st.integers(0, 10**6),
)
def test_cyberpunk2020_fold_in_place_equals_the_pure_fold(attrs, model, script, seed):
    ruleset = get_ruleset("cyberpunk2020")
    check_initial_state(
        ruleset, ruleset.validate_attributes(attrs), ruleset.validate_options({"hit_location_model": model})
    )
    initial, seen, events = cp2020.run(attrs, model, script, seed)
    check_described(ruleset, initial, events)
    check_fold(ruleset, initial, with_shared_events(events, seed), seen[-1])


@settings(max_examples=100, deadline=None)
@given(darkfuture.characters, darkfuture.options, st.integers(0, 2**32), DARKFUTURE_STEPS)
def test_darkfuture_fold_in_place_equals_the_pure_fold(attributes, opts, seed, plan):
    ruleset = get_ruleset("darkfuture")
    check_initial_state(ruleset, attributes, opts)
    final, events, _ = darkfuture.run(attributes, opts, seed, plan)
    check_described(ruleset, ruleset.initial_state(attributes, opts), events)
    check_fold(ruleset, ruleset.initial_state(attributes, opts), with_shared_events(events, seed), final)


def test_evolve_into_ignores_unknown_events_as_evolve_does():
    for slug in ("shadowrun2", "cyberpunk2020", "darkfuture"):
        ruleset = get_ruleset(slug)
        attributes = {"shadowrun2": {"body": 4}, "cyberpunk2020": {"body": 6}, "darkfuture": {"con": 8}}[slug]
        state = ruleset.initial_state(attributes, {})
        event = Event("SomethingNew", {}, 12)
        in_place = copy_state(state)
        ruleset.evolve_into(in_place, event)
        assert in_place == ruleset.evolve(state, event)
