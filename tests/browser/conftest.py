"""Playwright with Debian's Chromium against pytest-django's live server (a thread, transactional database).

Skipped when /usr/bin/chromium is missing, unless REQUIRE_SERVICES=1 (then the tests fail).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import REQUIRE_SERVICES

# Playwright's sync API runs an event loop in the test thread; Django must not mistake it for async code.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = Path("/usr/bin/chromium")

# CI shares two cores between two test processes and Chromium, and a busy machine more (issue 26: two CPU-bound
# processes beside the suite): give pages time, the assertions stay the same. A page that never shows still fails.
expect.set_options(timeout=45_000)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture(autouse=True)
def _forecasts_boxed_as_served(settings: Any) -> None:
    """The forecast's time box as served (1 s; tests/conftest.py lifts it for the rest of the suite): a page's
    forecast then ends before the live region's next refresh asks for it again, as it does in production, where
    a forecast still running would answer that refresh 429."""
    settings.FORECAST_TIME_BOX = 1


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        message = "Debian's Chromium is not installed at /usr/bin/chromium (apt-get install chromium)"
        if REQUIRE_SERVICES:
            pytest.fail(f"{message} and REQUIRE_SERVICES=1")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield browser
        browser.close()


@pytest.fixture
def screenshot(tmp_path: Path) -> Any:
    """Takes a full-page screenshot: into `docs/screenshots/` with UPDATE_SCREENSHOTS=1 (the images the docs show),
    otherwise into the test's temporary directory, so that a test run leaves the working tree as it found it."""
    folder = SCREENSHOTS if os.environ.get("UPDATE_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)

    def take(page: Any, name: str, element: Any = None) -> Path:
        """The whole page, or only `element` (a locator: one section of it)."""
        path = folder / f"{name}.png"
        if element is not None:
            element.screenshot(path=str(path))
        else:
            page.screenshot(path=str(path), full_page=True)
        return path

    return take
