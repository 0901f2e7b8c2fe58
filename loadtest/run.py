"""Load test of the character reads: the web page and `GET /api/characters/<id>/`, 100 vs 100,000 events.

Does everything itself (see docs/PERFORMANCE.md, "Load test"): a throwaway SQLite database in /tmp, migrate,
collectstatic into a temporary directory, seed a campaign, a GM (token and session) and two characters, start
gunicorn on loopback, run wrk (50 connections, 2 threads, --latency) on each URL, stop gunicorn, print a table of
p50/p99/requests per second with the load average, and delete the database.

    .venv/bin/python loadtest/run.py [--duration 10] [--events 100000] [--json out.json] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
SERVICE_EVENTS = 20  # events written through campaign.services before the bulk NoteAdded history
BATCH = 2000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loadavg() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def seed(long_events: int) -> dict[str, Any]:
    """Runs inside this process after the environment is set: migrate, seed, return ids, token and session."""
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import transaction
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from campaign import eventstore, services
    from campaign.models import Campaign, Character
    from campaign.projections import rebuild_campaign
    from rules.ruleset import NOTE_ADDED
    from rules.ruleset import Event as RuleEvent

    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)
    gm = User.objects.create_user("gm", password="load-test-password")
    token = Token.objects.create(user=gm).key
    campaign = services.campaign_create(user=gm, name="Load test", ruleset="shadowrun2")
    ids = {}
    for label, total in (("100", 100), (f"{long_events // 1000}k", long_events)):
        character = services.character_create(
            campaign=campaign, actor="gm", name=f"Runner {label}", attributes={"body": 6}
        )
        for i in range(min(SERVICE_EVENTS, total)):
            if i % 4 == 0:
                body = {"type": "wound", "severity": "L", "rolls": {"body_check": [2, 2, 2, 2, 2, 2]}}
            else:
                body = {"type": "note", "text": f"service note {i}"}
            services.character_act(character_id=character.pk, body=body, actor="gm")
        started = time.perf_counter()
        with transaction.atomic():
            camp = eventstore.lock_campaign(campaign.pk)
            character.refresh_from_db()
            version = character.version
            while version < total:
                n = min(BATCH, total - version)
                events = [
                    RuleEvent(NOTE_ADDED, {"text": f"bulk note {version + k}"}, camp.game_time)
                    for k in range(1, n + 1)
                ]
                eventstore.append(
                    campaign=camp,
                    stream=character.stream,
                    character=character,
                    expected_version=version,
                    events=events,
                    cause=f"load:{character.pk}:{version}",
                    actor="gm",
                )
                version += n
        print(f"  {label}: {version} events appended in {time.perf_counter() - started:.1f} s", flush=True)
        ids[label] = character.pk
    started = time.perf_counter()
    count = rebuild_campaign(Campaign.objects.get(pk=campaign.pk))
    print(f"  rebuild_campaign: {count} events in {time.perf_counter() - started:.1f} s", flush=True)
    for label, pk in ids.items():
        assert Character.objects.get(pk=pk).version == (100 if label == "100" else long_events), label
    client = Client()
    client.force_login(gm)
    session = client.cookies["sessionid"].value
    return {"ids": ids, "token": token, "session": session}


def start_server(env: dict[str, str], port: int, log_path: Path, workers: int) -> subprocess.Popen:
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [
                str(VENV_BIN / "gunicorn"),
                "campaign.wsgi",
                "-w",
                str(workers),
                "-b",
                f"127.0.0.1:{port}",
                "--graceful-timeout",
                "1",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    for _ in range(150):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/rulesets/", timeout=2).read()
            return server
        except OSError:
            if server.poll() is not None:
                break
            time.sleep(0.2)
    stop_server(server)
    raise SystemExit(f"gunicorn did not start; see {log_path}")


def stop_server(server: subprocess.Popen) -> None:
    """TERM the whole process group (master and workers), KILL it if it is still there after 5 s."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    except ProcessLookupError:
        pass


def parse_wrk(text: str) -> dict[str, Any]:
    def ms(value: str) -> float:
        number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", value).groups()
        return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]

    out: dict[str, Any] = {}
    for pct in ("50", "99"):
        match = re.search(rf"^\s+{pct}%\s+(\S+)", text, re.M)
        out[f"p{pct}_ms"] = ms(match.group(1)) if match else None
    match = re.search(r"Requests/sec:\s+([\d.]+)", text)
    out["rps"] = float(match.group(1)) if match else None
    match = re.search(r"(\d+) requests in", text)
    out["requests"] = int(match.group(1)) if match else None
    match = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    out["non_2xx"] = int(match.group(1)) if match else 0
    match = re.search(r"Socket errors: (.*)", text)
    out["socket_errors"] = match.group(1).strip() if match else ""
    return out


def check(url: str, header: str) -> int:
    name, value = header.split(": ", 1)
    request = urllib.request.Request(url, headers={name: value})
    with urllib.request.urlopen(request, timeout=120) as response:
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"{url}: HTTP {response.status}")
    return len(body)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--events", type=int, default=100_000, help="events of the long character")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the database and the server's log")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install -y wrk)")

    tmp = Path(tempfile.mkdtemp(prefix="wl-load-"))
    db = Path(f"/tmp/wl-load-{os.getpid()}.sqlite3")
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DEBUG": "0",
        "SECRET_KEY": "load-test",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SETTINGS_MODULE": "loadtest.settings",
        "LOADTEST_STATIC_ROOT": str(tmp / "static"),
        "PYTHONPATH": str(ROOT),
    }
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    server = None
    results: list[dict[str, Any]] = []
    try:
        print(f"seeding {db} (load average {loadavg()})", flush=True)
        seeded = seed(args.events)
        base = f"http://127.0.0.1:{port}"
        targets = []
        for label, pk in seeded["ids"].items():
            targets.append(
                ("page", label, f"{base}/characters/{pk}/", f"Cookie: sessionid={seeded['session']}")
            )
            targets.append(
                ("api", label, f"{base}/api/characters/{pk}/", f"Authorization: Token {seeded['token']}")
            )
        for kind, label, url, header in targets:
            # A fresh server per run: the requests wrk leaves queued when it stops (seconds each for the long
            # page) would otherwise still be served during the next run.
            server = start_server(env, port, tmp / f"gunicorn-{kind}-{label}.log", args.workers)
            size = check(url, header)  # also warms both workers' caches a little
            check(url, header)
            before = loadavg()
            proc = subprocess.run(
                [
                    "wrk",
                    "--latency",
                    "-t2",
                    f"-c{args.connections}",
                    f"-d{args.duration}s",
                    "--timeout",
                    "30s",
                    "-H",
                    header,
                    url,
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            row = {"what": kind, "events": label, "bytes": size, **parse_wrk(proc.stdout)}
            row["load_before"], row["load_after"] = before, loadavg()
            results.append(row)
            print(f"  {kind} {label}: {json.dumps(row)}", flush=True)
            if row["non_2xx"] or row["socket_errors"]:
                print(proc.stdout, flush=True)
            stop_server(server)
            server = None
    finally:
        if server is not None:
            stop_server(server)
        if not args.keep:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept {db} and {tmp}")

    print()
    print(
        f"{args.connections} connections, 2 wrk threads, {args.duration} s each, gunicorn -w {args.workers} (sync)"
    )
    print(
        "| read | events | response bytes | p50 ms | p99 ms | requests/s | non-2xx | load avg before / after |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['what']} | {r['events']} | {r['bytes']:,} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | "
            f"{r['rps']:.1f} | {r['non_2xx']} | {r['load_before']} / {r['load_after']} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
