"""The layers of ``explorer``: each package imports only the packages below it, and no
module imports itself back through others.

Every import counts, a function-level one included (it would only hide a cycle until the
function runs); ``if TYPE_CHECKING:`` blocks do not run and do not count. Importing
``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first, so those count as imports too.
``LAYERS`` is the order docs/architecture.md gives: a stage may import what is listed
before it (or beside it in the same row) and never what comes after.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# bottom first; the names in one row do not import each other
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "memo", "jsonscan", "jsontypes", "pool", "comparison", "vocabulary"),
    ("schema", "sources", "render"),
    ("caps",),
    ("analysis", "peg"),
    ("grammar", "output"),
    ("generator",),
    ("handlers",),
    ("routing",),
    ("apply",),
    ("roundtrip",),
    ("triage",),
    ("session",),
    ("fixtures", "llama_cpp"),
    ("doctor",),
    ("whatif",),
    ("ui_support",),
    ("cli",),
    ("__main__",),
)
RANK = {name: i for i, row in enumerate(LAYERS) for name in row}


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


class _Imports(ast.NodeVisitor):
    """Every ``explorer`` import that can run: at any depth, outside TYPE_CHECKING."""

    def __init__(self) -> None:
        self.found: list[tuple[str, int]] = []

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node):
            for stmt in node.orelse:
                self.visit(stmt)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found += [(m, node.lineno) for m in _imported(node)]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.found += [(m, node.lineno) for m in _imported(node)]


def _imports(path: Path) -> list[tuple[str, int]]:
    visitor = _Imports()
    visitor.visit(ast.parse(path.read_text("utf-8")))
    return [(m, line) for m, line in visitor.found if m.split(".")[0] == "explorer" and m != "explorer"]


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _with_parents(module: str, importer: str) -> list[str]:
    """``module`` and the packages it runs first, less the importer's own packages (those
    are already running when the importer runs)."""
    parts = module.split(".")
    own = set(_ancestors(importer))
    return [name for name in (".".join(parts[:i]) for i in range(2, len(parts) + 1)) if name not in own]


def _modules() -> list[tuple[str, Path]]:
    return sorted((_module_name(p), p) for p in ROOT.joinpath("explorer").rglob("*.py"))


def _graph() -> dict[str, set[str]]:
    return {module: {dep for imp, _line in _imports(path) for dep in _with_parents(imp, module) if dep != module}
            for module, path in _modules()}


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


def _stage(module: str) -> str:
    """``explorer.peg.arena`` -> ``peg``; ``explorer.caps`` -> ``caps``."""
    return module.split(".")[1]


def test_every_stage_has_a_layer() -> None:
    stages = {_stage(m) for m, _p in _modules() if m != "explorer"}
    assert stages - RANK.keys() == set(), "add the new stage to LAYERS (and docs/architecture.md)"
    assert RANK.keys() - stages == set(), "a stage in LAYERS no longer exists"


def test_stages_import_only_the_stages_below_them() -> None:
    upward = [f"{path.relative_to(ROOT)}:{line} ({_stage(module)}) imports {imp} ({_stage(imp)})"
              for module, path in _modules() if module != "explorer"
              for imp, line in _imports(path)
              if RANK[_stage(imp)] > RANK[_stage(module)]
              or (RANK[_stage(imp)] == RANK[_stage(module)] and _stage(imp) != _stage(module))]
    assert upward == []


def test_the_module_graph_has_no_cycle() -> None:
    graph = _graph()
    assert {"explorer.peg.arena", "explorer.schema", "explorer.triage.checks_tools"} <= graph.keys()
    cycle = _find_cycle(graph)
    assert cycle is None, " -> ".join(cycle or ())


def test_the_checker_sees_a_function_level_cycle(tmp_path: Path) -> None:
    """The cycle finder counts an import inside a function (the kind that hid one)."""
    a = tmp_path / "a.py"
    a.write_text("def f():\n    from explorer.b import g\n", "utf-8")
    visitor = _Imports()
    visitor.visit(ast.parse(a.read_text("utf-8")))
    assert [m for m, _ in visitor.found] == ["explorer.b"]
    assert _find_cycle({"x": {"y"}, "y": {"x"}}) == ["x", "y", "x"]
    assert _find_cycle({"x": {"y"}, "y": set()}) is None


def test_layers_are_documented_as_the_code_has_them() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    rows = [line.split("|")[2] for line in text.splitlines() if line.startswith("| ") and line.split("|")[1].strip().isdigit()]
    documented = tuple(tuple(part.strip().strip("`") for part in row.split(",")) for row in rows)
    assert documented == LAYERS
