"""Memory strategies under evaluation, each built from memlib's existing pieces.

A strategy sees a case's sessions one by one (`observe`), then answers questions asked after the
last one (`answer`). `retrieved` says which memory keys its last answer read (for evidence
recall@k), `None` when it does not retrieve. The harness (memlib.eval.harness) counts every model
call and prompt token through the model's callbacks, so a strategy only has to use the model and
store it is given.

| name | keeps | built from |
|---|---|---|
| full | every message | `FullBuffer` (01) |
| window | the last `window` turns | `SlidingWindowBuffer` (01) |
| trim | the newest turns within `budget` tokens | `TokenTrimBuffer` (01) |
| summary | a running summary plus the last `keep_last` messages | `compress_node`, `prompt_with_summary` (06) |
| episodic | one episode per session, top-k recalled | `extract_episode`, `save_episode`, `recall_episodes` (03) |
| semantic | facts extracted per session by LangMem, top-k loaded | `create_memory_store_manager`, `load_memories` (04) |
| agent | notebook 09's graph, every user turn replayed through it | `build_memory_agent`, `BlendedWriter` (07, 09) |
| agent-temporal | the same graph with notebook 12's memory: dated facts written by its writers, read by `hybrid_search` as of the session's day | `dated_fact_writer`, `dated_recall`, `dated_as_data` (12) |
| temporal | dated facts proposed per user turn, superseded values closed not deleted, top-k by `hybrid_search` in the question's time window | `propose_facts`, `remember`, `hybrid_search` (12) |
| oldest | every message in the store, answers from the first `window` turns: wrong on purpose (sorts the wrong way) | - |

`function_strategy(fn)` turns a reader's own agent, a function from messages to an answer, into a
strategy that is shown the whole history plus the question. Leaves out: strategies that see
questions in the middle of the history, and tuning (each strategy takes its sizes as arguments).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from contextvars import ContextVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from memlib.buffers import FullBuffer, SlidingWindowBuffer, TokenTrimBuffer
from memlib.checks import check_chat_model, check_int, check_kind, check_store, check_str

SYSTEM = "You are a helpful assistant. Answer from what the user told you; if you were not told, say you don't know."


def to_messages(session: dict) -> list[BaseMessage]:
    """A dataset session's messages as langchain messages (ids kept)."""
    kinds = {"user": HumanMessage, "assistant": AIMessage}
    return [kinds[m["role"]](m["content"], id=m["id"]) for m in session["messages"]]


class Strategy:
    """What every strategy shares: a name, per-case state, observe, answer, retrieved."""

    name = "strategy"
    retrieves = False

    def __init__(self, model, store=None, trace=None):
        from memlib.eval.trace import Trace

        if model is not None:  # None: a FunctionStrategy, whose function has its own model
            check_chat_model(model)
        if store is not None:
            check_store(store)
        check_kind(trace, Trace | None, "trace", "a memlib.eval Trace or None")
        self.model, self.store, self.trace = model, store, trace
        self.retrieved: list[str] | None = None

    def start(self, case: dict) -> None:
        """Reset for a new case (a new user)."""
        self.user_id = case["user_id"]

    def observe(self, session: dict) -> None:
        """Take in one finished session."""

    def answer(self, question: str) -> str:
        raise NotImplementedError

    def close(self) -> None:
        """Release anything running in the background."""


class BufferStrategy(Strategy):
    """Answers from a conversation buffer of notebook 01 (full, window or trim)."""

    def __init__(self, model, store=None, trace=None, *, make_buffer: Callable, name: str):
        super().__init__(model, store, trace)
        if not callable(make_buffer):
            raise TypeError(
                f"make_buffer must be a function returning a buffer, got {make_buffer!r}"
            )
        self.make_buffer, self.name = make_buffer, check_str(name, "name")

    def start(self, case):
        super().start(case)
        self.buffer = self.make_buffer()

    def observe(self, session):
        self.buffer.extend(to_messages(session))

    def answer(self, question):
        return self.model.invoke(self.buffer.messages + [HumanMessage(question)]).text


