"""Table dice (docs/rules/README.md, "Table dice": `table_dice`): the campaign option, and actions that ask the GM for
each die they need, one at a time, writing nothing until the last is given."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.models import Event
from tests.conftest import Persona, Table, make_persona, make_table


@pytest.fixture
def gm(db: None, django_user_model: Any) -> Persona:
    return make_persona(django_user_model, "gm")


def new_campaign(gm: Persona, ruleset: str, options: dict[str, Any]) -> Any:
    return gm.post("/api/campaigns/", {"name": "Table", "ruleset": ruleset, "options": options})


@pytest.mark.parametrize("ruleset", ["shadowrun2", "cyberpunk2020", "darkfuture"])
def test_the_server_rolls_unless_the_campaign_says_the_table_does(gm: Persona, ruleset: str) -> None:
    assert new_campaign(gm, ruleset, {}).json()["options"]["table_dice"] == "none"
    for value in ("none", "actions", "all"):
        answer = new_campaign(gm, ruleset, {"table_dice": value})
        assert answer.status_code == 201, answer.content
        assert answer.json()["options"]["table_dice"] == value


def test_an_unknown_table_dice_value_is_refused_naming_the_choices(gm: Persona) -> None:
    answer = new_campaign(gm, "shadowrun2", {"table_dice": "sometimes"})
    assert answer.status_code == 400
    assert answer.json() == {"options.table_dice": ["expected one of none, actions, all, got sometimes"]}


# --- actions ask, one roll at a time ------------------------------------------------------------------------------


def table_in(django_user_model: Any, ruleset: str, attributes: dict[str, Any], table_dice: str) -> Table:
    return make_table(django_user_model, ruleset, attributes, {"table_dice": table_dice})


def second_character(table: Table, attributes: dict[str, Any]) -> dict[str, Any]:
    answer = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/", {"name": "Bo", "attributes": attributes}
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


def asked_one_by_one(
    table: Table, body: dict[str, Any], dice: dict[str, list[int]], **headers: Any
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Send the action without dice; answer each 422 with the roll it names, until it is written. Returns what was
    asked, in order, and the final answer. Nothing may be written before the last roll is given."""
    asked: list[dict[str, Any]] = []
    given: dict[str, list[int]] = {}
    events, version = Event.objects.count(), table.character["version"]
    while True:
        answer = table.act({**body, "rolls": given}, **headers)
        if answer.status_code != 422:
            break
        assert Event.objects.count() == events
        assert table.gm.get(table.character_url()).json()["version"] == version
        need = answer.json()["needs_roll"]
        asked.append(need)
        given[need["name"]] = dice[need["name"]]
    assert answer.status_code == 201, answer.content
    return asked, answer.json()


def at_once(table: Table, who: dict[str, Any], body: dict[str, Any], dice: dict[str, list[int]]) -> Any:
    answer = table.gm.post(f"/api/characters/{who['id']}/actions/", {**body, "rolls": dice})
    assert answer.status_code == 201, answer.content
    return answer.json()


def outcomes(answer: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(event["type"], event["data"]) for event in answer["events"]]


WOUNDS = {
    # Body 5, Serious: 5 dice against 6, no success -> mortal; 3 + 4 = 7 chest; 4 diaphragm, "2d6 min": the
    # death-time pool (2 dice) is known only once location and critical are rolled.
    "shadowrun2": (
        {"body": 5},
        {"type": "wound", "severity": "S"},
        {"body_check": [1, 2, 3, 4, 5], "location": [3, 4], "critical": [4], "death_time": [2, 3]},
        [("body_check", 5), ("location", 2), ("critical", 1), ("death_time", 2)],
    ),
    # Body 6, Luck 2: 24 to the left leg (7), halved 12, BTM -2: 10 crippling -> sever (kept on 2 or more), stun
    # and death saves. (20 would be 8, kept whatever the d10: a certain roll, never asked.)
    "cyberpunk2020": (
        {"body": 6, "luck": 2},
        {"type": "damage", "damage": 24, "kind": "normal"},
        {"location": [7], "sever": [5], "stun_save": [3], "death_save": [4]},
        [("location", 1), ("sever", 1), ("stun_save", 1), ("death_save", 1)],
    ),
    # CON 8, a pedestrian: 6 + 8 = 14 -> 6 CON lost, 2 left: 01-25, KO then stun, then limb disablement.
    "darkfuture": (
        {"con": 8},
        {"type": "damage", "weapon_damage": 8},
        {"damage": [6], "ko": [1], "stun": [1], "limb_check": [4], "limb": [4], "side": [4]},
        [("damage", 1), ("ko", 1), ("stun", 1), ("limb_check", 1), ("limb", 1), ("side", 1)],
    ),
}


