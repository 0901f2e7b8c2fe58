"""The services' one door to the task queue: they hand a job over here, and never import the tasks.

`campaign.tasks` is the other side: it calls the services, and the campaign app's `ready()` connects it here
(`connect`), once Django has loaded the models. So the services depend on this module alone, the tasks on the
services, and no import goes back. Each call reads the tasks module's function at that moment: a test that
replaces `tasks.enqueue_import` replaces what the services send through.
"""

from __future__ import annotations

from typing import Any, Protocol


class Worker(Protocol):
    """What the queue's side offers (campaign.tasks)."""

    IMPORT_BROKER_DOWN: str

    def ensure_broker(self, field: str = ..., message: str = ...) -> None: ...

    def enqueue_advance(self, job_id: Any, ticket: Any = None) -> None: ...

    def enqueue_import(self, job_id: Any) -> None: ...

    def enqueue_deliveries(self, delivery_ids: list[str]) -> None: ...


_worker: Worker | None = None


def connect(worker: Worker) -> None:
    """Make `worker` the queue's side (`CampaignConfig.ready` connects `campaign.tasks`)."""
    global _worker
    _worker = worker


def _connected() -> Worker:
    if _worker is None:
        raise RuntimeError("no task queue connected: the campaign app's ready() connects campaign.tasks")
    return _worker


def ensure_broker_for_advance() -> None:
    """Refuse an advance up front (503, nothing written) when the broker is configured but down."""
    _connected().ensure_broker()


def ensure_broker_for_import() -> None:
    """Refuse an import up front (503 naming the file, nothing written) when the broker is configured but down."""
    worker = _connected()
    worker.ensure_broker("file", worker.IMPORT_BROKER_DOWN)


def enqueue_advance(job_id: Any, ticket: Any = None) -> None:
    """Send an advance to the worker (or, without a broker, run it now, in this process)."""
    _connected().enqueue_advance(job_id, ticket)


def enqueue_import(job_id: Any) -> None:
    """Send an import to the worker (or, without a broker, run it now, in this process)."""
    _connected().enqueue_import(job_id)


def enqueue_deliveries(delivery_ids: list[str]) -> None:
    """Send the outbox's new deliveries to the worker (or, without a broker, to a thread beside the request)."""
    _connected().enqueue_deliveries(delivery_ids)
