"""The GM view, the player view's redaction, public_event, options and attributes."""

from __future__ import annotations

import json

import pytest

from rules.ruleset import GM, PLAYER, Event, RuleError, apply
from rules.shadowrun2 import RULESET
from rules.shadowrun2.engine import initial_state, validate_attributes, validate_options
from rules.shadowrun2.forms import FORMS
from rules.shadowrun2.view import MORTAL_FOR_PLAYERS, public_event, view

from .helpers import CRITICAL, MORTAL, act, character, hit, wounded

MEDIC = {"medic": "Doc", "skill": 3}
CHEST_OPEN = "A wound in the chest bleeds through the clothes; every breath hurts and comes short."
SHEET_HIT_KEYS = {
    "id",
    "location",
    "part",
    "reason",
    "lethality",
    "boxes",
    "penalty",
    "diagnosed",
    "open_wound",
    "treated",
    "improperly_treated",
    "death_at",
    "status",
    "heals_at",
}


def keys_anywhere(value):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from keys_anywhere(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from keys_anywhere(inner)


def test_the_view_has_the_contract_keys_and_the_design_sheet():
    result = view(wounded(MORTAL), GM)
    assert {
        "alive",
        "conscious",
        "dying",
        "death_at",
        "sheet",
        "status",
        "symptoms",
        "warnings",
        "recovery",
    } <= set(result)
    sheet = result["sheet"]
    assert {"physical", "stun", "physical_overflow", "critical_hits", "tn_modifier", "in_hospital"} <= set(
        sheet
    )
    assert set(sheet["critical_hits"][0]) >= SHEET_HIT_KEYS
    assert set(sheet["tn_modifier"]) == {"general", "by_location", "total"}


def test_the_gm_sees_everything_of_an_undiagnosed_mortal_hit():
    state = wounded(MORTAL, critical=1, death_time=[3])
    result = view(state, GM)
    assert (result["dying"], result["death_at"], result["status"]) == (True, 1800, ["dying"])
    assert (hit(state)["part"], hit(state)["lethality"], hit(state)["boxes"], hit(state)["penalty"]) == (
        "lung",
        "mortal",
        10,
        4,
    )
    assert result["sheet"]["tn_modifier"]["total"] == 3 + 4
    assert "Critical hit 1 to the chest (lung): internal bleeding kills at [t=1800]" in result["warnings"]


def test_a_player_sees_only_location_and_symptom_of_an_undiagnosed_hit():
    state = wounded(MORTAL, critical=1, death_time=[3])
    result = view(state, PLAYER)
    seen = hit(state, audience=PLAYER)
    for key in ("part", "reason", "lethality", "boxes", "penalty", "death_at", "heals_at"):
        assert seen[key] is None
    assert (seen["location"], seen["symptom"]) == (
        "chest",
        CHEST_OPEN,
    )
    assert (result["dying"], result["death_at"]) == (False, None)
    assert result["sheet"]["tn_modifier"] == {
        "general": 3,
        "by_location": dict.fromkeys(
            ("head", "chest", "abdomen", "left_arm", "right_arm", "left_leg", "right_leg"), 0
        ),
        "total": 3,
    }
    text = json.dumps(result)
    assert "lung" not in text and "mortal" not in text and "1800" not in text


def test_a_player_sees_a_diagnosed_mortal_hit_as_needing_treatment_now_without_the_time():
    state = wounded(MORTAL, critical=1, death_time=[3])
    state, _ = act(state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}, {"diagnosis": [6, 1, 1]})
    result = view(state, PLAYER)
    seen = hit(state, audience=PLAYER)
    assert (seen["part"], seen["lethality"], seen["penalty"], seen["death_at"]) == ("lung", "mortal", 4, None)
    assert result["warnings"] == [f"chest, lung: {MORTAL_FOR_PLAYERS}"]
    assert (result["dying"], result["death_at"]) == (True, None)
    assert "1800" not in json.dumps(result)
    dead = view({**state, "alive": False}, PLAYER)
    assert (dead["warnings"], dead["dying"]) == ([], False)  # nothing to treat any more


def test_a_mortal_hit_being_treated_says_so_to_the_player_and_when_it_ends_to_the_gm():
    """A tester's phone read "mortal: needs treatment now" while the same page listed the treatment under way."""
    state = wounded(MORTAL, critical=1, death_time=[3])  # the lung: dies at 1800
    state, _ = act(state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}, {"diagnosis": [6, 1, 1]})
    state, _ = act(state, {"type": "treat", **MEDIC, "critical_hit": "ch1"}, {"treatment": [8, 1, 1]})
    assert view(state, PLAYER)["warnings"] == ["chest, lung: mortal: being treated"]
    assert view(state, GM)["warnings"] == [
        "Critical hit 1 to the chest (lung): being treated: the treatment under way ends at [t=600], before the "
        "death ([t=1800])"
    ]
    assert "1800" not in json.dumps(view(state, PLAYER))


