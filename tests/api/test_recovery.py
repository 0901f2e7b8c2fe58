"""GET /api/campaigns/{id}/recovery/: the party's dates, who sees what, the what-ifs, the bounds, and secrecy."""

from __future__ import annotations

import json
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import caches
from django.db import transaction

from campaign.forecast import recovery as rv
from campaign.forecast import recovery_words as rw
from tests.api.test_forecast import CRITICAL, MORTAL, chest_hit
from tests.conftest import Table
from tests.web.test_player_secrets import DIAGNOSE_CH1

pytestmark = pytest.mark.django_db

DAY = 86_400
THREE_LOST = {"type": "damage", "weapon_damage": 2, "rolls": {"damage": [6], "ko": [1], "stun": [1]}}


def url(table: Table, query: str = "") -> str:
    return f"/api/campaigns/{table.campaign['id']}/recovery/{query}"


def npc(table: Table, name: str, attributes: dict[str, Any]) -> dict[str, Any]:
    """A character nobody plays: listed with its own date, not counted in the party's (beside Ash, played)."""
    made = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/", {"name": name, "attributes": attributes}
    )
    assert made.status_code == 201, made.content
    return made.json()


def teammate(table: Table, name: str, attributes: dict[str, Any]) -> dict[str, Any]:
    """A character of the party beside Ash: one a member plays (gm2 here; that someone plays it is what counts),
    so neither the player's own nor an NPC."""
    made = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/",
        {"name": name, "player": "gm2", "attributes": attributes},
    )
    assert made.status_code == 201, made.content
    return made.json()


def test_the_gm_gets_a_dark_future_partys_exact_dates(df: Table) -> None:
    bo = teammate(df, "Bo", {"con": 12})
    teammate(df, "Cy", {"con": 6})  # unhurt: fit now
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
    assert ash["text"] == "fit for action by 15 January"
    assert [i["text"] for i in ash["in_the_way"]] == ["CON 5 of 8 (7 needed): out of the way by 15 January"]
    assert (
        bo_seen["fit"]["p50"] == 7 * DAY and cy["status"] == "fit now" and cy["text"] == "fit for action now"
    )
    assert data["party"]["all_fit"]["p50"] == data["party"]["all_fit"]["p90"] == 14 * DAY
    assert data["party"]["text"] == "all fit by 15 January"
    assert data["fit_by"]["text"] == "By 10 January: 2 of 3 fit (Ash not by then)"
    # A date alone is by the end of that day; the numbers and each one's word beside the sentence.
    fit_by = {key: value for key, value in data["fit_by"].items() if key not in ("text", "characters")}
    assert fit_by == {
        "by": 10 * DAY - 1,
        "by_date": "2020-01-10T23:59:59",
        "fit": 2,
        "likely": 2,
        "of": 3,
        "all_chance": 0.0,
    }
    assert [(c["name"], c["by_then"]) for c in data["fit_by"]["characters"]] == [
        ("Ash", "not by then"),
        ("Bo", "fit"),
        ("Cy", "fit"),
    ]
    # Rest alone brings CON back: nothing the GM's recover (Dark Future's only care) would change.
    assert data["what_if_menu"] == []


def test_the_retired_are_not_listed_and_the_dead_are_out_of_the_partys_date(df: Table) -> None:
    bo = teammate(df, "Bo", {"con": 10})
    dee = teammate(df, "Dee", {"con": 2})
    assert df.act(THREE_LOST).status_code == 201  # Ash: CON 8 -> 5, 7 needed: fit on 2020-01-15
    for who in (bo, bo, dee):  # Bo: CON 10 -> 4, 9 needed: five weeks; Dee: CON 2 -> -1, dead
        assert df.gm.post(f"/api/characters/{who['id']}/actions/", THREE_LOST).status_code == 201
    before = df.gm.get(url(df)).json()
    assert [(c["name"], c["text"]) for c in before["characters"]] == [
        ("Ash", "fit for action by 15 January"),
        ("Bo", "fit for action by 5 February"),
        ("Dee", "dead (not counted in the party's date)"),
    ]
    assert (before["party"]["counted"], before["party"]["text"]) == (
        2,
        "all fit by 5 February (Dee is dead, not counted)",
    )
    # Bo retired: not listed, and the party is fit when Ash is. Dee, dead, stays listed but out of the date.
    assert df.gm.client.delete(f"/api/characters/{bo['id']}/").status_code == 200
    data = df.gm.get(url(df, "?by=2020-01-15")).json()
    assert [(c["name"], c["status"], c["fit"]) for c in data["characters"]][1:] == [("Dee", "dead", None)]
    assert [c["name"] for c in data["characters"]] == ["Ash", "Dee"]
    assert (data["party"]["counted"], data["party"]["text"]) == (
        1,
        "all fit by 15 January (Dee is dead, not counted)",
    )
    assert data["party"]["all_fit"]["p50"] == data["party"]["all_fit"]["p90"] == 14 * DAY
    # "How many fit by" says who it leaves out as the party's sentence does.
    assert data["fit_by"]["text"] == "By 15 January: Ash fit (Dee is dead, not counted)"
    assert data["what_if_menu"] == []


