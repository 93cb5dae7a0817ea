"""Memory writers: validators, the model-call counter on the real offline model, fact_text on
both item shapes, the load_memory node in a real graph over a real indexed store, settle on real
ReflectionExecutor futures (debounce), BlendedWriter routing with a real hot-path agent and a real
background manager, and the fixture."""

from __future__ import annotations

import math
import threading
import warnings
from concurrent.futures import Future
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain_core.runnables import RunnableLambda
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.memory import InMemoryStore
from langmem import ReflectionExecutor, create_manage_memory_tool, create_memory_store_manager

from memlib.embeddings import DIMS, MiniLMEmbeddings
from memlib.semantic import fact_text
from memlib.writers import (
    BlendedWriter,
    ModelCallCounter,
    check_after_seconds,
    check_user_id,
    is_explicit_request,
    load_recall_questions,
    load_sessions,
    make_load_memory_node,
    settle,
)
from offline_model import OfflineChatModel

warnings.filterwarnings("ignore", category=DeprecationWarning)
EMB = MiniLMEmbeddings()


def new_store():
    return InMemoryStore(index={"dims": DIMS, "embed": EMB})


def texts(store, namespace):
    return sorted(fact_text(item) for item in store.search(namespace, limit=50))


# validators


@pytest.mark.parametrize("bad", ["", "   ", "a.b"])
def test_check_user_id_rejects_empty_and_dotted(bad):
    with pytest.raises(ValueError, match=repr(bad).replace(".", r"\.")):
        check_user_id(bad)


@pytest.mark.parametrize("bad", [None, 42, ("ana",)])
def test_check_user_id_rejects_non_strings(bad):
    with pytest.raises(TypeError, match="user_id"):
        check_user_id(bad)


@given(st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=True))
def test_negative_delays_refused(delay):
    with pytest.raises(ValueError, match="after_seconds"):
        check_after_seconds(delay)


@given(st.floats(min_value=0, max_value=1e6) | st.integers(min_value=0, max_value=10**6))
def test_non_negative_delays_accepted(delay):
    assert check_after_seconds(delay) == float(delay)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_delays_refused(bad):
    with pytest.raises(ValueError, match="after_seconds"):
        check_after_seconds(bad)


@pytest.mark.parametrize("bad", [True, "1", None])
def test_non_numeric_delays_refused(bad):
    with pytest.raises(TypeError, match="after_seconds"):
        check_after_seconds(bad)


# explicit requests


@pytest.mark.parametrize(
    "text",
    [
        "Remember that I prefer metric units.",
        "please remember my sister's birthday is June 3",
        "Don't forget that I'm vegetarian.",
        "Note that my timezone is CET.",
    ],
)
def test_explicit_requests_detected(text):
    assert is_explicit_request(text)


@pytest.mark.parametrize(
    "text",
    [
        "I live in Lisbon.",
        "Do you remember my name?",
        "I can't remember the command.",
        "Notebooks are great.",
        "",
    ],
)
def test_other_messages_not_explicit(text):
    assert not is_explicit_request(text)


def test_is_explicit_request_rejects_non_strings():
    with pytest.raises(TypeError):
        is_explicit_request(None)


# fact_text (04) reads what either writer of 07 stored


def test_fact_text_reads_both_writers_shapes_and_items():
    store = new_store()
    store.put(("m",), "a", {"content": "User lives in Porto."})  # manage_memory's tool
    store.put(("m",), "b", {"kind": "Memory", "content": {"content": "User likes Rust."}})
    assert fact_text(store.get(("m",), "a")) == "User lives in Porto."
    assert fact_text(store.get(("m",), "b")) == "User likes Rust."
    with pytest.raises(ValueError, match="other"):
        fact_text({"other": 1})


# ModelCallCounter on the real offline model


def test_counter_counts_calls_and_prompt_tokens():
    counter = ModelCallCounter()
    model = OfflineChatModel(callbacks=[counter])
    first = model.invoke("Hi, I'm Ana. What's my name?")
    second = model.invoke("I live in Porto. Where do I live?")
    calls, tokens = counter.snapshot()
    assert calls == 2
    expected = first.usage_metadata["input_tokens"] + second.usage_metadata["input_tokens"]
    assert tokens == expected > 0


# load_memory node in a real graph


class _State(MessagesState):
    memories: list[str]


def _graph(store, k=2):
    builder = StateGraph(_State)
    builder.add_node("load_memory", make_load_memory_node(("memories", "{user_id}"), k=k))
    builder.add_edge(START, "load_memory")
    return builder.compile(store=store)


def test_load_memory_node_returns_top_k_for_the_user_only():
    store = new_store()
    for n, text in enumerate(
        ["User lives in Porto.", "User's dog is Biscuit.", "User likes Rust."]
    ):
        store.put(("memories", "ana"), f"a{n}", {"content": text})
    store.put(("memories", "bob"), "b0", {"content": "User lives in Oslo."})
    config = {"configurable": {"user_id": "ana"}}
    state = _graph(store).invoke({"messages": [("user", "Where do I live?")]}, config)
    assert len(state["memories"]) == 2
    assert state["memories"][0] == "User lives in Porto."
    assert "User lives in Oslo." not in state["memories"]


