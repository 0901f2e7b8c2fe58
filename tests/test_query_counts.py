"""The statements an action over HTTP and a character read send, as docs/PERFORMANCE.md counts them.

Counted: what the request asks of the database, without the transaction's own statements (BEGIN, SAVEPOINT,
RELEASE, COMMIT). The write of an action is one statement on PostgreSQL (the projection rides in the event INSERT);
on SQLite it is the INSERT, the character's UPDATE and one statement per kind of timer row changed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign import access, presenters
from campaign.api.views import CHARACTER_CACHE
from tests.conftest import Table

TRANSACTION = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT", "BEGIN", "COMMIT")
NOTES_READ = 2  # the undos and the notes of the stream (`presenters.gm_notes`)
UNDO_TARGET = 3  # what undo would take back, read from the log (`presenters.undo_target`) when not kept


def _notes_reads(sent: list[str]) -> int:
    return sum(sql.startswith("SELECT") and "'NoteAdded'" in sql for sql in sent)


@contextmanager
def statements() -> Iterator[list[str]]:
    sent: list[str] = []
    with CaptureQueriesContext(connection) as captured:
        yield sent
    sent.extend(q["sql"] for q in captured.captured_queries if not q["sql"].startswith(TRANSACTION))


def _write(timer_statements: int = 0) -> int:
    """The statements of an action's write (see the module's docstring)."""
    return 1 if connection.vendor == "postgresql" else 2 + timer_statements


def _answer(table: Table, body: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    with statements() as sent:
        response = table.act(body)
    assert response.status_code == 201, response.content
    return sent, response.json()


def test_an_action_over_http_reads_the_token_the_access_and_the_character_once(sr2: Table) -> None:
    """Token, access check (one raw query with the player's name), the read under the lock, the write: the
    campaign is not read again, nor the player, nor the notes when none changed."""
    sr2.act({"type": "note", "text": "the sniper was Lone Star"})
    sent, answer = _answer(sr2, {"type": "wound", "severity": "M", "damage": "stun"})
    assert len(sent) == 3 + _write(timer_statements=1), sent
    assert not any("campaign_event" in sql and sql.startswith("SELECT") for sql in sent)
    assert answer["character"]["notes"] == [{"text": "the sniper was Lone Star", "game_time": 0}]
    assert answer["character"]["player"] == "player"


def test_a_note_is_added_to_the_notes_kept_and_an_undo_reads_them_again(sr2: Table) -> None:
    sr2.act({"type": "note", "text": "first"})
    sent, answer = _answer(sr2, {"type": "note", "text": "second"})
    assert len(sent) == 3 + _write(), sent
    assert [note["text"] for note in answer["character"]["notes"]] == ["first", "second"]
    assert _notes_reads(sent) == 0
    sent, answer = _answer(sr2, {"type": "undo"})
    # The undo's own reads of the stream are the service's; the answer reads the notes again, once.
    assert _notes_reads(sent) == 1, sent
    assert [note["text"] for note in answer["character"]["notes"]] == ["first"]
    assert sr2.gm.get(sr2.character_url()).json()["notes"] == answer["character"]["notes"]


def test_the_notes_kept_are_the_latest_fifty(sr2: Table) -> None:
    for n in range(presenters.GM_NOTES_SHOWN + 2):
        answer = sr2.act({"type": "note", "text": f"note {n}"}).json()
    shown = [note["text"] for note in answer["character"]["notes"]]
    assert shown == [f"note {n}" for n in range(2, presenters.GM_NOTES_SHOWN + 2)]
    caches[presenters.NOTES_CACHE].clear()
    assert sr2.gm.get(sr2.character_url()).json()["notes"] == answer["character"]["notes"]


def test_an_action_whose_notes_were_not_kept_reads_them(sr2: Table) -> None:
    """The notes are kept per process (the pages cache): a process that has not seen them reads them."""
    sr2.act({"type": "note", "text": "kept"})
    caches[presenters.NOTES_CACHE].clear()
    sent, answer = _answer(sr2, {"type": "wound", "severity": "M", "damage": "stun"})
    assert len(sent) == 3 + _write(timer_statements=1) + NOTES_READ, sent
    assert [note["text"] for note in answer["character"]["notes"]] == ["kept"]


@pytest.mark.parametrize("who", ["gm", "player"])
def test_a_character_read_asks_only_what_the_etag_query_has_not_answered(sr2: Table, who: str) -> None:
    """A 304 or a kept answer: the token and the stamp. A new answer: the character's row (its campaign
    joined) on top; a GM's notes and what undo would take back come from the action's answer that kept them."""
    persona = getattr(sr2, who)
    sr2.act({"type": "note", "text": "GM only"})
    with statements() as sent:
        first = persona.get(sr2.character_url())
    assert first.status_code == 200 and len(sent) == 3, sent
    assert _notes_reads(sent) == 0
    with statements() as sent:
        again = persona.get(sr2.character_url())
    assert again.json() == first.json() and len(sent) == 2, sent
    with statements() as sent:
        unchanged = persona.get(sr2.character_url(), HTTP_IF_NONE_MATCH=first["ETag"])
    assert unchanged.status_code == 304 and len(sent) == 2, sent
    if who == "gm":
        assert first.json()["notes"] == [{"text": "GM only", "game_time": 0}]
        assert first.json()["undo"]["summary"] == "GM note: GM only"
    else:
        assert "notes" not in first.json() and first.json()["player"] == "player"


def test_a_gm_read_in_a_process_that_kept_no_notes_reads_them(sr2: Table) -> None:
    sr2.act({"type": "note", "text": "GM only"})
    caches[presenters.NOTES_CACHE].clear()
    with statements() as sent:
        read = sr2.gm.get(sr2.character_url())
    assert len(sent) == 3 + NOTES_READ + UNDO_TARGET, sent
    assert read.json()["notes"] == [{"text": "GM only", "game_time": 0}]


def test_the_token_check_refuses_as_drf_does(sr2: Table) -> None:
    """One raw query (`campaign.api.authentication`), DRF's refusals: an unknown token, a deactivated user."""
    from rest_framework.test import APIClient

    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    refused = stranger.get(sr2.character_url())
    assert refused.status_code == 401 and refused.json() == {"detail": "Invalid token."}
    with statements() as sent:
        assert sr2.gm.get("/api/campaigns/").status_code == 200
    assert "authtoken_token" in sent[0] and len(sent) == 2, sent  # the token, the campaigns
    sr2.gm.user.is_active = False
    sr2.gm.user.save()
    refused = sr2.gm.get(sr2.character_url())
    assert refused.status_code == 401 and refused.json() == {"detail": "User inactive or deleted."}


def test_an_undo_entry_is_read_from_the_log_once_per_version(sr2: Table) -> None:
    """An undo or a revert makes an older entry the next to take back: the first GM read after it reads it (the
    action could not know it without those queries); any later fresh answer at that version has it kept."""
    sr2.act({"type": "note", "text": "first"})
    sr2.act({"type": "wound", "severity": "M", "damage": "stun"})
    sr2.act({"type": "undo"})
    with statements() as sent:
        read = sr2.gm.get(sr2.character_url())
    assert len(sent) == 3 + UNDO_TARGET, sent
    assert read.json()["undo"]["summary"] == "GM note: first"
    stamp = access.character_stamp(sr2.gm.user, sr2.character["id"])
    caches[CHARACTER_CACHE].delete(stamp.cache_key("api-character2"))  # a new answer, the same version
    with statements() as sent:
        again = sr2.gm.get(sr2.character_url())
    assert len(sent) == 3 and again.json() == read.json(), sent
