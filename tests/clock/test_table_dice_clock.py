"""Table dice on the clock (campaign option `table_dice: all`): an advance stops before a firing that needs a die,
waits for the GM's roll (`POST /api/jobs/{id}/rolls/`), and ends as the same dice rolled by the server would end it;
the rolls a round asks of several characters are asked at once (`needs_rolls`), and the GM may stop the advance at
a roll (`POST /api/jobs/{id}/stop/`). Celery runs in-process here; tests/clock/test_table_dice_worker.py runs the same
through a real worker."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from campaign.models import Character, Event, Job
from rules.dice import Dice
from tests.api.schema_check import SchemaCheck
from tests.conftest import Persona, ServerDice, make_persona

pytestmark = pytest.mark.django_db

CRIPPLED_LEG = {
    # Body 6, Luck 2: 20 to the left leg, halved 10, BTM -2: 8, crippled and kept; the saves pass. The leg is not
    # stabilized: a death save every turn (target 6).
    "type": "damage",
    "damage": 20,
    "rolls": {"location": [7], "sever": [5], "stun_save": [3], "death_save": [4]},
}
# Shadowrun's natural healing rolls wait 10 min after the latest wound (house, `rest_minutes`): an advance of 11 min
# reaches them.
CRITICAL_CHEST_HIT = {
    # Body 5, Serious: two successes against 6, Critical; 7 chest, 1 lung. The hit's healing period and the
    # physical damage's healing stage both start now: the clock rolls Body for each.
    "type": "wound",
    "severity": "S",
    "rolls": {"body_check": [6, 6, 1, 1, 1], "location": [3, 4], "critical": [1]},
}


class Faces:
    """A generator that gives these faces in turn: the server's dice, made known."""

    def __init__(self, faces: list[int]) -> None:
        self.faces = faces  # the caller's list: faces added to it later are rolled later

    def randint(self, low: int, high: int) -> int:
        assert self.faces, "the server rolled more dice than the test gave it"
        return self.faces.pop(0)


@pytest.fixture
def gm(db: None, django_user_model: Any) -> Persona:
    return make_persona(django_user_model, "gm")


def campaign_with(gm: Persona, ruleset: str, table_dice: str, attributes: dict[str, Any]) -> dict[str, Any]:
    """A campaign and its one character, Ash."""
    campaign = gm.post(
        "/api/campaigns/",
        {"name": f"Table {table_dice}", "ruleset": ruleset, "options": {"table_dice": table_dice}},
    ).json()
    character = gm.post(
        f"/api/campaigns/{campaign['id']}/characters/", {"name": "Ash", "attributes": attributes}
    ).json()
    return {"campaign": campaign, "character": character}


def act(gm: Persona, table: dict[str, Any], body: dict[str, Any]) -> Any:
    return gm.post(f"/api/characters/{table['character']['id']}/actions/", body)


def advance(gm: Persona, table: dict[str, Any], **amount: int) -> dict[str, Any]:
    answer = gm.post(f"/api/campaigns/{table['campaign']['id']}/clock/", {"advance": amount})
    assert answer.status_code == 202, answer.content
    return gm.get(f"/api/jobs/{answer.json()['job']}/").json()


def give(gm: Persona, job: dict[str, Any], body: dict[str, Any], **headers: Any) -> Any:
    return gm.post(f"/api/jobs/{job['id']}/rolls/", body, **headers)


