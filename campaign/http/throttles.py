"""Throttles for the ways in: failed log-ins, for every way that checks a password (the log-in page, the API's
token, Django's admin); and the rates of log-in and sign-up requests per client address, for the API and the pages
alike. The decision and its figures: docs/security.md, "Log-ins".

Every password check goes through `ThrottledModelBackend`, so one count serves the three. Failed tries are counted
three ways: per user name and address (the pairing), per address, and per user name from anywhere. Past the
pairing's or the address's limit that pairing or address is refused until its window ends: an attacker at one
address locks out only that address. The user name as a whole is never locked: past its free tries its password is
checked at most once per delay, a delay that doubles with each failure (up to a cap), and a try from an address
the user has logged in from before skips the delay. A try refused is answered at once (429, Retry-After) rather
than held: a sleeping request would hold one of the server's few workers.

A try takes its place in every count *before* the password is checked, and a try that succeeds or is refused gives
its place back: however many tries arrive at once, no more than the limits are ever checked in a window. Counting
failures after the check (as django-axes does, and as this project's log-in page did) let a burst of 29 parallel
tries make 9 real checks for a limit of 5; axes documents that race as one it will not fix (jazzband/django-axes#592),
which is why this is not axes.

The client's address is the peer's (`REMOTE_ADDR`) unless `TRUSTED_PROXIES` says how many proxies of ours stand in
front and append to `X-Forwarded-For`; the address is then read that many hops from the right (DRF's own rule, so
the API's rate throttles agree). A client cannot choose its address by sending the header. An IPv6 address counts
by its /64 network, the block one subscriber is given.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import math
import time
from dataclasses import dataclass
from typing import Any, NoReturn

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle, UserRateThrottle

from campaign.forecast.forecast_budget import Refused

PERIOD_WORDS = {1: "a second", 60: "a minute", 3600: "an hour", 86_400: "a day"}  # a rate's period, in words
KNOWN_ADDRESS_SECONDS = 30 * 86_400
"""How long an address a user logged in from lets them skip the user name's delay."""
FIRST_DELAY_SECONDS = 1
THROTTLED_PAIR = "too many failed log-ins for this user name from your address; try again in {wait}"
THROTTLED_ADDRESS = "too many failed log-ins from your address; try again in {wait}"
THROTTLED_NAME = "too many failed log-ins for this user name from other addresses; try again in {wait}"
_REFUSAL = "_login_throttled"


def wait_words(seconds: float) -> str:
    """'45 seconds', '1 second', '15 minutes': how long until a refused try may be made again."""
    whole = max(1, math.ceil(seconds))
    if whole < 120:
        return f"{whole} second{'' if whole == 1 else 's'}"
    minutes = math.ceil(whole / 60)
    return f"{minutes} minutes"


def client_address(request: HttpRequest) -> str:
    """The client's address: the peer's, or the one `TRUSTED_PROXIES` proxies of ours vouch for."""
    return BaseThrottle().get_ident(request)


def _network(address: str) -> str:
    """The address as it is counted: an IPv6 address by its /64 (one subscriber holds them all), others as they are."""
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return address or ""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _digest(*parts: str) -> str:
    # Hashed: the name is whatever was posted (megabytes, a NUL), and the cache keeps the key for minutes.
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _user_name(username: str) -> str:
    return username.strip().lower()


@dataclass
class WindowCount:
    """A count in the default cache, in a window that starts at its first place taken; `incr` is atomic (in Redis
    and in the local-memory cache), so places taken at once are all counted."""

    key: str
    window: int

    def take(self, places: int = 1) -> int:
        """`places` more in the window; how many there are now."""
        self._open()
        try:
            return cache.incr(self.key, places)
        except ValueError:  # the window ended between the two calls: this opens a new one
            self._open()
            return cache.incr(self.key, places)

    def _open(self) -> None:
        if cache.add(self.key, 0, self.window):
            cache.set(f"{self.key}:ends", time.time() + self.window, self.window)

    def give_back(self, places: int = 1) -> None:
        with contextlib.suppress(ValueError):  # the window has ended already
            cache.decr(self.key, places)

    def left(self) -> float:
        """Seconds until the window ends."""
        ends = cache.get(f"{self.key}:ends")
        return self.window if ends is None else max(1.0, ends - time.time())


@dataclass(frozen=True)
class Refusal:
    """Why a log-in was refused unchecked, and when it may be tried again."""

    message: str
    retry_after: int


def refusal(request: HttpRequest | None) -> Refusal | None:
    """Why the latest log-in of this request was refused unchecked, if it was."""
    return getattr(request, _REFUSAL, None)


def _known_key(username: str, network: str) -> str:
    return "login-known:" + _digest(_user_name(username), network)


def name_slot(username: str) -> str:
    """The cache key held while a user name waits out its delay between two checks of its password."""
    return "login-slot:" + _digest(_user_name(username))


def _delay(failures: int) -> int:
    """Seconds between two checks of a user name's password once it has had `failures` failed tries (past the free
    ones): one second, doubling with each failure, up to LOGIN_DELAY_MAX_SECONDS."""
    free = settings.LOGIN_FAILURES_BEFORE_DELAY
    doublings = min(max(failures - free - 1, 0), 30)
    return min(FIRST_DELAY_SECONDS * 2**doublings, settings.LOGIN_DELAY_MAX_SECONDS)


