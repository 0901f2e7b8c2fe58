"""Export and import: the trailer, the checks of every line before anything is written, and the import as a job."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from campaign import services, tasks, transfer
from campaign.models import Campaign, Character, Event, ImportFile, ImportJob, Timer
from tests.conftest import Table

WOUND = {
    "type": "wound",
    "severity": "S",
    "rolls": {"body_check": [1, 6, 6, 1, 1], "location": [4, 4], "critical": [1]},
}


def _export(table: Table) -> bytes:
    response = table.gm.get(f"/api/campaigns/{table.campaign['id']}/export/")
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def _events(content: bytes) -> list[dict[str, Any]]:
    """The export's events, its trailer left off."""
    return [json.loads(line) for line in content.splitlines()[:-1]]


def _with_trailer(events: list[dict[str, Any]], *, ensure_ascii: bool = True) -> bytes:
    """A file as the export writes it, trailer and all: what a checked file's refusal must come from is then the
    events themselves. `ensure_ascii=False`: text beyond ASCII as UTF-8 (as the export writes it), not escaped."""
    body = b"".join(
        json.dumps(item, separators=(",", ":"), ensure_ascii=ensure_ascii).encode() + b"\n" for item in events
    )
    trailer = {
        "format": "wound-ledger/1",
        "trailer": True,
        "lines": len(events),
        "sha256": hashlib.sha256(body).hexdigest(),
    }
    return body + json.dumps(trailer).encode() + b"\n"


def _post(table: Table, content: bytes, **headers: str) -> Any:
    upload = io.BytesIO(content)
    upload.name = "campaign.jsonl"
    return table.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart", **headers)


def _written() -> tuple[int, int, int, int]:
    return (
        Campaign.objects.count(),
        Character.objects.count(),
        Event.objects.count(),
        ImportJob.objects.count(),
    )


def _refused(table: Table, content: bytes, message: str) -> None:
    before = _written()
    response = _post(table, content)
    assert response.status_code == 400, response.content
    assert response.json() == {"file": [message]}
    assert _written() == before


def _states(campaign_id: int) -> list[tuple[Any, ...]]:
    return list(
        Character.objects.filter(campaign_id=campaign_id)
        .order_by("pk")
        .values_list("name", "state", "version")
    )


def _timers(campaign_id: int) -> list[tuple[Any, ...]]:
    return sorted(Timer.objects.filter(campaign_id=campaign_id).values_list("key", "due", "kind"))


def _busy(table: Table) -> None:
    assert table.act(WOUND).status_code == 201
    assert table.act({"type": "note", "text": "will be undone"}).status_code == 201
    assert table.act({"type": "undo"}).status_code == 201
    assert table.act({"type": "wound", "severity": "L", "damage": "stun"}).status_code == 201
    assert (
        table.advance(minutes=15).status_code == 202
    )  # past the rest (rest_minutes), when healing rolls come


# --- the trailer ---------------------------------------------------------------------------------------------------


def test_an_export_ends_with_a_trailer_counting_and_hashing_its_lines(sr2: Table) -> None:
    content = _export(sr2)
    *lines, last = content.splitlines(keepends=True)
    assert json.loads(last) == {
        "format": "wound-ledger/1",
        "trailer": True,
        "lines": 2,
        "sha256": hashlib.sha256(b"".join(lines)).hexdigest(),
    }
    assert [json.loads(line)["type"] for line in lines] == ["CampaignCreated", "CharacterCreated"]


def test_an_export_cut_short_is_refused_and_writes_nothing(sr2: Table) -> None:
    """Before, dropping the last lines imported with a 201: a campaign at game time 0 with characters at week 10."""
    _busy(sr2)
    lines = _export(sr2).splitlines(keepends=True)
    assert len(lines) == 12
    _refused(
        sr2,
        b"".join(lines[:-3]),
        "line 9: expected the export's trailer (its line count and SHA-256), the last line of every export; "
        "the file is cut short or was changed",
    )


def test_an_export_with_a_changed_line_is_refused_by_its_hash(sr2: Table) -> None:
    assert sr2.act(WOUND).status_code == 201
    content = _export(sr2).replace(b'"physical":6', b'"physical":1')
    _refused(
        sr2,
        content,
        "line 5: sha256: the lines before the trailer are not the ones it was written for; the file was changed",
    )


