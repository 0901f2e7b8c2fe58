"""What a process does once it has started: its long-lived objects set aside from the cyclic garbage collector."""

from __future__ import annotations

import gc

from django.urls import get_resolver


def freeze_startup_objects() -> None:
    """Move every object alive now out of the cyclic collector's reach (`gc.freeze`).

    Modules, Django's machinery, the URLconf and the rule tables live as long as the process, and hold no garbage:
    without this every full collection walks them again (tens of thousands of objects, several milliseconds, once
    every few hundred actions: about 5% of an action's CPU). Called by `wsgi.py` and the Celery worker after they
    start, and by the bench's child processes. Everything created afterwards is collected as usual.
    """
    get_resolver().url_patterns  # noqa: B018 - load the URLconf now, not on the first request
    gc.collect()  # what start-up left as garbage is freed, not frozen
    gc.freeze()
