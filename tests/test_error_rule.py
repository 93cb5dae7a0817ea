"""One error rule everywhere (memlib.checks): a wrong kind of value raises TypeError, a right kind
with a bad value raises ValueError, whichever public memlib callable it is passed to.

The test walks every public callable reachable from memlib: every name in `memlib.__all__` and
every public function or class defined in a memlib module (pkgutil.walk_packages; private names
and names imported from other packages are left out: `obj.__module__` must start with "memlib").
For each parameter it calls the callable with a wrong kind of value (an `object()` sentinel, and
a near miss: "8" for a number, 8 for a string, a bare string for a list) while every other
required parameter gets a valid sample from SAMPLES, and asserts TypeError. Classes are called
through their constructor; node factories are called themselves (their bad arguments must be
refused when the graph is built, not on the first turn); context managers are entered.

Completeness: a public callable is either exercised or listed in SKIP_CALLABLES, and each of its
parameters is either exercised or listed in SKIP_PARAMS, each with its reason; a required
parameter with no sample fails the test. So the test grows with memlib.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import memlib
import memlib.buffers
import memlib.rotation
import memlib.scratchpad
import memlib.shared_memory

# --- what is public ------------------------------------------------------------------------


def public_callables() -> dict[str, object]:
    """{"module.qualname": callable} for memlib.__all__ and each memlib module's own public names."""
    found: dict[str, object] = {}

    def add(obj) -> None:
        module = getattr(obj, "__module__", None) or ""
        if callable(obj) and module.startswith("memlib"):
            found[f"{module}.{obj.__qualname__}"] = obj

    for name in memlib.__all__:
        add(getattr(memlib, name))
    for info in pkgutil.walk_packages(memlib.__path__, "memlib."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue  # memlib.__main__, memlib.eval.__main__: command lines, run on import
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if not name.startswith("_") and getattr(obj, "__module__", None) == info.name:
                add(obj)
    return found


# --- callables and parameters not exercised, each with its reason ----------------------------

SKIP_CALLABLES = {
    # types, not functions
    "memlib.agent.AgentState": "a TypedDict: a type for LangGraph, never called",
    "memlib.rotation.SummaryState": "a TypedDict: a type for LangGraph, never called",
    "memlib.scratchpad.ResearchState": "a TypedDict: a type for LangGraph, never called",
    "memlib.faiss_store.StoreConflictError": "an exception class: takes a message",
    # pydantic schemas: their validation error is pydantic's (a ValueError), part of the model's
    # structured-output contract, and they are filled by models, not called by readers
    "memlib.episodic.Episode": "pydantic schema for structured output (pydantic's errors)",
    "memlib.semantic.Fact": "pydantic schema for structured output (pydantic's errors)",
    "memlib.semantic.UserProfile": "pydantic schema for structured output (pydantic's errors)",
    "memlib.scratchpad.Grade": "pydantic schema for structured output (pydantic's errors)",
    "memlib.temporal.DatedFact": "pydantic schema for structured output (pydantic's errors)",
    "memlib.temporal.DatedFacts": "pydantic schema for structured output (pydantic's errors)",
    # records memlib builds itself and hands back (plain dataclasses, no checks by design)
    "memlib.procedural.PromptVersion": "a record read back from the store, built by memlib",
    "memlib.rotation.ModelCall": "a record PromptRecorder builds from a model call",
    "memlib.writers.Settled": "a record settle() returns",
    "memlib.eval.trace.TraceEvent": "a record Trace builds from a store operation",
    "memlib.eval.harness.EvalRun": "a record evaluate() returns",
    "memlib.models.Backend": "a record describe_backend() returns",
    # heavy setup: a browser, a server, a database cluster or a notebook run
    "memlib.backends.local_postgres": "starts a PostgreSQL cluster",
    "memlib.testing.execute": "executes a notebook in a fresh kernel",
    "memlib.testing.run_notebooks": "executes notebooks in fresh kernels",
    "memlib.testing.main": "the command line (argparse reports its own errors)",
    "memlib.testing.serving": "starts the OpenAI-compatible server for a variant",
    # internal steps, called only with arguments their public caller has checked
    "memlib.procedural.review_version": "approve/reject's shared step, after their checks",
    "memlib.shared_memory.authorize": "ScopedStore.batch's step, on what its constructor checked",
    "memlib.scratchpad.next_status": "a step of make_grade's node, on values make_grade checked",
}

# (callable or "*", parameter): why it takes any kind of value
SKIP_PARAMS = {
    # the checkers themselves: their first argument is the value under test, any kind at all
    ("memlib.checks.check_str", "value"): "the value under test",
    ("memlib.checks.check_int", "value"): "the value under test",
    ("memlib.checks.check_number", "value"): "the value under test",
    ("memlib.checks.check_user_id", "user_id"): "the value under test",
    ("memlib.checks.check_namespace", "namespace"): "the value under test",
    ("memlib.checks.check_store", "store"): "the value under test",
    ("memlib.checks.check_messages", "messages"): "the value under test",
    ("memlib.checks.namespace_for", "template"): "the value under test",
    ("memlib.checks.namespace_for", "user_id"): "the value under test",
    ("memlib.backends.check_value", "value"): "the value under test",
    ("memlib.backends.check_filter", "filt"): "the value under test",
    ("memlib.backends.check_index", "index"): "the value under test",
    ("memlib.backends.parse_url", "url"): "the value under test",
    ("memlib.episodic.as_episode", "episode"): "the value under test",
    ("memlib.episodic.check_episode_type", "type"): "the value under test",
    ("memlib.episodic.to_datetime", "value"): "the value under test",
    ("memlib.procedural.check_name", "value"): "the value under test",
    ("memlib.procedural.check_feedback", "feedback"): "the value under test",
    ("memlib.rotation.check_summary_state", "state"): "the value under test",
    ("memlib.rotation.check_model", "model"): "the value under test",
    ("memlib.rotation.check_model", "tools"): "the value under test",
    ("memlib.writers.check_after_seconds", "after_seconds"): "the value under test",
    ("memlib.eval.dataset.validate_case", "case"): "the value under test",
    # the checkers' labels and bounds: written by memlib's own code, never by a reader
    ("memlib.checks.check_str", "name"): "a label memlib's code passes",
    ("memlib.checks.check_str", "allow_empty"): "a flag memlib's code passes",
    ("memlib.checks.check_int", "name"): "a label memlib's code passes",
    ("memlib.checks.check_int", "minimum"): "a bound memlib's code passes",
    ("memlib.checks.check_number", "name"): "a label memlib's code passes",
    ("memlib.checks.check_number", "minimum"): "a bound memlib's code passes",
    ("memlib.checks.check_user_id", "name"): "a label memlib's code passes",
    ("memlib.checks.check_namespace", "name"): "a label memlib's code passes",
    ("memlib.checks.check_store", "name"): "a label memlib's code passes",
    ("memlib.checks.check_messages", "name"): "a label memlib's code passes",
    ("memlib.checks.check_chat_model", "model"): "the value under test",
    ("memlib.checks.check_chat_model", "name"): "a label memlib's code passes",
    ("memlib.checks.check_checkpointer", "checkpointer"): "the value under test",
    ("memlib.checks.check_checkpointer", "name"): "a label memlib's code passes",
    ("memlib.checks.check_kind", "value"): "the value under test",
    ("memlib.checks.check_kind", "kind"): "a type memlib's code passes",
    ("memlib.checks.check_kind", "name"): "a label memlib's code passes",
    ("memlib.checks.check_kind", "what"): "a description memlib's code passes",
    ("memlib.checks.check_items", "value"): "the value under test",
    ("memlib.checks.check_items", "name"): "a label memlib's code passes",
    ("memlib.checks.check_items", "what"): "a description memlib's code passes",
    ("memlib.checks.check_items", "kind"): "a type memlib's code passes",
    ("memlib.procedural.check_name", "what"): "a label memlib's code passes",
    ("memlib.backends.check_value", "where"): "a label memlib's code passes",
    ("memlib.episodic.to_datetime", "name"): "a label memlib's code passes",
    # values stored or shown as they are
    ("memlib.testing.record", "value"): "any figure; record() reports a non-scalar itself",
    ("memlib.semantic.fact_text", "value"): "any stored value: a Fact dict or anything else",
    ("memlib.widgets.item_provenance", "item"): "any store item or search hit (duck-typed)",
    ("memlib.scratchpad.review_problem", "decision"): "a human's reply to interrupt(): any value",
    ("memlib.procedural.propose_prompt", "feedback"): "free-form feedback: text or a mapping",
    # duck-typed collaborators, checked where they are used
    ("memlib.backends.CheckedEmbeddings", "embed"): "any embedding function or object",
    ("memlib.backends.sqlite_scrub", "conn"): "any DB-API connection; non-SQLite ones pass",
    ("memlib.testing.counters", "server"): "the local server or a stand-in with .stats",
}

# --- valid sample arguments ------------------------------------------------------------------


@functools.cache
def _model():
    return memlib.get_chat_model()


@functools.cache
def _corpus_index():
    from memlib.corpus import CorpusIndex, load_corpus

    return CorpusIndex(load_corpus()[:5], memlib.get_embeddings())


def _store():
    from langgraph.store.memory import InMemoryStore

    return InMemoryStore()


def _messages():
    from langchain_core.messages import AIMessage, HumanMessage

    return [HumanMessage("I have a dog called Rex."), AIMessage("Nice, Rex!")]


def _item():
    from langgraph.store.base import Item

    now = "2024-05-01T00:00:00+00:00"
    return Item(namespace=("users", "ana"), key="k", value={"x": 1}, created_at=now, updated_at=now)


def _checkpointer():
    from langgraph.checkpoint.memory import InMemorySaver

    return InMemorySaver()


def _writer():
    from concurrent.futures import ThreadPoolExecutor

    from memlib.writers import BlendedWriter

    class HotPath:
        def invoke(self, *args, **kwargs):
            return {"messages": []}

    return BlendedWriter(HotPath(), ThreadPoolExecutor(1))


def _research_state():
    from memlib.scratchpad import new_research

    return new_research("What is FAISS?")


def _case():
    from memlib.eval.generator import generate_case

    return generate_case(0, sessions=6, turns=2, facts=1)


def _datetime():
    from datetime import UTC, datetime

    return datetime(2024, 5, 1, tzinfo=UTC)


def _rotation_row() -> dict:
    """A row as memlib.rotation.run_turns writes it."""
    return {
        "turn": 1,
        "reply": "Rex",
        "messages_in_state": 2,
        "stored_messages": 2,
        "prompt_tokens": 10,
        "summary_calls": 0,
        "summary_tokens": 0,
        "facts_in_prompt": ["Rex"],
        "earlier_facts_in_prompt": 0,
        "earlier_facts": 0,
    }


def _prompt_store(approved: bool = False):
    """A store where agent "helper" has version 1 and a proposed version 2 (approved: active)."""
    from memlib.procedural import approve, create_prompt, propose_prompt

    store = _store()
    create_prompt(store, "helper", "Be brief.", author="ana")
    propose_prompt(store, "helper", "Be very brief.", feedback="too long", author="ana")
    if approved:
        approve(store, "helper", 2, reviewer="ben")
    return store


def _conversation_file(tmp: Path) -> Path:
    return Path(memlib.buffers.CONVERSATIONS) / "long_chat.jsonl"


# parameter name -> a valid value (a function of the test's tmp_path)
SAMPLES = {
    "action": lambda tmp: "read",
    "agent": lambda tmp: "helper",
    "aspects": lambda tmp: ["What is FAISS"],
    "author": lambda tmp: "ana",
    "cases": lambda tmp: [_case()],
    "checkpointer": lambda tmp: _checkpointer(),
    "config": lambda tmp: {"configurable": {"thread_id": "t1", "user_id": "ana"}},
    "conn": lambda tmp: None,
    "dims": lambda tmp: 8,
    "doc": lambda tmp: {"id": "d1", "title": "FAISS", "text": "A library.", "superseded_by": None},
    "docs": lambda tmp: [{"id": "d1", "title": "t", "text": "x", "superseded_by": None}],
    "documents": lambda tmp: [{"id": "d1", "title": "t", "text": "x", "superseded_by": None}],
    "embed": lambda tmp: memlib.get_embeddings(),
    "embeddings": lambda tmp: memlib.get_embeddings(),
    "env": lambda tmp: None,
    "episode": lambda tmp: {"situation": "s", "approach": "a", "outcome": "o", "lesson": "l"},
    "episodes": lambda tmp: [],
    "end": lambda tmp: 20250401,
    "evidence": lambda tmp: ["s1"],
    "executor": lambda tmp: __import__("concurrent.futures").futures.ThreadPoolExecutor(1),
    "fact": lambda tmp: {
        "content": "User lives in Tinmouth.",
        "subject": "User",
        "predicate": "lives in",
        "object": "Tinmouth",
    },
    "facts": lambda tmp: [],
    "fn": lambda tmp: lambda messages: "ok",
    "futures": lambda tmp: [],
    "grader": lambda tmp: lambda question, doc: (True, "ok"),
    "grants": lambda tmp: {
        "helper": [memlib.shared_memory.Grant(("shared",), read=True, write=True)]
    },
    "graph": lambda tmp: memlib.rotation.build_rotation_graph(
        _model(), threshold=8, keep_last=2, checkpointer=_checkpointer()
    ),
    "hot_path": lambda tmp: _writer().hot_path,
    "index": lambda tmp: _corpus_index(),
    "latest": lambda tmp: None,  # no checkpoint yet
    "instructions": lambda tmp: "Summarize.",
    "item": lambda tmp: _item(),
    "k": lambda tmp: 3,
    "items": lambda tmp: [],
    "keep_last": lambda tmp: 2,
    "kept": lambda tmp: [],
    "left": lambda tmp: [],
    "make_buffer": lambda tmp: lambda: memlib.buffers.FullBuffer("Be brief."),
    "max_iterations": lambda tmp: 2,
    "max_tokens": lambda tmp: 400,
    "messages": lambda tmp: _messages(),
    "min_evidence": lambda tmp: 1,
    "model": lambda tmp: _model(),
    "n": lambda tmp: 3,
    "name": lambda tmp: "thing",
    "namespace": lambda tmp: ("users", "ana"),
    "namespace_prefix": lambda tmp: ("users",),
    "new": lambda tmp: "new text",
    "note": lambda tmp: "looks good",
    "notebook": lambda tmp: "notebooks/01_conversation_buffers.ipynb",
    "notebook_path": lambda tmp: tmp / "missing.ipynb",
    "now": lambda tmp: _datetime(),
    "obj": lambda tmp: "Rex",
    "old": lambda tmp: "old text",
    "ops": lambda tmp: [],
    "page": lambda tmp: None,
    "patch": lambda tmp: {"name": "Ana"},
    "path": lambda tmp: tmp / "data.jsonl",
    "predicate": lambda tmp: "has_dog",
    "prefix": lambda tmp: ("users",),
    "previous": lambda tmp: {},
    "previous_summary": lambda tmp: "",
    "profile": lambda tmp: None,
    "query": lambda tmp: "dog",
    "question": lambda tmp: "What is FAISS?",
    "records": lambda tmp: {},
    "relevant": lambda tmp: [{"s1"}],
    "reply": lambda tmp: "I don't know.",
    "research_graph": lambda tmp: memlib.scratchpad.build_research_graph(
        _corpus_index(), _model()
    ).compile(),
    "result": lambda tmp: [],
    "results": lambda tmp: {"full": [_rotation_row()]},
    "retrieved": lambda tmp: [["s1"]],
    "retrieved_sessions": lambda tmp: ["s1"],
    "reviewer": lambda tmp: "ben",
    "right": lambda tmp: [],
    "root": lambda tmp: tmp,
    "rows": lambda tmp: [],
    "said_on": lambda tmp: "2025-03-12",
    "saver": lambda tmp: _checkpointer(),
    "seed": lambda tmp: 0,
    "server": lambda tmp: __import__("types").SimpleNamespace(stats={"chat": 1}),
    "session": lambda tmp: {"session": "s1", "messages": [{"role": "user", "content": "hi"}]},
    "start": lambda tmp: 20250301,
    "state": lambda tmp: _research_state(),
    "stem": lambda tmp: "01_conversation_buffers",
    "store": lambda tmp: _store(),
    "strategy": lambda tmp: "full",
    "subject": lambda tmp: "ana",
    "summary": lambda tmp: "",
    "summary_words": lambda tmp: 40,
    "system_prompt": lambda tmp: "Be brief.",
    "task": lambda tmp: "fix a bug",
    "text": lambda tmp: "Be brief.",
    "thread_id": lambda tmp: "t1",
    "thread_ids": lambda tmp: ["t1"],
    "threshold": lambda tmp: 8,
    "type": lambda tmp: "debugging",
    "url": lambda tmp: "memory://",
    "user_id": lambda tmp: "ana",
    "user_turns": lambda tmp: ["hi"],
    "users": lambda tmp: ["ana"],
    "value": lambda tmp: {"x": 1},
    "vectors": lambda tmp: {"a": [1.0, 0.0]},
    "verdicts": lambda tmp: [],
    "version": lambda tmp: 1,
    "what": lambda tmp: "agent",
    "writers": lambda tmp: [],
    "created_at": lambda tmp: "2024-05-01T00:00:00+00:00",
    "decision": lambda tmp: {"approved": True},
    "feedback": lambda tmp: "Answers are too long.",
    "human_review": lambda tmp: False,
    "variant": lambda tmp: "offline",
    "status": lambda tmp: "approved",
    "keep_tokens": lambda tmp: 100,
}

# per callable: {parameter: valid value} where the name alone does not say enough
OVERRIDES = {
    **{
        f"memlib.procedural.{name}": {
            "store": lambda tmp: _prompt_store(),
            "version": lambda tmp: 2,
        }
        for name in ("approve", "reject", "review_version")
    },
    "memlib.procedural.propose_prompt": {
        "store": lambda tmp: _prompt_store(),
        "text": lambda tmp: "Be terse.",
    },
    **{
        f"memlib.procedural.{name}": {"store": lambda tmp: _prompt_store(approved=True)}
        for name in ("rollback", "rollback_target")
    },
    "memlib.procedural.review_version": {
        "store": lambda tmp: _prompt_store(),
        "version": lambda tmp: 2,
        "status": lambda tmp: "approved",
        "note": lambda tmp: None,
    },
    "memlib.agent.memory_as_data": {"facts": lambda tmp: []},
    "memlib.buffers.load_conversation": {"name": lambda tmp: "long_chat"},
    "memlib.buffers.conversation_path": {"name": lambda tmp: "long_chat"},
    "memlib.buffers.turn_topics": {"name": lambda tmp: "long_chat"},
    "memlib.buffers.summarize_messages": {"old": lambda tmp: _messages()},
    "memlib.checks.check_int": {"name": lambda tmp: "n"},
    "memlib.checks.check_number": {"name": lambda tmp: "x", "value": lambda tmp: 1.0},
    "memlib.checks.check_str": {"name": lambda tmp: "s", "value": lambda tmp: "s"},
    "memlib.checks.namespace_for": {"template": lambda tmp: ("users", "{user_id}")},
    "memlib.episodic.save_episode": {"created_at": lambda tmp: "2024-05-01"},
    "memlib.episodic.to_datetime": {"value": lambda tmp: "2024-05-01"},
    "memlib.eval.dataset.save_dataset": {"path": lambda tmp: tmp / "cases.jsonl"},
    "memlib.eval.dataset.load_dataset": {"path": lambda tmp: tmp / "missing.jsonl"},
    "memlib.eval.metrics.grade": {
        "question": lambda tmp: {"qtype": "single", "answer": "Rex", "stale": [], "evidence": []}
    },
    "memlib.eval.metrics.mentions": {"value": lambda tmp: "Rex"},
    "memlib.eval.metrics.summarize": {"rows": lambda tmp: []},
    "memlib.eval.metrics.format_summary": {"summary": lambda tmp: {}},
    "memlib.eval.strategies.FunctionStrategy": {},
    "memlib.eval.strategies.BufferStrategy": {"name": lambda tmp: "full"},
    "memlib.eval.trace.TracedStore": {},
    "memlib.fixtures.read_jsonl": {"path": lambda tmp: _conversation_file(tmp)},
    "memlib.procedural.prompt_diff": {},
    "memlib.procedural.timestamp": {},
    "memlib.rotation.format_table": {"rows": lambda tmp: [{"a": 1}]},
    "memlib.rotation.mentions_all": {"facts": lambda tmp: ["Rex"]},
    "memlib.rotation.strategy_table": {"facts": lambda tmp: ["Rex"]},
    "memlib.rotation.plot_strategies": {"path": lambda tmp: tmp / "plot.png"},
    "memlib.rotation.run_turns": {"facts": lambda tmp: ["Rex"]},
    "memlib.scratchpad.evidence_per_aspect": {"state": lambda tmp: _research_state()},
    "memlib.scratchpad.review": {"state": lambda tmp: _research_state()},
    "memlib.semantic.format_memory_section": {"profile": lambda tmp: None},
    "memlib.shared_memory.permits": {
        "grants": lambda tmp: [memlib.shared_memory.Grant(("shared",))],
        "namespace": lambda tmp: ("shared",),
    },
    "memlib.shared_memory.authorize": {
        "grants": lambda tmp: [memlib.shared_memory.Grant(("shared",))]
    },
    "memlib.shared_memory.Grant": {"prefix": lambda tmp: ("shared",)},
    "memlib.shared_memory.ScopedStore": {},
    "memlib.testing.output_dir": {},
    "memlib.testing.write_records": {},
    "memlib.writers.make_load_memory_node": {"namespace": lambda tmp: ("memories", "{user_id}")},
    "memlib.backends.store_latency": {"url": lambda tmp: "memory://"},
    "memlib.backends.CheckedEmbeddings": {"dims": lambda tmp: memlib.embedding_dims()},
    "memlib.procedural.version_key": {"version": lambda tmp: 1},
}


# per callable: valid keyword arguments beyond the required ones (left out for the parameter
# under test and for those it conflicts with)
EXTRA = {
    "memlib.buffers.SlidingWindowBuffer": ({"max_turns": 3}, {"max_turns", "max_messages"}),
}


def _sample(qualname: str, param: str, tmp: Path):
    table = OVERRIDES.get(qualname, {})
    if param in table:
        return table[param](tmp)
    if param in SAMPLES:
        return SAMPLES[param](tmp)
    raise LookupError(f"no valid sample for {qualname}({param}=...): add one to SAMPLES")


# --- wrong kinds -----------------------------------------------------------------------------


def _wrong_values(annotation) -> list:
    """object() for every parameter, plus a near miss for a number, a string or a list."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    if annotation is inspect.Parameter.empty:
        text = ""
    words = set(text.replace("|", " ").replace("[", " ").replace("]", " ").split())
    wrong: list = [object()]
    if words & {"int", "float"} and not words & {"str", "Any"}:
        wrong.append("8")
    elif words and words <= {"str", "None"}:
        wrong.append(8)
    elif words & {"Sequence", "list", "Iterable"} and "str" not in words - {"Sequence"}:
        wrong.append("abc")
    return wrong


def _call(fn, kwargs: dict):
    """Call fn; enter what it returns when that is a context manager (or an async one) built
    from a generator, whose checks run on entry."""
    result = fn(**kwargs)
    if isinstance(result, contextlib._GeneratorContextManager):
        with result:
            pass
    elif isinstance(result, contextlib._AsyncGeneratorContextManager):

        async def enter():
            async with result:
                pass

        asyncio.run(enter())
    return result


def _cases():
    for qualname, obj in sorted(public_callables().items()):
        if qualname in SKIP_CALLABLES:
            continue
        try:
            params = inspect.signature(obj).parameters.values()
        except (TypeError, ValueError):
            yield pytest.param(qualname, None, id=f"{qualname}(no signature)")
            continue
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue  # **kwargs, *args: passed on to other code
            if (qualname, p.name) in SKIP_PARAMS or ("*", p.name) in SKIP_PARAMS:
                continue
            yield pytest.param(qualname, p.name, id=f"{qualname}({p.name})")


@pytest.mark.parametrize("qualname, param", list(_cases()))
def test_a_wrong_kind_of_value_raises_type_error(qualname, param, tmp_path):
    obj = public_callables()[qualname]
    assert param is not None, f"{qualname} has no signature: add it to SKIP_CALLABLES"
    sig = inspect.signature(obj)
    valid = {
        p.name: _sample(qualname, p.name, tmp_path)
        for p in sig.parameters.values()
        if p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        and p.name != param
    }
    extra, conflicts = EXTRA.get(qualname, ({}, set()))
    if param not in conflicts:
        valid = {**extra, **valid}
    for wrong in _wrong_values(sig.parameters[param].annotation):
        with pytest.raises(TypeError):
            _call(obj, {**valid, param: wrong})


# Methods readers call with their own data (the walk above reaches classes, not their methods):
# "module.Class.method" -> an instance made from valid samples.
METHODS = {
    "memlib.corpus.CorpusIndex.search": lambda tmp: _corpus_index(),
    "memlib.corpus.CorpusIndex.get": lambda tmp: _corpus_index(),
    "memlib.corpus.CorpusIndex.embed": lambda tmp: _corpus_index(),
    "memlib.writers.BlendedWriter.write": lambda tmp: _writer(),
    "memlib.writers.BlendedWriter.forget": lambda tmp: _writer(),
    "memlib.buffers.FullBuffer.add": lambda tmp: memlib.buffers.FullBuffer("Be brief."),
    "memlib.buffers.FullBuffer.extend": lambda tmp: memlib.buffers.FullBuffer("Be brief."),
    "memlib.tokens.TokenCounter.message": lambda tmp: memlib.TokenCounter(),
}
METHOD_SAMPLES = {
    "doc_id": lambda tmp: _corpus_index().documents[0]["id"],
    "texts": lambda tmp: ["a dog"],
    "user_text": lambda tmp: "I like tea.",
    "reply_text": lambda tmp: "Noted.",
    "message": lambda tmp: _messages()[0],
}


def _method_cases():
    for qualname in METHODS:
        method_name = qualname.rpartition(".")[2]
        cls = public_callables()[qualname.rpartition(".")[0]]
        for p in inspect.signature(getattr(cls, method_name)).parameters.values():
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                yield pytest.param(qualname, p.name, id=f"{qualname}({p.name})")


@pytest.mark.parametrize("qualname, param", list(_method_cases()))
def test_methods_refuse_a_wrong_kind_of_value_with_type_error(qualname, param, tmp_path):
    method = getattr(METHODS[qualname](tmp_path), qualname.rpartition(".")[2])
    sig = inspect.signature(method)
    valid = {
        p.name: (METHOD_SAMPLES.get(p.name) or SAMPLES[p.name])(tmp_path)
        for p in sig.parameters.values()
        if p.default is p.empty and p.name != param
    }
    for wrong in _wrong_values(sig.parameters[param].annotation):
        with pytest.raises(TypeError):
            method(**{**valid, param: wrong})


def test_every_public_callable_is_exercised_or_skipped():
    public = public_callables()
    stale = sorted(set(SKIP_CALLABLES) - set(public))
    assert not stale, f"SKIP_CALLABLES names callables that are gone: {stale}"
    stale_params = sorted(
        (name, param)
        for name, param in SKIP_PARAMS
        if name != "*"
        and (name not in public or param not in inspect.signature(public[name]).parameters)
    )
    assert not stale_params, f"SKIP_PARAMS names parameters that are gone: {stale_params}"
    # the walk reaches the exports, the node factories and the notebook-saved functions
    assert {
        "memlib.buffers.trim_to_budget",
        "memlib.rotation.compress_node",
        "memlib.agent.load_memory_node",
        "memlib.agent.write_memory_node",
        "memlib.eval.harness.evaluate",
    } <= set(public)


def test_the_write_node_checks_the_ids_at_entry_and_passes_the_checked_ones_on():
    """Identifiers are checked once where they enter: the write node, like the read node, checks
    the user and thread ids from the config before any writer sees them."""
    from langchain_core.messages import AIMessage, HumanMessage

    from memlib.agent import write_memory_node

    seen = []

    class Writer(type(_writer())):
        def write(self, user_text, reply_text, *, user_id, thread_id):
            seen.append((user_id, thread_id))
            return "background", None

    node = write_memory_node([Writer(_writer().hot_path, _writer().executor)])
    state = {"messages": [HumanMessage("I like tea."), AIMessage("Noted.")]}
    for ids, error in (
        ({"user_id": 42, "thread_id": "t1"}, TypeError),
        ({"thread_id": "t1"}, TypeError),
        ({"user_id": "a.b", "thread_id": "t1"}, ValueError),
        ({"user_id": "ana", "thread_id": None}, TypeError),
        ({"user_id": "ana", "thread_id": " "}, ValueError),
    ):
        with pytest.raises(error):
            node(state, {"configurable": ids})
    assert seen == []
    node(state, {"configurable": {"user_id": "Jose\u0301", "thread_id": "t1"}})
    assert seen == [("Jos\u00e9", "t1")]  # the NFC form check_user_id returns
