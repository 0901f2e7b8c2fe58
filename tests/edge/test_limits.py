"""What one user may create (campaign/http/limits.py, docs/security.md): campaigns, invitations, characters and NPC
batches each have a rate per user (a 429 saying when to try again, with Retry-After) and a total (a 400 saying the
limit), on the API and the web forms alike, and a refused request writes nothing."""

from __future__ import annotations

import html
import io
import threading
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.utils.text import capfirst
from rest_framework.test import APIClient

from campaign.models import Campaign, Character, Invitation
from tests.conftest import Persona, Table, make_persona

AN_HOUR = 3600


def _campaign(who: Persona, name: str = "Another", **headers: str) -> Any:
    return who.post("/api/campaigns/", {"name": name, "ruleset": "shadowrun2"}, **headers)


def _browser(who: Persona) -> Client:
    client = Client()
    client.force_login(who.user)
    return client


def _shows(response: Any, message: str) -> bool:
    return html.escape(capfirst(message)) in response.content.decode()  # a page starts the sentence


def _retry_after(response: Any) -> int:
    return int(response["Retry-After"])


# --- campaigns ---------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_campaigns_past_the_rate_are_a_429_saying_when_to_try_again(
    django_user_model: Any, settings: Any
) -> None:
    settings.CAMPAIGN_RATE = (3, AN_HOUR)
    nora = make_persona(django_user_model, "nora")
    assert [_campaign(nora, f"Prize {i}").status_code for i in range(3)] == [201] * 3
    refused = _campaign(nora, "Prize 4")
    message = "at most 3 new campaigns an hour per user; try again in 60 minutes"
    assert refused.status_code == 429
    assert refused.json() == {"detail": [message]}
    assert AN_HOUR - 10 <= _retry_after(refused) <= AN_HOUR
    page = _browser(nora).post("/", {"name": "Prize 5", "ruleset": "shadowrun2"})
    assert page.status_code == 429 and _shows(page, message)
    assert AN_HOUR - 10 <= _retry_after(page) <= AN_HOUR
    assert Campaign.objects.filter(created_by=nora.user).count() == 3
    # Another user has a rate of their own.
    assert _campaign(make_persona(django_user_model, "olga")).status_code == 201


@pytest.mark.django_db
def test_a_repeated_request_takes_no_place_in_the_rate(django_user_model: Any, settings: Any) -> None:
    settings.CAMPAIGN_RATE = (2, AN_HOUR)
    nora = make_persona(django_user_model, "nora")
    first = _campaign(nora, "Once", HTTP_IDEMPOTENCY_KEY="k-1")
    again = _campaign(nora, "Once", HTTP_IDEMPOTENCY_KEY="k-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"]
    assert _campaign(nora, "Twice").status_code == 201
    assert _campaign(nora, "Thrice").status_code == 429


@pytest.mark.django_db
def test_campaigns_past_the_total_are_a_400_imports_included(sr2: Table, settings: Any) -> None:
    settings.CAMPAIGNS_PER_USER = 3
    message = "at most 3 campaigns per user, and you have started 3"
    export = b"".join(sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/export/").streaming_content)
    assert _campaign(sr2.gm).status_code == 201  # the table's two, and this one
    before = Campaign.objects.count()
    refused = _campaign(sr2.gm)
    assert refused.status_code == 400
    assert refused.json() == {"detail": [message]}
    assert "Retry-After" not in refused
    page = _browser(sr2.gm).post("/", {"name": "More", "ruleset": "shadowrun2"})
    assert page.status_code == 400 and _shows(page, message)
    upload = io.BytesIO(export)
    upload.name = "campaign.jsonl"
    imported = sr2.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert imported.status_code == 400
    assert imported.json() == {"detail": [message]}
    upload.seek(0)
    page_import = _browser(sr2.gm).post("/imports/", {"file": upload})
    assert page_import.status_code == 400 and _shows(page_import, message)
    assert Campaign.objects.count() == before


@pytest.mark.django_db(transaction=True)
def test_campaigns_sent_at_once_never_pass_the_rate(django_user_model: Any, settings: Any) -> None:
    settings.CAMPAIGN_RATE = (3, AN_HOUR)
    nora = make_persona(django_user_model, "nora")
    barrier = threading.Barrier(8)
    statuses: list[int] = []

    def make(i: int) -> None:
        try:
            client = APIClient()
            client.force_authenticate(nora.user)
            barrier.wait()
            response = client.post(
                "/api/campaigns/", {"name": f"Burst {i}", "ruleset": "shadowrun2"}, format="json"
            )
            statuses.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=make, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] * 3 + [429] * 5
    assert Campaign.objects.filter(created_by=nora.user).count() == 3


