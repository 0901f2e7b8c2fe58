"""The API's answers are the schema's (docs/api.md): every answer of the recorded sessions of each ruleset, and of
the rest of the API (the clock, jobs, members, invitations, the forecast, export and import, errors), has a status,
content type and body the schema declares for its operation."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from campaign.api import answers
from tests.api.schema_check import SchemaCheck, as_json_schema
from tests.api.test_recorded_answers import SCRIPTS, Session
from tests.conftest import ServerDice, Table, make_table, seeded_dice

GM_ONLY = {"death_at", "death_at_date", "timers", "notes", "undo"}


@pytest.fixture
def check(client: Any) -> SchemaCheck:
    return SchemaCheck(client.get("/api/schema/?format=json").json())


class CheckedSession(Session):
    def __init__(self, table: Table, check: SchemaCheck) -> None:
        super().__init__(table)
        self.check = check

    def record(self, label: str, response: Any) -> Any:
        self.check.check(response)
        return super().record(label, response)


def test_no_answer_of_the_schema_is_an_object_without_fields(check: SchemaCheck) -> None:
    untyped = []
    for path, operations in check.schema["paths"].items():
        for method, operation in operations.items():
            for status, declared in operation["responses"].items():
                for media, content in declared.get("content", {}).items():
                    schema = content["schema"]
                    if (
                        not ({"$ref", "oneOf", "anyOf", "items", "properties"} & set(schema))
                        and schema.get("type") != "string"
                    ):
                        untyped.append((path, method, status, media))
                if status.startswith("2") and status != "204":
                    assert declared.get("content"), (path, method, status)
    assert untyped == []


def test_the_players_components_declare_nothing_the_gm_alone_sees(check: SchemaCheck) -> None:
    schemas = check.schema["components"]["schemas"]
    for slug in ("Shadowrun2", "Cyberpunk2020", "Darkfuture"):
        assert not GM_ONLY & set(schemas[f"{slug}PlayerCharacter"]["properties"])
        assert set(schemas[f"{slug}GmCharacter"]["properties"]) >= GM_ONLY
    hit = schemas["Shadowrun2PlayerSheet"]["properties"]["critical_hits"]["items"]
    assert "death_at" not in hit["properties"]
    assert "death_at" in schemas["Shadowrun2Sheet"]["properties"]["critical_hits"]["items"]["properties"]
    assert "DarkfuturePlayerSheet" not in schemas  # the same sheet for both: one component


def test_the_components_examples_fit_them(check: SchemaCheck) -> None:
    import jsonschema

    from tests.api.schema_check import as_json_schema

    schemas = check.schema["components"]["schemas"]
    assert set(answers.EXAMPLES) <= {name for name, schema in schemas.items() if "example" in schema}
    for name, example in answers.EXAMPLES.items():
        schema = {**as_json_schema(schemas[name]), "components": check.components}
        jsonschema.validate(example, schema)


# Every operation's answer has its example.
WITHOUT_EXAMPLE_ANSWER: set[tuple[str, str]] = set()


def _component_example(schema: dict[str, Any], components: dict[str, Any]) -> Any:
    """The example Swagger UI draws from a component (`answers.EXAMPLES`), or from a list's items; else None."""
    if "$ref" in schema:
        return components[schema["$ref"].rsplit("/", 1)[1]].get("example")
    if schema.get("type") == "array" and "$ref" in schema["items"]:
        item = _component_example(schema["items"], components)
        return None if item is None else [item]
    return None


def _fits(example: Any, media: str, content: dict[str, Any], check: SchemaCheck, where: Any) -> None:
    if media == "application/jsonl":
        assert isinstance(example, str) and all(json.loads(line) for line in example.splitlines()), where
        return
    import jsonschema

    schema = {**as_json_schema(content["schema"]), "components": check.components}
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(example))
    assert not errors, (
        where,
        [f"{list(error.absolute_path)}: {error.message[:200]}" for error in errors[:3]],
    )


