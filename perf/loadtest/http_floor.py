"""What an HTTP request costs before any Django: the floor under the `http_action` row (docs/PERFORMANCE.md).

    .venv/bin/python perf/loadtest/http_floor.py [--requests 3000]

gunicorn started as the row starts it (one gthread worker, one thread, keep-alive), serving the harness's bare WSGI
function (`perf.harness.peers.application`: the body read, 3 KB of JSON answered, about an action's answer); the
row's client (`http.client`, one keep-alive connection, the row's headers and an action's body), one request after
the other. Prints the wall time per request, the worker's CPU and the client's: what no change to the application
can take off the row's HTTP side.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from perf.harness.peers import FLOOR
from perf.harness.servers import cpu_of_children, gunicorn


def _post(client: http.client.HTTPConnection, count: int) -> None:
    headers = {"Authorization": "Token 0123456789abcdef", "Content-Type": "application/json"}
    body = json.dumps({"type": "wound", "severity": "M", "damage": "stun"})
    for _ in range(count):
        client.request("POST", "/api/characters/1/actions/", body, headers)
        client.getresponse().read()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=3000)
    args = parser.parse_args()
    log = Path(tempfile.gettempdir()) / "wl-http-floor.log"
    with gunicorn(1, app=FLOOR, log=log) as (port, pid):
        client = http.client.HTTPConnection("127.0.0.1", port)
        _post(client, 200)  # warm up
        worker, mine, began = cpu_of_children(pid), time.process_time(), time.perf_counter()
        _post(client, args.requests)
        wall = time.perf_counter() - began
        worker, mine = cpu_of_children(pid) - worker, time.process_time() - mine
    per = 1000 / args.requests
    print(
        f"{args.requests} requests: {wall * per:.3f} ms each; the worker's CPU {worker * per:.3f} ms, "
        f"the client's {mine * per:.3f} ms per request"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