def test_the_what_ifs_offer_no_care_of_an_npc_which_cannot_move_the_partys_date(sr2: Table) -> None:
    """A crippling chest hit on Ash (played, diagnosed) and the same on an enemy nobody plays: the menu offers Ash's
    replacement and Accept, and nothing of the enemy's, until someone plays it."""
    diagnosis = DIAGNOSE_CH1
    assert sr2.act(chest_hit(CRIPPLING)).status_code == 201
    assert sr2.act(diagnosis).status_code == 201
    ganger = npc(sr2, "Ganger", {"body": 5})
    for action in (chest_hit(CRIPPLING), diagnosis):
        assert sr2.gm.post(f"/api/characters/{ganger['id']}/actions/", action).status_code == 201
    offered = [w["label"] for w in sr2.gm.get(url(sr2)).json()["what_if_menu"]]
    assert "Ash's spine replaced" in offered and not [label for label in offered if "Ganger" in label]
    assert (
        sr2.gm.client.patch(f"/api/characters/{ganger['id']}/", {"player": "gm2"}, format="json").status_code
        == 200
    )
    offered = [w["label"] for w in sr2.gm.get(url(sr2)).json()["what_if_menu"]]
    assert {"Ganger's spine replaced", "Ganger's crippled spine accepted by the GM"} <= set(offered)


def test_the_partys_date_counts_the_player_characters_not_an_enemy_npc(df: Table) -> None:
    # The walkthrough: an enemy ganger, badly hurt, pushed the party's date back. Ash (played): CON 8 -> 5, 7
    # needed, fit on 15 January. The Ganger (nobody's): CON 10 -> 4, 9 needed, five weeks, 5 February.
    ganger = npc(df, "Ganger", {"con": 10})
    assert df.act(THREE_LOST).status_code == 201
    for _ in range(2):
        assert df.gm.post(f"/api/characters/{ganger['id']}/actions/", THREE_LOST).status_code == 201
    data = df.gm.get(url(df, "?by=2020-01-15")).json()
    assert [(c["name"], c["in_party"], c["text"]) for c in data["characters"]] == [
        ("Ash", True, "fit for action by 15 January"),
        (
            "Ganger",
            False,
            "fit for action by 5 February (nobody's character: not counted in the party's date)",
        ),
    ]
    assert data["party"]["all_fit"]["p50"] == data["party"]["all_fit"]["p90"] == 14 * DAY  # not 35 days
    assert (data["party"]["counted"], data["party"]["text"]) == (
        1,
        "all fit by 15 January (the player characters only: Ganger is nobody's character, not counted)",
    )
    # The count is of the player characters only, and says so as the party's sentence does.
    assert data["fit_by"]["text"] == (
        "By 15 January: Ash fit (the player characters only: Ganger is nobody's character, not counted)"
    )
    # Played, the same character counts: the party then waits for it.
    assert (
        df.gm.client.patch(f"/api/characters/{ganger['id']}/", {"player": "gm2"}, format="json").status_code
        == 200
    )
    again = df.gm.get(url(df)).json()
    assert [c["in_party"] for c in again["characters"]] == [True, True]
    assert (again["party"]["counted"], again["party"]["all_fit"]["p50"]) == (2, 35 * DAY)


def test_where_nobody_plays_a_character_every_character_counts(df: Table) -> None:
    # A GM keeping every sheet alone: nothing tells the party from the rest, so all count (docs/recovery.md).
    assert (
        df.gm.client.patch(
            f"/api/characters/{df.character['id']}/", {"player": ""}, format="json"
        ).status_code
        == 200
    )
    ganger = npc(df, "Ganger", {"con": 10})
    assert df.act(THREE_LOST).status_code == 201
    for _ in range(2):
        assert df.gm.post(f"/api/characters/{ganger['id']}/actions/", THREE_LOST).status_code == 201
    data = df.gm.get(url(df)).json()
    assert [c["in_party"] for c in data["characters"]] == [True, True]
    assert (data["party"]["counted"], data["party"]["text"]) == (2, "all fit by 5 February")


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
    assert (answer["exact"], answer["party"]["text"]) == (True, "all fit by 9 January")
    # A medic of skill 10 never fails (TECH 6 + 10 + d10 >= 15): medical tech replaces first aid, a point a day,
    # Light on day 4. The forecast's own medic (skill 4) needs a 5 or more on the d10: 6 futures in 10 on day 4,
    # the rest stay on day 8 (seeded, and far from either percentile's rank). Both at once: the first treats.
    assert [(w["with"], w["label"], w["text"]) for w in answer["what_ifs"]] == [
        (
            "medic:10",
            "with a medic of skill 10 treating everyone now",
            "all fit by 5 January, 4 days sooner",
        ),
        (
            f"treat:{ash}",
            "with Ash treated now",
            "all fit most likely by 5 January, at the latest by 9 January (9 in 10), 4 days sooner",
        ),
        (
            "all_of_these",
            "with a medic of skill 10 treating everyone now and Ash treated now, all at once",
            "all fit by 5 January, 4 days sooner",
        ),
    ]


