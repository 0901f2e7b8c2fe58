"""A death waits for the GM's yes (issue 42's night: "+10 min" with a dying character killed them with no prompt and
no chance to stop). An advance asked with `ask_before_death` (every advance from the board) stops before a firing
that kills and waits, open, as an advance waiting for a roll does: the GM lets it happen (`POST /api/jobs/{id}/go-on/`)
or stops the advance where it stands (`POST /api/jobs/{id}/stop/`), acts, and advances again. An advance without it
(the API's default) kills as it always did. docs/clock.md, "A death waits for the GM's yes"."""

from __future__ import annotations

from typing import Any

import pytest

from campaign.models import Campaign, Event, Job
from tests.api.schema_check import SchemaCheck
from tests.conftest import Table, make_table

pytestmark = pytest.mark.django_db

# Body 5, a Serious wound, no success: a Mortal hit to the chest's spine, suffocation in 1d6 minutes.
SPINE = {"body_check": [1] * 5, "location": [3, 4], "critical": [3]}


def mortal(minutes: int) -> dict[str, Any]:
    return {"type": "wound", "severity": "S", "rolls": {**SPINE, "death_time": [minutes]}}


@pytest.fixture
def ash(db: None, django_user_model: Any) -> Table:
    """Ash, dying: suffocates at 00:03:00 (the physical healing roll waits for the rest, at 00:10:00)."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    assert table.act(mortal(3)).status_code == 201
    return table


@pytest.fixture
def check(client: Any) -> SchemaCheck:
    return SchemaCheck(client.get("/api/schema/?format=json").json())


def advance(table: Table, **body: Any) -> dict[str, Any]:
    answer = table.gm.post(f"/api/campaigns/{table.campaign['id']}/clock/", body)
    assert answer.status_code == 202, answer.content
    return dict(table.gm.get(f"/api/jobs/{answer.json()['job']}/").json())


def deaths(table: Table) -> list[int]:
    return list(Event.objects.filter(type="DeathOccurred").values_list("game_time", flat=True))


def clock_at(table: Table) -> int:
    return int(Campaign.objects.get(pk=table.campaign["id"]).game_time)


def test_an_advance_asking_before_a_death_waits_there_and_names_it(ash: Table, check: SchemaCheck) -> None:
    job = advance(ash, advance={"minutes": 10}, ask_before_death=True)
    check.check(ash.gm.get(f"/api/jobs/{job['id']}/"))
    assert (job["status"], job["ask_before_death"], job["needs_roll"], job["needs_rolls"]) == (
        "waiting",
        True,
        None,
        [],
    )
    assert job["needs_yes"] == {
        "character": ash.character["id"],
        "character_name": "Ash",
        "kind": "death",
        "game_time": 180,
        "date": "2053-01-01 00:03:00",
        "what": "suffocates from critical hit 1 to the chest (spine), unless treated",
        "saved_by": "treated",
    }
    assert deaths(ash) == [] and ash.gm.get(ash.character_url()).json()["alive"] is True
    # Nothing fired before the death: the clock still stands where the advance began.
    assert (job["reached"], clock_at(ash)) == (0, 0)
    # Meanwhile an action is refused, saying why and what to do.
    refused = ash.act({"type": "note", "text": "Doc runs over"})
    assert refused.status_code == 409
    assert refused.json() == {
        "clock": [
            "the game clock waits before Ash's death (suffocates from critical hit 1 to the chest (spine), unless "
            "treated): stop the advance there on the board to act, or let it happen"
        ]
    }
    # It waits for a yes, not for a roll.
    rolls = ash.gm.post(f"/api/jobs/{job['id']}/rolls/", {"ask": False})
    assert rolls.status_code == 409
    assert rolls.json() == {
        "job": [
            "the clock waits before Ash's death, not for a roll: let it happen, or stop the advance there"
        ]
    }


def test_the_gm_lets_the_death_happen_and_the_advance_goes_on_to_its_end(
    ash: Table, check: SchemaCheck
) -> None:
    job = advance(ash, advance={"minutes": 10}, ask_before_death=True)
    went_on = ash.gm.post(f"/api/jobs/{job['id']}/go-on/")
    assert went_on.status_code == 200, went_on.content
    check.check(went_on)
    assert (went_on.json()["status"], went_on.json()["needs_yes"]) == ("done", None)
    assert deaths(ash) == [180] and clock_at(ash) == 600
    # Once it went on, there is no death to say yes to.
    again = ash.gm.post(f"/api/jobs/{job['id']}/go-on/")
    assert again.status_code == 409
    assert again.json() == {"job": ["this advance is not waiting before a death"]}


def test_the_gm_stops_before_the_death_acts_and_saves_the_character(ash: Table) -> None:
    job = advance(ash, advance={"minutes": 10}, ask_before_death=True)
    stopped = ash.gm.post(f"/api/jobs/{job['id']}/stop/")
    assert stopped.status_code == 200
    assert (stopped.json()["status"], stopped.json()["stopped_because"]) == (
        "done",
        "the GM stopped it at Ash's death",
    )
    assert deaths(ash) == [] and clock_at(ash) == 0
    # Healing magic takes the hit below Mortal (one box: Crippling, its death timer stopped).
    magic = {"type": "heal_magic", "successes": 1, "mode": "allocate", "allocation": {"ch1": 1}}
    diagnose = {"type": "diagnose", "medic": "Doc", "skill": 4, "rolls": {"diagnosis": [6, 1, 1, 1]}}
    assert ash.act(diagnose).status_code == 201
    assert ash.act(magic).status_code == 201
    job = advance(ash, advance={"minutes": 10}, ask_before_death=True)
    assert job["status"] == "done" and deaths(ash) == []


def test_each_death_asks_and_a_retried_yes_never_lets_the_next_one_happen(ash: Table) -> None:
    made = ash.gm.post(
        f"/api/campaigns/{ash.campaign['id']}/characters/", {"name": "Bo", "attributes": {"body": 5}}
    )
    bo = made.json()["id"]
    assert ash.gm.post(f"/api/characters/{bo}/actions/", mortal(5)).status_code == 201  # dies at 00:05:00
    job = advance(ash, advance={"minutes": 10}, ask_before_death=True)
    assert (job["needs_yes"]["character_name"], job["needs_yes"]["game_time"]) == ("Ash", 180)
    first = ash.gm.post(f"/api/jobs/{job['id']}/go-on/", HTTP_IDEMPOTENCY_KEY="yes-1").json()
    assert (first["status"], first["needs_yes"]["character_name"], first["needs_yes"]["game_time"]) == (
        "waiting",
        "Bo",
        300,
    )
    assert (first["reached"], clock_at(ash), deaths(ash)) == (180, 180, [180])
    retried = ash.gm.post(f"/api/jobs/{job['id']}/go-on/", HTTP_IDEMPOTENCY_KEY="yes-1").json()
    assert retried["needs_yes"]["character_name"] == "Bo" and deaths(ash) == [180]
    # Stopped there: the clock stays where it stands, at Ash's death; Bo lives.
    stopped = ash.gm.post(f"/api/jobs/{job['id']}/stop/").json()
    assert (stopped["reached"], stopped["stopped_because"]) == (180, "the GM stopped it at Bo's death")
    assert clock_at(ash) == 180 and deaths(ash) == [180]


def test_an_advance_not_asking_kills_as_before(ash: Table) -> None:
    job = advance(ash, advance={"minutes": 10})
    assert (job["status"], job["ask_before_death"], job["needs_yes"]) == ("done", False, None)
    assert deaths(ash) == [180] and clock_at(ash) == 600
    refused = ash.gm.post(
        f"/api/campaigns/{ash.campaign['id']}/clock/", {"advance": {"minutes": 1}, "ask_before_death": "yes"}
    )
    assert refused.status_code == 400
    assert refused.json() == {"ask_before_death": ["expected true or false, got yes"]}
    assert Job.objects.filter(campaign_id=ash.campaign["id"]).count() == 1
