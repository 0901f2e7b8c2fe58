"""Answers for a service the server needs being down, wherever in a request it shows."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
CACHE_DOWN = "the server's shared cache (CACHE_URL) is unreachable; nothing was done, try again shortly"


class SharedCacheDown:
    """A 503 that says so when the shared cache (`CACHE_URL`, Redis) is unreachable: the log-in throttles count
    there, so a log-in cannot be checked without it. Refused rather than let through unthrottled."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, RedisError):
            return None
        log.error("shared cache unreachable in %s: %s", request.path, exception)
        if request.path.startswith("/api/"):
            return JsonResponse({"cache": [CACHE_DOWN]}, status=503)
        return HttpResponse(f"<!doctype html><title>Try again shortly</title><p>{CACHE_DOWN}</p>", status=503)
