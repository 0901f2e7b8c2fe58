"""The forecast's budget (docs/forecast.md, "Budget"): one forecast at a time per user and FORECAST_AT_ONCE on the
server, a budget of CPU seconds per user and minute, a time box that answers with the futures done, a player's cap
on runs, and leases that expire when a worker dies mid-forecast. The clocks are set by the tests
(`forecast_budget.now`, `.wall`, `.cpu`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import caches
from django.core.cache.backends import locmem

from campaign.forecast import forecast_budget
from rules import forecast as fc
from tests.api.test_forecast import CRITICAL, MORTAL, chest_hit, forecast_url
from tests.conftest import Table

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
MOMENT = 600_045.5  # 45.5 s into a minute of the clock: 14.5 s, so 15 whole seconds, until the next


@pytest.fixture(autouse=True)
def _clocks(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    settings.FORECAST_TIME_BOX = 1  # as served (tests/conftest.py lifts it for every other test)
    caches["pages"].clear()  # every forecast below is computed, none served from an earlier test's answers
    monkeypatch.setattr(forecast_budget, "now", lambda: MOMENT)
    # The time box's wall clock stands still: a forecast runs every future it is asked for within its second however
    # busy the machine, and a box of 0 s still has no time at all (the tests of the box's pace set their own).
    monkeypatch.setattr(forecast_budget, "wall", lambda: 0.0)


def _panel_url(table: Table) -> str:
    return f"/characters/{table.character['id']}/forecast/"


def _web(table: Table, who: str) -> Any:
    from django.test import Client

    client = Client()
    client.force_login(getattr(table, who).user)
    return client


@pytest.fixture
def running(sr2: Table) -> Iterator[Any]:
    """The player's forecast running (its lease held, as a worker does mid-forecast) while the test asks again."""
    held = forecast_budget.budget(sr2.player.user.pk)
    held.__enter__()
    yield held
    held.__exit__(None, None, None)


def test_a_second_forecast_of_the_same_user_while_one_runs_is_a_429_saying_when_to_retry(
    sr2: Table, running: Any
) -> None:
    sr2.act(chest_hit(CRITICAL))
    answer = sr2.player.get(forecast_url(sr2.character["id"], "?runs=10"))
    assert (answer.status_code, answer.json(), answer["Retry-After"]) == (
        429,
        {"detail": "another forecast of yours is still running; try again in 1 second"},
        "1",
    )
    page = _web(sr2, "player").get(_panel_url(sr2), **HTMX)
    assert (page.status_code, page["Retry-After"]) == (429, "1")
    html = page.content.decode()
    assert "No forecast yet: another forecast of yours is still running; try again in 1 second." in html
    # The panel asks again by itself once the wait is over (htmx swaps a 429 in: base.html).
    assert f'hx-get="{_panel_url(sr2)}" hx-trigger="load delay:1s, seen" data-when-seen' in html
    assert '{"code":"4(00|09|29)","swap":true,"error":false}' in _web(sr2, "player").get("/").content.decode()


def test_another_users_forecast_waits_for_the_servers_slot_and_gets_it_once_free(
    sr2: Table, running: Any, settings: Any
) -> None:
    url = forecast_url(sr2.character["id"], "?runs=10")
    busy = sr2.gm.get(url)
    assert (busy.status_code, busy.json(), busy["Retry-After"]) == (
        429,
        {"detail": "the server is running as many forecasts as it may at once; try again in 1 second"},
        "1",
    )
    settings.FORECAST_AT_ONCE = 2
    assert sr2.gm.get(url).status_code == 200
    running.__exit__(None, None, None)
    settings.FORECAST_AT_ONCE = 1
    assert sr2.player.get(url).status_code == 200


