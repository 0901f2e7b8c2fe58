"""The party's recovery on the web: the board's section, the page, the timeline, the GM's what-ifs and advances,
and a player's page, the same whatever a hidden hit's lethality."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.core.cache import caches
from django.db import transaction

from campaign.models import Campaign, Job
from tests.api.test_forecast import CRITICAL, MORTAL, chest_hit
from tests.api.test_recovery import (
    CRIPPLING,
    FORTY_TO_THE_TORSO,
    THREE_LOST,
    TWO_POINTS,
    npc,
    second_hit,
    teammate,
)
from tests.conftest import make_table
from tests.web.conftest import Web, make_web
from tests.web.live_page import LivePage, Node, form_values
from tests.web.test_player_secrets import DIAGNOSE_CH1

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def page(web: Web, query: str = "") -> str:
    return f"/campaigns/{web.campaign_id}/recovery/{query}"


def test_the_board_fetches_the_recovery_section_once_shown_and_after_each_change(df_web: Web) -> None:
    html = df_web.gm.get(f"/campaigns/{df_web.campaign_id}/").content.decode()
    assert f'<div id="recovery-body" hx-get="{page(df_web)}" hx-trigger="load" hx-swap="innerHTML">' in html
    assert f'<a href="{page(df_web)}">When everyone is fit for action</a>' in html


def test_the_gm_page_says_each_date_and_draws_a_lane_per_character(df_web: Web) -> None:
    bo = teammate(df_web.table, "Bo", {"con": 12})
    df_web.table.act(THREE_LOST)
    df_web.table.gm.post(f"/api/characters/{bo['id']}/actions/", THREE_LOST)
    html = df_web.gm.get(page(df_web, "?by=2020-01-10")).content.decode()
    assert "<strong>The party:</strong> all fit by 15 January" in html
    assert "<strong>Ash</strong>: fit for action by 15 January" in html
    assert "<strong>Bo</strong>: fit for action by 8 January" in html
    assert "CON 5 of 8 (7 needed): out of the way by 15 January" in html
    assert (
        '<p class="fit-by" id="rec-fit-by"><strong>By 10 January: 1 of 2 fit (Ash not by then)</strong></p>'
        in html
    )
    assert (
        '<input id="rec-by" name="by" value="2020-01-10" placeholder="e.g. 2020-01-01" autocomplete="off" '
        'spellcheck="false" class="short-date" aria-describedby="rec-by-help rec-fit-by">' in html
    )
    assert (
        '<p class="help" id="rec-by-help">A game date from 2020-01-01 to 2020-12-30, typed as 2020-01-01 or 1 '
        "January 2020.</p>" in html
    )
    assert html.count('class="lane"') == 2 and html.count('class="bar"') == 2
    assert html.count('class="timer-mark"') == 2  # each one's next CON point
    assert 'class="now"' in html and 'class="party-line"' in html
    assert re.search(r'class="tick"[^>]*>2020-01-15<', html)
    assert "style=" not in html and "<script>" not in html  # the CSP
    assert ":00:00 " not in html.split('<main id="main">')[1]  # no seconds in the recovery's dates
    assert "Advance to when the party is fit (2020-01-15 00:00)" in html
    # Dark Future rolls no die while healing: every date is certain, and no sentence says "most likely".
    assert "these dates are certain: the rules roll no die on the way" in html
    assert ">Ash: fit by 15 January<" in html and ">Bo: fit by 8 January<" in html
    assert "most likely" not in html.split('<main id="main">')[1]


def test_the_gm_asks_what_ifs_and_sees_how_the_partys_date_moves(sr2_web: Web) -> None:
    sr2_web.table.act(chest_hit(CRITICAL))
    html = sr2_web.gm.get(page(sr2_web, "?with=hospital&with=medic:6&runs=200")).content.decode()
    found = re.findall(r"<li><strong>([^<]*)</strong>: (all fit[^<]*)</li>", html)
    assert [label for label, _ in found] == [
        "With everyone in hospital",
        "With a medic of skill 6 treating everyone now",
        "With everyone in hospital and a medic of skill 6 treating everyone now, all at once",
    ]
    assert all(text.startswith("all fit most likely by ") for _, text in found), found
    assert 'value="hospital" checked' in html
    assert '<option value="medic:6" selected>a medic of skill 6</option>' in html  # one medic, from a select
    assert '<option value="">no medic</option>' in html
    # The refresh asks with the form's fields (hx-include): the futures asked for go with them.
    assert '<input type="hidden" name="runs" value="200">' in html


def test_a_bar_runs_to_the_median_and_its_whisker_to_the_90th_percentile(sr2_web: Web) -> None:
    sr2_web.table.act(chest_hit(CRITICAL))
    html = sr2_web.gm.get(page(sr2_web)).content.decode()
    # The same futures as the API's (the seed is a digest of the state, the time, the runs): their dates, by hand
    # on the axis: x = 8 + 304 * (date - now) / (end - now), the axis ending at the latest dated median or p90.
    ash = sr2_web.table.gm.get(f"/api/campaigns/{sr2_web.campaign_id}/recovery/").json()["characters"][0]
    hit, physical = ash["in_the_way"]
    assert (hit["p90"], physical["p90"] is not None) == (None, True)  # the hit's p90 is past the year
    end = max(hit["p50"], physical["p90"], ash["fit"]["p50"])

    def x(moment: int) -> float:
        return round(8 + 304 * moment / end, 1)

    bars = re.findall(r'<g class="injury"><title>([^<]*)</title>(.*?)</g>', html)
    assert [title.split(":")[0] for title, _ in bars] == [
        hit["what"].replace("'", "&#x27;"),
        physical["what"],
    ]
    # The hit: a bar to its median, no whisker (its 90th percentile is later than any date on the axis).
    assert f'<rect class="bar" x="8" y="18.0" width="{x(hit["p50"]) - 8}" height="10">' in bars[0][1]
    assert "whisker" not in bars[0][1]
    # The physical damage: a bar to its median, then the whisker from there to its 90th percentile, with an end.
    p50, p90 = x(physical["p50"]), x(physical["p90"])
    assert 8 < p50 < p90 < 312
    assert bars[1][1] == (
        f'<rect class="bar" x="8" y="32.0" width="{round(p50 - 8, 1)}" height="10"></rect>'
        f'<line class="whisker" x1="{p50}" y1="37.0" x2="{p90}" y2="37.0"></line>'
        f'<line class="whisker" x1="{p90}" y1="32.0" x2="{p90}" y2="42.0"></line>'
    )
    assert bars[1][0].endswith(" (9 in 10)") and ": out of the way most likely by " in bars[1][0]


def test_advancing_to_when_the_party_is_fit_posts_the_boards_clock_form(df_web: Web) -> None:
    df_web.table.act(THREE_LOST)
    html = df_web.gm.get(page(df_web)).content.decode()
    # The date it names goes with it (`until`): a clock that runs on its own has moved since the page was drawn.
    amount = re.search(
        r'name="unit" value="seconds"><input type="hidden" name="amount" value="(\d+)">'
        r'<input type="hidden" name="until" value="(\d+)">\s*<button',
        html,
    )
    assert amount is not None and int(amount.group(1)) == int(amount.group(2)) == 14 * 86_400
    posted = df_web.gm.post(
        f"/campaigns/{df_web.campaign_id}/clock/",
        {"unit": "seconds", "amount": amount.group(1), "until": amount.group(2), "key": "k1"},
    )
    assert posted.status_code == 302
    assert Campaign.objects.get(pk=df_web.campaign_id).game_time == 14 * 86_400
    after = df_web.gm.get(page(df_web)).content.decode()
    assert "<strong>The party:</strong> all fit for action now" in after


def test_a_bad_date_is_a_400_naming_it_with_the_untreated_view(df_web: Web) -> None:
    answer = df_web.gm.get(page(df_web, "?by=someday"))
    assert answer.status_code == 400
    assert (
        "by: expected a game date such as 2053-03-02 or 2 March 2053, got someday" in answer.content.decode()
    )


def test_the_boards_party_section_counts_the_player_characters_and_says_so(df_web: Web) -> None:
    ganger = npc(df_web.table, "Ganger", {"con": 10})
    df_web.table.act(THREE_LOST)  # Ash (played): fit on 15 January
    for _ in range(2):  # the Ganger (nobody's): CON 10 -> 4, fit on 5 February
        df_web.table.gm.post(f"/api/characters/{ganger['id']}/actions/", THREE_LOST)
    section = df_web.gm.get(page(df_web), **HTMX).content.decode()
    assert (
        "<strong>The party:</strong> all fit by 15 January (the player characters only: Ganger is nobody&#x27;s "
        "character, not counted)" in section
    )
    assert (
        "<strong>Ganger</strong>: fit for action by 5 February (nobody&#x27;s character: not counted in the "
        "party&#x27;s date)" in section
    )
    assert "Advance to when the party is fit (2020-01-15 00:00)" in section


def test_a_player_sees_only_their_own_lanes_and_no_what_ifs_or_advances(df_web: Web) -> None:
    teammate(df_web.table, "Bo", {"con": 12})
    assert df_web.player.get(page(df_web, "?with=treat:1")).status_code == 403
    html = df_web.player.get(page(df_web)).content.decode()
    assert "<strong>Ash</strong>" in html and "<strong>Bo</strong>" not in html and "Bo:" not in html
    assert "What if" not in html and "Advance to" not in html
    assert "<strong>Your characters:</strong>" in html


def test_a_players_board_section_shows_only_their_own_characters(df_web: Web) -> None:
    bo = teammate(df_web.table, "Bo", {"con": 12})
    df_web.table.act(THREE_LOST)
    df_web.table.gm.post(f"/api/characters/{bo['id']}/actions/", THREE_LOST)
    board = df_web.player.get(f"/campaigns/{df_web.campaign_id}/").content.decode()
    assert '<h2 id="recovery-h">Your recovery</h2>' in board
    assert f'hx-get="{page(df_web)}" hx-trigger="load"' in board
    # What the board's section fetches: the player's own lane (Ash) and date, none of Bo.
    section = df_web.player.get(page(df_web), **HTMX).content.decode()
    assert "<strong>Your characters:</strong> all fit by 15 January" in section
    assert "<strong>Ash</strong>: fit for action by 15 January" in section
    assert section.count('class="lane"') == 1 and section.count('class="lane-title"') == 1
    assert "<strong>Bo</strong>" not in section and "Bo:" not in section and "of 12" not in section
    assert "What if" not in section and "Advance to" not in section
    # The GM's section of the same board has both lanes.
    gm_section = df_web.gm.get(page(df_web), **HTMX).content.decode()
    assert gm_section.count('class="lane"') == 2 and "<strong>Bo</strong>" in gm_section
    assert "CON 9 of 12 (10 needed)" in gm_section


def test_a_players_page_is_the_same_for_a_mortal_and_a_critical_undiagnosed_hit(sr2_web: Web) -> None:
    pages, whole, gm_pages = [], [], []
    for body_check in (MORTAL, CRITICAL):
        caches["pages"].clear()  # the rolled-back character has the same version: no page of the other
        with transaction.atomic():
            sr2_web.table.act(chest_hit(body_check))
            pages.append(sr2_web.player.get(page(sr2_web), **HTMX).content)
            whole.append(sr2_web.player.get(page(sr2_web)).content)
            gm_pages.append(sr2_web.gm.get(page(sr2_web), **HTMX).content)
            transaction.set_rollback(True)
    assert b"mortal hit" in gm_pages[0] and b"critical hit (spine)" in gm_pages[1]
    # The panel (what the board's section fetches) holds no form to post: byte-identical.
    assert b"csrfmiddlewaretoken" not in pages[0] and pages[0] == pages[1]
    assert b"a critical hit to the chest: unknown until diagnosed" in pages[0]
    # The whole page's layout carries the CSRF token (htmx's header, the log-out form), new on every request whatever
    # the hit: the rest is identical.
    token = rb'(?<=name="csrfmiddlewaretoken" value=")[^"]*|(?<="X-CSRFToken": ")[^"]*'
    clean = [re.sub(token, b"", p) for p in whole]
    assert whole[0] != whole[1] and clean[0] == clean[1]


def _advances(html: str) -> list[dict[str, str]]:
    """The recovery page's advance forms, as the fields they post."""
    forms = re.findall(
        r'<form method="post" action="/campaigns/\d+/clock/" class="inline">(.*?)</form>', html, re.S
    )
    return [dict(re.findall(r'name="(\w+)" value="([^"]*)"', form)) for form in forms]