# --- invitations -------------------------------------------------------------------------------------------------


def _invite(table: Table, username: str, role: str = "player") -> Any:
    return table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/members/", {"username": username, "role": role}
    )


@pytest.mark.django_db
def test_invitations_past_the_rate_are_a_429(sr2: Table, django_user_model: Any, settings: Any) -> None:
    settings.INVITATION_RATE = (2, AN_HOUR)
    for name in ("ivy", "jon", "kim", "lee"):
        make_persona(django_user_model, name)
    assert [_invite(sr2, name).status_code for name in ("ivy", "jon")] == [201, 201]
    message = "at most 2 invitations an hour per user; try again in 60 minutes"
    refused = _invite(sr2, "kim")
    assert refused.status_code == 429 and refused.json() == {"detail": [message]}
    assert AN_HOUR - 10 <= _retry_after(refused) <= AN_HOUR
    page = _browser(sr2.gm).post(
        f"/campaigns/{sr2.campaign['id']}/members/", {"username": "lee", "role": "player"}
    )
    assert page.status_code == 429 and _shows(page, message)
    # Asking again, or changing a member's role, invites nobody new: not limited.
    assert _invite(sr2, "ivy", "gm").status_code == 200
    assert _invite(sr2, "gm2", "player").status_code == 200
    assert set(Invitation.objects.values_list("user__username", flat=True)) == {"ivy", "jon"}


@pytest.mark.django_db
def test_pending_invitations_past_the_total_are_a_400(
    sr2: Table, django_user_model: Any, settings: Any
) -> None:
    settings.PENDING_INVITATIONS_PER_USER = 2
    for name in ("ivy", "jon", "kim"):
        make_persona(django_user_model, name)
    assert [_invite(sr2, name).status_code for name in ("ivy", "jon")] == [201, 201]
    message = "at most 2 invitations waiting for an answer per user, and you have 2: withdraw some or wait for their answers"
    refused = _invite(sr2, "kim")
    assert refused.status_code == 400 and refused.json() == {"detail": [message]}
    page = _browser(sr2.gm).post(
        f"/campaigns/{sr2.campaign['id']}/members/", {"username": "kim", "role": "player"}
    )
    assert page.status_code == 400 and _shows(page, message)
    assert Invitation.objects.count() == 2
    # An answer frees its place.
    ivy = Invitation.objects.get(user__username="ivy")
    ivy_client = APIClient()
    ivy_client.force_authenticate(ivy.user)
    assert ivy_client.post(f"/api/invitations/{ivy.pk}/decline/").status_code == 200
    assert _invite(sr2, "kim").status_code == 201


# --- characters and NPC batches ----------------------------------------------------------------------------------


def _character(table: Table, name: str) -> Any:
    return table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/", {"name": name, "attributes": {"body": 4}}
    )


def _npcs(table: Table, count: int) -> Any:
    return table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/numbered/",
        {"prefix": "Ganger", "count": count, "attributes": {"body": 4}},
    )


