"""Wall time of every notebook, offline, one after another, and of the suite.

Each notebook runs as the test suite's offline variant does (memlib.testing.execute: papermill,
a fresh `memlib` kernel, the offline model and MiniLM embeddings, no network). Per notebook:
`wall_s` from the call to the kernel's shutdown (kernel start-up included), `cells_s` the sum of
papermill's per-cell durations (the code alone), `cpu_s` the user + system CPU seconds of the
kernel and whatever it started (RUSAGE_CHILDREN, counted once they exit), and the 1-minute load
average before and after. Executed notebooks go to build/notebooks-bench/. The goal is under 15 s a notebook on 2 cores; on a shared machine the
wall time includes waiting for the cores, so compare `cpu_s` and the load average too.

Usage: python benchmarks/notebooks.py [NOTEBOOK ...] [--out PATH]
Writes benchmarks/results/notebooks.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import memlib.testing
from memlib.testing import (
    all_notebooks,
    backend_environment,
    build_dir,
    ensure_kernel,
    execute,
    serving,
)

RESULTS = Path(__file__).resolve().parent / "results"
# Executed notebooks and their files go to build/notebooks-bench/, not build/notebooks/: a
# benchmark run neither overwrites `make run`'s outputs nor shares files with a concurrent run.
BENCH_BUILD = memlib.testing.BUILD.with_name("notebooks-bench")
GOAL_S = 15.0
VARIANT = "offline"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cells_seconds(executed: Path) -> float:
    """Sum of papermill's per-cell durations in an executed notebook."""
    cells = json.loads(executed.read_text())["cells"]
    return sum((c.get("metadata", {}).get("papermill", {}).get("duration") or 0.0) for c in cells)


def measure(notebook: Path, run=execute) -> dict:
    """Run one notebook offline; return its timings (`run` is memlib.testing.execute)."""
    load_before = os.getloadavg()[0]
    cpu0, t0 = _children_cpu(), time.perf_counter()
    error = None
    try:
        run(notebook, variant=VARIANT)
    except Exception as exc:  # report it in the row, keep measuring the others
        error = f"{type(exc).__name__}: {' '.join(str(exc).split())[-300:]}"  # the tail: the cause
    wall = time.perf_counter() - t0
    cpu = _children_cpu() - cpu0
    executed = build_dir(VARIANT) / notebook.name
    return {
        "notebook": notebook.stem,
        "wall_s": round(wall, 2),
        "cells_s": round(cells_seconds(executed), 2) if error is None else None,
        "cpu_s": round(cpu, 2),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "ok": error is None,
        "error": error,
    }


def summarize(rows: list[dict]) -> dict:
    """Suite totals and the slowest notebook."""
    return {
        "notebooks": len(rows),
        "wall_s": round(sum(r["wall_s"] for r in rows), 1),
        "cells_s": round(sum(r["cells_s"] or 0 for r in rows), 1),
        "cpu_s": round(sum(r["cpu_s"] for r in rows), 1),
        "slowest": max(rows, key=lambda r: r["wall_s"])["notebook"] if rows else None,
        "over_goal": [r["notebook"] for r in rows if r["wall_s"] >= GOAL_S],
        "failed": [r["notebook"] for r in rows if not r["ok"]],
        "load_mean": round(sum(r["load_before"] for r in rows) / len(rows), 2) if rows else None,
    }


def table(result: dict) -> str:
    """The Markdown table the README shows."""
    lines = [
        "| notebook | wall s | cells s | CPU s | load (1 min) before |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        cells = "-" if r["cells_s"] is None else f"{r['cells_s']:.1f}"
        flag = "" if r["ok"] else " (failed)"
        lines.append(
            f"| {r['notebook']}{flag} | {r['wall_s']:.1f} | {cells} | {r['cpu_s']:.1f} "
            f"| {r['load_before']:.1f} |"
        )
    s = result["suite"]
    lines.append(
        f"| **suite ({s['notebooks']} notebooks)** | {s['wall_s']:.1f} | {s['cells_s']:.1f} "
        f"| {s['cpu_s']:.1f} | {s['load_mean']:.1f} (mean) |"
    )
    return "\n".join(lines)


def check_targets(result: dict) -> list[str]:
    """PASS under the goal; over it, LOADED when the machine had more runnable work than cores
    and the notebook's own CPU time is under the goal (the wall time then measures the queue),
    else FAIL."""
    cores = result["params"]["cores"] or 1
    lines = []
    for r in result["rows"]:
        if not r["ok"]:
            status = "FAIL"
        elif r["wall_s"] < GOAL_S:
            status = "PASS"
        elif max(r["load_before"], r["load_after"]) > cores and r["cpu_s"] < GOAL_S:
            status = "LOADED"
        else:
            status = "FAIL"
        lines.append(
            f"{status:<6}  {r['notebook']} {'ran' if r['ok'] else 'FAILED'} in {r['wall_s']:.1f} s "
            f"wall, {r['cpu_s']:.1f} s CPU (goal < {GOAL_S:g} s; load {r['load_before']:.1f} "
            f"on {cores} cores)"
        )
    return lines


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebook paths (default: all)")
    parser.add_argument("--out", type=Path, help="JSON output path")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or all_notebooks()
    out = args.out or RESULTS / ("notebooks_some.json" if args.notebooks else "notebooks.json")
    ensure_kernel()
    memlib.testing.BUILD = BENCH_BUILD  # build_dir() and output_dir() read it on every call
    rows = []
    with serving(VARIANT) as (env, _server), backend_environment(env):
        for path in paths:
            rows.append(measure(path))
            r = rows[-1]
            print(f"  {r['notebook']:<32} {r['wall_s']:6.1f} s  {'ok' if r['ok'] else r['error']}")
    result = {
        "params": {
            "variant": VARIANT,
            "cores": os.cpu_count(),
            "python": sys.version.split()[0],
            "goal_s": GOAL_S,
        },
        "rows": rows,
        "suite": summarize(rows),
    }
    print()
    print(table(result))
    for line in check_targets(result):
        print(line)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return result


if __name__ == "__main__":
    main()
