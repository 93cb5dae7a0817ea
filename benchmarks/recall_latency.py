"""Search latency, recall@10, memory, build time and durable put latency of the vector stores.

Stores: LangGraph's InMemoryStore, FaissStore exact ("faiss_flat"), HNSW ("faiss_hnsw"), HNSW
("faiss_hnsw_sq") and IVF ("faiss_ivf_sq") over 8-bit scalar-quantised vectors, IVF over 4-bit
fast-scan product codes ("faiss_ivf_pq"), HNSW over 4-bit scalar codes ("faiss_hnsw_sq4"), all
re-ranked with the float32 ones, LangGraph's
SqliteStore with sqlite-vec ("sqlite") and PostgresStore with pgvector ("postgres", both opened
through memlib.backends), and plain numpy.

Data (`--data`): synthetic 384-d unit vectors; no text is embedded, so embedding cost is excluded:
each store's `embed` function looks the precomputed vector up by key ("d123", "q7"). Queries are
further draws from the same model. Two models, measured by benchmarks/neighbour_stats.py (median
over 300 queries of the cosine of the 1st / 10th / 100th nearest item, the mean cosine to all
items, and the relative contrast: mean distance / 10th-neighbour distance):

| data | n | c1 | c10 | c100 | mean | contrast |
|---|---|---|---|---|---|---|
| real MiniLM: the repository's 5,483 distinct sentences | 5,483 | 0.735 | 0.484 | 0.325 | 0.093 | 1.335 |
| "calibrated" (the default) | 5,483 | 0.747 | 0.484 | 0.330 | 0.092 | 1.322 |
| "calibrated" | 100,000 | 0.748 | 0.480 | 0.370 | 0.084 | 1.328 |
| "calibrated" | 1,000,000 | 0.741 | 0.495 | 0.404 | 0.087 | 1.346 |
| "noisy" (the model before) | 5,483 | 0.309 | 0.255 | 0.145 | 0.004 | 1.156 |
| "noisy" | 100,000 | 0.313 | 0.261 | 0.175 | 0.000 | 1.163 |
| "noisy" | 1,000,000 | 0.307 | 0.257 | 0.198 | 0.000 | 1.160 |

(benchmarks/results/neighbour_stats.json.) Real sentences at a million could not be measured (the
repository has 5,483); how real neighbours thicken with n is the model's assumption below.

- "calibrated": a hierarchy fitted to those real statistics at the size measured: a mean
  direction shared by all vectors (weight 0.5: embeddings are anisotropic), n // 200 topics (0.8),
  n // 8 groups of near-paraphrases, each in a random topic (1.0), and the item's own noise (1.0
  times a log-normal level of spread 0.4, so some items have close neighbours and some none);
  every direction is drawn with a power-law spectrum (variance of the i-th axis ~ i^-0.75, in a
  random rotation), as real embeddings spread unevenly over their axes. Group and topic sizes
  stay fixed as n grows, as for many users' memories of similar kinds.
- "noisy": n // 100 cluster centres drawn from a standard normal, each vector a random centre
  plus Gaussian noise with sigma 2 per dimension (cosine to its own centre about 0.45, to a
  cluster-mate about 0.2). Its neighbours are hardly nearer than any vector (contrast 1.16 at
  every size; c10 0.26 at 100k and at 1M) and 93% of a query's true top-10 at 1M (99.5% at 100k)
  are its cluster-mates, which k-means cannot gather into few lists at that noise: a partitioned
  index must scan most lists. Kept for comparison with the rows measured on it before.

Items are spread over 10 namespaces ("docs", "u0") .. ("docs", "u9"). Every store is searched
through its public API: `store.search(("docs",), query=..., limit=10)` over all items, and, the
"namespace" rows, `store.search(("docs", "u3"), ...)` over one namespace (a tenth of the items).
recall@10 is measured against exact top-10 by numpy over the same items. Besides wall-clock
percentiles, each row has the CPU time of the searching thread (`cpu_p50_ms`, time.thread_time):
on a shared machine, where a niced benchmark waits for the CPU, that is the store's own cost.

Each (store, n) runs in its own subprocess with BLAS / OpenMP / FAISS pinned to one thread, so
resident memory (VmRSS after the queries, minus VmRSS before the store was built, both after
malloc_trim; libraries are imported before the first reading) belongs to that store alone
(PostgreSQL's server process is not counted). FaissStore runs on a directory: after the bulk load
it takes a snapshot, then times single durable puts (`autosave=True`: appended to the log and
fdatasynced before returning) and the reopen (snapshot + log). FAISS builds with BUILD_THREADS
threads; everything timed after the build runs on one. HNSW rows for several efSearch values, and
IVF rows for several nprobe values, come from one build; "faiss_hnsw" and "faiss_ivf_sq" are the
store's defaults (efSearch 128, nprobe 16; ivf_pq: 96; hnsw_sq4: efSearch 128). The ivf_sq store is
built through the same public `batch` calls as the others: it searches exactly until 20,000 vectors,
then trains its lists on the live vectors and retrains them each time it could hold 1.4 times as
many lists (about every doubling: at 31k, 61k, 120k, 236k, 463k and 908k in batches of 1,000), all
inside build_s.

Usage: python benchmarks/recall_latency.py [--large | --million] [--sizes 1000 10000]
[--data calibrated|noisy] [--out PATH]
By default 10,000 items, written to recall_latency.json (what `make bench` runs); --large measures
1,000, 10,000 and 100,000 (about 20 minutes on 2 cores: the graph builds) and writes
recall_latency_large.json, so a default run does not overwrite it; --million adds 1,000,000 items
for the stores that build them at all on this machine (faiss_flat, faiss_ivf_sq: 29 minutes niced at
load 9, faiss_ivf_pq: 11 to 13 minutes at load 5 to 7, faiss_hnsw_sq4, numpy); the narrowest run of
one store at a million is `--sizes 1000000 --stores faiss_hnsw_sq4`; with --data noisy the file name
ends in _noisy. Writes a JSON list of rows {"store", "n", "scope", "p50_ms", "p95_ms",
"recall_at_10", "rss_mb", "vector_ratio" (index file bytes / float32 vector bytes), "build_s",
"put_ms_p50", "reopen_s", "load_avg" (1-minute load average at the end of the row), ...}.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
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
SIGMA = 2.0  # "noisy" data: per-dimension noise around a cluster centre
# "calibrated" data: weights of the shared mean, topic and group directions and of the item's own
# noise (its level log-normal with this spread), items per group and per topic, spectrum exponent
CALIBRATED = dict(mean=0.5, topic=0.8, group=1.0, noise=1.0, spread=0.4, alpha=0.75)
CALIBRATED.update(per_group=8, per_topic=200)
DATA = ("calibrated", "noisy")
STORES = (
    "inmemory",
    "faiss_flat",
    "faiss_hnsw",
    "faiss_hnsw_sq",
    "faiss_ivf_sq",
    "faiss_ivf_pq",
    "faiss_hnsw_sq4",
    "sqlite",
    "postgres",
    "numpy",
)
MAX_N = {"inmemory": 100_000, "sqlite": 100_000, "postgres": 100_000}
MAX_N.update(faiss_hnsw=100_000, faiss_hnsw_sq=100_000)  # graph builds: 737 s for hnsw_sq at 100k
SWEEP = {
    "faiss_hnsw": ("ef_search", "ef", (16, 32, 64, 128)),
    "faiss_hnsw_sq": ("ef_search", "ef", (16, 32, 64, 128)),
    "faiss_ivf_sq": ("nprobe", "nprobe", (4, 8, 16, 32)),
    "faiss_ivf_pq": ("nprobe", "nprobe", (32, 64, 128, 256, 512)),
    "faiss_hnsw_sq4": ("ef_search", "ef", (32, 64, 96, 192, 256)),
}
BUILD_THREADS = 1  # FAISS build threads: 2 took 1.6x the CPU and more wall, niced at load 11
MILLION = (
    "faiss_flat",
    "faiss_ivf_sq",
    "faiss_ivf_pq",
    "faiss_hnsw_sq4",
    "numpy",
)  # stores that build a million in minutes
USERS = 10  # namespaces the items are spread over; "namespace" rows search one of them
PUTS = 50  # single durable puts timed per FaissStore
RESULTS = Path(__file__).resolve().parent / "results"


def make_dataset(
    n: int, n_queries: int, seed: int = 0, data: str = "calibrated"
) -> tuple[np.ndarray, np.ndarray]:
    """n items and n_queries queries, float32 unit vectors of shape (*, 384): see DATA."""
    if data not in DATA:
        raise ValueError(f"data must be one of {sorted(DATA)}, got {data!r}")
    rng = np.random.default_rng(seed)
    if data == "noisy":
        n_clusters = max(10, n // 100)
        centres = rng.standard_normal((n_clusters, DIMS)).astype(np.float32)

        def draw(m: int) -> np.ndarray:
            x = centres[rng.integers(n_clusters, size=m)]
            x += SIGMA * rng.standard_normal((m, DIMS)).astype(np.float32)
            return x / np.linalg.norm(x, axis=1, keepdims=True)

        return draw(n), draw(n_queries)
    p = CALIBRATED
    # Every random direction is drawn with a power-law spectrum (variance of the i-th principal
    # axis ~ i^-alpha) in a random rotation, as sentence embeddings spread over a few hundred
    # axes unevenly; vectors share one mean direction (embeddings are anisotropic).
    scale = np.arange(1, DIMS + 1) ** (-p["alpha"] / 2)
    rotation = np.linalg.qr(rng.standard_normal((DIMS, DIMS)))[0]
    basis = (scale[:, None] / np.sqrt((scale**2).mean()) * rotation.T).astype(np.float32)
    n_groups, n_topics = max(1, n // p["per_group"]), max(1, n // p["per_topic"])
    mean = rng.standard_normal(DIMS).astype(np.float32) @ basis
    mean *= np.sqrt(DIMS) / np.linalg.norm(mean)
    topics = rng.standard_normal((n_topics, DIMS)).astype(np.float32) @ basis
    groups = rng.standard_normal((n_groups, DIMS)).astype(np.float32) @ basis
    topic_of = rng.integers(n_topics, size=n_groups)

    def draw_calibrated(m: int) -> np.ndarray:
        out = np.empty((m, DIMS), dtype=np.float32)
        for start in range(0, m, 1 << 16):
            group = rng.integers(n_groups, size=min(1 << 16, m - start))
            x = p["mean"] * mean + p["topic"] * topics[topic_of[group]] + p["group"] * groups[group]
            noise = rng.standard_normal((len(group), DIMS)).astype(np.float32) @ basis
            level = p["noise"] * np.exp(p["spread"] * rng.standard_normal(len(group)))
            x += level.astype(np.float32)[:, None] * noise
            out[start : start + len(group)] = x / np.linalg.norm(x, axis=1, keepdims=True)
        return out

    return draw_calibrated(n), draw_calibrated(n_queries)


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


def open_backend(kind: str, index: dict, workdir: Path, stack):
    """An empty store of this kind, in workdir where it keeps files."""
    if kind == "inmemory":
        from langgraph.store.memory import InMemoryStore

        return InMemoryStore(index=index)
    if kind.startswith("faiss"):
        from memlib.faiss_store import FaissStore

        index_type = kind.removeprefix("faiss_")
        return FaissStore(index=index, index_type=index_type, path=workdir / "store")
    from memlib.backends import local_postgres, open_store

    url = f"sqlite:///{workdir}/store.db"
    if kind == "postgres":
        url = os.environ.get("MEMLIB_POSTGRES_URL") or stack.enter_context(
            local_postgres(workdir / "pg")
        )
    return stack.enter_context(open_store(url, index=index))


def build(kind: str, items: np.ndarray, queries: np.ndarray, workdir: Path, stack):
    """Build one store over the items; return search(j, user) -> item ids, and the store."""
    if kind == "numpy":
        matrix, embed = np.array(items, copy=True), LookupEmbed(items, queries)
        mine = np.arange(3, len(items), USERS)
        sub = matrix[mine]

        def search_numpy(j: int, user: int | None = None) -> list[int]:
            q = np.asarray(embed([f"q{j}"])[0], dtype=np.float32)
            scores = (matrix if user is None else sub) @ q
            top = np.argpartition(-scores, K - 1)[:K]
            top = top[np.argsort(-scores[top])]
            return (top if user is None else mine[top]).tolist()

        return search_numpy, None

    from langgraph.store.base import PutOp

    index = {"dims": DIMS, "embed": LookupEmbed(items, queries), "fields": ["text"]}
    store = open_backend(kind, index, workdir, stack)
    for start in range(0, len(items), 1000):
        stop = min(start + 1000, len(items))
        store.batch(
            [
                PutOp(("docs", f"u{i % USERS}"), f"d{i}", {"text": f"d{i}"})
                for i in range(start, stop)
            ]
        )
    if kind.startswith("faiss"):
        store.save()  # a snapshot; later puts go to the log

    def search_store(j: int, user: int | None = None) -> list[int]:
        prefix = ("docs",) if user is None else ("docs", f"u{user}")
        return [int(r.key[1:]) for r in store.search(prefix, query=f"q{j}", limit=K)]

    return search_store, store


def time_queries(search, n_queries: int, truth: np.ndarray, user: int | None = None) -> dict:
    """Run queries 0..n_queries-1 once each (after one warm-up); latency percentiles and recall."""
    search(0, user)
    times, cpu, hits = [], [], 0
    for j in range(n_queries):
        t0, c0 = time.perf_counter(), time.thread_time()
        found = search(j, user)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)  # this thread's CPU: immune to preemption
        hits += len(set(found) & set(truth[j].tolist()))
    return {
        "p50_ms": round(float(np.percentile(times, 50)), 4),
        "p95_ms": round(float(np.percentile(times, 95)), 4),
        "cpu_p50_ms": round(float(np.percentile(cpu, 50)), 4),
        "cpu_p95_ms": round(float(np.percentile(cpu, 95)), 4),
        "recall_at_10": round(hits / (K * n_queries), 4),
        "n_queries": n_queries,
    }


def time_puts_and_reopen(kind: str, store, workdir: Path, n_queries: int) -> dict:
    """Single puts (durable for FaissStore, SQLite, PostgreSQL); FaissStore's reopen time."""
    if store is None:
        return {}
    if kind.startswith("faiss"):
        store.autosave = True  # from here on every put is fsynced to the log before it returns
    times, cpu = [], []
    for j in range(PUTS):  # new items whose vectors are the query vectors
        t0, c0 = time.perf_counter(), time.thread_time()
        store.put(("docs", "u0"), f"new{j}", {"text": f"q{j % n_queries}"})
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
    out = {
        "put_ms_p50": round(float(np.percentile(times, 50)), 3),
        "put_ms_p95": round(float(np.percentile(times, 95)), 3),
        "put_cpu_ms_p50": round(float(np.percentile(cpu, 50)), 3),
    }
    if kind.startswith("faiss"):
        from memlib.faiss_store import FaissStore

        store.close()
        files = list((workdir / "store").iterdir())
        out["disk_mb"] = round(sum(f.stat().st_size for f in files) / 1e6, 1)
        out["index_file_mb"] = round(
            sum(f.stat().st_size for f in files if f.name.startswith("index-")) / 1e6, 1
        )
        t0, c0 = time.perf_counter(), time.process_time()
        again = FaissStore(
            index=store.index_config, index_type=store.index_type, path=workdir / "store"
        )
        out["reopen_s"] = round(time.perf_counter() - t0, 2)
        out["reopen_cpu_s"] = round(time.process_time() - c0, 2)  # this process's own cost
        assert len(again) == len(store), (len(again), len(store))
    return out


