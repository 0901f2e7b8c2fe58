"""Three users flooding the forecast while a fourth reads a page (docs/forecast.md, "Budget").

Does everything itself on the harness: a throwaway SQLite database, migrate, collectstatic into a temporary directory,
four users (each the GM of a campaign of their own with a Shadowrun character carrying a Mortal chest hit, the
dearest forecast there is with the whole what-if menu), gunicorn on loopback with `--workers` sync workers, and
then, for each phase, bounded loops of plain `http.client` requests:

- `quiet`: the fourth user reads their character page (`GET /characters/<id>/`) `--reads` times, one after the
  other (a pause of `--pause` s between reads), nothing else running;
- `flood`: meanwhile three users each send forecasts from `--per-user` connections in closed loops (the next
  request as soon as the last is answered, no pause, 429s included; with `--polite`, after a 429 they wait as its
  `Retry-After` says) for `--seconds`: `runs=5000`, every what-if,
  a new seed each time, so no answer is ever served from the cache.

Phases alternate `quiet, flood, quiet, flood` (`--rounds`). Prints the page's median, 90th percentile and
maximum per phase, the flood's answers by status, the futures its 200s ran, and the load average. `--unbudgeted`
runs the same with the budget off (a huge budget and time box, no server-wide limit): the issue's "before".

    .venv/bin/python perf/loadtest/forecast_flood.py [--workers 3] [--seconds 20] [--redis redis://127.0.0.1:6379/9]
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from perf.harness.databases import served_copy  # noqa: E402
from perf.harness.measure import load_average, median, quantile, write_json  # noqa: E402
from perf.harness.servers import gunicorn  # noqa: E402

MORTAL = {"type": "wound", "severity": "S"}
MORTAL_ROLLS = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": 3, "death_time": [6]}


def seed() -> list[dict[str, Any]]:
    """Four users, each the GM of a campaign of their own with a Shadowrun runner carrying a Mortal chest hit (every
    die given): each one's character, API token and session."""
    from campaign import services
    from perf.harness.seeding import api_token, session_cookie, user

    users = []
    for n in range(4):
        person = user(f"user{n}")
        campaign = services.campaign_create(user=person, name=f"Campaign {n}", ruleset="shadowrun2")
        character = services.character_create(
            campaign=campaign, actor=person.username, name=f"Runner {n}", player=None, attributes={"body": 5}
        )
        services.character_act(
            character_id=character.pk, body={**MORTAL, "rolls": MORTAL_ROLLS}, actor=person.username
        )
        users.append(
            {"character": character.pk, "token": api_token(person), "session": session_cookie(person)}
        )
    return users


def flooder(
    port: int, user: dict[str, Any], menu: str, until: float, tally: dict[str, Any], polite: bool
) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Token {user['token']}"}
    while time.monotonic() < until:
        url = f"/api/characters/{user['character']}/forecast/?runs=5000&with={menu}&seed={random.getrandbits(40)}"
        try:
            connection.request("GET", url, headers=headers)
            answer = connection.getresponse()
            body = answer.read()
        except (OSError, http.client.HTTPException):
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            tally["errors"] += 1
            continue
        with tally["lock"]:
            tally["statuses"][answer.status] = tally["statuses"].get(answer.status, 0) + 1
            if answer.status == 200:
                data = json.loads(body)
                tally["runs"].append(data["runs"])
                tally["cut"] += bool(data["cut_short"])
        if polite and answer.status == 429:
            time.sleep(min(float(answer.getheader("Retry-After", "1")), max(0.0, until - time.monotonic())))
    connection.close()


def reader(port: int, user: dict[str, Any], reads: int, pause: float) -> list[float]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Cookie": f"sessionid={user['session']}"}
    times = []
    for _ in range(reads):
        started = time.perf_counter()
        connection.request("GET", f"/characters/{user['character']}/", headers=headers)
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200, answer.status
        times.append(time.perf_counter() - started)
        time.sleep(pause)
    connection.close()
    return times


