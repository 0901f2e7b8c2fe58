"""Members in the browser (issue 19, docs/members.md): a GM invites, the invitee accepts or declines on the home
page, the GM removes a player who at once sees nothing of the campaign (pages and API alike), and the last GM
cannot leave."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from campaign.models import Membership
from tests.browser.test_scenarios import (
    accept_invitation,
    add_character,
    add_player,
    create_campaign,
    sign_up,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_invitation_accepted_then_declined_and_a_removed_player_loses_access_at_once(
    live_server: Any, browser: Any, screenshot: Any
) -> None:
    base = live_server.url
    gm = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    player = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    sign_up(gm, base, "ivy_gm")
    sign_up(player, base, "jo_player")

    # The GM invites Jo and makes Kit for her; Kit waits for her answer.
    create_campaign(gm, base, "Night City", "cyberpunk2020")
    board = gm.url
    add_player(gm, "jo_player")
    add_character(gm, "Kit", "jo_player", {"body": "6", "luck": "2"})
    character_url = gm.url
    character_id = character_url.rstrip("/").rsplit("/", 1)[1]
    gm.goto(board)
    expect(gm.locator("#live")).to_contain_text(
        "jo_player is invited, not yet accepted: the character waits for them."
    )

    # Jo sees the invitation at home, with Kit waiting, and accepts it.
    player.goto(f"{base}/")
    expect(player.locator("#invitations")).to_contain_text("ivy_gm invites you as a player")
    expect(player.locator("#invitations")).to_contain_text("waiting for you: Kit")
    screenshot(player, "player-invitation-phone")
    accept_invitation(player, base, "Night City")
    expect(player.locator(".messages")).to_contain_text("You joined Night City as a player.")
    player.locator("#live").get_by_role("link", name="Kit").click()
    expect(player.get_by_role("heading", name="Kit", exact=True)).to_be_visible()
    assert player.request.get(f"{base}/api/characters/{character_id}/").status == 200

    # The GM removes Jo: her next request, page or API, is a 404; Kit is the GM's.
    gm.goto(board)
    gm.get_by_role("button", name="Remove jo_player").click()
    expect(gm.locator("#members")).to_contain_text("ivy_gm removed jo_player (player) from the campaign")
    expect(gm.locator("#members")).to_contain_text("Kit now played by ivy_gm")
    expect(gm.locator("#live")).to_contain_text("played by ivy_gm")
    screenshot(gm, "gm-members")
    assert player.request.get(f"{base}/api/characters/{character_id}/").status == 404
    assert player.goto(character_url).status == 404

    # Invited again, Jo declines this time: still no member.
    gm.locator("#m-username").fill("jo_player")
    gm.get_by_role("button", name="Invite").click()
    expect(gm.locator("#members")).to_contain_text("jo_player is invited as a player")
    player.goto(f"{base}/")
    player.locator("#invitations").get_by_role("button", name="Decline").click()
    expect(player.locator(".messages")).to_contain_text("You declined the invitation to Night City.")
    expect(player.locator("#invitations")).to_have_count(0)
    gm.goto(board)
    expect(gm.locator("#members")).to_contain_text("jo_player declined the invitation")
    assert player.request.get(f"{base}/api/characters/{character_id}/").status == 404


def test_the_last_gm_cannot_leave_but_a_player_can(live_server: Any, browser: Any) -> None:
    base = live_server.url
    gm = browser.new_context().new_page()
    player = browser.new_context().new_page()
    sign_up(gm, base, "lu_gm")
    sign_up(player, base, "mo_player")
    create_campaign(gm, base, "Highway 2025", "darkfuture")
    board = gm.url
    add_player(gm, "mo_player")
    accept_invitation(player, base, "Highway 2025")

    gm.goto(board)
    # Leaving asks first: the button opens a confirming form.
    gm.locator("#members summary", has_text="Leave the campaign").click()
    gm.get_by_role("button", name="Yes, leave Highway 2025").click()
    expect(gm.locator("#members .error")).to_contain_text(
        "The user lu_gm is the campaign's only GM and cannot leave"
    )

    player.locator("#leave summary", has_text="Leave Highway 2025").click()
    assert Membership.objects.filter(user__username="mo_player").exists()  # opening it asked, nothing more
    player.get_by_role("button", name="Yes, leave Highway 2025").click()
    expect(player.locator(".messages")).to_contain_text("You left Highway 2025.")
    expect(player.get_by_role("link", name="Highway 2025")).to_have_count(0)
    gm.goto(board)
    expect(gm.locator("#members")).to_contain_text("mo_player (player) left the campaign")
