"""Personas and services for the Django tests.

Personas (healthchecks-style): a GM, a second GM, a player, another campaign's player, a stranger and an anonymous
client, each an API client authenticated by token.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from random import Random
from typing import Any

import pytest
from django.db import connection
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from campaign.ledger import fast
from campaign.services import core
from rules.dice import Dice

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"

# CI explores the same examples on every run, so a red build always means a change, never a new random draw;
# local runs keep exploring.
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


def tricks_on(*tricks: str) -> pytest.MarkDecorator:
    """For a test of how speed tricks work (campaign/ledger/fast.py): skipped when LEDGER_PLAIN_ORM switches any of
    them to its plain ORM way (`make test-plain-orm`), which does the same thing otherwise."""
    off = [trick for trick in tricks if fast.plain(trick)]
    return pytest.mark.skipif(bool(off), reason=f"LEDGER_PLAIN_ORM: {', '.join(off)} plain")


def service_up(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def need_service(name: str, host: str, port: int) -> None:
    """Skip without the service on a laptop; fail in CI (REQUIRE_SERVICES=1)."""
    if service_up(host, port):
        return
    message = f"{name} is not reachable on {host}:{port}"
    if REQUIRE_SERVICES:
        pytest.fail(f"{message} and REQUIRE_SERVICES=1")
    pytest.skip(f"{message}; start it to run this test")


@pytest.fixture
def redis_service() -> str:
    need_service("Redis", "127.0.0.1", 6379)
    return os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


SQLITE_DELETE_TRIGGER = """CREATE TRIGGER IF NOT EXISTS campaign_event_no_delete BEFORE DELETE ON campaign_event
   BEGIN SELECT RAISE(ABORT, 'campaign_event is append-only: DELETE refused'); END;"""
POSTGRES_TRUNCATE_TRIGGER = "ALTER TABLE campaign_event {} TRIGGER campaign_event_no_truncate"


@pytest.fixture(autouse=True)
def _event_log_can_be_flushed_after_transactional_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Django flushes every table after a transactional test: with DELETE on SQLite, which the append-only trigger
    would refuse, and with TRUNCATE on PostgreSQL, which migration 0008's trigger refuses.

    Only for the flush: the trigger is dropped (SQLite) or disabled (PostgreSQL) after the test body and restored
    before the next transactional test. pytest-django runs the transactional tests after all the others, so every
    other test meets the triggers as the migrations made them.
    """
    marker = request.node.get_closest_marker("django_db")
    transactional = bool(marker and marker.kwargs.get("transaction"))
    if not transactional:
        yield
        return
    request.getfixturevalue("transactional_db")
    _flushing_allowed(False)
    yield
    _flushing_allowed(True)


def _flushing_allowed(allowed: bool) -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                "DROP TRIGGER IF EXISTS campaign_event_no_delete" if allowed else SQLITE_DELETE_TRIGGER
            )
        elif connection.vendor == "postgresql":
            cursor.execute(POSTGRES_TRUNCATE_TRIGGER.format("DISABLE" if allowed else "ENABLE"))


