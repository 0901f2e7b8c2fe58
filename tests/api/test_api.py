"""The HTTP API contract: sign-up, tokens, campaigns, members, characters, actions, history, feed, time travel."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.test import override_settings

from campaign.models import Campaign, Character, Event, Membership
from campaign.services import actions as service_actions
from rules import params
from tests.conftest import Table, join

pytestmark = pytest.mark.django_db


def _event_count() -> int:
    return Event.objects.count()


# --- sign-up and tokens ------------------------------------------------------------------------------------------


def test_a_newcomer_signs_up_and_gets_a_token(client: Any) -> None:
    response = client.post(
        "/api/users/", {"username": "mira", "password": "a long passphrase"}, content_type="application/json"
    )
    assert response.status_code == 201
    assert response.json()["username"] == "mira"
    token = client.post(
        "/api/auth/token/",
        {"username": "mira", "password": "a long passphrase"},
        content_type="application/json",
    )
    assert token.status_code == 200
    assert len(token.json()["token"]) == 40


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"password": "a long passphrase"}, "username"),
        ({"username": "mira"}, "password"),
        ({"username": "mira", "password": "123"}, "password"),
        ({"username": "bad name!", "password": "a long passphrase"}, "username"),
        ({"username": 5, "password": "a long passphrase"}, "username"),
    ],
)
def test_a_bad_sign_up_names_the_field(client: Any, body: dict[str, Any], field: str) -> None:
    response = client.post("/api/users/", body, content_type="application/json")
    assert response.status_code == 400
    assert list(response.json()) == [field]


def test_a_taken_user_name_is_refused(client: Any, django_user_model: Any) -> None:
    django_user_model.objects.create_user(username="mira", password="x")
    response = client.post(
        "/api/users/", {"username": "mira", "password": "a long passphrase"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {"username": ["A user with that username already exists."]}


@override_settings(ALLOW_SIGNUP=False)
def test_sign_up_can_be_closed(client: Any) -> None:
    response = client.post(
        "/api/users/", {"username": "mira", "password": "a long passphrase"}, content_type="application/json"
    )
    assert response.status_code == 403


def test_a_wrong_password_gets_no_token(client: Any, django_user_model: Any) -> None:
    django_user_model.objects.create_user(username="mira", password="right one here")
    response = client.post(
        "/api/auth/token/", {"username": "mira", "password": "wrong"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {"password": ["user name and password do not match"]}


# --- campaigns -----------------------------------------------------------------------------------------------------


def test_a_campaign_gets_its_options_with_defaults_filled(sr2: Table) -> None:
    campaign = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/").json()
    assert campaign["ruleset"] == "shadowrun2"
    assert campaign["role"] == "gm"
    assert campaign["game_time"] == 0
    assert campaign["game_date"] == "2053-01-01T00:00:00"
    assert campaign["options"]["body_check_tn"] == "standard"
    assert campaign["options"]["time_scale"] == 0
    assert campaign["options"]["start"] == "2053-01-01T00:00:00"


def test_an_unknown_ruleset_is_refused_with_the_valid_ones(sr2: Table) -> None:
    before = Campaign.objects.count()
    response = sr2.gm.post("/api/campaigns/", {"name": "X", "ruleset": "dnd5e"})
    assert response.status_code == 400
    assert response.json() == {
        "ruleset": ["unknown ruleset dnd5e; expected one of: cyberpunk2020, darkfuture, shadowrun2"]
    }
    assert Campaign.objects.count() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ruleset": "shadowrun2"}, "name"),
        ({"name": "", "ruleset": "shadowrun2"}, "name"),
        ({"name": "X"}, "ruleset"),
        ({"name": "X", "ruleset": "shadowrun2", "options": []}, "options"),
        (
            {"name": "X", "ruleset": "shadowrun2", "options": {"body_check_tn": "harsh"}},
            "options.body_check_tn",
        ),
        ({"name": "X", "ruleset": "shadowrun2", "options": {"nonsense": 1}}, "options.nonsense"),
        ({"name": "X", "ruleset": "shadowrun2", "options": {"start": "yesterday"}}, "options.start"),
        ({"name": "X", "ruleset": "shadowrun2", "options": {"time_scale": -1}}, "options.time_scale"),
        (
            {"name": "X", "ruleset": "cyberpunk2020", "options": {"hit_location_model": "d12"}},
            "options.hit_location_model",
        ),
        (
            {"name": "X", "ruleset": "darkfuture", "options": {"ko_pass_means_stun": "yes"}},
            "options.ko_pass_means_stun",
        ),
    ],
)
def test_bad_campaign_input_names_the_field_and_writes_nothing(
    sr2: Table, body: dict[str, Any], field: str
) -> None:
    before = (Campaign.objects.count(), _event_count())
    response = sr2.gm.post("/api/campaigns/", body)
    assert response.status_code == 400, response.content
    assert list(response.json()) == [field]
    assert (Campaign.objects.count(), _event_count()) == before


def test_a_campaign_start_date_sets_the_game_date(sr2: Table) -> None:
    response = sr2.gm.post(
        "/api/campaigns/",
        {"name": "X", "ruleset": "cyberpunk2020", "options": {"start": "2020-06-01T18:30:00"}},
    )
    assert response.json()["game_date"] == "2020-06-01T18:30:00"


def test_the_campaign_list_shows_only_ones_own_campaigns(sr2: Table) -> None:
    assert [c["name"] for c in sr2.gm.get("/api/campaigns/").json()] == ["Seattle 2053", "Elsewhere"]
    assert [c["name"] for c in sr2.player.get("/api/campaigns/").json()] == ["Seattle 2053"]
    assert [c["role"] for c in sr2.player.get("/api/campaigns/").json()] == ["player"]
    assert sr2.stranger.get("/api/campaigns/").json() == []


# --- members and characters ----------------------------------------------------------------------------------------


def test_a_campaign_can_have_several_gms(sr2: Table) -> None:
    response = sr2.gm2.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/", {"name": "Brick", "attributes": {"body": 6}}
    )
    assert response.status_code == 201
    assert (
        sr2.gm2.post(
            f"/api/characters/{response.json()['id']}/actions/", {"type": "note", "text": "hi"}
        ).status_code
        == 201
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "nobody", "role": "player"}, "username"),
        ({"username": "stranger", "role": "admin"}, "role"),
        ({"role": "player"}, "username"),
    ],
)
def test_bad_member_input_names_the_field(sr2: Table, body: dict[str, Any], field: str) -> None:
    before = Membership.objects.count()
    response = sr2.gm.post(f"/api/campaigns/{sr2.campaign['id']}/members/", body)
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert Membership.objects.count() == before


def test_the_last_gm_cannot_be_made_a_player_but_one_of_two_can(sr2: Table) -> None:
    """The table has two GMs (gm, gm2). A campaign with none could never be run again: nobody could act, advance
    the clock or add a GM."""
    members = f"/api/campaigns/{sr2.campaign['id']}/members/"

    def roles() -> dict[str, str]:
        return {m.user.username: m.role for m in Membership.objects.filter(campaign_id=sr2.campaign["id"])}

    # A member's role changes at once (200: no invitation is made, docs/members.md).
    assert sr2.gm2.post(members, {"username": "gm", "role": "player"}).status_code == 200
    assert roles()["gm"] == "player"
    refused = sr2.gm2.post(members, {"username": "gm2", "role": "player"})
    assert refused.status_code == 400
    assert refused.json() == {
        "role": [
            "the user gm2 is the campaign's only GM: make someone else a GM first, or nobody could run the campaign"
        ]
    }
    assert roles()["gm2"] == "gm"
    assert sr2.gm2.post(members, {"username": "gm", "role": "gm"}).status_code == 200
    assert sr2.gm2.post(members, {"username": "gm2", "role": "player"}).status_code == 200
    assert roles() == {"gm": "gm", "gm2": "player", "player": "player"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"attributes": {"body": 5}}, "name"),
        ({"name": "Z", "attributes": {"body": 0}}, "attributes.body"),
        ({"name": "Z", "attributes": {}}, "attributes.body"),
        ({"name": "Z", "attributes": {"body": "tough"}}, "attributes.body"),
        ({"name": "Z", "attributes": {"body": 5, "charisma": 3}}, "attributes.charisma"),
        ({"name": "Z", "attributes": [5]}, "attributes"),
        ({"name": "Z", "player": "nobody", "attributes": {"body": 5}}, "player"),
        ({"name": "Z", "player": 7, "attributes": {"body": 5}}, "player"),
    ],
)
def test_bad_character_input_names_the_field_and_writes_nothing(
    sr2: Table, body: dict[str, Any], field: str
) -> None:
    before = (Character.objects.count(), _event_count())
    response = sr2.gm.post(f"/api/campaigns/{sr2.campaign['id']}/characters/", body)
    assert response.status_code == 400, response.content
    assert list(response.json()) == [field]
    assert (Character.objects.count(), _event_count()) == before


def test_a_character_json_has_the_contract_fields(sr2: Table) -> None:
    character = sr2.gm.get(sr2.character_url()).json()
    for key in (
        "id",
        "name",
        "player",
        "ruleset",
        "version",
        "alive",
        "conscious",
        "dying",
        "death_at",
        "attributes",
        "sheet",
        "timers",
    ):
        assert key in character
    assert character["player"] == "player"
    assert character["attributes"] == {"body": 5, "willpower": 5}


# --- actions -------------------------------------------------------------------------------------------------------


def test_an_unknown_action_type_lists_the_valid_ones(sr2: Table) -> None:
    before = _event_count()
    response = sr2.act({"type": "resurrect"})
    assert response.status_code == 400
    assert response.json() == {
        "type": [
            "unknown action resurrect; expected one of: wound, diagnose, treat, heal_magic, first_aid, replace, "
            "accept, set_care, note, undo, revert"
        ]
    }
    assert _event_count() == before


def test_an_actions_type_and_parameters_names_are_checked_once(sr2: Table, monkeypatch: Any) -> None:
    """The service checks them first, in the API's words; the rules read the checked action without again."""
    checked: list[str] = []

    def counted(form: Any, action: Any) -> None:
        checked.append(action["type"])
        reject(form, action)

    reject = params.reject_unknown_params
    monkeypatch.setattr(params, "reject_unknown_params", counted)
    monkeypatch.setattr(service_actions, "reject_unknown_params", counted)
    assert sr2.act({"type": "wound", "severity": "M", "damage": "stun"}).status_code == 201
    assert checked == ["wound"]
    refused = sr2.act({"type": "wound", "severity": "M", "damage": "stun", "sevrity": "S"})
    assert refused.status_code == 400
    assert refused.json() == {
        "sevrity": ["unknown field; expected one of combat_pool, damage, open_wound, severity, type"]
    }
    assert checked == ["wound", "wound"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "type"),
        ({"type": "wound"}, "severity"),
        ({"type": "wound", "severity": "X"}, "severity"),
        ({"type": "wound", "severity": "S", "rolls": []}, "rolls"),
        ({"type": "wound", "severity": "S", "rolls": {"body_check": [7, 1, 1, 1, 1]}}, "rolls.body_check"),
        ({"type": "wound", "severity": "S", "rolls": {"body_check": [1, 1]}}, "rolls.body_check"),
        ({"type": "wound", "severity": "S", "rolls": {"body_check": "six"}}, "rolls.body_check"),
        ({"type": "note"}, "text"),
        ({"type": "note", "text": "x", "expected_version": "one"}, "expected_version"),
        ({"type": "undo"}, "type"),
    ],
)
def test_bad_action_input_names_the_field_and_writes_nothing(
    sr2: Table, body: dict[str, Any], field: str
) -> None:
    before = _event_count()
    response = sr2.act(body)
    assert response.status_code == 400, response.content
    assert list(response.json()) == [field]
    assert _event_count() == before