@pytest.mark.parametrize("ruleset", list(WOUNDS))
def test_a_wound_asks_each_roll_in_the_rules_order_and_ends_as_the_same_dice_given_at_once(
    db: None, django_user_model: Any, ruleset: str
) -> None:
    attributes, body, dice, order = WOUNDS[ruleset]
    table = table_in(django_user_model, ruleset, attributes, "actions")
    asked, answer = asked_one_by_one(table, body, dice)
    assert [(need["name"], need["count"]) for need in asked] == order
    assert all(need["sides"] in (6, 10) and need["label"] and need["why"] for need in asked)
    other = second_character(table, attributes)
    assert outcomes(answer) == outcomes(at_once(table, other, body, dice))


def test_the_body_check_is_asked_with_its_pool_target_and_what_it_decides(
    db: None, django_user_model: Any
) -> None:
    table = table_in(django_user_model, "shadowrun2", {"body": 4}, "actions")
    answer = table.act({"type": "wound", "severity": "D"})
    assert answer.status_code == 422
    assert answer.json() == {
        "needs_roll": {
            "name": "body_check",
            "count": 4,
            "sides": 6,
            "label": "Body check",
            "target": 10,
            "why": "whether the wound is a critical hit: successes 0 mortal, 1 crippling, 2 critical, 3 or more none",
            "reading": "each die whose total reaches 10 is a success, a 6 rolled again and added (6 then 4 is 10)",
            "open_ended": True,
            "success_test": True,
            "prompt": "Body check: roll 4d6, each die whose total reaches 10 is a success, a 6 rolled again and "
            "added (6 then 4 is 10)",
        }
    }


def test_a_cyberpunk_save_is_asked_with_its_target(db: None, django_user_model: Any) -> None:
    table = table_in(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, "actions")
    answer = table.act({"type": "damage", "damage": 10, "location": "torso", "rolls": {}})
    need = answer.json()["needs_roll"]
    assert (need["name"], need["target"], need["reading"]) == ("stun_save", 5, "succeeds on 5 or less")
    assert need["prompt"] == "Stun save: roll 1d10, succeeds on 5 or less"


def test_ask_false_lets_the_server_roll_what_the_gm_did_not_give(db: None, django_user_model: Any) -> None:
    table = table_in(django_user_model, "darkfuture", {"con": 8}, "actions")
    answer = table.act({"type": "damage", "weapon_damage": 8, "rolls": {"damage": [6]}, "ask": False})
    assert answer.status_code == 201, answer.content
    used = answer.json()["events"][0]["data"]["dice"]
    assert used["damage"] == [6] and {"ko", "limb_check"} <= set(used)


def test_ask_must_be_true_or_false(db: None, django_user_model: Any) -> None:
    table = table_in(django_user_model, "darkfuture", {"con": 8}, "actions")
    answer = table.act({"type": "damage", "weapon_damage": 8, "ask": "no"})
    assert (answer.status_code, answer.json()) == (400, {"ask": ["expected true or false, got the text no"]})


