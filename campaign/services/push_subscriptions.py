"""The devices' push subscriptions (docs/notifications.md, "Push to a phone"): the write path of
`/api/push/subscriptions/`.

A subscription is what a browser's `PushManager.subscribe()` gives: its push service's endpoint and its keys. Each
is checked as the push service and the encryption will need it, and refused with the field named: the endpoint an
`https` URL the SSRF guard allows (`ssrf.checked_url`; HOOKS_ALLOW_PRIVATE lets the tests' local fake use `http` on
127.0.0.1), `p256dh` a point of the P-256 curve, `auth` 16 bytes. A device that comes or goes changes whether its
user's campaigns listen (`Campaign.notify`, `outbox.devices_changing`).
"""

from __future__ import annotations

import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from campaign.models import GM, Membership, PushSubscription
from campaign.notify import outbox, ssrf
from campaign.notify.push import unb64url
from campaign.services import ServiceError
from rules.params import reject_unknown

ENDPOINT_LENGTH = 1000
NOT_A_URL = "expected the push service's https URL the browser gave (PushSubscription.endpoint)"
NOT_A_KEY = "expected the browser's P-256 public key, base64url (PushSubscription.getKey('p256dh'))"
NOT_A_SECRET = "expected the browser's 16-byte auth secret, base64url (PushSubscription.getKey('auth'))"
NOT_YOUR_CAMPAIGN = "expected the ids of campaigns you are a GM of; not {ids}"


def _endpoint(raw: Any) -> str:
    if not isinstance(raw, str) or len(raw) > ENDPOINT_LENGTH or raw != raw.strip():
        raise ServiceError("endpoint", NOT_A_URL)
    try:
        ssrf.checked_url(raw)
    except ssrf.Refused as refused:
        message = NOT_A_URL if refused.message in FORM_REFUSALS else f"{NOT_A_URL}; {refused.message}"
        raise ServiceError("endpoint", message) from None
    return raw


# The guard's refusals of a URL's form, which NOT_A_URL says already (an address refused says why after it).
FORM_REFUSALS = (ssrf.NOT_HTTPS, ssrf.NO_HOST, ssrf.WITH_PASSWORD)


def _decoded(field: str, raw: Any, problem: str) -> bytes:
    if not isinstance(raw, str) or not raw or len(raw) > 100:
        raise ServiceError(field, problem)
    try:
        return unb64url(raw)
    except (binascii.Error, ValueError):
        raise ServiceError(field, problem) from None


def _keys(raw: Any) -> tuple[str, str]:
    if not isinstance(raw, Mapping):
        raise ServiceError("keys", "expected an object with p256dh and auth")
    reject_unknown(raw, ("p256dh", "auth"), prefix="keys")
    point = _decoded("keys.p256dh", raw.get("p256dh"), NOT_A_KEY)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise ServiceError("keys.p256dh", NOT_A_KEY) from None
    if len(point) != 65:  # the uncompressed point the Push API gives, which the encryption needs
        raise ServiceError("keys.p256dh", NOT_A_KEY)
    if len(_decoded("keys.auth", raw.get("auth"), NOT_A_SECRET)) != 16:
        raise ServiceError("keys.auth", NOT_A_SECRET)
    return raw["p256dh"], raw["auth"]


def _gm_campaigns(user: AbstractBaseUser, raw: Any) -> list[int]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(
        isinstance(item, int) and not isinstance(item, bool) for item in raw
    ):
        raise ServiceError("campaigns", "expected a list of campaign ids")
    mine = set(
        Membership.objects.filter(user=user, role=GM, campaign_id__in=raw).values_list(
            "campaign_id", flat=True
        )
    )
    others = sorted(set(raw) - mine)
    if others:
        raise ServiceError("campaigns", NOT_YOUR_CAMPAIGN.format(ids=", ".join(map(str, others))))
    return sorted(mine)


@dataclass(frozen=True)
class Subscribed:
    subscription: PushSubscription
    created: bool


def push_subscribe(*, user: AbstractBaseUser, body: Mapping[str, Any]) -> Subscribed:
    """Keep a device's subscription for `user`: new (created), or the same endpoint again (its keys renewed, the
    campaigns named added to those the device is told of). An endpoint another user held becomes this user's alone:
    whoever subscribes last on a device holds it."""
    endpoint = _endpoint(body.get("endpoint"))
    p256dh, auth = _keys(body.get("keys"))
    campaigns = _gm_campaigns(user, body.get("campaigns"))
    try:
        return _kept(user, endpoint, p256dh, auth, campaigns)
    # The same endpoint posted at once twice: the other request made it, this one finds it.
    except IntegrityError:
        return _kept(user, endpoint, p256dh, auth, campaigns)


def _kept(user: AbstractBaseUser, endpoint: str, p256dh: str, auth: str, campaigns: list[int]) -> Subscribed:
    holder = PushSubscription.objects.filter(endpoint=endpoint).values_list("user_id", flat=True).first()
    # The page posts its subscription at each visit: the same device again, its keys renewed, changes no listener.
    again = holder == user.pk and not campaigns
    users = {user.pk} if holder is None else {user.pk, holder}
    with transaction.atomic() if again else outbox.devices_changing(users):
        found = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        created = found is None or found.user_id != user.pk
        if found is not None and created:
            found.delete()  # another user's: what they chose for this device goes with them
        subscription, _ = PushSubscription.objects.update_or_create(
            endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth}
        )
        subscription.campaigns.add(*campaigns)
    return Subscribed(subscription, created)


def push_unsubscribe(*, user: AbstractBaseUser, subscription_id: int) -> None:
    """Remove one of the user's subscriptions (PushSubscription.DoesNotExist for another's, or none)."""
    with outbox.devices_changing([user.pk]):
        PushSubscription.objects.get(pk=subscription_id, user=user).delete()
