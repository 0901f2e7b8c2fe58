"""The walkthrough's status chips: each its own words when copied or read aloud ("stunned mortal", never
"stunnedmortal"), a crippled Cyberpunk limb by name and what stops its death saves, a dead card saying when."""

from __future__ import annotations

import html
import re

from tests.api.test_forecast import MORTAL, chest_hit
from tests.web.conftest import Web


def card_text(web: Web, client_name: str) -> str:
    """The card's state as copied from the board: tags dropped, no space added (a screen reader's words)."""
    client = getattr(web, client_name)
    board = client.get(f"/campaigns/{web.campaign_id}/").content.decode()
    start = board.index(f'<div class="card-state" id="card-{web.character_id}-state">')
    chips = board[start : board.index("</p>", start)]
    said = [chips]
    if 'class="next"' in board[start:]:
        next_at = board.index('<p class="next">', start)
        said.append(board[next_at : board.index("</p>", next_at)])
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", " ".join(said))).split())


def chips_text(page: str) -> str:
    chips = page.split('<p class="chips" id="status-chips">')[1].split("</p>")[0]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", chips)).split())


def test_a_crippled_cyberpunk_limb_is_named_and_its_saves_say_what_stops_them(cp2020_web: Web) -> None:
    crippled = {
        "type": "damage",
        "damage": 20,
        "location": "left_leg",
        "rolls": {"sever": [9], "stun_save": [3], "death_save": [2]},
    }
    assert cp2020_web.table.act(crippled).status_code == 201
    gm = card_text(cp2020_web, "gm")
    assert "left leg crippled" in gm
    assert (
        "On the clock at 2020-01-01 00:00:30 (in 30 s): next death save, until the left leg is stabilized"
        in gm
    )
    player = card_text(cp2020_web, "player")
    assert "left leg crippled" in player and "On the clock" not in player
    page = cp2020_web.player.get(f"/characters/{cp2020_web.character_id}/").content.decode()
    assert chips_text(page) == "left leg crippled"


def test_status_chips_read_apart(cp2020_web: Web) -> None:
    stunned = {
        "type": "damage",
        "damage": 30,
        "location": "torso",
        "rolls": {"stun_save": [10], "death_save": [1]},
    }
    assert cp2020_web.table.act(stunned).status_code == 201
    page = cp2020_web.gm.get(f"/characters/{cp2020_web.character_id}/").content.decode()
    assert chips_text(page) == "stunned mortal"
    assert "stunnedmortal" not in card_text(cp2020_web, "gm") and "stunned mortal" in card_text(
        cp2020_web, "gm"
    )


def test_a_dead_card_says_when_they_died(sr2_web: Web) -> None:
    assert sr2_web.table.act({**chest_hit(MORTAL), "open_wound": False}).status_code == 201
    assert sr2_web.table.advance(minutes=10).status_code == 202
    assert card_text(sr2_web, "gm").startswith("Ash played by")
    assert "dead: died at 2053-01-01 00:06:00" in card_text(sr2_web, "gm")
    # The player's dead page says when (test_dead_page.py): the player's card says it too.
    assert "dead: died at 2053-01-01 00:06:00" in card_text(sr2_web, "player")