def test_advancing_from_the_page_asks_for_table_dice_as_any_advance(db: None, django_user_model: Any) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    web = make_web(table)
    # A Moderate stun wound: its recovery roll is the clock's, which the GM rolls at the table.
    assert table.act({"type": "wound", "severity": "M", "damage": "stun"}).status_code == 201
    to_fit, to_change = _advances(web.gm.get(page(web)).content.decode())
    assert (to_fit["unit"], "stop_on" in to_fit, to_change["stop_on"]) == ("seconds", False, "status")
    posted = web.gm.post(
        f"/campaigns/{web.campaign_id}/clock/",
        {k: v for k, v in to_fit.items() if k != "csrfmiddlewaretoken"},
    )
    assert posted.status_code == 302
    job = Job.objects.get(campaign_id=web.campaign_id)
    assert job.waiting and job.needs_roll["name"] == "stun_recovery", job.needs_roll
    board = web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode()
    assert "/clock/roll/" in board  # the board asks for the roll, as for any advance


def test_a_clock_roll_typed_wrong_is_said_with_the_rolls_words(db: None, django_user_model: Any) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    web = make_web(table)
    assert table.act({"type": "wound", "severity": "M", "damage": "stun"}).status_code == 201
    to_fit, _ = _advances(web.gm.get(page(web)).content.decode())
    web.gm.post(
        f"/campaigns/{web.campaign_id}/clock/",
        {k: v for k, v in to_fit.items() if k != "csrfmiddlewaretoken"},
    )
    job = Job.objects.get(campaign_id=web.campaign_id)
    need = job.asked[0]
    refused = web.gm.post(f"/campaigns/{web.campaign_id}/clock/roll/", {f"roll:{need['key']}": "9 9 99"})
    assert refused.status_code == 400
    html = refused.content.decode()
    error = re.search(r'<p class="error" id="clock-roll-1-error" role="alert">(.*?)</p>', html).group(1)
    label = need["label"][:1].lower() + need["label"][1:]
    assert error.startswith(f"Ash&#x27;s {label} needs"), error
    assert "stun_recovery" not in error and "rolls." not in error and "[" not in error
    assert 'value="9 9 99"' in html  # what was typed is kept


