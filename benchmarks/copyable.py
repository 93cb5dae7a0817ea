"""How much of an app copied from the notebooks comes from their cells, and how much from memlib.

A reader who wants notebook 04's semantic memory, 06's rotation or 09's agent in their own project
copies the cells that build it. Whatever those cells import from memlib they must copy from
memlib's source too, with everything that code uses in turn. This script measures that split.

- The app's cells: the code cells that define something (a `def`, a `class`, a LangGraph graph
  or a LangMem manager / executor), not the cells that only run, print, plot or check it.
- What they need from memlib: every memlib function, class or constant the app's cells use,
  followed through the names each one's source uses in its own module, until nothing new is found
  (its non-blank source lines, docstrings included, as a reader would copy them).
- Free: the backend switch and embeddings (`memlib.models`, `memlib.embeddings`) and the argument
  checks (`memlib.checks` and every `check_*` or `_check_*` function), which the issue ("Lessons that prove their point", item 3) allows, and
  the FAISS store (`memlib.faiss_store`): any LangGraph store with an index takes its place, e.g.
  `InMemoryStore(index={...})` in one line.

share = cell lines / (cell lines + memlib lines). One row per notebook; one for the three together
(a name one of them defines in a cell is copied from that cell, not from memlib); and one where
what any notebook of the series defines in a `# @save` cell is copied from that cell (07's
writers for 09).

Usage: python benchmarks/copyable.py [--notebooks 04 06 09] [--out PATH]
Writes benchmarks/results/copyable.json and prints a table.
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import inspect
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"
sys.path.insert(0, str(ROOT))
FREE = ("memlib.models", "memlib.embeddings", "memlib.checks", "memlib.faiss_store")
# Sections whose cells check, record or sum up what was built: not part of an app.
_NOT_APP = re.compile(r"^#{1,3} .*(Checks|Summary|Pitfalls|Bad input|Exercises)", re.M)
_BUILDS = re.compile(
    r"^\s*(def |class |async def )|StateGraph\(|create_memory_\w*manager\(|ReflectionExecutor\(",
    re.M,
)


def code_cells(notebook: Path, app_only: bool = False) -> list[str]:
    """The notebook's code cells; with app_only, those outside the Checks / Summary sections."""
    out, skipping = [], False
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and re.match(r"#{1,3} ", text):
            skipping = bool(_NOT_APP.match(text))
        elif cell["cell_type"] == "code" and not (app_only and skipping):
            out.append(text)
    return out


def lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def memlib_imports(cells: list[str]) -> dict[str, tuple[str, str]]:
    """{local name: (memlib module, attribute)} for every `from memlib... import x` in the cells."""
    found = {}
    for text in cells:
        try:
            tree = ast.parse(text)
        except SyntaxError:  # IPython magics: not part of an app
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "memlib":
                for alias in node.names:
                    module = node.module
                    if module == "memlib":  # the front door: find the defining module
                        module = importlib.import_module("memlib")._WHERE.get(alias.name, "")
                        module = f"memlib.{module}"
                    found[alias.asname or alias.name] = (module, alias.name)
    return found


def used_names(text: str) -> set[str]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.value.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
    }


def closure(roots: list[tuple[str, str]], defined: set[str]) -> dict[str, int]:
    """{module.name: source lines} of everything the roots need from memlib, FREE modules aside."""
    seen: dict[str, int] = {}
    todo = list(roots)
    while todo:
        module_name, name = todo.pop()
        key = f"{module_name}.{name}"
        free = module_name.startswith(FREE) or name.lstrip("_").startswith("check_")
        if key in seen or free or not module_name.startswith("memlib"):
            continue
        module = importlib.import_module(module_name)
        obj = getattr(module, name, None)
        if obj is None or inspect.ismodule(obj):
            continue
        if inspect.isfunction(obj) or inspect.isclass(obj):
            if (
                getattr(obj, "__module__", module_name) != module_name
            ):  # re-exported: go to its home
                todo.append((obj.__module__, name))
                continue
            source = inspect.getsource(obj)
        else:  # a constant: its assignment in the module's source
            source = _assignment(module, name)
        if not source:  # imported from outside memlib (END, TypedDict): nothing to copy
            continue
        seen[key] = lines(source)
        module_globals = vars(module)
        for used in used_names(source) - {name} - defined:
            value = module_globals.get(used)
            if value is None:
                continue
            home = (
                getattr(value, "__module__", None)
                if (inspect.isfunction(value) or inspect.isclass(value))
                else module_name
            )
            if home and home.startswith("memlib"):
                todo.append((home, used))
    return seen


