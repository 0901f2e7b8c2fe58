"""Where knowledge lives: the rules know nothing of Django, the app knows no ruleset by name, nothing imports in a
circle, the reads live in the selectors, presenters read nothing, and services present nothing (docs/architecture.md)."""

from __future__ import annotations

import ast
import functools
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rules.registry import ruleset_slugs

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def _parse(path: Path) -> ast.Module:
    """The module's tree (parsed once per run: the checks below read every module several times). CPython 3.11.7's parser keeps a recursion count that an earlier RecursionError in the same
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


# --- the app's and the rules' modules: no import cycle, none hidden in a function (docs/architecture.md) --------

# A function-level import of one of the app's modules, where Django's loading leaves no other place: the app's
# `ready()` connects the tasks to the queue once the models are loaded (tasks.py reads them at its import), and a
# data migration reads the app's code and the rules when it runs, not when the migrations are loaded.
IMPORTED_IN_A_FUNCTION = {
    ("campaign.apps", "campaign.tasks"),
    ("campaign.migrations.0011_character_player_version", "campaign.ledger"),
    ("campaign.migrations.0011_character_player_version", "campaign.ledger.secrecy"),
    ("campaign.migrations.0011_character_player_version", "rules"),
    ("campaign.migrations.0011_character_player_version", "rules.registry"),
}


OURS = ("campaign", "rules")


def _app_modules(packages: tuple[str, ...] = OURS) -> dict[str, Path]:
    """Every module of the `packages` (campaign/ and rules/ unless asked), by its dotted name."""
    modules = {}
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            if "node_modules" in path.parts:  # perf/lighthouse's npm packages
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _targets(module: str, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` an import statement runs: each module named, and the packages above it that the
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
        if not name:  # Django, the standard library: not one of `modules`
            continue
        found.add(name)
        parent = name.rpartition(".")[0]
        while parent and not (module == parent or module.startswith(f"{parent}.")):
            if parent in modules:
                found.add(parent)
            parent = parent.rpartition(".")[0]
    return found - {module}


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The nodes under `if TYPE_CHECKING:` (not its `else:`): imports for type hints alone, which never run."""
    return {
        id(sub)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for part in node.body
        for sub in ast.walk(part)
    }


def _import_graph(packages: tuple[str, ...] = OURS) -> tuple[dict[str, set[str]], set[tuple[str, str]]]:
    """Every module of the `packages` (campaign/ and rules/ unless asked) and those of their modules it imports, at
    its top or in a function (type hints alone, under `if TYPE_CHECKING:`, import nothing: a type checker's, not a
    dependency); and the (module, imported) pairs imported in a function."""
    modules = _app_modules(packages)
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
        hints = _type_checking_only(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in hints:
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


def test_the_apps_and_the_rules_modules_import_each_other_without_a_cycle() -> None:
    """The services call down (rules, the ledger, the selectors), the views and the tasks call the services and
    the selectors, and nothing calls back up, in campaign/ and rules/ alike: an import inside a function counts as
    much as one at the top."""
    graph, _ = _import_graph()
    assert len([name for name in graph if name.startswith("rules")]) > 30
    assert len([name for name in graph if name.startswith("campaign")]) > 80
    assert {"campaign.services.core", "campaign.queue", "rules.clock"} <= graph["campaign.services.clock"]
    assert "campaign.services" in graph["campaign.tasks"]
    assert "rules.ruleset" in graph["rules.forecast"]
    assert _cycles(graph) == []


def test_no_module_of_the_app_or_the_rules_is_imported_inside_a_function() -> None:
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
    hinted = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from campaign.models import Job\n"
    )
    assert {id(node) for node in ast.walk(hinted) if isinstance(node, ast.ImportFrom)} & _type_checking_only(
        hinted
    )


def test_no_module_of_the_app_is_over_700_lines() -> None:
    """A newcomer reads a module whole (migrations are written once and never read so)."""
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in (ROOT / "campaign").rglob("*.py")
        if "migrations" not in path.parts
    }
    assert len(sizes) > 60
    assert {path: size for path, size in sizes.items() if size > 700} == {}


# --- where the reads live: the ledger and the selectors (docs/architecture.md, "The rooms") ---------------------

# What asks the database: a model's manager, a queryset's or a model's method that reads or writes rows, a cursor.
MANAGERS = {"objects", "_default_manager", "_base_manager"}
QUERY_CALLS = {
    "refresh_from_db",
    "raw",
    "cursor",
    "select_for_update",
    "select_related",
    "prefetch_related",
    "values_list",
    "aggregate",
    "annotate",
    "filter",
    "exclude",
    "order_by",
    "only",
    "get_or_create",
    "update_or_create",
    "bulk_create",
    "bulk_update",
}
QUERY_NAMES = {"command_cursor", "row_loader"}