def test_shadowrun_what_ifs_come_in_the_order_asked_with_all_of_these_last(sr2: Table) -> None:
    assert sr2.act(chest_hit(CRITICAL)).status_code == 201
    answer = sr2.gm.get(url(sr2, "?with=hospital,medic:6&runs=200")).json()
    assert [(w["with"], w["label"]) for w in answer["what_ifs"]] == [
        ("hospital", "with everyone in hospital"),
        ("medic:6", "with a medic of skill 6 treating everyone now"),
        (
            "all_of_these",
            "with everyone in hospital and a medic of skill 6 treating everyone now, all at once",
        ),
    ]
    assert all(w["text"].startswith("all fit most likely by ") for w in answer["what_ifs"]), answer[
        "what_ifs"
    ]


def test_a_player_sees_only_their_own_characters_and_no_what_ifs(df: Table) -> None:
    teammate(df, "Bo", {"con": 12})
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
        ("?runs=5", "runs", "expected a whole number from 10 to 5,000, got 5"),
        ("?by=soon", "by", "expected a game date such as 2053-03-02 or 2 March 2053, got soon"),
        ("?by=2052-12-31", "by", "expected a game date from now on, got 2052-12-31"),
        ("?with=pray", "with", "no what-if would change anything now, got pray"),
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
    assert ash["text"] == "fitness for action unknown until every hit is diagnosed"
    assert ash["in_the_way"][-1]["text"] == "a critical hit to the chest: unknown until diagnosed"
    assert data["party"]["text"] == "whether all are fit is unknown until every hit is diagnosed"


def test_a_gm_reads_a_mortal_hit_as_care_needed_and_an_injury_past_the_year_as_still_in_the_way(
    sr2: Table,
) -> None:
    assert sr2.act(chest_hit(MORTAL)).status_code == 201
    data = sr2.gm.get(url(sr2)).json()
    ash = data["characters"][0]
    assert ash["text"] == "fit for action only once cared for (below)"
    assert data["party"]["text"] == (
        "not all fit until cared for: Ash: the chest's mortal hit (spine) needs care"
    )
    texts = [item["text"] for item in ash["in_the_way"]]
    # The GM reads when it kills (the spine's 1d6 min, a 6); a player never does (RULES.md, "Player view").
    assert (
        texts[0]
        == "the chest's mortal hit (spine): needs care. A mortal hit kills in about 6 min unless treated."
    )
    player = sr2.player.get(url(sr2)).json()["characters"][0]["in_the_way"]
    assert not any("kills in" in item["text"] for item in player), player
    # Untreated, the wound never heals in any future (no die is rolled): certain, so no "most likely".
    assert texts[1] == "physical damage (Serious, 6 boxes): still in the way a year from now", texts


CRIPPLING = [6, 1, 1, 1, 1]  # Body 5 against TN 6: one success, a Crippling hit (the chest's spine)


def test_the_dead_are_listed_and_a_crippling_hit_replaced_or_accepted_gives_the_living_a_date(
    sr2: Table,
) -> None:
    ash = sr2.character["id"]
    assert sr2.act(chest_hit(CRIPPLING)).status_code == 201
    diagnosis = DIAGNOSE_CH1
    assert sr2.act(diagnosis).status_code == 201
    bo = teammate(sr2, "Bo", {"body": 5})
    assert sr2.gm.post(f"/api/characters/{bo['id']}/actions/", chest_hit(MORTAL)).status_code == 201
    assert sr2.advance(minutes=10).status_code in (200, 201, 202)  # Bo's spine kills at 6 minutes
    asked = f"?with=replace:{ash}:ch1,accept:{ash}:ch1&runs=200"
    data = sr2.gm.get(url(sr2, asked)).json()
    assert [(c["name"], c["status"], c["text"]) for c in data["characters"]][1] == (
        "Bo",
        "dead",
        "dead (not counted in the party's date)",
    )
    # Untreated, the crippling hit never heals: no date, and the party's words say whose hit and why.
    assert data["party"]["counted"] == 1 and data["party"]["all_fit"] is None
    assert data["party"]["text"] == (
        "not all fit until cared for: Ash: the chest's crippling hit (spine) needs care (Bo is dead, not counted)"
    )
    assert data["what_if_menu"] == [
        {"with": "hospital", "label": "everyone in hospital"},
        {"with": f"treat:{ash}", "label": "Ash treated now"},
        {"with": f"replace:{ash}:ch1", "label": "Ash's spine replaced"},
        {"with": f"accept:{ash}:ch1", "label": "Ash's crippled spine accepted by the GM"},
    ] + [{"with": f"medic:{n}", "label": f"a medic of skill {n} treating everyone now"} for n in range(1, 13)]
    # Each what-if names what changes for whom, and each gives the living a date (the physical damage's healing).
    labels = [w["label"] for w in data["what_ifs"]]
    # Never both at once: a hit is replaced or accepted (docs/recovery.md, "What-ifs").
    assert labels == ["with Ash's spine replaced", "with Ash's crippled spine accepted by the GM"]
    for what_if in data["what_ifs"]:
        fit = what_if["all_fit"]
        assert fit["p50"] is not None and fit["p90"] is not None and fit["p50"] <= fit["p90"], what_if
        low, high = (_day(fit[f"{p}_date"]) for p in ("p50", "p90"))
        when = f"by {low}" if low == high else f"most likely by {low}, at the latest by {high} (9 in 10)"
        assert what_if["text"] == f"all fit {when} (Bo is dead, not counted)"


