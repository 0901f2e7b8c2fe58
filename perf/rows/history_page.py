"""The history_page row: a page of a character's history at 100,000 events against one at 100, as its GM and its
player, through the whole request in this process."""

from __future__ import annotations

import gc
import time
from typing import Any

from django.test import override_settings

from perf.harness.measure import profiled, quantile
from perf.harness.seeding import api_token, long_history
from perf.harness.wsgi import WsgiClient

PAGE = 50  # entries: a full page of the short history as its player sees it (75 of its 100 events)


def _readers(events: int, tag: str) -> tuple[int, WsgiClient, WsgiClient]:
    """A character with a history of `events` events; its id and clients of its GM and its player."""
    character, gm, player = long_history(events, tag)
    return character, *(WsgiClient(f"Token {api_token(person)}") for person in (gm, player))


def _page_times(
    readers: list[tuple[Any, int, bool]],
    pages: int,
    cpu: list[list[float]] | None = None,
    collected: list[int] | None = None,
    collections_ms: list[float] | None = None,
) -> list[list[float]]:
    """Milliseconds per page, for each (client, character id, walks), over `pages` pages of a history (the whole
    request, `PAGE` entries): down the history page after page if it `walks` (from the newest again after the
    oldest), else its newest page each time. The readers take turns, a page each, so that what else the machine
    does weighs on each alike. `cpu` gets each page's CPU time (this thread's), `collected` the full collections
    of the cyclic collector during each reader's pages."""
    times: list[list[float]] = [[] for _ in readers]
    before: list[Any] = [None for _ in readers]
    full = [0]  # the cyclic collector's full collections so far (generation 2)
    began_collecting = [0.0]

    def counted(phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            full[0] += 1
            began_collecting[0] = time.thread_time()
        elif collections_ms is not None:  # its CPU time
            collections_ms.append(1000 * (time.thread_time() - began_collecting[0]))

    gc.callbacks.append(counted)
    try:
        for _ in range(pages):
            for n, (client, character_id, walks) in enumerate(readers):
                url = f"/api/characters/{character_id}/events/?limit={PAGE}"
                began, began_cpu, collections = time.perf_counter(), time.thread_time(), full[0]
                response = client.get(f"{url}&before={before[n]}" if before[n] else url)
                times[n].append(1000 * (time.perf_counter() - began))
                if cpu is not None:
                    cpu[n].append(1000 * (time.thread_time() - began_cpu))
                if collected is not None:
                    collected[n] += full[0] - collections
                if response.status_code != 200 or len(response.json()["events"]) != PAGE:
                    raise RuntimeError(
                        f"history page answered {response.status_code}: {response.content[:300]!r}"
                    )
                before[n] = response.json()["next"] if walks else None
    finally:
        gc.callbacks.remove(counted)
    return times


def history_page(events: int, pages: int, profile: str | None = None) -> dict[str, Any]:
    """p99 of a history page at `events` events against that at 100, as the GM and as the player, in this process
    through the whole request: the long history read page after page, the short one's newest page again and again
    (`_page_times`); the worse of the two ratios is judged."""
    short, long = _readers(100, "short"), _readers(events, "long")
    gc.collect()
    tracked = len(gc.get_objects())  # what a full collection walks (the startup's objects are frozen)
    figures: dict[str, dict[str, float]] = {}
    with override_settings(ALLOWED_HOSTS=["testserver"]):
        for n, who in enumerate(("gm", "player"), start=1):
            readers = [(short[n], short[0], False), (long[n], long[0], True)]
            _page_times(readers, 20)  # warm up
            gc.collect()
            figures.setdefault(who, {})["tracked_after_warm_up"] = len(gc.get_objects())
            cpu: list[list[float]] = [[], []]
            collected, collections_ms = [0, 0], []
            with profiled(profile if who == "player" else None):
                measured = _page_times(readers, pages, cpu, collected, collections_ms)
                times = dict(zip(("short", "long"), measured, strict=True))
            figures[who] |= {
                f"{size}_full_collections": n for size, n in zip(("short", "long"), collected, strict=True)
            }
            figures[who]["full_collection_max_cpu_ms"] = max(collections_ms, default=0.0)
            figures[who] |= {f"{size}_p99_ms": quantile(t, 0.99) for size, t in times.items()}
            figures[who] |= {f"{size}_p50_ms": quantile(t, 0.5) for size, t in times.items()}
            # The same pages by CPU time (this thread's): what the machine's other work moves much less.
            for size, t in zip(("short", "long"), cpu, strict=True):
                figures[who] |= {
                    f"{size}_cpu_p99_ms": quantile(t, 0.99),
                    f"{size}_cpu_p50_ms": quantile(t, 0.5),
                }
    worse = max(figures.values(), key=lambda f: f["long_p99_ms"] / f["short_p99_ms"])
    # By CPU: the pages' own work, which the queue for the machine's cores (most of a p99 under load) is not.
    cpu_worse = max(f["long_cpu_p99_ms"] / f["short_cpu_p99_ms"] for f in figures.values())
    return {
        "rate": worse["long_p99_ms"],
        "baseline": worse["short_p99_ms"],
        "unit": "ms",
        "events": events,
        "pages": pages,
        **{f"{who}_{name}": value for who, f in figures.items() for name, value in f.items()},
        "tracked_objects": tracked,
        "cpu_times": cpu_worse,
        "baseline_what": "p99 of a page of a character with 100 events, read the same way in the same run",
    }
