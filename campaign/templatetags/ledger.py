"""Template tags of the web app."""

from __future__ import annotations

import uuid
from typing import Any

from django import template
from django.conf import settings
from django.utils.html import format_html
from django.utils.safestring import SafeString

from campaign.web import fragments

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
def get(mapping: Any, key: str) -> Any:
    """`mapping|get:key`: a value whose key is built in the template (a form's posted input, an error's field)."""
    return mapping.get(key, "") if mapping else ""


@register.simple_tag(takes_context=True)
def app_attributes(context: template.Context) -> SafeString:
    """<body>'s data for static/js: the live regions' polling pace in seconds (poll.js; settings POLL_*), and on a
    player's page the service worker to register (app.js). Only there: a worker controls every page of its browser
    from then on, and the GM's board needs none."""
    worker = context.get("service_worker")
    return format_html(
        'data-poll-every="{}" data-poll-idle-after="{}" data-poll-idle-every="{}"{}',
        settings.POLL_SECONDS,
        settings.POLL_IDLE_AFTER_SECONDS,
        settings.POLL_IDLE_SECONDS,
        format_html(' data-service-worker="{}"', worker) if worker else "",
    )
