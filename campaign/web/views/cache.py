"""The pages' caching and ETags: the live region's cache, ETags answered with 304, sealed player regions."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import add_never_cache_headers
from django.utils.html import escapejs
from django.utils.safestring import SafeString, mark_safe

from campaign import access, limits
from rules.ruleset import RuleError

# The rendered live region of the character page is cached per role and version (see `_live_cache_key`).
LIVE_CACHE = "pages"
LIVE_CACHE_SECONDS = 300
LIVE_CACHE_FORMAT = 8  # bump when the live region's template or context changes
# Where a player's live region holds its own ETag while it is rendered: the ETag is the digest of the region
# with this in its place (`_sealed_live`). Letters and digits only, so no filter changes it.
ETAG_PENDING = "etagpendingf3c9a1"
SIGN_UPS_THROTTLED = "too many sign-ups from your address; try again in {minutes} minute{s}"


def _live(request: HttpRequest) -> bool:
    return bool(request.htmx) and request.htmx.target == "live"


def _rendered(html: str) -> SafeString:
    """HTML that came out of `render_to_string` of our own templates, where Django escaped every value (names,
    notes, medics): it may go into another template as it is. Kept in the per-process "pages" cache between
    renderings, never anything a client sent. The only other change is `_sealed_live`'s hex ETag."""
    return mark_safe(html)  # safe: see the docstring


def _sealed_live(html: str) -> tuple[str, str]:
    """A player's live region and its ETag: the digest of what the player receives. Every number the server
    would otherwise put in a player's ETag counts events the player may not see (a GM note, a hidden roll)."""
    etag = access.digest_etag(html)
    return html.replace(ETAG_PENDING, escapejs(etag)), etag


def _etag_response(request: HttpRequest, etag: str) -> HttpResponse | None:
    """304 for the live region's own poll (htmx names the element that triggered it) when nothing changed."""
    if request.htmx.trigger == "live" and access.etag_matches(request, etag):
        response = HttpResponseNotModified()
        response["ETag"] = etag
        return response
    return None


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
    """A refused form's page with the refusal's status (429 past a rate of campaign.limits, with Retry-After). A
    fragment for htmx keeps its 200: htmx swaps in no 4xx answer (base.html's `responseHandling`)."""
    if isinstance(error, limits.LimitReached) and response.status_code >= 400:
        response.status_code = error.status
        if error.retry_after:
            response["Retry-After"] = str(error.retry_after)
    return response
