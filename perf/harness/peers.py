"""What an action over HTTP is compared with (docs/PERFORMANCE.md, "http_action"), served by the same gunicorn as
the app: a minimal idiomatic Django REST framework app doing the same kind of write, and a bare WSGI function.

The peer, built in a temporary folder:

    POST /tables/<id>/notes/   {"text": "..."}   -> 201, the note as its ModelSerializer answers it

TokenAuthentication, `IsAuthenticated`, one model read for access (the table, among those the user belongs to), one
INSERT (the note), a `ModelSerializer` answer; SQLite in WAL mode with `synchronous=NORMAL`, as the app runs it;
`DEBUG` off; `startproject`'s settings otherwise (its apps and middleware, Django's default of a new connection
for each request), DRF's defaults otherwise (its JSON and browsable renderers, its parsers).
`build` writes it, migrates it and seeds a user with a token and tables; the row then starts gunicorn on it.

The floor, `application`: reads the body and answers 3 KB of JSON, about an action's answer; what an HTTP request
costs before any Django (`FLOOR`, served from this module; `perf/loadtest/http_floor.py` measures it alone).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FLOOR = "perf.harness.peers:application"
ANSWER = json.dumps({"said": "x" * 3000}).encode()


def application(environ: dict, start_response: object) -> list[bytes]:
    """The floor: the body read, 3 KB of JSON answered."""
    environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    start_response(  # type: ignore[operator]
        "201 Created", [("Content-Type", "application/json"), ("Content-Length", str(len(ANSWER)))]
    )
    return [ANSWER]


SETTINGS = """
# As `django-admin startproject` writes them (apps, middleware, a connection per request), DEBUG off; DRF with
# TokenAuthentication and IsAuthenticated, its other settings its defaults; SQLite as Django's notes on SQLite
# advise for concurrent writers (WAL, synchronous=NORMAL, IMMEDIATE transactions), as the app runs it.
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent
SECRET_KEY = "peer-bench-only-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "notes",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "peer_urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
WSGI_APPLICATION = "peer_wsgi.application"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": BASE_DIR / "peer.sqlite3",
        "OPTIONS": {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
            "transaction_mode": "IMMEDIATE",
        },
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}
"""

MODELS = """
from django.conf import settings
from django.db import models


class Table(models.Model):
    name = models.CharField(max_length=100)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="tables")


class Note(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    text = models.TextField(max_length=2000)
    created_at = models.DateTimeField(auto_now_add=True)
"""

VIEWS = """
from django.shortcuts import get_object_or_404
from rest_framework import generics, serializers

from notes.models import Note, Table


class NoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = Note
        fields = ["id", "table", "author", "text", "created_at"]
        read_only_fields = ["table", "author", "created_at"]


class NoteCreate(generics.CreateAPIView):
    serializer_class = NoteSerializer

    def perform_create(self, serializer):
        table = get_object_or_404(Table, pk=self.kwargs["pk"], members=self.request.user)
        serializer.save(table=table, author=self.request.user)
"""

URLS = """
from django.urls import path

from notes.views import NoteCreate

urlpatterns = [path("tables/<int:pk>/notes/", NoteCreate.as_view())]
"""

WSGI = """
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "peer_settings")
application = get_wsgi_application()
"""

SEED = """
import json, sys
import django

django.setup()
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from notes.models import Table

user = User.objects.create_user("gm")
tables = [Table.objects.create(name=f"table {n}") for n in range(int(sys.argv[1]))]
for table in tables:
    table.members.add(user)
print(json.dumps({"token": Token.objects.create(user=user).key, "tables": [t.pk for t in tables]}))
"""

FILES = {
    "peer_settings.py": SETTINGS,
    "peer_urls.py": URLS,
    "peer_wsgi.py": WSGI,
    "peer_seed.py": SEED,
    "notes/__init__.py": "",
    "notes/models.py": MODELS,
    "notes/views.py": VIEWS,
    "notes/migrations/__init__.py": "",
}


def environment(folder: Path) -> dict[str, str]:
    """The environment the peer runs in: its own settings, importable from `folder`, nothing of the app's."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "PYTHONPATH")}
    return env | {"DJANGO_SETTINGS_MODULE": "peer_settings", "PYTHONPATH": str(folder)}


def build(folder: Path, tables: int) -> tuple[str, list[int]]:
    """Write the peer app into `folder`, make and run its migrations, seed a user in `tables` tables. Returns the
    user's token and the tables' ids."""
    for name, text in FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text.lstrip())
    env = environment(folder)
    django_admin = [sys.executable, "-m", "django"]
    for command in (["makemigrations", "notes", "-v", "0"], ["migrate", "-v", "0"]):
        subprocess.run([*django_admin, *command], cwd=folder, env=env, check=True, capture_output=True)
    seeded = subprocess.run(
        [sys.executable, "peer_seed.py", str(tables)],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    answer = json.loads(seeded.stdout.strip().splitlines()[-1])
    return answer["token"], answer["tables"]