@pytest.mark.django_db
def test_characters_past_the_rate_are_a_429_each_npc_counting(sr2: Table, settings: Any) -> None:
    cache.clear()  # the table's own character
    settings.CHARACTER_RATE = (5, AN_HOUR)
    assert _npcs(sr2, 4).status_code == 201
    message = "at most 5 new characters an hour per user; try again in 60 minutes"
    batch = _npcs(sr2, 2)
    assert batch.status_code == 429 and batch.json() == {"detail": [message]}
    assert _character(sr2, "Fifth").status_code == 201
    before = Character.objects.count()
    refused = _character(sr2, "Sixth")
    assert refused.status_code == 429 and refused.json() == {"detail": [message]}
    copy = sr2.gm.post(f"/api/characters/{sr2.character['id']}/duplicate/", {})
    assert copy.status_code == 429 and copy.json() == {"detail": [message]}
    board = f"/campaigns/{sr2.campaign['id']}/"
    page = _browser(sr2.gm).post(f"{board}characters/", {"name": "Seventh", "a_body": "4"})
    assert page.status_code == 429 and _shows(page, message)
    assert AN_HOUR - 10 <= _retry_after(page) <= AN_HOUR
    npc_page = _browser(sr2.gm).post(f"{board}npcs/", {"prefix": "Ganger", "count": "2", "a_body": "4"})
    assert npc_page.status_code == 429 and _shows(npc_page, message)
    copy_page = _browser(sr2.gm).post(f"/characters/{sr2.character['id']}/duplicate/", {})
    assert copy_page.status_code == 429 and _shows(copy_page, message)
    assert AN_HOUR - 10 <= _retry_after(copy_page) <= AN_HOUR
    assert Character.objects.count() == before


@pytest.mark.django_db
def test_npc_batches_past_their_rate_are_a_429(sr2: Table, settings: Any) -> None:
    settings.NPC_BATCH_RATE = (2, AN_HOUR)
    assert [_npcs(sr2, 1).status_code for _ in range(2)] == [201, 201]
    message = "at most 2 batches of NPCs an hour per user; try again in 60 minutes"
    refused = _npcs(sr2, 1)
    assert refused.status_code == 429 and refused.json() == {"detail": [message]}
    page = _browser(sr2.gm).post(
        f"/campaigns/{sr2.campaign['id']}/npcs/", {"prefix": "Ganger", "count": "1", "a_body": "4"}
    )
    assert page.status_code == 429 and _shows(page, message)
    assert _character(sr2, "One at a time").status_code == 201  # single characters are not batches


@pytest.mark.django_db
def test_characters_past_the_campaigns_total_are_a_400(sr2: Table, settings: Any) -> None:
    settings.CHARACTERS_PER_CAMPAIGN = 3
    assert _character(sr2, "Second").status_code == 201  # Ash is the first
    batch = _npcs(sr2, 2)
    assert batch.status_code == 400
    assert batch.json() == {
        "detail": ["at most 3 characters per campaign, and this one has 2: 2 more would make 4"]
    }
    assert _npcs(sr2, 1).status_code == 201
    message = "at most 3 characters per campaign, and this one has 3"
    assert _character(sr2, "Fourth").json() == {"detail": [message]}
    copy = sr2.gm.post(f"/api/characters/{sr2.character['id']}/duplicate/", {})
    assert copy.status_code == 400 and copy.json() == {"detail": [message]}
    board = f"/campaigns/{sr2.campaign['id']}/"
    page = _browser(sr2.gm).post(f"{board}characters/", {"name": "Fourth", "a_body": "4"})
    assert page.status_code == 400 and _shows(page, message)
    npc_page = _browser(sr2.gm).post(f"{board}npcs/", {"prefix": "Ganger", "count": "1", "a_body": "4"})
    assert npc_page.status_code == 400 and _shows(npc_page, message)
    assert Character.objects.filter(campaign_id=sr2.campaign["id"]).count() == 3
    # Another campaign of the same GM has its own total.
    other = _campaign(sr2.gm).json()["id"]
    made = sr2.gm.post(
        f"/api/campaigns/{other}/characters/", {"name": "Elsewhere", "attributes": {"body": 4}}
    )
    assert made.status_code == 201


# --- imports: the characters they make ----------------------------------------------------------------------------


def _export_of(table: Table, characters: int) -> bytes:
    """The table's campaign holding `characters` characters (Ash among them), exported."""
    for i in range(characters - 1):
        assert _character(table, f"Extra {i}").status_code == 201
    return b"".join(table.gm.get(f"/api/campaigns/{table.campaign['id']}/export/").streaming_content)


