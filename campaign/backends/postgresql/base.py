"""Django's PostgreSQL backend, with the BEGIN of a transaction sent in the same round trip as its first statement.

Django starts a transaction by turning the driver's autocommit off, and psycopg then sends BEGIN on its own, one
round trip, before the first statement. Every action pays that trip. Here an outermost `atomic` block leaves the
driver in autocommit and notes that BEGIN is owed (Django's hook for backends that start transactions themselves,
as SQLite's does). The first statement pays the debt: the read of a command sends `BEGIN; SELECT ...` as one
message (`eventstore.lock_for_character`), and anything else sends BEGIN just before it (`begin_now`). COMMIT and
ROLLBACK are the driver's as usual; a block that ran no statement has nothing to end.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base
from psycopg import IsolationLevel


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
            with self.wrap_database_errors:
                self.connection.execute(begin, prepare=False)

    def create_cursor(self, name: Any = None) -> Any:
        self.begin_now()
        return super().create_cursor(name)

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
