"""Issue 42: a dead character's page on the player's phone read "No symptoms. Should be healed: Nothing to recover
from". It says they died, when (the history's moment, which the player's history shows too) and, as far as the
reader may know it, of what; and no words of recovery."""

from __future__ import annotations

from tests.api.test_forecast import MORTAL, chest_hit
from tests.web.conftest import Web


def summary(html: str) -> str:
    """The page's "How ... is" panel."""
    return html.split('<div class="panel summary" id="summary">')[1].split("</div>")[0]


def test_a_dead_characters_page_says_when_they_died_and_nothing_of_recovery(sr2_web: Web) -> None:
    # A closed wound: the spine's mortal hit, undiagnosed, dead in 6 minutes.
    assert sr2_web.table.act({**chest_hit(MORTAL), "open_wound": False}).status_code == 201
    assert sr2_web.table.advance(minutes=10).status_code == 202
    url = f"/characters/{sr2_web.character_id}/"
    player = summary(sr2_web.player.get(url).content.decode())
    assert '<p class="dead-said" id="death-said">Ash died at 2053-01-01 00:06:00.</p>' in player
    for words in ("symptoms", "Should be healed", "Nothing to recover from", "Feels", "spine"):
        assert words not in player
    gm = summary(sr2_web.gm.get(url).content.decode())
    assert "Ash died at 2053-01-01 00:06:00 of critical hit 1 to the chest (spine).</p>" in gm
    assert "Should be healed" not in gm and "Feels" not in gm

    # The death taken back: the page is a living character's again.
    assert sr2_web.table.act({"type": "undo"}).status_code == 201
    player = summary(sr2_web.player.get(url).content.decode())
    assert "died" not in player and "Should be healed" in player


def test_a_dead_cyberpunk_characters_page_says_of_what_to_its_player(cp2020_web: Web) -> None:
    """Everything about the player's own Cyberpunk character is theirs (RULES.md): the cause too."""
    fatal = {
        "type": "damage",
        "damage": 60,
        "location": "torso",
        "rolls": {"stun_save": [1], "death_save": [1]},
    }
    assert cp2020_web.table.act(fatal).status_code == 201
    player = summary(cp2020_web.player.get(f"/characters/{cp2020_web.character_id}/").content.decode())
    assert (
        '<p class="dead-said" id="death-said">Ash died at 2020-01-01 00:00:00: wound track over 40.</p>'
        in player
    )


def test_a_death_taken_back_reads_in_words_in_the_history(sr2_web: Web) -> None:
    """Issue 42: the entry read "Death occurred [undone]". It reads as a person says it: the death, when, and when
    it was taken back, for the GM and the player alike, as every taken-back entry of the history does."""
    assert sr2_web.table.act({**chest_hit(MORTAL), "open_wound": False}).status_code == 201
    assert sr2_web.table.advance(minutes=10).status_code == 202
    assert sr2_web.table.advance(minutes=5).status_code == 202
    assert sr2_web.table.act({"type": "undo"}).status_code == 201
    for client in (sr2_web.gm, sr2_web.player):
        html = client.get(f"/characters/{sr2_web.character_id}/").content.decode()
        died = html.split("<strong>Died</strong>")[1].split("</li>")[0]
        assert '<span class="muted">2053-01-01 00:06:00' in died.split("</span>")[0] + "</span>"
        assert '<span class="chip taken-back">taken back at 2053-01-01 00:15:00</span>' in died
        assert "Death occurred" not in html and ">undone<" not in html
