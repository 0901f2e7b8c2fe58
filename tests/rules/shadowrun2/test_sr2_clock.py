"""Timers and fire: death, treatment, the overflow clock, natural healing, physical stages and stun recovery."""

from __future__ import annotations

import random

import pytest

from rules.ruleset import Event
from rules.shadowrun2 import RULESET, engine
from rules.shadowrun2.engine import timers
from rules.shadowrun2.tables import DAY, HOUR, WEEK
from rules.shadowrun2.view import view

from .helpers import CRITICAL, MORTAL, Clock, act, character, hit, wounded

MEDIC = {"medic": "Doc", "skill": 3}
# Natural healing waits for rest: its rolls come 10 min after the latest wound (house, `rest_minutes`).
REST = 10 * 60
NO_HEALING = {"physical_healing": [[1, 1, 1, 1]] * 20}  # body 4, every physical healing roll fails


def diagnosed(state):
    state, _ = act(state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}, {"diagnosis": [6, 1, 1]})
    return state


def test_a_mortal_chest_hit_kills_when_the_clock_passes_death_at():
    state = wounded(MORTAL, critical=1, death_time=[3])  # lung: 30 minutes
    assert [(t.due, t.kind, t.key, t.priority) for t in timers(state) if t.kind == "death"] == [
        (1800, "death", "death:ch1", 90)
    ]
    clock = Clock(NO_HEALING)
    state = clock.advance(state, 1799)
    assert state["alive"] is True
    state = clock.advance(state, 1800)
    assert state["alive"] is False
    assert (clock.events[-1].type, clock.events[-1].data, clock.events[-1].game_time) == (
        "DeathOccurred",
        {"cause": "critical_hit", "critical_hit": "ch1", "location": "chest", "part": "lung"},
        1800,
    )
    assert RULESET.describe(clock.events[-1]) == "Died of critical hit 1 to the chest (lung)."
    assert timers(state) == []


def test_a_treatment_completing_at_the_second_of_death_saves_the_patient():
    state = diagnosed(wounded(MORTAL, critical=1, death_time=[3]))
    state, _ = act(
        state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [8, 9, 1]}, now=1500
    )
    assert [(t.due, t.key, t.priority) for t in timers(state) if t.due == 1800] == [
        (1800, "treatment:ch1", 10),
        (1800, "death:ch1", 90),
    ]
    clock = Clock(NO_HEALING)
    state = clock.advance(state, 4000)
    assert state["alive"] is True
    assert (hit(state)["lethality"], hit(state)["boxes"], hit(state)["death_at"], hit(state)["treated"]) == (
        "crippling",
        6,
        None,
        True,
    )


def _completed(state, now, rolls=None):
    """The treatment's completion the clock fires by `now`, and the state after."""
    clock = Clock({**NO_HEALING, **(rolls or {})})
    state = clock.advance(state, now)
    (done,) = [event for event in clock.events if event.type == "TreatmentCompleted"]
    return state, done


def _player_reads(event):
    return RULESET.describe(Event(event.type, RULESET.public_event(event), event.game_time))


# The completion's event names the hit by its number alone (it holds no location nor part).
TREATED_LUNG = (
    "Treatment of critical hit 1 done: falls from Mortal to Crippling (6 boxes): its death timer stops."
)


def test_a_finished_treatment_says_the_mortal_hit_no_longer_kills():
    """Issue 42: the entry read "Treatment of ... done: now crippling, 6 boxes.", not that the hit's death timer
    stopped nor that the character no longer dies; it says so as a healing spell's words do."""
    state = diagnosed(wounded(MORTAL, critical=1, death_time=[3]))  # lung: dies at 1800
    state, _ = act(
        state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [9, 11, 1]}, now=60
    )
    state, done = _completed(state, now=360)
    assert (done.game_time, done.data["still_dying"], state["alive"]) == (360, False, True)
    assert RULESET.describe(done) == f"{TREATED_LUNG} No longer dying."
    # The player had the hit diagnosed (Mortal, "needs treatment now"): they read that it stopped, as the spell's
    # entry says it; whether anything else kills is the GM's (an undiagnosed hit may).
    assert _player_reads(done) == TREATED_LUNG
    # Taken back with its diagnosis, its boxes would tell the lethality the diagnosis told: they go with it.
    back = RULESET.public_taken_back(done, RULESET.public_event(done))
    assert back == {"critical_hit": "ch1"}
    assert (
        RULESET.describe(Event(done.type, back, done.game_time))
        == "Treatment of critical hit 1 done, taken back."
    )


