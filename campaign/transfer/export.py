"""An export: the campaign's log as JSON Lines, one event a line in global order, then the trailer."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from campaign import services
from campaign.models import Campaign, Event
from campaign.selectors.jobs import open_job
from campaign.services import Conflict

FORMAT = "wound-ledger/1"


def export_lines(campaign: Campaign) -> Iterator[dict[str, Any]]:
    rows = Event.objects.filter(campaign=campaign).order_by("position")
    for row in rows.iterator(chunk_size=2000):
        yield {
            "format": FORMAT,
            "position": row.position,
            "stream": "campaign" if row.character_id is None else f"character:{row.character_id}",
            "version": row.version,
            "type": row.type,
            "schema_version": row.schema_version,
            "data": row.data,
            "game_time": row.game_time,
            "recorded_at": row.recorded_at.isoformat(),
            "actor": row.actor,
            "cause": row.cause,
        }


def _line(item: dict[str, Any]) -> str:
    # ASCII only (json.dumps escapes the rest), so the text and the bytes the trailer hashes are one and the same.
    return json.dumps(item, separators=(",", ":")) + "\n"


def export_text(campaign: Campaign) -> Iterator[str]:
    """The export's lines, streamed, then its trailer: the count and SHA-256 of the lines, hashed as they go.

    Refused (409) while an advance is open: its firings are in the log before its `ClockAdvanced` is, so a copy
    made from the file would have its clock behind them, and the copy's next note would be dated before them
    (docs/clock.md, "Faults"). Checked here, before the first line, so that the answer can still be a 409."""
    busy = open_job(campaign)
    if busy is not None:
        raise Conflict("clock", services.clock_busy(busy.pk))
    return _export_text(campaign)


def _export_text(campaign: Campaign) -> Iterator[str]:
    digest = hashlib.sha256()
    count = 0
    for item in export_lines(campaign):
        text = _line(item)
        digest.update(text.encode("ascii"))
        count += 1
        yield text
    yield _line({"format": FORMAT, "trailer": True, "lines": count, "sha256": digest.hexdigest()})
