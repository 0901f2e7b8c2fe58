import json

import pytest

from rules import forecast as fc
from rules.cyberpunk2020 import RULESET, engine
from rules.cyberpunk2020 import view as cp_view
from rules.ruleset import Event

from .helpers import act, character

SHEET_KEYS = {
    "damage",
    "stun_damage",
    "track",
    "wound_level",
    "minor_wounds",
    "stunned",
    "btm",
    "stun_save_target",
    "death_save_target",
    "locations",
    "healing_rate",
}


def test_options_get_their_defaults_and_ignore_the_shared_ones():
    assert engine.validate_options({"start": "2020-01-01T00:00:00", "time_scale": 1}) == {
        "bone_mend_weeks": 6,
        "hit_location_model": "standard",
        "treatment_difficulty": 15,
        "treatment_retry_days": 1,
    }
    assert engine.validate_options({"hit_location_model": "d8"})["hit_location_model"] == "d8"


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        (
            {"hit_location_model": "d12"},
            "options.hit_location_model",
            "expected one of standard, d8, modified, got d12",
        ),
        (
            {"treatment_difficulty": 0},
            "options.treatment_difficulty",
            "expected a whole number of at least 1, got 0",
        ),
        (
            {"treatment_retry_days": "one"},
            "options.treatment_retry_days",
            "expected a whole number, got the text one",
        ),
        (
            {"gore": True},
            "options.gore",
            "unknown field; expected one of bone_mend_weeks, fight_idle_minutes, hit_location_model, start, table_dice, time_scale, "
            "treatment_difficulty, treatment_retry_days",
        ),
        ([], "options", "expected an object, got list"),
    ],
)
def test_bad_options_are_refused(options, field, message):
    with pytest.raises(engine.RuleError) as error:
        engine.validate_options(options)
    assert (error.value.field, error.value.message) == (field, message)


def test_attributes_get_their_defaults_and_the_btm_from_body():
    assert engine.validate_attributes({"body": 8, "armor": {"torso": 14}}) == {
        "body": 8,
        "luck": 0,
        "armor": {"head": 0, "torso": 14, "left_arm": 0, "right_arm": 0, "left_leg": 0, "right_leg": 0},
        "btm": -3,
        "stun_save_bonus": 0,
    }


def test_a_cyberware_btm_overrides_the_body_table():
    assert engine.validate_attributes({"body": 8, "btm": -5})["btm"] == -5


@pytest.mark.parametrize(
    ("attributes", "field", "message"),
    [
        ({}, "attributes.body", "this field is required: expected a whole number"),
        ({"body": 0}, "attributes.body", "expected a whole number of at least 1, got 0"),
        ({"body": 6, "luck": -1}, "attributes.luck", "expected a whole number of at least 0, got -1"),
        ({"body": 6, "btm": 1}, "attributes.btm", "expected a whole number of at most 0, got 1"),
        (
            {"body": 6, "stun_save_bonus": "x"},
            "attributes.stun_save_bonus",
            "expected a whole number, got the text x",
        ),
        (
            {"body": 6, "armor": {"torso": -2}},
            "attributes.armor.torso",
            "expected a whole number of at least 0, got -2",
        ),
        (
            {"body": 6, "armor": {"chest": 2}},
            "attributes.armor.chest",
            "unknown field; expected one of head, left_arm, left_leg, right_arm, right_leg, torso",
        ),
        ({"body": 6, "armor": 10}, "attributes.armor", "expected an object, got int"),
        (
            {"body": 6, "reflexes": 8},
            "attributes.reflexes",
            "unknown field; expected one of armor, body, btm, luck, stun_save_bonus",
        ),
    ],
)
def test_bad_attributes_are_refused(attributes, field, message):
    with pytest.raises(engine.RuleError) as error:
        engine.validate_attributes(attributes)
    assert (error.value.field, error.value.message) == (field, message)


