"""Every error is JSON: 400 `{field: [message]}`, 403/404/409/503 `{field or detail: [message]}`."""

from typing import Any

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from rest_framework import status
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from campaign.services import ServiceError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        return Response({exc.field: [exc.message]}, status=exc.status)
    if isinstance(exc, ParseError):
        return Response({"body": [str(exc.detail)]}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RequestDataTooBig | SuspiciousOperation):
        return Response({"body": [str(exc) or "the request body is too large"]}, status=400)
    return drf_exception_handler(exc, context)
