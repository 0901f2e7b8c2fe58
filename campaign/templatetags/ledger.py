"""Template tags of the web app."""

from __future__ import annotations

import uuid
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from rules.registry import get_ruleset

register = template.Library()


@register.simple_tag
def idempotency_key() -> SafeString:
    """A hidden input with a fresh key for one rendering of a form that writes: the same form posted twice (a
    double click, a resent request) writes once. Each rendering has its own, so posting a form again on purpose,
    after the page has answered, writes again."""
    return format_html('<input type="hidden" name="key" value="{}">', uuid.uuid4())


@register.filter
def ruleset_title(slug: str) -> str:
    """A ruleset's name as players know it ("Shadowrun 2nd Edition: ..."), not its slug."""
    return get_ruleset(slug).title


@register.filter
def get(mapping: Any, key: str) -> Any:
    """`mapping|get:key`: a value whose key is built in the template (a form's posted input, an error's field)."""
    return mapping.get(key, "") if mapping else ""
