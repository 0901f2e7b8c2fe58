"""Hostile input on every POST of the web app: a 400 whose message names the field, and nothing written.

The API's side is tests/edge/test_hostile_input.py; this is the same bar for the pages, whose forms are parsed by
campaign/web/forms.py before the service is asked. (htmx posts answer 200 with the form and its errors, since
htmx swaps no 4xx: these tests post without htmx, as a browser without JavaScript does.)
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils.html import escape
from django.utils.text import capfirst

from campaign import services
from campaign.models import Campaign, Character, Event, Invitation, Job, Membership
from tests.edge.test_hostile_input import HIDDEN_IDS, HIDDEN_TEXTS, OVERRIDE, crippling_hit
from tests.web.conftest import Web, logged_in

NUL = "the text contains a NUL character (\\u0000), which cannot be stored"  # the API's words
HUGE_DIGITS = "9" * 5000  # more digits than Python converts to an int


def counts() -> list[int]:
    return [
        model.objects.count() for model in (get_user_model(), Campaign, Membership, Character, Job, Event)
    ]


def refused(response: Any, before: list[int], shown: str) -> None:
    """A 400 showing `shown` (the error element and its message, as the template renders it), nothing written."""
    html = response.content.decode()
    assert response.status_code == 400, html[:2000]
    assert shown in html, re.findall(r'<p class="error"[^>]*>.*?</p>', html, re.S)
    assert counts() == before


def field_error(element_id: str, message: str) -> str:
    """An error shown next to its field (web/field.html), whose id names the form and the field: the message as
    shown, or its beginning."""
    return f'id="{element_id}" role="alert">{escape(capfirst(message))}'


def form_error(message: str) -> str:
    """An error shown on top of its form, the message naming the field: the message as shown, or its beginning."""
    return f'<p class="error" role="alert">{escape(capfirst(message))}'


# --- action forms --------------------------------------------------------------------------------------------


def allocation(**amounts: str) -> dict[str, list[str]]:
    """The healing spell's allocation rows as the form posts them: each target's name and its amount."""
    return {"p_allocation_name": list(amounts), "p_allocation_amount": list(amounts.values())}


WOUND_INPUTS = (
    "ask, d_body_check, key, p_combat_pool, p_damage, p_open_wound, p_severity, quick, r_body_check,"
    " r_critical_0, r_death_time, r_location"
)
ACTION_CASES = [
    # text the database cannot store (PostgreSQL refuses a NUL: a 500 there, stored as is on SQLite)
    ("sr2_web", "note", {"p_text": "a\x00b"}, field_error("err-note-p_text", NUL)),
    ("sr2_web", "diagnose", {"p_medic": "D\x00c", "p_skill": "4"}, field_error("err-diagnose-p_medic", NUL)),
    (
        "cp2020_web",
        "stabilize",
        {"p_target": "dying\x00", "p_skill": "first_aid"},
        field_error("err-stabilize-p_target", NUL),
    ),
    (
        "sr2_web",
        "wound",
        {"p_severity": "S", "r_location": "3 \x00"},
        field_error("err-wound-location", NUL),
    ),
    # oversized text
    (
        "sr2_web",
        "note",
        {"p_text": "x" * 10_001},
        field_error("err-note-p_text", "expected at most 10000 characters, got 10001"),
    ),
    # wrong types, huge and negative numbers
    (
        "sr2_web",
        "wound",
        {"p_severity": "S", "p_combat_pool": "three"},
        form_error("Combat pool: expected a whole number, got three"),  # the option is off: no field
    ),
    (
        "sr2_web",
        "wound",
        {"p_severity": "S", "p_combat_pool": HUGE_DIGITS},
        form_error("Combat pool: expected a whole number, got 999"),
    ),
    (
        "sr2_web",
        "diagnose",
        {"p_medic": "Doc", "p_skill": "9" * 25},
        field_error("err-diagnose-p_skill", f"expected a whole number of at most 99, got {'9' * 25}"),
    ),
    (
        "sr2_web",
        "first_aid",
        {"p_medic": "Doc", "p_skill": "-3"},
        field_error("err-first_aid-p_skill", "expected a whole number of at least 1, got -3"),
    ),
    (
        "cp2020_web",
        "damage",
        {"p_damage": "-5"},
        field_error("err-damage-p_damage", "expected a whole number of at least 0, got -5"),
    ),
    (
        "sr2_web",
        "wound",
        {"p_severity": "S", "r_body_check": "1 1 six"},
        field_error("err-wound-body_check", "expected whole numbers, got six"),
    ),
    # a checkbox sends "on", "off" (shown, unticked) or nothing: anything else was read as unticked
    (
        "sr2_web",
        "wound",
        {"p_severity": "L", "p_open_wound": "yes"},
        field_error(
            "err-wound-p_open_wound",
            "expected the box ticked (on), left unticked (off) or not sent, got yes",
        ),
    ),
    # unknown choice values
    (
        "sr2_web",
        "wound",
        {"p_severity": "Z"},
        field_error(
            "err-wound-p_severity", "expected Light (L), Moderate (M), Serious (S) or Deadly (D), got Z"
        ),
    ),
    (
        "cp2020_web",
        "damage",
        {"p_damage": "5", "p_kind": "laser"},
        field_error("err-damage-p_kind", "expected normal, stun, blunt or explosion, got laser"),
    ),
    (
        "df_web",
        "recover",
        {"p_limbs": ["left_arm", "tail"]},
        field_error(
            "err-recover-p_limbs",
            "expected a list of limbs among left arm, right arm, left leg and right leg, got tail",
        ),
    ),
    (
        "sr2_web",
        "treat",
        {"p_critical_hit": "ch9", "p_medic": "Doc", "p_skill": "4"},
        field_error("err-treat-p_critical_hit", "no critical hit ch9 on this character"),
    ),
    # the healing spell's allocation, one row per target: a number too long to convert (a 500 when it was JSON),
    # not a number, a NUL in a target's name, rows of a name without an amount, the old JSON input
    (
        "sr2_web",
        "heal_magic",
        {"p_successes": "1", "p_mode": "allocate", **allocation(physical=HUGE_DIGITS)},
        field_error(
            "err-heal_magic-p_allocation", "Physical monitor: expected the successes as a whole number"
        ),
    ),
    (
        "sr2_web",
        "heal_magic",
        {"p_successes": "1", "p_mode": "allocate", **allocation(physical="three")},
        field_error(
            "err-heal_magic-p_allocation",
            "Physical monitor: expected the successes as a whole number, got three",
        ),
    ),
    (
        "sr2_web",
        "heal_magic",
        {"p_successes": "1", "p_mode": "allocate", **allocation(**{"ph\x00ysical": "1"})},
        field_error("err-heal_magic-p_allocation", NUL),
    ),
    (
        "sr2_web",
        "heal_magic",
        {"p_successes": "1", "p_mode": "allocate", "p_allocation_name": ["physical", "ch1"]},
        field_error(
            "err-heal_magic-p_allocation",
            "expected a name and an amount in every row, got 2 names and 0 amounts",
        ),
    ),
    (
        "sr2_web",
        "heal_magic",
        {"p_successes": "1", "p_mode": "allocate", "p_allocation": '{"physical": 1}'},
        form_error(
            "p_allocation: unknown field; expected one of key, p_allocation_amount, p_allocation_name"
        ),
    ),
    # a parameter the action's form does not have: dropped in silence, as the API once did (`open_wond`)
    (
        "sr2_web",
        "wound",
        {"p_severity": "L", "p_open_wond": "on"},
        form_error(f"p_open_wond: unknown field; expected one of {WOUND_INPUTS}"),
    ),
    (
        "sr2_web",
        "wound",
        {"p_severity": "L", "r_location_0": "3"},
        form_error("r_location_0: unknown field"),
    ),
    ("sr2_web", "note", {"p_text": "x", "type": "wound"}, form_error("type: unknown field")),
    (
        "sr2_web",
        "note",
        {"p_text": "x", "expected_version": "0"},
        form_error("expected_version: unknown"),
    ),
    (
        "sr2_web",
        "undo",
        {"p_text": "x"},
        form_error("p_text: unknown field; expected one of expected_version, key"),
    ),
    # the idempotency key: cut to 200 characters before, so two long keys could be taken for one
    (
        "sr2_web",
        "note",
        {"p_text": "x", "key": "k" * 201},
        form_error("key: expected at most 200 characters, got 201"),
    ),
    ("sr2_web", "note", {"p_text": "x", "key": "k\x00"}, form_error(f"key: {NUL}")),
]


@pytest.mark.parametrize(("fixture", "action", "data", "shown"), ACTION_CASES)
def test_a_bad_action_form_is_a_400_naming_the_field_and_records_nothing(
    request: pytest.FixtureRequest, fixture: str, action: str, data: dict[str, Any], shown: str
) -> None:
    web: Web = request.getfixturevalue(fixture)
    before = counts()
    refused(web.gm.post(f"/characters/{web.character_id}/act/{action}/", data), before, shown)


def test_undo_with_nothing_to_undo_is_a_400_and_records_nothing(sr2_web: Web) -> None:
    before = counts()
    response = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/act/undo/", {})
    refused(response, before, form_error("there is nothing to undo on this character"))


@pytest.mark.parametrize(
    ("fixture", "action"),
    [("sr2_web", "nope"), ("sr2_web", "damage"), ("cp2020_web", "wound"), ("df_web", "diagnose")],
)
def test_an_action_the_ruleset_does_not_have_is_a_404_and_records_nothing(
    request: pytest.FixtureRequest, fixture: str, action: str
) -> None:
    web: Web = request.getfixturevalue(fixture)
    before = counts()
    response = web.gm.post(f"/characters/{web.character_id}/act/{action}/", {"p_damage": "5", "p_text": "x"})
    assert response.status_code == 404
    assert counts() == before


def test_an_undo_posted_twice_with_its_key_takes_back_one_action(sr2_web: Web) -> None:
    for text in ("first", "second"):
        assert sr2_web.table.act({"type": "note", "text": text}).status_code == 201
    url = f"/characters/{sr2_web.character_id}/act/undo/"
    first = sr2_web.gm.post(url, {"key": "undo-1"})
    before = counts()
    again = sr2_web.gm.post(url, {"key": "undo-1"})
    assert first.status_code == again.status_code == 302
    assert counts() == before
    assert Event.objects.filter(type="ActionUndone").count() == 1
    assert (
        "Already recorded: Took back the latest entry: a GM note."
        in sr2_web.gm.get(again["Location"]).content.decode()
    )


def test_a_key_reused_for_another_action_is_a_409_and_records_nothing(sr2_web: Web) -> None:
    url = f"/characters/{sr2_web.character_id}/act/"
    assert sr2_web.gm.post(f"{url}note/", {"p_text": "x", "key": "form-1"}).status_code == 302
    before = counts()
    response = sr2_web.gm.post(f"{url}note/", {"p_text": "y", "key": "form-1"})
    assert response.status_code == 409
    message = "Idempotency-Key: this Idempotency-Key was already used for a different request"
    assert form_error(message) in response.content.decode()
    assert counts() == before


# --- who may post -------------------------------------------------------------------------------------------


def _posts(web: Web) -> list[tuple[str, dict[str, Any]]]:
    board = f"/campaigns/{web.campaign_id}/"
    act = f"/characters/{web.character_id}/act/"
    return [
        (f"{act}note/", {"p_text": "x"}),
        (f"{act}undo/", {}),
        (f"{act}wound/", {"p_severity": "L"}),
        (f"{board}clock/", {"unit": "hours", "amount": "1"}),
        (f"{board}members/", {"username": "stranger", "role": "gm"}),
        (f"{board}characters/", {"name": "Forged", "a_body": "4"}),
    ]


@pytest.mark.parametrize("who", ["player", "other_player", "stranger", "other_gm", "anonymous"])
def test_nobody_but_a_gm_of_the_campaign_writes_through_any_form(sr2_web: Web, who: str) -> None:
    """A player is refused (403); anyone outside the campaign, a GM of another one included, learns nothing of it
    (404); an anonymous visitor is sent to log in. (tests/web/test_player_secrets.py checks the player's and
    outsiders' status codes for some of these; this adds the rest and that nothing was written.)"""
    if who == "other_gm":
        stranger = sr2_web.table.stranger.user
        services.campaign_create(user=stranger, name="Their own", ruleset="shadowrun2")
        client, expected = logged_in(stranger), 404
    else:
        client = getattr(sr2_web, who)
        expected = {"player": 403, "anonymous": 302}.get(who, 404)
    for path, data in _posts(sr2_web):
        before = counts()
        response = client.post(path, data)
        assert response.status_code == expected, path
        if who == "anonymous":
            assert response["Location"].startswith("/login/")
        assert counts() == before, path


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/characters/{character}/act/undo/", {}),
        ("/characters/{character}/act/wound/", {"p_severity": "L"}),
        ("/logout/", {}),
    ],
)
def test_a_gm_form_without_the_csrf_token_is_refused(sr2_web: Web, path: str, data: dict[str, Any]) -> None:
    """tests/edge/test_security.py covers the board's forms, the note and the home page; these are the others."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(sr2_web.table.gm.user)
    before = counts()
    response = client.post(path.format(character=sr2_web.character_id), data)
    assert response.status_code == 403
    assert counts() == before
    assert client.get("/").status_code == 200  # still logged in


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "data"),
    [
        (
            "/signup/",
            {"username": "zed", "password": "a long pass phrase", "password2": "a long pass phrase"},
        ),
        ("/login/", {"username": "zed", "password": "a long pass phrase"}),
    ],
)
def test_signing_up_or_logging_in_without_the_csrf_token_is_refused(
    django_user_model: Any, path: str, data: dict[str, Any]
) -> None:
    if path == "/login/":
        django_user_model.objects.create_user(username="zed", password="a long pass phrase")
    client = Client(enforce_csrf_checks=True)
    before = counts()
    assert client.post(path, data).status_code == 403
    assert counts() == before
    assert "_auth_user_id" not in client.session


# --- the board's forms --------------------------------------------------------------------------------------

BOARD_CASES = [
    # the clock: the message names the field by its label, as the API's answer names it (`advance.hours`)
    (
        "clock/",
        {"unit": "hours", "amount": "one"},
        "Amount: expected a whole number above 0, got one",
    ),
    ("clock/", {"unit": "hours", "amount": "-1"}, "Amount: expected a whole number above 0, got -1"),
    (
        "clock/",
        {"unit": "hours", "amount": "9" * 30},
        "Amount: expected at most 100 years in one advance",
    ),
    ("clock/", {"unit": "fortnights", "amount": "1"}, "Unit: unknown unit fortnights; expected one of"),
    ("clock/", {"amount": "1"}, "Unit: no unit chosen; expected one of"),
    ("clock/", {"unit": "hours\x00", "amount": "1"}, f"Unit: {NUL}"),
    (
        "clock/",
        {"unit": "hours", "amount": "1", "amont": "2"},
        "Amont: unknown field; expected one of amount, custom, key, stop_on, unit",
    ),
    # members
    ("members/", {"username": "stranger", "role": "admin"}, "expected one of gm, player, got admin"),
    ("members/", {"username": "stranger"}, "expected one of gm, player, got nothing"),
    ("members/", {"role": "player"}, "expected a user name"),
    ("members/", {"username": "stra\x00nger", "role": "player"}, NUL),
    ("members/", {"username": "stranger", "role": "gm", "rol": "player"}, "rol: unknown field"),
    # characters
    ("characters/", {"name": "Zed"}, "this field is required: expected a whole number"),
    ("characters/", {"name": "Zed", "a_body": "four"}, "expected a whole number, got four"),
    ("characters/", {"name": "Zed", "a_body": "-4"}, "expected a whole number of at least 1, got -4"),
    ("characters/", {"name": "Zed", "a_body": HUGE_DIGITS}, "expected a whole number, got"),
    ("characters/", {"name": "Z" * 201, "a_body": "4"}, "expected at most 200 characters, got 201"),
    ("characters/", {"name": "Z\x00d", "a_body": "4"}, NUL),
    ("characters/", {"name": "Zed", "a_body": "4", "player": "nobody"}, "there is no user named nobody"),
    # the API's `palyer`: a character with no player at all
    (
        "characters/",
        {"name": "Zed", "a_body": "4", "palyer": "player"},
        "palyer: unknown field; expected one of",
    ),
    ("characters/", {"name": "Zed", "a_body": "4", "a_wilpower": "2"}, "a_wilpower: unknown field"),
]


@pytest.mark.parametrize(("path", "data", "message"), BOARD_CASES)
def test_a_bad_board_form_is_a_400_naming_the_field_and_writes_nothing(
    sr2_web: Web, path: str, data: dict[str, Any], message: str
) -> None:
    before = counts()
    shown = message if path == "clock/" else capfirst(message)  # the clock's error leads with its field
    refused(sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/{path}", data), before, escape(shown))


def skills(*rows: tuple[str, str]) -> dict[str, list[str]]:
    """Skill rows as the character form posts them: each row's name and level."""
    return {"a_skills_name": [name for name, _ in rows], "a_skills_amount": [level for _, level in rows]}


