"""Copy the notebooks' saved code into memlib: the notebook is the source (d2l's `#@save`).

A code cell whose first line is `# @save memlib.<module>` is library code. For each top-level
function, class or assignment in such a cell, this rewrites the definition of the same name in
memlib/<module>.py (or appends it) with the cell's code, under one uniform comment saying where it
comes from:

    # Saved from notebooks/09_full_memory_agent.ipynb, In [12]: edit it there, then `make sync`.

`In [N]` is the cell's execution count in a top-to-bottom run (the N-th code cell). A definition in
memlib that carries the comment but is no longer in any saved cell is reported (delete it or save
it again). Usage:

    python scripts/sync_saved.py           # rewrite memlib from the notebooks (make sync)
    python scripts/sync_saved.py --check   # exit 1 and name each difference (the tests run this)
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = "# @save "
COMMENT = re.compile(
    r"^# Saved from notebooks/\S+\.ipynb, In \[\d+\]: edit it there, then `make sync`\.$"
)


@dataclass
class Saved:
    module: str  # "agent" for memlib.agent
    name: str
    source: str  # the definition's code, as in the cell
    where: str  # "notebooks/09_full_memory_agent.ipynb, In [12]"

    @property
    def comment(self) -> str:
        return f"# Saved from {self.where}: edit it there, then `make sync`."


def _definitions(code: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of each top-level def, class or single-name assignment."""
    found = []
    for node in ast.parse(code).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            found.append((node.name, first, node.end_lineno))
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                found.append((targets[0].id, node.lineno, node.end_lineno))
    return found


def saved_definitions(notebooks: Path = ROOT / "notebooks") -> list[Saved]:
    """Every definition in a `# @save memlib.<module>` cell, in notebook order."""
    out = []
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        for number, cell in enumerate(cells, start=1):
            source = "".join(cell["source"])
            first, _, code = source.partition("\n")
            if not first.startswith(MARK):
                continue
            module = first[len(MARK) :].strip().removeprefix("memlib.")
            lines = code.splitlines()
            where = f"notebooks/{path.name}, In [{number}]"
            for name, start, end in _definitions(code):
                out.append(Saved(module, name, "\n".join(lines[start - 1 : end]), where))
    return out


def synced_module(text: str, saved: list[Saved]) -> tuple[str, list[str]]:
    """The module text with each saved definition in place under its comment; stale markers."""
    lines = text.splitlines()
    spans = {name: (start, end) for name, start, end in _definitions(text)}
    by_name = {s.name: s for s in saved}
    edits = []  # (first line index, last line index, replacement lines)
    for name, (start, end) in spans.items():
        if name in by_name:
            first = start - 2 if _marked(lines, start) else start - 1
            edits.append(
                (first, end - 1, [by_name[name].comment, *by_name[name].source.splitlines()])
            )
    stale = [n for n, (start, _) in spans.items() if n not in by_name and _marked(lines, start)]
    for first, last, new in sorted(edits, reverse=True):
        lines[first : last + 1] = new
    for s in saved:
        if s.name not in spans:
            lines += ["", "", s.comment, *s.source.splitlines()]
    return "\n".join(lines) + "\n", stale


def _marked(lines: list[str], start: int) -> bool:
    return start > 1 and bool(COMMENT.match(lines[start - 2]))


def plan(root: Path = ROOT) -> dict[Path, tuple[str, str, list[str]]]:
    """{module path: (current text, synced text, stale names)} for every memlib module."""
    saved = saved_definitions(root / "notebooks")
    modules = {s.module for s in saved} | {
        p.stem for p in (root / "memlib").glob("*.py") if "# Saved from notebooks/" in p.read_text()
    }
    out = {}
    for module in sorted(modules):
        path = root / "memlib" / f"{module.replace('.', '/')}.py"
        if not path.exists():
            raise SystemExit(f"a cell saves to memlib.{module}, which has no {path}")
        text = path.read_text()
        new, stale = synced_module(text, [s for s in saved if s.module == module])
        out[path] = (text, new, stale)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report differences, change nothing")
    args = parser.parse_args(argv)
    problems = []
    for path, (text, new, stale) in plan().items():
        rel = path.relative_to(ROOT)
        problems += [f"{rel}: {n} is marked as saved but no notebook cell saves it" for n in stale]
        if new != text:
            if args.check:
                problems.append(f"{rel} differs from the notebooks' saved cells")
            else:
                path.write_text(new)
                print(f"rewrote {rel}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems and args.check:
        print(
            "the notebooks are the source: run `make sync` to copy them into memlib",
            file=sys.stderr,
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
