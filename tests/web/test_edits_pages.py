"""The pages of characters and campaigns changing in play (issue 19): a character's edit page, retire and
restore, the board's house rules and its retired characters. `df_web`'s Ash: CON 8, a pedestrian, no armour."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from campaign.models import Campaign, Character, Event
from tests.web.conftest import Web, form_inputs

pytestmark = pytest.mark.django_db


def edit_post(web: Web, **values: Any) -> Any:
    data = {
        "name": "Ash",
        "player": "player",
        "a_con": "8",
        "a_skills_name": ["driver", "gunner", ""],
        "a_skills_amount": ["3", "4", ""],
        "a_move": "0",
    }
    data.update({"a_armour": "0", "a_pedestrian": "on", **values})
    data = {key: value for key, value in data.items() if value is not None}
    return web.gm.post(reverse("character-edit", args=[web.character_id]), data)


def test_the_edit_page_shows_the_attributes_that_may_change_filled_in(df_web: Web) -> None:
    page = df_web.gm.get(reverse("character-edit", args=[df_web.character_id])).content.decode()
    assert 'name="a_armour"' in page and 'name="a_skills_name"' in page and 'name="a_pedestrian"' in page
    assert 'name="a_con"' not in page  # the initial CON never changes
    # the skills as rows of a name and a level, filled in, then three empty rows to add to them
    names = re.findall(r'name="a_skills_name" value="([^"]*)"', page)
    levels = re.findall(r'name="a_skills_amount" type="number" inputmode="numeric" value="([^"]*)"', page)
    assert (names, levels) == (["driver", "gunner", "", "", ""], ["3", "4", "", "", ""])
    assert "{" not in re.sub(r"<[^>]*>", "", page.split("<main", 1)[1])
    assert '<option value="player" selected>player</option>' in page
    assert "Retire Ash" in page
    assert df_web.player.get(reverse("character-edit", args=[df_web.character_id])).status_code == 403
    assert df_web.stranger.get(reverse("character-edit", args=[df_web.character_id])).status_code == 404


def test_the_edit_page_has_one_heading_naming_the_character(df_web: Web) -> None:
    page = df_web.gm.get(reverse("character-edit", args=[df_web.character_id])).content.decode()
    headings = re.findall(r"<h[1-6][^>]*>([^<]*)</h[1-6]>", page)
    assert headings.count("Edit Ash") == 1, headings
    assert '<h1 id="edit-h">Edit Ash</h1>' in page and 'aria-labelledby="edit-h"' in page
    refused = edit_post(df_web, a_armour="-2")  # a refused edit is the same page
    assert re.findall(r"<h[1-6][^>]*>([^<]*)</h[1-6]>", refused.content.decode()).count("Edit Ash") == 1


def test_an_edit_is_saved_and_said_in_the_games_words(df_web: Web) -> None:
    response = edit_post(
        df_web,
        a_armour="2",
        a_skills_name=["driver", "", ""],  # gunner's row emptied: the skill is dropped
        a_skills_amount=["3", "", ""],
        a_pedestrian=None,
        a_driver="on",
    )
    assert response.status_code == 302
    page = df_web.gm.get(response["Location"]).content.decode()
    assert (
        "Saved: skills from driver 3, gunner 4 to driver 3; armour from 0 to 2; pedestrian from yes to no; "
        "driver from no to yes." in page
    )
    state = Character.objects.get(pk=df_web.character_id).state
    assert (state["attributes"]["armour"], list(state["skills"])) == (2, ["driver"])
    # The history tells it the same way, never as JSON.
    assert "armour</dt>" in page or "armour" in page
    assert "{&quot;old&quot;" not in page


def test_a_bad_edit_shows_the_error_at_its_field_and_writes_nothing(df_web: Web) -> None:
    events = Event.objects.count()
    response = edit_post(df_web, a_armour="-2")
    assert response.status_code == 400
    assert "Expected a whole number of at least 0, got -2" in response.content.decode()
    assert Event.objects.count() == events


def test_retire_and_restore_from_the_pages(df_web: Web) -> None:
    board = reverse("campaign", args=[df_web.campaign_id])
    response = df_web.gm.post(reverse("character-retire", args=[df_web.character_id]))
    assert response["Location"] == board
    page = df_web.gm.get(board).content.decode()
    assert "Ash is retired: out of the board and the lists, history kept." in page
    assert "Restore Ash" in page
    assert "Ash</a>" in page.split('id="retired-h"')[1]  # only among the retired
    card = f'id="card-{df_web.character_id}-name"'
    assert card not in page
    assert "Ash" not in df_web.player.get(board).content.decode()
    character_page = df_web.gm.get(reverse("character", args=[df_web.character_id])).content.decode()
    assert "Retired: out of the board and the lists" in character_page
    assert df_web.player.post(reverse("character-restore", args=[df_web.character_id])).status_code == 403
    df_web.gm.post(reverse("character-restore", args=[df_web.character_id]))
    assert card in df_web.gm.get(board).content.decode()


def test_the_board_shows_the_house_rules_and_a_gm_changes_them(df_web: Web) -> None:
    board = reverse("campaign", args=[df_web.campaign_id])
    page = df_web.gm.get(board).content.decode()
    assert 'name="o_con_recovery_days" type="number" inputmode="numeric" min="0" value="1"' in page  # 1 week
    assert "How long until a KO from a roll wears off by itself" in page
    options = form_inputs(page, reverse("campaign-options", args=[df_web.campaign_id]))
    response = df_web.gm.post(
        reverse("campaign-options", args=[df_web.campaign_id]),
        {**options, "name": "Seattle 2054", "o_con_recovery_days": "3", "o_con_recovery_days__unit": "days"},
    )
    assert response.status_code == 302
    campaign = Campaign.objects.get(pk=df_web.campaign_id)
    assert (campaign.name, campaign.options["con_recovery_days"]) == ("Seattle 2054", 3)
    assert Event.objects.filter(type="CampaignChanged").count() == 1
    page = df_web.gm.get(board).content.decode()  # the board after the save
    options = form_inputs(page, reverse("campaign-options", args=[df_web.campaign_id]))
    bad = df_web.gm.post(
        reverse("campaign-options", args=[df_web.campaign_id]),
        {**options, "name": "Seattle", "o_con_recovery_days": "0", "o_con_recovery_days__unit": "days"},
    )
    assert bad.status_code == 400
    assert "Expected a whole number of at least 1, got 0" in bad.content.decode()
    assert Event.objects.filter(type="CampaignChanged").count() == 1
    assert (
        df_web.player.post(reverse("campaign-options", args=[df_web.campaign_id]), options).status_code == 403
    )
    assert 'name="o_con_recovery_days"' not in df_web.player.get(board).content.decode()


def test_a_change_of_player_is_said_as_a_person_says_it(df_web: Web) -> None:
    page = reverse("character", args=[df_web.character_id])
    assert edit_post(df_web, player="").status_code == 302
    saved = df_web.gm.get(page).content.decode()
    assert "Saved: Ash now has no player." in saved
    assert "Changed: the character now has no player." in saved  # the history entry, on the character's page
    assert edit_post(df_web, player="player", name="Asha").status_code == 302
    saved = df_web.gm.get(reverse("character", args=[df_web.character_id])).content.decode()
    assert "Saved: name from Ash to Asha; player now plays Asha." in saved
    assert "from none" not in saved and "to none" not in saved
