"""Notifications through a real Redis broker and a real Celery worker (tests/celery_worker.py): a delivery reaches
its receiver once however often its task runs; a worker killed in the middle of a send, or a broker down when the
action committed, loses no notification (docs/notifications.md, "How a message travels").

Needs Redis on 127.0.0.1:6379 (skipped without it on a laptop; fails in CI where REQUIRE_SERVICES=1). The worker
shares the test database and sends to a fake receiver in the test process (`HOOKS_ALLOW_PRIVATE`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from campaign import tasks
from campaign.models import Delivery
from campaign.notify import deliver
from tests.celery_worker import JOB_IDLE, Queue, Worker, broker_for_this_process, own_queue, wait_while_moving
from tests.conftest import Table, make_table, need_service
from tests.notify.conftest import MORTAL_LUNG, add_hook
from tests.notify.fakes import Received, WebhookFake, serving

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
WOUND = {"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}
PRIVATE = {"HOOKS_ALLOW_PRIVATE": "1"}


@pytest.fixture
def queue(settings: Any) -> Iterator[Queue]:
    need_service("Redis", "127.0.0.1", 6379)
    settings.HOOKS_ALLOW_PRIVATE = True
    with own_queue("notify") as own:
        yield own


@pytest.fixture
def table(django_user_model: Any) -> Table:
    return make_table(django_user_model, "shadowrun2", {"body": 5})


def _sent(delivery_id: Any, worker: Worker) -> Delivery:
    """The delivery once sent, waiting as long as it, or the worker's log, keeps moving."""
    wait_while_moving(
        lambda: Delivery.objects.get(pk=delivery_id).status == Delivery.SENT,
        lambda: (
            Delivery.objects.values_list("status", "tries", "claimed_until").get(pk=delivery_id),
            worker.log_size(),
        ),
        JOB_IDLE,
        f"delivery {delivery_id}",
        alive=worker,
    )
    return Delivery.objects.get(pk=delivery_id)


def test_a_delivery_reaches_its_receiver_once_however_often_its_task_runs(queue: Queue, table: Table) -> None:
    with (
        serving(WebhookFake()) as receiver,
        broker_for_this_process(queue),
        Worker(queue, extra_env=PRIVATE) as worker,
    ):
        receiver.secret = add_hook(table, "table", url=receiver.url)["secret"]
        assert table.act(WOUND).status_code == 201  # its row commits, then goes to the worker
        delivery = _sent(Delivery.objects.get().pk, worker)
        # The same message again, twice (a broker's redelivery, a resend): the row says it was sent.
        done = worker.logged().count("succeeded")
        deliver.deliver_notice.delay(str(delivery.pk))
        deliver.deliver_notice.delay(str(delivery.pk))
        wait_while_moving(
            lambda: worker.logged().count("succeeded") >= done + 2,
            worker.log_size,
            JOB_IDLE,
            "two tasks",
            worker,
        )
    assert receiver.problems == []
    assert [r.headers["x-ledger-delivery"] for r in receiver.received] == [str(delivery.pk)]
    assert (delivery.tries, Delivery.objects.get().status) == (1, Delivery.SENT)


def test_a_worker_killed_in_the_middle_of_a_send_loses_nothing(queue: Queue, table: Table) -> None:
    in_flight = threading.Event()
    fake = WebhookFake()
    first_answer = fake.answer

    def slow_first(request: Received) -> tuple[int, dict[str, str], bytes]:
        if len(fake.received) == 1:
            in_flight.set()
            threading.Event().wait(30)  # the worker is killed meanwhile: it never hears this answer
        return first_answer(request)

    fake.answer = slow_first  # type: ignore[method-assign]
    with serving(fake) as receiver, broker_for_this_process(queue):
        receiver.secret = add_hook(table, "table", url=receiver.url)["secret"]
        with Worker(queue, extra_env=PRIVATE) as worker:
            assert table.act(WOUND).status_code == 201
            assert in_flight.wait(JOB_IDLE), worker.logged()[-3000:]
            worker.kill()
        delivery = Delivery.objects.get()
        assert delivery.status == Delivery.PENDING and delivery.claimed_until is not None  # held by the dead
        # The lease runs out (two minutes, passed here by moving the times back): the next worker that starts
        # resends it, with the same id, and the receiver keeps it once.
        past = timezone.now() - deliver.LEASE - timedelta(seconds=1)
        Delivery.objects.filter(pk=delivery.pk).update(claimed_until=past, next_try_at=past)
        with Worker(queue, extra_env=PRIVATE) as worker:
            _sent(delivery.pk, worker)
    ids = [r.headers["x-ledger-delivery"] for r in receiver.received]
    assert ids == [str(delivery.pk), str(delivery.pk)]
    assert list(receiver.kept) == [str(delivery.pk)] and receiver.problems == []


def test_a_broker_down_when_the_action_commits_loses_no_notification(queue: Queue, table: Table) -> None:
    with serving(WebhookFake()) as receiver:
        receiver.secret = add_hook(table, "table", url=receiver.url)["secret"]
        down = Queue("redis://127.0.0.1:1/15", queue.prefix)  # nothing listens there
        with broker_for_this_process(down):
            assert (
                table.act(WOUND).status_code == 201
            )  # the action does not wait for, nor fail with, the broker
        delivery = Delivery.objects.get()
        assert delivery.status == Delivery.PENDING and delivery.claimed_until is None
        # The broker is back: beat's sweep finds the row due for a while that nobody holds, and resends it.
        Delivery.objects.filter(pk=delivery.pk).update(next_try_at=timezone.now() - timedelta(minutes=1))
        with broker_for_this_process(queue), Worker(queue, extra_env=PRIVATE) as worker:
            tasks.resume_stalled_jobs()
            _sent(delivery.pk, worker)
    assert [r.headers["x-ledger-delivery"] for r in receiver.received] == [str(delivery.pk)]
