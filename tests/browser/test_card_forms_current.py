"""A card's form on the board follows its character (docs/web.md, "A card's forms and messages"): one the GM has open
is drawn again once the character changes, whether the change comes from another tab (the board's refresh) or from
another form of the same card (its answer), with what the GM had typed in it, and the message of an earlier answer is
gone with it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.test_board import card, gangers_on_a_phone, open_card_action
from tests.browser.test_scenarios import REFRESH_MS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The left arm crippled (20 points, the sever roll 9 fails to sever), awake and alive.
CRIPPLED = {
    "type": "damage",
    "damage": 20,
    "location": "left_arm",
    "rolls": {"sever": [9], "stun_save": [3], "death_save": [2]},
}


def test_an_open_stabilize_form_offers_the_limb_crippled_since_it_was_drawn(
    live_server: Any, browser: Any
) -> None:
    from campaign import services
    from campaign.models import Character

    context, gm, _ = gangers_on_a_phone(live_server, browser, "gm_current_forms", 2)
    ganger1, ganger2 = (Character.objects.get(name=f"Ganger {n}") for n in (1, 2))
    # The card's Damage rolls the sever check itself: with Luck 2, Body 6 + Luck 2 + any d10 keeps an arm hit for 8.
    services.change_character(character_id=ganger2.pk, actor="gm", changes={"attributes": {"luck": 2}})

    # Another tab cripples Ganger 1 while its Stabilize form is open, the medic's name typed: the refresh draws the
    # form again, and what was typed is still there.
    stabilize = open_card_action(gm, "Ganger 1", "stabilize")
    target = stabilize.locator("select[name=p_target]")
    expect(target).not_to_contain_text("(crippled)")
    stabilize.locator("input[name=p_medic]").fill("Doc Wagner")
    services.character_act(character_id=ganger1.pk, body=CRIPPLED, actor="gm")
    expect(card(gm, "Ganger 1").locator("select[name=p_target]")).to_contain_text(
        "left arm (crippled)", timeout=REFRESH_MS
    )
    expect(card(gm, "Ganger 1").locator("input[name=p_medic]")).to_have_value("Doc Wagner")

    # On Ganger 2, the card's own Damage cripples it while its Stabilize is open: the answer draws it again, and the
    # note's message, said before, is gone.
    note = open_card_action(gm, "Ganger 2", "note")
    note.locator("textarea, input[name=p_text]").first.fill("covers the door")
    note.get_by_role("button", name="GM note").click()
    expect(card(gm, "Ganger 2").locator(".card-said")).to_contain_text("covers the door")
    stabilize = open_card_action(gm, "Ganger 2", "stabilize")
    expect(stabilize.locator("select[name=p_target]")).not_to_contain_text("(crippled)")
    damage = open_card_action(gm, "Ganger 2", "damage")
    damage.get_by_label("Weapon damage rolled").fill("20")
    damage.get_by_label("Aimed at").select_option("left_arm")
    damage.get_by_label("Stun save: what came up on the d10").fill("3")
    damage.get_by_label("Death save: what came up on the d10").fill("2")
    damage.get_by_role("button", name="Damage").click()
    ganger2_card = card(gm, "Ganger 2")
    expect(ganger2_card.locator(".ok")).to_have_count(1, timeout=REFRESH_MS)
    expect(ganger2_card.locator(".card-said")).to_contain_text("Ganger 2: 20 normal damage to the left arm")
    expect(ganger2_card.locator("select[name=p_target]")).to_contain_text(
        "left arm (crippled)", timeout=REFRESH_MS
    )
    assert Character.objects.get(pk=ganger2.pk).version > 1
    context.close()