class OldestFirst(Strategy):
    """Wrong on purpose: stores every message, then answers from the *first* `window` turns it
    reads back (sorted oldest first where newest first was meant). Its reads and writes are in
    the trace like any memory strategy's."""

    name = "oldest"
    retrieves = True

    def __init__(self, model, store, trace=None, *, window: int = 6):
        super().__init__(model, store, trace)
        self.window = check_int(window, "window", minimum=1)

    def observe(self, session):
        for m in session["messages"]:
            value = {
                "role": m["role"],
                "content": m["content"],
                "at": session["date"],
                "id": m["id"],
            }
            self.store.put(("messages", self.user_id), m["id"], value, index=False)

    def answer(self, question):
        items = self.store.search(("messages", self.user_id), limit=100_000)
        items.sort(key=lambda item: (item.value["at"], item.value["id"]))  # oldest first: the bug
        kept = items[: 2 * self.window]
        self.retrieved = [item.key for item in kept]
        kinds = {"user": HumanMessage, "assistant": AIMessage}
        history = [kinds[i.value["role"]](i.value["content"]) for i in kept]
        return self.model.invoke([SystemMessage(SYSTEM), *history, HumanMessage(question)]).text


class SummaryRotation(Strategy):
    """Notebook 06: after each session, compress all but the last messages into the running summary."""

    name = "summary"

    def __init__(
        self,
        model,
        store=None,
        trace=None,
        *,
        threshold: int = 6,
        keep_last: int = 2,
        words: int = 120,
    ):
        from memlib.rotation import compress_node

        super().__init__(model, store, trace)
        self.compress = compress_node(
            model, threshold=threshold, keep_last=keep_last, summary_words=words
        )

    def start(self, case):
        super().start(case)
        self.messages: list[BaseMessage] = []
        self.summary = ""

    def observe(self, session):
        self.messages += to_messages(session)
        update = self.compress({"messages": self.messages, "summary": self.summary})
        if update:
            removed = {m.id for m in update["messages"]}
            self.messages = [m for m in self.messages if m.id not in removed]
            self.summary = update["summary"]

    def answer(self, question):
        from memlib.rotation import prompt_with_summary

        prompt = prompt_with_summary([*self.messages, HumanMessage(question)], self.summary, SYSTEM)
        return self.model.invoke(prompt).text


class EpisodicRecall(Strategy):
    """Notebook 03: one episode per session in the store; the k most similar shown with the question."""

    name = "episodic"
    retrieves = True

    def __init__(self, model, store, trace=None, *, k: int = 3):
        super().__init__(model, store, trace)
        self.k = check_int(k, "k", minimum=1)

    def observe(self, session):
        from memlib.episodic import extract_episode, save_episode

        episode = extract_episode(self.model, to_messages(session))
        save_episode(
            self.store, self.user_id, episode, "session", session["date"], key=session["id"]
        )

    def answer(self, question):
        from memlib.episodic import format_episodes_as_examples, recall_episodes

        episodes = recall_episodes(self.store, self.user_id, question, k=self.k)
        self.retrieved = [e.key for e in episodes]
        system = SYSTEM + "\n\n" + format_episodes_as_examples(episodes)
        return self.model.invoke([SystemMessage(system), HumanMessage(question)]).text


def fact_manager(model, store):
    """Notebook 04's LangMem fact manager over ("users", "{user_id}", "facts")."""
    from langgraph.warnings import LangGraphDeprecatedSinceV10
    from langmem import create_memory_store_manager

    from memlib.semantic import FACTS_NAMESPACE, Fact

    check_chat_model(model)
    check_store(store)
    warnings.filterwarnings("ignore", category=LangGraphDeprecatedSinceV10)
    return create_memory_store_manager(
        model,
        schemas=[Fact],
        instructions="Extract facts about the user. A newer statement replaces an older one.",
        enable_deletes=True,
        namespace=FACTS_NAMESPACE,
        store=store,
    )


