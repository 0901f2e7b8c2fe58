"""Answers for a service the server needs being down, wherever in a request it shows."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import transaction
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


class AnswerBeforeCommit:
    """A write commits only with an answer that is not a server error: its view, and the rendering of its answer,
    run in one transaction, rolled back when the answer is a 5xx. A wound that failed while its answer was drawn
    (a date the calendar did not have) had committed its events and answered 500, so a retry without a key wrote
    them twice; now the 500 means that nothing was written, and a retry is safe."""

    SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in self.SAFE_METHODS:
            return self.get_response(request)
        with transaction.atomic():
            # Django has turned any exception of the view into a response by now, rendered.
            response = self.get_response(request)
            if response.status_code >= 500:
                transaction.set_rollback(True)
        return response
