"""The lighthouse row: npm's Lighthouse (perf/lighthouse/package.json, its version pinned) with Debian's Chromium,
mobile preset, on the GM's board and the player's character page of a seeded campaign served as in production.

Run inside the bench's child process (a throwaway database): static files collected into a temporary folder,
gunicorn with DEBUG off, the GM and the player logged in by a session cookie Lighthouse sends with every request.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from django.conf import settings

from perf.harness.databases import ROOT, collected_static
from perf.harness.seeding import seeded_table, session_cookie
from perf.harness.servers import gunicorn

FOLDER = ROOT / "perf" / "lighthouse"
CLI = FOLDER / "node_modules" / "lighthouse" / "cli" / "index.js"
SCRIPT = FOLDER / "run.js"  # the session cookie set in the browser, then Lighthouse's node API
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --disable-background-networking"
CATEGORIES = ("performance", "accessibility", "best-practices")
# The targets: scores out of 100 at least these, cumulative layout shift under CLS_LIMIT.
TARGETS = {"performance": 90, "accessibility": 100, "best-practices": 100}
CLS_LIMIT = 0.05
CHARACTERS = 6
ATTEMPTS = 3


def missing() -> str | None:
    """Why the row cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed (apt-get install nodejs npm)"
    if not CLI.exists():
        return f"lighthouse is not installed: npm ci --prefix {FOLDER.relative_to(settings.BASE_DIR)}"
    if not Path(CHROME).exists():
        return f"no Chromium at {CHROME} (apt-get install chromium, or set CHROME_PATH)"
    return None


def audit(url: str, cookie: str, out: Path) -> dict[str, Any]:
    """One Lighthouse run (mobile preset: its defaults) on `url` logged in by the session `cookie` (`run.js`);
    its scores (0-100) and the page's cumulative layout shift."""
    command = ["node", str(SCRIPT), url, settings.SESSION_COOKIE_NAME, cookie, str(out)]
    began = time.perf_counter()
    for attempt in range(ATTEMPTS):
        done = subprocess.run(
            command,
            env={**os.environ, "CHROME_PATH": CHROME, "CHROME_FLAGS": CHROME_FLAGS},
            capture_output=True,
            text=True,
            timeout=300,
        )
        error = json.loads(out.read_text()).get("runtimeError") if out.exists() else None
        if done.returncode == 0 and out.exists() and error is None:
            break
        stderr = done.stderr + (error or {}).get("message", "")
        # Lighthouse's own advice for a trace it failed to record (NO_NAVSTART, NO_FCP on a busy machine).
        if attempt == ATTEMPTS - 1 or "Please run Lighthouse again" not in stderr:
            raise RuntimeError(f"lighthouse failed on {url} (exit {done.returncode}): {stderr[-2000:]}")
    report = json.loads(out.read_text())
    audits = report["audits"]
    requests = audits["network-requests"]["details"]["items"]
    failing = [
        f"{name}: {audits[name]['title']}"
        for category in CATEGORIES
        for ref in report["categories"][category]["auditRefs"]
        if ref["weight"] > 0
        and (name := ref["id"]) in audits
        and audits[name].get("score") is not None
        and audits[name]["score"] < 1
        and category != "performance"
    ]
    return {
        **{name: round(100 * report["categories"][name]["score"]) for name in CATEGORIES},
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "lcp_ms": audits["largest-contentful-paint"]["numericValue"],
        "tbt_ms": audits["total-blocking-time"]["numericValue"],
        "fcp_ms": audits["first-contentful-paint"]["numericValue"],
        "html_bytes": next((item["transferSize"] for item in requests if item["url"] == url), None),
        # The board's party section, fetched once shown when not drawn in the page (None: not fetched, since the
        # page drew its kept panel).
        "party_section": next(
            (item.get("statusCode") for item in requests if item["url"].endswith("/recovery/")), None
        ),
        "failing_audits": failing,
        # Requests the server refused with 429 (a busy machine's forecasts: the party's section, a forecast panel):
        # Chromium logs each to the console, which costs best practices their "errors-in-console" audit.
        "refused": sum(1 for item in requests if item.get("statusCode") == 429),
        "seconds": round(time.perf_counter() - began, 1),
    }


def met(page: dict[str, Any], name: str = "") -> bool:
    """The targets; on the GM's board, with its party section there (drawn in the page, or fetched with a 200: not
    refused, not past its time box), as a GM has it."""
    section = name != "gm_board" or page.get("party_section") in (200, None)
    return section and all(page[k] >= score for k, score in TARGETS.items()) and page["cls"] < CLS_LIMIT


def lighthouse(
    characters: int = CHARACTERS, runs_each: int = 3, profile: str | None = None
) -> dict[str, Any]:
    """Lighthouse on the GM's board (`characters` Shadowrun characters with three wounds each, its party section
    fetched once shown: the harness's `seeded_table`, as the board row's) and on the player's character page,
    served by gunicorn (DEBUG off, static files collected and compressed as deployed); each page `runs_each`
    times, the median run (by performance score) reported, every run's score beside it."""
    why = missing()
    if why:
        return {"skipped": why}
    campaign, gm, player, ids = seeded_table(characters, tag="lighthouse")
    static, env = collected_static(dict(os.environ))
    # The server: this database, the collected files, cookies sent over plain http on loopback.
    os.environ.update({"STATIC_ROOT": env["STATIC_ROOT"], "SECURE_COOKIES": "0"})
    pages: dict[str, dict[str, Any]] = {}
    try:
        with gunicorn(2) as (port, _):
            base = f"http://127.0.0.1:{port}"
            runs = {
                "gm_board": (f"{base}/campaigns/{campaign.pk}/", gm),
                "player_character": (f"{base}/characters/{ids[0]}/", player),
            }
            for name, (url, user) in runs.items():
                # Lighthouse's advice for a figure to judge: the median of several runs (on a shared machine one
                # run's blocking time can be several times another's).
                tries = [
                    audit(url, session_cookie(user), static / f"{name}-{n}.json") for n in range(runs_each)
                ]
                tries.sort(key=lambda run: (run["performance"], -run["tbt_ms"]))
                pages[name] = {
                    **tries[len(tries) // 2],
                    "performance_runs": [run["performance"] for run in tries],
                }
    finally:
        if os.environ.get("LIGHTHOUSE_KEEP"):  # the reports, to read what failed
            for report in static.glob("*.json"):
                shutil.copy(report, os.environ["LIGHTHOUSE_KEEP"])
        shutil.rmtree(static, ignore_errors=True)
    summary = "; ".join(
        f"{name}: performance {p['performance']}, accessibility {p['accessibility']}, "
        f"best practices {p['best-practices']}, CLS {p['cls']:.3f} (performance of each run {p['performance_runs']})"
        + (f", party section {p['party_section']}" if name == "gm_board" else "")
        for name, p in pages.items()
    )
    return {
        "unit": "score",
        "pages": pages,
        "met_all": all(met(p, name) for name, p in pages.items()),
        "summary": summary,
    }