def test_a_finished_treatment_says_no_longer_dying_only_when_nothing_else_kills():
    """A second Mortal hit, undiagnosed, still kills: the GM's entry says the first stopped and no more; the player's
    reads as when nothing else kills, so that it tells nothing of the hit they do not know of."""
    state = diagnosed(wounded(MORTAL, critical=1, death_time=[3]))
    state = wounded(
        MORTAL, severity="M", critical=1, death_time=[6], state=state
    )  # ch2, undiagnosed: dies at 3600
    state, _ = act(
        state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [9, 11, 1]}, now=60
    )
    state, done = _completed(state, now=400)
    assert (done.data["still_dying"], view(state, "gm")["dying"]) == (True, True)
    assert RULESET.describe(done) == TREATED_LUNG
    assert _player_reads(done) == TREATED_LUNG
    # An entry recorded before the words knew whether another death is left says only that this one stopped.
    older = Event(done.type, {key: v for key, v in done.data.items() if key != "still_dying"}, done.game_time)
    assert RULESET.describe(older) == TREATED_LUNG


def test_a_finished_treatment_of_a_critical_hit_says_where_it_stands():
    state = diagnosed(wounded(CRITICAL))
    state, _ = act(state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [4, 1, 1]})
    _, done = _completed(state, now=1200, rolls={"critical_healing": [[1, 1, 1, 1]]})
    assert "still_dying" not in done.data
    assert RULESET.describe(done) == "Treatment of critical hit 1 done: now critical, 1 box."


def test_the_patient_dies_during_a_treatment_that_ends_after_death_at():
    state = diagnosed(wounded(MORTAL, critical=1, death_time=[3]))
    state, _ = act(
        state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [8, 1, 1]}, now=1500
    )
    state = Clock(NO_HEALING).advance(state, 4000)
    assert state["alive"] is False
    assert state["death"] == {"cause": "critical_hit", "critical_hit": "ch1", "game_time": 1800}


def test_a_treated_critical_hit_drops_to_light_with_penalty_plus_one():
    state = diagnosed(wounded(CRITICAL))
    state, _ = act(state, {"type": "treat", "critical_hit": "ch1", **MEDIC}, {"treatment": [4, 4, 1]})
    clock = Clock({"physical_healing": [[1, 1, 1, 1]], "critical_healing": [[1, 1, 1, 1]]})
    state = clock.advance(state, 600)
    assert (hit(state)["boxes"], hit(state)["lethality"], hit(state)["penalty"], hit(state)["treated"]) == (
        1,
        "critical",
        1,
        True,
    )
    # The healing period waits for the treatment and starts again when it completes, as a treated wound.
    assert [(due, kind) for due, kind, _ in clock.fired if kind.startswith(("critical", "treat"))] == [
        (600, "treatment_complete"),
        (600, "critical_healing_roll"),
    ]


def test_an_unstabilized_deadly_wound_takes_an_overflow_box_every_ten_minutes_until_death():
    state = wounded([10, 10, 10, 10], severity="D")  # body 4
    assert view(state, "gm")["death_at"] == 3000
    assert view(state, "gm")["dying"] is True
    clock = Clock()
    state = clock.advance(state, 2999)
    assert (state["physical_overflow"], state["alive"]) == (4, True)
    state = clock.advance(state, 3000)
    assert (state["physical_overflow"], state["alive"]) == (5, False)
    assert [kind for _, kind, _ in clock.fired] == ["overflow"] * 5


def test_stabilizing_stops_the_overflow_clock():
    state = wounded([10, 10, 10, 10], severity="D")
    state = Clock().advance(state, 600)
    state, _ = act(state, {"type": "first_aid", **MEDIC}, {"first_aid": [9, 1, 1]}, now=700)
    state = Clock().advance(state, 10 * WEEK)  # not in hospital: a Deadly monitor does not heal
    assert (state["physical"], state["physical_overflow"], state["alive"]) == (10, 1, True)


def test_the_overflow_clock_option_sets_the_minutes_and_zero_disables_it():
    state = wounded([10, 10, 10, 10], severity="D", state=character(deadly_overflow_minutes=5))
    assert [t.due for t in timers(state)] == [300]
    state = wounded([10, 10, 10, 10], severity="D", state=character(deadly_overflow_minutes=0))
    assert timers(state) == []


