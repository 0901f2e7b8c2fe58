"""The recovery forecast (rules/forecast.py) against distributions computed by hand, its secrecy and its what-ifs.

Every state is played from actions with every die entered; the forecast's own dice come from a given seed."""

from __future__ import annotations

import math
from fractions import Fraction
from random import Random
from typing import Any

import pytest

from rules import forecast as fc
from rules.dice import Dice
from rules.registry import get_ruleset
from rules.ruleset import State, fold, fold_into, start_state

DAY = 86_400
WEEK = 7 * DAY
EIGHT_WEEKS = 8 * WEEK


def played(
    slug: str, attributes: dict[str, Any], steps: list[tuple[int, dict, dict]], **options: Any
) -> State:
    """A state after `steps`: (game second, action, the dice entered)."""
    rules = get_ruleset(slug)
    state = start_state(rules, rules.validate_attributes(attributes), rules.validate_options(options))
    for now, action, rolls in steps:
        fold_into(rules, state, rules.decide(state, action, Dice(rolls), now))
    return state


def item(result: fc.Forecast, key: str) -> fc.Item:
    return next(i for i in result.untreated.items if i.key == key)


# ----------------------------------------------------------------------------------------------------------------
# Distributions computed by hand


def quantile(distribution: dict[int | None, Fraction], p: int) -> int | None:
    """The smallest value whose cumulative probability reaches p% (None: never, later than any value)."""
    seen = Fraction(0)
    for value in sorted(distribution, key=lambda v: math.inf if v is None else v):
        seen += distribution[value]
        if seen >= Fraction(p, 100):
            return value
    raise AssertionError("the distribution does not sum to 1")


def critical_healing(body: int, success: Fraction, horizon: int) -> dict[int | None, Fraction]:
    """When an untreated Critical hit heals: a Body test every 8 weeks from the wound until one has successes k,
    then 8 weeks / k later (RULES.md section 1, natural healing). Beyond the horizon: None."""
    distribution: dict[int | None, Fraction] = {}
    none = (1 - success) ** body
    period = 0
    while period * EIGHT_WEEKS <= horizon:
        reach = none**period
        for k in range(1, body + 1):
            chance = reach * math.comb(body, k) * success**k * (1 - success) ** (body - k)
            at = period * EIGHT_WEEKS + EIGHT_WEEKS // k
            key = at if at <= horizon else None
            distribution[key] = distribution.get(key, Fraction(0)) + chance
        period += 1
    distribution[None] = distribution.get(None, Fraction(0)) + none**period
    return distribution


