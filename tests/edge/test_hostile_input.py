"""Hostile input on every write endpoint: always a 400 that names the field, never a 500, nothing written."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.models import Campaign, Character, Event, Membership
from tests.conftest import Table
from tests.transfer.test_import import _with_trailer

pytestmark = pytest.mark.django_db

HUGE = 10**40
WRONG_ROLLS = [
    ("a string", "rolls"),
    ([1, 2, 3], "rolls"),
    (7, "rolls"),
    ({"body_check": "six"}, "rolls.body_check"),
    ({"body_check": [HUGE, 1, 1, 1, 1]}, "rolls.body_check"),
    ({"body_check": [-3, 1, 1, 1, 1]}, "rolls.body_check"),
    ({"body_check": [1.5, 1, 1, 1, 1]}, "rolls.body_check"),
    ({"body_check": [True, 1, 1, 1, 1]}, "rolls.body_check"),
    ({"body_check": [None, 1, 1, 1, 1]}, "rolls.body_check"),
    ({"body_check": [[1], 1, 1, 1, 1]}, "rolls.body_check"),
    ({"body_check": {"a": 1}}, "rolls.body_check"),
]


def _refused(response: Any, field: str) -> None:
    assert response.status_code == 400, response.content
    assert field in response.json(), response.json()
    assert all(isinstance(message, str) and message for message in response.json()[field])


@pytest.mark.parametrize(("rolls", "field"), WRONG_ROLLS)
def test_wrong_types_in_rolls_are_a_400_naming_the_roll(sr2: Table, rolls: Any, field: str) -> None:
    before = Event.objects.count()
    _refused(sr2.act({"type": "wound", "severity": "M", "rolls": rolls}), field)
    assert Event.objects.count() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "damage", "damage": -5}, "damage"),
        ({"type": "damage", "damage": HUGE}, "damage"),
        ({"type": "damage", "damage": "ten"}, "damage"),
        ({"type": "damage", "damage": 5.5}, "damage"),
        ({"type": "damage", "damage": 5, "location": "tail"}, "location"),
        ({"type": "damage", "damage": 5, "ap": {"x": 1}}, "ap"),
        ({"type": "save", "kind": ["stun"]}, "kind"),
        ({"type": 5}, "type"),
        ({"type": None}, "type"),
        ({"type": {"$ne": 1}}, "type"),
        ({"type": "note", "text": 12}, "text"),
        ({"type": "note", "text": "x" * 10_001}, "text"),
        ({"type": "note", "text": "x", "expected_version": -1}, "expected_version"),
        ({"type": "note", "text": "x", "expected_version": HUGE}, "expected_version"),
    ],
)
def test_bad_numbers_and_types_in_cyberpunk_actions_are_a_400(cp2020: Table, body: dict, field: str) -> None:
    before = Event.objects.count()
    response = cp2020.act(body)
    if field == "expected_version" and body["expected_version"] == HUGE:
        assert response.status_code == 409 and list(response.json()) == [field]
    else:
        _refused(response, field)
    assert Event.objects.count() == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/campaigns/", {"name": "x" * 201, "ruleset": "shadowrun2"}, "name"),
        ("/api/campaigns/", {"name": ["x"], "ruleset": "shadowrun2"}, "name"),
        ("/api/campaigns/", {"name": "x", "ruleset": {"slug": "shadowrun2"}}, "ruleset"),
        ("/api/campaigns/", {"name": "x", "ruleset": "shadowrun2", "options": [1]}, "options"),
        ("/api/campaigns/", {"name": "x", "ruleset": "shadowrun2", "options": {"start": 5}}, "options.start"),
        (
            "/api/campaigns/",
            {"name": "x", "ruleset": "shadowrun2", "options": {"time_scale": HUGE}},
            "options.time_scale",
        ),
        ("/api/users/", {"username": "x" * 500, "password": "a long pass phrase"}, "username"),
        ("/api/users/", {"username": {"a": 1}, "password": "a long pass phrase"}, "username"),
        ("/api/users/", {"username": "zed", "password": 12345678901}, "password"),
        ("/api/auth/token/", {"username": ["gm"], "password": "x"}, "username"),
    ],
)
def test_bad_campaigns_users_and_logins_are_a_400(sr2: Table, path: str, body: dict, field: str) -> None:
    _refused(sr2.gm.post(path, body), field)


@pytest.mark.parametrize(
    ("advance", "field"),
    [
        ({"hours": -1}, "advance.hours"),
        ({"hours": HUGE}, "advance.hours"),
        ({"hours": "2"}, "advance.hours"),
        ({"hours": 1, "days": 1}, "advance"),
        ({"eons": 1}, "advance"),
        ([1], "advance"),
        (None, "advance"),
    ],
)
def test_bad_clock_advances_are_a_400(sr2: Table, advance: Any, field: str) -> None:
    response = sr2.gm.post(f"/api/campaigns/{sr2.campaign['id']}/clock/", {"advance": advance})
    _refused(response, field)


@pytest.mark.parametrize("query", ["version=-1", "version=abc", f"version={HUGE}", "version=1e3"])
def test_bad_query_numbers_are_a_400(sr2: Table, query: str) -> None:
    _refused(sr2.gm.get(f"{sr2.character_url()}?{query}"), "version")


@pytest.mark.parametrize("query", ["after=-1", "after=x", "after=99999999999999999999999999"])
def test_a_bad_feed_position_is_a_400_or_an_empty_page(sr2: Table, query: str) -> None:
    response = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/events/?{query}")
    if query.startswith("after=9"):
        # Past every position: nothing after it.
        assert response.status_code == 200
        assert response.json()["events"] == []
    else:
        _refused(response, "after")


@pytest.mark.parametrize(
    "name",
    ["Łukasz 🐉 Ōtsuka", "ﷺ" * 50, "אֵשׁ", "名前" * 100, "a\tb", "<script>alert(1)</script>"],
)
def test_unicode_and_markup_names_are_kept_verbatim(sr2: Table, name: str) -> None:
    response = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/", {"name": name, "attributes": {"body": 4}}
    )
    assert response.status_code == 201, response.content
    assert response.json()["name"] == name.strip()


@pytest.mark.parametrize("text", ["nul \x00 inside", "lone surrogate \ud800 here"])
def test_text_the_database_cannot_store_is_a_400_naming_the_field(sr2: Table, text: str) -> None:
    raw = '{{"type": "note", "text": "{}"}}'.format(
        text.encode("unicode_escape").decode().replace("\\x00", "\\u0000")
    )
    before = Event.objects.count()
    response = sr2.gm.client.post(
        f"/api/characters/{sr2.character['id']}/actions/", raw, content_type="application/json"
    )
    _refused(response, "text")
    assert Event.objects.count() == before
    response = sr2.gm.client.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/",
        raw.replace('"type": "note", "text"', '"attributes": {"body": 4}, "name"'),
        content_type="application/json",
    )
    _refused(response, "name")


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"\xff\xfe not utf-8", "application/json"),
        (b'{"type": "note", "text": NaN}', "application/json"),
        (b'{"type": "note", "text": Infinity}', "application/json"),
        (b"[" * 100_000 + b"]" * 100_000, "application/json"),
        (b'{"a":' * 5000 + b"1" + b"}" * 5000, "application/json"),
        (b'{"type": "note", "text": "' + b"x" * 3_000_000 + b'"}', "application/json"),
    ],
)
def test_malformed_deep_or_oversized_bodies_are_a_400_naming_the_body(
    sr2: Table, body: bytes, content_type: str
) -> None:
    response = sr2.gm.client.post(
        f"/api/characters/{sr2.character['id']}/actions/", body, content_type=content_type
    )
    _refused(response, "body")


def test_an_unsupported_content_type_is_a_415_not_a_500(sr2: Table) -> None:
    response = sr2.gm.client.post(
        f"/api/characters/{sr2.character['id']}/actions/", "type=note", content_type="text/plain"
    )
    assert response.status_code == 415


def test_an_oversized_idempotency_key_is_a_400(sr2: Table) -> None:
    _refused(sr2.act({"type": "note", "text": "x"}, HTTP_IDEMPOTENCY_KEY="k" * 201), "Idempotency-Key")


@pytest.mark.parametrize(
    "upload",
    [b"", b"not json\n", b'{"stream": "campaign"}\n', b"\x00\x01\x02", b'{"a":' * 5000 + b"1" + b"}" * 5000],
)
def test_a_bad_import_file_is_a_400(sr2: Table, upload: bytes) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = sr2.gm.client.post(
        "/api/campaigns/import/", {"file": SimpleUploadedFile("c.jsonl", upload)}, format="multipart"
    )
    assert response.status_code == 400, response.content
    assert list(response.json())


def _every_action() -> list[tuple[str, str]]:
    from rules.registry import get_ruleset

    return [
        (fixture, action)
        for fixture, slug in (("sr2", "shadowrun2"), ("cp2020", "cyberpunk2020"), ("df", "darkfuture"))
        for action in get_ruleset(slug).all_actions
    ]


@pytest.mark.parametrize(("fixture", "action"), _every_action())
def test_a_misspelt_parameter_of_any_action_is_a_400_naming_it(
    request: pytest.FixtureRequest, fixture: str, action: str
) -> None:
    """Before, shadowrun2's actions, a note and an undo ignored a parameter they did not know: `open_wond: true`
    made a closed wound."""
    from rules.registry import get_ruleset

    table: Table = request.getfixturevalue(fixture)
    form = get_ruleset(table.campaign["ruleset"]).action_form(action)
    known = ", ".join(sorted(("type", *(param.name for param in form.params))))
    events = Event.objects.count()
    response = table.act({"type": action, "open_wond": True})
    assert response.status_code == 400, response.content
    assert response.json() == {"open_wond": [f"unknown field; expected one of {known}"]}
    assert Event.objects.count() == events


def test_a_misspelt_wound_parameter_is_refused_where_it_once_made_a_closed_wound(sr2: Table) -> None:
    body = {"type": "wound", "severity": "S", "open_wond": True, "rolls": {"body_check": [6, 6, 6, 1, 1]}}
    response = sr2.act(body)
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["open_wond"]
    body["open_wound"] = body.pop("open_wond")
    assert sr2.act(body).status_code == 201


def _closed_bodies(table: Table) -> list[tuple[str, dict[str, Any], str]]:
    campaign = f"/api/campaigns/{table.campaign['id']}"
    return [
        ("/api/users/", {"username": "zed", "password": "a long pass phrase"}, "password, username"),
        ("/api/auth/token/", {"username": "gm", "password": "x"}, "password, username"),
        ("/api/campaigns/", {"name": "x", "ruleset": "shadowrun2"}, "name, options, ruleset"),
        (f"{campaign}/members/", {"username": "stranger", "role": "player"}, "role, username"),
        (f"{campaign}/characters/", {"name": "Zed", "attributes": {"body": 4}}, "attributes, name, player"),
        (f"{campaign}/clock/", {"advance": {"hours": 1}}, "advance, ask_before_death, stop_on"),
    ]


@pytest.mark.parametrize("case", range(6))
def test_a_misspelt_field_in_any_request_body_is_a_400_naming_it(sr2: Table, case: int) -> None:
    """Before, a field the endpoint did not know was dropped in silence: a character posted with `palyer` was
    created with no player at all."""
    from django.contrib.auth import get_user_model

    from campaign.models import Campaign, Character, Job, Membership

    path, body, expected = _closed_bodies(sr2)[case]
    counts = [
        model.objects.count() for model in (get_user_model(), Campaign, Membership, Character, Job, Event)
    ]
    response = sr2.gm.post(path, {**body, "palyer": "player"})
    assert response.status_code == 400, response.content
    assert response.json() == {"palyer": [f"unknown field; expected one of {expected}"]}
    assert [
        model.objects.count() for model in (get_user_model(), Campaign, Membership, Character, Job, Event)
    ] == (counts)


def test_the_schema_says_the_request_bodies_take_no_other_field(sr2: Table) -> None:
    schema_doc = sr2.gm.get("/api/schema/?format=json").json()
    paths, components = schema_doc["paths"], schema_doc["components"]["schemas"]
    for (path, media), fields in {
        ("/api/users/", "application/json"): ["password", "username"],
        ("/api/auth/token/", "application/json"): ["password", "username"],
        ("/api/campaigns/", "application/json"): ["name", "options", "ruleset"],
        ("/api/campaigns/{campaign_id}/members/", "application/json"): ["role", "username"],
        ("/api/campaigns/{campaign_id}/characters/", "application/json"): ["attributes", "name", "player"],
        ("/api/campaigns/{campaign_id}/clock/", "application/json"): [
            "advance",
            "ask_before_death",
            "stop_on",
        ],
        ("/api/campaigns/import/", "multipart/form-data"): ["file"],
    }.items():
        schema = paths[path]["post"]["requestBody"]["content"][media]["schema"]
        # A body whose shape depends on the ruleset is one of a variant per ruleset: each takes no other field.
        variants = [components[one["$ref"].rsplit("/", 1)[1]] for one in schema.get("oneOf", [])] or [schema]
        for variant in variants:
            assert variant["additionalProperties"] is False, path
            assert sorted(variant["properties"]) == fields, path


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("members/", {"username": "x" * 100_000, "role": "player"}, "username"),
        ("characters/", {"name": "Zed", "player": "x" * 100_000, "attributes": {"body": 4}}, "player"),
    ],
)
def test_an_overlong_user_name_is_refused_without_being_echoed_back(
    sr2: Table, path: str, body: dict[str, Any], field: str
) -> None:
    events = Event.objects.count()
    response = sr2.gm.post(f"/api/campaigns/{sr2.campaign['id']}/{path}", body)
    assert response.status_code == 400
    assert response.json() == {field: ["expected a user name of at most 150 characters, got 100000"]}
    assert Event.objects.count() == events


# --- text that people read (rules/text.py) ----------------------------------------------------------------------

OVERRIDE = "Ash\u202egnp.exe"  # shown as "Ashexe.png"
NO_OVERRIDE = "expected text without right-to-left or left-to-right override characters (U+202E)"
HIDDEN_TEXTS = [
    (OVERRIDE, lambda what: NO_OVERRIDE),
    ("\u200b\u3000", "expected {} with at least one visible character".format),  # nothing shows
    ("\u3164", "expected {} with at least one visible character".format),  # a Hangul filler: a letter, blank
]
HIDDEN_IDS = ["override", "invisible", "hangul filler"]
# (table, body with T where the text goes, the field the 400 names, the text as the message calls it)
READ_FIELDS = [
    ("sr2", "/api/users/", {"username": "T", "password": "a long pass phrase"}, "username", "a user name"),
    ("sr2", "/api/campaigns/", {"name": "T", "ruleset": "shadowrun2"}, "name", "a name"),
    ("sr2", "characters/", {"name": "T", "attributes": {"body": 4}}, "name", "a name"),
    (
        "df",
        "characters/",
        {"name": "Zed", "attributes": {"con": 8, "skills": {"T": 3}}},
        "attributes.skills",
        "a skill name",
    ),
    ("sr2", "act", {"type": "note", "text": "T"}, "text", "a note"),
    ("sr2", "act", {"type": "diagnose", "medic": "T", "skill": 4}, "medic", "a name"),
    ("sr2", "act", {"type": "first_aid", "medic": "T", "skill": 4}, "medic", "a name"),
    ("sr2 hit", "act", {"type": "treat", "critical_hit": "ch1", "medic": "T", "skill": 4}, "medic", "a name"),
    (
        "sr2 hit",
        "act",
        {"type": "replace", "critical_hit": "ch1", "replacement": "T"},
        "replacement",
        "a replacement",
    ),
    (
        "cp2020",
        "act",
        {"type": "stabilize", "target": "dying", "medic": "T", "skill": "medical_tech"},
        "medic",
        "a name",
    ),
    ("cp2020", "act", {"type": "treat", "medic": "T", "skill": "medical_tech"}, "medic", "a name"),
]


def crippling_hit(table: Table) -> None:
    """A crippling hit on the chest (ch1), for the actions on a hit."""
    rolls = {"body_check": [6, 1, 1, 1, 1], "location": [3, 4], "critical": [2]}
    assert table.act({"type": "wound", "severity": "S", "rolls": rolls}).status_code == 201


def _with_text(value: Any, text: str) -> Any:
    if isinstance(value, dict):
        return {_with_text(key, text): _with_text(item, text) for key, item in value.items()}
    return text if value == "T" else value


def _everything() -> list[int]:
    from django.contrib.auth import get_user_model

    return [model.objects.count() for model in (get_user_model(), Campaign, Membership, Character, Event)]


@pytest.mark.parametrize(("text", "message"), HIDDEN_TEXTS, ids=HIDDEN_IDS)
@pytest.mark.parametrize(
    ("fixture", "path", "body", "field", "what"),
    READ_FIELDS,
    ids=[f"{case[0]} {case[2].get('type', case[1])} {case[3]}" for case in READ_FIELDS],
)
def test_a_name_or_note_that_hides_or_reorders_text_is_a_400_naming_the_field(
    request: pytest.FixtureRequest,
    fixture: str,
    path: str,
    body: dict[str, Any],
    field: str,
    what: str,
    text: str,
    message: Any,
) -> None:
    table: Table = request.getfixturevalue(fixture.split()[0])
    if fixture.endswith("hit"):
        crippling_hit(table)
    before = _everything()
    hostile = _with_text(body, text)
    if path == "act":
        response = table.act(hostile)
    else:
        response = table.gm.post(
            path if path.startswith("/") else f"/api/campaigns/{table.campaign['id']}/{path}", hostile
        )
    assert response.status_code == 400, response.content
    assert response.json() == {field: [message(what)]}
    assert text.strip() not in response.content.decode()  # never shown back
    assert _everything() == before


def _export(table: Table) -> list[dict[str, Any]]:
    import json

    assert table.act({"type": "note", "text": "Ash owes Doc"}).status_code == 201
    export = table.gm.get(f"/api/campaigns/{table.campaign['id']}/export/")
    return [json.loads(line) for line in b"".join(export.streaming_content).splitlines()]


BLANK = "expected a name with at least one visible character"


@pytest.mark.parametrize("escaped", [True, False], ids=["escaped", "utf8"])
@pytest.mark.parametrize(
    ("event_type", "key", "text", "message"),
    [
        ("CampaignCreated", "name", OVERRIDE, NO_OVERRIDE),
        ("CampaignCreated", "name", "\u200b\u3000", BLANK),
        ("CharacterCreated", "name", OVERRIDE, NO_OVERRIDE),
        ("CharacterCreated", "name", "\u3164", BLANK),
        ("NoteAdded", "text", OVERRIDE, NO_OVERRIDE),  # the file's notes are shown as they are
    ],
)
def test_an_imported_name_or_note_that_hides_or_reorders_text_is_a_400_and_imports_nothing(
    sr2: Table, event_type: str, key: str, text: str, message: str, escaped: bool
) -> None:
    """The text as a JSON escape, or as UTF-8 in a file with no escape anywhere (the check searches the lines
    of a file only when the whole file holds a byte such text needs)."""
    import io

    lines = _export(sr2)
    line = next(number for number, item in enumerate(lines, start=1) if item["type"] == event_type)
    lines[line - 1]["data"][key] = text
    content = _with_trailer(lines[:-1], ensure_ascii=escaped)
    assert (b"\\" in content) is escaped
    upload = io.BytesIO(content)
    upload.name = "campaign.jsonl"
    before = _everything()
    response = sr2.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400, response.content
    assert response.json() == {"file": [f"line {line}: data.{key}: {message}"]}
    assert _everything() == before
