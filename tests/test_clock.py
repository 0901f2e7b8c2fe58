"""The game clock, run in-process (no broker configured): jobs, ordering, exactly-once resumption, errors."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from django.test import override_settings

from campaign import services, tasks
from campaign.models import Campaign, Character, Event, Job, Timer
from rules.dice import Dice
from tests.conftest import Table, seeded_dice

pytestmark = pytest.mark.django_db

MORTAL_CHEST_HIT = {
    # Body 5 vs TN 6 with no success: Mortal. 3+4 = 7 chest, 1 = lung (IB, 1d6x10 min), 3 -> 30 minutes.
    "type": "wound",
    "severity": "S",
    "rolls": {"body_check": [1, 2, 3, 4, 5], "location": [3, 4], "critical": [1], "death_time": [3]},
}


# Server dice from a fixed seed, so two runs of the clock roll the same.
SeededDice = seeded_dice(7)


class LowRandom(Random):
    def randint(self, a: int, b: int) -> int:
        return a


class LowDice(Dice):
    """Server dice that always roll 1: every CP2020 save (d10 at or under the target) succeeds."""

    def __init__(self, entered: Any = None, rng: Any = None) -> None:
        super().__init__(entered, LowRandom())


def _job(response: Any) -> dict[str, Any]:
    assert response.status_code == 202, response.content
    return response.json()


def test_an_advance_answers_202_with_a_job_that_reports_its_outcome(sr2: Table) -> None:
    started = _job(sr2.advance(hours=2))
    assert (started["from"], started["to"]) == (0, 7200)
    job = sr2.gm.get(f"/api/jobs/{started['job']}/").json()
    assert job["status"] == "done"
    assert job["progress"] == 1.0
    assert job["events_appended"] == 1  # ClockAdvanced only: nothing was due
    clock = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/clock/").json()
    assert clock["game_time"] == 7200
    assert clock["game_date"] == "2053-01-01T02:00:00"
    feed = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/events/").json()["events"]
    assert feed[-1]["type"] == "ClockAdvanced"
    assert feed[-1]["data"]["from"] == 0 and feed[-1]["data"]["to"] == 7200


@pytest.mark.parametrize(
    ("advance", "field"),
    [
        (None, "advance"),
        ({}, "advance"),
        ({"hours": 1, "minutes": 5}, "advance"),
        ({"fortnights": 1}, "advance"),
        ({"hours": 0}, "advance.hours"),
        ({"hours": -3}, "advance.hours"),
        ({"hours": "2"}, "advance.hours"),
        ({"weeks": 10**9}, "advance.weeks"),
    ],
)
def test_a_bad_advance_names_the_field_and_writes_nothing(sr2: Table, advance: Any, field: str) -> None:
    before = (Event.objects.count(), Job.objects.count())
    response = sr2.gm.post(f"/api/campaigns/{sr2.campaign['id']}/clock/", {"advance": advance})
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert (Event.objects.count(), Job.objects.count()) == before


def test_every_unit_of_advance_counts_in_game_seconds() -> None:
    assert [
        services.parse_advance({unit: 2})
        for unit in ("seconds", "rounds", "turns", "minutes", "hours", "days", "weeks")
    ] == [2, 6, 60, 120, 7200, 172_800, 1_209_600]


def test_a_mortal_chest_hit_kills_at_exactly_death_at(sr2: Table) -> None:
    wounded = sr2.act(MORTAL_CHEST_HIT).json()["character"]
    assert wounded["death_at"] == 1800
    _job(sr2.advance(hours=1))
    character = sr2.gm.get(sr2.character_url()).json()
    assert character["alive"] is False
    death = Event.objects.get(stream=f"character:{sr2.character['id']}", type="DeathOccurred")
    assert death.game_time == 1800
    assert death.actor == "clock"


def test_an_advance_that_stops_short_of_death_at_leaves_the_character_dying(sr2: Table) -> None:
    sr2.act(MORTAL_CHEST_HIT)
    _job(sr2.advance(seconds=1799))
    assert sr2.gm.get(sr2.character_url()).json()["alive"] is True
    _job(sr2.advance(seconds=1))
    assert sr2.gm.get(sr2.character_url()).json()["alive"] is False


def test_a_treatment_that_completes_one_minute_before_death_at_saves_the_patient(sr2: Table) -> None:
    sr2.act(MORTAL_CHEST_HIT)
    _job(sr2.advance(seconds=1140))
    diagnosed = sr2.act(
        {"type": "diagnose", "medic": "Doc", "skill": 1, "critical_hit": "ch1", "rolls": {"diagnosis": [5]}}
    )
    assert diagnosed.status_code == 201, diagnosed.content
    # Mortal: TN 8, base 600 s; one success (a 6 then a 2, entered as 8) -> completes at 1140 + 600 = 1740.
    treated = sr2.act(
        {"type": "treat", "critical_hit": "ch1", "medic": "Doc", "skill": 1, "rolls": {"treatment": [8]}}
    )
    assert treated.status_code == 201, treated.content
    _job(sr2.advance(hours=1))
    character = sr2.gm.get(sr2.character_url()).json()
    assert character["alive"] is True
    hit = character["sheet"]["critical_hits"][0]
    assert (hit["lethality"], hit["boxes"], hit["treated"]) == ("crippling", 6, True)
    completed = Event.objects.get(stream=f"character:{sr2.character['id']}", type="TreatmentCompleted")
    assert completed.game_time == 1740
    assert not Event.objects.filter(type="DeathOccurred").exists()


def test_timers_fire_in_game_time_order_across_the_whole_campaign(sr2: Table) -> None:
    second = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/", {"name": "Brick", "attributes": {"body": 5}}
    ).json()
    # Brick dies first (death_time 1 -> 10 minutes), then Ash (3 -> 30 minutes).
    sr2.gm.post(
        f"/api/characters/{second['id']}/actions/",
        {**MORTAL_CHEST_HIT, "rolls": {**MORTAL_CHEST_HIT["rolls"], "death_time": [1]}},
    )
    sr2.act(MORTAL_CHEST_HIT)
    _job(sr2.advance(hours=1))
    deaths = Event.objects.filter(type="DeathOccurred").order_by("position")
    assert [(d.character_id, d.game_time) for d in deaths] == [
        (second["id"], 600),
        (sr2.character["id"], 1800),
    ]


def test_an_action_waits_for_no_running_clock_it_is_refused_with_409(sr2: Table) -> None:
    campaign = Campaign.objects.get(pk=sr2.campaign["id"])
    job = Job.objects.create(campaign=campaign, from_time=0, to_time=60, reached=0)
    before = Event.objects.count()
    response = sr2.act({"type": "note", "text": "during the advance"})
    assert response.status_code == 409
    assert response.json() == {"clock": [services.CLOCK_BUSY.format(job=job.pk)]}
    second = sr2.advance(hours=1)
    assert second.status_code == 409
    assert Event.objects.count() == before


def _runners(campaign: Campaign) -> None:
    """Six runners with Mortal hits dying at 10..60 minutes, and stun damage that heals over the week."""
    for index in range(6):
        character = services.character_create(
            campaign=campaign, actor="gm", name=f"Runner {index}", attributes={"body": 4}
        )
        rolls = {**MORTAL_CHEST_HIT["rolls"], "body_check": [1, 1, 1, 1], "death_time": [index + 1]}
        services.character_act(
            character_id=character.pk, body={**MORTAL_CHEST_HIT, "rolls": rolls}, actor="gm"
        )
        stun = {"type": "wound", "severity": "M", "damage": "stun", "rolls": {}}
        services.character_act(character_id=character.pk, body=stun, actor="gm")


def _histories(campaign: Campaign) -> list[Any]:
    return [
        (
            character.name,
            character.state,
            character.version,
            [
                (e.version, e.type, e.game_time, e.data)
                for e in Event.objects.filter(character=character).order_by("version")
            ],
        )
        for character in Character.objects.filter(campaign=campaign).order_by("name")
    ]


def test_a_job_killed_half_way_resumes_without_firing_a_timer_twice(
    sr2: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "Dice", SeededDice)
    uninterrupted = services.campaign_create(user=sr2.gm.user, name="A", ruleset="shadowrun2")
    interrupted = services.campaign_create(user=sr2.gm.user, name="B", ruleset="shadowrun2")
    _runners(uninterrupted)
    _runners(interrupted)
    week = 7 * 86_400
    services.clock_advance_request(campaign=uninterrupted, seconds=week, actor="gm")

    calls = {"n": 0}
    real_fire = services._fire

    def killed_on_the_fourth_firing(*args: Any, **kwargs: Any) -> int:
        calls["n"] += 1
        if calls["n"] == 4:
            raise SystemExit("worker killed")
        return real_fire(*args, **kwargs)

    monkeypatch.setattr(services, "_fire", killed_on_the_fourth_firing)
    with override_settings(CLOCK_FIRINGS_PER_TRANSACTION=2), pytest.raises(SystemExit):
        services.clock_advance_request(campaign=interrupted, seconds=week, actor="gm")
    job = Job.objects.get(campaign=interrupted)
    assert (job.status, job.timers_fired) == (Job.RUNNING, 2)  # the second batch died with the worker

    monkeypatch.setattr(services, "_fire", real_fire)
    with override_settings(CLOCK_FIRINGS_PER_TRANSACTION=2):
        services.clock_run(job.pk)
    job.refresh_from_db()
    assert job.status == Job.DONE
    assert _histories(interrupted) == _histories(uninterrupted)
    assert Campaign.objects.get(pk=interrupted.pk).game_time == week
    assert Event.objects.filter(campaign=interrupted, type="ClockAdvanced").count() == 1


def test_running_a_finished_job_again_does_nothing(sr2: Table) -> None:
    sr2.act(MORTAL_CHEST_HIT)
    job_id = _job(sr2.advance(hours=1))["job"]
    before = Event.objects.count()
    tasks.advance_clock(job_id)
    services.clock_run(job_id)
    assert Event.objects.count() == before


def test_combat_round_checks_fire_once_when_the_clock_jumps(
    cp2020: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "Dice", LowDice)
    # Body 6, BTM -2: 20 to the left arm -> 10 / 2 = 5... use 24: 12 - 2 = 10 >= 8, crippled, sever check kept.
    hit = cp2020.act(
        {
            "type": "damage",
            "damage": 24,
            "location": "left_arm",
            "rolls": {"stun_save": [1], "death_save": [1], "sever": [10]},
        }
    )
    assert hit.status_code == 201, hit.content
    timers = Timer.objects.filter(character_id=cp2020.character["id"], per_round=True)
    assert [t.kind for t in timers] == ["death_save"]
    _job(cp2020.advance(hours=1))
    saves = Event.objects.filter(character_id=cp2020.character["id"], type="DeathSaveRolled", actor="clock")
    assert [(s.game_time, s.data["success"]) for s in saves] == [(3600, True)]  # once, where the jump lands


def test_combat_round_checks_fire_every_turn_while_the_clock_steps_by_turns(
    cp2020: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "Dice", LowDice)
    cp2020.act(
        {
            "type": "damage",
            "damage": 24,
            "location": "left_arm",
            "rolls": {"stun_save": [1], "death_save": [1], "sever": [10]},
        }
    )
    for _ in range(3):
        _job(cp2020.advance(turns=1))
    saves = Event.objects.filter(character_id=cp2020.character["id"], type="DeathSaveRolled", actor="clock")
    assert [(s.game_time, s.data["success"]) for s in saves] == [(30, True), (60, True), (90, True)]


@override_settings(CELERY_TASK_ALWAYS_EAGER=False, CELERY_BROKER_URL="redis://127.0.0.1:1/0")
def test_with_the_broker_down_an_advance_is_refused_with_503_and_nothing_is_written(sr2: Table) -> None:
    from campaign.celery import app

    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        before = (Event.objects.count(), Job.objects.count())
        response = sr2.advance(hours=1)
        assert response.status_code == 503
        assert response.json() == {"clock": [tasks.BROKER_DOWN]}
        assert (Event.objects.count(), Job.objects.count()) == before
    finally:
        app.conf.broker_url = None


def test_a_clock_with_a_time_scale_advances_on_its_own(sr2: Table) -> None:
    from datetime import timedelta

    from django.utils import timezone

    campaign = services.campaign_create(
        user=sr2.gm.user, name="Real time", ruleset="shadowrun2", options={"time_scale": 60}
    )
    assert tasks.tick_running_clocks() == 0  # the first tick only starts the count
    Campaign.objects.filter(pk=campaign.pk).update(clock_ticked_at=timezone.now() - timedelta(seconds=10))
    assert tasks.tick_running_clocks() == 1
    campaign.refresh_from_db()
    assert 600 <= campaign.game_time <= 660  # 10 real seconds x 60, plus the test's own run time
    assert Campaign.objects.get(pk=sr2.campaign["id"]).game_time == 0  # manual clocks stay put