def test_a_critical_hits_healing_follows_the_binomial_of_its_body_tests() -> None:
    # Body 9, in hospital, untreated: TN 6 + 4 (not treated) - 2 (body 9-12) = 8; Rule of Six: a 6 then 2 or more.
    state = played(
        "shadowrun2",
        {"body": 9},
        [
            (0, {"type": "set_care", "in_hospital": True}, {}),
            # A Light wound: 2 successes of 9 is a Critical hit to the chest (location 7), ribs (critical 2).
            (
                0,
                {"type": "wound", "severity": "L"},
                {"body_check": [2, 2, 1, 1, 1, 1, 1, 1, 1], "location": [3, 4], "critical": 2},
            ),
        ],
    )
    rules = get_ruleset("shadowrun2")
    result = fc.forecast(rules, state, 0, player=False, runs=1000, seed=7)
    expected = critical_healing(9, Fraction(1, 6) * Fraction(5, 6), fc.HORIZON)
    hit = item(result, "ch1")
    assert hit.what == "chest, ribs (critical)" and hit.note is None
    assert (hit.when.p10, hit.when.p50, hit.when.p90) == tuple(quantile(expected, p) for p in (10, 50, 90))
    # In words: a 10% chance within 18 days 16 hours (3 successes), even odds by 8 weeks, 90% by 16.
    assert (hit.when.p10, hit.when.p50, hit.when.p90) == (EIGHT_WEEKS // 3, EIGHT_WEEKS, 2 * EIGHT_WEEKS)


def test_dark_future_con_comes_back_on_exact_dates_with_no_dice() -> None:
    # CON 10: a 6 rolled + weapon 2 = 8 on the table, 3 CON lost at game second 100 (band 51-75: the stun roll, 1).
    state = played(
        "darkfuture",
        {"con": 10},
        [(100, {"type": "damage", "weapon_damage": 2}, {"damage": [6], "stun": [1]})],
    )
    result = fc.forecast(get_ruleset("darkfuture"), state, 100, player=False, runs=50, seed=1)
    con = item(result, "con")
    back = 100 + 3 * 7 * DAY  # one point per 7 days of rest from the wound
    assert con.what == "CON 7 of 10 (3 lost)"
    assert (con.when.p10, con.when.p50, con.when.p90, con.when.share) == (back, back, back, 1.0)
    assert result.untreated.full_health == fc.Spread(back, back, back, 1.0)
    assert result.survival is None and result.untreated.survival == 1.0


# ----------------------------------------------------------------------------------------------------------------
# Secrecy: a player's forecast knows only what the player may


def _serious_chest_hit(body_check: list[int]) -> State:
    """Body 4, a Serious wound: critical roll 3 on the chest is the spine (Mortal: dies in 1d6 = 6 minutes)."""
    rolls = {"body_check": body_check, "location": [3, 4], "critical": 3, "death_time": [6]}
    return played("shadowrun2", {"body": 4}, [(0, {"type": "wound", "severity": "S"}, rolls)])


MORTAL = [1, 1, 1, 1]
CRITICAL = [6, 6, 1, 1]


def test_a_players_forecast_is_the_same_for_a_mortal_and_a_critical_undiagnosed_hit() -> None:
    rules = get_ruleset("shadowrun2")
    mortal, critical = _serious_chest_hit(MORTAL), _serious_chest_hit(CRITICAL)
    assert mortal["critical_hits"][0]["lethality"] == "mortal"
    assert critical["critical_hits"][0]["lethality"] == "critical"

    seen_mortal = fc.forecast(rules, mortal, 0, player=True)
    seen_critical = fc.forecast(rules, critical, 0, player=True)
    assert seen_mortal == seen_critical
    assert seen_mortal.unknown == ["a critical hit to the chest"]
    assert [i.key for i in seen_mortal.untreated.items] == ["physical"]
    assert seen_mortal.untreated.full_health is None  # it depends on the hit nobody has diagnosed
    assert seen_mortal.survival is None
    # The GM's forecasts tell them apart: the Mortal hit kills in every untreated future.
    gm_mortal = fc.forecast(rules, mortal, 0, player=False, seed=1)
    assert gm_mortal.untreated.survival == 0.0 and gm_mortal.survival == [("untreated", "untreated", 0.0)]
    assert item(gm_mortal, "ch1").note == fc.NOT_WITHOUT_CARE


def test_a_player_never_gets_the_what_ifs() -> None:
    result = fc.forecast(
        get_ruleset("shadowrun2"), _serious_chest_hit(MORTAL), 0, player=True, what_ifs=["treat_now"]
    )
    assert result.what_ifs == []


def test_a_diagnosed_mortal_hit_shows_a_player_that_it_needs_care_and_never_when_it_kills() -> None:
    rules = get_ruleset("shadowrun2")
    state = _serious_chest_hit(MORTAL)
    fold_into(
        rules,
        state,
        rules.decide(
            state, {"type": "diagnose", "medic": "Doc", "skill": 4}, Dice({"diagnosis": [5, 1, 1, 1]}), 10
        ),
    )
    result = fc.forecast(rules, state, 10, player=True, runs=100)
    assert result.unknown == []
    hit = item(result, "ch1")
    assert (hit.what, hit.note, hit.when) == ("chest, spine (mortal)", fc.NOT_WITHOUT_CARE, None)
    assert result.survival is None  # its time of death is the GM's: no future of a player's dies of it
    assert all(not future.died for future in result.untreated.futures)


# ----------------------------------------------------------------------------------------------------------------
# What-ifs


def test_treating_a_mortal_hit_sooner_gives_better_odds_than_later_or_never() -> None:
    rules = get_ruleset("shadowrun2")
    asked = ["treat_now", "treat_in_5_min", "treat_in_10_min"]
    result = fc.forecast(rules, _serious_chest_hit(MORTAL), 0, player=False, seed=3, what_ifs=asked)
    odds = {key: share for key, _label, share in result.survival}
    assert list(odds) == [*asked, "untreated"]
    # Six minutes to live: a treatment of 10 minutes / successes is in time from 2 successes on, if started now.
    assert odds["treat_now"] > odds["treat_in_5_min"] >= odds["treat_in_10_min"] >= odds["untreated"] == 0.0


def test_stabilizing_a_crippled_arm_now_beats_five_minutes_of_death_saves_which_beat_none() -> None:
    # Body 6: 20 damage to the left arm is 10 halved, 8 after BTM -2: crippled, kept (sever 6 + 5 >= 8), saves passed.
    state = played(
        "cyberpunk2020",
        {"body": 6},
        [
            (
                0,
                {"type": "damage", "damage": 20, "location": "left_arm"},
                {"sever": [5], "stun_save": [1], "death_save": [1]},
            )
        ],
    )
    asked = ["treat_now", "treat_in_5_min", "treat_in_10_min"]
    result = fc.forecast(get_ruleset("cyberpunk2020"), state, 0, player=False, seed=5, what_ifs=asked)
    odds = {key: share for key, _label, share in result.survival}
    assert odds["treat_now"] > odds["treat_in_5_min"] > odds["untreated"] == 0.0
    assert odds["treat_in_5_min"] >= odds["treat_in_10_min"] >= odds["untreated"]
    # A death save each turn (target 6, fails on 7-10): untreated, the death save fails sooner or later.
    assert 0.5 < odds["treat_now"] < 0.7  # the stabilization roll: 6 + 4 + d10 >= 15, 60%


def test_a_forecast_is_the_same_under_the_same_seed_and_by_default_for_the_same_state() -> None:
    rules = get_ruleset("shadowrun2")
    state = _serious_chest_hit(CRITICAL)
    assert fc.forecast(rules, state, 0, player=False, seed=9) == fc.forecast(
        rules, state, 0, player=False, seed=9
    )
    assert fc.forecast(rules, state, 0, player=False) == fc.forecast(rules, state, 0, player=False)
    assert fc.forecast(rules, state, 0, player=False, runs=200).runs == 200


@pytest.mark.parametrize(
    ("slug", "attributes", "steps", "key", "care"),
    [
        (
            "shadowrun2",
            {"body": 4},
            [
                (
                    0,
                    {"type": "wound", "severity": "S"},
                    {"body_check": [6, 1, 1, 1], "location": [3, 4], "critical": 1},
                )
            ],
            "ch1",
            "a crippling hit never heals on its own: it needs a replacement or healing magic",
        ),
        (
            "cyberpunk2020",
            {"body": 6},
            [
                (
                    0,
                    {"type": "damage", "damage": 10, "location": "torso"},
                    {"stun_save": [1], "death_save": [1]},
                )
            ],
            "damage",
            "untreated wounds do not heal: they need first aid or medical tech",
        ),
    ],
)
def test_what_never_heals_untreated_says_not_without_care(
    slug: str, attributes: dict, steps: list, key: str, care: str
) -> None:
    result = fc.forecast(get_ruleset(slug), played(slug, attributes, steps), 0, player=False, runs=20, seed=1)
    assert (item(result, key).note, item(result, key).care, item(result, key).when) == (
        fc.NOT_WITHOUT_CARE,
        care,
        None,
    )


def test_an_unhurt_character_has_nothing_to_forecast() -> None:
    result = fc.forecast(
        get_ruleset("darkfuture"), played("darkfuture", {"con": 8}, []), 0, player=False, runs=10
    )
    assert result.untreated.items == [] and result.untreated.full_health is None and result.survival is None


def test_the_percentile_is_the_nearest_rank_and_never_is_later_than_any_date() -> None:
    values = [(5, 1), (3, 1), (None, 1), (4, 1), (1, 6)]
    assert [fc.percentile(values, p) for p in (10, 50, 60, 70, 90, 100)] == [1, 1, 1, 3, 5, None]


# ----------------------------------------------------------------------------------------------------------------
# What every ruleset owes the forecast


def _states_along_the_demo(rules: Any) -> list[State]:
    """Every state a ruleset's demo characters pass through, and the bench's richest injuries."""
    from perf.mixes import FORECAST_INJURIES

    states = []
    for _name, _player, attributes, actions in rules.sheet.demo.characters:
        state = start_state(rules, rules.validate_attributes(attributes), rules.validate_options({}))
        for action in actions:
            body = dict(action)
            if body["type"] != "note":
                state = fold(rules, state, rules.decide(state, body, Dice(body.pop("rolls", {})), 0))
                states.append(state)
    attributes, steps = FORECAST_INJURIES[rules.slug]
    states.append(played(rules.slug, attributes, [(0, action, rolls) for action, rolls in steps]))
    return states


@pytest.mark.parametrize("slug", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_futures_merged_because_only_their_dice_differed_have_the_same_state(slug: str) -> None:
    """The forecast shares one future among those whose firing differed only in its dice: evolve must keep no die
    in the state, or two such futures would differ and the merge would be wrong."""
    rules = get_ruleset(slug)
    merged = 0
    for state in _states_along_the_demo(rules):
        for timer in rules.timers(state):
            after: dict[Any, State] = {}
            for seed in range(40):
                dice = Dice(rng=Random(seed))
                events = rules.fire(state, timer, dice)
                if not dice.used:
                    continue
                key = fc._outcome_key(events, dice)
                now = fold(rules, state, events)
                if key in after:
                    merged += 1
                    assert after[key] == now, f"{timer.kind}: the same outcome left two different states"
                after.setdefault(key, now)
    if slug != "darkfuture":  # Dark Future's clock rolls no dice
        assert merged > 0


@pytest.mark.parametrize("slug", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_every_rulesets_forecast_follows_its_richest_injuries_and_names_no_gm_only_field(slug: str) -> None:
    from perf.mixes import FORECAST_INJURIES

    rules = get_ruleset(slug)
    attributes, steps = FORECAST_INJURIES[slug]
    state = played(slug, attributes, [(0, action, rolls) for action, rolls in steps])
    result = fc.forecast(rules, state, 0, player=True, runs=100, seed=1)
    assert result.untreated.items and all(item.what for item in result.untreated.items)
    words = repr(result.untreated.items) + repr(result.unknown)
    assert not [field for field in rules.gm_only if field in words]
    assert sum(future.count for future in result.untreated.futures) == 100
    lines = fc.chart(result)
    assert [line.what for line in lines] == [item.what for item in result.untreated.items]
    assert all(len(line.points) == fc.CHART_SAMPLES for line in lines)
    assert all(low <= mid <= high for line in lines for _, low, mid, high in line.points)


def test_a_what_if_that_rolls_nothing_is_taken_once_for_every_future() -> None:
    from perf.mixes import FORECAST_INJURIES

    attributes, steps = FORECAST_INJURIES["darkfuture"]
    state = played("darkfuture", attributes, [(0, action, rolls) for action, rolls in steps])
    result = fc.forecast(get_ruleset("darkfuture"), state, 0, player=False, seed=1, what_ifs=["recover_now"])
    leg = item(result, "left_leg")
    assert (leg.what, leg.note) == ("left leg disabled", fc.NOT_WITHOUT_CARE)
    (recovered,) = result.what_ifs
    assert recovered.label == "comes round now, limbs restored" and len(recovered.futures) == 1
    restored = next(i for i in recovered.items if i.key == "left_leg")
    assert restored.when == fc.Spread(0, 0, 0, 1.0)
    con = next(i for i in recovered.items if i.key == "con")
    assert con.when == item(result, "con").when  # a point a week, as untreated
