"""cyberpunk2020's house actions `set_bones` and `replace_limb` through the HTTP API (docs/rules/cyberpunk2020.md,
issue 19): set bones mend on the game clock after `bone_mend_weeks`, a failed setting waits a game day, a severed limb
is replaced, and the player sees all of it. Every die is entered (the strict dice of tests/api/test_cyberpunk2020.py);
the clock rolls none here. The refusals are in that file's ERRORS table."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.test_cyberpunk2020 import (
    STABILIZED_LEG,
    StrictDice,
    act,
    advance,
    data_of,
    fetch,
    history,
    types,
    with_character,
)
from tests.conftest import ServerDice, Table
from tests.rules.cyberpunk2020.helpers import SEVER_RIGHT_ARM

pytestmark = pytest.mark.django_db

WEEK = 7 * 86_400
SET_LEFT_LEG = {"type": "set_bones", "limb": "left_leg", "medic": "Doc", "tech": 6, "skill_level": 5}


@pytest.fixture(autouse=True)
def _no_server_rolls(server_dice: ServerDice) -> None:
    server_dice(StrictDice)


def left_leg(character: dict[str, Any]) -> dict[str, Any]:
    return character["sheet"]["locations"]["left_leg"]


def test_a_bone_set_on_a_crippled_limb_mends_after_six_game_weeks_on_the_clock(
    cp2020: Table, django_capture_on_commit_callbacks: Any
) -> None:
    for step in STABILIZED_LEG:  # crippled at game second 0, stabilized with first aid
        act(cp2020, step)
    done = act(cp2020, {**SET_LEFT_LEG, "rolls": {"set_bones": [4]}})  # 6 + 5 + 4 = 15: difficulty 15
    assert types(done) == ["BonesSet"]
    assert data_of(done, "BonesSet") == {
        "limb": "left_leg",
        "medic": "Doc",
        "total": 15,
        "tech": 6,
        "skill_level": 5,
        "roll": 4,
        "difficulty": 15,
        "success": True,
        "mend_weeks": 6,
        "mends_at": 6 * WEEK,
        "dice": {"set_bones": [4]},
    }
    assert left_leg(done["character"]) == {
        "crippled": True,
        "severed": False,
        "stabilized": True,
        "mends_at": 6 * WEEK,
    }
    assert [(t["kind"], t["due"]) for t in done["character"]["timers"]] == [("bone_mend", 6 * WEEK)]
    assert "Left leg crippled (bones set): unusable until they mend." in done["character"]["symptoms"]
    # One second short of six weeks: still crippled.
    advance(cp2020, django_capture_on_commit_callbacks, seconds=6 * WEEK - 1)
    assert left_leg(fetch(cp2020))["crippled"] is True
    advance(cp2020, django_capture_on_commit_callbacks, seconds=1)
    character = fetch(cp2020)
    assert left_leg(character) == {"crippled": False, "severed": False, "stabilized": False}
    assert character["timers"] == []
    assert "crippled" not in character["status"]
    mended = [(e["type"], e["game_time"], e["data"]) for e in history(cp2020) if e["type"] == "BonesMended"]
    assert mended == [("BonesMended", 6 * WEEK, {"limb": "left_leg"})]
    # The points stay on the track: setting bones heals nothing.
    assert character["sheet"]["damage"] == 8


def test_the_campaigns_bone_mend_weeks_sets_the_time_to_mend(cp2020: Table) -> None:
    table = with_character(cp2020, {"body": 6, "luck": 2}, options={"bone_mend_weeks": 2})
    assert table.campaign["options"]["bone_mend_weeks"] == 2
    for step in STABILIZED_LEG:
        act(table, step)
    done = act(table, {**SET_LEFT_LEG, "total": 18})
    assert data_of(done, "BonesSet")["mends_at"] == 2 * WEEK
    refused = cp2020.gm.post(
        "/api/campaigns/", {"name": "x", "ruleset": "cyberpunk2020", "options": {"bone_mend_weeks": -1}}
    )
    assert refused.status_code == 400
    assert refused.json() == {"options.bone_mend_weeks": ["expected a whole number of at least 0, got -1"]}


def test_a_failed_bone_setting_may_be_tried_again_only_a_game_day_later(
    cp2020: Table, django_capture_on_commit_callbacks: Any
) -> None:
    for step in STABILIZED_LEG:
        act(cp2020, step)
    failed = act(cp2020, {**SET_LEFT_LEG, "rolls": {"set_bones": [3]}})  # 14 < 15
    assert types(failed) == ["BoneSettingFailed"]
    assert data_of(failed, "BoneSettingFailed")["total"] == 14
    assert failed["character"]["timers"] == []  # a failure schedules nothing
    advance(cp2020, django_capture_on_commit_callbacks, seconds=86_400 - 60)
    too_soon = cp2020.act({**SET_LEFT_LEG, "rolls": {"set_bones": [9]}})
    assert too_soon.status_code == 400
    assert too_soon.json() == {
        "limb": [
            "a failed bone setting may be tried again one game day after it failed: in 1 min of game time"
        ]
    }
    advance(cp2020, django_capture_on_commit_callbacks, seconds=60)
    done = act(cp2020, {**SET_LEFT_LEG, "rolls": {"set_bones": [9]}})
    assert types(done) == ["BonesSet"]
    assert data_of(done, "BonesSet")["mends_at"] == 86_400 + 6 * WEEK


def test_a_severed_limb_replaced_is_usable_at_once_and_its_points_stay_on_the_track(cp2020: Table) -> None:
    severed = act(cp2020, SEVER_RIGHT_ARM)
    damage = severed["character"]["sheet"]["damage"]
    assert severed["character"]["sheet"]["locations"]["right_arm"]["severed"] is True
    assert "death_save" in [t["kind"] for t in severed["character"]["timers"]]
    replaced = act(cp2020, {"type": "replace_limb", "limb": "right_arm", "replacement": "  cyberarm  "})
    assert types(replaced) == ["LimbReplaced"]
    assert data_of(replaced, "LimbReplaced") == {
        "limb": "right_arm",
        "replacement": "cyberarm",
        "was": "severed",
    }
    character = replaced["character"]
    assert character["sheet"]["locations"]["right_arm"] == {
        "crippled": False,
        "severed": False,
        "stabilized": False,
        "replacement": "cyberarm",
    }
    assert character["sheet"]["damage"] == damage
    assert character["timers"] == []  # no longer crippled: no more every-turn death saves
    assert "severed" not in character["status"] and "crippled" not in character["status"]
    assert "Right arm replaced: cyberarm." in character["symptoms"]
    # The new arm can be hit like any other.
    hit = act(cp2020, {"type": "damage", "damage": 6, "location": "right_arm", "rolls": {"stun_save": [1]}})
    assert types(hit)[0] == "DamageTaken"


def test_a_crippled_limb_may_be_replaced_instead_of_set(cp2020: Table) -> None:
    for step in STABILIZED_LEG:
        act(cp2020, step)
    act(cp2020, {**SET_LEFT_LEG, "total": 15})
    replaced = act(cp2020, {"type": "replace_limb", "limb": "left_leg", "replacement": "clone leg"})
    assert data_of(replaced, "LimbReplaced")["was"] == "crippled"
    assert left_leg(replaced["character"]) == {
        "crippled": False,
        "severed": False,
        "stabilized": False,
        "replacement": "clone leg",
    }
    assert replaced["character"]["timers"] == []  # the mending no longer waits


def test_the_player_sees_bones_set_and_a_limb_replaced(cp2020: Table) -> None:
    for step in STABILIZED_LEG:
        act(cp2020, step)
    act(cp2020, {**SET_LEFT_LEG, "rolls": {"set_bones": [3]}})
    act(cp2020, SEVER_RIGHT_ARM)
    act(cp2020, {"type": "replace_limb", "limb": "right_arm", "replacement": "cyberarm"})
    mine = cp2020.player.get(cp2020.character_url())
    assert mine.status_code == 200
    character = mine.json()
    assert "timers" not in character
    assert character["sheet"]["locations"]["right_arm"]["replacement"] == "cyberarm"
    assert "Right arm replaced: cyberarm." in character["symptoms"]
    events = cp2020.player.get(f"{cp2020.character_url()}events/").json()["events"][::-1]
    seen = [e["type"] for e in events]
    assert "BoneSettingFailed" in seen and "LimbReplaced" in seen
    replaced = next(e for e in events if e["type"] == "LimbReplaced")
    assert replaced["data"] == {"limb": "right_arm", "replacement": "cyberarm", "was": "severed"}


def test_bones_set_show_the_player_when_the_limb_mends(cp2020: Table) -> None:
    for step in STABILIZED_LEG:
        act(cp2020, step)
    act(cp2020, {**SET_LEFT_LEG, "total": 16})
    character = cp2020.player.get(cp2020.character_url()).json()
    assert left_leg(character)["mends_at"] == 6 * WEEK
    mending = [item for item in character["recovery"] if item["what"] == "the left leg's set bones mend"]
    assert mending == [
        {
            "what": "the left leg's set bones mend",
            "ends_at": 6 * WEEK,
            "ends_at_date": "2020-02-12T00:00:00",
            "why": None,
        }
    ]
