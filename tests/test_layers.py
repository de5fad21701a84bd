"""The import structure of bgai/: one-way layers and no circle, read from the source (ast).

Every import counts, also one inside a function (a lazy import hides a circle, it does not
remove it). ``from bgai.x import y`` is an import of module ``bgai.x.y`` when that is a module,
else of ``bgai.x``. The root package ``bgai`` (its version, its lazily imported public names)
may be imported from anywhere and imports nothing itself.

README's architecture table describes the same order.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "bgai"

LAYERS = [
    "stats",
    "engine",
    "formats",
    "gnubg",
    "model",
    "bearoff",
    "search",
    "moves",
    "cube",
    "rollout",
    "bots",
    "bench",
    "train",
    "opponent",
    "specs",
    "play",
    "analyse",
    "serve",
    "cli",
    "__main__",
]
"""The layers of bgai, lowest first: each part of ``bgai/`` (a subpackage or a top-level module)
may import only its own layer and those before it."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The bgai modules ``name`` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "bgai"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "bgai":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
    return found


def layer_of(name: str) -> str:
    return name.split(".")[1] if "." in name else "bgai"


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) - {name} for name, path in mods.items()}


def test_every_part_of_bgai_has_a_layer(graph):
    unplaced = sorted({layer_of(m) for m in graph} - set(LAYERS) - {"bgai"})
    assert not unplaced, f"add {unplaced} to LAYERS in tests/test_layers.py (and README's table)"


def test_no_import_runs_from_a_lower_layer_to_a_higher_one(graph):
    rank = {layer: k for k, layer in enumerate(LAYERS)}
    upward = [
        f"{m} ({layer_of(m)}) imports {t} ({layer_of(t)})"
        for m, targets in sorted(graph.items())
        for t in sorted(targets)
        if layer_of(m) != "bgai" and layer_of(t) != "bgai" and rank[layer_of(t)] > rank[layer_of(m)]
    ]
    assert not upward, "\n".join(upward)


def test_the_root_package_imports_no_part_of_bgai(graph):
    assert graph["bgai"] == set()


def test_no_circle_of_imports(graph):
    """Tarjan's strongly connected components: any of two or more modules is a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not circles, f"import circles: {circles}"


def test_the_check_sees_a_lazy_import_and_a_circle(tmp_path):
    """The reader counts imports inside functions and resolves ``from package import submodule``."""
    (tmp_path / "bgai" / "cube").mkdir(parents=True)
    search = tmp_path / "bgai" / "cube" / "search.py"
    search.write_text("def f():\n    from bgai.cube import analysis\n")
    known = {"bgai.cube", "bgai.cube.analysis", "bgai.cube.search"}
    assert imports_of("bgai.cube.search", search, known) == {"bgai.cube.analysis"}
