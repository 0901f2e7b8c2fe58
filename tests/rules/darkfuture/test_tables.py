"""Every row of the darkfuture tables, as the seed and docs/rules/darkfuture.md give them."""

import pytest

from rules.darkfuture import tables
from rules.darkfuture.engine import (
    con_band,
    critical_table_row,
    current_move,
    reduced_skill,
    safety_limit_mph,
)

# result -> (printed row, CON lost): the Pedestrian Critical Table and its continuation up to a result of 21.
CRITICAL_ROWS = [
    (-5, "<= 1", 0),
    (0, "<= 1", 0),
    (1, "<= 1", 0),
    (2, "2-3", 1),
    (3, "2-3", 1),
    (4, "4-7", 2),
    (5, "4-7", 2),
    (6, "4-7", 2),
    (7, "4-7", 2),
    (8, "8-9", 3),
    (9, "8-9", 3),
    (10, "10-11", 4),
    (11, "10-11", 4),
    (12, "12-13", 5),
    (13, "12-13", 5),
    (14, "14-15", 6),
    (15, "14-15", 6),
    (16, "16-17", 7),
    (17, "16-17", 7),
    (18, "18-19", 8),
    (19, "18-19", 8),
    (20, "20-21", 9),
    (21, "20-21", 9),
]


@pytest.mark.parametrize(("result", "row", "con_lost"), CRITICAL_ROWS)
def test_each_critical_table_result_costs_the_printed_con(result, row, con_lost):
    assert critical_table_row(result) == (row, con_lost)


def test_the_seed_example_roll_of_2_plus_1_costs_one_con():
    assert critical_table_row(2 + 1) == ("2-3", 1)


# The seed's band table for initial CON 1-10, current CON -> band (with the CON 10 row's 6 in 51-75).
BAND_ROWS = {
    1: ["76+"],
    2: ["26-50", "76+"],
    3: ["01-25", "26-50", "76+"],
    4: ["01-25", "26-50", "51-75", "76+"],
    5: ["01-25", "26-50", "51-75", "76+", "76+"],
    6: ["01-25", "01-25", "26-50", "51-75", "76+", "76+"],
    7: ["01-25", "01-25", "26-50", "26-50", "51-75", "76+", "76+"],
    8: ["01-25", "01-25", "26-50", "26-50", "51-75", "51-75", "76+", "76+"],
    9: ["01-25", "01-25", "26-50", "26-50", "51-75", "51-75", "76+", "76+", "76+"],
    10: ["01-25", "01-25", "26-50", "26-50", "26-50", "51-75", "51-75", "51-75", "76+", "76+"],
}


@pytest.mark.parametrize(
    ("initial", "current", "band"),
    [
        (initial, current, band)
        for initial, row in BAND_ROWS.items()
        for current, band in enumerate(row, start=1)
    ],
)
def test_each_row_of_the_band_table_for_initial_con_1_to_10(initial, current, band):
    assert con_band(current, initial) == band


@pytest.mark.parametrize("initial", range(1, 11))
def test_each_band_table_row_covers_every_con_from_1_to_initial_once(initial):
    covered = [
        value
        for points in tables.BANDS_BY_INITIAL_CON[initial].values()
        if points is not None
        for value in range(points[0], points[1] + 1)
    ]
    assert sorted(covered) == list(range(1, initial + 1))


def test_con_6_with_2_left_is_01_25_not_a_plain_percentage():
    assert con_band(2, 6) == "01-25"


def test_the_con_10_row_puts_6_in_51_75():
    assert con_band(6, 10) == "51-75"
    assert con_band(5, 10) == "26-50"


def test_4_of_8_con_is_26_50_because_the_table_wins_over_the_prose():
    assert con_band(4, 8) == "26-50"


@pytest.mark.parametrize("initial", [1, 8, 10, 12, 40])
def test_0_con_is_automatic_ko_and_below_is_dead(initial):
    assert con_band(0, initial) == "0"
    assert con_band(-1, initial) == "dead"
    assert con_band(-7, initial) == "dead"


@pytest.mark.parametrize(
    ("current", "band"),
    [
        (20, "76+"),
        (16, "76+"),
        (15, "51-75"),
        (11, "51-75"),
        (10, "26-50"),
        (6, "26-50"),
        (5, "01-25"),
        (1, "01-25"),
    ],
)
def test_above_initial_con_10_the_bands_are_percentages(current, band):
    # 20 initial CON: over 75% is 16+, over 50% 11+, over 25% 6+.
    assert con_band(current, 20) == band


