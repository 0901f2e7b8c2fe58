"""A push service and a phone, both local and both real in what they check.

`FakePushService` is an HTTP server in a thread, as a browser vendor's push service answers Web Push (RFC 8030): it
takes each POST, checks its VAPID signature (RFC 8292: the JWT's ES256 signature under the key it names, its audience
the endpoint's origin, its expiry within a day) and records it, then answers the status the test queued (201 by
default). `Phone` is a browser's side of a subscription: a P-256 key pair and a 16-byte auth secret of its own, made
as a browser makes them, and the decryption of what the push service hands it (aes128gcm, RFC 8291)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class VapidRefused(AssertionError):
    """What a push service answers 401 or 403 for."""


def check_vapid(authorization: str, public_key: str, origin: str, subject: str) -> dict[str, Any]:
    """The claims of a valid `Authorization: vapid t=<JWT>, k=<key>` header for a push service at `origin` and a
    server of `public_key` and `subject`; VapidRefused naming what is wrong otherwise."""
    scheme, _, rest = authorization.partition(" ")
    if scheme != "vapid":
        raise VapidRefused(f"scheme {scheme!r}, not vapid")
    parts = dict(item.strip().split("=", 1) for item in rest.split(","))
    if parts.get("k") != public_key:
        raise VapidRefused("k is not the server's public key")
    header_b64, claims_b64, signature_b64 = parts["t"].split(".")
    if json.loads(unb64(header_b64)) != {"typ": "JWT", "alg": "ES256"}:
        raise VapidRefused("not an ES256 JWT")
    signature = unb64(signature_b64)
    if len(signature) != 64:
        raise VapidRefused("an ES256 signature is r and s, 32 bytes each")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(public_key))
    try:
        key.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise VapidRefused("the signature is not the key's") from None
    claims = json.loads(unb64(claims_b64))
    if claims.get("aud") != origin:
        raise VapidRefused(f"aud {claims.get('aud')!r}, not {origin!r}")
    if not time.time() < claims.get("exp", 0) <= time.time() + 24 * 3600:
        raise VapidRefused("exp is past, or more than 24 hours ahead")
    if claims.get("sub") != subject:
        raise VapidRefused(f"sub {claims.get('sub')!r}")
    return claims


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    claims: dict[str, Any]


@dataclass
class Answer:
    status: int
    headers: dict[str, str] = field(default_factory=dict)


class FakePushService:
    """Checks VAPID for `public_key` and `subject`, records what it accepts in `received`, answers from `answers`
    (then 201)."""

    def __init__(self, public_key: str, subject: str) -> None:
        self.public_key, self.subject = public_key, subject
        self.received: list[Received] = []
        self.refused: list[str] = []
        self.answers: deque[Answer] = deque()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    claims = check_vapid(
                        self.headers.get("Authorization", ""),
                        service.public_key,
                        service.origin,
                        service.subject,
                    )
                except VapidRefused as refusal:
                    service.refused.append(str(refusal))
                    self._answer(Answer(403))
                    return
                service.received.append(Received(self.path, dict(self.headers.items()), body, claims))
                self._answer(service.answers.popleft() if service.answers else Answer(201))

            def _answer(self, answer: Answer) -> None:
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakePushService:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


class Phone:
    """A browser's push subscription: its own key pair and auth secret, and what it reads of a message."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self) -> dict[str, Any]:
        """What `PushSubscription.toJSON()` gives a page."""
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {"endpoint": self.endpoint, "keys": {"p256dh": b64(point), "auth": b64(self.auth)}}

    def read(self, body: bytes) -> dict[str, Any]:
        """The message as the service worker's `event.data.json()` gets it."""
        plain = http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        return json.loads(plain)
