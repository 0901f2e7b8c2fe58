"""Table dice through a real Redis broker and a real Celery worker: an advance waiting for the GM's roll survives
the worker's death, and goes on when the roll is given to a new worker.

Its broker is TEST_REDIS_URL's database (not the ones tests/test_clock_worker.py uses), so that its worker never
takes another test's jobs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

from campaign.models import Event, Job
from tests.conftest import make_table
from tests.test_clock_worker import Worker, broker_for_this_process
from tests.test_table_dice_clock import CRIPPLED_LEG

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BROKER = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/2")


@pytest.fixture
def broker(redis_service: str) -> Iterator[str]:
    import redis

    redis.Redis.from_url(BROKER).flushdb()
    with broker_for_this_process(BROKER) as url:
        yield url


def wait_until(job_id: Any, ready: Any, timeout: float = 60) -> Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        if ready(job):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} is {Job.objects.get(pk=job_id).status} after {timeout} s")


def test_an_advance_waiting_for_a_roll_survives_the_worker_and_goes_on_with_a_new_one(
    django_user_model: Any, broker: str, django_db_blocker: Any
) -> None:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"table_dice": "all"})
    assert table.act(CRIPPLED_LEG).status_code == 201
    worker = Worker(broker)
    worker.start()
    try:
        response = table.advance(turns=1)
        assert response.status_code == 202, response.content
        job = wait_until(response.json()["job"], lambda job: job.waiting)
        assert job.needs_roll["name"] == "death_save"
        worker.kill()

        # The job is still there, open and waiting; a new worker resends open jobs and leaves it waiting.
        worker = Worker(broker)
        worker.start()
        time.sleep(3)
        job = Job.objects.get(pk=job.pk)
        assert job.waiting and job.needs_roll["name"] == "death_save"
        answer = table.gm.post(f"/api/jobs/{job.pk}/rolls/", {"death_save": [3]})
        assert answer.status_code == 200, answer.content
        job = wait_until(job.pk, lambda job: job.status == Job.DONE)
    finally:
        worker.stop()
    (save,) = Event.objects.filter(character_id=table.character["id"], actor="clock")
    assert (save.type, save.game_time, save.data["roll"], save.data["table_dice"]) == (
        "DeathSaveRolled",
        30,
        3,
        ["death_save"],
    )
