"""Damage per location over the API (rules/cyberpunk2020/README.md, "Damage per location"): the character's sheet
for the GM and the player, and the same after an undo, a rebuild of the read models and an export imported."""

from __future__ import annotations

import io
from typing import Any

import pytest

from campaign.ledger.projections import rebuild_campaign
from campaign.models import Campaign, Character
from tests.conftest import Table

pytestmark = pytest.mark.django_db

NONE = {"head": 0, "torso": 0, "left_arm": 0, "right_arm": 0, "left_leg": 0, "right_leg": 0}
# Body 6 (BTM -2), no armour: 9 - 2 = 7 points on the torso.
TORSO_HIT = {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [1]}}
# 6 blunt to the head: 4, doubled: 8, half real and half stun.
BLUNT_HEAD = {
    "type": "damage",
    "damage": 6,
    "kind": "blunt",
    "location": "head",
    "rolls": {"stun_save": [1], "death_save": [1]},
}


def sheet(table: Table, who: str = "gm") -> dict[str, Any]:
    answer = getattr(table, who).get(table.character_url())
    assert answer.status_code == 200
    return answer.json()["sheet"]


def test_the_gm_and_the_player_read_the_torso_hit_and_an_undo_takes_it_back(cp2020: Table) -> None:
    assert cp2020.act(TORSO_HIT).status_code == 201
    for who in ("gm", "player"):
        drawn = sheet(cp2020, who)
        assert (drawn["location_damage"], drawn["location_stun"]) == ({**NONE, "torso": 7}, NONE)
    assert cp2020.act({"type": "undo"}).status_code == 201
    assert sheet(cp2020)["location_damage"] == NONE


def test_a_rebuild_and_an_imported_export_give_the_same_points_per_location(cp2020: Table) -> None:
    for body in (TORSO_HIT, BLUNT_HEAD, {"type": "treat", "skill": "medical_tech", "total": 15}):
        assert cp2020.act(body).status_code == 201
    assert cp2020.advance(days=2).status_code in (200, 202)
    drawn = sheet(cp2020)
    # Two days of medical tech heal the smaller wound first (the head's 4 real points); four hours of stun gone.
    assert drawn["location_damage"] == {**NONE, "head": 2, "torso": 7}
    assert drawn["location_stun"] == NONE
    stored = Character.objects.get(pk=cp2020.character["id"]).state
    rebuild_campaign(Campaign.objects.get(pk=cp2020.campaign["id"]))
    assert Character.objects.get(pk=cp2020.character["id"]).state == stored
    exported = b"".join(cp2020.gm.get(f"/api/campaigns/{cp2020.campaign['id']}/export/").streaming_content)
    upload = io.BytesIO(exported)
    upload.name = "campaign.jsonl"
    job = cp2020.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert job.status_code == 202, job.content
    (copy,) = Character.objects.filter(campaign_id=job.json()["campaign"])
    assert copy.state == stored