def test_a_critical_hit_heals_eight_weeks_over_successes_after_its_healing_period_starts():
    state = wounded(CRITICAL, now=100)
    clock = Clock({"physical_healing": [[1, 1, 1, 1]] * 2, "critical_healing": [[13, 13, 1, 1]]})
    state = clock.advance(state, 100 + REST)
    roll = next(e for e in clock.events if e.type == "CriticalHealingRolled")
    assert (roll.data["target"], roll.data["modifiers"]) == (12, {"not_in_hospital": 2, "not_treated": 4})
    assert roll.game_time == 100 + REST  # once the rest begins
    assert roll.data["heals_at"] == 100 + REST + 4 * WEEK
    state = clock.advance(state, 100 + REST + 4 * WEEK)
    assert (hit(state)["status"], hit(state)["boxes"], hit(state)["lethality"]) == ("healed", 0, "healed")


def test_no_success_on_natural_healing_rolls_again_eight_weeks_later():
    state = wounded(CRITICAL)
    clock = Clock(
        {"physical_healing": [[1, 1, 1, 1]] * 10, "critical_healing": [[1, 1, 1, 1], [13, 1, 1, 1]]}
    )
    state = clock.advance(state, REST + 8 * WEEK)
    rolls = [e for e in clock.events if e.type == "CriticalHealingRolled"]
    assert [(e.game_time, e.data["successes"], e.data["next_roll_at"]) for e in rolls] == [
        (REST, 0, REST + 8 * WEEK),
        (REST + 8 * WEEK, 1, None),
    ]
    assert hit(state)["heals_at"] == REST + 16 * WEEK


def test_natural_healing_waits_for_rest_so_no_healing_roll_is_due_in_a_fight():
    """The issue's night: a wound's healing rolls were due at its own second, so the next combat turn asked for them,
    and the next wound of the fight threw them away. They wait until the character has had 10 min without a wound
    (house, `rest_minutes`), and a wound in between starts the rest again."""
    state = wounded(CRITICAL)  # at 0: 6 boxes and a Critical hit to the chest
    state, _ = act(state, {"type": "wound", "severity": "L", "damage": "stun"}, now=0)
    rolls = {(t.kind, t.due) for t in timers(state)}
    assert rolls == {
        ("critical_healing_roll", REST),
        ("physical_healing_roll", REST),
        ("stun_recovery_roll", REST),
    }
    # Ten combat turns (3 s each) fire nothing: no die is asked mid-fight.
    clock = Clock()
    for turn in range(1, 11):
        state = clock.advance(state, 3 * turn)
    assert clock.fired == []
    # Hit again at 30 s: the rest starts again, and every roll waits for it.
    state, _ = act(state, {"type": "wound", "severity": "L", "damage": "stun"}, now=30)
    assert {t.due for t in timers(state)} == {30 + REST}
    clock = Clock(
        {
            "critical_healing": [[13, 1, 1, 1]],
            "physical_healing": [[9, 1, 1, 1]],
            "stun_recovery": [[4, 4, 1, 1]],
        }
    )
    state = clock.advance(state, 30 + REST)
    assert sorted(kind for _, kind, _ in clock.fired) == [
        "critical_healing_roll",
        "physical_healing_roll",
        "stun_recovery_roll",
    ]
    assert {at for at, _, _ in clock.fired} == {30 + REST}
    # The healing counts from the roll: the hit 8 weeks / 1 success, the Serious damage 20 days / 1 success.
    assert hit(state)["heals_at"] == 30 + REST + 8 * WEEK
    assert state["physical_healing"]["heals_at"] == 30 + REST + 20 * DAY


def test_with_no_rest_the_healing_rolls_come_at_the_wounds_second():
    """`rest_minutes` 0: the rolls are due when the period starts, and the first advance makes them (RULES.md's
    "when the clock first passes the start of its healing period")."""
    state = wounded(CRITICAL, state=character(rest_minutes=0), now=100)
    assert {(t.kind, t.due) for t in timers(state)} == {
        ("critical_healing_roll", 100),
        ("physical_healing_roll", 100),
    }
    clock = Clock({"critical_healing": [[13, 1, 1, 1]], "physical_healing": [[9, 1, 1, 1]]})
    clock.advance(state, 103)
    assert sorted((at, kind) for at, kind, _ in clock.fired) == [
        (100, "critical_healing_roll"),
        (100, "physical_healing_roll"),
    ]


def test_a_change_of_the_rest_moves_the_rolls_and_a_new_wound_starts_the_rest_again():
    state = wounded(CRITICAL)
    # The house rule changed while the rolls wait: they come 30 min after the wound instead of 10.
    changed = _house_rules(state, rest_minutes=30)
    assert {t.due for t in timers(changed)} == {30 * 60}
    # A stun wound at 20 min starts the rest again, under the rule as it stands.
    stunned, _ = act(state, {"type": "wound", "severity": "L", "damage": "stun"}, now=20 * 60)
    assert {t.due for t in timers(stunned)} == {20 * 60 + REST}