def test_advancing_to_the_next_change_stops_on_a_status_change(df_web: Web) -> None:
    df_web.table.act(THREE_LOST)
    _, to_change = _advances(df_web.gm.get(page(df_web)).content.decode())
    posted = df_web.gm.post(
        f"/campaigns/{df_web.campaign_id}/clock/",
        {k: v for k, v in to_change.items() if k != "csrfmiddlewaretoken"},
    )
    assert posted.status_code == 302
    job = Job.objects.get(campaign_id=df_web.campaign_id)
    assert job.stop_on == "status" and job.to_time - job.from_time == int(to_change["amount"])


def test_a_question_the_page_refuses_names_its_input_in_words(sr2_web: Web) -> None:
    refused = sr2_web.gm.get(page(sr2_web, "?runs=7"))
    assert refused.status_code == 400
    error = re.search(r'<p class="error" role="alert">(.*?)</p>', refused.content.decode()).group(1)
    assert error.startswith("Futures: expected"), error


STATISTICS = ("p50", "p90", "percentile", "median")


def test_the_party_section_speaks_no_statistics_and_asks_its_what_ifs_inside_the_board(sr2_web: Web) -> None:
    sr2_web.table.act(chest_hit(CRITICAL))
    html = sr2_web.gm.get(page(sr2_web, "?with=hospital&with=medic:6&runs=200"), **HTMX).content.decode()
    for word in STATISTICS:
        assert word not in html.lower(), word
    assert "most likely by " in html and "(9 in 10)" in html
    # The what-ifs are asked inside the section (htmx swaps the panel; no page change).
    assert (
        f'id="recovery-ask" hx-get="{page(sr2_web)}" hx-target="#recovery-body" hx-swap="innerHTML"' in html
    )


def test_the_board_draws_the_kept_section_in_its_first_load_and_puts_it_last(sr2_web: Web) -> None:
    sr2_web.table.act(chest_hit(CRITICAL))
    board = f"/campaigns/{sr2_web.campaign_id}/"
    first = sr2_web.gm.get(board).content.decode()
    # Nothing kept yet: the section fetches its panel once shown. It is the board's last section, so that its
    # growing from one line to the panel moves nothing below it.
    body = first.split('<main id="main">')[1]
    assert 'hx-trigger="load"' in body and "recovery-characters" not in body
    after = body.split('<section class="panel" id="recovery"')[1]
    assert "<section" not in after and "<form" not in after.split("</section>")[1]
    panel = sr2_web.gm.get(page(sr2_web), **HTMX).content.decode()
    # Kept now: the next load draws the same panel in the page (its words, no statistics), fetched again only
    # when something changes.
    again = sr2_web.gm.get(board).content.decode().split('<main id="main">')[1]
    section = again.split('<div id="recovery-body"')[1].split("</section>")[0]
    assert 'hx-trigger="load' not in section
    # Drawn, the body has no hx-get: htmx fetches a div's on a click, and a click on a what-if's box inside it
    # fetched the bare panel over the box just ticked.
    assert again.split('<div id="recovery-body"')[1].startswith(' hx-swap="innerHTML">')
    # The panel asks itself again when the board says something changed, with the question its form holds.
    assert (
        f'<div class="recovery" hx-get="{page(sr2_web)}" hx-include="#recovery-ask" hx-disinherit="hx-include" '
        'hx-trigger="changed from:body"' in section
    )
    assert re.sub(r'value="[^"]*"', "", panel.split('<div class="buttons recovery-act">')[0]) in re.sub(
        r'value="[^"]*"', "", section
    )
    for word in STATISTICS:
        assert word not in again.lower(), word
    # A player's board alike: their own section drawn once kept.
    sr2_web.player.get(page(sr2_web), **HTMX)
    players = sr2_web.player.get(board).content.decode()
    assert "recovery-characters" in players and "What if" not in players


