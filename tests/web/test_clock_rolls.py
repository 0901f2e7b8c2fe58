"""The board's prompt of a waiting clock (table dice `all`, docs/clock.md "Table dice"): the saves a round asks of
several characters are one row of inputs, each labelled with the character's name and the roll's in words; a roll
typed wrong is said beside it in words with what was typed kept; "Stop here" ends the advance where it stands."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest

from campaign.models import Campaign, Character, Event, Job
from tests.conftest import make_table
from tests.rules.cyberpunk2020.helpers import MAKE_DYING
from tests.web.conftest import Web, make_web

pytestmark = pytest.mark.django_db

STUNNED = {"type": "damage", "damage": 4, "location": "torso", "rolls": {"stun_save": [9]}}
# Two Light wounds, a Critical hit each (to the chest, the lung; to the left arm): both hits' natural healing rolls
# wait for the rest, 10 min after the latest wound, the same second (tests/clock/test_table_dice_clock.py).
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
CRIPPLED_LEG = {
    "type": "damage",
    "damage": 20,
    "rolls": {"location": [7], "sever": [5], "stun_save": [3], "death_save": [4]},
}


def stunned_pair(django_user_model: Any) -> tuple[Web, int, int]:
    """Ash and Bo, stunned at 00:00:00, and an advance of one round waiting for both stun saves."""
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"table_dice": "all"})
    bo = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/",
        {"name": "Bo", "attributes": {"body": 6, "luck": 2}},
    ).json()
    for character in (table.character["id"], bo["id"]):
        assert table.gm.post(f"/api/characters/{character}/actions/", STUNNED).status_code == 201
    assert table.advance(rounds=1).status_code == 202
    return make_web(table), table.character["id"], bo["id"]


def prompt_of(html: str) -> str:
    """The clock's prompt of the page, from its start to the end of its region."""
    start = html.find('<div class="job waiting card" id="clock-roll"')
    assert start >= 0, "no clock prompt on the board"
    depth, at = 0, start
    for tag in re.finditer(r"<(/?)div\b", html[start:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            at = start + tag.end()
            break
    return html[start:at]


def inputs_of(prompt: str) -> list[tuple[str, str, str]]:
    """Each roll of the row: its label's words, its input's name and value."""
    rows = []
    for label_for, label in re.findall(r'<label for="(clock-roll-\d+)">(.*?)</label>', prompt, re.S):
        tag = re.search(rf'<input id="{label_for}"[^>]*>', prompt).group(0)
        name = re.search(r'name="([^"]*)"', tag).group(1)
        value = re.search(r'value="([^"]*)"', tag).group(1)
        rows.append((unescape(re.sub(r"<[^>]+>", "", label)), name, unescape(value)))
    return rows


def errors_of(prompt: str) -> dict[str, str]:
    return {
        id_: unescape(text)
        for id_, text in re.findall(
            r'<p class="error" id="(clock-roll-\d+)-error" role="alert">(.*?)</p>', prompt
        )
    }


def test_the_saves_of_a_round_are_one_row_each_labelled_with_the_character_and_the_roll(
    django_user_model: Any,
) -> None:
    web, ash, bo = stunned_pair(django_user_model)
    prompt = prompt_of(web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode())
    assert "The clock waits for 2 rolls" in prompt
    assert inputs_of(prompt) == [
        ("Ash's stun save: 1d10 from 1 to 10", f"roll:{ash}.stun_save", ""),
        ("Bo's stun save: 1d10 from 1 to 10", f"roll:{bo}.stun_save", ""),
    ]
    assert "Stop here: the clock stays at 00:00:00" in prompt
    assert "Give the rolls" in prompt
    # A player's board shows nothing of it.
    assert "clock-roll" not in web.player.get(f"/campaigns/{web.campaign_id}/").content.decode()

    given = web.gm.post(
        f"/campaigns/{web.campaign_id}/clock/roll/",
        {f"roll:{ash}.stun_save": "2", f"roll:{bo}.stun_save": " 9 "},
    )
    assert given.status_code == 302
    saves = Event.objects.filter(campaign_id=web.campaign_id, type="StunSaveRolled", actor="clock")
    assert sorted((row.character_id, row.data["roll"], row.data["success"]) for row in saves) == [
        (ash, 2, True),
        (bo, 9, False),
    ]
    assert Job.objects.get(campaign_id=web.campaign_id).status == Job.DONE


def test_a_roll_typed_wrong_is_said_beside_it_in_words_and_the_row_keeps_what_was_typed(
    django_user_model: Any,
) -> None:
    web, ash, bo = stunned_pair(django_user_model)
    url = f"/campaigns/{web.campaign_id}/clock/roll/"
    refused = web.gm.post(url, {f"roll:{ash}.stun_save": "11", f"roll:{bo}.stun_save": "3"})
    assert refused.status_code == 400
    prompt = prompt_of(refused.content.decode())
    assert [value for _, _, value in inputs_of(prompt)] == ["11", "3"]
    assert errors_of(prompt) == {
        "clock-roll-1": "Ash's stun save needs 1d10 from 1 to 10; 11 is not a d10 roll"
    }
    assert 'aria-describedby="clock-roll-1-help clock-roll-1-error"' in prompt
    assert "[" not in prompt and "rolls." not in prompt and "ch1" not in prompt

    refused = web.gm.post(url, {f"roll:{ash}.stun_save": "4", f"roll:{bo}.stun_save": "x"})
    prompt = prompt_of(refused.content.decode())
    assert [value for _, _, value in inputs_of(prompt)] == ["4", "x"]
    assert errors_of(prompt) == {"clock-roll-2": "Bo's stun save needs 1d10 from 1 to 10; x is not a number"}

    refused = web.gm.post(url, {f"roll:{ash}.stun_save": "4 5", f"roll:{bo}.stun_save": ""})
    assert errors_of(prompt_of(refused.content.decode())) == {
        "clock-roll-1": "Ash's stun save needs 1d10 from 1 to 10; 2 were given (4 and 5)",
        "clock-roll-2": "Bo's stun save needs 1d10 from 1 to 10; nothing was typed",
    }
    # Nothing was given meanwhile: the clock waits for the same two rolls.
    job = Job.objects.get(campaign_id=web.campaign_id)
    assert [need["key"] for need in job.asked] == [f"{ash}.stun_save", f"{bo}.stun_save"]
    assert not Event.objects.filter(campaign_id=web.campaign_id, actor="clock").exists()


def test_a_pool_with_the_rule_of_six_is_typed_as_rolled(db: None, django_user_model: Any) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    critical = {
        "type": "wound",
        "severity": "S",
        "rolls": {"body_check": [6, 6, 1, 1, 1], "location": [3, 4], "critical": [1]},
    }
    assert table.act(critical).status_code == 201
    assert table.advance(minutes=11).status_code == 202
    web = make_web(table)
    prompt = prompt_of(web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode())
    # The physical damage's healing roll falls at the same second: asked in the same row (issue 42).
    (label, name, _), (physical_label, physical, _) = inputs_of(prompt)
    assert label == (
        "Ash's natural healing (Body) for critical hit 1 to the chest (lung): 5d6, typed as rolled, a 6 then "
        "the die rolled after it: 6 4"
    )
    # Side by side, the two pools say their count the same way, with one pair of parentheses at most.
    assert physical_label == (
        "Ash's physical healing (Body): 5d6, typed as rolled, a 6 then the die rolled after it: 6 4"
    )
    assert "when critical hit 1 to the chest heals" in prompt
    refused = web.gm.post(
        f"/campaigns/{web.campaign_id}/clock/roll/", {name: "6 5 2 3 6", physical: "1 1 1 1 1"}
    )
    assert errors_of(prompt_of(refused.content.decode())) == {
        "clock-roll-1": "Ash's natural healing (Body) for critical hit 1 to the chest (lung) needs 5d6, typed as "
        "rolled, a 6 then the die rolled "
        "after it: 6 4; the last die is a 6: roll it again and type that die too (Rule of Six: a 6 is rolled again and "
        "added)"
    }
    given = {name: "6 5 2 3 4 5", physical: "1 1 1 1 1"}
    assert web.gm.post(f"/campaigns/{web.campaign_id}/clock/roll/", given).status_code == 302
    healing = Event.objects.get(campaign_id=web.campaign_id, type="CriticalHealingRolled")
    assert healing.data["dice"] == [11, 2, 3, 4, 5]


def test_one_characters_two_rolls_of_one_name_are_two_boxes_of_the_row_each_labelled_with_its_hit(
    db: None, django_user_model: Any
) -> None:
    """Ash's two critical hits each roll natural healing when the rest begins, at the same second: two boxes of one
    row, each labelled with its hit in words; a roll typed wrong is said beside its own box, everything typed kept;
    one post gives both, and the clock fires both at that second with exactly those dice. Posted again (a double
    click), nothing is written twice."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    for wound in TWO_CRITICAL_HITS:
        assert table.act(wound).status_code == 201
    assert table.advance(minutes=11).status_code == 202
    web = make_web(table)
    ash = table.character["id"]
    board = f"/campaigns/{web.campaign_id}/"
    prompt = prompt_of(web.gm.get(board).content.decode())
    assert "The clock waits for 3 rolls" in prompt
    as_rolled = "5d6, typed as rolled, a 6 then the die rolled after it: 6 4"
    assert [(label, name) for label, name, _ in inputs_of(prompt)] == [
        (
            f"Ash's natural healing (Body) for critical hit 1 to the chest (lung): {as_rolled}",
            f"roll:{ash}.critical_healing:ch1",
        ),
        (
            f"Ash's natural healing (Body) for critical hit 2 to the left arm (upper arm): {as_rolled}",
            f"roll:{ash}.critical_healing:ch2",
        ),
        # The Light physical damage's target is under 6: no Rule of Six.
        ("Ash's physical healing (Body): 5d6 from 1 to 6 each", f"roll:{ash}.physical_healing"),
    ]
    # The hits in words; their ids only in the names the boxes post under, the rolls' keys, never read.
    assert "ch1" not in re.sub(r'name="roll:[^"]*"', "", prompt)

    typed = {
        f"roll:{ash}.critical_healing:ch1": "6 5 2 3 4 5",
        f"roll:{ash}.critical_healing:ch2": "1 1 1 1",
        f"roll:{ash}.physical_healing": "2 2 2 2 2",
    }
    refused = web.gm.post(f"{board}clock/roll/", typed)
    assert refused.status_code == 400
    prompt = prompt_of(refused.content.decode())
    assert [value for _, _, value in inputs_of(prompt)] == ["6 5 2 3 4 5", "1 1 1 1", "2 2 2 2 2"]
    assert errors_of(prompt) == {
        "clock-roll-2": "Ash's natural healing (Body) for critical hit 2 to the left arm (upper arm) needs 5d6, "
        "typed as rolled, a 6 then the die rolled after it: 6 4; 4 dice were read: 1, 1, 1 and 1"
    }
    assert not Event.objects.filter(campaign_id=web.campaign_id, actor="clock").exists()

    given = {**typed, f"roll:{ash}.critical_healing:ch2": "1 1 1 1 1", "key": "both-hits"}
    assert web.gm.post(f"{board}clock/roll/", given).status_code == 302
    rolled = Event.objects.filter(campaign_id=web.campaign_id, actor="clock").order_by("position")
    assert [(row.type, row.game_time, row.data.get("critical_hit"), row.data["dice"]) for row in rolled] == [
        ("CriticalHealingRolled", 600, "ch1", [11, 2, 3, 4, 5]),
        ("CriticalHealingRolled", 600, "ch2", [1, 1, 1, 1, 1]),
        ("PhysicalHealingRolled", 600, None, [2, 2, 2, 2, 2]),
    ]
    assert Job.objects.get(campaign_id=web.campaign_id).status == Job.DONE

    # The same post again (a double click): taken as the first, nothing written twice.
    count = Event.objects.filter(campaign_id=web.campaign_id).count()
    again = web.gm.post(f"{board}clock/roll/", given, HTTP_HX_REQUEST="true")
    assert again.status_code == 200
    assert 'id="clock-roll"' not in again.content.decode() and 'role="alert"' not in again.content.decode()
    assert web.gm.post(f"{board}clock/roll/", given).status_code == 302
    assert Event.objects.filter(campaign_id=web.campaign_id).count() == count


def test_stop_here_names_the_day_when_the_advance_crossed_midnight(db: None, django_user_model: Any) -> None:
    """An advance begun at 23:59:00 whose saves were given past midnight: "00:00:30" alone would read as the
    morning it began, so the button names the date."""
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"table_dice": "all"})
    assert table.advance(minutes=23 * 60 + 59).status_code == 202
    assert table.act(CRIPPLED_LEG).status_code == 201
    assert table.advance(minutes=10).status_code == 202
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    ((_, name, _),) = inputs_of(prompt_of(web.gm.get(board).content.decode()))
    assert "Stop here: the clock stays at 23:59:00" in prompt_of(web.gm.get(board).content.decode())
    for _ in range(3):
        ((_, name, _),) = inputs_of(prompt_of(web.gm.get(board).content.decode()))
        assert web.gm.post(f"{board}clock/roll/", {name: "3"}).status_code == 302
    assert "Stop here: the clock stays at 2020-01-02 00:00:30" in prompt_of(
        web.gm.get(board).content.decode()
    )


def test_stop_here_ends_the_advance_where_it_stands_and_the_gm_acts_then_advances_again(
    db: None, django_user_model: Any
) -> None:
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"table_dice": "all"})
    assert table.act(CRIPPLED_LEG).status_code == 201
    assert table.advance(minutes=10).status_code == 202
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    for _ in range(3):
        ((_, name, _),) = inputs_of(prompt_of(web.gm.get(board).content.decode()))
        assert web.gm.post(f"{board}clock/roll/", {name: "3"}).status_code == 302
    prompt = prompt_of(web.gm.get(board).content.decode())
    assert "Stop here: the clock stays at 00:01:30" in prompt

    job = Job.objects.get(campaign_id=web.campaign_id)
    assert f'<input type="hidden" name="job" value="{job.pk}">' in prompt
    stopped = web.gm.post(f"{board}clock/stop/", {"job": str(job.pk)}, HTTP_HX_REQUEST="true")
    assert stopped.status_code == 200
    html = stopped.content.decode()
    assert 'id="clock-roll"' not in html
    assert 'Game time: <strong id="game-date">2020-01-01 00:01:30</strong>' in html
    assert Campaign.objects.get(pk=web.campaign_id).game_time == 90
    assert Job.objects.get(campaign_id=web.campaign_id).status == Job.DONE
    # Stopped twice (a second click): the same stop, nothing more written.
    count = Event.objects.filter(campaign_id=web.campaign_id).count()
    again = web.gm.post(f"{board}clock/stop/", {"job": str(job.pk)})
    assert again.status_code == 302
    assert Event.objects.filter(campaign_id=web.campaign_id).count() == count
    # A job that is not this campaign's, or none: refused in words.
    refused = web.gm.post(f"{board}clock/stop/", {"job": "not a job"})
    assert refused.status_code == 409
    assert "This advance is not waiting for a roll" in refused.content.decode()

    # The GM acts at 00:01:30, then the clock goes on from there.
    assert table.act({"type": "note", "text": "a tourniquet"}).status_code == 201
    assert table.advance(turns=1).status_code == 202
    ((label, _, _),) = inputs_of(prompt_of(web.gm.get(board).content.decode()))
    assert label == "Ash's death save: 1d10 from 1 to 10"
    assert (
        Job.objects.get(campaign_id=web.campaign_id, status__in=["queued", "running"]).asked[0]["game_time"]
        == 120
    )


LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live"}


def clock_panel(html: str) -> str:
    """The clock's panel (`#clock-form`), its forms' one-use keys and CSRF token left out (each answer has its own)."""
    start = html.index('<section id="clock-form"')
    panel = html[start : html.index("</section>", start)]
    return re.sub(r'name="(key|csrfmiddlewaretoken)" value="[^"]*"', r'name="\1"', panel)


def test_an_advance_waiting_for_the_table_leaves_no_running_message_once_it_has_ended(
    db: None, django_user_model: Any
) -> None:
    """The clock's panel answers a button with itself; with table dice the advance waits for a roll and ends later,
    stopped or rolled out, by answers that redraw the live region alone: whatever the panel said of the running
    advance would stay there. The panel reads as a fresh load's; the live region says the advance while it runs."""
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"table_dice": "all"})
    assert table.act(CRIPPLED_LEG).status_code == 201
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    pressed = web.gm.post(
        f"{board}clock/", {"unit": "minutes", "amount": "10", "key": "k-10"}, HTTP_HX_REQUEST="true"
    )
    assert pressed.status_code == 200
    assert "the clock is running" not in pressed.content.decode()
    assert clock_panel(pressed.content.decode()) == clock_panel(web.gm.get(board).content.decode())

    job = Job.objects.get(campaign_id=web.campaign_id)
    stopped = web.gm.post(f"{board}clock/stop/", {"job": str(job.pk)}, HTTP_HX_REQUEST="true")
    assert stopped.status_code == 200 and "the clock is running" not in stopped.content.decode()
    assert "the clock is running" not in web.gm.get(board).content.decode()


