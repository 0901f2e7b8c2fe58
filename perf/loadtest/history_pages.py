"""Read a long history page by page, in-process (Django's test client, the whole request), and time each page.

    DATABASE_URL=postgres://... .venv/bin/python perf/loadtest/history_pages.py [--events 160000] [--limit 100]
    DATABASE_URL=postgres://... .venv/bin/python perf/loadtest/history_pages.py [--reads-only] --character ID

Seeds one Shadowrun character with `--events` events in its stream (the harness's `long_history`, as the bench's
history_page row seeds it: raw INSERTs of three care changes, which its player sees, then a GM note, which they do
not; its read model rebuilt, which counts the player's entries, and the database's statistics fresh), then
reads every page of `GET /api/characters/{id}/events/` as its player and as the GM, and prints p50 / p99 per page
and the first against the last pages. `--reads-only` times the character read itself (`GET /api/characters/{id}/`,
a full answer and a 304), for a comparison with another checkout of the code run on the same database (named
first in PYTHONPATH; it needs perf/harness/, this layout's).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[2]))  # after PYTHONPATH: another checkout may come first
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "campaign.settings")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")

import django

django.setup()

from rest_framework.test import APIClient  # noqa: E402

from perf.harness.measure import quantile  # noqa: E402
from perf.harness.seeding import api_token, long_history  # noqa: E402


def _client(user) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token(user)}")
    return client


def seed(events: int) -> tuple[int, APIClient, APIClient]:
    from campaign.models import Character

    started = time.perf_counter()
    character_id, gm, player = long_history(events, uuid.uuid4().hex[:8])
    character = Character.objects.get(pk=character_id)
    print(
        f"seeded {events:,} events in {time.perf_counter() - started:.1f} s: version {character.version:,}, "
        f"player version {character.player_version:,}"
    )
    return character.pk, _client(gm), _client(player)


def _timed(client: APIClient, url: str) -> tuple[float, object]:
    started = time.perf_counter()
    response = client.get(url)
    took = time.perf_counter() - started
    assert response.status_code in (200, 304), (url, response.status_code, response.content[:300])
    return took, response


def read_all(who: str, client: APIClient, character_id: int, limit: int) -> None:
    url = f"/api/characters/{character_id}/events/?limit={limit}"
    times, entries, before = [], 0, None
    while True:
        took, response = _timed(client, f"{url}&before={before}" if before else url)
        page = response.json()
        times.append(took * 1000)
        entries += len(page["events"])
        before = page["next"]
        if before is None:
            break
    size = len(response.content)
    print(
        f"{who}: {len(times):,} pages of {limit} ({entries:,} entries): p50 {quantile(times, 0.5):.2f} ms, "
        f"p99 {quantile(times, 0.99):.2f} ms, max {max(times):.2f} ms; first 10 pages mean "
        f"{statistics.mean(times[:10]):.2f} ms, last 10 mean {statistics.mean(times[-10:]):.2f} ms; "
        f"last page {size:,} bytes"
    )


def reads(character_id: int, client: APIClient, repeat: int = 2000) -> None:
    url = f"/api/characters/{character_id}/"
    etag = client.get(url)["ETag"]
    for name, headers in (("200", {}), ("304", {"HTTP_IF_NONE_MATCH": etag})):
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            response = client.get(url, **headers)
            times.append((time.perf_counter() - started) * 1000)
        assert str(response.status_code) == name, response.status_code
        print(
            f"character read as its player, {name}: p50 {quantile(times, 0.5):.3f} ms, "
            f"p99 {quantile(times, 0.99):.3f} ms ({repeat} reads)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=160_000)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--reads-only", action="store_true")
    parser.add_argument("--character", type=int)
    args = parser.parse_args()
    if args.reads_only:
        from campaign.models import Character

        character = Character.objects.select_related("player").get(pk=args.character)
        reads(character.pk, _client(character.player))
        return
    if args.character:
        from campaign.models import Character

        character = Character.objects.select_related("campaign").get(pk=args.character)
        gm_user = character.campaign.memberships.get(role="gm").user
        character_id, gm, player = character.pk, _client(gm_user), _client(character.player)
    else:
        character_id, gm, player = seed(args.events)
    read_all("player", player, character_id, args.limit)
    read_all("GM", gm, character_id, args.limit)
    reads(character_id, player)
    print(f"character {character_id}")


if __name__ == "__main__":
    main()
