"""The character page's cached live region and lazy parts: never another viewer's rendering, never stale."""

from __future__ import annotations

import re

from django.core.cache import caches

from campaign.models import Character
from campaign.selectors import access
from campaign.web import views
from tests.web.conftest import Web, logged_in

HTMX = {"HTTP_HX_REQUEST": "true"}
LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}
GM_NOTE = "The fixer sold Ash out to Lone Star"
POISON = "<section id='live'>POISONED RENDERING</section>"


def _url(web: Web) -> str:
    return f"/characters/{web.character_id}/"


def _poison_gm_entry(web: Web) -> None:
    """Put a marker in the cache under the GMs' key for the character as it is now."""
    stamp = access.character_stamp(web.table.gm.user, web.character_id)
    caches[views.LIVE_CACHE].set(views._live_cache_key(stamp), (POISON, stamp.etag))


def test_a_gm_rendering_is_shared_by_the_gms_and_never_served_to_a_player(sr2_web: Web) -> None:
    assert sr2_web.table.act({"type": "note", "text": GM_NOTE}).status_code == 201
    assert GM_NOTE in sr2_web.gm.get(_url(sr2_web), **LIVE).content.decode()
    _poison_gm_entry(sr2_web)
    # The GMs' key is used for the GM (this is what makes the marker a fair test) and for the second GM ...
    for client in (sr2_web.gm, logged_in(sr2_web.table.gm2.user)):
        assert "POISONED" in client.get(_url(sr2_web), **LIVE).content.decode()
        assert "POISONED" in client.get(_url(sr2_web)).content.decode()
    # ... and never for the player, whose answers are their own.
    for headers in ({}, LIVE):
        assert "POISONED" not in sr2_web.player.get(_url(sr2_web), **headers).content.decode()
    player_html = sr2_web.player.get(_url(sr2_web), **LIVE).content.decode()
    assert GM_NOTE not in player_html and "GM notes" not in player_html


def test_what_a_gm_sees_depends_on_the_role_not_on_the_user(sr2_web: Web) -> None:
    """Why one rendering may serve every GM: rendered afresh for each of two GMs, the region is the same."""
    table = sr2_web.table
    wound = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]}
    assert table.act({"type": "wound", "severity": "S", "rolls": wound}).status_code == 201
    assert table.act({"type": "note", "text": GM_NOTE}).status_code == 201
    regions = []
    for user in (table.gm.user, table.gm2.user):
        caches[views.LIVE_CACHE].clear()
        regions.append(logged_in(user).get(_url(sr2_web), **LIVE).content.decode())
    assert GM_NOTE in regions[0] and "ribs" in regions[0]
    assert regions[0] == regions[1]
    caches[views.LIVE_CACHE].clear()
    api = [client.get(f"/api/characters/{sr2_web.character_id}/").json() for client in (table.gm, table.gm2)]
    assert api[0] == api[1]


def test_the_player_page_after_the_gm_read_it_holds_no_gm_only_value(sr2_web: Web) -> None:
    table = sr2_web.table
    wound = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]}
    assert table.act({"type": "wound", "severity": "S", "rolls": wound}).status_code == 201
    assert table.act({"type": "note", "text": GM_NOTE}).status_code == 201
    gm_html = sr2_web.gm.get(_url(sr2_web)).content.decode()
    assert "ribs" in gm_html and GM_NOTE in gm_html
    for headers in ({}, LIVE):
        html = sr2_web.player.get(_url(sr2_web), **headers).content.decode()
        for secret in ("ribs", "mortal", GM_NOTE, "body_check", "Body check"):
            assert secret not in html, secret


def _poll(web: Web, etag: str) -> tuple[int, str, str]:
    response = web.gm.get(_url(web), HTTP_IF_NONE_MATCH=etag, **LIVE)
    return response.status_code, response.get("ETag", ""), response.content.decode()


