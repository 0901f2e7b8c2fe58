"""Where a notification may go (campaign/notify/ssrf.py; OWASP's SSRF prevention cheat sheet): https only, every
address class that is not the public internet refused, after resolution and on every redirect, and the connection
made to the address that was checked."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from campaign.notify import ssrf
from tests.notify.fakes import Receiver, serving

REFUSED = [
    ("127.0.0.1", "a loopback address"),
    ("127.8.9.10", "a loopback address"),
    ("::1", "a loopback address"),
    ("10.1.2.3", "a private address"),
    ("172.16.0.9", "a private address"),
    ("192.168.1.20", "a private address"),
    ("fd12:3456::1", "a private address"),
    ("169.254.169.254", "a cloud metadata service"),
    ("fd00:ec2::254", "a cloud metadata service"),
    ("169.254.10.10", "a link-local address"),
    ("fe80::1", "a link-local address"),
    ("0.0.0.0", "an unspecified address"),
    ("::", "an unspecified address"),
    ("224.0.0.251", "a multicast address"),
    ("ff02::1", "a multicast address"),
    ("240.0.0.1", "a reserved address"),
    ("100.64.0.1", "an address that is not on the public internet"),
    ("192.0.2.10", "a private address"),
    ("::ffff:127.0.0.1", "a loopback address"),
    ("::ffff:10.0.0.1", "a private address"),
]


@pytest.mark.parametrize(("address", "what"), REFUSED)
def test_every_address_class_off_the_public_internet_is_refused(address: str, what: str) -> None:
    assert ssrf.address_class(ipaddress.ip_address(address)) == what
    shown = f"[{address}]" if ":" in address else address
    with pytest.raises(ssrf.Refused) as refused:
        ssrf.post(f"https://{shown}/hook", b"{}", {})
    assert address in refused.value.message and "public internet" in refused.value.message


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700::6810:84e5", "162.159.128.233"])
def test_a_public_address_is_allowed(address: str) -> None:
    assert ssrf.address_class(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://discord.com/api/webhooks/1/x", ssrf.NOT_HTTPS),
        ("ftp://example.com/hook", ssrf.NOT_HTTPS),
        ("https:///hook", ssrf.NO_HOST),
        ("https://user:secret@example.com/hook", ssrf.WITH_PASSWORD),
        ("https://example.com:99999/hook", "expected a web address: Port out of range 0-65535"),
    ],
)
def test_only_an_https_address_of_a_host_is_taken(url: str, said: str) -> None:
    with pytest.raises(ssrf.Refused) as refused:
        ssrf.checked_url(url)
    assert refused.value.message == said


def test_a_name_that_resolves_to_a_private_address_is_refused_before_any_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = []

    def resolver(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return ["93.184.215.14", "10.0.0.7"]  # one public, one private: a client could pick either

    monkeypatch.setattr(ssrf, "resolve", resolver)
    with pytest.raises(ssrf.Refused) as refused:
        ssrf.post("https://hooks.example.org/in", b"{}", {})
    assert refused.value.message == (
        "hooks.example.org leads to a private address (10.0.0.7): notifications go only to the public internet"
    )
    assert asked == [("hooks.example.org", 443)]


def test_a_name_that_does_not_resolve_is_tried_again_later(monkeypatch: pytest.MonkeyPatch) -> None:
    def resolver(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    monkeypatch.setattr(ssrf, "resolve", resolver)
    with pytest.raises(ssrf.Unresolved):
        ssrf.post("https://nowhere.example.org/in", b"{}", {})


@pytest.fixture
def fake_public(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake receivers stand in for the public internet: `hooks.example.org` resolves to 127.0.0.1, which (alone
    of the loopback addresses) counts as public, and http is taken (the fakes speak no TLS)."""
    real = ssrf.address_class
    monkeypatch.setattr(ssrf, "SCHEMES", ("https", "http"))
    monkeypatch.setattr(
        ssrf, "resolve", lambda host, port: ["127.0.0.1"] if host == "hooks.example.org" else ["10.9.9.9"]
    )
    monkeypatch.setattr(
        ssrf, "address_class", lambda address: None if str(address) == "127.0.0.1" else real(address)
    )


