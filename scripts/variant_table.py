"""Print the README's tables for the server variants, from the build directories.

After `make test` (or `python -m memlib --variant openai` / `--variant reworded`):
- model calls and tokens per notebook on the local OpenAI-compatible server (calls.json);
- every recorded figure that differs from the offline run, per variant (records.json).
Usage: python scripts/variant_table.py [calls|diff]   (default: both)
"""

from __future__ import annotations

import json
import sys

from memlib.testing import build_dir


def _load(variant: str, name: str) -> dict:
    path = build_dir(variant) / name
    if not path.exists():
        raise SystemExit(f"{path} is missing: run the {variant!r} variant first")
    return json.loads(path.read_text())


def calls_table(variant: str = "openai") -> str:
    calls = _load(variant, "calls.json")
    rows = [
        "| notebook | chat requests | prompt tokens | completion tokens | embedding requests "
        "(texts) |",
        "|---|---:|---:|---:|---:|",
    ]
    total = {"chat_requests": 0, "prompt_tokens": 0, "completion_tokens": 0}
    for notebook, c in sorted(calls.items()):
        for k in total:
            total[k] += c.get(k, 0)
        rows.append(
            f"| {notebook.removesuffix('.ipynb')} | {c['chat_requests']} | "
            f"{c.get('prompt_tokens', 0):,} | {c.get('completion_tokens', 0):,} | "
            f"{c['embedding_requests']} ({c['embedded_texts']}) |"
        )
    rows.append(
        f"| all | {total['chat_requests']} | {total['prompt_tokens']:,} | "
        f"{total['completion_tokens']:,} | |"
    )
    return "\n".join(rows)


def diff_table(variant: str) -> str:
    offline, other = _load("offline", "records.json"), _load(variant, "records.json")
    rows = ["| notebook | figure | offline | " + variant + " |", "|---|---|---|---|"]
    for notebook in sorted(offline):
        for name, value in offline[notebook].items():
            theirs = other.get(notebook, {}).get(name, "(not recorded)")
            if theirs != value:
                rows.append(f"| {notebook[:2]} | `{name}` | {value!r} | {theirs!r} |")
    return "\n".join(rows)


def main(argv: list[str]) -> None:
    what = argv[0] if argv else "both"
    if what not in ("calls", "diff", "both"):
        raise SystemExit(f"expected calls, diff or both, got {what!r}")
    if what in ("calls", "both"):
        print(calls_table())
        print()
    if what in ("diff", "both"):
        for variant in ("openai", "reworded"):
            print(diff_table(variant))
            print()


if __name__ == "__main__":
    main(sys.argv[1:])
