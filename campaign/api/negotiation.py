"""DRF's content negotiation, with its answer to a client that takes anything worked out without parsing.

Most clients send `Accept: */*` (curl, http.client sends none, which DRF reads as `*/*`) and no `?format=`: DRF then
parses the header and walks every renderer to pick the first one and its media type, about 4% of an action over
HTTP in the worker's profile (docs/PERFORMANCE.md). Any other request goes through DRF's negotiation as it is."""

from __future__ import annotations

from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class ContentNegotiation(DefaultContentNegotiation):
    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: Any = None
    ) -> tuple[BaseRenderer, str]:
        meta = request.META
        takes_anything = meta.get("HTTP_ACCEPT", "*/*") == "*/*" and not meta.get("QUERY_STRING")
        if takes_anything and renderers and not format_suffix:
            return renderers[0], renderers[0].media_type  # what DRF's loop answers for `*/*`
        return super().select_renderer(request, renderers, format_suffix)