DF_CHARACTER_CASES = [
    # an error inside an attribute landed on no field (a 400 with no message at all); now on its row's name
    (
        skills(("driver", "500")),
        field_error("err-ch-a_skills", "driver: expected a whole number of at most 100, got 500"),
    ),
    (skills(("dri\x00ver", "3")), field_error("err-ch-a_skills", NUL)),  # stored before
    (
        skills(("driver", HUGE_DIGITS)),  # a 500 before, as JSON
        field_error("err-ch-a_skills", "row 1 (driver): expected the level as a whole number, got 999"),
    ),
    (
        skills(("driver", "3"), ("gunner", "three")),
        field_error("err-ch-a_skills", "row 2 (gunner): expected the level as a whole number, got three"),
    ),
    (
        skills(("", ""), ("", "4")),
        field_error("err-ch-a_skills", "row 2: expected the skill for the level 4"),
    ),
    (
        skills(("driver", "")),
        field_error("err-ch-a_skills", "row 1 (driver): expected the level as a whole number"),
    ),
    (
        skills(("driver", "3"), ("", ""), ("driver", "4")),
        field_error("err-ch-a_skills", "row 3 (driver): driver is already in row 1"),
    ),
    (
        {"a_skills_name": ["driver"]},
        field_error(
            "err-ch-a_skills", "expected a name and an amount in every row, got 1 name and 0 amounts"
        ),
    ),
    ({"a_skills": '{"driver": 3}'}, form_error("a_skills: unknown field; expected one of")),
    (
        {"a_pedestrian": "no"},
        field_error(
            "err-ch-a_pedestrian", "expected the box ticked (on), left unticked (off) or not sent, got no"
        ),
    ),
]


