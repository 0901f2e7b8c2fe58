"""Requests through the app's WSGI handler in this process, as gunicorn's worker calls `campaign.wsgi.application`:
the whole request (middleware, view, answer) without a server's sockets, so a profiler or a CPU clock in this
process measures the request alone."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple


class Answer(NamedTuple):
    status_code: int
    content: bytes
    headers: Mapping[str, str] = MappingProxyType({})

    def json(self) -> Any:
        return json.loads(self.content)


class WsgiClient:
    """One person's requests with an `Authorization` header (a token) on `host`, each answer read in full and
    closed. Not Django's test client: it connects a receiver of its own to a signal on every request, and each
    connect leaves a `weakref.finalize` alive for as long as the client lives; thousands of them made every full
    collection of the row's process walk them, which a served process never does."""

    def __init__(self, authorization: str = "", host: str = "testserver", *, cookie: str = "") -> None:
        """`authorization` (a token's header) for the API, or `cookie` (a session's) for the pages."""
        from django.core.handlers.wsgi import WSGIHandler

        self.handler = WSGIHandler()
        self.authorization = authorization
        self.cookie = cookie
        self.host = host

    def request(
        self, method: str, url: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> Answer:
        """`headers` beside, as WSGI names them (`HTTP_IF_NONE_MATCH`)."""
        path, _, query = url.partition("?")
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "SCRIPT_NAME": "",
            "QUERY_STRING": query,
            "SERVER_NAME": self.host,
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": self.host,
            "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_LENGTH": str(len(body)),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.version": (1, 0),
            "wsgi.multithread": False,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
        }
        if body:
            environ["CONTENT_TYPE"] = "application/json"
        if self.authorization:
            environ["HTTP_AUTHORIZATION"] = self.authorization
        if self.cookie:
            environ["HTTP_COOKIE"] = self.cookie
        environ.update(headers or {})
        status: list[str] = []
        answer = self.handler(environ, lambda line, headers, *_: status.append(line))
        try:
            content = b"".join(answer)
        finally:
            getattr(answer, "close", lambda: None)()
        return Answer(int(status[0].split()[0]), content, dict(answer.items()))

    def get(self, url: str) -> Answer:
        return self.request("GET", url)

    def post(self, url: str, data: Any) -> Answer:
        """`data` posted as JSON."""
        return self.request("POST", url, json.dumps(data).encode())
