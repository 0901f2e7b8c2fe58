"""Django's PostgreSQL backend, with the BEGIN of a transaction sent in the same round trip as its first statement.

Django starts a transaction by turning the driver's autocommit off, and psycopg then sends BEGIN on its own, one
round trip, before the first statement. Every action pays that trip. Here an outermost `atomic` block leaves the
driver in autocommit and notes that BEGIN is owed (Django's hook for backends that start transactions themselves,
as SQLite's does). The first statement pays the debt: the read of a command sends `BEGIN; SELECT ...` as one
message (`eventstore.lock_for_character`), and anything else sends BEGIN just before it (`begin_now`). COMMIT and
ROLLBACK are the driver's as usual; a block that ran no statement has nothing to end. If sending the BEGIN fails,
the block is marked for rollback, so nothing else runs in a transaction that may not exist.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db.backends.postgresql import base
from psycopg import IsolationLevel
from psycopg.pq import Format


class DatabaseWrapper(base.DatabaseWrapper):
    begin_owed = False

    def _start_transaction_under_autocommit(self) -> None:
        self.begin_owed = True

    def begin_statement(self) -> str:
        """The BEGIN psycopg itself would send, isolation level included."""
        level = self.connection.isolation_level
        if level is None:
            return "BEGIN"
        return f"BEGIN ISOLATION LEVEL {IsolationLevel(level).name.replace('_', ' ')}"

    def take_begin(self) -> str | None:
        """The BEGIN owed, for a caller that sends it with its own first statement, or None if none is owed."""
        if not self.begin_owed:
            return None
        self.begin_owed = False
        return self.begin_statement()

    def begin_now(self) -> None:
        """Send the BEGIN owed, if any: before any statement of the transaction."""
        begin = self.take_begin()
        if begin is not None:
            with self.beginning(), self.wrap_database_errors:
                self.connection.execute(begin, prepare=False)

    @contextmanager
    def beginning(self) -> Iterator[None]:
        """Around the sending of an owed BEGIN: if it fails, the block's transaction may not exist, so nothing more
        may run in it (Django refuses statements in a block marked for rollback) until the block ends."""
        try:
            yield
        except BaseException:
            if self.in_atomic_block:
                self.needs_rollback = True
            raise

    def create_cursor(self, name: Any = None) -> Any:
        self.begin_now()
        if not name or self.get_autocommit():
            return super().create_cursor(name)
        # A named (server-side) cursor inside a transaction. Django makes it WITH HOLD when the driver is in
        # autocommit, which this backend leaves on: it would outlive the transaction and copy out its rows at COMMIT.
        if self.settings_dict["OPTIONS"].get("server_side_binding") is True:
            cursor = self.connection.cursor(name, scrollable=False, withhold=False)
        else:
            cursor = base.ServerSideCursor(self.connection, name=name, scrollable=False, withhold=False)
        if self.timezone != self.connection.adapters.get_loader(base.TIMESTAMPTZ_OID, Format.TEXT).timezone:
            base.register_tzloader(self.timezone, cursor)
        return cursor

    def _set_autocommit(self, autocommit: bool) -> None:
        self.begin_owed = False
        if self.connection.autocommit != autocommit:
            super()._set_autocommit(autocommit)

    def _commit(self) -> None:
        self.begin_owed = False
        super()._commit()

    def _rollback(self) -> None:
        self.begin_owed = False
        super()._rollback()

    def _close(self) -> None:
        self.begin_owed = False
        super()._close()