@pytest.mark.parametrize(("data", "shown"), DF_CHARACTER_CASES)
def test_a_bad_attribute_is_a_400_on_its_field_and_writes_nothing(
    df_web: Web, data: dict[str, Any], shown: str
) -> None:
    before = counts()
    response = df_web.gm.post(
        f"/campaigns/{df_web.campaign_id}/characters/", {"name": "Zed", "a_con": "6", **data}
    )
    refused(response, before, shown)


def test_a_member_invited_twice_is_one_invitation(sr2_web: Web) -> None:
    url = f"/campaigns/{sr2_web.campaign_id}/members/"
    before = Membership.objects.count(), Invitation.objects.count()
    for _ in range(2):
        assert sr2_web.gm.post(url, {"username": "stranger", "role": "player"}).status_code == 302
    assert (Membership.objects.count(), Invitation.objects.count()) == (before[0], before[1] + 1)


# --- starting a campaign, signing up, logging in ---------------------------------------------------------------

HOME_CASES = [
    ({"ruleset": "shadowrun2"}, 'id="err-c-name">Expected the campaign&#x27;s name (a non-empty text)'),
    ({"name": "X", "ruleset": "dnd"}, 'id="err-c-ruleset">Unknown ruleset dnd; expected one of'),
    (
        {"name": "X" * 201, "ruleset": "shadowrun2"},
        'id="err-c-name">Expected at most 200 characters, got 201',
    ),
    ({"name": "X\x00", "ruleset": "shadowrun2"}, f'id="err-c-name">{escape(capfirst(NUL))}'),  # stored before
    # The house rules are inputs of their own, drawn from the options' declarations (campaign/web/option_forms.py):
    # each error shows on its option, in its words.
    (
        {"name": "X", "ruleset": "shadowrun2", "o_time_scale": "-1"},
        'id="err-c-time_scale">Expected game seconds per real second',
    ),
    (
        {"name": "X", "ruleset": "shadowrun2", "o_time_scale": "fast"},
        'id="err-c-time_scale">Expected a number',
    ),
    (
        {"name": "X", "ruleset": "shadowrun2", "o_time_scale": HUGE_DIGITS},
        'id="err-c-time_scale">Expected game seconds per real second',
    ),  # a number too big for a float is no crash
    (
        {"name": "X", "ruleset": "shadowrun2", "o_deadly_overflow_minutes": HUGE_DIGITS},
        'id="err-c-deadly_overflow_minutes">Expected a whole number',
    ),
    (
        {"name": "X", "ruleset": "shadowrun2", "o_first_aid_tn__D": "x"},
        'id="err-c-first_aid_tn">Deadly, TN: expected a whole number',
    ),
    (
        {"name": "X", "ruleset": "shadowrun2", "o_first_aid_tn__D": "40"},
        'id="err-c-first_aid_tn">Deadly, TN: expected a whole number of at most 30, got 40',
    ),
    (
        {
            "name": "X",
            "ruleset": "shadowrun2",
            "o_treatment_table__mortal__base_seconds": "90",
            "o_treatment_table__mortal__base_seconds__unit": "fortnights",
        },
        'id="err-c-treatment_table">Mortal, Base time: expected a unit among minutes, hours, days',
    ),
    (
        {"name": "X", "ruleset": "shadowrun2", "o_body_check_tn": "hard"},
        'id="err-c-body_check_tn">Expected one of standard, gentle',
    ),
    (
        {"name": "X", "ruleset": "shadowrun2", "o_critical_category": "yes"},
        'id="err-c-critical_category">Expected the box ticked (on) or not sent',
    ),
    (
        {"name": "X", "ruleset": "shadowrun2", "o_start": "2053-01-01T00:00:00\x00"},
        f'id="err-c-start">{escape(capfirst(NUL))}',
    ),
    (
        {"name": "X", "ruleset": "shadowrun2", "o_start": "yesterday"},
        'id="err-c-start">Expected a game date and time such as 2053-03-14 22:00:00, got yesterday',
    ),
    (
        {"name": "X", "ruleset": "shadowrun2", "o_start": "2053-01-01T00:00:00+02:00"},
        'id="err-c-start">Expected a game date and time without a time zone',
    ),
    # a misspelt option: a campaign with the house defaults instead of the option given
    (
        {"name": "X", "ruleset": "shadowrun2", "o_time_scal": "60"},
        form_error("o_time_scal: unknown field; expected one of key, name, o_body_check_tn"),
    ),
]


