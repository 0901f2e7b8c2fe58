"""Two app processes on one database (docs/scaling.md, "What app hosts do not share"): each keeps its own "pages"
cache of renderings and answers in its own memory, and neither is told of the other's writes. An entry is keyed by
what the database says now (the character's and the campaign's versions, the clock, the projection epoch, the
role), read by every request, so another process's write is a new key at once, never a stale entry.

Two real gunicorn servers of one worker each (A and B) on one SQLite file: the GM writes through A, the player and
the GM read through B, whose cache was warmed before the write. No broker: an advance runs in the request."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from perf.harness.servers import gunicorn

ROOT = Path(__file__).resolve().parents[2]

# A campaign, its GM and its player (each with an API token and a logged-in session), and the player's character.
SEED = """
import json
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("collectstatic", "--noinput", verbosity=0)  # DEBUG is off, as served: the manifest's names
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token
from campaign import services

User = get_user_model()
people = {}
for name in ("gm", "player"):
    user = User.objects.create_user(name, password="correct horse battery")
    client = Client()
    client.force_login(user)
    people[name] = {"token": Token.objects.create(user=user).key, "session": client.cookies["sessionid"].value}
gm = User.objects.get(username="gm")
campaign = services.campaign_create(user=gm, name="Night City", ruleset="cyberpunk2020")
services.member_add(campaign=campaign, username="player", role="player")
ash = services.character_create(
    campaign=campaign, actor="gm", name="Ash", player="player", attributes={"body": 6, "luck": 2}
)
print(json.dumps({"people": people, "campaign": campaign.pk, "character": ash.pk}))
"""

WOUND = {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [1]}}
LIVE = {"HX-Request": "true", "HX-Target": "live", "HX-Trigger": "live"}


@dataclass
class Answer:
    status: int
    etag: str | None
    body: str


@dataclass
class Servers:
    a: int
    b: int
    people: dict[str, dict[str, str]]
    campaign: int
    character: int

    def get(self, port: int, who: str, path: str, etag: str | None = None, page: bool = True) -> Answer:
        """`path` ending in "#live": the page's live region, as its poll asks for it."""
        headers: dict[str, str] = {}
        if page:
            headers["Cookie"] = f"sessionid={self.people[who]['session']}"
            if path.endswith("#live"):
                path, headers = path.removesuffix("#live"), {**headers, **LIVE}
        else:
            headers["Authorization"] = f"Token {self.people[who]['token']}"
        if etag is not None:
            headers["If-None-Match"] = etag
        return _request(port, "GET", path, headers)

    def api(self, port: int, method: str, path: str, body: Any) -> Answer:
        headers = {"Authorization": f"Token {self.people['gm']['token']}", "Content-Type": "application/json"}
        return _request(port, method, path, headers, json.dumps(body))


