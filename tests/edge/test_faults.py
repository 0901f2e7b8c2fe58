"""Faults: the broker gone during an advance, the database refusing a write half-way through an action, a storm of
duplicate requests. Every failure is a clear error and nothing is lost, half-written or written twice."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, connections
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from campaign import tasks
from campaign.celery import app
from campaign.models import Campaign, Character, Event, Job
from tests.conftest import Table, make_table


def _closed_port() -> int:
    """A port nothing listens on: bound, then released."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def broker_down() -> Iterator[str]:
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    saved = app.conf.broker_url, app.conf.task_always_eager
    app.conf.broker_url, app.conf.task_always_eager = url, False
    try:
        with override_settings(CELERY_TASK_ALWAYS_EAGER=False, CELERY_BROKER_URL=url):
            yield url
    finally:
        app.conf.broker_url, app.conf.task_always_eager = saved
        # The producer pool keeps connections to the broker it first met: drop it, the next user makes a new one.

        app._pool = None


def _counts(table: Table) -> tuple[int, int, int, int]:
    campaign = Campaign.objects.get(pk=table.campaign["id"])
    return Event.objects.count(), Job.objects.count(), campaign.game_time, campaign.version


@pytest.mark.django_db
def test_an_advance_while_redis_is_unreachable_is_a_503_and_writes_nothing(
    sr2: Table, broker_down: str
) -> None:
    sr2.act({"type": "wound", "severity": "M", "rolls": {"body_check": [1, 1, 1, 1, 1]}})
    before = _counts(sr2)
    response = sr2.advance(hours=2)
    assert response.status_code == 503
    assert response.json() == {"clock": [tasks.BROKER_DOWN]}
    assert _counts(sr2) == before
    # The campaign is not left busy: once the broker is back (eager here), the same advance goes through.
    app.conf.task_always_eager = True
    with override_settings(CELERY_TASK_ALWAYS_EAGER=True):
        assert sr2.advance(hours=2).status_code == 202
    assert Campaign.objects.get(pk=sr2.campaign["id"]).game_time == 7200


@pytest.mark.django_db
def test_the_web_clock_form_says_the_queue_is_down_and_writes_nothing(sr2: Table, broker_down: str) -> None:
    from django.test import Client

    client = Client()
    client.force_login(sr2.gm.user)
    before = _counts(sr2)
    response = client.post(f"/campaigns/{sr2.campaign['id']}/clock/", {"unit": "hours", "amount": "1"})
    assert response.status_code == 503
    assert "cannot be reached" in response.content.decode()
    assert _counts(sr2) == before


REFUSE_PROJECTION = {
    "sqlite": [
        """CREATE TRIGGER refuse_projection BEFORE UPDATE ON campaign_character
           BEGIN SELECT RAISE(ABORT, 'database or disk is full (simulated)'); END;"""
    ],
    "postgresql": [
        """CREATE FUNCTION refuse_projection() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN RAISE EXCEPTION 'could not extend file: No space left on device (simulated)'
                 USING ERRCODE = 'disk_full'; END $$""",
        """CREATE TRIGGER refuse_projection BEFORE UPDATE ON campaign_character
           FOR EACH ROW EXECUTE FUNCTION refuse_projection()""",
    ],
}


@pytest.mark.django_db
def test_a_database_that_refuses_the_projection_write_leaves_no_half_written_action(sr2: Table) -> None:
    """The events are inserted, then the read-model update fails: the whole action must roll back."""
    character_url = sr2.character_url()
    before_character = sr2.gm.get(character_url).json()
    before_events = Event.objects.count()
    with connection.cursor() as cursor:
        for statement in REFUSE_PROJECTION[connection.vendor]:
            cursor.execute(statement)
    response = sr2.act({"type": "wound", "severity": "M", "rolls": {"body_check": [1, 1, 1, 1, 1]}})
    assert response.status_code == 503
    assert list(response.json()) == ["database"]
    # The database's own words (tables, triggers, values) stay in the log.
    assert response.json()["database"][0] in (
        "the database refused the write; nothing was saved, try again later",
        "the database is busy or refusing writes; try again",
    )
    assert Event.objects.count() == before_events
    with connection.cursor() as cursor:
        cursor.execute(
            "DROP TRIGGER refuse_projection"
            + (" ON campaign_character" if connection.vendor == "postgresql" else "")
        )
    assert sr2.gm.get(character_url).json() == before_character
    # The database accepts writes again: the same action now goes through, from version 1.
    retried = sr2.act({"type": "wound", "severity": "M", "rolls": {"body_check": [1, 1, 1, 1, 1]}})
    assert retried.status_code == 201
    assert retried.json()["events"][0]["version"] == 1