def test_a_mortal_hit_that_kills_before_its_treatment_ends_says_so_to_the_gm_alone():
    state = wounded(MORTAL, critical=5, death_time=[3])  # the heart: 1d6/2 min, dies at 90
    state, _ = act(state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}, {"diagnosis": [6, 1, 1]})
    state, _ = act(state, {"type": "treat", **MEDIC, "critical_hit": "ch1"}, {"treatment": [8, 1, 1]})
    assert view(state, GM)["warnings"] == [
        "Critical hit 1 to the chest (heart): heart attack kills at [t=90], before the treatment under way ends "
        "([t=600])"
    ]
    # The player never learns the time of death, nor so whether the treatment comes in time.
    assert view(state, PLAYER)["warnings"] == ["chest, heart: mortal: being treated"]


def test_a_player_sees_healing_progress_of_a_diagnosed_critical_hit():
    state = wounded(CRITICAL)
    state, _ = act(state, {"type": "diagnose", **MEDIC, "critical_hit": "ch1"}, {"diagnosis": [6, 1, 1]})
    state["critical_hits"][0]["heals_at"] = 5000  # as a natural-healing roll would set it
    assert {"what": "critical hit 1 to the chest (lung) heals", "ends_at": 5000} in view(state, PLAYER)[
        "recovery"
    ]


def test_the_player_view_never_shows_a_death_time():
    state = wounded([10, 10, 10, 10], severity="D")
    assert view(state, GM)["death_at"] == 3000
    assert view(state, PLAYER)["death_at"] is None
    assert "3000" not in json.dumps(view(state, PLAYER))


def test_public_events_never_carry_body_check_dice_or_an_undiagnosed_hits_secrets():
    state = character()
    rolls = {"body_check": MORTAL, "location": [3, 4], "critical": [1], "death_time": [3]}
    state, events = act(state, {"type": "wound", "severity": "S"}, rolls)
    state, more = act(state, {"type": "heal_magic", "successes": 4, "mode": "split_evenly"})
    wound, critical_hit = (public_event(e) for e in events)
    assert wound == {
        "severity": "S",
        "damage": "physical",
        "boxes": 6,
        "open_wound": True,
        "stun": 0,
        "physical": 6,
        "physical_overflow": 0,
    }
    assert critical_hit == {
        "critical_hit": "ch1",
        "location": "chest",
        "symptom": CHEST_OPEN,
    }
    assert public_event(more[0]) == {
        "mode": "split_evenly",
        "physical": {"boxes": 4, "physical_overflow": 0},
        "critical_hits": [],
    }
    for event in [*events, *more]:
        shown = json.dumps(public_event(event))
        assert "death_at" not in set(keys_anywhere(public_event(event)))
        assert "lung" not in shown and "mortal" not in shown and "body_check" not in shown


def test_a_hit_recorded_with_a_retired_symptom_text_shows_todays_text_to_everyone():
    """Events are kept for good: a hit taken before the texts stopped naming parts carries its old text, which
    named the collarbone. The view and the history read the text from the table, never from the event."""
    rolls = {"body_check": MORTAL, "location": [3, 4], "critical": [6], "death_time": [3]}
    _, events = act(character(), {"type": "wound", "severity": "S", "open_wound": False}, rolls)
    old = Event(
        events[1].type,
        {**events[1].data, "symptom": "The collarbone is out of line; blood wells up fast above it."},
        events[1].game_time,
    )
    state = character()
    for event in (events[0], old):
        state = apply(RULESET, state, event)
    closed_chest = "The chest aches deep inside; every breath hurts and comes short."
    assert hit(state, audience=PLAYER)["symptom"] == closed_chest
    assert (hit(state)["symptom"], hit(state)["part"]) == (closed_chest, "collarbone")
    assert view(state, PLAYER)["symptoms"][-1] == f"chest: {closed_chest}"
    assert public_event(old) == {"critical_hit": "ch1", "location": "chest", "symptom": closed_chest}


def test_a_public_diagnosis_shows_only_the_hits_found():
    state = wounded(CRITICAL, critical=1)
    state = wounded(CRITICAL, critical=5, state=state)
    _, events = act(
        state, {"type": "diagnose", **MEDIC}, {"diagnosis:ch1": [1, 1, 1], "diagnosis:ch2": [2, 1, 1]}
    )
    assert public_event(events[0]) == {
        "medic": "Doc",
        "found": [{"critical_hit": "ch2", "location": "chest", "part": "heart", "lethality": "critical"}],
    }


def test_a_public_death_says_nothing_of_its_cause():
    state = wounded([10, 10, 10, 10], severity="D")
    _, events = act(state, {"type": "wound", "severity": "S"})
    assert public_event(events[1]) == {}


