"""Web Push to a phone (docs/notifications.md): the server's VAPID key (RFC 8292), who is told of
what, and one message encrypted to a device's keys (aes128gcm, RFC 8291).

A device is a target of the outbox (`campaign.notify.outbox`), which writes its words with the events: a player's
device hears, in the table's words, of the characters the player plays; a GM's, in the GM's words, of every
character of each campaign the GM named on the subscription (`PushSubscription.campaigns`). A GM's own characters
without that opt-in tell nothing: characters handed to a GM when their player left would otherwise fill the GM's
phone. Each delivery is one character's notice; `campaign.notify.deliver.send_push` checks when it sends that the
device's user may still read it (`may_read`), so a player who left the campaign is told nothing more.
"""

from __future__ import annotations

import base64
import functools
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson
from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Q
from django.urls import reverse
from py_vapid import Vapid02
from pywebpush import WebPusher

from campaign.models import GM, PLAYER, Character, Membership, PushSubscription
from campaign.notify import words
from campaign.selectors import access

# Why a push was not sent, in words (the delivery's `last_error`).
GONE_WORDS = "the push service no longer knows this device ({status}): its subscription was removed"
UNSUBSCRIBED = "the device's subscription was removed before the message went"
NOT_YOURS = "{user} may no longer see {name}: nothing sent"
REFUSED_KEY = (
    "the push service refused the server's VAPID signature ({status}): the device subscribed with another "
    "VAPID_PUBLIC_KEY, or the keys do not match"
)
TOO_LARGE = "the push service refused the message as too large ({status})"
# What cannot wait: the push service wakes the phone at once (RFC 8030's Urgency).
URGENT = frozenset((words.DEAD, words.DYING))


# --- the server's VAPID key -----------------------------------------------------------------------------------------


def b64url(raw: bytes) -> str:
    """Base64url without padding, as the Push API and VAPID write keys."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def push_enabled() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY)


@functools.lru_cache(maxsize=4)
def _vapid(private_key: str, public_key: str) -> Vapid02:
    """The server's VAPID signer, checked against the public key the browsers subscribe with: a pair that does not
    match would have every push service refuse every message, in silence until then."""
    try:
        signer = Vapid02.from_string(private_key)
    except Exception as error:
        raise ImproperlyConfigured(f"VAPID_PRIVATE_KEY: not a P-256 private key ({error})") from None
    if _public_of(signer) != public_key:
        raise ImproperlyConfigured(
            "VAPID_PUBLIC_KEY: not the public key of VAPID_PRIVATE_KEY (manage.py vapid_keys)"
        )
    return signer


def _public_of(signer: Vapid02) -> str:
    point = signer.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def vapid_signer() -> Vapid02:
    return _vapid(settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY)


def vapid_public_key() -> str:
    """The key a browser subscribes with (`applicationServerKey`): the uncompressed P-256 point, base64url."""
    return _public_of(vapid_signer())


# How long a VAPID signature holds (RFC 8292 allows at most 24 hours).
VAPID_HOURS = 12


def vapid_headers(endpoint: str, now: float | None = None) -> dict[str, str]:
    """`Authorization: vapid t=<JWT>, k=<public key>` for the endpoint's push service: the JWT's audience is the
    endpoint's origin, its subject the server's VAPID_SUBJECT."""
    parts = urlsplit(endpoint)
    claims = {
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int((time.time() if now is None else now) + VAPID_HOURS * 3600),
        "sub": settings.VAPID_SUBJECT,
    }
    return vapid_signer().sign(claims)


# --- who is told, and what ----------------------------------------------------------------------------------------

# What a device hears of: its user's characters' news, never the campaign's (the clock, the house rules, the party).
PUSH_KINDS = frozenset(words.CHARACTER_KINDS)


@dataclass(frozen=True)
class Device:
    """A subscription the outbox writes deliveries for: in whose words (`words.TABLE` or `words.GM`), and of which
    characters (None: every one of the campaign)."""

    subscription: PushSubscription
    audience: str
    characters: frozenset[int] | None


def push_devices(campaign_id: int) -> list[Device]:
    """The devices told of the campaign now: each of its players' devices, of the characters the player plays (not
    retired); each of its GMs' devices that named the campaign, of every character."""
    roles = dict(Membership.objects.filter(campaign_id=campaign_id).values_list("user_id", "role"))
    players = [user for user, role in roles.items() if role == PLAYER]
    gms = [user for user, role in roles.items() if role == GM]
    played: dict[int, set[int]] = {}
    characters = Character.objects.filter(campaign_id=campaign_id, retired=False, player_id__in=players)
    for character_id, player_id in characters.values_list("pk", "player_id"):
        played.setdefault(player_id, set()).add(character_id)
    devices = PushSubscription.objects.filter(
        Q(user_id__in=list(played)) | Q(user_id__in=gms, campaigns=campaign_id)
    ).order_by("pk")
    return [
        Device(device, words.GM, None)
        if roles[device.user_id] == GM
        else Device(device, words.TABLE, frozenset(played[device.user_id]))
        for device in devices.distinct()
    ]


