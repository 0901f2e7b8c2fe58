"""The clock through a real Redis broker and a real Celery worker process started by the test
(tests/celery_worker.py: keys of this run's own, waits that follow progress, no process left behind).

Needs Redis on 127.0.0.1:6379 (skipped without it on a laptop; fails in CI where REQUIRE_SERVICES=1). The worker
shares the test database (a file for SQLite, the test database for PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from campaign import services
from campaign.models import Campaign, Character, Event, Job
from tests.celery_worker import Worker, broker_for_this_process, own_queue, wait_for_job
from tests.conftest import Table, make_table, need_service

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WEEK = 7 * 86_400
YEAR = 365 * 86_400
MORTAL_CHEST_HIT = {
    "type": "wound",
    "severity": "S",
    "rolls": {"body_check": [1, 2, 3, 4, 5], "location": [3, 4], "critical": [1], "death_time": [3]},
}


@pytest.fixture(scope="module")
def shared_worker(django_db_setup: None, django_db_blocker: Any) -> Iterator[Worker]:
    """One worker for the scenario tests of this module (starting one takes seconds), on a queue of its own."""
    need_service("Redis", "127.0.0.1", 6379)
    with own_queue("clock") as queue:
        running = Worker(queue)
        with django_db_blocker.unblock():
            running.start()
        try:
            yield running
        finally:
            running.stop()


@pytest.fixture
def worker(shared_worker: Worker, redis_service: str) -> Iterator[Worker]:
    with broker_for_this_process(shared_worker.queue):
        yield shared_worker


def wait_for(job_id: Any, worker: Worker | None = None) -> Job:
    return wait_for_job(Job, job_id, worker=worker)


def advance(table: Table, **amount: int) -> Job:
    response = table.advance(**amount)
    assert response.status_code == 202, response.content
    job = wait_for(response.json()["job"])
    assert job.status == Job.DONE, job.error
    return job


def character_events(table: Table, kind: str) -> list[Event]:
    return list(Event.objects.filter(character_id=table.character["id"], type=kind).order_by("version"))


def test_a_mortal_chest_hit_kills_at_exactly_death_at_through_the_worker(
    django_user_model: Any, worker: Worker
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    assert table.act(MORTAL_CHEST_HIT).json()["character"]["death_at"] == 1800
    response = table.advance(hours=1)
    assert response.status_code == 202
    assert Job.objects.get(pk=response.json()["job"]).status in (Job.QUEUED, Job.RUNNING, Job.DONE)
    job = wait_for(response.json()["job"])
    assert job.status == Job.DONE and job.progress == 1.0
    (death,) = character_events(table, "DeathOccurred")
    assert death.game_time == 1800
    assert table.gm.get(table.character_url()).json()["alive"] is False
    assert Campaign.objects.get(pk=table.campaign["id"]).game_time == 3600


def test_a_treatment_one_minute_before_death_at_saves_them_through_the_worker(
    django_user_model: Any, worker: Worker
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    table.act(MORTAL_CHEST_HIT)
    advance(table, seconds=1140)
    table.act(
        {"type": "diagnose", "medic": "Doc", "skill": 1, "critical_hit": "ch1", "rolls": {"diagnosis": [5]}}
    )
    table.act(
        {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 1, "rolls": {"treatment": [8]}}
    )
    advance(table, hours=1)
    (completed,) = character_events(table, "TreatmentCompleted")
    assert completed.game_time == 1740
    assert character_events(table, "DeathOccurred") == []
    character = table.gm.get(table.character_url()).json()
    assert character["alive"] is True
    assert character["sheet"]["critical_hits"][0]["lethality"] == "crippling"


def test_a_critical_hit_heals_eight_weeks_over_successes_after_its_period_starts_in_one_year(
    django_user_model: Any, worker: Worker
) -> None:
    # Body 13 in hospital, never treated: healing TN 6 + 4 - 3 = 7, so a roll of 13 dice almost surely succeeds
    # within the year (the clock's dice are its own); the assertions hold for any number of failed rolls first.
    table = make_table(django_user_model, "shadowrun2", {"body": 13})
    # Two successes: Critical. 1+1 = 2 head, 1 = skull.
    wound = table.act(
        {
            "type": "wound",
            "severity": "S",
            "rolls": {"body_check": [6, 6] + [1] * 11, "location": [1, 1], "critical": [1]},
        }
    )
    assert wound.json()["character"]["sheet"]["critical_hits"][0]["lethality"] == "critical"
    assert table.act({"type": "set_care", "in_hospital": True}).status_code == 201
    job = advance(table, weeks=52)
    assert job.to_time == 52 * WEEK
    rolls = character_events(table, "CriticalHealingRolled")
    assert (
        rolls[0].game_time == 600
    )  # made once the rest begins, 10 min after the wound (house, `rest_minutes`)
    for earlier, later in zip(rolls, rolls[1:], strict=False):
        assert earlier.data["successes"] == 0 and later.game_time == earlier.game_time + 8 * WEEK
    last = rolls[-1]
    (healed,) = character_events(table, "CriticalHitHealed")
    assert last.data["successes"] > 0
    assert healed.game_time == last.game_time + (8 * WEEK) // last.data["successes"]
    assert table.gm.get(table.character_url()).json()["sheet"]["critical_hits"][0]["status"] == "healed"


def test_cyberpunk_stun_damage_heals_one_point_per_hour_through_the_worker(
    django_user_model: Any, worker: Worker
) -> None:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 10, "luck": 0})
    hit = table.act(
        {"type": "damage", "damage": 10, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}}
    )
    assert hit.status_code == 201, hit.content
    stun = hit.json()["character"]["sheet"]["stun_damage"]
    assert stun > 0
    advance(table, hours=24)
    healed = character_events(table, "StunDamageHealed")
    assert [e.game_time for e in healed] == [3600 * n for n in range(1, stun + 1)]
    assert table.gm.get(table.character_url()).json()["sheet"]["stun_damage"] == 0


def test_a_crippled_limb_rolls_a_death_save_every_turn_through_the_worker(
    django_user_model: Any, worker: Worker
) -> None:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})
    table.act(
        {
            "type": "damage",
            "damage": 24,
            "location": "left_arm",
            "rolls": {"stun_save": [1], "death_save": [1], "sever": [10]},
        }
    )
    for _ in range(3):
        advance(table, turns=1)
    saves = [e for e in character_events(table, "DeathSaveRolled") if e.actor == "clock"]
    # One save per turn until one fails (the clock's dice are its own); a failure leaves them dying.
    assert [e.game_time for e in saves] == [30 * n for n in range(1, len(saves) + 1)]
    assert len(saves) == 3 or not saves[-1].data["success"]


def test_darkfuture_con_recovers_over_weeks_through_the_worker(
    django_user_model: Any, worker: Worker
) -> None:
    table = make_table(django_user_model, "darkfuture", {"con": 8, "skills": {"driver": 3, "gunner": 4}})
    # 4 + 1 = 5 -> 2 CON lost (4-7); the character is at 6 of 8 (51-75), the stun roll a 1: not stunned.
    hit = table.act({"type": "damage", "weapon_damage": 1, "rolls": {"damage": [4], "stun": [1]}})
    assert hit.json()["character"]["sheet"]["con"] == {"initial": 8, "current": 6}
    advance(table, weeks=3)
    recovered = character_events(table, "ConRecovered")
    assert [e.game_time for e in recovered] == [WEEK, 2 * WEEK]
    assert table.gm.get(table.character_url()).json()["sheet"]["con"] == {"initial": 8, "current": 8}


def _stunned_crowd(campaign: Campaign, count: int) -> None:
    for index in range(count):
        character = services.character_create(
            campaign=campaign, actor="gm", name=f"Punk {index:03}", attributes={"body": 10}
        )
        services.character_act(
            character_id=character.pk,
            body={
                "type": "damage",
                "damage": 10,
                "kind": "stun",
                "location": "torso",
                "rolls": {"stun_save": [1]},
            },
            actor="gm",
        )


def _histories(campaign: Campaign) -> list[Any]:
    return [
        (
            c.name,
            c.state,
            c.version,
            [
                (e.version, e.type, e.game_time, e.data)
                for e in Event.objects.filter(character=c).order_by("version")
            ],
        )
        for c in Character.objects.filter(campaign=campaign).order_by("name")
    ]


def test_a_worker_killed_mid_advance_and_restarted_ends_as_an_uninterrupted_run(
    django_user_model: Any, redis_service: str
) -> None:
    with own_queue("kill") as queue, broker_for_this_process(queue):
        table = make_table(django_user_model, "cyberpunk2020", {"body": 10})
        killed = services.campaign_create(user=table.gm.user, name="Killed", ruleset="cyberpunk2020")
        calm = services.campaign_create(user=table.gm.user, name="Calm", ruleset="cyberpunk2020")
        _stunned_crowd(killed, 60)
        _stunned_crowd(calm, 60)

        with Worker(queue, firings_per_transaction=2) as first:
            job = services.clock_advance_request(campaign=killed, seconds=WEEK, actor="gm")
            wait_for_job(Job, job.pk, lambda job: job.timers_fired >= 40 or not job.open, worker=first)
            first.kill()
        halfway = Job.objects.get(pk=job.pk)
        assert halfway.status == Job.RUNNING, "the advance finished before the kill: make it longer"

        with Worker(queue) as second:  # a starting worker resumes every open job
            resumed = wait_for(job.pk, second)
            assert resumed.status == Job.DONE
            wait_for(services.clock_advance_request(campaign=calm, seconds=WEEK, actor="gm").pk, second)
    assert _histories(killed) == _histories(calm)
    assert Event.objects.filter(campaign=killed, type="ClockAdvanced").count() == 1
    for character in Character.objects.filter(campaign=killed):
        versions = list(
            Event.objects.filter(character=character).order_by("version").values_list("version", flat=True)
        )
        assert versions == list(range(1, len(versions) + 1))


def test_a_short_advance_of_one_campaign_overtakes_a_long_one_of_another_on_one_worker(
    django_user_model: Any, redis_service: str
) -> None:
    with own_queue("overtake") as queue, broker_for_this_process(queue):
        table = make_table(django_user_model, "cyberpunk2020", {"body": 10})
        long = services.campaign_create(user=table.gm.user, name="Long", ruleset="cyberpunk2020")
        short = services.campaign_create(user=table.gm.user, name="Short", ruleset="cyberpunk2020")
        _stunned_crowd(long, 60)
        _stunned_crowd(short, 1)
        # One batch of two firings a slice: the long advance takes hundreds of turns on the one worker.
        with Worker(queue, firings_per_transaction=2, slice_seconds=0) as worker:
            first = services.clock_advance_request(campaign=long, seconds=WEEK, actor="gm")
            wait_for_job(Job, first.pk, lambda job: job.timers_fired >= 10 or not job.open, worker=worker)
            second = services.clock_advance_request(campaign=short, seconds=WEEK, actor="gm")
            overtaking = wait_for(second.pk, worker)
            overtaken = Job.objects.get(pk=first.pk)
            assert overtaking.status == Job.DONE and overtaking.timers_fired > 0
            assert overtaken.status == Job.RUNNING, "the long advance ended before the short one"
            assert wait_for(first.pk, worker).status == Job.DONE
