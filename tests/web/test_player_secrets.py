"""A player's HTML never holds a GM-only value: death_at, timers, GM notes, Body-check dice, undiagnosed hits."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from campaign import presenters
from campaign.models import Campaign
from campaign.web import display
from tests.api.test_shadowrun2 import clock_dice
from tests.conftest import ServerDice
from tests.notify.conftest import EVERY_KIND, add_hook, messages
from tests.rules.shadowrun2.helpers import part_words_in
from tests.web.conftest import Web

GM_NOTE = "The fixer sold Ash out to Lone Star"
# A medic with one die of Biotech finds ch1 with a 6 (it meets any Diagnose TN up to 6).
DIAGNOSE_CH1 = {
    "type": "diagnose",
    "medic": "Doc",
    "skill": 1,
    "critical_hit": "ch1",
    "rolls": {"diagnosis": [6]},
}
LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}


def pages(web: Web) -> list[tuple[str, dict[str, str]]]:
    """Every page a player can open. (The home page lists the rulesets' option defaults, which name the
    lethality categories: it is checked for values, not for those words, in `home_page` below.)"""
    return [
        (f"/campaigns/{web.campaign_id}/", {}),
        (f"/campaigns/{web.campaign_id}/", LIVE),
        (f"/characters/{web.character_id}/", {}),
        (f"/characters/{web.character_id}/", LIVE),
        (f"/characters/{web.character_id}/forecast/", {"HTTP_HX_REQUEST": "true"}),
        # The party's recovery: the player's own lane, with the clock's timers as ticks on its chart.
        (f"/campaigns/{web.campaign_id}/recovery/", {}),
        (f"/campaigns/{web.campaign_id}/recovery/", {"HTTP_HX_REQUEST": "true"}),
    ]


def every_page(client: Client, web: Web) -> str:
    html = []
    for url, headers in pages(web):
        response = client.get(url, **headers)
        assert response.status_code == 200, url
        html.append(response.content.decode())
    return "\n".join(html)


def death_dates(web: Web, death_at: int) -> list[str]:
    campaign = Campaign.objects.get(pk=web.campaign_id)
    iso = presenters.game_date(campaign, death_at)
    return [iso, display.date_text(iso)]


def test_a_player_sees_the_symptom_of_an_undiagnosed_mortal_hit_and_no_gm_only_value(sr2_web: Web) -> None:
    table = sr2_web.table
    wound = table.act(
        {
            "type": "wound",
            "severity": "S",
            "rolls": {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]},
        }
    )
    assert wound.status_code == 201, wound.content
    assert table.act({"type": "note", "text": GM_NOTE}).status_code == 201
    gm_view = table.gm.get(table.character_url()).json()
    death_at = gm_view["death_at"]
    secrets = [
        "ribs",  # the part of the undiagnosed hit
        "mortal",  # its lethality (and the word never appears on a Shadowrun player page otherwise)
        "Mortal",
        "body_check",
        "body check",
        "Body check",
        GM_NOTE,
        "physical_healing_roll",
        "next healing roll",  # the physical damage's timer, in the ruleset's words (a timer is the GM's)
        "death:ch1",
        "TN +4",  # the hit's penalty
        *death_dates(sr2_web, death_at),
        *(timer["due_date"] for timer in gm_view["timers"] if timer["due"] > 0),
    ]

    gm_html = every_page(sr2_web.gm, sr2_web)
    for secret in (
        GM_NOTE,
        "ribs",
        "mortal",
        "next healing roll",
        "TN +4",
        death_dates(sr2_web, death_at)[1],
    ):
        assert secret in gm_html, f"the GM should see {secret!r}: the check below would prove nothing"

    home_page = sr2_web.player.get("/").content.decode()
    for secret in (GM_NOTE, *death_dates(sr2_web, death_at), "ribs"):
        assert secret not in home_page, secret
    player_html = every_page(sr2_web.player, sr2_web)
    assert "A wound in the chest bleeds" in player_html
    for secret in secrets:
        assert secret not in player_html, secret
    assert not re.search(r"\bIB\b", player_html), "the reason of the undiagnosed hit"


def test_a_player_of_a_dying_cyberpunk_character_sees_dying_but_not_when_or_the_notes(
    cp2020_web: Web,
) -> None:
    table = cp2020_web.table
    damage = table.act(
        {"type": "damage", "damage": 30, "rolls": {"location": [2], "stun_save": [9], "death_save": [9]}}
    )
    assert damage.status_code == 201, damage.content
    assert table.act({"type": "note", "text": GM_NOTE}).status_code == 201
    death_at = table.gm.get(table.character_url()).json()["death_at"]
    gm_html = every_page(cp2020_web.gm, cp2020_web)
    assert GM_NOTE in gm_html and death_dates(cp2020_web, death_at)[1] in gm_html
    player_html = every_page(cp2020_web.player, cp2020_web)
    assert "dying" in player_html
    assert "dies unless stabilized" in gm_html  # the GM's recovery chart marks the death
    for secret in (GM_NOTE, "30 s left", "dies unless stabilized", *death_dates(cp2020_web, death_at)):
        assert secret not in player_html, secret


def test_a_dark_future_player_never_sees_the_gm_notes(df_web: Web) -> None:
    table = df_web.table
    assert table.act({"type": "note", "text": GM_NOTE}).status_code == 201
    assert GM_NOTE in every_page(df_web.gm, df_web)
    assert GM_NOTE not in every_page(df_web.player, df_web)


def test_a_player_may_neither_act_nor_travel_in_time(sr2_web: Web) -> None:
    character = sr2_web.character_id
    assert sr2_web.player.get(f"/characters/{character}/?version=0").status_code == 403
    for action in ("wound", "note", "undo"):
        assert sr2_web.player.post(f"/characters/{character}/act/{action}/", {}).status_code == 403
    assert (
        sr2_web.player.post(
            f"/campaigns/{sr2_web.campaign_id}/clock/", {"unit": "hours", "amount": "1"}
        ).status_code
        == 403
    )
    assert (
        sr2_web.player.post(
            f"/campaigns/{sr2_web.campaign_id}/members/", {"username": "stranger"}
        ).status_code
        == 403
    )


def test_outsiders_get_404_and_anonymous_visitors_are_sent_to_log_in(sr2_web: Web) -> None:
    for client in (sr2_web.stranger, sr2_web.other_player):
        assert client.get(f"/campaigns/{sr2_web.campaign_id}/").status_code == 404
        assert client.get(f"/characters/{sr2_web.character_id}/").status_code == 404
        assert (
            client.post(f"/characters/{sr2_web.character_id}/act/note/", {"p_text": "x"}).status_code == 404
        )
    response = sr2_web.anonymous.get(f"/characters/{sr2_web.character_id}/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_a_dead_characters_player_is_not_told_a_hit_needs_treatment_now(sr2_web: Web) -> None:
    """Found walking through the app on a phone: a dead character read "mortal: needs treatment now"."""
    table = sr2_web.table
    lung = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
    assert table.act({"type": "wound", "severity": "S", "rolls": lung}).status_code == 201
    assert table.act(DIAGNOSE_CH1).status_code == 201
    dying = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert "needs treatment now" in dying
    assert table.advance(hours=2).status_code == 202
    dead = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert "dead" in dead and "needs treatment now" not in dead


# What a closed wound shows on each location group (arms and legs: the view puts the side in front).
CLOSED_SYMPTOMS = {
    "chest": "The chest aches deep inside; every breath hurts and comes short.",
    "abdomen": "A sick ache deep in the belly; nauseous, and standing straight hurts.",
    "head": "Dazed; the head rings and pounds and the world will not stay still.",
    "arm": "The arm goes numb, then throbs; it is weak and clumsy and hurts to move.",
    "leg": "The leg goes numb, then throbs; it shakes and will barely take any weight.",
}


# One entry of each table, closed wounds so that every diagnosis takes a roll (6 meets each of these TNs).
@pytest.mark.parametrize(
    ("where", "location", "critical", "part"),
    [
        ("chest", [3, 4], 6, "collarbone"),
        ("abdomen", [2, 3], 3, "diaphragm"),
        ("head", [1, 1], 6, "neck"),
        ("right arm", [1, 3], 2, "upper arm"),
        ("left leg", [5, 6], 3, "knee"),
    ],
)
def test_a_player_reads_the_symptom_of_an_undiagnosed_hit_but_no_part_until_a_medic_finds_it(
    sr2_web: Web, where: str, location: list[int], critical: int, part: str
) -> None:
    table = sr2_web.table
    symptom = CLOSED_SYMPTOMS[where.split()[-1]]
    page_url = f"/characters/{sr2_web.character_id}/"
    rolls = {"body_check": [6, 6, 1, 1, 1], "location": location, "critical": [critical]}
    wound = table.act({"type": "wound", "severity": "S", "open_wound": False, "rolls": rolls})
    assert wound.status_code == 201, wound.content
    assert part in sr2_web.gm.get(page_url).content.decode()  # else the checks below would prove nothing

    api = table.player.get(table.character_url())
    hit = api.json()["sheet"]["critical_hits"][0]
    assert (hit["symptom"], hit["part"]) == (symptom, None)
    assert f"{where}: {symptom}" in api.json()["symptoms"]
    assert part_words_in(api.content.decode()) == []
    page = sr2_web.player.get(page_url).content.decode()
    assert symptom in page
    assert part_words_in(page) == []

    assert table.act(DIAGNOSE_CH1).status_code == 201
    hit = table.player.get(table.character_url()).json()["sheet"]["critical_hits"][0]
    assert (hit["symptom"], hit["part"]) == (symptom, part)
    # The words as read: a part of two words is one span that no line splits ("upper arm", web/monitors.html).
    assert f"· {part}" in re.sub(r"<[^>]+>", "", sr2_web.player.get(page_url).content.decode())


def test_a_diagnosis_taken_back_shows_a_player_only_what_they_may_know_now(sr2_web: Web) -> None:
    """A revert takes the diagnosis back: the hit is undiagnosed again, so its part and lethality are the GM's; the
    player's history (page and API) and feed keep the entry, struck through, without them."""
    table = sr2_web.table
    crippling = {"body_check": [6, 1, 1, 1, 1], "location": [3, 4], "critical": [2]}
    assert table.act({"type": "wound", "severity": "S", "rolls": crippling}).status_code == 201
    before_diagnosis = table.gm.get(table.character_url()).json()["version"]
    diagnose = {
        "type": "diagnose",
        "medic": "Doc",
        "skill": 1,
        "critical_hit": "ch1",
        "rolls": {"diagnosis": [6]},
    }
    assert table.act(diagnose).status_code == 201
    page = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert (
        "Doc diagnosed critical hit 1 to the chest (ribs), crippling." in page
    )  # standing: the player knows
    assert table.act({"type": "revert", "to_version": before_diagnosis}).status_code == 201

    page = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert "Diagnosis by Doc, taken back." in page
    assert "ribs" not in page and "crippling" not in page
    history = table.player.get(f"{table.character_url()}events/").content.decode()
    feed = table.player.get(f"/api/campaigns/{table.campaign['id']}/events/").content.decode()
    for answer in (history, feed):
        assert '"withheld":true' in answer
        assert "ribs" not in answer and "crippling" not in answer
    # The GM still reads what was diagnosed.
    assert "ribs" in sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode()


