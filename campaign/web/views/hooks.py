"""The GM's notifications page, `/campaigns/<id>/notifications/` (docs/web.md, "Notifications"): the campaign's
hooks in words, a form that adds one, and per hook a test message and its removal. Each view checks access (a
player is refused with 403, anyone else finds nothing: 404), calls one service or selector, and renders; with htmx
a form's answer is the hooks' section alone, without it a redirect to the page with a message, or the page again
with the error beside its field."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from campaign import services
from campaign.models import Campaign, Hook
from campaign.notify import outbox
from campaign.selectors import access, notifications
from campaign.web import forms
from campaign.web import hooks as shown
from campaign.web.views.cache import _with_keyed_forms
from rules.ruleset import RuleError

WHAT = "see or change where the campaign's notifications go"
NO_HOOK = "no such hook"


def _gm_campaign(request: HttpRequest, campaign_id: int) -> Campaign:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, WHAT)
    return campaign


def _answer(
    request: HttpRequest, campaign: Campaign, extra: dict[str, Any], status: int = 200
) -> HttpResponse:
    """The page, or with htmx its hooks' section, drawn from the hooks as they are now."""
    context = {
        "campaign": campaign,
        "hooks": shown.hooks_shown(notifications.hooks(campaign)),
        "form": shown.form_context(extra.pop("posted", None)),
        "errors": {},
        **extra,
    }
    template = "campaign_notifications.html#hooks" if request.htmx else "campaign_notifications.html"
    # Never stored: an answer may hold a signed webhook's secret, shown this once.
    return _with_keyed_forms(render(request, template, context, status=status))


def _done(
    request: HttpRequest, campaign: Campaign, success: str, extra: dict[str, Any], status: int
) -> HttpResponse:
    if request.htmx or extra.get("secret"):
        return _answer(request, campaign, {"success": success, **extra}, status)
    messages.success(request, success)
    return redirect("campaign-hooks", campaign_id=campaign.pk)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_hooks(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The page (GET); a new hook (POST), checked by the service the API calls."""
    campaign = _gm_campaign(request, campaign_id)
    if request.method == "GET":
        return _answer(request, campaign, {})
    try:
        forms.check_posted(request.POST, shown.INPUTS)
        hook = services.hook_create(
            campaign=campaign,
            kind=request.POST.get("kind"),
            url=request.POST.get("url"),
            audience=request.POST.get("audience"),
            events=request.POST.getlist("events"),
            actor=request.user.get_username(),
        )
    except RuleError as error:
        extra = {"errors": shown.placed_error(error), "posted": forms.echoed(request.POST)}
        return _answer(request, campaign, extra, error.status)
    kind = shown.KIND_WORDS[hook.kind][0]
    success = f"Added: the {kind} at {outbox.host_of(hook.url)} is told from now on."
    return _done(request, campaign, success, {"secret": hook.secret, "added": hook.pk}, 201)


@login_required
@require_POST
def hook_test(request: HttpRequest, campaign_id: int, hook_id: int) -> HttpResponse:
    """A test message to one hook, through the outbox: sent once the answer is given."""
    campaign = _gm_campaign(request, campaign_id)
    try:
        forms.check_posted(request.POST, {})
        delivery = services.hook_test(campaign=campaign, hook_id=hook_id)
    except Hook.DoesNotExist:
        raise Http404(NO_HOOK) from None
    except RuleError as error:
        return _answer(request, campaign, {"errors": {"form": error.message}}, error.status)
    success = (
        f"A test message is on its way to {outbox.host_of(delivery.hook.url)}: this page says when it arrived, or "
        "what went wrong, in a moment."
    )
    return _done(request, campaign, success, {"tested": hook_id}, 202)


@login_required
@require_POST
def hook_remove(request: HttpRequest, campaign_id: int, hook_id: int) -> HttpResponse:
    campaign = _gm_campaign(request, campaign_id)
    try:
        forms.check_posted(request.POST, {})
        hook = services.hook_delete(campaign=campaign, hook_id=hook_id, actor=request.user.get_username())
    except Hook.DoesNotExist:
        raise Http404(NO_HOOK) from None
    except RuleError as error:
        return _answer(request, campaign, {"errors": {"form": error.message}}, error.status)
    success = (
        f"Removed: the {shown.KIND_WORDS[hook.kind][0]} at {outbox.host_of(hook.url)} is told nothing more."
    )
    return _done(request, campaign, success, {}, 200)
