"""A GM's action posted the usual way answered without DRF's request machinery, with DRF's answer byte for byte.

An action over HTTP spent about a tenth of the worker's CPU (11% of its instructions) in DRF's per-request machinery
(the `Request` wrapper, its authentication and parser plumbing, content negotiation, `Response` and its finalising)
around a view that parses, calls the service and renders (docs/PERFORMANCE.md). A POST with an API token, a JSON body, no query string
and an `Accept` that takes anything (what clients send) is answered here with the same token check, parser,
service, exception handler and renderer; any other request, and any refusal before the action runs (the token, the
access check, the body, the key), goes to the DRF view as it is, which answers it as it always has. Nothing is
written before the action runs, so handing a request over is safe. `tests/test_plain_action.py` compares the two.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer

from campaign.api.authentication import TokenAuthentication
from campaign.api.errors import exception_handler
from campaign.api.parsers import StrictJSONParser

JSON = JSONRenderer()
Checks = Callable[..., Callable[[], Any]]


def plain_request(request: HttpRequest) -> bool:
    """What DRF would answer with its first renderer, parse with the JSON parser and authenticate by token (or
    refuse), with no query string (`?format=`) to read."""
    meta = request.META
    length = meta.get("CONTENT_LENGTH") or "0"
    return (
        request.method == "POST"
        and meta.get("CONTENT_TYPE") == StrictJSONParser.media_type
        and not meta.get("QUERY_STRING")
        and meta.get("HTTP_ACCEPT", "*/*") == "*/*"
        and length.isdigit()
        and int(length) <= settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        and meta.get("HTTP_AUTHORIZATION", "")[:6].lower() == "token "
    )


def answered_plainly(view: Any, status: int) -> Callable[[Checks], Callable[..., HttpResponseBase]]:
    """A plain Django view answering `plain_request`s for `view` (a DRF view, whose schema, CSRF exemption and name
    carry over); any other request goes to `view`. The decorated function gets the request, the user of its token,
    its parsed body and the view's arguments; it checks what `view` checks before acting, and returns the action
    (a function of nothing, returning the answer's data, answered with `status`). Raising there hands the request
    to `view`."""
    drf = view.cls
    if (
        drf.throttle_classes
        or drf.permission_classes != [IsAuthenticated]
        or drf.authentication_classes[:1] != [TokenAuthentication]
    ):
        # What this path checks of a request is DRF's token check (first, as DRF tries it) and IsAuthenticated.
        raise ImproperlyConfigured(
            f"{drf.__name__}: a throttle, permission or authentication the plain path skips"
        )
    allow = ", ".join(drf().allowed_methods)

    def answer(data: Any, status: int, headers: Any = ()) -> HttpResponse:
        # As DRF's view answers: its JSON renderer's bytes, the view's Vary and Allow, in DRF's order.
        response = HttpResponse(JSON.render(data), status=status, content_type=JSON.media_type)
        for name, value in headers:
            response[name] = value
        response["Vary"] = "Accept"
        response["Allow"] = allow
        return response

    def decorator(checks: Checks) -> Callable[..., HttpResponseBase]:
        @functools.wraps(view)
        def plain(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not plain_request(request):
                return view(request, *args, **kwargs)
            try:
                authenticated = TokenAuthentication().authenticate(request)  # type: ignore[arg-type]
                if authenticated is None:
                    return view(request, *args, **kwargs)
                user = authenticated[0]
                body = StrictJSONParser().parse(io.BytesIO(request.body))
                act = checks(request, user, body, *args, **kwargs)
            except Exception:  # a refusal before the action: DRF's own answer to it
                return view(request, *args, **kwargs)
            request.user = user  # as DRF's authentication sets it
            try:
                data = act()
            except Exception as error:
                refused = exception_handler(error, {"view": view, "args": args, "kwargs": kwargs})
                if refused is None:
                    raise
                return answer(
                    refused.data, refused.status_code, (h for h in refused.items() if h[0] != "Content-Type")
                )
            return answer(data, status)

        return plain

    return decorator
