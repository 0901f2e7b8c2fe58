"""Hypothesis properties: CON never heals above its initial value, the band follows CON, a projection equals a
replay of its events, and the clock always settles."""

import copy
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.darkfuture import RULESET
from rules.darkfuture.engine import con_band, current_move, reduced_skill
from rules.dice import Dice
from rules.ruleset import RuleError, replay
from tests.rules.clock_steps import step_clock

from .helpers import DAY

steps = st.lists(
    st.one_of(
        st.tuples(st.just("damage"), st.integers(0, 8)),
        st.tuples(st.just("advance"), st.sampled_from([1, 30, 3600, DAY, 7 * DAY, 30 * DAY])),
        st.tuples(st.just("recover"), st.booleans()),
    ),
    max_size=12,
)
characters = st.fixed_dictionaries(
    {
        "con": st.integers(1, 30),
        "skills": st.dictionaries(
            st.sampled_from(["driver", "gunner", "brawl"]), st.integers(0, 14), max_size=3
        ),
        "move": st.integers(0, 12),
        "armour": st.integers(0, 3),
        "pedestrian": st.booleans(),
        "driver": st.booleans(),
    }
)
options = st.fixed_dictionaries(
    {"ko_pass_means_stun": st.booleans(), "con_recovery_days": st.integers(1, 14)}
)


def apply_checked(state, event):
    before = copy.deepcopy(state)
    new = RULESET.evolve(state, event)
    assert state == before, "evolve changed its input"
    return new


def run(attributes, opts, seed, plan):
    """Play the plan; returns the final state, every event, and every state on the way."""
    rng = random.Random(seed)
    state = RULESET.initial_state(attributes, opts)
    now, events, states = 0, [], [state]
    for kind, value in plan:
        if kind == "damage":
            try:
                new_events = RULESET.decide(
                    state, {"type": "damage", "weapon_damage": value}, Dice(rng=rng), now
                )
            except RuleError:
                assert not state["alive"]
                continue
        elif kind == "recover":
            action = {"type": "recover", "knocked_out": True} if value else {"type": "recover"}
            if state["disabled_limbs"]:
                action["limbs"] = state["disabled_limbs"][:1]
            try:
                new_events = RULESET.decide(state, action, Dice(rng=rng), now)
            except RuleError:
                continue
        else:
            now += value
            new_events = []
            for firing in step_clock(RULESET, state, now, lambda: Dice(rng=rng), limit=1000).fired:
                for event in firing.events:
                    state = apply_checked(state, event)
                    events.append(event)
                    states.append(state)
                assert state == firing.state
        for event in new_events:
            state = apply_checked(state, event)
            events.append(event)
            states.append(state)
    return state, events, states


@settings(max_examples=150, deadline=None)
@given(characters, options, st.integers(0, 2**32), steps)
def test_con_never_heals_above_its_initial_value(attributes, opts, seed, plan):
    _, _, states = run(attributes, opts, seed, plan)
    for state in states:
        assert state["con"]["current"] <= state["con"]["initial"] == attributes["con"]


@settings(max_examples=150, deadline=None)
@given(characters, options, st.integers(0, 2**32), steps)
def test_the_band_skills_and_move_follow_con(attributes, opts, seed, plan):
    _, _, states = run(attributes, opts, seed, plan)
    for state in states:
        band = con_band(state["con"]["current"], state["con"]["initial"])
        assert state["band"] == band
        assert state["alive"] == (band != "dead")
        for skill in state["skills"].values():
            assert skill["current"] == reduced_skill(skill["base"], band)
        assert state["move"]["current"] == current_move(state["move"]["base"], band, state["disabled_limbs"])


@settings(max_examples=150, deadline=None)
@given(characters, options, st.integers(0, 2**32), steps)
def test_the_projection_equals_a_replay_of_its_events(attributes, opts, seed, plan):
    state, events, _ = run(attributes, opts, seed, plan)
    assert replay(RULESET, attributes, opts, events) == state
    assert json.loads(json.dumps(state)) == state


@settings(max_examples=150, deadline=None)
@given(characters, options, st.integers(0, 2**32), st.integers(0, 12))
def test_deciding_again_with_the_recorded_dice_gives_the_same_events(attributes, opts, seed, weapon_damage):
    state = RULESET.initial_state(attributes, opts)
    action = {"type": "damage", "weapon_damage": weapon_damage}
    events = RULESET.decide(state, action, Dice(rng=random.Random(seed)), 0)
    again = RULESET.decide(state, action, Dice(events[0].data["dice"]), 0)
    assert again == events


@settings(max_examples=100, deadline=None)
@given(characters, options, st.integers(0, 2**32), steps)
def test_the_views_are_json(attributes, opts, seed, plan):
    state, _, _ = run(attributes, opts, seed, plan)
    for audience in ("gm", "player"):
        view = RULESET.view(state, audience)
        assert json.loads(json.dumps(view)) == view
        assert view["death_at"] is None
