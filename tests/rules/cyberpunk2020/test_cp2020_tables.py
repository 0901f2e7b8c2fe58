import pytest

from rules.cyberpunk2020 import engine, tables
from rules.dice import DiceError

from .helpers import STANDARD, act, character

BODY_TO_BTM = [
    (1, 0),
    (2, 0),
    (3, -1),
    (4, -1),
    (5, -2),
    (6, -2),
    (7, -2),
    (8, -3),
    (9, -3),
    (10, -4),
    (11, -5),
    (15, -5),
]


@pytest.mark.parametrize(("body", "btm"), BODY_TO_BTM)
def test_the_body_type_modifier_follows_the_body_table(body, btm):
    assert engine.btm_for_body(body) == btm
    assert character(body=body)["attributes"]["btm"] == btm


TRACK_TO_LEVEL = [
    (0, "none", 0, None),
    (1, "light", 0, None),
    (4, "light", 0, None),
    (5, "serious", -1, None),
    (8, "serious", -1, None),
    (9, "critical", -2, None),
    (12, "critical", -2, None),
    (13, "mortal_0", -3, 0),
    (16, "mortal_0", -3, 0),
    (17, "mortal_1", -4, 1),
    (20, "mortal_1", -4, 1),
    (21, "mortal_2", -5, 2),
    (24, "mortal_2", -5, 2),
    (25, "mortal_3", -6, 3),
    (28, "mortal_3", -6, 3),
    (29, "mortal_4", -7, 4),
    (32, "mortal_4", -7, 4),
    (33, "mortal_5", -8, 5),
    (36, "mortal_5", -8, 5),
    (37, "mortal_6", -9, 6),
    (40, "mortal_6", -9, 6),
    (41, "dead", -9, 6),
]


@pytest.mark.parametrize(("points", "level", "penalty", "mortal"), TRACK_TO_LEVEL)
def test_each_wound_level_has_its_points_stun_penalty_and_mortal_level(points, level, penalty, mortal):
    assert engine.wound_level_of(points) == level
    assert engine.stun_penalty_of(points) == penalty
    assert engine.mortal_level_of(points) == mortal


@pytest.mark.parametrize(
    ("points", "stun_target", "death_target"), [(0, 7, 7), (5, 6, 7), (9, 5, 7), (13, 4, 7), (40, -2, 1)]
)
def test_save_targets_are_body_plus_bonus_plus_penalty_and_body_minus_mortal_level(
    points, stun_target, death_target
):
    state = character(body=7)
    state["damage"] = points
    assert engine.stun_save_target(state) == stun_target
    assert engine.death_save_target(state) == death_target


def test_the_stun_save_bonus_of_perks_moves_the_stun_save_target_only():
    state = engine.initial_state(
        engine.validate_attributes({"body": 7, "stun_save_bonus": -2}), engine.validate_options(None)
    )
    assert engine.stun_save_target(state) == 5
    assert engine.death_save_target(state) == 7


def aimed_nowhere_location(model: str, roll: int, side: int | None = None, **flags):
    """The location of a 1-point torso-proof hit rolled on `model`."""
    state = character(hit_location_model=model)
    rolls = {"location": [roll], "stun_save": [1]}
    if side is not None:
        rolls["side"] = [side]
    _, events = act(state, {"type": "damage", "damage": 1, **flags}, rolls)
    return events[0].data["hit"]


@pytest.mark.parametrize(("roll", "location"), STANDARD.items())
def test_the_standard_d10_table(roll, location):
    hit = aimed_nowhere_location("standard", roll)
    assert (hit["location"], hit["roll"], hit["how"]) == (location, roll, "standard")


@pytest.mark.parametrize("roll", range(1, 9))
def test_the_d8_model_rolls_a_d8_on_the_standard_table(roll):
    hit = aimed_nowhere_location("d8", roll)
    assert (hit["location"], hit["how"]) == (STANDARD[roll], "d8")


def test_the_d8_model_refuses_a_9():
    with pytest.raises(DiceError, match=r"rolls.location: expected 1 die of 1-8, got \[9\]"):
        aimed_nowhere_location("d8", 9)


MODIFIED = {
    1: ("head", "head"),
    2: ("torso", "torso"),
    3: ("torso", "torso"),
    4: ("torso", "torso"),
    5: ("left_arm", "left arm"),
    6: ("right_arm", "right arm"),
    7: ("torso", "lower abdomen"),
    9: ("left_leg", "left leg"),
    10: ("right_leg", "right leg"),
}


@pytest.mark.parametrize(("roll", "expected"), MODIFIED.items())
def test_the_modified_d10_table(roll, expected):
    hit = aimed_nowhere_location("modified", roll)
    assert (hit["location"], hit["part"]) == expected
    assert hit["side"] is None


@pytest.mark.parametrize(
    ("side", "location"), [(1, "left_leg"), (5, "left_leg"), (6, "right_leg"), (10, "right_leg")]
)
def test_a_modified_8_is_a_groin_hit_whose_side_is_rolled(side, location):
    hit = aimed_nowhere_location("modified", 8, side=side)
    assert (hit["location"], hit["part"], hit["side"]) == (location, "groin/upper thigh", side)


def test_every_side_face_of_the_modified_model_is_in_the_table():
    left, right = "left_leg", "right_leg"
    expected = {
        1: left,
        2: left,
        3: left,
        4: left,
        5: left,
        6: right,
        7: right,
        8: right,
        9: right,
        10: right,
    }
    assert expected == tables.MODIFIED_SIDE_D10


@pytest.mark.parametrize("model", ["d8", "modified"])
def test_cover_forces_the_standard_table(model):
    hit = aimed_nowhere_location(model, 10, cover=True)
    assert (hit["location"], hit["how"]) == ("right_leg", "cover")


@pytest.mark.parametrize(
    ("roll", "location"),
    [(1, "head"), (2, "torso"), (3, "torso"), (4, "torso"), (5, "left_arm"), (6, "right_arm")],
)
def test_a_center_of_mass_shot_rolls_a_d6_on_the_standard_table(roll, location):
    hit = aimed_nowhere_location("modified", roll, center_of_mass=True)
    assert (hit["location"], hit["how"]) == (location, "center_of_mass")


def test_a_center_of_mass_shot_refuses_a_7():
    with pytest.raises(DiceError, match=r"rolls.location: expected 1 die of 1-6, got \[7\]"):
        aimed_nowhere_location("standard", 7, center_of_mass=True)


def test_an_aimed_shot_rolls_no_location():
    state = character()
    _, events = act(state, {"type": "damage", "damage": 1, "location": "left_leg"}, {"stun_save": [1]})
    assert events[0].data["hit"] == {
        "location": "left_leg",
        "part": "left leg",
        "how": "aimed",
        "roll": None,
        "side": None,
    }
    assert "location" not in events[0].data["dice"]


def test_the_house_difficulties_are_fifteen_and_one_day():
    assert tables.LIMB_STABILIZATION_DIFFICULTY == 15
    assert tables.TREATMENT_DIFFICULTY == 15
    assert tables.TREATMENT_RETRY_DAYS == 1
