"""Every relative link in the README and docs/ leads somewhere: the file exists, and an anchor names a heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "rules").glob("*/README.md")])

LINK = re.compile(r"!?\[[^\]]*\]\(([^()\s]+)\)")  # [text](target) and ![alt](target)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`[^`\n]*`")


def _links(document: Path) -> list[str]:
    text = CODE.sub("", FENCE.sub("", document.read_text()))
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def _anchors(document: Path) -> set[str]:
    """GitHub's anchors of a document's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+\s+(.+?)\s*$", FENCE.sub("", document.read_text()), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def _broken(document: Path) -> list[str]:
    broken = []
    for target in _links(document):
        path, _, anchor = target.partition("#")
        destination = (document.parent / path).resolve() if path else document
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in _anchors(destination):
            broken.append(f"{target}: no heading with that anchor")
    return broken


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_of_a_document_resolves(document: Path) -> None:
    assert _broken(document) == []


def test_a_broken_link_or_anchor_would_be_found(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# The board\n\n## What it keeps\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#what-it-keeps) [gone](docs/there.md) [bad](there.md#nothing) "
        "[web](https://example.org/x) `[code](nowhere.md)`\n"
    )
    assert _broken(page) == ["docs/there.md: no such file", "there.md#nothing: no heading with that anchor"]
