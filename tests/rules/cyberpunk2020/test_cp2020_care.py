from random import Random

import pytest

from rules.cyberpunk2020 import engine
from rules.cyberpunk2020 import view as cp_view
from rules.dice import Dice, DiceError, RollNeeded

from .helpers import act, character, types


def crippled_leg(body=6):
    """A kept left leg (8 points, serious), the stun and death saves passed, at game second 0."""
    state = character(body=body, luck=10)
    state, _ = act(
        state,
        {"type": "damage", "damage": 20, "location": "left_leg"},
        {"sever": [5], "stun_save": [1], "death_save": [1]},
    )
    return state


def dying(body=3):
    """14 points on the torso, a failed death save: dying at 30."""
    state = character(body=body, btm=0)
    state, _ = act(
        state, {"type": "damage", "damage": 14, "location": "torso"}, {"stun_save": [1], "death_save": [9]}
    )
    return state


def refused(state, action, rolls=None, now=0):
    with pytest.raises(engine.RuleError) as error:
        act(state, action, rolls, now)
    return error.value.field, error.value.message


# --- stabilize -------------------------------------------------------------------------------------------------


def test_first_aid_stabilizes_a_crippled_limb_at_15():
    state = crippled_leg()
    after, events = act(
        state,
        {
            "type": "stabilize",
            "target": "limb:left_leg",
            "medic": "Doc",
            "skill": "first_aid",
            "tech": 6,
            "skill_level": 4,
        },
        {"stabilize": [5]},
        now=20,
    )
    assert types(events) == ["StabilizationSucceeded"]
    assert {
        key: events[0].data[key] for key in ("total", "tech", "skill_level", "roll", "difficulty", "medic")
    } == {
        "total": 15,
        "tech": 6,
        "skill_level": 4,
        "roll": 5,
        "difficulty": 15,
        "medic": "Doc",
    }
    assert events[0].data["dice"] == {"stabilize": [5]}
    assert after["locations"]["left_leg"]["stabilized"] is True
    assert [timer.kind for timer in engine.timers(after)] == []


def test_a_stabilization_total_of_14_fails_and_changes_nothing():
    state = crippled_leg()
    after, events = act(
        state, {"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", "total": 14}
    )
    assert types(events) == ["StabilizationFailed"]
    assert after["locations"] == state["locations"]


def test_a_doctor_stabilizes_the_dying_against_the_real_damage():
    state = dying()
    after, events = act(
        state, {"type": "stabilize", "target": "dying", "skill": "medical_tech", "total": 14}, now=10
    )
    assert types(events) == ["StabilizationSucceeded"]
    assert events[0].data["difficulty"] == 14
    assert (after["dying"], after["death_at"], after["conscious"]) == (False, None, False)
    assert after["next_death_save_at"] == 40


def test_a_doctor_short_of_the_real_damage_fails_to_stabilize():
    state = dying()
    after, events = act(state, {"type": "stabilize", "target": "dying", "skill": "medical_tech", "total": 13})
    assert types(events) == ["StabilizationFailed"]
    assert after["dying"] is True


def test_a_severed_limb_is_offered_to_stabilize_and_stabilizing_it_ends_its_death_saves():
    """A tester's ganger lost a leg (sever check 8 against 9) and bled to death: Stabilize offered only "(choose)"."""
    from rules.cyberpunk2020 import RULESET
    from rules.cyberpunk2020.sheet import injury_choices
    from rules.ruleset import GM

    state = character(body=6)
    state, _ = act(
        state,
        {"type": "damage", "damage": 22, "location": "right_leg"},  # 11 - 2 = 9 location damage
        {"sever": [2], "stun_save": [1], "death_save": [1]},  # 6 + 0 + 2 = 8 against 9: severed
    )
    assert state["locations"]["right_leg"] == {"crippled": True, "severed": True, "stabilized": False}
    assert injury_choices(RULESET.view(state, GM)["sheet"]) == [("limb:right_leg", "right leg (severed)")]
    after, _ = act(
        state, {"type": "stabilize", "target": "limb:right_leg", "skill": "first_aid", "total": 15}
    )
    assert after["locations"]["right_leg"]["stabilized"] is True
    assert engine.limbs_awaiting_stabilization(after) == []  # no death save every turn (`timers`)
    assert injury_choices(RULESET.view(after, GM)["sheet"]) == []


def test_stabilizing_the_dying_also_stabilizes_every_crippled_limb():
    state = character(body=6)
    state, _ = act(
        state,
        {"type": "damage", "damage": 30, "location": "left_arm"},
        {"sever": [1], "stun_save": [1], "death_save": [9]},
    )
    after, _ = act(state, {"type": "stabilize", "target": "dying", "skill": "medical_tech", "total": 10})
    assert after["locations"]["left_arm"] == {"crippled": True, "severed": True, "stabilized": True}


