"""Answers compressed when the client accepts it (GZipMiddleware), with their ETags and 304s still working.

Why compressing pages that carry CSRF tokens is safe here: docs/web.md, "Compression"."""

from __future__ import annotations

import gzip
import re

from django.test import Client

from tests.web.conftest import Web

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}


def _html(response: object) -> str:
    return gzip.decompress(response.content).decode()  # type: ignore[attr-defined]


def test_a_page_is_answered_gzip_to_a_client_that_accepts_it_and_plain_to_one_that_does_not(
    sr2_web: Web,
) -> None:
    board = f"/campaigns/{sr2_web.campaign_id}/"
    plain = sr2_web.gm.get(board)
    assert plain.status_code == 200 and not plain.has_header("Content-Encoding")
    assert "Accept-Encoding" in plain["Vary"]
    squeezed = sr2_web.gm.get(board, **GZIP)
    assert squeezed["Content-Encoding"] == "gzip" and "Accept-Encoding" in squeezed["Vary"]
    assert int(squeezed["Content-Length"]) == len(squeezed.content) < len(plain.content) / 3
    html = _html(squeezed)
    assert "<h1>Seattle 2053</h1>" in html
    # BREACH: the CSRF token is masked anew in every answer, so no two answers carry the same secret text.
    tokens = [
        set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', _html(sr2_web.gm.get(board, **GZIP))))
        for _ in range(2)
    ]
    assert tokens[0] and tokens[1] and tokens[0].isdisjoint(tokens[1])
    # A player's character page too.
    page = sr2_web.player.get(f"/characters/{sr2_web.character_id}/", **GZIP)
    assert page["Content-Encoding"] == "gzip" and "<h1>Ash</h1>" in _html(page)


def test_the_live_regions_etag_and_304_survive_compression(sr2_web: Web) -> None:
    for client, url in (
        (sr2_web.gm, f"/characters/{sr2_web.character_id}/"),
        (sr2_web.player, f"/characters/{sr2_web.character_id}/"),
        (sr2_web.gm, f"/campaigns/{sr2_web.campaign_id}/"),
        (sr2_web.player, f"/campaigns/{sr2_web.campaign_id}/"),
    ):
        first = client.get(url, **LIVE, **GZIP)
        assert first.status_code == 200 and first["Content-Encoding"] == "gzip", url
        etag = first["ETag"]
        assert etag.startswith('W/"'), etag  # weakened: the bytes are not the same as the plain answer's
        again = client.get(url, HTTP_IF_NONE_MATCH=etag, **LIVE, **GZIP)
        assert again.status_code == 304, url
        # The strong form the page itself puts in its polls (hx-headers) matches as well.
        assert client.get(url, HTTP_IF_NONE_MATCH=etag.removeprefix("W/"), **LIVE).status_code == 304
    sr2_web.table.act({"type": "note", "text": "Patched up"})
    url = f"/characters/{sr2_web.character_id}/"
    assert sr2_web.gm.get(url, HTTP_IF_NONE_MATCH=etag, **LIVE, **GZIP).status_code == 200


def test_the_apis_etag_survives_compression(sr2_web: Web) -> None:
    from rest_framework.authtoken.models import Token

    for user in (sr2_web.table.gm.user, sr2_web.table.player.user):
        api = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
        url = f"/api/characters/{sr2_web.character_id}/"
        first = api.get(url, **GZIP)
        assert first["Content-Encoding"] == "gzip" and first["ETag"].startswith('W/"')
        assert api.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **GZIP).status_code == 304