class SemanticMemory(Strategy):
    """Notebook 04: LangMem extracts facts after each session; the top k are loaded per question."""

    name = "semantic"
    retrieves = True

    def __init__(self, model, store, trace=None, *, k: int = 3):
        super().__init__(model, store, trace)
        self.k = check_int(k, "k", minimum=1)
        self.manager = fact_manager(model, store)

    def observe(self, session):
        config = {"configurable": {"user_id": self.user_id}}
        self.manager.invoke({"messages": to_messages(session)}, config)

    def answer(self, question):
        from memlib.semantic import format_memory_section, load_memories

        loaded = load_memories(self.store, self.user_id, question, k=self.k)
        self.retrieved = [f.key for f in loaded["facts"]]
        system = SYSTEM + "\n\n" + format_memory_section(loaded["profile"], loaded["facts"])
        return self.model.invoke([SystemMessage(system), HumanMessage(question)]).text


class MemoryAgent(Strategy):
    """Notebook 09's agent: every user turn goes through the graph; its writes settle before the next turn."""

    name = "agent"
    retrieves = True

    def __init__(
        self,
        model,
        store,
        trace=None,
        *,
        k: int = 3,
        threshold: int = 6,
        keep_last: int = 2,
        memory: str = "langmem",
    ):
        from langgraph.checkpoint.memory import InMemorySaver
        from langmem import ReflectionExecutor

        from memlib.agent import build_memory_agent
        from memlib.writers import BlendedWriter

        super().__init__(model, store, trace)
        if check_str(memory, "memory") not in ("langmem", "temporal"):
            raise ValueError(f"memory must be 'langmem' or 'temporal', got {memory!r}")
        options = dict(agent="assistant", k=k, threshold=threshold, keep_last=keep_last)
        if memory == "temporal":  # notebook 12: dated facts, closed not deleted, hybrid recall
            from memlib.temporal import dated_as_data, dated_fact_writer, dated_recall

            self.name, self.today, self.found = "agent-temporal", None, None
            manager = dated_fact_writer(model, store, clock=lambda: self.today)
            recall = dated_recall(lambda: self.today)

            def noted(store, user_id, question, k=3):  # the keys hybrid_search returned
                loaded = recall(store, user_id, question, k=k)
                self.found = [item.key for item in loaded["facts"]]
                return loaded

            options |= dict(recall=noted, render=dated_as_data)
        else:
            manager = fact_manager(model, store)
        self.executor = ReflectionExecutor(manager, store=store)
        try:  # a refused setting must not leave LangMem's worker thread holding the process open
            self.writer = BlendedWriter(self.executor, self.executor, after_seconds=0)
            saver = InMemorySaver()
            self.graph = build_memory_agent(model, store, saver, writers=[self.writer], **options)
            self.reader = build_memory_agent(model, store, saver, **options)  # writes nothing
        except BaseException:
            self.executor.shutdown(wait=False, cancel_futures=True)
            raise

    def start(self, case):
        from memlib.procedural import active_prompt, create_prompt

        super().start(case)
        self.case_id = case["id"]
        try:
            active_prompt(self.store, "assistant")
        except ValueError:  # a fresh store: version 1 of the agent's prompt (08)
            create_prompt(self.store, "assistant", SYSTEM, author="memlib.eval")

    def observe(self, session):
        from memlib.writers import settle

        config = {
            "configurable": {
                "user_id": self.user_id,
                "thread_id": f"{self.case_id}-{session['id']}",
            }
        }
        self.today = session["date"]  # the temporal memory's clock: the session's day
        for m in session["messages"]:
            if m["role"] != "user":
                continue
            # each turn's background write settles inside the turn: deterministic, and traced to it
            with self._context(m["turn"]):
                self.graph.invoke({"messages": [HumanMessage(m["content"], id=m["id"])]}, config)
                settle(self.writer.futures, timeout=120)
            self.writer.futures.clear()

    def _context(self, turn: str):
        if self.trace is None:
            return contextlib.nullcontext()
        return self.trace.context(
            turn=f"{self.case_id}/{turn}", writer=self.name, time=self.trace.time
        )

    def answer(self, question):
        config = {
            "configurable": {"user_id": self.user_id, "thread_id": f"{self.case_id}-q-{question}"}
        }
        seen = len(self.trace.events) if self.trace is not None else 0
        state = self.reader.invoke({"messages": [HumanMessage(question)]}, config)
        if self.name == "agent-temporal":  # hybrid_search reads every fact in the window
            self.retrieved = self.found
        elif self.trace is not None:  # the fact keys its load_memory node read (from the trace)
            facts = f"users/{self.user_id}/facts"
            searches = [e for e in self.trace.events[seen:] if e.op == "search"]
            self.retrieved = [k for e in searches if e.namespace == facts for k in e.read]
        return state["messages"][-1].text

    def close(self):
        self.executor.shutdown(wait=True)


