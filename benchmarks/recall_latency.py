"""Search latency, recall@10 and memory: FaissStore (exact, HNSW) vs InMemoryStore vs plain numpy.

Data: clustered synthetic 384-d unit vectors (n // 100 cluster centres, Gaussian noise with
sigma 2 per dimension around each, so an item's cosine to its own centre is about 0.45),
queries drawn the same way. Embedding cost is excluded: each store's `embed` function looks
the precomputed vector up by text key ("d123", "q7"). Every store is searched through its
public API (`store.search(("docs",), query=..., limit=10)`); numpy is a float32 matrix-vector
product plus argpartition. recall@10 is measured against exact top-10 by numpy.

Each (store, n) runs in its own subprocess with BLAS / OpenMP / FAISS pinned to one thread, so
resident memory (VmRSS after the queries, minus VmRSS before the store was built, both after
malloc_trim; libraries are imported before the first reading) belongs to that store alone. HNSW rows for several efSearch values come from one
build; "faiss_hnsw" is the store's default efSearch.

Usage: python benchmarks/recall_latency.py [--quick] [--sizes 1000 10000] [--out PATH]
Writes a JSON list of rows {"store", "n", "p50_ms", "p95_ms", "recall_at_10", "rss_mb", ...}.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
}
for _k, _v in THREAD_ENV.items():  # before numpy is imported
    os.environ.setdefault(_k, _v)

import numpy as np  # noqa: E402

DIMS = 384
K = 10
SIGMA = 2.0
STORES = ("inmemory", "faiss_flat", "faiss_hnsw", "numpy")
HNSW_EF_SWEEP = (16, 32, 64)
RESULTS = Path(__file__).resolve().parent / "results"


def make_dataset(n: int, n_queries: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Clustered unit vectors: n items and n_queries queries, float32, shape (*, 384)."""
    rng = np.random.default_rng(seed)
    n_clusters = max(10, n // 100)
    centres = rng.standard_normal((n_clusters, DIMS)).astype(np.float32)

    def draw(m: int) -> np.ndarray:
        x = centres[rng.integers(n_clusters, size=m)]
        x += SIGMA * rng.standard_normal((m, DIMS)).astype(np.float32)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        return x

    return draw(n), draw(n_queries)


def exact_top_k(items: np.ndarray, queries: np.ndarray, k: int = K) -> np.ndarray:
    """Exact top-k ids by inner product, best first."""
    scores = queries @ items.T
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1)
    return np.take_along_axis(top, order, axis=1)