def test_crippling_hits_never_heal_naturally():
    state = wounded([6, 1, 1, 1])
    state = Clock({"physical_healing": [[1, 1, 1, 1]] * 30}).advance(state, 52 * WEEK)
    assert (hit(state)["lethality"], hit(state)["status"]) == ("crippling", "active")


def test_physical_damage_heals_one_level_per_stage():
    state = wounded([6, 6, 6, 6], severity="S")
    rolls = {"physical_healing": [[9, 1, 1, 1], [6, 6, 1, 1], [4, 4, 4, 4]]}
    clock = Clock(rolls)
    state = clock.advance(state, 365 * DAY)
    heals = [(e.game_time, e.data["boxes"]) for e in clock.events if e.type == "PhysicalDamageHealed"]
    # From the rest, 10 min after the wound: S: TN 8, 1 success, 20 days; then, no wound since, each stage from the
    # one before: M: TN 6, 2 successes, 5 days; L: TN 4, 4 successes, 6 hours.
    assert heals == [(REST + 20 * DAY, 3), (REST + 25 * DAY, 1), (REST + 25 * DAY + 6 * HOUR, 0)]
    assert timers(state) == []


def test_a_deadly_monitor_heals_only_in_hospital_once_stabilized():
    state = wounded([10, 10, 10, 10], severity="D")
    state, _ = act(state, {"type": "first_aid", **MEDIC}, {"first_aid": [9, 1, 1]}, now=60)
    assert [t.kind for t in timers(state)] == []
    state, _ = act(state, {"type": "set_care", "in_hospital": True}, now=REST + 120)
    assert [(t.due, t.kind) for t in timers(state)] == [(REST + 120, "physical_healing_roll")]
    clock = Clock({"physical_healing": [[10, 11, 1, 1], [1, 1, 1, 1]]})
    state = clock.advance(state, REST + 120 + 15 * DAY)
    assert (state["physical"], state["physical_overflow"]) == (6, 0)


def test_stun_recovers_one_box_per_sixty_minutes_over_successes():
    state, _ = act(character(body=4, willpower=5), {"type": "wound", "severity": "M", "damage": "stun"})
    clock = Clock({"stun_recovery": [[4, 4, 4, 1, 1]]})
    state = clock.advance(state, 2 * HOUR)
    roll = clock.events[0]
    assert (roll.data["pool"], roll.data["target"], roll.data["successes"], roll.data["interval"]) == (
        5,
        4,
        3,
        1200,
    )
    assert roll.game_time == REST  # when the rest begins
    stun = [(e.game_time, e.data["stun"]) for e in clock.events[1:]]
    assert stun == [(REST + 1200, 2), (REST + 2400, 1), (REST + 3600, 0)]
    assert state["stun_recovery"] is None


def test_a_failed_stun_recovery_roll_is_made_again_an_hour_later():
    state, _ = act(character(body=2), {"type": "wound", "severity": "L", "damage": "stun"})
    clock = Clock({"stun_recovery": [[2, 2], [3, 1]]})
    state = clock.advance(state, REST + HOUR)
    assert [(e.type, e.game_time) for e in clock.events] == [
        ("StunRecoveryRolled", REST),
        ("StunRecoveryRolled", REST + HOUR),
    ]
    state = clock.advance(state, REST + 2 * HOUR)
    assert state["stun"] == 0


@pytest.mark.parametrize(
    ("options", "target", "successes", "interval", "stun_after_an_hour"),
    [
        ({}, 4, 3, 1200, 0),  # the house default: TN 2 + 2 (Moderate stun), 60 minutes / successes
        ({"stun_healing": {"tn": 3}}, 5, 2, 1800, 1),
        ({"stun_healing": {"base_minutes": 30}}, 4, 3, 600, 0),
        ({"stun_healing": {"tn": 5, "base_minutes": 90}}, 7, 0, None, 3),
    ],
)
def test_the_stun_healing_option_sets_the_tn_and_the_base_minutes(
    options, target, successes, interval, stun_after_an_hour
):
    state = character(body=4, willpower=5, **options)
    state, _ = act(state, {"type": "wound", "severity": "M", "damage": "stun"})
    clock = Clock({"stun_recovery": [[5, 5, 4, 1, 1]]})
    state = clock.advance(state, REST + HOUR)
    roll = clock.events[0]
    assert (roll.data["target"], roll.data["successes"], roll.data["interval"]) == (
        target,
        successes,
        interval,
    )
    assert state["stun"] == stun_after_an_hour


