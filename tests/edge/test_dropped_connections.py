"""A database that is up is never reported down (issue 43, item 5).

After `pg_terminate_backend` the first token-authenticated API read of each gunicorn worker was a 503 "database
unreachable": `token_user` (and the character stamp) read on the driver's own cursor (`command_cursor`), which
skipped the health check Django's cursor makes once a request (`CONN_HEALTH_CHECKS`). Pages and POSTs recovered,
as their first statement went through Django's cursor. Now `command_cursor` makes the check too.

The test client disconnects Django's `close_old_connections` from `request_started`; gunicorn's handler fires it,
so it is called here between requests, as a worker does.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import close_old_connections, connection, connections

from campaign.ledger.eventstore import command_cursor
from tests.conftest import Table


def _next_request() -> None:
    """What a worker does between two requests: a kept connection will be checked before its first statement."""
    close_old_connections()


@pytest.mark.django_db(transaction=True)
def test_a_token_read_after_postgresql_ended_the_connection_answers(sr2: Table) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL ends connections; SQLite's are files (the next test simulates it)")
    character = f"/api/characters/{sr2.character['id']}/"
    assert sr2.player.get(character).status_code == 200
    pid = connection.connection.info.backend_pid
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**{**params, "autocommit": True}) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)
    for persona, url in ((sr2.player, character), (sr2.gm, f"/api/campaigns/{sr2.campaign['id']}/")):
        _next_request()
        answer = persona.get(url)
        assert answer.status_code == 200, answer.content
    assert connection.connection.info.backend_pid != pid  # a new connection, opened by the check


@pytest.mark.django_db(transaction=True)
def test_the_drivers_cursor_is_health_checked_as_djangos_is(sr2: Table, monkeypatch: Any) -> None:
    """The same on SQLite, the drop simulated: the kept connection closed under Django and reported unusable."""
    assert sr2.player.get(f"/api/characters/{sr2.character['id']}/").status_code == 200
    dropped = connection.connection
    dropped.close()
    monkeypatch.setattr(
        type(connections["default"]), "is_usable", lambda self: self.connection is not dropped
    )
    _next_request()
    answer = sr2.player.get(f"/api/characters/{sr2.character['id']}/")
    assert answer.status_code == 200, answer.content
    assert connection.connection is not dropped
    # Once a request: a second statement in it is not checked again.
    checks: list[bool] = []
    monkeypatch.setattr(type(connections["default"]), "is_usable", lambda self: checks.append(True) or True)
    _next_request()
    for _ in range(3):
        with command_cursor() as cursor:
            cursor.execute("SELECT 1", [])
            assert cursor.fetchone() == (1,)
    assert checks == [True]
