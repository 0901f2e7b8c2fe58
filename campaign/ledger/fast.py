"""The ledger's speed tricks, each beside the plain Django ORM way of doing the same thing.

LEDGER_PLAIN_ORM (settings, docs/operations.md) switches every trick, or some by name, to its plain way; the plain
path writes the same events, versions and read models and gives the same answers (`make test-plain-orm` runs the
event-store and action tests on it). `manage.py bench --plain` runs each row a trick serves with that trick plain
and prints what it buys (docs/speed-tricks.md: the figures, and why each trick stays).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models


class Trick(NamedTuple):
    """A speed trick: what it does instead of the ORM, and the bench's rows it serves."""

    what: str
    rows: tuple[str, ...]


TRICKS: dict[str, Trick] = {
    "driver_cursor": Trick(
        "a command's statements on the driver's cursor, not Django's", ("actions", "http_action", "postgres")
    ),
    "instance_loader": Trick(
        "model instances of the rows a command reads and writes built without Model.__init__",
        ("actions", "http_action", "postgres"),
    ),
    "command_read": Trick(
        "the read under the lock (character, campaign, open job, the key's holders) in one statement",
        ("actions", "http_action", "postgres"),
    ),
    "command_write": Trick(
        "the events' INSERT and the projection's writes in hand-built SQL (on PostgreSQL one statement)",
        ("actions", "http_action", "postgres"),
    ),
    "token_query": Trick("the API's token check in one raw query", ("http_action",)),
    "sqlite_transactions": Trick(
        "SQLite's BEGIN and COMMIT sent straight to the driver (campaign.ledger.backends.sqlite3)",
        ("actions", "http_action"),
    ),
    "postgres_begin": Trick(
        "PostgreSQL's BEGIN sent with the transaction's first statement (campaign.ledger.backends.postgresql)",
        ("postgres",),
    ),
    "rebuild_read": Trick(
        "the rebuild's read of the log on a raw cursor, data decoded only where needed", ("rebuild",)
    ),
    "read_model_writes": Trick(
        "the rebuild's and the import's read models written by executemany, not bulk_update",
        ("rebuild", "import"),
    ),
    "import_inserts": Trick(
        "an import's events and characters in multi-row INSERTs (COPY on PostgreSQL), not bulk_create",
        ("import",),
    ),
}
ALL = "all"  # LEDGER_PLAIN_ORM=1: every trick plain

_unknown = settings.LEDGER_PLAIN_ORM - TRICKS.keys() - {ALL}
if _unknown:
    raise ImproperlyConfigured(
        f"LEDGER_PLAIN_ORM: no trick named {', '.join(sorted(_unknown))}; expected 1 or some of {', '.join(TRICKS)}"
    )


def plain(trick: str) -> bool:
    """Whether `trick` is switched to its plain ORM way (LEDGER_PLAIN_ORM), read on every call: a test may
    switch it with `override_settings`."""
    switched = settings.LEDGER_PLAIN_ORM
    return bool(switched) and (ALL in switched or trick in switched)


class PlainWrite(NamedTuple):
    """A write beside the append in the ORM's own terms (`command_write` plain): `run` makes it and answers how
    many rows it touched. `one_row_of` as `eventstore.Write`'s."""

    run: Callable[[], int]
    one_row_of: type[models.Model] | None = None
