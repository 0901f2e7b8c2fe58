"""The `many_players` row: players' pages polling while a GM acts, through gunicorn with 4 workers on PostgreSQL.

Each player is a person with their character's page open: its live region polls every `PERIOD` seconds with the
ETag it last received (htmx, `every 2s`), a 304 while nothing changed, the region rendered anew after the GM acted
on that character. The GM acts every `GM_EVERY` seconds through the API (the actions row's shadowrun2 mix, round
robin over the characters). Every request is timed by the client from its write to the end of its answer; the
think time is not part of it. Loopback only; bounded in players, seconds and requests.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import threading
import time
from pathlib import Path
from typing import Any

from django.db import connection

from campaign import services
from perf.harness.databases import collected_static, scratch
from perf.harness.measure import quantile
from perf.harness.mixes import MIXES
from perf.harness.seeding import api_token, session_cookie, user
from perf.harness.servers import cpu_of_children, gunicorn

PERIOD = 2.0  # a player's page polls every 2 s (templates: hx-trigger "every 2s")
GM_EVERY = 0.5  # seconds between the GM's actions
PARTY = 5  # players (and characters) per campaign
WORKERS = 4
THREADS = 2  # per worker (gthread): a slow request does not hold its worker's other connections
LIVE = {"HX-Request": "true", "HX-Target": "live", "HX-Trigger": "live"}
MEASURED = "X-Bench-Measured"  # on the requests after the warm-up: the access log's lines to count
ACCESS_FORMAT = "%(m)s %(s)s %(D)s %({x-bench-measured}i)s"  # method, status, microseconds, measured


def _worker_times(log: Path) -> dict[str, list[float]]:
    """Milliseconds inside the workers of the measured requests, by method, from gunicorn's access log."""
    times: dict[str, list[float]] = {"GET": [], "POST": []}
    for line in log.read_text().splitlines():
        method, _status, micros, measured = line.split(" ")
        if measured == "1" and method in times:
            times[method].append(int(micros) / 1000)
    return times


