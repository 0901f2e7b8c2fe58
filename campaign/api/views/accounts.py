"""The API's users: signing up, a token for a user name and password."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import api_view, permission_classes, throttle_classes
from rest_framework.exceptions import Throttled
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import services
from campaign.api import answers as A
from campaign.api import request_bodies as bodies
from campaign.api.views.common import JSON, _body
from campaign.http import throttles


@extend_schema(
    summary="Sign up",
    request={JSON: bodies.SIGN_UP},
    responses=A.responses({201: ("User", "the new user")}, 400, 403, auth=False),
    auth=[],
    examples=[A.request_example({"username": "ash", "password": "a long passphrase"})],
)
@api_view(["POST"])
@permission_classes([AllowAny])
@throttle_classes([throttles.SignUpRate])
def users(request: Request) -> Response:
    """Sign up (when ALLOW_SIGNUP is on)."""
    if not settings.ALLOW_SIGNUP:
        return Response({"detail": ["sign-up is closed on this server"]}, status=status.HTTP_403_FORBIDDEN)
    body = _body(request, bodies.SIGN_UP)
    user = services.user_sign_up(username=body.get("username"), password=body.get("password"))
    return Response({"id": user.pk, "username": user.get_username()}, status=status.HTTP_201_CREATED)


@extend_schema(
    summary="Log in: a token",
    request={JSON: bodies.CREDENTIALS},
    responses=A.responses({200: ("Token", "the user's API token")}, 400, auth=False),
    auth=[],
    examples=[A.request_example({"username": "ash", "password": "a long passphrase"})],
)
@api_view(["POST"])
@permission_classes([AllowAny])
@throttle_classes([throttles.LoginRate])
def token(request: Request) -> Response:
    """Exchange a user name and password for an API token."""
    body = _body(request, bodies.CREDENTIALS)
    username, password = body.get("username"), body.get("password")
    if not isinstance(username, str) or not username:
        raise services.ServiceError("username", "expected a user name")
    if not isinstance(password, str) or not password:
        raise services.ServiceError("password", "expected a password")
    user = authenticate(request._request, username=username, password=password)
    refused = throttles.refusal(request._request)
    if user is None and refused is not None:
        throttled = Throttled(detail=refused.message)  # our words: DRF's `wait` would add its own sentence
        throttled.wait = refused.retry_after  # the Retry-After header
        raise throttled
    if user is None:
        raise services.ServiceError("password", "user name and password do not match")
    return Response({"token": services.token_issue(user=user)})
