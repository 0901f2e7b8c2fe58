"""Who may see and do what, persona by persona, endpoint by endpoint."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.models import Event
from tests.conftest import Persona, Table

pytestmark = pytest.mark.django_db


def _urls(table: Table) -> dict[str, str]:
    cid, chid = table.campaign["id"], table.character["id"]
    return {
        "campaign": f"/api/campaigns/{cid}/",
        "members": f"/api/campaigns/{cid}/members/",
        "characters": f"/api/campaigns/{cid}/characters/",
        "clock": f"/api/campaigns/{cid}/clock/",
        "feed": f"/api/campaigns/{cid}/events/",
        "export": f"/api/campaigns/{cid}/export/",
        "character": f"/api/characters/{chid}/",
        "history": f"/api/characters/{chid}/events/",
        "actions": f"/api/characters/{chid}/actions/",
    }


READABLE_BY_PLAYER = ("campaign", "characters", "clock", "feed", "character", "history")
GM_ONLY_READS = ("members", "export")


@pytest.mark.parametrize("who", ["stranger", "other_player"])
@pytest.mark.parametrize("what", [*READABLE_BY_PLAYER, *GM_ONLY_READS])
def test_outsiders_get_404_for_anything_in_the_campaign(sr2: Table, who: str, what: str) -> None:
    persona: Persona = getattr(sr2, who)
    assert persona.get(_urls(sr2)[what]).status_code == 404


@pytest.mark.parametrize("who", ["stranger", "other_player"])
@pytest.mark.parametrize(
    ("what", "body"),
    [
        ("actions", {"type": "note", "text": "x"}),
        ("characters", {"name": "Spy", "attributes": {"body": 3}}),
        ("members", {"username": "stranger", "role": "gm"}),
        ("clock", {"advance": {"hours": 1}}),
    ],
)
def test_outsiders_cannot_write_and_learn_nothing(
    sr2: Table, who: str, what: str, body: dict[str, Any]
) -> None:
    before = Event.objects.count()
    assert getattr(sr2, who).post(_urls(sr2)[what], body).status_code == 404
    assert Event.objects.count() == before


@pytest.mark.parametrize("what", [*READABLE_BY_PLAYER, *GM_ONLY_READS])
def test_anonymous_clients_are_refused(sr2: Table, what: str) -> None:
    # 401 with a `WWW-Authenticate: Token` challenge: the first authentication the API takes is a token.
    answer = sr2.anonymous.get(_urls(sr2)[what])
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize("what", READABLE_BY_PLAYER)
def test_the_player_reads_their_own_character_and_campaign(sr2: Table, what: str) -> None:
    assert sr2.player.get(_urls(sr2)[what]).status_code == 200


@pytest.mark.parametrize("what", GM_ONLY_READS)
def test_the_player_cannot_read_gm_pages(sr2: Table, what: str) -> None:
    assert sr2.player.get(_urls(sr2)[what]).status_code == 403


@pytest.mark.parametrize(
    ("what", "body"),
    [
        ("actions", {"type": "note", "text": "x"}),
        ("actions", {"type": "undo"}),
        ("characters", {"name": "Alt", "attributes": {"body": 3}}),
        ("members", {"username": "stranger", "role": "player"}),
        ("clock", {"advance": {"hours": 1}}),
    ],
)
def test_the_player_may_not_act(sr2: Table, what: str, body: dict[str, Any]) -> None:
    before = Event.objects.count()
    response = sr2.player.post(_urls(sr2)[what], body)
    assert response.status_code == 403
    assert "only a GM" in response.json()["detail"]
    assert Event.objects.count() == before


def test_a_player_does_not_see_another_players_character(sr2: Table) -> None:
    other = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/", {"name": "Brick", "attributes": {"body": 6}}
    )
    assert sr2.player.get(f"/api/characters/{other.json()['id']}/").status_code == 404
    assert [c["name"] for c in sr2.player.get(_urls(sr2)["characters"]).json()] == ["Ash"]


def test_the_player_view_never_carries_gm_only_fields(sr2: Table) -> None:
    sr2.act({"type": "note", "text": "the sniper is her brother"})
    character = sr2.player.get(_urls(sr2)["character"]).json()
    for key in ("death_at", "timers", "notes"):
        assert key not in character
    history = sr2.player.get(_urls(sr2)["history"]).json()
    assert "the sniper is her brother" not in str(history)
    feed = sr2.player.get(_urls(sr2)["feed"]).json()
    assert "the sniper is her brother" not in str(feed)


def test_time_travel_is_for_the_gm(sr2: Table) -> None:
    sr2.act({"type": "note", "text": "x"})
    assert sr2.player.get(f"{_urls(sr2)['character']}?version=0").status_code == 403
    assert sr2.gm2.get(f"{_urls(sr2)['character']}?version=0").status_code == 200