def run_one(
    kind: str, n: int, n_queries: int, seed: int = 0, data: str = "calibrated"
) -> list[dict]:
    """Benchmark one store at one size in this process; return its rows."""
    import contextlib

    items, queries = make_dataset(n, n_queries, seed, data)
    truth = exact_top_k(items, queries)
    mine = np.arange(3, n, USERS)  # the items of namespace ("docs", "u3")
    truth_ns = mine[exact_top_k(items[mine], queries)]
    if kind != "numpy":  # library code is not the store's memory: import before the baseline
        import faiss  # noqa: F401
        import langgraph.store.memory  # noqa: F401

        import memlib.backends  # noqa: F401
        import memlib.faiss_store  # noqa: F401
    workdir = Path(tempfile.mkdtemp(prefix=f"bench-{kind}-"))
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, workdir, ignore_errors=True)
        before = rss_mb()
        t0 = time.perf_counter()
        if kind.startswith("faiss"):
            import faiss

            faiss.omp_set_num_threads(BUILD_THREADS)
        search, store = build(kind, items, queries, workdir, stack)
        if kind.startswith("faiss"):
            faiss.omp_set_num_threads(1)
        build_s = round(time.perf_counter() - t0, 2)
        rows = []
        attr, tag, values = SWEEP.get(kind, (None, None, ()))
        default = getattr(store, attr) if attr else None
        for value in (*(v for v in values if v != default), None):
            if value is not None:
                setattr(store, attr, value)
            name = kind if value is None else f"{kind}_{tag}{value}"
            got = time_queries(search, n_queries, truth)
            rows.append({"store": name, "n": n, "data": data, "scope": "all", **got})
            if attr:
                setattr(store, attr, default)
        got = time_queries(search, n_queries, truth_ns, user=3)
        rows.append({"store": kind, "n": n, "data": data, "scope": "namespace", **got})
        rss = round(rss_mb() - before, 1)
        extra = time_puts_and_reopen(kind, store, workdir, n_queries)
    f32 = n * DIMS * 4
    ratio = extra.get("index_file_mb", f32 / 1e6 if kind == "numpy" else None)
    for row in rows:
        row.update(rss_mb=rss, build_s=build_s, **extra, load_avg=round(os.getloadavg()[0], 2))
        if ratio is not None:
            row["vector_ratio"] = round(ratio * 1e6 / f32, 3)
    return rows


