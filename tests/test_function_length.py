"""No function over 80 lines in memlib or the offline model's package (issue "A small memlib",
item 6): a function that long decides several things, and is split by what each part decides.

Counted as `ast` does: from the `def` line to the last line of the body, docstring included;
nested functions and methods count on their own too.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 80
# Functions allowed over the limit while they are being split. An entry must still be over the
# limit (the second test fails otherwise), so the list cannot go stale. Empty: none left.
KNOWN_LONG: set[str] = set()


def function_lengths() -> dict[str, int]:
    """Lines per function, keyed "path::qualified.name", over memlib/**/*.py and offline_model/*.py."""
    files = sorted(ROOT.glob("memlib/**/*.py")) + sorted(ROOT.glob("offline_model/*.py"))
    out: dict[str, int] = {}

    def visit(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out[f"{path}::{name}"] = child.end_lineno - child.lineno + 1
                visit(child, path, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, path, prefix + child.name + ".")
            else:
                visit(child, path, prefix)

    for file in files:
        visit(ast.parse(file.read_text(encoding="utf-8")), file.relative_to(ROOT).as_posix(), "")
    return out


def test_no_function_over_80_lines():
    lengths = function_lengths()
    assert any(name.startswith("offline_model/parse.py::") for name in lengths)
    long = [
        f"{name} ({n} lines)"
        for name, n in sorted(lengths.items())
        if n > LIMIT and name not in KNOWN_LONG
    ]
    assert not long, f"over {LIMIT} lines; split by what each part decides: " + ", ".join(long)


def test_known_long_list_is_not_stale():
    lengths = function_lengths()
    stale = sorted(name for name in KNOWN_LONG if lengths.get(name, 0) <= LIMIT)
    assert not stale, f"no longer over {LIMIT} lines (or gone): drop from KNOWN_LONG: {stale}"


# The size caps of the two packages (issues "A small memlib" and "The offline model reads ordinary
# conversations"): lines of the package's own .py files, as `wc -l` counts them. Raise a cap only
# with the agreement; docs/development.md (Layout) states both counts.
CAPS = {
    "memlib": ("memlib/**/*.py", 10_000),
    # The offline model must not grow (issue #26 asks for at most 8,501 lines; 8,395 today, with
    # the open-domain memories): lower this cap as it shrinks, never raise it past 8,501.
    "offline_model": ("offline_model/*.py", 8_396),
}


def package_lines(pattern: str) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in ROOT.glob(pattern))


def test_packages_stay_within_their_line_caps():
    over = {name: package_lines(glob) for name, (glob, cap) in CAPS.items()}
    over = {name: n for name, n in over.items() if n >= CAPS[name][1]}
    assert not over, f"over the line cap: {over} (caps: { {k: v[1] for k, v in CAPS.items()} })"
