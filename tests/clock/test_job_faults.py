"""Faults met by a job (a clock advance, an import) half-way: a database fault is retried and the job goes on; a bug
fails it for good, in words, with the campaign consistent and its advance rewindable (docs/clock.md, "Faults").

The worker is Celery's task run in this process (`apply`, which runs a retry at once); the faults are raised where
the database would raise them. tests/clock/test_job_faults_worker.py drops a real worker's connections on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import InterfaceError, OperationalError
from django.test import override_settings

from campaign import services, tasks, transfer
from campaign.models import Campaign, Character, Event, ImportJob, Job, Membership
from campaign.transfer import importing
from tests.conftest import Table

pytestmark = pytest.mark.django_db
DAY = 86_400
WORKER = {"CELERY_TASK_ALWAYS_EAGER": False, "CLOCK_SLICE_SECONDS": 1000, "CLOCK_FIRINGS_PER_TRANSACTION": 2}


def stunned_crowd(campaign: Campaign, count: int) -> None:
    """`count` Cyberpunk characters with 10 points of stun damage, healed one point an hour by the clock."""
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


def histories(campaign: Campaign) -> list[Any]:
    return [
        (c.name, c.state, [(e.version, e.type, e.game_time, e.data) for e in c.events.order_by("version")])
        for c in Character.objects.filter(campaign=campaign).order_by("name")
    ]


def failing(real: Callable[..., Any], error: Exception, at: set[int]) -> tuple[Callable[..., Any], list[int]]:
    """`real`, raising `error` on the calls numbered in `at` (from 1) instead; and the list counting the calls."""
    calls: list[int] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) in at:
            raise error
        return real(*args, **kwargs)

    return call, calls


def export(campaign: Campaign) -> bytes:
    return "".join(transfer.export_text(campaign)).encode()


@pytest.fixture(autouse=True)
def _retries_run_in_this_process() -> Any:
    """`apply` runs a task's retry at once, in this process; Celery's eager setting would raise it instead."""
    from campaign.celery import app

    saved = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = saved


def two_crowds(table: Table) -> tuple[Campaign, Campaign]:
    calm = services.campaign_create(user=table.gm.user, name="Calm", ruleset="cyberpunk2020")
    struck = services.campaign_create(user=table.gm.user, name="Struck", ruleset="cyberpunk2020")
    stunned_crowd(calm, 3)
    stunned_crowd(struck, 3)
    return calm, struck


def test_a_retry_waits_longer_each_time_up_to_the_most_with_some_at_random() -> None:
    with override_settings(JOB_RETRY_FIRST_SECONDS=1, JOB_RETRY_MAX_SECONDS=60):
        for retries, longest in [(0, 1), (1, 2), (2, 4), (5, 32), (6, 60), (40, 60)]:
            delays = [tasks.retry_delay(retries) for _ in range(50)]
            assert all(longest / 2 <= delay <= longest for delay in delays), (retries, delays)


@pytest.mark.parametrize(
    "fault",
    [
        OperationalError("server closed the connection unexpectedly"),
        OperationalError("could not serialize access due to concurrent update"),
        InterfaceError("connection already closed"),
    ],
    ids=["lost connection", "serialization failure", "closed connection"],
)
def test_a_database_fault_half_way_through_an_advance_is_retried_and_the_job_goes_on(
    cp2020: Table, monkeypatch: pytest.MonkeyPatch, fault: Exception
) -> None:
    calm, struck = two_crowds(cp2020)
    services.clock_run(Job.objects.create(campaign=calm, from_time=0, to_time=DAY, reached=0).pk)
    # Firings 5 and 6 fail: the third batch (firings 5, 6) twice, after two batches were committed.
    fire, calls = failing(services.clock._fire, fault, {5, 6})
    monkeypatch.setattr(services.clock, "_fire", fire)
    waits: list[int] = []
    monkeypatch.setattr(tasks, "retry_delay", lambda retries: waits.append(retries) or 0.0)
    job = Job.objects.create(campaign=struck, from_time=0, to_time=DAY, reached=0)
    with override_settings(**WORKER):
        tasks.advance_clock.apply((str(job.pk), str(job.ticket)))
    job.refresh_from_db()
    assert (job.status, job.error, job.timers_fired) == (Job.DONE, "", 18)
    assert waits == [0, 1]  # two retries, each waiting longer (`retry_delay` of the tries before)
    assert len(calls) == 18 + 2  # each firing once, the fifth three times
    assert histories(struck) == histories(calm)
    assert Campaign.objects.get(pk=struck.pk).game_time == DAY
    assert Event.objects.filter(campaign=struck, type="ClockAdvanced").count() == 1


def test_a_database_fault_half_way_through_an_import_is_retried_and_the_import_goes_on(
    cp2020: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = services.campaign_create(user=cp2020.gm.user, name="Exported", ruleset="cyberpunk2020")
    stunned_crowd(source, 3)
    services.clock_run(Job.objects.create(campaign=source, from_time=0, to_time=DAY, reached=0).pk)
    data = export(source)
    checked = transfer.check_file(data)
    job = importing._job_with_file(
        importing._compressing(data), user=cp2020.gm.user, file_sha256="x", lines=checked.lines
    )
    monkeypatch.setattr(transfer.importing, "BATCH", 5)
    write, calls = failing(
        transfer.importing._write_batch, OperationalError("terminating connection"), {3, 4}
    )
    monkeypatch.setattr(transfer.importing, "_write_batch", write)
    waits: list[int] = []
    monkeypatch.setattr(tasks, "retry_delay", lambda retries: waits.append(retries) or 0.0)
    with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
        tasks.run_import.apply((str(job.pk),))
    job.refresh_from_db()
    assert (job.status, job.error, job.lines_written) == (ImportJob.DONE, "", checked.lines)
    assert waits == [0, 1]
    assert len(calls) == -(-checked.lines // 5) + 2  # every batch once, the third twice more
    imported = Campaign.objects.get(pk=job.campaign_id)
    assert [c[1:] for c in histories(imported)] == [c[1:] for c in histories(source)]
    assert imported.game_time == DAY
    assert Membership.objects.filter(campaign=imported, user=cp2020.gm.user).exists()
    transfer.check_file(export(imported))  # the new campaign's own export is importable


def test_an_advance_that_fails_for_good_is_closed_where_it_reached_says_why_in_words_and_can_be_taken_back(
    cp2020: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, struck = two_crowds(cp2020)
    before = histories(struck)
    # Firing 5 is a bug: two batches of two firings were committed before it.
    fire, _ = failing(services.clock._fire, KeyError("stun_damage"), {5})
    monkeypatch.setattr(services.clock, "_fire", fire)
    job = Job.objects.create(campaign=struck, from_time=0, to_time=DAY, reached=0, actor="gm")
    with override_settings(**WORKER):
        tasks.advance_clock.apply((str(job.pk), str(job.ticket)))
    job.refresh_from_db()
    campaign = Campaign.objects.get(pk=struck.pk)
    firings = Event.objects.filter(campaign=struck, cause__startswith=f"timer:{job.pk}:")
    assert (job.status, job.timers_fired, firings.count()) == (Job.FAILED, 4, 4)
    assert job.error == (
        "the advance stopped at 2020-01-01 02:00:00 after 4 timer firings because of an error on the server (its "
        "log has the details); what fired up to there is kept and the clock stands there: take this advance "
        "back, or advance again to go on"
    )
    # The clock stands at the last second fired, and the log says so: a ClockAdvanced up to there.
    assert campaign.game_time == job.reached == max(firings.values_list("game_time", flat=True)) == 7200
    (closed,) = Event.objects.filter(campaign=struck, type="ClockAdvanced")
    assert (closed.data["from"], closed.data["to"], closed.data["job"]) == (0, 7200, str(job.pk))
    assert not Job.objects.filter(campaign=struck, status__in=[Job.QUEUED, Job.RUNNING]).exists()
    transfer.check_file(export(struck))
    # The advance can be taken back: the characters are as before it, the clock back at its start.
    rewound = services.clock_rewind(campaign=campaign, actor="gm")
    assert (rewound.job.pk, rewound.characters, rewound.to) == (job.pk, 3, 0)
    assert [(name, state) for name, state, _ in histories(struck)] == [
        (name, state) for name, state, _ in before
    ]
    assert Campaign.objects.get(pk=struck.pk).game_time == 0
    transfer.check_file(export(struck))


def test_an_advance_that_fails_for_good_before_firing_anything_changes_nothing(
    cp2020: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, struck = two_crowds(cp2020)
    before = histories(struck), Event.objects.count()
    monkeypatch.setattr(services.clock, "_fire", failing(services.clock._fire, ValueError("bug"), {1})[0])
    job = Job.objects.create(campaign=struck, from_time=0, to_time=DAY, reached=0)
    with override_settings(**WORKER):
        tasks.advance_clock.apply((str(job.pk), str(job.ticket)))
    job.refresh_from_db()
    assert (job.status, job.error) == (Job.FAILED, services.ADVANCE_FAILED_UNTOUCHED)
    assert (histories(struck), Event.objects.count()) == before
    assert Campaign.objects.get(pk=struck.pk).game_time == 0


def test_a_note_after_an_advance_that_failed_for_good_keeps_the_campaign_s_export_importable(
    cp2020: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's case: the next note was dated at the advance's start, before its firings, and the campaign's
    own export was refused ("game_time: expected 7200 or later")."""
    cp2020.act(
        {"type": "damage", "damage": 10, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}}
    )
    monkeypatch.setattr(services.clock, "_fire", failing(services.clock._fire, KeyError("x"), {5})[0])
    campaign = Campaign.objects.get(pk=cp2020.campaign["id"])
    job = Job.objects.create(campaign=campaign, from_time=0, to_time=DAY, reached=0)
    with override_settings(**WORKER):
        tasks.advance_clock.apply((str(job.pk), str(job.ticket)))
    assert Job.objects.get(pk=job.pk).status == Job.FAILED
    note = cp2020.act({"type": "note", "text": "Patched up in the van"})
    assert note.status_code == 201, note.content
    assert note.json()["events"][-1]["game_time"] == 4 * 3600
    transfer.check_file(export(campaign))


