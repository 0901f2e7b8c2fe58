"""docs/architecture.md is the code's: its import graph (each part of `campaign/` and the parts it imports), its
rooms (every folder of `campaign/`), and every module, name and path it gives."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests.architecture.test_architecture import _import_graph

ROOT = Path(__file__).resolve().parents[2]


def _part(module: str) -> str:
    """The module's top-level part of the app: `campaign.web.views.board` is `web`, `campaign` is `__init__`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _code_graph() -> dict[str, set[str]]:
    graph, _ = _import_graph()
    parts: dict[str, set[str]] = {}
    for module, imported in graph.items():
        if module.startswith("campaign"):
            ours = (name for name in imported if name.startswith("campaign"))
            parts.setdefault(_part(module), set()).update(_part(name) for name in ours)
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


DOCUMENT = ROOT / "docs" / "architecture.md"
# Where a short name in the page is looked for: `eventstore.append` is campaign.ledger.eventstore's.
PLACES = (
    "",
    "campaign.",
    "campaign.ledger.",
    "campaign.selectors.",
    "campaign.services.",
    "campaign.presenters.",
    "campaign.http.",
    "campaign.forecast.",
    "campaign.web.",
    "campaign.api.",
    "rules.",
    "django.db.",
)
DOTTED = re.compile(r"`([a-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?`")
PATH = re.compile(r"`((?:[\w.-]+/)+[\w.-]*)`")


def _resolves(dotted: str) -> bool:
    """Whether `dotted` names a module, or an attribute of one, of the app or the rules."""
    parts = dotted.split(".")
    for place in PLACES:
        for cut in range(len(parts), 0, -1):
            try:
                found: object = importlib.import_module(place + ".".join(parts[:cut]))
            except ImportError:
                continue
            for name in parts[cut:]:
                found = getattr(found, name, _MISSING)
            if found is not _MISSING:
                return True
    return False


_MISSING = object()


def _unresolved(text: str) -> list[str]:
    dotted = DOTTED.findall(text)
    names = [name for name in dotted if not name.endswith((".py", ".md", ".html"))]
    paths = [path for path in PATH.findall(text) if "<" not in path]
    paths += [name for name in dotted if name.endswith((".py", ".md", ".html"))]
    return [name for name in names if not _resolves(name)] + [
        path for path in paths if not (ROOT / path).exists() and not (ROOT / "campaign" / path).exists()
    ]


def test_every_module_name_and_path_the_page_gives_exists() -> None:
    """No name of a time before (`rules.decide`, a module since moved): a reader finds what the page says."""
    text = DOCUMENT.read_text()
    assert len(DOTTED.findall(text)) > 30 and len(PATH.findall(text)) > 20
    assert _unresolved(text) == []


def test_a_name_or_a_path_that_does_not_exist_would_be_found() -> None:
    assert _unresolved("`services.character_act` `eventstore.append` `web/views/cards.py`") == []
    assert _unresolved("`rules.decide` `campaign.facade` `campaign/presenters.py`") == [
        "rules.decide",
        "campaign.facade",
        "campaign/presenters.py",
    ]


def test_the_page_gives_every_folder_of_the_app_its_paragraph() -> None:
    """The folders are the layout: each has its paragraph under "The rooms", and the page names no other."""
    rooms = DOCUMENT.read_text().split("## The rooms", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"\*\*`(?:campaign/)?([a-z_]+)/`\*\*", rooms))
    folders = {path.name for path in (ROOT / "campaign").iterdir() if (path / "__init__.py").exists()}
    assert named - {"rules"} == folders
