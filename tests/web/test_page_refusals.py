"""Every refusal a forecast's page can meet, on the page and in its htmx fragment alike (issue 43, item 2).

The party's recovery page answered 500 while another user's forecast held the server's slot (`render` was passed
`headers=`): the no-JavaScript fallback of the panel failed where the panel gave the documented 429. Each refusal
is driven here through the party's recovery and a character's forecast, each as its own page and as the fragment
the board and the character page fetch: the status, `Retry-After` and the words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.cache import caches
from django.db import OperationalError
from django.test import Client
from django.utils.text import capfirst
from redis.exceptions import ConnectionError as RedisConnectionError

from campaign.forecast import forecast_budget
from campaign.http import outages
from tests.api.test_forecast import CRITICAL, chest_hit
from tests.conftest import Table

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
MOMENT = 600_045.5  # 45.5 s into a minute of the clock: 15 whole seconds until the next


@pytest.fixture(autouse=True)
def _clocks(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    settings.FORECAST_TIME_BOX = 1  # as served
    caches["pages"].clear()  # every forecast computed, none served from another test's answers
    monkeypatch.setattr(forecast_budget, "now", lambda: MOMENT)


def _web(persona: Any) -> Client:
    client = Client()
    client.force_login(persona.user)
    return client


def _urls(table: Table) -> dict[str, str]:
    return {
        "recovery": f"/campaigns/{table.campaign['id']}/recovery/?by=2053-03-02",
        "forecast": f"/characters/{table.character['id']}/forecast/",
    }


@pytest.fixture
def hurt(sr2: Table) -> Iterator[Table]:
    assert sr2.act(chest_hit(CRITICAL)).status_code == 201
    yield sr2


def _held(user_id: int) -> Callable[[], None]:
    """A forecast of `user_id` running (its lease and the server's one slot held, as a worker mid-forecast)."""
    held = forecast_budget.budget(user_id)
    held.__enter__()
    return lambda: held.__exit__(None, None, None)


def _ask(table: Table, who: str, page: str, fragment: bool) -> Any:
    return _web(getattr(table, who)).get(_urls(table)[page], **(HTMX if fragment else {}))


def _is_page(answer: Any, fragment: bool) -> bool:
    """A fragment is a panel to swap in; a page has the site's frame (its <title>)."""
    return ("<title>" in answer.content.decode()) is not fragment


PAGES = [
    (page, fragment) for page in ("recovery", "forecast") for fragment in (False, True)
]  # four answers: each page and its fragment


@pytest.mark.parametrize(("page", "fragment"), PAGES)
def test_another_forecast_of_the_users_is_a_429_saying_when(hurt: Table, page: str, fragment: bool) -> None:
    release = _held(hurt.player.user.pk)
    try:
        answer = _ask(hurt, "player", page, fragment)
    finally:
        release()
    assert (answer.status_code, answer["Retry-After"]) == (429, "1")
    assert "another forecast of yours is still running; try again in 1 second." in answer.content.decode()
    assert _is_page(answer, fragment)


@pytest.mark.parametrize(("page", "fragment"), PAGES)
def test_another_users_forecast_holding_the_servers_slot_is_a_429(
    hurt: Table, page: str, fragment: bool
) -> None:
    """The issue's case: the recovery page without htmx answered 500 here."""
    release = _held(hurt.player.user.pk)  # FORECAST_AT_ONCE is 1: the player holds the server's slot
    try:
        answer = _ask(hurt, "gm", page, fragment)
    finally:
        release()
    assert (answer.status_code, answer["Retry-After"]) == (429, "1")
    said = "the server is running as many forecasts as it may at once; try again in 1 second."
    assert said in answer.content.decode() and _is_page(answer, fragment)


@pytest.mark.parametrize(("page", "fragment"), PAGES)
def test_a_spent_budget_is_a_429_until_the_minute_is_over(
    hurt: Table, page: str, fragment: bool, settings: Any
) -> None:
    settings.FORECAST_BUDGET = 5
    forecast_budget._charge(hurt.gm.user.pk, 5.0)
    answer = _ask(hurt, "gm", page, fragment)
    assert (answer.status_code, answer["Retry-After"]) == (429, "15")
    said = "your forecasts have used this minute&#x27;s budget of 5 seconds of computing; try again in 15 seconds."
    assert said in answer.content.decode() and _is_page(answer, fragment)


@pytest.mark.parametrize(("fragment", "status"), [(False, 503), (True, 429)])
def test_a_partys_recovery_stopped_by_its_time_box_is_a_503_in_words(
    hurt: Table, fragment: bool, status: int, settings: Any
) -> None:
    """The page is a 503; the board's section a 429, which htmx swaps in (it leaves a 503 unswapped)."""
    settings.FORECAST_TIME_BOX = 0
    answer = _ask(hurt, "gm", "recovery", fragment)
    assert (answer.status_code, answer["Retry-After"]) == (status, "60")
    said = "No recovery view yet: the party&#x27;s recovery took longer than its time box allows; ask again in a minute."
    assert said in answer.content.decode() and _is_page(answer, fragment)


def test_a_refused_panel_asks_the_same_question_again(hurt: Table) -> None:
    release = _held(hurt.player.user.pk)
    try:
        html = _ask(hurt, "player", "recovery", fragment=True).content.decode()
    finally:
        release()
    url = _urls(hurt)["recovery"]
    assert (
        f'hx-get="{url}" hx-trigger="load delay:1s, seen" data-when-seen' in html
        and f'<a href="{url}">' in html
    )


def _cache_down(*args: Any) -> bool:
    raise RedisConnectionError("Connection refused")


class _Gone(Exception):
    sqlstate = "08006"  # PostgreSQL's connection failure


def _database_down(*args: Any, **kwargs: Any) -> Any:
    raise OperationalError("server closed the connection unexpectedly") from _Gone()


@pytest.mark.parametrize(("page", "fragment"), PAGES)
@pytest.mark.parametrize("service", [outages.CACHE, outages.DATABASE])
def test_an_outage_is_a_503_naming_the_service(
    hurt: Table, page: str, fragment: bool, service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if service == outages.CACHE:
        monkeypatch.setattr(forecast_budget, "_take", _cache_down)
    else:  # the characters read after the user's access was checked
        monkeypatch.setattr("campaign.selectors.characters.party", _database_down)
        monkeypatch.setattr("campaign.selectors.access.character_for", _database_down)
    answer = _ask(hurt, "gm", page, fragment)
    assert (answer.status_code, answer["Retry-After"]) == (503, str(outages.RETRY_AFTER_SECONDS))
    # The site's own 503 page (templates/503.html), which htmx does not swap in: the panel keeps what it showed.
    assert capfirst(outages.DOWN[service]).replace("'", "&#x27;") in answer.content.decode()


@pytest.fixture
def two_a_minute(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    from campaign.http import throttles

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "forecast": "2/min"}
    monkeypatch.setattr(
        throttles.ForecastRate, "THROTTLE_RATES", rates
    )  # DRF reads the rates once, at import


@pytest.mark.parametrize(("page", "fragment"), PAGES)
@pytest.mark.usefixtures("two_a_minute")
def test_forecasts_past_the_users_rate_are_a_429_the_api_and_the_pages_counting_together(
    hurt: Table, page: str, fragment: bool
) -> None:
    """Three accounts looping on the recovery page with a new `?by=` each time were not throttled: the pages now
    take places in the API's FORECAST_THROTTLE, one count per user, for each panel computed. A panel kept (asked
    again in the same state: the board's refresh in a second tab) answers without counting."""
    assert hurt.player.get(f"/api/characters/{hurt.character['id']}/forecast/?runs=10").status_code == 200
    assert _ask(hurt, "player", page, fragment).status_code == 200
    assert _ask(hurt, "player", page, fragment).status_code == 200  # kept: not counted
    caches["pages"].clear()  # not kept (a new question, a new state, another process): computed, and counted
    refused = _ask(hurt, "player", page, fragment)
    assert refused.status_code == 429 and 55 <= int(refused["Retry-After"]) <= 60
    said = "at most 2 forecasts a minute per user, the pages&#x27; and the API&#x27;s together; try again in "
    assert said in refused.content.decode() and _is_page(refused, fragment)
    api = hurt.player.get(f"/api/campaigns/{hurt.campaign['id']}/recovery/")
    assert api.status_code == 429 and "Retry-After" in api
    assert _ask(hurt, "gm", page, fragment).status_code == 200  # per user
