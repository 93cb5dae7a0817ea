"""Print benchmarks/results/recall_latency.json as the Markdown table the README shows."""

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "recall_latency.json"
NAMES = {
    "inmemory": "LangGraph InMemoryStore",
    "faiss_flat": "FaissStore, exact",
    "faiss_hnsw": "FaissStore, HNSW (efSearch 128)",
    "faiss_hnsw_ef32": "FaissStore, HNSW (efSearch 32)",
    "numpy": "numpy brute force",
}


def ms(x: float) -> str:
    return f"{x:.3f}" if x < 1 else f"{x:,.1f}"


def main() -> None:
    rows = [r for r in json.loads(RESULTS.read_text()) if r["store"] in NAMES]
    base = {r["n"]: r for r in rows if r["store"] == "inmemory"}
    print("| store | n | p50 ms | p95 ms | speed-up vs InMemoryStore (p50) | recall@10 | RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in sorted(rows, key=lambda r: (r["n"], list(NAMES).index(r["store"]))):
        speedup = base[r["n"]]["p50_ms"] / r["p50_ms"]
        print(
            f"| {NAMES[r['store']]} | {r['n']:,} | {ms(r['p50_ms'])} | {ms(r['p95_ms'])} "
            f"| {speedup:,.0f}x | {r['recall_at_10']:.3f} | {r['rss_mb']:,.0f} |"
        )


if __name__ == "__main__":
    main()
