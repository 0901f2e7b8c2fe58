"""A service the server needs is down: which one, in words, and the 503 that says so (docs/operations.md).

The database (`DATABASE_URL`), the shared cache (`CACHE_URL`, Redis) and the task queue (`CELERY_BROKER_URL`) can
each be unreachable. An answer then names the service and says that nothing was done: JSON for the API
(`{"database": ["..."]}`), our own page (`templates/503.html`) for the site. The page is drawn without the request's
context: the user, the messages and the session live in the database, which may be the service that is down.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import RedisError

from campaign.ledger.reachable import database_unreachable

DATABASE = "database"
CACHE = "cache"
BROKER = "broker"
DOWN = {
    DATABASE: "the server's database (DATABASE_URL) is unreachable; nothing was done, try again shortly",
    CACHE: "the server's shared cache (CACHE_URL) is unreachable; nothing was done, try again shortly",
    BROKER: "the server's task queue (CELERY_BROKER_URL) is unreachable; nothing was done, try again shortly",
}
# The connection went away while a write was being committed: the database alone knows whether it was.
LOST_AT_COMMIT = (
    "the server lost its database (DATABASE_URL) while saving; the change may or may not be saved: look before "
    "trying again, or send it again with the same Idempotency-Key"
)
RETRY_AFTER_SECONDS = 10


def service_down(error: BaseException) -> str | None:
    """The service an exception says is unreachable (`DATABASE`, `CACHE` or `BROKER`), or None."""
    if isinstance(error, BrokerError):
        return BROKER
    if isinstance(error, RedisError):
        return CACHE
    if database_unreachable(error):
        return DATABASE
    return None


def down_response(request: HttpRequest, service: str, message: str | None = None) -> HttpResponse:
    """The 503 of a request that needed `service`: JSON under /api/, our page elsewhere."""
    message = message or DOWN[service]
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({service: [message]}, status=503)
    else:
        page = render_to_string("503.html", {"message": message})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response