def test_the_initial_state_is_json_and_alive():
    state = character()
    assert json.loads(json.dumps(state)) == state
    assert (state["alive"], state["conscious"], state["dying"], state["death_at"]) == (
        True,
        True,
        False,
        None,
    )


def test_the_ruleset_describes_itself():
    ruleset = RULESET
    assert (ruleset.slug, ruleset.default_start) == ("cyberpunk2020", "2020-01-01T00:00:00")
    assert ruleset.actions == ("damage", "stabilize", "treat", "save", "set_bones", "replace_limb")
    assert set(ruleset.forms) == set(ruleset.actions)
    assert set(ruleset.option_help) == {
        "bone_mend_weeks",
        "hit_location_model",
        "treatment_difficulty",
        "treatment_retry_days",
    }
    assert "(house" in ruleset.option_help["treatment_difficulty"]


def test_the_sheet_has_the_design_keys_for_a_fresh_character():
    sheet = cp_view.view(character(body=8), "player")["sheet"]
    assert set(sheet) >= SHEET_KEYS
    assert {key: sheet[key] for key in SHEET_KEYS - {"locations"}} == {
        "damage": 0,
        "stun_damage": 0,
        "track": 0,
        "wound_level": "none",
        "minor_wounds": 0,
        "stunned": False,
        "btm": -3,
        "stun_save_target": 8,
        "death_save_target": 8,
        "healing_rate": 0,
    }
    assert sheet["locations"]["head"] == {"crippled": False, "severed": False, "stabilized": False}


def dying_with_a_severed_arm():
    state = character(body=6)
    state, _ = act(
        state,
        {"type": "damage", "damage": 30, "location": "left_arm"},
        {"sever": [1], "stun_save": [9], "death_save": [9]},
        now=60,
    )
    return state


def test_the_gm_sees_the_time_of_death():
    view = cp_view.view(dying_with_a_severed_arm(), "gm")
    assert (view["alive"], view["conscious"], view["dying"], view["death_at"]) == (True, False, True, 90)
    assert view["status"] == ["dying", "unconscious", "stunned", "left arm severed"]
    assert {"what": "dying", "ends_at": 90} in view["recovery"]
    assert "Left arm severed." in view["symptoms"]
    assert "Left arm crippled and not stabilized: a death save every turn." in view["warnings"]
    assert "Untreated wounds do not heal: needs first aid or medical tech." in view["warnings"]


def test_the_player_sees_everything_but_the_time_of_death():
    state = dying_with_a_severed_arm()
    gm, player = cp_view.view(state, "gm"), cp_view.view(state, "player")
    assert player["death_at"] is None
    assert {"what": "dying", "ends_at": None} in player["recovery"]
    assert player["sheet"] == gm["sheet"]
    assert player["symptoms"] == gm["symptoms"]
    assert (
        "Unconscious and bleeding out: dies at the end of the turn unless a doctor stabilizes them."
        in player["symptoms"]
    )


def test_recovery_shows_when_stun_minor_wounds_and_treated_damage_end():
    state = character(body=11)
    state, _ = act(state, {"type": "damage", "damage": 2, "location": "torso"}, {"stun_save": [1]}, now=0)
    state, _ = act(
        state,
        {"type": "damage", "damage": 12, "kind": "stun", "location": "torso"},
        {"stun_save": [1]},
        now=10,
    )
    state, _ = act(state, {"type": "treat", "skill": "medical_tech", "total": 15}, now=20)
    assert cp_view.view(state, "player")["recovery"] == [
        {"what": "stun damage (7 points, 1 per hour)", "ends_at": 10 + 7 * 3600},
        {"what": "minor wound stops counting", "ends_at": 86400},
        # The one point is the minor wound: it stops counting at 86400, before the treatment's first point at
        # 20 + 86400 (the forecast's date too, rules/cyberpunk2020/view.py `real_damage_healed_at`).
        {"what": "real damage (1 points)", "ends_at": 86400},
    ]


