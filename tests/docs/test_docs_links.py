"""Every relative link in the README and docs/ leads somewhere: the file exists, and an anchor names a heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "rules").glob("*/README.md")]
)

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


# A reference to the rules or the seed texts that once lived beside the repository, in a folder a fresh clone does
# not have (issue 41): the folder, a seed's file name, or the design and style notes kept there. The pattern is spelt so that it does not match itself.
OUTSIDE = re.compile(
    rb"\.\./shared/|shared/(?:RULES\.md|seeds)|\b\d{3}_[0-9a-f]{16}\.txt\b|\b(?:DESIGN|STYLE)\.md\b"
)
NOT_THE_REPOSITORY = {".venv", ".git", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache"}


def _outside_references(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or NOT_THE_REPOSITORY & set(path.relative_to(root).parts):
            continue
        if path == Path(__file__).resolve():  # its examples below
            continue
        for number, line in enumerate(path.read_bytes().splitlines(), start=1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(root)}:{number}")
    return found


def test_nothing_in_the_repository_sends_a_reader_outside_it() -> None:
    """The rules are docs/rules/; a newcomer's clone has no shared folder beside it."""
    assert _outside_references(ROOT) == []


def test_a_reference_outside_the_repository_would_be_found(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("rules: `../shared/RULES.md`\nsee docs/rules/README.md\n")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "tables.py").write_text(
        '"""From shared/seeds/004.txt, the seed 002_45f2777dde75d38e.txt."""\n'
    )
    (tmp_path / "spec.md").write_text("Spec: `shared/RULES.md` section 3\n")
    (tmp_path / "seed.md").write_text("the seed `004_f38e51d0ce97b282.txt`\n")
    (tmp_path / "views.py").write_text('"""The API of DESIGN.md, in the manner of STYLE.md 5."""\n')
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "notes.md").write_text("../shared/RULES.md\n")
    assert _outside_references(tmp_path) == [
        "README.md:1",
        "rules/tables.py:1",
        "seed.md:1",
        "spec.md:1",
        "views.py:1",
    ]
