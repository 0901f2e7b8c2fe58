"""The game clock, run in-process (no broker configured): jobs, ordering, exactly-once resumption, errors."""

from __future__ import annotations

from datetime import UTC
from random import Random
from typing import Any

import pytest
from django.test import override_settings

from campaign import services, tasks
from campaign.models import Campaign, Character, Event, Job, Timer
from rules import clock
from rules.dice import Dice
from rules.registry import get_ruleset
from tests.conftest import ServerDice, Table, seeded_dice

pytestmark = pytest.mark.django_db

MORTAL_CHEST_HIT = {
    # Body 5 vs TN 6 with no success: Mortal. 3+4 = 7 chest, 1 = lung (IB, 1d6x10 min), 3 -> 30 minutes.
    "type": "wound",
    "severity": "S",
    "rolls": {"body_check": [1, 2, 3, 4, 5], "location": [3, 4], "critical": [1], "death_time": [3]},
}

# Body 6, BTM -2: 24 to the left arm -> 12 - 2 = 10 >= 8, crippled (a death save every turn), the sever check kept.
CRIPPLED_LEFT_ARM = {
    "type": "damage",
    "damage": 24,
    "location": "left_arm",
    "rolls": {"stun_save": [1], "death_save": [1], "sever": [10]},
}


# Server dice from a fixed seed, so two runs of the clock roll the same.
SeededDice = seeded_dice(7)


def dice_in_sequence(seed: int) -> type[Dice]:
    """Server dice that go on through one seeded sequence from firing to firing (`seeded_dice` starts it again for
    each, so a save every round would roll the same face for ever): two such classes of one seed roll the same."""
    generator = Random(seed)

    class SequenceDice(Dice):
        def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
            super().__init__(entered, rng or generator, ask=ask)

    return SequenceDice


class LowRandom(Random):
    def randint(self, a: int, b: int) -> int:
        return a


class LowDice(Dice):
    """Server dice that always roll 1: every CP2020 save (d10 at or under the target) succeeds."""

    def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
        super().__init__(entered, LowRandom(), ask=ask)


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
    sr2: Table, monkeypatch: pytest.MonkeyPatch, server_dice: ServerDice
) -> None:
    server_dice(SeededDice)
    uninterrupted = services.campaign_create(user=sr2.gm.user, name="A", ruleset="shadowrun2")
    interrupted = services.campaign_create(user=sr2.gm.user, name="B", ruleset="shadowrun2")
    _runners(uninterrupted)
    _runners(interrupted)
    week = 7 * 86_400
    services.clock_advance_request(campaign=uninterrupted, seconds=week, actor="gm")

    calls = {"n": 0}
    real_fire = services.clock._fire

    def killed_on_the_fourth_firing(*args: Any, **kwargs: Any) -> int:
        calls["n"] += 1
        if calls["n"] == 4:
            raise SystemExit("worker killed")
        return real_fire(*args, **kwargs)

    monkeypatch.setattr(services.clock, "_fire", killed_on_the_fourth_firing)
    with override_settings(CLOCK_FIRINGS_PER_TRANSACTION=2), pytest.raises(SystemExit):
        services.clock_advance_request(campaign=interrupted, seconds=week, actor="gm")
    job = Job.objects.get(campaign=interrupted)
    assert (job.status, job.timers_fired) == (Job.RUNNING, 2)  # the second batch died with the worker

    monkeypatch.setattr(services.clock, "_fire", real_fire)
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


def test_combat_round_checks_fire_every_turn_of_a_long_advance(
    cp2020: Table, server_dice: ServerDice
) -> None:
    server_dice(LowDice)
    hit = cp2020.act(CRIPPLED_LEFT_ARM)
    assert hit.status_code == 201, hit.content
    timers = Timer.objects.filter(character_id=cp2020.character["id"], per_round=True)
    assert [t.kind for t in timers] == ["death_save"]
    _job(cp2020.advance(hours=1))
    saves = Event.objects.filter(character_id=cp2020.character["id"], type="DeathSaveRolled", actor="clock")
    # Never collapsed into one roll (docs/rules/cyberpunk2020.md, "Timers"): one save for each of the hour's 120 turns.
    assert [(s.game_time, s.data["success"]) for s in saves] == [(turn, True) for turn in range(30, 3601, 30)]


