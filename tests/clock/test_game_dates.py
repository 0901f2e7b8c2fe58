"""The campaign's calendar: a start and a clock that always have a date, so no one's pages can be made to fail for
good, and a write that fails while its answer is drawn writes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from campaign import presenters
from campaign.models import Campaign, Character, Event
from rules import game_dates
from rules.game_dates import MAX_GAME_SECONDS
from tests.conftest import Table


def _new_campaign(table: Table, start: Any) -> Any:
    return table.gm.post(
        "/api/campaigns/", {"name": "Far future", "ruleset": "shadowrun2", "options": {"start": start}}
    )


@pytest.mark.django_db
def test_a_start_whose_clock_could_leave_the_calendar_is_refused(sr2: Table) -> None:
    before = Campaign.objects.count()
    answer = _new_campaign(sr2, "9999-12-31T23:59:59")
    assert answer.status_code == 400
    assert answer.json() == {
        "options.start": [
            "expected a date in the years 1 to 7999 (the clock may run a thousand years from it), got 9999"
        ]
    }
    assert Campaign.objects.count() == before


@pytest.mark.django_db
def test_the_latest_start_runs_its_whole_thousand_years(sr2: Table) -> None:
    made = _new_campaign(sr2, "7999-12-31T23:59:59")
    assert made.status_code == 201, made.content
    campaign = made.json()
    clock = f"/api/campaigns/{campaign['id']}/clock/"
    assert sr2.gm.post(clock, {"advance": {"days": 36_524}}).status_code == 202
    assert sr2.gm.post(clock, {"advance": {"days": 36_524}}).status_code == 202
    assert sr2.gm.get(f"/api/campaigns/{campaign['id']}/").json()["game_date"] == "8199-12-30T23:59:59"


@pytest.mark.django_db
def test_an_advance_past_a_thousand_years_is_refused_naming_advance(sr2: Table) -> None:
    Campaign.objects.filter(pk=sr2.campaign["id"]).update(game_time=MAX_GAME_SECONDS - 60)
    refused = sr2.advance(minutes=2)
    assert refused.status_code == 400
    assert refused.json() == {
        "advance": [
            "expected an advance that ends within a thousand years of the campaign's start (3053-01-09 00:00:00)"
        ]
    }
    assert Campaign.objects.get(pk=sr2.campaign["id"]).game_time == MAX_GAME_SECONDS - 60
    assert sr2.advance(minutes=1).status_code == 202


@pytest.mark.django_db
def test_a_victims_pages_still_work_when_a_campaign_holds_a_time_past_the_calendar(
    sr2: Table, django_user_model: Any
) -> None:
    """A database written before the bounds may hold such a campaign: its dates are left out, nothing fails."""
    campaign = Campaign.objects.get(pk=sr2.campaign["id"])
    campaign.options = {**campaign.options, "start": "9999-12-31T23:59:59"}
    campaign.save(update_fields=["options"])
    Campaign.objects.filter(pk=campaign.pk).update(game_time=1)
    player = Client()
    player.force_login(sr2.player.user)
    assert sr2.player.get("/api/campaigns/").json()[0]["game_date"] is None
    assert sr2.player.get(sr2.character_url()).status_code == 200
    assert player.get(f"/campaigns/{campaign.pk}/").status_code == 200
    assert player.get(f"/characters/{sr2.character['id']}/").status_code == 200
    assert player.get("/").status_code == 200
    assert (
        game_dates.dated(Campaign.objects.get(pk=campaign.pk).start, "kills at [t=5]")
        == "kills at after 9999-12-31"
    )


# --- a write whose answer fails writes nothing -------------------------------------------------------------------


def broken(*args: Any, **kwargs: Any) -> Any:
    raise OverflowError("date value out of range")


def _written(table: Table) -> tuple[int, int]:
    return Event.objects.count(), Character.objects.get(pk=table.character["id"]).version


@pytest.mark.django_db
def test_an_action_whose_answer_fails_to_render_writes_nothing(
    sr2: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _written(sr2)
    monkeypatch.setattr(presenters, "character_json", broken)
    sr2.gm.client.raise_request_exception = False
    answer = sr2.act({"type": "note", "text": "the sniper was Lone Star"})
    assert answer.status_code == 500
    assert _written(sr2) == before
    monkeypatch.undo()
    # The retry, without a key, writes the wound once.
    assert sr2.act({"type": "note", "text": "the sniper was Lone Star"}).status_code == 201
    assert _written(sr2)[1] == before[1] + 1


@pytest.mark.django_db
def test_a_web_action_whose_page_fails_to_render_writes_nothing(
    sr2: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    from campaign import presenters

    gm = Client(raise_request_exception=False)
    gm.force_login(sr2.gm.user)
    before = _written(sr2)
    monkeypatch.setattr(presenters, "action_said", broken)
    answer = gm.post(f"/characters/{sr2.character['id']}/act/note/", {"p_text": "the sniper was Lone Star"})
    assert answer.status_code == 500
    assert _written(sr2) == before


@pytest.mark.django_db
def test_a_new_character_whose_answer_fails_writes_nothing(
    sr2: Table, monkeypatch: pytest.MonkeyPatch, django_user_model: Any
) -> None:
    characters = Character.objects.count()
    events = Event.objects.count()
    monkeypatch.setattr(presenters, "character_json", broken)
    sr2.gm.client.raise_request_exception = False
    answer = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/", {"name": "Twitch", "attributes": {"body": 4}}
    )
    assert answer.status_code == 500
    assert (Character.objects.count(), Event.objects.count()) == (characters, events)


# --- a start the calendar cannot keep is refused, never changed ------------------------------------------------

OFFSET = "expected a game date and time without a time zone, such as 2053-03-14T22:00:00, got {value}"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("start", "message"),
    [
        ("2053-03-14T22:00:00+14:00", OFFSET.format(value="2053-03-14T22:00:00+14:00")),
        ("2053-03-14T22:00:00Z", OFFSET.format(value="2053-03-14T22:00:00Z")),
        (
            "2053-02-30T22:00:00",
            "expected an ISO date and time such as 2053-03-14T22:00:00, got 2053-02-30T22:00:00",
        ),
        ("next tuesday", "expected an ISO date and time such as 2053-03-14T22:00:00, got next tuesday"),
    ],
)
def test_a_start_with_a_time_zone_or_no_such_date_is_a_400_naming_the_option(
    sr2: Table, start: str, message: str
) -> None:
    """An offset was dropped in silence: `+14:00` made a campaign starting at 22:00 with nothing said."""
    before = Campaign.objects.count()
    made = _new_campaign(sr2, start)
    assert made.status_code == 400
    assert made.json() == {"options.start": [message]}
    assert Campaign.objects.count() == before
    url = f"/api/campaigns/{sr2.campaign['id']}/"
    kept = Campaign.objects.get(pk=sr2.campaign["id"]).options
    changed = sr2.gm.client.patch(url, {"options": {"start": start}}, format="json")
    assert changed.status_code == 400
    assert changed.json() == {"options.start": [message]}
    assert Campaign.objects.get(pk=sr2.campaign["id"]).options == kept


@pytest.mark.django_db
def test_the_web_forms_refuse_a_start_with_a_time_zone_naming_it(sr2: Table) -> None:
    from tests.web.conftest import form_inputs

    gm = Client()
    gm.force_login(sr2.gm.user)
    # A form's example is the form's own shape, without the API's "T" (docs/web.md, "Dates").
    message = "expected a game date and time without a time zone, such as 2053-03-14 22:00:00, got " + (
        "2053-03-14T22:00:00+14:00"
    )
    before = Campaign.objects.count()
    new = gm.post(
        "/",
        {"name": "Zoned", "ruleset": "shadowrun2", "o_start": "2053-03-14T22:00:00+14:00"},
    )
    assert new.status_code == 400
    assert message[:1].upper() + message[1:] in new.content.decode()  # a page starts the sentence
    assert Campaign.objects.count() == before
    campaign = Campaign.objects.get(pk=sr2.campaign["id"])
    action = f"/campaigns/{campaign.pk}/options/"
    posted = form_inputs(gm.get(f"/campaigns/{campaign.pk}/").content.decode(), action)
    board = gm.post(action, {**posted, "o_start": "2053-03-14T22:00:00+14:00"})
    assert board.status_code == 400
    assert message[:1].upper() + message[1:] in board.content.decode()
    assert Campaign.objects.get(pk=campaign.pk).options == campaign.options


# --- a time to the minute never reads as before the campaign's now (rules.game_dates.by_the_minute) -------------


def test_a_time_to_the_minute_rounds_up_or_says_its_seconds_within_now_s_minute() -> None:
    """A tester read "stunned: out of the way by 1 January 00:00" with the campaign at 00:00:36: the minute was
    cut down to before now."""
    from datetime import datetime

    from rules.game_dates import by_the_minute

    now = datetime(2020, 1, 1, 0, 0, 36)
    assert by_the_minute(datetime(2020, 1, 1, 0, 0, 39), now)[1] == "00:00:39"
    assert by_the_minute(datetime(2020, 1, 1, 0, 1, 10), now)[1] == "00:02"
    assert by_the_minute(datetime(2020, 1, 1, 0, 5), now)[1] == "00:05"
    assert by_the_minute(datetime(2020, 1, 1, 23, 59, 30)) == (datetime(2020, 1, 2), "00:00")


def test_the_recovery_s_dates_never_read_before_now() -> None:
    from types import SimpleNamespace

    from campaign.forecast.recovery_words import date_words, day_text

    campaign: Any = SimpleNamespace(start="2020-01-01T00:00:00")
    assert date_words(campaign, 39, 36) == "1 January 00:00:39"
    assert date_words(campaign, 70, 36) == "1 January 00:02"
    assert date_words(campaign, 86_399, 36) == "2 January 00:00"
    assert date_words(campaign, 30 * 86_400 + 5, 36) == "31 January"
    # The timeline's times are exact: a death at 00:00:30 is neither 00:00 (past) nor 00:01 (later than it comes).
    assert day_text(campaign, 39) == "2020-01-01 00:00:39"
    assert day_text(campaign, 120) == "2020-01-01 00:02"
