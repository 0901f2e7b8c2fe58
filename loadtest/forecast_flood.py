"""Three users flooding the forecast while a fourth reads a page (docs/forecast.md, "Budget").

Does everything itself: a throwaway SQLite database in /tmp, migrate, collectstatic into a temporary directory,
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

    .venv/bin/python loadtest/forecast_flood.py [--workers 3] [--seconds 20] [--redis redis://127.0.0.1:6379/9]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadtest.run import free_port, loadavg, start_server, stop_server  # noqa: E402

MORTAL = {"type": "wound", "severity": "S"}
MORTAL_ROLLS = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": 3, "death_time": [6]}


def seed() -> dict[str, Any]:
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from campaign import services

    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)
    users = []
    for n in range(4):
        user = User.objects.create_user(f"user{n}", password="load-test-password")
        campaign = services.campaign_create(user=user, name=f"Campaign {n}", ruleset="shadowrun2")
        character = services.character_create(
            campaign=campaign, actor=user.username, name=f"Runner {n}", player=None, attributes={"body": 5}
        )
        services.character_act(
            character_id=character.pk, body={**MORTAL, "rolls": MORTAL_ROLLS}, actor=user.username
        )
        client = Client()
        client.force_login(user)
        users.append(
            {
                "character": character.pk,
                "token": Token.objects.create(user=user).key,
                "session": client.cookies["sessionid"].value,
            }
        )
    return {"users": users}


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
    ordered = sorted(times)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 1),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
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
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DEBUG": "0",
        "SECRET_KEY": "load-test",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SETTINGS_MODULE": "loadtest.settings",
        "LOADTEST_STATIC_ROOT": str(tmp / "static"),
        "PYTHONPATH": str(ROOT),
        "CACHE_URL": args.redis,
        "FORECAST_THROTTLE": "100000/min",  # the request rate aside: the budget alone is measured
    }
    if args.throttled:
        del env["FORECAST_THROTTLE"]
    if args.unbudgeted:
        env.update(FORECAST_BUDGET="100000", FORECAST_TIME_BOX="100000", FORECAST_AT_ONCE="0")
    os.environ.update(env)
    server = None
    results: dict[str, Any] = {
        "workers": args.workers,
        "unbudgeted": args.unbudgeted,
        "polite": args.polite,
        "throttled": args.throttled,
        "phases": [],
    }
    try:
        print(f"seeding {db} (load average {loadavg()})", flush=True)
        users = seed()["users"]
        from campaign.models import Character
        from rules.registry import get_ruleset

        assert Character.objects.count() == 4
        menu = ",".join(get_ruleset("shadowrun2").forecast.what_ifs)
        port = free_port()
        server = start_server(env, port, tmp / "gunicorn.log", args.workers)
        reader(port, users[3], 5, 0)  # warm the workers
        for _ in range(args.rounds):
            for phase in ("quiet", "flood"):
                tally: dict[str, Any] = {
                    "lock": threading.Lock(),
                    "statuses": {},
                    "runs": [],
                    "cut": 0,
                    "errors": 0,
                }
                threads = []
                if phase == "flood":
                    until = time.monotonic() + args.seconds
                    for user in users[:3]:
                        for _ in range(args.per_user):
                            thread = threading.Thread(
                                target=flooder, args=(port, user, menu, until, tally, args.polite)
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
                    "load_average": loadavg(),
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
                results["phases"].append(row)
                print(json.dumps(row), flush=True)
    finally:
        if server is not None:
            stop_server(server)
        shutil.rmtree(tmp, ignore_errors=True)
    quiet = [p["median_ms"] for p in results["phases"] if p["phase"] == "quiet"]
    flood = [p["median_ms"] for p in results["phases"] if p["phase"] == "flood"]
    results["median_ratio"] = round(statistics.median(flood) / statistics.median(quiet), 2)
    print(f"flood / quiet median: {results['median_ratio']} x (load average {loadavg()})")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
