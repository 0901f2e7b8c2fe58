"""Throttles for the ways in: failed log-ins, counted per user name and per client address, for every way that
checks a password (the log-in page, the API's token, Django's admin); and the rates of log-in and sign-up requests
per client address, for the API and the pages alike.

Every password check goes through `ThrottledModelBackend`, so one count serves the three. A try takes its place
in both counts *before* the password is checked, and a try that succeeds gives its place back: however many tries
arrive at once, no more than the limit are ever checked in a window. Counting failures after the check (as
django-axes does, and as this project's log-in page did) let a burst of 29 parallel tries make 9 real checks for a
limit of 5; axes documents that race as one it will not fix (jazzband/django-axes#592), which is why this is not
axes.

The client's address is the peer's (`REMOTE_ADDR`) unless `TRUSTED_PROXIES` says how many proxies of ours stand in
front and append to `X-Forwarded-For`; the address is then read that many hops from the right (DRF's own rule, so
the API's rate throttles agree). A client cannot choose its address by sending the header.
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Any

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle, UserRateThrottle

FAILURES_PER_NAME = 5
FAILURES_PER_ADDRESS = 20
WINDOW_SECONDS = 300
THROTTLED_NAME = "too many failed log-ins for this user name; wait 5 minutes and try again"
THROTTLED_ADDRESS = "too many failed log-ins from your address; wait 5 minutes and try again"
_REFUSAL = "_login_throttled"


def client_address(request: HttpRequest) -> str:
    """The client's address: the peer's, or the one `TRUSTED_PROXIES` proxies of ours vouch for."""
    return BaseThrottle().get_ident(request)


def _name_key(username: str) -> str:
    # Hashed: the name is whatever was posted (megabytes, a NUL), and the cache keeps the key for minutes.
    return "login-tries:name:" + hashlib.sha256(username.strip().lower().encode()).hexdigest()


def _address_key(address: str) -> str:
    return "login-tries:address:" + hashlib.sha256(address.encode()).hexdigest()


def _take_place(key: str) -> int:
    """One more try in `key`'s window (which starts at its first try); how many there are now."""
    cache.add(key, 0, WINDOW_SECONDS)
    try:
        return cache.incr(key)
    except ValueError:  # the window ended between the two calls: this try opens a new one
        cache.add(key, 0, WINDOW_SECONDS)
        return cache.incr(key)


def _give_back(key: str) -> None:
    with contextlib.suppress(ValueError):  # the window has ended already
        cache.decr(key)


def refusal(request: HttpRequest | None) -> str | None:
    """Why the latest log-in of this request was refused unchecked, if it was."""
    return getattr(request, _REFUSAL, None)


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
        keys = [_name_key(username)]
        if request is not None:
            keys.append(_address_key(client_address(request)))
        counts = [_take_place(key) for key in keys]
        limits = ((FAILURES_PER_NAME, THROTTLED_NAME), (FAILURES_PER_ADDRESS, THROTTLED_ADDRESS))
        for count, (limit, message) in zip(counts, limits[: len(keys)], strict=True):
            if count > limit:
                for taken in keys:
                    _give_back(taken)
                if request is not None:
                    setattr(request, _REFUSAL, message)
                raise PermissionDenied(message)
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            for key in keys:
                _give_back(key)
        return user


class _ShowsRefusal:
    """A log-in form that says why a try was refused unchecked, rather than "wrong password"."""

    request: HttpRequest | None

    def get_invalid_login_error(self) -> ValidationError:
        message = refusal(self.request)
        if message is not None:
            return ValidationError(message, code="throttled")
        return super().get_invalid_login_error()  # type: ignore[misc]


class LoginForm(_ShowsRefusal, AuthenticationForm):
    pass


class AdminLoginForm(_ShowsRefusal, AdminAuthenticationForm):
    pass


class AddressRateThrottle(SimpleRateThrottle):
    """DRF's rate throttle, keyed on the client's address whether or not the client is logged in (DRF's
    AnonRateThrottle lets a logged-in client make accounts at any rate)."""

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}


class LoginRate(AddressRateThrottle):
    scope = "login"


class SignUpRate(AddressRateThrottle):
    scope = "signup"


class ForecastRate(UserRateThrottle):
    """A forecast costs a simulation (up to 5,000 futures): each user may ask for so many a minute (FORECAST_THROTTLE,
    docs/forecast.md). Answers are cached per state and parameters, but a new seed is a new simulation."""

    scope = "forecast"
