"""House rules changed in play re-index every ruleset's pending timers alike (docs/rules/README.md), over the
registry: a timer whose interval is an option's value is due, after the change, where it would be had the new value
held when it last started (`rules.ruleset.set_options`); a time a roll fixed when it was decided stays.

An option is a time when its name says its unit (`..._seconds`, `_minutes`, `_hours`, `_days`, `_weeks`, at any
depth of the options). Every such option of every registered ruleset is either re-indexed (`PENDING`: the actions
that leave its timer pending, played with their dice) or fixed by what was decided (`DECIDED`, with the reason): a
new time option, or a new ruleset, fails here until it says which.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Dice
from rules.registry import all_rulesets
from rules.ruleset import Ruleset, State, Timer, apply, copy_state, set_options, start_state
from tests.rules.cyberpunk2020.helpers import CRIPPLE_LEFT_LEG
from tests.rules.test_contract import every_ruleset, generated, histories

UNITS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86_400, "weeks": 7 * 86_400}
TIME_OPTION = re.compile(r"_(seconds|minutes|hours|days|weeks)$")
Path = tuple[str, ...]


@dataclass(frozen=True)
class Pending:
    """Actions (at game second 0, with their dice) that leave the timer `key` pending, under `options`."""

    attributes: Mapping[str, Any]
    actions: tuple[Mapping[str, Any], ...]
    key: str
    options: Mapping[str, Any] = field(default_factory=dict)


SR2_DEADLY = {"type": "wound", "severity": "D", "rolls": {"body_check": [10, 10, 10, 10]}}
SR2_STUNNED = {"type": "wound", "severity": "L", "damage": "stun"}
DF_STUNNED = {"type": "damage", "weapon_damage": 0, "rolls": {"damage": [4], "stun": [5]}}
DF_KNOCKED_OUT = {"type": "damage", "weapon_damage": 4, "rolls": {"damage": [6], "ko": [6]}}
CP_BONES_SET = (
    CRIPPLE_LEFT_LEG,
    {"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", "total": 15},
    {
        "type": "set_bones",
        "limb": "left_leg",
        "medic": "Doc",
        "tech": 6,
        "skill_level": 5,
        "rolls": {"set_bones": [4]},
    },
)
PENDING: dict[tuple[str, str], Pending] = {
    ("shadowrun2", "deadly_overflow_minutes"): Pending({"body": 4}, (SR2_DEADLY,), "overflow"),
    # Natural healing waits for rest: the stun recovery roll comes `rest_minutes` after the wound.
    ("shadowrun2", "rest_minutes"): Pending({"body": 4}, (SR2_STUNNED,), "stun_roll"),
    ("cyberpunk2020", "bone_mend_weeks"): Pending({"body": 6, "luck": 2}, CP_BONES_SET, "bone_mend:left_leg"),
    ("darkfuture", "con_recovery_days"): Pending({"con": 8}, (DF_STUNNED,), "con_recovery"),
    ("darkfuture", "stun_lasts_seconds"): Pending(
        {"con": 8}, (DF_STUNNED,), "stun", {"stun_lasts_seconds": 600}
    ),
    ("darkfuture", "ko_lasts_seconds"): Pending(
        {"con": 8}, (DF_KNOCKED_OUT,), "ko", {"ko_lasts_seconds": 3600}
    ),
}
ROLLED = (
    "a roll's successes divide it when the roll is made, and the time the roll fixed is kept in its event"
)
DECIDED: dict[tuple[str, str], str] = {
    ("shadowrun2", "treatment_table.mortal.base_seconds"): ROLLED,
    ("shadowrun2", "treatment_table.critical.base_seconds"): ROLLED,
    ("shadowrun2", "physical_healing_table.D.base_seconds"): ROLLED + " (a failed roll's next one too)",
    ("shadowrun2", "physical_healing_table.S.base_seconds"): ROLLED + " (a failed roll's next one too)",
    ("shadowrun2", "physical_healing_table.M.base_seconds"): ROLLED + " (a failed roll's next one too)",
    ("shadowrun2", "physical_healing_table.L.base_seconds"): ROLLED + " (a failed roll's next one too)",
    ("shadowrun2", "stun_healing.base_minutes"): ROLLED + " (a failed roll's next one too)",
    (
        "cyberpunk2020",
        "treatment_retry_days",
    ): "no timer: a treatment tried again is refused until then, read then",
}


def time_options(options: Any, path: Path = ()) -> Iterator[tuple[Path, int]]:
    """Every option whose name says a unit of time, with its value, at any depth."""
    if isinstance(options, dict):
        for name, value in options.items():
            yield from time_options(value, (*path, name))
    elif isinstance(options, int) and not isinstance(options, bool) and path and TIME_OPTION.search(path[-1]):
        yield path, options


def unit(path: Path) -> int:
    match = TIME_OPTION.search(path[-1])
    assert match is not None
    return UNITS[match.group(1)]


def with_value(options: Mapping[str, Any], path: Path, value: int) -> dict[str, Any]:
    changed = json.loads(json.dumps(options))
    place = changed
    for name in path[:-1]:
        place = place[name]
    place[path[-1]] = value
    return changed


def other_values(ruleset: Ruleset, options: Mapping[str, Any], path: Path, value: int) -> list[int]:
    """Values above 0 the ruleset accepts for the option other than `value`: longer and shorter. (At 0 a time
    option means something of its own: no overflow, a KO only `recover` ends, a stun to the next advance.)"""
    accepted: list[int] = []
    for candidate in (value * 2 + 1, value + 1, value // 2, 1):
        if candidate > 0 and candidate != value and candidate not in accepted:
            try:
                ruleset.validate_options(with_value(options, path, candidate))
            except Exception:  # a RuleError naming the bound
                continue
            accepted.append(candidate)
    return accepted


def changed_to(ruleset: Ruleset, state: State, options: Mapping[str, Any]) -> State:
    changed = copy_state(state)
    set_options(ruleset, changed, options)
    return changed


def play(ruleset: Ruleset, pending: Pending, options: Mapping[str, Any]) -> State:
    state = start_state(
        ruleset, ruleset.validate_attributes(pending.attributes), ruleset.validate_options(options)
    )
    for action in pending.actions:
        body = dict(action)
        rolls = body.pop("rolls", {})
        for event in ruleset.decide(state, body, Dice(rolls, rng=random.Random(0)), 0):
            state = apply(ruleset, state, event)
    return state


def dues(timers: list[Timer]) -> dict[str, int]:
    return {timer.key: timer.due for timer in timers}


def test_every_time_option_of_every_ruleset_is_re_indexed_or_fixed_by_a_roll() -> None:
    found = {
        (ruleset.slug, ".".join(path))
        for ruleset in all_rulesets()
        for path, _value in time_options(ruleset.validate_options({}))
    }
    assert found == set(PENDING) | set(DECIDED)
    assert not set(PENDING) & set(DECIDED)


@pytest.mark.parametrize(("slug", "option"), sorted(PENDING), ids=lambda item: item)
def test_a_pending_timer_moves_with_its_option_from_when_it_started(slug: str, option: str) -> None:
    ruleset = next(ruleset for ruleset in all_rulesets() if ruleset.slug == slug)
    pending = PENDING[slug, option]
    path = tuple(option.split("."))
    base = ruleset.validate_options(pending.options)
    value = dict(time_options(base))[path]
    state = play(ruleset, pending, base)
    before = dues(ruleset.timers(state))
    assert pending.key in before, f"{pending.key} is not pending: {before}"
    for new in other_values(ruleset, base, path, value):
        options = ruleset.validate_options(with_value(base, path, new))
        after = dues(ruleset.timers(changed_to(ruleset, state, options)))
        # The new value from the moment it started (game second 0 here), and no other timer moved.
        assert after == {**before, pending.key: before[pending.key] + (new - value) * unit(path)}, new
        # The same as a character whose actions were decided under the new value: nothing else differs.
        assert after == dues(ruleset.timers(play(ruleset, pending, options)))
        # Changed back, it is where it was.
        assert dues(ruleset.timers(changed_to(ruleset, changed_to(ruleset, state, options), base))) == before


@pytest.mark.parametrize(("slug", "option"), sorted(DECIDED), ids=lambda item: item)
def test_an_option_a_roll_fixed_a_time_with_moves_no_timer_of_the_demos(slug: str, option: str) -> None:
    """The other side of `DECIDED`: changing it leaves every pending timer where it was."""
    from tests.rules.test_contract import demo_histories

    ruleset = next(ruleset for ruleset in all_rulesets() if ruleset.slug == slug)
    path = tuple(option.split("."))
    for history in demo_histories(slug):
        value = dict(time_options(history.options))[path]
        for state in history.every_state():
            for new in other_values(ruleset, history.options, path, value):
                options = ruleset.validate_options(with_value(history.options, path, new))
                assert dues(ruleset.timers(changed_to(ruleset, state, options))) == dues(
                    ruleset.timers(state)
                )


@every_ruleset
@generated
@given(data=st.data())
def test_a_change_of_a_time_option_moves_a_pending_timer_by_the_change_or_not_at_all(
    ruleset: Ruleset, data: st.DataObject
) -> None:
    """Over generated histories: after a change of one time option, each pending timer is where it was or moved by
    exactly the change (never elsewhere, never dropped nor added)."""
    for history in histories(data, ruleset):
        options = history.options
        for path, value in time_options(options):
            news = other_values(ruleset, options, path, value)
            if value == 0 or not news:
                continue
            new = data.draw(st.sampled_from(news))
            shift = (new - value) * unit(path)
            changed = ruleset.validate_options(with_value(options, path, new))
            for state in history.every_state():
                before = dues(ruleset.timers(state))
                after = dues(ruleset.timers(changed_to(ruleset, state, changed)))
                assert set(after) == set(before), (path, new)
                for key, due in before.items():
                    assert after[key] in (due, due + shift), (path, new, key)