def _day(iso: str) -> str:
    """A game date as the recovery's words say one more than two days on in the same year: '26 February'."""
    from datetime import datetime

    moment = datetime.fromisoformat(iso)
    return f"{moment.day} {moment.strftime('%B')}"


def test_hospital_alone_leaves_the_crippling_hit_in_the_way_and_says_so(sr2: Table) -> None:
    assert sr2.act(chest_hit(CRIPPLING)).status_code == 201
    data = sr2.gm.get(url(sr2, "?with=hospital&runs=100")).json()
    (what_if,) = data["what_ifs"]
    assert what_if["all_fit"]["p50"] is None
    assert what_if["text"] == (
        "still most likely not all fit within a year: Ash: the chest's crippling hit (spine) stays in the way "
        "(a crippling hit never heals on its own)"
    )


def test_a_cyberpunk_crippled_limb_replaced_is_a_what_if_and_what_still_stands_is_named(
    cp2020: Table,
) -> None:
    from tests.api.test_cyberpunk2020 import STABILIZED_LEG

    for step in STABILIZED_LEG:  # the left leg crippled (its bones not set), stabilized with first aid
        assert cp2020.act(step).status_code == 201
    ash = cp2020.character["id"]
    data = cp2020.gm.get(url(cp2020, f"?with=replace:{ash}:left_leg,treat:{ash}&runs=100")).json()
    assert {"with": f"replace:{ash}:left_leg", "label": "Ash's left leg replaced"} in data["what_if_menu"]
    assert data["party"]["text"].startswith("not all fit until cared for: Ash: the wound track: 8 points, ")
    assert "; Ash: the crippled left leg needs care" in (data["party"]["text"])
    replaced, treated, both = data["what_ifs"]
    assert replaced["label"] == "with Ash's left leg replaced"
    assert treated["label"] == "with Ash treated now"
    assert both["label"] == "with Ash's left leg replaced and Ash treated now, all at once"
    # Each alone leaves the other in the way, named with why; both at once give the party a date.
    assert replaced["all_fit"]["p50"] is None
    assert replaced["text"].startswith(  # untreated wounds never heal: certain, no die rolled
        "still not all fit within a year: Ash: the wound track: 8 points, 4 points over Light stays in "
        "the way (untreated wounds do not"
    ), replaced["text"]
    assert treated["all_fit"]["p50"] is None
    assert treated["text"].startswith(
        "still most likely not all fit within a year: Ash: the crippled left leg stays in the way ("
    ), treated["text"]
    assert both["all_fit"]["p50"] is not None and both["text"].startswith("all fit "), both


def test_a_what_if_short_of_a_date_names_what_surely_stands_before_the_chances_of_the_rest(
    sr2: Table,
) -> None:
    assert sr2.act(chest_hit(CRIPPLING)).status_code == 201
    bo = teammate(sr2, "Bo", {"body": 5})
    medium = {"body_check": [6, 6, 1, 1, 1], "location": [2, 3], "critical": 1}  # a Critical hit, the abdomen
    wound = {"type": "wound", "severity": "M", "rolls": medium}
    assert sr2.gm.post(f"/api/characters/{bo['id']}/actions/", wound).status_code == 201
    hospital = sr2.gm.get(url(sr2, "?with=hospital&runs=100")).json()["what_ifs"][0]
    # Ash's crippling hit never heals in hospital: that is said; Bo's chance of not healing within a year (a
    # few futures in 100 even in hospital) is not.
    assert hospital["text"].startswith(
        "still most likely not all fit within a year: Ash: the chest's crippling hit"
    )
    assert "Bo" not in hospital["text"]


def second_hit(body_check: list[int]) -> dict[str, Any]:
    """A Moderate wound after `chest_hit`: 9 boxes in all (Serious, no Deadly damage), and with 0 successes (Mortal)
    or 2 (Critical) of Body 5 against TN 4 a second, undiagnosed hit to the chest's spine."""
    rolls = {"body_check": body_check, "location": [3, 4], "critical": 3, "death_time": [6]}
    return {"type": "wound", "severity": "M", "rolls": rolls}


