"""Where a notification may be sent: the guard against server-side request forgery (OWASP's SSRF prevention cheat
sheet). A hook's URL is a GM's input, and the server sends to it from inside its own network, so:

- `https` only, on the URL and on every redirect (307 and 308, the ones that keep a POST a POST; at most
  `MAX_HOPS`);
- the name is resolved here, and refused if any of its addresses is not on the public internet (loopback,
  private, link-local with the clouds' metadata service, shared, reserved, multicast, unspecified; an IPv4 address
  written inside IPv6 counts as the IPv4 one);
- the connection goes to the address that was checked (the URL's name still names the TLS certificate, the SNI and
  the Host header), so a second resolution cannot answer otherwise (DNS rebinding);
- short timeouts to connect and to read, and no proxy taken from the environment.

`HOOKS_ALLOW_PRIVATE` (off by default; development and tests) allows `http` and every address.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urljoin, urlsplit

import httpx
from django.conf import settings

MAX_HOPS = 3
SCHEMES = ("https",)  # HOOKS_ALLOW_PRIVATE adds http
TIMEOUT = httpx.Timeout(connect=3.0, read=10.0, write=10.0, pool=3.0)
MAX_ANSWER_BYTES = 64 * 1024  # of a receiver's answer, read for its error message: the rest is not read
KEPT_ON_REDIRECT = (307, 308)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
NOT_HTTPS = "expected an https:// address"
NO_HOST = "expected an address with a host name, such as https://example.com/hook"
WITH_PASSWORD = "expected an address without a user name or password in it"
# The clouds' metadata services: link-local or private already, named apart so that a refusal says what it was.
METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}


class Refused(Exception):
    """An address the server will not send to, and why, in words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Unresolved(Refused):
    """A name that could not be resolved now (it may be, later)."""


def private_allowed() -> bool:
    return bool(getattr(settings, "HOOKS_ALLOW_PRIVATE", False))


def address_class(address: IPAddress) -> str | None:
    """What an address is, in words, when it is not on the public internet; None for a public one."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address in METADATA:
        return "a cloud metadata service"
    for what, test in (
        ("an unspecified address", address.is_unspecified),
        ("a loopback address", address.is_loopback),
        ("a link-local address", address.is_link_local),
        ("a multicast address", address.is_multicast),
        ("a reserved address", address.is_reserved),
        ("a private address", address.is_private),
    ):
        if test:
            return what
    if not address.is_global:  # shared (carrier-grade NAT), documentation and benchmarking ranges
        return "an address that is not on the public internet"
    return None


def checked_url(url: Any) -> SplitResult:
    """The parts of a URL the server may send to, by its form alone (https, a host, no password); the host's
    addresses are checked when it is sent to (`resolved`). Raises Refused."""
    if not isinstance(url, str) or not url.strip():
        raise Refused(NO_HOST)
    try:
        parts = urlsplit(url.strip())
        _ = parts.port  # a port out of range raises here
    except ValueError as error:
        raise Refused(f"expected a web address: {error}") from None
    if parts.scheme not in SCHEMES and not (private_allowed() and parts.scheme == "http"):
        raise Refused(NOT_HTTPS)
    if not parts.hostname:
        raise Refused(NO_HOST)
    if parts.username is not None or parts.password is not None:
        raise Refused(WITH_PASSWORD)
    literal = _literal(parts.hostname)
    if literal is not None and not private_allowed() and (what := address_class(literal)) is not None:
        raise Refused(f"{parts.hostname} is {what}: notifications go only to the public internet")
    return parts


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def resolve(host: str, port: int) -> list[str]:
    """The addresses a name resolves to (the system's resolver: tests replace this function)."""
    return [info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def resolved(host: str, port: int) -> IPAddress:
    """The address to connect to for `host`: every address it resolves to must be public (a client could pick any of
    them), and the first is used. Raises Refused."""
    literal = _literal(host)
    try:
        found = [literal] if literal is not None else [ipaddress.ip_address(a) for a in resolve(host, port)]
    except (OSError, ValueError, UnicodeError):
        raise Unresolved(f"the name {host} could not be resolved") from None
    if not found:
        raise Unresolved(f"the name {host} could not be resolved")
    if not private_allowed():
        for address in found:
            if (what := address_class(address)) is not None:
                raise Refused(
                    f"{host} leads to {what} ({address}): notifications go only to the public internet"
                )
    return found[0]


@dataclass(frozen=True)
class Answer:
    """A receiver's answer: its status, headers and the start of its body."""

    status: int
    headers: httpx.Headers
    body: bytes


def post(url: str, body: bytes, headers: dict[str, str]) -> Answer:
    """POST `body` to `url` through the guard, following a 307 or 308 (each hop checked) at most MAX_HOPS times.
    Raises Refused for an address the server will not send to, and httpx's errors for a network fault."""
    target = url
    for _ in range(MAX_HOPS + 1):
        answer = _post_once(checked_url(target), body, headers)
        location = answer.headers.get("location")
        if answer.status not in KEPT_ON_REDIRECT or not location:
            return answer
        target = urljoin(target, location)
    raise Refused(f"the address redirects more than {MAX_HOPS} times")


def _post_once(parts: SplitResult, body: bytes, headers: dict[str, str]) -> Answer:
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = resolved(host, port)
    shown = f"[{address}]" if address.version == 6 else str(address)
    default_port = port == (443 if parts.scheme == "https" else 80)
    netloc = shown if default_port else f"{shown}:{port}"
    path = parts.path or "/"
    target = f"{parts.scheme}://{netloc}{path}" + (f"?{parts.query}" if parts.query else "")
    host_header = host if default_port else f"{host}:{port}"
    if ":" in host:  # an IPv6 literal in the Host header is bracketed
        host_header = f"[{host}]" if default_port else f"[{host}]:{port}"
    with (
        httpx.Client(timeout=TIMEOUT, trust_env=False, follow_redirects=False) as client,
        client.stream(
            "POST",
            target,
            content=body,
            headers={**headers, "Host": host_header},
            extensions={"sni_hostname": host},
        ) as response,
    ):
        read = b""
        for chunk in response.iter_bytes():
            read += chunk
            if len(read) >= MAX_ANSWER_BYTES:
                break
        return Answer(response.status_code, response.headers, read[:MAX_ANSWER_BYTES])
