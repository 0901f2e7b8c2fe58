"""Cyberpunk's set_bones and replace_limb on the pages (docs/rules/cyberpunk2020.md, house): the GM's forms, and what
the player's page says of a limb set or replaced."""

from __future__ import annotations

import re

import pytest

from campaign.models import Character
from tests.rules.cyberpunk2020.helpers import CRIPPLE_LEFT_LEG, MAKE_DYING, SEVER_RIGHT_ARM
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
    assert re.search(
        r"<li>the left leg&#x27;s set bones mend:\s+2020-02-12 00:00:00 <span class=\"muted\">\(in 6 weeks\)</span></li>",
        mine,
    )


def options(form: str, name: str) -> list[tuple[str, str]]:
    select = re.search(rf'<select[^>]*name="{name}".*?</select>', form, re.S)
    assert select is not None, name
    return re.findall(r'<option value="([^"]+)"[^>]*>([^<]*)</option>', select.group(0))


def test_the_forms_offer_only_the_limbs_and_targets_the_rules_take_now(cp2020_web: Web) -> None:
    """The walkthrough's Set bones listed every limb, then refused "The left arm is not crippled"; its Stabilize
    offered "the dying character" of one who was not dying. Each offers what the decider takes now, and says why a
    crippled limb still bleeding is not offered to Set bones."""
    page = f"/characters/{cp2020_web.character_id}/"

    def form(action: str) -> str:
        return cp2020_web.gm.get(f"{page}forms/{action}/", HTTP_HX_REQUEST="true").content.decode()

    assert options(form("set_bones"), "p_limb") == [] and options(form("stabilize"), "p_target") == []
    act(cp2020_web, CRIPPLE_LEFT_LEG)  # crippled, still bleeding; not dying
    assert Character.objects.get(pk=cp2020_web.character_id).dying is False
    bones = form("set_bones")
    assert options(bones, "p_limb") == []
    assert "The left leg is not offered: it still bleeds; stabilize it first." in bones
    assert options(form("stabilize"), "p_target") == [("limb:left_leg", "left leg (crippled)")]
    act(cp2020_web, MAKE_DYING)
    assert Character.objects.get(pk=cp2020_web.character_id).dying is True
    assert options(form("stabilize"), "p_target") == [
        ("limb:left_leg", "left leg (crippled)"),
        ("dying", "the dying character (medical tech)"),
    ]
    act(cp2020_web, {"type": "stabilize", "target": "limb:left_leg", "skill": "first_aid", "total": 15})
    act(cp2020_web, {"type": "stabilize", "target": "dying", "skill": "medical_tech", "total": 30})
    assert Character.objects.get(pk=cp2020_web.character_id).dying is False
    assert options(form("stabilize"), "p_target") == []  # nothing bleeds, nobody dying
    act(cp2020_web, SEVER_RIGHT_ARM)  # severed: replaced, never set
    assert options(form("set_bones"), "p_limb") == [("left_leg", "left leg (crippled)")]
    act(cp2020_web, {"type": "set_bones", "limb": "left_leg", "medic": "Doc", "total": 15})
    assert options(form("set_bones"), "p_limb") == []  # set already: mending
