"""Load test of the character reads: the web page and `GET /api/characters/<id>/`, 100 vs 100,000 events.

Does everything itself with the harness's tools (see docs/PERFORMANCE.md, "Load test"): a throwaway SQLite
database in /tmp, migrate, collectstatic into a temporary directory, seed a campaign, a GM (token and session),
reader users and two characters (a few actions through the write path, then GM notes written raw), start gunicorn
on loopback, run wrk on each URL in two load models, stop gunicorn, print a table of p50/p99/requests per second
with the load average, and delete the database.

- `closed`: the saturating closed loop: 50 connections (2 wrk threads) each sending its next full read as soon as
  the previous one is answered, all as the one GM. It measures throughput; its latency is mostly queueing.
- `readers`: the performance target's (docs/PERFORMANCE.md) "50 concurrent readers": 50 people (different GM
  users) with the page open, each polling every 2 s with its ETag (htmx) and reloading about once a minute
  (`perf/loadtest/readers.lua`, one wrk thread per reader), while the GM acts on the character every 5 s through
  the API (a note), so that every reader's next poll gets the new version (a cache miss per reader and worker).

    .venv/bin/python perf/loadtest/run.py [--model both|closed|readers] [--duration 10] [--reader-duration 30]
        [--events 100000] [--json out.json] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from perf.harness.databases import remove_sqlite, served_copy  # noqa: E402
from perf.harness.measure import load_average, write_json  # noqa: E402
from perf.harness.servers import gunicorn  # noqa: E402

SERVICE_EVENTS = 20  # events written through campaign.services before the bulk NoteAdded history
READERS_LUA = Path(__file__).resolve().parent / "readers.lua"


def seed(long_events: int, readers: int) -> dict[str, Any]:
    """Runs inside this process once the app is served from its database: seed, return ids, token and sessions."""
    from campaign import services
    from campaign.ledger.projections import rebuild_campaign
    from campaign.models import Campaign, Character
    from perf.harness.seeding import api_token, append_raw, gm_notes, session_cookie, user

    gm = user("gm")
    campaign = services.campaign_create(user=gm, name="Load test", ruleset="shadowrun2")
    player = user("player")
    services.member_add(campaign=campaign, username="player", role="player")
    ids = {}
    for label, total in (("100", 100), (f"{long_events // 1000}k", long_events)):
        character = services.character_create(
            campaign=campaign, actor="gm", name=f"Runner {label}", player="player", attributes={"body": 6}
        )
        for i in range(min(SERVICE_EVENTS, total)):
            if i % 4 == 0:
                body = {"type": "wound", "severity": "L", "rolls": {"body_check": [2, 2, 2, 2, 2, 2]}}
            else:
                body = {"type": "note", "text": f"service note {i}"}
            services.character_act(character_id=character.pk, body=body, actor="gm")
        started = time.perf_counter()
        append_raw(character, total, f"load-{label}", gm_notes)
        print(f"  {label}: {total} events written in {time.perf_counter() - started:.1f} s", flush=True)
        ids[label] = character.pk
    started = time.perf_counter()
    count = rebuild_campaign(Campaign.objects.get(pk=campaign.pk))
    print(f"  rebuild_campaign: {count} events in {time.perf_counter() - started:.1f} s", flush=True)
    for label, pk in ids.items():
        assert Character.objects.get(pk=pk).version == (100 if label == "100" else long_events), label
    reader_credentials = []
    for n in range(1, readers + 1):
        reader = user(f"reader{n:03d}")
        services.member_add(campaign=campaign, username=reader.username, role="gm")
        reader_credentials.append({"session": session_cookie(reader), "token": api_token(reader)})
    return {
        "ids": ids,
        "token": api_token(gm),
        "session": session_cookie(gm),
        "player_session": session_cookie(player),
        "readers": reader_credentials,
    }


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


def check(url: str, header: str, extra: dict[str, str] | None = None) -> tuple[int, str]:
    """One GET: the size of the answer and its ETag."""
    name, value = header.split(": ", 1)
    request = urllib.request.Request(url, headers={name: value, **(extra or {})})
    with urllib.request.urlopen(request, timeout=120) as response:
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"{url}: HTTP {response.status}")
        return len(body), response.headers.get("ETag", "")


class Writer(threading.Thread):
    """The GM acting on the character every `every` seconds (a note through the API) while the readers read."""

    def __init__(self, base: str, character: int, token: str, every: float) -> None:
        super().__init__(daemon=True)
        self.url = f"{base}/api/characters/{character}/actions/"
        self.token, self.every = token, every
        self.stop = threading.Event()
        self.writes, self.failures = 0, 0

    def run(self) -> None:
        while not self.stop.wait(self.every):
            body = json.dumps({"type": "note", "text": f"load-test note {self.writes}"}).encode()
            request = urllib.request.Request(
                self.url,
                data=body,
                headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    response.read()
                self.writes += 1
            except OSError:
                self.failures += 1


def run_readers(
    args: argparse.Namespace,
    kind: str,
    url: str,
    credentials: list[str],
    first_etag: str,
    tmp: Path,
    duration: int,
) -> tuple[str, dict[str, int]]:
    creds = tmp / f"readers-{kind}.txt"
    creds.write_text("".join(f"{line}\n" for line in credentials))
    n = args.readers
    proc = subprocess.run(
        ["wrk", "--latency", f"-t{n}", f"-c{n}", f"-d{duration}s", "--timeout", "30s"]
        + ["-s", str(READERS_LUA), url, "--", kind, str(args.think_ms), str(args.reload_every)]
        + [str(creds), first_etag],
        capture_output=True,
        text=True,
        check=True,
    )
    match = re.search(r"READERS (.*)", proc.stdout)
    counts = {k: int(v) for k, v in (item.split("=") for item in match.group(1).split())} if match else {}
    return proc.stdout, counts


def measure(
    args: argparse.Namespace,
    seeded: dict[str, Any],
    base: str,
    model: str,
    server: str,
    kind: str,
    label: str,
    pk: int,
    tmp: Path,
) -> dict[str, Any]:
    """One run of wrk on the server at `base` (its worker class `server`): `kind` (the GM's page, the player's
    page, the API) of character `pk` in the load model `model`; its row of the table."""
    live = {"HX-Request": "true", "HX-Target": "live", "HX-Trigger": "live"}
    if kind == "page":
        url = f"{base}/characters/{pk}/"
        header = f"Cookie: sessionid={seeded['session']}"
        credentials = [f"Cookie: sessionid={r['session']}" for r in seeded["readers"]]
    elif kind == "player-page":
        # A character has one player: the readers are that player's 50 open pages (one session).
        url = f"{base}/characters/{pk}/"
        header = f"Cookie: sessionid={seeded['player_session']}"
        credentials = [header]
    else:
        url = f"{base}/api/characters/{pk}/"
        header = f"Authorization: Token {seeded['token']}"
        credentials = [f"Authorization: Token {r['token']}" for r in seeded["readers"]]
    lua_kind = "api" if kind == "api" else "page"
    size, _ = check(url, header)  # also warms both workers a little
    check(url, header)
    before = load_average()
    writer = None
    if model == "closed":
        cmd = ["wrk", "--latency", "-t2", f"-c{args.connections}", f"-d{args.duration}s"]
        cmd += ["--timeout", "30s", "-H", header, url]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        output, counts = proc.stdout, {}
    else:
        _, etag = check(url, header, live if kind != "api" else None)
        if args.reader_warmup > 0:  # every reader's first answers, each worker warm: not counted
            run_readers(args, lua_kind, url, credentials, etag, tmp, args.reader_warmup)
        if args.write_every > 0:
            writer = Writer(base, pk, seeded["token"], args.write_every)
            writer.start()
        try:
            output, counts = run_readers(args, lua_kind, url, credentials, etag, tmp, args.reader_duration)
        finally:
            if writer is not None:
                writer.stop.set()
                writer.join()
    row = {"model": model, "server": server, "what": kind, "events": label, "bytes": size}
    row.update(parse_wrk(output))
    row.update(counts)
    if writer is not None:
        row["writes"], row["write_failures"] = writer.writes, writer.failures
    row["load_before"], row["load_after"] = before, load_average()
    if args.verbose or row["non_2xx"] or row["socket_errors"] or row.get("other"):
        print(output, flush=True)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=("both", "closed", "readers"), default="both")
    parser.add_argument("--duration", type=int, default=10, help="seconds per closed-loop wrk run")
    parser.add_argument("--reader-duration", type=int, default=30, help="seconds per reader-model wrk run")
    parser.add_argument(
        "--readers", type=int, default=50, help="readers (users, connections) of the reader model"
    )
    parser.add_argument("--think-ms", type=int, default=2000, help="a reader's time between requests")
    parser.add_argument("--reload-every", type=int, default=30, help="one request in N is a full load")
    parser.add_argument(
        "--write-every", type=float, default=5.0, help="seconds between the GM's actions (0: none)"
    )
    parser.add_argument("--events", type=int, default=100_000, help="events of the long character")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument(
        "--reader-server",
        choices=("sync", "gthread"),
        default="gthread",
        help="gunicorn worker class of the reader model (the closed loop always uses sync)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=64,
        help="threads per gthread worker (gunicorn 27 gives a new connection a thread until its first request: "
        "fewer threads than a worker's readers and the readers' staggered first requests wait for one another)",
    )
    parser.add_argument(
        "--reader-warmup",
        type=int,
        default=5,
        help="seconds of reader load before the measured run (not counted)",
    )
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--verbose", action="store_true", help="print wrk's whole output")
    parser.add_argument("--keep", action="store_true", help="keep the database and the server's log")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install -y wrk)")

    tmp = Path(tempfile.mkdtemp(prefix="wl-load-"))
    db = Path(f"/tmp/wl-load-{os.getpid()}.sqlite3")
    results: list[dict[str, Any]] = []
    try:
        print(f"seeding {db} (load average {load_average()})", flush=True)
        env = served_copy(tmp, db)
        seeded = seed(args.events, args.readers if args.model != "closed" else 0)
        models = ("closed", "readers") if args.model == "both" else (args.model,)
        for model in models:
            for label, pk in seeded["ids"].items():
                for kind in ("page", "player-page", "api"):
                    # A fresh server per run: the requests wrk leaves queued when it stops (seconds each for the
                    # long page) would otherwise still be served during the next run.
                    worker_class = "sync" if model == "closed" else args.reader_server
                    log = tmp / f"gunicorn-{model}-{kind}-{label}.log"
                    with gunicorn(
                        args.workers, env=env, worker_class=worker_class, threads=args.threads, log=log
                    ) as (port, _):
                        base = f"http://127.0.0.1:{port}"
                        row = measure(args, seeded, base, model, worker_class, kind, label, pk, tmp)
                    results.append(row)
                    print(f"  {model} {kind} {label}: {json.dumps(row)}", flush=True)
    finally:
        if not args.keep:
            remove_sqlite(db)
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept {db} and {tmp}")

    print()
    print(
        f"closed: {args.connections} connections, 2 wrk threads, {args.duration} s each; readers: {args.readers}"
        f" readers, a request every {args.think_ms} ms each (1 in {args.reload_every} a full load, the rest"
        f" polls with the ETag), the GM acting every {args.write_every} s, {args.reader_duration} s each;"
        f" gunicorn -w {args.workers} (sync)"
    )
    print(
        "| model | read | events | response bytes | p50 ms | p99 ms | requests/s | 200 / 304 | writes |"
        " non-2xx | load avg before / after |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        codes = f"{r['ok']} / {r['not_modified']}" if "ok" in r else "all 200"
        print(
            f"| {r['model']} | {r['what']} | {r['events']} | {r['bytes']:,} | {r['p50_ms']:.1f} |"
            f" {r['p99_ms']:.1f} | {r['rps']:.1f} | {codes} | {r.get('writes', '-')} | {r['non_2xx']} |"
            f" {r['load_before']} / {r['load_after']} |"
        )
    if args.json:
        write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
