"""The API's content negotiation answers as DRF's does (campaign/api/negotiation.py)."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request

from campaign.api.negotiation import ContentNegotiation

RENDERERS = [JSONRenderer(), BrowsableAPIRenderer()]


@pytest.mark.parametrize(
    ("path", "accept"),
    [
        ("/api/characters/1/", None),
        ("/api/characters/1/", "*/*"),
        ("/api/characters/1/", "application/json"),
        ("/api/characters/1/", "text/html"),
        ("/api/characters/1/", "text/html, */*; q=0.8"),
        ("/api/characters/1/", "*/*; q=0.5"),
        ("/api/characters/1/?format=api", "*/*"),
        ("/api/characters/1/?format=json", None),
    ],
)
def test_the_renderer_and_media_type_are_drfs(path: str, accept: str | None) -> None:
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(RequestFactory().get(path, **headers))
    chosen = ContentNegotiation().select_renderer(request, RENDERERS)
    drf = DefaultContentNegotiation().select_renderer(request, RENDERERS)
    assert (type(chosen[0]), chosen[1]) == (type(drf[0]), drf[1])


def test_a_format_suffix_goes_through_drf() -> None:
    request = Request(RequestFactory().get("/api/characters/1/"))
    chosen = ContentNegotiation().select_renderer(request, RENDERERS, format_suffix="api")
    assert (type(chosen[0]), chosen[1]) == (BrowsableAPIRenderer, "text/html")