class ThrottledModelBackend(ModelBackend):
    """Django's user-name-and-password backend, with each try counted before the password is checked."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> AbstractBaseUser | None:
        if username is None:
            username = kwargs.get("username")
        if not isinstance(username, str) or password is None:
            return None  # nothing to check; Django's backend would do the same
        name = _user_name(username)
        window = settings.LOGIN_WINDOW_SECONDS
        network = _network(client_address(request)) if request is not None else None
        taken: list[WindowCount] = []
        counts: list[tuple[WindowCount, int, str]] = []
        if network is not None:
            counts.append(
                (
                    WindowCount("login-tries:address:" + _digest(network), window),
                    settings.LOGIN_FAILURES_PER_ADDRESS,
                    THROTTLED_ADDRESS,
                )
            )
            counts.append(
                (
                    WindowCount("login-tries:pair:" + _digest(name, network), window),
                    settings.LOGIN_FAILURES_PER_PAIR,
                    THROTTLED_PAIR,
                )
            )
        for count, limit, message in counts:
            taken.append(count)
            if count.take() > limit:
                left = count.left()
                self._refuse(request, taken, Refusal(message.format(wait=wait_words(left)), math.ceil(left)))
        named = WindowCount("login-tries:name:" + _digest(name), window)
        taken.append(named)
        failures = named.take()
        known = network is not None and cache.get(_known_key(name, network)) is not None
        if failures > settings.LOGIN_FAILURES_BEFORE_DELAY and not known:
            # One check per delay for the whole user name: the first try to take the slot is checked, the others
            # are told when the slot opens again. `add` is atomic, so a burst takes it once.
            delay = _delay(failures)
            slot = name_slot(name)
            if not cache.add(slot, time.time() + delay, delay):
                opens = cache.get(slot)
                left = delay if opens is None else max(1.0, opens - time.time())
                message = THROTTLED_NAME.format(wait=wait_words(left))
                self._refuse(request, taken, Refusal(message, math.ceil(left)))
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            for count in taken:
                count.give_back()
            if network is not None:
                cache.set(_known_key(name, network), 1, KNOWN_ADDRESS_SECONDS)
        return user

    @staticmethod
    def _refuse(request: HttpRequest | None, taken: list[WindowCount], refused: Refusal) -> NoReturn:
        for count in taken:
            count.give_back()
        if request is not None:
            setattr(request, _REFUSAL, refused)
        raise PermissionDenied(refused.message)


class _ShowsRefusal:
    """A log-in form that says why a try was refused unchecked, rather than "wrong password"."""

    request: HttpRequest | None

    def get_invalid_login_error(self) -> ValidationError:
        refused = refusal(self.request)
        if refused is not None:
            return ValidationError(refused.message, code="throttled")
        return super().get_invalid_login_error()  # type: ignore[misc]


class LoginForm(_ShowsRefusal, AuthenticationForm):
    pass


class AdminLoginForm(_ShowsRefusal, AdminAuthenticationForm):
    pass


class WindowRate(SimpleRateThrottle):
    """DRF's rate throttle (its rates, scopes and `Retry-After`), counted with an atomic counter: `WindowCount`, the
    cache's `incr`, in a window from its first request. DRF's own reads a history of the requests and writes it
    back apart, so requests sent at once all read the same history: 40 sign-ups at once from one address made 22
    and 21 accounts against a rate of 20 (issue 43). A request past the rate takes no place of the next window."""

    cache_format = "rate:%(scope)s:%(ident)s"  # not DRF's key: its value there is a list, not a count

    def allow_request(self, request: Any, view: Any) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        self.window = WindowCount(key, self.duration)
        return self.window.take() <= self.num_requests

    def wait(self) -> float:
        return self.window.left()


class AddressRateThrottle(WindowRate):
    """The rate throttle, keyed on the client's address whether or not the client is logged in (DRF's
    AnonRateThrottle lets a logged-in client make accounts at any rate)."""

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}


class LoginRate(AddressRateThrottle):
    scope = "login"


class SignUpRate(AddressRateThrottle):
    scope = "signup"


class ForecastRate(WindowRate, UserRateThrottle):
    """A forecast costs a simulation (up to 5,000 futures): each user may ask for so many a minute (FORECAST_THROTTLE,
    docs/forecast.md). Answers are cached per state and parameters, but a new seed is a new simulation. One count
    per user for the API and the pages (`forecast_rate`)."""

    scope = "forecast"


FORECASTS_THROTTLED = (
    "at most {rate} forecasts {period} per user, the pages' and the API's together; try again in {wait}"
)


def forecast_rate(request: HttpRequest) -> None:
    """A forecast asked through a page (the party's recovery, a character's forecast) takes its place in the user's
    FORECAST_THROTTLE as the API's do; past it, the forecast budget's refusal (a 429 with `Retry-After`), which
    the pages already answer in words."""
    rate = ForecastRate()
    if rate.allow_request(request, None):
        return
    wait = max(1, math.ceil(rate.wait()))
    period = PERIOD_WORDS.get(rate.duration, f"per {rate.duration} seconds")
    raise Refused(
        FORECASTS_THROTTLED.format(rate=rate.num_requests, period=period, wait=wait_words(wait)), wait
    )