def figures(times: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(median(times) * 1000, 1),
        "p90_ms": round(quantile(times, 0.9) * 1000, 1),
        "max_ms": round(max(times) * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0, help="each flood phase's length")
    parser.add_argument("--per-user", type=int, default=2, help="connections of each flooding user")
    parser.add_argument("--reads", type=int, default=60, help="the fourth user's reads per phase")
    parser.add_argument("--pause", type=float, default=0.25, help="seconds between the fourth user's reads")
    parser.add_argument("--rounds", type=int, default=2, help="quiet and flood phases, alternated")
    parser.add_argument("--redis", default="", help="CACHE_URL (the budget's leases across the workers)")
    parser.add_argument("--unbudgeted", action="store_true", help="the budget off: the 'before' figures")
    parser.add_argument(
        "--polite",
        action="store_true",
        help="the flooders wait as each 429's Retry-After says (htmx's panel does)",
    )
    parser.add_argument(
        "--throttled",
        action="store_true",
        help="keep FORECAST_THROTTLE at its default (60/min): the budget and the request rate, as served",
    )
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="wl-flood-"))
    db = tmp / "db.sqlite3"
    extra = {"CACHE_URL": args.redis}
    if not args.throttled:
        extra["FORECAST_THROTTLE"] = "100000/min"  # the request rate aside: the budget alone is measured
    if args.unbudgeted:
        extra.update(FORECAST_BUDGET="100000", FORECAST_TIME_BOX="100000", FORECAST_AT_ONCE="0")
    results: dict[str, Any] = {
        "workers": args.workers,
        "unbudgeted": args.unbudgeted,
        "polite": args.polite,
        "throttled": args.throttled,
        "phases": [],
    }
    try:
        print(f"seeding {db} (load average {load_average()})", flush=True)
        env = served_copy(tmp, db, **extra)
        users = seed()
        from campaign.models import Character
        from rules.registry import get_ruleset

        assert Character.objects.count() == 4
        menu = ",".join(get_ruleset("shadowrun2").forecast.what_ifs)
        log = tmp / "gunicorn.log"
        with gunicorn(args.workers, env=env, worker_class="sync", log=log) as (port, _):
            reader(port, users[3], 5, 0)  # warm the workers
            for _ in range(args.rounds):
                for phase in ("quiet", "flood"):
                    row = run_phase(args, port, users, menu, phase)
                    results["phases"].append(row)
                    print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    quiet = [p["median_ms"] for p in results["phases"] if p["phase"] == "quiet"]
    flood = [p["median_ms"] for p in results["phases"] if p["phase"] == "flood"]
    results["median_ratio"] = round(statistics.median(flood) / statistics.median(quiet), 2)
    print(f"flood / quiet median: {results['median_ratio']} x (load average {load_average()})")
    if args.json:
        write_json(args.json, results)


def run_phase(
    args: argparse.Namespace, port: int, users: list[dict[str, Any]], menu: str, phase: str
) -> dict[str, Any]:
    """One phase: the fourth user's reads, alone (`quiet`) or while the three others flood the forecast."""
    tally: dict[str, Any] = {"lock": threading.Lock(), "statuses": {}, "runs": [], "cut": 0, "errors": 0}
    threads = []
    if phase == "flood":
        until = time.monotonic() + args.seconds
        for person in users[:3]:
            for _ in range(args.per_user):
                thread = threading.Thread(
                    target=flooder, args=(port, person, menu, until, tally, args.polite)
                )
                thread.start()
                threads.append(thread)
        time.sleep(1)  # the flood under way
    started = time.monotonic()
    times = reader(port, users[3], args.reads, args.pause)
    for thread in threads:
        thread.join()
    row = {
        "phase": phase,
        "load_average": load_average(),
        "reads": len(times),
        "read_seconds": round(time.monotonic() - started, 1),
        **figures(times),
    }
    if phase == "flood":
        runs = tally["runs"]
        row.update(
            statuses={str(k): v for k, v in sorted(tally["statuses"].items())},
            errors=tally["errors"],
            forecasts=len(runs),
            cut_short=tally["cut"],
            futures_median=statistics.median(runs) if runs else None,
        )
    return row


if __name__ == "__main__":
    main()
