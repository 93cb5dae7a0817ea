"""The import graph of memlib and offline_model, read with ast: no cycle anywhere (imports inside
functions included; importing a submodule counts as importing its packages, bar the importer's
own), every memlib module is placed in LAYERS, PLUMBING or TOP, the memory layers never import
memlib.models or offline_model, not even inside a function (a layer takes its chat model and
embeddings as arguments), and in memlib only the backend switch (models.py) and the test
runner's server start-up (testing.py) import offline_model, on first use."""

import ast
from pathlib import Path

import memlib
import offline_model

PACKAGES = (Path(memlib.__file__).parent, Path(offline_model.__file__).parent)
# The memory layers: each takes its chat model / embeddings / store as arguments.
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
    "tenancy",
    "backends",
    "temporal",  # facts with time, hybrid search (12)
    "agent",  # composes the layers; the caller passes the model, store and checkpointer
)
# What the layers stand on: argument checks, data files, token counting, the MiniLM embeddings,
# the backend switch that picks a model (models) and the notebook runner (testing).
PLUMBING = ("checks", "fixtures", "tokens", "embeddings", "models", "testing")
# Above the layers: the package's lazy exports, the command line, the notebook widgets and the
# evaluation harness, which may choose a default model through memlib.models.
TOP = (
    "",
    "__main__",
    "widgets",
    "eval",
    "eval.__main__",
    "eval.dataset",
    "eval.generator",
    "eval.harness",
    "eval.longmemeval",
    "eval.metrics",
    "eval.strategies",
    "eval.trace",
)


def _name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _in_package(path: Path, root: Path) -> bool:
    """A module of the package: every folder from root down to it has an __init__.py (so
    offline_model's tests/, scripts/ and benchmarks/ folders are not part of it)."""
    return all(
        (d / "__init__.py").is_file()
        for d in [path.parent, *path.parent.parents]
        if d.is_relative_to(root)
    )


MODULES = {
    _name(p, root): p for root in PACKAGES for p in root.rglob("*.py") if _in_package(p, root)
}


def _imported(node: ast.AST) -> set[str]:
    """memlib / offline_model modules an import statement loads: the module, its packages, and
    submodules named in `from package import submodule`."""
    if isinstance(node, ast.Import):
        targets = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    else:
        return set()
    if isinstance(node, ast.ImportFrom) and node.module == "memlib" and not node.level:
        # `from memlib import get_chat_model` loads the module that exports the name
        targets += [
            f"memlib.{memlib._WHERE[a.name]}" for a in node.names if a.name in memlib._WHERE
        ]
    found = set()
    for target in targets:
        parts = target.split(".")
        found |= {".".join(parts[:k]) for k in range(1, len(parts) + 1)} & set(MODULES)
    return found


def _graph(module_level_only: bool) -> dict[str, set[str]]:
    graph = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        nodes = tree.body if module_level_only else list(ast.walk(tree))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        top = name.partition(".")[0]  # a package's __init__ only re-exports, on first use
        graph[name] = {m for n in nodes for m in _imported(n)} - {name, package, top}
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


def test_graph_sees_both_packages_and_the_offline_layers():
    assert {"memlib", "memlib.models", "memlib.eval.harness", "offline_model"} <= set(MODULES)
    assert not [m for m in MODULES if m.startswith("offline_model.tests")]
    graph = _graph(module_level_only=False)
    assert "offline_model.rules" in graph["offline_model.skills"]
    assert "offline_model.skills" in graph["offline_model.tools"]
    assert "offline_model.model" in graph["offline_model.server"]
    assert "offline_model" in graph["memlib.models"]
    assert "offline_model.server" in graph["memlib.testing"]
    assert (
        "memlib.tokens" in graph["offline_model.text"]
    )  # the offline model uses memlib's plumbing


def test_memlib_and_offline_model_have_no_import_cycle():
    cycle = _cycle(_graph(module_level_only=False))
    assert cycle is None, f"import cycle: {' -> '.join(cycle)}"


def _memlib(names) -> list[str]:
    return [f"memlib.{n}" if n else "memlib" for n in names]


def test_every_memlib_module_is_a_layer_plumbing_or_top():
    placed = _memlib(LAYERS) + _memlib(PLUMBING) + _memlib(TOP)
    assert len(placed) == len(set(placed)), "a module is placed twice"
    modules = {m for m in MODULES if m.partition(".")[0] == "memlib"}
    assert not modules - set(placed), f"place these modules: {sorted(modules - set(placed))}"
    assert not set(placed) - modules, f"gone: {sorted(set(placed) - modules)}"


def test_layers_do_not_import_the_model_switch_or_the_offline_model():
    """Not even inside a function: a layer that picks its own default model lifts itself (and
    every layer above it) over the plumbing; every layer takes its model as an argument."""
    graph = _graph(module_level_only=False)
    for layer in _memlib(LAYERS):
        picked = sorted(
            m for m in graph[layer] if m == "memlib.models" or m.startswith("offline_model")
        )
        assert not picked, f"{layer} imports {picked}"


def test_the_graph_sees_an_import_of_an_exported_name():
    tree = ast.parse("from memlib import get_chat_model, record")
    assert {"memlib.models", "memlib.testing"} <= _imported(tree.body[0])


BACKEND_SWITCH_AND_SERVER = {"memlib.models", "memlib.testing"}


def test_only_the_backend_switch_and_the_server_start_up_import_the_offline_model():
    anywhere = _graph(module_level_only=False)
    importers = {
        name
        for name, imported in anywhere.items()
        if name.partition(".")[0] == "memlib"
        and any(m.startswith("offline_model") for m in imported)
    }
    assert importers == BACKEND_SWITCH_AND_SERVER
    at_module_level = _graph(module_level_only=True)
    eager = sorted(
        name
        for name in importers
        if any(m.startswith("offline_model") for m in at_module_level[name])
    )
    assert not eager, f"{eager} import offline_model at module level (it should load on first use)"


def test_no_other_memlib_module_names_the_offline_model_package():
    """Nor by string (importlib.import_module, a subprocess's `-m`): the name appears in
    memlib only in the two modules allowed to import it."""
    named = {
        name
        for name, path in MODULES.items()
        if name.partition(".")[0] == "memlib" and "offline_model" in path.read_text()
    }
    assert named <= BACKEND_SWITCH_AND_SERVER, sorted(named - BACKEND_SWITCH_AND_SERVER)
