"""What an HTTP request costs before any Django: the floor under the `http_action` row (docs/PERFORMANCE.md).

    .venv/bin/python perf/http_floor.py [--requests 3000]

gunicorn started as the row starts it (one gthread worker, one thread, keep-alive), serving a WSGI application that
reads the body and answers 3 KB of JSON, about an action's answer; the row's client (`http.client`, one keep-alive
connection, the row's headers and an action's body), one request after the other. Prints the wall time per request,
the worker's CPU and the client's: what no change to the application can take off the row's HTTP side.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ANSWER = json.dumps({"said": "x" * 3000}).encode()


def application(environ: dict, start_response: object) -> list[bytes]:
    environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    start_response(  # type: ignore[operator]
        "201 Created", [("Content-Type", "application/json"), ("Content-Length", str(len(ANSWER)))]
    )
    return [ANSWER]


def _cpu_of_children(pid: int) -> float:
    ticks = 0
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


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
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "http_floor:application",
        "-w",
        "1",
        "-b",
        f"127.0.0.1:{port}",
    ]
    command += ["-k", "gthread", "--threads", "1", "--keep-alive", "30"]
    server = subprocess.Popen(
        command,
        cwd=Path(__file__).parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        client = http.client.HTTPConnection("127.0.0.1", port)
        deadline = time.monotonic() + 30
        while True:
            try:
                _post(client, 200)  # warm up
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                client = http.client.HTTPConnection("127.0.0.1", port)
                time.sleep(0.1)
        worker, mine, began = _cpu_of_children(server.pid), time.process_time(), time.perf_counter()
        _post(client, args.requests)
        wall = time.perf_counter() - began
        worker, mine = _cpu_of_children(server.pid) - worker, time.process_time() - mine
        per = 1000 / args.requests
        print(
            f"{args.requests} requests: {wall * per:.3f} ms each; the worker's CPU {worker * per:.3f} ms, "
            f"the client's {mine * per:.3f} ms per request"
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
