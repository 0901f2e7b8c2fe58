"""The API's hooks: where a campaign's notifications go out of the game (GMs; docs/notifications.md)."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import services
from campaign.api import answers as A
from campaign.api import hook_schema
from campaign.api import request_bodies as bodies
from campaign.api.views.common import JSON, _body
from campaign.models import Hook
from campaign.notify import words
from campaign.selectors import access, notifications

NO_HOOK = "no such hook"


@extend_schema(
    methods=["GET"],
    operation_id="campaigns_hooks_list",
    summary="A campaign's hooks (GMs)",
    responses=A.responses({200: (A.array(A.ref("Hook")), "its hooks, oldest first")}, 403, 404),
)
@extend_schema(
    methods=["POST"],
    summary="Add a hook: a Discord channel's webhook or a signed webhook (GMs)",
    request={JSON: bodies.HOOK_CREATE},
    responses=A.responses(
        {
            201: A.answer(
                "Hook",
                "the hook; a signed webhook's `secret` is in this answer only",
                {
                    **hook_schema.EXAMPLES["Hook"],
                    "kind": "webhook",
                    "url": "https://example.com/ledger",
                    "audience": "gm",
                    "secret": "whsec_5f0c2b7e9d1a4c3b8e6f0a2d4c6b8e0f1a3c5e7b9d1f3a5c",
                },
            )
        },
        400,
        403,
        404,
    ),
    examples=[
        A.request_example(
            {
                "kind": "discord",
                "url": "https://discord.com/api/webhooks/1234567890/AbCdEf",
                "audience": "table",
            }
        )
    ],
)
@api_view(["GET", "POST"])
def hooks(request: Request, campaign_id: int) -> Response:
    campaign, role = access.campaign_for(request.user, campaign_id)
    if request.method == "GET":
        access.require_gm(role, "see the campaign's hooks")
        return Response(words.hooks_json(notifications.hooks(campaign)))
    access.require_gm(role, "add hooks")
    body = _body(request, bodies.HOOK_CREATE)
    hook = services.hook_create(
        campaign=campaign,
        kind=body.get("kind"),
        url=body.get("url"),
        audience=body.get("audience"),
        events=body.get("events"),
        actor=request.user.get_username(),
    )
    return Response(words.hook_json(hook, secret=True), status=201)


@extend_schema(
    summary="Remove a hook (GMs): what it had still to send is dropped",
    responses=A.responses({204: OpenApiResponse(description="done (no body)")}, 403, 404),
)
@api_view(["DELETE"])
def hook_detail(request: Request, campaign_id: int, hook_id: int) -> Response:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "remove hooks")
    try:
        services.hook_delete(campaign=campaign, hook_id=hook_id, actor=request.user.get_username())
    except Hook.DoesNotExist:
        raise Http404(NO_HOOK) from None
    return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(
    summary="Send a hook a test message (GMs): sent once the answer is given; how it went is the hook's",
    request=None,
    responses=A.responses({202: ("HookTest", "the test message, on its way")}, 403, 404),
)
@api_view(["POST"])
def hook_test(request: Request, campaign_id: int, hook_id: int) -> Response:
    campaign, role = access.campaign_for(request.user, campaign_id)
    access.require_gm(role, "test hooks")
    try:
        delivery = services.hook_test(campaign=campaign, hook_id=hook_id)
    except Hook.DoesNotExist:
        raise Http404(NO_HOOK) from None
    return Response({"delivery": str(delivery.pk), "status": "queued"}, status=202)