def test_the_boards_section_says_a_time_box_ran_out_and_asks_again_in_a_minute(
    sr2_web: Web, settings: Any
) -> None:
    sr2_web.table.act(chest_hit(CRITICAL))
    settings.FORECAST_TIME_BOX = 0
    answer = sr2_web.gm.get(page(sr2_web), **HTMX)
    # Swapped in by htmx (a 429, as the budget's refusal; a 503 would be an error and the section left as it was).
    assert (answer.status_code, answer["Retry-After"]) == (429, "60")
    html = answer.content.decode()
    assert (
        "No recovery view yet: the party&#x27;s recovery took longer than its time box allows; ask again in a "
        "minute." in html
    )
    assert 'hx-trigger="load delay:60s, seen" data-when-seen' in html
    assert sr2_web.gm.get(page(sr2_web)).status_code == 503  # the page of its own, as before


def test_should_be_healed_says_why_it_has_no_date_beside_the_forecasts(sr2_web: Web) -> None:
    # Its healing waits on the Body test the clock rolls once the rest begins, 10 min after the wound.
    sr2_web.table.act(chest_hit(CRITICAL))
    html = sr2_web.player.get(f"/characters/{sr2_web.table.character['id']}/").content.decode()
    hit = html.split("<h3>Should be healed</h3>")[1].split("</ul>")[0]
    assert (
        'physical damage heals to 3 boxes:\n      <span class="muted">no date yet: the healing roll on '
        "2053-01-01 00:10:00 sets it</span>" in hit
    )


def what_ifs_offered(web: Web) -> list[str]:
    """The what-ifs the GM's section offers, in words: the boxes' and the medic's choice's."""
    html = web.gm.get(page(web), **HTMX).content.decode()
    boxes = re.findall(r'<input type="checkbox" name="with" value="[^"]*"> ([^<]*)</label>', html)
    medics = re.findall(r'<option value="medic:[^"]*">([^<]*)</option>', html)
    return [label.strip() for label in boxes] + medics


DISABLED_ARM = {
    "type": "damage",
    "weapon_damage": 8,
    "rolls": {"damage": [6], "ko": [5], "limb_check": [5], "limb": [2], "side": [5]},
}


def test_dark_future_offers_the_gms_recover_only_for_a_disabled_limb(df_web: Web) -> None:
    """Dark Future has no medic's care (RULES.md): CON comes back with rest, a disabled limb with the GM's recover.
    Ash, short of CON alone, has no what-if; Bo, knocked out with a disabled arm, has the recover, said as what it
    does."""
    assert df_web.table.act(THREE_LOST).status_code == 201
    assert what_ifs_offered(df_web) == []
    bo = teammate(df_web.table, "Bo", {"con": 8})
    assert df_web.table.gm.post(f"/api/characters/{bo['id']}/actions/", DISABLED_ARM).status_code == 201
    assert what_ifs_offered(df_web) == ["Bo recovered now (comes round, right arm restored)"]


def test_dark_futures_recover_what_if_says_the_course_with_the_limb_restored(df_web: Web) -> None:
    """The "treated now" of Dark Future is the GM's recover: its answer is the course with the arm restored (the
    party dated by CON's rest alone), never the arm still disabled."""
    assert df_web.table.act(THREE_LOST).status_code == 201
    bo = teammate(df_web.table, "Bo", {"con": 8})
    assert df_web.table.gm.post(f"/api/characters/{bo['id']}/actions/", DISABLED_ARM).status_code == 201
    html = df_web.gm.get(page(df_web, f"?with=treat:{bo['id']}"), **HTMX).content.decode()
    answers = re.findall(r'<ul class="recovery-what-ifs"><li><strong>([^<]*)</strong>: ([^<]*)</li>', html)
    assert answers == [("With Bo recovered now (comes round, right arm restored)", "all fit by 5 February")]


def test_cyberpunk_offers_no_treatment_to_a_character_medical_tech_treats_already(cp2020_web: Web) -> None:
    hurt = {
        "type": "damage",
        "damage": 10,
        "location": "torso",
        "rolls": {"stun_save": [1], "death_save": [1]},
    }
    assert cp2020_web.table.act(hurt).status_code == 201
    offered = what_ifs_offered(cp2020_web)
    assert offered[0] == "Ash treated now" and "a medic of skill 10" in offered
    treated = {"type": "treat", "medic": "Doc", "skill": "medical_tech", "total": 15}
    assert cp2020_web.table.act(treated).status_code == 201
    assert what_ifs_offered(cp2020_web) == []


def test_shadowrun_offers_treatment_and_hospital_only_while_they_change_something(sr2_web: Web) -> None:
    assert sr2_web.table.act(chest_hit(CRITICAL)).status_code == 201
    offered = what_ifs_offered(sr2_web)
    assert offered[:2] == ["everyone in hospital", "Ash treated now"]
    # The hit diagnosed and treated, first aid given: nothing a medic could do now. Still out of hospital.
    diagnose = {"type": "diagnose", "medic": "Doc", "skill": 4, "rolls": {"diagnosis": [5, 5, 5, 5]}}
    assert sr2_web.table.act(diagnose).status_code == 201
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 6,
        "rolls": {"treatment": [5] * 6},
    }
    assert sr2_web.table.act(treat).status_code == 201
    first_aid = {"type": "first_aid", "medic": "Doc", "skill": 4, "rolls": {"first_aid": [5, 5, 5, 1]}}
    assert sr2_web.table.act(first_aid).status_code == 201
    assert what_ifs_offered(sr2_web) == ["everyone in hospital"]
    assert sr2_web.table.act({"type": "set_care", "in_hospital": True}).status_code == 201
    assert what_ifs_offered(sr2_web) == []


def test_a_what_if_whose_character_died_is_left_out_when_the_section_asks_again(sr2_web: Web) -> None:
    """The section asks the GM's question again after every change. Ash, asked "treated now", died at the clock's
    next hour: the question came back a 400 in keys the GM never typed ("expected some of ..., got treat:1")
    (found by tests/browser/test_night_at_the_table.py). The panel now answers what it still offers."""
    sr2_web.table.act(chest_hit(MORTAL))  # the spine: dead in 6 minutes unless treated
    treated = f"?with=treat:{sr2_web.character_id}"
    asked = sr2_web.gm.get(page(sr2_web, treated), **HTMX)
    assert asked.status_code == 200
    assert "<strong>With Ash treated now</strong>" in asked.content.decode()
    assert sr2_web.table.advance(hours=1).status_code == 202
    again = sr2_web.gm.get(page(sr2_web, treated), **HTMX)
    html = again.content.decode()
    assert again.status_code == 200, html
    assert 'class="error"' not in html and "treated now" not in html
    assert f'hx-get="{page(sr2_web)}"' in html  # the question asked from now on: without it
    # The API's question is the caller's: refused as before.
    api = sr2_web.table.gm.get(f"/api/campaigns/{sr2_web.campaign_id}/recovery/{treated}")
    assert api.status_code == 400


