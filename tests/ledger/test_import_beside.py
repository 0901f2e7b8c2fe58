"""An import's first lines written beside its check (SQLite, `importing._BesideTheCheck`): the same rows as an import
written after its check, nothing left by a file that fails the check or a write that fails, and the rest written in
batches that a worker resumes. The write has a connection of its own, so these tests commit (`transactional_db`);
CI runs them on SQLite (`make test-eventstore-sqlite`)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import OperationalError, connection
from django.test import override_settings

from campaign import services, tasks, transfer
from campaign.models import Campaign, Character, Event, ImportFile, ImportJob, Timer
from campaign.services import ServiceError
from campaign.transfer import checks, importing
from tests.conftest import Table, make_table
from tests.transfer.test_import import WOUND, _events, _export, _post, _with_trailer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table(django_user_model: Any) -> Table:
    if connection.vendor != "sqlite":
        pytest.skip(
            "SQLite only: the write beside the check is SQLite's (make test-eventstore-sqlite runs it)"
        )
    return make_table(django_user_model, "shadowrun2", {"body": 5})


@pytest.fixture
def slow_check(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Statements of two rows, and a check that takes a millisecond a line: the write beside it gets lines to write
    before the check ends. Returns the name of the thread of each `_write_batch`."""
    monkeypatch.setattr(importing, "_ROWS_PER_INSERT", (2, 1))
    parse = checks._parse

    def slow(*args: Any) -> Any:
        time.sleep(0.001)
        return parse(*args)

    monkeypatch.setattr(checks, "_parse", slow)
    threads: list[str] = []
    write = importing._write_batch

    def noted(*args: Any) -> None:
        threads.append(threading.current_thread().name)
        write(*args)

    monkeypatch.setattr(importing, "_write_batch", noted)
    return threads


def _busy(table: Table) -> None:
    source = Campaign.objects.get(pk=table.campaign["id"])
    for number in range(3):
        character = services.character_create(
            campaign=source, actor="gm", name=f"Runner {number}", attributes={"body": 4 + number}
        )
        for text in ("one", "two", "three"):
            assert (
                table.gm.post(
                    f"/api/characters/{character.pk}/actions/", {"type": "note", "text": text}
                ).status_code
                == 201
            )
    assert table.act(WOUND).status_code == 201


def _without_id(data: dict[str, Any], ids: dict[int, int]) -> dict[str, Any]:
    """A CharacterCreated's data names the new character's id: its place among the import's characters instead."""
    return (
        {**data, "character": ids[data["character"]]}
        if "character" in data and "attributes" in data
        else data
    )


def _rows(campaign: Campaign) -> tuple[list[Any], list[Any], list[Any]]:
    """What an import wrote, without its ids: the events, the characters' read models and the timers."""
    ids = {c.pk: n for n, c in enumerate(Character.objects.filter(campaign=campaign).order_by("pk"))}
    events = [
        (ids.get(e.character_id), e.version, e.type, _without_id(e.data, ids), e.game_time, e.actor, e.cause)
        for e in Event.objects.filter(campaign=campaign).order_by("position")
    ]
    characters = list(
        Character.objects.filter(campaign=campaign)
        .order_by("pk")
        .values_list("name", "attributes", "state", "version", "alive", "conscious", "dying", "death_at")
    )
    timers = [(ids[t.character_id], t.key, t.due, t.kind) for t in Timer.objects.filter(campaign=campaign)]
    return events, characters, sorted(timers)


def _written() -> tuple[int, ...]:
    return tuple(
        model.objects.count() for model in (Campaign, Character, Event, ImportJob, ImportFile, Timer)
    )


def test_the_lines_written_beside_the_check_are_those_written_after_it(
    table: Table, slow_check: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _busy(table)
    content = _export(table)
    beside = transfer.import_file(content, user=table.gm.user)
    # Some lines were written by the write beside the check, the rest by `import_run` in its batches.
    assert "import-write" in slow_check and "MainThread" in slow_check
    monkeypatch.setattr(importing, "_writes_beside_the_check", lambda: False)
    slow_check.clear()
    after = transfer.import_file(content, user=table.gm.user)
    assert "import-write" not in slow_check
    assert _rows(beside) == _rows(after)
    job = ImportJob.objects.get(campaign=beside)
    assert (job.status, job.lines_written, job.progress) == (ImportJob.DONE, job.lines, 1.0)
    assert not ImportFile.objects.filter(pk=job.pk).exists()  # written: the file is the campaign's log now


def test_a_file_that_fails_its_check_after_lines_were_written_beside_it_leaves_nothing(
    table: Table, slow_check: list[str]
) -> None:
    _busy(table)
    lines = _events(_export(table))
    lines[-1]["version"] += 1  # the last line skips a version
    before = _written()
    with pytest.raises(ServiceError) as refused:
        transfer.import_file(_with_trailer(lines), user=table.gm.user)
    assert refused.value.message.startswith(f"line {len(lines)}: version: expected")
    assert "import-write" in slow_check  # lines were written beside the check, and rolled back
    assert _written() == before


def test_a_write_that_fails_beside_the_check_is_raised_and_leaves_nothing(
    table: Table, slow_check: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _busy(table)
    content = _export(table)

    def fails(*args: Any) -> None:
        raise OperationalError("disk I/O error")

    monkeypatch.setattr(importing, "_write_batch", fails)
    before = _written()
    with pytest.raises(OperationalError, match="disk I/O error"):
        transfer.import_file(content, user=table.gm.user)
    assert _written() == before


def test_a_worker_writes_beside_its_check_and_resumes_after_the_lines_written(
    table: Table, slow_check: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A queued job's worker checks the kept file and writes beside the check too; one killed after that first
    transaction resumes after the lines it wrote, beside its check again, and writes none twice."""
    _busy(table)
    content = _export(table)
    lines = len(content.splitlines()) - 1
    sent: list[str] = []
    monkeypatch.setattr(tasks, "ensure_broker", lambda *refusal: None)
    monkeypatch.setattr(tasks, "enqueue_import", lambda job_id: sent.append(str(job_id)))
    with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
        response = _post(table, content)
    assert response.status_code == 202 and sent == [response.json()["id"]]
    job_id = response.json()["id"]
    write = importing._write_batch

    def killed_in_its_first_batch(*args: Any) -> None:
        if threading.current_thread().name == "MainThread":
            raise SystemExit("killed")
        write(*args)

    monkeypatch.setattr(importing, "_write_batch", killed_in_its_first_batch)
    with pytest.raises(SystemExit):
        transfer.import_run(job_id)
    half = ImportJob.objects.get(pk=job_id)
    assert "import-write" in slow_check and half.status == ImportJob.RUNNING
    assert 0 < half.lines_written < lines and half.lines_written % 2 == 0  # whole statements of two rows
    assert Event.objects.filter(campaign_id=half.campaign_id).count() == half.lines_written
    monkeypatch.setattr(importing, "_write_batch", write)
    slow_check.clear()
    done = transfer.import_run(job_id)
    assert "import-write" in slow_check  # the resumed run wrote beside its check too
    assert (done.status, done.lines_written, done.progress) == (ImportJob.DONE, lines, 1.0)
    assert Event.objects.filter(campaign_id=done.campaign_id).count() == lines
    assert _rows(done.campaign) == _rows(transfer.import_file(content, user=table.gm.user))
