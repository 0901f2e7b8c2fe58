"""Conditional answers, shared by the pages and the API: what is drawn of a character for one audience, kept in the
"pages" cache per stamp (`access.CharacterStamp.cache_key`) with its ETag, and whether the client has it already.

A GM's ETag is the stamp's: its versions count every event a GM sees. A player's is the digest of what the player
receives (`digest_etag`): the stamp's numbers count events the player may not see (a GM note, a hidden roll),
so a hidden event makes a new key but the same answer and the same ETag."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.utils.html import escapejs
from django.utils.http import parse_etags
from django.utils.safestring import SafeString, mark_safe

from campaign.models import GM
from campaign.selectors import access

# The per-process cache of renderings and answers (settings.CACHES), never anything a client sent.
PAGES = "pages"
# Where a player's rendering holds its own ETag while it is drawn: the ETag is the digest of the HTML with this in
# its place (`sealed_html`). Letters and digits only, so no filter changes it.
ETAG_PENDING = "etagpendingf3c9a1"

Answer = TypeVar("Answer")


def etag_matches(request: Any, etag: str) -> bool:
    """Whether the request's If-None-Match names `etag`, by the weak comparison RFC 9110 prescribes for it: an
    answer sent compressed carries its ETag weakened (`W/"..."`, GZipMiddleware), and a client sends that back."""
    header = request.headers.get("If-None-Match")
    if not header:
        return False
    return etag.removeprefix("W/") in (tag.removeprefix("W/") for tag in parse_etags(header))


def digest_etag(answer: Any) -> str:
    """A player's ETag: the digest of what the player receives (JSON data or rendered HTML). The stamp's numbers
    count events the player may not see; a digest changes exactly when the answer does."""
    if isinstance(answer, str):
        raw = answer.encode()
    else:
        raw = orjson.dumps(answer, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return f'"p{hashlib.sha256(raw).hexdigest()[:32]}"'


def rendered(html: str) -> SafeString:
    """HTML that came out of `render_to_string` of our own templates, where Django escaped every value (names,
    notes, medics): it may go into another template as it is. Kept in the per-process "pages" cache between
    renderings, never anything a client sent; the only change made to it after is `sealed_html`'s hex ETag and the
    board's marks filled with a fresh CSRF token and keys (`web.fragments.filled`). The one place the pages mark
    text safe."""
    return mark_safe(html)  # safe: see the docstring


def sealed_html(html: str) -> tuple[str, str]:
    """A player's rendering and its ETag: the digest of what the player receives, put in `ETAG_PENDING`'s place."""
    etag = digest_etag(html)
    return html.replace(ETAG_PENDING, escapejs(etag)), etag


def sealed_data(data: Any) -> tuple[Any, str]:
    """A player's JSON answer and its ETag, the digest of the answer."""
    return data, digest_etag(data)


def stamp_matches(request: Any, stamp: access.CharacterStamp) -> bool:
    """A GM's client has what the stamp says is current: answered 304 before anything is drawn or looked up."""
    return stamp.role == GM and etag_matches(request, stamp.etag)


def kept_for_stamp(
    stamp: access.CharacterStamp,
    kind: str,
    draw: Callable[[], Answer],
    seal: Callable[[Answer], tuple[Answer, str]],
    timeout: Any = DEFAULT_TIMEOUT,
) -> tuple[Answer, str]:
    """What `draw` makes of the character now for the stamp's audience, and its ETag, kept under the stamp's key of
    `kind`: drawn (and the character loaded by it) on a miss only. `seal` gives a player's answer its ETag."""
    cache = caches[PAGES]
    key = stamp.cache_key(kind)
    found = cache.get(key)
    if found is None:
        answer = draw()
        found = (answer, stamp.etag) if stamp.role == GM else seal(answer)
        cache.set(key, found, timeout)
    return found
