"""The recovery forecast (rules/forecast.py) against distributions computed by hand, its secrecy and its what-ifs.

Every state is played from actions with every die entered; the forecast's own dice come from a given seed."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product
from random import Random
from types import MappingProxyType
from typing import Any

import pytest

from rules import forecast as fc
from rules.dice import Dice, RollNeeded, success_chance, successes_odds
from rules.registry import get_ruleset
from rules.ruleset import Event, State, copy_state, fold, fold_into, start_state

DAY = 86_400
WEEK = 7 * DAY
EIGHT_WEEKS = 8 * WEEK
REST = 10 * 60  # Shadowrun's natural healing rolls wait 10 min after the latest wound (house, `rest_minutes`)


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


def critical_healing(
    body: int, success: Fraction, horizon: int, start: int = REST
) -> dict[int | None, Fraction]:
    """When an untreated Critical hit heals: a Body test every 8 weeks from the start of the rest (`start`, 10 min
    after a wound at 0) until one has successes k, then 8 weeks / k later (docs/rules/shadowrun2.md, natural
    healing). Beyond the horizon: None."""
    distribution: dict[int | None, Fraction] = {}
    none = (1 - success) ** body
    period = 0
    while start + period * EIGHT_WEEKS <= horizon:
        reach = none**period
        for k in range(1, body + 1):
            chance = reach * math.comb(body, k) * success**k * (1 - success) ** (body - k)
            at = start + period * EIGHT_WEEKS + EIGHT_WEEKS // k
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
    # In words, from the rest 10 min after the wound: a 10% chance within 18 days 16 hours (3 successes), even odds
    # by 8 weeks, 90% by 16.
    assert (hit.when.p10, hit.when.p50, hit.when.p90) == (
        REST + EIGHT_WEEKS // 3,
        REST + EIGHT_WEEKS,
        REST + 2 * EIGHT_WEEKS,
    )


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
            "a crippling hit never heals on its own. It needs a replacement or healing magic",
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
    from perf.harness.mixes import FORECAST_INJURIES

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
    from perf.harness.mixes import FORECAST_INJURIES

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


def _read_only(value: Any) -> Any:
    """`value` with every mapping read-only and every list a tuple: changed in place, it raises."""
    if isinstance(value, dict):
        return MappingProxyType({key: _read_only(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_read_only(item) for item in value)
    return value


@pytest.mark.parametrize("slug", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_the_rules_never_change_the_options(slug: str) -> None:
    """The forecast's copies of a state share its options (rules.forecast._freeze): no firer, evolver or decider
    may change them in place. With options that cannot be changed, every state of the demo and the bench's richest
    injuries, the what-ifs included, forecast the same as with the options as they are."""
    rules = get_ruleset(slug)
    menu = list(rules.forecast.what_ifs)
    for state in _states_along_the_demo(rules):
        frozen = {**state, "options": _read_only(state["options"])}
        kept = copy_state(state["options"])
        expected = fc.forecast(rules, state, 0, player=False, runs=20, seed=5, what_ifs=menu)
        assert [outlook.key for outlook in expected.what_ifs] == menu
        assert fc.forecast(rules, frozen, 0, player=False, runs=20, seed=5, what_ifs=menu) == expected
        assert state["options"] == kept


def test_a_what_if_that_rolls_nothing_is_taken_once_for_every_future() -> None:
    from perf.harness.mixes import FORECAST_INJURIES

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


# ----------------------------------------------------------------------------------------------------------------
# The success-test contract, and the forecast that fires once per outcome (rules.dice.SuccessTest, docs/forecast.md
# "Cost")


class _Recorded(Dice):
    """Server dice that remember which rolls were success tests, and at which pool and target."""

    def __init__(self, seed: int) -> None:
        super().__init__(rng=Random(seed))
        self.tests: dict[str, tuple[int, int]] = {}

    def success_test(self, name: str, pool: int, tn: int, **described: Any) -> Any:
        test = super().success_test(name, pool, tn, **described)
        self.tests[name] = (test.pool, test.target)
        return test


def _without_dice(value: Any) -> Any:
    """Events' data with every dice record ("dice", at any depth) left out."""
    if isinstance(value, dict):
        return {key: _without_dice(v) for key, v in value.items() if key != "dice"}
    if isinstance(value, list):
        return [_without_dice(v) for v in value]
    return value