def test_a_wrong_dice_count_message_names_the_roll(sr2: Table) -> None:
    response = sr2.act(
        {"type": "wound", "severity": "S", "rolls": {"body_check": [1, 1, 1, 1, 1], "location": [7, 3]}}
    )
    assert response.json() == {"rolls.location": ["rolls.location: expected 2 dice of 1-6, got [7, 3]"]}


def test_an_action_on_a_stale_version_is_a_conflict(sr2: Table) -> None:
    before = _event_count()
    assert sr2.act({"type": "note", "text": "a", "expected_version": 0}).status_code == 201
    response = sr2.act({"type": "note", "text": "b", "expected_version": 0})
    assert response.status_code == 409
    assert "version 1, not 0" in response.json()["expected_version"][0]
    assert _event_count() == before + 1


def test_undo_takes_back_the_latest_action_and_keeps_it_marked_voided(sr2: Table) -> None:
    sr2.act({"type": "wound", "severity": "M", "rolls": {"body_check": [6, 6, 6, 6, 6]}})
    sr2.act({"type": "wound", "severity": "S", "rolls": {"body_check": [6, 6, 6, 6, 6]}})
    assert sr2.gm.get(sr2.character_url()).json()["sheet"]["physical"]["boxes"] == 9
    response = sr2.act({"type": "undo"})
    assert response.status_code == 201
    assert response.json()["character"]["sheet"]["physical"] == {"boxes": 3, "level": "M"}
    history = sr2.gm.get(f"{sr2.character_url()}events/").json()["events"][::-1]  # newest first
    assert [(e["type"], e["voided"]) for e in history] == [
        ("WoundTaken", False),
        ("WoundTaken", True),
        ("ActionUndone", False),
    ]
    sr2.act({"type": "undo"})
    assert sr2.gm.get(sr2.character_url()).json()["sheet"]["physical"] == {"boxes": 0, "level": None}
    assert sr2.act({"type": "undo"}).json() == {"type": ["there is nothing to undo on this character"]}


