"""A tester's Shadowrun night (table dice "all"): "+10 min" in a fight, waiting for the rests' healing rolls, left the
board reading "Combat turn 201". An advance of the fight's idle span or more is past any fight: the fight is over
as soon as it is asked, under way, waiting for the table, stopped part-way or done (docs/clock.md, "The fight's
rounds")."""

from __future__ import annotations

import re
from typing import Any

import pytest

from campaign.models import Campaign
from tests.conftest import make_table
from tests.web.conftest import Web, make_web

pytestmark = pytest.mark.django_db

OVER = "The fight is over: an advance of 10 min began at 2053-01-01 00:00:03, after its last combat action."
ENDED = "The fight ended by itself at 2053-01-01 00:10:00, 10 min after its last combat action."


def light(body: int) -> dict[str, Any]:
    """A Light wound, no critical hit (a Body check of `body` dice): its healing roll waits for the rest."""
    return {"type": "wound", "severity": "L", "rolls": {"body_check": [2] * body}}


def fight_of(html: str) -> str:
    """The fight's counter, in words."""
    shown = html[html.index('<div class="fight" id="fight">') :]
    shown = shown[: shown.index("<form")] if "<form" in shown[:2000] else shown[: shown.index("</div>")]
    return " ".join(re.sub(r"<[^>]+>", " ", shown).split())