@pytest.mark.parametrize(("data", "shown"), HOME_CASES)
def test_a_bad_new_campaign_is_a_400_naming_the_field_and_writes_nothing(
    sr2_web: Web, data: dict[str, Any], shown: str
) -> None:
    before = counts()
    refused(sr2_web.gm.post("/", data), before, shown)


PASSWORD = "a long pass phrase"
SIGNUP_CASES = [
    ({"password": PASSWORD, "password2": PASSWORD}, 'id="err-username">Expected a user name'),
    ({"username": "zed", "password2": PASSWORD}, 'id="err-password">Expected a password'),
    (
        {"username": "zed", "password": PASSWORD},
        'id="err-password2">Expected the password again',
    ),  # signed up before: a missing password2 was taken to be the password
    (
        {"username": "zed", "password": PASSWORD, "password2": "other"},
        'id="err-password2">The two passwords differ',
    ),
    (
        {"username": "z" * 151, "password": PASSWORD, "password2": PASSWORD},
        'id="err-username">Ensure this value has at most 150 characters',
    ),
    ({"username": "z\x00d", "password": PASSWORD, "password2": PASSWORD}, 'id="err-username">'),
    # the log-in form refuses a NUL in a password: an account no one could ever log in to
    (
        {"username": "zed", "password": f"{PASSWORD}\x00", "password2": f"{PASSWORD}\x00"},
        f'id="err-password">{escape(capfirst(NUL))}',
    ),
    (
        {"username": "zed", "password": PASSWORD, "password2": PASSWORD, "is_staff": "on"},
        form_error("is_staff: unknown field; expected one of password, password2, username"),
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("data", "shown"), SIGNUP_CASES)
def test_a_bad_sign_up_is_a_400_naming_the_field_and_creates_no_account(
    data: dict[str, Any], shown: str
) -> None:
    client = Client()
    before = counts()
    refused(client.post("/signup/", data), before, shown)
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "shown"),
    [
        ({"password": "x"}, 'id="err-username">This field is required.'),
        ({"username": "gm"}, 'id="err-password">This field is required.'),
        ({"username": "g\x00m", "password": "x"}, 'id="err-username">Null characters are not allowed.'),
        ({"username": "gm", "password": "wrong"}, "Please enter a correct username and password."),
    ],
)
def test_a_bad_log_in_is_a_400_showing_why(django_user_model: Any, data: dict[str, Any], shown: str) -> None:
    """Django's log-in page answered 200 and showed only the errors not tied to a field: a post without a user
    name or password showed nothing at all."""
    cache.clear()
    django_user_model.objects.create_user(username="gm", password="correct horse battery")
    client = Client()
    response = client.post("/login/", data)
    assert response.status_code == 400
    assert shown in response.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_log_in_without_a_password_does_not_wipe_the_failures_counted(django_user_model: Any) -> None:
    """Django's form authenticates only when both fields are given, so such a post passed `clean` and reset the
    counter: with one in every five tries, guessing was never throttled."""
    cache.clear()
    django_user_model.objects.create_user(username="yara", password="correct horse battery")
    client = Client()
    for _ in range(4):
        assert client.post("/login/", {"username": "yara", "password": "wrong"}).status_code == 400
    assert client.post("/login/", {"username": "yara"}).status_code == 400
    assert client.post("/login/", {"username": "yara", "password": "wrong again"}).status_code == 400
    refused = client.post("/login/", {"username": "yara", "password": "correct horse battery"})
    assert refused.status_code == 429 and "too many failed log-ins" in refused.content.decode()
    assert "_auth_user_id" not in client.session


