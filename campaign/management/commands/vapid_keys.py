"""`manage.py vapid_keys`: a new VAPID key pair for Web Push, as the two settings to set (docs/notifications.md).

Set them once and keep them: every browser subscribes with the public key, and a server that signs with another
pair is refused by every push service until each device subscribes again."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.management.base import BaseCommand

from campaign.notify.push import b64url


def new_pair() -> tuple[str, str]:
    """(public, private): the uncompressed P-256 point and the 32-byte private scalar, base64url."""
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(public), b64url(key.private_numbers().private_value.to_bytes(32, "big"))


class Command(BaseCommand):
    help = "Make a VAPID key pair for Web Push; prints VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY to set."

    def handle(self, *args: Any, **options: Any) -> None:
        public, private = new_pair()
        self.stdout.write(f"VAPID_PUBLIC_KEY={public}\nVAPID_PRIVATE_KEY={private}")
        self.stderr.write(
            "Set both in the server's environment with VAPID_SUBJECT (mailto: or https: of whoever runs it), "
            "and keep them: a new pair makes every device subscribe again."
        )
