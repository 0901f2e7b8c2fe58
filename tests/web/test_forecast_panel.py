"""The forecast panel of the character page: fetched by the live region, drawn as SVG on the server, the same for
a player whatever the hidden lethality."""

from __future__ import annotations

import re

import pytest

from campaign import services
from campaign.forecast.forecasts import survival_text
from campaign.models import Campaign, Character
from campaign.web import forecast_panel
from rules import forecast as fc
from rules.registry import get_ruleset
from tests.api.test_forecast import CRITICAL, MORTAL, chest_hit
from tests.web.conftest import Web

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_the_character_page_fetches_the_forecast_panel_once_shown(sr2_web: Web) -> None:
    html = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    url = f"/characters/{sr2_web.character_id}/forecast/"
    assert f'hx-get="{url}" hx-trigger="load"' in html and f'<a href="{url}">' in html


def test_the_gm_panel_draws_each_injury_as_a_lane_with_a_median_and_a_band(sr2_web: Web) -> None:
    sr2_web.table.act(chest_hit(CRITICAL))
    html = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/forecast/", **HTMX).content.decode()
    assert html.count('class="lane"') == 2 and html.count('class="median"') == 2
    assert html.count('class="band"') == 2
    # Its futures differ: the line is the most likely course, and the band is drawn (a Dark Future chart's is not).
    assert (
        '<figcaption class="muted">What is left of each injury over game time: the line is the most likely course, '
        "the band where 8 futures in 10 are.</figcaption>"
    ) in html
    assert "chest, spine (critical)" in html and "physical damage (Serious, 6 boxes)" in html
    assert "style=" not in html  # the CSP forbids inline styles
    assert re.search(r'class="tick"[^>]*>2053-01-01<', html)
    assert (
        "healed most likely by " in html and "Back to full health:</strong>\n    not without care" not in html
    )
    assert "<html" not in html  # a fragment


def test_the_gm_sees_survival_odds_of_the_whole_menu_for_a_dying_character(sr2_web: Web) -> None:
    sr2_web.table.act(chest_hit(MORTAL))
    html = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/forecast/", **HTMX).content.decode()
    odds = re.search(r"<strong>Survives:</strong> ([^<]*)</p>", html)
    assert odds is not None
    assert odds.group(1).startswith("treated now: ") and odds.group(1).endswith(", untreated: 0%")
    assert "in hospital from now: 0%" in odds.group(1)


def test_a_players_panel_is_byte_identical_for_a_mortal_and_a_critical_undiagnosed_hit(sr2_web: Web) -> None:
    table = sr2_web.table
    # The twin, named Ash too, at a table of its own: a campaign's characters never share a name.
    other = table.gm.post("/api/campaigns/", {"name": "Seattle 2054", "ruleset": "shadowrun2"}).json()["id"]
    services.member_add(campaign=Campaign.objects.get(pk=other), username="player", role="player")
    twin = table.gm.post(
        f"/api/campaigns/{other}/characters/",
        {"name": "Ash", "player": "player", "attributes": {"body": 5}},
    ).json()
    table.act(chest_hit(MORTAL))
    table.gm.post(f"/api/characters/{twin['id']}/actions/", chest_hit(CRITICAL))
    mortal = sr2_web.player.get(f"/characters/{sr2_web.character_id}/forecast/", **HTMX)
    critical = sr2_web.player.get(f"/characters/{twin['id']}/forecast/", **HTMX)
    assert mortal.status_code == critical.status_code == 200
    assert mortal.content == critical.content
    html = mortal.content.decode()
    assert "a critical hit to the chest</strong>:\n      unknown until diagnosed" in html
    assert "spine" not in html and "mortal" not in html and "Survives" not in html