def test_load_memory_node_refuses_missing_user_and_bad_k():
    with pytest.raises(ValueError, match="k must be"):
        make_load_memory_node(("memories", "{user_id}"), k=0)
    with pytest.raises(TypeError, match="user_id"):
        _graph(new_store()).invoke({"messages": [("user", "hi")]}, {"configurable": {}})


# settle and the debounce, on a real ReflectionExecutor


def test_settle_counts_ran_cancelled_failed():
    done, cancelled, failed = Future(), Future(), Future()
    done.set_result(1)
    cancelled.cancel()
    failed.set_exception(RuntimeError("boom"))
    outcome = settle([done, cancelled, failed], timeout=1)
    assert (outcome.ran, outcome.cancelled, outcome.failed) == (1, 1, 1)
    assert "boom" in repr(outcome.errors[0])


def test_settle_raises_on_timeout():
    with pytest.raises(TimeoutError):
        settle([Future()], timeout=0.01)


def test_burst_on_one_thread_makes_one_extraction():
    store = new_store()
    counter = ModelCallCounter()
    manager = create_memory_store_manager(
        OfflineChatModel(callbacks=[counter]), namespace=("memories", "{user_id}"), store=store
    )
    executor = ReflectionExecutor(manager, store=store)
    config = {"configurable": {"user_id": "ana"}}
    messages, futures = [], []
    for text in ["I live in Lisbon.", "I work at Northwind.", "My dog is called Biscuit."]:
        messages = messages + [{"role": "user", "content": text}]
        futures.append(
            executor.submit({"messages": messages}, config=config, after_seconds=1.0, thread_id="t")
        )
    outcome = settle(futures, timeout=60)
    executor.shutdown(wait=True)
    assert (outcome.ran, outcome.cancelled, outcome.failed) == (1, 2, 0)
    assert counter.calls == 1
    stored = texts(store, ("memories", "ana"))
    assert any("Lisbon" in t for t in stored) and any("Biscuit" in t for t in stored), stored


# BlendedWriter


@pytest.fixture
def blend():
    store = new_store()
    hot_calls, extract_calls = ModelCallCounter(), ModelCallCounter()
    hot = create_agent(
        OfflineChatModel(callbacks=[hot_calls]),
        tools=[create_manage_memory_tool(namespace=("memories", "{user_id}", "explicit"))],
        store=store,
    )
    manager = create_memory_store_manager(
        OfflineChatModel(callbacks=[extract_calls]),
        namespace=("memories", "{user_id}", "extracted"),
        store=store,
    )
    executor = ReflectionExecutor(manager, store=store)
    writer = BlendedWriter(hot, executor, after_seconds=0.5)
    yield writer, store, hot_calls, extract_calls
    settle(writer.futures, timeout=60)
    executor.shutdown(wait=True)


def test_blend_writes_explicit_now_and_the_rest_later(blend):
    writer, store, hot_calls, extract_calls = blend
    route, _ = writer.write(
        "Remember that I prefer metric units.", "Noted.", user_id="ana", thread_id="t1"
    )
    assert route == "hot" and hot_calls.calls >= 1
    assert texts(store, ("memories", "ana", "explicit")) == ["User prefers metric units."]
    route, future = writer.write("I live in Lisbon.", "Nice.", user_id="ana", thread_id="t1")
    assert route == "background"
    assert texts(store, ("memories", "ana", "extracted")) == []  # not yet: debounced
    future.result(timeout=60)
    extracted = texts(store, ("memories", "ana", "extracted"))
    assert extracted == ["User lives in Lisbon."]  # the explicit turn is not extracted again
    assert extract_calls.calls == 1


class OneAtATime(RunnableLambda):
    """A reflector that records each run and how many ran at once; a background run waits for
    `release`, so a hot write started meanwhile would overlap it unless the writer serializes."""

    def __init__(self):
        self.namespace = ("memories", "{user_id}")  # ReflectionExecutor requires one
        self.started, self.release = threading.Event(), threading.Event()
        self.running, self.most, self.order, self.lock = 0, 0, [], threading.Lock()
        super().__init__(self._run)

    def _run(self, payload):
        text = payload["messages"][0]  # the user's first message
        text = text[1] if isinstance(text, tuple) else text["content"]
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        if not text.startswith("Remember"):
            self.started.set()
            assert self.release.wait(30), "the test never released the background run"
        with self.lock:
            self.running -= 1
            self.order.append(text)
        return [text]