def wounded_in_a_fight(django_user_model: Any, options: dict[str, Any] | None = None) -> tuple[Web, int]:
    """Ash (Body 5) and Ganger 1 (Body 4) wounded at 00:00:00 in the fight the GM started then; the clock at
    00:00:03, combat turn 2."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all", **(options or {})})
    web = make_web(table)
    campaign = web.campaign_id
    assert web.gm.post(f"/campaigns/{campaign}/fight/", {"at": "0"}).status_code == 302
    ganger = table.gm.post(
        f"/api/campaigns/{campaign}/characters/", {"name": "Ganger 1", "attributes": {"body": 4}}
    ).json()
    for character, body in ((table.character["id"], 5), (ganger["id"], 4)):
        assert table.gm.post(f"/api/characters/{character}/actions/", light(body)).status_code == 201
    clock = f"/campaigns/{campaign}/clock/"
    assert web.gm.post(clock, {"unit": "rounds", "amount": "1", "key": "t2"}).status_code == 302
    assert "Combat turn 2 " in fight_of(web.gm.get(f"/campaigns/{campaign}/").content.decode())
    return web, ganger["id"]


def test_ten_minutes_asked_in_a_fight_end_it_while_the_clock_waits_for_the_table(
    django_user_model: Any,
) -> None:
    web, ganger = wounded_in_a_fight(django_user_model)
    board = f"/campaigns/{web.campaign_id}/"
    assert web.gm.post(f"{board}clock/", {"unit": "minutes", "amount": "10", "key": "m10"}).status_code == 302
    html = web.gm.get(board).content.decode()
    assert 'id="clock-roll"' in html  # the rests' healing rolls, at 00:10:00
    assert fight_of(html) == OVER
    assert 'id="round-number"' not in html and "End the fight" not in html
    # The player's phone: the same words (an advance is no secret; Ash's wound is theirs).
    assert fight_of(web.player.get(board).content.decode()) == OVER
    # The rolls given: the clock is at 00:10:03, past the fight's idle span: issue 42's sentence.
    given = web.gm.post(
        f"{board}clock/roll/",
        {
            f"roll:{web.character_id}.physical_healing": "1 1 1 1 1",
            f"roll:{ganger}.physical_healing": "1 1 1 1",
        },
    )
    assert given.status_code == 302, given.content.decode()[:2000]
    assert Campaign.objects.get(pk=web.campaign_id).game_time == 603
    assert fight_of(web.gm.get(board).content.decode()) == ENDED


def test_an_advance_stopped_part_way_leaves_the_fight_over_and_a_later_action_starts_turn_1(
    django_user_model: Any,
) -> None:
    """Ash wounded at 00:00:00, Ganger 1 at 00:00:03: "+10 min" at 00:00:06 asks Ash's roll at 00:10:00, then
    Ganger 1's at 00:10:03, where the GM stops it. The clock stays at 00:10:00, short of the fight's idle span
    after its last combat action (00:10:03): the fight is over all the same."""
    table = make_table(django_user_model, "shadowrun2", {"body": 5}, {"table_dice": "all"})
    web = make_web(table)
    board = f"/campaigns/{web.campaign_id}/"
    assert web.gm.post(f"{board}fight/", {"at": "0"}).status_code == 302
    ganger = table.gm.post(
        f"/api/campaigns/{web.campaign_id}/characters/", {"name": "Ganger 1", "attributes": {"body": 4}}
    ).json()["id"]
    assert table.act(light(5)).status_code == 201
    for key in ("t2", "t3"):
        assert web.gm.post(f"{board}clock/", {"unit": "rounds", "amount": "1", "key": key}).status_code == 302
        if key == "t2":
            assert table.gm.post(f"/api/characters/{ganger}/actions/", light(4)).status_code == 201
    assert web.gm.post(f"{board}clock/", {"unit": "minutes", "amount": "10", "key": "m10"}).status_code == 302
    given = web.gm.post(f"{board}clock/roll/", {f"roll:{web.character_id}.physical_healing": "1 1 1 1 1"})
    assert given.status_code == 302
    html = web.gm.get(board).content.decode()
    assert "Ganger 1&#x27;s physical healing" in html
    job = re.search(r'name="job" value="([^"]+)"', html).group(1)
    assert web.gm.post(f"{board}clock/stop/", {"job": job}).status_code == 302
    assert Campaign.objects.get(pk=web.campaign_id).game_time == 600
    html = web.gm.get(board).content.decode()
    over = (
        "The fight is over: an advance of 10 min began at 2053-01-01 00:00:06, after its last combat action."
    )
    assert fight_of(html) == over and 'id="round-number"' not in html  # it read "Combat turn 201"
    # An action now begins a new fight at its own second, combat turn 1 (never turn 201 of the old one).
    assert table.act(light(5)).status_code == 201
    html = web.gm.get(board).content.decode()
    assert 'Combat turn <strong id="round-number">1</strong>' in html
    assert "of the fight started 2053-01-01 00:10:00 (just now)" in html


def test_an_advance_shorter_than_the_idle_span_or_a_taken_back_one_leaves_the_fight_going_on(
    django_user_model: Any,
) -> None:
    web, ganger = wounded_in_a_fight(django_user_model)
    board = f"/campaigns/{web.campaign_id}/"
    # "+10 combat turns" (30 s): still the fight.
    assert web.gm.post(f"{board}clock/", {"unit": "turns", "amount": "1", "key": "t30"}).status_code == 302
    assert 'Combat turn <strong id="round-number">12</strong>' in web.gm.get(board).content.decode()
    # "+10 min", given its rolls, then taken back: the clock is back at 00:00:33 and the fight with it.
    assert web.gm.post(f"{board}clock/", {"unit": "minutes", "amount": "10", "key": "m10"}).status_code == 302
    rolls = {
        f"roll:{web.character_id}.physical_healing": "1 1 1 1 1",
        f"roll:{ganger}.physical_healing": "1 1 1 1",
    }
    assert web.gm.post(f"{board}clock/roll/", rolls).status_code == 302
    assert 'id="round-number"' not in web.gm.get(board).content.decode()
    assert web.gm.post(f"{board}clock/rewind/", {}).status_code == 302
    assert Campaign.objects.get(pk=web.campaign_id).game_time == 33
    assert 'Combat turn <strong id="round-number">12</strong>' in web.gm.get(board).content.decode()


def test_with_the_fight_left_to_the_gm_a_long_advance_ends_nothing(django_user_model: Any) -> None:
    web, _ = wounded_in_a_fight(django_user_model, {"fight_idle_minutes": 0})
    board = f"/campaigns/{web.campaign_id}/"
    assert web.gm.post(f"{board}clock/", {"unit": "minutes", "amount": "10", "key": "m10"}).status_code == 302
    assert 'id="round-number"' in web.gm.get(board).content.decode()
