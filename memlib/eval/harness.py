"""Run one memory strategy over every case of a dataset and measure it.

`evaluate(cases, strategy)` starts the strategy fresh for each case (a new user, a new store),
shows it the sessions one by one, then asks every question; each store operation goes through a
`TracedStore`, each model call through a `ModelCallCounter`. It returns an `EvalRun`: one row per
question (reply, grade, prompt tokens, calls, latency, evidence recall@k), the per-type summary,
the ingest cost (model calls per turn) and the trace. A prompt over the model's context window is
refused as OpenAI refuses it (code `context_length_exceeded`): the question counts as wrong, as
`refused`, with the prompt tokens the refusal names. `sweep` runs strategies over generated
histories of growing length (accuracy and prompt tokens per question against sessions).

The store is a fresh `InMemoryStore` with MiniLM embeddings per case by default; pass
`store_factory` (a function returning a BaseStore) to use another backend, e.g. a PostgresStore.
Leaves out: running cases in parallel (the offline model is fast; a real model's rate limits are
the reader's to manage).
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from memlib.checks import check_chat_model, check_int, check_items, check_kind
from memlib.eval.dataset import validate_case
from memlib.eval.generator import SCALE, generate_dataset
from memlib.eval.metrics import evidence_recall_at_k, grade, summarize
from memlib.eval.strategies import STRATEGIES, Strategy
from memlib.eval.trace import Trace, TracedStore
from memlib.tenancy import forget_user, user_namespaces

STORE_FIELDS = ["content.content", "situation"]  # a Fact's sentence, an episode's situation


def index_config() -> dict:
    """The store index every strategy here needs: MiniLM (or the configured) embeddings of a
    fact's sentence and an episode's situation."""
    from memlib.models import embedding_dims, get_embeddings

    return {"dims": embedding_dims(), "embed": get_embeddings(), "fields": STORE_FIELDS}


def default_store():
    """A fresh InMemoryStore with index_config()."""
    from langgraph.store.memory import InMemoryStore

    return InMemoryStore(index=index_config())


@dataclass
class EvalRun:
    """The result of one evaluation: per-question rows, per-type summary, ingest cost, trace."""

    strategy: str
    rows: list[dict]
    summary: dict
    ingest: dict
    trace: Trace = field(repr=False)

    def to_json(self) -> dict:
        return {
            "strategy": self.strategy,
            "summary": self.summary,
            "ingest": self.ingest,
            "questions": self.rows,
        }


def _factory(strategy) -> tuple[str, Callable]:
    if isinstance(strategy, str):
        if strategy not in STRATEGIES:
            raise ValueError(
                f"unknown strategy {strategy!r}; expected one of {sorted(STRATEGIES)} or a factory"
            )
        return strategy, STRATEGIES[strategy]
    if callable(strategy):
        return getattr(
            strategy,
            "strategy_name",
            getattr(strategy, "name", getattr(strategy, "__name__", "custom")),
        ), strategy
    raise TypeError(
        f"strategy must be a name in {sorted(STRATEGIES)} or a factory, got {strategy!r}"
    )


def _sessions_of(trace: Trace, keys: Sequence[str], case_id: str) -> list[str]:
    """The sessions whose turns wrote the given keys (from the trace)."""
    found = []
    for key in keys:
        for w in trace.writes(key):
            if w.op == "put" and w.turn.startswith(case_id + "/"):
                found.append(w.turn.split("/", 1)[1].split("-t")[0])
    return found


def _check_cases(cases, model, quiet, options, store_factory) -> None:
    check_items(cases, "cases", "a list of dataset cases")
    if not cases:
        raise ValueError("cases must be a non-empty list of dataset cases, got []")
    if model is not None:
        check_chat_model(model)
    check_kind(quiet, bool, "quiet", "True or False")
    for i, case in enumerate(cases):
        try:
            validate_case(case)
        except ValueError as exc:
            raise ValueError(f"cases[{i}]: {exc}") from None
    check_kind(options, dict | None, "options", "a dict of strategy arguments")
    if store_factory is not None and not callable(store_factory):
        raise TypeError(
            f"store_factory must be a function returning a BaseStore, got {store_factory!r}"
        )


def _refuse_held_users(shared, cases) -> None:
    """A shared store must hold nothing of the cases' users: their answers would not be ours."""
    for case in cases:
        held = [ns for ns in user_namespaces(shared, case["user_id"]) if shared.search(ns, limit=1)]
        if held:
            raise ValueError(
                f"the store already holds memories of user {case['user_id']!r} under {held}; "
                "an evaluation needs a store without them (a fresh database)"
            )


@dataclass
class _Ingest:
    turns: int = 0
    calls: int = 0
    tokens: int = 0
    seconds: float = 0.0

    def summary(self) -> dict:
        return {
            "turns": self.turns,
            "calls": self.calls,
            "calls_per_turn": round(self.calls / self.turns, 4) if self.turns else 0.0,
            "prompt_tokens": self.tokens,
            "seconds": round(self.seconds, 3),
        }


