"""The player's page as an installable app (docs/notifications.md, "The app"): its manifest, its service worker
served where its scope covers every page, the opt-in offered where push is set up, and the pages' polling pace."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from django.test import Client

from campaign.management.commands.vapid_keys import new_pair
from tests.web.conftest import Web

STATIC = Path(__file__).resolve().parents[2] / "static"


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def test_the_manifest_names_the_app_its_start_and_icons_that_exist() -> None:
    answer = Client().get("/manifest.webmanifest")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/manifest+json"
    manifest = answer.json()
    assert (manifest["name"], manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "Wound Ledger",
        "/",
        "/",
        "standalone",
    )
    for icon in manifest["icons"]:
        width, height = png_size(STATIC / icon["src"].removeprefix("/static/"))
        assert f"{width}x{height}" == icon["sizes"]
    assert {icon["sizes"] for icon in manifest["icons"]} == {"192x192", "512x512"}
    assert [icon.get("purpose") for icon in manifest["icons"]].count("maskable") == 1


def test_the_service_worker_is_served_from_the_root_so_its_scope_covers_every_page() -> None:
    answer = Client().get("/service-worker.js")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/javascript" and answer["Cache-Control"] == "no-cache"
    assert answer.content == (STATIC / "js" / "service-worker.js").read_bytes()


def test_a_players_page_registers_the_worker_and_a_gms_board_does_not(sr2_web: Web) -> None:
    player = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    gm_page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert 'data-service-worker="/service-worker.js"' in player
    assert "data-service-worker" not in board and "data-service-worker" not in gm_page
    for html in (player, board, gm_page):
        assert '<link rel="manifest" href="/manifest.webmanifest">' in html
        assert 'data-poll-every="2" data-poll-idle-after="300" data-poll-idle-every="60"' in html


def test_the_live_regions_poll_by_the_script_not_by_a_timer_of_htmx(sr2_web: Web) -> None:
    player = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    for html in (player, board):
        assert 'hx-trigger="poll, refresh from:body" data-poll' in html
        assert "every 2s" not in html


def test_the_opt_in_is_offered_only_where_push_is_set_up(sr2_web: Web, settings: Any) -> None:
    page = f"/characters/{sr2_web.character_id}/"
    assert 'id="push"' not in sr2_web.player.get(page).content.decode()

    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = new_pair()
    player = sr2_web.player.get(page).content.decode()
    gm = sr2_web.gm.get(page).content.decode()
    assert "Tell me on this phone" in player and "When Ash is wounded, dying, stabilized" in player
    assert "data-campaign" not in player
    assert f'data-campaign="{sr2_web.campaign_id}"' in gm
    assert "News of every character of Seattle 2053" in gm
    assert sr2_web.table.act({"type": "note", "text": "the past"}).status_code == 201
    assert 'id="push"' not in sr2_web.gm.get(f"{page}?version=0").content.decode()  # time travel: no opt-in
