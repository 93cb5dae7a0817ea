"""Keeps benchmarks/recall_latency.py from rotting: its functions at tiny n, and one CLI run."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "recall_latency.py"
FIELDS = {"store", "n", "p50_ms", "p95_ms", "recall_at_10", "rss_mb"}


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("recall_latency", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("data", ["calibrated", "noisy"])
def test_dataset_is_clustered_unit_vectors(bench, data):
    items, queries = bench.make_dataset(500, 20, data=data)
    assert items.shape == (500, 384) and queries.shape == (20, 384)
    assert np.allclose(np.linalg.norm(items, axis=1), 1, atol=1e-5)
    truth = bench.exact_top_k(items, queries)
    sims = queries @ items.T
    # Nearest neighbours are much closer than a random item: the data has structure.
    assert np.take_along_axis(sims, truth[:, :1], axis=1).mean() > 3 * np.abs(sims).mean()
    assert (np.diff(np.take_along_axis(sims, truth, axis=1), axis=1) <= 1e-6).all()


def test_unknown_data_model_is_refused(bench):
    with pytest.raises(ValueError, match="'real'"):
        bench.make_dataset(500, 20, data="real")


@pytest.mark.parametrize(
    "kind",
    [
        "inmemory",
        "faiss_flat",
        "faiss_hnsw",
        "faiss_hnsw_sq",
        "faiss_ivf_sq",
        "faiss_ivf_pq",
        "faiss_hnsw_sq4",
        "sqlite",
        "numpy",
    ],
)
def test_run_one_at_tiny_n(bench, kind):
    rows = bench.run_one(kind, 500, 20)
    assert rows and all(FIELDS <= set(r) for r in rows)
    by_store = {r["store"]: r for r in rows if r["scope"] == "all"}
    ns = next(r for r in rows if r["scope"] == "namespace")
    assert ns["recall_at_10"] >= 0.95, ns  # 50 items in the namespace: exact there
    if kind.startswith("faiss"):  # durable puts timed, and the reopen found every item
        assert rows[0]["put_ms_p50"] > 0 and rows[0]["reopen_s"] >= 0
    if kind.startswith("faiss_ivf"):  # 500 items: below IVF_TRAIN_AT, so still exact
        probes = {"faiss_ivf_sq": (4, 8, 32), "faiss_ivf_pq": (32, 64, 128, 256, 512)}[kind]
        assert set(by_store) == {kind, *(f"{kind}_nprobe{e}" for e in probes)}
        assert by_store[kind]["recall_at_10"] == 1.0
    elif kind == "faiss_hnsw_sq4":  # 500 items: below IVF_TRAIN_AT, so still exact
        assert set(by_store) == {kind, *(f"{kind}_ef{e}" for e in (32, 64, 96, 192, 256))}
        assert by_store[kind]["recall_at_10"] == 1.0
    elif kind in ("faiss_hnsw", "faiss_hnsw_sq"):
        assert set(by_store) == {kind, *(f"{kind}_ef{e}" for e in (16, 32, 64))}
        assert by_store[kind]["recall_at_10"] >= 0.95
    else:
        assert by_store[kind]["recall_at_10"] == 1.0  # exact search finds the exact top-10
    for r in rows:
        assert r["n"] == 500 and r["n_queries"] == 20
        assert 0 < r["p50_ms"] <= r["p95_ms"]


def test_cli_writes_json_and_table(bench, tmp_path, capsys):
    out = tmp_path / "rows.json"
    rows = bench.main(
        ["--sizes", "300", "--queries", "20", "--stores", "faiss_flat", "numpy", "--out", str(out)]
    )
    assert json.loads(out.read_text()) == rows
    assert {r["store"] for r in rows} == {"faiss_flat", "numpy"}
    printed = capsys.readouterr().out
    assert "recall@10" in printed and "faiss_flat" in printed


def test_default_run_is_small_and_large_runs_write_their_own_files(bench):
    results = bench.RESULTS
    assert bench.plan() == ([10_000], results / "recall_latency.json")
    assert bench.plan(large=True) == (
        [1_000, 10_000, 100_000],
        results / "recall_latency_large.json",
    )
    sizes, out = bench.plan(million=True)
    assert (
        sizes == [1_000, 10_000, 100_000, 1_000_000] and out.name == "recall_latency_million.json"
    )
    assert bench.plan([300]) == ([300], results / "recall_latency_sizes.json")
    with pytest.raises(SystemExit):  # one size option at a time
        bench.main(["--large", "--million"])


def test_targets_are_judged_from_rows(bench):
    rows = [
        {"store": "inmemory", "n": 10_000, "p50_ms": 200.0, "rss_mb": 200.0},
        {"store": "faiss_flat", "n": 10_000, "p50_ms": 4.0, "rss_mb": 40.0},
    ]
    assert bench.check_targets(rows) == [
        "FAIL  exact FAISS at 10k is 50x faster than InMemoryStore (target 100x)"
    ]
    rows[1]["p50_ms"] = 1.0
    assert bench.check_targets(rows)[0].startswith("PASS")
