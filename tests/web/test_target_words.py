"""Issue 42's night at the table, in words: a target number is said as the one the dice are read against, with how
it was made when a house rule gave it (first aid "read 7 where the house rule makes it 8"); a d6 pool is never read
"each 10+"; a value sent back in an error is the game's words, never Python's quotes ("got 8", not "got '8'")."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.models import Event
from rules.darkfuture.engine import roll_limb_disablement
from rules.dice import Dice, RollNeeded, success_reading, target_words
from rules.text import given
from tests.conftest import make_table
from tests.web.conftest import Web, make_web

HTMX = {"HTTP_HX_REQUEST": "true"}
SERIOUS = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [4]}
FIRST_AID_WHY = "8 for Serious physical damage (house rule), -1 for the patient's Body 5"


def table(django_user_model: Any, options: dict[str, Any]) -> Web:
    web = make_web(make_table(django_user_model, "shadowrun2", {"body": 5}, options))
    wound = web.table.act({"type": "wound", "severity": "S", "rolls": SERIOUS, "ask": False})
    assert wound.status_code == 201, wound.content
    return web


def test_first_aids_prompt_says_the_target_used_and_that_a_house_rule_made_it(
    db: None, django_user_model: Any
) -> None:
    web = table(django_user_model, {"table_dice": "actions"})
    asked = web.table.act({"type": "first_aid", "medic": "Doc", "skill": 4})
    assert asked.status_code == 422
    need = asked.json()["needs_roll"]
    # The house rule's Serious TN is 8; the patient's Body 5 takes 1 off: the dice are read against 7.
    assert (need["target"], need["target_why"]) == (7, FIRST_AID_WHY)
    assert need["prompt"] == (
        f"First aid: roll 4d6; target 7: {FIRST_AID_WHY}; each die whose total reaches 7 is a success, a 6 rolled "
        "again and added (6 then 1 is 7)"
    )
    page = web.gm.post(
        f"/characters/{web.character_id}/act/first_aid/",
        {"key": "k-1", "p_medic": "Doc", "p_skill": "4"},
        **HTMX,
    ).content.decode()
    assert (
        "First aid: roll 4d6; target 7: 8 for Serious physical damage (house rule), -1 for the patient&#x27;s"
        in page
    )


def test_a_house_rule_changed_is_the_target_said_everywhere(db: None, django_user_model: Any) -> None:
    web = table(django_user_model, {"first_aid_tn": {"L": 4, "M": 6, "S": 9, "D": 10}})
    form = web.gm.get(f"/characters/{web.character_id}/forms/first_aid/", **HTMX).content.decode()
    why = "9 for Serious physical damage (house rule), -1 for the patient&#x27;s Body 5"
    assert f"Target now 8: {why}; +4 without a medkit, +4 when defaulting." in form
    done = web.table.act({"type": "first_aid", "medic": "Doc", "skill": 3, "rolls": {"first_aid": [8, 7, 1]}})
    assert done.status_code == 201, done.content
    assert done.json()["said"] == (
        "First aid by Doc: 1 success (TN 8; dice 8, 7, 1); physical 6 to 5 boxes. Target 8: 9 for Serious physical "
        "damage (house rule), -1 for the patient's Body 5. Dies in about 40 min unless treated (2053-01-01 "
        "00:40:00)."
    )
    (given_aid,) = Event.objects.filter(type="FirstAidGiven")
    assert (given_aid.data["target"], given_aid.data["successes"]) == (8, 1)


def test_a_treatment_says_its_house_rule(db: None, django_user_model: Any) -> None:
    web = table(django_user_model, {"table_dice": "actions"})
    diagnosed = web.table.act(
        {
            "type": "diagnose",
            "medic": "Doc",
            "skill": 4,
            "critical_hit": "ch1",
            "rolls": {"diagnosis": [5, 1, 1, 1]},
        }
    )
    assert diagnosed.status_code == 201, diagnosed.content
    asked = web.table.act(
        {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 3, "defaulting": True}
    )
    need = asked.json()["needs_roll"]
    assert (need["target"], need["target_why"]) == (12, "8 for a mortal hit (house rule), +4 for defaulting")
    form = web.gm.get(f"/characters/{web.character_id}/forms/treat/", **HTMX).content.decode()
    assert "Target: 8 for a mortal hit, 4 for a critical hit (house rule); +4 when defaulting." in form


@pytest.mark.parametrize(
    ("target", "reading"),
    [
        (4, "each die of 4 or more is a success"),
        (7, "each die whose total reaches 7 is a success, a 6 rolled again and added (6 then 1 is 7)"),
        (10, "each die whose total reaches 10 is a success, a 6 rolled again and added (6 then 4 is 10)"),
        (12, "each die whose total reaches 12 is a success, a 6 rolled again and added (6, 6 then 1 is 13)"),
        (14, "each die whose total reaches 14 is a success, a 6 rolled again and added (6, 6 then 2 is 14)"),
    ],
)
def test_a_d6_pool_is_read_by_what_its_dice_can_show(target: int, reading: str) -> None:
    assert success_reading(target) == reading


def test_a_target_says_the_house_rule_alone_or_with_what_moved_it() -> None:
    assert target_words(("a mortal hit", 8, True)) == "house rule for a mortal hit"
    assert target_words(("a mortal hit", 8, True), ("defaulting", 0)) == "house rule for a mortal hit"
    assert target_words(("diagnosing it", 2, False), ("assensing", -2), floor=2) == (
        "2 for diagnosing it, -2 for assensing, never below 2"
    )


@pytest.mark.parametrize(
    ("value", "said", "typed"),
    [
        ("8", "8", "the text 8"),
        (8, "8", "8"),
        (None, "nothing", "nothing"),
        ("  3   4 ", "3 4", "the text 3 4"),
        ("", "an empty text", "an empty text"),
        (["5"], "the list 5", "a list holding the text 5"),
        ({"left_leg": True}, "an object", "an object"),
        (True, "true", "true"),
        ("x" * 50, "x" * 37 + "...", "the text " + "x" * 37 + "..."),
    ],
)
def test_a_value_sent_back_is_said_in_words_never_as_python_writes_it(
    value: Any, said: str, typed: str
) -> None:
    assert (given(value), given(value, typed=True)) == (said, typed)


def test_a_2d6_typo_on_the_page_is_said_back_without_quotes(sr2_web: Web) -> None:
    refused = sr2_web.gm.post(
        f"/characters/{sr2_web.character_id}/act/wound/",
        {"key": "k-1", "p_severity": "S", "r_location": "8"},
        **HTMX,
    )
    assert refused.status_code == 400
    html = refused.content.decode()
    assert "Hit location: expected 2 dice of 1-6, separated by spaces or commas (e.g. 3 4), got 8</p>" in html
    assert "&#x27;8&#x27;" not in html


def test_a_cyberpunk_treatment_says_its_house_rule_and_what_the_d10_needs(
    db: None, django_user_model: Any
) -> None:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"table_dice": "actions"})
    hurt = {"type": "damage", "damage": 10, "location": "torso", "rolls": {"stun_save": [1]}}
    assert table.act(hurt).status_code == 201
    asked = table.act({"type": "treat", "skill": "first_aid", "tech": 6, "skill_level": 6})
    need = asked.json()["needs_roll"]
    assert (need["target"], need["target_why"]) == (
        3,
        "15 for a treatment (house rule), -6 for TECH 6, -6 for skill 6",
    )
    assert need["prompt"].startswith("Treatment d10: roll 1d10; target 3: 15 for a treatment (house rule)")


def test_dark_futures_limb_check_says_its_house_rule() -> None:
    with pytest.raises(RollNeeded) as asked:
        roll_limb_disablement({"limb_check_target": 4}, Dice(ask=True))
    assert asked.value.request.prompt == (
        "Limb disablement: roll 1d6; target 4: house rule for limb disablement; 5 or more disables a limb"
    )
