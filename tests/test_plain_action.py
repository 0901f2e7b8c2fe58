"""A GM's action posted the usual way is answered without DRF's request machinery (campaign/api/plain.py), with
DRF's answer: the same status, headers in the same order and bytes. DRF's own path is taken by the same request
with `Accept: application/json` (negotiated by DRF to the same renderer), on a twin character with the same dice."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from rest_framework.decorators import api_view, permission_classes, throttle_classes
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.throttling import UserRateThrottle

from campaign import services
from campaign.api import plain
from tests.conftest import Table, seeded_dice
from tests.test_recorded_answers import _normal

DRF = {
    "HTTP_ACCEPT": "application/json"
}  # what DRF answers with its first renderer too, through its own view
WOUND = {"type": "wound", "severity": "S", "rolls": {"body_check": [1, 1, 1, 1, 1]}}


def _twin(table: Table) -> dict[str, Any]:
    made = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/",
        {"name": "Ash", "player": "player", "attributes": {"body": 5, "willpower": 4}},
    )
    assert made.status_code == 201, made.content
    return made.json()


def _post(table: Table, character: dict[str, Any], body: Any, **extra: Any) -> Any:
    return table.gm.post(f"/api/characters/{character['id']}/actions/", body, **extra)


def _same_answer(ours: Any, drf: Any) -> None:
    assert ours.status_code == drf.status_code, (ours.content, drf.content)
    # Content-Length aside: ids and times differ in length.
    assert [h for h in ours.headers.items() if h[0] != "Content-Length"] == [
        h for h in drf.headers.items() if h[0] != "Content-Length"
    ]
    # The same JSON in the same key order once ids and times are set aside, written as DRF's renderer writes it.
    assert json.dumps(_normal(ours.json())) == json.dumps(_normal(drf.json()))
    assert JSONRenderer().render(ours.json()) == ours.content


@pytest.fixture
def twins(sr2: Table, monkeypatch: pytest.MonkeyPatch) -> tuple[Table, dict[str, Any], dict[str, Any]]:
    monkeypatch.setattr(services, "Dice", seeded_dice(20261201))  # the server's dice alike on both sides
    return sr2, _twin(sr2), _twin(sr2)


@pytest.mark.parametrize(
    "body",
    [
        WOUND,  # the action and its answer
        {
            "type": "first_aid",
            "medic": "Doc",
            "rolls": {"first_aid": [6]},
        },  # a rule's refusal: nothing to treat
        {"type": "wound", "severity": "X"},  # a parameter refused by the rules
    ],
)
def test_an_action_and_a_refusal_of_the_rules_are_answered_as_drf_answers_them(
    twins: tuple[Table, dict[str, Any], dict[str, Any]], body: dict[str, Any]
) -> None:
    table, ours, theirs = twins
    _same_answer(_post(table, ours, body), _post(table, theirs, body, **DRF))


def test_an_idempotent_replay_is_answered_as_drf_answers_it(
    twins: tuple[Table, dict[str, Any], dict[str, Any]],
) -> None:
    table, ours, theirs = twins
    for character, extra in ((ours, {}), (theirs, DRF)):
        _post(table, character, WOUND, HTTP_IDEMPOTENCY_KEY=f"k{character['id']}", **extra)
    again = [
        _post(table, character, WOUND, HTTP_IDEMPOTENCY_KEY=f"k{character['id']}", **extra)
        for character, extra in ((ours, {}), (theirs, DRF))
    ]
    assert again[0].json()["replayed"] is True
    _same_answer(*again)


@pytest.mark.parametrize(
    "who, path, body, headers",
    [
        ("gm", "", "{not json", {}),  # the body
        ("gm", "", json.dumps(WOUND), {"HTTP_AUTHORIZATION": "Token nobody"}),  # the token
        ("gm", "", json.dumps(WOUND), {"HTTP_AUTHORIZATION": "Token"}),  # the token's header
        ("player", "", json.dumps(WOUND), {}),  # not a GM
        ("stranger", "", json.dumps(WOUND), {}),  # not a member: no such character
        ("gm", "999999/", json.dumps(WOUND), {}),  # no such character
        ("gm", "", json.dumps(WOUND), {"HTTP_IDEMPOTENCY_KEY": "x" * 500}),  # the key
        ("gm", "", json.dumps([1, 2]), {}),  # not an object: the service's refusal
    ],
)
def test_refusals_before_the_action_are_drf_s_own(
    sr2: Table, who: str, path: str, body: str, headers: dict[str, str]
) -> None:
    url = f"/api/characters/{path or str(sr2.character['id']) + '/'}actions/"
    client = sr2.anonymous if "HTTP_AUTHORIZATION" in headers else getattr(sr2, who).client
    ours = client.post(url, body, content_type="application/json", **headers)
    drf = client.post(url, body, content_type="application/json", **headers, **DRF)
    assert ours.status_code >= 400
    assert (ours.status_code, list(ours.headers.items()), ours.content) == (
        drf.status_code,
        list(drf.headers.items()),
        drf.content,
    )


@pytest.mark.parametrize(
    "meta, plain_request",
    [
        ({}, True),
        ({"HTTP_ACCEPT": "*/*"}, True),
        ({"HTTP_AUTHORIZATION": "token abc"}, True),  # DRF's keyword is read without case
        ({"HTTP_ACCEPT": "application/json"}, False),
        ({"HTTP_ACCEPT": "text/html"}, False),  # DRF's browsable API
        ({"QUERY_STRING": "format=json"}, False),
        ({"CONTENT_TYPE": "application/json; charset=utf-8"}, False),
        ({"CONTENT_TYPE": "multipart/form-data"}, False),
        ({"HTTP_AUTHORIZATION": ""}, False),  # the session's: DRF checks its CSRF token
        ({"REQUEST_METHOD": "OPTIONS"}, False),
        ({"CONTENT_LENGTH": "999999999"}, False),
    ],
)
def test_what_is_answered_plainly(rf: Any, meta: dict[str, str], plain_request: bool) -> None:
    request = rf.post("/api/characters/1/actions/", "{}", content_type="application/json")
    request.META.update({"HTTP_AUTHORIZATION": "Token abc", **meta})
    request.method = request.META["REQUEST_METHOD"]
    assert plain.plain_request(request) is plain_request


def test_a_view_with_checks_the_plain_path_skips_is_refused() -> None:
    @api_view(["POST"])
    @throttle_classes([UserRateThrottle])
    def throttled(request: Any) -> Any:
        raise AssertionError

    @api_view(["POST"])
    @permission_classes([AllowAny])
    def open_to_all(request: Any) -> Any:
        raise AssertionError

    for view in (throttled, open_to_all):
        with pytest.raises(ImproperlyConfigured):
            plain.answered_plainly(view, status=201)
