"""What a process does once it has started: its long-lived objects set aside from the cyclic garbage collector."""

from __future__ import annotations

import gc

from django.urls import get_resolver


def freeze_startup_objects() -> None:
    """Move every object alive now out of the cyclic collector's reach (`gc.freeze`).

    Modules, Django's machinery, the URLconf and the rule tables live as long as the process, and hold no garbage:
    without this every full collection walks them again (tens of thousands of objects, several milliseconds, once
    every few hundred actions: about 5% of an action's CPU). Called by `wsgi.py` and the Celery worker after they
    start, and by the bench's child processes. Everything created afterwards is collected as usual, the full
    collections ten times rarer than Python's default (`FULL_COLLECTION_EVERY`).
    """
    get_resolver().url_patterns  # noqa: B018 - load the URLconf now, not on the first request
    gc.collect()  # what start-up left as garbage is freed, not frozen
    gc.freeze()
    # With the start-up frozen the long-lived generation is nearly empty, so the collector's own brake (a full
    # collection only once a quarter of it is new) never holds, and a full collection comes every tenth
    # generation-1 one: about once in 200 requests, 3 to 5 ms of CPU each, as long as a history page. It set the
    # p99 of the history pages (docs/PERFORMANCE.md, "history_page"). Ten times rarer; the requests make little
    # cyclic garbage, and generations 0 and 1 still collect it.
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


FULL_COLLECTION_EVERY = 100  # generation-1 collections between two full ones (Python's default: 10)