@pytest.mark.parametrize(
    ("make", "action", "expected"),
    [
        (character, {"target": "dying", "skill": "medical_tech", "total": 30}, ("target", engine.NOT_DYING)),
        (
            dying,
            {"target": "dying", "skill": "first_aid", "total": 30},
            ("skill", "stabilizing a dying character needs Medical Tech (the doctor's skill), not First Aid"),
        ),
        (
            character,
            {"target": "limb:left_leg", "skill": "first_aid", "total": 30},
            ("target", "the left leg is not crippled"),
        ),
        (
            character,
            {"target": "limb:head", "skill": "first_aid", "total": 30},
            ("target", engine.TARGET_EXPECTED),
        ),
        (character, {"target": "arm", "skill": "first_aid", "total": 30}, ("target", engine.TARGET_EXPECTED)),
        (crippled_leg, {"target": "limb:left_leg", "skill": "first_aid"}, ("total", engine.TOTAL_EXPECTED)),
        (
            crippled_leg,
            {"target": "limb:left_leg", "skill": "first_aid", "tech": 5},
            ("total", engine.TOTAL_EXPECTED),
        ),
        (
            crippled_leg,
            {"target": "limb:left_leg", "skill": "surgery", "total": 30},
            ("skill", "expected first aid or medical tech, got surgery"),
        ),
        (
            crippled_leg,
            {"target": "limb:left_leg", "skill": "first_aid", "total": -1},
            ("total", "expected a whole number of at least 0, got -1"),
        ),
        (
            crippled_leg,
            {"skill": "first_aid", "total": 30},
            ("target", "this field is required: expected a target: the dying character or a crippled limb"),
        ),
    ],
)
def test_bad_stabilizations_are_refused(make, action, expected):
    assert refused(make(), {"type": "stabilize", **action}) == expected


def test_an_already_stabilized_limb_is_refused():
    state = crippled_leg()
    state, _ = act(state, {"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", "total": 15})
    action = {"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", "total": 15}
    assert refused(state, action) == ("target", "the left leg is already stabilized")


# --- treat -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("skill", "rate", "seconds"), [("first_aid", 0.5, 2 * 86400), ("medical_tech", 1, 86400)]
)
def test_a_successful_treatment_sets_the_healing_rate(skill, rate, seconds):
    state = crippled_leg()
    after, events = act(
        state, {"type": "treat", "skill": skill, "tech": 7, "skill_level": 5}, {"treatment": [3]}, now=100
    )
    assert types(events) == ["TreatmentSucceeded"]
    data = events[0].data
    assert (data["total"], data["difficulty"], data["healing_rate"], data["seconds_per_point"]) == (
        15,
        15,
        rate,
        seconds,
    )
    assert (after["healing_skill"], after["heal_anchor"]) == (skill, 100)
    assert cp_view.view(after, "gm")["sheet"]["healing_rate"] == rate


def test_medical_tech_replaces_first_aid_and_first_aid_never_lowers_it():
    state = crippled_leg()
    state, _ = act(state, {"type": "treat", "skill": "first_aid", "total": 15})
    state, _ = act(state, {"type": "treat", "skill": "medical_tech", "total": 15}, now=50)
    assert (state["healing_skill"], state["heal_anchor"]) == ("medical_tech", 50)
    state, events = act(state, {"type": "treat", "skill": "first_aid", "total": 20}, now=60)
    assert events[0].data["healing_skill"] == "medical_tech"
    assert (state["healing_skill"], state["heal_anchor"]) == ("medical_tech", 50)


def test_a_failed_treatment_may_be_retried_only_after_one_game_day():
    state = crippled_leg()
    state, events = act(state, {"type": "treat", "skill": "first_aid", "total": 14}, now=100)
    assert types(events) == ["TreatmentFailed"]
    assert state["healing_skill"] is None
    assert refused(state, {"type": "treat", "skill": "first_aid", "total": 20}, now=86499) == (
        "type",
        "a failed treatment may be retried from [t=86500] (1 game day after it failed)",
    )
    after, events = act(state, {"type": "treat", "skill": "first_aid", "total": 20}, now=86500)
    assert types(events) == ["TreatmentSucceeded"]


def test_the_house_treatment_options_change_the_difficulty_and_the_retry_delay():
    state = character(body=6, treatment_difficulty=10, treatment_retry_days=2)
    state, _ = act(state, {"type": "damage", "damage": 6, "location": "torso"}, {"stun_save": [1]})
    state, events = act(state, {"type": "treat", "skill": "first_aid", "total": 9})
    assert events[0].data["difficulty"] == 10
    assert (
        refused(state, {"type": "treat", "skill": "first_aid", "total": 10}, now=86400 * 2 - 1)[0] == "type"
    )
    _, events = act(state, {"type": "treat", "skill": "first_aid", "total": 10}, now=86400 * 2)
    assert types(events) == ["TreatmentSucceeded"]


def test_there_is_nothing_to_treat_without_real_damage():
    assert refused(character(), {"type": "treat", "skill": "first_aid", "total": 20}) == (
        "type",
        engine.NO_DAMAGE_TO_TREAT,
    )


def test_a_treatment_needs_a_known_skill():
    assert refused(crippled_leg(), {"type": "treat", "total": 20}) == (
        "skill",
        "this field is required: expected first aid or medical tech",
    )


