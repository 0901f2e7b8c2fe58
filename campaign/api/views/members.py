"""The API's members and invitations (docs/members.md)."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import presenters, services
from campaign.api import answers as A
from campaign.api import request_bodies as bodies
from campaign.api.views.common import JSON, _body
from campaign.http import limits
from campaign.models import Invitation
from campaign.selectors import access
from campaign.selectors.campaigns import invitations_to, pending_invitations, waiting_characters
from campaign.selectors.campaigns import members as members_of


@extend_schema(
    methods=["GET"],
    operation_id="campaigns_members_list",
    summary="A campaign's members and pending invitations (GMs)",
    responses=A.responses({200: (A.array(A.ref("Member")), "members, then the people invited")}, 403, 404),
)
@extend_schema(
    methods=["POST"],
    summary="Invite someone, or change a member's role (GMs)",
    request={JSON: bodies.MEMBER_ADD},
    responses=A.responses(
        {
            201: ("Invitation", "the invitation sent"),
            200: A.answer(
                {"oneOf": [A.ref("Member"), A.ref("Invitation")]},
                "a member's new role (a Member), or the invitation already pending (an Invitation)",
                named={
                    "a member's new role": {"username": "kim", "role": "gm", "status": "member"},
                    "the invitation already pending": A.EXAMPLES["Invitation"],
                },
            ),
        },
        400,
        403,
        404,
    ),
    examples=[A.request_example({"username": "kim", "role": "player"})],
)
@api_view(["GET", "POST"])
def members(request: Request, campaign_id: int) -> Response:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if request.method == "GET":
        access.require_gm(role, "see the members")
        return Response(presenters.members_json(members_of(campaign), pending_invitations(campaign)))
    access.require_gm(role, "add members")
    body = _body(request, bodies.MEMBER_ADD)
    with limits.invitations(request.user, campaign, body.get("username")):
        done = services.member_invite(
            campaign=campaign, username=body.get("username"), role=body.get("role"), by=request.user
        )
    if done.membership is not None:  # a member's role changed: nobody is asked
        membership = done.membership
        return Response(
            {"username": membership.user.get_username(), "role": membership.role, "status": "member"}
        )
    return Response(_invitation(done.invitation), status=201 if done.created else 200)


@extend_schema(
    summary="Remove a member or withdraw an invitation (GMs), or leave",
    responses=A.responses({204: OpenApiResponse(description="done (no body)")}, 400, 403, 404, 409),
)
@api_view(["DELETE"])
def member_detail(request: Request, campaign_id: int, username: str) -> Response:
    """A GM removes a member (or withdraws an invitation); a member leaves with their own name. Never the last GM
    (409). The member's characters become a GM's; the campaign's history keeps it."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    services.member_remove(campaign=campaign, username=username, by=request.user, role=role)
    return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(
    operation_id="invitations_list",
    summary="The caller's pending invitations",
    responses=A.responses({200: (A.array(A.ref("Invitation")), "oldest first")}),
)
@api_view(["GET"])
def invitations(request: Request) -> Response:
    """The caller's pending invitations, oldest first."""
    return Response([_invitation(invitation) for invitation in invitations_to(request.user)])


def _invitation(invitation: Invitation) -> dict[str, Any]:
    return presenters.invitation_json(invitation, waiting_characters(invitation))


def _answer(request: Request, invitation_id: int, accept: bool) -> Response:
    try:
        invitation = services.invitation_answer(invitation_id=invitation_id, user=request.user, accept=accept)
    except Invitation.DoesNotExist:
        raise Http404("no such invitation") from None
    return Response(_invitation(invitation))


@extend_schema(
    summary="Accept an invitation",
    request=None,
    responses=A.responses({200: ("Invitation", "the invitation, accepted")}, 404, 409),
)
@api_view(["POST"])
def invitation_accept(request: Request, invitation_id: int) -> Response:
    """Accept: a member of the campaign from now on, in the role offered."""
    return _answer(request, invitation_id, accept=True)


@extend_schema(
    summary="Decline an invitation",
    request=None,
    responses=A.responses({200: ("Invitation", "the invitation, declined")}, 404, 409),
)
@api_view(["POST"])
def invitation_decline(request: Request, invitation_id: int) -> Response:
    """Decline: the characters that waited for the invitee become the inviting GM's."""
    return _answer(request, invitation_id, accept=False)