def test_time_travel_shows_the_character_after_any_event(sr2: Table) -> None:
    sr2.act({"type": "wound", "severity": "M", "rolls": {"body_check": [6, 6, 6, 6, 6]}})
    sr2.act({"type": "wound", "severity": "S", "rolls": {"body_check": [6, 6, 6, 6, 6]}})
    past = sr2.gm.get(f"{sr2.character_url()}?version=1").json()
    assert past["version"] == 1
    assert past["sheet"]["physical"] == {"boxes": 3, "level": "M"}
    assert sr2.gm.get(f"{sr2.character_url()}?version=0").json()["sheet"]["physical"]["boxes"] == 0
    assert sr2.gm.get(f"{sr2.character_url()}?version=9").status_code == 400
    assert list(sr2.gm.get(f"{sr2.character_url()}?version=x").json()) == ["version"]


def test_the_character_answers_304_when_nothing_changed(sr2: Table) -> None:
    first = sr2.gm.get(sr2.character_url())
    again = sr2.gm.get(sr2.character_url(), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    sr2.act({"type": "note", "text": "x"})
    assert sr2.gm.get(sr2.character_url(), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


# --- feed, export, import --------------------------------------------------------------------------------------------


def test_the_campaign_feed_pages_by_position(sr2: Table) -> None:
    sr2.act({"type": "note", "text": "one"})
    sr2.act({"type": "note", "text": "two"})
    feed = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/events/").json()
    types = [e["type"] for e in feed["events"]]
    assert types == ["CampaignCreated", "CharacterCreated", "NoteAdded", "NoteAdded"]
    positions = [e["position"] for e in feed["events"]]
    assert positions == sorted(positions)
    later = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/events/?after={positions[2]}").json()
    assert [e["data"] for e in later["events"]] == [{"text": "two"}]
    assert later["last_position"] == positions[3]


@pytest.mark.parametrize(
    "content",
    [
        b"not json\n",
        b'{"stream": "campaign", "version": 1, "type": "NoteAdded", "data": {}, "game_time": 0}\n',
        b'{"stream": "campaign", "version": 2, "type": "CampaignCreated", "data": {}, "game_time": 0}\n',
        b'{"stream": "campaign", "version": 1, "type": "CampaignCreated", "data": {"name": "x", "ruleset": "gurps"},'
        b' "game_time": 0}\n',
        b"",
    ],
)
def test_a_bad_import_is_refused_and_writes_nothing(sr2: Table, content: bytes) -> None:
    before = (Campaign.objects.count(), _event_count())
    upload = io.BytesIO(content)
    upload.name = "bad.jsonl"
    response = sr2.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400
    assert list(response.json()) == ["file"]
    assert (Campaign.objects.count(), _event_count()) == before


def test_an_import_without_a_file_names_the_field(sr2: Table) -> None:
    response = sr2.gm.client.post("/api/campaigns/import/", {}, format="multipart")
    assert response.json() == {"file": ["expected a JSON Lines file in the multipart field `file`"]}


# --- hostile bodies ----------------------------------------------------------------------------------------------------


def test_a_body_that_is_not_json_is_a_400(sr2: Table) -> None:
    response = sr2.gm.client.post(
        f"/api/characters/{sr2.character['id']}/actions/", "{nope", content_type="application/json"
    )
    assert response.status_code == 400
    assert list(response.json()) == ["body"]


def test_deeply_nested_json_is_a_400(sr2: Table) -> None:
    nested = "[" * 500 + "]" * 500
    response = sr2.gm.client.post(
        f"/api/characters/{sr2.character['id']}/actions/",
        f'{{"type": "note", "x": {nested}}}',
        content_type="application/json",
    )
    assert response.status_code == 400
    assert list(response.json()) == ["body"]


def test_an_oversized_body_is_a_400(sr2: Table) -> None:
    text = "x" * 3_000_000
    response = sr2.act({"type": "note", "text": text})
    assert response.status_code == 400
    assert list(response.json()) == ["body"]


def test_a_json_array_body_is_a_400(sr2: Table) -> None:
    response = sr2.act([1, 2])  # type: ignore[arg-type]
    assert response.status_code == 400
    assert list(response.json()) == ["body"]


def test_unicode_names_are_kept(sr2: Table) -> None:
    response = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/",
        {"name": "Łukasz 🐉 Ōtsuka", "attributes": {"body": 3}},
    )
    assert response.status_code == 201
    assert response.json()["name"] == "Łukasz 🐉 Ōtsuka"


@pytest.mark.parametrize("value", [-1, 10**30, 1.5, True, None, "3"])
def test_wrong_numbers_for_an_attribute_are_a_400(sr2: Table, value: Any) -> None:
    response = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/", {"name": "Z", "attributes": {"body": value}}
    )
    assert response.status_code == 400
    assert list(response.json()) == ["attributes.body"]