def test_a_roll_not_needed_is_ignored_if_it_could_be_right_and_refused_if_not(
    db: None, django_user_model: Any
) -> None:
    table = table_in(django_user_model, "darkfuture", {"con": 8}, "actions")
    wrong = table.act({"type": "damage", "weapon_damage": 0, "rolls": {"damage": [1], "ko": [7]}})
    assert (wrong.status_code, wrong.json()) == (
        400,
        {"rolls.ko": ["rolls.ko: expected 1 die of 1-6, got [7]"]},
    )
    assert table.gm.get(table.character_url()).json()["version"] == table.character["version"]
    near_miss = table.act({"type": "damage", "weapon_damage": 0, "rolls": {"damage": [1], "ko": [6]}})
    assert near_miss.status_code == 201
    assert near_miss.json()["events"][0]["data"]["dice"] == {"damage": [1]}


def test_the_idempotency_key_is_for_the_final_write(db: None, django_user_model: Any) -> None:
    table = table_in(django_user_model, "darkfuture", {"con": 8}, "actions")
    dice = WOUNDS["darkfuture"][2]
    _, first = asked_one_by_one(table, WOUNDS["darkfuture"][1], dice, HTTP_IDEMPOTENCY_KEY="k1")
    again = table.act({**WOUNDS["darkfuture"][1], "rolls": dice}, HTTP_IDEMPOTENCY_KEY="k1")
    assert again.status_code == 201 and again.json()["replayed"] is True
    assert outcomes(again.json()) == outcomes(first)


def test_without_table_dice_the_server_rolls_what_is_missing(db: None, django_user_model: Any) -> None:
    table = table_in(django_user_model, "darkfuture", {"con": 8}, "none")
    assert table.act({"type": "damage", "weapon_damage": 8}).status_code == 201


def test_the_rulesets_say_each_rolls_dice_and_how_a_pools_size_is_found(gm: Persona) -> None:
    rulesets = {item["slug"]: item for item in gm.get("/api/rulesets/").json()}
    wound = {roll["name"]: roll for roll in rulesets["shadowrun2"]["forms"]["wound"]["rolls"]}
    assert wound["location"] == {
        "name": "location",
        "count": 2,
        "sides": 6,
        "label": "Hit location",
        "help": "",
        "size": "",
        "open_ended": False,
    }
    assert (wound["body_check"]["count"], wound["body_check"]["open_ended"]) == (0, True)
    assert (
        wound["body_check"]["size"] == "Body, plus the combat pool given (option combat_pool_on_body_check)"
    )
    assert wound["death_time"]["size"].startswith("the Mortal entry's time expression (1d6 or 2d6)")
    assert [roll["name"] for roll in rulesets["shadowrun2"]["clock_rolls"]] == [
        "critical_healing",
        "physical_healing",
        "stun_recovery",
    ]
    assert [(r["name"], r["count"], r["sides"]) for r in rulesets["cyberpunk2020"]["clock_rolls"]] == [
        ("death_save", 1, 10),
        ("stun_save", 1, 10),
    ]
    assert rulesets["darkfuture"]["clock_rolls"] == []
    assert all("table_dice" in item["option_help"] for item in rulesets.values())


def test_the_answer_names_no_die_the_table_was_not_asked_for(db: None, django_user_model: Any) -> None:
    """A tester with table dice "all" typed only Mako's stun save (Body 10, 30 damage to the right leg) and read
    "sever check 18 against 11: kept" and "Death save: rolled 1 against 10, made": dice nobody rolled. Neither
    could fail, so neither was asked; the words say so."""
    table = table_in(django_user_model, "cyberpunk2020", {"body": 10, "luck": 0}, "all")
    hit = {
        "type": "damage",
        "damage": 30,
        "kind": "normal",
        "location": "right_leg",
        "rolls": {"stun_save": [4]},
    }
    answer = table.act(hit)
    assert answer.status_code == 201, answer.content
    assert answer.json()["said"] == (
        "30 normal damage to the right leg (SP 0, BTM -4): 8 points on the track. Right leg crippled (11 points); "
        "sever check: kept (it could not fail: 11 needed, Body 10 + Luck 0 make it whatever the d10). Stun save: "
        "rolled 4 against 9, made. Death save: made (it could not fail): survived."
    )
    # The server's dice without table dice, or dice typed, read as before: tests/rules/test_words.py.
