"""Whether a database error means the database is gone, rather than that it refused a statement: the services
retry a busy database and give up on a gone one, and the HTTP edge answers the latter with a 503
(`campaign.http.outages`)."""

from __future__ import annotations

from django.db import DatabaseError, connections

# PostgreSQL's classes of errors that mean the connection is gone, not that a statement was refused: 08
# (connection exception), 57P01-57P03 (the server is shutting down or not yet accepting connections).
_LOST = ("08", "57P01", "57P02", "57P03")


def database_unreachable(error: BaseException, alias: str = "default") -> bool:
    """Whether a database error means the database cannot be reached (it refused the connection, or dropped it),
    rather than that it refused a statement (a trigger, a constraint, a full disk)."""
    if not isinstance(error, DatabaseError):
        return False
    sqlstate = getattr(error.__cause__, "sqlstate", None)
    if sqlstate is not None and sqlstate.startswith(_LOST):
        return True
    wrapper = connections[alias]
    raw = wrapper.connection
    # Connecting failed (Django keeps no connection), Django closed it inside a transaction (it keeps the closed
    # one until the transaction ends), or psycopg marked the one it had as broken or closed.
    return (
        raw is None
        or wrapper.closed_in_transaction
        or bool(getattr(raw, "broken", False))
        or getattr(raw, "closed", False) is True
    )