def test_a_players_headline_says_care_is_needed_when_care_they_can_see_is_needed(sr2: Table) -> None:
    """Issue 42: the player read "all fit: unknown until diagnosed" where the GM read "not all fit until cared
    for", for a diagnosed crippling hit the player sees (docs/recovery.md, "Secrecy"). The undiagnosed hit beside
    it stays a secret: the player's answer is the same whether it is Mortal or Critical."""
    answers, gm_texts = [], []
    for body_check in ([1, 1, 1, 1, 1], [6, 6, 1, 1, 1]):  # the second hit Mortal, then Critical
        caches["pages"].clear()  # the rolled-back character has the same version: no answer of the other
        with transaction.atomic():
            assert sr2.act(chest_hit(CRIPPLING)).status_code == 201
            assert sr2.act(DIAGNOSE_CH1).status_code == 201
            assert sr2.act(second_hit(body_check)).status_code == 201
            answers.append(sr2.player.get(url(sr2)).content)
            gm_texts.append(sr2.gm.get(url(sr2)).json()["party"]["text"])
            transaction.set_rollback(True)
    assert all(
        text.startswith("not all fit until cared for: Ash: the chest's crippling hit") for text in gm_texts
    )
    assert answers[0] == answers[1]
    data = json.loads(answers[0])
    assert data["party"]["note"] == "not without care"
    assert data["party"]["text"] == (
        "not all fit until cared for: Ash: the chest's crippling hit (spine) needs care; Ash: a critical hit to the "
        "chest: unknown until diagnosed"
    )
    ash = data["characters"][0]
    assert (ash["note"], ash["text"]) == ("not without care", "fit for action only once cared for (below)")
    assert ash["in_the_way"][-1]["text"] == "a critical hit to the chest: unknown until diagnosed"
    assert b"mortal" not in answers[0] and b"6 min" not in answers[0]


def test_how_many_fit_by_a_date_is_answered_while_someone_needs_care(sr2: Table) -> None:
    """Issue 42: "How many fit by" answered nothing while someone's care stood in the way of the party's date. It
    now names who is not fit by then and why, from the same futures as the rest of the answer."""
    assert sr2.act(chest_hit(CRIPPLING)).status_code == 201  # Ash: the chest's spine, crippling
    assert sr2.act(DIAGNOSE_CH1).status_code == 201
    teammate(sr2, "Bo", {"body": 5})  # unhurt: fit now
    data = sr2.gm.get(url(sr2, "?by=2053-01-01")).json()  # today: by the end of it
    assert data["party"]["note"] == "not without care"
    assert data["fit_by"]["text"] == "By 1 January: 1 of 2 fit (Ash not until cared for)"
    assert (data["fit_by"]["by"], data["fit_by"]["fit"], data["fit_by"]["of"]) == (DAY - 1, 1, 2)
    # The player, of their own character only.
    mine = sr2.player.get(url(sr2, "?by=2053-01-01")).json()["fit_by"]
    assert (mine["text"], mine["of"]) == ("By 1 January: Ash not fit until cared for", 1)


def test_a_players_how_many_fit_by_is_the_same_whatever_the_undiagnosed_hit(sr2: Table) -> None:
    answers, gm_said = [], []
    for body_check in (MORTAL, CRITICAL):
        caches["pages"].clear()  # the rolled-back character has the same version: no answer of the other
        with transaction.atomic():
            assert sr2.act(chest_hit(body_check)).status_code == 201
            answers.append(sr2.player.get(url(sr2, "?by=2053-02-01")).content)
            gm_said.append(sr2.gm.get(url(sr2, "?by=2053-02-01")).json()["fit_by"]["text"])
            transaction.set_rollback(True)
    assert gm_said[0] == "By 1 February: Ash not fit until cared for"  # the GM's: the mortal hit
    assert answers[0] == answers[1]
    fit_by = json.loads(answers[0])["fit_by"]
    assert fit_by["text"] == "By 1 February: Ash unknown until diagnosed"
    assert fit_by["characters"][0]["by_then"] == "unknown until diagnosed" and fit_by["fit"] == 0


def test_a_date_past_the_forecasts_year_is_a_400_naming_it(df: Table) -> None:
    """The futures run a year (from 2020-01-01 00:00 to 2020-12-31 00:00): a day that ends later is refused, since
    everyone not fit within the year would read "not by then"; the page's date input offers up to the day before."""
    assert df.gm.get(url(df, "?by=2020-12-30")).status_code == 200
    answer = df.gm.get(url(df, "?by=2020-12-31"))
    assert (answer.status_code, answer.json()) == (
        400,
        {"by": ["expected a game date within a year from now, got 2020-12-31"]},
    )


