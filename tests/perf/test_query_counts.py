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

from campaign.api.views import CHARACTER_CACHE
from campaign.models import Character
from campaign.selectors import access, history
from campaign.web.views.board import BOARD_PAGE
from tests.conftest import Table, make_table, tricks_on
from tests.web.conftest import Web, make_web
from tests.web.test_board_pages import add_characters

# The budgets count the statements of the one-statement read and write: the ORM's plain way sends more.
pytestmark = tricks_on("command_read", "command_write")

TRANSACTION = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT", "BEGIN", "COMMIT")
NOTES_READ = 2  # the undos and the notes of the stream (`history.gm_notes`)
UNDO_TARGET = 3  # what undo would take back, read from the log (`history.undo_entry`) when not kept


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


def test_an_action_with_an_idempotency_key_costs_no_statement_more(sr2: Table) -> None:
    """The read under the lock finds where the key is held: no lookup of its own. Its retry answers the same."""
    sr2.act({"type": "note", "text": "first"})
    with statements() as sent:
        response = sr2.act({"type": "note", "text": "once"}, HTTP_IDEMPOTENCY_KEY="k1")
    assert response.status_code == 201 and len(sent) == 3 + _write(), sent
    retried = sr2.act({"type": "note", "text": "once"}, HTTP_IDEMPOTENCY_KEY="k1")
    assert retried.status_code == 201 and retried.json() == {**response.json(), "replayed": True}


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
    for n in range(history.GM_NOTES_SHOWN + 2):
        answer = sr2.act({"type": "note", "text": f"note {n}"}).json()
    shown = [note["text"] for note in answer["character"]["notes"]]
    assert shown == [f"note {n}" for n in range(2, history.GM_NOTES_SHOWN + 2)]
    caches[history.NOTES_CACHE].clear()
    assert sr2.gm.get(sr2.character_url()).json()["notes"] == answer["character"]["notes"]


def test_an_action_whose_notes_were_not_kept_reads_them(sr2: Table) -> None:
    """The notes are kept per process (the pages cache): a process that has not seen them reads them."""
    sr2.act({"type": "note", "text": "kept"})
    caches[history.NOTES_CACHE].clear()
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
    caches[history.NOTES_CACHE].clear()
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


# --- the pages' budgets (docs/architecture.md, "Query budgets") ----------------------------------------------------
# Every statement of the request through the test client: the log-in session, the user, the request's transaction
# (AnswerBeforeCommit: SAVEPOINT and RELEASE here, BEGIN and COMMIT in production) and the command's savepoint.

HTMX = {"HTTP_HX_REQUEST": "true"}
LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}
# A wound from a card or the character page, besides its write (`_write`: one statement on PostgreSQL, three on
# SQLite with the one kind of timer it starts): the request's transaction (2), session and user (2), the access
# check, the command's savepoint (2) and its read under the lock, which finds where the form's key is held too.
# 9 on PostgreSQL (the budget), 11 on SQLite; before: 10 and 12 (the key's own lookup), 19 on SQLite before
# that (the character presented before the command, read again and presented again after it).
A_WOUND_FROM_A_PAGE = 2 + 2 + 1 + 2 + 1
# An advance handed to the worker: the request's transaction, session and user, the access check, the service's
# savepoint, lock, key lookup, open job, characters followed, the job's INSERT, and the job read back: 13. Before: 25
# (the whole board drawn for the clock's form, the job and the campaign read again).
THE_CLOCK_FORMS_ANSWER = 15
# Without a broker the advance runs in the request (the wound's one firing below included). Before: 40.
THE_CLOCK_FORMS_ANSWER_IN_PROCESS = 28
# The GM board's live region after a wound: session and user, the access check, the ETag's reads, the card read
# whole, the clock's next timers, the members and invitations. Before: 15 (the card's GM notes read, 2).
THE_BOARDS_LIVE_REFRESH = 13


@pytest.fixture
def sr2_page(db: None, django_user_model: Any) -> Web:
    caches["pages"].clear()
    return make_web(make_table(django_user_model, "shadowrun2", {"body": 5}))


@pytest.fixture
def cp2020_page(db: None, django_user_model: Any) -> Web:
    caches["pages"].clear()
    return make_web(make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}))


