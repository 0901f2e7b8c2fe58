"""The rebuild row: the read models made again from a million events, against a raw read of the same rows."""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from campaign.ledger.projections import rebuild_campaign
from campaign.models import Campaign, Character, Event
from perf.harness.databases import sqlite_path
from perf.harness.measure import profiled
from perf.harness.mixes import MIXES
from perf.harness.seeding import copy_streams, templates


def rebuild(events: int, profile: str | None = None) -> dict[str, Any]:
    """rebuild_campaign over `events` events (two rulesets) vs a raw read + json.loads of the same rows."""
    campaigns = []
    for ruleset in MIXES:
        campaign, originals = templates(ruleset, 20, 40)
        copy_streams(campaign, originals, events // len(MIXES))
        campaigns.append((campaign, originals))
    total = Event.objects.count()
    template_ids = [t.pk for _, originals in campaigns for t in originals]
    expected = dict(Character.objects.filter(pk__in=template_ids).values_list("pk", "state"))
    raw_seconds = _raw_read(sqlite_path(), [c.pk for c, _ in campaigns])
    started = time.perf_counter()
    with profiled(profile):
        read = sum(rebuild_campaign(Campaign.objects.get(pk=c.pk)) for c, _ in campaigns)
    seconds = time.perf_counter() - started
    raw_seconds = min(raw_seconds, _raw_read(sqlite_path(), [c.pk for c, _ in campaigns]))
    # The copies must come out exactly as the templates the action path produced.
    for campaign, originals in campaigns:
        copies = Character.objects.filter(campaign=campaign, name__startswith="copy ").order_by("pk")[
            : len(originals)
        ]
        for template, copied in zip(originals, copies, strict=True):
            template.refresh_from_db()
            assert template.state == expected[template.pk], f"rebuild changed {template.name}"
            assert copied.state == expected[template.pk], f"rebuild diverged for {copied.name}"
    return {
        "rate": read / seconds,
        "baseline": read / raw_seconds,
        "unit": "events/s",
        "events": read,
        "events_in_database": total,
        "characters": Character.objects.count(),
        "baseline_what": "raw sqlite3 SELECT of the same columns in the same order + json.loads of every data",
    }


def _raw_read(path: str, campaign_ids: list[int]) -> float:
    db = sqlite3.connect(path)
    started = time.perf_counter()
    for campaign_id in campaign_ids:
        # The SELECT of rebuild_campaign (same columns, same order).
        cursor = db.execute(
            "SELECT character_id, version, type, schema_version, data, game_time "
            "FROM campaign_event WHERE campaign_id = ? ORDER BY position",
            [campaign_id],
        )
        while batch := cursor.fetchmany(5000):
            for row in batch:
                json.loads(row[4])
    seconds = time.perf_counter() - started
    db.close()
    return seconds