def _storm(table: Table, path: str, body: dict[str, Any], key: str, requests: int) -> list[tuple[int, Any]]:
    """`requests` identical posts by the GM at once, each from its own thread and connection, with one key."""
    token = Token.objects.get(user=table.gm.user).key
    answers: list[tuple[int, Any]] = []
    lock = threading.Lock()

    def send() -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            response = client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=key)
            with lock:
                answers.append((response.status_code, response.json()))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send) for _ in range(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


@pytest.mark.django_db(transaction=True)
def test_a_storm_of_identical_http_requests_with_one_key_appends_once_and_answers_alike(
    django_user_model: Any,
) -> None:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2})
    url = f"/api/characters/{table.character['id']}/actions/"
    body = {"type": "damage", "damage": 7, "location": "torso", "rolls": {"stun_save": [2]}}
    answers = _storm(table, url, body, "storm-1", 12)
    assert len(answers) == 12
    assert {status for status, _ in answers} == {201}
    first_events = answers[0][1]["events"]
    assert all(data["events"] == first_events for _, data in answers)
    assert sorted(data["replayed"] for _, data in answers) == [False] + [True] * 11
    character = Character.objects.get(pk=table.character["id"])
    rows = list(Event.objects.filter(stream=character.stream).order_by("version"))
    assert [row.version for row in rows] == [e["version"] for e in first_events]
    assert character.version == rows[-1].version


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("write", ["campaign", "character", "clock"])
def test_a_storm_of_creates_with_one_key_writes_once_and_answers_alike(
    django_user_model: Any, write: str
) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    path, body, expected = {
        "campaign": ("/api/campaigns/", {"name": "Storm", "ruleset": "shadowrun2"}, 201),
        "character": (
            f"/api/campaigns/{table.campaign['id']}/characters/",
            {"name": "Storm", "attributes": {"body": 4}},
            201,
        ),
        "clock": (f"/api/campaigns/{table.campaign['id']}/clock/", {"advance": {"hours": 1}}, 202),
    }[write]
    before = Campaign.objects.count(), Character.objects.count(), Job.objects.count(), Event.objects.count()
    answers = _storm(table, path, body, f"storm-{write}", 8)
    assert len(answers) == 8
    assert {status for status, _ in answers} == {expected}
    made = {data.get("id", data.get("job")) for _, data in answers}
    assert len(made) == 1
    after = Campaign.objects.count(), Character.objects.count(), Job.objects.count(), Event.objects.count()
    # One campaign (its CampaignCreated); one character (its CharacterCreated); one job (its ClockAdvanced).
    grew = {"campaign": (1, 0, 0, 1), "character": (0, 1, 0, 1), "clock": (0, 0, 1, 1)}[write]
    assert tuple(a - b for a, b in zip(after, before, strict=True)) == grew


@pytest.mark.django_db(transaction=True)
def test_a_keyed_new_campaign_in_progress_does_not_hold_up_its_users_log_in(django_user_model: Any) -> None:
    """An import with a key can run for minutes: what it holds is the key, not the user's row a log-in writes."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has one writer at a time whatever is locked")
    from django.db import transaction
    from django.utils import timezone

    from campaign import services

    user = django_user_model.objects.create_user(username="importer", password="a long pass phrase")
    held, done = threading.Event(), threading.Event()

    def import_in_progress() -> None:
        try:
            with transaction.atomic():
                services.campaign_made_with(user, "import-1", "digest")
                held.set()
                done.wait(10)
        finally:
            connections.close_all()

    holder = threading.Thread(target=import_in_progress)
    holder.start()
    try:
        assert held.wait(10)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '2s'")
            django_user_model.objects.filter(pk=user.pk).update(last_login=timezone.now())
    finally:
        done.set()
        holder.join(10)


@pytest.mark.django_db
def test_log_ins_are_a_503_saying_why_while_the_shared_cache_is_down(django_user_model: Any) -> None:
    """The log-in throttles count in the shared cache (CACHE_URL): without it a log-in cannot be checked."""
    from django.conf import settings
    from django.test import Client

    django_user_model.objects.create_user(username="yara", password="correct horse battery")
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    down = {
        **settings.CACHES,
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url},
    }
    with override_settings(CACHES=down):  # Django's test signals make the cache handler read CACHES again
        page = Client().post("/login/", {"username": "yara", "password": "correct horse battery"})
        api = APIClient().post("/api/auth/token/", {"username": "yara", "password": "x"}, format="json")
    assert page.status_code == 503 and b"shared cache (CACHE_URL) is unreachable" in page.content
    assert api.status_code == 503
    assert api.json() == {
        "cache": ["the server's shared cache (CACHE_URL) is unreachable; nothing was done, try again shortly"]
    }