def every_statement(
    client: Any, path: str, data: dict[str, str] | None = None, **headers: str
) -> tuple[Any, list[str]]:
    """The answer and every statement the whole request sent."""
    with CaptureQueriesContext(connection) as captured:
        response = client.post(path, data, **headers) if data is not None else client.get(path, **headers)
    return response, [q["sql"] for q in captured.captured_queries]


SR2_WOUND = {"p_severity": "M", "p_damage": "stun", "r_body_check": "1 1 1 1 1", "key": "k1"}
CP2020_DAMAGE = {
    "p_damage": "12",
    "p_location": "torso",
    "r_stun_save_0": "10",
    "r_death_save_0": "1",
    "key": "k1",
}


def _within(sent: list[str], budget: int) -> None:
    assert len(sent) <= budget, "\n".join(sent)


def test_a_wound_from_a_shadowrun_card_is_answered_from_the_actions_result(sr2_page: Web) -> None:
    path = f"/characters/{sr2_page.character_id}/card/wound/"
    response, sent = every_statement(sr2_page.gm, path, SR2_WOUND, **HTMX)
    assert response.status_code == 200 and response["HX-Trigger"] == "refresh", response.content
    html = response.content.decode()
    assert "Ash: Moderate stun wound" in html and "played by player" in html, html
    _within(sent, A_WOUND_FROM_A_PAGE + _write(timer_statements=1))


def test_a_wound_from_a_cyberpunk_card_is_answered_from_the_actions_result(cp2020_page: Web) -> None:
    path = f"/characters/{cp2020_page.character_id}/card/damage/"
    response, sent = every_statement(cp2020_page.gm, path, CP2020_DAMAGE, **HTMX)
    assert response.status_code == 200 and response["HX-Trigger"] == "refresh", response.content
    html = response.content.decode()
    assert "Ash: 12 normal damage to the torso" in html
    assert "Wound track: 10 of 40 points (10 real, 0 stun), level critical" in html
    _within(sent, A_WOUND_FROM_A_PAGE + _write(timer_statements=1))


def test_a_wound_from_the_character_page_is_answered_from_the_actions_result(sr2_page: Web) -> None:
    path = f"/characters/{sr2_page.character_id}/act/wound/"
    response, sent = every_statement(sr2_page.gm, path, SR2_WOUND, **HTMX)
    assert response.status_code == 200 and response["HX-Trigger"] == "refresh", response.content
    assert '<p class="ok" role="status">Moderate stun wound' in response.content.decode()
    _within(sent, A_WOUND_FROM_A_PAGE + _write(timer_statements=1))


def test_a_wound_the_rules_refuse_reads_nothing_after_the_command(sr2_page: Web) -> None:
    path = f"/characters/{sr2_page.character_id}/card/wound/"
    response, sent = every_statement(sr2_page.gm, path, {"p_severity": "X", "key": "k1"}, **HTMX)
    assert response.status_code == 400 and 'class="error"' in response.content.decode()
    # The command rolled back to its savepoint; then only the request's own RELEASE (before: 17 statements).
    assert [sql.split()[0] for sql in sent[-3:]] == ["ROLLBACK", "RELEASE", "RELEASE"], sent
    _within(sent, A_WOUND_FROM_A_PAGE + 1)


def test_the_answer_to_the_clock_form_draws_the_clock_form_alone(
    sr2_page: Web, monkeypatch: Any, settings: Any
) -> None:
    """With a broker: the request writes the job and hands it over (the worker runs it)."""
    from campaign import tasks

    settings.CELERY_TASK_ALWAYS_EAGER = False
    monkeypatch.setattr(tasks, "ensure_broker", lambda *args, **kw: None)
    monkeypatch.setattr(tasks, "enqueue_advance", lambda *args, **kw: None)
    path = f"/campaigns/{sr2_page.campaign_id}/clock/"
    response, sent = every_statement(
        sr2_page.gm, path, {"unit": "minutes", "amount": "1", "key": "k1"}, **HTMX
    )
    assert response.status_code == 200 and response["HX-Trigger"] == "refresh", response.content
    html = response.content.decode()
    # The advance still running is the live region's to say (it forgets it when the job ends), not the panel's.
    assert html.lstrip().startswith('<section id="clock-form"') and "the clock is running" not in html
    _within(sent, THE_CLOCK_FORMS_ANSWER)


