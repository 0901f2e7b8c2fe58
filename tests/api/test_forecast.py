"""GET /api/characters/{id}/forecast/: who gets what, the parameters' bounds, and a player's secrecy."""

from __future__ import annotations

from typing import Any

import pytest

from campaign import services
from campaign.models import Campaign
from tests.conftest import Table

pytestmark = pytest.mark.django_db

MORTAL = [1, 1, 1, 1, 1]
CRITICAL = [6, 6, 1, 1, 1]


def chest_hit(body_check: list[int]) -> dict[str, Any]:
    """A Serious wound; critical roll 3 on the chest is the spine (Mortal: dies in 1d6 = 6 minutes)."""
    rolls = {"body_check": body_check, "location": [3, 4], "critical": 3, "death_time": [6]}
    return {"type": "wound", "severity": "S", "rolls": rolls}


def forecast_url(character_id: int, query: str = "") -> str:
    return f"/api/characters/{character_id}/forecast/{query}"


def test_the_gm_gets_each_injurys_dates_and_back_to_full_health(sr2: Table) -> None:
    assert sr2.act(chest_hit(CRITICAL)).status_code == 201
    answer = sr2.gm.get(forecast_url(sr2.character["id"], "?runs=200&seed=4"))
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert (data["as_of"], data["as_of_date"], data["runs"]) == (0, "2053-01-01T00:00:00", 200)
    assert data["horizon_date"] == "2054-01-01T00:00:00"
    hit, physical = data["items"]
    assert (hit["what"], hit["injury"], hit["note"]) == ("chest, spine (critical)", "ch1", None)
    assert physical["what"] == "physical damage (Serious, 6 boxes)"
    assert physical["p10"] <= physical["p50"] <= physical["p90"] and physical["healed_share"] == 1.0
    assert physical["p50_date"].startswith("2053-")
    assert set(data["full_health"]) == {"p50", "p50_date", "p90", "p90_date", "healed_share", "note"}
    assert "survival" not in data  # no death in sight
    assert [entry["with"] for entry in data["what_if_menu"]] == [
        "treat_now",
        "treat_in_5_min",
        "treat_in_10_min",
        "first_aid_now",
        "in_hospital",
    ]


def test_the_gm_sees_the_survival_odds_of_each_what_if_side_by_side(sr2: Table) -> None:
    sr2.act(chest_hit(MORTAL))
    data = sr2.gm.get(
        forecast_url(sr2.character["id"], "?with=treat_now,treat_in_5_min&runs=400&seed=2")
    ).json()
    odds = data["survival"]
    assert list(odds) == ["treat_now", "treat_in_5_min", "untreated"]
    assert odds["treat_now"] > odds["treat_in_5_min"] >= odds["untreated"] == 0.0
    assert data["survival_text"].startswith("treated now: ")
    assert data["survival_text"].endswith("untreated: 0%")
    assert [w["with"] for w in data["what_ifs"]] == ["treat_now", "treat_in_5_min"]
    assert data["what_ifs"][0]["survival"] == odds["treat_now"]
    hit = data["items"][0]
    assert (hit["note"], hit["care"]) == ("not without care", "a mortal hit kills unless it is treated")


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("?runs=0", "runs", "expected a whole number from 10 to 5,000, got 0"),
        ("?runs=5001", "runs", "expected a whole number from 10 to 5,000, got 5001"),
        ("?runs=many", "runs", "expected a whole number from 10 to 5,000, got many"),
        ("?seed=-1", "seed", "expected a whole number from 0 to 9,223,372,036,854,775,807, got -1"),
        (
            "?with=treat_now,pray",
            "with",
            "expected some of treat_now, treat_in_5_min, treat_in_10_min, first_aid_now, in_hospital, "
            "separated by commas, got pray",
        ),
    ],
)
def test_a_parameter_out_of_bounds_is_a_400_naming_it(
    sr2: Table, query: str, field: str, message: str
) -> None:
    answer = sr2.gm.get(forecast_url(sr2.character["id"], query))
    assert (answer.status_code, answer.json()) == (400, {field: [message]})


def test_a_player_gets_no_what_ifs_and_outsiders_get_nothing(sr2: Table) -> None:
    url = forecast_url(sr2.character["id"])
    answer = sr2.player.get(url + "?with=treat_now")
    assert (answer.status_code, answer.json()) == (
        403,
        {"detail": "only a GM of this campaign may ask what-ifs"},
    )
    assert "what_if_menu" not in sr2.player.get(url).json()
    assert sr2.other_player.get(url).status_code == 404
    assert sr2.stranger.get(url).status_code == 404
    assert sr2.anonymous.get(url).status_code in (401, 403)


