"""`manage.py bench` itself: its rows run, write their JSON and leave no throwaway database behind.

The figures are not asserted (the targets are checked by running the bench, not by timed tests): these make sure the
command keeps working and its report keeps its shape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from tests.conftest import need_service

pytestmark = pytest.mark.slow
POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"


def _bench(tmp_path: Path, *args: str) -> tuple[dict[str, Any], str]:
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, "manage.py", "bench", "--quick", "--json", str(out), *args],
        cwd=settings.BASE_DIR,
        env=os.environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    failed = {row: result for row, result in report["rows"].items() if "error" in result}
    assert not failed, f"{failed}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return report, done.stdout


def test_the_actions_row_compares_the_action_path_with_raw_sqlite_writes(tmp_path: Path) -> None:
    report, table = _bench(tmp_path, "--only", "actions")
    row = report["rows"]["actions"]
    assert report["quick"] is True and list(report["rows"]) == ["actions"]
    assert row["actions"] + row["refused_by_rules"] == 1000
    assert row["events"] >= row["actions"]  # every action the rules allowed appended at least one event
    assert row["rate"] > 0 and row["baseline"] > 0 and row["baseline_without_timers"] > 0
    assert row["ratio"] == pytest.approx(row["rate"] / row["baseline"])
    assert row["met"] is (row["ratio"] >= 0.30)
    assert "actions" in table and f"{row['ratio']:.1%}" in table


@pytest.mark.services
def test_the_postgres_row_compares_with_raw_psycopg_and_drops_its_databases(tmp_path: Path) -> None:
    need_service("PostgreSQL", "127.0.0.1", 5432)
    import psycopg

    report, _ = _bench(tmp_path, "--only", "postgres", "--postgres", POSTGRES)
    row = report["rows"]["postgres"]
    assert row["actions"] + row["refused_by_rules"] == 1000 and row["threads"] == 8
    assert row["rate"] > 0 and row["baseline"] > 0 and row["sequential_rate"] > 0
    assert row["ratio"] == pytest.approx(row["rate"] / row["baseline"])
    assert row["met"] is (row["rate"] >= 2000)
    assert row["python_cpu_ms_per_action"] > 0 and row["baseline_python_cpu_ms_per_action"] > 0
    with psycopg.connect(POSTGRES.replace("postgres://", "postgresql://")) as db:
        left = db.execute("SELECT datname FROM pg_database WHERE datname LIKE 'wl_bench_%'").fetchall()
    assert left == []


@pytest.mark.django_db
def test_what_the_bench_keeps_of_each_action_gives_the_garbage_collector_nothing_to_walk(
    django_user_model: Any,
) -> None:
    """A server keeps nothing of an answered request; the bench keeps thousands of these, which must not make
    every collection walk them (that cost the action path a tenth of its time in the PostgreSQL row)."""
    import gc

    from perf.rows import _act_all, _characters, _plan

    people = {"cyberpunk2020": _characters("cyberpunk2020", 2, "kept")[1]}
    _, acted, refused = _act_all(_plan(people, 6))
    assert len(acted) + refused == 6 and acted
    gc.collect()
    # One object per action, holding only what the collector never walks (strings, numbers, a tuple of them).
    fields = [field for record in acted for field in gc.get_referents(record) if field is not type(record)]
    walked = [field for field in fields if gc.is_tracked(field)]
    assert walked == []
    assert json.loads(acted[-1].state)["alive"] is True


def test_the_http_action_row_compares_gunicorn_with_the_in_process_path(tmp_path: Path) -> None:
    report, table = _bench(tmp_path, "--only", "http_action")
    row = report["rows"]["http_action"]
    assert row["actions"] == 600 and row["server_processes"] == 1
    assert sum(row["answered"].values()) == 600 and set(row["answered"]) <= {"201", "400"}
    assert row["rate"] > 0 and row["baseline"] > 0 and row["server_cpu_ms_per_action"] > 0
    assert row["ratio"] == pytest.approx(row["rate"] / row["baseline"])
    assert row["met"] is (row["ratio"] >= 0.40)
    assert "http_action" in table and f"{row['ratio']:.1%}" in table


def test_the_import_row_compares_an_import_with_the_rebuild_of_the_same_events(tmp_path: Path) -> None:
    report, _ = _bench(tmp_path, "--only", "import")
    row = report["rows"]["import"]
    assert row["events"] >= 30_000 and row["bytes"] > 0
    assert row["ratio"] == pytest.approx(row["rate"] / row["baseline"])
    assert row["met"] is (row["ratio"] >= 0.50)
    assert row["cpu_ratio"] == pytest.approx(row["baseline_cpu_seconds"] / row["cpu_seconds"])


def test_the_history_page_row_compares_a_long_history_with_a_short_one(tmp_path: Path) -> None:
    report, table = _bench(tmp_path, "--only", "history_page")
    row = report["rows"]["history_page"]
    assert row["events"] == 100_000 and row["pages"] == 200
    for who in ("gm", "player"):
        assert row[f"{who}_long_p99_ms"] > 0 and row[f"{who}_short_p99_ms"] > 0
    assert row["ratio"] == pytest.approx(row["rate"] / row["baseline"])
    assert row["met"] is (row["ratio"] <= 1.2)
    assert f"{row['ratio']:.2f} x" in table


def test_the_forecast_row_times_each_rulesets_richest_injuries(tmp_path: Path) -> None:
    report, table = _bench(tmp_path, "--only", "forecast")
    row = report["rows"]["forecast"]
    assert list(row["rulesets"]) == ["shadowrun2", "cyberpunk2020", "darkfuture"]
    assert row["runs"] == 1000 and row["repeats"] == 3
    assert row["seconds"] == max(entry["seconds"] for entry in row["rulesets"].values())
    assert row["rulesets"]["shadowrun2"]["injuries"] == [
        "chest, ribs (critical)",
        "physical damage (Serious, 6 boxes)",
        "stun damage (Moderate, 3 boxes)",
    ]
    assert row["met"] is (row["seconds"] < 0.2)
    assert "forecast" in table and "richest injuries" in table


def test_the_recovery_row_times_a_party_of_six_of_each_ruleset(tmp_path: Path) -> None:
    report, table = _bench(tmp_path, "--only", "recovery")
    row = report["rows"]["recovery"]
    assert list(row["rulesets"]) == ["shadowrun2", "cyberpunk2020", "darkfuture"]
    assert row["runs"] == 1000 and row["repeats"] == 3
    assert all(entry["characters"] == 6 for entry in row["rulesets"].values())
    assert row["seconds"] == max(entry["seconds"] for entry in row["rulesets"].values())
    assert row["rulesets"]["shadowrun2"]["party"].startswith("all fit by 2053-")
    assert row["met"] is (row["seconds"] < 0.5)
    assert "recovery" in table and "6 injured characters" in table


def test_the_board_row_compares_each_board_with_its_character_page(tmp_path: Path) -> None:
    report, table = _bench(tmp_path, "--only", "board")
    row = report["rows"]["board"]
    assert list(row["sizes"]) == ["6", "30"] and row["repeats"] == 10
    for size, figures in row["sizes"].items():
        for who in ("gm", "player"):
            assert figures[f"{who}_board_ms"] > 0 and figures[f"{who}_character_ms"] > 0
            assert figures[f"{who}_ratio"] == pytest.approx(
                figures[f"{who}_board_cpu_ms"] / figures[f"{who}_character_cpu_ms"]
            )
            assert figures[f"{who}_limit"] == (2.0 if size == "6" else 3.0)
    ratios = [
        f[f"{who}_ratio"] <= f[f"{who}_limit"] for f in row["sizes"].values() for who in ("gm", "player")
    ]
    assert row["met"] is all(ratios)
    assert "board" in table and f"{row['ratio']:.2f} x" in table
