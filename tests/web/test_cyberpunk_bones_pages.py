"""Cyberpunk's set_bones and replace_limb on the pages (docs/rules/cyberpunk2020.md, house): the GM's forms, and what
the player's page says of a limb set or replaced."""

from __future__ import annotations

import pytest

from tests.rules.cyberpunk2020.helpers import CRIPPLE_LEFT_LEG, SEVER_RIGHT_ARM
from tests.web.conftest import Web

pytestmark = pytest.mark.django_db


def act(web: Web, body: dict) -> None:
    assert web.table.act(body).status_code == 201


def test_the_gm_sets_bones_and_replaces_a_limb_from_the_forms_and_the_player_reads_it(
    cp2020_web: Web,
) -> None:
    act(cp2020_web, CRIPPLE_LEFT_LEG)
    act(cp2020_web, {"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", "total": 15})
    act(cp2020_web, SEVER_RIGHT_ARM)
    page = f"/characters/{cp2020_web.character_id}/"
    form = cp2020_web.gm.get(f"{page}forms/set_bones/", HTTP_HX_REQUEST="true").content.decode()
    assert 'name="p_limb"' in form and 'name="r_set_bones_0"' in form
    set_bones = cp2020_web.gm.post(
        f"{page}act/set_bones/", {"p_limb": "left_leg", "p_medic": "Doc", "p_total": "15"}
    )
    assert set_bones.status_code == 302
    refused = cp2020_web.gm.post(f"{page}act/replace_limb/", {"p_limb": "right_arm", "p_replacement": " "})
    assert refused.status_code == 400
    assert "This field is required: expected a replacement" in refused.content.decode()
    replaced = cp2020_web.gm.post(
        f"{page}act/replace_limb/", {"p_limb": "right_arm", "p_replacement": "cyberarm"}
    )
    assert replaced.status_code == 302
    mine = cp2020_web.player.get(page).content.decode()
    assert "Left leg crippled (bones set): unusable until they mend." in mine
    assert "Right arm replaced: cyberarm." in mine
    assert "left leg: set bones mend" in mine and "2020-02-12" in mine
