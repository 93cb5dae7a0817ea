"""python -m memlib.eval: run memory strategies over a dataset, or generate one.

python -m memlib.eval --data data/eval/small.jsonl --strategy semantic --out build/eval.json
python -m memlib.eval --data data/eval/small.jsonl --strategy full,window,semantic
python -m memlib.eval --generate build/mine.jsonl --cases 3 --sessions 50 --turns 3 --facts 4
python -m memlib.eval longmemeval longmemeval_s_cleaned.json [--strategy full] [--limit 20]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path


def _option(text: str) -> tuple[str, int]:
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"--set expects NAME=INTEGER, got {text!r}")
    try:
        return name, int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--set {name}: expected an integer, got {value!r}"
        ) from None


def store_factory_for(backend: str | None, stack: contextlib.ExitStack):
    """None: a fresh InMemoryStore per case (the harness default); a URL: one store opened with
    memlib.backends.open_store (memory://, faiss:///dir, sqlite:///file, postgresql://...) for
    the whole run, each case's memories deleted after it."""
    if backend is None:
        return None
    from memlib.backends import open_store
    from memlib.eval.harness import index_config

    store = stack.enter_context(open_store(backend, index=index_config()))
    return lambda: store


def _parser() -> argparse.ArgumentParser:
    from memlib.eval.strategies import STRATEGIES

    p = argparse.ArgumentParser(prog="python -m memlib.eval", description=__doc__.splitlines()[0])
    p.add_argument("--data", help="a dataset JSONL file (see memlib.eval.dataset)")
    p.add_argument(
        "--strategy", default="full", help=f"one or more of {','.join(STRATEGIES)}, comma-separated"
    )
    p.add_argument(
        "--backend",
        default=None,
        help="store URL for memlib.backends.open_store: memory://, faiss:///dir, sqlite:///file, "
        "postgresql://... (default: a fresh InMemoryStore per case)",
    )
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--trace", help="write every store operation as JSONL here")
    p.add_argument(
        "--set",
        dest="options",
        action="append",
        type=_option,
        default=[],
        metavar="NAME=INT",
        help="a strategy argument, e.g. --set k=5 or --set window=4",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar, no table")
    g = p.add_argument_group("generating a dataset")
    g.add_argument("--generate", metavar="FILE", help="write a synthetic dataset to FILE and stop")
    g.add_argument("--cases", type=int, default=3)
    g.add_argument("--sessions", type=int, default=20)
    g.add_argument("--turns", type=int, default=3)
    g.add_argument("--facts", type=int, default=4)
    g.add_argument("--seed", type=int, default=0)
    return p


def _generate(p, args) -> int:
    from memlib.eval.dataset import save_dataset
    from memlib.eval.generator import generate_dataset

    try:
        cases = generate_dataset(
            args.cases, seed=args.seed, sessions=args.sessions, turns=args.turns, facts=args.facts
        )
    except ValueError as exc:
        p.error(str(exc))
    path = save_dataset(cases, args.generate)
    print(
        f"wrote {len(cases)} cases, {sum(len(c['questions']) for c in cases)} questions to {path}"
    )
    return 0


def _strategies(p, args) -> list[str]:
    from memlib.eval.strategies import STRATEGIES

    if not args.data:
        p.error("--data FILE is required (or --generate FILE)")
    names = [n.strip() for n in args.strategy.split(",") if n.strip()]
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown or not names:
        p.error(
            f"unknown strategy {unknown or args.strategy!r}; choose from {', '.join(STRATEGIES)}"
        )
    return names


def _run(p, args, names, cases) -> tuple[dict, list[dict]]:
    """Every strategy over the cases: ({name: run as JSON}, trace rows)."""
    from memlib.eval.harness import evaluate
    from memlib.eval.metrics import format_summary

    runs, traces = {}, []
    with contextlib.ExitStack() as stack:
        try:
            factory = store_factory_for(args.backend, stack)
        except ValueError as exc:
            p.error(f"--backend: {exc}")
        for name in names:
            try:
                run = evaluate(
                    cases, name, store_factory=factory, options=dict(args.options), quiet=args.quiet
                )
            except TypeError as exc:  # an option the strategy does not take
                if "keyword argument" not in str(exc):
                    raise
                p.error(f"--set {dict(args.options)} does not fit strategy {name!r}: {exc}")
            runs[name] = run.to_json()
            traces += [{"strategy": name, **row} for row in run.trace.rows()]
            if not args.quiet:
                calls = run.ingest["calls_per_turn"]
                title = f"{name}: ingest {calls} calls/turn, {run.ingest['seconds']} s"
                print(format_summary(run.summary, title) + "\n")
    return runs, traces


def _write(path: str | None, text: str) -> None:
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)


def longmemeval(argv) -> int:
    """Session recall@k of a LongMemEval file (no model); with --strategy, accuracy as well."""
    from memlib.eval.longmemeval import load_longmemeval, session_recall

    p = argparse.ArgumentParser(prog="python -m memlib.eval longmemeval")
    p.add_argument(
        "path", help="longmemeval_s*.json, longmemeval_m*.json or longmemeval_oracle.json"
    )
    p.add_argument("--k", default="1,5,10", help="recall cut-offs, comma-separated")
    p.add_argument("--limit", type=int, default=None, help="the first N questions only")
    p.add_argument("--strategy", default="", help="also answer with these strategies (a model)")
    p.add_argument("--out", help="write the results as JSON here")
    args = p.parse_args(argv)
    try:
        cases = load_longmemeval(args.path, args.limit)
        result = {"recall": session_recall(cases, [int(k) for k in args.k.split(",")])}
    except ValueError as exc:
        p.error(str(exc))
    for qtype, row in result["recall"].items():
        print(qtype, *(f"{k}={v}" for k, v in row.items()))
    if args.strategy:
        args.options, args.backend, args.quiet, args.data = [], None, False, args.path
        result["runs"] = _run(p, args, _strategies(p, args), cases)[0]
    _write(args.out, json.dumps(result, indent=1) + "\n")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["longmemeval"]:
        return longmemeval(argv[1:])
    p = _parser()
    args = p.parse_args(argv)
    if args.generate:
        return _generate(p, args)
    names = _strategies(p, args)

    from memlib.eval.dataset import load_dataset
    from memlib.models import describe_backend

    try:
        cases = load_dataset(args.data)
    except ValueError as exc:
        p.error(str(exc))
    runs, traces = _run(p, args, names, cases)
    result = {
        "data": str(args.data),
        "backend": args.backend or "in-memory store per case",
        "model": str(describe_backend()),
        "runs": runs,
    }
    _write(args.out, json.dumps(result, indent=1) + "\n")
    _write(args.trace, "".join(json.dumps(r) + "\n" for r in traces))
    return 0


if __name__ == "__main__":
    sys.exit(main())
