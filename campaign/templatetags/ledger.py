"""Template tags of the web app."""

from __future__ import annotations

import uuid
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from campaign.web import fragments
from rules.registry import get_ruleset

register = template.Library()


@register.simple_tag(takes_context=True)
def idempotency_key(context: template.Context) -> SafeString:
    """A hidden input with a fresh key for one rendering of a form that writes: the same form posted twice (a
    double click, a resent request) writes once. Each rendering has its own, so posting a form again on purpose,
    after the page has answered, writes again. In a fragment kept in a cache, a mark that each answer replaces with
    a fresh key (`campaign.web.fragments`)."""
    key = fragments.KEY_MARK if context.get(fragments.KEYS_LATER) else uuid.uuid4()
    return format_html('<input type="hidden" name="key" value="{}">', key)


@register.filter
def ruleset_title(slug: str) -> str:
    """A ruleset's name as players know it ("Shadowrun 2nd Edition: ..."), not its slug."""
    return get_ruleset(slug).title


@register.filter
def get(mapping: Any, key: str) -> Any:
    """`mapping|get:key`: a value whose key is built in the template (a form's posted input, an error's field)."""
    return mapping.get(key, "") if mapping else ""
