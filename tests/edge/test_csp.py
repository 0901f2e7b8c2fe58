"""The Content-Security-Policy on every answer, and the API docs served from our own static files.
The browser side (no violation on any page, no request to another host) is tests/browser/test_csp.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.conftest import Table

ROOT = Path(__file__).resolve().parents[2]
POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
    "base-uri": ["'self'"],
    "object-src": ["'none'"],
}
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)


def policy(header: str | None) -> dict[str, list[str]]:
    """The header's directives by name (django-csp writes them in no fixed order)."""
    assert header, "no Content-Security-Policy header"
    directives = [part.split() for part in header.split(";")]
    return {name: values for name, *values in directives}


def test_a_page_carries_the_policy(sr2: Table) -> None:
    client = Client()
    client.force_login(sr2.gm.user)
    response = client.get(f"/characters/{sr2.character['id']}/")
    assert response.status_code == 200
    assert policy(response["Content-Security-Policy"]) == POLICY


def test_an_api_answer_carries_the_policy(sr2: Table) -> None:
    response = sr2.player.get(sr2.character_url())
    assert response.status_code == 200
    assert policy(response["Content-Security-Policy"]) == POLICY


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/no-such-page/", "/api/characters/999999/"])
def test_a_not_found_answer_carries_the_policy(path: str) -> None:
    client = Client()
    client.force_login(_user("reader"))
    response = client.get(path)
    assert response.status_code == 404
    assert policy(response["Content-Security-Policy"]) == POLICY


@pytest.mark.django_db
def test_a_refused_form_answers_with_our_page_and_no_inline_style() -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(_user("reader"))
    response = client.post("/", {"name": "Seattle 2053", "ruleset": "shadowrun2"})
    html = response.content.decode()
    assert response.status_code == 403
    assert policy(response["Content-Security-Policy"]) == POLICY
    assert "The form arrived without the security check" in html
    assert "<style" not in html and "style=" not in html and not INLINE_SCRIPT.search(html)


@pytest.mark.django_db
def test_the_api_docs_load_swagger_ui_from_our_static_files_with_no_inline_script_or_style() -> None:
    response = Client().get("/api/docs/")
    html = response.content.decode()
    assert response.status_code == 200
    assert policy(response["Content-Security-Policy"]) == POLICY
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources == [
        "/static/drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32.png",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css",
        "/static/css/api-docs.css",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-standalone-preset.js",
        "/api/docs/?script=",
    ]
    assert "<style" not in html and not INLINE_SCRIPT.search(html)


@pytest.mark.django_db
def test_the_api_docs_start_up_script_is_a_file_that_never_calls_the_swagger_validator() -> None:
    response = Client().get("/api/docs/?script=")
    script = response.content.decode()
    assert response.status_code == 200
    assert response["Content-Type"] == "application/javascript"
    assert 'url: "/api/schema/"' in script
    settings = json.loads(re.search(r"const swaggerSettings = (\{.*?\});", script, re.DOTALL).group(1))
    assert settings == {"validatorUrl": None}


# What `collectstatic` then a production server (DEBUG=0, whitenoise's manifest storage) give for the API docs:
# the page names the hashed files, and whitenoise serves each of them, with the policy.
PRODUCTION_DOCS = """
import json, re, sys
import django
from django.conf import settings
django.setup()
settings.STATIC_ROOT = sys.argv[1]
from django.core.management import call_command
call_command("collectstatic", "--noinput", verbosity=0)
from django.test import Client
client = Client()
page = client.get("/api/docs/")
sources = re.findall(r'(?:src|href)="([^"]+)"', page.content.decode())
answers = {source: client.get(source) for source in sources}
print(json.dumps({
    "page": page.status_code,
    "policy": page.get("Content-Security-Policy"),
    "sources": {
        source: [answer.status_code, answer.get("Content-Type"), "Content-Security-Policy" in answer]
        for source, answer in answers.items()
    },
}))
"""


def test_the_api_docs_work_in_production_from_collected_static_files(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")}
    done = subprocess.run(
        [sys.executable, "-c", PRODUCTION_DOCS, str(tmp_path / "static")],
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "campaign.settings",
            "DEBUG": "0",
            "SECRET_KEY": "x" * 50,
            "ALLOWED_HOSTS": "testserver",
            "SECURE_COOKIES": "0",
        },
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["page"] == 200
    assert policy(answer["policy"]) == POLICY
    hashed = r"\.[0-9a-f]{12}\."
    expected = {
        r"/static/drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32{h}png": "image/png",
        r"/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui{h}css": 'text/css; charset="utf-8"',
        r"/static/css/api-docs{h}css": 'text/css; charset="utf-8"',
        r"/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle{h}js": 'text/javascript; charset="utf-8"',
        r"/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-standalone-preset{h}js": 'text/javascript; charset="utf-8"',
        r"/api/docs/\?script=": "application/javascript",
    }
    sources = list(answer["sources"].items())
    assert len(sources) == len(expected)
    for (source, answered), (pattern, wanted_type) in zip(sources, expected.items(), strict=True):
        assert re.fullmatch(pattern.format(h=hashed), source), source
        assert answered == [200, wanted_type, True], source  # whitenoise's answers carry the policy too


def _user(name: str) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user(username=name, password="correct horse battery")