def test_every_new_event_note_undo_and_clock_firing_changes_the_cached_region(sr2_web: Web) -> None:
    table = sr2_web.table
    first = sr2_web.gm.get(_url(sr2_web), **LIVE)
    etag = first["ETag"]
    assert _poll(sr2_web, etag)[0] == 304

    assert table.act({"type": "note", "text": "first note"}).status_code == 201
    code, etag, html = _poll(sr2_web, etag)
    assert code == 200 and "first note" in html
    assert _poll(sr2_web, etag)[0] == 304

    assert table.act({"type": "undo"}).status_code == 201
    code, etag, html = _poll(sr2_web, etag)
    assert code == 200 and "No notes." in html and 'class="notes"' not in html
    # The note's entry, rendered (and cached) before the undo, now shows as taken back.
    assert html.count('<li class="event voided"') == 1
    assert '<span class="chip taken-back">taken back at 2053-01-01 00:00:00</span>' in html

    # A stun wound heals by itself: the clock fires its timer and the region shows the firing.
    wound = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]}
    assert table.act({"type": "wound", "severity": "S", "rolls": wound}).status_code == 201
    code, etag, before = _poll(sr2_web, etag)
    assert code == 200
    version = Character.objects.get(pk=sr2_web.character_id).version
    assert table.advance(hours=1).status_code == 202
    assert Character.objects.get(pk=sr2_web.character_id).version > version  # a timer fired (the death)
    code, etag, after = _poll(sr2_web, etag)
    assert code == 200 and after != before and "chip dead" in after
    # The full page shows the same region as the poll.
    page = sr2_web.gm.get(_url(sr2_web)).content.decode()
    assert "chip dead" in page


def test_a_clock_advance_without_firings_changes_the_game_date(sr2_web: Web) -> None:
    first = sr2_web.player.get(_url(sr2_web), **LIVE)
    date = re.search(r"Game time: <strong>([^<]+)<", first.content.decode()).group(1)
    assert sr2_web.table.advance(minutes=10).status_code == 202
    changed = sr2_web.player.get(_url(sr2_web), HTTP_IF_NONE_MATCH=first["ETag"], **LIVE)
    assert changed.status_code == 200
    assert re.search(r"Game time: <strong>([^<]+)<", changed.content.decode()).group(1) != date


def test_action_forms_are_fetched_one_at_a_time_by_a_gm_only(sr2_web: Web) -> None:
    page = sr2_web.gm.get(_url(sr2_web)).content.decode()
    assert 'id="action-wound"' in page and 'id="form-wound"' not in page
    url = f"/characters/{sr2_web.character_id}/forms/wound/"
    form = sr2_web.gm.get(url, **HTMX)
    assert form.status_code == 200 and 'id="form-wound"' in form.content.decode()
    # Without JavaScript the link opens the page with that form in it.
    plain = sr2_web.gm.get(url)
    assert plain.status_code == 302 and plain["Location"].endswith("?form=wound#form-wound")
    opened = sr2_web.gm.get(f"{_url(sr2_web)}?form=wound").content.decode()
    assert 'id="form-wound"' in opened
    assert sr2_web.player.get(url, **HTMX).status_code == 403
    assert sr2_web.player.get(f"{_url(sr2_web)}?form=wound").status_code == 403
    assert sr2_web.stranger.get(url, **HTMX).status_code == 404
    assert sr2_web.gm.get(f"/characters/{sr2_web.character_id}/forms/nope/", **HTMX).status_code == 404