def test_a_trailer_counting_other_lines_is_refused(sr2: Table) -> None:
    events = _events(_export(sr2))
    content = _with_trailer(events).replace(b'"lines": 2', b'"lines": 3')
    _refused(
        sr2,
        content,
        "line 3: lines: the trailer counts 3 lines before it and the file has 2; the file is cut short or was changed",
    )


# --- every event checked, with a trailer that matches ------------------------------------------------------------


def _wounded_export(sr2: Table) -> list[dict[str, Any]]:
    assert sr2.act(WOUND).status_code == 201
    events = _events(_export(sr2))
    assert [e["type"] for e in events] == [
        "CampaignCreated",
        "CharacterCreated",
        "WoundTaken",
        "CriticalHitTaken",
    ]
    return events


def _changed(events: list[dict[str, Any]], index: int, **changes: Any) -> list[dict[str, Any]]:
    events = [dict(e, data=dict(e["data"])) for e in events]
    data = changes.pop("data", {})
    events[index].update(changes)
    events[index]["data"].update(data)
    return events


@pytest.mark.parametrize(
    ("index", "changes", "message"),
    [
        (
            2,
            {"data": {"physical": -1000}},
            "line 3: data.physical: expected a whole number from 0 to 10, got -1000",
        ),
        (
            3,
            {"data": {"lethality": "immortal"}},
            "line 4: data.lethality: expected one of mortal, crippling, critical, got immortal",
        ),
        (
            2,
            {"type": "WoundHealedByMagic"},
            "line 3: type: expected an event type of Shadowrun 2nd Edition: Critical Hit System (WoundTaken, CriticalHitTaken, "
            "DeathOccurred, DiagnosisMade, TreatmentStarted, TreatmentFailed, TreatmentCompleted, "
            "MagicHealingApplied, FirstAidGiven, CriticalHitReplaced, CriticalHitAccepted, CareChanged, OverflowBoxTaken, "
            "CriticalHealingRolled, CriticalHitHealed, PhysicalHealingRolled, PhysicalDamageHealed, "
            "StunRecoveryRolled, StunBoxRecovered, CharacterChanged, NoteAdded, ActionUndone, ActionsReverted, "
            "CharacterRetired, CharacterRestored), got WoundHealedByMagic",
        ),
        (
            2,
            {"game_time": -(10**15)},
            "line 3: game_time: expected game seconds from 0 to 31557600000 (a thousand years after the start), "
            "got -1000000000000000",
        ),
        (
            2,
            {"game_time": 10**20},
            "line 3: game_time: expected game seconds from 0 to 31557600000 (a thousand years after the start), "
            "got 100000000000000000000",
        ),
        (
            2,
            {"schema_version": 10**20},
            "line 3: schema_version: expected a whole number from 1 to 32767, got 100000000000000000000",
        ),
        (2, {"schema_version": 2}, "line 3: schema_version: expected one of 1, got 2"),
        (2, {"version": 3}, "line 3: version: expected 1 in character:{character}, got 3"),
        (3, {"position": 1}, "line 4: position: expected more than {position} (the line before), got 1"),
        (
            2,
            {"data": {"stun": "6"}},
            "line 3: data.stun: expected a whole number from 0 to 10, got the text 6",
        ),
        (
            2,
            {"data": {"bleeding": True}},
            "line 3: data.bleeding: unknown field; expected only severity, damage, "
            "boxes, open_wound, stun, physical, physical_overflow, carried_to_physical, physical_added, body_check",
        ),
        (
            0,
            {"data": {"options": {"start": "9999-01-01T00:00:00"}}},
            "line 1: data.options.start: expected a date "
            "in the years 1 to 7999 (the clock may run a thousand years from it), got 9999",
        ),
    ],
)
def test_an_impossible_event_is_refused_naming_its_line_and_field(
    sr2: Table, index: int, changes: dict[str, Any], message: str
) -> None:
    """Before, `physical: -1000`, `lethality: "immortal"` and an unknown type were imported; a game time of 10^20 was
    a 500 or a 503 that echoed the database's error."""
    events = _wounded_export(sr2)
    expected = message.format(character=sr2.character["id"], position=events[2]["position"])
    _refused(sr2, _with_trailer(_changed(events, index, **changes)), expected)


