"""A campaign's hooks, where its notifications go out of the game (docs/notifications.md): a GM adds one (a
Discord channel's webhook, or a signed webhook), removes it, sends it a test; a hook that keeps failing is switched
off (`outbox.hook_switched_off`, the deliveries' doing). Each is an event of the campaign's stream (`HookAdded`, `HookRemoved`, `HookSwitchedOff`), naming the hook's
host but never its URL: a Discord webhook's address is its password, and the export carries the stream."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from campaign.ledger import eventstore
from campaign.ledger.events import HOOK_ADDED, HOOK_REMOVED, HOOK_SWITCHED_OFF
from campaign.models import Campaign, Delivery, Hook
from campaign.notify import outbox, ssrf, words
from campaign.services.core import ServiceError
from rules.event_schema import Int, ListOf, OneOf, Text, event
from rules.text import given

HOOKS_PER_CAMPAIGN = 10
URL_LENGTH = 2000
DISCORD_HOSTS = ("discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com")
NOT_DISCORD = (
    "expected a Discord webhook's address, https://discord.com/api/webhooks/...: in Discord, a channel's "
    "Settings, Integrations, Webhooks, Copy Webhook URL"
)
ALREADY_A_HOOK = (
    "expected an address no hook of the campaign sends to for this audience yet: one already does"
)
TOO_MANY = "expected at most {limit} hooks in a campaign: remove one first"
HOOK_ID, HOST = Int(1, 2**63 - 1), Text(255)
# What the hooks' events hold, as an import checks them (campaign/transfer/checks.py).
HOOK_EVENT_SCHEMAS = {
    HOOK_ADDED: event(
        hook=HOOK_ID,
        kind=OneOf((Hook.DISCORD, Hook.WEBHOOK)),
        host=HOST,
        audience=OneOf(words.AUDIENCES),
        events=ListOf(OneOf(words.KINDS), max_items=len(words.KINDS)),
    ),
    HOOK_REMOVED: event(hook=HOOK_ID, kind=OneOf((Hook.DISCORD, Hook.WEBHOOK)), host=HOST),
    HOOK_SWITCHED_OFF: event(
        hook=HOOK_ID, kind=OneOf((Hook.DISCORD, Hook.WEBHOOK)), host=HOST, reason=Text(2000)
    ),
}


def _choice(field: str, value: Any, choices: Sequence[str]) -> str:
    if value not in choices:
        raise ServiceError(field, f"expected one of {', '.join(choices)}, got {given(value)}")
    return value


def _events(value: Any) -> list[str]:
    """The kinds of notice a hook tells: every one named once, among `words.KINDS`; none given, the defaults."""
    if value is None:
        return list(words.DEFAULT_KINDS)
    if not isinstance(value, list) or not value or not all(isinstance(kind, str) for kind in value):
        raise ServiceError("events", f"expected a list of one or more of {', '.join(words.KINDS)}")
    unknown = [kind for kind in value if kind not in words.KINDS]
    if unknown:
        raise ServiceError(
            "events", f"unknown {', '.join(map(repr, unknown))}; expected any of {', '.join(words.KINDS)}"
        )
    return [kind for kind in words.KINDS if kind in value]


def _url(kind: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ServiceError("url", "expected the address to send to, https://...")
    if len(value) > URL_LENGTH:
        raise ServiceError("url", f"expected at most {URL_LENGTH} characters, got {len(value)}")
    try:
        parts = ssrf.checked_url(value)
    except ssrf.Refused as refused:
        raise ServiceError("url", refused.message) from None
    discord = parts.hostname in DISCORD_HOSTS and parts.path.startswith("/api/webhooks/")
    # HOOKS_ALLOW_PRIVATE lets a Discord hook point at a local fake (tests, development).
    if kind == Hook.DISCORD and not discord and not ssrf.private_allowed():
        raise ServiceError("url", NOT_DISCORD)
    return value.strip()


def hook_create(*, campaign: Campaign, kind: Any, url: Any, audience: Any, events: Any, actor: str) -> Hook:
    """A GM adds a hook: checked (a 400 naming the field), written with `HookAdded`. A signed webhook gets its
    secret here, and the caller shows it once."""
    kind = _choice("kind", kind, (Hook.DISCORD, Hook.WEBHOOK))
    url = _url(kind, url)
    audience = _choice("audience", audience, words.AUDIENCES)
    chosen = _events(events)
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign.pk)
        if Hook.objects.filter(campaign=campaign).count() >= HOOKS_PER_CAMPAIGN:
            raise ServiceError("url", TOO_MANY.format(limit=HOOKS_PER_CAMPAIGN))
        # A form sent twice (a double click, a retried post) or the same channel added again would send every
        # message twice: a hook the campaign already has is not added again, checked under the campaign's lock.
        if Hook.objects.filter(campaign=campaign, url=url, audience=audience, events=chosen).exists():
            raise ServiceError("url", ALREADY_A_HOOK)
        hook = Hook.objects.create(
            campaign=campaign,
            kind=kind,
            url=url,
            audience=audience,
            events=chosen,
            secret=f"whsec_{secrets.token_hex(24)}" if kind == Hook.WEBHOOK else "",
        )
        data = {
            "hook": hook.pk,
            "kind": kind,
            "host": outbox.host_of(url),
            "audience": audience,
            "events": chosen,
        }
        outbox.hook_history(campaign, HOOK_ADDED, data, actor)
        outbox.refresh_notify(campaign)
    return hook


def hook_delete(*, campaign: Campaign, hook_id: int, actor: str) -> Hook:
    """A GM removes a hook (`Hook.DoesNotExist` for one not of this campaign): what it had still to send is
    dropped with it. The hook removed, its kind and address kept, for the answer to say which it was."""
    with transaction.atomic():
        campaign = eventstore.lock_campaign(campaign.pk)
        hook = Hook.objects.get(pk=hook_id, campaign=campaign)
        data = {"hook": hook.pk, "kind": hook.kind, "host": outbox.host_of(hook.url)}
        hook.delete()
        outbox.hook_history(campaign, HOOK_REMOVED, data, actor)
        outbox.refresh_notify(campaign)
    return hook


def hook_test(*, campaign: Campaign, hook_id: int) -> Delivery:
    """A test message to a hook (`Hook.DoesNotExist` for one not of this campaign): a delivery of the outbox like any
    other, sent once the request has committed (never inside it: a request's transaction must not wait on the
    network). How it went is the hook's `last_error` (and `active`)."""
    with transaction.atomic():
        hook = Hook.objects.select_related("campaign").get(pk=hook_id, campaign=campaign)
        return outbox.hook_test_delivery(hook.campaign, hook)
