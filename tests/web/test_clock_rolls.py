"""The board's prompt of a waiting clock (table dice `all`, docs/clock.md "Table dice"): the saves a round asks of
several characters are one row of inputs, each labelled with the character's name and the roll's in words; a roll
typed wrong is said beside it in words with what was typed kept; "Stop here" ends the advance where it stands."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest

from campaign.models import Campaign, Event, Job
from tests.conftest import make_table
from tests.web.conftest import Web, make_web

pytestmark = pytest.mark.django_db

STUNNED = {"type": "damage", "damage": 4, "location": "torso", "rolls": {"stun_save": [9]}}
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
        ("Ash's stun save (one d10 from 1 to 10)", f"roll:{ash}.stun_save", ""),
        ("Bo's stun save (one d10 from 1 to 10)", f"roll:{bo}.stun_save", ""),
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
        "clock-roll-1": "Ash's stun save needs one d10 from 1 to 10; 11 is not a d10 roll"
    }
    assert 'aria-describedby="clock-roll-1-help clock-roll-1-error"' in prompt
    assert "[" not in prompt and "rolls." not in prompt and "ch1" not in prompt

    refused = web.gm.post(url, {f"roll:{ash}.stun_save": "4", f"roll:{bo}.stun_save": "x"})
    prompt = prompt_of(refused.content.decode())
    assert [value for _, _, value in inputs_of(prompt)] == ["4", "x"]
    assert errors_of(prompt) == {
        "clock-roll-2": "Bo's stun save needs one d10 from 1 to 10; “x” is not a number"
    }

    refused = web.gm.post(url, {f"roll:{ash}.stun_save": "4 5", f"roll:{bo}.stun_save": ""})
    assert errors_of(prompt_of(refused.content.decode())) == {
        "clock-roll-1": "Ash's stun save needs one d10 from 1 to 10; 2 were given (4 and 5)",
        "clock-roll-2": "Bo's stun save needs one d10 from 1 to 10; nothing was typed",
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
    assert table.advance(minutes=1).status_code == 202
    web = make_web(table)
    prompt = prompt_of(web.gm.get(f"/campaigns/{web.campaign_id}/").content.decode())
    ((label, name, _),) = inputs_of(prompt)
    assert label == (
        "Ash's natural healing (Body) (five d6 as totals (a 6 rolls again and adds: 6 then 4 is 10), typed as "
        "rolled: a 6's extra roll after it)"
    )
    assert "when critical hit 1 to the chest heals" in prompt
    refused = web.gm.post(f"/campaigns/{web.campaign_id}/clock/roll/", {name: "6 5 2 3 6"})
    assert errors_of(prompt_of(refused.content.decode())) == {
        "clock-roll-1": "Ash's natural healing (Body) needs five d6 as totals (a 6 rolls again and adds: 6 then 4 "
        "is 10); the last die is a 6: roll it again and type that die too (Rule of Six: a 6 is rolled again and "
        "added)"
    }
    assert web.gm.post(f"/campaigns/{web.campaign_id}/clock/roll/", {name: "6 5 2 3 4 5"}).status_code == 302
    healing = Event.objects.get(campaign_id=web.campaign_id, type="CriticalHealingRolled")
    assert healing.data["dice"] == [11, 2, 3, 4, 5]


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
    assert label == "Ash's death save (one d10 from 1 to 10)"
    assert (
        Job.objects.get(campaign_id=web.campaign_id, status__in=["queued", "running"]).asked[0]["game_time"]
        == 120
    )