def _request(port: int, method: str, path: str, headers: dict[str, str], body: str | None = None) -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers={"Host": "127.0.0.1", **headers})
        response = connection.getresponse()
        return Answer(response.status, response.getheader("ETag"), response.read().decode())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    folder = tmp_path_factory.mktemp("two-processes")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "campaign.settings",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "STATIC_ROOT": str(folder / "static"),
        "DEBUG": "0",
        "SECRET_KEY": "two processes, one database",
        "SECURE_COOKIES": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "CELERY_BROKER_URL": "",
        "CACHE_URL": "",
    }
    seeded = subprocess.run(
        [sys.executable, "-c", SEED],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    made = json.loads(seeded.stdout.strip().splitlines()[-1])
    with (
        gunicorn(1, env=env, log=folder / "a.log") as (a, _),
        gunicorn(1, env=env, log=folder / "b.log") as (b, _),
    ):
        yield Servers(a, b, made["people"], made["campaign"], made["character"])


def _without_marks(html: str) -> str:
    """A GM's board without what differs from answer to answer whoever draws it: the CSRF token and the forms'
    one-use keys."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    html = re.sub(r'"X-CSRFToken": "[^"]*"', "", html)
    return re.sub(r'name="key" value="[^"]*"', "", html)


def test_a_write_through_one_process_is_seen_at_once_through_the_other(servers: Servers) -> None:
    s = servers
    page = f"/characters/{s.character}/#live"
    api = f"/api/characters/{s.character}/"
    board = f"/campaigns/{s.campaign}/#live"
    whole = f"/characters/{s.character}/"  # the player's page as loaded: its live region and its history
    party = f"/campaigns/{s.campaign}/recovery/"  # the party's recovery, its body kept per state

    # B's cache is warm: each read answered, then answered 304 from its ETag.
    player_page = s.get(s.b, "player", page)
    player_api = s.get(s.b, "player", api, page=False)
    gm_board = s.get(s.b, "gm", board)
    assert (player_page.status, player_api.status, gm_board.status) == (200, 200, 200)
    assert s.get(s.b, "player", page, player_page.etag).status == 304
    assert s.get(s.b, "player", api, player_api.etag, page=False).status == 304
    assert s.get(s.b, "gm", board, gm_board.etag).status == 304
    fit = s.get(s.b, "gm", party)
    assert fit.status == 200 and "all fit for action now" in fit.body
    loaded = s.get(s.b, "player", whole)
    assert loaded.status == 200 and _wound_boxes(loaded.body) == 0

    # The GM wounds Ash through A.
    acted = s.api(s.a, "POST", f"{api}actions/", WOUND)
    assert acted.status == 201, acted.body

    # The player's next poll through B is news at once, and what B answers is what A answers.
    polled = s.get(s.b, "player", page, player_page.etag)
    assert polled.status == 200 and polled.etag != player_page.etag
    assert _wound_boxes(polled.body) == 7  # 9 damage less Body's 2
    assert (polled.etag, polled.body) == _same(s.get(s.a, "player", page))
    answer = s.get(s.b, "player", api, player_api.etag, page=False)
    assert answer.status == 200 and answer.etag != player_api.etag
    assert json.loads(answer.body) == json.loads(s.get(s.a, "player", api, page=False).body)
    board_now = s.get(s.b, "gm", board, gm_board.etag)
    assert board_now.status == 200 and board_now.etag != gm_board.etag
    assert _without_marks(board_now.body) == _without_marks(s.get(s.a, "gm", board).body)
    assert _wound_boxes(s.get(s.b, "player", whole).body) == 7
    hurt = s.get(s.b, "gm", party)
    assert hurt.status == 200 and "all fit for action now" not in hurt.body
    assert _without_marks(hurt.body) == _without_marks(s.get(s.a, "gm", party).body)
    assert s.get(s.b, "player", page, polled.etag).status == 304  # and quiet again once seen

    # The clock advanced through A: B's pages read the new time at once.
    advanced = s.api(s.a, "POST", f"/api/campaigns/{s.campaign}/clock/", {"advance": {"hours": 1}})
    assert advanced.status == 202, advanced.body
    after_clock = s.get(s.b, "gm", board, board_now.etag)
    assert after_clock.status == 200 and "2020-01-01 01:00:00" in after_clock.body
    assert s.get(s.b, "player", api, answer.etag, page=False).status == 200

    # The campaign renamed through A: B's character page says the new name.
    renamed = s.api(s.a, "PATCH", f"/api/campaigns/{s.campaign}/", {"name": "Night City, after dark"})
    assert renamed.status == 200, renamed.body
    assert "Night City, after dark" in s.get(s.b, "player", whole).body

    # An undo through A: B's poll goes back to an unhurt Ash, the same as A's.
    undone = s.api(s.a, "POST", f"{api}actions/", {"type": "undo"})
    assert undone.status == 201, undone.body
    back = s.get(s.b, "player", page, polled.etag)
    assert back.status == 200 and _wound_boxes(back.body) == 0
    assert (back.etag, back.body) == _same(s.get(s.a, "player", page))


def _wound_boxes(html: str) -> int:
    """The wound track's boxes marked on the page: Cyberpunk's 40 less those drawn empty."""
    return 40 - html.count('class="box empty"')


def _same(answer: Answer) -> tuple[str | None, str]:
    assert answer.status == 200
    return answer.etag, answer.body