def queries_for(kind: str, n: int, n_queries: int) -> int:
    # InMemoryStore takes seconds per query at 100k (0.1 s at 10k), SQLite half a second at 10k:
    # fewer there
    if kind in ("inmemory", "sqlite", "postgres") and n >= 100_000:
        return min(n_queries, 20)
    return (
        min(n_queries, 50)
        if kind in ("inmemory", "sqlite", "postgres") and n >= 10_000
        else n_queries
    )


def run_subprocess(kind: str, n: int, n_queries: int, data: str = "calibrated") -> list[dict]:
    """Run one (store, n) in a fresh interpreter so its memory is measured alone."""
    env = {**os.environ, **THREAD_ENV}
    cmd = [sys.executable, __file__, "--worker", kind, str(n), str(n_queries), data]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"worker {kind} n={n} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(rows: list[dict]) -> str:
    """Format rows as a text table with the speed-up over InMemoryStore at the same n."""
    base = {
        r["n"]: r["p50_ms"] for r in rows if r["store"] == "inmemory" and r.get("scope") == "all"
    }
    lines = [
        f"{'store':<20}{'n':>8}{'scope':>10}{'p50 ms':>9}{'p95 ms':>9}{'x faster':>9}"
        f"{'recall@10':>10}{'RSS MB':>8}{'build s':>9}{'put ms':>8}{'reopen s':>9}"
    ]
    for r in rows:
        speedup = f"{base[r['n']] / r['p50_ms']:.0f}" if r["n"] in base else "-"
        put = f"{r['put_ms_p50']:.2f}" if "put_ms_p50" in r else "-"
        reopen = f"{r['reopen_s']:.2f}" if "reopen_s" in r else "-"
        lines.append(
            f"{r['store']:<20}{r['n']:>8}{r.get('scope', 'all'):>10}{r['p50_ms']:>9.3f}{r['p95_ms']:>9.3f}"
            f"{speedup:>9}{r['recall_at_10']:>10.3f}{r['rss_mb']:>8.1f}{r['build_s']:>9.1f}"
            f"{put:>8}{reopen:>9}"
        )
    return "\n".join(lines)


