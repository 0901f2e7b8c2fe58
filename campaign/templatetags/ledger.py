"""Template tags of the web app."""

from __future__ import annotations

import uuid

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def idempotency_key() -> SafeString:
    """A hidden input with a fresh key for one rendering of a form that writes: the same form posted twice (a
    double click, a resent request) writes once. Each rendering has its own, so posting a form again on purpose,
    after the page has answered, writes again."""
    return format_html('<input type="hidden" name="key" value="{}">', uuid.uuid4())
