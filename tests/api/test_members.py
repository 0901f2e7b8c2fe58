"""Members of a campaign through the API (issue 19, docs/members.md): an invitation accepted or declined, a member
removed or leaving, never the last GM, and the characters of who left handed to a GM by an event.

The table (tests/conftest.py) has gm and gm2 (GMs), player (plays Ash), other_player (another campaign's) and
stranger (signed up, in no campaign)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from campaign.models import Character, Event, Invitation, Membership
from tests.conftest import Table

pytestmark = pytest.mark.django_db


def members_url(table: Table, username: str = "") -> str:
    return f"/api/campaigns/{table.campaign['id']}/members/" + (f"{username}/" if username else "")


def invite(table: Table, username: str, role: str = "player") -> Any:
    return table.gm.post(members_url(table), {"username": username, "role": role})


def roles(table: Table) -> dict[str, str]:
    rows = Membership.objects.filter(campaign_id=table.campaign["id"]).select_related("user")
    return {m.user.username: m.role for m in rows}


def campaign_history(table: Table) -> list[tuple[str, dict[str, Any]]]:
    rows = Event.objects.filter(campaign_id=table.campaign["id"], character__isnull=True).order_by("position")
    return [(row.type, row.data) for row in rows if row.type not in ("CampaignCreated", "CharacterCreated")]


# --- invitations ---------------------------------------------------------------------------------------------------


def test_an_invitation_makes_a_member_only_once_accepted(sr2: Table) -> None:
    invited = invite(sr2, "stranger")
    assert invited.status_code == 201
    invitation = invited.json()
    expected = {
        "campaign": {
            "id": sr2.campaign["id"],
            "name": "Seattle 2053",
            "ruleset": "Shadowrun 2nd Edition: Critical Hit System",
        },
        "username": "stranger",
        "role": "player",
        "status": "pending",
        "invited_by": "gm",
        "characters": [],
    }
    assert {key: invitation[key] for key in expected} == expected
    # Not a member yet: the campaign is still a 404 for them, and the invitation is theirs to see.
    assert "stranger" not in roles(sr2)
    assert sr2.stranger.get(f"/api/campaigns/{sr2.campaign['id']}/").status_code == 404
    inbox = sr2.stranger.get("/api/invitations/")
    assert [i["id"] for i in inbox.json()] == [invitation["id"]]
    assert sr2.player.get("/api/invitations/").json() == []
    # Accepted: a member in the role offered, once, whatever the number of answers.
    for _ in range(2):
        accepted = sr2.stranger.post(f"/api/invitations/{invitation['id']}/accept/")
        assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    assert roles(sr2)["stranger"] == "player"
    assert sr2.stranger.get(f"/api/campaigns/{sr2.campaign['id']}/").json()["role"] == "player"
    assert sr2.stranger.get("/api/invitations/").json() == []
    assert campaign_history(sr2)[-2:] == [
        ("MemberInvited", {"username": "stranger", "role": "player"}),
        ("InvitationAccepted", {"username": "stranger", "role": "player"}),
    ]
    # Declining it now is too late: a 409 naming the invitation.
    late = sr2.stranger.post(f"/api/invitations/{invitation['id']}/decline/")
    assert late.status_code == 409
    assert late.json() == {"invitation": ["this invitation was already accepted"]}


def test_a_declined_invitation_makes_no_member_and_its_waiting_character_goes_to_the_gm(sr2: Table) -> None:
    invitation = invite(sr2, "stranger").json()
    # The character may name the invitee: it waits for the answer, unseen by them.
    made = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/",
        {"name": "Zed", "player": "stranger", "attributes": {"body": 4}},
    )
    assert made.status_code == 201 and made.json()["player"] == "stranger"
    assert sr2.stranger.get(f"/api/characters/{made.json()['id']}/").status_code == 404
    assert sr2.stranger.get("/api/invitations/").json()[0]["characters"] == ["Zed"]
    declined = sr2.stranger.post(f"/api/invitations/{invitation['id']}/decline/")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    assert "stranger" not in roles(sr2)
    assert Character.objects.get(pk=made.json()["id"]).player.username == "gm"
    history = sr2.gm.get(f"/api/characters/{made.json()['id']}/events/").json()["events"]
    assert [(e["type"], e["data"]) for e in history[:1]] == [
        ("CharacterChanged", {"changes": {"player": {"old": "stranger", "new": "gm"}}})
    ]
    assert campaign_history(sr2)[-1] == (
        "InvitationDeclined",
        {"username": "stranger", "characters": ["Zed"], "to": "gm"},
    )
    assert sr2.stranger.post(f"/api/invitations/{invitation['id']}/accept/").status_code == 409
    # A new invitation may follow a declined one.
    assert invite(sr2, "stranger").status_code == 201


def test_an_invitation_sent_twice_is_one_invitation(sr2: Table) -> None:
    first = invite(sr2, "stranger")
    again = invite(sr2, "stranger", role="gm")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"] and again.json()["role"] == "gm"
    assert Invitation.objects.filter(campaign_id=sr2.campaign["id"], user__username="stranger").count() == 1
    invited = [data for kind, data in campaign_history(sr2) if kind == "MemberInvited"]
    assert [data["username"] for data in invited].count("stranger") == 1


def test_nobody_answers_an_invitation_that_is_not_theirs(sr2: Table) -> None:
    invitation = invite(sr2, "stranger").json()
    for who in (sr2.player, sr2.gm, sr2.other_player):
        assert who.post(f"/api/invitations/{invitation['id']}/accept/").status_code == 404
        assert who.post(f"/api/invitations/{invitation['id']}/decline/").status_code == 404
    assert sr2.anonymous.post(f"/api/invitations/{invitation['id']}/accept/").status_code == 401
    assert Invitation.objects.get(pk=invitation["id"]).status == "pending"


def test_only_a_gm_invites(sr2: Table) -> None:
    before = Invitation.objects.count(), Event.objects.count()
    refused = sr2.player.post(members_url(sr2), {"username": "stranger", "role": "player"})
    assert refused.status_code == 403
    assert refused.json() == {"detail": "only a GM of this campaign may add members"}
    assert (
        sr2.other_player.post(members_url(sr2), {"username": "stranger", "role": "player"}).status_code == 404
    )
    assert (Invitation.objects.count(), Event.objects.count()) == before


def test_inviting_an_unknown_user_is_a_400_naming_the_field_as_before(sr2: Table) -> None:
    """The same answer the members endpoint and a character's player always gave a GM: the name they typed is
    not a user. It says no more than that (no list, no near names), and nothing is written."""
    before = Invitation.objects.count(), Event.objects.count()
    response = invite(sr2, "nobody")
    assert response.status_code == 400
    assert response.json() == {"username": ["there is no user named nobody"]}
    player = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/",
        {"name": "Z", "player": "nobody", "attributes": {"body": 4}},
    )
    assert player.json() == {"player": ["there is no user named nobody"]}
    assert (Invitation.objects.count(), Event.objects.count()) == before


def test_a_character_s_player_must_be_a_member_or_invited(sr2: Table) -> None:
    response = sr2.gm.post(
        f"/api/campaigns/{sr2.campaign['id']}/characters/",
        {"name": "Zed", "player": "stranger", "attributes": {"body": 4}},
    )
    assert response.status_code == 400
    assert response.json() == {
        "player": [
            "the user stranger is neither a member of this campaign nor invited to it: invite them first (members and "
            "invitations)"
        ]
    }
    assert "stranger" not in roles(sr2)


def test_the_gm_lists_members_and_pending_invitations(sr2: Table) -> None:
    invitation = invite(sr2, "stranger").json()
    assert sr2.gm.get(members_url(sr2)).json() == [
        {"username": "gm", "role": "gm", "status": "member"},
        {"username": "gm2", "role": "gm", "status": "member"},
        {"username": "player", "role": "player", "status": "member"},
        {"username": "stranger", "role": "player", "status": "invited", "invitation": invitation["id"]},
    ]


# --- removing and leaving ------------------------------------------------------------------------------------------


def test_a_removed_player_loses_the_character_at_once_and_it_becomes_the_gms(sr2: Table) -> None:
    assert sr2.player.get(sr2.character_url()).status_code == 200  # cached for the player's role from here on
    removed = sr2.gm.delete(members_url(sr2, "player"))
    assert removed.status_code == 204
    assert sr2.player.get(sr2.character_url()).status_code == 404
    assert sr2.player.get(f"{sr2.character_url()}events/").status_code == 404
    assert sr2.player.get(f"/api/campaigns/{sr2.campaign['id']}/").status_code == 404
    assert "player" not in roles(sr2)
    character = sr2.gm.get(sr2.character_url()).json()
    assert character["player"] == "gm"
    latest = sr2.gm.get(f"{sr2.character_url()}events/").json()["events"][0]
    assert (latest["type"], latest["actor"], latest["data"]) == (
        "CharacterChanged",
        "gm",
        {"changes": {"player": {"old": "player", "new": "gm"}}},
    )
    assert campaign_history(sr2)[-1] == (
        "MemberRemoved",
        {"username": "player", "role": "player", "characters": ["Ash"], "to": "gm"},
    )


def test_a_member_leaves_and_their_character_goes_to_the_first_gm(sr2: Table) -> None:
    gone = sr2.player.delete(members_url(sr2, "player"))
    assert gone.status_code == 204
    assert sr2.player.get(sr2.character_url()).status_code == 404
    assert Character.objects.get(pk=sr2.character["id"]).player.username == "gm"
    assert campaign_history(sr2)[-1] == (
        "MemberLeft",
        {"username": "player", "role": "player", "characters": ["Ash"], "to": "gm"},
    )


def test_a_player_may_remove_nobody_but_themselves(sr2: Table) -> None:
    refused = sr2.player.delete(members_url(sr2, "gm2"))
    assert refused.status_code == 403
    assert refused.json() == {"detail": "only a GM of this campaign may remove other members"}
    assert sr2.other_player.delete(members_url(sr2, "player")).status_code == 404
    assert sr2.stranger.delete(members_url(sr2, "player")).status_code == 404
    assert roles(sr2) == {"gm": "gm", "gm2": "gm", "player": "player"}


def test_the_last_gm_can_neither_leave_nor_be_removed(sr2: Table) -> None:
    assert sr2.gm.delete(members_url(sr2, "gm2")).status_code == 204  # one of two GMs removed
    before = Event.objects.count()
    for who in (sr2.gm,):
        refused = who.delete(members_url(sr2, "gm"))
        assert refused.status_code == 409
        assert refused.json() == {
            "username": [
                "the user gm is the campaign's only GM and cannot leave or be removed: make someone else a GM first, or "
                "nobody could run the campaign"
            ]
        }
    assert roles(sr2) == {"gm": "gm", "player": "player"}
    assert Event.objects.count() == before


def test_a_gm_withdraws_a_pending_invitation(sr2: Table) -> None:
    invitation = invite(sr2, "stranger").json()
    assert sr2.gm.delete(members_url(sr2, "stranger")).status_code == 204
    assert Invitation.objects.get(pk=invitation["id"]).status == "cancelled"
    assert sr2.stranger.get("/api/invitations/").json() == []
    assert sr2.stranger.post(f"/api/invitations/{invitation['id']}/accept/").status_code == 409
    assert campaign_history(sr2)[-1] == (
        "InvitationCancelled",
        {"username": "stranger", "characters": [], "to": "gm"},
    )


def test_removing_someone_who_is_not_a_member_names_the_field(sr2: Table) -> None:
    response = sr2.gm.delete(members_url(sr2, "stranger"))
    assert response.status_code == 400
    assert response.json() == {
        "username": ["the user stranger is not a member of this campaign, nor invited to it"]
    }


def test_a_players_feed_and_pages_never_show_who_came_and_went(sr2: Table) -> None:
    """The history of members is the GMs': a player's campaign feed shows their own characters and the clock."""
    invitation = invite(sr2, "stranger").json()
    assert sr2.stranger.post(f"/api/invitations/{invitation['id']}/decline/").status_code == 200
    gm_feed = sr2.gm.get(f"/api/campaigns/{sr2.campaign['id']}/events/").json()["events"]
    assert "InvitationDeclined" in [e["type"] for e in gm_feed]
    player_feed = sr2.player.get(f"/api/campaigns/{sr2.campaign['id']}/events/").json()["events"]
    membership = {"MemberInvited", "InvitationAccepted", "InvitationDeclined", "MemberRemoved", "MemberLeft"}
    assert not membership & {e["type"] for e in player_feed}
    client = Client()
    client.force_login(sr2.player.user)
    page = client.get(f"/campaigns/{sr2.campaign['id']}/").content.decode()
    assert "Who came and went" not in page and "stranger" not in page
    assert sr2.player.get(members_url(sr2)).status_code == 403
