"""Issue 18 on the pages: history entries as sentences (a player's without secrets), a whole run of clock rolls
folded, every sign-up error at once, and the 403 and 404 pages in the app's style."""

from __future__ import annotations

import re

from django.test import Client

from tests.web.conftest import Web

WOUND = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]}


def test_a_history_entry_reads_as_a_sentence_and_a_players_tells_no_secret(sr2_web: Web) -> None:
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": WOUND}).status_code == 201
    url = f"/characters/{sr2_web.character_id}/"
    gm = sr2_web.gm.get(url).content.decode()
    assert "Critical hit 1 to the chest (ribs), Mortal (internal bleeding); bleeds out in about 30 min" in gm
    player = sr2_web.player.get(url).content.decode()
    assert "A critical hit to the chest: " in player
    for secret in ("ribs", "ortal", "30 min", "bleeds out", "ch1", "Body check"):
        assert secret not in player, secret


def test_the_clocks_recoveries_are_one_group_of_their_advance(df_web: Web) -> None:
    assert (
        df_web.table.act(
            {"type": "damage", "weapon_damage": 6, "rolls": {"damage": [2], "stun": [5]}}
        ).status_code
        == 201
    )
    df_web.table.advance(weeks=3)
    html = df_web.player.get(f"/characters/{df_web.character_id}/").content.decode()
    assert re.search(
        r'<details id="group-\d+"><summary>Clock, 2020-01-01 00:00 to 2020-01-22 00:00: 4 entries: CON recovered 3 times, stun ended<',
        html,
    )
    assert "7 days of rest: CON 5 to 6, 51-75% of CON; skills driver 2, gunner 3." in html


def test_sign_up_shows_every_error_at_once(db: None) -> None:
    answer = Client().post("/signup/", {"username": "", "password": "x", "password2": "y"})
    html = answer.content.decode()
    assert answer.status_code == 400
    assert 'id="err-username">Expected a user name' in html
    assert 'id="err-password">This password is too short' in html
    assert 'id="err-password2">The two passwords differ' in html


def test_a_403_and_a_404_are_pages_of_the_app(sr2_web: Web) -> None:
    refused = sr2_web.player.get(f"/characters/{sr2_web.character_id}/forms/wound/")
    assert refused.status_code == 403
    html = refused.content.decode()
    assert (
        '<h1 id="e-h">Not allowed</h1>' in html
        and "Only a GM of this campaign may act on characters." in html
    )
    assert 'class="brand"' in html  # the app's header
    missing = sr2_web.gm.get("/characters/999999/")
    assert missing.status_code == 404
    assert '<h1 id="e-h">Not found</h1>' in missing.content.decode()


def test_an_undiagnosed_hit_warns_the_gm_in_a_sentence_and_never_the_player(sr2_web: Web) -> None:
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": WOUND}).status_code == 201
    url = f"/characters/{sr2_web.character_id}/"
    assert (
        "Critical hit 1 to the chest (ribs) is mortal and not diagnosed"
        in sr2_web.gm.get(url).content.decode()
    )
    assert "(ribs) (mortal)" not in sr2_web.gm.get(url).content.decode()
    assert "is mortal and not diagnosed" not in sr2_web.player.get(url).content.decode()


def test_a_critical_hit_left_unchosen_is_refused_in_words(sr2_web: Web) -> None:
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": WOUND}).status_code == 201
    data = {"key": "k", "p_critical_hit": "", "p_medic": "Doc", "p_skill": "3"}
    refused = sr2_web.gm.post(f"/characters/{sr2_web.character_id}/act/treat/", data, HTTP_HX_REQUEST="true")
    assert refused.status_code == 400
    shown = re.search(r'id="err-treat-p_critical_hit" role="alert">([^<]*)</p>', refused.content.decode())
    assert shown is not None and shown.group(1) == "Expected a critical hit: none was chosen"


def test_next_on_the_clock_says_each_timer_in_its_rulesets_words(df_web: Web) -> None:
    """The board's "Next on the clock" and a card's "Next:" say what the timer will do (the ruleset's
    TIMER_WORDS), never its kind ("con recovery")."""
    lost = {"type": "damage", "weapon_damage": 2, "rolls": {"damage": [6], "ko": [1], "stun": [1]}}
    assert df_web.table.act(lost).status_code == 201
    board = df_web.gm.get(f"/campaigns/{df_web.campaign_id}/").content.decode()
    assert (
        '<li><strong>Ash</strong> at 2020-01-08 00:00:00 <span class="muted">(in 1 week):</span> recovers a CON point'
        in board
    )
    assert (
        'On the clock at 2020-01-08 00:00:00 <span class="muted">(in 1 week):</span> recovers a CON point'
        in board
    )
    assert "con recovery" not in board.lower()


