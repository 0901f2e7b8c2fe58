"""The API's clock: reading it, advancing it (a job), the jobs, an advance taken back, the roll a waiting advance
asks for (table dice)."""

from __future__ import annotations

import uuid

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import presenters, services
from campaign.api import answers as A
from campaign.api import examples as E
from campaign.api import request_bodies as bodies
from campaign.api.views.common import IDEMPOTENCY_KEY, JSON, _body, _idempotency_key
from campaign.ledger import running
from campaign.models import GM, Job
from campaign.selectors import access, jobs
from campaign.selectors.campaigns import next_timers


@extend_schema(
    methods=["GET"],
    summary="The campaign's clock",
    responses=A.responses(
        {200: ("Clock", "the game time, and for a GM the open advance and what comes next", E.CLOCK)}, 404
    ),
)
@extend_schema(
    methods=["POST"],
    summary="Advance the clock (GMs): a job",
    request={JSON: bodies.CLOCK_ADVANCE},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses({202: ("AdvanceAccepted", "the advance, under way")}, 400, 403, 404, 409),
    examples=[A.request_example({"advance": {"hours": 2}})],
)
@api_view(["GET", "POST"])
def clock(request: Request, campaign_id: int) -> Response:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if request.method == "GET":
        running.settle(campaign)  # a clock that runs on its own, read now; what comes next, from now
        job = jobs.open_job(campaign)
        data = {
            "game_time": campaign.game_time,
            "game_date": presenters.game_date(campaign, campaign.game_time),
            "job": presenters.job_json(job) if job and role == GM else None,
        }
        if role == GM:
            data["next"] = presenters.upcoming(campaign, next_timers(campaign))
        return Response(data)
    access.require_gm(role, "advance the clock")
    body = _body(request, bodies.CLOCK_ADVANCE)
    seconds = services.parse_advance(body.get("advance"))
    job = services.clock_advance_request(
        campaign=campaign,
        seconds=seconds,
        actor=request.user.get_username(),
        idempotency_key=_idempotency_key(request),
        stop_on=body.get("stop_on"),
        ask_before_death=body.get("ask_before_death", False),
    )
    return Response(
        {"job": str(job.pk), "from": job.from_time, "to": job.to_time, "status": job.status},
        status=status.HTTP_202_ACCEPTED,
    )


@extend_schema(
    summary="A job: a clock advance (its GMs) or an import (its user)",
    responses=A.responses(
        {
            200: A.answer(
                "Job",
                "the job and how far it got",
                named={
                    "an advance, done": E.CLOCK_JOB_DONE,
                    "an advance waiting for a roll (table dice)": E.CLOCK_JOB_WAITING,
                    "an advance waiting before a death (ask_before_death)": E.CLOCK_JOB_WAITING_DEATH,
                    "an import, done": E.IMPORT_JOB,
                },
            )
        },
        403,
        404,
    ),
)
@api_view(["GET"])
def job_detail(request: Request, job_id: str) -> Response:
    """A clock advance (the campaign's GMs see it) or an import (its user sees it)."""
    try:
        key = uuid.UUID(job_id)
    except ValueError:
        raise Http404 from None
    job = jobs.job(key, with_campaign=True)
    if job is None:
        imported = jobs.import_job(request.user, key)
        if imported is None:
            raise Http404
        return Response(presenters.import_job_json(imported))
    _, role = access.campaign_for(request.user, job.campaign_id)
    access.require_gm(role, "see clock jobs")
    return Response(presenters.job_json(job))


@extend_schema(
    summary="Take back the latest advance (GMs)",
    request=None,
    responses=A.responses(
        {200: ("Rewind", "the advance taken back and where the clock is now")}, 400, 403, 404, 409
    ),
)
@api_view(["POST"])
def clock_rewind(request: Request, campaign_id: int) -> Response:
    """Take back the latest advance (GM): its firings on every character are voided and the clock goes back to
    where it began, while nothing was recorded since (409 naming what was)."""
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "take back an advance")
    rewind = services.clock_rewind(campaign=campaign, actor=request.user.get_username())
    return Response(
        {
            "job": str(rewind.job.pk),
            "characters": rewind.characters,
            "game_time": rewind.to,
            "game_date": presenters.game_date(campaign, rewind.to),
        }
    )


def _gm_job(request: Request, job_id: str, doing: str) -> Job:
    """The clock job `job_id` for one of its campaign's GMs (404 for anything outside one's campaigns, 403 for a
    player)."""
    try:
        key = uuid.UUID(job_id)
    except ValueError:
        raise Http404 from None
    job = jobs.job(key)
    if job is None:
        raise Http404
    _, role = access.campaign_for(request.user, job.campaign_id)
    access.require_gm(role, doing)
    return job


@extend_schema(
    request={JSON: bodies.CLOCK_ROLLS},
    summary="Give the rolls a waiting advance asks for (GMs, table dice)",
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses(
        {200: ("ClockJob", "the advance, going on", E.CLOCK_JOB_GIVEN)}, 400, 403, 404, 409
    ),
    examples=[
        A.request_example({"9.death_save": [4], "10.stun_save": [7]}, "two characters' rolls, by their keys"),
        A.request_example(
            {
                "9.critical_healing:ch1": [11, 2, 3, 4, 5],
                "9.critical_healing:ch2": [1, 1, 1, 1, 1],
                "9.physical_healing": [2, 2, 2, 2, 2],
            },
            "one character's two rolls of one name, by their keys",
        ),
        A.request_example({"death_save": [4]}, "the one roll asked, by its name"),
        A.request_example({"ask": False}, "the server rolls the rest of this advance"),
    ],
)
@api_view(["POST"])
def job_rolls(request: Request, job_id: str) -> Response:
    """Give the rolls a waiting clock advance asks for (table dice); the advance goes on."""
    job = _gm_job(request, job_id, "roll for the clock")
    job = services.clock_give_roll(
        job_id=job.pk, body=request.data, idempotency_key=_idempotency_key(request)
    )
    return Response(presenters.job_json(job))


@extend_schema(
    request=None,
    summary="Stop an advance where it waits for a roll (GMs, table dice)",
    responses=A.responses(
        {200: ("ClockJob", "the advance, ended where it stood", E.CLOCK_JOB_STOPPED)}, 403, 404, 409
    ),
)
@api_view(["POST"])
def job_stop(request: Request, job_id: str) -> Response:
    """End an advance that waits for a roll where it stands (the clock stays at the second it reached), so that the
    GM may act; advance again to go on. Stopping it again answers the same job and writes nothing."""
    job = _gm_job(request, job_id, "stop the clock")
    return Response(presenters.job_json(services.clock_stop(job_id=job.pk)))


@extend_schema(
    request=None,
    summary="Let the death a waiting advance stopped before happen (GMs)",
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses({200: ("ClockJob", "the advance, going on", E.CLOCK_JOB_DONE)}, 403, 404, 409),
)
@api_view(["POST"])
def job_go_on(request: Request, job_id: str) -> Response:
    """The GM's yes to the death an advance asking before deaths (`ask_before_death`) waits at: it happens, and the
    advance goes on, asking again before another death. The same Idempotency-Key again writes nothing."""
    job = _gm_job(request, job_id, "advance the clock")
    job = services.clock_go_on(job_id=job.pk, idempotency_key=_idempotency_key(request))
    return Response(presenters.job_json(job))