def test_exactly_75_percent_of_12_con_is_51_75():
    assert con_band(9, 12) == "51-75"
    assert con_band(10, 12) == "76+"
    assert con_band(6, 12) == "26-50"
    assert con_band(3, 12) == "01-25"
    assert con_band(4, 12) == "26-50"


SKILL_ROWS = [
    # rating, 1/2, 1/4 (the seed's Current Skill columns)
    (1, 0, 0),
    (2, 1, 0),
    (3, 2, 1),
    (4, 2, 1),
    (5, 3, 1),
    (6, 3, 2),
    (7, 4, 2),
    (8, 4, 2),
    (9, 5, 3),
    (10, 5, 3),
]


@pytest.mark.parametrize(("rating", "half", "quarter"), SKILL_ROWS)
def test_each_row_of_the_skill_table(rating, half, quarter):
    assert reduced_skill(rating, "26-50") == half
    assert reduced_skill(rating, "01-25") == quarter


@pytest.mark.parametrize(
    ("rating", "half", "quarter"), [(11, 6, 3), (12, 6, 3), (13, 7, 3), (14, 7, 4), (18, 9, 5)]
)
def test_above_rating_10_skills_round_half_up(rating, half, quarter):
    assert reduced_skill(rating, "26-50") == half
    assert reduced_skill(rating, "01-25") == quarter


@pytest.mark.parametrize(("rating", "reduced"), [(0, 0), (1, 0), (2, 1), (4, 3)])
def test_minus_one_never_goes_below_0(rating, reduced):
    assert reduced_skill(rating, "51-75") == reduced


@pytest.mark.parametrize(("band", "reduced"), [("76+", 7), ("0", 0), ("dead", 0)])
def test_full_skill_above_75_percent_and_none_at_0_con_or_dead(band, reduced):
    assert reduced_skill(7, band) == reduced


@pytest.mark.parametrize(
    ("band", "move"), [("76+", 7), ("51-75", 7), ("26-50", 5), ("01-25", 3), ("0", 0), ("dead", 0)]
)
def test_move_factors_round_down(band, move):
    # 7 x 3/4 = 5.25 -> 5; 7 x 1/2 = 3.5 -> 3
    assert current_move(7, band, []) == move


@pytest.mark.parametrize(("band", "move"), [("76+", 4), ("51-75", 4), ("26-50", 4), ("01-25", 4)])
def test_a_disabled_leg_halves_move_and_the_worst_factor_wins(band, move):
    assert current_move(8, band, ["left_leg"]) == move


def test_two_disabled_legs_do_not_stack():
    assert current_move(8, "76+", ["left_leg", "right_leg"]) == 4


def test_a_disabled_arm_leaves_move_alone():
    assert current_move(8, "76+", ["right_arm"]) == 8


@pytest.mark.parametrize(
    ("band", "limit"),
    [("76+", None), ("51-75", 40), ("26-50", 20), ("01-25", 20), ("0", None), ("dead", None)],
)
def test_drivers_safety_limit_by_band(band, limit):
    assert safety_limit_mph(band, driver=True) == limit


def test_a_non_driver_has_no_safety_limit():
    assert safety_limit_mph("51-75", driver=False) is None


@pytest.mark.parametrize(
    ("band", "effects"),
    [
        ("76+", ()),
        ("51-75", ("stun",)),
        ("26-50", ("ko", "stun")),
        ("01-25", ("ko", "stun", "limb")),
        ("0", ("automatic_ko",)),
        ("dead", ("dead",)),
    ],
)
def test_wound_effects_by_band_in_the_order_they_are_rolled(band, effects):
    assert tables.BAND_EFFECTS[band]["effects"] == effects


@pytest.mark.parametrize(
    ("roll", "limb"), [(1, "arm"), (2, "arm"), (3, "arm"), (4, "leg"), (5, "leg"), (6, "leg")]
)
def test_the_limb_roll(roll, limb):
    assert tables.LIMB_BY_ROLL[roll] == limb


@pytest.mark.parametrize(
    ("roll", "side"), [(1, "left"), (2, "left"), (3, "left"), (4, "right"), (5, "right"), (6, "right")]
)
def test_the_side_roll(roll, side):
    assert tables.SIDE_BY_ROLL[roll] == side