def _seed(players: int) -> tuple[str, list[tuple[int, str]]]:
    """A GM (with an API token) of `players // PARTY` shadowrun2 campaigns of `PARTY` players, each player with a
    character of their own, hit once; returns the GM's token and each player's (character id, session cookie)."""
    gm = user("bench-gm")
    attributes = MIXES["shadowrun2"][0]
    seats = []
    for table in range(-(-players // PARTY)):
        campaign = services.campaign_create(user=gm, name=f"table {table}", ruleset="shadowrun2")
        for seat in range(min(PARTY, players - table * PARTY)):
            name = f"player-{table}-{seat}"
            player = user(name)
            services.member_add(campaign=campaign, username=name, role="player")
            character = services.character_create(
                campaign=campaign,
                actor="gm",
                name=f"Runner {table}.{seat}",
                player=name,
                attributes=attributes,
            )
            body = {"type": "wound", "severity": "L", "rolls": {"body_check": [2, 2, 2, 2, 2]}}
            services.character_act(character_id=character.pk, body=body, actor="gm")
            seats.append((character.pk, session_cookie(player)))
    return api_token(gm), seats


class _Player(threading.Thread):
    """One open page: its live region polled every PERIOD s with its ETag, from a keep-alive connection."""

    def __init__(
        self, port: int, character_id: int, session: str, start: float, measured: float, stop: float
    ) -> None:
        super().__init__(daemon=True)
        self.port, self.path = port, f"/characters/{character_id}/"
        self.headers = {**LIVE, "Cookie": f"sessionid={session}"}
        self.start_at, self.measured, self.stop_at = start, measured, stop
        self.etag = ""
        self.polls: list[tuple[float, float, int]] = []  # (when it was due, ms, status)
        self.error: str | None = None

    def _get(self, client: http.client.HTTPConnection, measured: bool = False) -> tuple[float, int]:
        headers = {**self.headers, "If-None-Match": self.etag} if self.etag else dict(self.headers)
        if measured:
            headers[MEASURED] = "1"
        began = time.perf_counter()
        client.request("GET", self.path, headers=headers)
        answer = client.getresponse()
        answer.read()
        took = 1000 * (time.perf_counter() - began)
        if answer.status == 200:
            self.etag = answer.getheader("ETag") or ""
        return took, answer.status

    def run(self) -> None:
        client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            self._get(client)  # the page opened: its first live region, not timed
            due = self.start_at + random.uniform(0, PERIOD)
            while due < self.stop_at:
                time.sleep(max(0.0, due - time.perf_counter()))
                took, status = self._get(client, due >= self.measured)
                self.polls.append((due, took, status))
                due += PERIOD
        except (OSError, http.client.HTTPException) as error:
            self.error = f"{type(error).__name__}: {error}"
        finally:
            client.close()


def _gm(
    port: int, token: str, characters: list[int], start: float, measured: float, stop: float, out: list[Any]
) -> None:
    """The GM acting every GM_EVERY s through the API on the characters in turn, each action timed."""
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    mix = MIXES["shadowrun2"][1]
    due, n = start, 0
    try:
        while due < stop:
            time.sleep(max(0.0, due - time.perf_counter()))
            body = json.dumps(mix[(n // len(characters)) % len(mix)])
            began = time.perf_counter()
            path = f"/api/characters/{characters[n % len(characters)]}/actions/"
            client.request("POST", path, body, {**headers, MEASURED: "1"} if due >= measured else headers)
            answer = client.getresponse()
            answer.read()
            out.append((due, 1000 * (time.perf_counter() - began), answer.status))
            due, n = due + GM_EVERY, n + 1
    finally:
        client.close()


def many_players(
    players: int, seconds: float, warmup: float = 5.0, profile: str | None = None
) -> dict[str, Any]:
    """`players` pages polling every PERIOD s while the GM acts every GM_EVERY s, `seconds` measured after
    `warmup` s, through `gunicorn -w 4` (gthread) on this row's PostgreSQL database. Judged: p99 of the GM's
    action under 50 ms and of a poll under 25 ms."""
    if connection.vendor != "postgresql":
        return {
            "skipped": "many_players runs on PostgreSQL: give --postgres URL or a postgres:// DATABASE_URL"
        }
    token, seats = _seed(players)
    connection.close()
    static, env = collected_static({**os.environ, "ALLOWED_HOSTS": "127.0.0.1", "DEBUG": "0"})
    access = scratch() / "many-players.access.log"
    extra = ("--access-logfile", str(access), "--access-logformat", ACCESS_FORMAT)
    try:
        with gunicorn(workers=WORKERS, threads=THREADS, env=env, log_name="many-players", extra=extra) as (
            port,
            pid,
        ):
            start = time.perf_counter() + 1.0
            measure_from, stop = start + warmup, start + warmup + seconds
            readers = [
                _Player(port, character, session, start, measure_from, stop) for character, session in seats
            ]
            for reader in readers:
                reader.start()
            actions: list[Any] = []
            cpu = cpu_of_children(pid)
            load = os.getloadavg()[0]
            _gm(port, token, [character for character, _ in seats], start, measure_from, stop, actions)
            for reader in readers:
                reader.join(timeout=60)
            cpu = cpu_of_children(pid) - cpu
    finally:
        shutil.rmtree(static, ignore_errors=True)  # the static files collected for this server alone
    requests = len(actions) + sum(len(reader.polls) + 1 for reader in readers)  # each page's first answer too
    errors = [reader.error for reader in readers if reader.error]
    if errors:
        raise RuntimeError(f"{len(errors)} players' pages failed, the first: {errors[0]}")
    polls = [
        (took, status) for reader in readers for due, took, status in reader.polls if due >= measure_from
    ]
    acted = [(took, status) for due, took, status in actions if due >= measure_from]
    statuses: dict[str, int] = {}
    for _, status in polls:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    unexpected = {s: n for s, n in statuses.items() if s not in ("200", "304")}
    refused = sum(1 for _, status in acted if status not in (201, 400))
    if unexpected or refused:
        raise RuntimeError(f"polls answered {unexpected}, {refused} actions neither 201 nor 400")
    inside = _worker_times(access)
    access.unlink(missing_ok=True)
    poll_ms = [took for took, _ in polls]
    action_ms = [took for took, _ in acted]
    return {
        "unit": "ms",
        "players": players,
        "seconds": seconds,
        "workers": WORKERS,
        "threads": THREADS,
        "period_s": PERIOD,
        "gm_every_s": GM_EVERY,
        "polls": len(polls),
        "polls_by_status": dict(sorted(statuses.items())),
        "actions": len(acted),
        "poll_p50_ms": quantile(poll_ms, 0.5),
        "poll_p99_ms": quantile(poll_ms, 0.99),
        "not_modified_p99_ms": quantile([t for t, s in polls if s == 304], 0.99),
        "action_p50_ms": quantile(action_ms, 0.5),
        "action_p99_ms": quantile(action_ms, 0.99),
        # Inside the workers (gunicorn's request time: from the request read to its answer written), which the
        # client's own waits for a core do not inflate; and the workers' CPU per request.
        "worker_poll_p99_ms": quantile(inside["GET"], 0.99),
        "worker_action_p99_ms": quantile(inside["POST"], 0.99),
        "worker_poll_p50_ms": quantile(inside["GET"], 0.5),
        "worker_action_p50_ms": quantile(inside["POST"], 0.5),
        "server_cpu_s": cpu,
        "server_cpu_ms_per_request": 1000 * cpu / max(1, requests),
        "load_average_during": load,
    }
