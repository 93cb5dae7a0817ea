"""The evaluation harness at scale: every memory strategy at 100 and 500 sessions, and a sweep of
history lengths from 10 to 2,000 sessions.

Generates memlib.eval.SCALE's datasets (6 users, 3 turns a session, 6 favourites, a home and an
employer that each change three times: 108 questions, at least 12 of every type), runs every
strategy of memlib.eval.STRATEGIES over them with the configured backend (offline by default:
deterministic), and records per strategy and size: accuracy overall and per question type, stale
answers, questions refused for the context window (128,000 tokens offline, as gpt-4o-mini),
evidence recall@k, prompt tokens per question, and what writing the memory cost per user turn.

The goal (issue 21): at 100 and at 500 sessions, one memory strategy at least matches the full
history's accuracy on every question type, at no more than a tenth of its prompt tokens per
question, with temporal and knowledge-update accuracy at least 0.90 and stale answers at most 0.02.
Each row says which parts it meets. A strategy added to STRATEGIES (the `temporal` one) is run and
judged with no change here. The sweep runs `SWEEP` (full history against memory) at each length on
one generated user (18 questions): accuracy, prompt tokens per question and the share refused.

Usage: python benchmarks/eval.py [--large] [--sizes N ...] [--strategies ...] [--sweep N ...]
By default (what `make bench` runs) every strategy at SIZES sessions and the sweep to
SWEEP_LENGTHS, written to benchmarks/results/eval_quick.json; --large (`make bench LARGE=1`) runs
LARGE_SIZES and the sweep to 2,000 sessions (about 40 minutes on 2 cores) into eval.json, the file
the README's tables and notebook 12 read, which a default run leaves alone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

for _k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_k, "1")

RESULTS = Path(__file__).resolve().parent / "results"
REFERENCE = ("full", "window", "trim", "oldest")  # not memory: the goal is about the others
SWEEP = ("full", "summary", "semantic", "temporal")  # those present in STRATEGIES are swept
LENGTHS = (10, 30, 100, 300, 1000, 1500, 2000)
SIZES, SWEEP_LENGTHS = (10,), (10, 30, 100)  # the default run: about a minute (notebook 11's size)
LARGE_SIZES = (100, 500)  # --large: the README's table, with the sweep over LENGTHS
TYPES = ("single-session", "multi-session", "knowledge-update", "temporal", "abstention")


def _row(name: str, sessions: int, result, seconds: float) -> dict:
    every = result.summary["all"]
    return {
        "sessions": sessions,
        "strategy": name,
        "accuracy": every["accuracy"],
        "accuracy_by_type": {t: s["accuracy"] for t, s in result.summary.items() if t != "all"},
        "stale_rate": every["stale_rate"],
        "refused": every["refused"],
        "abstention_accuracy": every["abstention_accuracy"],
        "recall_at_k": every["recall_at_k"],
        "prompt_tokens_per_question": every["prompt_tokens"],
        "ingest_calls_per_turn": result.ingest["calls_per_turn"],
        "ingest_tokens_per_turn": round(result.ingest["prompt_tokens"] / result.ingest["turns"], 1),
        "seconds": round(seconds, 2),
    }


def judge(rows: list[dict]) -> list[dict]:
    """Mark each memory strategy's row with the parts of the goal it meets, against the full
    history's row of the same size."""
    full = {r["sessions"]: r for r in rows if r["strategy"] == "full"}
    for r in rows:
        ref = full.get(r["sessions"])
        if ref is None or r["strategy"] in REFERENCE:
            r["goal"], r["meets_goal"] = None, None
            continue
        acc, ref_acc = r["accuracy_by_type"], ref["accuracy_by_type"]
        r["goal"] = {
            "every type at least full": all(acc.get(t, 0) >= ref_acc.get(t, 0) for t in ref_acc),
            "a tenth of full's tokens": r["prompt_tokens_per_question"]
            <= ref["prompt_tokens_per_question"] / 10,
            "temporal and update >= 0.90": min(
                acc.get("temporal", 0), acc.get("knowledge-update", 0)
            )
            >= 0.90,
            "stale <= 0.02": (r["stale_rate"] or 0) <= 0.02,
        }
        r["meets_goal"] = all(r["goal"].values())
    return rows