def test_every_operation_has_an_example_answer_and_request_that_fit_their_schemas(check: SchemaCheck) -> None:
    """Every 2xx with a body has an example answer (the operation's own, campaign/api/examples.py, or its
    component's), every request body an example, and each fits the schema it illustrates."""
    schemas = check.schema["components"]["schemas"]
    without, counted = [], 0
    for path, operations in check.schema["paths"].items():
        for method, operation in operations.items():
            for media, content in operation.get("requestBody", {}).get("content", {}).items():
                examples = [example["value"] for example in content.get("examples", {}).values()]
                assert examples, (method, path, media, "no request example")
                for example in examples:
                    _fits(example, media, content, check, (method, path, media))
            for status, declared in operation["responses"].items():
                for media, content in declared.get("content", {}).items() if status.startswith("2") else ():
                    examples = [example["value"] for example in content.get("examples", {}).values()]
                    for example in examples:
                        _fits(example, media, content, check, (method, path, status))
                    counted += len(examples)
                    if not examples and _component_example(content["schema"], schemas) is None:
                        without.append((method, path))
    assert set(without) == WITHOUT_EXAMPLE_ANSWER
    assert counted >= 25


def test_the_ruleset_fields_are_declared_once(check: SchemaCheck) -> None:
    """`options` and `attributes` point at one component each, the place a per-ruleset type takes."""
    schemas = check.schema["components"]["schemas"]
    assert schemas["Campaign"]["properties"]["options"] == {"$ref": answers.REF + answers.CAMPAIGN_OPTIONS}
    assert schemas["Ruleset"]["properties"]["options"] == {"$ref": answers.REF + answers.CAMPAIGN_OPTIONS}
    for name in ("Shadowrun2GmCharacter", "DarkfuturePlayerCharacter"):
        assert schemas[name]["properties"]["attributes"] == {
            "$ref": answers.REF + answers.CHARACTER_ATTRIBUTES
        }


def test_each_operation_has_a_summary_and_gets_declare_no_write_statuses(check: SchemaCheck) -> None:
    for path, operations in check.schema["paths"].items():
        for method, operation in operations.items():
            assert operation.get("summary"), (path, method)
            if method == "get":
                assert not {"201", "202", "409", "422"} & set(operation["responses"]), (path, method)
            if operation.get("requestBody", {}).get("content", {}).get("application/json"):
                assert operation["requestBody"]["content"]["application/json"].get("examples"), (path, method)
    character = check.schema["paths"]["/api/characters/{character_id}/"]
    assert [p["name"] for p in character["get"]["parameters"] if p["in"] == "query"] == ["version"]
    for method in ("patch", "delete"):
        assert [p["in"] for p in character[method]["parameters"]] == ["path"]
    assert set(character["get"]["responses"]["200"]["headers"]) == {"ETag"}
    assert "304" in character["get"]["responses"]
    retired = check.schema["paths"]["/api/campaigns/{campaign_id}/characters/"]["get"]["parameters"]
    assert [p["name"] for p in retired if p["in"] == "query"] == ["retired"]
    export = check.schema["paths"]["/api/campaigns/{campaign_id}/export/"]["get"]["responses"]["200"]
    assert list(export["content"]) == ["application/jsonl"]


def test_every_header_the_api_answers_or_takes_is_declared_where_it_is(check: SchemaCheck) -> None:
    """Retry-After on every 429 and 503, an integer of seconds; ETag on a character's 200 and 304; Idempotency-Key
    taken by every POST that creates or advances (docs/api.md, "Headers")."""
    keyed = set()
    for path, operations in check.schema["paths"].items():
        for method, operation in operations.items():
            for status in ("429", "503"):
                header = operation["responses"][status]["headers"]["Retry-After"]
                assert header["schema"] == {"type": "integer", "minimum": 0}, (path, method, status)
            if any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", [])):
                keyed.add((method, path))
    assert keyed == {
        ("post", "/api/campaigns/"),
        ("post", "/api/campaigns/{campaign_id}/characters/"),
        ("post", "/api/campaigns/{campaign_id}/characters/numbered/"),
        ("post", "/api/campaigns/{campaign_id}/clock/"),
        ("post", "/api/campaigns/import/"),
        ("post", "/api/characters/{character_id}/actions/"),
        ("post", "/api/characters/{character_id}/duplicate/"),
        ("post", "/api/jobs/{job_id}/rolls/"),
        ("post", "/api/jobs/{job_id}/go-on/"),
    }
    character = check.schema["paths"]["/api/characters/{character_id}/"]["get"]["responses"]
    assert {status for status, answer in character.items() if "ETag" in answer.get("headers", {})} == {
        "200",
        "304",
    }