def check_targets(rows: list[dict]) -> list[str]:
    """The issues' targets (#8 at 10k and 100k, #22 at a million), as PASS / FAIL lines."""
    by = {(r["store"], r["n"], r.get("scope", "all")): r for r in rows}
    out = []

    def line(ok: bool, text: str) -> None:
        out.append(f"{'PASS' if ok else 'FAIL'}  {text}")

    mem, flat = by.get(("inmemory", 10_000, "all")), by.get(("faiss_flat", 10_000, "all"))
    if mem and flat:
        x = mem["p50_ms"] / flat["p50_ms"]
        line(x >= 100, f"exact FAISS at 10k is {x:.0f}x faster than InMemoryStore (target 100x)")
    mem, hnsw = by.get(("inmemory", 100_000, "all")), by.get(("faiss_hnsw", 100_000, "all"))
    if mem and hnsw:
        x = mem["p50_ms"] / hnsw["p50_ms"]
        line(x >= 1000, f"HNSW at 100k is {x:.0f}x faster than InMemoryStore (target 1000x)")
        line(hnsw["recall_at_10"] >= 0.95, f"HNSW at 100k recall@10 {hnsw['recall_at_10']:.3f}")
    for n, kind in [
        (n, k) for n in (100_000, 1_000_000) for k in ("hnsw_sq", "ivf_sq", "ivf_pq", "hnsw_sq4")
    ]:
        for scope in ("all", "namespace"):
            r = by.get((f"faiss_{kind}", n, scope))
            if r is None:
                continue
            line(
                r["p50_ms"] <= 1 and r["p95_ms"] <= 3 and r["recall_at_10"] >= 0.95,
                f"{kind} at {n:,} ({scope}, {r.get('data', 'noisy')} data): p50 {r['p50_ms']:.3f} ms (target 1), p95 "
                f"{r['p95_ms']:.3f} ms (target 3), recall@10 {r['recall_at_10']:.3f} (target 0.95)"
                f"; CPU p50 {r['cpu_p50_ms']:.3f} ms",
            )
        r = by.get((f"faiss_{kind}", n, "all"))
        if r:
            line(r["put_ms_p50"] <= 5, f"{kind} at {n:,}: durable put p50 {r['put_ms_p50']} ms")
            line(r["reopen_s"] <= 10, f"{kind} at {n:,}: reopen {r['reopen_s']} s (target 10)")
            line(
                r["vector_ratio"] <= 1 / 3,
                f"{kind} at {n:,}: index file (codes, ids, lists) {r['index_file_mb']:.0f} MB = "
                f"{r['vector_ratio']:.3f} of float32 (target 0.333); float32 copies on disk, "
                "memory-mapped, read for candidates only",
            )
    return out