def test_a_players_answer_is_byte_identical_for_a_mortal_and_a_critical_undiagnosed_hit(sr2: Table) -> None:
    # The twin, named Ash too, at a table of its own: a campaign's characters never share a name.
    campaign = sr2.gm.post("/api/campaigns/", {"name": "Seattle 2054", "ruleset": "shadowrun2"}).json()["id"]
    services.member_add(campaign=Campaign.objects.get(pk=campaign), username="player", role="player")
    twin = sr2.gm.post(
        f"/api/campaigns/{campaign}/characters/",
        {"name": "Ash", "player": "player", "attributes": {"body": 5}},
    ).json()
    assert sr2.act(chest_hit(MORTAL)).status_code == 201
    assert sr2.gm.post(f"/api/characters/{twin['id']}/actions/", chest_hit(CRITICAL)).status_code == 201

    mortal = sr2.player.get(forecast_url(sr2.character["id"]))
    critical = sr2.player.get(forecast_url(twin["id"]))
    assert mortal.status_code == critical.status_code == 200
    assert mortal.content == critical.content
    data = mortal.json()
    assert data["items"][-1] == {
        "what": "a critical hit to the chest",
        "injury": None,
        "p10": None,
        "p10_date": None,
        "p50": None,
        "p50_date": None,
        "p90": None,
        "p90_date": None,
        "healed_share": None,
        "note": "unknown until diagnosed",
        "care": None,
    }
    assert data["full_health"]["note"] == "unknown until diagnosed" and "survival" not in data
    # The GM's answers differ: the Mortal hit kills in every untreated future.
    assert sr2.gm.get(forecast_url(sr2.character["id"])).json()["survival"] == {"untreated": 0.0}
    assert "survival" not in sr2.gm.get(forecast_url(twin["id"])).json()


def test_a_user_asking_too_many_forecasts_a_minute_is_told_to_wait(sr2: Table, settings: Any) -> None:
    from campaign.http import throttles

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "forecast": "2/min"}
    throttles.ForecastRate.THROTTLE_RATES = rates  # DRF reads the rates once, at import
    try:
        url = forecast_url(sr2.character["id"], "?runs=10")
        assert [sr2.player.get(url).status_code for _ in range(3)] == [200, 200, 429]
        assert sr2.gm.get(url).status_code == 200  # per user
    finally:
        throttles.ForecastRate.THROTTLE_RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]


def test_a_share_reads_with_its_sampling_error() -> None:
    from campaign.forecast.forecasts import odds_text, survival_text

    # 1.96 x sqrt(0.79 x 0.21 / 1,000) = 0.0252: 3 points; a margin under a point still reads 1.
    assert odds_text(0.79, 1000) == "79% (±3)"
    assert odds_text(0.5, 1000) == "50% (±3)"
    assert odds_text(0.5, 100) == "50% (±10)"
    assert odds_text(0.999, 1000) == "over 99% (±1)"
    assert odds_text(0.0, 1000) == "0%" and odds_text(1.0, 1000) == "100%"
    survival = [("treat_now", "treated now", 0.79), ("untreated", "untreated", 0.0)]
    assert survival_text(survival, 1000) == "treated now: 79% (±3), untreated: 0%"
    assert survival_text(survival) == "treated now: 79%, untreated: 0%"  # as before, without the runs


def test_the_answer_gives_each_shares_sampling_error_beside_it(sr2: Table) -> None:
    from rules import forecast as fc

    sr2.act(chest_hit(MORTAL))
    data = sr2.gm.get(forecast_url(sr2.character["id"], "?with=treat_now&runs=400&seed=2")).json()
    error = data["sampling_error"]
    assert set(error) == {"healed_share", "full_health", "survival"}
    assert len(error["healed_share"]) == len(data["items"])
    for item, margin in zip(data["items"], error["healed_share"], strict=True):
        assert margin == (
            None if item["healed_share"] is None else round(fc.sampling_margin(item["healed_share"], 400), 4)
        )
    treated = data["survival"]["treat_now"]
    assert 0 < treated < 1 and data["survival"]["untreated"] == 0.0
    assert error["survival"] == {"treat_now": round(fc.sampling_margin(treated, 400), 4), "untreated": 0.0}
    points = max(1, round(196 * (treated * (1 - treated) / 400) ** 0.5))
    assert data["survival_text"] == f"treated now: {round(treated * 100)}% (±{points}), untreated: 0%"
    (what_if,) = data["what_ifs"]
    assert what_if["sampling_error"]["survival"] == error["survival"]["treat_now"]