def test_a_clock_advance_past_the_calendar_is_refused(sr2: Table) -> None:
    assert sr2.advance(minutes=5).status_code == 202
    events = _events(_export(sr2))
    assert events[-1]["type"] == "ClockAdvanced"
    events = _changed(events, -1, data={"to": 10**15}, game_time=10**15)
    _refused(
        sr2,
        _with_trailer(events),
        "line 3: game_time: expected game seconds from 0 to 31557600000 (a thousand years after the start), "
        "got 1000000000000000",
    )
    events = _changed(events, -1, game_time=300)
    _refused(
        sr2,
        _with_trailer(events),
        "line 3: data.to: expected game seconds from 0 to 31557600000 (a thousand years after the start), "
        "got 1000000000000000",
    )


def test_an_undo_of_nothing_is_refused(sr2: Table) -> None:
    assert sr2.act({"type": "note", "text": "x"}).status_code == 201
    assert sr2.act({"type": "undo"}).status_code == 201
    events = _events(_export(sr2))
    assert [e["type"] for e in events][2:] == ["NoteAdded", "ActionUndone"]
    nothing = _changed(events, 3, data={"cause": "action:never", "versions": [1]})
    _refused(
        sr2,
        _with_trailer(nothing),
        "line 4: data.cause: expected the cause of an earlier event of the stream, got action:never",
    )
    twice = [*events, {**events[3], "version": 3, "position": events[3]["position"] + 1}]
    _refused(
        sr2,
        _with_trailer(twice),
        f"line 5: data.cause: {events[2]['cause']} was already taken back by an earlier undo",
    )


def test_an_event_the_ruleset_cannot_replay_is_refused(sr2: Table) -> None:
    events = _wounded_export(sr2)
    healed = {
        **events[3],
        "version": 3,
        "position": events[3]["position"] + 1,
        "type": "CriticalHitHealed",
        "data": {"critical_hit": "ch9", "diagnosed": False},
    }
    _refused(
        sr2, _with_trailer([*events, healed]), "line 5: data: the event cannot be replayed (KeyError: 'ch9')"
    )


