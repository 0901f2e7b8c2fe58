"""Where knowledge lives: the rules know nothing of Django, and the app knows no ruleset by name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rules.registry import ruleset_slugs

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_rules_never_import_django_or_the_app() -> None:
    found = {
        str(path.relative_to(ROOT)): sorted(_imports(path) & {"django", "rest_framework", "campaign"})
        for path in (ROOT / "rules").rglob("*.py")
    }
    assert {path: names for path, names in found.items() if names} == {}


def test_the_app_and_its_templates_name_no_ruleset() -> None:
    """Everything the app knows of a ruleset comes from `rules/<slug>/` through the Ruleset, so a new ruleset is
    a new folder: no `if ruleset == ...` in a view, no list of a ruleset's fields in a form, no slug in a
    template. Every file counts, migrations and management commands too."""
    slugs = re.compile("|".join(ruleset_slugs()))
    files = [
        path
        for folder in (ROOT / "campaign", ROOT / "templates")
        for path in folder.rglob("*")
        if path.is_file() and path.suffix != ".pyc"
    ]
    named = {
        f"{path.relative_to(ROOT)}:{number}": line.strip()
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if slugs.search(line)
    }
    assert len(files) > 50
    assert named == {}
