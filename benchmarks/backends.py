"""Latency of the memory backends at several sizes: one table of N memories (10 users), then
vector searches in one user's namespace and single puts; embedding excluded (computed once).

    python benchmarks/backends.py [--sizes 1000 10000] [--out benchmarks/results/backends.json]

Prints a Markdown table and writes JSON that notebooks/10_production_backends.ipynb reads.
PostgreSQL comes from MEMLIB_POSTGRES_URL or a local pgserver under build/bench-postgres.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

from memlib.backends import local_postgres, memory_texts, store_latency
from memlib.models import get_embeddings

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/backends.json"))
    args = parser.parse_args()
    texts = memory_texts(max(args.sizes))
    t0 = time.perf_counter()
    vectors = dict(zip(texts, get_embeddings().embed_documents(texts), strict=True))
    embed_s = time.perf_counter() - t0
    rows = []
    with contextlib.ExitStack() as stack:
        pg = os.environ.get("MEMLIB_POSTGRES_URL")
        if not pg:
            shutil.rmtree(ROOT / "build/bench-postgres", ignore_errors=True)
            pg = stack.enter_context(local_postgres(ROOT / "build/bench-postgres"))
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        for size in args.sizes:
            subset = {t: vectors[t] for t in texts[:size]}
            urls = {
                "memory": "memory://",
                "faiss": f"faiss:///{tmp}/faiss-{size}",
                "sqlite": f"sqlite:///{tmp}/sqlite-{size}.db",
                "postgres": pg,
            }
            for name, url in urls.items():
                if name == "postgres":
                    with open_pg_empty(pg):
                        pass
                row = {"backend": name, **store_latency(url, subset)}
                rows.append(row)
                print(row, flush=True)
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
        "embedding_seconds_all_texts": round(embed_s, 1),
        "rows": rows,
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print("| backend | memories | load s | search p50 ms | put p50 ms | short results |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['backend']} | {r['memories']} | {r['load_s']} | {r['search_ms_p50']} | "
            f"{r['put_ms_p50']} | {r['short_results']} |"
        )


@contextlib.contextmanager
def open_pg_empty(url):
    """Drop the bench rows a previous size left, so each size is one table of that size."""
    from memlib.backends import open_store

    with open_store(url) as store:
        store.conn.execute("DELETE FROM store WHERE prefix LIKE 'bench.%'")
    yield


if __name__ == "__main__":
    main()