def test_an_import_that_fails_for_good_says_why_in_words_and_shows_nothing(
    cp2020: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = services.campaign_create(user=cp2020.gm.user, name="Exported", ruleset="cyberpunk2020")
    stunned_crowd(source, 2)
    data = export(source)
    checked = transfer.check_file(data)
    job = importing._job_with_file(
        importing._compressing(data), user=cp2020.gm.user, file_sha256="x", lines=checked.lines
    )
    monkeypatch.setattr(transfer.importing, "BATCH", 3)
    monkeypatch.setattr(
        transfer.importing, "_write_batch", failing(transfer.importing._write_batch, TypeError("bug"), {2})[0]
    )
    with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
        tasks.run_import.apply((str(job.pk),))
    job.refresh_from_db()
    assert (job.status, job.lines_written) == (ImportJob.FAILED, 3)
    assert job.error == (
        f"the import stopped after 3 of {checked.lines} events because of an error on the server (its log has the "
        "details); no campaign was made of it and nothing of it shows anywhere"
    )
    assert not Membership.objects.filter(campaign_id=job.campaign_id).exists()
    answer = cp2020.gm.get(f"/api/jobs/{job.pk}/").json()
    assert (answer["status"], answer["error"]) == ("failed", job.error)


@override_settings(CLOCK_FIRINGS_PER_TRANSACTION=2)
def test_the_clock_stands_where_the_committed_firings_reached_after_every_batch(cp2020: Table) -> None:
    _, struck = two_crowds(cp2020)
    job = Job.objects.create(campaign=struck, from_time=0, to_time=DAY, reached=0)
    clocks = []
    while job.open:
        job = services.clock_run(job.pk, slice_seconds=0)  # one batch, committed, then back here
        campaign = Campaign.objects.get(pk=struck.pk)
        fired = Event.objects.filter(campaign=struck, cause__startswith=f"timer:{job.pk}:")
        assert campaign.game_time == job.reached
        assert max(fired.values_list("game_time", flat=True), default=0) <= campaign.game_time
        # A note now would be dated at the clock: never before an event of its stream.
        assert all(
            c.events.order_by("-version")[0].game_time <= campaign.game_time for c in struck.characters.all()
        )
        clocks.append(campaign.game_time)
    # Three characters heal an hour's stun each hour, two firings a batch: the clock moves with every batch.
    assert clocks == [3600, 7200, 7200, 10800, 14400, 14400, 18000, 21600, 21600, DAY]


def test_an_export_while_an_advance_is_open_is_a_409_so_no_copy_has_its_clock_behind_its_firings(
    cp2020: Table,
) -> None:
    from django.core.management import CommandError, call_command

    campaign = Campaign.objects.get(pk=cp2020.campaign["id"])
    job = Job.objects.create(campaign=campaign, from_time=0, to_time=DAY, reached=0)
    url = f"/api/campaigns/{campaign.pk}/export/"
    answer = cp2020.gm.get(url)
    assert answer.status_code == 409
    assert answer.json() == {
        "clock": [f"the game clock is advancing (job {job.pk}); try again when it has finished"]
    }
    with pytest.raises(CommandError, match="the game clock is advancing"):
        call_command("export_campaign", str(campaign.pk))
    services.clock_run(job.pk)
    answer = cp2020.gm.get(url)
    assert answer.status_code == 200
    transfer.check_file(b"".join(answer.streaming_content))
