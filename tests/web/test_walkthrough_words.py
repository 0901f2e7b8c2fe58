"""A GM's walkthrough in the browser with table dice: four things the pages said that were not so.

- Dark Future: a stun lasts until the clock's next advance (RULES.md, "Recovery (house)"); the card, the page and the
  board said "in 1 s", the second after the wound at which the clock ends it.
- Dark Future's body diagram carried the hit-location legend (light to deadly / severed): its CON has no hit
  location, and the diagram colours a disabled limb alone.
- Cyberpunk: a character healed to 0 real damage read "Healing rate: not treated: no healing".
- Shadowrun: a treatment's completion named "critical hit 1" where every other line names its place and part; a
  player reads the part only of a diagnosed hit (RULES.md, diagnosis secrecy).
"""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.web.conftest import Web
from tests.web.test_advance_summary import summary_of

pytestmark = pytest.mark.django_db

LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}

# Dark Future, CON 8: a damage roll of 6 + weapon 2 = 8, row 8-9: 3 CON lost, 5 of 8 (51-75%): a stun roll of 6 stuns.
STUNNING_WOUND = {"type": "damage", "weapon_damage": 2, "rolls": {"damage": [6], "stun": [6]}}


def text_of(html: str) -> str:
    """A page as its reader reads it: no tags, entities read, spaces as one."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def test_a_dark_future_stun_ends_at_the_clocks_next_advance_on_every_surface(df_web: Web) -> None:
    assert df_web.table.act(STUNNING_WOUND).status_code == 201
    board = df_web.gm.get(f"/campaigns/{df_web.campaign_id}/").content.decode()
    gm_page = df_web.gm.get(f"/characters/{df_web.character_id}/").content.decode()
    player_page = df_web.player.get(f"/characters/{df_web.character_id}/").content.decode()
    line = "at 2020-01-01 00:00:01 (at the clock's next advance): is no longer stunned"
    # The card's "On the clock" and the board's list of what the clock does next.
    assert f"On the clock {line}" in text_of(board)
    assert f"Ash {line}" in text_of(board)
    # The GM's page: what the clock will do; both pages: when the stun should be over.
    assert f"A{line[1:]}" in text_of(gm_page)
    for page in (gm_page, player_page):
        assert "stun wears off: 2020-01-01 00:00:01 (at the clock's next advance)" in text_of(page)
    for page in (board, gm_page, player_page):
        assert "in 1 s" not in page
    # A stun the house rule makes last 30 s counts its seconds.
    changed = df_web.table.gm.client.patch(
        f"/api/campaigns/{df_web.campaign_id}/", {"options": {"stun_lasts_seconds": 30}}, format="json"
    )
    assert changed.status_code == 200, changed.content
    page = df_web.gm.get(f"/characters/{df_web.character_id}/").content.decode()
    assert "At 2020-01-01 00:00:30 (in 30 s): is no longer stunned" in text_of(page)


def test_dark_futures_body_legend_lists_only_the_disabled_limb(df_web: Web) -> None:
    """Cyberpunk's hit locations keep their legend (tests/web/test_body_diagram.py)."""
    page = df_web.player.get(f"/characters/{df_web.character_id}/").content.decode()
    legend = page.split('<ul class="legend">', 1)[1].split("</ul>", 1)[0]
    assert re.findall(r"<li>.*?</li>", legend) == ['<li><span class="swatch sev-3"></span>disabled limb</li>']
    assert "deadly / severed" not in page and "serious / crippled" not in page


def healing_rate(web: Web, client_name: str) -> str | None:
    page = getattr(web, client_name).get(f"/characters/{web.character_id}/").content.decode()
    found = re.search(r"<dt>Healing rate</dt><dd>([^<]*)</dd>", page)
    return found.group(1) if found else None


def test_a_cyberpunk_character_healed_to_nothing_reads_no_stale_healing_rate(cp2020_web: Web) -> None:
    table = cp2020_web.table
    # Body 6 (BTM -2): 9 - 2 = 7 real points on the torso, the stun save made.
    hit = {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [1]}}
    assert table.act(hit).status_code == 201
    for reader in ("gm", "player"):
        assert healing_rate(cp2020_web, reader) == "not treated: no healing"
    assert table.act({"type": "treat", "skill": "medical_tech", "total": 15}).status_code == 201
    assert healing_rate(cp2020_web, "player") == "1 point/day"
    assert table.advance(days=7).status_code in (200, 201, 202)
    assert table.gm.get(table.character_url()).json()["sheet"]["damage"] == 0
    for reader in ("gm", "player"):
        assert healing_rate(cp2020_web, reader) is None
        page = getattr(cp2020_web, reader).get(f"/characters/{cp2020_web.character_id}/").content.decode()
        assert "not treated" not in page
    # A minor wound (3 - 2 = 1 point) stops counting on its own: no treatment is missing.
    minor = {"type": "damage", "damage": 3, "location": "torso", "rolls": {"stun_save": [1]}}
    assert table.act(minor).status_code == 201
    assert healing_rate(cp2020_web, "gm") == "not needed: minor wounds stop counting on their own"