def test_the_live_region_says_an_advance_while_the_worker_runs_it(sr2_web: Web) -> None:
    """An advance handed to a worker: the board's live region says what is advancing until the job ends."""
    job = Job.objects.create(
        campaign_id=sr2_web.campaign_id,
        from_time=0,
        to_time=600,
        reached=150,
        status=Job.RUNNING,
        progress=0.25,
    )
    live = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/", **LIVE).content.decode()
    assert '<label for="job-progress">Advancing 10 min: the clock is running.</label>' in live
    job.status = Job.DONE
    job.save()
    live = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/", **LIVE).content.decode()
    assert "job-progress" not in live and "the clock is running" not in live


# --- a death waits for the GM's yes (docs/clock.md) ---------------------------------------------------------------

# Body 5, a Serious wound, no success: a Mortal hit to the chest's spine, suffocation in 3 minutes.
SPINE_IN_3_MIN = {
    "type": "wound",
    "severity": "S",
    "rolls": {"body_check": [1] * 5, "location": [3, 4], "critical": [3], "death_time": [3]},
}


def test_the_prompt_before_a_cyberpunk_death_says_unless_stabilized_once(
    db: None, django_user_model: Any
) -> None:
    """Walkthrough (issue 42): the prompt before a dying character's death read "dies unless stabilized, unless
    stabilized": the timer's words name the stop already, and the prompt said it again."""
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6})
    assert table.act(MAKE_DYING).status_code == 201  # a failed death save: dead at the end of the turn (30 s)
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    pressed = web.gm.post(
        f"{board}clock/", {"unit": "minutes", "amount": "1", "key": "k1"}, HTTP_HX_REQUEST="true"
    )
    assert pressed.status_code == 200
    prompt = unescape(re.sub(r"\s+", " ", prompt_of(web.gm.get(board).content.decode())))
    assert (
        "On the clock: dies unless stabilized. The clock waits before the death: stop here to act, or let it "
        "happen." in prompt
    )
    assert prompt.count("unless") == 1


