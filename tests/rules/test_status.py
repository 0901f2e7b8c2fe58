"""`status(state)` gives the read model's columns exactly as the GM view does, for every state a game can reach."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import Dice
from rules.registry import get_ruleset
from rules.ruleset import GM, RuleError, apply
from rules.shadowrun2 import RULESET as SHADOWRUN2
from tests.rules.cyberpunk2020 import test_cp2020_properties as cp2020
from tests.rules.darkfuture import test_properties as darkfuture
from tests.rules.shadowrun2.helpers import Clock, character
from tests.rules.shadowrun2.test_sr2_properties import ADVANCES, action_for, step

STATUS_FIELDS = ("alive", "conscious", "dying", "death_at")


def assert_status_matches_the_gm_view(slug: str, state: dict) -> None:
    ruleset = get_ruleset(slug)
    view = ruleset.view(state, GM)
    assert ruleset.status(state) == {name: view[name] for name in STATUS_FIELDS}


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 8), st.lists(step, max_size=25), st.integers(0, 2**32 - 1))
def test_shadowrun2(body: int, steps: list, seed: int) -> None:
    rng = random.Random(seed)
    state, now = character(body=body), 0
    for kind, a, b, flag in [(0, 2, 1, True), (0, 1, 1, False), *steps]:
        if kind >= 9:
            now += ADVANCES[a % len(ADVANCES)]
            state = Clock(rng=rng).advance(state, now, limit=2000)
        else:
            try:
                events = SHADOWRUN2.decide(state, action_for(state, kind, a, b, flag), Dice(rng=rng), now)
            except RuleError:
                continue
            for event in events:
                state = apply(SHADOWRUN2, state, event)
        assert_status_matches_the_gm_view("shadowrun2", state)


@settings(max_examples=100, deadline=None)
@given(
    cp2020.attributes, st.sampled_from(["standard", "d8", "modified"]), cp2020.steps, st.integers(0, 2**32)
)
def test_cyberpunk2020(attrs: dict, model: str, script: list, seed: int) -> None:
    _, seen, _ = cp2020.run(attrs, model, script, seed)
    for state in seen:
        assert_status_matches_the_gm_view("cyberpunk2020", state)


@settings(max_examples=100, deadline=None)
@given(darkfuture.characters, darkfuture.options, st.integers(0, 2**32), darkfuture.steps)
def test_darkfuture(attributes: dict, opts: dict, seed: int, plan: list) -> None:
    _, _, states = darkfuture.run(attributes, opts, seed, plan)
    for state in states:
        assert_status_matches_the_gm_view("darkfuture", state)
