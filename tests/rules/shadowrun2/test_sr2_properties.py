"""Hypothesis: any sequence of valid actions and clock advances keeps the monitors sane and equals a replay."""

from __future__ import annotations

import copy
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import Dice
from rules.ruleset import PLAYER, RuleError, apply, replay
from rules.shadowrun2 import RULESET
from rules.shadowrun2.engine import lethality_of
from rules.shadowrun2.tables import DAY, WEEK
from rules.shadowrun2.view import public_event, view

from .helpers import Clock, character

ADVANCES = (0, 30, 600, 3600, DAY, WEEK, 8 * WEEK)
step = st.tuples(st.integers(0, 10), st.integers(0, 100), st.integers(0, 100), st.booleans())


def action_for(state, kind, a, b, flag):
    """Kinds 0 wound, 1-2 diagnose, 3-4 treat, 5 heal_magic, 6 first_aid, 7 replace, 8 set_care."""
    ids = [hit["id"] for hit in state["critical_hits"]] or ["ch1"]
    some_hit = ids[a % len(ids)]
    medic = {"medic": ("Doc", "Mage")[b % 2], "skill": 1 + b % 6}
    if kind == 0:
        severity = "LMSD"[a % 4]
        return {
            "type": "wound",
            "severity": severity,
            "damage": "stun" if b % 3 == 0 else "physical",
            "open_wound": flag,
        }
    if kind in (1, 2):
        return {
            "type": "diagnose",
            **medic,
            "assensing": flag,
            **({"critical_hit": some_hit} if a % 2 else {}),
        }
    if kind in (3, 4):
        return {"type": "treat", "critical_hit": some_hit, **medic, "defaulting": flag}
    if kind == 5:
        mode = ("allocate", "damage_only", "split_evenly")[a % 3]
        action = {"type": "heal_magic", "successes": b % 13, "mode": mode}
        if mode == "allocate":
            action["allocation"] = {"physical": b % 3, some_hit: b % 7}
        return action
    if kind == 6:
        return {"type": "first_aid", **medic, "medkit": flag}
    if kind == 7:
        return {"type": "replace", "critical_hit": some_hit, "replacement": "cyberware"}
    return {"type": "set_care", "in_hospital": flag}


def check(state):
    assert 0 <= state["physical"] <= 10
    assert 0 <= state["stun"] <= 10
    assert state["physical_overflow"] >= 0
    for hit in state["critical_hits"]:
        assert 0 <= hit["boxes"] <= 10
        assert hit["lethality"] == lethality_of(hit["boxes"])
        if hit["lethality"] != "mortal":
            assert hit["death_at"] is None
    assert json.loads(json.dumps(state)) == state
    player = view(state, PLAYER)
    assert player["death_at"] is None
    for hit in player["sheet"]["critical_hits"]:
        if not hit["diagnosed"]:
            assert (hit["part"], hit["lethality"], hit["boxes"], hit["penalty"]) == (None, None, None, None)


@settings(max_examples=150, deadline=None)
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
    steps=st.lists(step, max_size=30),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_sequence_of_valid_actions_keeps_monitors_sane_and_equals_its_replay(body, options, steps, seed):
    rng = random.Random(seed)
    state = character(body=body, **options)
    now = 0
    events = []
    # Two opening wounds, so that most examples have critical hits to diagnose, treat and heal.
    for kind, a, b, flag in [(0, 2, 1, True), (0, 1, 1, False), *steps]:
        if kind >= 9:
            now += ADVANCES[a % len(ADVANCES)]
            clock = Clock(rng=rng)
            state = clock.advance(state, now, limit=2000)
            events.extend(clock.events)
        else:
            before = copy.deepcopy(state)
            try:
                new_events = RULESET.decide(state, action_for(state, kind, a, b, flag), Dice(rng=rng), now)
            except RuleError:
                assert state == before
                continue
            assert state == before  # decide never touches the state
            for event in new_events:
                assert event.game_time == now
                previous, snapshot = state, copy.deepcopy(state)
                state = apply(RULESET, state, event)
                assert previous == snapshot  # evolve is pure
            events.extend(new_events)
        check(state)
    assert replay(RULESET, state["attributes"], state["options"], events) == state
    for event in events:
        shown = public_event(event)
        assert shown is None or "death_at" not in json.dumps(shown)
        assert shown is None or "body_check" not in shown