# Where a query may be made, and why there.
QUERIES_BELONG = {
    "campaign/ledger/": "the log and the read models: where a row is written, and where it becomes an event",
    "campaign/selectors/": "every read the pages and the answers make",
    "campaign/services/": "the write path: what a command reads under its campaign's lock belongs to the write",
    "campaign/transfer/": "an export reads a campaign whole, an import writes one: the write path's of a file",
    "campaign/notify/outbox.py": "the outbox's rows are written in the command's transaction, under its lock, from "
    "what the command changed: the write path's, called by the services (notify imports no service)",
    "campaign/notify/deliver.py": "the delivery task's write path: it claims a row for a lease, marks how its "
    "sending went, and switches a failing hook off",
    "campaign/notify/push.py": "a push is a delivery: the devices the outbox writes rows for, and what a delivery "
    "loads to send (its subscription, character and events) and removes (a subscription the push service says is gone)",
    "campaign/migrations/": "Django's schema and data migrations, written once against the models of their time",
    "campaign/management/": "the operator's commands (seed, rebuild, export, import, bench), run by hand",
    "campaign/http/health.py": "the readiness probe asks the database itself (SELECT 1) and reads no row",
}


def _queries(path: Path) -> list[str]:
    """Where a module asks the database: `line: expression` for each manager, queryset method or cursor."""
    found = []
    for node in ast.walk(_parse(path)):
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(node, ast.Attribute) and node.attr in MANAGERS:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(called, ast.Attribute) and called.attr in QUERY_CALLS:
            found.append(f"{node.lineno}: {ast.unparse(called)}")
        elif isinstance(node, ast.Name) and node.id in QUERY_NAMES:
            found.append(f"{node.lineno}: {node.id}")
    return found


def test_no_module_queries_the_database_outside_the_ledger_the_selectors_and_the_write_path() -> None:
    """Views, presenters, the forecast, the HTTP edge, the tasks and the pages' parts read through a selector and
    write through a service: no manager, queryset or cursor of their own."""
    asking = {
        str(path.relative_to(ROOT)): lines
        for path in (ROOT / "campaign").rglob("*.py")
        if not str(path.relative_to(ROOT)).startswith(tuple(QUERIES_BELONG)) and (lines := _queries(path))
    }
    assert asking == {}
    allowed = [
        path
        for path in (ROOT / "campaign").rglob("*.py")
        if str(path.relative_to(ROOT)).startswith(("campaign/selectors/", "campaign/ledger/"))
    ]
    assert sum(len(_queries(path)) for path in allowed) > 100


def test_the_query_check_would_find_a_query() -> None:
    probe = ROOT / "campaign" / "selectors" / "characters.py"
    assert any("Character.objects" in line for line in _queries(probe))
    assert any(".refresh_from_db" in line for line in _queries(probe))
    probe = ROOT / "campaign" / "http" / "health.py"
    assert [line.split(": ", 1)[1] for line in _queries(probe)] == ["connections[DEFAULT_DB_ALIAS].cursor"]
    assert _queries(ROOT / "campaign" / "templatetags" / "ledger.py") == []  # `@register.filter` is no query


def _imported(path: Path) -> set[str]:
    """The modules a file imports, at its top or in a function, but not for type hints alone."""
    tree = _parse(path)
    hints = _type_checking_only(tree)
    names = set()
    for node in ast.walk(tree):
        if id(node) in hints:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_presenters_import_no_model_and_no_database() -> None:
    """Words and JSON only: a presenter is handed its rows (`campaign.selectors`); a model named for a type hint
    alone (`if TYPE_CHECKING:`) is no import."""
    files = list((ROOT / "campaign" / "presenters").rglob("*.py"))
    reaching = {
        str(path.relative_to(ROOT)): sorted(
            name
            for name in _imported(path)
            if name.endswith(".models")
            or ".models." in name
            or name.startswith(("django.db", "campaign.selectors"))
        )
        for path in files
    }
    assert len(files) >= 4
    assert {path: names for path, names in reaching.items() if names} == {}


def test_services_import_no_presenter() -> None:
    """The write path says its refusals in the calendar's words (`rules.game_dates`), never through presentation."""
    files = list((ROOT / "campaign" / "services").rglob("*.py"))
    presenting = {
        str(path.relative_to(ROOT)): sorted(
            name for name in _imported(path) if name.startswith("campaign.presenters")
        )
        for path in files
    }
    assert len(files) > 8
    assert {path: names for path, names in presenting.items() if names} == {}
    assert "campaign.presenters" in _imported(ROOT / "campaign" / "web" / "views" / "board.py")


# Where a ruleset is looked up by its slug; everywhere else it travels as the Ruleset object (`Campaign.rules`).
LOOKED_UP_BY_SLUG = {
    "campaign/models.py": "Campaign.rules: the one place a campaign's slug becomes its Ruleset",
    "campaign/selectors/access.py": "CharacterStamp.rules: the same, for the stamp's raw read",
    "campaign/services/campaigns.py": "a new campaign names its ruleset",
    "campaign/transfer/checks.py": "an imported file names its ruleset",
    "campaign/transfer/importing.py": "an imported file names its ruleset",
    "campaign/migrations/0011_character_player_version.py": "a migration's models have no Campaign.rules",
    "campaign/api/answers.py": "the API's schema describes every ruleset",
    "campaign/api/action_schema.py": "the API's schema describes every ruleset",
    "campaign/api/option_schema.py": "the API's schema describes every ruleset",
    "campaign/api/views/campaigns.py": "GET /api/rulesets/ describes every ruleset",
}