def run(sizes, strategies=None, *, cases: int | None = None) -> dict:
    """Every strategy at every size on SCALE's datasets (`cases` overrides SCALE's 6 users)."""
    from memlib.eval import SCALE, STRATEGIES, evaluate, generate_dataset
    from memlib.models import describe_backend

    warnings.filterwarnings("ignore", message=".*deprecated.*")
    shape = SCALE | ({"cases": cases} if cases else {})
    rows, questions = [], {}
    for n in sizes:
        data = generate_dataset(**shape, sessions=n)
        questions[n] = {t: sum(q["type"] == t for c in data for q in c["questions"]) for t in TYPES}
        for name in strategies or STRATEGIES:
            start = time.perf_counter()
            result = evaluate(data, name, quiet=True)
            rows.append(_row(name, n, result, time.perf_counter() - start))
            print(f"  {n} sessions, {name}: {rows[-1]['seconds']} s", file=sys.stderr, flush=True)
    return {
        "shape": shape,
        "sizes": list(sizes),
        "questions_by_type": questions,
        "backend": str(describe_backend()),
        "goal": "at each size one memory strategy at least matches the full history's accuracy on "
        "every question type at no more than a tenth of its prompt tokens per question; temporal "
        "and knowledge-update at least 0.90; stale answers at most 0.02",
        "rows": judge(rows),
    }


def goal_met_by(result: dict) -> dict:
    return {
        str(n): [r["strategy"] for r in result["rows"] if r["sessions"] == n and r["meets_goal"]]
        for n in result["sizes"]
    }


def _f(value, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(result: dict) -> str:
    """The Markdown tables the README shows (scripts/bench_table.py draws them from the JSON)."""
    lines = [
        "| sessions | strategy | accuracy | single | multi | update | temporal | abstention "
        "| stale | refused | recall@k | prompt tokens / question | writing: calls / turn "
        "| writing: tokens / turn | goal |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in result["rows"]:
        t = r["accuracy_by_type"]
        missed = [k for k, ok in (r["goal"] or {}).items() if not ok]
        goal = "(reference)" if r["goal"] is None else "met" if not missed else "; ".join(missed)
        lines.append(
            f"| {r['sessions']} | {r['strategy']} | {_f(r['accuracy'])} "
            + "".join(f"| {_f(t.get(k))} " for k in TYPES)
            + f"| {_f(r['stale_rate'], 3)} | {_f(r['refused'])} | {_f(r['recall_at_k'])} "
            f"| {r['prompt_tokens_per_question']:,.0f} | {r['ingest_calls_per_turn']:.2f} "
            f"| {r['ingest_tokens_per_turn']:,.0f} | {goal} |"
        )
    if result.get("sweep"):
        lines += [
            "",
            "| sessions | strategy | questions | accuracy | prompt tokens / question | refused |",
            "|---:|---|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {r['sessions']:,} | {r['strategy']} | {r['questions']} | {_f(r['accuracy'])} "
            f"| {r['prompt_tokens']:,.0f} | {_f(r['refused'])} |"
            for r in result["sweep"]
        ]
    return "\n".join(lines)


def parse_args(argv=None) -> argparse.Namespace:
    """The command line, with --large's or the default run's sizes, sweep and results file."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--large", action="store_true", help=f"sizes {LARGE_SIZES}, sweep {LENGTHS}")
    p.add_argument("--sizes", type=int, nargs="*", help=f"sessions (default {SIZES})")
    p.add_argument("--strategies", nargs="*", default=None)
    p.add_argument("--sweep", type=int, nargs="*", help="lengths; none: skip")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    if args.sizes is None:
        args.sizes = list(LARGE_SIZES if args.large else SIZES)
    if args.sweep is None:
        args.sweep = list(LENGTHS if args.large else SWEEP_LENGTHS)
    args.out = args.out or RESULTS / ("eval.json" if args.large else "eval_quick.json")
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    start = time.perf_counter()
    result = run(args.sizes, args.strategies)
    if args.sweep:
        from memlib.eval import STRATEGIES, sweep

        result["sweep"] = sweep(args.sweep, [s for s in SWEEP if s in STRATEGIES])
    result["goal_met_by"] = goal_met_by(result)
    result["seconds"] = round(time.perf_counter() - start, 1)
    print(f"{result['shape']} at {result['sizes']} sessions, {result['backend']}")
    print(table(result))
    print(f"goal ({result['goal']}): met by {result['goal_met_by']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out} in {result['seconds']} s")


if __name__ == "__main__":
    main()