@pytest.mark.parametrize("fixture", ["cp2020_web", "df_web"])
def test_without_javascript_the_forecast_is_a_page_of_its_own(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    web: Web = request.getfixturevalue(fixture)
    page = web.player.get(f"/characters/{web.character_id}/forecast/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<h1>Recovery forecast</h1>" in html and "Nothing to heal." in html
    assert web.other_player.get(f"/characters/{web.character_id}/forecast/").status_code == 404


def test_the_chart_draws_the_median_and_the_band_in_each_lane_against_the_dates() -> None:
    from campaign.web import forecast_chart
    from rules import forecast as fc

    hour = 3600
    line = fc.Line(
        "stun damage (Moderate, 3 boxes)", 10, [(0, 0, 3, 6), (2 * hour, 0, 0, 3), (4 * hour, 0, 0, 0)]
    )
    outlook = fc.Outlook("untreated", "untreated", [], None, 1.0, [])
    result = fc.Forecast(0, 10, fc.HORIZON, outlook, [], [], False)
    chart = forecast_chart.draw(result, [line], [(0, "01-01 00:00"), (4 * hour, "01-01 04:00")])
    assert chart is not None
    (lane,) = chart.lanes
    # x from 8 to 312 over four hours; y from 60 (healed) up to 16 (10 boxes): 3 boxes is 60 - 44 * 0.3 = 46.8.
    assert lane.median == "8.0,46.8 160.0,60.0 312.0,60.0"
    assert lane.band == "8.0,33.6 160.0,46.8 312.0,60.0 312.0,60.0 160.0,60.0 8.0,60.0"
    assert [(t.x, t.text, t.anchor) for t in chart.ticks] == [
        (8.0, "01-01 00:00", "start"),
        (312.0, "01-01 04:00", "end"),
    ]
    assert forecast_chart.draw(result, [], [(0, ""), (1, "")]) is None


def test_the_charts_axis_ends_at_the_latest_dated_median_or_90th_percentile_never_before_an_hour() -> None:
    from rules import forecast as fc

    def ending(*spreads: fc.Spread | None) -> int:
        items = [fc.Item("x", "x", spread) for spread in spreads]
        outlook = fc.Outlook("untreated", "untreated", items, None, 1.0, [])
        return fc.chart_end(fc.Forecast(100, 10, fc.HORIZON, outlook, [], [], False))

    assert ending(fc.Spread(200, 5000, None, 0.8), fc.Spread(300, 400, 9000, 1.0)) == 9000
    assert ending(fc.Spread(200, 300, 400, 1.0)) == 100 + 3600
    assert ending(None) == 100 + fc.HORIZON  # nothing dated: the horizon


def test_a_certain_outcome_reads_by_its_date(df_web: Web) -> None:
    # CON 8: a 6 rolled + weapon 2 is 8 on the table, 3 CON lost at game second 0; a point back a week of rest,
    # no die: every future has CON back on the same second, three weeks on.
    assert (
        df_web.table.act(
            {"type": "damage", "weapon_damage": 2, "rolls": {"damage": [6], "stun": [1]}}
        ).status_code
        == 201
    )
    html = df_web.gm.get(f"/characters/{df_web.character_id}/forecast/", **HTMX).content.decode()
    assert "<strong>CON 5 of 8 (3 lost)</strong>:\n      healed by 22 January\n" in html
    assert "<strong>Back to full health:</strong>\n    by 22 January</p>" in html
    assert "(9 in 10)" not in html


def test_a_chart_of_one_course_says_so_and_never_most_likely(df_web: Web) -> None:
    """Dark Future's clock rolls no die: every future is the same, so its chart's band is its line. The words said
    "the most likely course as a line, where 8 futures in 10 are as a band"; they say what is drawn."""
    lost = {"type": "damage", "weapon_damage": 2, "rolls": {"damage": [6], "stun": [1]}}  # CON 8 -> 5
    assert df_web.table.act(lost).status_code == 201
    html = df_web.gm.get(f"/characters/{df_web.character_id}/forecast/", **HTMX).content.decode()
    assert (
        'aria-label="What is left of each injury from 2020-01-01 to 2020-01-22 as a line: the same in every '
        'future."'
    ) in html
    assert (
        '<figcaption class="muted">What is left of each injury over game time: the line is its course, the same '
        "in every future.</figcaption>"
    ) in html
    assert "most likely" not in html and "8 futures in 10" not in html


def test_dates_that_fall_on_one_moment_read_as_that_date(df_web: Web) -> None:
    campaign = Campaign.objects.get(pk=df_web.campaign_id)
    # Half the futures and 9 in 10 on one second, though not every future agrees: one date, not a range of one.
    one = forecast_panel.spread_words(campaign, fc.Spread(3600, 3600, 3600, 0.95), 0, "2020-02-01 00:00:00")
    assert one["when"] == "by 1 January 01:00"
    two = forecast_panel.spread_words(campaign, fc.Spread(3600, 4000, 7200, 1.0), 0, "2020-02-01 00:00:00")
    # 4,000 s is 01:06:40: "by" it is by 01:07, the minute rounded up (`rules.game_dates.by_the_minute`).
    assert two["when"] == "most likely by 1 January 01:07, at the latest by 1 January 02:00 (9 in 10)"


def test_the_survival_odds_are_shown_with_their_sampling_error(sr2_web: Web) -> None:
    sr2_web.table.act(chest_hit(MORTAL))
    html = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/forecast/", **HTMX).content.decode()
    odds = re.search(r"<strong>Survives:</strong> ([^<]*)</p>", html)
    # The GM's 1,000 futures, seeded from the state: the same text on every run. A share all futures agree on (0%)
    # has no error to show.
    assert odds is not None and odds.group(1) == (
        "treated now: 19% (\u00b12), treated in 5 min: 0%, treated in 10 min: 0%, first aid now: 0%, "
        "in hospital from now: 0%, untreated: 0%"
    )
    # The panel stops a what-if's future once its survival is settled; the whole forecast (the API's, every
    # future to its end) under the page's seed says the same odds.
    character = Character.objects.select_related("campaign").get(pk=sr2_web.character_id)
    rules = get_ruleset("shadowrun2")
    menu = tuple(rules.forecast.what_ifs)
    whole = fc.forecast(rules, character.state, character.campaign.game_time, player=False, what_ifs=menu)
    assert whole.what_ifs[0].items and odds.group(1) == survival_text(whole.survival, whole.runs)


def test_the_forecast_says_why_its_dates_are_later_than_the_pages_after_an_undo(df_web: Web) -> None:
    damage = {"type": "damage", "weapon_damage": 2, "rolls": {"damage": [6], "stun": [1]}}
    assert df_web.table.act(damage).status_code == 201
    url = f"/characters/{df_web.character_id}/forecast/"
    assert "left some of the clock" not in df_web.gm.get(url, **HTMX).content.decode()
    df_web.table.advance(days=15)  # CON back at days 7 and 14; the third point is due at day 21
    assert df_web.table.act({"type": "undo"}).status_code == 201  # day 14's point taken back: due at day 14
    html = df_web.gm.get(url, **HTMX).content.decode()
    assert (
        "An undo or a revert left some of the clock&#x27;s steps in the past: they happen at the next advance, "
        "and the forecast counts the steps after them from now, so its dates can be later than the page&#x27;s "
        "\u201cShould be healed\u201d, which counts from each step&#x27;s own time."
    ) in html
    # the player is not told of the clock's steps (a timer may be a secret)
    assert "left some of the clock" not in df_web.player.get(url, **HTMX).content.decode()


def test_after_an_undo_the_panels_odds_are_the_whole_forecasts_and_a_player_sees_none(sr2_web: Web) -> None:
    # A Mortal hit, then a Moderate wound taken back: the panel follows the state after the undo.
    table = sr2_web.table
    assert table.act(chest_hit(MORTAL)).status_code == 201
    hit = Character.objects.get(pk=sr2_web.character_id).state["physical"]
    moderate = {"type": "wound", "severity": "M", "rolls": {"body_check": [6] * 5}}
    assert table.act(moderate).status_code == 201
    assert Character.objects.get(pk=sr2_web.character_id).state["physical"] > hit
    assert table.act({"type": "undo"}).status_code == 201
    url = f"/characters/{sr2_web.character_id}/forecast/"
    html = sr2_web.gm.get(url, **HTMX).content.decode()
    odds = re.search(r"<strong>Survives:</strong> ([^<]*)</p>", html)
    character = Character.objects.select_related("campaign").get(pk=sr2_web.character_id)
    assert character.state["physical"] == hit  # the Moderate wound is gone
    rules = get_ruleset("shadowrun2")
    whole = fc.forecast(
        rules,
        character.state,
        character.campaign.game_time,
        player=False,
        what_ifs=tuple(rules.forecast.what_ifs),
    )
    assert odds is not None and odds.group(1) == survival_text(whole.survival, whole.runs)
    # The player watching the same character: no what-if, no odds of the hidden Mortal hit.
    seen = sr2_web.player.get(url, **HTMX).content.decode()
    assert "Survives" not in seen and "treated now" not in seen


PANEL_STATISTICS = ("p50", "p90", "percentile", "median", "10% to 90%", "80%")


def test_the_panel_says_its_dates_as_the_partys_section_does(sr2_web: Web) -> None:
    """No statistics (issue 42): each date as 'most likely by ..., at the latest by ... (9 in 10)', the words of
    the party's section, and the chart said the same way."""
    sr2_web.table.act(chest_hit(CRITICAL))
    html = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/forecast/", **HTMX).content.decode()
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    said = " ".join([text, *re.findall(r'aria-label="([^"]*)"', html)])
    for word in PANEL_STATISTICS:
        assert word not in said.lower(), word
    assert re.search(
        r"physical damage \(Serious, 6 boxes\) ?: healed most likely by \d+ \w+, at the latest by "
        r"\d+ \w+ \(9 in 10\)",
        text,
    ), text
    assert "Back to full health: not without care" not in text


def test_the_panel_says_why_an_injury_needs_care_in_sentences_after_the_note(sr2_web: Web) -> None:
    """The care words are sentences ("... on its own. It needs ..."): said after the note, never in parentheses."""
    sr2_web.table.act(chest_hit(MORTAL))
    html = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/forecast/", **HTMX).content.decode()
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert "(mortal) : not without care. A mortal hit kills unless it is treated." in text, text
    assert "(a mortal hit" not in text
