"""Run only by tests/clock/test_worker_cleanup.py, in a pytest of its own: a test that starts a worker and then fails on
purpose, and one after it that looks for that worker. Its name does not start with `test_`, so the suite never
collects it."""

from __future__ import annotations

import os
from pathlib import Path

from tests.celery_worker import Worker, own_queue

PID_FILE = Path(os.environ.get("WORKER_PID_FILE", "/nonexistent"))


def test_a_test_that_fails_with_its_worker_running(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'unused.sqlite3'}"
    with own_queue("left") as queue, Worker(queue, database=database) as worker:
        assert worker.running() and worker.process is not None
        PID_FILE.write_text(str(worker.process.pid))
        raise AssertionError("failing on purpose, with the worker running")


def test_the_next_test_finds_no_worker_of_the_failed_one() -> None:
    pid = int(PID_FILE.read_text())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return
    raise AssertionError(f"the failed test's worker {pid} is still running")