def test_combat_round_checks_fire_every_turn_while_the_clock_steps_by_turns(
    cp2020: Table, server_dice: ServerDice
) -> None:
    server_dice(LowDice)
    cp2020.act(CRIPPLED_LEFT_ARM)
    for _ in range(3):
        _job(cp2020.advance(turns=1))
    saves = Event.objects.filter(character_id=cp2020.character["id"], type="DeathSaveRolled", actor="clock")
    assert [(s.game_time, s.data["success"]) for s in saves] == [(30, True), (60, True), (90, True)]


def test_the_service_fires_one_characters_timers_as_the_pure_clock_loop_does(
    cp2020: Table, server_dice: ServerDice
) -> None:
    server_dice(SeededDice)
    cp2020.act(CRIPPLED_LEFT_ARM)
    cp2020.act(
        {"type": "damage", "damage": 6, "kind": "stun", "location": "torso", "rolls": {"stun_save": [9]}}
    )
    state = Character.objects.get(pk=cp2020.character["id"]).state
    server_dice(dice_in_sequence(7))
    pure_dice = dice_in_sequence(7)
    expected, now = [], 0
    for unit, seconds in (("rounds", 3), ("turns", 30), ("hours", 3600), ("days", 86_400)):
        ran = clock.run(get_ruleset("cyberpunk2020"), state, now, now + seconds, pure_dice)
        expected += [
            (event.type, event.data, event.game_time) for firing in ran.fired for event in firing.events
        ]
        state, now = ran.state, now + seconds
        _job(cp2020.advance(**{unit: 1}))
    fired = Event.objects.filter(character_id=cp2020.character["id"], actor="clock").order_by("version")
    assert [(event.type, event.data, event.game_time) for event in fired] == expected
    stun = [(event.game_time, event.data["success"]) for event in fired if event.type == "StunSaveRolled"]
    # Every round passed rolls its save, none collapsed, until the first that succeeds.
    assert [second for second, _ in stun] == list(range(3, 3 * len(stun) + 1, 3))
    assert [success for _, success in stun] == [False] * (len(stun) - 1) + [True]
    deaths = [event.game_time for event in fired if event.type == "DeathSaveRolled"]
    assert deaths == list(range(30, 30 * len(deaths) + 1, 30))  # and the arm's every turn


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


# --- limits, fairness and stalled jobs (docs/clock.md, "Limits") -----------------------------------------------

KNOCKED_OUT = {
    "type": "damage",
    "damage": 10,
    "kind": "stun",
    "location": "torso",
    "rolls": {"stun_save": [1]},
}


def _followed(campaign: Campaign, count: int) -> None:
    """`count` Cyberpunk characters with stun damage: each one has injuries the clock follows."""
    for index in range(count):
        character = services.character_create(
            campaign=campaign, actor="gm", name=f"Punk {index:03}", attributes={"body": 10}
        )
        services.character_act(character_id=character.pk, body=KNOCKED_OUT, actor="gm")


def test_a_hundred_years_for_a_hundred_injured_characters_is_refused_naming_the_longest_advance(
    cp2020: Table,
) -> None:
    campaign = Campaign.objects.get(pk=cp2020.campaign["id"])
    _followed(campaign, 99)  # and Ash, once hurt
    cp2020.act(KNOCKED_OUT)
    before = (Event.objects.count(), Job.objects.count())
    response = cp2020.advance(weeks=52 * 100)
    assert response.status_code == 400
    assert response.json() == {
        "advance": [
            "expected at most 20 years in one advance while 100 characters have injuries the clock follows (one "
            "advance covers at most 2,000 years of one such character's clock); advance in shorter steps"
        ]
    }
    assert (Event.objects.count(), Job.objects.count()) == before
    assert _job(cp2020.advance(weeks=52 * 20))["to"] == 52 * 20 * 7 * 86_400