def test_a_spent_budget_is_a_429_until_the_minute_is_over(
    sr2: Table, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.FORECAST_BUDGET = 10
    # Each forecast's block reads the CPU clock at its start and end: the GM's two, the player's, the GM's third.
    spends = iter([0.0, 6.0, 6.0, 12.0, 20.0, 21.0, 30.0, 31.0])
    monkeypatch.setattr(forecast_budget, "cpu", lambda: next(spends))
    url = forecast_url(sr2.character["id"], "?runs=10&seed={}")
    assert [sr2.gm.get(url.format(seed)).status_code for seed in (1, 2)] == [200, 200]
    assert forecast_budget.spent(sr2.gm.user.pk) == 12.0
    spent = sr2.gm.get(url.format(3))
    assert (spent.status_code, spent.json(), spent["Retry-After"]) == (
        429,
        {
            "detail": "your forecasts have used this minute's budget of 10 seconds of computing; "
            "try again in 15 seconds"
        },
        "15",
    )
    assert sr2.gm.get(url.format(1)).status_code == 200  # an answer already made costs nothing
    assert sr2.player.get(url.format(3)).status_code == 200  # per user
    monkeypatch.setattr(forecast_budget, "now", lambda: MOMENT + 15)  # the next minute
    assert sr2.gm.get(url.format(3)).status_code == 200
    assert forecast_budget.spent(sr2.gm.user.pk) == 1.0


def test_the_time_box_answers_with_the_futures_done_and_their_error_in_words(
    sr2: Table, settings: Any
) -> None:
    settings.FORECAST_TIME_BOX = 0  # no time: the first round of futures and no more
    sr2.act(chest_hit(MORTAL))
    data = sr2.gm.get(forecast_url(sr2.character["id"], "?runs=1000&with=treat_now&seed=3")).json()
    error = "each share within 9.8 percentage points and each date within 9.8 percentiles of the true ones"
    assert data["runs"] == fc.ROUND_RUNS == 100
    assert data["cut_short"] == (
        f"Cut short by its time box: 100 of the 1,000 futures asked were simulated; {error} (95% confidence)."
    )
    assert (data["sampling_error_widest"], data["sampling_error_text"]) == (
        0.098,
        f"{error} (95% confidence)",
    )
    assert [(w["with"], w["runs"]) for w in data["what_ifs"]] == [("treat_now", 100)]
    assert data["survival"]["untreated"] == 0.0

    html = _web(sr2, "gm").get(_panel_url(sr2), **HTMX).content.decode()
    assert "From 2053-01-01 00:00:00: 100 futures of the rules' own clock" in html
    assert re.search(
        r'<p class="cut-short" role="status">Cut short by its time box: 100 of the 1,000 futures asked were '
        rf"simulated; {error} \(95% confidence\).</p>",
        html,
    )


def test_a_forecast_in_its_time_box_runs_every_future_and_says_its_error(sr2: Table) -> None:
    sr2.act(chest_hit(CRITICAL))
    data = sr2.gm.get(forecast_url(sr2.character["id"], "?runs=400&seed=3")).json()
    assert (data["runs"], data["cut_short"], data["sampling_error_widest"]) == (400, None, 0.049)
    html = _web(sr2, "gm").get(_panel_url(sr2), **HTMX).content.decode()
    assert "1,000 futures of the rules' own clock" in html and "cut-short" not in html


def test_a_players_forecast_keeps_its_cap(sr2: Table, settings: Any) -> None:
    url = forecast_url(sr2.character["id"], "?runs={}&seed=1")
    assert sr2.player.get(url.format(1000)).json()["runs"] == 1000
    over = sr2.player.get(url.format(1001))
    assert (over.status_code, over.json()) == (
        400,
        {"runs": ["expected a whole number from 10 to 1,000 for a player, got 1001"]},
    )
    assert sr2.gm.get(url.format(1001)).json()["runs"] == 1001
    settings.FORECAST_PLAYER_MAX_RUNS = 200
    assert sr2.player.get(forecast_url(sr2.character["id"])).json()["runs"] == 200  # the default, capped
    page = _web(sr2, "player").get(_panel_url(sr2), **HTMX).content.decode()
    assert "From 2053-01-01 00:00:00: 200 futures" in page


def test_a_lease_left_by_a_dead_worker_expires(
    sr2: Table, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.FORECAST_LEASE_SECONDS = 10
    dead = forecast_budget.budget(sr2.player.user.pk)
    dead.__enter__()  # the worker was killed here: its block never ends, its leases are never given back
    monkeypatch.setattr(forecast_budget, "now", lambda: MOMENT + 4)
    url = forecast_url(sr2.character["id"], "?runs=10")
    locked = sr2.player.get(url)
    # Its time box (1 s) is long over: the wait is until the lease expires, 10 s after it was taken.
    assert (locked.json(), locked["Retry-After"]) == (
        {"detail": "another forecast of yours is still running; try again in 6 seconds"},
        "6",
    )
    real = locmem.time.time
    monkeypatch.setattr(locmem, "time", type("Later", (), {"time": staticmethod(lambda: real() + 10.5)}))
    assert sr2.player.get(url).status_code == 200
    assert sr2.gm.get(url).status_code == 200  # the server's slot expired as well
    dead.__exit__(None, None, None)  # the dead block's late end gives back nothing of the new holders'


def test_the_time_box_allows_the_futures_that_fit_at_the_pace_of_the_round_just_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    moments = iter([10.0, 10.0, 10.0, 10.5, 10.5, 10.75, 11.0])
    monkeypatch.setattr(forecast_budget, "wall", lambda: next(moments))
    box = forecast_budget.Box(1.0)  # until 11.0
    assert box.allow(0, 1000) == 1000  # before the first round: nothing measured yet
    assert box.allow(100, 900) == 100  # 100 futures took 0.5 s: the 0.5 s left hold 100 more
    assert box.allow(0, 200) == 200  # a what-if's first round next
    assert box.allow(50, 10) == 10  # 50 futures in 0.25 s: 10 more fit in the 0.25 s left
    assert box.allow(100, 10) == 0  # no time left


def test_the_engines_rounds_give_one_forecast_per_seed_and_stop_where_the_box_says() -> None:
    from perf.harness.seeding import forecast_state

    rules, state = forecast_state("shadowrun2")
    whole = fc.forecast(rules, state, 0, player=False, runs=300, seed=5, allow=lambda done, left: left)
    again = fc.forecast(rules, state, 0, player=False, runs=300, seed=5, allow=lambda done, left: left)
    assert (whole.runs, whole.cut_short, whole.untreated.items) == (300, False, again.untreated.items)
    asked: list[tuple[int, int]] = []

    def some(done: int, left: int) -> int:
        asked.append((done, left))
        return 0 if done == 0 else 50

    cut = fc.forecast(rules, state, 0, player=False, runs=300, seed=5, what_ifs=("treat_now",), allow=some)
    assert (cut.runs, cut.cut_short, [o.runs for o in cut.what_ifs]) == (150, True, [150])
    assert asked == [(0, 300), (100, 200), (0, 150), (100, 50)]


def test_the_partys_recovery_takes_the_same_lease_on_the_api_and_the_page(sr2: Table, running: Any) -> None:
    sr2.act(chest_hit(CRITICAL))
    recovery = f"/api/campaigns/{sr2.campaign['id']}/recovery/"
    answer = sr2.player.get(recovery)
    assert (answer.status_code, answer.json(), answer["Retry-After"]) == (
        429,
        {"detail": "another forecast of yours is still running; try again in 1 second"},
        "1",
    )
    page = _web(sr2, "player").get(f"/campaigns/{sr2.campaign['id']}/recovery/", **HTMX)
    assert (page.status_code, page["Retry-After"]) == (429, "1")
    html = page.content.decode()
    assert "No recovery view yet: another forecast of yours is still running; try again in 1 second." in html
    assert 'hx-trigger="load delay:1s, seen" data-when-seen' in html
    # The GM's own lease is free; the server's one slot (FORECAST_AT_ONCE) is not.
    assert sr2.gm.get(recovery).json() == {
        "detail": "the server is running as many forecasts as it may at once; try again in 1 second"
    }


def test_the_partys_recovery_stops_when_its_time_box_is_over(
    sr2: Table, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    sr2.act(chest_hit(CRITICAL))
    settings.FORECAST_TIME_BOX = 0
    answer = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/recovery/")
    assert (answer.status_code, answer["Retry-After"]) == (503, "60")
    assert answer.json() == {
        "detail": "the party's recovery took longer than its time box allows; ask again in a minute"
    }
