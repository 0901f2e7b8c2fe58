"""Servers a row or a load test starts and stops: gunicorn on loopback, a Celery worker, and the CPU their
processes spent (Linux /proc).

Each runs in a session of its own and is stopped whole, workers and all, whatever happened meanwhile.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from perf.harness.databases import ROOT, scratch


def free_port() -> int:
    """A TCP port on loopback nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_of_children(pid: int) -> float:
    """CPU seconds spent so far by the processes `pid` has started (Linux /proc; 0 elsewhere)."""
    ticks = 0
    with suppress(OSError):
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        for child in children:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _stop(server: subprocess.Popen, wait: float) -> None:
    """TERM the server's whole process group, KILL it if it is still there after `wait` seconds."""
    with suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait()


@contextmanager
def gunicorn(
    workers: int,
    *,
    app: str = "campaign.wsgi",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    worker_class: str = "gthread",
    threads: int = 1,
    log: Path | None = None,
    log_name: str = "gunicorn",
    extra: tuple[str, ...] = (),
) -> Iterator[tuple[int, int]]:
    """gunicorn serving `app` (by default this project on this process's database) on a free loopback port with
    `workers` processes: gthread workers of `threads` threads with keep-alive (longer than a polling reader's
    think time; a sync worker closes every connection), or `worker_class` "sync"; `extra` options beside. Its
    output goes to `log` (by default `log_name`.log in the row's scratch folder). Yields its port and pid once it
    answers, then stops it."""
    port = free_port()
    if env is None:
        env = {**os.environ, "ALLOWED_HOSTS": "127.0.0.1", "DEBUG": "0"}
    command = [sys.executable, "-m", "gunicorn", app, "-w", str(workers), "-b", f"127.0.0.1:{port}"]
    command += ["-k", worker_class, "--graceful-timeout", "1"]
    if worker_class == "gthread":
        command += ["--threads", str(threads), "--keep-alive", "30"]
    command += extra
    log = log or scratch() / f"{log_name}.log"
    with open(log, "w") as output:
        server = subprocess.Popen(
            command,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            cwd=cwd or ROOT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).read()
                break
            except urllib.error.HTTPError:
                break  # it answers: a 503 naming a service down, or a peer without that path
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn did not start; see {log}") from None
                time.sleep(0.1)
        yield port, server.pid
    finally:
        _stop(server, 10)


def broker_up(url: str) -> bool:
    """Whether the Redis at `url` answers."""
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


@contextmanager
def celery_worker(
    profile: str | None = None, *, loglevel: str = "WARNING", log: Path | None = None
) -> Iterator[subprocess.Popen]:
    """A Celery worker of the app (one process, solo pool) on this process's database and broker, profiled by
    pyinstrument into `profile` when asked; yields once it answers a ping, then stops it. `loglevel` INFO logs
    each task's run time ("Task ... succeeded in 0.0012s"), into `log` (by default celery-worker.log in the
    row's scratch folder)."""
    from campaign.celery import app

    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "campaign",
        "worker",
        "--pool=solo",
        f"--loglevel={loglevel}",
    ]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    if profile:
        command = [sys.executable, "-m", "pyinstrument", "-o", profile, "-r", "text", "-m", *command[2:]]
    log = log or scratch() / "celery-worker.log"
    with open(log, "w") as output:
        worker = subprocess.Popen(
            command, env=dict(os.environ), stdout=output, stderr=subprocess.STDOUT, cwd=ROOT
        )
    try:
        deadline = time.monotonic() + 60
        while not app.control.ping(timeout=0.5):
            if worker.poll() is not None:
                raise RuntimeError(f"the Celery worker exited with {worker.returncode}; see {log}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not answer within 60 s; see {log}")
        yield worker
    finally:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()


@contextmanager
def celery_beat(log: Path | None = None) -> Iterator[subprocess.Popen]:
    """Celery beat with the app's schedule (settings.CELERY_BEAT_SCHEDULE: the running clocks' tick every 5 s), on
    this process's broker, its schedule file in the row's scratch folder; yields once it has started, then stops
    it."""
    folder = scratch()
    log = log or folder / "celery-beat.log"
    command = [sys.executable, "-m", "celery", "-A", "campaign", "beat", "--loglevel=INFO"]
    command += ["--schedule", str(folder / f"celerybeat-schedule-{os.getpid()}")]
    with open(log, "w") as output:
        beat = subprocess.Popen(
            command,
            env=dict(os.environ),
            stdout=output,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while "beat: Starting" not in log.read_text():
            if beat.poll() is not None:
                raise RuntimeError(f"Celery beat exited with {beat.returncode}; see {log}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Celery beat did not start within 60 s; see {log}")
            time.sleep(0.1)
        yield beat
    finally:
        _stop(beat, 10)