def test_nobody_treated_now_while_nobody_in_the_campaign_can_act(sr2_web: Web) -> None:
    """Issue 42: "Ash treated now" was offered while every character was down, and answered "most likely dies
    first" of a treatment nobody there could give. While nobody can act (dead, unconscious, stunned: docs/play.md,
    "Who can act") the section says so, and offers only a medic for all, one from outside the campaign."""
    deadly = {"type": "wound", "severity": "D", "rolls": {"body_check": [13, 13, 13, 13, 13]}}
    assert sr2_web.table.act(deadly).status_code == 201  # Ash: physical 10, unconscious, bleeding out
    doc = teammate(sr2_web.table, "Doc", {"body": 3})
    knocked_out = {"type": "wound", "severity": "D", "damage": "stun"}
    assert sr2_web.table.gm.post(f"/api/characters/{doc['id']}/actions/", knocked_out).status_code == 201
    offered = what_ifs_offered(sr2_web)
    assert "Ash treated now" not in offered and "a medic of skill 4" in offered
    html = sr2_web.gm.get(page(sr2_web), **HTMX).content.decode()
    assert (
        '<p class="help" id="nobody-treats">Nobody in the campaign can treat anyone now: every character is dead, '
        "unconscious or out of action. A medic for all is one from outside the campaign.</p>"
    ) in html
    menu = sr2_web.table.gm.get(f"/api/campaigns/{sr2_web.campaign_id}/recovery/").json()["what_if_menu"]
    assert not [item for item in menu if item["with"].startswith("treat:")]
    # Someone on their feet: Ash's treatment is a what-if again.
    teammate(sr2_web.table, "Bo", {"body": 4})
    assert "Ash treated now" in what_ifs_offered(sr2_web)
    assert 'id="nobody-treats"' not in sr2_web.gm.get(page(sr2_web), **HTMX).content.decode()


class _ReadAloud(HTMLParser):
    """What a screen reader says of a page: its text and its aria-labels, never what is under aria-hidden."""

    VOID = frozenset(
        ("input", "br", "img", "meta", "link", "hr", "rect", "line", "polygon", "polyline", "path")
    )

    def __init__(self) -> None:
        super().__init__()
        self.hidden = 0  # the depth of the open elements inside an aria-hidden one
        self.said: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = dict(attrs)
        if tag in self.VOID:
            return
        if self.hidden or given.get("aria-hidden") == "true":
            self.hidden += 1
        elif given.get("aria-label"):
            self.said.append(str(given["aria-label"]))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        return

    def handle_endtag(self, tag: str) -> None:
        if self.hidden and tag not in self.VOID:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.said.append(" ".join(data.split()))


def read_aloud(html: str) -> str:
    reader = _ReadAloud()
    reader.feed(html)
    return " | ".join(reader.said)


def test_a_phone_reads_each_label_of_the_partys_chart_once(sr2_web: Web) -> None:
    """Issue 42: the party's chart was read twice on a phone (its summary as its aria-label and as its <title>;
    each bar's words as its tooltip, after the list above had said them). The picture is named once; its drawn
    words are hidden from a reader, who has them in the list."""
    assert sr2_web.table.act(chest_hit(CRITICAL)).status_code == 201
    html = sr2_web.player.get(page(sr2_web), **HTMX).content.decode()
    said = read_aloud(html)
    summary = re.search(r'<svg [^>]*aria-label="([^"]*)"', html)
    assert summary is not None
    item = "physical damage (Serious, 6 boxes): out of the way most likely by"
    assert item in html.split("<figure")[1]  # the bar's tooltip, for a mouse
    for label in (summary.group(1).replace("&#x27;", "'"), item, "a critical hit to the chest"):
        assert said.count(label) == 1, (label, said)
    assert (
        "Ash: unknown until diagnosed" not in said
    )  # the lane's title: the list says "Ash: fit for action: ..."


def test_a_characters_forecast_chart_is_read_once_too(sr2_web: Web) -> None:
    assert sr2_web.table.act(chest_hit(CRITICAL)).status_code == 201
    html = sr2_web.player.get(f"/characters/{sr2_web.character_id}/forecast/", **HTMX).content.decode()
    said = read_aloud(html)
    summary = re.search(r'<svg [^>]*aria-label="([^"]*)"', html)
    assert summary is not None
    assert said.count(summary.group(1).replace("&#x27;", "'")) == 1
    assert said.count("physical damage (Serious, 6 boxes)") == 1


def test_what_ifs_chosen_on_the_board_survive_the_sections_refresh_mid_fight(sr2_web: Web) -> None:
    """The walkthrough: the GM ticked what-ifs in the board's section, the fight went on in another tab, the board's
    poll saw the change and the section fetched itself again (`changed`), with the bare question: the boxes were
    cleared. Its refresh now carries its form's fields (hx-include), as htmx sends them (tests/web/live_page.py)."""
    sr2_web.table.act(chest_hit(CRITICAL))
    live = LivePage(sr2_web.gm, sr2_web.campaign_id, lambda _live, _swapped: None)

    def form() -> Node:
        return live.page.get("recovery-ask")

    def box(value: str) -> Node:
        return next(n for n in form().walk() if n.tag == "input" and n.attrs.get("value") == value)

    box("hospital").attrs["checked"] = None  # ticked, "Show" not pressed yet
    next(n for n in form().walk() if n.attrs.get("value") == "medic:6").attrs["selected"] = None
    # The fight goes on: Ash is hit again (the GM's other tab). The board's poll sees it; the section refreshes.
    stun = {"type": "wound", "severity": "L", "damage": "stun", "rolls": {"body_check": [1, 1, 1, 1, 1]}}
    assert sr2_web.table.act(stun).status_code == 201
    assert live.poll() == 200
    asked = live.recovery_answers[-1]
    assert asked.wsgi_request.GET.getlist("with") == ["hospital", "medic:6"]
    assert "checked" in box("hospital").attrs
    assert "selected" in next(n for n in form().walk() if n.attrs.get("value") == "medic:6").attrs
    answered = [
        li.text() for li in live.page.get("recovery").walk() if li.tag == "li" and "With " in li.text()
    ]
    assert [line.split(" : ")[0] for line in answered] == [
        "With everyone in hospital",
        "With a medic of skill 6 treating everyone now",
        "With everyone in hospital and a medic of skill 6 treating everyone now, all at once",
    ]
    # Unticked, a box stays unticked at the next refresh (the URL carries no question of its own).
    del box("hospital").attrs["checked"]
    assert sr2_web.table.act(stun).status_code == 201
    assert live.poll() == 200
    assert live.recovery_answers[-1].wsgi_request.GET.getlist("with") == ["medic:6"]
    assert "checked" not in box("hospital").attrs
    assert len(live.recovery_answers) == 2