def test_a_character_its_ruleset_cannot_start_is_refused(sr2: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay starts each character from the attributes as the file holds them, as a rebuild of the log does:
    a start that fails refuses the file at the character's line, and nothing is written."""
    content = _export(sr2)

    def cannot_start(*args: Any) -> None:
        raise KeyError("body")

    monkeypatch.setattr(transfer.checks, "start_state", cannot_start)
    line = next(n for n, e in enumerate(_events(content), start=1) if e["type"] == "CharacterCreated")
    _refused(
        sr2, content, f"line {line}: data.attributes: the character cannot be replayed (KeyError: 'body')"
    )


def test_a_replayed_state_out_of_the_rules_ranges_is_refused(cp2020: Table) -> None:
    hit = {
        "type": "damage",
        "damage": 14,
        "location": "left_arm",
        "rolls": {"stun_save": [1], "death_save": [1], "sever": [9]},
    }
    assert cp2020.act(hit).status_code == 201
    events = _events(_export(cp2020))
    taken = next(i for i, e in enumerate(events) if e["type"] == "DamageTaken")
    events = _changed(events, taken, data={"real_points": 5000})
    again = {**events[taken], "version": len(events) - 1, "position": events[-1]["position"] + 1}
    _refused(
        cp2020,
        _with_trailer([*events, again]),
        f"line {len(events) + 1}: state.damage: expected a whole number from 0 to 5000, got 10000 after this event",
    )


# --- the import job ----------------------------------------------------------------------------------------------


def test_an_export_round_trips_through_the_job_to_the_same_states(sr2: Table) -> None:
    _busy(sr2)
    response = _post(sr2, _export(sr2))
    assert response.status_code == 202, response.content
    job = response.json()
    assert {k: job[k] for k in ("kind", "status", "progress", "lines", "lines_written")} == {
        "kind": "import",
        "status": "done",
        "progress": 1.0,
        "lines": 11,
        "lines_written": 11,
    }
    copy = job["campaign"]
    assert sr2.gm.get(f"/api/campaigns/{copy}/").json()["role"] == "gm"
    assert _states(copy) == _states(sr2.campaign["id"])
    assert _timers(copy) == _timers(sr2.campaign["id"]) != []
    assert (
        Campaign.objects.get(pk=copy).game_time
        == Campaign.objects.get(pk=sr2.campaign["id"]).game_time
        == 900
    )
    # The copy's history is the original's, undo and all (the history's pages read it as they read any).
    (character,) = Character.objects.filter(campaign_id=copy)
    fields = ("version", "type", "schema_version", "data", "game_time", "actor", "cause")
    history = list(Event.objects.filter(character=character).order_by("version").values_list(*fields))
    original = Event.objects.filter(character_id=sr2.character["id"]).order_by("version")
    assert history == list(original.values_list(*fields))
    assert Event.objects.filter(character=character).first().recorded_at > original.last().recorded_at
    # The job is its user's to see.
    assert sr2.gm.get(f"/api/jobs/{job['id']}/").json() == job
    assert sr2.gm2.get(f"/api/jobs/{job['id']}/").status_code == 404
    # Written: the file is the campaign's event log now, and its row is gone with the last batch.
    assert ImportJob.objects.get(pk=job["id"]).status == ImportJob.DONE
    assert not ImportFile.objects.filter(pk=job["id"]).exists()


def test_an_import_of_more_characters_than_one_insert_takes_gives_each_its_own(sr2: Table) -> None:
    """The characters are written up to 76 rows a statement on SQLite (its limit of 999 values): each event of an
    imported character, and its CharacterCreated, name the new id of the character it was written for."""
    source = Campaign.objects.get(pk=sr2.campaign["id"])
    for number in range(90):
        character = services.character_create(
            campaign=source, actor="gm", name=f"Runner {number}", attributes={"body": 1 + number % 6}
        )
        note = {"type": "note", "text": f"about runner {number}"}
        assert sr2.gm.post(f"/api/characters/{character.pk}/actions/", note).status_code == 201
    copy = transfer.import_file(_export(sr2), user=sr2.gm.user)
    characters = list(Character.objects.filter(campaign=copy).order_by("pk"))
    assert [(c.name, c.attributes, c.state) for c in characters] == list(
        Character.objects.filter(campaign=source).order_by("pk").values_list("name", "attributes", "state")
    )
    created = Event.objects.filter(campaign=copy, type="CharacterCreated").order_by("position")
    assert [(e.data["character"], e.data["name"]) for e in created] == [(c.pk, c.name) for c in characters]
    for character in characters[1:]:
        (note,) = Event.objects.filter(stream=f"character:{character.pk}", character=character)
        assert note.data["text"] == f"about runner {character.name.removeprefix('Runner ')}"


def test_an_import_with_a_worker_shows_its_progress_and_resumes_after_the_last_batch(
    sr2: Table, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    """A queued job is written by a worker in batches; one killed half-way resumes, and nobody sees the campaign
    until it is done."""
    _busy(sr2)
    content = _export(sr2)
    sent: list[str] = []
    monkeypatch.setattr(tasks, "ensure_broker", lambda *refusal: None)
    monkeypatch.setattr(tasks, "enqueue_import", lambda job_id: sent.append(str(job_id)))
    with override_settings(CELERY_TASK_ALWAYS_EAGER=False), pytest.MonkeyPatch.context() as patch:
        with django_capture_on_commit_callbacks(execute=True):
            response = _post(sr2, content)
        assert response.status_code == 202
        job = response.json()
        assert sent == [job["id"]]  # sent to the worker once the job is committed
        assert (job["status"], job["progress"], job["campaign"]) == ("queued", 0.0, None)
        # The file is kept for the worker compressed.
        kept = bytes(ImportFile.objects.values_list("data", flat=True).get(pk=job["id"]))
        assert zlib.decompress(kept) == content and len(kept) < len(content) / 3
        # A worker that dies after its first batch of three lines.
        patch.setattr(transfer.importing, "BATCH", 3)
        calls = []
        write = transfer.importing._write_batch

        def dies_on_the_second_batch(*args: Any) -> None:
            calls.append(1)
            if len(calls) == 2:
                raise SystemExit("killed")
            write(*args)

        patch.setattr(transfer.importing, "_write_batch", dies_on_the_second_batch)
        with pytest.raises(SystemExit):
            transfer.import_run(job["id"])
        half = sr2.gm.get(f"/api/jobs/{job['id']}/").json()
        assert (half["status"], half["lines_written"], half["progress"], half["campaign"]) == (
            "running",
            3,
            0.2727,
            None,
        )
        assert len(sr2.gm.get("/api/campaigns/").json()) == 2  # not the half-imported one
        patch.setattr(transfer.importing, "_write_batch", write)
        transfer.import_run(job["id"])
    done = sr2.gm.get(f"/api/jobs/{job['id']}/").json()
    assert (done["status"], done["lines_written"], done["progress"]) == ("done", 11, 1.0)
    assert _states(done["campaign"]) == _states(sr2.campaign["id"])
    assert Event.objects.filter(campaign_id=done["campaign"]).count() == 11


def test_an_import_posted_twice_with_one_key_is_made_once(sr2: Table) -> None:
    assert sr2.act({"type": "note", "text": "kept"}).status_code == 201
    content = _export(sr2)
    before = _written()
    first = _post(sr2, content, HTTP_IDEMPOTENCY_KEY="import-1")
    again = _post(sr2, content, HTTP_IDEMPOTENCY_KEY="import-1")
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json() == first.json()
    assert _written() == (before[0] + 1, before[1] + 1, before[2] + 3, before[3] + 1)
    # Another file with the same key is another request; a new key imports the same file again.
    other = _with_trailer(_events(content)[:2])
    assert _post(sr2, other, HTTP_IDEMPOTENCY_KEY="import-1").status_code == 409
    assert (
        sr2.gm.post(
            "/api/campaigns/", {"name": "N", "ruleset": "shadowrun2"}, HTTP_IDEMPOTENCY_KEY="import-1"
        ).status_code
        == 409
    )
    assert _post(sr2, content, HTTP_IDEMPOTENCY_KEY="import-2").status_code == 202
    assert Campaign.objects.count() == before[0] + 2


@override_settings(IMPORT_MAX_BYTES=1000)
def test_a_file_past_the_size_limit_is_refused_before_it_is_read(sr2: Table) -> None:
    _refused(sr2, b"x" * 1001, "expected a file of at most 1,000 bytes, got 1,001")


def test_a_file_past_the_line_limit_is_refused(sr2: Table) -> None:
    content = _export(sr2)
    with override_settings(IMPORT_MAX_LINES=1):
        _refused(sr2, content, "line 3: expected at most 1 events, got 2")


# --- the web form and the commands -------------------------------------------------------------------------------


def test_the_web_import_form_shows_the_progress_page_then_the_campaign(sr2: Table, client: Any) -> None:
    _busy(sr2)
    client.force_login(sr2.gm.user)
    upload = io.BytesIO(_export(sr2))
    upload.name = "campaign.jsonl"
    response = client.post("/imports/", {"file": upload, "key": "web-import"})
    job = ImportJob.objects.get(idempotency_key="web-import")
    assert response.status_code == 302 and response["Location"] == f"/imports/{job.pk}/"
    # Done at once without a broker: the progress page sends the GM on to the campaign.
    progress = client.get(response["Location"])
    assert progress.status_code == 302 and progress["Location"] == f"/campaigns/{job.campaign_id}/"
    assert (
        client.get(f"/imports/{job.pk}/", HTTP_HX_REQUEST="true")["HX-Redirect"]
        == f"/campaigns/{job.campaign_id}/"
    )
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.RUNNING, lines_written=4, progress=0.5)
    page = client.get(f"/imports/{job.pk}/").content.decode()
    assert '<progress id="import-progress" max="100" value="50">' in page
    assert "4 of 11 events written" in page
    client.force_login(sr2.gm2.user)
    assert client.get(f"/imports/{job.pk}/").status_code == 404


def test_the_web_import_form_shows_a_refused_file_s_line(sr2: Table, client: Any) -> None:
    client.force_login(sr2.gm.user)
    upload = io.BytesIO(_export(sr2)[:-20])
    upload.name = "campaign.jsonl"
    before = _written()
    response = client.post("/imports/", {"file": upload})
    assert response.status_code == 400
    assert "Line 3: expected the export&#x27;s trailer" in response.content.decode()
    assert _written() == before


def test_the_commands_export_and_import_with_the_api_s_checks(sr2: Table, tmp_path: Any) -> None:
    _busy(sr2)
    path = tmp_path / "campaign.jsonl"
    call_command("export_campaign", str(sr2.campaign["id"]), "-o", str(path))
    assert path.read_bytes() == _export(sr2)
    out = io.StringIO()
    call_command("import_campaign", str(path), "--gm", "gm2", stdout=out)
    copy = Campaign.objects.latest("pk")
    assert out.getvalue() == f"imported campaign {copy.pk} (Seattle 2053)\n"
    assert _states(copy.pk) == _states(sr2.campaign["id"])
    # The job keeps the whole file's digest, trailer and last newline included (the check's hash, carried on).
    assert ImportJob.objects.get(campaign=copy).file_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    path.write_bytes(path.read_bytes().splitlines(keepends=True)[0])
    with pytest.raises(CommandError, match="line 1: expected the export's trailer"):
        call_command("import_campaign", str(path), "--gm", "gm2")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (
            "Mine\u0000",
            "line 1: data.name: the text contains a NUL character (\\u0000), which cannot be stored",
        ),
        (
            "Mine\ud800",
            "line 1: data.name: the text contains a lone UTF-16 surrogate, which is not valid Unicode text",
        ),
    ],
)
def test_an_import_holding_text_no_database_can_store_names_its_line(
    sr2: Table, bad: str, message: str
) -> None:
    """Before, a lone surrogate was stored on SQLite and every later read of the history was a 500."""
    events = _changed(_events(_export(sr2)), 0, data={"name": bad})
    body = b"".join(json.dumps(item, separators=(",", ":")).encode() + b"\n" for item in events)
    assert b"\\ud800" in body or b"\\u0000" in body
    _refused(sr2, _with_trailer(events), message)


