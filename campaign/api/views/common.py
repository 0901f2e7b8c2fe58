"""What the API's views share: the request's body held to its schema, the Idempotency-Key, whole-number query
parameters."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request

from campaign import services
from campaign.http import conditional
from campaign.selectors import history
from rules.params import reject_unknown
from rules.text import given

FEED_PAGE = history.FEED_PAGE
CHARACTER_CACHE = conditional.PAGES


def _body(request: Request, schema: dict[str, Any]) -> dict[str, Any]:
    """The request's JSON object, holding only the fields its documented `schema` names: a misspelt field would
    otherwise be dropped in silence (a character created with no player for a `palyer`)."""
    data = request.data
    if not isinstance(data, dict):
        raise services.ServiceError("body", f"expected a JSON object, got {type(data).__name__}")
    reject_unknown(data, schema["properties"])
    return data


def _idempotency_key(request: Request) -> str | None:
    return services.idempotency_key("Idempotency-Key", request.headers.get("Idempotency-Key"))


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="the same key and request again return the first answer and write nothing (a 409 with another "
    "request)",
)


def _int_param(request: Request, name: str, minimum: int = 0) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise services.ServiceError(name, f"expected a whole number, got {given(raw)}") from None
    if value < minimum:
        raise services.ServiceError(name, f"expected a whole number of at least {minimum}, got {value}")
    return value


JSON = "application/json"