def test_the_players_section_says_not_fit_until_cared_for_as_the_gms_does_and_keeps_the_hidden_hit(
    sr2_web: Web,
) -> None:
    """Issue 42: above a diagnosed crippling hit the player's section read "all fit: unknown until diagnosed", the
    GM's "not all fit until cared for". Both say care is needed; the player's is the same whatever the undiagnosed
    hit beside it is (docs/recovery.md, "Secrecy")."""
    panels, gm_panels = [], []
    for body_check in ([1, 1, 1, 1, 1], [6, 6, 1, 1, 1]):  # the second hit Mortal, then Critical
        caches["pages"].clear()  # the rolled-back character has the same version: no panel of the other
        with transaction.atomic():
            sr2_web.table.act(chest_hit(CRIPPLING))
            sr2_web.table.act(DIAGNOSE_CH1)
            sr2_web.table.act(second_hit(body_check))
            panels.append(sr2_web.player.get(page(sr2_web), **HTMX).content.decode())
            gm_panels.append(sr2_web.gm.get(page(sr2_web), **HTMX).content.decode())
            transaction.set_rollback(True)
    headline = "</strong> not all fit until cared for: Ash: the chest&#x27;s crippling hit (spine) needs care"
    assert all(f"<strong>The party:{headline}" in gm for gm in gm_panels)
    assert "mortal hit" in gm_panels[0] and "mortal" not in panels[0]
    assert panels[0] == panels[1]
    assert f"<strong>Your characters:{headline}" in panels[0]
    assert "; Ash: a critical hit to the chest: unknown until diagnosed</p>" in panels[0]
    assert "<strong>Ash</strong>: fit for action only once cared for (below)" in panels[0]


def test_a_players_board_ends_with_the_leave_section_after_their_recovery(df_web: Web) -> None:
    """Issue 42: a phone read "Leave this campaign" above "Your recovery". The way out is the page's last part, and
    the section still to be fetched holds a screen's height, so that its panel pushes nothing into view."""
    board = df_web.player.get(f"/campaigns/{df_web.campaign_id}/").content.decode()
    main = board.split('<main id="main">')[1].split("</main>")[0]
    assert main.index('id="recovery"') < main.index('<section id="leave"')
    assert main.rstrip().endswith("</section>") and main.rindex("<section") == main.index(
        '<section id="leave"'
    )
    assert 'hx-swap="innerHTML" class="recovery-reserved">' in main
    gm_board = df_web.gm.get(f"/campaigns/{df_web.campaign_id}/").content.decode()
    assert 'id="leave"' not in gm_board and "recovery-reserved" not in gm_board


def test_how_many_fit_by_answers_inside_the_players_board_section_and_survives_its_refresh(
    sr2_web: Web,
) -> None:
    """Issue 42: a date in "How many fit by" answered nothing while care stood in the way. On the board it answers
    inside the section (htmx, the form's "Show"), and the section's refresh after the GM's next action asks the
    same date again (hx-include): the answer and the date stay."""
    sr2_web.table.act(chest_hit(CRIPPLING))
    sr2_web.table.act(DIAGNOSE_CH1)
    live = LivePage(sr2_web.player, sr2_web.campaign_id, lambda _live, _swapped: None)
    live.load_recovery()  # the section fetched once shown
    form = live.page.get("recovery-ask")
    live.page.get("rec-by").attrs["value"] = "2053-01-01"
    shown = sr2_web.player.get(str(form.attrs["hx-get"]), form_values(form), **HTMX)
    assert shown.status_code == 200
    live._swap(live.page.get("recovery-body"), shown.content.decode(), str(form.attrs["hx-swap"]))

    def said() -> str:
        return live.page.get("rec-fit-by").text()

    assert said() == "By 1 January: Ash not fit until cared for"
    # The fight goes on: a stun wound (the GM's tab). The player's board polls, and its section asks again.
    stun = {"type": "wound", "severity": "L", "damage": "stun", "rolls": {"body_check": [1, 1, 1, 1, 1]}}
    assert sr2_web.table.act(stun).status_code == 201
    assert live.poll() == 200
    assert live.recovery_answers[-1].wsgi_request.GET.get("by") == "2053-01-01"
    assert said() == "By 1 January: Ash not fit until cared for"
    assert live.page.get("rec-by").attrs["value"] == "2053-01-01"
    # The recovery page (no htmx) answers the same question the same way.
    whole = sr2_web.player.get(page(sr2_web, "?by=2053-01-01")).content.decode()
    assert "<strong>By 1 January: Ash not fit until cared for</strong>" in whole


def test_the_gms_how_many_fit_by_counts_the_party_and_names_who_is_not_fit_then(df_web: Web) -> None:
    """The example of issue 42's fix: "By <date>: k of N fit (who not)", each counted one fit by then in every
    future here (Dark Future is exact): no "likely"."""
    bo = teammate(df_web.table, "Bo", {"con": 12})
    teammate(df_web.table, "Cy", {"con": 6})  # unhurt
    df_web.table.act(THREE_LOST)  # Ash: fit on 15 January
    df_web.table.gm.post(f"/api/characters/{bo['id']}/actions/", THREE_LOST)  # Bo: fit on 8 January
    section = df_web.gm.get(page(df_web, "?by=2020-01-08"), **HTMX).content.decode()
    assert "<strong>By 8 January: 2 of 3 fit (Ash not by then)</strong>" in section
    later = df_web.gm.get(page(df_web, "?by=2020-01-15"), **HTMX).content.decode()
    assert "<strong>By 15 January: 3 of 3 fit</strong>" in later


