"""The technique is in the cells: AST checks over the notebooks' code (no execution).

1. Each notebook's expectations file names its central technique:
       TECHNIQUE = {"defines": [names], "calls": [names]}
   "defines": functions / classes / state types the notebook writes in its own cells (a def or
   class statement), never imported from memlib; "calls": LangGraph / LangMem API the cells call
   themselves (e.g. RemoveMessage, create_memory_store_manager).
2. One source of truth: a cell whose first line is `# @save memlib.<module>` is library code. Each
   function or class it defines must exist in that module with the same code (AST equal,
   docstrings included), so the notebook and memlib cannot drift apart (d2l's #@save pattern);
   byte for byte, under a uniform "# Saved from <notebook>, In [N]" comment, as `make sync`
   (scripts/sync_saved.py) writes it.
3. A short front door: no cell carries more than 15 lines of imports, and no cell that is mostly
   imports is longer than 15 lines; each import sits in the cell that first uses it.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import sys
import textwrap
from pathlib import Path

import pytest

from memlib.testing import all_notebooks, load_expectations

ROOT = Path(__file__).resolve().parent.parent

SAVE_MARK = "# @save "
MAX_IMPORT_LINES = 15


def code_cells(notebook: Path) -> list[str]:
    nb = json.loads(notebook.read_text())
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            src = "".join(cell["source"])
            # IPython magics and shell lines are not Python
            lines = [ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!"))]
            cells.append("\n".join(lines))
    return cells


def memlib_imports(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "memlib":
            names |= {a.asname or a.name for a in node.names}
    return names


def defined(tree: ast.Module) -> set[str]:
    return {
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def called(tree: ast.Module) -> set[str]:
    names = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            names.add(f.id if isinstance(f, ast.Name) else getattr(f, "attr", ""))
    return names


@pytest.mark.parametrize("notebook", all_notebooks(), ids=lambda p: p.stem)
def test_technique_is_written_in_the_cells(notebook: Path):
    module = load_expectations(notebook.stem)
    assert module is not None, f"no tests/expectations/{notebook.stem}.py"
    technique = getattr(module, "TECHNIQUE", None)
    if technique is None:
        pytest.skip(f"{notebook.stem} names no TECHNIQUE yet")
    tree = ast.parse("\n\n".join(code_cells(notebook)))
    imported = memlib_imports(tree)
    missing = [n for n in technique.get("defines", []) if n not in defined(tree)]
    assert not missing, f"{notebook.name} should write {missing} in its cells"
    hidden = sorted(set(technique.get("defines", [])) & imported)
    assert not hidden, f"{notebook.name} imports {hidden} from memlib instead of writing them"
    not_called = [n for n in technique.get("calls", []) if n not in called(tree)]
    assert not not_called, f"{notebook.name} should call {not_called} in its cells"


def saved_cells():
    for notebook in all_notebooks():
        for src in code_cells(notebook):
            first = src.lstrip().splitlines()[0] if src.strip() else ""
            if first.startswith(SAVE_MARK):
                yield pytest.param(
                    notebook, first[len(SAVE_MARK) :].strip(), src, id=f"{notebook.stem}"
                )


def _node_source(obj) -> ast.AST:
    return ast.parse(textwrap.dedent(inspect.getsource(obj))).body[0]


@pytest.mark.parametrize(
    ("notebook", "module_name", "src"), list(saved_cells()) or [(None, None, None)]
)
def test_saved_cells_match_memlib(notebook, module_name, src):
    if notebook is None:
        pytest.skip("no notebook cell is marked '# @save memlib.<module>' yet")
    module = importlib.import_module(module_name)
    for node in ast.parse(src).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            assert hasattr(module, node.name), (
                f"{notebook.name} saves {node.name} to {module_name}, which has no such name"
            )
            theirs = _node_source(getattr(module, node.name))
            assert ast.dump(node) == ast.dump(theirs), (
                f"{notebook.name}: {node.name} differs from {module_name}.{node.name}; "
                "the notebook cell is the source: run `make sync` (scripts/sync_saved.py)"
            )


def test_memlib_holds_exactly_the_saved_cells_under_their_comment():
    """Byte for byte, with the uniform "# Saved from <notebook>, In [N]" comment above each saved
    definition, and no definition marked as saved that no cell saves any more."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("sync_saved", ROOT / "scripts" / "sync_saved.py")
    sync = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = sync  # dataclasses look their module up there
    spec.loader.exec_module(sync)
    problems = []
    for path, (text, new, stale) in sync.plan(ROOT).items():
        problems += [
            f"{path.name}: {name} is marked as saved but no cell saves it" for name in stale
        ]
        if new != text:
            problems.append(f"{path.relative_to(ROOT)} differs from the notebooks' saved cells")
    assert not problems, "\n".join(problems) + "\nthe notebooks are the source: run `make sync`"


def import_lines(src: str) -> tuple[int, int]:
    """(lines taken by top-level import statements, non-blank lines) of one cell's code."""
    tree = ast.parse(src)
    imports = sum(
        node.end_lineno - node.lineno + 1
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
    )
    return imports, sum(1 for line in src.splitlines() if line.strip())


def long_import_cells(notebook: Path) -> list[str]:
    """Each cell of `notebook` with over MAX_IMPORT_LINES lines of imports, or mostly imports and
    over MAX_IMPORT_LINES lines, named by its In [N]."""
    found = []
    for number, src in enumerate(code_cells(notebook), start=1):
        imports, total = import_lines(src)
        mostly = 2 * imports > total
        if imports > MAX_IMPORT_LINES or (mostly and total > MAX_IMPORT_LINES):
            found.append(
                f"{notebook.name}, In [{number}]: {imports} of its {total} lines are imports "
                f"(at most {MAX_IMPORT_LINES}: import each name in the cell that first uses it, "
                "or a memlib layer module instead of a list of its names)"
            )
    return found


@pytest.mark.parametrize("notebook", all_notebooks(), ids=lambda p: p.stem)
def test_no_long_import_cell(notebook: Path):
    problems = long_import_cells(notebook)
    assert not problems, "\n".join(problems)


# 4. One shape per notebook (the house style): Review and Goals open it; Summary, Exercises, Next and
#    Checks close it, in that order, whatever numbered sections and Pitfalls come between.
SHAPE = ["Review", "Goals", "Summary", "Exercises", "Next", "Checks"]


@pytest.mark.parametrize("path", all_notebooks(), ids=lambda p: p.stem)
def test_every_notebook_has_the_house_shape(path: Path):
    headings = [
        line[3:].strip()
        for cell in json.loads(path.read_text())["cells"]
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if line.startswith("## ")
    ]
    named = [h for h in headings if h in SHAPE]
    assert named == SHAPE, f"{path.name}: sections {named}, expected {SHAPE} in order"
