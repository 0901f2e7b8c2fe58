"""`manage.py bench`: every target of docs/PERFORMANCE.md measured in one run, each as a ratio against its baseline.

The command never touches the configured database. Each row runs in a child process (this command again, with
`--row`) whose DATABASE_URL names a throwaway SQLite file in a temporary directory, or a throwaway PostgreSQL
database (`wl_bench_<pid>`) created on the server that DATABASE_URL or `--postgres` names and dropped afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from campaign.ledger import fast
from campaign.startup import freeze_startup_objects
from perf.harness.databases import postgres_execute, with_database
from perf.harness.measure import machine_busy

CHILD_FLAG = "WL_BENCH_CHILD"
SIZES = {
    # row: (full, quick)
    "actions": ({"actions": 5000}, {"actions": 1000}),
    "rebuild": ({"events": 1_000_000}, {"events": 60_000}),
    "clock": ({"characters": 200, "timers": 2000}, {"characters": 50, "timers": 500}),
    "postgres": ({"actions": 5000}, {"actions": 1000}),
    "http_action": ({"actions": 3000}, {"actions": 600}),
    "import": ({"events": 200_000}, {"events": 30_000}),
    "history_page": ({"events": 100_000, "pages": 1000}, {"events": 100_000, "pages": 200}),
    "forecast": ({"runs": 1000, "repeats": 7}, {"runs": 1000, "repeats": 3}),
    "recovery": ({"runs": 1000, "repeats": 5}, {"runs": 1000, "repeats": 3}),
    "many_players": ({"players": 200, "seconds": 40}, {"players": 20, "seconds": 4, "warmup": 2}),
    "board": ({"sizes": [6, 30, 500], "repeats": 30}, {"sizes": [6, 30], "repeats": 10}),
    "lighthouse": ({"characters": 6, "runs_each": 3}, {"characters": 6, "runs_each": 1}),
    "costs": (
        {"repeats": 50, "running": 100, "import_events": 100_000},
        {"repeats": 10, "running": 10, "import_events": 10_000},
    ),
    "quiet_pages": ({"minutes": 10}, {"minutes": 6}),
    "tenants": (
        {"campaigns": 1000, "events": 1_000_000, "running": 100, "hidden_pages": 10_000, "rounds": 2000},
        {"campaigns": 20, "events": 20_000, "running": 5, "hidden_pages": 200, "rounds": 100, "ticks": 50},
    ),
}
TARGETS = {
    "actions": ("ratio", 0.30, "action path on SQLite >= 30% of raw sqlite3 inserts of the same rows"),
    "rebuild": ("ratio", 0.50, "rebuild >= 50% of a raw read + json.loads of the same rows"),
    "clock": ("max_seconds", 5.0, "one game year, 200 characters, 2,000 timers, real Celery worker < 5 s"),
    "postgres": ("min_rate", 2000.0, "PostgreSQL >= 2,000 actions/s per process"),
    "http_action": (
        "min_times",
        2.0,
        "a GM's note over HTTP (gunicorn, 1 worker, 1 thread) >= 2 x a minimal idiomatic DRF app's write",
    ),
    "import": (
        "ratio",
        0.50,
        "import (checked, written, read models) >= 50% of raw inserts of the same rows",
    ),
    "history_page": ("max_ratio", 1.2, "p99 of a history page at 100,000 events <= 1.2 x that at 100"),
    "forecast": (
        "max_seconds",
        0.2,
        "forecast of 1,000 futures < 200 ms and the GM's panel with its what-ifs < 500 ms, each ruleset's richest "
        "injuries and dearest states",
    ),
    "recovery": (
        "max_seconds",
        0.5,
        "party's recovery of 6 injured characters at 1,000 futures each < 500 ms",
    ),
    "many_players": (
        "latency",
        (50.0, 25.0),
        "200 players polling every 2 s while a GM acts (PostgreSQL, 4 workers): p99 action < 50 ms, poll < 25 ms",
    ),
    "board": (
        "within_limits",
        None,
        "the GM's and the player's board <= 2 x their character page with 6 characters, <= 3 x with 30 and the "
        "first page of 500",
    ),
    "lighthouse": (
        "scores",
        None,
        "Lighthouse (mobile): performance >= 90, accessibility and best practices 100, CLS < 0.05; "
        "the GM's board and the player's character page",
    ),
    "costs": (
        "measures",
        None,
        "what each unit of load costs in CPU ms and statements (docs/scaling.md): measured, not judged",
    ),
    "quiet_pages": (
        "scores",
        None,
        "a page left open (the player's character page, the GM's board) in Chromium for 10 minutes of its clock: "
        "hidden, no request; visible and untouched, at most one a minute after the fifth minute",
    ),
    "tenants": (
        "scores",
        None,
        "1,000 campaigns, 1,000,000 events, 100 clocks at rest (PostgreSQL, 4 workers, a worker and beat) against "
        "one campaign alone: p99 action and poll <= 1.2 x, beat's tick <= 2 x and no event, hidden pages no request",
    ),
}
BROKER = "redis://127.0.0.1:6379/14"
# Rows on a throwaway PostgreSQL database, skipped without one; rows with a real Celery worker (and beat) on a
# queue of their own.
POSTGRES_ROWS = ("postgres", "many_players", "tenants")
BROKER_ROWS = ("clock", "tenants")


# How long a row waits, at most, for what the row before it left running (a server's workers shutting down,
# PostgreSQL writing a dropped database out, Chromium closing) to end: each row is measured as the issue measured
# its figures, with nothing else running. Quiet: the machine's CPU busy under `QUIET_SHARE` of one core over
# `QUIET_WINDOW` seconds.
SETTLE = 30.0
QUIET_SHARE = 0.1
QUIET_WINDOW = 1.0


def wait_for_quiet(limit: float) -> float:
    """Wait until the machine is quiet, `limit` seconds at most; the seconds waited."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        before = machine_busy()
        time.sleep(QUIET_WINDOW)
        after = machine_busy()
        if before is None or after is None or after - before < QUIET_SHARE * QUIET_WINDOW:
            break
    return time.monotonic() - started


