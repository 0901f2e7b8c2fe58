"""The push API (docs/notifications.md): the server's key, a device subscribing once however often it asks, its
undo by its owner alone, and every bad field refused by name, each answer as the schema declares it."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.models import PushSubscription
from tests.api.schema_check import SchemaCheck
from tests.conftest import Table
from tests.notify.fake_push import Phone

SUBSCRIPTIONS = "/api/push/subscriptions/"


@pytest.fixture
def check(client: Any) -> SchemaCheck:
    return SchemaCheck(client.get("/api/schema/?format=json").json())


def checked(check: SchemaCheck, response: Any) -> Any:
    """The response, once the schema has been found to declare it."""
    check.check(response)
    return response


def test_the_key_is_the_servers_vapid_public_key(sr2: Table, vapid: str, check: SchemaCheck) -> None:
    answer = checked(check, sr2.player.get("/api/push/key/"))
    assert answer.status_code == 200 and answer.json() == {"public_key": vapid}
    assert sr2.anonymous.get("/api/push/key/").status_code == 401


def test_without_vapid_keys_push_is_off_and_says_so(sr2: Table, check: SchemaCheck) -> None:
    answer = checked(check, sr2.player.get("/api/push/key/"))
    assert answer.status_code == 404
    assert answer.json() == {"detail": "push notifications are not set up on this server (VAPID_PRIVATE_KEY)"}
    refused = sr2.player.post(SUBSCRIPTIONS, Phone("https://push.example.net/a").subscription())
    assert refused.status_code == 404


def test_a_device_subscribes_once_however_often_it_asks(sr2: Table, vapid: str, check: SchemaCheck) -> None:
    phone = Phone("https://push.example.net/wpush/v2/ash")
    first = checked(check, sr2.player.post(SUBSCRIPTIONS, phone.subscription()))
    again = checked(check, sr2.player.post(SUBSCRIPTIONS, phone.subscription()))

    assert first.status_code == 201 and again.status_code == 200
    assert first.json() == {
        "id": first.json()["id"],
        "endpoint": "https://push.example.net/wpush/v2/ash",
        "campaigns": [],
        "created_at": first.json()["created_at"],
    }
    assert again.json() == first.json()
    assert PushSubscription.objects.filter(user=sr2.player.user).count() == 1


def test_a_device_another_person_subscribes_on_is_theirs_alone(sr2: Table, vapid: str) -> None:
    """A shared tablet: whoever subscribed last is told, never the one before."""
    phone = Phone("https://push.example.net/wpush/v2/tablet")
    first = sr2.player.post(SUBSCRIPTIONS, phone.subscription()).json()
    taken = sr2.other_player.post(SUBSCRIPTIONS, phone.subscription())

    assert taken.status_code == 201 and taken.json()["id"] != first["id"]
    assert list(PushSubscription.objects.values_list("user__username", flat=True)) == ["other_player"]


def test_a_gm_names_the_campaigns_the_device_is_told_of_and_only_their_own(sr2: Table, vapid: str) -> None:
    phone = Phone("https://push.example.net/g")
    campaign = sr2.campaign["id"]
    mine = sr2.gm.post(SUBSCRIPTIONS, {**phone.subscription(), "campaigns": [campaign]})
    assert mine.status_code == 201 and mine.json()["campaigns"] == [campaign]
    refused = sr2.player.post(
        SUBSCRIPTIONS, {**Phone("https://push.example.net/p").subscription(), "campaigns": [campaign]}
    )
    assert refused.status_code == 400
    assert refused.json() == {"campaigns": [f"expected the ids of campaigns you are a GM of; not {campaign}"]}


P256DH = "the browser's P-256 public key, base64url (PushSubscription.getKey('p256dh'))"
AUTH = "the browser's 16-byte auth secret, base64url (PushSubscription.getKey('auth'))"
URL = "the push service's https URL the browser gave (PushSubscription.endpoint)"


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"endpoint": "http://push.example.net/a"}, "endpoint", f"expected {URL}"),
        ({"endpoint": "ftp://push.example.net/a"}, "endpoint", f"expected {URL}"),
        ({"endpoint": "https:///no-host"}, "endpoint", f"expected {URL}"),
        ({"endpoint": "https://push.example.net/" + "a" * 1000}, "endpoint", f"expected {URL}"),
        ({"endpoint": 7}, "endpoint", f"expected {URL}"),
        (
            {"endpoint": "https://169.254.169.254/latest"},
            "endpoint",
            f"expected {URL}; 169.254.169.254 is a cloud metadata service: notifications go only to the public "
            "internet",
        ),
        (
            {"endpoint": "https://[::1]/push"},
            "endpoint",
            f"expected {URL}; ::1 is a loopback address: notifications go only to the public internet",
        ),
        ({"endpoint": "https://user:secret@push.example.net/a"}, "endpoint", f"expected {URL}"),
        (
            {"keys": {"p256dh": "bm90IGEga2V5", "auth": "Vd0bSDOk4lBL3-IkTBbrXg"}},
            "keys.p256dh",
            f"expected {P256DH}",
        ),
        ({"keys": {"p256dh": "!!!", "auth": "Vd0bSDOk4lBL3-IkTBbrXg"}}, "keys.p256dh", f"expected {P256DH}"),
        ({"keys": "both"}, "keys", "expected an object with p256dh and auth"),
        ({"campaigns": "all"}, "campaigns", "expected a list of campaign ids"),
        ({"endpont": "https://push.example.net/a"}, "endpont", None),
    ],
)
def test_a_bad_field_is_refused_by_name_and_nothing_is_kept(
    sr2: Table, vapid: str, check: SchemaCheck, change: dict[str, Any], field: str, words: str | None
) -> None:
    body = {**Phone("https://push.example.net/a").subscription(), **change}
    answer = checked(check, sr2.player.post(SUBSCRIPTIONS, body))
    assert answer.status_code == 400
    assert list(answer.json()) == [field]
    if words is not None:
        assert answer.json()[field] == [words]
    assert not PushSubscription.objects.exists()


def test_a_bad_auth_secret_is_refused_by_name(sr2: Table, vapid: str) -> None:
    body = Phone("https://push.example.net/a").subscription()
    body["keys"]["auth"] = "c2hvcnQ"  # "short": 5 bytes
    answer = sr2.player.post(SUBSCRIPTIONS, body)
    assert answer.status_code == 400 and answer.json() == {"keys.auth": [f"expected {AUTH}"]}


def test_a_subscription_is_undone_by_its_owner_alone(sr2: Table, vapid: str, check: SchemaCheck) -> None:
    subscription = sr2.player.post(SUBSCRIPTIONS, Phone("https://push.example.net/a").subscription()).json()
    url = f"{SUBSCRIPTIONS}{subscription['id']}/"

    assert checked(check, sr2.other_player.delete(url)).status_code == 404
    assert checked(check, sr2.gm.delete(url)).status_code == 404
    assert checked(check, sr2.player.delete(url)).status_code == 204
    assert checked(check, sr2.player.delete(url)).status_code == 404
    assert not PushSubscription.objects.exists()
