"""A lock on a name rather than a row: what one user creates, one creation after the other (`campaign.http.limits`
counts them under it). The campaign's own lock is its row's (`eventstore.lock_campaign`)."""

from __future__ import annotations

from django.db import transaction


def lock_key(key: str) -> None:
    """Hold `key` until the transaction ends: what else takes it waits (one user's creations, one after the other:
    `campaign.http.limits`). On PostgreSQL a lock on the key alone (an advisory lock); on SQLite every writing
    transaction holds the database's write lock already."""
    connection = transaction.get_connection()
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [key])