# --- forms that write carry an idempotency key ---------------------------------------------------------------


def _hidden_inputs(html: str, marker: str) -> dict[str, str]:
    """The hidden inputs of the first form whose opening tag or hidden inputs contain `marker`, less the CSRF
    token (a test client needs none)."""
    for form in re.findall(r"<form\b.*?</form>", html, re.S):
        if marker in form:
            hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
            hidden.pop("csrfmiddlewaretoken", None)
            return hidden
    raise AssertionError(f"no form with {marker!r}")


@pytest.mark.parametrize("form", ["campaign", "character", "clock"])
def test_a_double_submitted_form_writes_once(sr2_web: Web, form: str) -> None:
    board = f"/campaigns/{sr2_web.campaign_id}/"
    if form == "campaign":
        url, page, marker, data = "/", "/", 'action="/"', {"name": "Twice", "ruleset": "shadowrun2"}
    elif form == "character":
        url, page, marker, data = (
            f"{board}characters/",
            board,
            "characters/",
            {"name": "Twice", "a_body": "4"},
        )
    else:
        url, page, marker, data = f"{board}clock/", board, 'value="hours"', {}
    posted = {**_hidden_inputs(sr2_web.gm.get(page).content.decode(), marker), **data}
    before = counts()
    for _ in range(2):
        assert sr2_web.gm.post(url, posted).status_code == 302
    written = [after - then for after, then in zip(counts(), before, strict=True)]
    assert (
        written
        == {
            "campaign": [0, 1, 1, 0, 0, 1],
            "character": [0, 0, 0, 1, 0, 1],
            "clock": [0, 0, 0, 0, 1, 1],
        }[form]
    )


