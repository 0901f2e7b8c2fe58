"""darkfuture through the HTTP API: each action's wiring with entered dice, every error, the player view and the
clock. The rule arithmetic of the worked examples lives in tests/rules/darkfuture (issue 15).

docs/rules/darkfuture.md (the Dark Future alternate CON damage system). The `df` fixture's character is the seed's
worked example: CON 8, driver 3, gunner 4, a pedestrian. Every die is entered: the server's dice are replaced by ones
that fail the test if the engine or the clock ever needs a roll that was not entered (`_entered_dice_only`), so
nothing here is random. The darkfuture clock rolls no dice at all (stun ends and CON comes back on fixed times), which
the same replacement proves for every clock test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from campaign import services
from campaign.ledger.projections import character_state_at, rebuild_campaign
from campaign.models import Campaign, Character, Event, Timer
from rules.darkfuture import engine, tables
from rules.dice import Dice
from rules.params import RuleError
from tests.conftest import ServerDice, Table, join
from tests.rules.darkfuture.helpers import ash_sheet as ash

pytestmark = pytest.mark.django_db

DAY = 86_400
WEEK = 7 * DAY
Capture = Callable[..., AbstractContextManager[Any]]


class _NoServerRolls:
    def randint(self, low: int, high: int) -> int:
        raise AssertionError("the server had to roll a die this test did not enter")


class EnteredDiceOnly(Dice):
    """The service's dice, except that a roll nobody entered fails the test instead of rolling."""

    def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
        super().__init__(entered, rng=_NoServerRolls(), ask=ask)


@pytest.fixture(autouse=True)
def _entered_dice_only(server_dice: ServerDice) -> None:
    server_dice(EnteredDiceOnly)


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """The personas' passwords are never checked here (tokens): a cheap hasher keeps each table fast to build."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# --- helpers -------------------------------------------------------------------------------------------------------


def add_character(df: Table, attributes: dict[str, Any], campaign_id: int | None = None) -> dict[str, Any]:
    response = df.gm.post(
        f"/api/campaigns/{campaign_id or df.campaign['id']}/characters/",
        {"name": "Brick", "player": "player", "attributes": attributes},
    )
    assert response.status_code == 201, response.content
    return response.json()


def add_campaign(df: Table, options: dict[str, Any]) -> int:
    response = df.gm.post("/api/campaigns/", {"name": "Options", "ruleset": "darkfuture", "options": options})
    assert response.status_code == 201, response.content
    join(df.gm, response.json()["id"], df.player, "player")
    return response.json()["id"]


def act(df: Table, body: dict[str, Any], character: dict[str, Any] | None = None) -> dict[str, Any]:
    """A GM action that must succeed; the answer's JSON."""
    character_id = (character or df.character)["id"]
    response = df.gm.post(f"/api/characters/{character_id}/actions/", body)
    assert response.status_code == 201, response.content
    return response.json()


def hit(
    df: Table, rolls: dict[str, Any], weapon_damage: int = 0, character: dict[str, Any] | None = None
) -> dict[str, Any]:
    return act(df, {"type": "damage", "weapon_damage": weapon_damage, "rolls": rolls}, character)


def lose(df: Table, con: int, character: dict[str, Any] | None = None, **rolls: Any) -> dict[str, Any]:
    """A hit that costs exactly `con` points (1-5) with weapon damage 0 and no armour; extra rolls as given."""
    damage = {1: 2, 2: 4, 3: 8, 4: 10, 5: 12}[con]
    weapon = max(0, damage - 6)
    return hit(df, {"damage": [damage - weapon], **rolls}, weapon, character)


def wound(answer: dict[str, Any]) -> dict[str, Any]:
    [event] = [e for e in answer["events"] if e["type"] == "WoundTaken"]
    return event["data"]


def gm_character(df: Table, character: dict[str, Any] | None = None) -> dict[str, Any]:
    return df.gm.get(f"/api/characters/{(character or df.character)['id']}/").json()


def tick(df: Table, capture: Capture, campaign_id: int | None = None, **advance: int) -> dict[str, Any]:
    """Advance the clock and run the job. The `db` fixture's transaction never commits, so the on-commit hook that
    starts the (eager, in-process) task is run by `django_capture_on_commit_callbacks` when the request returns."""
    with capture(execute=True):
        response = df.gm.post(
            f"/api/campaigns/{campaign_id or df.campaign['id']}/clock/", {"advance": advance}
        )
    assert response.status_code == 202, response.content
    job = df.gm.get(f"/api/jobs/{response.json()['job']}/").json()
    assert job["status"] == "done", job
    return job


