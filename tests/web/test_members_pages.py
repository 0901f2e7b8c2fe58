"""Members on the pages (docs/members.md): the invitee accepts or declines on the home page, the GM removes a
member from the campaign page, a player leaves, and the page says who came and went, in words."""

from __future__ import annotations

import pytest

from campaign.models import Character, Invitation, Membership
from tests.web.conftest import Web

pytestmark = pytest.mark.django_db


def invite(web: Web, username: str, role: str = "player") -> Invitation:
    response = web.gm.post(f"/campaigns/{web.campaign_id}/members/", {"username": username, "role": role})
    assert response.status_code == 302
    return Invitation.objects.get(campaign_id=web.campaign_id, user__username=username, status="pending")


def test_the_invitee_sees_the_invitation_at_home_and_accepts_it(sr2_web: Web) -> None:
    invitation = invite(sr2_web, "stranger")
    home = sr2_web.stranger.get("/").content.decode()
    assert "Seattle 2053" in home and "gm invites you as a player" in home
    assert f'action="/invitations/{invitation.pk}/accept/"' in home
    assert sr2_web.stranger.get(f"/campaigns/{sr2_web.campaign_id}/").status_code == 404
    accepted = sr2_web.stranger.post(f"/invitations/{invitation.pk}/accept/")
    assert accepted.status_code == 302 and accepted["Location"] == f"/campaigns/{sr2_web.campaign_id}/"
    page = sr2_web.stranger.get(accepted["Location"]).content.decode()
    assert "You joined Seattle 2053 as a player." in page
    assert "Leave Seattle 2053" in page
    assert "Invitations" not in sr2_web.stranger.get("/").content.decode()
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert "stranger accepted the invitation and joined as player." in board


def test_a_declined_invitation_sends_the_invitee_home_and_tells_the_gm(sr2_web: Web) -> None:
    invitation = invite(sr2_web, "stranger")
    declined = sr2_web.stranger.post(f"/invitations/{invitation.pk}/decline/")
    assert declined.status_code == 302 and declined["Location"] == "/"
    assert "You declined the invitation to Seattle 2053." in sr2_web.stranger.get("/").content.decode()
    assert not Membership.objects.filter(campaign_id=sr2_web.campaign_id, user__username="stranger").exists()
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert "stranger declined the invitation." in board
    # Nobody else answers it: another user's answer is a 404.
    assert sr2_web.player.post(f"/invitations/{invitation.pk}/accept/").status_code == 404


def test_the_gm_removes_a_player_who_then_sees_nothing_of_the_campaign(sr2_web: Web) -> None:
    character = f"/characters/{sr2_web.character_id}/"
    assert sr2_web.player.get(character).status_code == 200
    removed = sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/members/player/remove/")
    assert removed.status_code == 302
    assert sr2_web.player.get(character).status_code == 404
    assert sr2_web.player.get(f"/campaigns/{sr2_web.campaign_id}/").status_code == 404
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert "You removed player." in board
    assert "gm removed player (player) from the campaign; Ash now played by gm." in board
    assert Character.objects.get(pk=sr2_web.character_id).player.username == "gm"


def test_a_player_leaves_from_the_campaign_page(sr2_web: Web) -> None:
    left = sr2_web.player.post(f"/campaigns/{sr2_web.campaign_id}/members/player/remove/")
    assert left.status_code == 302 and left["Location"] == "/"
    assert "You left Seattle 2053." in sr2_web.player.get("/").content.decode()
    assert sr2_web.player.get(f"/characters/{sr2_web.character_id}/").status_code == 404
    board = sr2_web.gm.get(f"/campaigns/{sr2_web.campaign_id}/").content.decode()
    assert "player (player) left the campaign; Ash now played by gm." in board


def test_the_last_gm_cannot_leave_and_the_page_says_why(sr2_web: Web) -> None:
    assert sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/members/gm2/remove/").status_code == 302
    refused = sr2_web.gm.post(f"/campaigns/{sr2_web.campaign_id}/members/gm/remove/")
    assert refused.status_code == 409
    assert (
        "The user gm is the campaign&#x27;s only GM and cannot leave or be removed"
        in refused.content.decode()
    )
    assert Membership.objects.filter(campaign_id=sr2_web.campaign_id, user__username="gm", role="gm").exists()


def test_a_player_cannot_remove_anyone_else(sr2_web: Web) -> None:
    refused = sr2_web.player.post(f"/campaigns/{sr2_web.campaign_id}/members/gm2/remove/")
    assert refused.status_code == 403
    assert Membership.objects.filter(campaign_id=sr2_web.campaign_id, user__username="gm2").exists()


def test_member_pages_refuse_a_post_with_a_field_they_do_not_have(sr2_web: Web) -> None:
    invitation = invite(sr2_web, "stranger")
    forged = sr2_web.stranger.post(f"/invitations/{invitation.pk}/accept/", {"role": "gm"})
    assert forged.status_code == 302
    assert "role: unknown field" in sr2_web.stranger.get("/").content.decode()
    assert Invitation.objects.get(pk=invitation.pk).status == "pending"