def test_the_prompt_before_a_shadowrun_overflow_death_names_first_aid_once(
    db: None, django_user_model: Any
) -> None:
    """Issue 42: the overflow's timer words named no stop (the card read "bleeds into another overflow box") while
    the prompt added ", unless stabilized by first aid". The words name it now, and the prompt still says it once."""
    table = make_table(django_user_model, "shadowrun2", {"body": 3})
    # A Deadly wound, three successes on the Body check (no critical hit): one overflow box every 10 min, dead at
    # the fourth (over Body 3), at 00:40:00.
    deadly = {"type": "wound", "severity": "D", "rolls": {"body_check": [10] * 3}}
    assert table.act(deadly).status_code == 201
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    pressed = web.gm.post(
        f"{board}clock/", {"unit": "minutes", "amount": "60", "key": "k1"}, HTTP_HX_REQUEST="true"
    )
    assert pressed.status_code == 200
    prompt = unescape(re.sub(r"\s+", " ", prompt_of(web.gm.get(board).content.decode())))
    assert '<h3 id="clock-roll-h">Ash dies at 2053-01-01 00:40:00</h3>' in prompt
    assert (
        "On the clock: bleeds into another overflow box, unless stabilized by first aid. The clock waits before "
        "the death: stop here to act, or let it happen." in prompt
    )
    assert prompt.count("unless") == 1


