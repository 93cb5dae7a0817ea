"""memlib's import graph, read with ast: no cycle anywhere (imports inside functions included;
importing a submodule counts as importing its packages, bar the importer's own), and the memory
layers never import the offline model at module level (they take any chat model)."""

import ast
from pathlib import Path

import memlib

ROOT = Path(memlib.__file__).parent
LAYERS = (
    "buffers",
    "corpus",
    "scratchpad",
    "faiss_store",
    "episodic",
    "semantic",
    "shared_memory",
    "rotation",
    "writers",
    "procedural",
)


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in ROOT.rglob("*.py")}


def _imported(node: ast.AST) -> set[str]:
    """memlib modules an import statement loads: the module, its packages, and submodules named
    in `from package import submodule`."""
    if isinstance(node, ast.Import):
        targets = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    else:
        return set()
    found = set()
    for target in targets:
        parts = target.split(".")
        found |= {".".join(parts[:k]) for k in range(2, len(parts) + 1)} & set(MODULES)
    return found


def _graph(module_level_only: bool) -> dict[str, set[str]]:
    graph = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        nodes = tree.body if module_level_only else list(ast.walk(tree))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = {m for n in nodes for m in _imported(n)} - {name, package}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return path[path.index(node) :] + [node]
        if node in done:
            return None
        for nxt in sorted(graph[node]):
            found = visit(nxt, path + [node])
            if found:
                return found
        done.add(node)
        return None

    for start in sorted(graph):
        found = visit(start, [])
        if found:
            return found
    return None


def test_graph_sees_the_offline_layers():
    graph = _graph(module_level_only=False)
    assert "memlib.offline.rules" in graph["memlib.offline.skills"]
    assert "memlib.offline.skills" in graph["memlib.offline.tools"]
    assert "memlib.offline.model" in graph["memlib.offline.server"]
    assert "memlib.offline" in graph["memlib.models"]


def test_memlib_has_no_import_cycle():
    cycle = _cycle(_graph(module_level_only=False))
    assert cycle is None, f"import cycle: {' -> '.join(cycle)}"


def test_layers_do_not_import_the_offline_model_at_module_level():
    graph = _graph(module_level_only=True)
    for layer in LAYERS:
        offline = sorted(m for m in graph[f"memlib.{layer}"] if m.startswith("memlib.offline"))
        assert not offline, f"memlib.{layer} imports {offline} at module level"
