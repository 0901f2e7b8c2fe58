"""Security: production settings (DEBUG off), CSRF on the web forms, log-in throttling on the API, and every
endpoint per persona (a player never acts, never sees GM-only values, never reaches another campaign)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from tests.conftest import Table

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, campaign.settings as s; print(json.dumps({k: getattr(s, k, None) for k in ["
    "'DEBUG', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SESSION_COOKIE_HTTPONLY', "
    "'SECURE_CONTENT_TYPE_NOSNIFF', 'SECURE_REFERRER_POLICY', 'X_FRAME_OPTIONS', 'ALLOWED_HOSTS']}))"
)


def _settings(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")}
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**clean, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_settings_make_cookies_secure_and_send_the_security_headers() -> None:
    done = _settings(DEBUG="0", SECRET_KEY="x" * 50, ALLOWED_HOSTS="ledger.example")
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)
    assert values == {
        "DEBUG": False,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SESSION_COOKIE_HTTPONLY": True,
        "SECURE_CONTENT_TYPE_NOSNIFF": True,
        "SECURE_REFERRER_POLICY": "same-origin",
        "X_FRAME_OPTIONS": "DENY",
        "ALLOWED_HOSTS": ["ledger.example"],
    }


def test_production_settings_refuse_to_start_without_a_secret_key() -> None:
    done = _settings(DEBUG="0")
    assert done.returncode != 0
    assert "SECRET_KEY must be set" in done.stderr


@pytest.mark.django_db
def test_responses_carry_the_security_headers(sr2: Table) -> None:
    response = sr2.gm.get(sr2.character_url())
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/campaigns/{campaign}/clock/", {"unit": "hours", "amount": "1"}),
        ("/campaigns/{campaign}/members/", {"username": "stranger", "role": "gm"}),
        ("/campaigns/{campaign}/characters/", {"name": "Forged", "attributes": "{}"}),
        ("/characters/{character}/act/note/", {"text": "forged"}),
        ("/", {"name": "Forged", "ruleset": "shadowrun2"}),
        ("/campaigns/{campaign}/members/player/remove/", {}),
        ("/campaigns/{campaign}/members/gm/remove/", {}),
    ],
)
def test_every_web_form_refuses_a_post_without_the_csrf_token(sr2: Table, path: str, data: dict) -> None:
    from campaign.models import Campaign, Event, Membership

    client = Client(enforce_csrf_checks=True)
    client.force_login(sr2.gm.user)
    before = (Event.objects.count(), Membership.objects.count(), Campaign.objects.count())
    url = path.format(campaign=sr2.campaign["id"], character=sr2.character["id"])
    assert client.post(url, data).status_code == 403
    assert (Event.objects.count(), Membership.objects.count(), Campaign.objects.count()) == before


@pytest.mark.django_db
def test_the_api_session_login_path_needs_csrf_but_tokens_do_not(sr2: Table) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(sr2.gm.user)
    url = f"/api/characters/{sr2.character['id']}/actions/"
    refused = client.post(url, {"type": "note", "text": "x"}, content_type="application/json")
    assert refused.status_code == 403
    assert sr2.act({"type": "note", "text": "x"}).status_code == 201


@pytest.mark.django_db
def test_api_token_requests_are_throttled_after_the_login_rate(sr2: Table, settings: Any) -> None:
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    cache.clear()
    rates = {**api_settings.DEFAULT_THROTTLE_RATES, "login": "3/min"}
    original = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = rates
    try:
        answers = [
            sr2.anonymous.post("/api/auth/token/", {"username": "gm", "password": "wrong"}, format="json")
            for _ in range(4)
        ]
    finally:
        SimpleRateThrottle.THROTTLE_RATES = original
        cache.clear()
    assert [a.status_code for a in answers] == [400, 400, 400, 429]


GM_ONLY_KEYS = {"death_at", "timers"}


@pytest.mark.django_db
def test_a_player_sees_no_gm_only_key_anywhere_in_the_api(sr2: Table) -> None:
    # A mortal lung hit: death in 3 x 10 minutes.
    mortal = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
    sr2.act({"type": "wound", "severity": "S", "open_wound": True, "rolls": mortal})
    sr2.act({"type": "note", "text": "GM secret: the sniper was Lone Star"})
    paths = [
        sr2.character_url(),
        f"/api/campaigns/{sr2.campaign['id']}/characters/",
        f"/api/characters/{sr2.character['id']}/events/",
        f"/api/campaigns/{sr2.campaign['id']}/events/",
        f"/api/campaigns/{sr2.campaign['id']}/clock/",
        f"/api/campaigns/{sr2.campaign['id']}/",
    ]
    for path in paths:
        response = sr2.player.get(path)
        assert response.status_code == 200, path
        text = response.content.decode()
        assert "Lone Star" not in text, path

        def walk(value: Any, where: str) -> None:
            if isinstance(value, dict):
                # Absent, or present and empty: the player's view keeps the shape and drops the value.
                leaked = {key for key in GM_ONLY_KEYS & set(value) if value[key] not in (None, [], {})}
                assert not leaked, f"{where} carries {leaked}"
                for key, child in value.items():
                    walk(child, f"{where}.{key}")
            elif isinstance(value, list):
                for child in value:
                    walk(child, where)

        walk(response.json(), path)
    assert sr2.gm.get(sr2.character_url()).json()["death_at"] == 1800


@pytest.mark.django_db
def test_nobody_but_the_gm_reaches_any_write_endpoint(sr2: Table) -> None:
    from campaign.models import Event, Job, Membership

    writes = [
        (f"/api/characters/{sr2.character['id']}/actions/", {"type": "note", "text": "x"}),
        (f"/api/campaigns/{sr2.campaign['id']}/clock/", {"advance": {"hours": 1}}),
        (f"/api/campaigns/{sr2.campaign['id']}/members/", {"username": "stranger", "role": "gm"}),
        (f"/api/campaigns/{sr2.campaign['id']}/characters/", {"name": "Z"}),
    ]
    before = (Event.objects.count(), Job.objects.count(), Membership.objects.count())
    for path, body in writes:
        assert sr2.player.post(path, body).status_code == 403, path
        assert sr2.other_player.post(path, body).status_code == 404, path
        assert sr2.stranger.post(path, body).status_code == 404, path
        assert sr2.anonymous.post(path, body, format="json").status_code == 401, path
    assert (Event.objects.count(), Job.objects.count(), Membership.objects.count()) == before
