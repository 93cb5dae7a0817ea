"""Writing memory on the hot path (tools, within the turn) or in the background (debounced).

The pieces around LangMem's `create_manage_memory_tool`, `create_memory_store_manager` and
`ReflectionExecutor` that notebook 07 builds: `ModelCallCounter` (chat-model calls and prompt
tokens), `make_load_memory_node` (the top k items for the question), `is_explicit_request`,
`settle` (wait on reflection futures: count those that ran, were debounced away or failed),
`BlendedWriter`, `check_after_seconds`, and the fixture loaders `load_sessions` and
`load_recall_questions`. Leaves out: the LangMem calls (the notebook makes them), the graphs, and
any clock: callers wait on futures (only `BlendedWriter.forget` polls, with a deadline).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import ensure_config

from memlib.checks import (
    _check_blend_args,
    check_int,
    check_items,
    check_kind,
    check_namespace,
    check_number,
    check_str,
    check_user_id,
    namespace_for,
)
from memlib.fixtures import DATA_DIR, read_jsonl
from memlib.semantic import fact_text

DATA = DATA_DIR / "writers"

# Saved from notebooks/07_background_vs_hot_path.ipynb, In [15]: edit it there, then `make sync`.
EXPLICIT_REQUEST = re.compile(
    r"^\s*(?:please\s+)?(?:remember|don'?t forget|do not forget|note)\b(?:\s+that)?", re.IGNORECASE
)


def check_after_seconds(after_seconds: Any) -> float:
    """A finite, non-negative debounce delay in seconds, or an error naming the bad value."""
    return check_number(after_seconds, "after_seconds", minimum=0)


class ModelCallCounter(BaseCallbackHandler):
    """Counts chat-model calls and the prompt tokens they report."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.prompt_tokens = 0

    def on_chat_model_start(self, serialized, messages, **kwargs) -> None:
        with self._lock:
            self.calls += 1

    def on_llm_end(self, response, **kwargs) -> None:
        tokens = 0
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    tokens += usage.get("input_tokens", 0)
        with self._lock:
            self.prompt_tokens += tokens

    def snapshot(self) -> tuple[int, int]:
        """(calls, prompt_tokens) so far, read together."""
        with self._lock:
            return self.calls, self.prompt_tokens


# Saved from notebooks/07_background_vs_hot_path.ipynb, In [8]: edit it there, then `make sync`.
def make_load_memory_node(namespace: Sequence[str], k: int = 3):
    """A node that searches `namespace` (with "{user_id}" filled from config) for the last user message."""
    template = check_namespace(namespace)
    check_int(k, "k", minimum=1)

    def load_memory(state, config, *, store):
        ns = namespace_for(template, config.get("configurable", {}).get("user_id"))
        question = state["messages"][-1].content
        hits = store.search(ns, query=question, limit=k)
        return {"memories": [fact_text(hit) for hit in hits]}

    return load_memory


