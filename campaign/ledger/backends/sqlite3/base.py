"""Django's SQLite backend, with a transaction's BEGIN and COMMIT sent straight to the driver.

Every action opens and ends a transaction. Django sends SQLite's `BEGIN IMMEDIATE` through a new cursor of its own
(a cursor object, its wrapper and its error translation, for a statement with no parameters) and wraps COMMIT in
the query log's context manager even when nothing is logged. Here both go straight to the driver's connection,
with Django's translation of database errors, whenever nothing watches the connection's statements: with the
query log on (DEBUG, `CaptureQueriesContext`) or an `execute_wrapper` installed (the tests' fault injection),
Django's own path runs, so they see every BEGIN as before.
"""

from __future__ import annotations

from django.db.backends.sqlite3 import base


class DatabaseWrapper(base.DatabaseWrapper):
    def _watched(self) -> bool:
        return bool(self.queries_logged or self.execute_wrappers)

    def _start_transaction_under_autocommit(self) -> None:
        if self._watched():
            super()._start_transaction_under_autocommit()
            return
        with self.wrap_database_errors:
            self.connection.execute(
                "BEGIN" if self.transaction_mode is None else f"BEGIN {self.transaction_mode}"
            )

    def _commit(self) -> None:
        if self.connection is None or self._watched():
            super()._commit()
            return
        with self.wrap_database_errors:
            self.connection.commit()