def test_a_players_diagnosed_mortal_hit_says_mortal_once(sr2_web: Web) -> None:
    """Tester's report, on the player's phone after a diagnosis: "Chest mortal mortal: needs treatment now", the
    lethality chip and the alarm each saying "mortal". RULES.md: the player reads "mortal: needs treatment now"."""
    table = sr2_web.table
    lung = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
    assert table.act({"type": "wound", "severity": "S", "rolls": lung}).status_code == 201
    assert table.act(DIAGNOSE_CH1).status_code == 201
    board = sr2_web.player.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert '<li>Chest: <span class="alarm">mortal: needs treatment now</span></li>' in board
    page = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert '<p class="alarm">mortal: needs treatment now</p>' in page
    assert re.search(
        r"<strong>Chest</strong>\s*· lung · <span class=\"detail\">TN \+4</span>\s*"
        r"<p class=\"alarm\">mortal: needs treatment now</p>",
        page,
    )
    for html in (board, page):
        assert '<span class="chip">mortal</span>' not in html and "mortal mortal" not in html
    # The GM's view has no alarm: its "mortal" is the lethality chip, said once.
    gm_board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert "needs treatment now" not in gm_board
    assert "mortal mortal" not in gm_board


def test_a_mortal_hit_being_treated_reads_being_treated_not_needs_treatment_now(sr2_web: Web) -> None:
    """A tester's Shadowrun night: the player's phone said "Left leg: mortal: needs treatment now" while the same page
    said "treatment of critical hit 1 to the left leg (knee): ... (in 3 min 14 s)". RULES.md: never the time left;
    while a treatment is under way, "mortal: being treated", the GM's chips and warning saying it too."""
    table = sr2_web.table
    lung = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}
    assert table.act({"type": "wound", "severity": "S", "rolls": lung}).status_code == 201
    assert table.act(DIAGNOSE_CH1).status_code == 201
    treat = {
        "type": "treat",
        "critical_hit": "ch1",
        "medic": "Doc",
        "skill": 4,
        "rolls": {"treatment": [8, 8, 1, 1]},
    }
    assert table.act(treat).status_code == 201  # done at 00:05:00; the death at 00:30:00
    board = sr2_web.player.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert '<li>Chest: <span class="alarm">mortal: being treated</span></li>' in board
    page = sr2_web.player.get(f"/characters/{sr2_web.character_id}/").content.decode()
    assert re.search(
        r"<strong>Chest</strong>\s*· lung · <span class=\"detail\">TN \+4</span>\s*"
        r"<p class=\"alarm\">mortal: being treated</p>",
        page,
    )
    assert "chest, lung: mortal: being treated" in page
    assert table.player.get(table.character_url()).json()["warnings"] == [
        "chest, lung: mortal: being treated"
    ]
    for html in (board, page):
        assert "needs treatment now" not in html and "00:30" not in html
    gm_board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert (
        '<li>Chest <span class="chip">mortal</span> <span class="chip">being treated</span></li>' in gm_board
    )
    assert table.gm.get(table.character_url()).json()["warnings"] == [
        "Critical hit 1 to the chest (lung): being treated: the treatment under way ends at 2053-01-01 00:05:00, "
        "before the death (2053-01-01 00:30:00)"
    ]
    gm_page = unescape(sr2_web.gm.get(f"/characters/{sr2_web.character_id}/").content.decode())
    assert "internal bleeding kills at" not in gm_page