@contextlib.contextmanager
def _migrations() -> Iterator[Callable[[str], Any]]:
    """`migrate("0018_...")`: the campaign app's schema at that migration, and its models then; the newest after."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    def migrate(name: str) -> Any:
        target = [("campaign", name)]
        executor = MigrationExecutor(connection)
        executor.migrate(target)
        return executor.loader.project_state(target).apps

    leaf = MigrationExecutor(connection).loader.graph.leaf_nodes("campaign")
    try:
        yield migrate
    finally:
        MigrationExecutor(connection).migrate(leaf)


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_an_unfinished_imports_file_into_a_row_of_its_own_and_back() -> None:
    data = b'{"line": 1}\n'
    with _migrations() as migrate:
        apps = migrate("0017_command_read_with_key")
        user = apps.get_model("auth", "User").objects.create(username="gm")
        jobs = apps.get_model("campaign", "ImportJob").objects
        waiting = jobs.create(user_id=user.pk, file=data, file_sha256="x", lines=1)
        jobs.create(user_id=user.pk, file=b"", file_sha256="y", lines=1, status="done")

        apps = migrate("0018_import_file_of_its_own")
        files = apps.get_model("campaign", "ImportFile").objects
        assert [(row.pk, bytes(row.data)) for row in files.all()] == [(waiting.pk, data)]

        apps = migrate("0017_command_read_with_key")
        jobs = apps.get_model("campaign", "ImportJob").objects
        assert {bytes(file) for file in jobs.values_list("file", flat=True)} == {data, b""}
        assert bytes(jobs.get(pk=waiting.pk).file) == data


@pytest.mark.django_db(transaction=True)
def test_the_migration_compresses_an_unfinished_imports_file_and_back() -> None:
    data = b'{"line": 1}\n' * 100
    with _migrations() as migrate:
        apps = migrate("0018_import_file_of_its_own")
        user = apps.get_model("auth", "User").objects.create(username="gm")
        job = apps.get_model("campaign", "ImportJob").objects.create(
            user_id=user.pk, file_sha256="x", lines=100
        )
        apps.get_model("campaign", "ImportFile").objects.create(job_id=job.pk, data=data)

        apps = migrate("0019_import_file_compressed")
        kept = bytes(apps.get_model("campaign", "ImportFile").objects.get(pk=job.pk).data)
        assert zlib.decompress(kept) == data and len(kept) < len(data)

        apps = migrate("0018_import_file_of_its_own")
        assert bytes(apps.get_model("campaign", "ImportFile").objects.get(pk=job.pk).data) == data