def test_the_recovery_starts_from_the_campaigns_time_to_the_second(df_web: Web) -> None:
    """A player read "From 2020-01-01 00:00" with the clock at 00:00:09: the start is said as the clock says it."""
    df_web.table.act(THREE_LOST)
    assert df_web.table.advance(seconds=9).status_code == 202  # run at once in tests
    for who in (df_web.player, df_web.gm):
        section = who.get(page(df_web), **HTMX).content.decode()
        assert '<p class="muted">From 2020-01-01 00:00:09: these dates are certain: ' in section
    panel = df_web.player.get(f"/characters/{df_web.character_id}/forecast/", **HTMX).content.decode()
    assert '<p class="muted">From 2020-01-01 00:00:09: ' in panel  # the character's forecast already did


def test_a_players_phone_says_why_a_hit_under_treatment_needs_care_once_in_short_sentences(
    sr2_web: Web,
) -> None:
    """A tester's phone read one long nested sentence, twice: in the party's line and in the bullet below it ("needs
    care (under treatment, a mortal hit becomes crippling when the treatment completes; a crippling hit never heals
    on its own: it needs ... (fit for action with it))"). The line names the hit; the bullet says why, once."""
    assert sr2_web.table.act(chest_hit(MORTAL)).status_code == 201
    diagnose = {"type": "diagnose", "medic": "Doc", "skill": 5, "rolls": {"diagnosis": [6] * 5}}
    assert sr2_web.table.act(diagnose).status_code == 201
    # 2 successes at TN 8 (6 then 2 is 8): done at 5 minutes, before the death at 6.
    treat = {
        "type": "treat",
        "medic": "Doc",
        "skill": 4,
        "critical_hit": "ch1",
        "rolls": {"treatment": [8, 8, 1, 1]},
    }
    assert sr2_web.table.act(treat).status_code == 201
    panel = sr2_web.player.get(page(sr2_web), **HTMX).content.decode()
    assert (
        "<strong>Your characters:</strong> not all fit until cared for: Ash: the chest&#x27;s mortal hit (spine) "
        "needs care</p>" in panel
    )
    why = (
        "<li>the chest&#x27;s mortal hit (spine): needs care. The treatment under way will leave a crippling hit, "
        "which never heals on its own. It needs a replacement, healing magic, or the GM&#x27;s Accept.</li>"
    )
    assert why in panel
    assert panel.count("never heals on its own") == 1


def test_how_many_fit_by_is_typed_as_the_game_writes_its_dates_and_a_refusal_stays_through_refreshes(
    sr2_web: Web,
) -> None:
    """A GM's walkthrough: the date input showed the browser's own format (mm/dd/yyyy) beside the game's
    "2053-01-01", and a date out of its range was a browser bubble, before the server was asked, gone at the next
    redraw. The input is text in the game's format (docs/web.md, "Dates"), the form has no browser check, and a
    date refused is said by the server beside the input; the section's refresh after a change asks the same date
    again, so the words stay."""
    sr2_web.table.act(chest_hit(CRIPPLING))
    sr2_web.table.act(DIAGNOSE_CH1)
    live = LivePage(sr2_web.player, sr2_web.campaign_id, lambda _live, _swapped: None)
    live.load_recovery()
    form = live.page.get("recovery-ask")
    assert "novalidate" in form.attrs
    date = live.page.get("rec-by")
    assert "type" not in date.attrs and date.attrs["placeholder"] == "e.g. 2053-01-01"
    date.attrs["value"] = "03/12/2054"  # the browser's own format
    refused = sr2_web.player.get(str(form.attrs["hx-get"]), form_values(form), **HTMX)
    assert refused.status_code == 400
    live._swap(live.page.get("recovery-body"), refused.content.decode(), str(form.attrs["hx-swap"]))
    said = "How many fit by: expected a game date such as 2053-03-02 or 2 March 2053, got 03/12/2054"

    def error() -> str:
        return live.page.get("rec-by-error").text()

    assert error() == said
    assert live.page.get("rec-by").attrs["aria-invalid"] == "true"
    assert live.page.get("rec-by").attrs["value"] == "03/12/2054"  # what was typed, to correct
    # The GM acts: the player's board polls, its section asks the same question again, the words stay.
    stun = {"type": "wound", "severity": "L", "damage": "stun", "rolls": {"body_check": [1, 1, 1, 1, 1]}}
    assert sr2_web.table.act(stun).status_code == 201
    assert live.poll() == 200
    assert live.recovery_answers[-1].status_code == 400
    assert error() == said and live.page.get("rec-by").attrs["value"] == "03/12/2054"
    # Typed as the game writes it, the date answers.
    live.page.get("rec-by").attrs["value"] = "2053-01-01"
    shown = sr2_web.player.get(str(form.attrs["hx-get"]), form_values(live.page.get("recovery-ask")), **HTMX)
    assert shown.status_code == 200
    live._swap(live.page.get("recovery-body"), shown.content.decode(), str(form.attrs["hx-swap"]))
    assert live.page.find("rec-by-error") is None
    assert live.page.get("rec-fit-by").text() == "By 1 January: Ash not fit until cared for"


def test_no_template_draws_the_browsers_own_date_picker() -> None:
    """Every date is typed as the game writes it (docs/web.md, "Dates"): no input of the browser's date or time
    types, whose format is the browser's locale's, in any template."""
    from pathlib import Path

    templates = Path(__file__).resolve().parents[2] / "templates"
    native = re.compile(r'type="(date|datetime-local|time|month|week)"')
    found = [
        f"{path.relative_to(templates)}: {match.group(0)}"
        for path in sorted(templates.rglob("*.html"))
        for match in native.finditer(path.read_text())
    ]
    assert found == []


def test_how_many_fit_by_takes_the_date_as_the_game_writes_it_to_people(df_web: Web) -> None:
    """The section's input takes "10 January 2020" and "10 Jan 2020" as it takes 2020-01-10 (the API's parser:
    `rules.game_dates.read_date`), and its help and its refusal name both shapes."""
    df_web.table.act(THREE_LOST)
    for by in ("10 January 2020", "10 Jan 2020"):
        html = df_web.gm.get(page(df_web, f"?by={by.replace(' ', '+')}"), **HTMX).content.decode()
        assert (
            '<p class="fit-by" id="rec-fit-by"><strong>By 10 January: Ash not fit by then</strong></p>'
            in html
        )
        assert f'value="{by}"' in html
    refused = df_web.gm.get(page(df_web, "?by=10+Janvier+2020"), **HTMX)
    assert refused.status_code == 400
    assert (
        '<p class="error" id="rec-by-error" role="alert">How many fit by: expected a game date such as 2053-03-02 '
        "or 2 March 2053, got 10 Janvier 2020</p>" in refused.content.decode()
    )