@dataclass
class Persona:
    name: str
    user: Any
    client: APIClient

    def get(self, path: str, **kw: Any) -> Any:
        return self.client.get(path, **kw)

    def post(self, path: str, data: Any = None, **kw: Any) -> Any:
        return self.client.post(path, data, format="json", **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self.client.delete(path, **kw)


def make_persona(django_user_model: Any, name: str) -> Persona:
    user = django_user_model.objects.create_user(username=name, password="correct horse battery")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return Persona(name, user, client)


@dataclass
class Table:
    """A campaign with its people: gm, gm2, player (plays `character`), other_player, stranger, anonymous."""

    campaign: dict[str, Any]
    character: dict[str, Any]
    gm: Persona
    gm2: Persona
    player: Persona
    other_player: Persona
    stranger: Persona
    anonymous: APIClient

    def act(self, body: dict[str, Any], who: Persona | None = None, **kw: Any) -> Any:
        return (who or self.gm).post(f"/api/characters/{self.character['id']}/actions/", body, **kw)

    def character_url(self) -> str:
        return f"/api/characters/{self.character['id']}/"

    def advance(self, **advance: int) -> Any:
        return self.gm.post(f"/api/campaigns/{self.campaign['id']}/clock/", {"advance": advance})


def join(gm: Persona, campaign_id: int, who: Persona, role: str) -> None:
    """`gm` invites `who` to the campaign and `who` accepts: a member from then on (docs/members.md)."""
    invited = gm.post(f"/api/campaigns/{campaign_id}/members/", {"username": who.name, "role": role})
    assert invited.status_code == 201, invited.content
    accepted = who.post(f"/api/invitations/{invited.json()['id']}/accept/")
    assert accepted.status_code == 200, accepted.content


def make_table(
    django_user_model: Any, ruleset: str, attributes: dict[str, Any], options: Any = None
) -> Table:
    from campaign import services
    from campaign.models import Campaign

    gm = make_persona(django_user_model, "gm")
    gm2 = make_persona(django_user_model, "gm2")
    player = make_persona(django_user_model, "player")
    other_player = make_persona(django_user_model, "other_player")
    stranger = make_persona(django_user_model, "stranger")
    campaign = gm.post(
        "/api/campaigns/", {"name": "Seattle 2053", "ruleset": ruleset, "options": options or {}}
    )
    assert campaign.status_code == 201, campaign.content
    campaign_id = campaign.json()["id"]
    # Members without the invitation round trip (tests/api/test_members.py tests it): the campaign's log stays as it
    # was before invitations, so the tests that count its lines or read its feed count what they act on.
    services.member_add(campaign=Campaign.objects.get(pk=campaign_id), username="gm2", role="gm")
    services.member_add(campaign=Campaign.objects.get(pk=campaign_id), username="player", role="player")
    character = gm.post(
        f"/api/campaigns/{campaign_id}/characters/",
        {"name": "Ash", "player": "player", "attributes": attributes},
    )
    assert character.status_code == 201, character.content
    other = gm.post("/api/campaigns/", {"name": "Elsewhere", "ruleset": ruleset}).json()
    services.member_add(campaign=Campaign.objects.get(pk=other["id"]), username="other_player", role="player")
    return Table(campaign.json(), character.json(), gm, gm2, player, other_player, stranger, APIClient())


@pytest.fixture
def sr2(db: None, django_user_model: Any) -> Table:
    return make_table(django_user_model, "shadowrun2", {"body": 5})


@pytest.fixture
def cp2020(db: None, django_user_model: Any) -> Table:
    return make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})


@pytest.fixture
def df(db: None, django_user_model: Any) -> Table:
    return make_table(django_user_model, "darkfuture", {"con": 8, "skills": {"driver": 3, "gunner": 4}})


@pytest.fixture(autouse=True)
def _throttles_start_at_zero() -> Iterator[None]:
    """The throttles count in the default cache, one per test process: each test starts with nobody's tries."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _forecasts_never_cut_by_the_machines_load(settings: Any) -> None:
    """The forecast's time box is wall time: on a busy machine a second is too short for a party's what-ifs, and a
    forecast cut short answers other futures (a recovery, a 503). Tests of the box set their own.

    The box is also bounded by the CPU budget the user has left this minute (`Box(min(FORECAST_TIME_BOX, left))`):
    with the served 5 s, a test reading six forecasts in one minute at a load of 11 had its last forecast cut short,
    and a byte-for-byte secrecy comparison failed. Tests of the budget set their own."""
    settings.FORECAST_TIME_BOX = 120
    settings.FORECAST_BUDGET = 600


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """Personas are made for every test; the real hasher's deliberate slowness buys nothing here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


class ServerDice:
    """The dice the services roll what nobody gave with (`campaign.services.core.DICE`), in one test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch

    def __call__(self, dice: type[Dice]) -> None:
        """These dice from now on, until the test ends (or the next call)."""
        self._monkeypatch.setattr(core, "DICE", dice)

    @contextmanager
    def using(self, dice: type[Dice]) -> Iterator[None]:
        """These dice within the block only."""
        with self._monkeypatch.context() as patch:
            patch.setattr(core, "DICE", dice)
            yield


@pytest.fixture
def server_dice(monkeypatch: pytest.MonkeyPatch) -> ServerDice:
    """The one way a test gives the server its dice: `server_dice(seeded_dice(7))`, or `with
    server_dice.using(...)` for a block."""
    return ServerDice(monkeypatch)


def seeded_dice(seed: int) -> type[Dice]:
    """A `Dice` whose server-rolled dice come from `Random(seed)`: the same rolls on every run (`server_dice`)."""

    class SeededDice(Dice):
        def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
            super().__init__(entered, rng or Random(seed), ask=ask)

    return SeededDice


def drawn_dice(source: Random) -> type[Dice]:
    """A `Dice` whose server-rolled dice come from `source`: in a Hypothesis test, `st.randoms()`'s, so that the
    dice the server rolls are part of the example (the same in CI on every run, shrunk and replayed with it)."""

    class DrawnDice(Dice):
        def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
            super().__init__(entered, rng or source, ask=ask)

    return DrawnDice
