"""The game clock from the board: an advance, taking it back, the table's roll."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from campaign import access, presenters, services
from campaign.models import Campaign, Job
from campaign.web import display, forms
from campaign.web.views.board import _board_form_response, clock_panel_context
from rules.ruleset import RuleError


def _clock_form_response(
    request: HttpRequest, campaign: Campaign, role: str, extra: dict[str, Any], status: int
) -> HttpResponse:
    """The answer to the clock's forms. With htmx, the clock's form alone, from the little it shows (the campaign's
    id, the buttons, the outcome): the board refreshes itself (`HX-Trigger`). Without, as any board form."""
    if not request.htmx:
        return _board_form_response(request, campaign, role, "clock-form", extra, status)
    response = render(request, "campaign.html#clock-form", {**clock_panel_context(campaign), **extra})
    if status < 400:
        response["HX-Trigger"] = "refresh"
    return response


def _clock_error(error: RuleError) -> str:
    """A refused advance said with its input's label (`advance.hours` is the amount typed in hours), as the API
    names the field; an input the form does not have is named as it was sent."""
    head = error.field.split(".", 1)[0]
    words = {
        "advance": "Amount" if "." in error.field else "Unit",
        "stop_on": "Stop",
        "form": "",
        "clock": "",
    }.get(head)
    label = error.field if words is None else words
    return f"{label}: {error.message}" if label else error.message


@login_required
@require_POST
def campaign_clock(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "advance the clock")
    try:
        advance = forms.parse_advance(request.POST)
        seconds = services.parse_advance(advance)
        job = services.clock_advance_request(
            campaign=campaign,
            seconds=seconds,
            actor=request.user.get_username(),
            idempotency_key=forms.idempotency_key(request.POST),
            stop_on=request.POST.get("stop_on") or None,
        )
    except RuleError as error:
        extra = {"clock_error": _clock_error(error)}
        return _clock_form_response(request, campaign, role, extra, error.status)
    # The job as the service left it (run already without a broker); the calendar is the campaign's options.
    text = display.duration_text(job.to_time - job.from_time)
    if job.stopped_early:
        stopped = presenters.job_json(job)["message"]
        success = f"{stopped[:1].upper()}{stopped[1:]}."
    elif job.status == job.DONE:
        success = f"Advanced {text} to {display.date_text(presenters.game_date(campaign, job.to_time))}."
    else:
        success = f"Advancing {text}: the clock is running."
    return _clock_form_response(request, campaign, role, {"clock_success": success, "success": success}, 202)


@login_required
@require_POST
def campaign_clock_rewind(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The board's "take back the latest advance" (docs/rules/README.md)."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "take back an advance")
    try:
        forms.check_posted(request.POST, {})
        rewind = services.clock_rewind(campaign=campaign, actor=request.user.get_username())
    except RuleError as error:
        extra = {"clock_error": error.message}
        return _clock_form_response(request, campaign, role, extra, error.status)
    back = display.date_text(presenters.game_date(campaign, rewind.to))
    who = "1 character" if rewind.characters == 1 else f"{rewind.characters} characters"
    success = f"Advance taken back: the clock is back at {back}; the clock's entries on {who} are taken back."
    return _clock_form_response(request, campaign, role, {"clock_success": success, "success": success}, 200)


# --- table dice: the board answers the clock's roll ---------------------------------------------------------------


@login_required
@require_POST
def campaign_clock_roll(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM's rolls for a waiting clock, a row of them (or: let the server roll the rest of this advance); the
    board again. A roll typed wrong is said beside it in words, with what was typed kept in the row."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "roll for the clock")
    job = services.open_job(campaign)
    try:
        if job is None or not job.waiting:
            raise services.Conflict("job", services.NOT_WAITING)
        body, errors = forms.parse_clock_rolls(request.POST, job.asked)
        if not errors:
            services.clock_give_roll(
                job_id=job.pk, body=body, idempotency_key=forms.idempotency_key(request.POST)
            )
    except services.RollsRefused as refused:
        errors = {field.removeprefix("rolls."): message for field, message in refused.errors.items()}
    except RuleError as error:
        return _board_form_response(
            request, campaign, role, "live", {"roll_error": error.message}, error.status
        )
    if errors:
        asked = presenters.job_json(job)["needs_rolls"]
        extra = {"clock_rolls": forms.clock_roll_inputs(asked, request.POST, errors)}
        return _board_form_response(request, campaign, role, "live", extra, 400)
    campaign.refresh_from_db()
    return _board_form_response(request, campaign, role, "live", {"success": "Roll given."}, 200)


def _job_id(raw: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(raw.strip())
    except ValueError:
        return None


@login_required
@require_POST
def campaign_clock_stop(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """ "Stop here": the waiting advance ends where it stands, so that the GM may act; the board again. The form
    names its job, so that a second click finds the job it stopped (as a retried stop in the API) instead of a
    clock no longer waiting."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "stop the clock")
    try:
        forms.check_posted(request.POST, {"job": "job"})
        job = Job.objects.filter(campaign=campaign, pk=_job_id(request.POST.get("job", ""))).first()
        if job is None:
            raise services.Conflict("job", services.NOT_WAITING)
        job = services.clock_stop(job_id=job.pk)
    except RuleError as error:
        return _board_form_response(
            request, campaign, role, "live", {"roll_error": error.message}, error.status
        )
    campaign.refresh_from_db()
    at = display.date_text(presenters.game_date(campaign, job.reached))
    success = f"Clock stopped at {at}: act, then advance again to go on."
    return _board_form_response(request, campaign, role, "live", {"success": success}, 200)