def test_a_ruleset_is_looked_up_by_its_slug_only_where_a_slug_comes_in() -> None:
    """The pages, the answers, the forms and the forecast are handed the Ruleset, never a slug to look up."""
    looking_up = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "campaign").rglob("*.py")
        if any(isinstance(node, ast.Name) and node.id == "get_ruleset" for node in ast.walk(_parse(path)))
    }
    assert looking_up == set(LOOKED_UP_BY_SLUG)


# --- Celery's names: queued messages name their task by its path ----------------------------------------------

TASK_NAMES = {
    "campaign.tasks.advance_clock",
    "campaign.tasks.run_import",
    "campaign.tasks.tick_running_clocks",
    "campaign.tasks.resume_stalled_jobs",
    "campaign.notify.deliver.deliver_notice",
}


def test_celery_knows_its_tasks_by_the_names_queued_messages_carry() -> None:
    """A message queued before a release names its task; a task moved or renamed would leave it unknown to the
    worker. The beat schedule names them too."""
    from django.conf import settings

    from campaign.celery import app

    app.loader.import_default_modules()
    assert {name for name in app.tasks if name.startswith("campaign.")} == TASK_NAMES
    assert {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()} <= TASK_NAMES


# --- perf/: the harness at the bottom, a module per row above it (perf/__init__.py) ----------------------------

EVERYTHING = ("campaign", "rules", "perf")


def _above_the_harness(targets: set[str]) -> list[str]:
    """The modules of perf/ among `targets` that are not the harness's."""
    return sorted(
        name
        for name in targets
        if name.startswith("perf.") and name != "perf.harness" and not name.startswith("perf.harness.")
    )


def test_no_import_cycle_anywhere_in_the_app_the_rules_or_perf() -> None:
    """The bench's command reads the rows, the rows read the harness and the app, the harness reads the app: an
    import inside a function counts as much as one at the top (the rows once imported tools back from the modules
    that imported them)."""
    graph, in_functions = _import_graph(EVERYTHING)
    assert {"perf.harness.seeding", "perf.rows.actions", "perf.loadtest.run", "rules.registry"} <= set(graph)
    assert ("campaign.management.commands.bench", "perf.rows") in in_functions
    assert {"campaign.services", "perf.harness.mixes"} <= graph["perf.harness.seeding"]
    assert _cycles(graph) == []


def test_each_bench_row_is_a_module_on_the_harness_and_imports_no_other_row() -> None:
    """One file per row (perf.rows.ROWS names them); a row, a load test or the harness reaches no module of perf/
    but the harness's, and the harness none above it."""
    from perf.rows import ROWS

    graph, _ = _import_graph(EVERYTHING)
    rows = {name for name in graph if name.startswith("perf.rows.")}
    assert {function.__module__ for function in ROWS.values()} == rows and len(rows) == len(ROWS)
    layered = {name for name in graph if name.startswith(("perf.rows.", "perf.loadtest.", "perf.harness"))}
    assert len(layered) > 25
    assert {
        name: _above_the_harness(graph[name]) for name in layered if _above_the_harness(graph[name])
    } == {}
    assert graph["perf.rows"] == rows


def test_an_import_for_the_type_checker_alone_is_no_dependency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rules.ruleset` names `rules.forecast`'s types under `if TYPE_CHECKING:`, which never runs."""
    (tmp_path / "perf").mkdir()
    (tmp_path / "perf" / "a.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from perf.b import B\nelse:\n    import perf.c\n"
    )
    for other in ("b", "c"):
        (tmp_path / "perf" / f"{other}.py").write_text("import perf.a\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    graph, _ = _import_graph(("perf",))
    assert graph == {"perf.a": {"perf.c"}, "perf.b": {"perf.a"}, "perf.c": {"perf.a"}}
    assert _cycles(graph) == [["perf.a", "perf.c"]]


def test_a_row_importing_another_would_be_found() -> None:
    modules = {name: Path(f"{name}.py") for name in ("perf", "perf.rows", "perf.rows.board", "perf.harness")}
    node = ast.parse("from perf.rows.board import board").body[0]
    assert _above_the_harness(_targets("perf.rows.lighthouse", node, modules)) == ["perf.rows.board"]
    assert _above_the_harness({"perf.harness", "perf.harness.seeding", "campaign.services"}) == []


def test_no_module_of_perf_is_over_700_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in _app_modules(("perf",)).values()
    }
    assert len(sizes) > 25
    assert {path: size for path, size in sizes.items() if size > 700} == {}