# Saved from notebooks/07_background_vs_hot_path.ipynb, In [15]: edit it there, then `make sync`.
def is_explicit_request(text: str) -> bool:
    """True when the user asks outright to be remembered ("remember that ...", "please note ...")."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}: {text!r}")
    return bool(EXPLICIT_REQUEST.match(text))


@dataclass
class Settled:
    """How a batch of reflection futures ended."""

    ran: int
    cancelled: int
    failed: int
    errors: list


def settle(futures: Iterable[Future], timeout: float = 60.0) -> Settled:
    """Wait for every future; count those that ran, were cancelled (debounced) and failed."""
    check_items(futures, "futures", "a list of Futures", Iterable)
    futures = list(futures)
    for i, future in enumerate(futures):
        check_kind(future, Future, f"futures[{i}]", "a concurrent.futures.Future (from submit)")
    check_number(timeout, "timeout", minimum=0)
    ran = cancelled = failed = 0
    errors = []
    for future in futures:
        try:
            future.result(timeout=timeout)
            ran += 1
        except CancelledError:
            cancelled += 1
        except FutureTimeout:
            raise
        except Exception as err:  # InvalidStateError included: counted and kept, not hidden
            failed += 1
            errors.append(err)
    return Settled(ran, cancelled, failed, errors)


# Saved from notebooks/07_background_vs_hot_path.ipynb, In [16]: edit it there, then `make sync`.
class BlendedWriter:
    """Explicit requests to a hot-path runnable now; other exchanges to a ReflectionExecutor, debounced.
    Pass the executor as hot_path too when both run one manager: one write at a time on its worker."""

    def __init__(self, hot_path, executor, *, after_seconds: float = 1.0, is_explicit=None):
        _check_blend_args(hot_path, executor, is_explicit)  # argument checks: not the technique
        self.hot_path, self.executor = hot_path, executor
        self.after_seconds = check_after_seconds(after_seconds)
        self.is_explicit = is_explicit or is_explicit_request
        self.futures: list[Future] = []
        self._transcripts: dict[tuple[str, str], list] = {}
        self._pending: dict[str, list[Future]] = {}  # user id -> background futures

    def write(self, user_text: str, reply_text: str, *, user_id: str, thread_id: str):
        """Write one exchange: returns ('hot', agent result) or ('background', future)."""
        user_id = check_user_id(user_id)
        check_str(thread_id, "thread_id")
        check_str(user_text, "user_text", allow_empty=True)
        check_str(reply_text, "reply_text", allow_empty=True)
        config = {"configurable": {"user_id": user_id, "thread_id": thread_id}}
        if self.is_explicit(user_text):
            request = {"messages": [("user", user_text)]}
            if self.hot_path is not self.executor:
                return "hot", self.hot_path.invoke(request, config)
            # the executor's manager, now on its one worker: never beside a background write
            key, config = f"{user_id}/{thread_id}/explicit", ensure_config(config)  # callbacks
            hot = self.executor.submit(request, config=config, after_seconds=0, thread_id=key)
            return "hot", hot.result(timeout=60)
        # explicit requests stay out of the background transcript: written once, not twice
        turn = [
            {"role": "user", "content": user_text},
            {"role": "assistant", "content": reply_text},
        ]
        transcript = self._transcripts.get((user_id, thread_id), []) + turn
        key = f"{user_id}/{thread_id}"
        future = self.executor.submit(
            {"messages": transcript}, config=config, after_seconds=self.after_seconds, thread_id=key
        )
        self._transcripts[(user_id, thread_id)] = transcript
        self.futures.append(future)
        self._pending.setdefault(user_id, []).append(future)
        return "background", future

    def forget(self, user_id: str, *, timeout: float = 60.0) -> int:
        """Drop a user's transcripts and background writes (pending: cancelled; running: waited
        for), so none lands after this returns. Returns how many were cancelled."""
        user_id = check_user_id(user_id)
        self._transcripts = {k: v for k, v in self._transcripts.items() if k[0] != user_id}
        futures = self._pending.pop(user_id, [])
        cancelled = sum(f.cancel() for f in futures if not f.done())
        # LangMem's executor keeps a task under its key until its worker dropped or ran it
        tasks = getattr(self.executor, "_pending_tasks", {})
        deadline = time.monotonic() + check_number(timeout, "timeout", minimum=0)
        while any(str(k).startswith(f"{user_id}/") for k in list(tasks)):
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"a background write of {user_id!r} still runs after {timeout} s"
                )
            time.sleep(0.05)
        return cancelled


def shutdown_on_exit(executor):
    """Stop a ReflectionExecutor when the interpreter exits, even after an error."""
    # LangMem's worker is a non-daemon thread that loops until shutdown(): after an exception
    # skips a notebook's or script's own shutdown, the process would never exit. Python joins
    # non-daemon threads before atexit handlers run; threading's own exit hook runs before that
    # join (concurrent.futures registers its pools the same way).
    if not callable(getattr(executor, "shutdown", None)):
        raise TypeError(f"executor must have .shutdown (a ReflectionExecutor), got {executor!r}")
    threading._register_atexit(executor.shutdown, wait=False, cancel_futures=True)
    return executor


def load_sessions(path: str | Path | None = None) -> list[dict]:
    """The scripted conversation of data/writers/sessions.jsonl: {session, thread, user}."""
    return read_jsonl(Path(path) if path else DATA / "sessions.jsonl")


def load_recall_questions(path: str | Path | None = None) -> list[dict]:
    """Planted-fact questions of data/writers/recall.jsonl: {question, answer}."""
    return read_jsonl(Path(path) if path else DATA / "recall.jsonl")