def test_the_state_is_plain_json():
    state = wounded(MORTAL)
    assert json.loads(json.dumps(state)) == state


# ---- options and attributes -----------------------------------------------------------------------------------------


def test_options_default_to_the_rules_and_house_values_and_ignore_the_shared_ones():
    assert validate_options({"start": "2053-01-01T00:00:00", "time_scale": 1}) == {
        "body_check_tn": "standard",
        "critical_category": True,
        "combat_pool_on_body_check": False,
        "stun_causes_critical_hits": False,
        "treatment_table": {
            "mortal": {"tn": 8, "base_seconds": 600},
            "critical": {"tn": 4, "base_seconds": 1200},
        },
        "deadly_overflow_minutes": 10,
        "rest_minutes": 10,
        "first_aid_tn": {"L": 4, "M": 6, "S": 8, "D": 10},
        "physical_healing_table": {
            "D": {"tn": 10, "base_seconds": 30 * 86_400},
            "S": {"tn": 8, "base_seconds": 20 * 86_400},
            "M": {"tn": 6, "base_seconds": 10 * 86_400},
            "L": {"tn": 4, "base_seconds": 86_400},
        },
        "stun_healing": {"tn": 2, "base_minutes": 60},
        "first_aid_floor": {"L": 0, "M": 1, "S": 3},
    }
    assert validate_options(None) == validate_options({})


def test_a_partial_treatment_table_keeps_the_other_defaults():
    table = validate_options({"treatment_table": {"critical": {"base_seconds": 60}}})["treatment_table"]
    assert table == {"mortal": {"tn": 8, "base_seconds": 600}, "critical": {"tn": 4, "base_seconds": 60}}


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        ({"colour": 1}, "options.colour", "unknown field; expected one of"),
        ({"body_check_tn": "hard"}, "options.body_check_tn", "expected one of standard, gentle, got hard"),
        ({"critical_category": "no"}, "options.critical_category", "expected true or false, got the text no"),
        (
            {"deadly_overflow_minutes": -1},
            "options.deadly_overflow_minutes",
            "expected a whole number of at least 0",
        ),
        ({"treatment_table": {"crippling": {}}}, "options.treatment_table.crippling", "unknown field"),
        (
            {"treatment_table": {"mortal": {"tn": "8"}}},
            "options.treatment_table.mortal.tn",
            "expected a whole number",
        ),
        ({"treatment_table": 3}, "options.treatment_table", "expected an object, got int"),
        (
            {"stun_healing": {"tn": 1}},
            "options.stun_healing.tn",
            "expected a whole number of at least 2, got 1",
        ),
        (
            {"stun_healing": {"base_minutes": 0}},
            "options.stun_healing.base_minutes",
            "expected a whole number of at least 1, got 0",
        ),
        ({"stun_healing": {"minutes": 30}}, "options.stun_healing.minutes", "unknown field"),
        (
            {"first_aid_floor": {"S": 7}},
            "options.first_aid_floor.S",
            "expected a whole number of at most 6, got 7",
        ),
        (
            {"first_aid_floor": {"L": -1}},
            "options.first_aid_floor.L",
            "expected a whole number of at least 0",
        ),
        ({"first_aid_floor": {"D": 6}}, "options.first_aid_floor.D", "unknown field"),
    ],
)
def test_bad_options_are_refused_with_the_option_named(options, field, message):
    with pytest.raises(RuleError) as error:
        validate_options(options)
    assert error.value.field == field
    assert error.value.message.startswith(message)


def test_willpower_defaults_to_body():
    assert validate_attributes({"body": 5}) == {"body": 5, "willpower": 5}


@pytest.mark.parametrize(
    ("attributes", "field", "message"),
    [
        ({}, "attributes.body", "this field is required: expected a whole number"),
        ({"body": 0}, "attributes.body", "expected a whole number of at least 1, got 0"),
        ({"body": 3, "willpower": 0}, "attributes.willpower", "expected a whole number of at least 1, got 0"),
        ({"body": 3, "magic": 6}, "attributes.magic", "unknown field; expected one of body, willpower"),
    ],
)
def test_bad_attributes_are_refused(attributes, field, message):
    with pytest.raises(RuleError) as error:
        validate_attributes(attributes)
    assert (error.value.field, error.value.message) == (field, message)


def test_the_ruleset_describes_every_action_and_option():
    assert RULESET.slug == "shadowrun2"
    assert RULESET.default_start == "2053-01-01T00:00:00"
    assert set(FORMS) == set(RULESET.actions)
    help_of = RULESET.option_help
    assert set(help_of) == set(validate_options(None))
    assert "(house)" in help_of["treatment_table"] and "(house" in help_of["deadly_overflow_minutes"]
    assert initial_state({"body": 3}, {})["alive"] is True