def test_blend_with_the_executor_as_hot_path_never_overlaps_a_background_write():
    # notebook 09: one manager behind both paths; two writes at once both find no profile and add
    # two. The hot request starts while a background run is inside the manager, and must wait.
    reflector = OneAtATime()
    executor = ReflectionExecutor(reflector, store=InMemoryStore())
    try:
        writer = BlendedWriter(executor, executor, after_seconds=0)
        _, background = writer.write("I live in Bergen.", "Noted.", user_id="ana", thread_id="t")
        assert reflector.started.wait(30)
        hot = {}
        thread = threading.Thread(
            target=lambda: hot.update(
                out=writer.write("Remember my dog.", "Ok.", user_id="ana", thread_id="t")
            )
        )
        thread.start()
        thread.join(0.3)  # long enough for an overlapping run to start
        assert reflector.order == [] and thread.is_alive()  # the hot write waits its turn
        reflector.release.set()
        thread.join(30)
        assert hot["out"] == ("hot", ["Remember my dog."]) and background.result(30)
        assert reflector.most == 1 and reflector.order == ["I live in Bergen.", "Remember my dog."]
    finally:
        reflector.release.set()
        executor.shutdown(wait=True)


def test_blend_refuses_bad_ids_without_writing(blend):
    writer, store, hot_calls, _ = blend
    for user_id, exc in (("", ValueError), (None, TypeError), ("a.b", ValueError)):
        for text in ("Remember that I like tea.", "I like tea."):
            with pytest.raises(exc):
                writer.write(text, "ok", user_id=user_id, thread_id="t1")
    with pytest.raises(ValueError, match="thread_id"):
        writer.write("I like tea.", "ok", user_id="ana", thread_id="")
    assert writer.futures == [] and hot_calls.calls == 0
    assert store.search(("memories",), limit=10) == []


def test_blend_refuses_negative_delay():
    with pytest.raises(ValueError, match="-1"):
        BlendedWriter(RunnableLambda(lambda x: x), SimpleNamespace(submit=print), after_seconds=-1)


# bad input: each public name refuses it with a message naming the value


def test_bad_input_BlendedWriter():
    hot, executor = RunnableLambda(lambda x: x), SimpleNamespace(submit=print)
    with pytest.raises(TypeError, match="hot_path.*NoneType"):
        BlendedWriter(None, executor)
    with pytest.raises(TypeError, match="executor.*'not an executor'"):
        BlendedWriter(hot, "not an executor")
    with pytest.raises(TypeError, match="after_seconds.*'2'"):
        BlendedWriter(hot, executor, after_seconds="2")
    with pytest.raises(TypeError, match="is_explicit.*'yes'"):
        BlendedWriter(hot, executor, is_explicit="yes")
    writer = BlendedWriter(hot, executor)
    with pytest.raises(TypeError, match="user_id.*42"):
        writer.write("I like tea.", "ok", user_id=42, thread_id="t")


def test_bad_input_ModelCallCounter():
    with pytest.raises(TypeError, match="ModelCallCounter"):
        ModelCallCounter(3)
    assert ModelCallCounter().snapshot() == (0, 0)


def test_bad_input_check_after_seconds():
    with pytest.raises(TypeError, match="'1'"):
        check_after_seconds("1")
    with pytest.raises(TypeError, match="True"):
        check_after_seconds(True)
    with pytest.raises(ValueError, match="inf"):
        check_after_seconds(float("inf"))
    with pytest.raises(ValueError, match="-0.5"):
        check_after_seconds(-0.5)


def test_bad_input_is_explicit_request():
    with pytest.raises(TypeError, match="None"):
        is_explicit_request(None)
    with pytest.raises(TypeError, match=r"\['remember that'\]"):
        is_explicit_request(["remember that"])


def test_bad_input_make_load_memory_node():
    with pytest.raises(TypeError, match="'ns'"):
        make_load_memory_node("ns")  # would silently search ("n", "s")
    with pytest.raises(ValueError, match="at least one"):
        make_load_memory_node(())
    with pytest.raises(ValueError, match=">= 1, got 0"):
        make_load_memory_node(("memories", "{user_id}"), k=0)
    with pytest.raises(TypeError, match="'3'"):
        make_load_memory_node(("memories", "{user_id}"), k="3")


def test_bad_input_fact_text():
    with pytest.raises(TypeError, match="NoneType: None"):
        fact_text(None)
    with pytest.raises(ValueError, match="3"):
        fact_text({"content": 3})


def test_bad_input_settle():
    with pytest.raises(TypeError, match=r"futures\[0\].*int: 1"):
        settle([1])
    done = Future()
    done.set_result(None)
    with pytest.raises(TypeError, match="Future"):
        settle(done)  # one future, not a list of them
    with pytest.raises(ValueError, match="-1"):
        settle([done], timeout=-1)


# fixture


def test_fixture_shape():
    sessions = load_sessions()
    assert len(sessions) == 7
    assert {t["thread"] for t in sessions} == {"laptop", "phone"}
    assert sum(is_explicit_request(t["user"]) for t in sessions) == 2
    questions = load_recall_questions()
    assert len(questions) == 7 and all(q["answer"] for q in questions)


def test_fixture_loader_names_bad_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"user": "hi"}\nnot json\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        load_sessions(path)
