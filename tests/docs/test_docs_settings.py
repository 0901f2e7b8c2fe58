"""Every environment variable the code reads is in a configuration table of the docs (docs/operations.md,
"Configuration", for the server's settings; docs/PERFORMANCE.md for the bench's own)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_READERS = {"env_bool", "env_list", "env_int", "env_rate"}  # campaign/settings.py's helpers


def _read_variables(path: Path) -> set[str]:
    """The names `os.environ.get("X", ...)`, `os.environ["X"]`, `os.getenv("X")` and the settings' helpers
    `env_int("X", ...)` read in a module."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = ast.unparse(node.func)
            if name in ("os.environ.get", "os.getenv") or name in SETTINGS_READERS:
                found.add(node.args[0].value)
        elif (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value) == "os.environ"
            and isinstance(node.slice, ast.Constant)
        ):
            found.add(node.slice.value)
    return found


def _table_variables(document: Path) -> set[str]:
    """The names in the first column of the document's tables headed `| variable |`."""
    names = set()
    in_table = False
    for line in document.read_text().splitlines():
        if line.startswith("| variable |"):
            in_table = True
        elif not line.startswith("|"):
            in_table = False
        elif in_table:
            names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1]))
    return names


def test_every_variable_the_settings_read_is_in_the_configuration_table() -> None:
    read = _read_variables(ROOT / "campaign" / "settings.py") | {"DATABASE_URL"}  # dj_database_url reads it
    assert len(read) > 40
    assert read - _table_variables(ROOT / "docs" / "operations.md") == set()


def test_every_variable_the_rest_of_the_code_reads_is_in_a_table() -> None:
    modules = [
        path
        for folder in ("campaign", "perf", "rules")
        for path in (ROOT / folder).rglob("*.py")
        if path.name != "settings.py"
    ]
    read = set().union(*map(_read_variables, modules))
    documented = _table_variables(ROOT / "docs" / "operations.md") | _table_variables(
        ROOT / "docs" / "PERFORMANCE.md"
    )
    assert {"CHROME_PATH", "BENCH_BROKER_URL"} <= read
    assert read - documented == set()


def test_a_variable_read_but_not_in_a_table_would_be_found(tmp_path: Path) -> None:
    module = tmp_path / "settings.py"
    module.write_text(
        'import os\nA = os.environ.get("ONE", "1")\nB = env_int("TWO", 2)\nC = os.environ["THREE"]\n'
    )
    document = tmp_path / "doc.md"
    document.write_text(
        "| variable | default |\n|---|---|\n| `ONE`, `TWO` | 1, 2 |\n\n| `THREE` | not a table row |\n"
    )
    assert _read_variables(module) == {"ONE", "TWO", "THREE"}
    assert _read_variables(module) - _table_variables(document) == {"THREE"}
