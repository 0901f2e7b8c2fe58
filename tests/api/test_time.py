"""Time you can trust (issue 16): undo names what it takes back and never takes back time.

docs/rules/README.md: undo takes back the latest entry, GM action or clock firing, and says which first; a timer
the rebuilt state has in the past is due now and fires at the next advance at the campaign's current time; nothing
shows a negative time.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from campaign import presenters
from campaign.models import Campaign, Character
from campaign.selectors.campaigns import next_timers
from tests.conftest import Table
from tests.rules.cyberpunk2020.helpers import MAKE_DYING

pytestmark = pytest.mark.django_db


def _act(table: Table, body: dict[str, Any]) -> dict[str, Any]:
    response = table.act(body)
    assert response.status_code == 201, response.content
    return response.json()


def _advance(table: Table, **units: int) -> None:
    response = table.advance(**units)
    assert response.status_code == 202, response.content
    assert table.gm.get(f"/api/jobs/{response.json()['job']}/").json()["status"] == "done"


def _character(table: Table, who: Any = None) -> dict[str, Any]:
    response = (who or table.gm).get(table.character_url())
    assert response.status_code == 200
    return response.json()


def _history(table: Table) -> list[dict[str, Any]]:
    return table.gm.get(f"{table.character_url()}events/").json()["events"][::-1]  # oldest first


def test_undo_after_an_advance_names_the_clock_firing_it_takes_back(cp2020: Table) -> None:
    _act(cp2020, MAKE_DYING)  # a failed death save (7 against 6): dying, dead at the end of the turn (30 s)
    _advance(cp2020, minutes=10)
    named = _character(cp2020)["undo"]
    death = _history(cp2020)[-1]
    assert named == {
        "version": death["version"],
        "type": "DeathOccurred",
        "game_time": 30,
        "summary": "Died: bled out",  # the history's sentence, short (rules/words.py)
        "by_clock": True,
    }
    assert _character(cp2020, cp2020.player).get("undo") is None  # the GM's alone
    undone = _act(cp2020, {"type": "undo"})
    assert undone["events"][0]["data"]["versions"] == [named["version"]]
    # Next in line: the damage action, named by its events' lines.
    assert _character(cp2020)["undo"]["summary"] == (
        "16 normal damage to the torso: 14 points on the track; Stun save: rolled 1 against 3, made;"
        " Death save: rolled 7 against 6, failed: is dying"
    )


def test_undoing_a_death_the_clock_caused_then_advancing_a_second_fires_it_at_the_current_time(
    cp2020: Table,
) -> None:
    _act(cp2020, MAKE_DYING)
    _advance(cp2020, minutes=10)
    _act(cp2020, {"type": "undo"})
    character = _character(cp2020)
    # Dying again, and the death the rebuilt state has at 30 s is due now: nothing shows time gone by.
    assert (character["alive"], character["dying"], character["game_time"]) == (True, True, 600)
    assert character["death_at"] == 600
    assert [timer["due"] for timer in character["timers"]] == [600]
    campaign = Campaign.objects.get(pk=cp2020.campaign["id"])
    assert [
        (item["due"], item["in_seconds"]) for item in presenters.upcoming(campaign, next_timers(campaign))
    ] == [(600, 0)]
    _advance(cp2020, seconds=1)
    assert _character(cp2020)["alive"] is False
    live = [entry for entry in _history(cp2020) if not entry["voided"]]
    assert [(entry["type"], entry["game_time"]) for entry in live][-2:] == [
        ("ActionUndone", 600),
        ("DeathOccurred", 600),  # at the campaign's time, not at 30 s
    ]
    seconds = [entry["game_time"] for entry in _history(cp2020)]
    assert seconds == sorted(seconds)  # no entry dated before the one above it


def test_the_web_undo_button_says_what_it_takes_back(cp2020: Table) -> None:
    _act(cp2020, MAKE_DYING)
    _advance(cp2020, minutes=10)
    client = Client()
    client.force_login(Character.objects.get(pk=cp2020.character["id"]).campaign.created_by)
    page = client.get(f"/characters/{cp2020.character['id']}/forms/undo/", HTTP_HX_REQUEST="true")
    assert page.status_code == 200
    assert (
        "Undo the clock&#x27;s entry at 2020-01-01 00:00:30 game time: Died: bled out"
        in page.content.decode()
    )


# --- revert: "make this the present" ------------------------------------------------------------------------------


def _state(table: Table) -> dict[str, Any]:
    return Character.objects.get(pk=table.character["id"]).state


def test_revert_to_version_n_leaves_the_state_at_n_and_the_next_action_builds_on_it(cp2020: Table) -> None:
    torso = {"type": "damage", "damage": 6, "location": "torso", "rolls": {"stun_save": [1]}}
    _act(cp2020, torso)  # versions 1-2: 4 points
    at_two = _character(cp2020)
    state_at_two = _state(cp2020)
    _act(cp2020, {"type": "note", "text": "Ambushed on the stairs."})  # 3
    _act(cp2020, MAKE_DYING)  # 4-6
    _act(cp2020, {"type": "undo"})  # 7: takes back 4-6
    _act(cp2020, torso)  # 8-9
    reverted = _act(cp2020, {"type": "revert", "to_version": 2})
    (event,) = reverted["events"]
    assert (event["type"], event["version"], event["data"]["to_version"]) == ("ActionsReverted", 10, 2)
    assert event["data"]["versions"] == [3, 4, 5, 6, 7, 8, 9]
    assert _state(cp2020) == state_at_two
    assert _character(cp2020)["sheet"] == at_two["sheet"]
    assert _character(cp2020)["notes"] == []  # the note after version 2 is taken back too
    history = _history(cp2020)
    assert [entry["voided"] for entry in history] == [False, False, *[True] * 7, False]
    # The next action builds on version 2's state: 4 + 4 points, not 4 + 4 + 4.
    after = _act(cp2020, torso)
    assert after["character"]["sheet"]["damage"] == 8
    assert _character(cp2020)["undo"]["type"] == "DamageTaken"


def test_a_revert_is_refused_naming_to_version_for_a_version_it_cannot_take_back_to(cp2020: Table) -> None:
    _act(cp2020, MAKE_DYING)  # versions 1-3, one entry
    before = Character.objects.get(pk=cp2020.character["id"]).version
    for body, message in (
        ({"type": "revert", "to_version": 3}, "expected a version before 3: nothing comes after 3"),
        ({"type": "revert", "to_version": 1}, "version 1 is in the middle of one entry (versions 1 to 3)"),
        ({"type": "revert", "to_version": -1}, "to_version"),
        ({"type": "revert"}, "to_version"),
    ):
        response = cp2020.act(body)
        assert response.status_code == 400, response.content
        assert message in json_text(response)
        assert "to_version" in response.json()
    assert Character.objects.get(pk=cp2020.character["id"]).version == before


def json_text(response: Any) -> str:
    return response.content.decode()


def test_a_player_sees_the_revert_as_one_entry_naming_what_it_took_back(cp2020: Table) -> None:
    _act(cp2020, {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [1]}})
    _act(cp2020, {"type": "note", "text": "The GM's alone."})
    _act(cp2020, MAKE_DYING)
    _act(cp2020, {"type": "revert", "to_version": 2})
    events = cp2020.player.get(f"{cp2020.character_url()}events/").json()["events"]
    assert events[0]["type"] == "ActionsReverted"
    assert events[0]["data"] == {"types": ["DamageTaken", "StunSaveRolled", "DeathSaveRolled"]}
    assert "The GM's alone." not in json_text(cp2020.player.get(f"{cp2020.character_url()}events/"))


# --- taking back an advance ----------------------------------------------------------------------------------------


def _rewind(table: Table) -> Any:
    return table.gm.post(f"/api/campaigns/{table.campaign['id']}/clock/rewind/")


def _read_models(campaign_id: int) -> list[Any]:
    return [
        (
            c.pk,
            c.state,
            c.alive,
            c.conscious,
            c.dying,
            c.death_at,
            sorted(c.timer_rows.values_list("key", "due")),
        )
        for c in Character.objects.filter(campaign_id=campaign_id).order_by("pk")
    ]


def test_rewind_restores_every_character_and_the_clock_and_is_refused_after_a_later_action(
    cp2020: Table,
) -> None:
    from campaign.ledger import projections

    campaign_id = cp2020.campaign["id"]
    other = cp2020.gm.post(
        f"/api/campaigns/{campaign_id}/characters/", {"name": "Johnny", "attributes": {"body": 6}}
    ).json()
    _act(cp2020, MAKE_DYING)  # dies 30 s into the advance
    stunned = cp2020.gm.post(
        f"/api/characters/{other['id']}/actions/",
        {"type": "damage", "damage": 12, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}},
    )
    assert stunned.status_code == 201, stunned.content  # 10 stun points: an hour heals one
    _advance(cp2020, seconds=10)
    before = _read_models(campaign_id)
    _advance(cp2020, hours=3)  # the "+1 hour" meant, pressed wrong
    assert _character(cp2020)["alive"] is False
    assert _read_models(campaign_id) != before

    response = _rewind(cp2020)
    assert response.status_code == 200, response.content
    assert (response.json()["characters"], response.json()["game_time"]) == (2, 10)
    assert Campaign.objects.get(pk=campaign_id).game_time == 10
    assert _read_models(campaign_id) == before
    reverted = _history(cp2020)[-1]
    assert (reverted["type"], reverted["game_time"]) == ("ActionsReverted", 10)
    projections.rebuild_campaign(Campaign.objects.get(pk=campaign_id))  # the events alone say the same
    assert _read_models(campaign_id) == before
    assert Campaign.objects.get(pk=campaign_id).game_time == 10

    # The advance before it can be taken back too, until an action is recorded after it.
    _act(cp2020, {"type": "note", "text": "Patched up behind the bar."})
    refused = _rewind(cp2020)
    assert refused.status_code == 409, refused.content
    assert (
        "since it, Ash: GM note: Patched up behind the bar (2020-01-01 00:00:10)"
        in refused.json()["clock"][0]
    )
    assert Campaign.objects.get(pk=campaign_id).game_time == 10
    assert _read_models(campaign_id) == before


def test_rewind_is_the_gms_and_needs_an_advance(cp2020: Table) -> None:
    assert _rewind(cp2020).status_code == 400
    assert _rewind(cp2020).json() == {"clock": ["there is no clock advance to take back"]}
    _advance(cp2020, minutes=1)
    assert cp2020.player.post(f"/api/campaigns/{cp2020.campaign['id']}/clock/rewind/").status_code == 403


# --- stop_on: "status" ---------------------------------------------------------------------------------------------


def test_an_advance_with_stop_on_status_stops_at_the_first_death_among_ten_characters(cp2020: Table) -> None:
    campaign_id = cp2020.campaign["id"]
    ids = [cp2020.character["id"]]
    for n in range(2, 11):
        made = cp2020.gm.post(
            f"/api/campaigns/{campaign_id}/characters/", {"name": f"Runner {n}", "attributes": {"body": 6}}
        )
        ids.append(made.json()["id"])
    light = {"type": "damage", "damage": 12, "kind": "stun", "location": "torso", "rolls": {"stun_save": [1]}}
    for character_id in ids:
        assert cp2020.gm.post(f"/api/characters/{character_id}/actions/", light).status_code == 201
    names = dict(Character.objects.filter(pk__in=ids).values_list("pk", "name"))
    first, second = ids[6], ids[3]
    # A failed death save at 0 s: dead at 30 s. The other one at 10 s: dead at 40 s.
    dying = {**MAKE_DYING, "damage": 12}
    assert cp2020.gm.post(f"/api/characters/{first}/actions/", dying).status_code == 201
    _advance(cp2020, seconds=10)
    assert cp2020.gm.post(f"/api/characters/{second}/actions/", dying).status_code == 201

    response = cp2020.gm.post(
        f"/api/campaigns/{campaign_id}/clock/", {"advance": {"hours": 1}, "stop_on": "status"}
    )
    assert response.status_code == 202, response.content
    job = cp2020.gm.get(f"/api/jobs/{response.json()['job']}/").json()
    assert (job["status"], job["reached"], job["to"]) == ("done", 30, 3610)
    assert job["stopped_because"] == f"{names[first]} dies"
    assert job["message"] == f"stopped at 2020-01-01 00:00:30: {names[first]} dies"
    assert Campaign.objects.get(pk=campaign_id).game_time == 30
    alive = dict(Character.objects.filter(pk__in=ids).values_list("pk", "alive"))
    assert [character_id for character_id, is_alive in alive.items() if not is_alive] == [first]
    _advance(cp2020, seconds=10)  # without stop_on the next death fires on its own
    assert Character.objects.get(pk=second).alive is False


def test_stop_on_takes_status_or_nothing(cp2020: Table) -> None:
    response = cp2020.gm.post(
        f"/api/campaigns/{cp2020.campaign['id']}/clock/", {"advance": {"hours": 1}, "stop_on": "death"}
    )
    assert response.status_code == 400
    assert "stop_on" in response.json()


def test_an_export_with_a_revert_and_a_taken_back_advance_imports_to_the_same_states(cp2020: Table) -> None:
    import io

    campaign_id = cp2020.campaign["id"]
    _act(cp2020, {"type": "damage", "damage": 6, "location": "torso", "rolls": {"stun_save": [1]}})
    _act(cp2020, {"type": "note", "text": "Taken back by the revert."})
    _act(cp2020, {"type": "revert", "to_version": 2})
    _act(cp2020, MAKE_DYING)
    _advance(cp2020, seconds=10)
    _advance(cp2020, minutes=5)  # the death at 30 s
    assert _rewind(cp2020).status_code == 200  # back to 10 s, dying again
    export = cp2020.gm.get(f"/api/campaigns/{campaign_id}/export/")
    upload = io.BytesIO(b"".join(export.streaming_content))
    upload.name = "campaign.jsonl"
    response = cp2020.gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert response.status_code == 202, response.content
    copy = response.json()["campaign"]
    assert _read_models(copy)[0][1:] == _read_models(campaign_id)[0][1:]
    assert Campaign.objects.get(pk=copy).game_time == 10


def test_a_death_in_an_advance_taken_back_tells_the_player_no_time_of_death(cp2020: Table) -> None:
    """Walkthrough (issue 42): after "take back the latest advance" the phone's history read "Died 00:54:03, taken
    back at 00:50:03": when the clock would kill again. A player's entry is dated when it was taken back."""
    _act(cp2020, MAKE_DYING)
    _advance(cp2020, minutes=10)
    assert _character(cp2020)["alive"] is False
    died_at = next(entry["game_time"] for entry in _history(cp2020) if entry["type"] == "DeathOccurred")
    assert died_at > 0
    rewound = cp2020.gm.post(f"/api/campaigns/{cp2020.campaign['id']}/clock/rewind/")
    assert rewound.status_code == 200, rewound.content
    assert Campaign.objects.get(pk=cp2020.campaign["id"]).game_time == 0
    # The GM reads when it happened; the player reads it as of the take-back, in the history and in the feed.
    gm_death = next(entry for entry in _history(cp2020) if entry["type"] == "DeathOccurred")
    assert (gm_death["game_time"], gm_death["voided"]) == (died_at, True)
    history = cp2020.player.get(f"{cp2020.character_url()}events/").json()["events"]
    feed = cp2020.player.get(f"/api/campaigns/{cp2020.campaign['id']}/events/").json()["events"]
    for entries in (history, feed):
        deaths = [entry for entry in entries if entry["type"] == "DeathOccurred"]
        assert [(entry["game_time"], entry["voided"]) for entry in deaths] == [(0, True)]
        # The advance itself (the campaign's entry, to 00:10:00) says where the GM took the clock, no more.
        assert all(entry["game_time"] <= 0 for entry in entries if entry["character"] is not None)
    phone = Client()
    phone.force_login(Character.objects.get(pk=cp2020.character["id"]).player)
    page = phone.get(f"/characters/{cp2020.character['id']}/")
    assert page.status_code == 200 and "Died" in page.content.decode()
    minutes, seconds = divmod(died_at, 60)
    assert f"00:{minutes:02d}:{seconds:02d}" not in page.content.decode()