def test_a_refusal_that_says_when_to_try_again_sends_the_declared_retry_after(
    sr2: Table, check: SchemaCheck, settings: Any
) -> None:
    from campaign.forecast import forecast_budget

    with forecast_budget.budget(sr2.player.user.pk):  # the player's forecast running: a second one waits
        refused = sr2.player.get(f"{sr2.character_url()}forecast/?runs=10")
    assert refused.status_code == 429 and refused.has_header("Retry-After")
    check.check(refused)
    settings.FORECAST_TIME_BOX = 0
    stopped = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/recovery/")
    assert (stopped.status_code, stopped["Retry-After"]) == (503, "60")
    check.check(stopped)


@pytest.mark.django_db
@pytest.mark.parametrize("slug", list(SCRIPTS))
def test_the_recorded_sessions_answers_fit_the_schema(
    slug: str, django_user_model: Any, server_dice: ServerDice, check: SchemaCheck
) -> None:
    server_dice(seeded_dice(20261201))
    attributes, script = SCRIPTS[slug]
    session = CheckedSession(make_table(django_user_model, slug, attributes), check)
    session.record("the ruleset", session.table.anonymous.get("/api/rulesets/"))
    script(session)
    assert len(session.answers) > 20


def test_the_rest_of_the_api_answers_as_the_schema_says(
    sr2: Table, check: SchemaCheck, django_user_model: Any
) -> None:
    t = sr2
    campaign = f"/api/campaigns/{t.campaign['id']}/"
    character = t.character_url()

    def ok(response: Any, status: int) -> Any:
        assert response.status_code == status, getattr(response, "content", b"")
        check.check(response)
        if response.streaming or not response.content:
            return None
        return response.json()

    ok(t.gm.get("/api/campaigns/"), 200)
    ok(t.player.get(campaign), 200)
    ok(t.gm.client.patch(campaign, {"name": "Seattle 2054"}, format="json"), 200)
    ok(t.gm.get(f"{campaign}members/"), 200)
    invited = ok(t.gm.post(f"{campaign}members/", {"username": "stranger", "role": "player"}), 201)
    ok(t.gm.post(f"{campaign}members/", {"username": "stranger", "role": "player"}), 200)
    ok(t.gm.post(f"{campaign}members/", {"username": "gm2", "role": "player"}), 200)
    ok(t.stranger.get("/api/invitations/"), 200)
    ok(t.stranger.post(f"/api/invitations/{invited['id']}/accept/"), 200)
    ok(t.stranger.client.delete(f"{campaign}members/stranger/"), 204)
    # Characters: the lists, the GM's and the player's, time travel, an ETag's 304, an edit, retire and restore.
    ok(t.act({"type": "wound", "severity": "D", "rolls": {"body_check": [1, 1, 1, 1, 1]}}), 201)
    for who in (t.gm, t.player):
        ok(who.get(f"{campaign}characters/"), 200)
        etag = who.get(character)["ETag"]
        ok(who.get(character, HTTP_IF_NONE_MATCH=etag), 304)
        ok(who.get(f"{character}events/?limit=1"), 200)
        ok(who.get(f"{campaign}events/?after=0"), 200)
        ok(who.get(f"{character}forecast/?runs=1000&seed=1"), 200)
        ok(who.get(f"{campaign}clock/"), 200)
    ok(t.gm.get(f"{character}?version=1"), 200)
    ok(t.gm.client.patch(character, {"name": "Ash the Elder"}, format="json"), 200)
    ok(t.gm.delete(character), 200)
    ok(t.gm.get(f"{campaign}characters/?retired=true"), 200)
    ok(t.gm.post(f"{character}restore/"), 200)
    ok(t.gm.post(f"{character}duplicate/", {}), 201)
    ok(
        t.gm.post(
            f"{campaign}characters/numbered/", {"prefix": "Ganger", "count": 2, "attributes": {"body": 4}}
        ),
        201,
    )
    # The clock, its job and its rewind; an export, imported again, and the import's job.
    job = ok(t.advance(minutes=10), 202)
    ok(t.gm.get(f"/api/jobs/{job['job']}/"), 200)
    ok(t.gm.post(f"{campaign}clock/rewind/"), 200)
    export = t.gm.get(f"{campaign}export/")
    ok(export, 200)
    upload = io.BytesIO(b"".join(export.streaming_content))
    upload.name = "campaign.jsonl"
    imported = ok(t.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart"), 202)
    ok(t.gm.get(f"/api/jobs/{imported['id']}/"), 200)
    # The errors: 400, 401, 403, 404, 409.
    ok(t.gm.post(f"{campaign}characters/", {"name": ""}), 400)
    ok(t.anonymous.get(campaign), 401)
    ok(t.player.post(f"{campaign}clock/", {"advance": {"hours": 1}}), 403)
    ok(t.stranger.get(character), 404)
    ok(t.act({"type": "note", "text": "x", "expected_version": 0}), 409)


def test_a_replaced_shadowrun_hit_fits_the_schema(sr2: Table, check: SchemaCheck) -> None:
    from tests.api.test_shadowrun2 import CRIPPLING_RIBS, diagnosed, wound

    wound(sr2, "S", CRIPPLING_RIBS)
    diagnosed(sr2)
    replaced = sr2.act({"type": "replace", "critical_hit": "ch1", "replacement": "Bone lacing"})
    check.check(replaced)
    for who in (sr2.gm, sr2.player):
        check.check(who.get(sr2.character_url()))
    assert replaced.json()["character"]["sheet"]["critical_hits"][0]["replacement"] == "Bone lacing"


def test_half_a_point_of_healing_a_day_fits_the_schema(cp2020: Table, check: SchemaCheck) -> None:
    from tests.api.test_cyberpunk2020 import WOUND_TORSO_7

    assert cp2020.act(WOUND_TORSO_7).status_code == 201
    treat = {"type": "treat", "skill": "first_aid", "medic": "Doc", "tech": 6, "skill_level": 4}
    treated = cp2020.act({**treat, "rolls": {"treatment": [5]}})
    check.check(treated)
    assert treated.json()["character"]["sheet"]["healing_rate"] == 0.5


def test_table_dice_answer_a_needed_roll_as_the_schema_says(
    db: None, django_user_model: Any, check: SchemaCheck
) -> None:
    t = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "actions"})
    asked = t.act({"type": "wound", "severity": "S"})
    assert asked.status_code == 422 and asked.json()["needs_roll"]["name"]
    check.check(asked)


