"""Properties over random campaigns: random actions and clock advances with seeded dice."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.cyberpunk2020 import RULESET, engine, tables
from rules.cyberpunk2020 import view as cp_view
from rules.dice import Dice
from rules.ruleset import RuleError
from tests.rules.clock_steps import step_clock

attributes = st.fixed_dictionaries(
    {
        "body": st.integers(1, 12),
        "luck": st.integers(0, 10),
        "armor": st.fixed_dictionaries(
            {location: st.sampled_from([0, 0, 8, 14, 20]) for location in tables.LOCATIONS}
        ),
        "stun_save_bonus": st.integers(-2, 2),
    }
)
actions = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("damage"),
            "damage": st.integers(0, 40),
            "kind": st.sampled_from(("normal", "stun", "blunt")),
            "ap": st.booleans(),
            "cover": st.booleans(),
        },
        optional={"location": st.sampled_from(tables.LOCATIONS)},
    ),
    st.fixed_dictionaries(
        {"type": st.just("damage"), "damage": st.integers(0, 40), "kind": st.just("explosion")},
        optional={"cover_protects": st.lists(st.sampled_from(tables.EXTREMITIES), unique=True)},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("stabilize"),
            "target": st.sampled_from(("dying", *(f"limb:{limb}" for limb in tables.LIMBS))),
            "skill": st.sampled_from(tables.SKILLS),
            "total": st.integers(5, 30),
        }
    ),
    st.fixed_dictionaries(
        {"type": st.just("treat"), "skill": st.sampled_from(tables.SKILLS), "total": st.integers(10, 20)}
    ),
    st.fixed_dictionaries({"type": st.just("save"), "kind": st.sampled_from(("stun", "death"))}),
)
steps = st.lists(st.tuples(actions, st.sampled_from([0, 3, 30, 300, 3600, 86400, 7 * 86400])), max_size=12)


def run(attrs, model, script, seed):
    """Play the script: each step acts, then the clock advances. Returns every state seen and every event."""
    rng = random.Random(seed)
    state = engine.initial_state(
        engine.validate_attributes(attrs), engine.validate_options({"hit_location_model": model})
    )
    initial = state
    seen, events, now = [state], [], 0
    for action, wait in script:
        try:
            new_events = RULESET.decide(state, action, Dice({}, rng=rng), now)
        except RuleError:
            new_events = []
        for event in new_events:
            state = engine.evolve(state, event)
        seen.append(state)  # the state after a whole action: death over the track is its last event
        events += new_events
        now += wait
        ran = step_clock(RULESET, state, now, lambda: Dice({}, rng=rng), limit=2000)
        seen += [firing.state for firing in ran.fired]
        events += [event for firing in ran.fired for event in firing.events]
        state = ran.state
    return initial, seen, events


@settings(max_examples=150, deadline=None)
@given(
    attrs=attributes,
    model=st.sampled_from(("standard", "d8", "modified")),
    script=steps,
    seed=st.integers(0, 10**6),
)
def test_the_track_is_never_negative_and_the_wound_level_follows_it(attrs, model, script, seed):
    _, seen, _ = run(attrs, model, script, seed)
    for state in seen:
        assert state["damage"] >= 0
        assert state["stun_damage"] >= 0
        assert len(state["minor_wounds"]) <= min(state["damage"], tables.MINOR_WOUNDS_PENDING_MAX)
        sheet = cp_view.view(state, "gm")["sheet"]
        assert sheet["track"] == state["damage"] + state["stun_damage"] >= 0
        assert sheet["wound_level"] == engine.wound_level_of(sheet["track"])
        if sheet["track"] > tables.TRACK_MAX:
            assert state["alive"] is False
        # Every point on the track is somewhere on the body, and a pending minor wound's point is where it was taken.
        assert sum(state["location_damage"].values()) == state["damage"]
        assert sum(state["location_stun"].values()) == state["stun_damage"]
        assert min(*state["location_damage"].values(), *state["location_stun"].values()) >= 0
        for location in tables.LOCATIONS:
            pending = sum(1 for wound in state["minor_wounds"] if wound["location"] == location)
            assert state["location_damage"][location] >= pending


@settings(max_examples=150, deadline=None)
@given(
    attrs=attributes,
    model=st.sampled_from(("standard", "d8", "modified")),
    script=steps,
    seed=st.integers(0, 10**6),
)
def test_the_projection_equals_a_replay_of_the_events_through_json(attrs, model, script, seed):
    initial, seen, events = run(attrs, model, script, seed)
    replayed = initial
    for event in events:
        stored = json.loads(
            json.dumps({"type": event.type, "data": event.data, "game_time": event.game_time})
        )
        replayed = engine.evolve(replayed, engine.Event(stored["type"], stored["data"], stored["game_time"]))
    assert replayed == seen[-1]
    assert json.loads(json.dumps(seen[-1])) == seen[-1]
    assert cp_view.view(replayed, "player") == cp_view.view(seen[-1], "player")