def history(table: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    """The character's clock entries, without the mark of the GM's dice."""
    rows = Event.objects.filter(character_id=table["character"]["id"], actor="clock").order_by("version")
    return [
        (row.type, row.game_time, {k: v for k, v in row.data.items() if k != "table_dice"}) for row in rows
    ]


def state_of(table: dict[str, Any]) -> dict[str, Any]:
    """The character's state but for the campaign options it carries (the two campaigns differ in table_dice)."""
    state = Character.objects.get(pk=table["character"]["id"]).state
    return {key: value for key, value in state.items() if key != "options"}


@pytest.fixture
def server_faces(server_dice: ServerDice) -> Iterator[list[int]]:
    """The faces the server rolls, in order, for a campaign whose clock the server rolls."""
    faces: list[int] = []

    class KnownDice(Dice):
        def __init__(self, entered: Any = None, rng: Any = None, *, ask: bool = False) -> None:
            super().__init__(entered, rng or Faces(faces), ask=ask)

    server_dice(KnownDice)
    yield faces


def test_a_cyberpunk_death_save_waits_for_the_gm_and_ends_as_the_server_rolling_it(
    gm: Persona, server_faces: list[int]
) -> None:
    table = campaign_with(gm, "cyberpunk2020", "all", {"body": 6, "luck": 2})
    assert act(gm, table, CRIPPLED_LEG).status_code == 201
    job = advance(gm, table, turns=1)
    assert job["status"] == "waiting"
    need = job["needs_roll"]
    assert {
        key: need[key] for key in ("name", "count", "sides", "label", "target", "character_name", "kind")
    } == {
        "name": "death_save",
        "count": 1,
        "sides": 10,
        "label": "Death save",
        "target": 6,
        "character_name": "Ash",
        "kind": "death_save",
    }
    assert need["character"] == table["character"]["id"] and need["game_time"] == 30
    assert history(table) == []  # nothing fired yet

    # While it waits, the campaign's actions wait too, and say for what.
    refused = act(gm, table, {"type": "save", "kind": "death", "rolls": {"save": [1]}})
    assert refused.status_code == 409
    assert refused.json() == {
        "clock": [
            'the game clock waits for a roll: Ash\'s death save (1d10); give it on the board, press "Stop here" '
            "there (the job's stop in the API) to act first, or let the server roll the rest of the advance"
        ]
    }

    done = give(gm, job, {"death_save": [3]})
    assert done.status_code == 200, done.content
    assert done.json()["status"] == "done"
    (save,) = Event.objects.filter(character_id=table["character"]["id"], actor="clock")
    assert save.data["table_dice"] == ["death_save"]  # the GM's roll, told apart from a server's

    # The same dice rolled by the server: the same firing, the same state.
    served = campaign_with(gm, "cyberpunk2020", "none", {"body": 6, "luck": 2})
    act(gm, served, CRIPPLED_LEG)
    server_faces.append(3)
    assert advance(gm, served, turns=1)["status"] == "done"
    assert "table_dice" not in Event.objects.get(character_id=served["character"]["id"], actor="clock").data
    assert history(served) == history(table)
    assert state_of(table) == state_of(served)


def test_a_shadowrun_natural_healing_roll_waits_for_the_gm_and_ends_as_the_server_rolling_it(
    gm: Persona, server_faces: list[int]
) -> None:
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    assert act(gm, table, CRITICAL_CHEST_HIT).status_code == 201
    job = advance(gm, table, minutes=11)
    need = job["needs_roll"]
    # TN 6 + 2 (not in hospital) + 4 (not treated) - 1 (body 5): 11, so the Rule of Six applies.
    assert (need["name"], need["count"], need["target"], need["open_ended"]) == (
        "critical_healing",
        5,
        11,
        True,
    )
    assert need["prompt"] == (
        "Natural healing (Body): roll 5d6; target 11: 6 for natural healing, +2 for not in hospital, +4 for not "
        "treated, -1 for Body 5; each die whose total reaches 11 is a success, a 6 rolled again and added (6 then 5 "
        "is 11)"
    )
    assert (
        need["why"]
        == "when critical hit 1 to the chest heals: 8 weeks / successes; none: roll again in 8 weeks"
    )

    wrong = give(gm, job, {"critical_healing": [12, 1, 1, 1, 1]})
    assert wrong.status_code == 400
    assert wrong.json() == {
        "rolls.critical_healing": [
            "Ash's natural healing (Body) for critical hit 1 to the chest (lung) needs 5d6, each die's total (a 6 "
            "is rolled again and added: 6 then 4 is 10); 12 is not a total (a 6 is always followed by the die after "
            "it)"
        ]
    }
    other = give(gm, job, {"stun_recovery": [1, 1, 1, 1, 1]})
    key = f"{table['character']['id']}.critical_healing:ch1"  # the hit's roll: its key names the hit
    assert other.json() == {
        "rolls.stun_recovery": [
            f"the clock waits for Ash's natural healing (Body) for critical hit 1 to the chest (lung) under {key} and "
            f"Ash's physical healing (Body) under {table['character']['id']}.physical_healing, not this roll"
        ]
    }

    # The physical damage's stage rolls at the same second: asked with it, in the same row (issue 42), not after.
    assert [(n["name"], n.get("target")) for n in job["needs_rolls"]] == [
        ("critical_healing", 11),
        ("physical_healing", 8),
    ]
    # 6 then 5 is entered as 11: one success.
    job = give(gm, job, {"critical_healing": [11, 2, 3, 4, 5], "physical_healing": [8, 1, 1, 1, 1]}).json()
    assert job["status"] == "done"
    marks = Event.objects.filter(character_id=table["character"]["id"], actor="clock").values_list(
        "type", "data__table_dice"
    )
    assert list(marks) == [
        ("CriticalHealingRolled", ["critical_healing"]),
        ("PhysicalHealingRolled", ["physical_healing"]),
    ]

    served = campaign_with(gm, "shadowrun2", "none", {"body": 5})
    act(gm, served, CRITICAL_CHEST_HIT)
    server_faces.extend([6, 5, 2, 3, 4, 5, 6, 2, 1, 1, 1, 1])
    assert advance(gm, served, minutes=11)["status"] == "done"
    assert history(served) == history(table)
    assert state_of(table) == state_of(served)


def test_the_gm_may_let_the_server_roll_the_rest_of_the_advance(gm: Persona) -> None:
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    act(gm, table, CRITICAL_CHEST_HIT)
    job = advance(gm, table, minutes=11)
    done = give(gm, job, {"ask": False})
    assert done.json()["status"] == "done"
    rows = Event.objects.filter(character_id=table["character"]["id"], actor="clock")
    assert [row.type for row in rows] == ["CriticalHealingRolled", "PhysicalHealingRolled"]
    assert all("table_dice" not in row.data for row in rows)
    assert Job.objects.get(pk=job["id"]).asks is False


def test_a_retried_roll_is_not_taken_for_the_next_one(gm: Persona) -> None:
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    act(gm, table, CRITICAL_CHEST_HIT)
    job = advance(gm, table, minutes=11)
    first = give(gm, job, {"critical_healing": [1, 1, 1, 1, 1]}, HTTP_IDEMPOTENCY_KEY="r1").json()
    again = give(gm, job, {"critical_healing": [1, 1, 1, 1, 1]}, HTTP_IDEMPOTENCY_KEY="r1").json()
    assert again["needs_roll"] == first["needs_roll"]
    assert first["needs_roll"]["name"] == "physical_healing"


def test_a_job_that_does_not_wait_refuses_rolls(gm: Persona) -> None:
    table = campaign_with(gm, "shadowrun2", "actions", {"body": 5})
    act(gm, table, {**CRITICAL_CHEST_HIT})
    job = advance(gm, table, minutes=11)
    assert job["status"] == "done"  # `actions`: the clock rolls its own dice
    refused = give(gm, job, {"critical_healing": [1, 1, 1, 1, 1]})
    assert refused.status_code == 409
    assert refused.json() == {"job": ["this advance is not waiting for a roll"]}


def test_a_player_never_sees_or_answers_the_clocks_roll(gm: Persona, django_user_model: Any) -> None:
    player = make_persona(django_user_model, "player")
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    gm.post(f"/api/campaigns/{table['campaign']['id']}/members/", {"username": "player", "role": "player"})
    invitation = player.get("/api/invitations/").json()[0]
    assert player.post(f"/api/invitations/{invitation['id']}/accept/").status_code == 200
    act(gm, table, CRITICAL_CHEST_HIT)
    job = advance(gm, table, minutes=11)
    assert player.get(f"/api/campaigns/{table['campaign']['id']}/clock/").json()["job"] is None
    assert player.get(f"/api/jobs/{job['id']}/").status_code == 403
    assert give(player, job, {"critical_healing": [1, 1, 1, 1, 1]}).status_code == 403


def test_the_board_shows_the_gm_the_clocks_roll_and_a_player_nothing_of_it(
    gm: Persona, django_user_model: Any, client: Any
) -> None:
    player = make_persona(django_user_model, "player")
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    gm.post(f"/api/campaigns/{table['campaign']['id']}/members/", {"username": "player", "role": "player"})
    invitation = player.get("/api/invitations/").json()[0]
    assert player.post(f"/api/invitations/{invitation['id']}/accept/").status_code == 200
    act(gm, table, CRITICAL_CHEST_HIT)
    advance(gm, table, minutes=11)
    board = f"/campaigns/{table['campaign']['id']}/"
    client.force_login(gm.user)
    page = client.get(board).content.decode()
    assert "The clock waits for 2 rolls" in page  # the hit's and the physical damage's, at one second
    assert "Natural healing (Body): roll 5d6; target 11: 6 for natural healing" in page
    # The hit in words. Its id only where the browser sends it back and nobody reads it: the name its box posts
    # under (the roll's key, docs/api.md) and the board's ETag, which names the rolls asked.
    unread = re.sub(r'name="roll:[^"]*"|hx-headers=\'[^\']*\'', "", page)
    assert "critical hit 1 to the chest" in page and "ch1" not in unread
    client.force_login(player.user)
    page = client.get(board).content.decode()
    assert "waits for a roll" not in page and "Natural healing" not in page and "chest" not in page

    # Once given, the GM's history says the roll was the table's.
    job = gm.get(f"/api/campaigns/{table['campaign']['id']}/clock/").json()["job"]
    give(gm, job, {"critical_healing": [1, 1, 1, 1, 1]})  # given alone: kept, and the other asked again
    give(gm, job, {"ask": False})
    client.force_login(gm.user)
    page = client.get(f"/characters/{table['character']['id']}/").content.decode()
    assert "Rolled at the table: the natural healing roll (Body)." in page
    assert page.count("Rolled at the table") == 1  # the physical healing roll was the server's


def test_an_export_with_the_gms_clock_rolls_imports_as_the_same_campaign(gm: Persona) -> None:
    table = campaign_with(gm, "cyberpunk2020", "all", {"body": 6, "luck": 2})
    act(gm, table, CRIPPLED_LEG)
    give(gm, advance(gm, table, turns=1), {"death_save": [3]})
    exported = b"".join(gm.get(f"/api/campaigns/{table['campaign']['id']}/export/").streaming_content)
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("campaign.jsonl", exported, content_type="application/jsonl")
    answer = gm.client.post("/api/campaigns/import/", {"file": upload}, format="multipart")
    assert answer.status_code == 202, answer.content
    job = gm.get(f"/api/jobs/{answer.json()['id']}/").json()
    assert job["status"] == "done", job
    copy = Character.objects.get(campaign_id=job["campaign"])
    (save,) = Event.objects.filter(character=copy, type="DeathSaveRolled", data__cause="every turn")
    assert save.data["table_dice"] == ["death_save"]
    assert copy.state == Character.objects.get(pk=table["character"]["id"]).state


def test_a_death_save_every_turn_asks_for_each_turns_roll_in_turn(gm: Persona) -> None:
    table = campaign_with(gm, "cyberpunk2020", "all", {"body": 6, "luck": 2})
    act(gm, table, CRIPPLED_LEG)
    job = advance(gm, table, turns=3)
    asked = []
    while job["status"] == "waiting":
        asked.append((job["needs_roll"]["name"], job["needs_roll"]["game_time"]))
        job = give(gm, job, {"death_save": [3]}, HTTP_IDEMPOTENCY_KEY=f"turn-{len(asked)}").json()
    assert asked == [("death_save", 30), ("death_save", 60), ("death_save", 90)]
    saves = Event.objects.filter(character_id=table["character"]["id"], actor="clock").order_by("version")
    assert [(save.game_time, save.data["roll"], save.data["table_dice"]) for save in saves] == [
        (30, 3, ["death_save"]),
        (60, 3, ["death_save"]),
        (90, 3, ["death_save"]),
    ]


# --- the rolls a round asks of several characters, and stopping at a roll ------------------------------------------

STUNNED = {
    # Body 6: 4 points to the torso, Light; the stun save (target 6) fails on 9: stunned, a stun save every round.
    "type": "damage",
    "damage": 4,
    "location": "torso",
    "rolls": {"stun_save": [9]},
}


@pytest.fixture
def check(client: Any) -> SchemaCheck:
    return SchemaCheck(client.get("/api/schema/?format=json").json())


def party_with(gm: Persona, table_dice: str, names: list[str]) -> dict[str, Any]:
    """A Cyberpunk campaign and its characters, each stunned at 00:00:00."""
    table = campaign_with(gm, "cyberpunk2020", table_dice, {"body": 6, "luck": 2})
    characters = [table["character"]]
    for name in names[1:]:
        characters.append(
            gm.post(
                f"/api/campaigns/{table['campaign']['id']}/characters/",
                {"name": name, "attributes": {"body": 6, "luck": 2}},
            ).json()
        )
    for character in characters:
        answer = gm.post(f"/api/characters/{character['id']}/actions/", STUNNED)
        assert answer.status_code == 201, answer.content
    return {**table, "characters": characters}


def clock_entries(party: dict[str, Any]) -> list[tuple[str, str, int, dict[str, Any]]]:
    """Every character's clock entries, by name, without the mark of the GM's dice."""
    names = {c["id"]: c["name"] for c in party["characters"]}
    rows = Event.objects.filter(campaign_id=party["campaign"]["id"], actor="clock").order_by("position")
    return [
        (
            names[row.character_id],
            row.type,
            row.game_time,
            {k: v for k, v in row.data.items() if k != "table_dice"},
        )
        for row in rows
    ]


def states_of(party: dict[str, Any]) -> list[dict[str, Any]]:
    rows = Character.objects.filter(campaign_id=party["campaign"]["id"]).order_by("pk")
    return [{k: v for k, v in row.state.items() if k != "options"} for row in rows]


def test_the_stun_saves_a_round_asks_of_two_characters_are_asked_at_once_and_given_together(
    gm: Persona, server_faces: list[int], check: SchemaCheck
) -> None:
    party = party_with(gm, "all", ["Ash", "Bo"])
    ash, bo = (c["id"] for c in party["characters"])
    job = advance(gm, party, rounds=1)
    check.check(gm.get(f"/api/jobs/{job['id']}/"))
    assert job["status"] == "waiting"
    asked = [
        (
            need["key"],
            need["character_name"],
            need["name"],
            need["count"],
            need["sides"],
            need["target"],
            need["game_time"],
        )
        for need in job["needs_rolls"]
    ]
    assert asked == [
        (f"{ash}.stun_save", "Ash", "stun_save", 1, 10, 6, 3),
        (f"{bo}.stun_save", "Bo", "stun_save", 1, 10, 6, 3),
    ]
    assert job["needs_roll"] == job["needs_rolls"][0]
    assert job["needs_rolls"][1]["date"] == "2020-01-01 00:00:03"

    # The name alone no longer says whose roll it is.
    ambiguous = give(gm, job, {"stun_save": [2]})
    assert ambiguous.status_code == 400
    assert ambiguous.json() == {
        "rolls.stun_save": [
            f"the clock asks this roll of Ash and Bo: give each by its key, {ash}.stun_save or {bo}.stun_save"
        ]
    }
    # While it waits, an action says what for.
    refused = act(gm, party, {"type": "note", "text": "waiting"})
    assert refused.json() == {
        "clock": [
            "the game clock waits for 2 rolls: Ash's stun save (1d10), Bo's stun save (1d10); give them on the "
            'board, press "Stop here" there (the job\'s stop in the API) to act first, or let the server roll the '
            "rest of the advance"
        ]
    }

    done = give(gm, job, {f"{ash}.stun_save": [2], f"{bo}.stun_save": [9]})
    assert done.status_code == 200, done.content
    check.check(done)
    assert done.json()["status"] == "done" and done.json()["needs_rolls"] == []
    assert [(name, kind, at, data["success"]) for name, kind, at, data in clock_entries(party)] == [
        ("Ash", "StunSaveRolled", 3, True),
        ("Bo", "StunSaveRolled", 3, False),
    ]

    # The same dice rolled by the server: the same firings, the same states.
    served = party_with(gm, "none", ["Ash", "Bo"])
    server_faces.extend([2, 9])
    assert advance(gm, served, rounds=1)["status"] == "done"
    assert clock_entries(served) == clock_entries(party)
    assert states_of(served) == states_of(party)


def test_rolls_given_wrong_are_refused_together_each_by_its_field_in_words(
    gm: Persona, check: SchemaCheck
) -> None:
    party = party_with(gm, "all", ["Ash", "Bo"])
    ash, bo = (c["id"] for c in party["characters"])
    job = advance(gm, party, rounds=1)
    wrong = give(gm, job, {f"{ash}.stun_save": [11], f"{bo}.stun_save": [0, 3]})
    assert wrong.status_code == 400
    check.check(wrong)
    assert wrong.json() == {
        f"rolls.{ash}.stun_save": ["Ash's stun save needs 1d10 from 1 to 10; 11 is not a d10 roll"],
        f"rolls.{bo}.stun_save": ["Bo's stun save needs 1d10 from 1 to 10; 2 were given (0 and 3)"],
    }
    assert give(gm, job, {f"{ash}.stun_save": "7"}).json() == {
        f"rolls.{ash}.stun_save": [
            "Ash's stun save needs 1d10 from 1 to 10; expected a list of whole numbers"
        ]
    }
    assert give(gm, job, {"9999.stun_save": [3]}).json() == {
        "rolls.9999.stun_save": [
            f"the clock waits for Ash's stun save under {ash}.stun_save and Bo's stun save under {bo}.stun_save, "
            "not this roll"
        ]
    }
    assert give(gm, job, {}).json() == {
        "rolls": [
            f"expected the rolls the clock waits for, by their keys ({ash}.stun_save, Ash's stun save (1d10); "
            f"{bo}.stun_save, Bo's stun save (1d10)), or ask: false"
        ]
    }
    # Nothing was kept: the advance waits for the same two rolls.
    again = gm.get(f"/api/jobs/{job['id']}/").json()
    assert [need["key"] for need in again["needs_rolls"]] == [f"{ash}.stun_save", f"{bo}.stun_save"]
    assert clock_entries(party) == []


def test_a_roll_given_alone_is_kept_and_the_clock_asks_again_for_the_others(gm: Persona) -> None:
    party = party_with(gm, "all", ["Ash", "Bo"])
    ash, bo = (c["id"] for c in party["characters"])
    job = advance(gm, party, rounds=1)
    job = give(gm, job, {f"{bo}.stun_save": [9]}).json()
    assert job["status"] == "waiting"
    assert [need["key"] for need in job["needs_rolls"]] == [f"{ash}.stun_save"]
    assert clock_entries(party) == []  # Ash's save comes first, and waits
    job = give(gm, job, {"stun_save": [2]}).json()  # one roll of that name asked: the name will do
    assert job["status"] == "done"
    assert [(name, data["roll"]) for name, _, _, data in clock_entries(party)] == [("Ash", 2), ("Bo", 9)]


def test_the_gm_stops_an_advance_at_a_roll_and_the_clock_stays_where_it_stands(
    gm: Persona, server_faces: list[int], check: SchemaCheck
) -> None:
    table = campaign_with(gm, "cyberpunk2020", "all", {"body": 6, "luck": 2})
    act(gm, table, CRIPPLED_LEG)
    job = advance(gm, table, minutes=10)
    for turn in range(3):
        job = give(gm, job, {"death_save": [3]}, HTTP_IDEMPOTENCY_KEY=f"turn-{turn}").json()
    assert (job["status"], job["needs_roll"]["game_time"], job["reached"]) == ("waiting", 120, 90)

    stopped = gm.post(f"/api/jobs/{job['id']}/stop/")
    assert stopped.status_code == 200, stopped.content
    check.check(stopped)
    answer = stopped.json()
    assert (answer["status"], answer["reached"], answer["to"], answer["needs_rolls"]) == ("done", 90, 600, [])
    assert answer["message"] == "stopped at 2020-01-01 00:01:30: the GM stopped it at Ash's death save"
    clock = gm.get(f"/api/campaigns/{table['campaign']['id']}/clock/").json()
    assert (clock["game_time"], clock["job"]) == (90, None)
    advanced = Event.objects.filter(campaign_id=table["campaign"]["id"], type="ClockAdvanced")
    assert [row.data["to"] for row in advanced] == [90]

    # Stopped again (a retry): the same answer, nothing written.
    count = Event.objects.filter(campaign_id=table["campaign"]["id"]).count()
    again = gm.post(f"/api/jobs/{job['id']}/stop/")
    assert again.status_code == 200 and again.json() == {
        **answer,
        "heartbeat_at": again.json()["heartbeat_at"],
    }
    assert Event.objects.filter(campaign_id=table["campaign"]["id"]).count() == count

    # The same as an advance to that second with the same dice rolled by the server.
    served = campaign_with(gm, "cyberpunk2020", "none", {"body": 6, "luck": 2})
    act(gm, served, CRIPPLED_LEG)
    server_faces.extend([3, 3, 3])
    assert advance(gm, served, seconds=90)["status"] == "done"
    assert history(served) == history(table)
    assert state_of(served) == state_of(table)
    timers = [gm.get(f"/api/characters/{t['character']['id']}/").json()["timers"] for t in (table, served)]
    assert timers[0] == timers[1]

    # The GM acts there, then advances again: the next save is asked at its own second.
    assert act(gm, table, {"type": "note", "text": "Ash grabs the medkit"}).status_code == 201
    job = advance(gm, table, turns=1)
    assert (job["status"], job["needs_roll"]["game_time"]) == ("waiting", 120)


def test_stopping_an_advance_before_it_fired_anything_changes_nothing(
    gm: Persona, django_user_model: Any, check: SchemaCheck
) -> None:
    table = campaign_with(gm, "cyberpunk2020", "all", {"body": 6, "luck": 2})
    act(gm, table, CRIPPLED_LEG)
    job = advance(gm, table, minutes=10)
    count = Event.objects.filter(campaign_id=table["campaign"]["id"]).count()
    player = make_persona(django_user_model, "player")
    assert player.post(f"/api/jobs/{job['id']}/stop/").status_code == 404  # not a member: not there at all
    stopped = gm.post(f"/api/jobs/{job['id']}/stop/").json()
    assert (stopped["status"], stopped["reached"], stopped["events_appended"]) == ("done", 0, 0)
    assert Event.objects.filter(campaign_id=table["campaign"]["id"]).count() == count
    assert gm.get(f"/api/campaigns/{table['campaign']['id']}/clock/").json()["game_time"] == 0
    # Nothing to take back, and a finished advance that was not stopped cannot be.
    assert gm.post(f"/api/campaigns/{table['campaign']['id']}/clock/rewind/").status_code == 400
    done = give(gm, advance(gm, table, turns=1), {"death_save": [3]}).json()
    refused = gm.post(f"/api/jobs/{done['id']}/stop/")
    assert refused.status_code == 409
    check.check(refused)
    assert refused.json() == {
        "job": ["only an advance waiting for a roll can be stopped; this one is done already"]
    }


def test_an_advance_that_began_waiting_before_needs_rolls_is_answered_as_before(gm: Persona) -> None:
    """A job left waiting by the release before: `needs_roll` alone, without a key, and `rolls` of one firing."""
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    act(gm, table, CRITICAL_CHEST_HIT)
    job = advance(gm, table, minutes=11)
    row = Job.objects.get(pk=job["id"])
    old = {key: value for key, value in row.needs_roll.items() if key != "key"}
    Job.objects.filter(pk=row.pk).update(
        needs_roll=old, needs_rolls=[], rolls={"firing": old["firing"], "dice": {}}
    )
    job = gm.get(f"/api/jobs/{job['id']}/").json()
    key = f"{table['character']['id']}.critical_healing:ch1"  # from the firing's timer, as a new job's
    assert [need["key"] for need in job["needs_rolls"]] == [key] and job["needs_roll"]["key"] == key
    job = give(gm, job, {"critical_healing": [11, 2, 3, 4, 5]}).json()
    assert job["needs_roll"]["name"] == "physical_healing"
    (healing,) = Event.objects.filter(character_id=table["character"]["id"], type="CriticalHealingRolled")
    assert healing.data["dice"] == [11, 2, 3, 4, 5]


def test_the_clocks_roll_takes_the_dice_range_that_actions_and_the_import_take(gm: Persona) -> None:
    """A Rule-of-Six total past `rules.dice.MOST_DIE` (1,000) is refused on the clock as on an action (issue 43):
    the event that would keep it could not be imported again."""
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    assert act(gm, table, CRITICAL_CHEST_HIT).status_code == 201
    job = advance(gm, table, minutes=11)
    refused = give(gm, job, {"critical_healing": [1001, 1, 1, 1, 1]})
    assert refused.status_code == 400
    ((field, (said,)),) = refused.json().items()
    assert field == "rolls.critical_healing"
    assert said.startswith(
        "Ash's natural healing (Body) for critical hit 1 to the chest (lung) needs 5d6, each die"
    )
    assert said.endswith("; 1001 is past the largest total the ledger keeps (1,000)")
    assert (
        give(gm, job, {"critical_healing": [999, 1, 1, 1, 1]}).json()["status"] == "waiting"
    )  # the next roll


def test_a_characters_rolls_due_at_one_second_are_asked_in_one_row(gm: Persona) -> None:
    """Issue 42 (walkthrough, 4): the physical damage's healing roll and the stun's recovery roll, both due when the
    rest begins, were asked one after the other, in two prompts. They are one row now, given together."""
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    moderate = {
        "type": "wound",
        "severity": "M",
        "open_wound": False,
        "rolls": {"body_check": [6, 6, 6, 6, 6]},
    }
    assert act(gm, table, moderate).status_code == 201
    assert act(gm, table, {"type": "wound", "severity": "L", "damage": "stun"}).status_code == 201
    job = advance(gm, table, minutes=11)
    ash = table["character"]["id"]
    assert job["status"] == "waiting"
    assert [(n["key"], n["game_time"]) for n in job["needs_rolls"]] == [
        (f"{ash}.physical_healing", 600),
        (f"{ash}.stun_recovery", 600),
    ]
    job = give(gm, job, {"physical_healing": [6, 6, 1, 1, 1], "stun_recovery": [3, 3, 1, 1, 1]}).json()
    assert job["status"] == "done", job
    marks = Event.objects.filter(character_id=ash, actor="clock").values_list("type", "data__table_dice")
    assert list(marks) == [
        ("PhysicalHealingRolled", ["physical_healing"]),
        ("StunRecoveryRolled", ["stun_recovery"]),
    ]


def test_dice_asked_ahead_that_no_longer_fit_their_firing_are_asked_again(gm: Persona) -> None:
    """A roll asked beside an earlier firing of the same second is tried on the state before that firing; should the
    firing change what the later roll needs, its dice no longer fit. They are dropped and the roll asked again, not
    a failed advance. (Dice of a wrong count stand in for such a change: the service refuses them when typed.)"""
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    moderate = {
        "type": "wound",
        "severity": "M",
        "open_wound": False,
        "rolls": {"body_check": [6, 6, 6, 6, 6]},
    }
    assert act(gm, table, moderate).status_code == 201
    assert act(gm, table, {"type": "wound", "severity": "L", "damage": "stun"}).status_code == 201
    job = advance(gm, table, minutes=11)
    ash = table["character"]["id"]
    row = Job.objects.get(pk=job["id"])
    stale = {
        "firing": {"character": ash, "key": "stun_roll", "at": 600},
        "dice": {"stun_recovery": [3, 3, 1, 1]},
    }
    row.rolls = {**row.rolls, "given": [*row.rolls.get("given", []), stale]}
    row.save(update_fields=["rolls"])

    job = give(gm, job, {"physical_healing": [6, 6, 1, 1, 1]}).json()
    assert job["status"] == "waiting", job
    assert [n["key"] for n in job["needs_rolls"]] == [f"{ash}.stun_recovery"]
    job = give(gm, job, {"stun_recovery": [3, 3, 1, 1, 1]}).json()
    assert job["status"] == "done", job


# Two Light wounds, each with two successes against 2: a Critical hit each, to the chest (7: 1, the lung) and to the
# left arm (10: 2). Both hits' natural healing rolls wait for the rest: 10 min after the latest wound, the same second.
TWO_CRITICAL_HITS = [
    {
        "type": "wound",
        "severity": "L",
        "rolls": {"body_check": [2, 2, 1, 1, 1], "location": [3, 4], "critical": [1]},
    },
    {
        "type": "wound",
        "severity": "L",
        "rolls": {"body_check": [2, 2, 1, 1, 1], "location": [5, 5], "critical": [2]},
    },
]


def test_one_characters_two_rolls_of_one_name_at_one_second_are_asked_and_given_at_once(
    gm: Persona, server_faces: list[int], check: SchemaCheck
) -> None:
    """Ash's two critical hits each roll natural healing when the rest begins: one character, one roll name, one
    second. Each is asked under its own key (its hit's), in one row with the physical damage's roll; one request
    gives both, and the clock fires both at that second with exactly those dice. The request again writes nothing."""
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    for wound in TWO_CRITICAL_HITS:
        assert act(gm, table, wound).status_code == 201
    ash = table["character"]["id"]
    job = advance(gm, table, minutes=11)
    check.check(gm.get(f"/api/jobs/{job['id']}/"))
    assert job["status"] == "waiting"
    assert [(n["key"], n["name"], n["about"], n["game_time"]) for n in job["needs_rolls"]] == [
        (f"{ash}.critical_healing:ch1", "critical_healing", "critical hit 1 to the chest (lung)", 600),
        (
            f"{ash}.critical_healing:ch2",
            "critical_healing",
            "critical hit 2 to the left arm (upper arm)",
            600,
        ),
        (f"{ash}.physical_healing", "physical_healing", "", 600),
    ]
    both = (
        f"Ash's natural healing (Body) for critical hit 1 to the chest (lung) and Ash's natural healing (Body) for "
        f"critical hit 2 to the left arm (upper arm): give each by its key, {ash}.critical_healing:ch1 or "
        f"{ash}.critical_healing:ch2"
    )
    # The shapes of before name two rolls here: refused, saying the keys to give.
    for old in ("critical_healing", f"{ash}.critical_healing"):
        ambiguous = give(gm, job, {old: [1, 1, 1, 1, 1]})
        assert ambiguous.status_code == 400
        check.check(ambiguous)
        assert ambiguous.json() == {f"rolls.{old}": [f"the clock asks {both}"]}
    # A roll given wrong is said by its hit, and nothing is kept.
    wrong = give(
        gm,
        job,
        {
            f"{ash}.critical_healing:ch1": [11, 2, 3, 4, 5],
            f"{ash}.critical_healing:ch2": [12, 1, 1, 1, 1],
            f"{ash}.physical_healing": [2, 2, 2, 2, 2],
        },
    )
    assert wrong.status_code == 400
    assert wrong.json() == {
        f"rolls.{ash}.critical_healing:ch2": [
            "Ash's natural healing (Body) for critical hit 2 to the left arm (upper arm) needs 5d6, each die's "
            "total (a 6 is rolled again and added: 6 then 4 is 10); 12 is not a total (a 6 is always followed by "
            "the die after it)"
        ]
    }
    assert clock_entries({**table, "characters": [table["character"]]}) == []

    body = {
        f"{ash}.critical_healing:ch1": [11, 2, 3, 4, 5],
        f"{ash}.critical_healing:ch2": [1, 1, 1, 1, 1],
        f"{ash}.physical_healing": [2, 2, 2, 2, 2],
    }
    done = give(gm, job, body, HTTP_IDEMPOTENCY_KEY="both-hits")
    assert done.status_code == 200, done.content
    check.check(done)
    assert (done.json()["status"], done.json()["reached"], done.json()["needs_rolls"]) == ("done", 660, [])
    rolled = Event.objects.filter(character_id=ash, actor="clock").order_by("version")
    assert [
        (row.type, row.game_time, row.data.get("critical_hit"), row.data["dice"], row.data["table_dice"])
        for row in rolled
    ] == [
        ("CriticalHealingRolled", 600, "ch1", [11, 2, 3, 4, 5], ["critical_healing"]),
        ("CriticalHealingRolled", 600, "ch2", [1, 1, 1, 1, 1], ["critical_healing"]),
        ("PhysicalHealingRolled", 600, None, [2, 2, 2, 2, 2], ["physical_healing"]),
    ]

    # The same request again: the same job, nothing written.
    count = Event.objects.filter(campaign_id=table["campaign"]["id"]).count()
    again = give(gm, job, body, HTTP_IDEMPOTENCY_KEY="both-hits")
    assert again.status_code == 200
    assert {**again.json(), "heartbeat_at": None} == {**done.json(), "heartbeat_at": None}
    assert Event.objects.filter(campaign_id=table["campaign"]["id"]).count() == count

    # The same dice rolled by the server: the same firings, the same state.
    served = campaign_with(gm, "shadowrun2", "none", {"body": 5})
    for wound in TWO_CRITICAL_HITS:
        act(gm, served, wound)
    server_faces.extend([6, 5, 2, 3, 4, 5, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    assert advance(gm, served, minutes=11)["status"] == "done"
    assert history(served) == history(table)
    assert state_of(served) == state_of(table)


def test_a_hits_roll_is_still_taken_under_the_key_of_before_where_it_names_one_roll(gm: Persona) -> None:
    """Before keys named a timer's injury, a hit's roll was "9.critical_healing": while one hit's roll is asked, that
    key names it, and is taken (a client of before keeps working)."""
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    act(gm, table, CRITICAL_CHEST_HIT)
    ash = table["character"]["id"]
    job = advance(gm, table, minutes=11)
    assert [n["key"] for n in job["needs_rolls"]] == [
        f"{ash}.critical_healing:ch1",
        f"{ash}.physical_healing",
    ]
    job = give(
        gm, job, {f"{ash}.critical_healing": [11, 2, 3, 4, 5], f"{ash}.physical_healing": [8, 1, 1, 1, 1]}
    ).json()
    assert job["status"] == "done", job
    (healing,) = Event.objects.filter(character_id=ash, type="CriticalHealingRolled")
    assert healing.data["dice"] == [11, 2, 3, 4, 5]


def test_another_characters_rolls_at_the_second_of_its_first_are_asked_in_the_same_row(gm: Persona) -> None:
    """Ash's roll stops the advance at 00:10:00; Bo's two hits' natural healing rolls and its physical damage's roll
    fall at that second too: all of them one row, given in one request, not Bo's first alone and the rest after."""
    table = campaign_with(gm, "shadowrun2", "all", {"body": 5})
    act(gm, table, CRITICAL_CHEST_HIT)
    bo = gm.post(
        f"/api/campaigns/{table['campaign']['id']}/characters/", {"name": "Bo", "attributes": {"body": 5}}
    ).json()
    for wound in TWO_CRITICAL_HITS:
        assert gm.post(f"/api/characters/{bo['id']}/actions/", wound).status_code == 201
    ash = table["character"]["id"]
    job = advance(gm, table, minutes=11)
    keys = [f"{ash}.critical_healing:ch1", f"{ash}.physical_healing"]
    keys += [
        f"{bo['id']}.critical_healing:ch1",
        f"{bo['id']}.critical_healing:ch2",
        f"{bo['id']}.physical_healing",
    ]
    assert [(n["key"], n["game_time"]) for n in job["needs_rolls"]] == [(key, 600) for key in keys]
    dice = [[11, 2, 3, 4, 5], [8, 1, 1, 1, 1], [1, 1, 1, 1, 1], [2, 2, 2, 2, 2], [3, 3, 3, 3, 3]]
    done = give(gm, job, dict(zip(keys, dice, strict=True))).json()
    assert done["status"] == "done", done
    rolled = Event.objects.filter(campaign_id=table["campaign"]["id"], actor="clock").order_by("position")
    assert [(row.character_id, row.game_time, row.data["dice"]) for row in rolled] == [
        (ash, 600, dice[0]),
        (ash, 600, dice[1]),
        (bo["id"], 600, dice[2]),
        (bo["id"], 600, dice[3]),
        (bo["id"], 600, dice[4]),
    ]
