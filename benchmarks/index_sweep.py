"""Plain FAISS graph indexes over compressed vectors on the calibrated data: recall@10 against CPU.

The experiment behind FaissStore's "hnsw_sq4" (issue 22): HNSW over 4-, 6- or 8-bit scalar codes
(`faiss.IndexHNSWSQ`, inner product; "hnswflat": float32 vectors), built single-threaded in batches of 1,000, then searched
one query at a time on one thread, fetching rerank * 10 candidates and re-scoring them exactly
with the float32 vectors (numpy), as the store does. Data and exact truth come from
benchmarks/recall_latency.py's generator ("calibrated": real MiniLM neighbour statistics).
"ivf:4096:SQ8" is IVF with 4,096 lists over 8-bit codes, an HNSW (M 32) over the centroids
choosing the lists, k-means on up to 256,000 items; for it --ef is nprobe, the lists scanned.
Per row: the configuration ("hnswsq4:32:64" = 4-bit codes, M 32, efConstruction 64), efSearch,
re-rank depth, recall@10, the search's CPU time (time.thread_time: immune to waiting for a CPU on
a shared machine) at p50 / p95, the build's wall seconds and the index's bytes / float32 bytes.

--save DIR writes each built index to DIR/CONFIG_N.faiss (data: make_dataset(N, 200), seed 0)
so a later run can search it again with --load instead of rebuilding.

Usage: python benchmarks/index_sweep.py N CONFIG... [--ef 32 64 128] [--rerank 1 2 4] [--out P]
[--save DIR | --load DIR], e.g. `index_sweep.py 100000 hnswsq4:32:64 hnswsq6:24:64 --ef 48 64 96 128 --rerank 2`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import faiss  # noqa: E402
import numpy as np  # noqa: E402
from recall_latency import DIMS, RESULTS, exact_top_k, make_dataset  # noqa: E402

BITS = {"hnswsq4": "QT_4bit", "hnswsq6": "QT_6bit", "hnswsq8": "QT_8bit", "hnswflat": None}
IVF_TRAIN = 256_000  # at most this many items train the IVF centroids (10 k-means iterations)


def build(config: str, items: np.ndarray) -> tuple[faiss.Index, float]:
    """An HNSW index over scalar codes, trained on up to 50,000 items, and its build seconds."""
    c0 = time.process_time()
    index, wall = _build(config, items)
    build.cpu_s = round(time.process_time() - c0, 1)
    return index, wall


def _build(config: str, items: np.ndarray) -> tuple[faiss.Index, float]:
    kind, m, ef_construction = config.split(":")
    if kind not in BITS and kind != "ivf":
        raise ValueError(f"config must start with one of {sorted(BITS)} or ivf, got {config!r}")
    t0 = time.perf_counter()
    if kind == "ivf":  # "ivf:4096:SQ8" = IVF4096_HNSW32,SQ8: lists found by an HNSW over centroids
        spec = f"IVF{m}_HNSW32,{ef_construction}"
        index = faiss.index_factory(DIMS, spec, faiss.METRIC_INNER_PRODUCT)
        faiss.extract_index_ivf(index).cp.niter = 10
        index.train(items[np.random.default_rng(1).permutation(len(items))[:IVF_TRAIN]])
        for start in range(0, len(items), 10_000):
            index.add(items[start : start + 10_000])
        return index, round(time.perf_counter() - t0, 1)
    if kind == "hnswflat":  # float32 vectors in the graph: what the codes cost
        index = faiss.IndexHNSWFlat(DIMS, int(m), faiss.METRIC_INNER_PRODUCT)
    else:
        qtype = getattr(faiss.ScalarQuantizer, BITS[kind])
        index = faiss.IndexHNSWSQ(DIMS, qtype, int(m), faiss.METRIC_INNER_PRODUCT)
        index.train(items[:50_000])
    index.hnsw.efConstruction = int(ef_construction)
    for start in range(0, len(items), 1000):
        index.add(items[start : start + 1000])
        if (start + 1000) % 100_000 == 0:  # the build's rate, for runs that may not finish
            done = f"{start + 1000:,} added: {time.perf_counter() - t0:.0f} s wall"
            print(f"{done}, {time.process_time():.0f} s CPU", file=sys.stderr, flush=True)
    return index, round(time.perf_counter() - t0, 1)


def sweep(index, items, queries, truth, efs, reranks) -> list[dict]:
    """Recall@10 and per-query CPU for each efSearch and re-rank depth."""
    rows = []
    for ef in efs:
        if hasattr(index, "hnsw"):
            index.hnsw.efSearch = ef
        else:  # IVF: ef is nprobe; the HNSW over centroids searches at least twice as wide
            ivf = faiss.extract_index_ivf(index)
            ivf.nprobe = ef
            faiss.downcast_index(ivf.quantizer).hnsw.efSearch = max(2 * ef, 64)
        for rerank in reranks:
            cpu, hits = [], 0
            for j in range(len(queries)):
                query = queries[j : j + 1]
                c0 = time.thread_time()
                _, ids = index.search(query, 10 * rerank)
                ids = ids[0][ids[0] >= 0]
                if rerank > 1:
                    ids = ids[np.argsort(-(items[ids] @ query[0]))]
                cpu.append((time.thread_time() - c0) * 1000)
                hits += len(set(ids[:10].tolist()) & set(truth[j].tolist()))
            rows.append(
                {
                    "ef_search": ef,
                    "rerank": rerank,
                    "recall_at_10": round(hits / (10 * len(queries)), 4),
                    "cpu_p50_ms": round(float(np.percentile(cpu, 50)), 3),
                    "cpu_p95_ms": round(float(np.percentile(cpu, 95)), 3),
                }
            )
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("configs", nargs="+")
    parser.add_argument("--ef", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--rerank", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--out", type=Path, default=RESULTS / "index_sweep.json")
    parser.add_argument("--save", type=Path, help="write each built index to DIR/CONFIG_N.faiss")
    parser.add_argument("--load", type=Path, help="read DIR/CONFIG_N.faiss instead of building")
    args = parser.parse_args(argv)
    faiss.omp_set_num_threads(1)
    items, queries = make_dataset(args.n, 200)
    truth = exact_top_k(items, queries)
    rows = []
    for config in args.configs:
        name = f"{config.replace(':', '_')}_{args.n}.faiss"
        build.cpu_s = None
        if args.load:
            index, build_s = faiss.read_index(str(args.load / name)), None
        else:
            index, build_s = build(config, items)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            faiss.write_index(index, str(args.save / name))
        ratio = round(faiss.serialize_index(index).nbytes / items.nbytes, 3)
        for row in sweep(index, items, queries, truth, args.ef, args.rerank):
            rows.append({"config": config, "n": args.n, **row, "build_s": build_s})
            rows[-1]["build_cpu_s"] = build.cpu_s
            rows[-1].update(index_ratio=ratio, load_avg=round(os.getloadavg()[0], 2))
            rows[-1]["utc"] = time.strftime("%H:%M", time.gmtime())
            print(json.dumps(rows[-1]), flush=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n")
    return rows


if __name__ == "__main__":
    main()
