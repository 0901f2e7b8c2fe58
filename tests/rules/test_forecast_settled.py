"""A what-if's futures stop once whether they survive is settled (rules/forecast.py, "Settled"): the ruleset's
`deadly` timers and `dies_by` must be true of every state the clock reaches, and the GM's panel (survival only)
must say exactly what the whole forecast says under the same seed."""

from __future__ import annotations

import marshal
from random import Random
from typing import Any

import pytest

from perf.harness.mixes import FORECAST_DEAREST, FORECAST_INJURIES
from rules import forecast as fc
from rules.dice import Dice
from rules.registry import get_ruleset
from rules.ruleset import State, copy_state, fold_into
from rules.shadowrun2.forecast import dies_by
from tests.rules.test_forecast import CRITICAL, MORTAL, _serious_chest_hit, _states_along_the_demo, played

# A Deadly wound: 10 boxes, the overflow clock running (a box every 10 minutes by default); Body 5, no hit.
DEADLY = ({"type": "wound", "severity": "D"}, {"body_check": [13, 13, 13, 13, 13]})


def _bench_states(slug: str) -> list[State]:
    cases = [FORECAST_INJURIES[slug], *FORECAST_DEAREST.get(slug, {}).values()]
    return [
        played(slug, attributes, [(0, action, rolls) for action, rolls in steps])
        for attributes, steps in cases
    ]


def _shadowrun_states() -> list[State]:
    deadly = played("shadowrun2", {"body": 5}, [(0, *DEADLY)])
    mortal_and_deadly = _serious_chest_hit(MORTAL)
    rules = get_ruleset("shadowrun2")
    fold_into(
        rules,
        mortal_and_deadly,
        rules.decide(mortal_and_deadly, DEADLY[0], Dice({"body_check": [13] * 4}), 60),
    )
    return [
        _serious_chest_hit(MORTAL),
        _serious_chest_hit(CRITICAL),
        deadly,
        mortal_and_deadly,
        *_bench_states("shadowrun2"),
    ]


EVERY = 8  # of the distinct states stopped either way, every 8th is simulated on (the suite's time)


def _parked(
    rules: Any, state: State, seed: int, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[State, int, int]]:
    """Every branch the whole forecast's what-ifs stopped as settled: (its state, its second, the horizon's end)."""
    found: list[tuple[State, int, int]] = []
    grow = fc._grow

    def recording(rules: Any, branches: list[Any], rng: Random, settle: Any = None) -> Any:
        over, going, parked = grow(rules, branches, rng, settle)
        found.extend((copy_state(b.state), b.queue.reached, b.queue.to_time) for b in parked)
        return over, going, parked

    with monkeypatch.context() as patched:
        patched.setattr(fc, "_grow", recording)
        fc.forecast(
            rules, state, 0, player=False, runs=200, seed=seed, what_ifs=list(rules.forecast.what_ifs)
        )
    return found


def test_a_future_stopped_out_of_danger_never_dies_and_one_the_clock_kills_dies_by_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = get_ruleset("shadowrun2")
    seen: set[bytes] = set()
    safe = doomed = 0
    for state in _shadowrun_states():
        for seed in range(2):
            for parked, at, end in _parked(rules, state, seed, monkeypatch):
                dump = marshal.dumps([parked, at])
                if dump in seen:
                    continue
                seen.add(dump)
                injuries = rules.forecast.injuries(parked)
                timers = rules.timers(parked)
                if fc._out_of_danger(timers, rules.forecast.deadly):
                    safe += 1
                    if safe % EVERY:
                        continue
                    futures = fc.simulate(
                        rules, parked, at, injuries, runs=40, rng=Random(seed), horizon=end - at
                    )
                    assert not any(future.died for future in futures)
                else:
                    doomed += 1
                    death = dies_by(parked)
                    assert death is not None and at <= death <= end
                    if doomed % EVERY:
                        continue
                    futures = fc.simulate(
                        rules, parked, at, injuries, runs=40, rng=Random(seed), horizon=death - at
                    )
                    assert all(future.died for future in futures)
    # Both ways of being settled were met, often (about 1,800 and 560 distinct states).
    assert safe > 50 * EVERY and doomed > 50 * EVERY


@pytest.mark.parametrize("slug", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_the_panels_survival_is_the_whole_forecasts_under_the_same_seed(slug: str) -> None:
    rules = get_ruleset(slug)
    states = (
        _shadowrun_states() if slug == "shadowrun2" else _bench_states(slug) + _states_along_the_demo(rules)
    )
    menu = list(rules.forecast.what_ifs)
    for state in states:
        for seed in range(3):
            whole = fc.forecast(rules, state, 0, player=False, runs=200, seed=seed, what_ifs=menu)
            panel = fc.forecast(
                rules, state, 0, player=False, runs=200, seed=seed, what_ifs=menu, what_ifs_survival_only=True
            )
            assert panel.survival == whole.survival
            assert panel.untreated == whole.untreated
            # Only the survival is said: no dates of a future stopped before it healed.
            assert all(o.items == [] and o.full_health is None for o in panel.what_ifs)


def test_the_clock_kills_by_the_overflow_box_past_body_or_an_untreated_mortal_hits_time_of_death() -> None:
    rules = get_ruleset("shadowrun2")
    # Body 5, Deadly at 0: a box at 10, 20, ... minutes; the 6th, at 60 minutes, is past Body.
    deadly = played("shadowrun2", {"body": 5}, [(0, *DEADLY)])
    assert dies_by(deadly) == 3600
    # Three boxes already taken: the 6th is three intervals after the next.
    state = copy_state(deadly)
    state["physical_overflow"], state["overflow_clock"] = 3, {"next_at": 2400}
    assert dies_by(state) == 2400 + 2 * 600
    # The spine (Mortal) kills in 6 minutes, untreated; a treatment that completes by then saves it from that.
    mortal = _serious_chest_hit(MORTAL)
    assert mortal["critical_hits"][0]["death_at"] == 360 and mortal["overflow_clock"] is None
    assert dies_by(mortal) == 360
    for completes_at, expected in ((360, None), (361, 360)):
        treated = copy_state(mortal)
        treated["critical_hits"][0]["treatment"] = {
            "medic": "Doc",
            "lethality": "mortal",
            "completes_at": completes_at,
        }
        assert dies_by(treated) == expected
    # A Critical hit does not kill, and the dead die no more.
    assert dies_by(_serious_chest_hit(CRITICAL)) is None
    dead = fc.forecast(rules, deadly, 0, player=False, runs=10, seed=0).untreated.futures
    assert all(future.died for future in dead)
    assert dies_by({**deadly, "alive": False}) is None
