"""Dark Future characters change in play and its house rules are options (docs/rules/darkfuture.md and
docs/rules/README.md; issue 19). Every die is entered."""

from __future__ import annotations

import pytest

from rules.darkfuture import RULESET
from rules.params import RuleError
from rules.ruleset import Event
from tests.rules.darkfuture.helpers import advance, character, gm_view, hit, lose, wound_of


def changed(state: dict, patch: dict) -> dict:
    return RULESET.evolve(state, Event("CharacterChanged", RULESET.change_attributes(state, patch), 0))


def test_a_skill_learnt_and_move_take_the_current_band_at_once() -> None:
    state, _ = lose(
        character(skills={"driver": 3}, move=4), 3, stun=[1]
    )  # 5 of 8: 51-75, skills -1, move full
    state = changed(state, {"skills": {"gunner": 4}, "move": 6})
    assert state["skills"] == {"driver": {"base": 3, "current": 2}, "gunner": {"base": 4, "current": 3}}
    assert state["move"] == {"base": 6, "current": 6}
    state = changed(state, {"skills": {"driver": None}})
    assert list(state["skills"]) == ["gunner"]


def test_a_driver_gets_the_bands_safety_limit_and_loses_it_on_foot() -> None:
    state, _ = lose(character(), 3, stun=[1])  # 51-75
    assert state["safety_limit_mph"] is None
    state = changed(state, {"driver": True})
    assert state["safety_limit_mph"] == 40
    assert changed(state, {"driver": False})["safety_limit_mph"] is None


def test_the_initial_con_is_refused_unless_unchanged() -> None:
    state = character()
    with pytest.raises(RuleError) as refused:
        RULESET.change_attributes(state, {"con": 9})
    assert refused.value.field == "attributes.con"
    assert RULESET.change_attributes(state, {"con": 8, "armour": 1})["changes"] == {
        "attributes.armour": {"old": 0, "new": 1}
    }


@pytest.mark.parametrize(
    ("target", "roll", "disabled"), [(3, 4, True), (4, 4, False), (0, 1, True), (6, 6, False)]
)
def test_limb_check_target(target: int, roll: int, disabled: bool) -> None:
    state, _ = lose(character(options={"limb_check_target": target}), 4, ko=[1], stun=[1])  # 4 of 8: 26-50
    state, events = lose(state, 2, ko=[1], stun=[1], limb_check=[roll], limb=[1], side=[1])  # 2 of 8: 01-25
    check = wound_of(events)["limb_check"]
    assert (check["target"], check["disabled"]) == (target, disabled)
    assert state["disabled_limbs"] == (["left_arm"] if disabled else [])


@pytest.mark.parametrize(
    ("options", "limb", "side", "disabled"),
    [
        ({}, 3, 4, "right_arm"),  # the house table: 1-3 arm, 4-6 leg; 1-3 left, 4-6 right
        ({"limb_arm_up_to": 2}, 3, 4, "right_leg"),
        ({"limb_left_up_to": 4}, 3, 4, "left_arm"),
        ({"limb_arm_up_to": 0, "limb_left_up_to": 6}, 1, 6, "left_leg"),
    ],
)
def test_the_limb_and_side_dice_read_the_options(options: dict, limb: int, side: int, disabled: str) -> None:
    state, _ = lose(character(options=options), 4, ko=[1], stun=[1])  # 4 of 8: 26-50
    state, events = lose(state, 2, ko=[1], stun=[1], limb_check=[6], limb=[limb], side=[side])  # 01-25
    check = wound_of(events)["limb_check"]
    assert (check["limb_roll"], check["side_roll"], check["limb"]) == (limb, side, disabled)
    assert state["disabled_limbs"] == [disabled]


def test_a_stun_lasts_the_options_seconds() -> None:
    state, _ = lose(character(options={"stun_lasts_seconds": 30}), 3, stun=[6])
    assert state["stunned"] is True
    state, _ = advance(state, 29)
    assert state["stunned"] is True
    state, events = advance(state, 30)
    assert (state["stunned"], [e.type for e in events]) == (False, ["StunEnded"])


def test_a_ko_wears_off_by_option_and_only_by_recover_by_default() -> None:
    state, _ = lose(character(options={"ko_lasts_seconds": 600}), 4, ko=[6], stun=[1])
    assert gm_view(state)["conscious"] is False
    state, events = advance(state, 600)
    assert [(e.type, e.data["ended_by"]) for e in events if e.type == "KnockOutEnded"] == [
        ("KnockOutEnded", "clock")
    ]
    assert gm_view(state)["conscious"] is True
    out, _ = lose(character(), 4, ko=[6], stun=[1])
    out, _ = advance(out, 6 * 86_400)
    assert gm_view(out)["conscious"] is False
    assert "ko_ends" not in gm_view(out)["timers"]


def test_armour_changes_the_next_wound() -> None:
    state, events = hit(character(), {"damage": [2]}, 1)
    assert wound_of(events)["con_lost"] == 1
    state = changed(state, {"armour": 2})
    state, events = hit(state, {"damage": [2]}, 1)
    assert [e.type for e in events] == ["NearMissTaken"]