def test_each_rendering_of_a_clock_button_has_its_own_key_so_a_second_click_advances_again(
    sr2_web: Web,
) -> None:
    """A key belongs to one rendering: after the board answers, the same button is a new request."""
    board = f"/campaigns/{sr2_web.campaign_id}/"
    for times in (1, 2):
        posted = _hidden_inputs(sr2_web.gm.get(board).content.decode(), 'value="hours"')
        assert sr2_web.gm.post(f"{board}clock/", posted).status_code == 302
        assert Campaign.objects.get(pk=sr2_web.campaign_id).game_time == times * 3600
    keys = {_hidden_inputs(sr2_web.gm.get(board).content.decode(), 'value="hours"')["key"] for _ in range(2)}
    assert len(keys) == 2


def test_the_members_form_shows_why_the_last_gm_stays_a_gm(sr2_web: Web) -> None:
    board = f"/campaigns/{sr2_web.campaign_id}/"
    assert sr2_web.gm.post(f"{board}members/", {"username": "gm2", "role": "player"}).status_code == 302
    before = counts()
    response = sr2_web.gm.post(f"{board}members/", {"username": "gm", "role": "player"})
    refused(response, before, "The user gm is the campaign&#x27;s only GM: make someone else a GM first")
    assert Membership.objects.get(campaign_id=sr2_web.campaign_id, user__username="gm").role == "gm"