@override_settings(CLOCK_MAX_CHARACTER_YEARS=10)
def test_the_longest_advance_counts_only_characters_the_clock_follows(cp2020: Table) -> None:
    # Ash is unhurt: nothing for the clock to do, so any span is cheap.
    assert _job(cp2020.advance(weeks=52 * 100))["status"] == "done"
    cp2020.act(KNOCKED_OUT)
    _followed(Campaign.objects.get(pk=cp2020.campaign["id"]), 1)
    response = cp2020.advance(days=5 * 366)
    assert response.status_code == 400
    assert response.json()["advance"] == [
        "expected at most 5 years in one advance while 2 characters have injuries the clock follows (one advance "
        "covers at most 10 years of one such character's clock); advance in shorter steps"
    ]
    assert _job(cp2020.advance(days=5 * 365))["status"] == "done"


@override_settings(CLOCK_MAX_FIRINGS_PER_ADVANCE=3)
def test_an_advance_that_reaches_the_most_firings_stops_after_the_game_second_it_reached(
    cp2020: Table,
) -> None:
    # Two characters heal a point of stun damage every hour, both at 1:00, both at 2:00, ...
    cp2020.act(KNOCKED_OUT)
    _followed(Campaign.objects.get(pk=cp2020.campaign["id"]), 1)
    started = _job(cp2020.advance(days=1))
    job = cp2020.gm.get(f"/api/jobs/{started['job']}/").json()
    # The third firing is one of 2:00; the other one of 2:00 fires too, so that the clock can stop at 2:00.
    assert (job["status"], job["timers_fired"], job["reached"], job["to"]) == ("done", 4, 7200, 86_400)
    assert job["message"] == (
        "stopped at 2020-01-01 02:00:00 after 4 timer firings, the most one advance may make; advance again to go on"
    )
    healed = Event.objects.filter(type="StunDamageHealed").order_by("position")
    assert [e.game_time for e in healed] == [3600, 3600, 7200, 7200]
    advanced = Event.objects.filter(type="ClockAdvanced").get()
    assert (advanced.data["from"], advanced.data["to"], advanced.game_time) == (0, 7200, 7200)
    assert Campaign.objects.get(pk=cp2020.campaign["id"]).game_time == 7200
    # Advancing again goes on from there.
    again = _job(cp2020.advance(hours=1))
    assert (again["from"], again["to"]) == (7200, 10_800)
    assert Event.objects.filter(type="StunDamageHealed", game_time=10_800).count() == 2


@override_settings(CLOCK_MAX_FIRINGS_PER_ADVANCE=3)
def test_an_advance_stopped_by_the_limit_says_so_on_the_board(cp2020: Table) -> None:
    from django.test import Client

    cp2020.act(KNOCKED_OUT)
    _followed(Campaign.objects.get(pk=cp2020.campaign["id"]), 1)
    browser = Client()
    browser.force_login(cp2020.gm.user)
    page = browser.post(
        f"/campaigns/{cp2020.campaign['id']}/clock/", {"amount": 1, "unit": "days"}, follow=True
    )
    assert (
        "Stopped at 2020-01-01 02:00:00 after 4 timer firings, the most one advance may make; advance again to go "
        "on." in page.content.decode()
    )


def _sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The messages the clock task sends to the queue, kept here instead of sent."""
    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.advance_clock, "delay", lambda *args: sent.append(args))
    return sent


def _long_job(table: Table, monkeypatch: pytest.MonkeyPatch) -> tuple[Job, list[tuple[Any, ...]]]:
    """A week's advance of six dying runners, not yet sent; and the messages the task will send."""
    campaign = services.campaign_create(user=table.gm.user, name="Long", ruleset="shadowrun2")
    _runners(campaign)
    job = Job.objects.create(campaign=campaign, from_time=0, to_time=7 * 86_400, reached=0)
    return job, _sent(monkeypatch)


