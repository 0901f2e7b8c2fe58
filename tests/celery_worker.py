"""A real Celery worker for the tests that need one: its own Redis keys, waits that follow progress, and never a
process left behind.

- **Keys of its own.** Each run of the suite, and each of its xdist processes, puts every broker key under a prefix
  of its own (kombu's `global_keyprefix`, `CELERY_BROKER_PREFIX` in the worker), so no two runs, no two processes
  of one run and no other program on the machine share a queue, and nothing needs a `FLUSHDB`. The keys are
  deleted when the queue is let go.
- **Waits that follow progress.** A busy machine makes every step slower, not fewer: a wait fails only when nothing
  has moved for `idle` seconds (a worker's log while it starts; a job's status, timers fired, events appended,
  heartbeat, lines written), never on a fixed budget for the whole job.
- **Nothing left running.** `Worker` is a context manager that stops its process whatever the test's outcome, and the
  kernel kills the worker if the test process itself dies first (`PR_SET_PDEATHSIG`).
"""

from __future__ import annotations

import ctypes
import itertools
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection
from django.test import override_settings

ROOT = Path(__file__).resolve().parents[1]
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
# One id for the whole run (pytest-xdist gives its processes the same PYTEST_XDIST_TESTRUNUID), one name a process.
RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex
PROCESS = os.environ.get("PYTEST_XDIST_WORKER", "solo")
_queues = itertools.count(1)
STARTING_IDLE = 120.0  # seconds a starting worker may go without writing a line to its log
JOB_IDLE = 90.0  # seconds a job may go without any visible progress


@dataclass(frozen=True)
class Queue:
    """A broker of this run's own: a Redis URL and the prefix every key of it carries."""

    url: str
    prefix: str

    @classmethod
    def own(cls, name: str) -> Queue:
        return cls(REDIS_URL, f"wl-test:{RUN[:12]}:{PROCESS}:{name}{next(_queues)}:")

    def clear(self) -> None:
        import redis

        client = redis.Redis.from_url(self.url)
        for key in client.scan_iter(match=f"{self.prefix}*", count=1000):
            client.delete(key)


def _use_broker(url: str | None, eager: bool, options: dict[str, Any]) -> None:
    from campaign.celery import app

    app.conf.broker_url, app.conf.task_always_eager = url, eager
    app.conf.broker_transport_options = options
    # The producer pool keeps connections to the broker it first met: start a fresh one.
    app._pool = None
    app.amqp._producer_pool = None


@contextmanager
def own_queue(name: str) -> Iterator[Queue]:
    """A queue of this run's own, its keys deleted when the block ends (after its workers have stopped)."""
    queue = Queue.own(name)
    try:
        yield queue
    finally:
        queue.clear()


@contextmanager
def broker_for_this_process(queue: Queue) -> Iterator[Queue]:
    """Tasks this test process sends go to `queue` for as long as the block lasts."""
    from campaign.celery import app

    saved = (app.conf.broker_url, app.conf.task_always_eager, dict(app.conf.broker_transport_options or {}))
    options = {**settings.CELERY_BROKER_TRANSPORT_OPTIONS, "global_keyprefix": queue.prefix}
    _use_broker(queue.url, False, options)
    try:
        with override_settings(
            CELERY_TASK_ALWAYS_EAGER=False,
            CELERY_BROKER_URL=queue.url,
            CELERY_BROKER_TRANSPORT_OPTIONS=options,
        ):
            yield queue
    finally:
        _use_broker(*saved)


def database_url() -> str:
    """The test database, as DATABASE_URL names it for another process."""
    named = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{named['NAME']}"
    user = named.get("USER") or "postgres"
    password = f":{named['PASSWORD']}" if named.get("PASSWORD") else ""
    host, port = named.get("HOST") or "127.0.0.1", named.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{named['NAME']}"


def _die_with_the_test() -> None:
    """In the child before exec: the kernel sends it SIGKILL when the test process ends, however it ends."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Worker:
    """`celery -A campaign worker` in a subprocess: `with Worker(queue) as worker:` starts it and waits until it is
    ready; leaving the block stops it (SIGTERM, then SIGKILL), whatever happened inside."""

    def __init__(
        self,
        queue: Queue,
        firings_per_transaction: int = 200,
        slice_seconds: float = 0.5,
        database: str | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.queue = queue
        self.firings = firings_per_transaction
        self.slice = slice_seconds
        self.database = database
        self.extra_env = extra_env or {}
        self.process: subprocess.Popen[bytes] | None = None
        name = queue.prefix.strip(":").replace(":", "-")
        self.log = Path(os.environ.get("TMPDIR", "/tmp")) / f"{name}-{time.time_ns()}.log"

    def __enter__(self) -> Worker:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def start(self) -> None:
        env = {
            **os.environ,
            **self.extra_env,
            "DATABASE_URL": self.database or database_url(),
            "CELERY_BROKER_URL": self.queue.url,
            "CELERY_BROKER_PREFIX": self.queue.prefix,
            "CLOCK_FIRINGS_PER_TRANSACTION": str(self.firings),
            "CLOCK_SLICE_SECONDS": str(self.slice),
            "DJANGO_SETTINGS_MODULE": "campaign.settings",
            "DEBUG": "1",
        }
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "campaign",
            "worker",
            "--pool=solo",
            "--loglevel=info",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_the_test,
            )
        try:
            self.wait_until_ready()
        except BaseException:
            self.stop()
            raise

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def logged(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def log_size(self) -> int:
        return self.log.stat().st_size if self.log.exists() else 0

    def wait_until_ready(self) -> None:
        """Until the worker says it is ready: it may take long on a busy machine, but its log keeps growing."""
        wait_while_moving(
            lambda: " ready." in self.logged(),
            progress=self.log_size,
            idle=STARTING_IDLE,
            what="the worker to start",
            alive=self,
        )

    def kill(self) -> None:
        if self.running():
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.running():
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_while_moving(
    done: Callable[[], bool],
    progress: Callable[[], Any],
    idle: float,
    what: str,
    alive: Worker | None = None,
    poll: float = 0.05,
) -> None:
    """Wait until `done()`; fail only when `progress()` has not changed for `idle` seconds, or the worker died."""
    seen = progress()
    moved = time.monotonic()
    while not done():
        if alive is not None and not alive.running():
            raise AssertionError(f"the worker exited while waiting for {what}:\n{alive.logged()[-3000:]}")
        now = progress()
        if now != seen:
            seen, moved = now, time.monotonic()
        elif time.monotonic() - moved > idle:
            tail = alive.logged()[-3000:] if alive is not None else ""
            raise AssertionError(f"nothing moved for {idle:.0f} s while waiting for {what}: {now!r}\n{tail}")
        time.sleep(poll)


def job_progress(job: Any) -> tuple[Any, ...]:
    """What a clock advance or an import shows of its progress."""
    return tuple(
        getattr(job, field, None)
        for field in (
            "status",
            "reached",
            "timers_fired",
            "events_appended",
            "lines_written",
            "progress",
            "heartbeat_at",
        )
    )


def wait_for_job(
    model: Any, job_id: Any, ready: Callable[[Any], bool] | None = None, worker: Worker | None = None
) -> Any:
    """The job once `ready(job)` (by default: no longer open), waiting as long as it keeps moving."""
    ready = ready or (lambda job: not job.open)
    wait_while_moving(
        lambda: ready(model.objects.get(pk=job_id)),
        lambda: job_progress(model.objects.get(pk=job_id)),
        JOB_IDLE,
        f"job {job_id}",
        alive=worker,
    )
    return model.objects.get(pk=job_id)