def _observe(run, case, name, counter, trace, ingest: _Ingest, bar) -> None:
    """Show the strategy every session of a case, counting what writing its memory costs."""
    with trace.context(turn=f"{case['id']}/start", writer=name):
        run.start(case)
    for session in case["sessions"]:
        before, start = counter.snapshot(), time.perf_counter()
        with trace.context(turn=f"{case['id']}/{session['id']}", writer=name, time=session["date"]):
            run.observe(session)
        after = counter.snapshot()
        ingest.seconds += time.perf_counter() - start
        ingest.calls += after[0] - before[0]
        ingest.tokens += after[1] - before[1]
        ingest.turns += sum(m["role"] == "user" for m in session["messages"])
        bar.update(1)


def refused_tokens(exc: BaseException) -> int | None:
    """The prompt's tokens if `exc` is a context-window refusal (`.code` "context_length_exceeded",
    from OfflineChatModel or ChatOpenAI), 0 if it does not say; None for any other error."""
    check_kind(exc, BaseException, "exc", "an exception")
    if getattr(exc, "code", None) != "context_length_exceeded":
        return None
    found = re.search(r"resulted in (\d+) tokens", str(getattr(exc, "message", exc)))
    return int(found.group(1)) if found else 0


def _ask(run, case, q, name, counter, trace) -> dict:
    """One question put to the strategy: the graded row with its cost and evidence recall."""
    before, start = counter.snapshot(), time.perf_counter()
    run.retrieved, refused = None, None
    turn = f"{case['id']}/{q['id']}"
    with trace.context(turn=turn, writer=name, time="after the last session"):
        try:
            reply = run.answer(q["question"])
        except Exception as exc:
            if (refused := refused_tokens(exc)) is None:
                raise
            reply = ""  # refused: wrong, whatever the question
    latency = time.perf_counter() - start
    calls, tokens = (a - b for a, b in zip(counter.snapshot(), before, strict=True))
    tokens += refused or 0
    if not calls:  # a reader's function with its own model: its own counter
        calls, tokens = getattr(run, "calls", 0), getattr(run, "prompt_tokens", 0)
    row = {
        "case": case["id"],
        "id": q["id"],
        "type": q["type"],
        "question": q["question"],
        "reply": reply,
        "gold": q["answer"],
        **grade(q, reply),
        "refused": refused is not None,
        "prompt_tokens": tokens,
        "calls": calls,
        "latency_s": round(latency, 4),
        "recall": None,
        "turn": turn,
    }
    if run.retrieved is not None:
        row["retrieved"] = list(run.retrieved)
        row["recall"] = evidence_recall_at_k(
            _sessions_of(trace, run.retrieved, case["id"]), q["evidence"]
        )
    return row


def evaluate(
    cases: Sequence[dict],
    strategy: str | Callable = "full",
    *,
    model=None,
    store_factory: Callable | None = None,
    options: dict | None = None,
    quiet: bool = False,
) -> EvalRun:
    """Run a strategy (a name in STRATEGIES or a factory(model, store, trace, **options)) over the cases."""
    from tqdm.auto import tqdm

    from memlib.models import get_chat_model
    from memlib.writers import ModelCallCounter

    _check_cases(cases, model, quiet, options, store_factory)
    name, factory = _factory(strategy)
    if store_factory is not None:
        _refuse_held_users(store_factory(), cases)
    counter = ModelCallCounter()
    if model is None:
        model = get_chat_model(callbacks=[counter])
    else:
        model = model.model_copy(update={"callbacks": [*(model.callbacks or []), counter]})
    trace, rows, ingest = Trace(), [], _Ingest()
    total = sum(len(c["sessions"]) + len(c["questions"]) for c in cases)
    bar = tqdm(total=total, desc=name, unit="step", disable=quiet or not sys.stderr.isatty())
    try:
        for case in cases:
            store = TracedStore((store_factory or default_store)(), trace)
            run: Strategy = factory(model, store, trace, **(options or {}))
            try:
                _observe(run, case, name, counter, trace, ingest, bar)
                for q in case["questions"]:
                    rows.append(_ask(run, case, q, name, counter, trace))
                    bar.update(1)
            finally:
                run.close()
                if store_factory is not None:  # a shared, maybe persistent store: leave it clean
                    forget_user(store.store, None, case["user_id"])  # 09's exact forget
    finally:
        bar.close()
    return EvalRun(name, rows, summarize(rows), ingest.summary(), trace)


def sweep(
    lengths: Sequence[int] = (10, 100, 1000, 2000),
    strategies: Sequence[str] = ("full", "semantic"),
    *,
    cases: int = 1,
    seed: int = 0,
    model=None,
) -> list[dict]:
    """Per history length and strategy: accuracy, prompt tokens per question and the share refused,
    on `cases` generated cases of SCALE's shape (facts that change three times)."""
    for name, value in (("lengths", lengths), ("strategies", strategies)):
        if isinstance(value, str) or not isinstance(value, Sequence) or not value:
            raise TypeError(f"{name} must be a non-empty list, got {value!r:.80}")
    shape = SCALE | {"cases": check_int(cases, "cases", minimum=1), "seed": seed}
    data = {
        n: generate_dataset(**shape, sessions=check_int(n, "lengths[]", minimum=5)) for n in lengths
    }
    rows = []
    for n, cases_n in data.items():
        for name in strategies:
            every = evaluate(cases_n, name, model=model, quiet=True).summary["all"]
            keep = ("questions", "accuracy", "prompt_tokens", "refused", "stale_rate")
            rows.append({"sessions": n, "strategy": name} | {k: every[k] for k in keep})
    return rows