def postgres_server(url: str) -> str | None:
    return url if url.startswith(("postgres://", "postgresql://")) else None


def _forget_queue(url: str, prefix: str) -> None:
    """Delete the keys the clock row's queue left in Redis."""
    import redis

    with suppress(redis.RedisError):
        client = redis.Redis.from_url(url)
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)


class Command(BaseCommand):
    help = "Measure the performance targets (docs/PERFORMANCE.md) as ratios against their baselines, on throwaway databases."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--quick", action="store_true", help="smaller sizes; the whole run under a minute"
        )
        parser.add_argument("--json", default="bench-results/latest.json", help="where to write the results")
        parser.add_argument(
            "--postgres", help="a PostgreSQL URL for the PostgreSQL row (default: DATABASE_URL)"
        )
        parser.add_argument("--only", help=f"comma-separated rows: {', '.join(SIZES)}")
        parser.add_argument(
            "--settle",
            type=float,
            help="seconds each row may wait for the machine to be quiet first (default 30, 0 with --quick)",
        )
        parser.add_argument("--profile", help="a directory: write a pyinstrument profile of each row there")
        parser.add_argument(
            "--plain",
            nargs="?",
            const="",
            help="what the speed tricks buy: each row a trick serves again with that trick plain (LEDGER_PLAIN_ORM), "
            f"and with every trick plain, each way {PLAIN_RUNS} times, the best kept; optionally only the tricks "
            f"named, comma-separated: {', '.join(fast.TRICKS)}",
        )
        parser.add_argument("--row", help="internal: run one row in this (child) process")
        parser.add_argument("--size", help="internal: the row's size as JSON")
        parser.add_argument("--out", help="internal: where the child writes its result")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["row"]:
            self._child(options)
            return
        rows = options["only"].split(",") if options["only"] else list(SIZES)
        unknown = set(rows) - set(SIZES)
        if unknown:
            raise CommandError(f"unknown rows {sorted(unknown)}; expected some of {list(SIZES)}")
        tricks = None if options["plain"] is None else wanted_tricks(options["plain"])
        postgres = options["postgres"] or postgres_server(os.environ.get("DATABASE_URL", ""))
        results: dict[str, Any] = {}
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="wl-bench-") as scratch:
            for row in rows:
                size = SIZES[row][1 if options["quick"] else 0]
                self.stderr.write(f"bench: {row} {size} ...")
                if row in POSTGRES_ROWS and not postgres:
                    results[row] = {
                        "skipped": "no PostgreSQL: set DATABASE_URL=postgres://... or --postgres URL",
                        "size": size,
                    }
                    continue
                settle = (
                    options["settle"] if options["settle"] is not None else 0 if options["quick"] else SETTLE
                )
                waited = wait_for_quiet(settle)
                load = os.getloadavg()[0]
                results[row] = self._run_row(row, size, Path(scratch), postgres, options["profile"])
                results[row]["waited_for_quiet_seconds"] = round(waited, 1)
                # The machine's one-minute load average at the row's start and end: its figures are this busy.
                results[row]["load_average"] = [round(load, 2), round(os.getloadavg()[0], 2)]
                results[row]["size"] = size
        report = {
            "quick": options["quick"],
            "seconds": round(time.perf_counter() - started, 1),
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "rows": {row: self._judge(row, result) for row, result in results.items()},
        }
        self.stdout.write(render_table(report["rows"]))
        if tricks is not None:
            report["tricks"] = self._tricks(tricks, options, rows, results, postgres)
            self.stdout.write(render_tricks(report["tricks"]))
        path = Path(options["json"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2) + "\n")
        self.stdout.write(f"written to {path}")

    def _tricks(
        self,
        wanted: list[str],
        options: dict[str, Any],
        rows: list[str],
        results: dict[str, Any],
        postgres: str | None,
    ) -> list[dict[str, Any]]:
        """Each row a trick serves run again: once more as it is, then `PLAIN_RUNS` times with each trick plain and
        with every trick plain; the best run of each kept (the machine's other work only ever slows a run)."""
        measured = []
        with tempfile.TemporaryDirectory(prefix="wl-bench-") as folder:
            scratch = Path(folder)
            for row in rows:
                tricks = [name for name in wanted if row in fast.TRICKS[name].rows]
                if not tricks or "rate" not in results[row]:
                    continue
                size = SIZES[row][1 if options["quick"] else 0]
                again = self._best_of(row, size, scratch, postgres, "", PLAIN_RUNS - 1)
                tricked = max([results[row], again], key=lambda result: result["rate"])
                for name in [*tricks, fast.ALL]:
                    plain = self._best_of(row, size, scratch, postgres, name, PLAIN_RUNS)
                    figures = [("rate", results[row]["unit"])]
                    if "sequential_rate" in tricked:
                        figures.append(("sequential_rate", f"{results[row]['unit']}, 1 thread"))
                    for figure, unit in figures:
                        measured.append(
                            {
                                "trick": name,
                                "row": row,
                                "figure": figure,
                                "unit": unit,
                                "plain": plain[figure],
                                "with": tricked[figure],
                                "gain": tricked[figure] / plain[figure] - 1,
                                "load_average": [tricked["load_average"], plain["load_average"]],
                            }
                        )
        return measured

    def _best_of(
        self, row: str, size: dict[str, Any], scratch: Path, postgres: str | None, plain: str, runs: int
    ) -> dict[str, Any]:
        """The row's best of `runs` runs (by its rate) with LEDGER_PLAIN_ORM=`plain`."""
        done = []
        for _ in range(runs):
            self.stderr.write(f"bench: {row} {size} with LEDGER_PLAIN_ORM={plain!r} ...")
            load = os.getloadavg()[0]
            result = self._run_row(row, size, scratch, postgres, None, plain=plain)
            if "rate" not in result:
                raise CommandError(f"the {row} row failed with LEDGER_PLAIN_ORM={plain!r}: {result}")
            done.append({**result, "load_average": [round(load, 2), round(os.getloadavg()[0], 2)]})
        return max(done, key=lambda result: result["rate"])

    def _run_row(
        self,
        row: str,
        size: dict[str, Any],
        scratch: Path,
        postgres: str | None,
        profile: str | None,
        plain: str | None = None,
    ) -> dict[str, Any]:
        env = dict(os.environ)
        env[CHILD_FLAG] = "1"
        if plain is not None:  # the speed tricks named switched to their plain ORM ways (`--plain`)
            env["LEDGER_PLAIN_ORM"] = plain
        env.pop("CELERY_BROKER_URL", None)
        # Measured as production runs: DEBUG off (no query log wrapped around every cursor call).
        env["DEBUG"] = "0"
        env.setdefault("SECRET_KEY", "bench-only-not-secret")
        database = None
        if row in POSTGRES_ROWS:
            database = f"wl_bench_{os.getpid()}"
            server = postgres_server(postgres or "")
            if server is None:
                return {"skipped": f"not a PostgreSQL URL: {postgres}"}
            try:
                postgres_execute(server, f'CREATE DATABASE "{database}"')
            except Exception as error:
                return {"skipped": f"PostgreSQL unavailable: {error}"}
            env["DATABASE_URL"] = with_database(server, database)
        else:
            env["DATABASE_URL"] = f"sqlite:///{scratch / f'{row}.sqlite3'}"
        if row in BROKER_ROWS:
            env["CELERY_BROKER_URL"] = os.environ.get("BENCH_BROKER_URL", BROKER)
            # Keys of this run's own: two benches (or a bench and the tests) on one Redis never share a queue.
            env["CELERY_BROKER_PREFIX"] = f"wl-bench:{os.getpid()}:"
        out = scratch / f"{row}.json"
        command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "bench", "--row", row]
        command += ["--size", json.dumps(size), "--out", str(out)]
        if profile:
            Path(profile).mkdir(parents=True, exist_ok=True)
            command += ["--profile", str(Path(profile).resolve() / f"{row}.txt")]
        try:
            done = subprocess.run(command, env=env, cwd=settings.BASE_DIR, timeout=3600)
        finally:
            if database:
                # The row's own database and the copies its raw side makes (the child drops those itself).
                for name in (database, f"{database}_raw", f"{database}_raw_replay"):
                    postgres_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            if "CELERY_BROKER_PREFIX" in env:
                _forget_queue(env["CELERY_BROKER_URL"], env["CELERY_BROKER_PREFIX"])
        if done.returncode != 0 or not out.exists():
            return {"error": f"the {row} row failed (exit {done.returncode}); see the output above"}
        return json.loads(out.read_text())

    def _child(self, options: dict[str, Any]) -> None:
        if os.environ.get(CHILD_FLAG) != "1":
            raise CommandError("--row is internal: run `manage.py bench` without it")
        database = settings.DATABASES["default"]
        if database["ENGINE"].endswith("sqlite3") and not str(database["NAME"]).startswith(
            tempfile.gettempdir()
        ):
            raise CommandError(f"refusing to benchmark on {database['NAME']}: not a throwaway database")
        from perf.rows import ROWS

        call_command("migrate", verbosity=0, interactive=False)
        # As a served process does once it has started (wsgi.py, the Celery worker).
        freeze_startup_objects()
        size = json.loads(options["size"])
        result = ROWS[options["row"]](**size, profile=options["profile"])
        Path(options["out"]).write_text(json.dumps(result))

    @staticmethod
    def _judge(row: str, result: dict[str, Any]) -> dict[str, Any]:
        if "skipped" in result or "error" in result:
            return result
        kind, target, what = TARGETS[row]
        if kind in (
            "ratio",
            "min_times",
        ):  # a rate, at least `target` times (or that share of) its baseline's
            result["ratio"] = result["rate"] / result["baseline"]
            result["met"] = result["ratio"] >= target
        elif kind == "max_ratio":  # a cost (a time), which may grow to `target` times its baseline's
            result["ratio"] = result["rate"] / result["baseline"]
            result["met"] = result["ratio"] <= target
        elif kind == "latency":  # the GM's action and a poll, each p99 under its bound
            result["met"] = result["action_p99_ms"] < target[0] and result["poll_p99_ms"] < target[1]
        elif kind == "within_limits":  # several ratios, each against its own limit: the row judged them
            result["ratio"] = result["rate"] / result["baseline"]
            result["met"] = result["met_all"]
        elif kind == "scores":  # the row compared each page's scores with their targets
            result["met"] = result["met_all"]
        elif kind == "measures":  # figures for a model (docs/scaling.md), no target of their own
            result["met"] = None
        elif kind == "max_seconds":
            # The clock row must also have fired every timer it meant to (the forecast row has none to count), and
            # the forecast row's panel must be in its own time.
            fired = result.get("timers_fired", 0) >= result.get("timers_wanted", 0)
            panel = result.get("panel_seconds", 0) < result.get("panel_target_seconds", float("inf"))
            result["met"] = result["seconds"] < target and fired and panel
        else:
            result["met"] = result["rate"] >= target
            if "baseline" in result:  # what the same writes reach raw: how far the machine allows the target
                result["ratio"] = result["rate"] / result["baseline"]
        result["target"] = what
        return result