def test_the_boards_advance_asks_before_a_death_and_the_gm_lets_it_happen_or_stops(
    db: None, django_user_model: Any
) -> None:
    """The issue's "+10 min" killed a dying character with no prompt: the board's advance waits before the death,
    says whose, when and what kills, and offers the stop (the clock stays where it stands) and the yes."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5})  # the server rolls the clock's dice
    assert table.act(SPINE_IN_3_MIN).status_code == 201
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    pressed = web.gm.post(
        f"{board}clock/", {"unit": "minutes", "amount": "10", "key": "k1"}, HTTP_HX_REQUEST="true"
    )
    assert pressed.status_code == 200 and pressed["HX-Trigger"] == "refresh"
    prompt = unescape(re.sub(r"\s+", " ", prompt_of(web.gm.get(board).content.decode())))
    assert '<h3 id="clock-roll-h">Ash dies at 2053-01-01 00:03:00</h3>' in prompt
    assert (
        "On the clock: suffocates from critical hit 1 to the chest (spine), unless treated. The clock waits before "
        "the death: stop here to act, or let it happen." in prompt
    )
    assert (
        prompt.count("unless") == 1
    )  # the timer's words name the stop (issue 42): the prompt does not again
    assert "Stop here: the clock stays at 00:00:00" in prompt and "Go on: Ash dies" in prompt
    assert Event.objects.filter(type="DeathOccurred").count() == 0
    # The player's board shows nothing of it.
    assert "dies at" not in web.player.get(board).content.decode()

    job = Job.objects.get(campaign_id=web.campaign_id)
    went_on = web.gm.post(f"{board}clock/go-on/", {"job": str(job.pk), "key": "yes-1"}, **LIVE)
    assert went_on.status_code == 200
    html = went_on.content.decode()
    assert (
        'id="clock-roll"' not in html
        and '<span class="chip dead">dead: died at 2053-01-01 00:03:00</span>' in html
    )
    assert 'Game time: <strong id="game-date">2053-01-01 00:10:00</strong>' in html
    (died,) = Event.objects.filter(type="DeathOccurred")
    assert died.game_time == 180
    # A second click of the same yes writes nothing more; a yes with no death waiting is refused in words.
    count = Event.objects.count()
    assert web.gm.post(f"{board}clock/go-on/", {"job": str(job.pk), "key": "yes-1"}).status_code == 302
    assert Event.objects.count() == count
    refused = web.gm.post(f"{board}clock/go-on/", {"job": str(job.pk), "key": "yes-2"})
    assert refused.status_code == 409
    assert "This advance is not waiting before a death" in refused.content.decode()


def test_stopping_before_a_death_leaves_the_clock_where_it_stands(db: None, django_user_model: Any) -> None:
    table = make_table(django_user_model, "shadowrun2", {"body": 5})
    assert table.act(SPINE_IN_3_MIN).status_code == 201
    assert table.advance(seconds=60).status_code == 202  # to 00:01:00, asking nothing (the API's default)
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    # "+1 hour" from the board: every advance of the board asks.
    web.gm.post(f"{board}clock/", {"unit": "hours", "amount": "1", "key": "k1"})
    job = Job.objects.get(campaign_id=web.campaign_id, status__in=["queued", "running"])
    assert job.asks_before_death and job.needs_yes["game_time"] == 180
    stopped = web.gm.post(f"{board}clock/stop/", {"job": str(job.pk)}, **LIVE)
    html = stopped.content.decode()
    assert 'id="clock-roll"' not in html and '<span class="chip dead">' not in html
    assert 'Game time: <strong id="game-date">2053-01-01 00:01:00</strong>' in html
    assert not Event.objects.filter(type="DeathOccurred").exists()
    # The answer says what the stop did: the walkthrough's board closed the prompt saying nothing.
    assert (
        '<p class="ok" id="clock-said" role="status">Stopped at 00:01:00, where the advance began (nothing of it '
        "had fired): Ash is still dying; act, then advance again to go on.</p>" in html
    )
    # The next drawing of the region (its refresh) says it no more.
    assert "Stopped at" not in web.gm.get(board, HTTP_HX_REQUEST="true").content.decode()


def test_a_roll_the_player_sees_changes_their_live_region_though_no_card_changes(
    db: None, django_user_model: Any
) -> None:
    """The night's phone kept the party's forecast from before a healing roll: the clock, waiting at 00:10:00 for the
    GM, made Ash's roll at that second, which changes no card nor the date. The player's region names the entries
    their history shows, so its ETag changes and the party's section is fetched again."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    critical = {
        "type": "wound",
        "severity": "S",
        "rolls": {"body_check": [6, 6, 1, 1, 1], "location": [3, 4], "critical": [1]},
    }
    assert table.act(critical).status_code == 201  # Ash's two healing rolls wait for the rest: 00:10:00
    bex = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/characters/", {"name": "Bex", "attributes": {"body": 5}}
    ).json()["id"]
    table.advance(seconds=6)
    stun = {"type": "wound", "severity": "L", "damage": "stun"}
    assert table.gm.post(f"/api/characters/{bex}/actions/", stun).status_code == 201  # Bex's roll: 00:10:06
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    assert table.advance(minutes=11).status_code == 202
    job = Job.objects.get(campaign_id=web.campaign_id, status__in=["queued", "running"])
    assert table.gm.post(f"/api/jobs/{job.pk}/rolls/", {"critical_healing": [1] * 5}).status_code == 200
    before = web.player.get(board, **LIVE)
    assert 'Game time: <strong id="game-date">2053-01-01 00:10:00</strong>' in before.content.decode()
    assert table.gm.post(f"/api/jobs/{job.pk}/rolls/", {"physical_healing": [1] * 5}).status_code == 200
    job.refresh_from_db()
    assert (job.reached, job.needs_roll["name"]) == (600, "stun_recovery")  # Bex's, at 00:10:06
    poll = {**LIVE, "HTTP_HX_TRIGGER": "live", "HTTP_IF_NONE_MATCH": before["ETag"]}
    after = web.player.get(board, **poll)
    assert after.status_code == 200 and after["HX-Trigger"] == "changed"  # not a 304
    assert after["ETag"] != before["ETag"]
    assert 'Game time: <strong id="game-date">2053-01-01 00:10:00</strong>' in after.content.decode()
    ash = table.character["id"]
    seen = Character.objects.get(pk=ash).player_version
    assert f'data-seen="{ash}.{seen}"' in after.content.decode()
    assert f'data-seen="{ash}.{seen - 1}"' in before.content.decode()