def test_next_on_the_clock_names_the_hit_a_death_comes_from(sr2_web: Web) -> None:
    """The same words on the board and in the API's `next[].what`: a Shadowrun death names its hit."""
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": WOUND}).status_code == 201
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert (
        '<strong>Ash</strong> at 2053-01-01 00:30:00 <span class="muted">(in 30 min):</span> bleeds out from '
        "critical hit 1 to the chest (ribs), unless treated</li>" in board
    )
    assert "unless treated at" not in board
    assert ": death at" not in board
    clock = sr2_web.table.gm.get(f"/api/campaigns/{sr2_web.campaign_id}/clock/").json()
    assert [item["what"] for item in clock["next"]] == [
        "next healing roll",
        "bleeds out from critical hit 1 to the chest (ribs), unless treated",
    ]


def test_a_death_that_is_no_bleeding_is_said_as_the_rules_call_it(sr2_web: Web) -> None:
    """Shadowrun's critical hits kill by internal bleeding, a severed artery, suffocation, a heart attack or brain
    death (the table's reasons): only the first two bleed out."""
    heart = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [5], "death_time": [4]}
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": heart}).status_code == 201
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert (
        "Critical hit 1 to the chest (heart), Mortal (heart attack); dies of a heart attack in about 2 min unless "
        "treated." in page
    )
    assert (
        'At 2053-01-01 00:02:00 <span class="muted">(in 2 min):</span> dies of a heart attack from critical hit 1 '
        "to the chest (heart), unless treated</li>" in page
    )
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert (
        'at 2053-01-01 00:02:00 <span class="muted">(in 2 min):</span> dies of a heart attack from critical hit 1 '
        "to the chest (heart), unless treated" in board
    )
    assert "bleeds out" not in page.lower() and "bleeds out" not in board.lower()


def test_a_suffocation_is_said_so(sr2_web: Web) -> None:
    spine = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [3], "death_time": [6]}
    assert sr2_web.table.act({"type": "wound", "severity": "S", "rolls": spine}).status_code == 201
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert "Mortal (suffocation); suffocates in about 6 min unless treated." in page
    assert (
        'At 2053-01-01 00:06:00 <span class="muted">(in 6 min):</span> suffocates from critical hit 1 to the chest '
        "(spine), unless treated</li>" in page
    )


def test_a_finished_treatment_says_on_the_page_that_the_mortal_hit_no_longer_kills(sr2_web: Web) -> None:
    """Issue 42: the history read "Treatment of critical hit 1 done: now crippling, 6 boxes.", neither that the
    hit's death timer stopped nor that Ash no longer dies. The GM reads both; the player that the timer stopped."""
    table = sr2_web.table
    assert (
        table.act({"type": "wound", "severity": "S", "rolls": WOUND}).status_code == 201
    )  # ribs: dies at 00:30
    medic = {"medic": "Doc", "skill": 3, "critical_hit": "ch1"}
    assert table.act({"type": "diagnose", **medic, "rolls": {"diagnosis": [6, 1, 1]}}).status_code == 201
    treated = table.act(
        {"type": "treat", **medic, "rolls": {"treatment": [9, 11, 1]}}
    )  # TN 8, 2 successes: 5 min
    assert treated.status_code == 201, treated.content
    assert table.advance(minutes=5).status_code == 202
    url = f"/characters/{sr2_web.character_id}/"
    said = (
        "Treatment of critical hit 1 to the chest (ribs) done: falls from Mortal to Crippling (6 boxes): its death"
        " timer stops."
    )
    gm = sr2_web.gm.get(url).content.decode()
    assert f"{said} No longer dying." in gm
    player = sr2_web.player.get(url).content.decode()
    assert said in player and "No longer dying" not in player