def test_a_players_feed_starts_at_zero_as_a_gms_does(sr2: Table) -> None:
    assert sr2.act({"type": "note", "text": "the sniper was Lone Star"}).status_code == 201
    assert (
        sr2.act({"type": "wound", "severity": "L", "rolls": {"body_check": [6, 6, 6, 6, 6]}}).status_code
        == 201
    )
    feed = f"/api/campaigns/{sr2.campaign['id']}/events/"
    from_zero, from_nothing = sr2.player.get(f"{feed}?after=0"), sr2.player.get(feed)
    assert from_zero.status_code == 200, from_zero.content
    assert from_zero.json() == from_nothing.json()
    # Still the player's feed: the GM's note is not in it, and no entry carries a log position or an actor.
    types = [entry["type"] for entry in from_zero.json()["events"]]
    assert "NoteAdded" not in types and "WoundTaken" in types
    assert all(entry["position"] is None and entry["actor"] is None for entry in from_zero.json()["events"])
    assert isinstance(from_zero.json()["last_position"], str)


def test_a_players_feed_still_refuses_a_cursor_it_was_not_given(sr2: Table) -> None:
    answer = sr2.player.get(f"/api/campaigns/{sr2.campaign['id']}/events/?after=1")
    assert answer.status_code == 400
    assert list(answer.json()) == ["after"]
