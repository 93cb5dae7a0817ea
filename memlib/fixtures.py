"""The data/ fixtures: where they live, and the one JSONL reader every layer's loaders use.

Each fixture file under data/ is written for this project; each layer module validates the
fields of its own rows. Leaves out: anything downloaded, and any format but JSON Lines.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def read_jsonl(path: str | Path) -> list[dict]:
    """The JSON objects of a JSONL file, blank lines skipped; errors name the file and line."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"fixture file {str(path)!r} does not exist")
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path.name}:{lineno}: not JSON: {exc}") from None
        if not isinstance(row, dict):
            raise ValueError(f"{path.name}:{lineno}: expected a JSON object, got {row!r}")
        rows.append(row)
    return rows