PLAIN_RUNS = 2  # each way of a row `--plain` compares, the best kept


def wanted_tricks(named: str) -> list[str]:
    """The tricks `--plain` names (every trick when none), checked."""
    if settings.LEDGER_PLAIN_ORM:
        raise CommandError("--plain compares each trick with the code as it is: unset LEDGER_PLAIN_ORM")
    wanted = named.split(",") if named else list(fast.TRICKS)
    unknown = set(wanted) - set(fast.TRICKS)
    if unknown:
        raise CommandError(f"--plain: no trick named {sorted(unknown)}; expected some of {list(fast.TRICKS)}")
    return wanted


def render_tricks(measured: list[dict[str, Any]]) -> str:
    """What each trick buys: the row's figure with the trick plain and with it, and the gain."""
    lines = [("trick", "row", "plain", "with", "gain")]
    for entry in measured:
        row = entry["row"] if entry["figure"] == "rate" else f"{entry['row']} (1 thread)"
        unit = entry["unit"].split(",")[0]
        lines.append(
            (
                "every trick" if entry["trick"] == fast.ALL else entry["trick"],
                row,
                _figure(entry["plain"], unit),
                _figure(entry["with"], unit),
                f"{entry['gain']:+.1%}",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    text = [" | ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)) for line in lines]
    text.insert(1, "-+-".join("-" * width for width in widths))
    return f"What the speed tricks buy (best of {PLAIN_RUNS} runs each way):\n" + "\n".join(text)


def _figure(value: float, unit: str) -> str:
    return f"{value:,.2f} {unit}" if unit in ("s", "ms") else f"{value:,.0f} {unit}"


def render_table(rows: dict[str, dict[str, Any]]) -> str:
    header = ("row", "measured", "baseline", "ratio", "target", "met", "load")
    lines: list[tuple[str, ...]] = []
    for row, result in rows.items():
        if "skipped" in result or "error" in result:
            lines.append((row, result.get("skipped") or result["error"], "", "", "", "skipped"))
            continue
        unit = result["unit"]
        if TARGETS[row][0] == "latency":
            measured = (
                f"p99 action {result['action_p99_ms']:.1f} ms, poll {result['poll_p99_ms']:.1f} ms "
                f"(304s {result['not_modified_p99_ms']:.1f} ms; in the workers {result['worker_action_p99_ms']:.1f} "
                f"and {result['worker_poll_p99_ms']:.1f} ms; {result['players']} players, "
                f"{result['polls']:,} polls, {result['actions']} actions)"
            )
            lines.append((row, measured, "-", "-", TARGETS[row][2], "yes" if result["met"] else "NO"))
            continue
        if "summary" in result:  # several figures, none a rate
            met = "-" if result["met"] is None else "yes" if result["met"] else "NO"
            lines.append((row, result["summary"], "-", "-", TARGETS[row][2], met))
            continue
        measured = _figure(result["seconds"] if unit == "s" else result["rate"], unit)
        if "timers_fired" in result:
            measured += (
                f" ({result['timers_fired']:,} timers fired, {result['timers']:,} pending at the start, "
                f"{result['stun_saves_by_the_clock']:,} stun saves rolled round by round)"
            )
        if "panel_seconds" in result:
            measured += (
                f" (CPU {_figure(result['cpu_seconds'], unit)}; the GM's panel {_figure(result['panel_seconds'], unit)}"
                f", CPU {_figure(result['panel_cpu_seconds'], unit)}; load {result['load_average'][0]:.1f})"
            )
        if "threads" in result:
            measured += f" ({result['threads']} threads; 1 thread: {result['sequential_rate']:,.0f})"
        baseline = _figure(result["baseline"], unit) if "baseline" in result else "-"
        ratio = f"{result['ratio']:.1%}" if "ratio" in result else "-"
        if TARGETS[row][0] in ("max_ratio", "min_times", "within_limits") and "ratio" in result:
            ratio = f"{result['ratio']:.2f} x"
        if "floor_rate" in result:  # the bare WSGI floor beside the peer
            baseline += f" (bare WSGI {_figure(result['floor_rate'], unit)})"
        if "cpu_ratio" in result and TARGETS[row][0] == "min_times":
            ratio += f" (by worker CPU {result['cpu_ratio']:.2f} x)"
            lines.append((row, measured, baseline, ratio, TARGETS[row][2], "yes" if result["met"] else "NO"))
            continue
        if "cpu_times" in result:  # a cost's ratio by CPU time, beside the judged one
            ratio += f" (by CPU {result['cpu_times']:.2f} x)"
        if "cpu_ratio" in result:  # beside the judged ratio: what the machine's load moves less
            ratio += f" (by CPU {result['cpu_ratio']:.1%})"
        lines.append((row, measured, baseline, ratio, TARGETS[row][2], "yes" if result["met"] else "NO"))
    lines = [
        (*line, "{} to {}".format(*rows[line[0]]["load_average"]) if "load_average" in rows[line[0]] else "")
        for line in lines
    ]
    widths = [max(len(str(line[i])) for line in [header, *lines]) for i in range(len(header))]
    text = [
        " | ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True))
        for line in [header, *lines]
    ]
    text.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(text)
