"""A campaign's hooks on the GM's page (docs/notifications.md, docs/web.md "Notifications"): each hook in words
(what it is, where it sends with its secret parts hidden, whom it is written for, what it tells, how its deliveries
went, as dates), and the add form's choices. The choices are drawn from the declarations the service checks a hook
against (`Hook.KIND_CHOICES`, `notify.words.AUDIENCES`, `KINDS`, `DEFAULT_KINDS`, `KIND_HELP`); nothing here checks
a hook: `services.hook_create` does, for the API and this page alike, and its refusal is said beside its field."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django.http import QueryDict
from django.utils import timezone

from campaign.models import Hook
from campaign.notify import deliver, words
from rules import words as rule_words
from rules.ruleset import RuleError

# What each kind of hook is, in the GM's words, and how to find its address.
KIND_WORDS = {
    Hook.DISCORD: (
        "Discord channel",
        "The channel's webhook address: in Discord, the channel's Settings, Integrations, Webhooks, New Webhook, "
        "Copy Webhook URL (https://discord.com/api/webhooks/...).",
    ),
    Hook.WEBHOOK: (
        "Signed webhook",
        "Any https address of a web service of yours: it is sent JSON, signed with a secret shown once, when the "
        "hook is added.",
    ),
}
# Whom a hook is written for: the table's channel reads what each player may see of their own character.
AUDIENCE_WORDS = {
    words.TABLE: (
        "The table",
        "For each character, only what its own player may see. Everyone who can read the channel reads it.",
    ),
    words.GM: (
        "The GM only",
        "Everything you see: dice, the parts of hits, times of death. Only for a channel the players cannot read.",
    ),
}
HIDDEN = "••••••"
_DISCORD_PATH = re.compile(r"^/api/webhooks/(\d+)/")


def _when(moment: datetime) -> str:
    """A moment of the real world (not the game's), with its time zone so that it never reads as a game date beside
    the board's: '2026-12-01 20:15 UTC'."""
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M %Z")


def where_shown(kind: str, url: str) -> tuple[str, str]:
    """Where a hook sends, as the page may show it, and what was hidden of it in words: a Discord webhook's token
    is its password (anyone with the whole address posts to the channel), and a webhook's query may hold one too (a
    user name and password in an address are refused: `ssrf.checked_url`). The page is on screens the table sees."""
    parts = urlsplit(url)
    site = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
    if kind == Hook.DISCORD:
        webhook = _DISCORD_PATH.match(parts.path)
        if webhook is None:
            return f"{site}/{HIDDEN}", "its path is hidden"
        return (
            f"{site}/api/webhooks/{webhook[1]}/{HIDDEN}",
            "its token is hidden: it is the webhook's password",
        )
    if parts.query:
        return f"{site}{parts.path}?{HIDDEN}", "its query is hidden"
    return site + parts.path, ""


def _status(hook: Hook, host: str, now: datetime) -> list[dict[str, Any]]:
    """How the hook's deliveries went, in sentences with dates, each marked when it says something is wrong."""
    if not hook.active:
        off = words.hook_off_words(hook.get_kind_display(), host, hook.last_error or "it kept failing")
        return [{"text": off, "wrong": True}]
    said = [
        {
            "text": f"Last delivered {_when(hook.last_sent_at)}."
            if hook.last_sent_at
            else "Nothing delivered yet.",
            "wrong": False,
        }
    ]
    if hook.last_error:
        since = f" since {_when(hook.failing_since)}" if hook.failing_since else ""
        failing_for = rule_words.duration(int(deliver.FAILING_FOR.total_seconds()))
        said.append(
            {
                "text": f"Failing{since}: {hook.last_error.rstrip('.')}. Each message is tried again; after "
                f"{failing_for} of errors with no success the hook is switched off.",
                "wrong": True,
            }
        )
    if hook.resting_until and hook.resting_until > now:
        said.append(
            {
                "text": f"Waiting until {_when(hook.resting_until)}: {host} asked to be sent nothing before then.",
                "wrong": False,
            }
        )
    return said


def hook_shown(hook: Hook, now: datetime) -> dict[str, Any]:
    """One hook as its GM reads it on the page: words and dates, never its id's number or JSON."""
    host = urlsplit(hook.url).hostname or ""
    where, hidden = where_shown(hook.kind, hook.url)
    return {
        "id": hook.pk,
        "kind": KIND_WORDS[hook.kind][0],
        "host": host,
        "where": where,
        "hidden": hidden,
        "audience": AUDIENCE_WORDS[hook.audience][0],
        "tells": [words.KIND_HELP[kind] for kind in words.KINDS if kind in hook.events],
        "active": hook.active,
        "status": _status(hook, host, now),
    }


def hooks_shown(hooks: Sequence[Hook]) -> list[dict[str, Any]]:
    now = timezone.now()
    return [hook_shown(hook, now) for hook in hooks]


# The add form's inputs, each the service's field of the same name.
INPUTS = {"kind": "kind", "url": "url", "audience": "audience", "events": "events"}
# A refusal of a choice says what the form offers, in its words: the form offers nothing else, so only a forged or
# stale post is refused there. The address's refusals are the service's own words (the SSRF guard's, Discord's).
_CHOICE_REFUSED = {
    "kind": "expected one of: " + ", ".join(text for text, _ in KIND_WORDS.values()),
    "audience": "expected one of: " + ", ".join(text for text, _ in AUDIENCE_WORDS.values()),
    "events": "expected one or more of the kinds of notice below",
}


def placed_error(error: RuleError) -> dict[str, str]:
    """The service's refusal beside the input it names (`form` when it names none of the form's)."""
    if error.field in _CHOICE_REFUSED:
        return {error.field: _CHOICE_REFUSED[error.field]}
    return {error.field if error.field in INPUTS else "form": error.message}


def form_context(posted: QueryDict | None = None) -> dict[str, Any]:
    """The add form: its choices with what was posted (a refused post shown back) or the defaults."""
    kind = posted.get("kind") if posted else Hook.DISCORD
    audience = posted.get("audience") if posted else words.TABLE
    events = posted.getlist("events") if posted is not None else list(words.DEFAULT_KINDS)
    return {
        "kinds": [
            {"value": value, "text": text, "help": help, "checked": value == kind}
            for value, (text, help) in KIND_WORDS.items()
        ],
        "audiences": [
            {"value": value, "text": text, "help": help, "checked": value == audience}
            for value, (text, help) in AUDIENCE_WORDS.items()
        ],
        "events": [
            {"value": kind_, "text": words.KIND_HELP[kind_], "checked": kind_ in events}
            for kind_ in words.KINDS
        ],
        "url": posted.get("url", "") if posted else "",
    }
