"""The `undo` field of a GM's character answer is kept in the pages cache by the character's version
(`history.undo_entry`, `history.undo_entry_kept`): after any entry (an action, an undo, a revert, a clock
firing) it names what undo would take back now, as a read of the log does, and only a GM ever gets it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import caches

from campaign import presenters
from campaign.models import Character
from campaign.selectors import access, history
from rules import words
from tests.conftest import ServerDice, Table, seeded_dice

pytestmark = pytest.mark.django_db


def _act(table: Table, body: dict[str, Any]) -> dict[str, Any]:
    response = table.act(body)
    assert response.status_code == 201, response.content
    return response.json()


def _undo(table: Table) -> dict[str, Any] | None:
    response = table.gm.get(table.character_url())
    assert response.status_code == 200
    return response.json()["undo"]


def _from_the_log(table: Table) -> dict[str, Any] | None:
    """What undo would take back, read from the log now (no cache)."""
    character = Character.objects.get(pk=table.character["id"])
    return presenters.undo_json(character.campaign, history.undo_entry(character))


def _history(table: Table) -> list[dict[str, Any]]:
    return table.gm.get(f"{table.character_url()}events/").json()["events"][::-1]  # oldest first


def test_the_undo_field_follows_every_kind_of_entry(sr2: Table) -> None:
    _act(sr2, {"type": "note", "text": "the sniper was Lone Star"})
    assert _undo(sr2) == _from_the_log(sr2)
    assert _undo(sr2)["summary"] == "GM note: the sniper was Lone Star"

    _act(sr2, {"type": "wound", "severity": "M", "damage": "stun"})
    named = _undo(sr2)
    assert named == _from_the_log(sr2)
    assert (named["type"], named["summary"]) == ("WoundTaken", "Moderate stun wound: 3 boxes")

    _act(sr2, {"type": "set_care", "in_hospital": True})
    assert _undo(sr2)["summary"] == "Taken into hospital"

    _act(sr2, {"type": "undo"})  # the hospital taken back: the wound is next in line again
    assert _undo(sr2) == named == _from_the_log(sr2)

    _act(sr2, {"type": "revert", "to_version": 1})  # back to the note alone
    assert _undo(sr2) == _from_the_log(sr2)
    assert _undo(sr2)["summary"] == "GM note: the sniper was Lone Star"

    _act(sr2, {"type": "undo"})  # the note taken back: nothing left to take back
    assert _undo(sr2) is None and _from_the_log(sr2) is None


# The clock's stun recovery roll (Body 5 against TN 4, Moderate stun) from seeded dice: 5, 3, 6, 3, 6, three
# successes, a box back every 20 minutes. The server's own dice left none 1 time in 32, and the roll was then made again
# an hour later: the entry after two hours could be a roll, not a box.
THREE_SUCCESSES = seeded_dice(5)


def test_a_clock_firing_is_named_once_the_clock_has_made_it(sr2: Table, server_dice: ServerDice) -> None:
    server_dice(THREE_SUCCESSES)
    _act(sr2, {"type": "wound", "severity": "M", "damage": "stun"})
    assert _undo(sr2)["by_clock"] is False
    assert sr2.advance(minutes=11).status_code == 202  # the recovery roll once the rest begins, at 10 min
    named = _undo(sr2)
    assert named == _from_the_log(sr2)
    assert named["by_clock"] is True and named["type"] == "StunRecoveryRolled"
    assert sr2.advance(hours=2).status_code == 202
    assert _undo(sr2) == _from_the_log(sr2)
    assert _undo(sr2)["type"] == "StunBoxRecovered"


def test_the_undo_field_is_a_gms_and_one_characters(sr2: Table) -> None:
    _act(sr2, {"type": "wound", "severity": "M", "damage": "stun"})
    other = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/", {"name": "Bo", "attributes": {"body": 4}}
    )
    assert other.status_code == 201, other.content
    other_url = f"/api/characters/{other.json()['id']}/"
    assert sr2.gm.get(other_url).json()["undo"] is None  # the same version (0) as nothing of Ash's
    assert "undo" not in sr2.player.get(sr2.character_url()).json()
    assert _undo(sr2)["type"] == "WoundTaken"


def test_the_dates_of_a_kept_entry_follow_the_campaigns_calendar(sr2: Table, server_dice: ServerDice) -> None:
    """The entry is kept with its moments marked; the answer writes them as the campaign's dates each time."""
    server_dice(THREE_SUCCESSES)
    _act(sr2, {"type": "wound", "severity": "M", "damage": "stun"})
    assert sr2.advance(minutes=11).status_code == 202  # a stun recovery roll at 10 min: "a box back <date>"
    assert "2053-01-01" in _undo(sr2)["summary"]  # kept now
    key = access.character_stamp(sr2.gm.user, sr2.character["id"]).character_key
    character = Character.objects.select_related("campaign").get(pk=sr2.character["id"])
    character.campaign.options = {**character.campaign.options, "start": "2060-06-01T00:00:00"}
    kept = presenters.undo_json(character.campaign, history.undo_entry(character, key))
    assert kept is not None and "2060-06-01" in kept["summary"]
    assert "2053-01-01" not in kept["summary"]


@pytest.mark.parametrize("fixture", ["sr2", "cp2020", "df"])
def test_the_undo_summary_is_the_short_form_of_the_history_sentence(fixture: str, request: Any) -> None:
    """One source of words: the Undo button names an entry by the short form of its history sentence."""
    table: Table = request.getfixturevalue(fixture)
    wound = {
        "sr2": {"type": "wound", "severity": "L", "damage": "stun"},
        "cp2020": {"type": "damage", "damage": 4, "location": "left_arm", "rolls": {"stun_save": [10]}},
        "df": {"type": "damage", "weapon_damage": 2},
    }[fixture]
    answer = _act(table, wound)
    campaign = Character.objects.get(pk=table.character["id"]).campaign
    sentences = [
        presenters.event_words(campaign, event["type"], event["data"], event["game_time"])
        for event in answer["events"]
    ]
    assert _undo(table)["summary"] == "; ".join(dict.fromkeys(words.short(text) for text in sentences))
    caches[history.NOTES_CACHE].clear()  # read from the log: the same words
    assert _undo(table)["summary"] == "; ".join(dict.fromkeys(words.short(text) for text in sentences))
