"""The view for the GM and the player, warnings, and what players see of the history."""

import json

import pytest

from rules.darkfuture import RULESET
from rules.registry import get_ruleset
from rules.ruleset import NOTE_ADDED, Event

from .helpers import DAY, character, hit

SHEET_KEYS = {
    "con",
    "band",
    "skills",
    "move",
    "safety_limit_mph",
    "knocked_out",
    "stunned",
    "vehicle_driverless",
    "disabled_limbs",
}


def test_a_fresh_character_view():
    view = RULESET.view(character(con=8, skills={"driver": 3}, move=5), "gm")
    assert view == {
        "alive": True,
        "conscious": True,
        "dying": False,
        "death_at": None,
        "sheet": {
            "con": {"initial": 8, "current": 8},
            "band": "76+",
            "skills": {"driver": {"base": 3, "current": 3}},
            "move": {"base": 5, "current": 5},
            "safety_limit_mph": None,
            "knocked_out": False,
            "stunned": False,
            "vehicle_driverless": False,
            "disabled_limbs": [],
            "skill_modifier": "-0",
            "pedestrian": True,
            "driver": False,
            "armour": 0,
        },
        "status": [],
        "symptoms": [],
        "warnings": [],
        "recovery": [],
    }


def test_the_sheet_has_every_design_key():
    assert set(RULESET.view(character(), "player")["sheet"]) >= SHEET_KEYS


def test_a_character_created_with_con_below_5_carries_a_clear_warning():
    view = RULESET.view(character(con=4), "player")
    assert view["warnings"] == ["this system is meant for 5 CON or more; this character started with 4 CON"]


def test_a_character_created_with_5_con_has_no_warning():
    assert RULESET.view(character(con=5), "player")["warnings"] == []


def test_a_badly_hurt_stunned_character_with_a_disabled_limb():
    state, _ = hit(
        character(con=8, move=6),
        {"damage": [5], "ko": [1], "stun": [6], "limb_check": [6], "limb": [1], "side": [6]},
        weapon_damage=10,
        now=50,
    )
    view = RULESET.view(state, "player")
    assert view["status"] == ["stunned", "right arm disabled"]
    assert view["symptoms"] == [
        "Gravely hurt: skills at a quarter, moving at half pace.",
        "Stunned.",
        "Right arm disabled.",
    ]
    assert view["recovery"] == [
        {"what": "stun wears off", "ends_at": 51, "at_next_advance": True},
        {"what": "CON 3 of 8", "ends_at": 50 + 7 * DAY},
        {"what": "CON back to 8", "ends_at": 50 + 6 * 7 * DAY},
        {"what": "right arm disabled: until the GM restores it", "ends_at": None},
    ]


def test_a_knocked_out_driver_shows_unconscious_and_no_driver():
    state, _ = hit(character(con=8, driver=True, pedestrian=False), {"damage": [6], "stun": [1]})  # 6 of 8
    state, _ = hit(state, {"damage": [6], "ko": [6]})  # 4 of 8: 26-50, KO roll 6
    view = RULESET.view(state, "gm")
    assert view["conscious"] is False
    assert view["status"] == ["unconscious", "no driver"]
    assert view["warnings"] == ["the vehicle has no driver"]
    assert "Knocked out." in view["symptoms"]
    assert {"what": "knocked out: until the GM says they come round", "ends_at": None} in view["recovery"]


def test_0_con_reads_as_out_cold_from_the_wounds():
    state, _ = hit(character(con=2), {"damage": [4]})
    view = RULESET.view(state, "player")
    assert view["status"] == ["unconscious"]
    assert view["symptoms"] == ["Out cold from the wounds: no CON left."]
    assert view["sheet"]["band"] == "0"


def test_the_dead_view():
    state, _ = hit(character(con=1), {"damage": [6]}, weapon_damage=4)
    view = RULESET.view(state, "player")
    assert (view["alive"], view["conscious"], view["dying"], view["death_at"]) == (False, False, False, None)
    assert view["status"] == ["dead"]
    assert view["symptoms"] == []  # the status says "dead": nothing left to treat
    assert view["recovery"] == []
    assert view["sheet"]["band"] == "dead"


def test_players_see_their_wounds_but_not_gm_notes_in_the_history():
    _, [wound] = hit(character(con=8), {"damage": [2]}, weapon_damage=1)
    assert RULESET.public_event(wound) == wound.data
    assert RULESET.public_event(Event(NOTE_ADDED, {"text": "secretly a clone"}, 0)) is None


def test_the_view_and_state_are_plain_json():
    state, _ = hit(character(con=8, move=6), {"damage": [6], "ko": [1], "stun": [6]}, weapon_damage=4)
    assert json.loads(json.dumps(state)) == state
    view = RULESET.view(state, "gm")
    assert json.loads(json.dumps(view)) == view


@pytest.mark.parametrize(
    ("rolls", "symptom"),
    [
        ({"damage": [4], "stun": [1]}, "Hurt: every skill is one lower."),  # 6 of 8
        ({"damage": [6], "ko": [1], "stun": [1]}, "Badly hurt: skills at half, moving at three quarters."),
    ],
)
def test_the_symptom_of_each_hurt_band(rolls, symptom):
    weapon_damage = 4 if "ko" in rolls else 0
    state, _ = hit(character(con=8), rolls, weapon_damage=weapon_damage)
    assert RULESET.view(state, "player")["symptoms"] == [symptom]


def test_the_ruleset_is_registered_under_its_slug():
    assert get_ruleset("darkfuture") is RULESET


def _said_to_gm_and_player(events):
    wound = events[0]
    public = RULESET.public_event(wound)
    return RULESET.describe(wound), RULESET.describe(Event(wound.type, public, wound.game_time))


def test_a_wound_in_the_01_25_band_says_its_ko_stun_and_limb_rolls():
    """The tester's Road Ganger: CON 7 to 2 (01-25%, decided by the CON after the wound) rolled for KO, then stun,
    then limb disablement; the words said none of it. The GM and the player (who sees all of a wound) read each."""
    state = character(con=7)
    state, events = hit(state, {"damage": [6], "ko": [2], "stun": [5], "limb_check": [3]}, weapon_damage=6)
    gm, player = _said_to_gm_and_player(events)
    expected = (
        "Damage roll 6 + weapon 6 - armour 0 = 12 (row 12-13): 5 CON points lost; CON 7 to 2, 01-25% of CON."
        " KO roll 2: stays up; stun roll 5: stunned; limb check 3: no limb disabled."
    )
    assert gm == expected
    assert player == expected


def test_a_knock_out_makes_no_stun_roll_and_a_disabled_limb_names_its_rolls():
    state = character(con=7)
    rolls = {"damage": [6], "ko": [5], "limb_check": [4], "limb": [5], "side": [2]}
    state, events = hit(state, rolls, weapon_damage=6)
    gm, _ = _said_to_gm_and_player(events)
    assert gm.endswith(
        "CON 7 to 2, 01-25% of CON. KO roll 5: knocked out; limb check 4: left leg disabled (limb roll 5, side roll 2)."
    )


def test_a_stun_roll_alone_in_the_51_75_band_says_its_outcome():
    state = character(con=8)
    state, events = hit(state, {"damage": [4], "stun": [1]}, weapon_damage=2)
    gm, _ = _said_to_gm_and_player(events)
    assert gm.endswith("CON 8 to 6, 51-75% of CON. Stun roll 1: not stunned.")
