"""Tenancy on all four backends: forget takes all of one user and nothing of another, nothing comes
back, threads belong to the user who began them, export is forget's counterpart. Each test
names the attack it stands for (issue: forget-me and tenancy that hold under attack)."""

import json
import time

import pytest
from langchain_core.runnables import RunnableLambda
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import PutOp
from langmem import ReflectionExecutor

from memlib import open_checkpointer, open_store
from memlib.checks import RESERVED_LABELS, check_user_id
from memlib.rotation import prune_history
from memlib.tenancy import (
    UserBoundSaver,
    export_user,
    forget_user,
    user_namespaces,
    user_threads,
)
from memlib.writers import BlendedWriter

BACKENDS = ["memory", "faiss", "sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path):
    """(store, checkpointer) on one backend, empty."""
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_url")
        with open_store(url) as store:
            store.conn.execute("TRUNCATE store CASCADE")
        with open_checkpointer(url) as saver:
            saver.conn.execute("TRUNCATE checkpoints, checkpoint_writes, checkpoint_blobs")
    else:
        url = {
            "memory": "memory://",
            "faiss": f"faiss:///{tmp_path}/f",
            "sqlite": f"sqlite:///{tmp_path}/m.db",
        }[request.param]
    with open_store(url) as store, open_checkpointer(url) as saver:
        yield store, saver


def put(store, namespace, key, text):
    store.put(namespace, key, {"text": text})


def everything(store):
    """{(namespace, key): text} of every item in the store."""
    found = {}
    for ns in store.list_namespaces(limit=100_000):
        for item in store.search(ns, limit=10_000):
            found[(item.namespace, item.key)] = item.value["text"]
    return found


def chat_graph(saver):
    def reply(state):
        return {"messages": [("ai", "heard: " + state["messages"][-1].content)]}

    builder = StateGraph(MessagesState)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    return builder.compile(checkpointer=UserBoundSaver(saver))


def say(graph, user, thread, text):
    config = {"configurable": {"user_id": user, "thread_id": thread}}
    return graph.invoke({"messages": [("user", text)]}, config)["messages"]


# User ids


@pytest.mark.parametrize(
    "bad",
    [
        "facts",
        "profile",
        "users",
        "assistant",
        "Episodes",
        "*",
        "\ud800",
        "ana\u200b",
        "\u200b",
        "a/b",
        "x\x07",
        "a" * 300,
    ],
)
def test_ids_that_would_reach_other_data_are_refused(bad):
    with pytest.raises(ValueError, match="user_id"):
        check_user_id(bad)


def test_ids_are_nfc_normalised():
    composed, decomposed = "Zo\u00eb", "Zoe\u0308"
    assert check_user_id(decomposed) == check_user_id(composed) == composed
    assert "facts" in RESERVED_LABELS and "ana" not in RESERVED_LABELS


# Forget


def test_forget_takes_all_of_one_user_and_nothing_of_another(backend):
    store, saver = backend
    mine = {
        ("users", "ana", "facts"): "Ana lives in Bergen",
        ("users", "ana", "profile"): "Ana profile",
        ("episodes", "ana"): "Ana episode",
        ("memories", "ana"): "Ana parent",  # 07's layout: a parent and its child both hold items
        ("memories", "ana", "explicit"): "Ana child",
        ("audit", "users", "ana"): "Ana audit",
    }
    theirs = {
        ("users", "facts", "facts"): "a legacy namespace named like a layout",
        ("users", "anabel", "facts"): "Anabel lives in Oslo",  # a prefix look-alike
        ("users", "an", "facts"): "An lives in Rome",
        ("users", "ben", "ana"): "Ben's note titled ana",  # ana elsewhere in the tuple
        ("prompts", "ana"): "an agent named ana",
        ("episodes", "ben"): "Ben episode",
    }
    for i, (ns, text) in enumerate({**mine, **theirs}.items()):
        put(store, ns, f"k{i}", text)
    before = everything(store)
    report = forget_user(store, saver, "ana")
    after = everything(store)
    assert report["items"] == len(mine)
    assert sorted(report["namespaces"]) == sorted(mine)
    assert after == {k: v for k, v in before.items() if k[0] not in mine}
    assert not [ns for ns in store.list_namespaces(limit=10_000) if ns in mine]
    assert user_namespaces(store, "ana") == []
    again = forget_user(store, saver, "ana")  # idempotent
    assert again["items"] == 0 and again["namespaces"] == [] and everything(store) == after


def test_forget_finds_the_user_among_ten_thousand_namespaces(backend):
    store, saver = backend
    ops = [PutOp(("users", f"u{i:05}", "facts"), "k", {"text": f"user {i}"}) for i in range(10_001)]
    ops += [PutOp(("users", "zz-ana", "facts"), "k", {"text": "ana's fact"})]
    store.batch(ops)
    report = forget_user(store, saver, "zz-ana")
    assert report["items"] == 1
    assert store.get(("users", "zz-ana", "facts"), "k") is None
    assert store.get(("users", "u10000", "facts"), "k") is not None
    assert len(store.list_namespaces(prefix=("users",), limit=20_000)) == 10_001


def test_forget_refuses_a_reserved_label_and_deletes_nothing(backend):
    store, saver = backend
    put(store, ("users", "ana", "facts"), "k", "Ana's fact")
    with pytest.raises(ValueError, match="reserved"):
        forget_user(store, saver, "facts")
    assert store.get(("users", "ana", "facts"), "k") is not None


def test_forget_deletes_the_users_threads_found_by_their_checkpoints(backend):
    store, saver = backend
    graph = chat_graph(saver)
    say(graph, "ana", "t-ana-1", "I live in Bergen")
    say(graph, "ana", "t-ana-2", "I work at Umbrella")
    say(graph, "ben", "t-ben", "I live in Oslo")
    assert user_threads(saver, "ana") == ["t-ana-1", "t-ana-2"]
    report = forget_user(store, saver, "ana")  # no thread ids passed: the binding finds them
    assert report["threads"] == ["t-ana-1", "t-ana-2"]
    assert saver.get_tuple({"configurable": {"thread_id": "t-ana-1"}}) is None
    assert list(saver.list({"configurable": {"thread_id": "t-ana-2"}})) == []
    assert len(say(graph, "ben", "t-ben", "still here?")) == 4


# Threads belong to users


def test_another_user_cannot_read_or_write_a_thread(backend):
    _, saver = backend
    graph = chat_graph(saver)
    say(graph, "ana", "t-ana", "my PIN is 4321")
    with pytest.raises(PermissionError, match="t-ana"):
        say(graph, "mallory", "t-ana", "what did I say before?")
    with pytest.raises(PermissionError):
        say(graph, None, "t-ana", "no user id at all")
    history = list(saver.list({"configurable": {"thread_id": "t-ana"}}))
    assert {c.metadata.get("user_id") for c in history} == {"ana"}  # nothing of mallory's
    assert len(say(graph, "ana", "t-ana", "and now?")) == 4


# Export


def test_export_is_one_json_document_of_everything_forget_deletes(backend):
    store, saver = backend
    put(store, ("users", "ana", "facts"), "home", "Ana lives in Bergen")
    put(store, ("memories", "ana", "explicit"), "pet", "Ana's dog is Biscuit")
    put(store, ("users", "ben", "facts"), "home", "Ben lives in Oslo")
    say(chat_graph(saver), "ana", "t-ana", "hello")
    document = json.loads(json.dumps(export_user(store, saver, "ana")))
    texts = sorted(i["value"]["text"] for i in document["items"])
    assert texts == ["Ana lives in Bergen", "Ana's dog is Biscuit"]
    assert all(i["updated_at"] for i in document["items"])
    assert [m["data"]["content"] for m in document["threads"]["t-ana"]["messages"]] == [
        "hello",
        "heard: hello",
    ]
    report = forget_user(store, saver, "ana")
    assert report["items"] == len(document["items"])
    assert report["threads"] == sorted(document["threads"])
    assert export_user(store, saver, "ana")["items"] == []


# Checkpoint retention


def test_prune_history_keeps_only_the_latest_checkpoint_and_the_thread_resumes(backend):
    _, saver = backend
    graph = chat_graph(saver)
    for i in range(4):
        say(graph, "ana", "t", f"turn {i}")
    assert len(list(saver.list({"configurable": {"thread_id": "t"}}))) > 4
    prune_history(saver, ["t"])
    assert len(list(saver.list({"configurable": {"thread_id": "t"}}))) == 1
    messages = say(graph, "ana", "t", "turn 4")
    assert [m.content for m in messages][-2:] == ["turn 4", "heard: turn 4"]
    assert len(messages) == 10  # the state kept every message: only the history was pruned


# Deleted bytes


@pytest.mark.parametrize("scheme", ["sqlite", "faiss"])
def test_forgotten_text_is_not_left_in_the_files(scheme, tmp_path):
    marker = "zq-private-8841"
    url = f"{scheme}:///{tmp_path}/{'m.db' if scheme == 'sqlite' else 'f'}"
    with open_store(url) as store, open_checkpointer(url) as saver:
        put(store, ("users", "ana", "facts"), "k", f"Ana's secret {marker}")
        put(store, ("users", "ben", "facts"), "k", "Ben's fact")
        say(chat_graph(saver), "ana", "t-ana", f"my secret is {marker}")
        rotated = [
            p for p in tmp_path.rglob("*") if p.is_file() and marker.encode() in p.read_bytes()
        ]
        assert rotated  # the marker is on disk before the forget: the scan can see it
        forget_user(store, saver, "ana")
        left = [p for p in tmp_path.rglob("*") if p.is_file() and marker.encode() in p.read_bytes()]
        assert left == [], left
        assert store.get(("users", "ben", "facts"), "k") is not None


# Nothing comes back


def test_a_pending_background_write_does_not_restore_the_user(tmp_path):
    with open_store("memory://") as store, open_checkpointer("memory://") as saver:

        def extract(payload, config=None):
            time.sleep(0.2)  # a slow extraction, as a real model's
            uid = config["configurable"]["user_id"]
            store.put(("users", uid, "facts"), "home", {"text": payload["messages"][-2]["content"]})

        reflector = RunnableLambda(extract)
        reflector.namespace = ("users", "{user_id}", "facts")
        executor = ReflectionExecutor(reflector, store=store)
        try:
            hot = RunnableLambda(lambda *_: None)
            writer = BlendedWriter(hot, executor, after_seconds=0.3)
            writer.write("I live in Bergen", "Noted.", user_id="ana", thread_id="t1")
            _, ben = writer.write("I work at Umbrella", "ok", user_id="ben", thread_id="t2")
            report = forget_user(store, saver, "ana", writers=[writer])
            assert report["pending_writes"] == 1
            # One worker runs tasks in submit order: once ben's later write has landed, ana's
            # earlier one would have too, had the forget not cancelled it.
            ben.result(timeout=60)
            assert store.get(("users", "ben", "facts"), "home") is not None
            assert store.get(("users", "ana", "facts"), "home") is None
            assert writer._transcripts.keys() == {("ben", "t2")}
            writer.write("one more", "ok", user_id="ana", thread_id="t1")  # starts afresh
            assert writer._transcripts[("ana", "t1")][0]["content"] == "one more"
        finally:
            executor.shutdown(wait=False, cancel_futures=True)


HANGS = """
import sys
from langchain_core.runnables import RunnableLambda
from langgraph.store.memory import InMemoryStore
from langmem import ReflectionExecutor
from memlib.writers import shutdown_on_exit
reflector = RunnableLambda(lambda payload: None)
reflector.namespace = ("x",)
executor = ReflectionExecutor(reflector, store=InMemoryStore())
if sys.argv[1] == "hooked":
    shutdown_on_exit(executor)
raise RuntimeError("an error between the first cell and the last")
"""


@pytest.mark.parametrize("mode", ["plain", "hooked"])
def test_an_error_never_leaves_the_process_hanging_on_an_executor(mode, tmp_path):
    import subprocess
    import sys

    script = tmp_path / "hangs.py"
    script.write_text(HANGS)
    proc = subprocess.Popen([sys.executable, str(script), mode], stderr=subprocess.PIPE, text=True)
    try:  # the traceback comes first, then the interpreter waits for non-daemon threads
        while (line := proc.stderr.readline()) and not line.startswith("RuntimeError"):
            pass
        assert line.startswith("RuntimeError: an error"), "the script died before its raise"
        code = proc.wait(timeout=3 if mode == "plain" else 120)  # exiting takes milliseconds
    except subprocess.TimeoutExpired:
        code = None  # still running: LangMem's non-daemon worker keeps it alive
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
    assert code == (None if mode == "plain" else 1)


def test_bad_input_forget_user():
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    store = InMemoryStore()
    store.put(("users", "ana", "facts"), "k", {"text": "kept"})
    with pytest.raises(TypeError, match="store"):
        forget_user(None, InMemorySaver(), "ana")
    with pytest.raises(TypeError, match="user_id"):
        forget_user(store, InMemorySaver(), 42)
    with pytest.raises(ValueError, match="reserved"):
        forget_user(store, InMemorySaver(), "users")
    assert store.get(("users", "ana", "facts"), "k") is not None  # nothing half-done


def test_bad_input_export_user():
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    with pytest.raises(TypeError, match="store"):
        export_user("not a store", InMemorySaver(), "ana")
    with pytest.raises(ValueError, match="user_id"):
        export_user(InMemoryStore(), InMemorySaver(), "a/b")