# --- every entry that names a hit, as a player reads it ----------------------------------------------------------

# Body 5. A Serious wound, the Body check failed: a 2d6 of 3 + 4 on the chest is the ribs, Mortal (critical 2), dying
# at 00:30. A Moderate wound, 2 successes: the abdomen's spleen (critical 4), Critical.
RIBS = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [2], "death_time": [3]}
SPLEEN = {"body_check": [4, 5, 1, 1, 1], "location": [2, 3], "critical": [4]}
PARTS = ("ribs", "spleen")
# What each entry that holds a hit's id alone says to the player once the hit is diagnosed (RULES.md, "Diagnosis").
NAMED = (
    "Sam failed to treat critical hit 1 to the chest (ribs): 0 successes.",
    "Doc treats critical hit 1 to the chest (ribs): 2 successes; done 2053-01-01 00:05:00.",
    "critical hit 2 to the abdomen (spleen) stays Critical",  # a healing spell's
    "Treatment of critical hit 1 to the chest (ribs) done: falls from Mortal to Crippling (6 boxes): its death "
    "timer stops.",
    "Critical hit 1 to the chest (ribs) accepted: fit for action with it.",
    "Critical hit 1 to the chest (ribs) replaced by cyberware.",
    "Healing roll for critical hit 2 to the abdomen (spleen): heals",
    "Critical hit 2 to the abdomen (spleen) healed.",
)


