"""Answers for a service the server needs being down, wherever in a request it shows."""

from __future__ import annotations

import http.client
import logging
from collections.abc import Callable
from functools import cache
from typing import Any

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware, PolicyParts
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
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


@cache
def settled_policies() -> tuple[str, str]:
    """The policy and the report-only policy of the settings alone (no view's own, no nonce): the same strings for
    every such answer, built once per process."""
    return build_policy(), build_policy(report_only=True)


@receiver(setting_changed)
def _forget_settled_policies(*, setting: str, **kwargs: Any) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        settled_policies.cache_clear()


class ContentSecurityPolicy(CSPMiddleware):
    """django-csp's middleware with the settings' policy built once: django-csp builds both headers' strings from
    the settings on every answer (about 6% of the CPU of an action over HTTP). An answer whose view set a policy of
    its own (django-csp's decorators), or whose request drew a nonce, goes through django-csp as it is; any other
    gets the same headers under the same conditions, from `settled_policies`."""

    SETTLED = PolicyParts()
    DEBUG_PAGES = (http.client.INTERNAL_SERVER_ERROR, http.client.NOT_FOUND)

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        own = self.get_policy_parts(request=request, response=response)
        own_report_only = self.get_policy_parts(request=request, response=response, report_only=True)
        if own != self.SETTLED or own_report_only != self.SETTLED:
            return super().process_response(request, response)
        if response.status_code in self.DEBUG_PAGES and settings.DEBUG:
            return response
        policy, report_only = settled_policies()
        for header, value, exempt, setting in (
            (HEADER, policy, "_csp_exempt", "CONTENT_SECURITY_POLICY"),
            (HEADER_REPORT_ONLY, report_only, "_csp_exempt_ro", "CONTENT_SECURITY_POLICY_REPORT_ONLY"),
        ):
            excluded = tuple((getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES") or ())
            exempted = getattr(response, exempt, False) is not False
            if (
                value
                and header not in response
                and not exempted
                and not request.path_info.startswith(excluded)
            ):
                response[header] = value
        # As django-csp does: a nonce drawn after the header is written would be in no header.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response
