"""`named` and `known_of`: every entry that names a critical hit by its id alone names it as the completion of a
treatment does, by its place and, for the GM or once diagnosed, its part (RULES.md, "Diagnosis"); the clock's lines
and the rolls it asks name it from the same function."""

from __future__ import annotations

import copy

import pytest

from rules.ruleset import GM, PLAYER, Event, Timer
from rules.shadowrun2 import RULESET
from rules.shadowrun2.engine import (
    CRITICAL_HEALING_ROLLED,
    CRITICAL_HIT_ACCEPTED,
    CRITICAL_HIT_HEALED,
    CRITICAL_HIT_REPLACED,
    MAGIC_HEALING_APPLIED,
    TREATMENT_COMPLETED,
    TREATMENT_FAILED,
    TREATMENT_STARTED,
)

from .helpers import MORTAL, act, part_words_in, wounded

# Each entry type that holds a hit's id without its place, its data as a player's history holds it, and its words
# once named ("{hit}" the hit's name).
ENTRIES = {
    TREATMENT_STARTED: (
        {"critical_hit": "ch1", "medic": "Doc", "lethality": "mortal", "successes": 2, "completes_at": 360},
        "Doc treats {hit}: 2 successes; done [t=360].",
    ),
    TREATMENT_FAILED: (
        {"critical_hit": "ch1", "medic": "Doc", "lethality": "mortal", "successes": 0},
        "Doc failed to treat {hit}: 0 successes.",
    ),
    TREATMENT_COMPLETED: (
        {"critical_hit": "ch1", "boxes_before": 10, "boxes": 6, "lethality": "crippling"},
        "Treatment of {hit} done: falls from Mortal to Crippling (6 boxes): its death timer stops.",
    ),
    CRITICAL_HEALING_ROLLED: (
        {"critical_hit": "ch1", "heals_at": 7200},
        "Healing roll for {hit}: heals [t=7200].",
    ),
    CRITICAL_HIT_HEALED: ({"critical_hit": "ch1"}, "{Hit} healed."),
    CRITICAL_HIT_REPLACED: (
        {"critical_hit": "ch1", "replacement": "cyberware"},
        "{Hit} replaced by cyberware.",
    ),
    CRITICAL_HIT_ACCEPTED: ({"critical_hit": "ch1"}, "{Hit} accepted: fit for action with it."),
    MAGIC_HEALING_APPLIED: (
        {
            "mode": "allocate",
            "physical": {"boxes": 3, "physical_overflow": 0},
            "critical_hits": [{"critical_hit": "ch1", "erased": 1, "boxes": 9, "lethality": "crippling"}],
        },
        "Healing spell (allocate): physical monitor at 3 boxes; {hit} falls from Mortal to Crippling (9 boxes): its "
        "death timer stops.",
    ),
}


def _said(kind: str, state: dict, audience: str) -> str:
    data, _ = ENTRIES[kind]
    event = Event(kind, copy.deepcopy(data), 60)
    return RULESET.describe(Event(kind, RULESET.named(event, state, audience), 60))


def _words(kind: str, hit: str) -> str:
    return ENTRIES[kind][1].format(hit=hit, Hit=hit[0].upper() + hit[1:])


@pytest.mark.parametrize("kind", sorted(ENTRIES))
def test_every_entry_names_its_hit_by_place_and_its_part_only_where_the_reader_may_know_it(kind: str) -> None:
    undiagnosed = wounded(MORTAL)  # critical hit 1 to the chest (lung), Mortal
    assert _said(kind, undiagnosed, GM) == _words(kind, "critical hit 1 to the chest (lung)")
    # A player never learns an undiagnosed hit's part, whatever names it.
    player = _said(kind, undiagnosed, PLAYER)
    assert player == _words(kind, "critical hit 1 to the chest")
    assert part_words_in(player) == []
    diagnosed, _ = act(
        undiagnosed,
        {"type": "diagnose", "medic": "Doc", "skill": 3, "critical_hit": "ch1"},
        {"diagnosis": [6, 1, 1]},
    )
    assert _said(kind, diagnosed, PLAYER) == _words(kind, "critical hit 1 to the chest (lung)")
    # A state without the hit (a past moment before it): its number alone, as the event holds it.
    assert _said(kind, wounded([6, 6, 6, 1]), GM) == _words(kind, "critical hit 1")


def test_an_entry_that_names_its_place_keeps_its_own_words() -> None:
    """A diagnosis and the wound name the hit's place already; a player's undiagnosed hit stays its symptom."""
    state = wounded(MORTAL)
    taken = {"critical_hit": "ch1", "location": "chest", "symptom": "chest pain"}
    assert RULESET.named(Event("CriticalHitTaken", taken, 0), state, PLAYER) == taken


def test_the_clock_and_its_rolls_name_a_hit_as_the_history_does() -> None:
    """One way to name a hit (`known_of`): the clock's lines and the rolls it asks are the GM's, part and all."""
    state = wounded(MORTAL)
    timer = Timer(1800, "death", "death:ch1")
    assert RULESET.timer_subject(state, timer) == "critical hit 1 to the chest (lung)"
    assert RULESET.timer_words(state, timer).startswith("bleeds out from critical hit 1 to the chest (lung)")
    assert RULESET.timer_subject(state, Timer(1800, "death", "death:ch9")) == "critical hit 9"
