"""The CPU an action over HTTP costs gunicorn's worker, measured in this process (docs/PERFORMANCE.md).

    .venv/bin/python perf/loadtest/worker_cpu.py [--actions 500] [--profile cprofile|pyinstrument]

A throwaway SQLite database (`DEBUG=0`) with the `http_action` row's characters; its mix posted with a token through
the app's WSGI handler, as gunicorn hands a request to its worker (`perf.harness.wsgi`), each answer read in full
and closed. Prints the CPU per action (`time.process_time`) of each half of the actions, which the machine's load
moves far less than wall time; or, with `--profile`, a profile of them all. A profiler inside the served worker
would measure the profiler's own socket handling; this is the same code without it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def post_all(client: Any, actions: list[tuple[int, dict[str, Any]]]) -> dict[int, int]:
    """Each action posted to the API; the count of answers by status."""
    statuses: dict[int, int] = {}
    for character_id, body in actions:
        status = client.post(f"/api/characters/{character_id}/actions/", body).status_code
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

    from campaign.startup import freeze_startup_objects
    from perf.harness.mixes import MIXES
    from perf.harness.seeding import api_token, bench_gm, characters, plan
    from perf.harness.wsgi import WsgiClient

    call_command("migrate", verbosity=0, interactive=False)
    freeze_startup_objects()
    served = {ruleset: characters(ruleset, 25, f"served {ruleset}")[1] for ruleset in MIXES}
    client = WsgiClient(f"Token {api_token(bench_gm())}", host="127.0.0.1")
    post_all(client, plan(served, 100))  # warm up, as the bench row does
    actions = plan(served, args.actions)
    if args.profile == "cprofile":
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(post_all, client, actions)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)
        return 0
    if args.profile == "pyinstrument":
        from pyinstrument import Profiler

        with Profiler(interval=0.0005) as profiler:
            post_all(client, actions)
        print(profiler.output_text(unicode=True, show_all=False))
        return 0
    half = len(actions) // 2
    for part in (actions[:half], actions[half:]):
        began = time.process_time()
        statuses = post_all(client, part)
        cpu = time.process_time() - began
        print(f"{len(part)} actions {statuses}: {1000 * cpu / len(part):.2f} ms of CPU per action")
    return 0


if __name__ == "__main__":
    sys.exit(main())
