"""docs/architecture.md's import graph is the code's: each package of `campaign/` and the ones it imports."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_architecture import _import_graph

ROOT = Path(__file__).resolve().parent.parent


def _part(module: str) -> str:
    """The module's top-level part of the app: `campaign.web.views.board` is `web`, `campaign` is `__init__`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _code_graph() -> dict[str, set[str]]:
    graph, _ = _import_graph()
    parts: dict[str, set[str]] = {}
    for module, imported in graph.items():
        parts.setdefault(_part(module), set()).update(_part(name) for name in imported)
    return {part: targets - {part} for part, targets in parts.items()}


def _documented_lines() -> tuple[list[tuple[str, set[str]]], list[str]]:
    """The graph's lines in their order, each (part, the parts it imports), and the parts that import none."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("### The import graph", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    lines = [
        (name, {target.strip() for target in targets.split(",")})
        for name, targets in re.findall(r"^(\S+)\s+->\s+(.+)$", block, re.MULTILINE)
    ]
    leaves = section.split("The rest import no module of the app:", 1)[1]
    return lines, re.findall(r"`(\w+)`", leaves)


def test_the_documented_import_graph_is_the_codes() -> None:
    lines, leaves = _documented_lines()
    assert {**dict(lines), **{leaf: set() for leaf in leaves}} == _code_graph()


def test_the_documented_import_graph_lists_callers_first() -> None:
    """Each line imports only what a later line or the rest names: the list reads down, never back up."""
    lines, _ = _documented_lines()
    above = set()
    for name, targets in lines:
        above.add(name)
        assert targets & above == set(), name
