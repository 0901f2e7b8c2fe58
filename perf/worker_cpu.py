"""The CPU an action over HTTP costs gunicorn's worker, measured in this process (docs/PERFORMANCE.md).

    .venv/bin/python perf/worker_cpu.py [--actions 500] [--profile cprofile|pyinstrument]

A throwaway SQLite database (`DEBUG=0`) with the `http_action` row's characters; its mix posted with a token, as
gunicorn hands a request to its worker: `campaign.wsgi.application` called with the WSGI environ, the answer read in
full and closed. Prints the CPU per action (`time.process_time`) of each half of the actions, which the machine's
load moves far less than wall time; or, with `--profile`, a profile of them all. A profiler inside the served worker
would measure the profiler's own socket handling; this is the same code without it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _environ(path: str, body: bytes, token: str) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_AUTHORIZATION": f"Token {token}",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def post_all(application: Any, token: str, plan: list[tuple[int, dict[str, Any]]]) -> dict[int, int]:
    """Each action posted to the API through the WSGI application; the count of answers by status."""
    statuses: dict[int, int] = {}
    for character_id, body in plan:
        started: list[str] = []

        def start_response(
            status: str, headers: Any, exc_info: Any = None, started: list[str] = started
        ) -> None:
            started.append(status)

        environ = _environ(f"/api/characters/{character_id}/actions/", json.dumps(body).encode(), token)
        answer = application(environ, start_response)
        b"".join(answer)
        answer.close()
        status = int(started[0][:3])
        statuses[status] = statuses.get(status, 0) + 1
    return statuses


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--actions", type=int, default=500)
    parser.add_argument("--profile", choices=("cprofile", "pyinstrument"))
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="wl-worker-cpu-")
    os.environ.update(
        DJANGO_SETTINGS_MODULE="campaign.settings",
        DATABASE_URL=f"sqlite:///{scratch}/db.sqlite3",
        DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1",
    )
    os.environ.setdefault("SECRET_KEY", "worker-cpu-only-not-secret")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from campaign.management.commands.bench import freeze_startup_objects
    from campaign.wsgi import application
    from perf import rows
    from perf.mixes import MIXES

    call_command("migrate", verbosity=0, interactive=False)
    freeze_startup_objects()
    served = {ruleset: rows._characters(ruleset, 25, f"served {ruleset}")[1] for ruleset in MIXES}
    token = Token.objects.get_or_create(user=rows._gm())[0].key
    post_all(application, token, rows._plan(served, 100))  # warm up, as the bench row does
    plan = rows._plan(served, args.actions)
    if args.profile == "cprofile":
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(post_all, application, token, plan)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)
        return 0
    if args.profile == "pyinstrument":
        from pyinstrument import Profiler

        with Profiler(interval=0.0005) as profiler:
            post_all(application, token, plan)
        print(profiler.output_text(unicode=True, show_all=False))
        return 0
    half = len(plan) // 2
    for part in (plan[:half], plan[half:]):
        began = time.process_time()
        statuses = post_all(application, token, part)
        cpu = time.process_time() - began
        print(f"{len(part)} actions {statuses}: {1000 * cpu / len(part):.2f} ms of CPU per action")
    return 0


if __name__ == "__main__":
    sys.exit(main())
