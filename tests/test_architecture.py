"""Where knowledge lives: the rules know nothing of Django, and the app knows no ruleset by name."""

from __future__ import annotations

import ast
import pickle
import re
import subprocess
import sys
from pathlib import Path

from rules.registry import ruleset_slugs

ROOT = Path(__file__).resolve().parent.parent


def _parse(path: Path) -> ast.Module:
    """The module's tree. CPython 3.11.7's parser keeps a recursion count that an earlier RecursionError in the same
    process can leave off ("AST constructor recursion depth mismatch", a SystemError, gh-106905): then the tree is
    parsed in a fresh interpreter."""
    try:
        return ast.parse(path.read_text(), str(path))
    except SystemError:
        script = "import ast, pickle, sys; sys.stdout.buffer.write(pickle.dumps(ast.parse(open(sys.argv[1]).read())))"
        done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, check=True)
        return pickle.loads(done.stdout)


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(_parse(path)):
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
    template. Every file counts, migrations and management commands too, but the docs page's example answers
    (`campaign/api/examples.py`): answers the app gave to a seeded campaign, which has a ruleset, kept as data."""
    slugs = re.compile("|".join(ruleset_slugs()))
    files = [
        path
        for folder in (ROOT / "campaign", ROOT / "templates")
        for path in folder.rglob("*")
        if path.is_file() and path.suffix != ".pyc" and path != ROOT / "campaign" / "api" / "examples.py"
    ]
    named = {
        f"{path.relative_to(ROOT)}:{number}": line.strip()
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if slugs.search(line)
    }
    assert len(files) > 50
    assert named == {}


# --- the app's own modules: no import cycle, none hidden in a function (docs/architecture.md) ------------------

# A function-level import of one of the app's modules, where Django's loading leaves no other place: the app's
# `ready()` connects the tasks to the queue once the models are loaded (tasks.py reads them at its import), and a
# data migration reads the app's code when it runs, not when the migrations are loaded.
IMPORTED_IN_A_FUNCTION = {
    ("campaign.apps", "campaign.tasks"),
    ("campaign.migrations.0011_character_player_version", "campaign.secrecy"),
}


def _app_modules() -> dict[str, Path]:
    modules = {}
    for path in (ROOT / "campaign").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _targets(module: str, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> set[str]:
    """The app's modules an import statement runs: each module named, and the packages above it that the
    importing module is not already inside (importing `campaign.services.core` from outside runs
    `campaign/services/__init__.py` first)."""
    if isinstance(node, ast.Import):
        named = {alias.name for alias in node.names}
    else:
        base = node.module or ""
        if node.level:  # relative: from the module's package (itself, for an __init__), up `level - 1`
            package = module.split(".")
            if modules[module].name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, *([base] if base else [])])
        named = {
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
        }
    found = set()
    for name in named:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if not name.startswith("campaign"):
            continue
        found.add(name)
        parent = name.rpartition(".")[0]
        while parent and not (module == parent or module.startswith(f"{parent}.")):
            found.add(parent)
            parent = parent.rpartition(".")[0]
    return found - {module}


def _import_graph() -> tuple[dict[str, set[str]], set[tuple[str, str]]]:
    """Every module of campaign/ and the app's modules it imports, at its top or in a function; and the
    (module, imported) pairs imported in a function."""
    modules = _app_modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    in_functions = set()
    for name, path in modules.items():
        tree = _parse(path)
        nested = {
            id(sub)
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            for sub in ast.walk(node)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                targets = _targets(name, node, modules)
                graph[name] |= targets
                if id(node) in nested:
                    in_functions |= {(name, target) for target in targets}
    return graph, in_functions


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan's), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_apps_modules_import_each_other_without_a_cycle() -> None:
    """The services call down (rules, the event store, the projections), the views and the tasks call the
    services, and nothing calls back up: an import inside a function counts as much as one at the top."""
    graph, _ = _import_graph()
    assert len(graph) > 60
    assert {"campaign.services.core", "campaign.queue"} <= graph["campaign.services.clock"]
    assert "campaign.services" in graph["campaign.tasks"]
    assert _cycles(graph) == []


def test_no_module_of_the_app_is_imported_inside_a_function() -> None:
    """An import inside a function is how a cycle hides; the one exception is Django's app loading's."""
    _, in_functions = _import_graph()
    assert in_functions == IMPORTED_IN_A_FUNCTION


def test_a_cycle_or_a_hidden_import_would_be_found() -> None:
    """The checks above can fail: the graph of `services -> tasks -> services`, as before the queue's port."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    modules = {"campaign.services": Path("__init__.py"), "campaign.services.core": Path("core.py")}
    node = ast.parse("from campaign.services.core import ServiceError").body[0]
    assert _targets("campaign.tasks", node, modules) == {"campaign.services", "campaign.services.core"}
    assert _targets("campaign.services.clock", node, modules) == {"campaign.services.core"}


def test_no_module_of_the_app_is_over_700_lines() -> None:
    """A newcomer reads a module whole (migrations are written once and never read so)."""
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in (ROOT / "campaign").rglob("*.py")
        if "migrations" not in path.parts
    }
    assert len(sizes) > 60
    assert {path: size for path, size in sizes.items() if size > 700} == {}
