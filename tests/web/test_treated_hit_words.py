"""A GM's walkthrough: a Shadowrun critical hit treated still read as bleeding on the character's page ("A wound in the
chest bleeds through the clothes", "internal bleeding"). A treated open wound is dressed; a hit no longer active has
no symptom (rules/shadowrun2/tables.py, `SYMPTOMS`; docs/rules/shadowrun2.md, "Symptoms")."""

from __future__ import annotations

import html
import re

from tests.web.conftest import Web
from tests.web.test_player_secrets import DIAGNOSE_CH1

# A Serious open wound whose critical hit is the chest's lung, Mortal (internal bleeding), dead in 30 minutes.
LUNG = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
BLEEDING = "chest: A wound in the chest bleeds through the clothes; every breath hurts and comes short."
DRESSED = "chest: A dressed wound in the chest; every breath hurts and comes short."


def words(page: str) -> str:
    """The page as a reader reads it, from "How Ash is" to the history."""
    shown = page[page.index('id="summary"') : page.index('id="history"')]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", shown)).split())


def test_a_treated_shadowrun_hit_reads_dressed_not_bleeding(sr2_web: Web) -> None:
    table, url = sr2_web.table, f"/characters/{sr2_web.character_id}/"
    assert table.act({"type": "wound", "severity": "S", "rolls": LUNG}).status_code == 201
    diagnose = DIAGNOSE_CH1
    assert table.act(diagnose).status_code == 201
    for client in (sr2_web.gm, sr2_web.player):
        assert BLEEDING in words(client.get(url).content.decode())
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 3,
        "rolls": {"treatment": [9, 13, 2]},
    }
    assert table.act(treat).status_code == 201
    assert (
        table.advance(minutes=10).status_code == 202
    )  # the treatment completes at 00:05: crippling, 6 boxes

    gm = words(sr2_web.gm.get(url).content.decode())
    assert f"Feels physical damage: Serious (6 boxes) {DRESSED}" in gm
    assert "Chest · lung · crippling · TN +3 · internal bleeding, treated A dressed wound in the chest;" in gm
    player = words(sr2_web.player.get(url).content.decode())
    assert DRESSED in player
    for reader in (gm, player):
        assert "bleeds" not in reader


def test_a_shadowrun_hit_no_longer_active_has_no_symptom(sr2_web: Web) -> None:
    crippling = {
        "type": "wound",
        "severity": "S",
        "rolls": {"body_check": [6, 1, 1, 1, 1], "location": [3, 4], "critical": [6]},
    }
    table, url = sr2_web.table, f"/characters/{sr2_web.character_id}/"
    assert table.act(crippling).status_code == 201
    assert table.act({"type": "diagnose", "medic": "Doc", "skill": 4}).status_code == 201
    assert "every breath hurts" in words(sr2_web.gm.get(url).content.decode())
    replaced = {"type": "replace", "critical_hit": "ch1", "replacement": "cyberware"}
    assert table.act(replaced).status_code == 201
    for client in (sr2_web.gm, sr2_web.player):
        shown = words(client.get(url).content.decode())
        assert "Chest · collarbone · crippling · replaced by cyberware" in shown
        assert "every breath hurts" not in shown and "bleeds" not in shown
    hit = table.gm.get(table.character_url()).json()["sheet"]["critical_hits"][0]
    assert (hit["status"], hit["symptom"]) == ("replaced", "")
