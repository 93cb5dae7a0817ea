"""How far a vector's neighbours are: real MiniLM embeddings beside the benchmark's synthetic data.

recall_latency.py measures vector search on synthetic vectors; whether an index's recall there says
anything about real memories depends on how near a vector's neighbours are compared with everything
else. This script measures that, the same way for each data set: for 300 query vectors (real: 300
of the sentences, each searched among the others; synthetic: 300 extra draws), exact cosine
similarity to every item, and the median over queries of
- c1, c10, c100: the cosine of the 1st, 10th and 100th nearest item,
- mean: the mean cosine to all items,
- contrast: the relative contrast of the 10th neighbour, mean distance / 10th-neighbour distance
  (distances sqrt(2 - 2 cos)); near 1, the 10th neighbour is hardly nearer than any item, and no
  index can find it without looking at a large part of the data.

Real sentences: every sentence of the repository's own data files (data/**/*.jsonl and the
offline model's development sets, offline_model/data/dev.jsonl and offline_model/data/open/dev.jsonl;
never the sealed or check sets), split at sentence ends, at least 3 words, duplicates dropped
(5,483 sentences), embedded with memlib's MiniLM (about 3 minutes on one core).

Usage: python benchmarks/neighbour_stats.py [--sizes 5483 100000 1000000] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from recall_latency import DATA, make_dataset  # noqa: E402

DEV_SETS = ("offline_model/data/dev.jsonl", "offline_model/data/open/dev.jsonl")


def sentences() -> list[str]:
    """Distinct sentences (3 words or more) of every string in the repository's open data files."""
    out: list[str] = []

    def walk(v) -> None:
        if isinstance(v, str):
            out.extend(s for s in re.split(r"(?<=[.!?])\s+", v.strip()) if len(s.split()) >= 3)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for path in [*sorted(ROOT.glob("data/**/*.jsonl")), *(ROOT / p for p in DEV_SETS)]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                walk(json.loads(line))
    return list(dict.fromkeys(s for s in out if len(s) >= 12))


def neighbour_stats(items: np.ndarray, queries: np.ndarray, self_ids=None) -> dict:
    """Median c1 / c10 / c100, mean cosine and relative contrast (see the module docstring)."""
    top, total = np.full((len(queries), 0), -9.0, dtype=np.float32), np.zeros(len(queries))
    for start in range(0, len(items), 100_000):
        s = queries @ items[start : start + 100_000].T
        if self_ids is not None:  # a real query is one of the items: not its own neighbour
            rows = np.nonzero((self_ids >= start) & (self_ids < start + len(s[0])))[0]
            s[rows, self_ids[rows] - start] = np.nan
        total += np.nansum(s, axis=1)
        s = np.nan_to_num(s, nan=-9.0)
        top = -np.sort(-np.concatenate([top, -np.partition(-s, 100, axis=1)[:, :101]], 1))[:, :101]
    mean = total / (len(items) - (self_ids is not None))
    contrast = np.sqrt(2 - 2 * mean) / np.sqrt(np.maximum(2 - 2 * top[:, 9], 1e-9))
    med = {"c1": top[:, 0], "c10": top[:, 9], "c100": top[:, 99], "mean": mean}
    med["contrast"] = contrast
    return {k: round(float(np.median(v)), 3) for k, v in med.items()}


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_483, 100_000, 1_000_000])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks/results/neighbour_stats.json"
    )
    args = parser.parse_args(argv)
    from memlib.embeddings import MiniLMEmbeddings

    texts = sentences()
    real = MiniLMEmbeddings(batch_size=64, cache_size=1).embed_array(texts)
    ids = np.random.default_rng(0).choice(len(real), 300, replace=False)
    rows = [{"data": "real MiniLM", "n": len(real), **neighbour_stats(real, real[ids], ids)}]
    for data in DATA:
        for n in args.sizes:
            items, queries = make_dataset(n, 300, 0, data)
            rows.append({"data": data, "n": n, **neighbour_stats(items, queries)})
    for row in rows:
        print(json.dumps(row))
    args.out.write_text(json.dumps(rows, indent=1) + "\n")
    return rows


if __name__ == "__main__":
    main()
