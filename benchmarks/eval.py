"""The evaluation harness at 100 sessions per case: accuracy and tokens per memory strategy.

Generates `--cases` synthetic cases (memlib.eval.generator, seeds 0..n-1) of `--sessions` sessions
of `--turns` turns each, runs every strategy of memlib.eval.STRATEGIES over them with the
configured backend (offline by default: deterministic), and records per strategy: answer accuracy
overall and per question type, stale-answer rate, abstention accuracy, evidence recall@k, prompt
tokens per question, ingest model calls per turn and ingest prompt tokens per turn.

The issue's goal: the memory strategies reach at least the full history's accuracy at no more than
a tenth of its prompt tokens per question. The script reports, for each strategy, whether it meets
that, and says so in the JSON; ingest tokens (what building the memory cost) are reported beside
it, not hidden.

Usage: python benchmarks/eval.py [--cases 3] [--sessions 100] [--turns 3] [--facts 6] [--out PATH]
Writes benchmarks/results/eval.json.
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
MEMORY = ("summary", "episodic", "semantic", "agent")  # the strategies the goal is about


def run(cases: int, sessions: int, turns: int, facts: int, strategies, quiet: bool = True) -> dict:
    from memlib.eval import STRATEGIES, evaluate, generate_dataset
    from memlib.models import describe_backend

    warnings.filterwarnings("ignore", message=".*deprecated.*")
    data = generate_dataset(cases, seed=0, sessions=sessions, turns=turns, facts=facts)
    rows = []
    for name in strategies or STRATEGIES:
        start = time.perf_counter()
        result = evaluate(data, name, quiet=quiet)
        every = result.summary["all"]
        rows.append(
            {
                "strategy": name,
                "accuracy": every["accuracy"],
                "accuracy_by_type": {
                    t: s["accuracy"] for t, s in result.summary.items() if t != "all"
                },
                "stale_rate": every["stale_rate"],
                "abstention_accuracy": every["abstention_accuracy"],
                "recall_at_k": every["recall_at_k"],
                "prompt_tokens_per_question": every["prompt_tokens"],
                "ingest_calls_per_turn": result.ingest["calls_per_turn"],
                "ingest_tokens_per_turn": round(
                    result.ingest["prompt_tokens"] / result.ingest["turns"], 1
                ),
                "seconds": round(time.perf_counter() - start, 2),
            }
        )
        print(f"  {name}: {rows[-1]['seconds']} s", file=sys.stderr, flush=True)
    full = next((r for r in rows if r["strategy"] == "full"), None)
    for r in rows:
        if full is None or r["strategy"] == "full":
            r["meets_goal"] = None
            continue
        r["meets_goal"] = (
            r["accuracy"] >= full["accuracy"]
            and r["prompt_tokens_per_question"] <= full["prompt_tokens_per_question"] / 10
        )
    return {
        "cases": cases,
        "sessions": sessions,
        "turns": turns,
        "facts": facts,
        "questions": sum(len(c["questions"]) for c in data),
        "backend": str(describe_backend()),
        "goal": "a memory strategy reaches at least the full history's accuracy at no more than "
        "a tenth of its prompt tokens per question",
        "goal_met_by": [r["strategy"] for r in rows if r["meets_goal"] and r["strategy"] in MEMORY],
        "rows": rows,
    }


def _f(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def table(result: dict) -> str:
    """The Markdown table the README shows (scripts/bench_table.py draws it from the JSON)."""
    lines = [
        "| strategy | accuracy | single | multi | update | temporal | abstention | stale "
        "| recall@k | prompt tokens / question | writing: calls / turn | writing: tokens / turn "
        "| goal |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    goal = {True: "met", False: "not met", None: "(reference)"}
    for r in result["rows"]:
        t = r["accuracy_by_type"]
        lines.append(
            f"| {r['strategy']} | {_f(r['accuracy'])} | {_f(t.get('single-session'))} "
            f"| {_f(t.get('multi-session'))} | {_f(t.get('knowledge-update'))} "
            f"| {_f(t.get('temporal'))} | {_f(t.get('abstention'))} | {_f(r['stale_rate'])} "
            f"| {_f(r['recall_at_k'])} | {r['prompt_tokens_per_question']:,.0f} "
            f"| {r['ingest_calls_per_turn']:.2f} | {r['ingest_tokens_per_turn']:,.0f} "
            f"| {goal[r['meets_goal']]} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=3)
    p.add_argument("--sessions", type=int, default=100)
    p.add_argument("--turns", type=int, default=3)
    p.add_argument("--facts", type=int, default=6)
    p.add_argument("--strategies", nargs="*", default=None)
    p.add_argument("--out", type=Path, default=RESULTS / "eval.json")
    args = p.parse_args(argv)
    start = time.perf_counter()
    result = run(args.cases, args.sessions, args.turns, args.facts, args.strategies)
    result["seconds"] = round(time.perf_counter() - start, 1)
    print(
        f"{result['cases']} cases x {result['sessions']} sessions x {result['turns']} turns, "
        f"{result['questions']} questions, {result['backend']}"
    )
    print(table(result))
    met = result["goal_met_by"]
    print(f"goal ({result['goal']}): " + (f"met by {', '.join(met)}" if met else "not met"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out} in {result['seconds']} s")


if __name__ == "__main__":
    main()