@pytest.mark.parametrize(
    ("each", "all_chance", "said"),
    [
        (
            [("Ash", rv.LIKELY), ("Bo", rv.FIT), ("Cass", rv.LIKELY_NOT), ("Dee", rv.FIT)],
            Fraction(3, 10),
            "By 12 March: 3 of 4 likely fit (Cass most likely not)",
        ),
        (
            [("Ash", rv.LIKELY), ("Bo", rv.LIKELY)],
            Fraction(1, 3),
            "By 12 March: 2 of 2 likely fit, though most likely not all at once",
        ),
        (
            [("Ash", rv.NOT_CARED_FOR), ("Bo", rv.LIKELY_NOT), ("Cy", rv.NOT_CARED_FOR)],
            Fraction(0),
            "By 12 March: 0 of 3 fit (Ash and Cy not until cared for; Bo most likely not)",
        ),
        ([("Ash", rv.LIKELY_NOT)], Fraction(1, 5), "By 12 March: Ash most likely not fit"),
        ([("Ash", rv.UNKNOWN_UNTIL_DIAGNOSED)], Fraction(0), "By 12 March: Ash unknown until diagnosed"),
    ],
)
def test_how_many_fit_by_reads_without_statistics(
    each: list[tuple[str, str]], all_chance: Fraction, said: str
) -> None:
    """The sentence a player reads: "likely" for at least even odds, the others named with why, no percentages."""
    by = (31 + 28 + 11) * DAY + DAY - 1  # 12 March 2053, by the end of it
    likely = sum(word in (rv.FIT, rv.LIKELY) for _name, word in each)
    found = rv.FitBy(by, tuple((n, name, word) for n, (name, word) in enumerate(each)), 0, likely, all_chance)
    recovery = SimpleNamespace(
        fit_by=found,
        campaign=SimpleNamespace(start="2053-01-01T00:00:00"),
        as_of=0,
        members=each,
        party=rv.Party(None, None, len(each)),
    )
    assert rw.fit_by_text(recovery) == said  # type: ignore[arg-type]


# The chest's ribs, Mortal (0 successes of Body 5), dead in 1d6 x 10 minutes = 60 minutes: time for a treatment
# (10 minutes / successes) to complete first whenever it has a success.
MORTAL_RIBS = {
    "type": "wound",
    "severity": "S",
    "rolls": {"body_check": MORTAL, "location": [3, 4], "critical": 2, "death_time": [6]},
}


def test_a_treated_mortal_hit_left_in_the_way_is_said_as_treated_not_as_untreated(sr2: Table) -> None:
    """A GM's walkthrough: "with Ash treated now" said the Mortal hit stays in the way because "a mortal hit kills
    unless it is treated", the reason of the untreated state. Treated, it turns Crippling when the treatment
    completes, which never heals on its own: the what-if's sentence says that reason."""
    assert sr2.act(MORTAL_RIBS).status_code == 201
    ash = sr2.character["id"]
    data = sr2.gm.get(url(sr2, f"?with=treat:{ash}&runs=200")).json()
    assert data["characters"][0]["in_the_way"][0]["text"] == (
        "the chest's mortal hit (ribs): needs care. A mortal hit kills in about 1 h unless treated."
    )
    (treated,) = data["what_ifs"]
    assert treated["label"] == "with Ash treated now"
    assert treated["text"] == (
        "still most likely not all fit within a year: Ash: the chest's mortal hit (ribs) stays in the way (the "
        "treatment under way will leave a crippling hit, which never heals on its own)"
    )


TORSO_8 = {
    "type": "damage",
    "damage": 10,
    "location": "torso",
    "rolls": {"stun_save": [1], "death_save": [1]},
}


def test_a_medics_treatment_that_fails_in_most_futures_says_it_failed(cp2020: Table) -> None:
    """A medic of skill 1 treats (TECH 6 + 1 + d10 against 15: 3 futures in 10): in the rest the wounds stay
    untreated because the treatment failed, which is what the what-if's sentence says, not that nobody treated
    them. A treatment failed at the table reads the same, with when it may be tried again."""
    assert cp2020.act(TORSO_8).status_code == 201
    data = cp2020.gm.get(url(cp2020, "?with=medic:1&runs=100")).json()
    (medic,) = data["what_ifs"]
    assert medic["label"] == "with a medic of skill 1 treating everyone now"
    assert medic["text"] == (
        "still most likely not all fit within a year: Ash: the wound track: 8 points, 4 points over Light stays in "
        "the way (the treatment failed, and untreated wounds do not heal)"
    )
    failed = {"type": "treat", "medic": "Doc", "skill": "medical_tech", "total": 5}
    assert cp2020.act(failed).status_code == 201
    (track,) = cp2020.gm.get(url(cp2020)).json()["characters"][0]["in_the_way"]
    assert track["text"] == (
        "the wound track: 8 points, 4 points over Light: needs care. The treatment failed, and untreated wounds do "
        "not heal. A failed treatment may be tried again 1 game day later."
    )


