"""Nothing a player receives changes when only something hidden from the player happens (issue 14, item 4).

Versions, ETags, cursors and log positions used to count GM notes and the rolls on an undiagnosed critical hit, so
a player could tell from the gaps that something hidden had happened (and, by the 8-week cadence of the healing
rolls, what kind of hit it was). Each test snapshots every answer a player can ask for, body and headers, lets one
hidden thing happen, and asks again.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction

from campaign import presenters, services
from campaign.ledger import eventstore
from campaign.models import Character, Event
from campaign.selectors import history
from rules.dice import Dice
from rules.registry import get_ruleset
from tests.web.conftest import Web

LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}
HTMX = {"HTTP_HX_REQUEST": "true"}
# An undiagnosed critical hit to the ribs: its natural healing rolls are the clock's, and hidden from the player.
CRITICAL_RIBS = {"body_check": [4, 5, 1, 1, 1], "location": [2, 3], "critical": [6]}
# Per rendering, not per state: the masked CSRF token and the one-use keys of the forms (they differ on every load).
PER_RENDERING = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"'), 'name="csrfmiddlewaretoken" value="-"'),
    (re.compile(r'"X-CSRFToken": "[^"]+"'), '"X-CSRFToken": "-"'),
    (re.compile(r'name="key" value="[^"]+"'), 'name="key" value="-"'),
]


def _html(text: str) -> str:
    for pattern, replacement in PER_RENDERING:
        text = pattern.sub(replacement, text)
    return text


def _answer(response: Any) -> tuple[int, list[tuple[str, str]], str]:
    """Status, every header and the body (forms' per-rendering tokens blanked on full pages). Not the cookies, nor
    the `Expires` of a page that must not be stored: the wall-clock time of the answer."""
    headers = sorted(
        (name, value) for name, value in response.items() if name not in ("Set-Cookie", "Expires")
    )
    return response.status_code, headers, _html(response.content.decode())


def _snapshot(web: Web, etags: dict[str, str] | None = None) -> dict[str, Any]:
    """Every answer the player gets, as of now; with `etags`, each conditional read is asked again with them."""
    table, client, cid, campaign = web.table, web.player, web.character_id, web.campaign_id
    api = table.player
    first_page = api.get(f"/api/characters/{cid}/events/?limit=3").json()
    feed = api.get(f"/api/campaigns/{campaign}/events/").json()
    page = client.get(f"/characters/{cid}/").content.decode()
    older = re.search(r'href="(/characters/\d+/history/\?before=[^"]+)"', page).group(1)
    reads = {
        "character": (api, table.character_url(), {}),
        "characters": (api, f"/api/campaigns/{campaign}/characters/", {}),
        "campaign": (api, f"/api/campaigns/{campaign}/", {}),
        "clock": (api, f"/api/campaigns/{campaign}/clock/", {}),
        "history": (api, f"/api/characters/{cid}/events/", {}),
        "history page 1": (api, f"/api/characters/{cid}/events/?limit=3", {}),
        "history page 2": (api, f"/api/characters/{cid}/events/?limit=3&before={first_page['next']}", {}),
        "feed": (api, f"/api/campaigns/{campaign}/events/", {}),
        "feed after": (api, f"/api/campaigns/{campaign}/events/?after={feed['last_position']}", {}),
        "home": (client, "/", {}),
        "board": (client, f"/campaigns/{campaign}/", {}),
        "board live": (client, f"/campaigns/{campaign}/", LIVE),
        "page": (client, f"/characters/{cid}/", {}),
        "page live": (client, f"/characters/{cid}/", LIVE),
        "older entries": (client, older, HTMX),
        "older entries page": (client, older, {}),
    }
    out = {name: _answer(who.get(url, **headers)) for name, (who, url, headers) in reads.items()}
    for name in ("character", "board live", "page live"):
        if etags is not None:
            who, url, headers = reads[name]
            out[f"{name} if-none-match"] = _answer(who.get(url, HTTP_IF_NONE_MATCH=etags[name], **headers))
    return out


def _etags(snapshot: dict[str, Any]) -> dict[str, str]:
    return {name: dict(snapshot[name][1])["ETag"] for name in ("character", "board live", "page live")}


def _prepare(web: Web) -> None:
    """An undiagnosed critical hit (its healing roll due now) and more entries than the page shows at once: the
    wound and the hit, 60 changes of care, and 30 GM notes among them. The campaign's rolls do not wait for the rest
    (`rest_minutes` 0), so the hidden roll is due at the wound's second, and firing it moves no clock."""
    options = web.table.gm.client.patch(
        f"/api/campaigns/{web.campaign_id}/", {"options": {"rest_minutes": 0}}, format="json"
    )
    assert options.status_code == 200, options.content
    assert web.table.act({"type": "wound", "severity": "M", "rolls": CRITICAL_RIBS}).status_code == 201
    for i in range(60):
        assert web.table.act({"type": "set_care", "in_hospital": i % 2 == 0}).status_code == 201
        if i % 2:
            assert web.table.act({"type": "note", "text": f"GM note {i}"}).status_code == 201


def _fire_hidden_healing_roll(character_id: int) -> None:
    """What the clock does when it reaches the hit's healing roll, without moving the clock (whose advance the
    player may see): the roll alone, through the service's own write (no success, so it rolls again later)."""
    rules = get_ruleset("shadowrun2")
    with transaction.atomic():
        character = eventstore.lock_for_character(character_id).character
        timer = next(t for t in rules.timers(character.state) if t.kind == "critical_healing_roll")
        events = rules.fire(character.state, timer, Dice({"critical_healing": [1, 1, 1, 1, 1]}))
        state, before = services.core._evolved_in_place(rules, character, events)
        services.core._record(
            character,
            rules,
            events,
            state,
            before,
            cause="timer:test",
            actor="clock",
            wrapper=transaction.get_connection(),
        )


def _unchanged_for_the_player(web: Web, hidden: Any) -> None:
    _prepare(web)
    before = _snapshot(web)
    version, player_version = Character.objects.values_list("version", "player_version").get(
        pk=web.character_id
    )
    hidden()
    assert Character.objects.get(pk=web.character_id).version == version + 1  # it did happen ...
    assert Character.objects.get(pk=web.character_id).player_version == player_version
    after = _snapshot(web, _etags(before))
    for name, answer in before.items():
        assert after[name] == answer, name  # ... and the player cannot tell
    for name in ("character", "board live", "page live"):
        assert after[f"{name} if-none-match"][0] == 304, name


def test_a_gm_note_leaves_every_answer_to_the_player_byte_identical(sr2_web: Web) -> None:
    _unchanged_for_the_player(
        sr2_web, lambda: sr2_web.table.act({"type": "note", "text": "Lone Star pays the doctor"})
    )


def test_a_hidden_healing_roll_leaves_every_answer_to_the_player_byte_identical(sr2_web: Web) -> None:
    def hidden_roll() -> None:
        _fire_hidden_healing_roll(sr2_web.character_id)
        latest = Event.objects.filter(character_id=sr2_web.character_id).latest("version")
        assert (latest.type, latest.data["diagnosed"]) == ("CriticalHealingRolled", False)

    _unchanged_for_the_player(sr2_web, hidden_roll)


def test_a_players_numbers_count_only_what_the_player_sees(sr2_web: Web) -> None:
    """Versions 1 to 92 for the GM (a wound and its hit, 60 care changes, 30 notes); 1 to 62 for the player,
    without gaps."""
    _prepare(sr2_web)
    api = sr2_web.table.player
    assert api.get(sr2_web.table.character_url()).json()["version"] == 62
    assert sr2_web.table.gm.get(sr2_web.table.character_url()).json()["version"] == 92
    seen, before = [], None
    while True:
        query = f"?limit=7&before={before}" if before else "?limit=7"
        page = api.get(f"/api/characters/{sr2_web.character_id}/events/{query}").json()
        seen += [(e["version"], e["position"], e["actor"]) for e in page["events"]]
        before = page["next"]
        if before is None:
            break
        assert not before.isdigit()  # sealed
    assert seen == [(v, None, None) for v in range(62, 0, -1)]
    feed = api.get(f"/api/campaigns/{sr2_web.campaign_id}/events/").json()
    assert {(e["version"], e["position"]) for e in feed["events"]} == {(None, None)}
    assert api.get(f"/api/campaigns/{sr2_web.campaign_id}/").json()["version"] is None


def test_a_rebuild_counts_the_player_version_as_the_actions_did(sr2_web: Web) -> None:
    from campaign.ledger.projections import rebuild_all

    _prepare(sr2_web)
    _fire_hidden_healing_roll(sr2_web.character_id)
    assert sr2_web.table.act({"type": "undo"}).status_code == 201  # takes back the hidden roll: hidden too
    assert sr2_web.table.act({"type": "undo"}).status_code == 201  # takes back a note: hidden
    assert sr2_web.table.act({"type": "undo"}).status_code == 201  # takes back a care change: shown
    assert Character.objects.get(pk=sr2_web.character_id).player_version == 63
    rebuild_all()
    assert Character.objects.get(pk=sr2_web.character_id).player_version == 63
    character = Character.objects.select_related("campaign").get(pk=sr2_web.character_id)
    page = history.history_page(character, "player", before=None, limit=2)
    entries = presenters.entries(page, "player", character.campaign.rules)
    assert [(e["version"], e["type"], e["data"]) for e in entries] == [
        (63, "ActionUndone", {"types": ["CareChanged"]}),
        (62, "CareChanged", {"in_hospital": False}),
    ]
    assert entries[1]["voided"] is True


def test_each_rulesets_quick_shows_agrees_with_its_public_event(sr2_web: Web, monkeypatch: Any) -> None:
    """The rebuild counts a player's entries with `shows` (no data built); the pages show `public_event`'s. A year
    of the clock on two undiagnosed hits writes hidden healing rolls beside the wounds, care and healing a player
    sees."""
    from rules.ruleset import INERT_EVENTS

    _prepare(sr2_web)
    _fire_hidden_healing_roll(sr2_web.character_id)
    table = sr2_web.table
    assert table.act({"type": "wound", "severity": "S", "rolls": CRITICAL_RIBS}).status_code == 201
    assert table.advance(weeks=52).status_code == 202
    rules = get_ruleset("shadowrun2")
    rows = [eventstore.to_rule_event(row) for row in Event.objects.filter(character_id=sr2_web.character_id)]
    kinds = {(event.type, rules.shows(event)) for event in rows if event.type not in INERT_EVENTS}
    assert ("CriticalHealingRolled", False) in kinds and ("WoundTaken", True) in kinds
    for event in rows:
        if event.type not in INERT_EVENTS:
            assert rules.shows(event) == (rules.public_event(event) is not None), event
    for slug in ("cyberpunk2020", "darkfuture"):
        ruleset = get_ruleset(slug)
        for event in rows:  # any type but a note shows, whatever its data
            assert ruleset.shows(event) == (event.type != "NoteAdded")