def test_the_answer_to_the_clock_form_run_in_process_reads_no_board(sr2_page: Web) -> None:
    sr2_page.table.act({"type": "wound", "severity": "M", "damage": "stun"})
    path = f"/campaigns/{sr2_page.campaign_id}/clock/"
    response, sent = every_statement(
        sr2_page.gm, path, {"unit": "minutes", "amount": "1", "key": "k1"}, **HTMX
    )
    assert response.status_code == 200 and response["HX-Trigger"] == "refresh", response.content
    assert "Advanced 1 min to 2053-01-01 00:01:00." in response.content.decode()
    assert not any("campaign_invitation" in sql for sql in sent)  # no members card drawn
    _within(sent, THE_CLOCK_FORMS_ANSWER_IN_PROCESS)


def test_the_boards_live_refresh_after_a_wound_is_no_worse_than_it_was(sr2_page: Web) -> None:
    board = f"/campaigns/{sr2_page.campaign_id}/"
    sr2_page.gm.get(board, **LIVE)
    sr2_page.table.act({"type": "wound", "severity": "M", "damage": "stun"})
    response, sent = every_statement(sr2_page.gm, board, **LIVE)
    assert response.status_code == 200 and f'id="card-{sr2_page.character_id}' in response.content.decode()
    _within(sent, THE_BOARDS_LIVE_REFRESH)


# A board's reads, six characters (Ash and five NPCs): the GM's page as loaded with nothing kept (session and user,
# the access check, the page's one statement, the cards' rows and their states, the open job, the ETag's totals,
# the clock's next timers, the latest advance for its summary (kept by the campaign's version: none after it), the
# house rules' last change, the invitations, the members, their history, the retired, the party's section looked
# up), the same page kept, the live refresh after a wound and unchanged
# (304), the player's page and refresh.
SMALL_BOARD = {
    "gm page": 16,
    "gm page kept": 5,
    "gm refresh after a wound": 13,
    "gm refresh unchanged": 5,
    "player page": 6,
    "player refresh": 4,
}
# The largest campaign allowed draws its first page in a small board's reads; its full pages read one statement
# fewer: the party's section of more than BOARD_WHOLE characters is not looked up, but fetched once shown.
PARTY_LOOKUP = ("gm page", "gm page kept", "player page")


def _board_reads(web: Web) -> dict[str, int]:
    board = f"/campaigns/{web.campaign_id}/"
    reads = {}
    caches["pages"].clear()
    reads["gm page"] = len(every_statement(web.gm, board)[1])
    reads["gm page kept"] = len(every_statement(web.gm, board)[1])
    web.table.act(
        {"type": "wound", "severity": "M", "damage": "stun", "rolls": {"body_check": [1, 1, 1, 1, 1]}}
    )
    response, sent = every_statement(web.gm, board, **LIVE)
    assert response.status_code == 200 and response.content.count(b'class="board-card"') <= BOARD_PAGE
    reads["gm refresh after a wound"] = len(sent)
    response, sent = every_statement(web.gm, board, HTTP_IF_NONE_MATCH=response["ETag"], **LIVE)
    assert response.status_code == 304
    reads["gm refresh unchanged"] = len(sent)
    caches["pages"].clear()
    reads["player page"] = len(every_statement(web.player, board)[1])
    reads["player refresh"] = len(every_statement(web.player, board, **LIVE)[1])
    return reads


def test_a_page_of_the_largest_campaigns_board_reads_what_a_six_character_board_reads(
    sr2_page: Web, settings: Any
) -> None:
    add_characters(sr2_page, 5)
    assert _board_reads(sr2_page) == SMALL_BOARD
    add_characters(sr2_page, settings.CHARACTERS_PER_CAMPAIGN - 6, players=True)
    assert Character.objects.filter(campaign_id=sr2_page.campaign_id).count() == 500
    big = _board_reads(sr2_page)
    assert big == {name: count - (name in PARTY_LOOKUP) for name, count in SMALL_BOARD.items()}
