"""The GM's summary of the latest advance on the board (docs/clock.md, "The advance's summary"): what the clock
rolled and what came of it, in words, from the events the advance wrote; never on a player's board."""

from __future__ import annotations

import re
from html import unescape
from random import Random
from typing import Any

import pytest

from campaign.models import Job
from rules.dice import Dice
from tests.conftest import ServerDice, make_table
from tests.web.conftest import make_web
from tests.web.test_clock_rolls import LIVE, STUNNED

pytestmark = pytest.mark.django_db


def summary_of(html: str) -> str:
    """The board's summary of the latest advance, its tags left out, as the GM reads it."""
    found = re.search(r'<div id="last-advance">(.*?)</div>', html, re.S)
    assert found, "no summary of the latest advance on the board"
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", found.group(1)))).strip()


def test_an_advance_with_rolls_given_at_the_table_says_them_and_what_came_of_them(
    django_user_model: Any,
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    critical = {
        "type": "wound",
        "severity": "S",
        "rolls": {"body_check": [6, 6, 1, 1, 1], "location": [3, 4], "critical": [1]},
    }
    assert table.act(critical).status_code == 201
    assert table.advance(minutes=11).status_code == 202
    job = Job.objects.get(campaign_id=table.campaign["id"])
    assert (
        table.gm.post(f"/api/jobs/{job.pk}/rolls/", {"critical_healing": [11, 1, 1, 1, 1]}).status_code == 200
    )
    assert table.gm.post(f"/api/jobs/{job.pk}/rolls/", {"physical_healing": [1] * 5}).status_code == 200
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    assert summary_of(web.gm.get(board, **LIVE).content.decode()) == (
        "The clock's last advance 2053-01-01 00:00:00 to 2053-01-01 00:11:00: Ash : 00:10:00: Healing roll for "
        "critical hit 1 to the chest (lung), 1 success (TN 11; dice 11, 1, 1, 1, 1), modifiers body -1, not in hospital +2, "
        "not treated +4: heals 2053-02-26 00:10:00. Rolled at the table: the natural healing roll (Body). 00:10:00: Healing roll for "
        "serious physical damage, 0 successes (TN 8; dice 1, 1, 1, 1, 1): no luck, next check 2053-01-21 "
        "00:10:00. Rolled at the table: the physical healing roll (Body)."
    )
    # The player's board says none of it: the dice and the critical hit's healing are the GM's (RULES.md).
    for page in (web.player.get(board).content.decode(), web.player.get(board, **LIVE).content.decode()):
        assert "last-advance" not in page and "last advance" not in page and "11, 1, 1" not in page


def test_an_advance_the_server_rolls_for_says_its_rolls(
    django_user_model: Any, server_dice: ServerDice
) -> None:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})
    assert table.act(STUNNED).status_code == 201

    class Saves(Dice):
        def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
            super().__init__({"stun_save": [8], **dict(entered or {})}, rng or Random(1), ask=ask)

    with server_dice.using(Saves):
        assert table.advance(rounds=2).status_code == 202
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    assert summary_of(web.gm.get(board, **LIVE).content.decode()) == (
        "The clock's last advance 2020-01-01 00:00:00 to 2020-01-01 00:00:06: Ash : 00:00:03: Stun save: rolled 8 "
        "against 6, failed. 00:00:06: Stun save: rolled 8 against 6, failed."
    )
    assert "last-advance" not in web.player.get(board).content.decode()
    # An advance taken back is no longer the board's latest; one that fired nothing says so.
    assert table.gm.post(f"/api/campaigns/{web.campaign_id}/clock/rewind/").status_code == 200
    assert 'id="last-advance"' not in web.gm.get(board, **LIVE).content.decode()
    assert table.advance(seconds=2).status_code == 202  # the first save is due at 00:00:03
    assert summary_of(web.gm.get(board, **LIVE).content.decode()) == (
        "The clock's last advance 2020-01-01 00:00:00 to 2020-01-01 00:00:02: nothing on the clock happened."
    )
