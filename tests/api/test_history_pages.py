"""`GET /api/characters/{id}/events/?before=&limit=`: the history a page at a time, newest first (issue 14, item 6).

It used to answer the whole history in one list (35 MB for 160,000 events), which its own player could ask for
on every worker at once.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign.selectors import history
from tests.conftest import Table


def _events(table: Table, query: str = "", who: Any = None) -> Any:
    return (who or table.gm).get(f"{table.character_url()}events/{query}")


def _notes(table: Table, count: int) -> None:
    for i in range(count):
        assert table.act({"type": "note", "text": f"note {i + 1}"}).status_code == 201


def test_a_gm_reads_the_history_newest_first_a_page_at_a_time(sr2: Table) -> None:
    _notes(sr2, 7)
    pages, before = [], None
    while True:
        answer = _events(sr2, f"?limit=3&before={before}" if before else "?limit=3").json()
        pages.append([e["version"] for e in answer["events"]])
        before = answer["next"]
        if before is None:
            break
        assert before == pages[-1][-1]  # a GM's cursor is the version of the page's oldest entry
    assert pages == [[7, 6, 5], [4, 3, 2], [1]]
    # Without paging parameters: the first page of the default size, in the same shape.
    whole = _events(sr2).json()
    assert [e["data"]["text"] for e in whole["events"]] == [f"note {i}" for i in range(7, 0, -1)]
    assert whole["next"] is None


def test_the_default_page_holds_100_entries_and_a_page_at_most_500(sr2: Table) -> None:
    assert (history.HISTORY_PAGE, history.HISTORY_PAGE_MAX) == (100, 500)
    _notes(sr2, 101)
    first = _events(sr2).json()
    assert [e["version"] for e in first["events"]] == list(range(101, 1, -1)) and first["next"] == 2
    assert [e["version"] for e in _events(sr2, "?before=2").json()["events"]] == [1]
    assert len(_events(sr2, "?limit=500").json()["events"]) == 101


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?limit=0", "limit"),
        ("?limit=501", "limit"),
        ("?limit=ten", "limit"),
        ("?limit=-3", "limit"),
        ("?before=x", "before"),
        ("?before=0", "before"),
        ("?before=1e3", "before"),
    ],
)
def test_bad_paging_parameters_are_a_400_naming_them(sr2: Table, query: str, field: str) -> None:
    response = _events(sr2, query)
    assert response.status_code == 400, response.content
    assert list(response.json()) == [field]


def test_a_version_beyond_the_newest_gives_the_first_page(sr2: Table) -> None:
    _notes(sr2, 2)
    assert [e["version"] for e in _events(sr2, f"?before={10**40}").json()["events"]] == [2, 1]


def test_a_player_pages_only_with_the_cursors_given_to_them(sr2: Table) -> None:
    for _ in range(4):
        assert sr2.act({"type": "set_care", "in_hospital": True}).status_code == 201
    first = _events(sr2, "?limit=2", sr2.player).json()
    assert [e["version"] for e in first["events"]] == [4, 3]
    second = _events(sr2, f"?limit=2&before={first['next']}", sr2.player).json()
    assert [e["version"] for e in second["events"]] == [2, 1] and second["next"] is None
    # A version is a GM's cursor, not a player's; a changed cursor is refused ...
    for before in ("3", first["next"][:-2] + "AA", "x" * 500):
        response = _events(sr2, f"?before={before}", sr2.player)
        assert response.status_code == 400 and list(response.json()) == ["before"], before
    # ... and so is one of another character, even the same player's.
    made = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/",
        {"name": "Bo", "player": "player", "attributes": {"body": 5}},
    )
    other = sr2.player.get(f"/api/characters/{made.json()['id']}/events/?before={first['next']}")
    assert other.status_code == 400 and list(other.json()) == ["before"]


def test_a_players_feed_cursor_is_sealed_and_checked(sr2: Table) -> None:
    assert sr2.act({"type": "set_care", "in_hospital": True}).status_code == 201
    feed = f"/api/campaigns/{sr2.campaign['id']}/events/"
    first = sr2.player.get(feed).json()
    assert [e["type"] for e in first["events"]] == ["CareChanged"] and not first["more"]
    assert sr2.player.get(f"{feed}?after={first['last_position']}").json() == {
        "events": [],
        "last_position": first["last_position"],
        "more": False,
    }
    assert sr2.act({"type": "set_care", "in_hospital": False}).status_code == 201
    later = sr2.player.get(f"{feed}?after={first['last_position']}").json()
    assert [e["data"] for e in later["events"]] == [{"in_hospital": False}]
    for after in ("3", "nonsense"):
        response = sr2.player.get(f"{feed}?after={after}")
        assert response.status_code == 400 and list(response.json()) == ["after"]


def _queries(table: Table, query: str, who: Any) -> tuple[int, Any]:
    with CaptureQueriesContext(connection) as captured:
        answer = _events(table, query, who).json()
    return len(captured), answer


def test_a_page_costs_as_many_queries_at_the_end_of_a_long_history_as_at_its_start(sr2: Table) -> None:
    for i in range(40):
        assert sr2.act({"type": "set_care", "in_hospital": i % 2 == 0}).status_code == 201
        assert sr2.act({"type": "note", "text": f"hidden {i}"}).status_code == 201
    for who in (sr2.gm, sr2.player):
        first_count, page = _queries(sr2, "?limit=5", who)
        counts = []
        while page["next"] is not None:
            count, page = _queries(sr2, f"?limit=5&before={page['next']}", who)
            counts.append(count)
        assert set(counts) == {first_count}, who.name