class TemporalMemory(Strategy):
    """Notebook 12: facts with validity, proposed per user turn and placed in their slot's timeline
    (the old value closed, not deleted); the top k by hybrid search, dated, answer the question."""

    name = "temporal"
    retrieves = True

    def __init__(self, model, store, trace=None, *, k: int = 4):
        super().__init__(model, store, trace)
        self.k = check_int(k, "k", minimum=1)

    def observe(self, session):
        from memlib.temporal import propose_facts, remember

        self.today, namespace = session["date"], ("users", self.user_id, "facts")
        for m in (m for m in session["messages"] if m["role"] == "user"):
            for fact in propose_facts(self.model, m["content"]):
                remember(self.store, namespace, fact, said_on=self.today, source=m["content"])

    def answer(self, question):
        from memlib.temporal import dated_lines, hybrid_search

        namespace = ("users", self.user_id, "facts")
        found = hybrid_search(self.store, namespace, question, limit=self.k, as_of=self.today)
        self.retrieved = [item.key for item in found]
        system = SYSTEM + "\n\n## Facts about the user\n" + dated_lines(found)
        return self.model.invoke([SystemMessage(system), HumanMessage(question)]).text


_COUNTER: ContextVar = ContextVar("memlib_eval_function_counter", default=None)


class FunctionStrategy(Strategy):
    """A reader's own agent: a function from messages (whole history + question) to an answer."""

    def __init__(self, fn: Callable[[list[BaseMessage]], str], name: str = "mine"):
        if not callable(fn):
            raise TypeError(
                f"fn must be a function from a list of messages to a string, got {fn!r}"
            )
        super().__init__(None)
        self.fn, self.name = fn, check_str(name, "name")

    def start(self, case):
        super().start(case)
        self.history: list[BaseMessage] = []

    def observe(self, session):
        self.history += to_messages(session)

    def answer(self, question):
        from langchain_core.tracers.context import register_configure_hook

        from memlib.writers import ModelCallCounter

        # count the calls of whatever model the function uses, as get_usage_metadata_callback does
        counter = ModelCallCounter()
        register_configure_hook(_COUNTER, inheritable=True)
        token = _COUNTER.set(counter)
        try:
            reply = self.fn([*self.history, HumanMessage(question)])
        finally:
            _COUNTER.reset(token)
        self.calls, self.prompt_tokens = counter.snapshot()
        return check_kind(reply, str, f"{self.name}: the function's reply", "a string")


def function_strategy(fn: Callable[[list[BaseMessage]], str], name: str = "mine") -> Callable:
    """A strategy factory for the harness from a function messages -> answer text (a reader's agent)."""
    if not callable(fn):
        raise TypeError(f"fn must be a function from a list of messages to a string, got {fn!r}")
    check_str(name, "name")

    def make(model, store, trace, **options):
        return FunctionStrategy(fn, name)

    make.strategy_name = name
    return make


def _buffer(name: str, make: Callable):
    def factory(model, store, trace, **options):
        make(**options)  # bad options fail here, before any case runs
        return BufferStrategy(model, store, trace, make_buffer=lambda: make(**options), name=name)

    return factory


STRATEGIES: dict[str, Callable] = {
    "full": _buffer("full", lambda: FullBuffer(SYSTEM)),
    "window": _buffer("window", lambda window=6: SlidingWindowBuffer(SYSTEM, max_turns=window)),
    "trim": _buffer("trim", lambda budget=400: TokenTrimBuffer(SYSTEM, max_tokens=budget)),
    "summary": SummaryRotation,
    "episodic": EpisodicRecall,
    "semantic": SemanticMemory,
    "agent": MemoryAgent,
    "temporal": TemporalMemory,
    "agent-temporal": lambda model, store, trace, **options: MemoryAgent(
        model, store, trace, **{"memory": "temporal", **options}
    ),
    "oldest": OldestFirst,
}
