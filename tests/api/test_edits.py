"""Characters and campaigns change in play (docs/rules/README.md; issue 19): edits as events, retire and
restore, campaign edits, through the HTTP API. Every die is entered: the server's dice fail the test if a roll
was not (`_entered_dice_only`).

The `df` fixture's Ash: CON 8, driver 3, gunner 4, a pedestrian with no armour, played by `player`.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaign import services
from campaign.ledger.projections import rebuild_campaign
from campaign.models import Campaign, Character, Event, Timer
from tests.api.test_darkfuture import EnteredDiceOnly
from tests.conftest import ServerDice, Table

pytestmark = pytest.mark.django_db

DAY = 86_400
# Rolls that every wound of these tests may need; those a wound does not need are ignored.
QUIET = {"ko": [1], "stun": [1], "limb_check": [1]}


@pytest.fixture(autouse=True)
def _entered_dice_only(server_dice: ServerDice) -> None:
    server_dice(EnteredDiceOnly)


def wound(table: Table, damage: int, weapon: int, **rolls: list[int]) -> dict[str, Any]:
    response = table.act(
        {"type": "damage", "weapon_damage": weapon, "rolls": {"damage": [damage], **QUIET, **rolls}}
    )
    assert response.status_code == 201, response.content
    return response.json()


def patch(table: Table, body: Any, who: Any = None) -> Any:
    return (who or table.gm).client.patch(table.character_url(), body, format="json")


def character(table: Table, who: Any = None) -> dict[str, Any]:
    return (who or table.gm).get(table.character_url()).json()


def history(table: Table) -> list[dict[str, Any]]:
    return table.gm.get(f"{table.character_url()}events/?limit=100").json()["events"]


def names(rows: list[dict[str, Any]]) -> list[str]:
    return [row["name"] for row in rows]


def characters_of(table: Table, who: Any = None, query: str = "") -> list[dict[str, Any]]:
    return (who or table.gm).get(f"/api/campaigns/{table.campaign['id']}/characters/{query}").json()


def test_armour_bought_mid_campaign_changes_the_next_wound_and_not_the_last(df: Table) -> None:
    first = wound(df, 2, 1)  # 2 + 1 (a pedestrian adds the weapon) - 0 armour = 3: 1 CON
    assert [(e["type"], e["data"]["result"], e["data"]["con_lost"]) for e in first["events"]] == [
        ("WoundTaken", 3, 1)
    ]
    response = patch(df, {"attributes": {"armour": 2}})
    assert response.status_code == 200, response.content
    assert [(e["type"], e["data"]["changes"]) for e in response.json()["events"]] == [
        ("CharacterChanged", {"attributes.armour": {"old": 0, "new": 2}})
    ]
    assert response.json()["character"]["attributes"]["armour"] == 2
    assert response.json()["character"]["sheet"]["armour"] == 2
    # The wound already taken stays as it was decided: 1 CON, against no armour.
    assert character(df)["sheet"]["con"] == {"initial": 8, "current": 7}
    taken = next(e for e in history(df) if e["type"] == "WoundTaken")
    assert (taken["data"]["armour"], taken["data"]["con_lost"]) == (0, 1)
    # The same dice again: 2 + 1 - 2 = 1, a near miss.
    second = wound(df, 2, 1)
    assert [(e["type"], e["data"]["armour"], e["data"]["result"]) for e in second["events"]] == [
        ("NearMissTaken", 2, 1)
    ]
    assert character(df)["sheet"]["con"] == {"initial": 8, "current": 7}


def test_a_driver_who_becomes_a_pedestrian_takes_the_pedestrian_table_from_then_on(df: Table) -> None:
    made = df.gm.post(
        f"/api/campaigns/{df.campaign['id']}/characters/",
        {"name": "Rook", "attributes": {"con": 8, "pedestrian": False, "driver": True}},
    )
    df.character = made.json()
    assert df.character["sheet"]["safety_limit_mph"] is None  # 76+: no limit
    driving = wound(df, 6, 4)  # a driver: the weapon is not added, 6: 2 CON
    assert (
        driving["events"][0]["data"]["weapon_damage_added"],
        driving["events"][0]["data"]["con_lost"],
    ) == (
        False,
        2,
    )
    assert driving["character"]["sheet"]["safety_limit_mph"] == 40  # 6 of 8: 51-75
    response = patch(df, {"attributes": {"pedestrian": True, "driver": False}})
    assert response.json()["events"][0]["data"]["changes"] == {
        "attributes.pedestrian": {"old": False, "new": True},
        "attributes.driver": {"old": True, "new": False},
    }
    assert response.json()["character"]["sheet"]["safety_limit_mph"] is None  # no car, no limit
    on_foot = wound(df, 3, 4)  # 3 + 4 = 7: 2 CON
    data = on_foot["events"][0]["data"]
    assert (data["weapon_damage_added"], data["result"], data["con_lost"]) == (True, 7, 2)
    assert on_foot["character"]["sheet"]["con"]["current"] == 4
    assert on_foot["character"]["sheet"]["vehicle_driverless"] is False


def test_undo_takes_back_a_character_change(df: Table) -> None:
    response = patch(df, {"name": "Ashe", "attributes": {"armour": 3, "skills": {"medic": 2}}})
    assert response.status_code == 200, response.content
    assert response.json()["character"]["name"] == "Ashe"
    assert response.json()["character"]["sheet"]["skills"]["medic"] == {"base": 2, "current": 2}
    undo = df.act({"type": "undo"})
    assert undo.status_code == 201, undo.content
    assert undo.json()["events"][0]["data"]["types"] == ["CharacterChanged"]
    now = character(df)
    assert (now["name"], now["attributes"]["armour"], set(now["sheet"]["skills"])) == (
        "Ash",
        0,
        {"driver", "gunner"},
    )
    assert [(e["type"], e["voided"]) for e in history(df)][:2] == [
        ("ActionUndone", False),
        ("CharacterChanged", True),
    ]
    # The undone armour no longer counts: 2 + 1 - 0 = 3, 1 CON.
    assert wound(df, 2, 1)["events"][0]["data"]["con_lost"] == 1
    # A rebuild gives back the name the undone change replaced, as the undo did.
    rebuild_campaign(Campaign.objects.get(pk=df.campaign["id"]))
    assert Character.objects.get(pk=df.character["id"]).name == "Ash"


def test_time_travel_shows_the_attributes_as_they_were(df: Table) -> None:
    patch(df, {"attributes": {"armour": 2}})
    assert df.gm.get(f"{df.character_url()}?version=0").json()["attributes"]["armour"] == 0
    assert df.gm.get(f"{df.character_url()}?version=1").json()["attributes"]["armour"] == 2


def test_an_edit_that_changes_nothing_writes_nothing(df: Table) -> None:
    events = Event.objects.count()
    response = patch(df, {"name": "Ash", "attributes": {"armour": 0}})
    assert (response.status_code, response.json()["events"]) == (200, [])
    assert Event.objects.count() == events


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"attributes": {"con": 9}},
            "attributes.con",
            "the initial CON cannot change: the CON bands are counted from it; in play only armour, pedestrian, "
            "driver, skills, move may change",
        ),
        (
            {"attributes": {"armour": -1}},
            "attributes.armour",
            "expected a whole number of at least 0, got -1",
        ),
        (
            {"attributes": {"wings": 2}},
            "attributes.wings",
            "unknown attribute; expected one of armour, pedestrian, driver, skills, move",
        ),
        (
            {"attributes": {"skills": {"driver": "good"}}},
            "attributes.skills.driver",
            "expected a whole number, got the text good",
        ),
        ({"attributes": 3}, "attributes", "expected an object, got int"),
        ({"name": "  "}, "name", "expected the character's name (a non-empty text)"),
        (
            {"player": "stranger"},
            "player",
            "the user stranger is neither a member of this campaign nor invited to it: invite them first",
        ),
        ({"player": "nobody"}, "player", "there is no user named nobody"),
        ({"nmae": "Ashe"}, "nmae", "unknown field; expected one of attributes, name, player"),
    ],
)
def test_a_bad_edit_is_a_400_naming_the_field_and_writes_nothing(
    df: Table, body: dict[str, Any], field: str, message: str
) -> None:
    events = Event.objects.count()
    response = patch(df, body)
    assert response.status_code == 400, response.content
    assert response.json() == {field: [message]}
    assert Event.objects.count() == events
    assert character(df)["attributes"]["armour"] == 0


def test_only_a_gm_edits_retires_or_restores(df: Table) -> None:
    url = df.character_url()
    assert patch(df, {"name": "Mine"}, df.player).status_code == 403
    assert patch(df, {"name": "Mine"}, df.other_player).status_code == 404
    assert patch(df, {"name": "Mine"}, df.stranger).status_code == 404
    assert df.player.client.delete(url).status_code == 403
    assert df.stranger.client.delete(url).status_code == 404
    assert df.player.post(f"{url}restore/").status_code == 403
    campaign_url = f"/api/campaigns/{df.campaign['id']}/"
    assert df.player.client.patch(campaign_url, {"name": "Mine"}, format="json").status_code == 403
    assert df.stranger.client.patch(campaign_url, {"name": "Mine"}, format="json").status_code == 404
    assert character(df)["name"] == "Ash"


def test_a_new_player_must_be_a_member_and_the_old_one_loses_the_character(df: Table) -> None:
    df.gm.post(f"/api/campaigns/{df.campaign['id']}/members/", {"username": "stranger", "role": "player"})
    invitation = df.stranger.get("/api/invitations/").json()[0]
    assert df.stranger.post(f"/api/invitations/{invitation['id']}/accept/").status_code == 200
    response = patch(df, {"player": "stranger"})
    assert response.json()["events"][0]["data"]["changes"] == {"player": {"old": "player", "new": "stranger"}}
    assert df.player.get(df.character_url()).status_code == 404
    assert character(df, df.stranger)["player"] == "stranger"
    # Undone: the character is the first player's again.
    df.act({"type": "undo"})
    assert character(df, df.player)["player"] == "player"
    assert df.stranger.get(df.character_url()).status_code == 404
    # A service call alone hands a character to the GM (what removing a player does).
    result = services.change_character(character_id=df.character["id"], actor="gm", changes={"player": "gm"})
    assert (result.character.player.username, result.events[0].data["changes"]["player"]["new"]) == (
        "gm",
        "gm",
    )


def test_a_retired_character_is_out_of_the_lists_and_the_clock_and_comes_back(df: Table) -> None:
    stunned = wound(df, 6, 1, stun=[5])  # 7: 2 CON, 6 of 8 is 51-75: the stun roll 5 stuns
    assert stunned["character"]["sheet"]["stunned"] is True
    assert Timer.objects.filter(character_id=df.character["id"]).count() == 2  # stun ends, CON comes back
    response = df.gm.client.delete(df.character_url())
    assert (response.status_code, response.json()["retired"]) == (200, True)
    assert names(characters_of(df)) == []
    assert names(characters_of(df, df.player)) == []
    assert names(characters_of(df, query="?retired=true")) == ["Ash"]
    assert Timer.objects.filter(character_id=df.character["id"]).count() == 0
    # The clock no longer fires for it: a week passes and it stays stunned at 6 CON.
    assert df.advance(days=7).status_code == 202
    assert (character(df)["sheet"]["stunned"], character(df)["sheet"]["con"]["current"]) == (True, 6)
    refused = df.act({"type": "recover", "knocked_out": True})
    assert refused.json() == {"type": ["the character is retired: restore it first"]}
    assert patch(df, {"name": "Ashe"}).json() == {"character": ["the character is retired: restore it first"]}
    # Its history is kept, and an undo never takes back the retirement.
    assert [e["type"] for e in history(df)][:2] == ["CharacterRetired", "WoundTaken"]
    # Retiring twice writes once; restoring brings it back with its timers, due now.
    events = Event.objects.count()
    assert df.gm.client.delete(df.character_url()).status_code == 200
    assert Event.objects.count() == events
    restored = df.gm.post(f"{df.character_url()}restore/")
    assert (restored.status_code, restored.json()["retired"]) == (200, False)
    assert names(characters_of(df, df.player)) == ["Ash"]
    assert Timer.objects.filter(character_id=df.character["id"]).count() == 2
    # Both fell due while it was retired: they fire at the next advance.
    df.advance(seconds=1)
    assert (character(df)["sheet"]["stunned"], character(df)["sheet"]["con"]["current"]) == (False, 7)
    # A player never sees the GM's bookkeeping in the history.
    shown = df.player.get(f"{df.character_url()}events/?limit=100").json()["events"]
    assert [e["type"] for e in shown] == ["ConRecovered", "StunEnded", "WoundTaken"]


def test_the_players_home_page_leaves_a_retired_character_out(df: Table, client: Any) -> None:
    client.force_login(df.player.user)
    board = reverse("campaign", kwargs={"campaign_id": df.campaign["id"]})
    assert "Ash" in client.get(board).content.decode()
    df.gm.client.delete(df.character_url())
    page = client.get(board).content.decode()
    assert "Ash" not in page
    assert "The GM has not given you a character in this campaign yet." in page


def test_campaign_options_change_from_then_on(df: Table) -> None:
    wound(df, 2, 1)  # 1 CON: the first point comes back after 7 days of rest
    timer = Timer.objects.get(character_id=df.character["id"], kind="con_recovery")
    assert timer.due == 7 * DAY
    url = f"/api/campaigns/{df.campaign['id']}/"
    response = df.gm.client.patch(
        url, {"options": {"con_recovery_days": 2}, "name": "Seattle 2054"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert (response.json()["name"], response.json()["options"]["con_recovery_days"]) == ("Seattle 2054", 2)
    assert response.json()["options"]["ko_pass_means_stun"] is False  # the others keep their values
    assert Timer.objects.get(character_id=df.character["id"], kind="con_recovery").due == 2 * DAY
    changed = Event.objects.get(type="CampaignChanged")
    assert changed.data == {
        "changes": {
            "name": {"old": "Seattle 2053", "new": "Seattle 2054"},
            "options.con_recovery_days": {"old": 7, "new": 2},
        }
    }
    df.advance(days=2)
    assert character(df)["sheet"]["con"]["current"] == 8
    # Checked as at creation, naming the field; nothing written.
    events = Event.objects.count()
    bad = df.gm.client.patch(url, {"options": {"con_recovery_days": 0}}, format="json")
    assert bad.json() == {"options.con_recovery_days": ["expected a whole number of at least 1, got 0"]}
    assert df.gm.client.patch(url, {"optoins": {}}, format="json").json() == {
        "optoins": ["unknown field; expected one of name, options"]
    }
    assert Event.objects.count() == events


def test_a_ko_that_wears_off_and_a_longer_stun_by_option(df: Table) -> None:
    df.gm.client.patch(
        f"/api/campaigns/{df.campaign['id']}/",
        {"options": {"ko_lasts_seconds": 600, "stun_lasts_seconds": 30}},
        format="json",
    )
    knocked = wound(df, 6, 5, ko=[5])  # 6 + 5 = 11: 4 CON, 4 of 8 is 26-50: the KO roll 5 knocks out
    assert knocked["character"]["conscious"] is False
    df.advance(minutes=9)
    assert character(df)["conscious"] is False
    df.advance(minutes=1)
    assert character(df)["conscious"] is True
    assert next(e for e in history(df) if e["type"] == "KnockOutEnded")["data"]["ended_by"] == "clock"
    stunned = wound(df, 1, 0, ko=[2], stun=[6])  # 1: 0 CON; a near miss stuns nobody
    assert stunned["events"][0]["type"] == "NearMissTaken"
    stunned = wound(df, 2, 0, ko=[2], stun=[6])  # 2: 1 CON, 3 of 8: passed the KO roll, stunned
    assert stunned["character"]["sheet"]["stunned"] is True
    df.advance(seconds=29)
    assert character(df)["sheet"]["stunned"] is True
    df.advance(seconds=1)
    assert character(df)["sheet"]["stunned"] is False


def test_export_and_import_keep_every_change(df: Table) -> None:
    wound(df, 2, 1)
    patch(df, {"name": "Ashe", "attributes": {"armour": 2}})
    df.gm.client.patch(
        f"/api/campaigns/{df.campaign['id']}/", {"options": {"con_recovery_days": 3}}, format="json"
    )
    other = df.gm.post(
        f"/api/campaigns/{df.campaign['id']}/characters/", {"name": "Rook", "attributes": {"con": 6}}
    )
    df.gm.client.delete(f"/api/characters/{other.json()['id']}/")
    exported = b"".join(
        part if isinstance(part, bytes) else part.encode()
        for part in df.gm.get(f"/api/campaigns/{df.campaign['id']}/export/").streaming_content
    )
    types = [json.loads(line).get("type") for line in exported.splitlines()]
    assert {"CharacterChanged", "CampaignChanged", "CharacterRetired"} <= set(types)
    upload = io.BytesIO(exported)
    upload.name = "export.jsonl"
    imported = df.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert imported.status_code in (201, 202), imported.content
    campaign = Campaign.objects.order_by("-pk").first()  # the import's, made last
    assert campaign is not None and campaign.pk != df.campaign["id"]
    assert campaign.options["con_recovery_days"] == 3
    rows = {c.name: c for c in Character.objects.filter(campaign=campaign)}
    assert set(rows) == {"Ashe", "Rook"}
    assert (rows["Ashe"].retired, rows["Rook"].retired) == (False, True)
    assert rows["Ashe"].state["attributes"]["armour"] == 2
    assert rows["Ashe"].state == Character.objects.get(pk=df.character["id"]).state
    assert not Timer.objects.filter(character=rows["Rook"]).exists()


def test_a_rebuild_gives_the_rows_the_commands_wrote(df: Table) -> None:
    wound(df, 2, 1, stun=[5])
    patch(df, {"name": "Ashe", "attributes": {"armour": 2, "driver": True}})
    df.gm.client.patch(
        f"/api/campaigns/{df.campaign['id']}/", {"options": {"con_recovery_days": 3}}, format="json"
    )
    other = df.gm.post(
        f"/api/campaigns/{df.campaign['id']}/characters/", {"name": "Rook", "attributes": {"con": 6}}
    )
    df.gm.client.delete(f"/api/characters/{other.json()['id']}/")
    df.act({"type": "note", "text": "bought a vest"})
    columns = ("name", "retired", "state", "version", "player_version", "alive", "conscious")

    def rows() -> list[tuple[Any, ...]]:
        return list(Character.objects.order_by("pk").values_list(*columns))

    def timers() -> list[tuple[Any, ...]]:
        return list(Timer.objects.order_by("character_id", "key").values_list("character_id", "key", "due"))

    before, timers_before = rows(), timers()
    rebuild_campaign(Campaign.objects.get(pk=df.campaign["id"]))
    assert (rows(), timers()) == (before, timers_before)
    assert Campaign.objects.get(pk=df.campaign["id"]).options["con_recovery_days"] == 3
    assert get_user_model().objects.filter(username="gm").exists()


def test_cyberpunk_armour_per_location_and_a_btm_that_follows_body(cp2020: Table) -> None:
    first = cp2020.act({"type": "damage", "damage": 10, "location": "torso", "rolls": {"stun_save": [1]}})
    assert first.json()["character"]["sheet"]["damage"] == 8  # 10 - BTM 2 (BODY 6)
    response = patch(cp2020, {"attributes": {"armor": {"torso": 12}, "body": 9}})
    assert response.status_code == 200, response.content
    changes = response.json()["events"][0]["data"]["changes"]
    assert changes["attributes.btm"] == {"old": -2, "new": -3}  # the table's BTM follows BODY
    assert changes["attributes.armor"]["new"] == {
        "head": 0,
        "torso": 12,
        "left_arm": 0,
        "right_arm": 0,
        "left_leg": 0,
        "right_leg": 0,
    }
    # The hit taken keeps its BTM; the next one meets SP 12 and stops there.
    assert next(e for e in history(cp2020) if e["type"] == "DamageTaken")["data"]["btm"] == -2
    cp2020.act({"type": "damage", "damage": 10, "location": "torso", "rolls": {"stun_save": [1]}})
    assert character(cp2020)["sheet"]["damage"] == 8
    assert character(cp2020)["sheet"]["btm"] == -3
    # A BTM set for cyberware stays when BODY changes.
    patch(cp2020, {"attributes": {"btm": -4}})
    patch(cp2020, {"attributes": {"body": 10}})
    assert character(cp2020)["attributes"]["btm"] == -4


def test_shadowrun_body_and_willpower_change_and_nothing_else(sr2: Table) -> None:
    response = patch(sr2, {"attributes": {"body": 7}})
    assert response.json()["events"][0]["data"]["changes"] == {"attributes.body": {"old": 5, "new": 7}}
    assert character(sr2)["attributes"] == {"body": 7, "willpower": 5}
    bad = patch(sr2, {"attributes": {"luck": 3}})
    assert bad.json() == {"attributes.luck": ["unknown attribute; expected one of body, willpower"]}
    # A player sees the change in their history.
    shown = sr2.player.get(f"{sr2.character_url()}events/").json()["events"]
    assert shown[0]["type"] == "CharacterChanged"


def test_the_limb_dice_follow_the_campaigns_options_from_then_on(df: Table) -> None:
    url = f"/api/campaigns/{df.campaign['id']}/"
    response = df.gm.client.patch(url, {"options": {"limb_arm_up_to": 2}}, format="json")
    assert response.json()["options"]["limb_arm_up_to"] == 2
    wound(df, 6, 6)  # 12: 5 CON, 3 of 8 is 26-50
    hit = wound(df, 4, 0, limb_check=[6], limb=[3], side=[4])  # 4: 2 CON, 1 of 8 is 01-25
    check = hit["events"][0]["data"]["limb_check"]
    assert (check["limb_roll"], check["side_roll"], check["limb"]) == (3, 4, "right_leg")  # a 3 is a leg now


def test_a_bad_stun_healing_option_is_a_400_naming_it_and_writes_nothing(sr2: Table) -> None:
    url = f"/api/campaigns/{sr2.campaign['id']}/"
    events = Event.objects.count()
    bad = sr2.gm.client.patch(url, {"options": {"stun_healing": {"tn": 1}}}, format="json")
    assert bad.status_code == 400
    assert bad.json() == {"options.stun_healing.tn": ["expected a whole number of at least 2, got 1"]}
    assert Event.objects.count() == events
    good = sr2.gm.client.patch(url, {"options": {"stun_healing": {"tn": 3}}}, format="json")
    assert good.json()["options"]["stun_healing"] == {"tn": 3, "base_minutes": 60}
