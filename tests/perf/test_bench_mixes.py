"""The bench's mixes come from the registry (rules/<slug>/bench.py): every registered ruleset declares one, each
action of it is one the ruleset takes, and perf/ names no ruleset, so a new ruleset cannot be silently left out."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from unittest import mock

import pytest

import perf.harness.mixes
from rules import recovery as rc
from rules.bench import Bench
from rules.dice import Dice
from rules.registry import all_rulesets, ruleset_slugs
from rules.ruleset import Ruleset, fold_into, start_state

RULESETS = all_rulesets()


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda ruleset: ruleset.slug)
def test_every_ruleset_declares_a_benchmark_mix_of_its_own_actions(ruleset: Ruleset) -> None:
    bench = ruleset.bench
    assert isinstance(bench, Bench)
    injuries = [bench.forecast_injuries, *bench.forecast_dearest.values(), *bench.recovery_party]
    assert bench.forecast_injuries[1] and len(bench.recovery_party) == 6
    actions = [*bench.actions, *bench.clock_wounds, *(action for _, steps in injuries for action, _ in steps)]
    assert {action["type"] for action in actions} <= set(ruleset.all_actions)


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda ruleset: ruleset.slug)
def test_every_rulesets_recovery_party_is_six_different_injured_characters_with_a_party_date(
    ruleset: Ruleset,
) -> None:
    # The recovery row times the party's date: a party "not without care" is never dated, so it would time nothing.
    party = ruleset.bench.recovery_party
    assert len({repr(injuries) for injuries in party}) == 6
    times = []
    for attributes, steps in party:
        state = start_state(ruleset, ruleset.validate_attributes(attributes), ruleset.validate_options({}))
        for action, rolls in steps:
            fold_into(ruleset, state, ruleset.decide(state, action, Dice(rolls), 0))
        outlook = rc.character(ruleset, state, 0, player=False, runs=100)
        assert (outlook.status, outlook.note) == (None, None), (attributes, outlook.items)
        assert outlook.fit is not None and outlook.fit.p50 is not None
        times.append(outlook.times)
    assert rc.party_spread(times).p50 is not None


def test_perf_reads_every_rulesets_mix_from_the_registry() -> None:
    slugs = [ruleset.slug for ruleset in RULESETS]
    assert list(perf.harness.mixes.FORECAST_INJURIES) == slugs
    assert list(perf.harness.mixes.RECOVERY_PARTY) == slugs
    assert set(perf.harness.mixes.MIXES) == {
        ruleset.slug for ruleset in RULESETS if ruleset.bench and ruleset.bench.actions
    }
    named = re.compile("|".join(ruleset_slugs()))
    assert not named.search(Path(perf.harness.mixes.__file__).read_text())


def test_a_registered_ruleset_without_a_mix_stops_the_bench() -> None:
    bare = dataclasses.replace(RULESETS[0], bench=None)
    with (
        mock.patch.object(perf.harness.mixes, "all_rulesets", return_value=[bare, *RULESETS[1:]]),
        pytest.raises(LookupError, match=f"ruleset {bare.slug} declares no benchmark mix"),
    ):
        perf.harness.mixes._benches()
