"""What gunicorn answers itself is short plain text (issue 43, item 7): an overlong request line (414) or too many
or too long headers (431) were gunicorn's own HTML page. A real gunicorn, with the checkout's gunicorn.conf.py, on a
port of its own; the requests never reach the application, so no database is touched."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    port = _free_port()
    gunicorn = Path(sys.executable).parent / "gunicorn"
    process = subprocess.Popen(
        [str(gunicorn), "campaign.wsgi", "-w", "1", "-b", f"127.0.0.1:{port}"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Up once its worker answers, not once the port takes a connection: the master binds the port before its
        # worker has loaded Django, which on a busy machine outlasted the first test's 10 s wait for its answer.
        # The probe is a request line gunicorn refuses itself (400), which never reaches the application.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                _raw(port, b"not a request line\r\n\r\n")
                break
            except (OSError, ValueError):
                time.sleep(0.2)
        else:
            pytest.fail("gunicorn did not answer in 60 s")
        yield port
    finally:
        process.terminate()
        process.wait(10)


def _raw(port: int, request: bytes) -> tuple[str, dict[str, str], str]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return status, headers, body.decode()


def test_an_overlong_request_line_is_a_414_in_words(server: int) -> None:
    status, headers, body = _raw(
        server, b"GET /api/campaigns/?q=" + b"x" * 5000 + b" HTTP/1.1\r\nHost: a\r\n\r\n"
    )
    assert status == "HTTP/1.1 414 URI Too Long"
    assert headers["Content-Type"] == "text/plain; charset=utf-8"
    assert body == (
        "the request line (the address and its query) is longer than the server takes: 4,094 bytes\n"
    )
    assert int(headers["Content-Length"]) == len(body.encode())


@pytest.mark.parametrize(
    "headers",
    [
        b"".join(b"X-Filler-%d: 1\r\n" % i for i in range(101)),  # 101 headers
        b"Cookie: " + b"c" * 9000 + b"\r\n",  # one of 9,000 bytes
    ],
)
def test_too_many_or_too_long_headers_are_a_431_in_words(server: int, headers: bytes) -> None:
    status, answer_headers, body = _raw(server, b"GET / HTTP/1.1\r\nHost: a\r\n" + headers + b"\r\n")
    assert status == "HTTP/1.1 431 Request Header Fields Too Large"
    assert answer_headers["Content-Type"] == "text/plain; charset=utf-8"
    assert body == (
        "the request has more headers, or longer ones, than the server takes: 100 headers of 8,190 bytes\n"
    )


def test_a_request_gunicorn_cannot_read_is_a_plain_400_that_echoes_nothing(server: int) -> None:
    status, headers, body = _raw(server, b"GET /<script> HTTP/9.9\r\n\r\n")
    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["Content-Type"] == "text/plain; charset=utf-8"
    assert body == "bad request: the server could not read the request\n"