def test_the_openapi_schema_is_served(client: Any) -> None:
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/characters/{character_id}/actions/" in response.content


def test_the_request_schemas_document_what_the_api_accepts(client: Any) -> None:
    whole = client.get("/api/schema/?format=json").json()
    paths = whole["paths"]

    def body(path: str) -> dict[str, Any]:
        return paths[path]["post"]["requestBody"]["content"]["application/json"]["schema"]

    sign_up, credentials = body("/api/users/"), body("/api/auth/token/")
    members = body("/api/campaigns/{campaign_id}/members/")
    # Sign-up asks for a password the validators can pass; log-in takes any password a user may have.
    assert sign_up["properties"]["password"]["minLength"] == 8
    assert "minLength" not in credentials["properties"]["password"]
    # User names follow Django's validator, which takes any Unicode letter: no ASCII-only pattern in the schema.
    for schema in (sign_up, credentials, members):
        assert "pattern" not in schema["properties"]["username"]
        assert schema["additionalProperties"] is False
    # A new campaign's body: a variant per ruleset (oneOf by `ruleset`), together every ruleset.
    components = whole["components"]["schemas"]
    variants = [components[ref["$ref"].rsplit("/", 1)[1]] for ref in body("/api/campaigns/")["oneOf"]]
    rulesets = [slug for variant in variants for slug in variant["properties"]["ruleset"]["enum"]]
    assert sorted(rulesets) == ["cyberpunk2020", "darkfuture", "shadowrun2"]
    player = body("/api/campaigns/{campaign_id}/characters/")["properties"]["player"]
    assert player.get("nullable") is True and "minLength" not in player  # "" and null: no player
    advance = body("/api/campaigns/{campaign_id}/clock/")["properties"]["advance"]
    assert (advance["minProperties"], advance["maxProperties"]) == (1, 1)
    assert advance["properties"]["hours"] == {"type": "integer", "minimum": 1, "maximum": 100 * 366 * 24}


