"""A test that starts a Celery worker and fails leaves no process behind (issue 41): the worker is stopped by the
test's own `with` block before the next test runs, and gone when pytest ends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import need_service

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split(") ")[-1].startswith("Z"))


def test_a_failing_worker_test_leaves_no_worker_running(tmp_path: Path) -> None:
    need_service("Redis", "127.0.0.1", 6379)
    pid_file = tmp_path / "worker.pid"
    env = {**os.environ, "WORKER_PID_FILE": str(pid_file)}
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-q",
            "tests/on_purpose/worker_left_running.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert "1 failed, 1 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
    assert "failing on purpose, with the worker running" in run.stdout
    pid = int(pid_file.read_text())
    assert not _alive(pid), f"the worker {pid} outlived its pytest"