def test_a_bad_key_on_the_new_campaign_form_is_shown_on_the_form_not_on_the_name(sr2_web: Web) -> None:
    before = counts()
    response = sr2_web.gm.post("/", {"name": "X", "ruleset": "shadowrun2", "key": "k" * 201})
    refused(response, before, form_error("key: expected at most 200 characters, got 201"))
    assert 'id="err-c-name"' not in response.content.decode()


def test_pages_whose_forms_carry_keys_are_never_stored_but_the_live_region_keeps_its_etag(
    sr2_web: Web,
) -> None:
    """Brought back from the browser's cache by the back button, a page's used keys would turn a new advance into
    a repeat, answered as done while nothing was."""
    board = f"/campaigns/{sr2_web.campaign_id}/"
    character = f"/characters/{sr2_web.character_id}/"
    for page in ("/", board, character, f"{character}?form=note"):
        assert "no-store" in sr2_web.gm.get(page)["Cache-Control"], page
    form = sr2_web.gm.get(f"{character}forms/note/", HTTP_HX_REQUEST="true")
    assert "no-store" in form["Cache-Control"]
    live = sr2_web.gm.get(character, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="live", HTTP_HX_TRIGGER="live")
    assert (live["Cache-Control"], live.has_header("ETag")) == ("no-cache, private", True)


