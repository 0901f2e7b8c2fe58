"""The API's export and import of a campaign."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import presenters, services, transfer
from campaign.api import answers as A
from campaign.api import examples as E
from campaign.api import request_bodies as bodies
from campaign.api.views.common import IDEMPOTENCY_KEY, _body, _idempotency_key
from campaign.http import limits
from campaign.selectors import access


@extend_schema(
    summary="Export a campaign as JSON Lines (GMs)",
    responses=A.responses(
        {
            (200, "application/jsonl"): OpenApiResponse(
                response={
                    "type": "string",
                    "description": "one JSON object a line: the campaign's whole log",
                },
                description="the export, to import elsewhere (POST /api/campaigns/import/)",
                examples=[OpenApiExample("answer", value=E.EXPORT, response_only=True)],
            )
        },
        403,
        404,
    ),
)
@api_view(["GET"])
def export(request: Request, campaign_id: int) -> StreamingHttpResponse:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "export the campaign")
    response = StreamingHttpResponse(transfer.export_text(campaign), content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}.jsonl"'
    return response


@extend_schema(
    summary="Import an export as a new campaign: a job",
    request={"multipart/form-data": bodies.IMPORT},
    parameters=[IDEMPOTENCY_KEY],
    responses=A.responses(
        {202: ("ImportJob", "the import, under way: GET /api/jobs/{id}/ follows it", E.IMPORT_ACCEPTED)},
        400,
        409,
    ),
    examples=[A.request_example({"file": E.EXPORT}, media_type="multipart/form-data")],
)
@api_view(["POST"])
def import_campaign(request: Request) -> Response:
    """Check an export, every line of it, then write it as a new campaign in a job (202): `GET /api/jobs/{id}/`
    shows its progress and, once done, the campaign's id."""
    _body(request, bodies.IMPORT)
    upload = request.FILES.get("file")  # not `file` sent as a text field
    if upload is None:
        raise services.ServiceError("file", "expected a JSON Lines file in the multipart field `file`")
    with limits.campaigns(request.user):
        job = transfer.import_request(
            data=transfer.file_bytes(upload), user=request.user, idempotency_key=_idempotency_key(request)
        )
    return Response(presenters.import_job_json(job), status=status.HTTP_202_ACCEPTED)
