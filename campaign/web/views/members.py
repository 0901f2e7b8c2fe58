"""Members and invitations (docs/members.md)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaign import services
from campaign.http import limits
from campaign.models import GM, Invitation
from campaign.selectors import access
from campaign.selectors.campaigns import projected
from campaign.web import display, forms
from campaign.web.views.board import _board_form_response
from campaign.web.views.cache import _limited
from rules.ruleset import RuleError
from rules.text import without_direction_controls


@login_required
@require_POST
def campaign_members(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "add members")
    username = request.POST.get("username", "").strip()
    try:
        forms.check_posted(request.POST, {"username": "username", "role": "role"})
        with limits.invitations(request.user, campaign, username):
            done = services.member_invite(
                campaign=campaign, username=username, role=request.POST.get("role"), by=request.user
            )
    except RuleError as error:
        where = "form" if isinstance(error, limits.LimitReached) else error.field
        response = _board_form_response(
            request,
            campaign,
            role,
            "members",
            {
                "member_errors": {where: error.message},
                "member_username": without_direction_controls(username),
            },
            error.status,
        )
        return _limited(response, error)
    success = _invited_text(done)
    extra = {"member_success": success, "success": success, "players_oob": True}
    return _board_form_response(request, campaign, role, "members", extra, 201)


# --- members and invitations (docs/members.md) ------------------------------------------------------------------


def _invited_text(done: services.Invited) -> str:
    """What the GM is told after adding someone, in words."""
    if done.membership is not None:
        return f"{done.membership.user.get_username()} is now {display.role_words(done.membership.role)}."
    invitation = done.invitation
    name = invitation.user.get_username()
    again = "" if done.created else " (already invited)"
    return (
        f"{name} is invited as {display.role_words(invitation.role)}{again}: a member once they accept it on "
        "their home page."
    )


@login_required
@require_POST
def member_remove(request: HttpRequest, campaign_id: int, username: str) -> HttpResponse:
    """A GM removes a member or withdraws an invitation; anyone leaves with their own name. A member who left is
    sent home (the campaign is no longer theirs to see)."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    try:
        forms.check_posted(request.POST, {})
        kind = services.member_remove(campaign=campaign, username=username, by=request.user, role=role)
    except RuleError as error:
        if role != GM:
            messages.error(request, error.message)
            return redirect("campaign", campaign_id=campaign.pk)
        extra = {"member_errors": {"form": error.message}}
        return _board_form_response(request, campaign, role, "members", extra, error.status)
    if username == request.user.get_username():
        messages.success(request, f"You left {campaign.name}.")
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = reverse("home")
            return response
        return redirect("home")
    campaign = projected(campaign)
    what = "withdrew the invitation of" if kind == "InvitationCancelled" else "removed"
    success = f"You {what} {username}."
    extra = {"member_success": success, "success": success, "players_oob": True}
    return _board_form_response(request, campaign, role, "members", extra, 200)


@login_required
@require_POST
def invitation_answer(request: HttpRequest, invitation_id: int, answer: str) -> HttpResponse:
    """Accept (then the campaign's page) or decline (back home) an invitation from the home page."""
    if answer not in ("accept", "decline"):
        raise Http404
    try:
        forms.check_posted(request.POST, {})
        invitation = services.invitation_answer(
            invitation_id=invitation_id, user=request.user, accept=answer == "accept"
        )
    except Invitation.DoesNotExist:
        raise Http404 from None
    except RuleError as error:
        messages.error(request, error.message)
        return redirect("home")
    if answer == "accept":
        messages.success(
            request, f"You joined {invitation.campaign.name} as {display.role_words(invitation.role)}."
        )
        return redirect("campaign", campaign_id=invitation.campaign_id)
    messages.success(request, f"You declined the invitation to {invitation.campaign.name}.")
    return redirect("home")