def test_treated_damage_ends_a_period_sooner_for_each_minor_wound_as_the_forecast_says() -> None:
    # Body 6 (BTM -2): a 3-point hit to the arm is a 1-point minor wound, 10 to the torso 8 points; medical tech
    # 18 heals a point a day from game second 30.
    state = character(body=6)
    state, _ = act(state, {"type": "damage", "damage": 3, "location": "left_arm"}, {"stun_save": [1]}, now=0)
    state, _ = act(state, {"type": "damage", "damage": 10, "location": "torso"}, {"stun_save": [1]}, now=10)
    state, _ = act(state, {"type": "treat", "skill": "medical_tech", "total": 18}, now=30)
    assert state["damage"] == 9 and len(state["minor_wounds"]) == 1
    assert state["healing_seconds_per_point"] == 86400
    # Nine points at a day each would end at 30 + 9 days; the minor wound stops counting at 1 day, before the first
    # point at 30 + 1 day, so eight periods are left: 30 + 8 days.
    ends = [
        item["ends_at"] for item in cp_view.view(state, "gm")["recovery"] if item["what"].startswith("real")
    ]
    assert ends == [30 + 8 * 86400]
    result = fc.forecast(RULESET, state, 30, player=False, runs=20, seed=1)
    damage = next(item for item in result.untreated.items if item.key == "damage")
    assert damage.when == fc.Spread(30 + 8 * 86400, 30 + 8 * 86400, 30 + 8 * 86400, 1.0)


def test_a_dead_character_shows_only_dead():
    state = character(body=2)
    state, _ = act(state, {"type": "damage", "damage": 41, "location": "torso"})
    view = cp_view.view(state, "player")
    assert (view["status"], view["warnings"], view["recovery"], view["cause_of_death"]) == (
        ["dead"],
        [],
        [],
        "wound track over 40",
    )
    assert view["sheet"]["wound_level"] == "dead"
    assert view["symptoms"] == []  # the status says "dead": nothing left to treat


def test_public_events_hide_notes_and_the_time_of_death():
    assert cp_view.public_event(Event("NoteAdded", {"text": "secret"}, 0)) is None
    event = Event("DeathSaveRolled", {"roll": 9, "target": 6, "outcome": "dying", "death_at": 30}, 0)
    assert cp_view.public_event(event) == {"roll": 9, "target": 6, "outcome": "dying"}
    assert event.data["death_at"] == 30


def test_evolve_never_mutates_its_input_and_ignores_unknown_events():
    state = character()
    before = json.dumps(state, sort_keys=True)
    after, _ = act(state, {"type": "damage", "damage": 5, "location": "torso"}, {"stun_save": [1]}, now=9)
    assert json.dumps(state, sort_keys=True) == before
    same = engine.evolve(after, Event("SomethingNew", {}, 12))
    assert {**same, "last_event_at": 9} == after
    assert same["last_event_at"] == 12


def test_the_limbs_are_said_in_the_bodys_order_whatever_order_the_stored_state_keeps():
    """PostgreSQL's jsonb gives a stored object's keys back shortest first (the left leg before the right arm),
    SQLite as they were written: a state read back from either reads the same."""
    state = character()
    for limb, mends_at in (("right_arm", 7200), ("left_leg", 3600)):
        state["locations"][limb].update(crippled=True, mends_at=mends_at)
    places = state["locations"]
    stored = {
        **state,
        "locations": {key: places[key] for key in sorted(places, key=lambda key: (len(key), key))},
    }
    assert list(stored["locations"])[2:4] == ["left_arm", "left_leg"]  # as jsonb keeps them
    assert cp_view.status_chips(stored) == ["right arm crippled (bones set)", "left leg crippled (bones set)"]
    assert cp_view.symptoms(stored) == cp_view.symptoms(state)
    assert [item["what"] for item in cp_view.recovery(stored, "gm", 0)] == [
        "the right arm's set bones mend",
        "the left leg's set bones mend",
    ]
    assert list(cp_view.sheet(stored)["locations"]) == list(cp_view.sheet(state)["locations"])