def push_listened(campaign_id: int) -> bool:
    """Whether a device may be told of the campaign: a player of it subscribed, or a GM of it who named it. (A
    player's characters are not asked: a character changing hands then needs no new `Campaign.notify`.)"""
    members = Membership.objects.filter(campaign_id=campaign_id)
    players, gms = members.filter(role=PLAYER).values("user_id"), members.filter(role=GM).values("user_id")
    return PushSubscription.objects.filter(
        Q(user_id__in=players) | Q(user_id__in=gms, campaigns=campaign_id)
    ).exists()


def push_audience(subscription: PushSubscription, character: Character) -> str | None:
    """In whose words the device may be told of the character now: GM (a GM of its campaign who named the campaign on
    this subscription), PLAYER (its player, a member, the character not retired), or None: not told."""
    role = access.role_in(subscription.user, character.campaign_id)
    if role == GM:
        opted_in = subscription.campaigns.filter(pk=character.campaign_id).exists()
        return GM if opted_in else None
    if role == PLAYER and character.player_id == subscription.user_id and not character.retired:
        return PLAYER
    return None


def may_read(subscription: PushSubscription, character: Character, audience: str) -> bool:
    """Whether the device's user may read, now, words written for `audience` about the character: a GM's device
    anything; a player's device the table's words of the characters the player still plays."""
    now = push_audience(subscription, character)
    return now == GM or (now == PLAYER and audience == words.TABLE)


# --- one message ----------------------------------------------------------------------------------------------------


def topic(character_id: int) -> str:
    """The push service keeps only the latest undelivered message of a topic (RFC 8030): one per character, so a
    phone that was off gets the character's latest news, not a queue of stale ones. At most 32 base64url
    characters."""
    return f"character-{character_id}"


def push_payload(message: dict[str, Any], character_id: int) -> dict[str, str]:
    """What the service worker shows of a delivery's one notice, a character's: `{title, body, url}`, the
    character page's path."""
    (item,) = message["notices"]
    return {
        "title": words.push_title(item),
        "body": words.push_body(item, message),
        "url": reverse("character", args=[character_id]),
    }


def urgent(message: dict[str, Any]) -> bool:
    """Whether the delivery's news cannot wait (a death, a character dying): RFC 8030's `Urgency: high`."""
    (item,) = message["notices"]
    return not URGENT.isdisjoint(item["kinds"])


def push_request(
    subscription: PushSubscription, payload: dict[str, str], character_id: int, *, urgent: bool
) -> tuple[dict[str, str], bytes]:
    """The headers and encrypted body of one message to the device."""
    info = {
        "endpoint": subscription.endpoint,
        "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
    }
    body = WebPusher(info).encode(orjson.dumps(payload), "aes128gcm")["body"]
    headers = {
        **vapid_headers(subscription.endpoint),
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(settings.PUSH_TTL_SECONDS),
        "Topic": topic(character_id),
        "Urgency": "high" if urgent else "normal",
    }
    return headers, body
