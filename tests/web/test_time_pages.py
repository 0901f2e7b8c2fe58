"""Issue 16 on the pages: a clock advance's firings as one history entry, entries taken back together as one,
time travel's "make this the present", the board's take-back and stop-at-a-status buttons."""

from __future__ import annotations

import re

import pytest

from campaign.models import Campaign, Character
from tests.rules.cyberpunk2020.helpers import MAKE_DYING
from tests.web.conftest import Web

pytestmark = pytest.mark.django_db


def _page(web: Web, query: str = "") -> str:
    response = web.gm.get(f"/characters/{web.character_id}/{query}")
    assert response.status_code == 200
    return response.content.decode()


def test_an_advance_s_firings_show_as_one_expandable_entry(cp2020_web: Web) -> None:
    table = cp2020_web.table
    stun = {"type": "damage", "damage": 12, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}}
    assert table.act(stun).status_code == 201  # 10 stun points: one heals every hour
    assert table.advance(hours=3).status_code == 202
    page = _page(cp2020_web)
    assert (
        "<summary>Clock, 2020-01-01 00:00 to 2020-01-01 03:00: 3 entries: stun damage healed 3 times</summary>"
        in page
    )


def test_make_this_the_present_takes_back_what_came_after_as_one_group(cp2020_web: Web) -> None:
    table = cp2020_web.table
    assert table.act({"type": "note", "text": "Version one."}).status_code == 201
    assert table.act(MAKE_DYING).status_code == 201  # versions 2-4
    assert table.act({"type": "note", "text": "Version five."}).status_code == 201
    past = _page(cp2020_web, "?version=1")
    assert "Make this the present" in past
    key = re.search(r'name="key" value="([^"]+)"', past.split("revert-form")[1]).group(1)
    response = cp2020_web.gm.post(
        f"/characters/{cp2020_web.character_id}/act/revert/", {"p_to_version": "1", "key": key}
    )
    assert response.status_code == 302
    character = Character.objects.get(pk=cp2020_web.character_id)
    assert (character.version, character.dying) == (6, False)
    page = _page(cp2020_web)
    assert re.search(
        r'<li class="entry-group voided"><details id="group-\d+"><summary>Taken back: 4 entries:', page
    )
    assert "Make this the present" not in page  # only in the past


def test_the_board_offers_take_back_and_stop_at_a_status(cp2020_web: Web) -> None:
    table = cp2020_web.table
    assert table.act(MAKE_DYING).status_code == 201
    board = f"/campaigns/{cp2020_web.campaign_id}/"
    page = cp2020_web.gm.get(board).content.decode()
    assert "Take back the latest advance" in page and 'name="stop_on" value="status"' in page
    response = cp2020_web.gm.post(
        f"{board}clock/", {"unit": "hours", "amount": "1", "stop_on": "status"}, HTTP_HX_REQUEST="true"
    )
    assert "Stopped at 2020-01-01 00:00:30: Ash dies." in response.content.decode()
    response = cp2020_web.gm.post(f"{board}clock/rewind/", HTTP_HX_REQUEST="true")
    assert "Advance taken back: the clock is back at 2020-01-01 00:00:00" in response.content.decode()
    assert Campaign.objects.get(pk=cp2020_web.campaign_id).game_time == 0
    assert Character.objects.get(pk=cp2020_web.character_id).alive is True