@override_settings(CELERY_TASK_ALWAYS_EAGER=False, CLOCK_SLICE_SECONDS=0, CLOCK_FIRINGS_PER_TRANSACTION=2)
def test_a_long_advance_works_one_slice_then_queues_the_rest_behind_other_campaigns(
    sr2: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    job, sent = _long_job(sr2, monkeypatch)
    tasks.advance_clock(str(job.pk), str(job.ticket))
    job.refresh_from_db()
    # One batch of two firings, then the job goes to the back of the queue, still running.
    assert (job.status, job.timers_fired) == (Job.RUNNING, 2)
    assert sent == [(str(job.pk), str(job.ticket))]


@override_settings(CELERY_TASK_ALWAYS_EAGER=False, CLOCK_SLICE_SECONDS=0, CLOCK_FIRINGS_PER_TRANSACTION=2)
def test_an_advance_run_in_slices_ends_as_an_uninterrupted_run(
    sr2: Table, monkeypatch: pytest.MonkeyPatch, server_dice: ServerDice
) -> None:
    server_dice(SeededDice)
    week = 7 * 86_400
    uninterrupted = services.campaign_create(user=sr2.gm.user, name="A", ruleset="shadowrun2")
    sliced = services.campaign_create(user=sr2.gm.user, name="B", ruleset="shadowrun2")
    _runners(uninterrupted)
    _runners(sliced)
    services.clock_run(Job.objects.create(campaign=uninterrupted, from_time=0, to_time=week, reached=0).pk)
    sent = _sent(monkeypatch)
    job = Job.objects.create(campaign=sliced, from_time=0, to_time=week, reached=0)
    sent.append((str(job.pk), str(job.ticket)))
    slices = 0
    while sent:
        tasks.advance_clock(*sent.pop(0))
        slices += 1
    job.refresh_from_db()
    assert job.status == Job.DONE
    assert slices == job.timers_fired // 2 + 1  # two firings a slice; the last one finds nothing more due
    assert _histories(sliced) == _histories(uninterrupted)
    assert Event.objects.filter(campaign=sliced, type="ClockAdvanced").count() == 1


@override_settings(CELERY_TASK_ALWAYS_EAGER=False, CLOCK_SLICE_SECONDS=0, CLOCK_FIRINGS_PER_TRANSACTION=2)
def test_a_message_for_a_job_that_was_resent_since_does_nothing(
    sr2: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    job, sent = _long_job(sr2, monkeypatch)
    first_ticket = str(job.ticket)
    tasks.resend(job.pk)
    job.refresh_from_db()
    assert sent == [(str(job.pk), str(job.ticket))] and str(job.ticket) != first_ticket
    tasks.advance_clock(str(job.pk), first_ticket)  # the message the job had before: it stops
    job.refresh_from_db()
    assert (job.status, job.timers_fired, len(sent)) == (Job.QUEUED, 0, 1)


def test_a_job_whose_worker_stopped_answering_shows_as_stalled_then_is_resumed(sr2: Table) -> None:
    from datetime import datetime, timedelta

    from django.test import Client

    sr2.act(MORTAL_CHEST_HIT)
    campaign = Campaign.objects.get(pk=sr2.campaign["id"])
    job = Job.objects.create(campaign=campaign, from_time=0, to_time=3600, reached=0, status=Job.RUNNING)
    quiet_since = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)
    Job.objects.filter(pk=job.pk).update(
        heartbeat_at=quiet_since, created_at=quiet_since - timedelta(minutes=1)
    )
    browser = Client()
    browser.force_login(sr2.gm.user)
    board = f"/campaigns/{campaign.pk}/"
    live = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}

    with override_settings(CLOCK_STALLED_AFTER_SECONDS=10**9):  # not yet quiet for long enough
        assert sr2.gm.get(f"/api/jobs/{job.pk}/").json()["status"] == "running"
        etag = browser.get(board, **live)["ETag"]
    said = "the worker stopped answering at 2025-05-06 07:08:09 UTC; the job will be resumed"
    answer = sr2.gm.get(f"/api/jobs/{job.pk}/").json()
    assert (answer["status"], answer["message"]) == ("stalled", said)
    assert answer["heartbeat_at"] == "2025-05-06T07:08:09+00:00"
    assert sr2.gm.get(f"/api/campaigns/{campaign.pk}/clock/").json()["job"]["status"] == "stalled"
    polled = browser.get(board, HTTP_IF_NONE_MATCH=etag, **live)
    assert polled.status_code == 200  # the board's poll learns of it, though nothing else changed
    assert f"Clock stalled: {said}" in polled.content.decode()

    # Celery beat resends it (in-process here, so it runs at once): the death at 30 minutes happens.
    assert tasks.resume_stalled_jobs() == 1
    job.refresh_from_db()
    assert job.status == Job.DONE and job.heartbeat_at > quiet_since
    assert Event.objects.get(type="DeathOccurred").game_time == 1800
    assert sr2.gm.get(f"/api/jobs/{job.pk}/").json()["status"] == "done"