def test_the_clocks_lists_say_a_treatment_under_way_ends_before_the_death(sr2_web: Web) -> None:
    """Issue 42, RULES.md "Words": "a treatment that will finish before the timer says so". The GM's answer did; the
    clock's lists said only "unless treated" while Doc's treatment would end 25 min before the death. A player reads
    no time of death in Shadowrun, so none of this."""
    table = sr2_web.table
    assert (
        table.act({"type": "wound", "severity": "S", "rolls": WOUND}).status_code == 201
    )  # ribs: dies at 00:30
    medic = {"medic": "Doc", "skill": 3, "critical_hit": "ch1"}
    assert table.act({"type": "diagnose", **medic, "rolls": {"diagnosis": [6, 1, 1]}}).status_code == 201
    treated = table.act(
        {"type": "treat", **medic, "rolls": {"treatment": [9, 11, 1]}}
    )  # TN 8, 2 successes: 5 min
    assert treated.status_code == 201, treated.content
    what = (
        "bleeds out from critical hit 1 to the chest (ribs), unless treated: the treatment under way ends at "
        "2053-01-01 00:05:00, before the death (2053-01-01 00:30:00)"
    )
    line = f'at 2053-01-01 00:30:00 <span class="muted">(in 30 min):</span> {what}'
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert f"On the clock {line}</p>" in board
    assert f"<strong>Ash</strong> {line}</li>" in board
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert f"<li>A{line[1:]}</li>" in page
    clock = table.gm.get(f"/api/campaigns/{sr2_web.campaign_id}/clock/").json()
    assert what in [item["what"] for item in clock["next"]]
    recovery = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/recovery/").content.decode()
    assert "[t=" not in recovery and "[t=" not in board and "[t=" not in page
    for seen in (
        sr2_web.player.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode(),
        sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode(),
    ):
        assert "treatment under way" not in seen and "00:30:00" not in seen


def test_a_treatment_that_ends_as_the_death_comes_is_in_time_everywhere(sr2_web: Web) -> None:
    """Tester's report: Doc's treatment of Ash's Mortal hit ended at 00:30:00, when the death was due, and the chip,
    the GM's answer and the clock's lists said "ends at 2053-01-01 00:30:00, before the death (2053-01-01
    00:30:00)". RULES.md, "Action treat": the patient dies only if death_at comes first, so a tie saves them; the
    words say so, from one place (`rules.words.treatment_in_time`)."""
    table = sr2_web.table
    assert table.act({"type": "wound", "severity": "S", "rolls": WOUND}).status_code == 201  # dies at 00:30
    medic = {"medic": "Doc", "skill": 3, "critical_hit": "ch1"}
    assert table.act({"type": "diagnose", **medic, "rolls": {"diagnosis": [6, 1, 1]}}).status_code == 201
    assert table.advance(seconds=1200).status_code == 202
    treated = table.act({"type": "treat", **medic, "rolls": {"treatment": [9, 1, 1]}})  # 1 success: 10 min
    assert treated.status_code == 201, treated.content
    tie = "the treatment under way ends at 2053-01-01 00:30:00, as the death comes: in time (a tie goes to the treatment)"
    assert treated.json()["said"].endswith(f" T{tie[1:]}.")
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    for html in (board, page):
        assert f"dying: {tie}</span>" in html
        assert f"bleeds out from critical hit 1 to the chest (ribs), unless treated: {tie}" in html
        assert "before the death" not in html
    clock = table.gm.get(f"/api/campaigns/{sr2_web.campaign_id}/clock/").json()
    assert any(item["what"].endswith(tie) for item in clock["next"])
    # Saved: the clock reaches 00:30:00 and Ash lives.
    assert table.advance(seconds=600).status_code == 202
    page = sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert "chip dead" not in page


def test_a_count_of_dice_is_said_in_digits_for_any_pool() -> None:
    """A tester read "five d6, typed as rolled" beside "8 d6 from 1 to 6 each" in one row: words for a count up
    to six, digits past it. Every count is "5d6" now, as the prompt says it ("roll 5d6")."""
    from campaign.services import asked_words, dice_words

    assert dice_words({"count": 8, "sides": 6}) == "8d6 from 1 to 6 each"
    assert dice_words({"count": 1, "sides": 10}) == "1d10 from 1 to 10"
    assert dice_words({"count": 5, "sides": 6, "open_ended": True}, as_rolled=True) == (
        "5d6, typed as rolled, a 6 then the die rolled after it: 6 4"
    )
    need = {"count": 8, "sides": 6, "label": "Physical healing (Body)", "character_name": "Troll Grunt"}
    assert asked_words(need) == "Troll Grunt's physical healing (Body) needs 8d6 from 1 to 6 each"
