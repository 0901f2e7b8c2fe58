"""Issue 42 (walkthrough, 3): two characters of one campaign could share a name, and nothing said so; the board then
showed two "Ganger 2" that nobody could tell apart. A name another character of the campaign has (retired or not, in
any letter case) is refused with a 400 naming the field, by the services, so the API and the forms agree; several
NPCs at once number past the names taken; an import keeps what its file holds (docs/characters.md, "Names")."""

from __future__ import annotations

import io
import json
from typing import Any

from campaign.models import Campaign, Character, Event
from tests.conftest import Table
from tests.transfer.test_import import _export, _with_trailer
from tests.web.conftest import make_web

HTMX = {"HTTP_HX_REQUEST": "true"}
TAKEN = "a character named Ganger 2 is already in this campaign"


def create(table: Table, name: str) -> Any:
    return table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/", {"name": name, "attributes": {"body": 5}}
    )


def names(table: Table) -> list[str]:
    campaign = table.campaign["id"]
    return list(Character.objects.filter(campaign_id=campaign).order_by("pk").values_list("name", flat=True))


def test_the_api_refuses_a_new_character_with_a_name_the_campaign_has(sr2: Table) -> None:
    assert create(sr2, "Ganger 2").status_code == 201
    events = Event.objects.count()
    for name in ("Ganger 2", "  ganger 2 "):
        refused = create(sr2, name)
        assert refused.status_code == 400, refused.content
        assert refused.json() == {"name": [TAKEN.replace("Ganger 2", name.strip())]}
    assert Event.objects.count() == events and names(sr2) == ["Ash", "Ganger 2"]
    # Another campaign's names are its own.
    elsewhere = Campaign.objects.exclude(pk=sr2.campaign["id"]).get()
    url = f"/api/campaigns/{elsewhere.pk}/characters/"
    assert sr2.gm.post(url, {"name": "Ganger 2", "attributes": {"body": 5}}).status_code == 201


def test_a_retired_characters_name_stays_taken_until_it_comes_back(sr2: Table) -> None:
    made = create(sr2, "Ganger 2").json()
    assert sr2.gm.client.delete(f"/api/characters/{made['id']}/").status_code in (200, 204)
    refused = create(sr2, "Ganger 2")
    assert refused.status_code == 400
    assert refused.json() == {
        "name": [
            "a retired character named Ganger 2 is in this campaign: bring it back, or choose another name"
        ]
    }
    assert sr2.gm.post(f"/api/characters/{made['id']}/restore/").status_code == 200


def test_a_rename_to_a_name_taken_is_refused_and_changes_nothing(sr2: Table) -> None:
    assert create(sr2, "Ganger 2").status_code == 201
    events = Event.objects.count()
    refused = sr2.gm.client.patch(sr2.character_url(), {"name": "Ganger 2"}, format="json")
    assert refused.status_code == 400, refused.content
    assert refused.json() == {"name": [TAKEN]}
    assert Event.objects.count() == events and names(sr2) == ["Ash", "Ganger 2"]
    # A character keeps its own name in another letter case.
    renamed = sr2.gm.client.patch(sr2.character_url(), {"name": "ASH"}, format="json")
    assert renamed.status_code == 200, renamed.content
    assert names(sr2) == ["ASH", "Ganger 2"]


def test_the_boards_add_form_shows_the_name_taken_on_its_field(sr2: Table) -> None:
    sr2_web = make_web(sr2)
    assert create(sr2_web.table, "Ganger 2").status_code == 201
    events = Event.objects.count()
    url = f"/campaigns/{sr2_web.campaign_id}/characters/"
    # With htmx the form comes back in place (htmx swaps no 400); without, a 400 page: the message on the name.
    for answer, status in (
        (sr2_web.gm.post(url, {"name": "Ganger 2", "a_body": "5", "key": "c1"}, **HTMX), 200),
        (sr2_web.gm.post(url, {"name": "Ganger 2", "a_body": "5", "key": "c2"}), 400),
    ):
        assert answer.status_code == status
        page = answer.content.decode()
        assert 'id="err-ch-name"' in page and "A character named Ganger 2 is already in this campaign" in page
    assert Event.objects.count() == events


def test_several_npcs_number_past_the_names_taken_in_any_case_retired_or_not(sr2: Table) -> None:
    table, sr2_web = sr2, make_web(sr2)
    assert create(table, "Ganger 1").status_code == 201
    retired = create(table, "ganger 2").json()
    assert table.gm.client.delete(f"/api/characters/{retired['id']}/").status_code in (200, 204)
    url = f"/campaigns/{sr2_web.campaign_id}/npcs/"
    answer = sr2_web.gm.post(url, {"prefix": "Ganger", "count": "2", "a_body": "4", "key": "n1"}, **HTMX)
    assert answer.status_code == 200, answer.content
    assert "Ganger 3 to Ganger 4 joined the campaign." in answer.content.decode()
    assert names(table) == ["Ash", "Ganger 1", "ganger 2", "Ganger 3", "Ganger 4"]


def test_an_old_file_with_two_characters_of_one_name_imports_as_it_is(sr2: Table) -> None:
    """Before names were checked a campaign could hold two "Ash": its export imports with both, unchanged."""
    assert create(sr2, "Ash 2").status_code == 201
    lines = [json.loads(line) for line in _export(sr2).splitlines()[:-1]]
    for line in lines:
        if line.get("type") == "CharacterCreated" and line["data"]["name"] == "Ash 2":
            line["data"]["name"] = "Ash"
    upload = io.BytesIO(_with_trailer(lines))
    upload.name = "campaign.jsonl"
    answer = sr2.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert answer.status_code in (201, 202), answer.content
    copy = answer.json().get("campaign") or answer.json()["id"]
    assert list(Character.objects.filter(campaign_id=copy).values_list("name", flat=True)) == ["Ash", "Ash"]


def test_an_undo_that_would_give_back_a_name_taken_since_is_refused(sr2: Table) -> None:
    renamed = sr2.gm.client.patch(sr2.character_url(), {"name": "Ashen"}, format="json")
    assert renamed.status_code == 200, renamed.content
    assert create(sr2, "Ash").status_code == 201
    events = Event.objects.count()
    refused = sr2.act({"type": "undo"})
    assert refused.status_code == 400, refused.content
    assert refused.json() == {
        "name": [
            "this would give the name Ash back, and another character of this campaign has it now: "
            "rename that one first"
        ]
    }
    assert Event.objects.count() == events and names(sr2) == ["Ashen", "Ash"]
