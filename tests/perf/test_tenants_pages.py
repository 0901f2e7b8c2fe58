"""The tenants row's model of a player's page (`perf.rows.tenants.poll_times`): when static/js/poll.js polls, so
that the row's hidden pages are simulated by the pattern the page itself follows."""

from __future__ import annotations

from perf.rows.tenants import poll_times


def test_a_page_seen_all_the_while_polls_every_two_seconds() -> None:
    assert poll_times([(-10.0, 100.0)], 0.0, 60.0, touched=0.0) == [float(t) for t in range(2, 60, 2)]


def test_a_page_nobody_touched_for_five_minutes_polls_once_a_minute() -> None:
    assert poll_times([(-10.0, 1000.0)], 0.0, 300.0, touched=-400.0) == [60.0, 120.0, 180.0, 240.0]


def test_a_hidden_page_polls_never_and_once_at_once_when_shown_again() -> None:
    assert poll_times([], 0.0, 3600.0, touched=0.0) == []
    assert poll_times([(30.0, 35.0)], 0.0, 60.0, touched=30.0) == [30.0, 32.0, 34.0]
