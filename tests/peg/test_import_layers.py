"""explorer.peg and explorer.grammar import each other's modules only at module level, and
without a cycle: a function-level import would hide one, and a cycle would make the import
order matter. Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first, so those
count as imports too; ``if TYPE_CHECKING:`` blocks do not run and do not count."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("explorer.peg", "explorer.grammar")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _path(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level or not node.module:
        return []
    # ``from explorer.peg import nodes`` imports the submodule explorer.peg.nodes
    subs = [f"{node.module}.{a.name}" for a in node.names if _path(f"{node.module}.{a.name}")]
    return [node.module, *subs]


def _runtime_imports(tree: ast.Module) -> list[str]:
    """Modules imported when the module runs: at top level, outside TYPE_CHECKING."""
    found: list[str] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found += _imported(node)
        elif isinstance(node, ast.If) and not _is_type_checking(node):
            pending += node.body + node.orelse
        elif isinstance(node, ast.Try):
            pending += node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body]
    return [m for m in found if m.split(".")[0] == "explorer"]


def _with_parents(module: str, importer: str) -> list[str]:
    """``module`` and the packages it runs first, less the importer's own packages (those
    are already running when the importer runs)."""
    parts = module.split(".")
    own = set(_ancestors(importer))
    return [name for name in (".".join(parts[:i]) for i in range(1, len(parts) + 1)) if name not in own]


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    todo = [_module_name(p) for pkg in PACKAGES for p in ROOT.joinpath(*pkg.split(".")).glob("*.py")]
    while todo:
        module = todo.pop()
        path = _path(module)
        if module in graph or path is None:
            continue
        edges = {dep for imp in _runtime_imports(ast.parse(path.read_text("utf-8")))
                 for dep in _with_parents(imp, module) if dep != module}
        graph[module] = edges
        todo += edges
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state and (cycle := visit(dep)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_no_function_level_explorer_imports(package: str) -> None:
    late = []
    for path in sorted(ROOT.joinpath(*package.split(".")).glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, (ast.Import, ast.ImportFrom)) and \
                            any(m.split(".")[0] == "explorer" for m in _imported(node)):
                        late.append(f"{path.name}:{node.lineno}")
    assert not late


def test_peg_and_grammar_import_graph_has_no_cycle() -> None:
    graph = _graph()
    assert {"explorer.peg.arena", "explorer.grammar.schema"} <= graph.keys()
    assert _find_cycle(graph) is None, " -> ".join(_find_cycle(graph) or ())