@pytest.mark.parametrize("headers", [{}, LIVE], ids=["page", "htmx"])
def test_a_roll_refused_for_its_text_is_the_same_prompt_with_the_error_beside_it(
    django_user_model: Any, headers: dict[str, str]
) -> None:
    """The walkthrough's wrong die: a roll whose text cannot be stored (a NUL a phone's keyboard slipped in) was
    refused under the prompt, and the prompt was drawn afresh: both rows empty. It is the same prompt, both rows
    with their labels and what was typed, the error beside the roll it is about."""
    web, ash, bo = stunned_pair(django_user_model)
    url = f"/campaigns/{web.campaign_id}/clock/roll/"
    refused = web.gm.post(url, {f"roll:{ash}.stun_save": "4", f"roll:{bo}.stun_save": "3\x00"}, **headers)
    assert refused.status_code == (400 if not headers else 200)
    prompt = prompt_of(refused.content.decode())
    assert inputs_of(prompt) == [
        ("Ash's stun save: 1d10 from 1 to 10", f"roll:{ash}.stun_save", "4"),
        ("Bo's stun save: 1d10 from 1 to 10", f"roll:{bo}.stun_save", "3\x00"),
    ]
    assert errors_of(prompt) == {
        "clock-roll-2": "Bo's stun save needs 1d10 from 1 to 10; the text contains a NUL character (\\u0000), "
        "which cannot be stored"
    }
    assert 'id="clock-roll-error"' not in refused.content.decode()
    assert "Stop here: the clock stays at 00:00:00" in prompt
    assert not Event.objects.filter(campaign_id=web.campaign_id, actor="clock").exists()

    # A field the form has not: said under the row, which keeps what was typed.
    refused = web.gm.post(
        url, {f"roll:{ash}.stun_save": "4", f"roll:{bo}.stun_save": "3", "extra": "1"}, **headers
    )
    prompt = prompt_of(refused.content.decode())
    assert [value for _, _, value in inputs_of(prompt)] == ["4", "3"]
    assert errors_of(prompt) == {}
    assert re.findall(r'<p class="error" id="clock-roll-error" role="alert">([^<]*)</p>', prompt) == [
        f"Extra: unknown field; expected one of ask, key, roll:{ash}.stun_save, roll:{bo}.stun_save"
    ]