# Shadowrun, Body 5: a Serious wound, the Body check failed; a 2d6 of 3 + 4 on the chest is the ribs, Mortal
# (critical 2), dying at 00:30 (death time 3).
WOUND = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]}
MEDIC = {"medic": "Doc", "skill": 3, "critical_hit": "ch1"}
DONE = "Treatment of critical hit 1 to the chest (ribs) done: falls from Mortal to Crippling (6 boxes)"


def test_a_finished_treatment_names_its_hit_by_place_and_part_where_the_reader_may_know_it(
    sr2_web: Web,
) -> None:
    table = sr2_web.table
    assert table.act({"type": "wound", "severity": "S", "rolls": WOUND}).status_code == 201
    before_diagnosis = table.gm.get(table.character_url()).json()["version"]
    assert table.act({"type": "diagnose", **MEDIC, "rolls": {"diagnosis": [6, 1, 1]}}).status_code == 201
    treated = table.act({"type": "treat", **MEDIC, "rolls": {"treatment": [9, 11, 1]}})  # 2 successes: 5 min
    assert treated.status_code == 201, treated.content
    assert table.advance(minutes=5).status_code == 202
    url = f"/characters/{sr2_web.character_id}/"
    assert f"{DONE}: its death timer stops. No longer dying." in sr2_web.gm.get(url).content.decode()
    # The live region (its entries cached a role each) says the same to the player, who knows the diagnosed part.
    for headers in ({}, LIVE):
        player = sr2_web.player.get(url, **headers).content.decode()
        assert f"{DONE}: its death timer stops." in player and "No longer dying" not in player
    # The board's summary of the advance that finished it.
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/", **LIVE).content.decode()
    assert f"00:05:00: {DONE}: its death timer stops. No longer dying." in summary_of(board)
    # The diagnosis taken back: the hit is undiagnosed again, and the taken-back completion names no part.
    assert table.act({"type": "revert", "to_version": before_diagnosis}).status_code == 201
    for headers in ({}, LIVE):
        player = sr2_web.player.get(url, **headers).content.decode()
        assert "Treatment of critical hit 1 done, taken back." in player
        assert "ribs" not in player


def test_a_red_outline_on_the_body_says_it_is_the_whole_body_not_every_limb(df_web: Web) -> None:
    """A second walkthrough: a Dark Future knock-out outlined every limb red beside "No wounds on the body." and a
    legend whose one red is a disabled limb; the outline is the whole body's CON, and is now said so."""
    page = df_web.gm.get(f"/characters/{df_web.character_id}/").content.decode()
    assert "Red outline" not in page
    never_a_limb = df_web.table.gm.client.patch(
        f"/api/campaigns/{df_web.campaign_id}/", {"options": {"limb_check_target": 6}}, format="json"
    )
    assert never_a_limb.status_code == 200, never_a_limb.content
    for _ in range(2):
        answer = df_web.table.act(STUNNING_WOUND)
        assert answer.status_code == 201, answer.content
    gm_view = df_web.table.gm.get(df_web.table.character_url()).json()
    assert gm_view["sheet"]["disabled_limbs"] == [], gm_view["sheet"]
    for client in (df_web.gm, df_web.player):
        page = text_of(client.get(f"/characters/{df_web.character_id}/").content.decode())
        assert "Red outline: the whole body is badly hurt" in page
        assert "No wounds on the body." in page


def test_a_dark_future_chip_names_the_disabled_limb(df_web: Web) -> None:
    """The chip said "limb disabled" where the page said "Left leg disabled": the GM had to open the page."""
    wound = {
        "type": "damage",
        "weapon_damage": 10,
        "rolls": {"damage": [5], "ko": [1], "stun": [6], "limb_check": [6], "limb": [6], "side": [1]},
    }
    assert df_web.table.act(wound).status_code == 201
    board = text_of(df_web.gm.get(f"/campaigns/{df_web.campaign_id}/").content.decode())
    assert "left leg disabled" in board and "limb disabled" not in board
