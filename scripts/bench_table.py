"""Print the README's benchmark tables from benchmarks/results/*.json.

Usage: python scripts/bench_table.py [NAME ...]   (default: every benchmark with results)
NAME is one of BENCHMARKS: recall_latency (its table is drawn here), or a benchmarks/<NAME>.py
that defines `table(result) -> str` (tokens, notebooks, calls, eval): its JSON is read from
benchmarks/results/<NAME>.json and drawn by that function, the same one the benchmark prints with.
offline_model (drawn here too) is the offline model's benchmark, which lives beside it:
offline_model/benchmarks/offline_eval.py writes offline_model/benchmarks/results/offline_model.json.
Two benchmarks keep a second results file, drawn by the same table: recall_latency_large.json
(recall_latency.py --large, `make bench LARGE=1`: 1,000 to 100,000 items) and eval_quick.json (eval.py's
default run; its --large run writes eval.json, which notebook 12 reads). With no NAME every file
present is printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
RESULTS = BENCH / "results"
OFFLINE_RESULTS = ROOT / "offline_model" / "benchmarks" / "results"
BENCHMARKS = ("recall_latency", "tokens", "notebooks", "calls", "eval", "offline_model")
OTHER_RUNS = {"recall_latency_large": "--large", "eval_quick": ""}  # and the flag writing each
# Benchmarks whose script and results are not benchmarks/<name>.py and benchmarks/results/
ELSEWHERE = {"offline_model": ("offline_model/benchmarks/offline_eval.py", OFFLINE_RESULTS)}
NAMES = {
    "inmemory": "LangGraph InMemoryStore",
    "faiss_flat": "FaissStore, exact",
    "faiss_hnsw": "FaissStore, HNSW (efSearch 128)",
    "faiss_hnsw_ef32": "FaissStore, HNSW (efSearch 32)",
    "faiss_hnsw_sq": "FaissStore, HNSW + SQ8, re-ranked (efSearch 128)",
    "faiss_ivf_sq": "FaissStore, IVF + SQ8, re-ranked (nprobe 16)",
    "faiss_ivf_pq": "FaissStore, IVF + 4-bit PQ fast scan, re-ranked (nprobe 96)",
    "sqlite": "SqliteStore + sqlite-vec",
    "postgres": "PostgresStore + pgvector",
    "numpy": "numpy brute force",
}


def ms(x: float) -> str:
    return f"{x:.3f}" if x < 1 else f"{x:,.1f}"


def recall_latency_table(rows: list[dict]) -> str:
    """One row per store and size; "in one namespace" rows search a tenth of the items."""
    rows = [r for r in rows if r["store"] in NAMES]
    base = {r["n"]: r for r in rows if r["store"] == "inmemory" and r.get("scope", "all") == "all"}
    lines = [
        "| store | n | searched | p50 ms | p95 ms | speed-up vs InMemoryStore (p50) | recall@10 "
        "| RSS MB | build s | put p50 ms |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    order = {"all": 0, "namespace": 1}
    key = lambda r: (r["n"], list(NAMES).index(r["store"]), order[r.get("scope", "all")])  # noqa: E731
    for r in sorted(rows, key=key):
        speedup = f"{base[r['n']]['p50_ms'] / r['p50_ms']:,.0f}x" if r["n"] in base else "-"
        scope = "in one namespace" if r.get("scope") == "namespace" else "all"
        put = ms(r["put_ms_p50"]) if "put_ms_p50" in r else "-"
        build = f"{r['build_s']:,.1f}" if "build_s" in r else "-"
        lines.append(
            f"| {NAMES[r['store']]} | {r['n']:,} | {scope} | {ms(r['p50_ms'])} | {ms(r['p95_ms'])} "
            f"| {speedup} | {r['recall_at_10']:.3f} | {r['rss_mb']:,.0f} | {build} | {put} |"
        )
    return "\n".join(lines)


def offline_model_table(on: dict) -> str:
    """The offline model on the sealed and dev sets."""
    cols = [("sealed test set", on["test"]), ("dev set", on["dev"])]
    if "check" in on:  # the late check set, a second sealed set scored once when written
        cols.insert(1, ("late check set", on["check"]))
    rows = [
        ("profile fields found (recall)", lambda r: f"{r['recall']:.3f}"),
        ("fields filled that are right (precision)", lambda r: f"{r['precision']:.3f}"),
        ('fields holding the string "None"', lambda r: f"{r['none_strings']}"),
        (
            'questions answered right ("I don\'t know" when nothing was said)',
            lambda r: (
                f"{r['answers']['accuracy']:.3f} ({r['answers']['right']} of {r['answers']['total']})"
            ),
        ),
        ("stated facts kept by a 40-word summary", lambda r: f"{r['summaries']['facts_kept']:.3f}"),
        ("summaries written as sentences", lambda r: f"{r['summaries']['sentence_rate']:.3f}"),
        (
            "long chats: facts still in the rolling summary",
            lambda r: (
                f"{r['long']['facts_kept']:.3f} ({r['long']['kept']} of {r['long']['facts']})"
            ),
        ),
        (
            "long chats: question answered right",
            lambda r: f"{r['long']['answers']} of {r['long']['items']}",
        ),
    ]
    head = " | ".join(f"{name} ({r['items']} chats)" for name, r in cols)
    lines = [f"| figure | {head} |", "|---|" + "---:|" * len(cols)]
    lines += [f"| {label} | " + " | ".join(f(r) for _, r in cols) + " |" for label, f in rows]
    return "\n".join(lines)


def load_benchmark(name: str):
    """benchmarks/<name>.py as a module (not run: its main() is behind __main__)."""
    path = BENCH / f"{name}.py"
    sys.path.insert(0, str(ROOT))  # the benchmarks import memlib
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def names_known() -> tuple[str, ...]:
    """Every name render() takes: BENCHMARKS, each followed by its other run if it has one."""
    return tuple(n for b in BENCHMARKS for n in (b, *(o for o in OTHER_RUNS if o.startswith(b))))


def script_and_results(name: str) -> tuple[str, Path]:
    """The benchmark's script (relative to the repository) and the folder of its results."""
    return ELSEWHERE.get(name, (f"benchmarks/{name}.py", RESULTS))


