"""Raw SQL that migrations run on some database vendors only (triggers and functions differ per vendor)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def run_for_vendor(statements_by_vendor: dict[str, list[str]]) -> Callable[[Any, Any], None]:
    """A `RunPython` function executing the statements listed for the migrating database's vendor, if any."""

    def run(apps: Any, schema_editor: Any) -> None:
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement, params=None)

    return run
