"""The game clock from the board: an advance, taking it back, the table's roll."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from campaign import presenters, services
from campaign.models import Campaign
from campaign.selectors import access, jobs
from campaign.selectors.campaigns import projected
from campaign.web import display, forms
from campaign.web.views.board import CUSTOM_ADVANCE, _board_form_response, clock_panel_context
from rules.ruleset import RuleError


def _clock_form_response(
    request: HttpRequest, campaign: Campaign, role: str, extra: dict[str, Any], status: int
) -> HttpResponse:
    """The answer to the clock's forms. With htmx, the clock's form alone, from the little it shows (the campaign's
    id, the buttons, the outcome): the board refreshes itself (`HX-Trigger`). Without, as any board form."""
    if not request.htmx:
        return _board_form_response(request, campaign, role, "clock-form", extra, status)
    response = render(
        request, "campaign.html#clock-form", {**clock_panel_context(campaign, request), **extra}
    )
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
        "until": "",
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
    custom = (
        request.POST.get("custom") == "1"
    )  # the custom advance, not a button: its amount and unit are kept
    try:
        advance = forms.parse_advance(request.POST)
        seconds = services.parse_advance(advance)
        job = services.clock_advance_request(
            campaign=campaign,
            seconds=seconds,
            actor=request.user.get_username(),
            idempotency_key=forms.idempotency_key(request.POST),
            stop_on=request.POST.get("stop_on") or None,
            until=forms.parse_until(request.POST),
            # The board is the table: a death waits for the GM's yes (docs/clock.md, "A death waits").
            ask_before_death=True,
        )
    except RuleError as error:
        extra: dict[str, Any] = {"clock_error": _clock_error(error)}
        if custom:  # what was typed, shown back for correcting
            extra.update(
                custom_amount=request.POST.get("amount", ""), custom_unit=request.POST.get("unit", "")
            )
        return _clock_form_response(request, campaign, role, extra, error.status)
    if custom:
        ((unit, amount),) = advance.items()
        request.session[CUSTOM_ADVANCE.format(campaign.pk)] = {"amount": amount, "unit": unit}
    # The job as the service left it (run already without a broker); the calendar is the campaign's options. An
    # advance still open (queued, run by a worker, waiting for the table's roll) is said by the live region, which
    # every answer redraws and which forgets it when the job ends; the panel would keep saying it ran.
    if job.stopped_early:
        stopped = presenters.job_json(job)["message"]
        success = f"{stopped[:1].upper()}{stopped[1:]}."
    elif job.status == job.DONE:
        text = display.duration_text(job.to_time - job.from_time)
        success = f"Advanced {text} to {display.date_text(presenters.game_date(campaign, job.to_time))}."
    else:
        success = ""
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
    took = display.duration_text(
        rewind.job.reached - rewind.job.from_time
    )  # a stopped one: as far as it went
    who = "1 character" if rewind.characters == 1 else f"{rewind.characters} characters"
    said = f"the clock's entries on {who} are taken back" if rewind.characters else "it had fired nothing"
    success = f"Took back the advance of {took}: the clock is at {back}; {said}."
    return _clock_form_response(request, campaign, role, {"clock_success": success, "success": success}, 200)


# --- table dice: the board answers the clock's roll ---------------------------------------------------------------


@login_required
@require_POST
def campaign_clock_roll(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM's rolls for a waiting clock, a row of them (or: let the server roll the rest of this advance); the
    board again. A roll typed wrong is said beside it in words, with what was typed kept in the row."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "roll for the clock")
    job = jobs.open_job(campaign)
    try:
        key = forms.idempotency_key(request.POST)
        if (job is None or not job.waiting) and jobs.rolls_answered(campaign, key):
            # The same post again (a double click, a retry): its rolls were taken, and the advance went on.
            return _board_form_response(
                request, projected(campaign), role, "live", {"success": "Roll given."}, 200
            )
        if job is None or not job.waiting:
            raise services.Conflict("job", services.NOT_WAITING)
        body, errors = forms.parse_clock_rolls(request.POST, job.asked)
        if not errors:
            services.clock_give_roll(job_id=job.pk, body=body, idempotency_key=key)
    except services.RollsRefused as refused:
        errors = {field.removeprefix("rolls."): message for field, message in refused.errors.items()}
    except RuleError as error:
        return _roll_refused(request, campaign, role, error)
    if errors:
        asked = presenters.job_json(job)["needs_rolls"]
        extra = {"clock_rolls": forms.clock_roll_inputs(asked, forms.echoed(request.POST), errors)}
        return _board_form_response(request, campaign, role, "live", extra, 400)
    campaign = projected(campaign)
    return _board_form_response(request, campaign, role, "live", {"success": "Roll given."}, 200)


def _roll_refused(request: HttpRequest, campaign: Campaign, role: str, error: RuleError) -> HttpResponse:
    """A post of the clock's rolls refused otherwise than die by die (a roll's text that cannot be stored, a field
    the form has not): while the clock still waits for the same rolls, the same prompt, every row with what was
    typed, the error beside the roll it names or under the row. A clock no longer waiting says it alone."""
    job = jobs.open_job(campaign)
    extra: dict[str, Any] = {"roll_error": error.message}
    if job is not None and job.waiting and job.needs_roll is not None:
        asked = presenters.job_json(job)["needs_rolls"]
        row = next((need for need in asked if error.field == f"{forms.CLOCK_ROLL_INPUT}{need['key']}"), None)
        errors = {}
        if row is not None:
            errors = {row["key"]: f"{services.asked_words(row)}; {error.message}"}
            extra = {}
        extra["clock_rolls"] = forms.clock_roll_inputs(asked, forms.echoed(request.POST), errors)
    return _board_form_response(request, campaign, role, "live", extra, error.status)


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
        job = jobs.campaign_job(campaign, _job_id(request.POST.get("job", "")))
        if job is None:
            raise services.Conflict("job", services.NOT_WAITING)
        death = job.needs_yes if job.waiting else None  # the death it waited before, if any
        job = services.clock_stop(job_id=job.pk)
    except RuleError as error:
        return _board_form_response(
            request, campaign, role, "live", {"roll_error": error.message}, error.status
        )
    campaign = projected(campaign)
    success = stopped_words(campaign, job, death)
    extra = {"success": success, "clock_said": success}
    return _board_form_response(request, campaign, role, "live", extra, 200)


def stopped_words(campaign: Campaign, job: Any, death: dict[str, Any] | None) -> str:
    """What "Stop here" did, in words (docs/clock.md, "Stopping at a roll"): where the clock stays, the time of day
    on the day the advance began (the date too once it crossed midnight), and, stopped before a death, that the
    character is still dying: "Stopped at 00:02:59: Red Eye is still dying; act, then advance again to go on." """
    stays = display.date_text(presenters.game_date(campaign, job.reached))
    began = display.date_text(presenters.game_date(campaign, job.from_time))
    at = stays[11:] if stays[:10] == began[:10] and stays[11:] else stays
    where = ", where the advance began (nothing of it had fired)" if job.reached == job.from_time else ""
    still = f": {death['character_name']} is still dying" if death is not None else ""
    return f"Stopped at {at}{where}{still}; act, then advance again to go on."


@login_required
@require_POST
def campaign_clock_go_on(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """ "Go on": the death the waiting advance stopped before happens, and the advance goes on; the board again.
    The form names its job and carries its own key, so that a second click is the same yes, never one to the next
    death the advance stops before."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "advance the clock")
    try:
        forms.check_posted(request.POST, {"job": "job", "key": "key"})
        job = jobs.campaign_job(campaign, _job_id(request.POST.get("job", "")))
        if job is None:
            raise services.Conflict("job", services.NOT_AT_A_DEATH)
        services.clock_go_on(job_id=job.pk, idempotency_key=forms.idempotency_key(request.POST))
    except RuleError as error:
        return _board_form_response(
            request, campaign, role, "live", {"roll_error": error.message}, error.status
        )
    campaign = projected(campaign)
    return _board_form_response(request, campaign, role, "live", {"success": "The clock went on."}, 200)
