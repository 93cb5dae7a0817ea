"""How long the series takes to read: words of prose, lines of code and cells per notebook.

Counts the notebooks' sources (notebooks/NN_*.ipynb, stored without outputs): the words of every
Markdown cell (code spans and fenced blocks counted as code, not words), the non-blank lines of
every code cell plus those of fenced blocks in Markdown, and the cells. The reading time assumes a
learner reads technical prose at 150 words a minute and code, with understanding, at 10 lines a
minute, and does not count running the notebooks or reading their outputs. These two rates are the
assumption, not a measurement: they put the series of 2026-12-01 (25,700 words, 5,200 lines) at
the 10 to 12 hours a review measured by reading it, so the figures compare notebooks and versions,
not readers.

Usage: python benchmarks/reading.py [--out PATH]
Writes benchmarks/results/reading.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"
WORDS_PER_MINUTE = 150
CODE_LINES_PER_MINUTE = 10
_FENCE = re.compile(r"```.*?```", re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_WORD = re.compile(r"[A-Za-z0-9][\w'.,%-]*")


def count(notebook: Path) -> dict:
    """Words, code lines, cells and the estimated minutes of one notebook."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    words = code = 0
    for cell in cells:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            fenced = _FENCE.findall(text)
            code += sum(1 for block in fenced for line in block.splitlines()[1:-1] if line.strip())
            words += len(_WORD.findall(_CODE_SPAN.sub(" code ", _FENCE.sub(" ", text))))
        elif cell["cell_type"] == "code":
            code += sum(1 for line in text.splitlines() if line.strip())
    minutes = words / WORDS_PER_MINUTE + code / CODE_LINES_PER_MINUTE
    return {
        "notebook": notebook.stem,
        "words": words,
        "code_lines": code,
        "cells": len(cells),
        "minutes": round(minutes),
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| notebook | words | code lines | cells | reading time |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['notebook']} | {r['words']:,} | {r['code_lines']:,} | {r['cells']} | "
            f"{r['minutes']} min |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "reading.json")
    args = parser.parse_args(argv)
    rows = [count(p) for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))]
    total = {key: sum(r[key] for r in rows) for key in ("words", "code_lines", "cells", "minutes")}
    result = {
        "params": {
            "words_per_minute": WORDS_PER_MINUTE,
            "code_lines_per_minute": CODE_LINES_PER_MINUTE,
        },
        "rows": rows,
        "total": total | {"hours": round(total["minutes"] / 60, 1)},
    }
    print(table(rows))
    print(
        f"series: {total['words']:,} words, {total['code_lines']:,} code lines, "
        f"{total['cells']} cells, about {result['total']['hours']} hours"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
