"""The player's page as an installable app (docs/notifications.md, "The app"): its web manifest and its service
worker, which keeps the last page seen for when the phone is offline and shows the pushes.

The service worker is served from the site's root, not from /static/: a worker controls only the pages under the
path it is served from."""

from __future__ import annotations

import functools
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_http_methods

BACKGROUND = "#12161b"  # static/css/app.css's --bg: the splash screen while the app starts


@require_http_methods(["GET", "HEAD"])
def manifest(request: HttpRequest) -> JsonResponse:
    icons = [
        {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": static("icons/icon-maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ]
    answer = JsonResponse(
        {
            "name": "Wound Ledger",
            "short_name": "Wounds",
            "description": "Your characters' wounds and recovery, and news of them on this phone",
            "start_url": reverse("home"),
            "scope": "/",
            "display": "standalone",
            "background_color": BACKGROUND,
            "theme_color": BACKGROUND,
            "icons": icons,
        },
        content_type="application/manifest+json",
    )
    answer["Cache-Control"] = "no-cache"
    return answer


@functools.cache
def _worker_source() -> bytes:
    return (Path(settings.BASE_DIR) / "static" / "js" / "service-worker.js").read_bytes()


@require_http_methods(["GET", "HEAD"])
def service_worker(request: HttpRequest) -> HttpResponse:
    """`/service-worker.js`: asked again by the browser at each visit (no-cache), so a new version takes over."""
    answer = HttpResponse(_worker_source(), content_type="text/javascript")
    answer["Cache-Control"] = "no-cache"
    return answer