def stop_words(prompt: str) -> tuple[str, str]:
    """The prompt's "Stop here" button and the words under it that say why the clock stays there."""
    button = re.search(
        r'<button type="submit" aria-describedby="clock-stays">([^<]*)</button>', prompt
    ).group(1)
    why = re.search(r'<span class="help" id="clock-stays">([^<]*)</span>', prompt).group(1)
    return unescape(button), unescape(why)


def test_stop_here_keeps_the_last_second_fired_and_says_so_when_that_is_the_start(
    db: None, django_user_model: Any
) -> None:
    """The walkthrough's "the clock went back to where the advance began": a stop leaves the clock at the last
    second the advance fired before the roll it waits at; that is the advance's start only when nothing of it has
    fired yet, which the prompt now says in words (docs/clock.md, "Stopping at a roll")."""
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"table_dice": "all"})
    assert table.act(CRIPPLED_LEG).status_code == 201  # a death save every turn: 00:00:30, 00:01:00, ...
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    pressed = web.gm.post(f"{board}clock/", {"unit": "minutes", "amount": "10", "key": "k-10"}, **LIVE)
    assert pressed.status_code == 200
    prompt = prompt_of(web.gm.get(board, **LIVE).content.decode())
    assert stop_words(prompt) == (
        "Stop here: the clock stays at 00:00:00",
        "Where this advance began: nothing of it has fired before Ash's death save at 00:00:30; then act, and "
        "advance again to go on",
    )
    # Two saves given from the board (3: each succeeds): the advance fires 00:00:30 and 00:01:00, then asks again.
    for _ in range(2):
        ((_, name, _),) = inputs_of(prompt)
        given = web.gm.post(f"{board}clock/roll/", {name: "3"}, **LIVE)
        assert given.status_code == 200
        prompt = prompt_of(given.content.decode())
    assert stop_words(prompt) == (
        "Stop here: the clock stays at 00:01:00",
        "The last second this advance fired before Ash's death save at 00:01:30; then act, and advance again to "
        "go on",
    )
    job = Job.objects.get(campaign_id=web.campaign_id)
    assert (job.from_time, job.reached) == (0, 60)

    stopped = web.gm.post(f"{board}clock/stop/", {"job": str(job.pk)}, **LIVE)
    assert 'Game time: <strong id="game-date">2020-01-01 00:01:00</strong>' in stopped.content.decode()
    assert Campaign.objects.get(pk=web.campaign_id).game_time == 60
    saves = Event.objects.filter(campaign_id=web.campaign_id, type="DeathSaveRolled", actor="clock")
    assert [(row.game_time, row.data["roll"]) for row in saves.order_by("position")] == [(30, 3), (60, 3)]
    (closed,) = Event.objects.filter(campaign_id=web.campaign_id, type="ClockAdvanced")
    assert (closed.data["from"], closed.data["to"], closed.game_time) == (0, 60, 60)
    answer = web.table.gm.get(f"/api/jobs/{job.pk}/").json()
    assert (answer["status"], answer["reached"]) == ("done", 60)
    assert answer["message"] == "stopped at 2020-01-01 00:01:00: the GM stopped it at Ash's death save"
    # The save asked is not made: it is due at its own second.
    assert (
        "<strong>Ash</strong>: " in stopped.content.decode()
        and "at 2020-01-01 00:01:30" in stopped.content.decode()
    )

    # An advance stopped before it fired anything stays at its start, and the answer says why.
    web.gm.post(f"{board}clock/", {"unit": "minutes", "amount": "10", "key": "k-10b"})
    job = Job.objects.get(campaign_id=web.campaign_id, status__in=["queued", "running"])
    assert job.asked[0]["game_time"] == 90
    page = web.gm.post(f"{board}clock/stop/", {"job": str(job.pk)}, follow=True).content.decode()
    assert (
        "Stopped at 00:01:00, where the advance began (nothing of it had fired); act, then advance again to go "
        "on." in unescape(page)
    )
    assert Campaign.objects.get(pk=web.campaign_id).game_time == 60


