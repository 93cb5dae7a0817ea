"""Strip outputs and execution counts from notebooks/*.ipynb, or with --check fail if any carry them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
KEEP_METADATA = {"kernelspec", "language_info", "memlib"}


def dirty_cells(nb: dict) -> list[int]:
    return [
        i
        for i, c in enumerate(nb["cells"])
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count") is not None)
    ]


def strip(nb: dict) -> dict:
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        meta = cell.get("metadata", {})
        cell["metadata"] = {k: v for k, v in meta.items() if k in ("tags",)}
    nb["metadata"] = {k: v for k, v in nb.get("metadata", {}).items() if k in KEEP_METADATA}
    return nb


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report; exit 1 if any is dirty")
    args = parser.parse_args()
    bad = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = json.loads(path.read_text())
        if args.check:
            cells = dirty_cells(nb)
            if cells:
                bad.append(f"{path.name}: code cells {cells} carry outputs or execution counts")
        else:
            text = json.dumps(strip(nb), indent=1, ensure_ascii=False) + "\n"
            if text != path.read_text():
                path.write_text(text)
                print(f"stripped {path.name}")
    for line in bad:
        print(line, file=sys.stderr)
    if bad:
        print("run `make format` to strip them", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