def _player_reads(web: Web) -> tuple[str, str, str]:
    """The player's character page, its live region, and their API event feed (data, no words) as JSON."""
    url = f"/characters/{web.character_id}/"
    page, live = (unescape(web.player.get(url, **headers).content.decode()) for headers in ({}, LIVE))
    feed = web.table.player.get(f"{web.table.character_url()}events/?limit=500")
    assert feed.status_code == 200
    return page, live, json.dumps(feed.json())


def _told_the_table(since: int = 0) -> str:
    """Every word the table's hook was told (notices and their entries), from the `since`-th message on."""
    return json.dumps(messages("table")[since:])


def test_every_entry_that_names_a_hit_names_its_part_to_a_player_only_once_diagnosed(
    sr2_web: Web, settings: Any, server_dice: ServerDice
) -> None:
    """The treatment started, failed and done, a spell, a hit accepted, replaced, its healing roll and its healing
    name the hit by its place and part on the player's history page, in the live region and in the table's notices,
    once a medic diagnosed it; before, and once the diagnosis is taken back, no page, notice nor the API's event feed
    holds the part (RULES.md, "Diagnosis")."""
    settings.HOOKS_ALLOW_PRIVATE = True
    # The clock's rolls: every die of the spleen's natural healing an 11 (6 then 5), a success against its TN; the
    # physical damage's healing rolls fail.
    clock_dice(server_dice, critical_healing=[11] * 5, physical_healing=[1] * 5)
    table = sr2_web.table
    add_hook(table, "table", events=EVERY_KIND)
    assert table.act({"type": "wound", "severity": "S", "rolls": RIBS}).status_code == 201
    assert table.act({"type": "wound", "severity": "M", "rolls": SPLEEN}).status_code == 201
    undiagnosed = table.gm.get(table.character_url()).json()["version"]
    for said in (*_player_reads(sr2_web), _told_the_table()):
        assert [part for part in PARTS if part in said] == []

    # A die of 6 finds the ribs (TN up to 6); the spleen's TN is above 6, where a 6 rolls again: 6 then 5.
    for hit, die in (("ch1", 6), ("ch2", 11)):
        diagnosed = table.act({**DIAGNOSE_CH1, "critical_hit": hit, "rolls": {"diagnosis": [die]}})
        assert diagnosed.status_code == 201, diagnosed.content
    medic = {"type": "treat", "critical_hit": "ch1", "skill": 3}
    assert table.act({**medic, "medic": "Sam", "rolls": {"treatment": [1, 1, 1]}}).status_code == 201
    assert table.act({**medic, "medic": "Doc", "rolls": {"treatment": [9, 11, 1]}}).status_code == 201
    spell = {"type": "heal_magic", "successes": 1, "mode": "allocate", "allocation": {"ch2": 1}}
    assert table.act(spell).status_code == 201
    assert table.advance(minutes=5).status_code == 202  # the treatment done
    assert table.act({"type": "accept", "critical_hit": "ch1"}).status_code == 201
    replaced = table.act({"type": "replace", "critical_hit": "ch1", "replacement": "cyberware"})
    assert replaced.status_code == 201, replaced.content
    told = len(messages("table"))
    assert table.advance(weeks=20).status_code == 202  # the spleen's healing roll, then its healing
    page, live, feed = _player_reads(sr2_web)
    notices = _told_the_table()
    for sentence in NAMED:
        assert sentence in page and sentence in live, sentence
    for sentence in (
        "Treatment of critical hit 1 to the chest (ribs) done",
        "Critical hit 2 to the abdomen (spleen) healed.",
    ):
        assert sentence in notices, sentence

    # The diagnoses taken back: the hits are undiagnosed again, and nothing the player reads holds their parts.
    assert table.act({"type": "revert", "to_version": undiagnosed}).status_code == 201
    page, live, feed = _player_reads(sr2_web)
    for said in (page, live, feed, _told_the_table(told + 1)):
        assert [part for part in PARTS if part in said] == []
    assert "Treatment of critical hit 1 done, taken back." in page