def test_the_rulesets_endpoint_lists_actions_and_option_defaults(client: Any) -> None:
    data = {r["slug"]: r for r in client.get("/api/rulesets/").json()}
    assert sorted(data) == ["cyberpunk2020", "darkfuture", "shadowrun2"]
    assert data["darkfuture"]["actions"] == ["damage", "recover", "note", "undo", "revert"]
    assert data["cyberpunk2020"]["options"]["hit_location_model"] == "standard"


@pytest.mark.parametrize(
    "path",
    [
        "/api/campaigns/349183231671576995823616/",
        "/api/campaigns/349183231671576995823616/members/",
        "/api/characters/99999999999999999999999/",
        "/api/characters/99999999999999999999999/actions/",
    ],
)
def test_an_id_too_large_for_the_database_is_a_404_not_a_500(sr2: Table, path: str) -> None:
    assert sr2.gm.get(path).status_code == 404
    assert sr2.gm.post(path, {"type": "note", "text": "x"}).status_code == 404


def test_the_cached_character_is_never_another_roles_and_never_stale(sr2: Table) -> None:
    """The character's answer is cached per role and version: the GMs' is shared, and never reaches a player."""
    from django.core.cache import caches

    from campaign.api import views as api_views

    caches[api_views.CHARACTER_CACHE].clear()
    assert sr2.act({"type": "note", "text": "GM only"}).status_code == 201
    gm_view = sr2.gm.get(sr2.character_url())
    assert gm_view.json()["notes"][-1]["text"] == "GM only"
    # Poison every cached entry: only their role may ever see them.
    cache = caches[api_views.CHARACTER_CACHE]
    keys = [key.split(":", 2)[2] for key in cache._cache]  # locmem keys are ":version:key"
    # Beside the answers, the GM notes and what undo would take back, by version (`history.gm_notes_kept`,
    # `history.undo_entry`), which only a GM's answer reads.
    keys = [key for key in keys if not key.startswith(("gm-notes:", "undo-entry:"))]
    assert len(keys) == 1 and keys[0].endswith(":gm")
    cache.set(keys[0], ({"poisoned": True}, gm_view["ETag"]))
    assert sr2.gm.get(sr2.character_url()).json() == {"poisoned": True}
    assert sr2.gm2.get(sr2.character_url()).json() == {"poisoned": True}
    player_view = sr2.player.get(sr2.character_url())
    assert player_view.json()["player"] == "player" and "notes" not in player_view.json()
    assert player_view["ETag"] != gm_view["ETag"]
    cache.clear()
    # Any new event, an undo or a clock advance gives a new answer.
    assert sr2.act({"type": "note", "text": "second"}).status_code == 201
    assert sr2.gm.get(sr2.character_url()).json()["notes"][-1]["text"] == "second"
    assert sr2.act({"type": "undo"}).status_code == 201
    assert sr2.gm.get(sr2.character_url()).json()["notes"][-1]["text"] == "GM only"
    before = sr2.gm.get(sr2.character_url())
    assert sr2.advance(minutes=10).status_code == 202
    after = sr2.gm.get(sr2.character_url(), HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after.json()["game_time"] == before.json()["game_time"] + 600


def _action_schema(client: Any) -> dict[str, Any]:
    schema = client.get("/api/schema/?format=json").json()
    post = schema["paths"]["/api/characters/{character_id}/actions/"]["post"]
    return post["requestBody"]["content"]["application/json"]["schema"]


def test_the_action_schema_has_each_rulesets_actions_with_their_parameters_and_dice(client: Any) -> None:
    from rules.registry import get_ruleset, ruleset_slugs

    branches = {branch["title"]: branch for branch in _action_schema(client)["anyOf"]}
    assert sorted(branches) == sorted(
        f"{slug} {action}" for slug in ruleset_slugs() for action in get_ruleset(slug).all_actions
    )
    wound = branches["shadowrun2 wound"]
    assert wound["required"] == ["type", "severity"]
    assert wound["additionalProperties"] is False
    assert sorted(wound["properties"]) == sorted(
        ["type", "severity", "damage", "open_wound", "combat_pool", "rolls", "ask", "expected_version"]
    )
    assert wound["properties"]["type"] == {"type": "string", "enum": ["wound"]}
    assert wound["properties"]["severity"] == {
        "type": "string",
        "enum": ["L", "M", "S", "D"],
        "description": "Severity",
    }
    dice = wound["properties"]["rolls"]["properties"]
    assert dice["location"] | {"description": ""} == {
        "type": "array",
        "items": {"type": "integer", "minimum": 1, "maximum": 6},
        "minItems": 2,
        "maxItems": 2,
        "description": "",
    }
    assert dice["body_check"]["items"] == {"type": "integer", "minimum": 1}  # totals: a Rule of Six passes 6
    assert "minItems" not in dice["body_check"]
    note = branches["darkfuture note"]
    assert note["required"] == ["type", "text"]
    assert (note["properties"]["text"]["maxLength"], note["properties"]["rolls"]["properties"]) == (
        10_000,
        {},
    )
    assert branches["cyberpunk2020 damage"]["properties"]["cover_protects"]["items"]["enum"] == [
        "head",
        "left_arm",
        "right_arm",
        "left_leg",
        "right_leg",
    ]
    # The healing spell's allocation: the object the API has always taken, its amounts now described.
    assert branches["shadowrun2 heal_magic"]["properties"]["allocation"] == {
        "type": "object",
        "additionalProperties": {"type": "integer", "minimum": 0},
        "description": 'Allocation. {"physical": 3, "ch1": 6}; Diagnosed hits only',
    }
    assert sorted(branches["darkfuture damage"]["properties"]) == [
        "ask",
        "expected_version",
        "rolls",
        "type",
        "weapon_damage",
    ]


@pytest.mark.parametrize(
    ("fixture", "body"),
    [
        (
            "sr2",
            {"type": "wound", "severity": "S", "open_wound": True, "rolls": {"body_check": [6, 1, 1, 1, 1]}},
        ),
        ("sr2", {"type": "set_care", "in_hospital": True, "expected_version": 0}),
        ("sr2", {"type": "note", "text": "Owes Doc a favour"}),
        ("cp2020", {"type": "damage", "damage": 9, "kind": "explosion", "cover_protects": ["head"]}),
        (
            "cp2020",
            {"type": "damage", "damage": 3, "kind": "blunt", "rolls": {"location": [3], "stun_save": [1]}},
        ),
        ("df", {"type": "damage", "weapon_damage": 2, "rolls": {"damage": [6], "ko": [6], "stun": [6]}}),
        ("df", {"type": "note", "text": "Lost the van"}),
    ],
)
def test_a_body_the_api_takes_matches_the_action_schema(
    request: pytest.FixtureRequest, client: Any, fixture: str, body: dict[str, Any]
) -> None:
    import jsonschema

    jsonschema.validate(body, _action_schema(client))
    table: Table = request.getfixturevalue(fixture)
    response = table.act(body)
    assert response.status_code == 201, response.content


def test_a_misspelt_parameter_matches_no_action_schema_and_the_api_refuses_it(
    client: Any, sr2: Table
) -> None:
    import jsonschema

    body = {"type": "wound", "severity": "S", "open_wond": True}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(body, _action_schema(client))
    assert sr2.act(body).status_code == 400


def test_the_rulesets_endpoint_describes_every_action_note_and_undo_included(client: Any) -> None:
    data = {r["slug"]: r for r in client.get("/api/rulesets/").json()}
    for ruleset in data.values():
        assert list(ruleset["forms"]) == ruleset["actions"]
    assert [param["name"] for param in data["shadowrun2"]["forms"]["note"]["params"]] == ["text"]
    assert data["darkfuture"]["forms"]["undo"]["params"] == []


# --- Idempotency-Key on the writes that create: a campaign, a character, a clock advance ------------------------


def _with_key(persona: Any, path: str, body: dict[str, Any], key: str) -> Any:
    return persona.post(path, body, HTTP_IDEMPOTENCY_KEY=key)


def test_a_campaign_posted_twice_with_one_key_is_made_once(sr2: Table) -> None:
    body = {"name": "Twice", "ruleset": "cyberpunk2020", "options": {"hit_location_model": "standard"}}
    before = Campaign.objects.count(), Event.objects.count()
    first = _with_key(sr2.gm, "/api/campaigns/", body, "new-campaign-1")
    again = _with_key(sr2.gm, "/api/campaigns/", body, "new-campaign-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert (Campaign.objects.count(), Event.objects.count()) == (before[0] + 1, before[1] + 1)
    # The key is the user's: another GM's same key makes their own campaign.
    other = _with_key(sr2.gm2, "/api/campaigns/", body, "new-campaign-1")
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]


def test_a_players_key_never_returns_the_campaign_a_gm_made_with_it(sr2: Table) -> None:
    """Keys of new campaigns are their creators': the player of a campaign sending its GM's key and body makes a
    campaign of their own, and never receives the GM's answer; so does another GM of it."""
    body = {"name": "Mine", "ruleset": "shadowrun2"}
    made = _with_key(sr2.gm, "/api/campaigns/", body, "same-key").json()
    join(sr2.gm, made["id"], sr2.player, "player")
    join(sr2.gm, made["id"], sr2.gm2, "gm")
    theirs = _with_key(sr2.player, "/api/campaigns/", body, "same-key")
    assert theirs.status_code == 201 and theirs.json()["id"] != made["id"]
    other_gms = _with_key(sr2.gm2, "/api/campaigns/", body, "same-key")
    assert other_gms.status_code == 201 and other_gms.json()["id"] not in (made["id"], theirs.json()["id"])


def test_a_creator_made_a_player_since_gets_the_campaign_back_as_a_player(sr2: Table) -> None:
    body = {"name": "Mine", "ruleset": "shadowrun2"}
    made = _with_key(sr2.gm, "/api/campaigns/", body, "retry").json()
    members = f"/api/campaigns/{made['id']}/members/"
    join(sr2.gm, made["id"], sr2.gm2, "gm")
    assert sr2.gm2.post(members, {"username": "gm", "role": "player"}).status_code == 200
    before = Campaign.objects.count()
    retried = _with_key(sr2.gm, "/api/campaigns/", body, "retry")
    assert retried.status_code == 201
    assert (retried.json()["id"], retried.json()["role"]) == (made["id"], "player")
    assert Campaign.objects.count() == before


def test_an_advance_and_an_action_never_share_a_key(sr2: Table) -> None:
    """A campaign's keys are one set, whether its event log or its jobs keep them."""
    clock = f"/api/campaigns/{sr2.campaign['id']}/clock/"
    characters = f"/api/campaigns/{sr2.campaign['id']}/characters/"
    assert sr2.act({"type": "note", "text": "x"}, HTTP_IDEMPOTENCY_KEY="noted").status_code == 201
    assert _with_key(sr2.gm, clock, {"advance": {"hours": 1}}, "noted").status_code == 409
    assert _with_key(sr2.gm, clock, {"advance": {"hours": 1}}, "advanced").status_code == 202
    assert sr2.act({"type": "note", "text": "x"}, HTTP_IDEMPOTENCY_KEY="advanced").status_code == 409
    zed = {"name": "Zed", "attributes": {"body": 4}}
    assert _with_key(sr2.gm, characters, zed, "advanced").status_code == 409
    assert Campaign.objects.get(pk=sr2.campaign["id"]).game_time == 3600
    assert Character.objects.filter(campaign_id=sr2.campaign["id"]).count() == 1


def test_an_import_whose_file_is_sent_as_text_names_the_field(sr2: Table) -> None:
    """Found by the fuzzer: a 500 while the field was read from the body rather than from the files."""
    for key in ({}, {"HTTP_IDEMPOTENCY_KEY": "text-file"}):
        response = sr2.gm.client.post(
            "/api/campaigns/import/", {"file": "https://y.73.org"}, format="multipart", **key
        )
        assert response.status_code == 400
        assert response.json() == {"file": ["expected a JSON Lines file in the multipart field `file`"]}


def test_an_import_takes_no_field_but_the_file(sr2: Table) -> None:
    upload = io.BytesIO(b"")
    upload.name = "campaign.jsonl"
    before = Campaign.objects.count()
    response = sr2.gm.client.post(
        "/api/campaigns/import/", {"file": upload, "gm": "player"}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json() == {"gm": ["unknown field; expected one of file"]}
    assert Campaign.objects.count() == before


def test_a_campaign_key_reused_for_another_campaign_is_a_409_writing_nothing(sr2: Table) -> None:
    assert (
        _with_key(sr2.gm, "/api/campaigns/", {"name": "A", "ruleset": "shadowrun2"}, "k").status_code == 201
    )
    before = Campaign.objects.count(), Event.objects.count()
    reused = _with_key(sr2.gm, "/api/campaigns/", {"name": "B", "ruleset": "shadowrun2"}, "k")
    assert reused.status_code == 409
    assert reused.json() == {
        "Idempotency-Key": ["this Idempotency-Key was already used for a different request"]
    }
    assert (Campaign.objects.count(), Event.objects.count()) == before


def test_a_character_posted_twice_with_one_key_is_made_once(sr2: Table) -> None:
    path = f"/api/campaigns/{sr2.campaign['id']}/characters/"
    body = {"name": "Twin", "player": "player", "attributes": {"body": 4}}
    before = Character.objects.count(), Event.objects.count()
    first = _with_key(sr2.gm, path, body, "new-character-1")
    again = _with_key(sr2.gm, path, body, "new-character-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"]
    assert (Character.objects.count(), Event.objects.count()) == (before[0] + 1, before[1] + 1)
    other = _with_key(sr2.gm, path, {**body, "name": "Other"}, "new-character-1")
    assert other.status_code == 409 and list(other.json()) == ["Idempotency-Key"]


def test_a_character_key_that_an_action_used_is_a_409(sr2: Table) -> None:
    """The campaign's keys are one set, as the event log keeps them: a key is one request, whatever it was."""
    assert sr2.act({"type": "note", "text": "x"}, HTTP_IDEMPOTENCY_KEY="shared").status_code == 201
    before = Character.objects.count()
    path = f"/api/campaigns/{sr2.campaign['id']}/characters/"
    reused = _with_key(sr2.gm, path, {"name": "Zed", "attributes": {"body": 4}}, "shared")
    assert reused.status_code == 409
    assert Character.objects.count() == before


def test_a_clock_advance_posted_twice_with_one_key_advances_once(sr2: Table) -> None:
    path = f"/api/campaigns/{sr2.campaign['id']}/clock/"
    first = _with_key(sr2.gm, path, {"advance": {"hours": 2}}, "advance-1")
    again = _with_key(sr2.gm, path, {"advance": {"hours": 2}}, "advance-1")
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["job"] == first.json()["job"]
    assert Campaign.objects.get(pk=sr2.campaign["id"]).game_time == 2 * 3600
    other = _with_key(sr2.gm, path, {"advance": {"hours": 3}}, "advance-1")
    assert other.status_code == 409 and list(other.json()) == ["Idempotency-Key"]
    assert Campaign.objects.get(pk=sr2.campaign["id"]).game_time == 2 * 3600
    # Without a key, or with a new one, the same advance is a new one: posting again on purpose advances again.
    assert sr2.gm.post(path, {"advance": {"hours": 2}}).status_code == 202
    assert _with_key(sr2.gm, path, {"advance": {"hours": 2}}, "advance-2").status_code == 202
    assert Campaign.objects.get(pk=sr2.campaign["id"]).game_time == 6 * 3600


def test_the_schema_offers_the_idempotency_key_on_every_write_that_creates(client: Any) -> None:
    paths = client.get("/api/schema/?format=json").json()["paths"]
    for path in (
        "/api/campaigns/",
        "/api/campaigns/{campaign_id}/characters/",
        "/api/campaigns/{campaign_id}/clock/",
        "/api/characters/{character_id}/actions/",
        "/api/campaigns/import/",
    ):
        headers = [p["name"] for p in paths[path]["post"]["parameters"] if p["in"] == "header"]
        assert headers == ["Idempotency-Key"], path
        if "get" in paths[path]:
            assert all(p["in"] != "header" for p in paths[path]["get"].get("parameters", [])), path


def test_a_fresh_key_costs_an_action_no_query_of_its_own(sr2: Table) -> None:
    """The log's and the jobs' keys are looked up by the read under the lock (`eventstore.lock_for_character`)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries(**headers: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert sr2.act({"type": "note", "text": "x"}, **headers).status_code == 201
        return len(captured.captured_queries)

    queries()  # warm: the first request loads what later ones find cached
    assert queries(HTTP_IDEMPOTENCY_KEY="fresh-1") == queries()