# --- text that people read (rules/text.py): the API's words and texts (tests/edge/test_hostile_input.py) ------------

# (web fixture, where to post, the form with T where the text goes, the element showing the error, the text as
# the message calls it)
READ_FORMS = [
    (
        "",
        "/signup/",
        {"username": "T", "password": PASSWORD, "password2": PASSWORD},
        "err-username",
        "a user name",
    ),
    ("sr2_web", "/", {"name": "T", "ruleset": "shadowrun2"}, "err-c-name", "a name"),
    ("sr2_web", "characters/", {"name": "T", "a_body": "4"}, "err-ch-name", "a name"),
    (
        "df_web",
        "characters/",
        {"name": "Zed", "a_con": "8", "a_skills_name": "T", "a_skills_amount": "3"},
        "err-ch-a_skills",
        "a skill name",
    ),
    ("sr2_web", "note", {"p_text": "T"}, "err-note-p_text", "a note"),
    ("sr2_web", "diagnose", {"p_medic": "T", "p_skill": "4"}, "err-diagnose-p_medic", "a name"),
    ("sr2_web", "first_aid", {"p_medic": "T", "p_skill": "4"}, "err-first_aid-p_medic", "a name"),
    (
        "sr2_web hit",
        "treat",
        {"p_critical_hit": "ch1", "p_medic": "T", "p_skill": "4"},
        "err-treat-p_medic",
        "a name",
    ),
    (
        "sr2_web hit",
        "replace",
        {"p_critical_hit": "ch1", "p_replacement": "T"},
        "err-replace-p_replacement",
        "a replacement",
    ),
    (
        "cp2020_web",
        "stabilize",
        {"p_target": "dying", "p_medic": "T", "p_skill": "medical_tech"},
        "err-stabilize-p_medic",
        "a name",
    ),
    ("cp2020_web", "treat", {"p_medic": "T", "p_skill": "medical_tech"}, "err-treat-p_medic", "a name"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("text", "message"), HIDDEN_TEXTS, ids=HIDDEN_IDS)
@pytest.mark.parametrize(
    ("fixture", "path", "data", "element", "what"),
    READ_FORMS,
    ids=[f"{(form[0] or 'anonymous').split('_')[0]} {form[3]}" for form in READ_FORMS],
)
def test_a_name_or_note_that_hides_or_reorders_text_is_a_400_on_its_field(
    request: pytest.FixtureRequest,
    fixture: str,
    path: str,
    data: dict[str, Any],
    element: str,
    what: str,
    text: str,
    message: Any,
) -> None:
    posted = {name: value.replace("T", text) if "T" in value else value for name, value in data.items()}
    if not fixture:
        client = Client()
    else:
        web: Web = request.getfixturevalue(fixture.split()[0])
        client = web.gm
        if fixture.endswith("hit"):
            crippling_hit(web.table)
        if path.endswith("/") and path != "/":
            path = f"/campaigns/{web.campaign_id}/{path}"
        elif path != "/":
            path = f"/characters/{web.character_id}/act/{path}/"
    before = counts()
    response = client.post(path, posted)
    refused(response, before, f'id="{element}"')
    html = response.content.decode()
    shown = re.search(rf'id="{element}"[^>]*>(.*?)</p>', html, re.S)
    assert shown is not None and shown.group(1) == escape(capfirst(message(what)))
    assert "\u202e" not in html  # the form shows the text back without the override
    if text == OVERRIDE:
        assert "Ashgnp.exe" in html
