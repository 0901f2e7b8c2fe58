"""Opaque cursors: where a player's next page starts, without telling the player how many events lie before it.

A player's history and feed skip what the player may not see (GM notes, rolls on undiagnosed hits), so the real
version or global position where a page ends counts events the player never saw: from two cursors a player could
tell that something hidden happened in between. A cursor handed to a player is therefore sealed with AES-SIV (the
`cryptography` library) under a key derived from SECRET_KEY: it is deterministic (the same place gives the same
cursor, so an answer stays byte-identical while nothing the player sees changes), unreadable and unforgeable, and
bound to its reader and resource (a cursor of one character or user is refused for another).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV
from django.conf import settings

# A sealed cursor of two 64-bit numbers is 43 characters; anything much longer is not one of ours.
LONGEST = 120


class BadCursor(ValueError):
    """Not a cursor this server gave to this reader for this resource."""


@functools.lru_cache(maxsize=4)
def _cipher(secret: str) -> AESSIV:
    # 64 bytes: AES-256 in SIV mode. A separate derivation, so the key is no other use's (sessions, signing).
    return AESSIV(hashlib.sha512(b"wound-ledger cursor\0" + secret.encode()).digest())


def seal(scope: str, *numbers: int) -> str:
    """`numbers` as an opaque cursor that only `scope` (e.g. "history:12:user:7") opens."""
    token = _cipher(settings.SECRET_KEY).encrypt(struct.pack(f">{len(numbers)}q", *numbers), [scope.encode()])
    return base64.urlsafe_b64encode(token).rstrip(b"=").decode()


def unseal(scope: str, cursor: str, count: int) -> tuple[int, ...]:
    """The `count` numbers sealed in `cursor` for `scope`; `BadCursor` for anything else."""
    if not cursor or len(cursor) > LONGEST:
        raise BadCursor(cursor)
    try:
        token = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        plain = _cipher(settings.SECRET_KEY).decrypt(token, [scope.encode()])
        return struct.unpack(f">{count}q", plain)
    except (binascii.Error, InvalidTag, ValueError, struct.error):
        raise BadCursor(cursor) from None
