"""Issue 18: time travel shows the clock and the timers of the moment it shows, in game dates and durations counted
from that moment, never from now; players never travel."""

from __future__ import annotations

import re

import pytest

from tests.rules.shadowrun2.helpers import MORTAL_LUNG
from tests.web.conftest import Web

pytestmark = pytest.mark.django_db

STUN_12 = {"type": "damage", "damage": 12, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}}


def _live_words(web: Web, query: str = "", **headers: str) -> str:
    """The live region of the GM's page as text, one space between words."""
    response = web.gm.get(f"/characters/{web.character_id}/{query}", **headers)
    assert response.status_code == 200
    live = response.content.decode().split('id="live"', 1)[1].split("<h2>History", 1)[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", live))


def test_the_past_shows_its_own_clock_and_what_the_clock_would_have_done_next(cp2020_web: Web) -> None:
    # 12 stun to the torso (10 after BTM -2), the stun save made with a 1: ten stun points, one heals every hour.
    table = cp2020_web.table
    assert table.act(STUN_12).json()["character"]["version"] == 2
    assert table.advance(hours=3).status_code == 202  # versions 3-5: a point heals at 01:00, 02:00 and 03:00

    right_after = _live_words(cp2020_web, "?version=2")
    assert "as it was after event 2 of 5, at 2020-01-01 00:00:00 (now 2020-01-01 03:00:00)" in right_after
    assert "Game time then: 2020-01-01 00:00:00 (now 2020-01-01 03:00:00)" in right_after
    assert "What the clock would have done next, as it stood then (GM only)" in right_after
    assert "At 2020-01-01 01:00:00 (in 1 h): a stun point heals" in right_after
    assert "stun damage (10 points, 1 per hour): 2020-01-01 10:00:00 (in 10 h)" in right_after

    # After the first point healed, by the clock at 01:00: that firing's moment, and the next point at 02:00.
    after_one = _live_words(cp2020_web, "?version=3")
    assert "Game time then: 2020-01-01 01:00:00 (now 2020-01-01 03:00:00)" in after_one
    assert "At 2020-01-01 02:00:00 (in 1 h): a stun point heals" in after_one
    assert "stun damage (9 points, 1 per hour): 2020-01-01 10:00:00 (in 9 h)" in after_one

    # The same through htmx (the slider and the history's links swap the live region) ...
    swapped = _live_words(cp2020_web, "?version=3", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="live")
    assert "At 2020-01-01 02:00:00 (in 1 h): a stun point heals" in swapped
    # ... and back to now: the present's clock.
    now = _live_words(cp2020_web)
    assert "Game time: 2020-01-01 03:00:00" in now and "then" not in now
    assert "What the clock will do (GM only) At 2020-01-01 04:00:00 (in 1 h): a stun point heals" in now


def test_a_mortal_hit_in_the_past_bleeds_out_counted_from_that_moment(sr2_web: Web) -> None:
    # Serious wound, no success on the Body check: a Mortal hit to the chest (lung), death in 3 x 10 min.
    table = sr2_web.table
    assert table.act({"type": "wound", "severity": "S", "rolls": MORTAL_LUNG}).status_code == 201  # v1-2
    assert table.advance(minutes=10).status_code == 202
    assert table.act({"type": "note", "text": "Doc is on the way."}).status_code == 201  # v3, at 00:10

    wounded = _live_words(sr2_web, "?version=2")
    assert "Game time then: 2053-01-01 00:00:00 (now 2053-01-01 00:10:00)" in wounded
    assert "dying: 30 min left unless treated (dies 2053-01-01 00:30:00)" in wounded
    assert (
        "At 2053-01-01 00:30:00 (in 30 min): bleeds out from critical hit 1 to the chest (lung), unless treated"
        in wounded
    )
    # Before the hit (the wound alone): the healing roll the clock owed then, once the rest began 10 min later.
    assert "At 2053-01-01 00:10:00 (in 10 min): next healing roll" in _live_words(sr2_web, "?version=1")
    now = _live_words(sr2_web)
    assert "dying: 20 min left unless treated (dies 2053-01-01 00:30:00)" in now
    assert (
        "At 2053-01-01 00:30:00 (in 20 min): bleeds out from critical hit 1 to the chest (lung), unless treated"
        in now
    )


def test_version_zero_is_the_moment_the_character_was_made(df_web: Web) -> None:
    table = df_web.table
    assert table.advance(days=2).status_code == 202
    assert table.act({"type": "note", "text": "Arrived."}).status_code == 201
    assert "Game time then: 2020-01-01 00:00:00 (now 2020-01-03 00:00:00)" in _live_words(
        df_web, "?version=0"
    )


def test_players_never_travel_in_time(cp2020_web: Web) -> None:
    table = cp2020_web.table
    assert table.act(STUN_12).status_code == 201
    url = f"/characters/{cp2020_web.character_id}/"
    assert cp2020_web.player.get(f"{url}?version=1").status_code == 403
    assert (
        cp2020_web.player.get(f"{url}?version=1", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="live").status_code
        == 403
    )
    assert cp2020_web.gm.get(f"{url}?version=1").status_code == 200
    page = cp2020_web.player.get(url).content.decode()
    assert "Time travel" not in page and "?version=" not in page and "What the clock" not in page
