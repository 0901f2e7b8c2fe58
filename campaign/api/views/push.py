"""The API's push subscriptions (docs/notifications.md): the server's VAPID key, a device subscribing, and its
undo. What is then sent to the device: `campaign.notify.push`."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from campaign.api import answers as A
from campaign.api import push_schema
from campaign.api import request_bodies as bodies
from campaign.api.views.common import JSON, _body
from campaign.models import PushSubscription
from campaign.notify import push
from campaign.selectors import notifications
from campaign.services import push_subscriptions as subscriptions

PUSH_OFF = "push notifications are not set up on this server (VAPID_PRIVATE_KEY)"


def subscription_json(subscription: PushSubscription, campaigns: list[int]) -> dict[str, object]:
    return {
        "id": subscription.pk,
        "endpoint": subscription.endpoint,
        "campaigns": campaigns,
        "created_at": subscription.created_at.isoformat(),
    }


@extend_schema(
    summary="The server's VAPID public key, to subscribe a browser with",
    responses=A.responses({200: ("PushKey", "the key", push_schema.EXAMPLES["PushKey"])}, 404),
)
@api_view(["GET"])
def push_key(request: Request) -> Response:
    if not push.push_enabled():
        raise Http404(PUSH_OFF)
    return Response({"public_key": push.vapid_public_key()})


@extend_schema(
    summary="Tell this device: keep a browser's push subscription",
    description="The body is the browser's PushSubscription (its toJSON()), and for a GM the campaigns whose every "
    "character the device is told of. The same endpoint again is the same subscription (200): its keys renewed, "
    "the campaigns named added.",
    request={JSON: bodies.PUSH_SUBSCRIPTION},
    responses=A.responses(
        {
            201: ("PushSubscription", "subscribed", push_schema.EXAMPLES["PushSubscription"]),
            200: (
                "PushSubscription",
                "the device was subscribed already",
                push_schema.EXAMPLES["PushSubscription"],
            ),
        },
        400,
        404,
    ),
    examples=[A.request_example(push_schema.REQUEST)],
)
@api_view(["POST"])
def push_subscriptions(request: Request) -> Response:
    if not push.push_enabled():
        raise Http404(PUSH_OFF)
    body = _body(request, bodies.PUSH_SUBSCRIPTION)
    done = subscriptions.push_subscribe(user=request.user, body=body)
    answer = subscription_json(done.subscription, notifications.subscribed_campaigns(done.subscription))
    return Response(answer, status=status.HTTP_201_CREATED if done.created else status.HTTP_200_OK)


@extend_schema(
    summary="Stop telling this device: remove one of the caller's subscriptions",
    responses=A.responses({204: OpenApiResponse(description="done (no body)")}, 404),
)
@api_view(["DELETE"])
def push_subscription_detail(request: Request, subscription_id: int) -> Response:
    try:
        subscriptions.push_unsubscribe(user=request.user, subscription_id=subscription_id)
    except PushSubscription.DoesNotExist:
        raise Http404("no such subscription") from None
    return Response(status=status.HTTP_204_NO_CONTENT)
