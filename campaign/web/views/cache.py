"""The pages' side of caching and ETags (`campaign.http.conditional` holds what the API shares): the live region's cache
settings, a live poll answered with 304, the headers of a page that must not be stored."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import add_never_cache_headers

from campaign.http import conditional, limits
from rules.ruleset import RuleError

# The rendered live region of the character page is cached per role and version (see `_live_cache_key`).
LIVE_CACHE = conditional.PAGES
LIVE_CACHE_SECONDS = 300
LIVE_CACHE_FORMAT = 11  # bump when the live region's template or context changes
LIVE_KIND = f"live{LIVE_CACHE_FORMAT}"  # the character page's live region, under its stamp's key
ETAG_PENDING = conditional.ETAG_PENDING
SIGN_UPS_THROTTLED = "too many sign-ups from your address; try again in {minutes} minute{s}"


def _live(request: HttpRequest) -> bool:
    return bool(request.htmx) and request.htmx.target == "live"


def _etag_response(request: HttpRequest, etag: str) -> HttpResponse | None:
    """304 for the live region's own poll (htmx names the element that triggered it) when nothing changed."""
    if request.htmx.trigger == "live" and conditional.etag_matches(request, etag):
        response = HttpResponseNotModified()
        response["ETag"] = etag
        return response
    return None


def _live_changed(response: HttpResponse) -> HttpResponse:
    """The live region's answer when it changed: the parts of the page drawn apart from it (the party's section)
    fetch themselves again (`changed from:body`), in every tab and on every phone that polls, not only in the tab
    that acted. A player's live region changes only with what the player may see."""
    response["HX-Trigger"] = "changed"
    return response


def _with_etag(response: HttpResponse, etag: str) -> HttpResponse:
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache, private"
    return response


def _with_keyed_forms(response: HttpResponse) -> HttpResponse:
    """A page whose forms carry one-use idempotency keys is never stored: brought back by the back button from the
    browser's cache, its used keys would make a new advance, character or campaign look like a repeat, and the
    answer would say done while nothing was."""
    add_never_cache_headers(response)
    return response


def _limited(response: HttpResponse, error: RuleError | None) -> HttpResponse:
    """A refused form's page with the refusal's status (429 past a rate of campaign.http.limits, with Retry-After). A
    fragment for htmx keeps its 200: htmx swaps in no 4xx answer (base.html's `responseHandling`)."""
    if isinstance(error, limits.LimitReached) and response.status_code >= 400:
        response.status_code = error.status
        if error.retry_after:
            response["Retry-After"] = str(error.retry_after)
    return response