def test_older_history_entries_load_on_demand_and_keep_notes_from_players(sr2_web: Web) -> None:
    table = sr2_web.table
    for i in range(views.HISTORY_LIMIT + 5):
        assert table.act({"type": "note", "text": f"note {i}"}).status_code == 201
    wound = {"body_check": [6, 6, 6, 6, 6]}
    assert table.act({"type": "wound", "severity": "L", "rolls": wound}).status_code == 201
    page = sr2_web.gm.get(_url(sr2_web)).content.decode()
    assert page.count('<li class="event') == views.HISTORY_LIMIT and "Older entries" in page
    older_url = re.search(r'href="(/characters/\d+/history/\?before=\d+)"', page).group(1)
    older = sr2_web.gm.get(older_url, **HTMX).content.decode()
    assert "#1</span>" in older and "Older entries" not in older
    assert sr2_web.gm.get(older_url).status_code == 200  # a page of its own without htmx
    # The player sees the wound alone, so has no older entries; nor may they use the GM's version cursor.
    player_page = sr2_web.player.get(_url(sr2_web)).content.decode()
    assert player_page.count('<li class="event') == 1 and "Older entries" not in player_page
    assert "Note added" not in player_page
    for headers in ({}, HTMX):
        assert sr2_web.player.get(older_url, **headers).status_code == 404
    assert sr2_web.stranger.get(older_url).status_code == 404
    assert sr2_web.gm.get(f"/characters/{sr2_web.character_id}/history/?before=x").status_code == 404


def test_an_old_entry_taken_back_later_shows_as_taken_back(sr2_web: Web) -> None:
    table = sr2_web.table
    assert table.act({"type": "note", "text": "taken back"}).status_code == 201
    assert table.act({"type": "undo"}).status_code == 201
    for i in range(views.HISTORY_LIMIT):
        assert table.act({"type": "note", "text": f"note {i}"}).status_code == 201
    page = sr2_web.gm.get(_url(sr2_web)).content.decode()
    older_url = re.search(r'href="(/characters/\d+/history/\?before=\d+)"', page).group(1)
    older = sr2_web.gm.get(older_url, **HTMX).content.decode()
    assert 'class="event voided"' in older


def test_cached_history_entries_are_each_roles_own(sr2_web: Web) -> None:
    assert sr2_web.table.act({"type": "note", "text": GM_NOTE}).status_code == 201
    sr2_web.gm.get(_url(sr2_web), **LIVE)
    cache = caches[views.LIVE_CACHE]
    entry_keys = [key.split(":", 2)[2] for key in cache._cache if ":entry" in key]
    assert entry_keys and all(key.endswith(":gm") for key in entry_keys)
    for key in entry_keys:
        cache.set(key, "<li>POISONED ENTRY</li>")
    # A new version renders its new entry and takes the others from the GMs' cache, for either GM ...
    assert sr2_web.table.act({"type": "note", "text": "another"}).status_code == 201
    assert "POISONED ENTRY" in sr2_web.gm.get(_url(sr2_web), **LIVE).content.decode()
    assert "POISONED ENTRY" in logged_in(sr2_web.table.gm2.user).get(_url(sr2_web), **LIVE).content.decode()
    # ... and never for the player.
    assert "POISONED" not in sr2_web.player.get(_url(sr2_web), **LIVE).content.decode()


def test_a_rebuild_is_news_to_the_page_and_the_api_though_no_event_was_added(sr2_web: Web) -> None:
    """A rebuild after a rules fix can change a state without a new event: every ETag and cached rendering of the
    campaign's characters changes with it (the campaign's projection epoch)."""
    from campaign.ledger.projections import rebuild_all

    table = sr2_web.table
    assert table.act({"type": "note", "text": GM_NOTE}).status_code == 201
    page = sr2_web.gm.get(_url(sr2_web), **LIVE)
    api = table.gm.get(table.character_url())
    assert sr2_web.gm.get(_url(sr2_web), HTTP_IF_NONE_MATCH=page["ETag"], **LIVE).status_code == 304
    assert table.gm.get(table.character_url(), HTTP_IF_NONE_MATCH=api["ETag"]).status_code == 304
    _poison_gm_entry(sr2_web)
    rebuild_all()
    fresh = sr2_web.gm.get(_url(sr2_web), HTTP_IF_NONE_MATCH=page["ETag"], **LIVE)
    assert fresh.status_code == 200 and fresh["ETag"] != page["ETag"]
    assert "POISONED" not in fresh.content.decode() and GM_NOTE in fresh.content.decode()
    assert table.gm.get(table.character_url(), HTTP_IF_NONE_MATCH=api["ETag"]).status_code == 200