def test_a_cyberpunk_crippled_limb_has_a_bones_set_what_if_beside_its_replacement(cp2020: Table) -> None:
    """RULES.md, "Fit for action": a crippled limb neither mended (its bones set) nor replaced keeps a character
    unfit. The party's what-ifs offered the replacement alone; the bones set is offered beside it, once the rules
    would set them (the limb stabilized), and dates the party by the mending: 6 weeks (`bone_mend_weeks`)."""
    from tests.api.test_cyberpunk2020 import STABILIZED_LEG

    ash = cp2020.character["id"]
    assert cp2020.act(STABILIZED_LEG[0]).status_code == 201  # the left leg crippled, still bleeding
    bleeding = cp2020.gm.get(url(cp2020)).json()["what_if_menu"]
    assert f"set:{ash}:left_leg" not in [w["with"] for w in bleeding]  # stabilize it first, as the rules say
    assert cp2020.act(STABILIZED_LEG[1]).status_code == 201
    # Treated by medical tech (a point a day): the track is at Light on day 4; the leg alone stands in the way.
    treated = {"type": "treat", "medic": "Doc", "skill": "medical_tech", "total": 15}
    assert cp2020.act(treated).status_code == 201
    data = cp2020.gm.get(url(cp2020, f"?with=set:{ash}:left_leg,replace:{ash}:left_leg")).json()
    assert data["what_if_menu"] == [
        {"with": f"set:{ash}:left_leg", "label": "Ash's left leg set"},
        {"with": f"replace:{ash}:left_leg", "label": "Ash's left leg replaced"},
    ]
    assert data["party"]["text"] == "not all fit until cared for: Ash: the crippled left leg needs care"
    # Each alone; never both at once (tester's report: "with Rook's right arm set and Rook's right arm replaced,
    # all at once"): a limb is set or replaced, and together they are the replacement alone, already answered.
    assert [(w["label"], w["text"]) for w in data["what_ifs"]] == [
        ("with Ash's left leg set", "all fit by 12 February"),
        ("with Ash's left leg replaced", "all fit by 5 January"),
    ]
    # A setting that failed may be tried again a game day later: not offered until then.
    assert (
        cp2020.act({"type": "set_bones", "limb": "left_leg", "medic": "Doc", "total": 5}).status_code == 201
    )
    menu = [w["with"] for w in cp2020.gm.get(url(cp2020)).json()["what_if_menu"]]
    assert menu == [f"replace:{ash}:left_leg"]


@pytest.mark.parametrize(
    "by", ["2020-01-10", "10 January 2020", "10 Jan 2020", "10 january 2020", "10 JAN 2020"]
)
def test_how_many_fit_by_takes_a_date_as_the_game_writes_it_to_people(df: Table, by: str) -> None:
    """ "12 March 2054" is how the game writes a date to people (its answers, "By 10 January: ..."): `?by=` takes
    it, and its month's first three letters, as it takes 2020-01-10 (`rules.game_dates.read_date`, one parser for
    the API and the page)."""
    df.act(THREE_LOST)
    answer = df.gm.get(url(df, f"?by={by}"))
    assert answer.status_code == 200, answer.content.decode()
    fit_by = answer.json()["fit_by"]
    assert (fit_by["by"], fit_by["by_date"], fit_by["text"]) == (
        10 * DAY - 1,
        "2020-01-10T23:59:59",
        "By 10 January: Ash not fit by then",
    )


@pytest.mark.parametrize("by", ["30 February 2020", "10 Janvier 2020", "10 2020", "January 10 2020"])
def test_a_date_in_words_that_is_no_date_is_a_400_naming_both_shapes(df: Table, by: str) -> None:
    answer = df.gm.get(url(df, f"?by={by}"))
    assert (answer.status_code, answer.json()) == (
        400,
        {"by": [f"expected a game date such as 2053-03-02 or 2 March 2053, got {by}"]},
    )


SEVER_RIGHT_ARM = {  # 40 to the right arm: halved to 20, less BTM 2 is 18; Body 6 + Luck 2 + 1 < 18: severed
    "type": "damage",
    "damage": 40,
    "location": "right_arm",
    "rolls": {"sever": [1], "stun_save": [1], "death_save": [1]},
}
STABILIZE_RIGHT_ARM = {"type": "stabilize", "target": "limb:right_arm", "skill": "first_aid", "total": 15}