def history(df: Table, character: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Oldest first (the API pages newest first)."""
    return df.gm.get(f"/api/characters/{(character or df.character)['id']}/events/").json()["events"][::-1]


# --- damage: the seed's worked example -----------------------------------------------------------------------------


def test_a_damage_action_records_its_entered_dice_and_answers_the_new_sheet(df: Table) -> None:
    """The seed's machine-gun hit (2 + 1: one CON) through HTTP; its arithmetic is in tests/rules/darkfuture. Rolls
    the wound does not need are ignored and not recorded."""
    rolls = {"damage": [2], "ko": [6], "stun": [6], "limb_check": [6], "limb": [6], "side": [6]}
    answer = hit(df, rolls, weapon_damage=1)
    assert [e["type"] for e in answer["events"]] == ["WoundTaken"]
    assert wound(answer)["dice"] == {"damage": [2]}
    assert answer["character"]["sheet"] == ash(7, "76+", 3, 4, "-0")
    assert answer["character"]["version"] == 1
    assert gm_character(df)["sheet"] == answer["character"]["sheet"]


# --- damage: the table ---------------------------------------------------------------------------------------------


# --- damage: stun, KO and limbs ------------------------------------------------------------------------------------


def test_zero_con_is_an_automatic_ko_that_leaves_the_vehicle_without_a_driver(df: Table) -> None:
    driver = add_character(df, {"con": 8, "driver": True, "skills": {"driver": 3}})
    answer = hit(df, {"damage": [6], "ko": [1], "stun": [6], "limb_check": [6]}, 12, driver)  # 18: 8 CON
    data = wound(answer)
    assert (data["con_after"], data["band_after"], data["automatic_ko"]) == (0, "0", True)
    assert data["wound_effects"] == ["automatic_ko"]
    assert (data["ko"], data["stun"], data["limb_check"]) == (None, None, None)
    assert data["vehicle_driverless_after"] is True
    character = answer["character"]
    assert character["conscious"] is False
    assert character["sheet"] == {
        "con": {"initial": 8, "current": 0},
        "band": "0",
        "skills": {"driver": {"base": 3, "current": 0}},
        "move": {"base": 0, "current": 0},
        "safety_limit_mph": None,
        "knocked_out": True,
        "stunned": False,
        "vehicle_driverless": True,
        "disabled_limbs": [],
        "skill_modifier": "-",
        "pedestrian": True,
        "driver": True,
        "armour": 0,
    }
    assert "the vehicle has no driver" in character["warnings"]


def test_below_zero_con_the_character_dies_in_the_same_action(df: Table) -> None:
    answer = hit(df, {"damage": [6]}, 12)  # 18: 8 CON, 0 left
    answer = hit(df, {"damage": [2]}, 0)
    assert [e["type"] for e in answer["events"]] == ["WoundTaken", "DeathOccurred"]
    assert answer["events"][1]["data"] == {"cause": "con", "con": -1}
    assert wound(answer)["wound_effects"] == ["dead"]
    character = answer["character"]
    assert (character["alive"], character["conscious"], character["dying"]) == (False, False, False)
    assert character["sheet"] == ash(-1, "dead", 0, 0, "-")
    assert character["status"] == ["dead"]
    assert character["timers"] == []


def test_a_driver_knocked_out_by_a_roll_leaves_the_vehicle_driverless(df: Table) -> None:
    driver = add_character(df, {"con": 8, "driver": True})
    answer = lose(df, 4, driver, ko=[6])
    assert wound(answer)["vehicle_driverless_after"] is True
    assert answer["character"]["sheet"]["vehicle_driverless"] is True
    assert answer["character"]["sheet"]["safety_limit_mph"] == 20
    assert answer["character"]["status"] == ["unconscious", "no driver"]


@pytest.mark.parametrize(("con", "warned"), [(1, True), (4, True), (5, False)])
def test_a_character_created_below_5_con_carries_a_warning(df: Table, con: int, warned: bool) -> None:
    brick = add_character(df, {"con": con})
    warning = f"this system is meant for 5 CON or more; this character started with {con} CON"
    assert (warning in brick["warnings"]) is warned
    player_view = df.player.get(f"/api/characters/{brick['id']}/").json()
    assert (warning in player_view["warnings"]) is warned


# --- recover, note, undo -------------------------------------------------------------------------------------------


def test_recover_wakes_a_driver_knocked_out_by_a_roll_and_the_vehicle_has_a_driver_again(df: Table) -> None:
    driver = add_character(df, {"con": 8, "driver": True})
    lose(df, 4, driver, ko=[4])
    answer = act(df, {"type": "recover", "knocked_out": True}, driver)
    [event] = answer["events"]
    assert event["type"] == "KnockOutEnded"
    assert event["data"] == {
        "ended_by": "recover",
        "still_out_at_zero_con": False,
        "vehicle_driverless_after": False,
    }
    sheet = answer["character"]["sheet"]
    assert (sheet["knocked_out"], sheet["vehicle_driverless"], sheet["con"]["current"]) == (False, False, 4)
    assert answer["character"]["conscious"] is True


def test_recover_can_wake_and_restore_in_one_action(df: Table) -> None:
    hit(df, {"damage": [6], "ko": [5], "limb_check": [4], "limb": [5], "side": [1]}, 8)
    answer = act(df, {"type": "recover", "knocked_out": True, "limbs": ["left_leg"]})
    assert [e["type"] for e in answer["events"]] == ["KnockOutEnded", "LimbsRestored"]
    assert answer["character"]["version"] == 3
    assert answer["character"]["sheet"] == ash(2, "01-25", 1, 1, "1/4")


def test_a_gm_note_is_kept_in_the_history_and_the_gm_view(df: Table) -> None:
    answer = act(df, {"type": "note", "text": "  the sniper is her brother  "})
    [event] = answer["events"]
    assert (event["type"], event["data"]) == ("NoteAdded", {"text": "the sniper is her brother"})
    assert answer["character"]["notes"] == [{"text": "the sniper is her brother", "game_time": 0}]
    assert answer["character"]["sheet"] == ash(8, "76+", 3, 4, "-0")
    assert [e["type"] for e in history(df)] == ["NoteAdded"]


def test_undo_takes_back_a_deadly_wound_with_its_death_and_keeps_both_voided(df: Table) -> None:
    lose(df, 5, ko=[1], stun=[1])
    hit(df, {"damage": [6]}, 12)  # 8 CON more: dead
    assert gm_character(df)["alive"] is False
    answer = act(df, {"type": "undo"})
    [event] = answer["events"]
    assert event["type"] == "ActionUndone"
    assert event["data"]["versions"] == [2, 3]
    assert event["data"]["types"] == ["WoundTaken", "DeathOccurred"]
    assert answer["character"]["alive"] is True
    assert answer["character"]["sheet"] == ash(3, "26-50", 2, 2, "1/2")
    assert [(e["type"], e["voided"]) for e in history(df)] == [
        ("WoundTaken", False),
        ("WoundTaken", True),
        ("DeathOccurred", True),
        ("ActionUndone", False),
    ]
    act(df, {"type": "undo"})
    assert gm_character(df)["sheet"] == ash(8, "76+", 3, 4, "-0")
    assert gm_character(df)["timers"] == []


# --- errors --------------------------------------------------------------------------------------------------------


LIMBS = engine.LIMBS_EXPECTED


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"type": "heal"},
            "type",
            "unknown action heal; expected one of: damage, recover, note, undo, revert",
        ),
        ({}, "type", "no action type given; expected one of: damage, recover, note, undo, revert"),
        (
            {"type": "damage", "range": 3},
            "range",
            "unknown field; expected one of type, weapon_damage",
        ),
        (
            {"type": "damage", "weapon_damage": -1},
            "weapon_damage",
            "expected a whole number of at least 0, got -1",
        ),
        (
            {"type": "damage", "weapon_damage": 1001},
            "weapon_damage",
            "expected a whole number of at most 1000, got 1001",
        ),
        (
            {"type": "damage", "weapon_damage": "3"},
            "weapon_damage",
            "expected a whole number, got the text 3",
        ),
        ({"type": "damage", "weapon_damage": True}, "weapon_damage", "expected a whole number, got true"),
        (
            {"type": "damage", "rolls": {"damage": [7]}},
            "rolls.damage",
            "rolls.damage: expected 1 die of 1-6, got [7]",
        ),
        (
            {"type": "damage", "rolls": {"damage": [0]}},
            "rolls.damage",
            "rolls.damage: expected 1 die of 1-6, got [0]",
        ),
        (
            {"type": "damage", "rolls": {"damage": [2, 3]}},
            "rolls.damage",
            "rolls.damage: expected 1 die of 1-6, got [2, 3]",
        ),
        (
            {"type": "damage", "rolls": {"damage": "six"}},
            "rolls.damage",
            "rolls.damage: expected a list of whole numbers, got the text six",
        ),
        (
            {"type": "damage", "weapon_damage": 1, "rolls": {"damage": [6], "stun": [7]}},
            "rolls.stun",
            "rolls.stun: expected 1 die of 1-6, got [7]",
        ),
        (
            {"type": "damage", "weapon_damage": 4, "rolls": {"damage": [6], "ko": [0]}},
            "rolls.ko",
            "rolls.ko: expected 1 die of 1-6, got [0]",
        ),
        ({"type": "damage", "rolls": [6]}, "rolls", "expected an object of named lists of dice, got list"),
        ({"type": "recover"}, "knocked_out", engine.NOTHING_TO_RECOVER),
        ({"type": "recover", "knocked_out": False, "limbs": []}, "knocked_out", engine.NOTHING_TO_RECOVER),
        (
            {"type": "recover", "knocked_out": "yes"},
            "knocked_out",
            "expected true or false, got the text yes",
        ),
        ({"type": "recover", "knocked_out": True}, "knocked_out", engine.NOT_KNOCKED_OUT),
        ({"type": "recover", "limbs": ["tail"]}, "limbs", f"{LIMBS}, got tail"),
        ({"type": "recover", "limbs": 5}, "limbs", f"{LIMBS}, got 5"),
        ({"type": "recover", "limbs": ["left_leg"]}, "limbs", "left_leg is not disabled"),
        (
            {"type": "recover", "limbs": ["left_leg", "left_leg"]},
            "limbs",
            "expected each limb once, got left_leg twice",
        ),
        (
            {"type": "recover", "knocked_out": True, "mood": "calm"},
            "mood",
            "unknown field; expected one of knocked_out, limbs, type",
        ),
        ({"type": "note"}, "text", "expected the note's text"),
        ({"type": "note", "text": "  "}, "text", "expected the note's text"),
        ({"type": "undo"}, "type", "there is nothing to undo on this character"),
    ],
)
def test_an_invalid_action_is_a_400_naming_the_field_and_writes_nothing(
    df: Table, body: dict[str, Any], field: str, message: str
) -> None:
    events, version = Event.objects.count(), gm_character(df)["version"]
    response = df.act(body)
    assert response.status_code == 400, response.content
    assert response.json() == {field: [message]}
    assert Event.objects.count() == events
    assert gm_character(df)["version"] == version


def assert_refused(df: Table, body: dict[str, Any], field: str, message: str, who: dict[str, Any]) -> None:
    events, version = Event.objects.count(), gm_character(df, who)["version"]
    response = df.gm.post(f"/api/characters/{who['id']}/actions/", body)
    assert response.status_code == 400, response.content
    assert response.json() == {field: [message]}
    assert Event.objects.count() == events
    assert gm_character(df, who)["version"] == version


def test_the_dead_take_no_more_damage_and_do_not_recover(df: Table) -> None:
    hit(df, {"damage": [6]}, 14)  # 20: 9 CON
    for body in (
        {"type": "damage", "rolls": {"damage": [6]}},
        {"type": "recover", "knocked_out": True},
        {"type": "recover", "limbs": ["left_leg"]},
    ):
        assert_refused(df, body, "type", "the character is dead", df.character)


def test_a_ko_at_0_con_is_not_ended_by_recover(df: Table) -> None:
    hit(df, {"damage": [6]}, 12)  # 8 CON: 0 left, automatic KO
    assert_refused(
        df,
        {"type": "recover", "knocked_out": True},
        "knocked_out",
        "a knock-out at 0 CON ends only when CON rises above 0",
        df.character,
    )


def test_restoring_a_limb_that_is_not_disabled_is_refused_even_beside_a_disabled_one(df: Table) -> None:
    hit(df, {"damage": [6], "ko": [1], "stun": [1], "limb_check": [4], "limb": [4], "side": [4]}, 8)
    assert_refused(
        df,
        {"type": "recover", "limbs": ["right_leg", "left_arm"]},
        "limbs",
        "left_arm is not disabled",
        df.character,
    )
    assert gm_character(df)["sheet"]["disabled_limbs"] == ["right_leg"]


def test_rolls_the_action_does_not_need_are_ignored_when_they_could_be_right(df: Table) -> None:
    answer = hit(df, {"damage": [2], "ko": [6], "stun": [1], "limb": [3]}, 0)
    assert wound(answer)["dice"] == {"damage": [2]}


@pytest.mark.parametrize(
    ("rolls", "field", "message"),
    [
        ({"ko": [9]}, "rolls.ko", "rolls.ko: expected 1 die of 1-6, got [9]"),
        ({"stun": [0]}, "rolls.stun", "rolls.stun: expected 1 die of 1-6, got [0]"),
        (
            {"limb": ["x"]},
            "rolls.limb",
            "rolls.limb: expected a list of whole numbers, got a list holding the text x",
        ),
        (
            {"unknown": [1]},
            "rolls.unknown",
            "rolls.unknown: unknown roll; expected one of damage, ko, stun, limb_check, limb, side",
        ),
    ],
)
def test_a_typo_in_a_roll_the_action_does_not_need_is_refused(
    df: Table, rolls: dict[str, Any], field: str, message: str
) -> None:
    body = {"type": "damage", "weapon_damage": 0, "rolls": {"damage": [2], **rolls}}
    assert_refused(df, body, field, message, df.character)


@pytest.mark.parametrize(
    ("attributes", "field", "message"),
    [
        ({}, "attributes.con", "this field is required: expected a whole number"),
        ({"con": 0}, "attributes.con", "expected a whole number of at least 1, got 0"),
        ({"con": 1001}, "attributes.con", "expected a whole number of at most 1000, got 1001"),
        ({"con": 8, "move": -1}, "attributes.move", "expected a whole number of at least 0, got -1"),
        ({"con": 8, "armour": "2"}, "attributes.armour", "expected a whole number, got the text 2"),
        ({"con": 8, "driver": "yes"}, "attributes.driver", "expected true or false, got the text yes"),
        ({"con": 8, "skills": []}, "attributes.skills", "expected an object, got list"),
        (
            {"con": 8, "skills": {" ": 3}},
            "attributes.skills",
            "expected skill names of 1-40 characters, got an empty text",
        ),
        (
            {"con": 8, "skills": {"driver": 101}},
            "attributes.skills.driver",
            "expected a whole number of at most 100, got 101",
        ),
        (
            {"con": 8, "body": 5},
            "attributes.body",
            "unknown field; expected one of armour, con, driver, move, pedestrian, skills",
        ),
    ],
)
def test_invalid_attributes_are_a_400_naming_the_field_and_write_nothing(
    df: Table, attributes: dict[str, Any], field: str, message: str
) -> None:
    events, characters = Event.objects.count(), Character.objects.count()
    response = df.gm.post(
        f"/api/campaigns/{df.campaign['id']}/characters/", {"name": "Brick", "attributes": attributes}
    )
    assert response.status_code == 400, response.content
    assert response.json() == {field: [message]}
    assert (Event.objects.count(), Character.objects.count()) == (events, characters)


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        (
            {"con_recovery_days": 0},
            "options.con_recovery_days",
            "expected a whole number of at least 1, got 0",
        ),
        ({"ko_pass_means_stun": 1}, "options.ko_pass_means_stun", "expected true or false, got 1"),
    ],
)
def test_invalid_options_are_a_400_naming_the_field_and_write_nothing(
    df: Table, options: dict[str, Any], field: str, message: str
) -> None:
    events, campaigns = Event.objects.count(), Campaign.objects.count()
    response = df.gm.post("/api/campaigns/", {"name": "X", "ruleset": "darkfuture", "options": options})
    assert response.status_code == 400, response.content
    assert response.json() == {field: [message]}
    assert (Event.objects.count(), Campaign.objects.count()) == (events, campaigns)


# --- the player's view ---------------------------------------------------------------------------------------------


def _text(response: Any) -> str:
    assert response.status_code == 200, response.content
    return json.dumps(response.json())


def test_the_player_never_receives_gm_notes_timers_or_actors(
    df: Table, django_capture_on_commit_callbacks: Capture
) -> None:
    lose(df, 3, stun=[5])  # stunned, resting: a stun timer and a CON recovery timer
    act(df, {"type": "note", "text": "Zebediah paid the sniper"})
    act(df, {"type": "note", "text": "Quillon will betray her"})
    act(df, {"type": "undo"})  # the undo of a note is as secret as the note
    tick(df, django_capture_on_commit_callbacks, seconds=1)
    campaign_id = df.campaign["id"]
    urls = (df.character_url(), f"{df.character_url()}events/", f"/api/campaigns/{campaign_id}/events/")
    secrets = (
        "Zebediah paid the sniper",
        "Quillon will betray her",
        "NoteAdded",
        '"timers"',
        "con_recovery",
        '"due_date"',
        '"notes"',
        '"death_at"',
        '"actor": "gm"',
        '"actor": "clock"',
    )
    gm_text = " ".join(_text(df.gm.get(url)) for url in urls)
    for secret in secrets:
        assert secret in gm_text, secret
    player_text = " ".join(_text(df.player.get(url)) for url in urls)
    for secret in secrets:
        assert secret not in player_text, secret
    # What is not secret reaches the player: the wound, its stun ending, the clock.
    assert "WoundTaken" in player_text and "StunEnded" in player_text and "ClockAdvanced" in player_text
    player = df.player.get(df.character_url()).json()
    assert player["sheet"] == ash(5, "51-75", 2, 3, "-1")
    assert df.player.get(f"{df.character_url()}?version=1").status_code == 403


def test_time_travel_shows_the_gm_the_character_after_any_event(df: Table) -> None:
    lose(df, 3, stun=[5])
    lose(df, 4, ko=[6], limb_check=[1])
    assert df.gm.get(f"{df.character_url()}?version=1").json()["sheet"] == ash(
        5, "51-75", 2, 3, "-1", stunned=True
    )
    assert df.gm.get(f"{df.character_url()}?version=0").json()["sheet"] == ash(8, "76+", 3, 4, "-0")
    assert gm_character(df)["sheet"] == ash(1, "01-25", 1, 1, "1/4", stunned=True, knocked_out=True)


# --- the clock -----------------------------------------------------------------------------------------------------


def test_con_comes_back_one_point_at_exactly_seven_days_of_rest(
    df: Table, django_capture_on_commit_callbacks: Capture
) -> None:
    lose(df, 2, stun=[1])  # 6 of 8 at game time 0
    assert [(t["kind"], t["due"]) for t in gm_character(df)["timers"]] == [("con_recovery", WEEK)]
    tick(df, django_capture_on_commit_callbacks, seconds=WEEK - 1)
    assert gm_character(df)["sheet"]["con"]["current"] == 6
    tick(df, django_capture_on_commit_callbacks, seconds=1)
    character = gm_character(df)
    assert character["sheet"] == ash(7, "76+", 3, 4, "-0")
    [event] = [e for e in history(df) if e["type"] == "ConRecovered"]
    assert event["game_time"] == WEEK
    assert event["actor"] == "clock"
    assert (event["data"]["con_before"], event["data"]["con_after"], event["data"]["band_after"]) == (
        6,
        7,
        "76+",
    )
    assert event["data"]["rest_days"] == 7
    assert [(t["kind"], t["due"]) for t in character["timers"]] == [("con_recovery", 2 * WEEK)]


def test_a_year_of_rest_brings_con_back_to_its_initial_value_and_never_above(
    df: Table, django_capture_on_commit_callbacks: Capture
) -> None:
    hit(df, {"damage": [6], "ko": [1], "stun": [1], "limb_check": [1]}, 8)  # 6 CON lost: 2 of 8
    job = tick(df, django_capture_on_commit_callbacks, days=365)
    assert job["timers_fired"] == 6
    recovered = [
        (e["game_time"], e["data"]["con_after"], e["data"]["band_after"])
        for e in history(df)
        if e["type"] == "ConRecovered"
    ]
    assert recovered == [
        (1 * WEEK, 3, "26-50"),
        (2 * WEEK, 4, "26-50"),
        (3 * WEEK, 5, "51-75"),
        (4 * WEEK, 6, "51-75"),
        (5 * WEEK, 7, "76+"),
        (6 * WEEK, 8, "76+"),
    ]
    character = gm_character(df)
    assert character["sheet"] == ash(8, "76+", 3, 4, "-0")
    assert character["timers"] == []
    assert character["game_time"] == 365 * DAY


def test_a_new_wound_restarts_the_rest(df: Table, django_capture_on_commit_callbacks: Capture) -> None:
    lose(df, 1)
    tick(df, django_capture_on_commit_callbacks, days=6)
    lose(df, 1, stun=[1])  # at day 6: 6 of 8, rest counted from now
    tick(df, django_capture_on_commit_callbacks, seconds=7 * DAY - 1)  # past day 7, just before day 13
    assert gm_character(df)["sheet"]["con"]["current"] == 6
    tick(df, django_capture_on_commit_callbacks, seconds=1)  # day 13: exactly 7 days after the second wound
    assert [e["game_time"] for e in history(df) if e["type"] == "ConRecovered"] == [13 * DAY]
    assert gm_character(df)["sheet"]["con"]["current"] == 7


def test_con_recovery_days_sets_the_period(df: Table, django_capture_on_commit_callbacks: Capture) -> None:
    campaign_id = add_campaign(df, {"con_recovery_days": 2})
    brick = add_character(df, {"con": 8}, campaign_id)
    lose(df, 2, brick, stun=[1])
    tick(df, django_capture_on_commit_callbacks, campaign_id, seconds=2 * DAY - 1)
    assert gm_character(df, brick)["sheet"]["con"]["current"] == 6
    tick(df, django_capture_on_commit_callbacks, campaign_id, seconds=1)
    assert gm_character(df, brick)["sheet"]["con"]["current"] == 7
    tick(df, django_capture_on_commit_callbacks, campaign_id, days=2)
    assert gm_character(df, brick)["sheet"]["con"]["current"] == 8


def test_stun_ends_at_the_next_clock_advance(df: Table, django_capture_on_commit_callbacks: Capture) -> None:
    lose(df, 3, stun=[6])
    assert gm_character(df)["sheet"]["stunned"] is True
    tick(df, django_capture_on_commit_callbacks, seconds=1)
    assert gm_character(df)["sheet"]["stunned"] is False
    [event] = [e for e in history(df) if e["type"] == "StunEnded"]
    assert event["game_time"] == 1
    assert [t["kind"] for t in gm_character(df)["timers"]] == ["con_recovery"]


def test_the_automatic_ko_at_0_con_ends_when_con_comes_back(
    df: Table, django_capture_on_commit_callbacks: Capture
) -> None:
    driver = add_character(df, {"con": 8, "driver": True, "skills": {"driver": 3}})
    hit(df, {"damage": [6]}, 12, driver)  # 8 CON: 0
    before = gm_character(df, driver)
    assert (before["conscious"], before["sheet"]["vehicle_driverless"]) == (False, True)
    tick(df, django_capture_on_commit_callbacks, seconds=WEEK - 1)
    assert gm_character(df, driver)["conscious"] is False
    tick(df, django_capture_on_commit_callbacks, seconds=1)
    after = gm_character(df, driver)
    assert after["conscious"] is True
    assert after["sheet"]["band"] == "01-25"
    assert after["sheet"]["vehicle_driverless"] is False
    assert after["sheet"]["safety_limit_mph"] == 20
    assert after["sheet"]["skills"] == {"driver": {"base": 3, "current": 1}}
    [event] = [e for e in history(df, driver) if e["type"] == "ConRecovered"]
    assert event["data"]["zero_con_ko_ended"] is True


def test_a_ko_from_a_roll_outlasts_con_recovery_until_recover(
    df: Table, django_capture_on_commit_callbacks: Capture
) -> None:
    lose(df, 4, ko=[4])
    tick(df, django_capture_on_commit_callbacks, weeks=10)
    character = gm_character(df)
    assert character["sheet"] == ash(8, "76+", 3, 4, "-0", knocked_out=True)
    assert character["conscious"] is False
    assert act(df, {"type": "recover", "knocked_out": True})["character"]["conscious"] is True


def test_a_disabled_leg_keeps_move_at_half_as_con_returns_until_it_is_restored(
    df: Table, django_capture_on_commit_callbacks: Capture
) -> None:
    brick = add_character(df, {"con": 8, "move": 8})
    hit(df, {"damage": [6], "ko": [1], "stun": [1], "limb_check": [4], "limb": [6], "side": [1]}, 8, brick)
    tick(df, django_capture_on_commit_callbacks, weeks=1)  # 3 of 8: 26-50, 3/4, but the leg halves
    sheet = gm_character(df, brick)["sheet"]
    assert (sheet["band"], sheet["move"], sheet["disabled_limbs"]) == (
        "26-50",
        {"base": 8, "current": 4},
        ["left_leg"],
    )
    answer = act(df, {"type": "recover", "limbs": ["left_leg"]}, brick)
    assert answer["character"]["sheet"]["move"] == {"base": 8, "current": 6}


def test_the_dead_stay_dead_and_get_no_con_back(
    df: Table, django_capture_on_commit_callbacks: Capture
) -> None:
    hit(df, {"damage": [6]}, 14)
    version = gm_character(df)["version"]
    job = tick(df, django_capture_on_commit_callbacks, days=365)
    assert job["timers_fired"] == 0
    character = gm_character(df)
    assert (character["alive"], character["version"], character["sheet"]["con"]["current"]) == (
        False,
        version,
        -1,
    )


# --- the property --------------------------------------------------------------------------------------------------

ROLL = st.lists(st.integers(1, 6), min_size=1, max_size=1)
ROLLS = st.fixed_dictionaries({name: ROLL for name in ("damage", "ko", "stun", "limb_check", "limb", "side")})


def _step(data: st.DataObject, character: Character) -> tuple[str, dict[str, Any] | int]:
    state = character.state
    choices = ["damage", "damage", "note", "advance"]
    if character.version:
        choices.append("undo")
    if state["alive"] and state["knocked_out_by_roll"]:
        choices += ["wake"] * 3
    if state["alive"] and state["disabled_limbs"]:
        choices += ["limbs"] * 3
    kind = data.draw(st.sampled_from(choices))
    if kind == "advance":
        return kind, data.draw(st.sampled_from([1, 3 * DAY, WEEK, 5 * WEEK]))
    if kind == "damage":
        return kind, {
            "type": "damage",
            "weapon_damage": data.draw(st.integers(0, 8)),
            "rolls": data.draw(ROLLS),
        }
    if kind == "note":
        return kind, {"type": "note", "text": "x"}
    if kind == "undo":
        return kind, {"type": "undo"}
    if kind == "wake":
        return kind, {"type": "recover", "knocked_out": True}
    limbs = data.draw(st.lists(st.sampled_from(state["disabled_limbs"]), min_size=1, unique=True))
    return kind, {"type": "recover", "limbs": limbs}


def _read_model(character: Character) -> tuple[Any, ...]:
    character.refresh_from_db()
    timers = sorted(
        Timer.objects.filter(character=character).values_list(
            "due", "priority", "kind", "key", "data", "per_round"
        )
    )
    return (
        character.state,
        character.version,
        character.alive,
        character.conscious,
        character.dying,
        character.death_at,
        timers,
    )


def _check_invariants(character: Character) -> None:
    character.refresh_from_db()
    state = character.state
    con, band = state["con"], state["band"]
    assert con["current"] <= con["initial"]
    assert band == engine.con_band(con["current"], con["initial"])
    assert state["alive"] is (con["current"] >= 0)
    assert (band == tables.BAND_DEAD) is (not state["alive"])
    for skill in state["skills"].values():
        assert skill["current"] == engine.reduced_skill(skill["base"], band)
    assert state["move"]["current"] == engine.current_move(
        state["move"]["base"], band, state["disabled_limbs"]
    )
    assert state["safety_limit_mph"] == engine.safety_limit_mph(band, state["attributes"]["driver"])
    rows = list(Event.objects.filter(stream=character.stream).order_by("version"))
    assert character.version == (rows[-1].version if rows else 0)
    assert character.state == character_state_at(character, rows)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.data(),
    con=st.integers(1, 14),
    driver=st.booleans(),
    pedestrian=st.booleans(),
    armour=st.integers(0, 2),
    ko_pass_means_stun=st.booleans(),
    con_recovery_days=st.sampled_from([1, 7]),
)
def test_any_sequence_of_actions_and_advances_keeps_the_invariants_and_the_projection(
    django_user_model: Any,
    data: st.DataObject,
    con: int,
    driver: bool,
    pedestrian: bool,
    armour: int,
    ko_pass_means_stun: bool,
    con_recovery_days: int,
) -> None:
    user, _ = django_user_model.objects.get_or_create(username="property-gm")
    campaign = services.campaign_create(
        user=user,
        name="Property",
        ruleset="darkfuture",
        options={"ko_pass_means_stun": ko_pass_means_stun, "con_recovery_days": con_recovery_days},
    )
    character = services.character_create(
        campaign=campaign,
        actor="gm",
        name="Ash",
        attributes={
            "con": con,
            "skills": {"driver": 3, "gunner": 12},
            "move": 7,
            "armour": armour,
            "pedestrian": pedestrian,
            "driver": driver,
        },
    )
    for _ in range(data.draw(st.integers(3, 15))):
        character.refresh_from_db()
        kind, step = _step(data, character)
        event(kind)
        if kind == "advance":
            assert isinstance(step, int)
            job = services.clock_advance_request(campaign=campaign, seconds=step, actor="gm")
            assert services.clock_run(job.pk).status == "done"
        else:
            try:
                services.character_act(character_id=character.pk, body=step, actor="gm")
            except RuleError as error:
                # The only refusals of the actions drawn here: the dead act no more, and an undo finds
                # nothing left when every action was already taken back.
                if kind == "undo":
                    assert error.message == services.NOTHING_TO_UNDO, error
                    rows = Event.objects.filter(stream=character.stream)
                    voided = {row.data["cause"] for row in rows if row.type == "ActionUndone"}
                    assert all(row.type == "ActionUndone" or row.cause in voided for row in rows)
                else:
                    assert error.message == engine.DEAD and not character.state["alive"], error
        _check_invariants(character)
    event("ended dead" if not character.state["alive"] else "ended alive")
    before = _read_model(character)
    rebuild_campaign(Campaign.objects.get(pk=campaign.pk))
    assert _read_model(character) == before


def test_the_property_helpers_see_a_broken_projection(df: Table) -> None:
    """The property can fail: a read model that differs from the replay of its events is caught."""
    lose(df, 2, stun=[1])
    character = Character.objects.get(pk=df.character["id"])
    _check_invariants(character)
    Character.objects.filter(pk=character.pk).update(state={**character.state, "stunned": True})
    with pytest.raises(AssertionError):
        _check_invariants(character)
