"""Issue 42's walkthrough of the board: a card shows what the character page shows of a critical hit that the GM must
know at a glance. An accepted crippling hit says so on the card (it was drawn as any crippling hit, as if the Accept
had done nothing); an undiagnosed hit says, on the GM's card, that it awaits a diagnosis, while the player's card
stays as it was (its "not diagnosed" where the lethality would be, nothing more)."""

from __future__ import annotations

import re

from tests.web.conftest import Web
from tests.web.test_board import board
from tests.web.test_who_can_act import CRIPPLED_SHOULDER, MORTAL_RIBS

ACCEPTED = '<span class="chip">accepted: crippled for good</span>'
NOT_DIAGNOSED = '<span class="chip unknown">not diagnosed</span>'


def card_of(web: Web, html: str) -> str:
    start = html.index(f'id="card-{web.character_id}"')
    return html[start : html.index("</article>", start)]


def hits_of(card: str) -> str:
    found = re.search(r'<ul class="mini-hits">(.*?)</ul>', card, re.S)
    assert found is not None, card
    return found.group(1)


def test_an_accepted_crippling_hit_says_so_on_the_card_and_the_page(sr2_web: Web) -> None:
    table = sr2_web.table
    assert table.act({"type": "wound", "severity": "M", "rolls": CRIPPLED_SHOULDER}).status_code == 201
    seen = table.act({"type": "diagnose", "medic": "Doc", "skill": 1, "critical_hit": "ch1"})
    assert seen.status_code == 201, seen.content
    assert ACCEPTED not in board(sr2_web)

    accepted = table.act({"type": "accept", "critical_hit": "ch1"})
    assert accepted.status_code == 201, accepted.content

    # The card (the GM's and the player's alike: the Accept is in the player's history too) and the page.
    for client in (sr2_web.gm, sr2_web.player):
        hits = hits_of(card_of(sr2_web, board(sr2_web, client)))
        assert "Left arm" in hits and ACCEPTED in hits, hits
        page = client.get(f"/characters/{sr2_web.character_id}/").content.decode()
        assert "accepted: crippled for good" in page
    assert table.gm.get(f"/api/characters/{sr2_web.character_id}/").json()["sheet"]["critical_hits"][0][
        "accepted"
    ]


def test_the_gms_card_flags_an_undiagnosed_hit_and_the_players_card_stays_as_it_was(sr2_web: Web) -> None:
    table = sr2_web.table
    wound = {"type": "wound", "severity": "S", "open_wound": False, "rolls": MORTAL_RIBS}
    assert table.act(wound).status_code == 201

    gm_hits = hits_of(card_of(sr2_web, board(sr2_web)))
    assert "Chest" in gm_hits and '<span class="chip">mortal</span>' in gm_hits
    assert NOT_DIAGNOSED in gm_hits, gm_hits

    # The player's card: the location and "not diagnosed", as before; nothing of the lethality or the part.
    player_card = card_of(sr2_web, board(sr2_web, sr2_web.player))
    player_hits = hits_of(player_card)
    assert player_hits.count(NOT_DIAGNOSED) == 1 and "Chest" in player_hits
    for secret in ("mortal", "ribs", "undiagnosed"):
        assert secret not in player_card, secret

    # Once a medic finds it, the GM's card no longer flags it.
    found = {
        "type": "diagnose",
        "medic": "Doc",
        "skill": 4,
        "critical_hit": "ch1",
        "rolls": {"diagnosis": [5, 1, 1, 1]},
    }
    assert table.act(found).status_code == 201
    assert NOT_DIAGNOSED not in hits_of(card_of(sr2_web, board(sr2_web)))
