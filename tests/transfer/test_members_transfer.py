"""Export and import keep the campaign's history of its members and the Cyberpunk bone setting and limb
replacement (issue 19, docs/members.md): the file holds them, an import accepts them and the characters end in the
same states, timers included (a limb still mending mends on the imported clock too)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from campaign.models import Campaign, Character, Event, Timer
from campaign.transfer import export_text, import_file
from tests.api.test_cyberpunk2020 import STABILIZED_LEG, act
from tests.conftest import Table, join
from tests.rules.cyberpunk2020.helpers import SEVER_RIGHT_ARM

pytestmark = pytest.mark.django_db


def _members_url(table: Table) -> str:
    return f"/api/campaigns/{table.campaign['id']}/members/"


def test_an_export_keeps_who_came_and_went_and_the_set_bones_and_an_import_replays_them(
    cp2020: Table,
) -> None:
    # Ash: a leg set (mending for six weeks), an arm severed and replaced.
    for step in STABILIZED_LEG:
        act(cp2020, step)
    act(cp2020, {"type": "set_bones", "limb": "left_leg", "total": 15})
    act(cp2020, SEVER_RIGHT_ARM)
    act(cp2020, {"type": "replace_limb", "limb": "right_arm", "replacement": "cyberarm"})
    # other_player is invited and accepts, the stranger declines; the player is removed and Ash becomes the GM's.
    join(cp2020.gm, cp2020.campaign["id"], cp2020.other_player, "player")
    invitation = cp2020.gm.post(_members_url(cp2020), {"username": "stranger", "role": "player"}).json()
    assert cp2020.stranger.post(f"/api/invitations/{invitation['id']}/decline/").status_code == 200
    assert cp2020.gm.delete(f"{_members_url(cp2020)}player/").status_code == 204

    original = Campaign.objects.get(pk=cp2020.campaign["id"])
    text = "".join(export_text(original))
    lines = [json.loads(line) for line in text.splitlines()[:-1]]
    kinds = [line["type"] for line in lines]
    for kind in (
        "MemberInvited",
        "InvitationAccepted",
        "InvitationDeclined",
        "MemberRemoved",
        "BonesSet",
        "LimbReplaced",
        "CharacterChanged",
    ):
        assert kind in kinds, kind
    removed = next(line for line in lines if line["type"] == "MemberRemoved")
    assert (removed["stream"], removed["data"]) == (
        "campaign",
        {"username": "player", "role": "player", "characters": ["Ash"], "to": "gm"},
    )

    copy = import_file(text.encode(), user=cp2020.gm.user)
    old = Character.objects.get(pk=cp2020.character["id"])
    new = Character.objects.get(campaign=copy)
    assert (new.state, new.version) == (old.state, old.version)
    assert new.state["locations"]["left_leg"]["mends_at"] == 6 * 7 * 86_400
    assert new.state["locations"]["right_arm"]["replacement"] == "cyberarm"
    assert list(Timer.objects.filter(character=new).values_list("key", "due")) == [
        ("bone_mend:left_leg", 6 * 7 * 86_400)
    ]
    # History, not members: the importer is the one member and the character has no player.
    assert list(copy.memberships.values_list("user__username", "role")) == [("gm", "gm")]
    assert not copy.invitations.exists()
    assert new.player is None
    imported: list[Any] = list(
        Event.objects.filter(campaign=copy, character__isnull=True).values_list("type", flat=True)
    )
    assert imported.count("MemberRemoved") == 1 and imported.count("InvitationDeclined") == 1


def test_an_import_refuses_a_membership_event_with_a_role_it_does_not_know(cp2020: Table) -> None:
    import io

    assert cp2020.gm.post(_members_url(cp2020), {"username": "stranger", "role": "gm"}).status_code == 201
    text = "".join(export_text(Campaign.objects.get(pk=cp2020.campaign["id"])))
    lines = [json.loads(line) for line in text.splitlines()[:-1]]
    number = max(n for n, line in enumerate(lines, start=1) if line["type"] == "MemberInvited")
    lines[number - 1]["data"]["role"] = "admin"
    from tests.transfer.test_import import _with_trailer

    upload = io.BytesIO(_with_trailer(lines))
    upload.name = "campaign.jsonl"
    response = cp2020.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400
    assert response.json() == {"file": [f"line {number}: data.role: expected one of gm, player, got admin"]}