def test_a_severed_limb_needs_a_replacement_and_a_combined_what_if_never_sets_and_replaces_one_limb(
    cp2020: Table,
) -> None:
    """Tester's report: a severed arm read "needs care. A crippled limb needs its bones set, or a replacement." (a
    severed limb has no bones to set: RULES.md, `set_bones`), and the combined what-if read "with Rook's right arm
    set and Rook's right arm replaced, all at once". A severed limb needs a replacement; all at once takes, for
    each limb, the one that clears it soonest: the replacement (docs/recovery.md, "What-ifs")."""
    from tests.api.test_cyberpunk2020 import STABILIZED_LEG

    ash = cp2020.character["id"]
    for step in STABILIZED_LEG:
        assert cp2020.act(step).status_code == 201
    assert (
        cp2020.act({"type": "treat", "skill": "medical_tech", "medic": "Doc", "total": 15}).status_code == 201
    )
    rook = teammate(cp2020, "Rook", {"body": 6, "luck": 2})["id"]
    for action in (SEVER_RIGHT_ARM, STABILIZE_RIGHT_ARM):
        said = cp2020.gm.post(f"/api/characters/{rook}/actions/", action)
        assert said.status_code == 201, said.content
    for step in ({"type": "treat", "skill": "medical_tech", "medic": "Doc", "total": 15},):
        assert cp2020.gm.post(f"/api/characters/{rook}/actions/", step).status_code == 201
    asked = f"set:{ash}:left_leg,replace:{ash}:left_leg,replace:{rook}:right_arm"
    data = cp2020.gm.get(url(cp2020, f"?with={asked}")).json()
    rooks = next(c for c in data["characters"] if c["name"] == "Rook")
    assert [w["text"] for w in rooks["in_the_way"]] == [
        "the wound track: 8 points, 4 points over Light: out of the way by 5 January",
        "the severed right arm: needs care. A severed limb cannot be set. It needs a replacement.",
    ]
    assert data["what_if_menu"] == [
        {"with": f"set:{ash}:left_leg", "label": "Ash's left leg set"},
        {"with": f"replace:{ash}:left_leg", "label": "Ash's left leg replaced"},
        {"with": f"replace:{rook}:right_arm", "label": "Rook's right arm replaced"},
    ]
    assert [(w["label"], w["text"]) for w in data["what_ifs"]] == [
        (
            "with Ash's left leg set",
            "still not all fit until cared for: Rook: the severed right arm needs care",
        ),
        (
            "with Ash's left leg replaced",
            "still not all fit until cared for: Rook: the severed right arm needs care",
        ),
        (
            "with Rook's right arm replaced",
            "still not all fit until cared for: Ash: the crippled left leg needs care",
        ),
        ("with Ash's left leg replaced and Rook's right arm replaced, all at once", "all fit by 5 January"),
    ]
    # The character page's forecast says the same of the arm.
    forecast = cp2020.gm.get(f"/api/characters/{rook}/forecast/").json()
    arm = next(i for i in forecast["items"] if i["what"] == "severed right arm")
    assert (arm["note"], arm["care"]) == (
        "not without care",
        "a severed limb cannot be set. It needs a replacement",
    )


# Cyberpunk (body 6, BTM -2): 4 to the torso leaves 2 points; then 40 to the torso, 38 more: 40, Mortal 6. The stun
# save (10) fails: stunned; the death save (10) fails: dying, dead at the end of the turn unless stabilized.
TWO_POINTS = {
    "type": "damage",
    "damage": 4,
    "location": "torso",
    "rolls": {"stun_save": [1], "death_save": [1]},
}
FORTY_TO_THE_TORSO = {
    "type": "damage",
    "damage": 40,
    "location": "torso",
    "rolls": {"stun_save": [10], "death_save": [10]},
}


def test_a_players_answer_for_a_dying_character_names_no_time_of_death(cp2020: Table) -> None:
    """The API says what the panel says (docs/recovery.md, "A dying Cyberpunk character"): dying first, not exact,
    and the time of death to the GM alone."""
    for action in (TWO_POINTS, FORTY_TO_THE_TORSO):
        assert cp2020.act(action).status_code == 201
    player, gm = (reader.get(url(cp2020)).json() for reader in (cp2020.player, cp2020.gm))
    for data in (player, gm):
        assert (data["exact"], data["sampling_error"]) == (False, 3.1)
        (ash,) = data["characters"]
        assert ash["text"] == "dying, needs to be stabilized; fit for action only once cared for (below)"
        assert [w["note"] for w in ash["in_the_way"]] == [
            "not without care",
            "not without care",
            "no date until stabilized",
        ]
    assert player["characters"][0]["in_the_way"][0]["care"] == (
        "a dying character dies unless a doctor stabilizes them. Only medical tech can"
    )
    assert gm["characters"][0]["in_the_way"][0]["care"] == (
        "dies in about 30 s unless stabilized. Only medical tech can stabilize them"
    )
    assert "30 s" not in json.dumps(player) and "death" not in json.dumps(player)


def test_a_gm_reads_when_a_deadly_wound_bleeds_to_death_and_a_player_does_not(sr2: Table) -> None:
    """A GM's walkthrough: ten minutes before a Deadly wound's overflow killed an NPC, the party's section said
    "physical damage (Deadly, 10 boxes): needs care" and nothing of the death. The GM reads when, and what stops it;
    a player never reads a time of death (RULES.md, "Player view")."""
    deadly = {
        "type": "wound",
        "severity": "D",
        "rolls": {"body_check": [10, 10, 10, 1, 1]},
    }  # 3 successes: no hit
    assert sr2.act(deadly).status_code == 201
    # Body 5: the sixth overflow box, an hour on at the default 10 minutes a box, passes it.
    gm = sr2.gm.get(url(sr2)).json()["characters"][0]["in_the_way"]
    assert [item["text"] for item in gm] == [
        "physical damage (Deadly, 10 boxes): needs care. Bleeds to death in about 1 h unless stabilized by "
        "first aid. Then deadly damage heals only in hospital, once stabilized."
    ]
    player = sr2.player.get(url(sr2)).json()["characters"][0]["in_the_way"]
    assert [item["text"] for item in player] == [
        "physical damage (Deadly, 10 boxes): needs care. Deadly damage heals only in hospital, once stabilized."
    ]