def _redirecting(to: str) -> Receiver:
    return Receiver(answers=[(307, {"Location": to}, b"")], otherwise=(204, {}, b""))


@pytest.mark.usefixtures("fake_public")
def test_the_connection_goes_to_the_address_that_was_checked() -> None:
    with serving(Receiver()) as fake:
        port = fake.url.rsplit(":", 1)[1]
        answer = ssrf.post(f"http://hooks.example.org:{port}/in", b'{"a": 1}', {"X-Ledger-Delivery": "d1"})
    assert answer.status == 204
    (received,) = fake.received
    # The name never reached a resolver of httpx's own (it would not resolve); the Host header still names it.
    assert (received.path, received.headers["host"], received.body) == (
        "/in",
        f"hooks.example.org:{port}",
        b'{"a": 1}',
    )


@pytest.mark.parametrize(
    ("location", "said"),
    [
        ("http://10.0.0.7/steal", "10.0.0.7 is a private address"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata service"),
        ("http://internal.example.org/admin", "internal.example.org leads to a private address (10.9.9.9)"),
    ],
)
@pytest.mark.usefixtures("fake_public")
def test_a_redirect_to_a_private_address_is_refused(location: str, said: str) -> None:
    with serving(_redirecting(location)) as fake:
        port = fake.url.rsplit(":", 1)[1]
        with pytest.raises(ssrf.Refused) as refused:
            ssrf.post(f"http://hooks.example.org:{port}/in", b"{}", {})
    assert refused.value.message.startswith(said)
    assert len(fake.received) == 1  # the first hop only: nothing was sent to the redirect's target


@pytest.mark.usefixtures("fake_public")
def test_a_redirect_to_a_public_address_is_followed_with_its_post() -> None:
    with serving(Receiver(otherwise=(204, {}, b""))) as fake:
        port = fake.url.rsplit(":", 1)[1]
        fake.answers = [(308, {"Location": f"http://hooks.example.org:{port}/moved"}, b"")]
        answer = ssrf.post(f"http://hooks.example.org:{port}/in", b"{}", {})
    assert answer.status == 204
    assert [(r.path, r.body) for r in fake.received] == [("/in", b"{}"), ("/moved", b"{}")]


@pytest.mark.usefixtures("fake_public")
def test_a_redirect_loop_ends() -> None:
    with serving(Receiver()) as fake:
        port = fake.url.rsplit(":", 1)[1]
        fake.otherwise = (307, {"Location": f"http://hooks.example.org:{port}/again"}, b"")
        with pytest.raises(ssrf.Refused) as refused:
            ssrf.post(f"http://hooks.example.org:{port}/in", b"{}", {})
    assert refused.value.message == "the address redirects more than 3 times"
    assert len(fake.received) == ssrf.MAX_HOPS + 1


@pytest.mark.usefixtures("fake_public")
def test_the_timeouts_are_short_and_no_proxy_is_taken_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert ssrf.TIMEOUT.connect is not None and ssrf.TIMEOUT.connect <= 5
    assert ssrf.TIMEOUT.read is not None and ssrf.TIMEOUT.read <= 15
    monkeypatch.setenv("HTTP_PROXY", "http://10.0.0.1:3128")
    monkeypatch.setenv("ALL_PROXY", "http://10.0.0.1:3128")
    with serving(Receiver()) as fake:
        port = fake.url.rsplit(":", 1)[1]
        assert ssrf.post(f"http://hooks.example.org:{port}/in", b"{}", {}).status == 204


def test_hooks_allow_private_lets_tests_and_development_use_local_fakes(settings: Any) -> None:
    with pytest.raises(ssrf.Refused):
        ssrf.checked_url("http://127.0.0.1:8000/hook")
    settings.HOOKS_ALLOW_PRIVATE = True
    assert ssrf.checked_url("http://127.0.0.1:8000/hook").port == 8000
    with serving(Receiver()) as fake:
        assert ssrf.post(f"{fake.url}/hook", b"{}", {}).status == 204
