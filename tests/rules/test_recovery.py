"""Fit for action and the party's recovery (rules/recovery.py, docs/recovery.md) against dates known by hand.

Every state is played from actions with every die entered (`played`, as the forecast's tests)."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product
from random import Random

import pytest

from rules import forecast as fc
from rules import recovery as rc
from rules.dice import Dice
from rules.params import RuleError
from rules.registry import get_ruleset
from rules.shadowrun2 import forecast as sr
from tests.rules.test_forecast import (
    CRITICAL,
    DAY,
    EIGHT_WEEKS,
    MORTAL,
    REST,
    _serious_chest_hit,
    critical_healing,
    item,
    played,
    quantile,
)

WEEK = 7 * DAY


def _con_lost(con: int, at: int = 100) -> dict:
    """Dark Future: a 6 rolled + weapon 2 = 8 on the table, 3 CON lost at game second `at` (the stun roll, 1)."""
    return played(
        "darkfuture",
        {"con": con},
        [(at, {"type": "damage", "weapon_damage": 2}, {"damage": [6], "stun": [1]})],
    )


def test_dark_future_fit_is_the_76_percent_band_on_exact_dates() -> None:
    rules = get_ruleset("darkfuture")
    # CON 10 -> 7: 9 is the least CON in the 76%+ band, two points back at a point a week of rest.
    ten = rc.character(rules, _con_lost(10), 100, player=False, runs=200)
    assert [i.what for i in ten.items] == ["CON 7 of 10 (9 needed)"]
    assert ten.fit == fc.Spread(100 + 2 * WEEK, 100 + 2 * WEEK, 100 + 2 * WEEK, 1.0) and ten.exact
    # CON 12 -> 9: 10 needed (76% of 12 is 9.12), one point: a week.
    twelve = rc.character(rules, _con_lost(12), 100, player=False, runs=200)
    assert twelve.fit == fc.Spread(100 + WEEK, 100 + WEEK, 100 + WEEK, 1.0)
    party = rc.party_spread([ten.times, twelve.times])
    assert party == fc.Spread(100 + 2 * WEEK, 100 + 2 * WEEK, 100 + 2 * WEEK, 1.0)
    assert rc.fit_by([ten.times, twelve.times], 100 + WEEK) == (1, Fraction(0))
    assert rc.fit_by([ten.times, twelve.times], 100 + 2 * WEEK) == (2, Fraction(1))


def test_dark_future_a_disabled_limb_stands_in_the_way_until_the_gm_restores_it() -> None:
    rules = get_ruleset("darkfuture")
    # CON 8: 4 lost (a 6 + weapon 4 = 10), then 2 (a 4) in the 01-25 band: the limb check 6 disables the left arm.
    state = played(
        "darkfuture",
        {"con": 8},
        [
            (0, {"type": "damage", "weapon_damage": 4}, {"damage": [6], "ko": [1], "stun": [1]}),
            (
                0,
                {"type": "damage", "weapon_damage": 0},
                {"damage": [4], "ko": [1], "stun": [1], "limb_check": [6], "limb": [1], "side": [1]},
            ),
        ],
    )
    assert (state["con"]["current"], state["disabled_limbs"]) == (2, ["left_arm"])
    untreated = rc.character(rules, state, 0, player=False, runs=50)
    assert [(i.what, i.note) for i in untreated.items] == [
        ("CON 2 of 8 (7 needed)", None),
        ("the left arm disabled", fc.NOT_WITHOUT_CARE),
    ]
    assert (untreated.fit, untreated.note) == (None, rc.NOT_WITHOUT_CARE)
    # The GM's recover now: the arm at once, CON 7 after five weeks of rest.
    restored = rc.character(rules, state, 0, player=False, runs=50, what_if=rc.treatment(rules), key="t")
    assert restored.fit == fc.Spread(5 * WEEK, 5 * WEEK, 5 * WEEK, 1.0)


def test_cyberpunk_fit_is_the_track_at_light_on_exact_dates_under_treatment() -> None:
    rules = get_ruleset("cyberpunk2020")
    # Body 6, 10 to the torso less BTM 2: 8 points (Serious); medical tech heals a point a day: Light in 4 days.
    hurt = [(0, {"type": "damage", "damage": 10, "location": "torso"}, {"stun_save": [1], "death_save": [1]})]
    treat = {"type": "treat", "medic": "Doc", "skill": "medical_tech", "tech": 6, "skill_level": 4}
    treated = played("cyberpunk2020", {"body": 6}, [*hurt, (0, treat, {"treatment": [10]})])
    outlook = rc.character(rules, treated, 0, player=False, runs=300)
    assert [i.what for i in outlook.items] == ["the wound track: 8 points, 4 points over Light"]
    assert outlook.fit == fc.Spread(4 * DAY, 4 * DAY, 4 * DAY, 1.0) and outlook.exact
    untreated = rc.character(rules, played("cyberpunk2020", {"body": 6}, hurt), 0, player=False, runs=30)
    assert (untreated.fit, untreated.note) == (None, rc.NOT_WITHOUT_CARE)
    # A Light track is fit: 4 points of damage (6 less BTM 2) stand in nobody's way.
    light = played(
        "cyberpunk2020",
        {"body": 6},
        [(0, {"type": "damage", "damage": 6, "location": "torso"}, {"stun_save": [1], "death_save": [1]})],
    )
    assert light["damage"] == 4
    assert rc.character(rules, light, 0, player=False, runs=30).status == rc.FIT_NOW


# Cyberpunk: body 6 and luck 2 (BTM -2), every save passed on a 1; the medic's totals entered (no die).
_TORSO = (0, {"type": "damage", "damage": 10, "location": "torso"}, {"stun_save": [1], "death_save": [1]})
# 20 to the left leg: halved to 10, less BTM 2 is 8, crippled; the track takes 8 (Serious). Kept: 6 + 2 + 1 >= 8.
_LEG = (
    0,
    {"type": "damage", "damage": 20, "location": "left_leg"},
    {"sever": [1], "stun_save": [1], "death_save": [1]},
)
_DOC = {"medic": "Doc", "total": 15}
_STABILIZE = (0, {"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", **_DOC}, {})
_SET_BONES = (0, {"type": "set_bones", "limb": "left_leg", **_DOC}, {})
_MEDICAL_TECH = (0, {"type": "treat", "skill": "medical_tech", **_DOC}, {})  # a point a day
_FIRST_AID = (0, {"type": "treat", "skill": "first_aid", **_DOC}, {})  # half a point a day


def _cyberpunk(*steps: tuple[int, dict, dict]) -> dict:
    return played("cyberpunk2020", {"body": 6, "luck": 2}, list(steps))


def test_cyberpunk_a_crippled_leg_whose_bones_are_set_mends_on_its_own_in_six_weeks() -> None:
    rules = get_ruleset("cyberpunk2020")
    unset = _cyberpunk(_LEG, _STABILIZE, _MEDICAL_TECH)
    assert unset["damage"] == 8 and unset["locations"]["left_leg"]["crippled"]
    waiting = rc.character(rules, unset, 0, player=False, runs=30)
    assert [(i.what, i.note, i.care) for i in waiting.items][1] == (
        "the crippled left leg",
        fc.NOT_WITHOUT_CARE,
        "a crippled limb needs its bones set, or a replacement",
    )
    assert (waiting.fit, waiting.note) == (None, rc.NOT_WITHOUT_CARE)
    # Bones set at 0: the `bone_mend` timer mends the leg at 6 weeks (`bone_mend_weeks`); the track, treated at a
    # point a day, is at Light (4 points) on day 4. Fit at 6 weeks, in every future.
    mending = _cyberpunk(_LEG, _STABILIZE, _SET_BONES, _MEDICAL_TECH)
    assert mending["locations"]["left_leg"]["mends_at"] == 6 * WEEK
    outlook = rc.character(rules, mending, 0, player=False, runs=300)
    assert [(i.what, i.when, i.note) for i in outlook.items] == [
        ("the wound track: 8 points, 4 points over Light", fc.Spread(4 * DAY, 4 * DAY, 4 * DAY, 1.0), None),
        ("the crippled left leg (bones set)", fc.Spread(6 * WEEK, 6 * WEEK, 6 * WEEK, 1.0), None),
    ]
    assert (outlook.fit, outlook.note, outlook.exact) == (
        fc.Spread(6 * WEEK, 6 * WEEK, 6 * WEEK, 1.0),
        None,
        True,
    )
    # The character's forecast says the same of the leg: dated, not "not without care".
    leg = item(fc.forecast(rules, mending, 0, player=False, runs=300), "left_leg")
    assert (leg.when, leg.note) == (fc.Spread(6 * WEEK, 6 * WEEK, 6 * WEEK, 1.0), None)
    # Set but the track untreated: the leg is dated, the character waits for the track's care.
    untreated = rc.character(rules, _cyberpunk(_LEG, _STABILIZE, _SET_BONES), 0, player=False, runs=30)
    assert [(i.note, i.care) for i in untreated.items] == [
        (fc.NOT_WITHOUT_CARE, "untreated wounds do not heal: they need first aid or medical tech"),
        (None, None),
    ]
    assert (untreated.fit, untreated.note) == (None, rc.NOT_WITHOUT_CARE)


def test_a_cyberpunk_party_under_treatment_is_fit_on_dates_known_by_hand() -> None:
    rules = get_ruleset("cyberpunk2020")
    # Ash: 8 points on the torso, medical tech a point a day: 4 over Light, Light on day 4.
    # Bo: the same wound under first aid, half a point a day: a point every 2 days, Light on day 8.
    # Cy: the crippled left leg, bones set at 0, the track under medical tech: the leg mends at 6 weeks (day 42).
    party = [
        rc.character(rules, _cyberpunk(*steps), 0, player=False, runs=1000)
        for steps in (
            [_TORSO, _MEDICAL_TECH],
            [_TORSO, _FIRST_AID],
            [_LEG, _STABILIZE, _SET_BONES, _MEDICAL_TECH],
        )
    ]
    assert [c.fit for c in party] == [fc.Spread(d * DAY, d * DAY, d * DAY, 1.0) for d in (4, 8, 42)]
    assert all(c.exact for c in party)
    times = [c.times for c in party]
    # Every future is the same, so the party is fit when Cy is: p10, p50 and p90 all on day 42.
    assert rc.party_spread(times) == fc.Spread(42 * DAY, 42 * DAY, 42 * DAY, 1.0)
    assert rc.party_spread(times[:2]) == fc.Spread(8 * DAY, 8 * DAY, 8 * DAY, 1.0)
    assert [rc.fit_by(times, d * DAY) for d in (3, 4, 8, 41, 42)] == [
        (0, Fraction(0)),
        (1, Fraction(0)),
        (2, Fraction(0)),
        (2, Fraction(0)),
        (3, Fraction(1)),
    ]


def test_shadowrun_fit_follows_the_critical_hits_binomial_body_tests() -> None:
    # Body 9 in hospital, a Light wound with a Critical hit to the ribs (tests/rules/test_forecast.py's case): the
    # Light box heals within hours, the hit at 8 weeks / successes of a Body test every 8 weeks (by hand).
    state = played(
        "shadowrun2",
        {"body": 9},
        [
            (0, {"type": "set_care", "in_hospital": True}, {}),
            (
                0,
                {"type": "wound", "severity": "L"},
                {"body_check": [2, 2, 1, 1, 1, 1, 1, 1, 1], "location": [3, 4], "critical": 2},
            ),
        ],
    )
    rules = get_ruleset("shadowrun2")
    outlook = rc.character(rules, state, 0, player=False, runs=1000, seed=7)
    assert [i.what for i in outlook.items] == [
        "the chest's critical hit (ribs)",
        "physical damage (Light, 1 box)",
    ]
    expected = critical_healing(9, Fraction(1, 6) * Fraction(5, 6), fc.HORIZON)
    assert outlook.fit is not None and not outlook.exact
    assert (outlook.fit.p50, outlook.fit.p90) == (quantile(expected, 50), quantile(expected, 90))
    assert (outlook.fit.p50, outlook.fit.p90) == (REST + EIGHT_WEEKS, REST + 2 * EIGHT_WEEKS)


def test_shadowrun_a_crippling_hit_is_in_the_way_until_replaced() -> None:
    rules = get_ruleset("shadowrun2")
    # Body 4, a Serious wound: 1 success, the critical roll 1 on the chest is Crippling (the forecast's case).
    rolls = {"body_check": [6, 1, 1, 1], "location": [3, 4], "critical": 1}
    state = played("shadowrun2", {"body": 4}, [(0, {"type": "wound", "severity": "S"}, rolls)])
    hits = [h for h in state["critical_hits"] if h["lethality"] == "crippling"]
    assert hits, state["critical_hits"]
    outlook = rc.character(rules, state, 0, player=False, runs=30)
    assert outlook.note == rc.NOT_WITHOUT_CARE
    replaced = played(
        "shadowrun2",
        {"body": 4},
        [
            (0, {"type": "wound", "severity": "S"}, rolls),
            (0, {"type": "diagnose", "medic": "Doc", "skill": 5}, {"diagnosis": [6] * 5}),
            (0, {"type": "replace", "critical_hit": hits[0]["id"], "replacement": "cyberhand"}, {}),
        ],
    )
    assert all(i.key != hits[0]["id"] for i in rc.obstacles(rules, replaced))


# Short sentences, none in parentheses (the phone said one long nested sentence, twice).
UNDER_TREATMENT_WORDS = (
    "the treatment under way will leave a crippling hit, which never heals on its own. It needs a replacement, "
    "healing magic, or the GM's Accept"
)


@pytest.mark.parametrize(
    ("treatment", "completes_at", "care"),
    [
        # 2 successes at TN 8 (6 then 2 is 8): 10 minutes / 2, done at 300 s, before the death at 360 s.
        ([8, 8, 1, 1], 300, UNDER_TREATMENT_WORDS),
        # 1 success: done at 600 s, after the death at 360 s.
        ([8, 1, 1, 1], 600, sr.DIES_UNDER_TREATMENT),
    ],
)
def test_shadowrun_a_mortal_hit_under_treatment_turns_crippling_and_still_needs_care(
    treatment: list[int], completes_at: int, care: str
) -> None:
    # docs/rules/shadowrun2.md, "Treatment of a critical hit": at completion a Mortal hit becomes Crippling (6 boxes,
    # its death timer stopped), and a Crippling hit never heals on its own; so it is still "not without care", for the
    # reason that now holds.
    rules = get_ruleset("shadowrun2")
    state = played(
        "shadowrun2",
        {"body": 4},
        [
            (
                0,
                {"type": "wound", "severity": "S"},
                {"body_check": MORTAL, "location": [3, 4], "critical": 3, "death_time": [6]},
            ),
            (0, {"type": "diagnose", "medic": "Doc", "skill": 5}, {"diagnosis": [6] * 5}),
            (
                0,
                {"type": "treat", "medic": "Doc", "skill": 4, "critical_hit": "ch1"},
                {"treatment": treatment},
            ),
        ],
    )
    hit = state["critical_hits"][0]
    assert (hit["lethality"], hit["death_at"], hit["treatment"]["completes_at"]) == (
        "mortal",
        360,
        completes_at,
    )
    outlook = rc.character(rules, state, 0, player=False, runs=200)
    assert (outlook.fit, outlook.note) == (None, rc.NOT_WITHOUT_CARE)
    assert (outlook.items[0].what, outlook.items[0].note, outlook.items[0].care) == (
        "the chest's mortal hit (spine)",
        fc.NOT_WITHOUT_CARE,
        care,
    )
    if completes_at < 360:
        # Every future lives: the hit is Crippling (6 boxes) from 300 s on, and stays so.
        assert not any(f.died for f in outlook.futures)
        assert all(f.path[1] == (300, (6, 6)) and f.path[-1][1][0] == 6 for f in outlook.futures)
    else:
        assert all(f.died for f in outlook.futures)
    # A player never learns the time of death: the words are the treatment's, whichever comes first.
    seen = rc.character(rules, state, 0, player=True, runs=200)
    assert seen.items[0].care == UNDER_TREATMENT_WORDS


@pytest.mark.parametrize("lethality", ["crippling", "critical"])
def test_shadowrun_the_gm_may_accept_a_crippling_hit_and_nothing_else(lethality: str) -> None:
    rules = get_ruleset("shadowrun2")
    # Body 4, a Serious wound on the chest: 1 success and critical roll 1 is Crippling; 2 and roll 3, the spine, is
    # Critical (the forecast's cases).
    rolls = (
        {"body_check": [6, 1, 1, 1], "location": [3, 4], "critical": 1}
        if lethality == "crippling"
        else {"body_check": CRITICAL, "location": [3, 4], "critical": 3, "death_time": [6]}
    )
    hurt = [
        (0, {"type": "wound", "severity": "S"}, rolls),
        (0, {"type": "diagnose", "medic": "Doc", "skill": 5}, {"diagnosis": [6] * 5}),
    ]
    state = played("shadowrun2", {"body": 4}, hurt)
    hit = state["critical_hits"][0]
    assert hit["lethality"] == lethality
    accept = {"type": "accept", "critical_hit": hit["id"]}
    if lethality != "crippling":
        with pytest.raises(RuleError) as refused:
            rules.decide(state, accept, Dice({}), 0)
        assert refused.value.message == (
            "only a crippling critical hit is accepted (the others heal); this one is critical"
        )
        return
    accepted = played("shadowrun2", {"body": 4}, [*hurt, (0, accept, {})])
    assert accepted["critical_hits"][0]["accepted"] and accepted["critical_hits"][0]["status"] == "active"
    assert [i.key for i in rc.obstacles(rules, accepted)] == [
        "physical"
    ]  # its modifier stays; fit despite it
    with pytest.raises(RuleError) as again:
        rules.decide(accepted, accept, Dice({}), 0)
    assert again.value.message == "this critical hit is already accepted"


def test_a_player_sees_the_same_for_a_mortal_and_a_critical_undiagnosed_hit() -> None:
    rules = get_ruleset("shadowrun2")
    mortal, critical = _serious_chest_hit(MORTAL), _serious_chest_hit(CRITICAL)
    assert mortal["critical_hits"][0]["lethality"] != critical["critical_hits"][0]["lethality"]
    seen = [rc.character(rules, s, 0, player=True, runs=200) for s in (mortal, critical)]
    assert seen[0] == seen[1]
    assert (seen[0].note, seen[0].unknown) == (rc.UNKNOWN_UNTIL_DIAGNOSED, ["a critical hit to the chest"])
    assert rc.character(rules, mortal, 0, player=False, runs=200) != rc.character(
        rules, critical, 0, player=False, runs=200
    )


def test_the_dead_are_never_fit() -> None:
    rules = get_ruleset("darkfuture")
    state = _con_lost(10)
    state["alive"] = False
    assert rc.character(rules, state, 100, player=False, runs=10).status == rc.DEAD


# ----------------------------------------------------------------------------------------------------------------
# The party's date: the latest of the characters in each joint future


def test_the_party_date_is_the_latest_in_each_joint_future_not_the_latest_median() -> None:
    # A: fit at day 1 or day 3, even odds; B: day 2 or day 4. Medians: day 1 and day 2 (nearest rank).
    a, b = [(1 * DAY, 1), (3 * DAY, 1)], [(2 * DAY, 1), (4 * DAY, 1)]
    assert fc.spread(a).p50 == DAY and fc.spread(b).p50 == 2 * DAY
    # By hand: the four joint futures' latest are 2, 4, 3, 4 days: all fit by day 2 in 1 of 4, by day 3 in 2.
    assert rc.party_spread([a, b]) == fc.Spread(2 * DAY, 3 * DAY, 4 * DAY, 1.0)
    # "k of N by day 2": both in 1/4, one in 1/2, none in 1/4: the median is 1 of 2.
    assert rc.fit_by([a, b], 2 * DAY) == (1, Fraction(1, 4))
    # A future that is never fit (None) is later than any date.
    assert rc.party_spread([a, [(2 * DAY, 1), (None, 1)]]) == fc.Spread(2 * DAY, 3 * DAY, None, 0.5)


@pytest.mark.parametrize("seed", range(5))
def test_the_party_spread_is_the_nearest_rank_over_every_combination_of_futures(seed: int) -> None:
    rng = Random(seed)
    party = [
        [(rng.choice([None, *range(1, 8)]), rng.randint(1, 3)) for _ in range(rng.randint(1, 4))]
        for _ in range(3)
    ]
    joint = []
    for combination in product(*party):
        times = [value for value, _ in combination]
        latest = None if None in times else max(times)
        joint.append((latest, math.prod(count for _, count in combination)))
    assert rc.party_spread(party) == fc.spread(joint)


def test_the_sampling_error_of_a_median_of_1000_futures_is_about_3_points() -> None:
    assert round(rc.sampling_error(1000), 1) == 3.1


def test_a_party_of_two_critical_hits_follows_the_square_of_their_distribution_by_hand() -> None:
    # Two Body 9 characters in hospital, each a Critical hit to the ribs (the forecast's binomial case, by hand).
    # Independent, both are fit by a date with the square of one's chance: the party's p90 is later than either's.
    rules = get_ruleset("shadowrun2")

    def ribs() -> dict:
        rolls = {"body_check": [2, 2, 1, 1, 1, 1, 1, 1, 1], "location": [3, 4], "critical": 2}
        return played(
            "shadowrun2",
            {"body": 9},
            [
                (0, {"type": "set_care", "in_hospital": True}, {}),
                (0, {"type": "wound", "severity": "L"}, rolls),
            ],
        )

    one = critical_healing(9, Fraction(1, 6) * Fraction(5, 6), fc.HORIZON)
    dated = sorted(value for value in one if value is not None)
    both: dict[int | None, Fraction] = {}
    seen = Fraction(0)
    for value in dated:  # P(max <= t) = F(t)^2, as a distribution of the party's fit time
        before = seen**2
        seen += one[value]
        both[value] = seen**2 - before
    both[None] = 1 - seen**2
    ash, bo = (rc.character(rules, ribs(), 0, player=False, runs=1000, seed=seed) for seed in (7, 8))
    party = rc.party_spread([ash.times, bo.times])
    assert (party.p50, party.p90) == (quantile(both, 50), quantile(both, 90))
    # 56 and 140 days after the rest began, 10 min after the wounds.
    assert (party.p50, party.p90) == (REST + EIGHT_WEEKS, REST + 2 * EIGHT_WEEKS + EIGHT_WEEKS // 2)
    assert ash.fit is not None and bo.fit is not None
    assert max(ash.fit.p90, bo.fit.p90) == REST + 2 * EIGHT_WEEKS < party.p90  # not the latest of their p90s


def test_a_party_of_many_has_more_joint_futures_than_a_float_holds() -> None:
    # 120 characters of 1,000 futures each: 10^360 joint futures (the fuzz run's 500 was its percentile's rank).
    # Each is fit on day 1 in half the futures and on day 2 in the rest, so all are fit on day 2.
    party = [[(DAY, 500), (2 * DAY, 500)] for _ in range(120)]
    assert rc.party_spread(party) == fc.Spread(2 * DAY, 2 * DAY, 2 * DAY, 1.0)


def test_a_dying_cyberpunk_character_is_first_in_the_way_and_never_certain() -> None:
    """Body 6: 2 points, then 40 to the torso (38 more: 40, Mortal 6), both saves failed: stunned and dying. Every
    untreated future dies at the end of the turn, one branch, yet a stabilization stands in the way: not exact. The
    player's words name no time of death; the GM's do; the player's timeline marks no death."""
    rules = get_ruleset("cyberpunk2020")
    state = _cyberpunk(
        (0, {"type": "damage", "damage": 4, "location": "torso"}, {"stun_save": [1], "death_save": [1]}),
        (0, {"type": "damage", "damage": 40, "location": "torso"}, {"stun_save": [10], "death_save": [10]}),
    )
    assert (state["damage"], state["stunned"], state["dying"], state["death_at"]) == (40, True, True, 30)
    player = rc.character(rules, state, 6, player=True, runs=50)
    gm = rc.character(rules, state, 6, player=False, runs=50)
    for outlook in (player, gm):
        assert (outlook.note, outlook.exact, outlook.dies) == (rc.NOT_WITHOUT_CARE, False, 1.0)
        assert [(i.what, i.note, i.need) for i in outlook.items] == [
            ("dying", fc.NOT_WITHOUT_CARE, "needs to be stabilized"),
            ("the wound track: 40 points, 36 points over Light", fc.NOT_WITHOUT_CARE, None),
            ("stunned", "no date until stabilized", None),
        ]
    assert (
        player.items[0].care
        == "a dying character dies unless a doctor stabilizes them. Only medical tech can"
    )
    assert gm.items[0].care == "dies in about 24 s unless stabilized. Only medical tech can stabilize them"
    # The GM's timeline marks the death; a player's has no timer at all (campaign/web/recovery_page.py).
    assert rc.timers_due(rules, state, 6) == [(30, "dies unless stabilized")]