def test_an_all_fit_party_draws_no_chart_and_says_why(df_web: Web) -> None:
    """A party fit now drew a chart of lanes with no bar in them: nothing to read. No chart now, and the section
    says so in words, for the GM and the player; the advance "to the next change" goes with it (none comes)."""
    teammate(df_web.table, "Bo", {"con": 12})
    gm = df_web.gm.get(page(df_web)).content.decode()
    assert "<strong>The party:</strong> all fit for action now" in gm
    assert 'class="recovery-chart"' not in gm and "<svg" not in gm
    assert (
        '<p class="muted" id="recovery-no-chart">No chart: everyone is fit for action now, with nothing in the '
        "way.</p>" in gm
    )
    assert "next change" not in gm
    player = df_web.player.get(page(df_web)).content.decode()
    assert "<svg" not in player
    assert (
        '<p class="muted" id="recovery-no-chart">No chart: your characters are fit for action now, with nothing '
        "in the way.</p>" in player
    )
    # Someone hurt: the chart is back, with a lane for each, and no such words.
    df_web.table.act(THREE_LOST)
    hurt = df_web.gm.get(page(df_web)).content.decode()
    assert 'class="recovery-chart"' in hurt and "recovery-no-chart" not in hurt
    assert hurt.count('<rect class="lane"') == 2


KNOCKED_OUT = {"type": "damage", "weapon_damage": 4, "rolls": {"damage": [6], "ko": [5]}}  # 4 of 8 left: KO


def test_dark_future_a_knock_out_from_a_roll_needs_the_gms_recover_on_the_party_panel_as_on_the_forecast(
    df_web: Web,
) -> None:
    """Tester's report: knocked out by a roll, no limb hurt, the party panel and the phone read "fit for action by
    29 January" while the character page's forecast said "knocked out: not without care". RULES.md: a knock-out from
    a roll ends by action `recover` alone, so both say it needs the GM's recover, in the same words."""
    assert df_web.table.act(KNOCKED_OUT).status_code == 201
    for reader in (df_web.gm, df_web.player):
        html = reader.get(page(df_web), **HTMX).content.decode()
        assert "<strong>Ash</strong>: fit for action only once cared for (below)" in html
        assert (
            "<li>knocked out: needs care. A knock-out from a roll lasts until the GM says they come round.</li>"
            in (html)
        )
        assert "fit for action by" not in html
        forecast = reader.get(f"/characters/{df_web.character_id}/forecast/", **HTMX).content.decode()
        assert (
            '<strong>knocked out</strong>:\n      not without care. <span class="muted">A knock-out from a roll lasts '
            "until the GM says they come round.</span>"
        ) in forecast
    assert what_ifs_offered(df_web) == ["Ash recovered now (comes round)"]
    html = df_web.gm.get(page(df_web, f"?with=treat:{df_web.character_id}"), **HTMX).content.decode()
    answers = re.findall(r'<ul class="recovery-what-ifs"><li><strong>([^<]*)</strong>: ([^<]*)</li>', html)
    assert answers == [("With Ash recovered now (comes round)", "all fit by 22 January")]
    # Come round, CON alone stands in the way: dated on the panel and the forecast alike.
    assert df_web.table.act({"type": "recover", "knocked_out": True}).status_code == 201
    html = df_web.gm.get(page(df_web), **HTMX).content.decode()
    assert "<strong>Ash</strong>: fit for action by 22 January" in html


def test_a_dying_cyberpunk_characters_recovery_says_so_first_and_nothing_is_certain(cp2020_web: Web) -> None:
    """Tester's report: dying, the player's phone read "these dates are certain: the rules roll no die on the way"
    and "stunned: still in the way a year from now", with no word of the dying. The dying comes first, as what it
    needs (a player reads no time of death; the GM does), and no date is "certain" while a stabilization stands in
    the way."""
    for action in (TWO_POINTS, FORTY_TO_THE_TORSO):
        assert cp2020_web.table.act(action).status_code == 201
    player = cp2020_web.player.get(page(cp2020_web), **HTMX).content.decode()
    gm = cp2020_web.gm.get(page(cp2020_web), **HTMX).content.decode()
    for html, whose in ((player, "Your characters"), (gm, "The party")):
        assert "certain" not in html
        assert "a year from now" not in html
        assert (
            f"<strong>{whose}:</strong> not all fit until cared for: Ash: dying, needs to be stabilized; Ash: the "
            "wound track: 40 points, 36 points over Light needs care</p>"
        ) in html
        assert (
            "<strong>Ash</strong>: dying, needs to be stabilized; fit for action only once cared for (below)\n"
            '      <ul class="in-the-way"><li>dying: needs to be stabilized. '
        ) in html
        assert "<li>stunned: no date until stabilized</li>" in html
        assert '<text class="lane-title" x="8" y="12.0">Ash: dying, needs to be stabilized</text>' in html
    # The player reads no time of death, in words or as a tick on the timeline; the GM reads it.
    assert (
        "<li>dying: needs to be stabilized. A dying character dies unless a doctor stabilizes them. Only medical "
        "tech can.</li>"
    ) in player
    assert "timer-mark" not in player and "00:00:30" not in player and "30 s" not in player
    assert (
        "<li>dying: needs to be stabilized. Dies in about 30 s unless stabilized. Only medical tech can stabilize "
        "them.</li>"
    ) in gm
    assert "<title>dies unless stabilized at 2020-01-01 00:00:30</title>" in gm
    # The board's section is the same panel: the phone's "Your recovery" on the player's board says it too.
    caches["pages"].clear()
    board = cp2020_web.player.get(f"/campaigns/{cp2020_web.campaign_id}/").content.decode()
    section = cp2020_web.player.get(page(cp2020_web), **HTMX).content.decode()
    assert "Your recovery" in board and "dying: needs to be stabilized" in section
