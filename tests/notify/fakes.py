"""Local fakes of the receivers of notifications, each an HTTP server in a thread of the test process: Discord's
execute-webhook endpoint, which holds each message to Discord's limits and asks once to slow down, and a signed
webhook's receiver, which checks the signature as Stripe's libraries do and keeps each delivery once."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    """What a fake received, and what it answers next: `answers` are (status, headers, body) taken in turn, then
    `otherwise` for every request after them."""

    answers: list[tuple[int, dict[str, str], bytes]] = field(default_factory=list)
    otherwise: tuple[int, dict[str, str], bytes] = (204, {}, b"")
    received: list[Received] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    url: str = ""

    def check(self, request: Received) -> list[str]:
        return []

    def answer(self, request: Received) -> tuple[int, dict[str, str], bytes]:
        return self.answers.pop(0) if self.answers else self.otherwise


class DiscordFake(Receiver):
    """Discord's execute-webhook endpoint: JSON only, `content` at most 2,000 characters, at most 10 embeds (a title
    at most 256, a description at most 4,096, 6,000 in all), `allowed_mentions` parsing nothing. Its first answer
    is a 429 asking to wait a second (as Discord's rate limit says it: header and body), then 204."""

    def __init__(self) -> None:
        super().__init__(
            answers=[(429, {"Retry-After": "1", "Content-Type": "application/json"}, b'{"retry_after": 0.5}')]
        )

    def check(self, request: Received) -> list[str]:
        problems = []
        if request.headers.get("content-type") != "application/json":
            problems.append("not JSON")
        payload = request.json()
        if len(payload.get("content", "")) > 2000:
            problems.append("content over 2,000 characters")
        embeds = payload.get("embeds", [])
        if len(embeds) > 10:
            problems.append("more than 10 embeds")
        for embed in embeds:
            if len(embed.get("title", "")) > 256 or len(embed.get("description", "")) > 4096:
                problems.append("an embed over its limits")
        if sum(len(e.get("title", "")) + len(e.get("description", "")) for e in embeds) > 6000:
            problems.append("embeds over 6,000 characters")
        if payload.get("allowed_mentions") != {"parse": []}:
            problems.append("mentions parsed")
        if not payload.get("content") and not embeds:
            problems.append("an empty message")
        return problems


class WebhookFake(Receiver):
    """A signed webhook's receiver: the signature checked against the secret (Stripe's scheme, five minutes of
    tolerance, a constant-time compare), each delivery id kept once: a delivery seen again is answered 200 and not
    kept again, as a receiver that deduplicates does."""

    def __init__(self, secret: str = "") -> None:
        super().__init__(otherwise=(200, {}, b"{}"))
        self.secret = secret
        self.kept: dict[str, Any] = {}

    def check(self, request: Received) -> list[str]:
        header = request.headers.get("x-ledger-signature", "")
        parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
        if "t" not in parts or "v1" not in parts:
            return ["no signature"]
        if abs(time.time() - int(parts["t"])) > 300:
            return ["a signature out of its time"]
        expected = hmac.new(self.secret.encode(), f"{parts['t']}.".encode() + request.body, hashlib.sha256)
        if not hmac.compare_digest(expected.hexdigest(), parts["v1"]):
            return ["a bad signature"]
        delivery = request.headers.get("x-ledger-delivery", "")
        if request.json().get("delivery") != delivery:
            return ["the body's delivery is not the header's"]
        self.kept.setdefault(delivery, request.json())
        return []


@contextmanager
def serving(receiver: Receiver) -> Iterator[Receiver]:
    """Serve `receiver` on 127.0.0.1 at a free port (`receiver.url`) for the block."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            request = Received(
                self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length)
            )
            receiver.received.append(request)
            receiver.problems.extend(receiver.check(request))
            status, headers, body = receiver.answer(request)
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the sender stopped waiting (a timeout test)
                return

        def log_message(self, *args: Any) -> None:  # quiet
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
