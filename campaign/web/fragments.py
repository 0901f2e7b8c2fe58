"""Fragments rendered once and kept in the "pages" cache whose forms still need what is fresh in every answer.

A cached fragment may hold forms, but never a CSRF token or a one-use idempotency key: it is rendered with marks in
their places (`marked_context`), and every answer that serves it fills them (`filled`): the request's CSRF token,
and a new key for each form.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpRequest
from django.middleware.csrf import get_token

# Letters and digits only, so that no filter or escaping changes them; never a value a client can send back.
CSRF_MARK = "csrfmark7d21c4e9"
KEY_MARK = "keymark5b8e03fa"
# The context variable that makes `{% idempotency_key %}` write KEY_MARK instead of a key.
KEYS_LATER = "idempotency_keys_later"


def marked_context(**context: Any) -> dict[str, Any]:
    """A template context whose `{% csrf_token %}` and `{% idempotency_key %}` write marks (`filled` replaces)."""
    return {**context, "csrf_token": CSRF_MARK, KEYS_LATER: True}


def filled(html: str, request: HttpRequest) -> str:
    """`html` with the request's CSRF token and a fresh idempotency key for each form in place of the marks."""
    if CSRF_MARK in html:
        html = html.replace(CSRF_MARK, get_token(request))
    if KEY_MARK not in html:
        return html
    parts = html.split(KEY_MARK)
    out = [parts[0]]
    for part in parts[1:]:
        out.append(str(uuid.uuid4()))
        out.append(part)
    return "".join(out)