def benchmark_of(name: str) -> str:
    """The benchmark a results name belongs to: recall_latency_large -> recall_latency."""
    return name.rsplit("_", 1)[0] if name in OTHER_RUNS else name


def results_path(name: str) -> Path:
    """Where a name's JSON is: its benchmark's results folder, <name>.json."""
    return script_and_results(benchmark_of(name))[1] / f"{name}.json"


def render(name: str, results: Path | None = None) -> str:
    """The README table of one benchmark, from its JSON (in `results`, default: its own folder)."""
    if name not in names_known():
        raise ValueError(f"unknown benchmark {name!r}; expected one of {names_known()}")
    script, default = script_and_results(benchmark_of(name))
    path = (results or default) / f"{name}.json"
    if not path.is_file():
        flag = f" {OTHER_RUNS[name]}" if OTHER_RUNS.get(name) else ""
        raise FileNotFoundError(f"no results at {path}: run `python {script}{flag}` first")
    data = json.loads(path.read_text())
    name = benchmark_of(name)
    if name == "recall_latency":
        return recall_latency_table(data)
    if name == "offline_model":
        return offline_model_table(data)
    module = load_benchmark(name)
    if not callable(getattr(module, "table", None)):
        raise ValueError(f"benchmarks/{name}.py defines no table(result) function")
    return module.table(data)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"of {', '.join(names_known())}")
    args = parser.parse_args(argv)
    names = args.names or [n for n in names_known() if results_path(n).is_file()]
    for i, name in enumerate(names):
        try:
            text = render(name)
        except (ValueError, FileNotFoundError) as exc:
            raise SystemExit(str(exc)) from None
        if len(names) > 1:
            where = results_path(name).relative_to(ROOT).as_posix()
            print(f"{'' if i == 0 else chr(10)}<!-- {name}: {where} -->")
        print(text)


if __name__ == "__main__":
    main()
