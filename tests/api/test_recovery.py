"""GET /api/campaigns/{id}/recovery/: the party's dates, who sees what, the what-ifs, the bounds, and secrecy."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import caches
from django.db import transaction

from tests.api.test_forecast import CRITICAL, MORTAL, chest_hit
from tests.conftest import Table

pytestmark = pytest.mark.django_db

DAY = 86_400
THREE_LOST = {"type": "damage", "weapon_damage": 2, "rolls": {"damage": [6], "ko": [1], "stun": [1]}}


def url(table: Table, query: str = "") -> str:
    return f"/api/campaigns/{table.campaign['id']}/recovery/{query}"


def npc(table: Table, name: str, attributes: dict[str, Any]) -> dict[str, Any]:
    made = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/", {"name": name, "attributes": attributes}
    )
    assert made.status_code == 201, made.content
    return made.json()


def test_the_gm_gets_a_dark_future_partys_exact_dates(df: Table) -> None:
    bo = npc(df, "Bo", {"con": 12})
    npc(df, "Cy", {"con": 6})  # unhurt: fit now
    assert df.act(THREE_LOST).status_code == 201  # Ash: CON 8 -> 5, 7 needed: two weeks of rest
    assert (
        df.gm.post(f"/api/characters/{bo['id']}/actions/", THREE_LOST).status_code == 201
    )  # 12 -> 9: a week
    answer = df.gm.get(url(df, "?by=2020-01-10&runs=100"))
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert (data["as_of_date"], data["runs"], data["exact"], data["sampling_error"]) == (
        "2020-01-01T00:00:00",
        100,
        True,
        0.0,
    )
    ash, bo_seen, cy = data["characters"]
    assert (ash["name"], ash["status"], ash["fit"]["p50_date"], ash["fit"]["p90_date"]) == (
        "Ash",
        None,
        "2020-01-15T00:00:00",
        "2020-01-15T00:00:00",
    )
    assert ash["text"] == "fit for action by 2020-01-15 00:00 (p50 and p90)"
    assert [i["text"] for i in ash["in_the_way"]] == [
        "CON 5 of 8 (7 needed), out of the way by 2020-01-15 00:00 (p50 and p90)"
    ]
    assert (
        bo_seen["fit"]["p50"] == 7 * DAY and cy["status"] == "fit now" and cy["text"] == "fit for action now"
    )
    assert data["party"]["all_fit"]["p50"] == data["party"]["all_fit"]["p90"] == 14 * DAY
    assert data["party"]["text"] == "all fit by 2020-01-15 00:00 (p50 and p90)"
    assert data["fit_by"]["text"] == "2 of 3 fit by 2020-01-10 00:00 (all 3: 0%)"
    assert data["what_if_menu"] == [
        {"with": f"treat:{df.character['id']}", "label": "treat Ash now"},
        {"with": f"treat:{bo['id']}", "label": "treat Bo now"},
    ]


def test_the_retired_are_not_listed_and_the_dead_are_out_of_the_partys_date(df: Table) -> None:
    bo = npc(df, "Bo", {"con": 10})
    dee = npc(df, "Dee", {"con": 2})
    assert df.act(THREE_LOST).status_code == 201  # Ash: CON 8 -> 5, 7 needed: fit on 2020-01-15
    for who in (bo, bo, dee):  # Bo: CON 10 -> 4, 9 needed: five weeks; Dee: CON 2 -> -1, dead
        assert df.gm.post(f"/api/characters/{who['id']}/actions/", THREE_LOST).status_code == 201
    before = df.gm.get(url(df)).json()
    assert [(c["name"], c["text"]) for c in before["characters"]] == [
        ("Ash", "fit for action by 2020-01-15 00:00 (p50 and p90)"),
        ("Bo", "fit for action by 2020-02-05 00:00 (p50 and p90)"),
        ("Dee", "dead"),
    ]
    assert (before["party"]["counted"], before["party"]["text"]) == (
        2,
        "all fit by 2020-02-05 00:00 (p50 and p90)",
    )
    # Bo retired: not listed, and the party is fit when Ash is. Dee, dead, stays listed but out of the date.
    assert df.gm.client.delete(f"/api/characters/{bo['id']}/").status_code == 200
    data = df.gm.get(url(df, "?by=2020-01-15")).json()
    assert [(c["name"], c["status"], c["fit"]) for c in data["characters"]][1:] == [("Dee", "dead", None)]
    assert [c["name"] for c in data["characters"]] == ["Ash", "Dee"]
    assert (data["party"]["counted"], data["party"]["text"]) == (
        1,
        "all fit by 2020-01-15 00:00 (p50 and p90)",
    )
    assert data["party"]["all_fit"]["p50"] == data["party"]["all_fit"]["p90"] == 14 * DAY
    assert data["fit_by"]["text"] == "1 of 1 fit by 2020-01-15 00:00 (all 1: 100%)"
    assert data["what_if_menu"] == [{"with": f"treat:{df.character['id']}", "label": "treat Ash now"}]


def test_a_what_if_says_how_the_partys_date_moves(cp2020: Table) -> None:
    # Ash (body 6, BTM -2): 10 to the torso is 8 points, 4 over Light; under first aid (half a point a day) the
    # track is at Light on day 8, in every future (no die left): exact.
    hurt = {
        "type": "damage",
        "damage": 10,
        "location": "torso",
        "rolls": {"stun_save": [1], "death_save": [1]},
    }
    assert cp2020.act(hurt).status_code == 201
    assert cp2020.act({"type": "treat", "medic": "Doc", "skill": "first_aid", "total": 15}).status_code == 201
    ash = cp2020.character["id"]
    answer = cp2020.gm.get(url(cp2020, f"?with=medic:10,treat:{ash}")).json()
    assert (answer["exact"], answer["party"]["text"]) == (True, "all fit by 2020-01-09 00:00 (p50 and p90)")
    # A medic of skill 10 never fails (TECH 6 + 10 + d10 >= 15): medical tech replaces first aid, a point a day,
    # Light on day 4. The forecast's own medic (skill 4) needs a 5 or more on the d10: 6 futures in 10 on day 4,
    # the rest stay on day 8 (seeded, and far from either percentile's rank). Both at once: the first treats.
    assert [(w["with"], w["label"], w["text"]) for w in answer["what_ifs"]] == [
        (
            "medic:10",
            "a medic of skill 10 for all",
            "all fit by 2020-01-05 00:00 (p50 and p90), 4 days sooner",
        ),
        (
            f"treat:{ash}",
            "treat Ash now",
            "all fit by 2020-01-05 00:00 (p50), 2020-01-09 00:00 (p90), 4 days sooner",
        ),
        ("all_of_these", "all of these at once", "all fit by 2020-01-05 00:00 (p50 and p90), 4 days sooner"),
    ]


def test_shadowrun_what_ifs_come_in_the_order_asked_with_all_of_these_last(sr2: Table) -> None:
    assert sr2.act(chest_hit(CRITICAL)).status_code == 201
    answer = sr2.gm.get(url(sr2, "?with=hospital,medic:6&runs=200")).json()
    assert [(w["with"], w["label"]) for w in answer["what_ifs"]] == [
        ("hospital", "hospital for all"),
        ("medic:6", "a medic of skill 6 for all"),
        ("all_of_these", "all of these at once"),
    ]
    assert all(w["text"].startswith("all fit by 2053-") for w in answer["what_ifs"])


def test_a_player_sees_only_their_own_characters_and_no_what_ifs(df: Table) -> None:
    npc(df, "Bo", {"con": 12})
    data = df.player.get(url(df)).json()
    assert [c["name"] for c in data["characters"]] == ["Ash"] and "what_if_menu" not in data
    asked = df.player.get(url(df, "?with=hospital"))
    assert (asked.status_code, asked.json()) == (
        403,
        {"detail": "only a GM of this campaign may ask the party's what-ifs"},
    )
    assert df.other_player.get(url(df)).status_code == 404
    assert df.stranger.get(url(df)).status_code == 404


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("?runs=5", "runs", "expected a whole number from 10 to 5,000, got '5'"),
        ("?by=soon", "by", "expected a game date such as 2053-03-02, got 'soon'"),
        ("?by=2052-12-31", "by", "expected a game date from now on, got '2052-12-31'"),
        ("?with=pray", "with", "expected some of hospital, medic:N, separated by commas, got 'pray'"),
        (
            "?with=medic:1,medic:2,medic:3,medic:4,medic:5",
            "with",
            "expected at most 4 what-ifs at once, got 5",
        ),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(sr2: Table, query: str, field: str, message: str) -> None:
    answer = sr2.gm.get(url(sr2, query))
    assert (answer.status_code, answer.json()) == (400, {field: [message]})


def test_a_players_answer_is_byte_identical_for_a_mortal_and_a_critical_undiagnosed_hit(sr2: Table) -> None:
    answers, gm_saw = [], []
    for body_check in (MORTAL, CRITICAL):
        caches["pages"].clear()  # the rolled-back character has the same version: no answer of the other
        with transaction.atomic():
            assert sr2.act(chest_hit(body_check)).status_code == 201
            answers.append(sr2.player.get(url(sr2)).content)
            gm_saw.append(sr2.gm.get(url(sr2)).json()["characters"][0]["in_the_way"][0]["what"])
            transaction.set_rollback(True)
    assert gm_saw == ["the chest's mortal hit (spine)", "the chest's critical hit (spine)"]
    assert answers[0] == answers[1]
    data = json.loads(answers[0])
    ash = data["characters"][0]
    assert ash["text"] == "fit for action: unknown until diagnosed"
    assert ash["in_the_way"][-1]["text"] == "a critical hit to the chest: unknown until diagnosed"
    assert data["party"]["text"] == "all fit: unknown until diagnosed"


def test_a_gm_reads_a_mortal_hit_as_care_needed_and_an_injury_past_the_year_as_still_in_the_way(
    sr2: Table,
) -> None:
    assert sr2.act(chest_hit(MORTAL)).status_code == 201
    data = sr2.gm.get(url(sr2)).json()
    ash = data["characters"][0]
    assert ash["text"] == "not fit for action without care"
    assert data["party"]["text"] == "not all fit without care"
    texts = [item["text"] for item in ash["in_the_way"]]
    assert (
        texts[0]
        == "the chest's mortal hit (spine): not without care (a mortal hit kills unless it is treated)"
    )
    assert texts[1].endswith(": still in the way on 2054-01-01 00:00 in most futures"), texts
