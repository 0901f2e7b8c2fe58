"""Issue 42, "a night at the table": a roll whose outcome is certain whatever the die shows (Cyberpunk's sever check
"keeps it on 1 or more") was still asked of a table that rolls. The engines say such a roll is `certain`
(`rules.dice.certain_at_least`, `certain_at_most`, `certain_table`): `Dice(ask=True)` rolls it at the server and
records it, as without table dice; a roll the GM typed is used all the same. Shadowrun has none: a success test's
successes depend on every die (a target is never below 2), its tables give a different entry for each roll.

Every test here holds whatever the server's die: its outcome is certain, the die's value is only recorded."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from rules.cyberpunk2020 import RULESET as CP2020
from rules.cyberpunk2020 import engine as cp
from rules.darkfuture import RULESET as DF
from rules.dice import Dice, RollNeeded, certain_at_least, certain_at_most, certain_table


def table_dice(rolls: dict[str, Any] | None = None, seed: int = 0) -> Dice:
    """A table that rolls (`ask`): every roll not given and not certain is asked for."""
    return Dice(rolls or {}, rng=Random(seed), ask=True)


def test_what_is_certain_on_a_die() -> None:
    assert [certain_at_least(target, 10) for target in (-3, 1, 2, 10, 11)] == [True, True, False, False, True]
    assert [certain_at_most(target, 10) for target in (0, 1, 9, 10, 14)] == [True, False, False, True, True]
    assert certain_table({1: "arm", 2: "arm"}) and not certain_table({1: "arm", 2: "leg"})


# Cyberpunk: Body 6, Luck 2 (BTM -2). 20 points to the left arm: 8 on the location (halved), a sever check against
# 8, kept on a d10 of 0 or more: certain. 24 points: 10, kept on 2 or more: asked.
def cp_character() -> dict[str, Any]:
    return cp.initial_state(cp.validate_attributes({"body": 6, "luck": 2}), cp.validate_options({}))


SAVES = {"stun_save": [1], "death_save": [1]}


@pytest.mark.parametrize("seed", range(5))
def test_a_sever_check_that_cannot_fail_is_rolled_by_the_server_and_recorded(seed: int) -> None:
    dice = table_dice(SAVES, seed)
    events = CP2020.decide(cp_character(), {"type": "damage", "damage": 20, "location": "left_arm"}, dice, 0)
    taken, crippled = events[0], events[1]
    assert (taken.type, crippled.type) == ("DamageTaken", "LimbCrippled")
    [roll] = taken.data["dice"]["sever"]  # recorded as rolled, as without table dice
    assert 1 <= roll <= 10 and "sever" not in dice.entered
    assert crippled.data["sever_check"] == {
        "body": 6,
        "luck": 2,
        "roll": roll,
        "total": 8 + roll,
        "needed": 8,
        "kept": True,
        "certain": True,  # not asked: its words name no die (tests/rules/test_words.py)
    }


def test_a_sever_check_that_may_fail_is_still_asked() -> None:
    with pytest.raises(RollNeeded) as needed:
        CP2020.decide(
            cp_character(), {"type": "damage", "damage": 24, "location": "left_arm"}, table_dice(SAVES), 0
        )
    assert needed.value.request.name == "sever"


def test_a_certain_roll_the_gm_typed_is_used() -> None:
    dice = table_dice({**SAVES, "sever": [3]})
    events = CP2020.decide(cp_character(), {"type": "damage", "damage": 20, "location": "left_arm"}, dice, 0)
    assert events[0].data["dice"]["sever"] == [3]


@pytest.mark.parametrize(("tech", "skill", "asked"), [(9, 5, False), (4, 4, True)])
def test_a_skill_roll_that_cannot_fail_is_not_asked(tech: int, skill: int, asked: bool) -> None:
    """Setting bones, difficulty 15: TECH 9 + skill 5 succeeds on a d10 of 1 or more."""
    state = cp_character()
    damaged = CP2020.decide(
        state,
        {"type": "damage", "damage": 20, "location": "left_arm"},
        table_dice({**SAVES, "sever": [10]}),
        0,
    )
    for event in damaged:
        state = CP2020.evolve(state, event)
    stabilize = {"type": "stabilize", "target": "limb:left_arm", "skill": "first_aid", "total": 20}
    for event in CP2020.decide(state, stabilize, table_dice(), 0):
        state = CP2020.evolve(state, event)
    action = {"type": "set_bones", "limb": "left_arm", "tech": tech, "skill_level": skill}
    dice = table_dice()
    if asked:
        with pytest.raises(RollNeeded):
            CP2020.decide(state, action, dice, 60)
    else:
        events = CP2020.decide(state, action, dice, 60)
        assert "set_bones" in dice.used and events


@pytest.mark.parametrize("seed", range(3))
def test_dark_futures_house_rules_that_leave_nothing_to_the_die_are_not_asked(seed: int) -> None:
    """Limb check 0 (always), An arm up to 6 (always an arm), The left side up to 0 (always right): in the 01-25%
    band only the Critical Table's die and the KO roll are asked."""
    options = {"limb_check_target": 0, "limb_arm_up_to": 6, "limb_left_up_to": 0}
    state = DF.initial_state({"con": 8}, options)
    dice = table_dice({"damage": [5], "ko": [6]}, seed)
    [wound] = DF.decide(state, {"type": "damage", "weapon_damage": 10}, dice, 0)
    assert wound.data["limb_check"]["limb"] == "right_arm"
    assert {"limb_check", "limb", "side"} <= set(wound.data["dice"])
    # The default house rules leave it to the die: the limb check is asked.
    with pytest.raises(RollNeeded) as needed:
        DF.decide(
            DF.initial_state({"con": 8}, None),
            {"type": "damage", "weapon_damage": 10},
            table_dice({"damage": [5], "ko": [6]}),
            0,
        )
    assert needed.value.request.name == "limb_check"
