"""Issue 18: a Cyberpunk torso hit colours the body diagram, with the words beside it, for the GM and the player;
the player's history folds a week of the clock's daily healing into one group."""

from __future__ import annotations

import re

import pytest

from tests.web.conftest import Web

pytestmark = pytest.mark.django_db

# Body 6 (BTM -2), no armour: 9 - 2 = 7 points on the torso, the stun save made.
TORSO_HIT = {"type": "damage", "damage": 9, "location": "torso", "rolls": {"stun_save": [1]}}


def region(html: str, name: str) -> str:
    """The severity class of one region of the diagram."""
    found = re.search(rf'class="region (sev-[\w-]+)" data-region="{name}"', html)
    assert found, name
    return found.group(1)


def words(html: str) -> list[str]:
    """The words beside the diagram, one per hurt place."""
    listed = html.split('id="body-words">', 1)[1].split("</ul>", 1)[0]
    return re.findall(r"</span>([^<]+)</li>", listed)


def test_a_torso_hit_colours_chest_and_abdomen_with_words_for_the_gm_and_the_player(cp2020_web: Web) -> None:
    page = f"/characters/{cp2020_web.character_id}/"
    before = cp2020_web.player.get(page).content.decode()
    assert region(before, "chest") == "sev-0"
    assert '<p class="body-words muted" id="body-words">No wounds on the body.</p>' in before
    assert cp2020_web.table.act(TORSO_HIT).status_code == 201
    for client in (cp2020_web.gm, cp2020_web.player):
        html = client.get(page).content.decode()
        assert (region(html, "chest"), region(html, "abdomen")) == ("sev-2", "sev-2")
        assert {
            region(html, name) for name in ("head", "left_arm", "right_arm", "left_leg", "right_leg")
        } == {"sev-0"}
        assert words(html) == ["Torso: badly wounded (7 points)"]
        assert "<title>chest (torso): badly wounded (7 points)</title>" in html
        assert '<li><span class="swatch sev-2"></span>badly wounded (5-12 points)' in html  # the legend


def test_a_leg_and_a_head_hit_are_listed_apart_from_the_torso(cp2020_web: Web) -> None:
    cp2020_web.table.act(TORSO_HIT)
    # A d10 of 8: the left leg; 10 halved to 5, - 2 = 3. Then 4 to the head: 2, doubled: 4.
    leg = {"type": "damage", "damage": 10, "rolls": {"location": [8], "stun_save": [1]}}
    head = {"type": "damage", "damage": 4, "location": "head", "rolls": {"stun_save": [1], "death_save": [1]}}
    assert cp2020_web.table.act(leg).status_code == 201
    assert cp2020_web.table.act(head).status_code == 201
    html = cp2020_web.player.get(f"/characters/{cp2020_web.character_id}/").content.decode()
    assert words(html) == [
        "Head: wounded (4 points)",
        "Torso: badly wounded (7 points)",
        "Left leg: wounded (3 points)",
    ]
    assert (region(html, "head"), region(html, "left_leg"), region(html, "right_leg")) == (
        "sev-1",
        "sev-1",
        "sev-0",
    )


def test_a_week_of_daily_healing_is_one_group_of_the_players_history_and_clears_the_torso(
    cp2020_web: Web,
) -> None:
    cp2020_web.table.act(TORSO_HIT)
    treat = {"type": "treat", "skill": "medical_tech", "total": 15}
    assert cp2020_web.table.act(treat).status_code == 201
    assert cp2020_web.table.advance(days=7).status_code in (200, 201, 202)
    html = cp2020_web.player.get(f"/characters/{cp2020_web.character_id}/").content.decode()
    assert re.search(
        r'<details id="group-\d+"><summary>Clock, 2020-01-01 00:00 to 2020-01-08 00:00: 7 entries: damage healed 7 times<',
        html,
    )
    assert '<p class="body-words muted" id="body-words">No wounds on the body.</p>' in html
    assert region(html, "chest") == "sev-0"
