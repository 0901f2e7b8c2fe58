"""Sending the outbox (docs/notifications.md) to local fakes: Discord within its limits and its rate limit, a signed
webhook its receiver verifies, each delivery once, and what each failure does to its hook."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from campaign import tasks
from campaign.models import Campaign, Delivery, Event, Hook
from campaign.notify import deliver, words
from tests.conftest import Table
from tests.notify.conftest import EVERY_KIND, MORTAL_LUNG, add_hook
from tests.notify.fakes import DiscordFake, WebhookFake, serving

pytestmark = pytest.mark.usefixtures("local_fakes")
WOUND = {"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}


def _only_delivery() -> Delivery:
    (row,) = Delivery.objects.all()
    return row


def test_discord_gets_its_json_within_its_limits_and_a_429_is_waited_out(sr2: Table) -> None:
    with serving(DiscordFake()) as discord:
        hook = add_hook(sr2, "table", kind="discord", url=f"{discord.url}/api/webhooks/1/token")
        assert sr2.act(WOUND).status_code == 201
        delivery = _only_delivery()
        began = time.monotonic()
        deliver.deliver_patiently(str(delivery.pk))  # what the thread beside the request does
        waited = time.monotonic() - began

    assert discord.problems == []
    assert [r.path for r in discord.received] == ["/api/webhooks/1/token"] * 2  # a 429, then 204
    assert waited >= 1.0  # Retry-After: 1 (longer than the body's retry_after of 0.5)
    assert {r.headers["x-ledger-delivery"] for r in discord.received} == {str(delivery.pk)}
    payload = discord.received[1].json()
    assert payload == {
        "content": "**Seattle 2053** · 2053-01-01 00:00:00",
        "embeds": [
            {
                "title": "Ash was wounded",
                "description": "Serious physical wound: 6 boxes (physical 6, stun 0). A critical hit to the chest: "
                "A wound in the chest bleeds through the clothes; every breath hurts and comes short.",
            }
        ],
        "allowed_mentions": {"parse": []},
    }
    delivery.refresh_from_db()
    assert (delivery.status, delivery.tries, delivery.last_error) == ("sent", 2, "")
    assert Hook.objects.get(pk=hook["id"]).last_error == ""


def test_a_digest_of_many_characters_keeps_to_discords_limits() -> None:
    notices = [
        words.notice(
            ["wounded"], f"Ganger {n} was wounded", ["A long sentence of the game. " * 300], f"Ganger {n}"
        )
        for n in range(1, 13)
    ]
    message = {"campaign": {"id": 1, "name": "Seattle 2053 " * 300}, "game_date": "2053-01-01 00:00:00"}
    payload = deliver.discord_payload({**message, "notices": notices, "events": []})
    fake = DiscordFake()
    from tests.notify.fakes import Received

    assert (
        fake.check(Received("/", {"content-type": "application/json"}, deliver.json.dumps(payload).encode()))
        == []
    )
    assert [embed["title"] for embed in payload["embeds"]][-2:] == ["Ganger 9 was wounded", "And 3 more"]
    assert payload["embeds"][-1]["description"].startswith("Ganger 10 was wounded; Ganger 11 was wounded")


def test_a_signed_webhook_is_verified_by_its_receiver(sr2: Table) -> None:
    with serving(WebhookFake()) as receiver:
        hook = add_hook(sr2, "gm", url=f"{receiver.url}/ledger", events=EVERY_KIND)
        receiver.secret = hook["secret"]
        assert sr2.act(WOUND).status_code == 201
        delivery = _only_delivery()
        assert deliver.deliver_one(delivery.pk) == deliver.Sent()

    assert receiver.problems == []
    body = receiver.kept[str(delivery.pk)]
    positions = list(
        Event.objects.filter(type__in=["WoundTaken", "CriticalHitTaken"]).values_list("position", flat=True)
    )
    assert body["campaign"] == {"id": sr2.campaign["id"], "name": "Seattle 2053"}
    assert [(e["position"], e["type"], e["character"]) for e in body["events"]] == [
        (positions[0], "WoundTaken", "Ash"),
        (positions[1], "CriticalHitTaken", "Ash"),
    ]
    assert body["notices"][0]["text"].startswith("Ash was wounded and is dying: Body check: 0 successes")


def test_a_delivery_that_succeeded_is_never_sent_again(sr2: Table) -> None:
    with serving(WebhookFake()) as receiver:
        receiver.secret = add_hook(sr2, "table", url=receiver.url)["secret"]
        assert sr2.act(WOUND).status_code == 201
        delivery = _only_delivery()
        deliver.deliver_notice(str(delivery.pk))  # the task, run twice (a message delivered twice)
        deliver.deliver_notice(str(delivery.pk))
        assert deliver.stalled_deliveries() == []  # and the sweep has nothing to resend
    assert len(receiver.received) == 1
    assert Delivery.objects.get().status == Delivery.SENT


def test_a_delivery_another_sender_holds_is_left_to_it_until_its_lease_ends(sr2: Table) -> None:
    with serving(WebhookFake()) as receiver:
        receiver.secret = add_hook(sr2, "table", url=receiver.url)["secret"]
        assert sr2.act(WOUND).status_code == 201
        delivery = _only_delivery()
        held = timezone.now() + timedelta(seconds=60)
        Delivery.objects.filter(pk=delivery.pk).update(claimed_until=held)
        assert deliver.deliver_one(delivery.pk) is None
        assert receiver.received == []
        # The sender was killed: once its lease is over, and the delivery has waited a while, the sweep resends it,
        # with the same id.
        due = timezone.now() - deliver.STALLED_AFTER - timedelta(seconds=1)
        Delivery.objects.filter(pk=delivery.pk).update(claimed_until=due, next_try_at=due)
        assert deliver.stalled_deliveries() == [str(delivery.pk)]
        assert deliver.deliver_one(delivery.pk) == deliver.Sent()
    assert receiver.received[0].headers["x-ledger-delivery"] == str(delivery.pk)


def test_the_stalled_job_sweep_resends_the_deliveries_nobody_holds(
    sr2: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_hook(sr2, "table")
    assert sr2.act(WOUND).status_code == 201
    delivery = _only_delivery()
    sent: list[list[str]] = []
    monkeypatch.setattr(deliver, "enqueue", lambda ids, after=0.0: sent.append(list(ids)))
    assert tasks.resume_stalled_jobs() == 0  # just written: its own message has it
    Delivery.objects.filter(pk=delivery.pk).update(next_try_at=timezone.now() - timedelta(minutes=5))
    assert tasks.resume_stalled_jobs() == 1
    assert sent == [[str(delivery.pk)]]


def test_a_gone_address_switches_the_hook_off_and_the_board_says_so(sr2: Table) -> None:
    unknown = (404, {"Content-Type": "application/json"}, b'{"message": "Unknown Webhook", "code": 10015}')
    fake = DiscordFake()
    fake.answers = [unknown]
    with serving(fake) as discord:
        hook = add_hook(sr2, "table", kind="discord", url=f"{discord.url}/api/webhooks/1/token")
        assert sr2.act(WOUND).status_code == 201
        assert (
            sr2.act({"type": "wound", "severity": "L", "rolls": {"body_check": [6, 6, 6, 6, 6]}}).status_code
            == 201
        )
        first, second = Delivery.objects.order_by("created_at")
        outcome = deliver.deliver_one(first.pk)

    said = "Discord answered 404 Not Found (Unknown Webhook): the address is no longer valid"
    assert outcome == deliver.Failed(said, gone=True)
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.status, second.status) == ("failed", "failed")  # what waited for it goes no more
    assert second.last_error == f"its hook was switched off: {said}"
    listed = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/hooks/").json()
    assert [(h["id"], h["active"], h["last_error"]) for h in listed] == [(hook["id"], False, said)]
    off = Event.objects.get(type="HookSwitchedOff")
    assert off.data == {"hook": hook["id"], "kind": "discord", "host": "127.0.0.1", "reason": said}
    line = f"Notifications to Discord (127.0.0.1) are switched off: {said}. Remove the hook and add it again once it works."
    assert Campaign.objects.get(pk=sr2.campaign["id"]).notify["off"] == [{"hook": hook["id"], "words": line}]
    board = Client()
    board.force_login(sr2.gm.user)
    assert line in board.get(f"/campaigns/{sr2.campaign['id']}/").content.decode()
    assert sr2.act(WOUND).status_code == 201  # a hook switched off is told nothing more
    assert Delivery.objects.count() == 2


def test_errors_are_tried_again_and_a_day_of_them_switches_the_hook_off(sr2: Table) -> None:
    with serving(WebhookFake()) as receiver:
        receiver.otherwise = (503, {}, b"")
        hook = add_hook(sr2, "gm", url=receiver.url)
        assert sr2.act(WOUND).status_code == 201
        delivery = _only_delivery()
        outcome = deliver.deliver_one(delivery.pk)
        assert isinstance(outcome, deliver.Retry) and outcome.failing
        assert outcome.error == "127.0.0.1 answered 503 Service Unavailable"
        assert deliver.FIRST_WAIT / 2 <= outcome.after <= deliver.FIRST_WAIT
        row = Hook.objects.get(pk=hook["id"])
        assert (row.active, row.last_error, row.failing_since is not None) == (True, outcome.error, True)
        # A day later, still failing: switched off.
        Hook.objects.filter(pk=hook["id"]).update(
            failing_since=timezone.now() - timedelta(hours=24, minutes=1)
        )
        Delivery.objects.filter(pk=delivery.pk).update(next_try_at=timezone.now())
        assert isinstance(deliver.deliver_one(delivery.pk), deliver.Retry)
    row = Hook.objects.get(pk=hook["id"])
    assert (row.active, row.last_error) == (
        False,
        "it has failed for a day: 127.0.0.1 answered 503 Service Unavailable",
    )
    assert Delivery.objects.get().status == Delivery.FAILED


def test_a_receiver_that_answers_too_late_is_tried_again(sr2: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    from campaign.notify import ssrf

    monkeypatch.setattr(ssrf, "TIMEOUT", deliver.httpx.Timeout(0.3))
    fake = WebhookFake()
    fake.answer = lambda request: (time.sleep(1.0), (200, {}, b""))[1]  # type: ignore[method-assign]
    with serving(fake) as receiver:
        add_hook(sr2, "gm", url=receiver.url)
        assert sr2.act(WOUND).status_code == 201
        outcome = deliver.deliver_one(_only_delivery().pk)
    assert isinstance(outcome, deliver.Retry) and outcome.error == "127.0.0.1 did not answer in time"


def test_a_hooks_test_goes_through_the_outbox_and_the_hook_says_how_it_went(sr2: Table) -> None:
    with serving(DiscordFake()) as discord:
        hook = add_hook(sr2, "table", kind="discord", url=f"{discord.url}/api/webhooks/1/token")
        answer = sr2.gm.post(f"/api/campaigns/{sr2.campaign['id']}/hooks/{hook['id']}/test/")
        assert (answer.status_code, answer.json()["status"]) == (202, "queued")
        delivery = answer.json()["delivery"]
        # Discord asks to slow down: the hook rests, the test waits for it; then it goes.
        first = deliver.deliver_one(delivery)
        assert first == deliver.Retry(
            1.0, "Discord answered 429 Too Many Requests: asked to slow down", False
        )
        assert Hook.objects.get(pk=hook["id"]).resting_until is not None
        assert deliver.deliver_one(delivery) is None  # not due yet
        deliver.deliver_patiently(delivery)
    assert discord.problems == []
    assert discord.received[-1].json()["embeds"] == [
        {"title": "A test from Wound Ledger: the notifications of Seattle 2053 will reach this channel"}
    ]
    listed = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/hooks/").json()[0]
    assert (listed["active"], listed["last_error"], listed["last_sent_at"] is not None) == (True, None, True)


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_deliveries_run_beside_the_request_never_inside_it(django_user_model: Any) -> None:
    """The embedded default: the action answers before its receiver does, and the delivery still arrives."""
    from tests.conftest import make_table

    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    fake = WebhookFake()
    # The receiver answers once the test lets it (or after 5 s, within the sender's read timeout): a request that
    # waited for it would come back after its delivery was sent, however fast or slow the machine.
    let_go = threading.Event()
    fake.answer = lambda request: (let_go.wait(5), (200, {}, b""))[1]  # type: ignore[method-assign]
    with serving(fake) as receiver:
        receiver.secret = add_hook(table, "table", url=receiver.url)["secret"]
        assert table.act(WOUND).status_code == 201
        assert Delivery.objects.get().status != Delivery.SENT  # the request did not wait for the receiver
        let_go.set()
        deadline = time.monotonic() + 20
        while Delivery.objects.filter(status=Delivery.SENT).count() < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
    assert Delivery.objects.get().status == Delivery.SENT
    assert receiver.problems == [] and len(receiver.received) == 1


def test_a_senders_own_error_is_tried_again_and_counted_against_its_hook(
    sr2: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(delivery: Delivery) -> deliver.Outcome:
        raise KeyError("a bug")

    monkeypatch.setitem(deliver.SENDERS, "webhook", broken)
    hook = add_hook(sr2, "gm")
    assert sr2.act(WOUND).status_code == 201
    outcome = deliver.deliver_one(_only_delivery().pk)
    assert isinstance(outcome, deliver.Retry) and outcome.error == deliver.SENDER_ERROR
    delivery = _only_delivery()
    assert (delivery.status, delivery.claimed_until, delivery.last_error) == (
        "pending",
        None,
        deliver.SENDER_ERROR,
    )
    assert Hook.objects.get(pk=hook["id"]).failing_since is not None


def test_a_message_for_no_delivery_sends_nothing(db: None) -> None:
    assert deliver.deliver_one("not-a-delivery") is None
    assert deliver.deliver_one("0b7e3c52-9a51-4d0e-8f4a-63c1a2d9e2b7") is None
