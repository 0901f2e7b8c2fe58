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
from django.db import DatabaseError, transaction
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase

from campaign.http import outages
from campaign.ledger.reachable import database_unreachable

log = logging.getLogger(__name__)
CACHE_DOWN = outages.DOWN[outages.CACHE]


class ServicesDown:
    """A 503 naming the service when the database, the shared cache (`CACHE_URL`, Redis) or the task queue is
    unreachable wherever a view meets it (campaign/http/outages.py): JSON under /api/, our own page elsewhere, never
    Django's bare 500. The log-in throttles count in the shared cache, so a log-in cannot be checked without it:
    refused rather than let through unthrottled."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        service = outages.service_down(exception)
        if service is None:
            return None
        log.error("%s unreachable: %s", service, exception)
        return outages.down_response(request, service)


class AnswerBeforeCommit:
    """A write commits only with an answer that is not a server error: its view, and the rendering of its answer,
    run in one transaction, rolled back when the answer is a 5xx. A wound that failed while its answer was drawn
    (a date the calendar did not have) had committed its events and answered 500, so a retry without a key wrote
    them twice; now the 500 means that nothing was written, and a retry is safe.

    The transaction is the write's first touch of the database: a database that cannot be reached is a 503 saying
    so here, before any view ran; one lost at the commit is a 503 saying the outcome is unknown."""

    SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in self.SAFE_METHODS:
            return self.get_response(request)
        answered: HttpResponse | None = None
        try:
            with transaction.atomic():
                # Django has turned any exception of the view into a response by now, rendered.
                answered = self.get_response(request)
                if answered.status_code >= 500:
                    transaction.set_rollback(True)
        except DatabaseError as error:
            if not database_unreachable(error):
                raise
            log.error("database unreachable around %s %s: %s", request.method, request.path, error)
            # Lost at the commit of an answer that was not an error: the write may or may not have been made.
            lost = outages.LOST_AT_COMMIT if answered is not None and answered.status_code < 500 else None
            return outages.down_response(request, outages.DATABASE, lost)
        return answered


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