# --- save ------------------------------------------------------------------------------------------------------


def test_a_stun_save_rolled_at_the_table_ends_the_stun():
    state = character(body=6, btm=0)
    state, _ = act(state, {"type": "damage", "damage": 4, "location": "torso"}, {"stun_save": [9]})
    after, events = act(state, {"type": "save", "kind": "stun"}, {"save": [6]}, now=3)
    assert types(events) == ["StunSaveRolled"]
    assert {key: events[0].data[key] for key in ("roll", "target", "success", "cause")} == {
        "roll": 6,
        "target": 6,
        "success": True,
        "cause": "table",
    }
    assert after["stunned"] is False


def test_a_death_save_rolled_at_the_table_for_a_crippled_limb():
    state = crippled_leg()
    after, events = act(state, {"type": "save", "kind": "death"}, {"save": [7]}, now=30)
    assert events[0].data["outcome"] == "dying"
    assert events[0].data["limbs"] == ["left_leg"]
    assert (after["dying"], after["death_at"]) == (True, 60)


def test_a_death_save_rolled_at_the_table_wakes_the_stunned_out():
    state = character(body=3, btm=0)
    state, _ = act(
        state,
        {"type": "damage", "damage": 14, "kind": "stun", "location": "torso"},
        {"stun_save": [1], "death_save": [9]},
    )
    after, events = act(state, {"type": "save", "kind": "death"}, {"save": [3]}, now=30)
    assert events[0].data["outcome"] == "woke"
    assert after["conscious"] is True


@pytest.mark.parametrize(
    ("make", "kind", "expected"),
    [
        (character, "stun", ("kind", engine.NOT_STUNNED)),
        (character, "death", ("kind", engine.NO_DEATH_SAVE_PENDING)),
        (
            dying,
            "death",
            ("kind", "a dying character cannot save their way out: stabilize them (Medical Tech)"),
        ),
        (character, "luck", ("kind", "expected stun or death, got luck")),
    ],
)
def test_saves_that_are_not_pending_are_refused(make, kind, expected):
    assert refused(make(), {"type": "save", "kind": kind}, {"save": [1]}) == expected


def test_a_save_die_outside_1_to_10_is_refused():
    with pytest.raises(DiceError) as error:
        act(crippled_leg(), {"type": "save", "kind": "death"}, {"save": [11]})
    assert str(error.value) == "rolls.save: expected 1 die of 1-10, got [11]"


def _asked(build, state):
    """The prompt of the save `build` asks the table for: its label and what it decides."""
    with pytest.raises(RollNeeded) as needed:
        build(state, Dice(ask=True), 30, "every turn")
    return needed.value.request.label, needed.value.request.why


def test_each_save_of_the_clock_is_worded_for_the_save_it_is():
    stunned_out = character(body=3, btm=0)
    stunned_out, _ = act(
        stunned_out,
        {"type": "damage", "damage": 14, "kind": "stun", "location": "torso"},
        {"stun_save": [1], "death_save": [9]},
    )
    assert (stunned_out["conscious"], stunned_out["stunned"]) == (False, True)
    assert _asked(engine.death_save_event, stunned_out) == (
        "Death save",
        "whether the character wakes up (failed: stays unconscious)",
    )
    # Out cold at Body 3, the stun save cannot succeed (target below 1): certain, it is rolled, never asked
    # (tests/rules/test_certain_rolls.py). Body 6 and a light wound: a save the die decides, asked.
    engine.stun_save_event(stunned_out, Dice(ask=True, rng=Random(0)), 30, "every turn")
    stunned, _ = act(
        character(body=6, btm=0),
        {"type": "damage", "damage": 4, "kind": "stun", "location": "torso"},
        {"stun_save": [9]},
    )
    assert stunned["stunned"] is True
    assert _asked(engine.stun_save_event, stunned) == (
        "Stun save",
        "whether the character recovers from the stun (failed: stays stunned)",
    )
    assert _asked(engine.death_save_event, crippled_leg()) == (
        "Death save",
        "whether the character holds on while the left leg (crippled) is not stabilized (failed: dying until it is)",
    )


def test_the_clock_names_a_severed_limb_as_severed_in_its_death_save():
    """A tester's ganger lost a leg: the clock asked for a death save "while a crippled limb is not stabilized"."""
    state, _ = act(
        character(body=6),
        {"type": "damage", "damage": 22, "location": "right_leg"},
        {"sever": [2], "stun_save": [1], "death_save": [1]},  # 6 + 0 + 2 = 8 against 9: severed
    )
    assert _asked(engine.death_save_event, state) == (
        "Death save",
        "whether the character holds on while the right leg (severed) is not stabilized (failed: dying until it is)",
    )
    out_cold, _ = act(
        character(body=6),
        {"type": "damage", "damage": 22, "location": "right_leg"},
        {"sever": [2], "stun_save": [1], "death_save": [9]},
    )
    assert _asked(engine.death_save_event, out_cold)[1] == (
        "whether the character wakes up (failed: stays unconscious, and dying until the right leg (severed) is"
        " stabilized)"
    )
