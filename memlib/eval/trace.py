"""A trace of memory reads and writes: every store operation with when, where, who and why.

`TracedStore(store, trace)` wraps any LangGraph `BaseStore` (InMemoryStore, FaissStore,
PostgresStore, ...) and records each operation that passes through `batch` / `abatch` as a
`TraceEvent`: the dataset time and the wall-clock offset, namespace, key, operation (put, delete,
get, search, list), the writer and the turn that caused it (set by the harness with
`trace.context(turn=..., writer=...)`), and for reads the keys returned. `trace.explain(turn)`
follows each memory a turn read back to the write that put it there, which answers "why did it
call me by the wrong name?".

Leaves out: persisting the trace (it is a list in memory; `trace.rows()` gives JSON-ready dicts),
and context per thread: background writers (ReflectionExecutor threads) are attributed to the
turn the harness has set when they run, which is exact because the harness settles them before
moving on.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from langgraph.store.base import BaseStore, GetOp, ListNamespacesOp, Op, PutOp, Result, SearchOp

from memlib.checks import check_kind, check_store


@dataclass
class TraceEvent:
    """One store operation: what, where, by whom, caused by which turn."""

    seq: int
    time: str  # the dataset time of the turn that caused it
    wall: float  # seconds since the trace started
    op: str  # put | delete | get | search | list
    namespace: str
    key: str | None
    writer: str
    turn: str
    text: str = ""  # for a put: the value's text; for a search: the query
    read: list[str] = field(default_factory=list)  # keys a get / search returned


def _text(value) -> str:
    if not isinstance(value, dict):
        return "" if value is None else str(value)
    content = value.get("content", value)
    if isinstance(content, dict):
        return str(content.get("content") or content.get("situation") or content)
    return str(content if isinstance(content, str) else value.get("situation", content))


class Trace:
    """The recorded events, plus the current context (turn, writer, time) new events are tagged with."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []
        self._lock = threading.Lock()
        self._start = time.perf_counter()
        self.turn, self.writer, self.time = "-", "-", ""

    @contextlib.contextmanager
    def context(self, *, turn: str, writer: str, time: str = ""):
        """Tag the operations inside with the turn that caused them and the writer that made them."""
        for name, value in (("turn", turn), ("writer", writer)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"trace context {name} must be a non-empty string, got {value!r}")
        saved = (self.turn, self.writer, self.time)
        self.turn, self.writer, self.time = turn, writer, time
        try:
            yield self
        finally:
            self.turn, self.writer, self.time = saved

    def add(self, op: str, namespace: tuple, key: str | None, text: str = "", read=()) -> None:
        with self._lock:
            self.events.append(
                TraceEvent(
                    seq=len(self.events),
                    time=self.time,
                    wall=round(time.perf_counter() - self._start, 4),
                    op=op,
                    namespace="/".join(namespace),
                    key=key,
                    writer=self.writer,
                    turn=self.turn,
                    text=text,
                    read=list(read),
                )
            )

    def writes(self, key: str | None = None) -> list[TraceEvent]:
        """Every put and delete (of one key, if given), in order."""
        return [e for e in self.events if e.op in ("put", "delete") and key in (None, e.key)]

    def reads(self, turn: str) -> list[TraceEvent]:
        """The gets and searches made while answering or ingesting one turn."""
        return [e for e in self.events if e.op in ("get", "search") and e.turn == turn]

    def explain(self, turn: str) -> list[dict]:
        """For each memory the turn read: its key, the write that last put it, and that write's turn."""
        check_kind(turn, str, "turn", "a string (a turn or question id)")
        found = []
        for read in self.reads(turn):
            for key in read.read:
                before = [w for w in self.writes(key) if w.seq < read.seq]
                last = before[-1] if before else None
                found.append(
                    {
                        "key": key,
                        "namespace": read.namespace,
                        "written_by": last.writer if last else None,
                        "written_in_turn": last.turn if last else None,
                        "written_at": last.time if last else None,
                        "text": last.text if last else None,
                        "history": [(w.op, w.turn, w.text) for w in before],
                    }
                )
        return found

    def rows(self) -> list[dict]:
        """The events as JSON-ready dicts."""
        return [asdict(e) for e in self.events]


class TracedStore(BaseStore):
    """Any BaseStore, with every operation recorded in a Trace (reads with the keys they returned)."""

    def __init__(self, store: BaseStore, trace: Trace | None = None) -> None:
        check_store(store)
        if trace is not None and not isinstance(trace, Trace):
            raise TypeError(f"trace must be a memlib.eval.Trace, got {type(trace).__name__}")
        self.store = store
        self.trace = trace if trace is not None else Trace()

    def _record(self, ops: list[Op], results: list[Result]) -> None:
        for op, result in zip(ops, results, strict=True):
            if isinstance(op, PutOp):
                kind = "delete" if op.value is None else "put"
                self.trace.add(kind, op.namespace, op.key, _text(op.value))
            elif isinstance(op, GetOp):
                self.trace.add("get", op.namespace, op.key, read=[result.key] if result else [])
            elif isinstance(op, SearchOp):
                self.trace.add(
                    "search", op.namespace_prefix, None, op.query or "", [r.key for r in result]
                )
            elif isinstance(op, ListNamespacesOp):
                self.trace.add("list", (), None)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        results = self.store.batch(ops)
        self._record(ops, results)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        results = await self.store.abatch(ops)
        self._record(ops, results)
        return results

    @property
    def supports_ttl(self) -> bool:  # type: ignore[override]
        return self.store.supports_ttl

    def __getattr__(self, name: str):  # save(), index config, ... of the wrapped store
        if name == "store":
            raise AttributeError(name)
        return getattr(self.store, name)