def rss_mb() -> float:
    """Resident memory of this process in MB, after returning freed heap pages to the OS."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("VmRSS not found in /proc/self/status")


class LookupEmbed:
    """An embed function returning precomputed vectors by key ("d12", "q3"), as Python lists."""

    def __init__(self, items: np.ndarray, queries: np.ndarray):
        self.items, self.queries = items, queries

    def __call__(self, texts):
        table = {"d": self.items, "q": self.queries}
        return [table[t[0]][int(t[1:])].tolist() for t in texts]


def build(kind: str, items: np.ndarray, queries: np.ndarray):
    """Build one store over the items; return an object with search(j) -> list of item ids."""
    if kind == "numpy":
        matrix = np.array(items, copy=True)
        embed = LookupEmbed(items, queries)

        def search_numpy(j: int) -> list[int]:
            q = np.asarray(embed([f"q{j}"])[0], dtype=np.float32)
            scores = matrix @ q
            top = np.argpartition(-scores, K - 1)[:K]
            return top[np.argsort(-scores[top])].tolist()

        return search_numpy, None

    from langgraph.store.base import PutOp

    index = {"dims": DIMS, "embed": LookupEmbed(items, queries), "fields": ["text"]}
    if kind == "inmemory":
        from langgraph.store.memory import InMemoryStore

        store = InMemoryStore(index=index)
    else:
        import faiss

        from memlib.faiss_store import FaissStore

        faiss.omp_set_num_threads(1)
        store = FaissStore(index=index, index_type="hnsw" if kind == "faiss_hnsw" else "flat")
    for start in range(0, len(items), 1000):
        stop = min(start + 1000, len(items))
        store.batch([PutOp(("docs",), f"d{i}", {"text": f"d{i}"}) for i in range(start, stop)])

    def search_store(j: int) -> list[int]:
        return [int(r.key[1:]) for r in store.search(("docs",), query=f"q{j}", limit=K)]

    return search_store, store


def time_queries(search, n_queries: int, truth: np.ndarray) -> dict:
    """Run queries 0..n_queries-1 once each (after one warm-up); latency percentiles and recall."""
    search(0)
    times, hits = [], 0
    for j in range(n_queries):
        t0 = time.perf_counter()
        found = search(j)
        times.append((time.perf_counter() - t0) * 1000)
        hits += len(set(found) & set(truth[j].tolist()))
    return {
        "p50_ms": round(float(np.percentile(times, 50)), 4),
        "p95_ms": round(float(np.percentile(times, 95)), 4),
        "recall_at_10": round(hits / (K * n_queries), 4),
        "n_queries": n_queries,
    }


def run_one(kind: str, n: int, n_queries: int, seed: int = 0) -> list[dict]:
    """Benchmark one store at one size in this process; return its rows."""
    items, queries = make_dataset(n, n_queries, seed)
    truth = exact_top_k(items, queries)
    if kind != "numpy":  # library code is not the store's memory: import before the baseline
        import faiss  # noqa: F401
        import langgraph.store.memory  # noqa: F401

        import memlib.faiss_store  # noqa: F401
    before = rss_mb()
    t0 = time.perf_counter()
    search, store = build(kind, items, queries)
    build_s = round(time.perf_counter() - t0, 2)
    rows = []
    if kind == "faiss_hnsw":
        default_ef = store.ef_search
        for ef in (*HNSW_EF_SWEEP, default_ef):
            store.ef_search = ef
            name = "faiss_hnsw" if ef == default_ef else f"faiss_hnsw_ef{ef}"
            rows.append({"store": name, "n": n, **time_queries(search, n_queries, truth)})
        store.ef_search = default_ef
    else:
        rows.append({"store": kind, "n": n, **time_queries(search, n_queries, truth)})
    rss = round(rss_mb() - before, 1)
    for row in rows:
        row.update(rss_mb=rss, build_s=build_s)
    return rows


def queries_for(kind: str, n: int, n_queries: int) -> int:
    # InMemoryStore takes seconds per query at 100k: 20 queries there, the full count elsewhere.
    return min(n_queries, 20) if kind == "inmemory" and n >= 100_000 else n_queries


def run_subprocess(kind: str, n: int, n_queries: int) -> list[dict]:
    """Run one (store, n) in a fresh interpreter so its memory is measured alone."""
    env = {**os.environ, **THREAD_ENV}
    cmd = [sys.executable, __file__, "--worker", kind, str(n), str(n_queries)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"worker {kind} n={n} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(rows: list[dict]) -> str:
    """Format rows as a text table with the speed-up over InMemoryStore at the same n."""
    base = {r["n"]: r["p50_ms"] for r in rows if r["store"] == "inmemory"}
    lines = [
        f"{'store':<18}{'n':>8}{'p50 ms':>11}{'p95 ms':>11}{'x faster':>10}"
        f"{'recall@10':>11}{'RSS MB':>9}{'build s':>9}{'queries':>9}"
    ]
    for r in rows:
        speedup = f"{base[r['n']] / r['p50_ms']:.0f}" if r["n"] in base else "-"
        lines.append(
            f"{r['store']:<18}{r['n']:>8}{r['p50_ms']:>11.3f}{r['p95_ms']:>11.3f}{speedup:>10}"
            f"{r['recall_at_10']:>11.3f}{r['rss_mb']:>9.1f}{r['build_s']:>9.1f}{r['n_queries']:>9}"
        )
    return "\n".join(lines)


def check_targets(rows: list[dict]) -> list[str]:
    """The issue's targets, as lines saying PASS or FAIL with the measured figures."""
    by = {(r["store"], r["n"]): r for r in rows}
    out = []

    def line(ok: bool, text: str) -> None:
        out.append(f"{'PASS' if ok else 'FAIL'}  {text}")

    mem, flat = by.get(("inmemory", 10_000)), by.get(("faiss_flat", 10_000))
    if mem and flat:
        x = mem["p50_ms"] / flat["p50_ms"]
        line(x >= 100, f"exact FAISS at 10k is {x:.0f}x faster than InMemoryStore (target 100x)")
    mem, hnsw = by.get(("inmemory", 100_000)), by.get(("faiss_hnsw", 100_000))
    if mem and hnsw:
        x = mem["p50_ms"] / hnsw["p50_ms"]
        line(x >= 1000, f"HNSW at 100k is {x:.0f}x faster than InMemoryStore (target 1000x)")
        line(
            hnsw["recall_at_10"] >= 0.95,
            f"HNSW at 100k recall@10 {hnsw['recall_at_10']:.3f} (target 0.95)",
        )
        for name in ("faiss_flat", "faiss_hnsw"):
            r = by.get((name, 100_000))
            if r:
                frac = r["rss_mb"] / mem["rss_mb"]
                line(
                    frac <= 0.2,
                    f"{name} at 100k uses {r['rss_mb']:.0f} MB, {frac:.2f} of InMemoryStore's "
                    f"{mem['rss_mb']:.0f} MB (target at most 0.20)",
                )
    return out


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1k and 10k items only")
    parser.add_argument("--sizes", type=int, nargs="+", help="item counts (default 1k 10k 100k)")
    parser.add_argument("--queries", type=int, default=200, help="queries per store and size")
    parser.add_argument("--stores", nargs="+", choices=STORES, default=list(STORES))
    parser.add_argument("--out", type=Path, help="JSON output path")
    parser.add_argument(
        "--worker", nargs=3, metavar=("STORE", "N", "QUERIES"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)

    if args.worker:
        kind, n, nq = args.worker[0], int(args.worker[1]), int(args.worker[2])
        print(json.dumps(run_one(kind, n, nq)))
        return []

    sizes = args.sizes or ([1_000, 10_000] if args.quick else [1_000, 10_000, 100_000])
    out = args.out or RESULTS / (
        "recall_latency_quick.json" if args.quick or args.sizes else "recall_latency.json"
    )
    rows: list[dict] = []
    started = time.perf_counter()
    for n in sizes:
        for kind in args.stores:
            t0 = time.perf_counter()
            got = run_subprocess(kind, n, queries_for(kind, n, args.queries))
            rows.extend(got)
            print(f"  {kind:<11} n={n:<7} done in {time.perf_counter() - t0:.0f} s", flush=True)
    print()
    print(table(rows))
    for line in check_targets(rows):
        print(line)
    print(f"total {time.perf_counter() - started:.0f} s; wrote {out}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1) + "\n")
    return rows


if __name__ == "__main__":
    main()
