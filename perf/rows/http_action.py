"""The http_action row: a GM's note over HTTP through gunicorn, against a minimal idiomatic DRF app's write and a
bare WSGI function served by the same gunicorn in the same run (`perf.harness.peers`)."""

from __future__ import annotations

import http.client
import json
import shutil
import time
from typing import Any

from django.db import connection
from django.test import Client, override_settings

from perf.harness import peers
from perf.harness.databases import scratch, sqlite_path
from perf.harness.measure import process_cpu, profiled
from perf.harness.mixes import MIXES
from perf.harness.seeding import api_token, bench_gm, characters
from perf.harness.servers import cpu_of_children, gunicorn

# The sides take turns, a sixth of the requests each time: the machine's other work weighs on each alike.
ROUNDS = 6
SIDES = ("app", "peer", "floor")


def http_action(actions: int, profile: str | None = None) -> dict[str, Any]:
    """A GM's note (`POST /api/characters/{id}/actions/`, token auth, the character's answer read in full) through
    gunicorn with one gthread worker and one thread, from one keep-alive client on loopback; vs the same kind of
    write by a minimal idiomatic DRF app (built in a temporary folder: TokenAuthentication, one read for access,
    one INSERT, a ModelSerializer answer, SQLite WAL) through the same gunicorn, and beside them a bare WSGI
    function answering 3 KB: the three take turns (`ROUNDS`) in one run. Each worker's CPU per request (/proc)
    beside the rates."""
    people = {ruleset: characters(ruleset, 25, f"served {ruleset}")[1] for ruleset in MIXES}
    everyone = [character.pk for characters_ in people.values() for character in characters_]
    token = api_token(bench_gm())
    folder = scratch() / "drf-peer"
    # A fresh peer each run: `bench --plain` runs the row again in the same scratch, where the peer's database would
    # still hold its user (peer_seed.py's create_user then fails).
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    peer_token, tables = peers.build(folder, len(everyone))

    def requests(side: str, count: int, first: int) -> list[tuple[str, str]]:
        """`count` notes, the n-th on table or character n (round robin): the peer's body is the note's text."""
        made = []
        for n in range(first, first + count):
            text = f"Bench note {n}: took a hit in the alley."
            if side == "peer":
                made.append((f"/tables/{tables[n % len(tables)]}/notes/", json.dumps({"text": text})))
            else:
                path = f"/api/characters/{everyone[n % len(everyone)]}/actions/"
                made.append((path, json.dumps({"type": "note", "text": text})))
        return made

    seconds = dict.fromkeys(SIDES, 0.0)
    cpu = dict.fromkeys(SIDES, 0.0)
    client_cpu = dict.fromkeys(SIDES, 0.0)
    statuses: dict[str, dict[int, int]] = {side: {} for side in SIDES}
    tokens = {"app": token, "peer": peer_token, "floor": token}
    connection.close()  # the app's server writes the same SQLite file
    with (
        gunicorn(workers=1) as app,
        gunicorn(
            workers=1, app="peer_wsgi", cwd=folder, env=peers.environment(folder), log_name="peer"
        ) as peer,
        gunicorn(workers=1, app=peers.FLOOR, log_name="floor") as floor,
    ):
        servers = {"app": app, "peer": peer, "floor": floor}
        for side, (port, _) in servers.items():  # warm up: the workers' imports, caches, connections
            _post_all(port, tokens[side], requests(side, 100, actions))
        step = -(-actions // ROUNDS)
        for start in range(0, actions, step):
            count = min(step, actions - start)
            for side, (port, pid) in servers.items():
                server, began = cpu_of_children(pid), process_cpu()
                took, answered = _post_all(port, tokens[side], requests(side, count, start))
                client_cpu[side] += process_cpu() - began
                cpu[side] += cpu_of_children(pid) - server
                seconds[side] += took
                for status, n in answered.items():
                    statuses[side][status] = statuses[side].get(status, 0) + n
    if profile:
        with profiled(profile):
            _posted_in_process(token, requests("app", min(actions, 300), 2 * actions))
    unexpected = {side: answered for side, answered in statuses.items() if set(answered) != {201}}
    if unexpected:
        raise RuntimeError(
            f"answers other than 201: {unexpected}; see the gunicorn logs beside {sqlite_path()}"
        )
    per = {side: 1000 * seconds[side] / actions for side in SIDES}
    worker = {side: 1000 * cpu[side] / actions for side in SIDES}
    return {
        "rate": actions / seconds["app"],
        "baseline": actions / seconds["peer"],
        "floor_rate": actions / seconds["floor"],
        "unit": "requests/s",
        "actions": actions,
        "answered": {side: {str(k): v for k, v in answered.items()} for side, answered in statuses.items()},
        "ms_per_request": per["app"],
        "baseline_ms_per_request": per["peer"],
        "floor_ms_per_request": per["floor"],
        "of_floor": seconds["floor"] / seconds["app"],
        "server_processes": 1,
        # CPU per request of each worker, which the machine's load moves less than wall time; and the client's.
        "server_cpu_ms_per_request": worker["app"],
        "baseline_server_cpu_ms_per_request": worker["peer"],
        "floor_server_cpu_ms_per_request": worker["floor"],
        "client_cpu_ms_per_request": 1000 * sum(client_cpu.values()) / (3 * actions),
        "cpu_ratio": worker["peer"] / worker["app"] if worker["app"] else 0.0,
        "baseline_what": (
            "a minimal idiomatic DRF app's note (TokenAuthentication, one read for access, one INSERT, a "
            "ModelSerializer answer, SQLite WAL) through the same gunicorn in the same run"
        ),
    }


def _post_all(port: int, token: str, requests: list[tuple[str, str]]) -> tuple[float, dict[int, int]]:
    """POST each (path, JSON body) one after the other on one keep-alive connection with the token, each answer
    read in full. Returns the seconds taken and the count of answers by status."""
    client = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    statuses: dict[int, int] = {}
    clock = time.perf_counter
    began = clock()
    for path, body in requests:
        client.request("POST", path, body, headers)
        answer = client.getresponse()
        answer.read()
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
    seconds = clock() - began
    client.close()
    return seconds, statuses


def _posted_in_process(token: str, requests: list[tuple[str, str]]) -> None:
    """The requests posted through Django's test client in this process: what `--profile` profiles (a profiler in
    the server's worker would measure the profiler)."""
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    with override_settings(ALLOWED_HOSTS=["testserver"]):
        for path, body in requests:
            client.post(path, body, content_type="application/json")