WOUNDS = {
    "shadowrun2": [{"type": "wound", "severity": "M"}, {"type": "wound", "severity": "S"}],
    "cyberpunk2020": [{"type": "damage", "damage": 12}],
    "darkfuture": [{"type": "damage", "weapon_damage": 5}],
}


def _steps(rules: Any, state: State) -> list[tuple[str, Any]]:
    """What may roll in `state`: every timer's firing, every action of the what-if menu, and a wound."""
    steps: list[tuple[str, Any]] = [(f"timer {timer.kind}", timer) for timer in rules.timers(state)]
    for what_if in rules.forecast.what_ifs.values():
        steps += [(f"action {action['type']}", action) for action in what_if.actions(state)]
    return steps + [(f"action {action['type']}", action) for action in WOUNDS[rules.slug]]


def _apply(rules: Any, state: State, step: Any, dice: Dice) -> list[Any] | None:
    try:
        if isinstance(step, dict):
            return rules.decide(state, step, dice, 0)
        return rules.fire(state, step, dice)
    except fc.RuleError:
        return None


@pytest.mark.parametrize("slug", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_a_rule_reads_a_success_test_only_through_its_successes(slug: str) -> None:
    """The contract the memoised forecast relies on: the same state with other dice of the same successes (the
    forecast's replayed ones, and the same dice in reverse order) gives the same events apart from the dice
    record, and the same state after them. Plain rolls keep their faces."""
    rules = get_ruleset(slug)
    tests = compared = 0
    for state in _states_along_the_demo(rules):
        for what, step in _steps(rules, state):
            for seed in range(6):
                dice = _Recorded(seed)
                events = _apply(rules, state, step, dice)
                if events is None or not dice.used:
                    continue
                tests += len(dice.tests)
                replayed = {
                    name: fc.replayed(
                        (name, *dice.tests[name][:1], 6, dice.tests[name][1]),
                        sum(v >= dice.tests[name][1] for v in values),
                    )
                    if name in dice.tests
                    else values
                    for name, values in dice.used.items()
                }
                reversed_ = {
                    name: values[::-1] if name in dice.tests else values for name, values in dice.used.items()
                }
                for other in (replayed, reversed_):
                    again = Dice(other)
                    events_again = _apply(rules, state, step, again)
                    assert events_again is not None, what
                    assert [(e.type, e.game_time, _without_dice(e.data)) for e in events_again] == [
                        (e.type, e.game_time, _without_dice(e.data)) for e in events
                    ], what
                    assert fold(rules, state, events_again) == fold(rules, state, events), what
                    compared += 1
    assert compared > 0
    # Only Shadowrun rolls success tests (Body checks, diagnosis, treatment, first aid, healing); the others' rolls
    # are plain and replayed face for face.
    assert (tests > 0) == (slug == "shadowrun2")


@pytest.mark.parametrize("target", range(2, 21))
def test_a_dies_chance_of_success_is_that_of_its_chains_of_faces(target: int) -> None:
    """Every chain of faces a die can roll (a 6 rolls again and adds), enumerated: once the sixes alone pass the
    target, every longer chain is a success too, and its chance is the sixes' own."""
    success, sixes = Fraction(0), 0
    while 6 * sixes < target:
        for face in range(1, 6):  # the chain ends on a face below 6
            if 6 * sixes + face >= target and (target > 6 or sixes == 0):
                success += Fraction(1, 6) ** (sixes + 1)
        if target <= 6:  # no Rule of Six: a 6 is a 6
            success += Fraction(1, 6)
            break
        sixes += 1
    else:
        success += Fraction(1, 6) ** sixes  # all-six chains this long: past the target whatever follows
    assert success_chance(target) == success
    assert sum(successes_odds(4, target)) == 1


class _NewRoll(Exception):
    def __init__(self, request: fc.Request) -> None:
        self.request = request


class _Prefix:
    """The outcomes a path drew, replayed in order; a roll past them stops the firing (`_NewRoll`)."""

    def __init__(self, outcomes: list[Any]) -> None:
        self.outcomes, self.step, self.rng = outcomes, 0, Random(0)

    def next(self, request: fc.Request) -> Any:
        if self.step == len(self.outcomes):
            raise _NewRoll(request)
        self.step += 1
        return self.outcomes[self.step - 1]


def _by_faces(rules: Any, state: State, step: Any) -> dict[Any, Fraction]:
    """The exact chance of each outcome of a firing or an action with its own dice: every face of every die it
    asks for (table dice ask for each roll in the rules' order), through the rules."""
    found: dict[Any, Fraction] = {}

    def explore(entered: dict[str, list[int]], chance: Fraction) -> None:
        dice = Dice(entered, ask=True)
        try:
            events = _apply(rules, state, step, dice)
        except RollNeeded as needed:
            roll = needed.request
            assert not roll.open_ended, "a Rule-of-Six roll has no end to its faces: not for this test"
            for faces in product(range(1, roll.sides + 1), repeat=roll.count):
                explore({**entered, roll.name: list(faces)}, chance / roll.sides**roll.count)
            return
        key = fold(rules, state, events or [])
        found[repr(key)] = found.get(repr(key), Fraction(0)) + chance

    explore({}, Fraction(1))
    return found


def _by_outcomes(rules: Any, state: State, step: Any) -> dict[Any, Fraction]:
    """The same as the memoised forecast draws it: each roll's outcome (a success test's successes) with the
    chance `fc.outcome_odds` gives it, the firing made once per path with the forecast's replayed dice."""
    found: dict[Any, Fraction] = {}

    def explore(outcomes: list[Any], chance: Fraction) -> None:
        try:
            events = _apply(rules, state, step, fc.ReplayDice(_Prefix(outcomes)))  # type: ignore[arg-type]
        except _NewRoll as new:
            for outcome, odds in fc.outcome_odds(new.request).items():
                explore([*outcomes, outcome], chance * odds)
            return
        key = fold(rules, state, events or [])
        found[repr(key)] = found.get(repr(key), Fraction(0)) + chance

    explore([], Fraction(1))
    return found


def _small_cases() -> list[tuple[str, State, str]]:
    """States whose rolls are few dice below the Rule of Six, for `_by_faces` to enumerate."""
    stunned = played(
        "shadowrun2",
        {"body": 3, "willpower": 2},
        [(0, {"type": "wound", "severity": "M", "damage": "stun"}, {})],
    )
    wounded = played(
        "shadowrun2",
        {"body": 3},
        [
            (
                0,
                {"type": "wound", "severity": "M"},
                {"body_check": [6, 6, 6], "location": [3, 4], "critical": 2},
            )
        ],
        physical_healing_table={"L": {"tn": 3}, "M": {"tn": 4}, "S": {"tn": 5}},
    )
    crippled = played(
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
    return [
        ("shadowrun2", stunned, "stun"),
        ("shadowrun2", wounded, "physical"),
        ("cyberpunk2020", crippled, "arm"),
    ]


@pytest.mark.parametrize("case", range(3))
def test_the_memoised_forecast_draws_each_firings_outcome_with_the_chance_of_its_dice(case: int) -> None:
    slug, state, _what = _small_cases()[case]
    rules = get_ruleset(slug)
    compared = 0
    for what, step in _steps(rules, state):
        if isinstance(step, dict) and step["type"] in ("wound", "damage"):
            continue  # a wound's Body check (Rule of Six) and hit tables: beyond an enumeration of faces
        by_faces = _by_faces(rules, state, step)
        assert _by_outcomes(rules, state, step) == by_faces, what
        compared += len(by_faces) > 1
    assert compared > 0


def test_a_success_tests_outcome_is_drawn_by_the_inverse_of_its_exact_distribution() -> None:
    # 3 dice at 4+: 0, 1, 2, 3 successes with 1/8, 3/8, 3/8, 1/8; the draw is the first whose cumulative passes it.
    draw = fc.sampler(("stun_recovery", 3, 6, 4))
    draws = (0.0, 0.1249, 0.125, 0.4999, 0.5, 0.8749, 0.875, 0.9999)
    assert [draw(lambda u=u: u) for u in draws] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert fc.replayed(("stun_recovery", 3, 6, 4), 2) == [4, 4, 1]
    assert fc.replayed(("critical_healing", 3, 6, 12), 1) == [13, 1, 1]  # 12 would be an unfinished 6 then 6
    assert fc.replayed(("location", 2, 6, None), (3, 4)) == [3, 4]


class _TwoRolls:
    """A ruleset's firing in miniature: a success test, then (only when it succeeded) a plain roll of a coin."""

    fired = 0

    def fire(self, state: State, timer: Any, dice: Dice) -> list[Any]:
        self.fired += 1
        test = dice.success_test("test", 2, 4)
        coin = dice.roll("coin", 1, 2) if test.successes else [0]
        return [Event("rolled", {"successes": test.successes, "coin": coin[0], "dice": list(test.dice)}, 0)]


def _due() -> Any:
    from rules.clock import Due
    from rules.ruleset import Timer

    return Due(0, Timer(0, "roll", "roll"), 0)


def test_a_branch_fires_once_per_outcome_path_and_its_futures_split_as_their_outcomes_fall() -> None:
    rules = _TwoRolls()
    outcomes = fc._roll_for_each(rules, {"alive": True}, _due(), 4000, fc.SimulationRandom(1))  # type: ignore[arg-type]
    # Five paths (no success; one or two successes, each with either coin): five firings for 4,000 futures.
    assert rules.fired == 5
    counts = {(events[0].data["successes"], events[0].data["coin"]): count for events, count in outcomes}
    assert set(counts) == {(0, 0), (1, 1), (1, 2), (2, 1), (2, 2)} and sum(counts.values()) == 4000
    # Each path's share is its exact chance (1/4, 1/4, 1/4, 1/8, 1/8) give or take the sampling's spread.
    exact = {(0, 0): Fraction(1, 4), (1, 1): Fraction(1, 4), (1, 2): Fraction(1, 4), (2, 1): Fraction(1, 8)}
    for path, chance in exact.items():
        spread_ = 4 * math.sqrt(4000 * chance * (1 - chance))
        assert abs(counts[path] - 4000 * chance) < spread_, path
    # Replayed dice show the path's successes; a branch of one future fires once with its own.
    assert [events[0].data["dice"] for events, _ in outcomes if events[0].data["successes"] == 1] == [
        [4, 1]
    ] * 2
    again = fc._roll_for_each(rules, {"alive": True}, _due(), 4000, fc.SimulationRandom(1))  # type: ignore[arg-type]
    assert again == outcomes  # the same under the same seed


class _Counting:
    """A ruleset that counts the actions it decides."""

    def __init__(self, rules: Any) -> None:
        self.rules, self.decided = rules, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def decide(self, *args: Any) -> Any:
        self.decided += 1
        return self.rules.decide(*args)


def test_a_what_ifs_actions_are_taken_once_per_outcome_of_their_rolls() -> None:
    rules = get_ruleset("shadowrun2")
    counting = _Counting(rules)
    state = _serious_chest_hit(MORTAL)
    what = rules.forecast.what_ifs["first_aid_now"]
    injuries = rules.forecast.injuries(state)
    futures = fc.simulate(counting, state, 0, injuries, runs=1000, rng=fc.SimulationRandom(2), what_if=what)  # type: ignore[arg-type]
    # First aid by Biotech 4: 0 to 4 successes, a path each (one for each drawn), not one per future.
    assert 2 <= counting.decided <= 5
    assert sum(future.count for future in futures) == 1000


def test_outcomes_that_leave_the_same_state_are_one_branch() -> None:
    """A Cyberpunk death save's event names its die, which the state never keeps: the ten faces of a save of a
    crippled arm (body 6, target 6) leave two states (survived, dying), so a branch of 1,000 futures splits in
    two, not ten, and each child holds as many futures as drew its outcome."""
    rules = get_ruleset("cyberpunk2020")
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
    (timer,) = rules.timers(state)
    assert timer.kind == "death_save"
    branch = fc._branch(rules, fc._copy(state), fc._Follow([], state, 0), 1000, 0, 3600)
    due = branch.queue.pop()
    outcomes = fc._roll_for_each(rules, branch.state, due, 1000, fc.SimulationRandom(4))
    assert len(outcomes) == 10  # one a face: each event names its roll
    children = fc._split(rules, branch, due, outcomes)
    assert sorted(child.state["dying"] for child in children) == [False, True]
    survived = next(child.count for child in children if not child.state["dying"])
    assert survived == sum(count for events, count in outcomes if events[0].data["roll"] <= 6)
    assert sum(child.count for child in children) == 1000