def test_a_failed_stun_recovery_roll_is_made_again_after_the_options_base_minutes():
    state = character(body=2, stun_healing={"base_minutes": 30})
    state, _ = act(state, {"type": "wound", "severity": "L", "damage": "stun"})
    clock = Clock({"stun_recovery": [[2, 2], [3, 1]]})
    clock.advance(state, REST + HOUR)
    assert [(e.type, e.game_time) for e in clock.events] == [
        ("StunRecoveryRolled", REST),
        ("StunRecoveryRolled", REST + 30 * 60),
        ("StunBoxRecovered", REST + 30 * 60 + 30 * 60),
    ]


def test_a_game_year_takes_a_modest_number_of_firings():
    state = character(body=3)
    state, _ = act(
        state,
        {"type": "wound", "severity": "M"},
        {"body_check": [6, 6, 1], "location": [1, 4], "critical": [2]},
    )
    state, _ = act(state, {"type": "wound", "severity": "S", "damage": "stun"})
    state, _ = act(
        state,
        {"type": "wound", "severity": "L"},
        {"body_check": [6, 1, 1], "location": [4, 6], "critical": [3]},
    )
    clock = Clock(rng=random.Random(7))
    state = clock.advance(state, 365 * DAY)
    assert len(clock.fired) < 120
    assert state["alive"] is True


def test_every_timer_kind_has_its_priority():
    assert (engine.PRIORITY_TREATMENT, engine.PRIORITY_DEATH) == (10, 90)
    assert (
        engine.PRIORITY_TREATMENT < engine.PRIORITY_HEALED < engine.PRIORITY_OVERFLOW < engine.PRIORITY_DEATH
    )


def test_the_physical_healing_table_option_overrides_the_house_table():
    options = {"physical_healing_table": {"S": {"tn": 4, "base_seconds": DAY}}}
    state = wounded([6, 6, 6, 6], severity="S", state=character(**options))  # no critical hit, 6 boxes
    clock = Clock({"physical_healing": [[4, 1, 1, 1]]})
    clock.advance(state, REST + 60)
    [roll] = [event for event in clock.events if event.type == "PhysicalHealingRolled"]
    assert (roll.data["target"], roll.data["successes"], roll.data["heals_at"]) == (4, 1, REST + DAY)


def _house_rules(state, **options):
    """The campaign's options changed (CampaignChanged): the state takes them as the service gives them."""
    from rules.ruleset import copy_state, set_options

    changed = copy_state(state)
    set_options(RULESET, changed, {**state["options"], **options})
    return changed


def test_the_overflow_clock_follows_a_change_of_its_minutes_from_the_last_box_on():
    """docs/rules/README.md, "House options": the next box at 600 s with 10 minutes, the option set to 5 at 600 s: the
    next box at 900 s."""
    state = wounded([10, 10, 10, 10], severity="D")  # body 4: dies at the fifth box
    clock = Clock()
    state = clock.advance(state, 600)
    assert [t.due for t in timers(state)] == [1200]
    state = _house_rules(state, deadly_overflow_minutes=5)
    assert [t.due for t in timers(state)] == [900]
    assert view(state, "gm")["death_at"] == 900 + 3 * 300
    state = clock.advance(state, 1800)
    assert [at for at, kind, _ in clock.fired] == [600, 900, 1200, 1500, 1800]
    assert state["alive"] is False


def test_an_overflow_box_the_new_minutes_put_in_the_past_comes_at_the_next_advance():
    from rules import clock
    from rules.dice import Dice

    state = wounded([10, 10, 10, 10], severity="D")
    state = _house_rules(state, deadly_overflow_minutes=5)  # changed at 500 s: due at 300 s, already past
    assert [t.due for t in timers(state)] == [300]
    ran = clock.run(RULESET, state, 500, 800, lambda: Dice(rng=random.Random(0)))
    assert [(firing.at, firing.timer.kind) for firing in ran.fired] == [(500, "overflow"), (800, "overflow")]
    assert ran.state["physical_overflow"] == 2


def test_with_the_overflow_minutes_at_zero_no_box_comes_and_the_clock_resumes_from_the_wound():
    state = wounded([10, 10, 10, 10], severity="D", now=100)
    stopped = _house_rules(state, deadly_overflow_minutes=0)
    assert (timers(stopped), view(stopped, "gm")["dying"]) == ([], False)
    assert [t.due for t in timers(_house_rules(stopped, deadly_overflow_minutes=10))] == [700]
    off_at_the_wound = wounded(
        [10, 10, 10, 10], severity="D", state=character(deadly_overflow_minutes=0), now=100
    )
    assert [t.due for t in timers(_house_rules(off_at_the_wound, deadly_overflow_minutes=3))] == [280]