def plan(sizes=None, *, large=False, million=False) -> tuple[list[int], Path]:
    """The item counts of a run and its results file: 10k in recall_latency.json; --large 1k, 10k
    and 100k (recall_latency_large.json), --million those and 1M; --sizes N... its own file."""
    run = "million" if million else "large" if large else ""
    name = "sizes" if sizes else run
    sizes = sizes or ([1_000, 10_000, 100_000] if run else [10_000])
    sizes = [*sizes, 1_000_000] if million else sizes
    return sizes, RESULTS / (f"recall_latency_{name}.json" if name else "recall_latency.json")


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--large", action="store_true", help="1k, 10k and 100k items (slow)")
    size.add_argument("--million", action="store_true", help="add 100k and 1,000,000 (slower)")
    parser.add_argument("--sizes", type=int, nargs="+", help="item counts (default 10k)")
    parser.add_argument("--queries", type=int, default=200, help="queries per store and size")
    parser.add_argument("--stores", nargs="+", choices=STORES, default=list(STORES))
    parser.add_argument("--out", type=Path, help="JSON output path")
    parser.add_argument(
        "--worker", nargs=4, metavar=("STORE", "N", "QUERIES", "DATA"), help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--data", choices=DATA, default="calibrated", help="vector model (see the docstring)"
    )
    args = parser.parse_args(argv)

    if args.worker:
        kind, n, nq = args.worker[0], int(args.worker[1]), int(args.worker[2])
        print(json.dumps(run_one(kind, n, nq, data=args.worker[3])))
        return []

    sizes, out = plan(args.sizes, large=args.large, million=args.million)
    out = args.out or (out.with_name(out.stem + "_noisy.json") if args.data == "noisy" else out)
    rows: list[dict] = []
    started = time.perf_counter()
    for n in sizes:
        for kind in args.stores:
            if n > MAX_N.get(kind, 10**9) or (n > 100_000 and kind not in MILLION):
                continue
            t0 = time.perf_counter()
            got = run_subprocess(kind, n, queries_for(kind, n, args.queries), args.data)
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
