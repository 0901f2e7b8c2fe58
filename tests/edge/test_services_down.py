"""A service the server needs is down: the database, the shared cache (Redis) or the task queue. Every answer is a
503 naming the service in words (JSON for the API, our own page for the site), never Django's bare 500, and
nothing is written (docs/operations.md, "A service is down")."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections
from django.test import Client, override_settings
from django.utils.html import escape
from rest_framework.test import APIClient

from campaign import tasks
from campaign.celery import app
from campaign.http import outages
from campaign.models import Campaign, Event, Job
from tests.conftest import Table, make_table

DATABASE_DOWN = "the server's database (DATABASE_URL) is unreachable; nothing was done, try again shortly"
CACHE_DOWN = "the server's shared cache (CACHE_URL) is unreachable; nothing was done, try again shortly"
WOUND = {"type": "wound", "severity": "M", "rolls": {"body_check": [1, 1, 1, 1, 1]}}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def database_down() -> Iterator[None]:
    """Every new connection refused, as by a stopped server; the open ones closed first."""
    connections.close_all()
    refused = connection.Database.OperationalError("connection refused (simulated: the database is down)")

    def connect(*_args: Any, **_kwargs: Any) -> Any:
        raise refused

    saved = connection.get_new_connection
    connection.get_new_connection = connect  # type: ignore[method-assign]
    try:
        yield
    finally:
        connection.get_new_connection = saved  # type: ignore[method-assign]
        connections.close_all()


@contextmanager
def cache_down() -> Iterator[None]:
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    down = {
        **settings.CACHES,
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url},
    }
    with override_settings(CACHES=down):  # Django's test signals make the cache handler read CACHES again
        yield


@contextmanager
def broker_down() -> Iterator[None]:
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    saved = app.conf.broker_url, app.conf.task_always_eager
    app.conf.broker_url, app.conf.task_always_eager = url, False
    try:
        with override_settings(CELERY_TASK_ALWAYS_EAGER=False, CELERY_BROKER_URL=url):
            yield
    finally:
        app.conf.broker_url, app.conf.task_always_eager = saved
        app._pool = None  # the producer pool keeps connections to the broker it first met


def _counts(table: Table) -> tuple[int, int, int, int]:
    campaign = Campaign.objects.get(pk=table.campaign["id"])
    return Event.objects.count(), Job.objects.count(), campaign.game_time, campaign.version


def _web(table: Table) -> Client:
    client = Client()
    client.force_login(table.gm.user)
    return client


def _our_page(response: Any, words: str) -> str:
    """Our 503 page, in the site's style, saying `words`: not Django's bare 500 nor its debug page."""
    assert response.status_code == 503
    assert response["Content-Type"].startswith("text/html")
    assert response["Retry-After"] == "10"
    page = response.content.decode()
    assert "<title>Try again shortly · Wound Ledger</title>" in page
    assert 'href="/static/css/app.css"' in page or "app." in page
    assert f'<p role="alert">{escape(words[0].upper() + words[1:])}.</p>' in page
    assert "Log in" not in page and "Log out" not in page  # the account lives in the database
    return page


@pytest.fixture
def table(transactional_db: None, django_user_model: Any) -> Table:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    assert table.act(WOUND).status_code == 201
    return table


@pytest.mark.django_db(transaction=True)
def test_with_the_database_down_the_api_answers_a_503_naming_it_to_reads_and_writes(table: Table) -> None:
    before = _counts(table)
    with database_down():
        read = table.gm.get(table.character_url())
        write = table.act({"type": "note", "text": "while the database is down"})
        clock = table.advance(hours=1)
    for response in (read, write, clock):
        assert response.status_code == 503, response.content
        assert response.json() == {"database": [DATABASE_DOWN]}
        assert response["Retry-After"] == "10"
    assert _counts(table) == before
    assert table.act({"type": "note", "text": "back"}).status_code == 201  # and once it is back, it works


@pytest.mark.django_db(transaction=True)
def test_with_the_database_down_a_page_is_our_503_page_for_reads_and_writes(table: Table) -> None:
    client = _web(table)
    before = _counts(table)
    campaign_id, character_id = table.campaign["id"], table.character["id"]
    with database_down():
        board = client.get(f"/campaigns/{campaign_id}/")
        home = client.get("/")
        clock = client.post(f"/campaigns/{campaign_id}/clock/", {"unit": "hours", "amount": "1"})
        note = client.post(f"/characters/{character_id}/act/note/", {"text": "while the database is down"})
        log_in = Client().post("/login/", {"username": "gm", "password": "correct horse battery"})
    for response in (board, home, clock, note, log_in):
        _our_page(response, DATABASE_DOWN)
    assert _counts(table) == before
    assert client.get(f"/campaigns/{campaign_id}/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_connection_lost_inside_an_action_is_the_database_503_not_busy(table: Table) -> None:
    """Gone half-way through the request (after the transaction began), not at its start: still named."""
    from campaign.ledger import eventstore

    before = _counts(table)
    real = eventstore.lock_for_character
    down = ExitStack()

    def lost(*args: Any, **kwargs: Any) -> Any:
        connection.close()  # as pg_terminate_backend or a restarted server leaves it, and it stays down
        down.enter_context(database_down())
        return real(*args, **kwargs)

    eventstore.lock_for_character = lost  # type: ignore[assignment]
    with down:
        try:
            response = table.act({"type": "note", "text": "lost"})
        finally:
            eventstore.lock_for_character = real  # type: ignore[assignment]
    assert response.status_code == 503
    assert response.json() == {"database": [DATABASE_DOWN]}
    assert _counts(table) == before


@pytest.mark.django_db
def test_with_the_shared_cache_down_what_needs_it_is_a_503_naming_it_and_the_rest_answers(sr2: Table) -> None:
    client = _web(sr2)
    forecast = f"/api/characters/{sr2.character['id']}/forecast/"
    with cache_down():
        log_in_page = Client().post("/login/", {"username": "gm", "password": "correct horse battery"})
        log_in_api = APIClient().post("/api/auth/token/", {"username": "gm", "password": "x"}, format="json")
        throttled = sr2.gm.get(forecast)  # the forecast's throttle counts in the shared cache
        board = client.get(f"/campaigns/{sr2.campaign['id']}/")
        character = sr2.gm.get(sr2.character_url())
        note = sr2.act({"type": "note", "text": "the cache is not needed to write this"})
    _our_page(log_in_page, CACHE_DOWN)
    for response in (log_in_api, throttled):
        assert response.status_code == 503
        assert response.json() == {"cache": [CACHE_DOWN]}
    assert (board.status_code, character.status_code, note.status_code) == (200, 200, 201)


@pytest.mark.django_db
def test_with_the_task_queue_down_an_advance_is_a_503_naming_it_and_reads_answer(sr2: Table) -> None:
    client = _web(sr2)
    before = _counts(sr2)
    with broker_down():
        api = sr2.advance(hours=1)
        page = client.post(f"/campaigns/{sr2.campaign['id']}/clock/", {"unit": "hours", "amount": "1"})
        board = client.get(f"/campaigns/{sr2.campaign['id']}/")
        character = sr2.gm.get(sr2.character_url())
    assert api.status_code == 503
    assert api.json() == {"clock": [tasks.BROKER_DOWN]}
    assert page.status_code == 503
    said = tasks.BROKER_DOWN[:1].upper() + tasks.BROKER_DOWN[1:]
    assert said in page.content.decode()  # on the board, beside the clock, as a sentence
    assert (board.status_code, character.status_code) == (200, 200)
    assert _counts(sr2) == before


@pytest.mark.django_db
def test_the_task_queue_lost_anywhere_else_is_a_503_naming_it(sr2: Table, monkeypatch: Any) -> None:
    """Whatever meets the broker down without asking first (kombu's OperationalError) says so, API and page."""
    from kombu.exceptions import OperationalError

    def lost(*_args: Any, **_kwargs: Any) -> None:
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(tasks, "ensure_broker", lost)
    api = sr2.advance(hours=1)
    page = _web(sr2).post(f"/campaigns/{sr2.campaign['id']}/clock/", {"unit": "hours", "amount": "1"})
    assert api.status_code == 503
    assert api.json() == {"broker": [outages.DOWN[outages.BROKER]]}
    _our_page(page, outages.DOWN[outages.BROKER])
    assert "127.0.0.1" not in api.content.decode() + page.content.decode()