def _import(who: Persona, data: bytes, **headers: str) -> Any:
    upload = io.BytesIO(data)
    upload.name = "campaign.jsonl"
    return who.client.post("/api/campaigns/import/", {"file": upload}, format="multipart", **headers)


def _import_page(who: Persona, data: bytes) -> Any:
    upload = io.BytesIO(data)
    upload.name = "campaign.jsonl"
    return _browser(who).post("/imports/", {"file": upload})


@pytest.mark.django_db
def test_an_import_of_more_characters_than_a_campaign_may_hold_is_refused_before_it_writes(
    sr2: Table, django_user_model: Any, settings: Any
) -> None:
    export = _export_of(sr2, 4)
    settings.CHARACTERS_PER_CAMPAIGN = 3
    nora = make_persona(django_user_model, "nora")
    before = (
        Campaign.objects.count(),
        Character.objects.count(),
        cache.get(f"limits:characters:{nora.user.pk}"),
    )
    refused = _import(nora, export)
    assert refused.status_code == 400
    said = (
        "line 5: data.character: at most 3 characters per campaign, retired ones included, and this file creates"
        " more; nothing was imported"
    )
    assert refused.json() == {"file": [said]}  # the fourth CharacterCreated, the first too many
    page = _import_page(nora, export)
    assert page.status_code == 400 and _shows(page, said)
    assert (
        Campaign.objects.count(),
        Character.objects.count(),
        cache.get(f"limits:characters:{nora.user.pk}"),
    ) == before
    settings.CHARACTERS_PER_CAMPAIGN = 4
    assert _import(nora, export).status_code == 202


@pytest.mark.django_db
def test_an_imports_characters_take_their_places_in_the_users_character_rate(
    sr2: Table, django_user_model: Any, settings: Any
) -> None:
    export = _export_of(sr2, 3)
    settings.CHARACTER_RATE = (5, AN_HOUR)
    nora = make_persona(django_user_model, "nora")
    first = _import(nora, export, HTTP_IDEMPOTENCY_KEY="i-1")
    assert first.status_code == 202
    assert _import(nora, export, HTTP_IDEMPOTENCY_KEY="i-1").json()["id"] == first.json()["id"]  # no place
    imported = Campaign.objects.get(pk=_job(nora, first)["campaign"])
    campaigns = Campaign.objects.count()
    refused = _import(nora, export)  # 3 more would make 6
    assert refused.status_code == 429
    assert AN_HOUR - 10 <= _retry_after(refused) <= AN_HOUR
    [said] = refused.json()["detail"]
    assert said.startswith("at most 5 new characters an hour per user; try again in ")
    page = _import_page(nora, export)
    assert page.status_code == 429 and _shows(page, said.rsplit(" in ", 1)[0])
    assert Campaign.objects.count() == campaigns
    # The two places left are hers to make characters by hand, as an import's three were.
    made = [
        nora.post(f"/api/campaigns/{imported.pk}/characters/", {"name": f"N{i}", "attributes": {"body": 4}})
        for i in range(3)
    ]
    assert [m.status_code for m in made] == [201, 201, 429]


@pytest.mark.django_db
def test_an_import_of_more_characters_than_the_rate_ever_allows_says_so(
    sr2: Table, django_user_model: Any, settings: Any
) -> None:
    export = _export_of(sr2, 3)
    settings.CHARACTER_RATE = (2, AN_HOUR)
    nora = make_persona(django_user_model, "nora")
    refused = _import(nora, export)
    message = (
        "at most 2 new characters an hour per user, and this file creates 3: an import counts its characters as"
        " if they were made one by one"
    )
    assert (refused.status_code, refused.json()) == (400, {"detail": [message]})
    assert "Retry-After" not in refused


def _job(who: Persona, accepted: Any) -> dict[str, Any]:
    return who.get(f"/api/jobs/{accepted.json()['id']}/").json()
