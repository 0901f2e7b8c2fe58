"""Table dice through a real Redis broker and a real Celery worker: an advance waiting for the GM's roll survives
the worker's death, and goes on when the roll is given to a new worker. The queue is this run's own
(tests/celery_worker.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from campaign.models import Event, Job
from tests.celery_worker import (
    JOB_IDLE,
    Worker,
    broker_for_this_process,
    own_queue,
    wait_for_job,
    wait_while_moving,
)
from tests.clock.test_table_dice_clock import CRIPPLED_LEG
from tests.conftest import make_table

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_an_advance_waiting_for_a_roll_survives_the_worker_and_goes_on_with_a_new_one(
    django_user_model: Any, redis_service: str
) -> None:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"table_dice": "all"})
    assert table.act(CRIPPLED_LEG).status_code == 201
    with own_queue("table-dice") as queue, broker_for_this_process(queue):
        with Worker(queue) as first:
            response = table.advance(turns=1)
            assert response.status_code == 202, response.content
            job = wait_for_job(Job, response.json()["job"], lambda job: job.waiting or not job.open, first)
            assert job.needs_roll["name"] == "death_save"
            first.kill()

        # The job is still there, open and waiting; a new worker resends open jobs and leaves it waiting.
        with Worker(queue) as second:
            wait_while_moving(
                lambda: "succeeded" in second.logged(), second.log_size, JOB_IDLE, "the resent job", second
            )
            job = Job.objects.get(pk=job.pk)
            assert job.waiting and job.needs_roll["name"] == "death_save"
            answer = table.gm.post(f"/api/jobs/{job.pk}/rolls/", {"death_save": [3]})
            assert answer.status_code == 200, answer.content
            job = wait_for_job(Job, job.pk, worker=second)
            assert job.status == Job.DONE
    (save,) = Event.objects.filter(character_id=table.character["id"], actor="clock")
    assert (save.type, save.game_time, save.data["roll"], save.data["table_dice"]) == (
        "DeathSaveRolled",
        30,
        3,
        ["death_save"],
    )