@functools.cache
def _assignments(module) -> dict[str, str]:
    """{name: source of its top-level assignment} of a module, read and parsed once."""
    source, found = inspect.getsource(module), {}
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for t in targets:
            if isinstance(t, ast.Name):
                found.setdefault(t.id, ast.get_source_segment(source, node) or "")
    return found


def _assignment(module, name: str) -> str:
    return _assignments(module).get(name, "")


def defines(text: str) -> set[str]:
    """The functions and classes a cell defines at its top level."""
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return set()
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.name for node in body if isinstance(node, kinds)}


def measure(label: str, notebooks: list[Path], sources: list[Path], saved_only=False) -> dict:
    """The app built from `notebooks`' cells, copying what it needs from `sources`' cells first
    (with saved_only, from their `# @save` cells alone: the code memlib carries a copy of)."""
    app = [t for nb in notebooks for t in code_cells(nb, app_only=True) if _BUILDS.search(t)]
    source_cells = [t for nb in sources for t in code_cells(nb)]
    source_cells = [t for t in source_cells if "# @save" in t] if saved_only else source_cells
    source_cells += [t for t in app if t not in source_cells]
    home = {name: text for text in reversed(source_cells) for name in defines(text)}
    copied, todo = list(app), set().union(*map(used_names, app))
    while todo:  # a name another cell defines: copy that cell too, and what it uses
        cell = home.get(todo.pop())
        if cell is not None and cell not in copied:
            copied.append(cell)
            todo |= used_names(cell)
    defined = set().union(*map(defines, copied))
    imported = memlib_imports([t for nb in notebooks for t in code_cells(nb)])
    uses = set().union(*map(used_names, copied)) - defined
    needed = closure([imported[n] for n in sorted(uses & set(imported))], defined)
    cell_lines = sum(lines(t) for t in copied)
    memlib_lines = sum(needed.values())
    by_module: dict[str, int] = {}
    for key, n in needed.items():
        module = key.rsplit(".", 1)[0]
        by_module[module] = by_module.get(module, 0) + n
    return {
        "app": label,
        "cells": len(copied),
        "cell_lines": cell_lines,
        "memlib_lines": memlib_lines,
        "share_from_cells": round(cell_lines / max(1, cell_lines + memlib_lines), 3),
        "memlib_by_module": dict(sorted(by_module.items(), key=lambda kv: -kv[1])),
        "memlib_names": sorted(needed),
    }


def table(rows: list[dict]) -> str:
    out = ["| app | cells | cell lines | memlib lines | from cells |", "|---|---:|---:|---:|---:|"]
    for r in rows:
        out.append(
            f"| {r['app']} | {r['cells']} | {r['cell_lines']:,} | {r['memlib_lines']:,} | "
            f"{r['share_from_cells']:.0%} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", nargs="+", default=["04", "06", "09"])
    parser.add_argument("--out", type=Path, default=RESULTS / "copyable.json")
    args = parser.parse_args(argv)
    paths = [next((ROOT / "notebooks").glob(f"{n}_*.ipynb")) for n in args.notebooks]
    series = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    rows = [measure(p.stem, [p], [p]) for p in paths]
    together = " + ".join(args.notebooks)
    rows.append(measure(together, paths, paths))
    rows.append(measure(f"{together}, with any notebook's saved cells", paths, series, True))
    print(table(rows))
    for r in rows:
        print(f"{r['app']}: memlib lines by module {r['memlib_by_module']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return rows


if __name__ == "__main__":
    main()