def test_an_action_refused_while_the_clock_waits_for_a_roll_names_stop_here(
    db: None, django_user_model: Any
) -> None:
    """A tester acting while the clock waited for a roll read "give it on the board, or let the server roll the rest
    of the advance": nothing said how to act first. The refusal names the board's "Stop here" (the API's job stop),
    on the web as in the API."""
    table = make_table(django_user_model, "cyberpunk2020", {"body": 6, "luck": 2}, {"table_dice": "all"})
    assert table.act(CRIPPLED_LEG).status_code == 201
    assert table.advance(turns=1).status_code == 202
    web = make_web(table)
    refused = web.gm.post(
        f"/characters/{web.character_id}/act/note/",
        {"key": "k-1", "p_text": "a tourniquet"},
        HTTP_HX_REQUEST="true",
    )
    assert refused.status_code == 409
    assert (
        'the game clock waits for a roll: Ash\'s death save (1d10); give it on the board, press "Stop here" there '
        "(the job's stop in the API) to act first, or let the server roll the rest of the advance"
    ) in unescape(refused.content.decode())


def test_stop_here_dates_both_times_when_the_roll_waits_days_after_the_advance_began(
    db: None, django_user_model: Any
) -> None:
    """A tester's Shadowrun night: "Stop here: the clock stays at 18:10:00 Where this advance began: nothing of it
    has fired before Ash's physical healing (Body) at 17:20:00", the roll waiting three days after the advance
    began. Two times of one line on different days say their dates, as the roll's own prompt does."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    moderate = {"type": "wound", "severity": "M", "rolls": {"body_check": [4, 4, 4, 1, 1]}}
    assert table.act(moderate).status_code == 201  # 3 boxes, no critical hit; the healing roll at 00:10:00
    job = table.advance(minutes=18 * 60 + 10).json()
    # No success: the roll comes again 10 days later (2053-01-11 00:10:00), nothing fired before it.
    given = table.gm.post(f"/api/jobs/{job['job']}/rolls/", {"physical_healing": [1, 1, 1, 1, 1]})
    assert given.json()["status"] == "done", given.content
    assert table.advance(days=14).status_code == 202  # from 2053-01-01 18:10:00
    web = make_web(table)
    prompt = prompt_of(web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode())
    assert "2053-01-11 00:10:00: " in prompt  # the roll's own prompt
    assert stop_words(prompt) == (
        "Stop here: the clock stays at 2053-01-01 18:10:00",
        "Where this advance began: nothing of it has fired before Ash's physical healing (Body) at 2053-01-11 "
        "00:10:00; then act, and advance again to go on",
    )
