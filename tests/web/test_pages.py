"""The pages as a GM and a player use them, with and without htmx."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.http import QueryDict
from django.test import Client
from django.utils.html import escape as html_escape
from django.utils.text import capfirst

from campaign.web import forms
from rules.registry import get_ruleset
from tests.web.conftest import Web

HTMX = {"HTTP_HX_REQUEST": "true"}
LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}
WOUND = {
    "p_severity": "S",
    "p_open_wound": "on",
    "r_body_check": "1 1 1 1 1",
    "r_location": "3 4",
    "r_critical_0": "2",
    "r_death_time": "3",
}


def test_a_wrong_die_shows_the_same_message_as_the_api_next_to_the_roll(sr2_web: Web) -> None:
    # A failed Body check, entered: a server-rolled one could stage the wound away and never roll a location.
    failed = {"body_check": [1, 1, 1, 1, 1], "location": [7, 3]}
    api = sr2_web.table.act({"type": "wound", "severity": "S", "rolls": failed})
    message = api.json()["rolls.location"][0]
    page = sr2_web.gm.post(
        f"/characters/{sr2_web.character_id}/act/wound/",
        {"p_severity": "S", "r_body_check": "1 1 1 1 1", "r_location": "7 3"},
        **HTMX,
    )
    html = page.content.decode()
    assert page.status_code == 400 and "<html" not in html  # the form alone, for htmx to swap
    # The API's message, in the form's words: the roll's name, no field name, no list's brackets.
    assert message == "rolls.location: expected 2 dice of 1-6, got [7, 3]"
    assert 'id="err-wound-location"' in html and "Hit location: expected 2 dice of 1-6, got 7, 3" in html


def test_a_missing_parameter_shows_the_api_message_on_its_field_without_javascript(sr2_web: Web) -> None:
    api = sr2_web.table.act({"type": "wound"})
    message = api.json()["severity"][0]
    page = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/act/wound/", {})
    assert page.status_code == 400
    html = page.content.decode()
    assert "<html" in html and f'id="err-wound-p_severity" role="alert">{capfirst(message)}' in html


def test_a_half_filled_roll_is_refused_rather_than_completed_by_the_server(sr2_web: Web) -> None:
    page = sr2_web.gm.post(
        f"/characters/{sr2_web.character_id}/act/wound/", {"p_severity": "S", "r_location": "3"}, **HTMX
    )
    assert page.status_code == 400
    html = page.content.decode()
    said = "Hit location: expected 2 dice of 1-6, separated by spaces or commas (e.g. 3 4), got 3"
    assert f'id="err-wound-location" role="alert">{said}</p>' in html
    assert 'name="r_location" value="3" placeholder="e.g. 3 4"' in html  # what was typed, kept
    assert sr2_web.table.gm.get(sr2_web.table.character_url()).json()["version"] == 0


def test_a_2d6_is_typed_in_one_box_with_spaces_or_a_comma(sr2_web: Web) -> None:
    form = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/forms/wound/", **HTMX).content.decode()
    assert 'name="r_location"' in form and "r_location_0" not in form
    for typed in ("3 4", "3,4", " 3 , 4 "):
        body = forms.parse_action(
            get_ruleset("shadowrun2"), "wound", QueryDict(f"p_severity=S&r_location={typed}")
        )
        assert body["rolls"] == {"location": [3, 4]}


def test_a_wound_with_entered_dice_is_recorded_and_redirects_without_javascript(sr2_web: Web) -> None:
    page = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/act/wound/", WOUND)
    assert page.status_code == 302
    character = sr2_web.table.gm.get(sr2_web.table.character_url()).json()
    hit = character["sheet"]["critical_hits"][0]
    assert (hit["location"], hit["part"], hit["lethality"]) == ("chest", "ribs", "mortal")
    html = sr2_web.gm.get(page["Location"]).content.decode()
    assert "Critical hit 1 to the chest (ribs), Mortal (internal bleeding)" in html and "30 min left" in html


def test_the_same_form_posted_twice_records_once(sr2_web: Web) -> None:
    url = f"/characters/{sr2_web.character_id}/act/wound/"
    first = sr2_web.gm.post(url, {**WOUND, "key": "form-1"}, **HTMX)
    second = sr2_web.gm.post(url, {**WOUND, "key": "form-1"}, **HTMX)
    assert "Already recorded:" not in first.content.decode() and "Critical hit 1" in first.content.decode()
    assert "Already recorded: Body check:" in second.content.decode()
    assert sr2_web.table.gm.get(sr2_web.table.character_url()).json()["version"] == 2


def test_undo_marks_the_entries_taken_back_and_time_travel_shows_the_past(sr2_web: Web) -> None:
    url = f"/characters/{sr2_web.character_id}/"
    sr2_web.gm.post(f"{url}act/wound/", WOUND)
    response = sr2_web.gm.post(f"{url}act/undo/", {}, **HTMX)
    assert response["HX-Trigger"] == "refresh"
    html = sr2_web.gm.get(url).content.decode()
    assert html.count('class="event voided') == 2 and "No symptoms." in html
    past = sr2_web.gm.get(f"{url}?version=2").content.decode()
    assert "as it was after event 2 of 3" in past and "A wound in the chest bleeds" in past
    assert sr2_web.gm.get(f"{url}?version=9").status_code == 404


def test_the_live_region_answers_304_until_something_changes(sr2_web: Web) -> None:
    url = f"/characters/{sr2_web.character_id}/"
    first = sr2_web.player.get(url, **LIVE)
    etag = first["ETag"]
    assert first.status_code == 200 and 'id="live"' in first.content.decode()
    assert sr2_web.player.get(url, HTTP_IF_NONE_MATCH=etag, **LIVE).status_code == 304
    sr2_web.table.act({"type": "wound", "severity": "L", "damage": "stun"})
    changed = sr2_web.player.get(url, HTTP_IF_NONE_MATCH=etag, **LIVE)
    assert changed.status_code == 200 and changed["ETag"] != etag
    board = f"/campaigns/{sr2_web.campaign_id}/"
    board_etag = sr2_web.gm.get(board, **LIVE)["ETag"]
    assert sr2_web.gm.get(board, HTTP_IF_NONE_MATCH=board_etag, **LIVE).status_code == 304
    sr2_web.table.advance(minutes=1)
    assert sr2_web.gm.get(board, HTTP_IF_NONE_MATCH=board_etag, **LIVE).status_code == 200


@pytest.mark.django_db(transaction=True)  # the clock runs on commit (eager Celery without a broker)
def test_the_clock_buttons_advance_and_a_bad_custom_advance_shows_the_api_message(sr2_web: Web) -> None:
    clock = f"/campaigns/{sr2_web.campaign_id}/clock/"
    done = sr2_web.gm.post(clock, {"unit": "turns", "amount": "1"}, **HTMX)
    assert "Advanced 30 s to 2053-01-01 00:00:30." in done.content.decode()
    api = sr2_web.table.gm.post(f"/api/campaigns/{sr2_web.campaign_id}/clock/", {"advance": {"hours": 0}})
    message = api.json()["advance.hours"][0]
    bad = sr2_web.gm.post(clock, {"unit": "hours", "amount": "0"}, **HTMX)
    assert message in bad.content.decode()


def test_the_board_shows_dying_with_the_time_left_and_what_the_clock_will_do(sr2_web: Web) -> None:
    sr2_web.gm.post(f"/characters/{sr2_web.character_id}/act/wound/", WOUND)
    html = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert "dying: 30 min left unless treated (dies 2053-01-01 00:30:00)" in html
    assert (
        '<strong>Ash</strong> at 2053-01-01 00:30:00 <span class="muted">(in 30 min):</span> bleeds out from '
        "critical hit 1 to the chest (ribs), unless treated" in html
    )


def test_history_entries_read_as_sentences_rather_than_python_values(sr2_web: Web) -> None:
    sr2_web.gm.post(f"/characters/{sr2_web.character_id}/act/set_care/", {"p_in_hospital": "on"})
    html = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert '<p class="said">Taken into hospital.</p>' in html and "True" not in html


def test_the_board_shows_the_options_in_words(sr2_web: Web) -> None:
    html = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    # The house-rules form (web/board_house_rules.html) draws each option by its declaration (rules/options.py).
    assert re.search(
        r'<input type="checkbox" id="o-critical_category" name="o_critical_category" checked', html
    )
    assert 'name="o_treatment_table__mortal__base_seconds" type="number"' in html
    assert '<option value="minutes" selected>minutes</option>' in html
    assert "&quot;" not in html and "True" not in html
    assert (
        '<input id="o-start" name="o_start" value="2053-01-01 00:00:00" placeholder="e.g. 2053-03-14 22:00:00"'
        in html
    )
    # The reader sees each option's label and value in words beside the field.
    assert '<label for="o-body_check_tn">Body-check TNs</label>' in html
    assert "Now: Mortal: TN 8, 10 minutes; Critical: TN 4, 20 minutes." in html
    assert "Now: 10 minutes." in html and "Now: 2053-01-01 00:00." in html
    assert "RULES.md" not in html


def test_the_campaigns_start_is_typed_as_the_game_writes_its_dates(sr2_web: Web) -> None:
    """The start option's input is text in the game's format, not the browser's date-time picker (which shows
    mm/dd/yyyy and AM/PM in an American Chromium): docs/web.md, "Dates". What it takes is the option's own
    `parse`, for the form as for the API; a refusal shows what was typed with the error beside it."""
    from campaign.models import Campaign

    made = sr2_web.gm.post("/", {"name": "Dated", "ruleset": "shadowrun2", "o_start": "2054-03-12 08:30:00"})
    assert made.status_code == 302
    assert Campaign.objects.get(name="Dated").start == "2054-03-12T08:30:00"
    refused = sr2_web.gm.post(
        "/", {"name": "Undated", "ruleset": "shadowrun2", "o_start": "03/12/2054 8:30 AM"}
    )
    assert refused.status_code == 400
    html = refused.content.decode()
    assert (
        '<input id="c-start" name="o_start" value="03/12/2054 8:30 AM" placeholder="e.g. 2053-03-14 22:00:00" '
        'autocomplete="off" spellcheck="false" class="date-time" aria-describedby="help-c-start err-c-start" '
        'aria-invalid="true" autofocus>' in html
    )
    assert (
        'id="err-c-start">Expected a game date and time such as 2053-03-14 22:00:00, got 03/12/2054 8:30 AM<'
        in html
    )
    assert "T22:00" not in html  # the API's example, which the form does not ask for
    assert (
        "Typed as the game writes its dates: year-month-day, then the time of day (2053-03-14 22:00)." in html
    )


@pytest.mark.parametrize(
    ("start", "said"),
    [
        ("next tuesday", "Expected a game date and time such as 2053-03-14 22:00:00, got next tuesday"),
        (
            "2053-03-14 22:00:00+14:00",
            "Expected a game date and time without a time zone, such as 2053-03-14 22:00:00, got "
            "2053-03-14 22:00:00+14:00",
        ),
    ],
)
def test_a_wrong_start_on_the_house_rules_is_refused_in_the_forms_own_shape(
    sr2_web: Web, start: str, said: str
) -> None:
    """The start takes "2053-03-14 22:00:00" and "2053-03-14T22:00:00"; the form asks for the first (its
    placeholder, its help), so its refusal's example is that shape, never the API's with a "T" (whose own
    message is kept: tests/clock/test_game_dates.py)."""
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    drawn = re.search(r'name="drawn" value="([^"]*)"', board)
    assert drawn is not None
    refused = sr2_web.gm.post(
        f"/campaigns/{sr2_web.campaign_id}/options/",
        {"name": "Seattle 2053", "o_start": start, "drawn": drawn.group(1)},
    )
    assert refused.status_code == 400
    html = refused.content.decode()
    assert f'id="err-o-start">{html_escape(said)}<' in html
    assert f'value="{html_escape(start)}"' in html  # what was typed, to correct
    assert "T22:00" not in html


def test_a_gm_adds_a_player_and_a_character_from_the_board(sr2_web: Web, django_user_model: Any) -> None:
    django_user_model.objects.create_user(username="newcomer", password="correct horse battery")
    board = f"/campaigns/{sr2_web.campaign_id}/"
    missing = sr2_web.gm.post(f"{board}members/", {"username": "nobody", "role": "player"}, **HTMX)
    assert "There is no user named nobody" in missing.content.decode()
    added = sr2_web.gm.post(f"{board}members/", {"username": "newcomer", "role": "player"}, **HTMX)
    assert (
        "newcomer is invited as a player: a member once they accept it on their home page."
        in added.content.decode()
    )
    # The character waits for the invitee's answer; the board says so.
    created = sr2_web.gm.post(f"{board}characters/", {"name": "Bex", "player": "newcomer", "a_body": "4"})
    assert created.status_code == 302
    assert (
        "newcomer is invited, not yet accepted: the character waits for them."
        in sr2_web.gm.get(board).content.decode()
    )
    bad = sr2_web.gm.post(f"{board}characters/", {"name": "Cy", "a_body": "0"}, **HTMX).content.decode()
    api = sr2_web.table.gm.post(
        f"/api/campaigns/{sr2_web.campaign_id}/characters/", {"name": "Cy", "attributes": {"body": 0}}
    )
    assert capfirst(api.json()["attributes.body"][0]) in bad


def test_each_ruleset_draws_its_monitor(sr2_web: Web) -> None:
    html = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert html.count('class="mark">L<') == 2 and html.count('class="mark">D<') == 2  # physical and stun


def test_the_cyberpunk_track_has_ten_groups_of_four(cp2020_web: Web) -> None:
    cp2020_web.table.act({"type": "damage", "damage": 10, "rolls": {"location": [2], "stun_save": [1]}})
    html = cp2020_web.player.get(f"/characters/{cp2020_web.character_id}/").content.decode()
    assert html.count('class="group"') == 10 and "Mortal 6" in html
    assert html.count('class="box real"') == 8  # 10 - BTM 2, on the torso


def test_dark_future_con_boxes_cross_out_what_was_lost(df_web: Web) -> None:
    df_web.table.act({"type": "damage", "weapon_damage": 1, "rolls": {"damage": [6], "stun": [1]}})
    html = df_web.player.get(f"/characters/{df_web.character_id}/").content.decode()
    assert html.count('class="box lost"') == 2 and html.count('class="box kept"') == 6


@pytest.mark.django_db
def test_sign_up_logs_in_and_closed_sign_up_is_refused(settings: Any) -> None:
    client = Client()
    weak = client.post("/signup/", {"username": "zed", "password": "123", "password2": "123"})
    assert weak.status_code == 400 and "This password is too short" in weak.content.decode()
    ok = client.post(
        "/signup/", {"username": "zed", "password": "a long pass phrase", "password2": "a long pass phrase"}
    )
    assert ok.status_code == 302 and client.get("/").status_code == 200
    settings.ALLOW_SIGNUP = False
    assert Client().get("/signup/").status_code == 403


@pytest.mark.django_db
def test_log_in_is_throttled_after_five_failures_per_user_name_and_address(django_user_model: Any) -> None:
    cache.clear()
    django_user_model.objects.create_user(username="yara", password="correct horse battery")
    client = Client()
    for _ in range(5):
        assert client.post("/login/", {"username": "yara", "password": "wrong"}).status_code == 400
    refused = client.post("/login/", {"username": "yara", "password": "correct horse battery"})
    assert "too many failed log-ins" in refused.content.decode()
    cache.clear()
    assert (
        client.post("/login/", {"username": "yara", "password": "correct horse battery"}).status_code == 302
    )
    assert client.post("/logout/").status_code == 302


def test_extremities_behind_cover_are_ticked_not_typed_as_json(cp2020_web: Web) -> None:
    url = f"/characters/{cp2020_web.character_id}/"
    html = cp2020_web.gm.get(url, {"form": "damage"}).content.decode()
    boxes = re.findall(r'<input type="checkbox" name="p_cover_protects" value="(\w+)"', html)
    assert boxes == ["head", "left_arm", "right_arm", "left_leg", "right_leg"]
    assert "<legend>Extremities behind cover (explosions)</legend>" in html
    # Two ticked boxes reach the rules as the API's list: an aimed shot refuses them, as the API does.
    api = cp2020_web.table.act({"type": "damage", "damage": 5, "cover_protects": ["left_leg", "right_leg"]})
    message = api.json()["cover_protects"][0]
    page = cp2020_web.gm.post(
        f"{url}act/damage/", {"p_damage": "5", "p_cover_protects": ["left_leg", "right_leg"]}
    )
    assert page.status_code == 400
    html = page.content.decode()
    assert f'id="err-damage-p_cover_protects" role="alert">{capfirst(message)}' in html
    assert re.findall(r'value="(\w+)" checked', html) == ["left_leg", "right_leg"]  # kept as ticked


def test_a_posted_list_of_choices_is_the_apis_list_and_none_ticked_sends_nothing() -> None:
    ticked = QueryDict(mutable=True)
    ticked.setlist("p_limbs", ["left_arm", "right_leg"])
    ticked["p_knocked_out"] = "off"  # the box shown and left unticked (`web/field.html`)
    assert forms.parse_action(get_ruleset("darkfuture"), "recover", ticked) == {
        "type": "recover",
        "knocked_out": False,
        "limbs": ["left_arm", "right_leg"],
    }
    # A form that does not show the box posts nothing for it: the rules take its declared default.
    assert forms.parse_action(get_ruleset("darkfuture"), "recover", QueryDict()) == {"type": "recover"}


def test_the_campaign_list_names_each_ruleset_as_players_know_it(sr2_web: Web) -> None:
    html = sr2_web.gm.get("/").content.decode()
    assert "Shadowrun 2nd Edition" in html
    assert re.search(r'<span class="muted">shadowrun2 ·', html) is None
    assert 'rel="icon"' in html


def test_a_gm_jumps_from_the_top_of_a_character_to_its_actions_and_a_player_has_no_such_link(
    sr2_web: Web,
) -> None:
    """The actions sit below the whole condition and history: far down the page at the table."""
    page = f"/characters/{sr2_web.character_id}/"
    gm_html = sr2_web.gm.get(page).content.decode()
    assert '<a href="#actions">Actions ↓</a>' in gm_html and '<h2 id="actions">Actions</h2>' in gm_html
    assert 'href="#actions"' not in sr2_web.player.get(page).content.decode()


def test_no_form_of_the_board_is_checked_by_the_browser_before_the_server(sr2_web: Web) -> None:
    """A browser's own check (`required`, `min`, a date's range) said its error in a bubble before any request,
    in the browser's words, gone at the next redraw of the board: every form that has such an input is
    `novalidate`, and the server's words are said beside the field (docs/web.md, "Dates")."""
    checked = re.compile(r"<(?:input|select|textarea)\b[^>]*\b(?:required|min=|max=|pattern=)[^>]*>")
    for url in (f"/campaigns/{sr2_web.campaign_id}/", f"/campaigns/{sr2_web.campaign_id}/recovery/", "/"):
        html = sr2_web.gm.get(url).content.decode()
        for form in re.findall(r"<form\b[^>]*>.*?</form>", html, re.S):
            head = form[: form.index(">") + 1]
            if checked.search(form):
                assert "novalidate" in head, f"{url}: {head}"
