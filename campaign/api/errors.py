"""Every error is JSON: 400 `{field: [message]}`, 403/404/409/503 `{field or detail: [message]}`; 422
`{"needs_roll": {...}}` when a table-dice campaign needs a roll the GM did not give; 429 `{"detail": message}` with
`Retry-After` for a rate or the forecast's budget (campaign/http/limits.py, campaign/forecast/forecast_budget.py)."""

import logging
from typing import Any

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found
from rest_framework import status
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from campaign.forecast.forecast_budget import Refused
from campaign.http import outages
from rules.dice import RollNeeded
from rules.params import RuleError

log = logging.getLogger(__name__)
# The database's own words stay in the log: they name tables, constraints and values, and no user can act on them.
DATABASE_REFUSED = "the database refused the write; nothing was saved, try again later"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RollNeeded):
        # Table dice: the next roll the rules need, for the GM to roll and send with the action again.
        return Response({"needs_roll": exc.request.as_data()}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
    if isinstance(exc, RuleError):
        # A limit's rate (campaign.http.limits) says when to try again in the words and in Retry-After.
        retry_after = getattr(exc, "retry_after", None)
        # Several fields refused at once (a clock's rolls given together) each say their own.
        errors = getattr(exc, "errors", None) or {exc.field: exc.message}
        return Response(
            {field: [message] for field, message in errors.items()},
            status=getattr(exc, "status", status.HTTP_400_BAD_REQUEST),
            headers={"Retry-After": str(retry_after)} if retry_after else None,
        )
    if isinstance(exc, Refused):
        # The forecast's budget (docs/forecast.md): when to try again, in words and in the header.
        return Response(
            {"detail": exc.message},
            status=status.HTTP_429_TOO_MANY_REQUESTS,
            headers={"Retry-After": str(exc.retry_after)},
        )
    if isinstance(exc, ParseError):
        return Response({"body": [str(exc.detail)]}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RequestDataTooBig | SuspiciousOperation):
        return Response({"body": [str(exc) or "the request body is too large"]}, status=400)
    if service := outages.service_down(exc):
        # The database, the shared cache or the task queue unreachable: named, and nothing was done.
        log.error("%s unreachable in %s: %s", service, context.get("view"), exc)
        response = Response({service: [outages.DOWN[service]]}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        response["Retry-After"] = str(outages.RETRY_AFTER_SECONDS)
        return response
    if isinstance(exc, DatabaseError):
        # A full disk, a trigger, a lost connection: the request's transaction was rolled back as a whole.
        log.error("database error in %s: %s", context.get("view"), exc)
        return Response({"database": [DATABASE_REFUSED]}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
    return drf_exception_handler(exc, context)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404 for a URL no route matches: JSON under /api/ (an id that is not a number, a path not in the
    schema), the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "no such page of the API: see /api/schema/"}, status=404)
    return page_not_found(request, exception)
