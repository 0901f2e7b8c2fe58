"""The history's heading of a clock advance's entries says where the advance ended: the time it stopped at (before
or at a death, "Stop here"), not the time it was asked to reach (a tester's Shadowrun night: "+1 hour" from 00:15
stopped at a death at 00:25, and the character's page said "00:15 to 01:15")."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest

from campaign.models import Campaign
from tests.web.conftest import Web

pytestmark = pytest.mark.django_db

# A Deadly physical wound, three Body-check successes (no critical hit): Ash (Body 5) bleeds out, one overflow box
# every 10 minutes from 00:00:00, and dies with the sixth at 01:00:00.
BLEEDING = {"type": "wound", "severity": "D", "rolls": {"body_check": [10, 10, 10, 1, 1]}}


def _headings(web: Web) -> list[str]:
    page = web.gm.get(f"/characters/{web.character_id}/").content.decode()
    return [unescape(found) for found in re.findall(r"<summary>(Clock, [^<]*)</summary>", page)]


def _advance(web: Web, **body: Any) -> dict[str, Any]:
    answer = web.table.gm.post(f"/api/campaigns/{web.campaign_id}/clock/", body)
    assert answer.status_code == 202, answer.content
    return dict(web.table.gm.get(f"/api/jobs/{answer.json()['job']}/").json())


def _bleeding_at_00_35(web: Web) -> None:
    assert web.table.act(BLEEDING).status_code == 201
    _advance(web, advance={"minutes": 35})  # boxes at 00:10, 00:20, 00:30


def test_an_advance_that_stopped_at_a_death_is_headed_with_the_death_s_time(sr2_web: Web) -> None:
    _bleeding_at_00_35(sr2_web)
    job = _advance(sr2_web, advance={"hours": 1}, stop_on="status", ask_before_death=True)
    assert job["needs_yes"]["date"] == "2053-01-01 01:00:00"
    went_on = sr2_web.table.gm.post(f"/api/jobs/{job['id']}/go-on/")
    assert went_on.status_code == 200, went_on.content
    assert Campaign.objects.get(pk=sr2_web.campaign_id).game_time == 3600
    assert _headings(sr2_web)[0] == (
        "Clock, 2053-01-01 00:35 to 2053-01-01 01:00: 4 entries: overflow box taken 3 times, died"
    )


def test_an_advance_stopped_before_a_death_is_headed_with_where_it_stands_then_stopped(sr2_web: Web) -> None:
    _bleeding_at_00_35(sr2_web)
    job = _advance(sr2_web, advance={"hours": 1}, ask_before_death=True)
    # Waiting before the death: the entries so far, up to where the clock stands.
    assert (job["status"], job["reached"]) == ("waiting", 3000)
    assert _headings(sr2_web)[0] == (
        "Clock, 2053-01-01 00:35 to 2053-01-01 00:50: 2 entries: overflow box taken twice"
    )
    stopped = sr2_web.table.gm.post(f"/api/jobs/{job['id']}/stop/")
    assert stopped.status_code == 200, stopped.content
    assert Campaign.objects.get(pk=sr2_web.campaign_id).game_time == 3000
    assert _headings(sr2_web) == [
        "Clock, 2053-01-01 00:35 to 2053-01-01 00:50: 2 entries: overflow box taken twice",
        "Clock, 2053-01-01 00:00 to 2053-01-01 00:35: 3 entries: overflow box taken 3 times",
    ]


def test_an_advance_taken_back_is_no_longer_headed_as_the_clock_s(sr2_web: Web) -> None:
    _bleeding_at_00_35(sr2_web)
    job = _advance(sr2_web, advance={"hours": 1}, stop_on="status", ask_before_death=True)
    assert sr2_web.table.gm.post(f"/api/jobs/{job['id']}/go-on/").status_code == 200
    rewound = sr2_web.table.gm.post(f"/api/campaigns/{sr2_web.campaign_id}/clock/rewind/")
    assert rewound.status_code == 200, rewound.content
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert [unescape(found) for found in re.findall(r"<summary>([^<]*)</summary>", page)] == [
        "Taken back: 4 entries: overflow box taken 3 times, died",
        "Clock, 2053-01-01 00:00 to 2053-01-01 00:35: 3 entries: overflow box taken 3 times",
    ]
    # The advance after it, from where the clock went back, is headed with its own span.
    _advance(sr2_web, advance={"minutes": 20})
    assert _headings(sr2_web)[0] == (
        "Clock, 2053-01-01 00:35 to 2053-01-01 00:55: 2 entries: overflow box taken twice"
    )
