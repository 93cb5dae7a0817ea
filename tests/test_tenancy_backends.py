"""memlib.backends, the tenancy issue: one user's namespace never reaches another's items, on
every backend. Filters are checked before they reach a backend (the same TypeError / ValueError
everywhere), URLs are normalised before anything is created, memory:// forgets empty namespaces,
a batch of two puts with the same text works, and deleted text leaves no trace in SQLite files."""

import asyncio
import os

import pytest
from langgraph.store.base import PutOp, SearchOp
from test_backends import INDEX

from memlib import open_checkpointer, open_store
from memlib.backends import parse_url, sqlite_scrub

MARKER = "zq-marker-8841"
VICTIM = ("users", "ana", "facts")


@pytest.fixture(params=["memory", "faiss", "sqlite", "postgres"])
def url(request, tmp_path):
    if request.param == "postgres":
        base = request.getfixturevalue("postgres_url")
        with open_store(base) as store:  # a fresh table per test: drop what the last one left
            store.conn.execute("TRUNCATE store CASCADE")
        return base
    return {
        "memory": "memory://",
        "faiss": f"faiss:///{tmp_path}/f",
        "sqlite": f"sqlite:///{tmp_path}/memory.db",
    }[request.param]


# Hostile namespace labels (what already holds: kept as a regression suite)

HOSTILE_LABELS = [
    "%",
    "_",
    "*",
    "?",
    "[a]",
    "[!a]",
    "'",
    '"',
    "\\",
    "ana%",
    "an_",
    "%na",
    "a*",
    "an?",
    "ana' OR '1'='1",
    "\u0430na",  # Cyrillic a, then Latin "na"
    "\uff41\uff4e\uff41",  # fullwidth "ana"
    "ANA",
    "ana ",
    "a" * 5000,
]


def test_hostile_namespace_labels_never_reach_another_users_items(url):
    with open_store(url, index=INDEX) as store:
        store.put(VICTIM, "k1", {"text": "ana's dog is called Biscuit"})
        store.put(VICTIM, "k2", {"text": "ana lives in Porto"})
        for label in HOSTILE_LABELS:
            ns = ("users", label, "facts")
            shown = repr(label[:20])
            assert store.search(ns) == [], shown
            assert store.search(ns, query="dog called Biscuit") == [], shown
            assert store.search(("users", label)) == [], shown
            # "*" in a list_namespaces prefix is LangGraph's documented wildcard: it lists every
            # user's namespace names (never items), on every backend; left as LangGraph has it
            listable = label != "*"
            if listable:
                assert store.list_namespaces(prefix=("users", label)) == [], shown
            assert store.get(ns, "k1") is None, shown
            store.delete(ns, "k1")
            assert store.get(VICTIM, "k1") is not None, shown
            # the hostile user's own item stays in its namespace and out of the victim's
            store.put(ns, "k1", {"text": "intruder dog called Biscuit"})
            assert store.get(VICTIM, "k1").value["text"].startswith("ana"), shown
            assert [h.namespace for h in store.search(ns, query="dog")] == [ns], shown
            if listable:
                assert store.list_namespaces(prefix=("users", label)) == [ns], shown
            victim_view = store.search(("users", "ana"), query="dog called Biscuit", limit=10)
            assert {(h.namespace, h.key) for h in victim_view} == {(VICTIM, "k1"), (VICTIM, "k2")}
            assert store.list_namespaces(prefix=("users", "ana")) == [VICTIM], shown
            store.delete(ns, "k1")
            assert store.get(ns, "k1") is None, shown
        assert {h.key for h in store.search(VICTIM)} == {"k1", "k2"}
        assert store.list_namespaces(prefix=("users",)) == [VICTIM]


# 1. Filters checked before they reach a backend

BAD_FILTERS = [
    (["kind"], TypeError, "kind"),
    ("kind", TypeError, "kind"),
    (("kind", "fact"), TypeError, "fact"),
    ({1: "fact"}, TypeError, "1"),
    ({"kind": object()}, TypeError, "object"),
    ({"kind": {"fact"}}, TypeError, "fact"),
    ({"kind": [{"a": 1}]}, TypeError, "'a'"),
    ({"kind": "fa\x00ct"}, ValueError, "NUL"),
    ({"ki\x00nd": "fact"}, ValueError, "NUL"),
    ({"kind": {"$eq": "fa\x00ct"}}, ValueError, "NUL"),
    ({"kind": ["fact", "x\x00"]}, ValueError, "NUL"),
    ({"kind": "\ud800"}, ValueError, "Unicode"),
    ({"kind": {"$regex": "f.*"}}, ValueError, r"\$regex"),
    ({"kind": {"$in": ["fact"]}}, ValueError, r"\$in"),
    ({"meta": {"lang": "en"}}, ValueError, "lang"),
    ({"n": float("nan")}, ValueError, "nan"),
    ({"n": {"$gt": float("inf")}}, ValueError, "inf"),
]


def test_bad_filters_raise_the_same_error_on_every_backend(url):
    with open_store(url, index=INDEX) as store:
        store.put(("docs",), "a", {"text": "one", "kind": "fact", "n": 1, "tags": ["x", "y"]})
        store.put(("docs",), "b", {"text": "two", "kind": "fact", "n": 3, "tags": ["y"]})
        store.put(("docs",), "c", {"text": "three", "kind": "note", "n": 5})
        for bad, error, words in BAD_FILTERS:
            for query in (None, "one"):
                with pytest.raises(error, match=words):
                    store.search(("docs",), query=query, filter=bad)
            with pytest.raises(error, match=words):
                store.batch([SearchOp(("docs",), filter=bad)])
            with pytest.raises(error, match=words):
                asyncio.run(store.abatch([SearchOp(("docs",), filter=bad)]))
        # good filters still work, the same on every backend
        keys = lambda hits: sorted(h.key for h in hits)  # noqa: E731
        assert keys(store.search(("docs",), filter={"kind": "fact"})) == ["a", "b"]
        assert keys(store.search(("docs",), filter={"n": {"$gte": 3, "$lt": 5}})) == ["b"]
        assert keys(store.search(("docs",), filter={"kind": {"$ne": "fact"}})) == ["c"]
        assert keys(store.search(("docs",), filter={"tags": ["x", "y"]})) == ["a"]
        assert keys(store.search(("docs",), query="two", filter={"n": 3, "kind": "fact"})) == ["b"]
        assert keys(store.search(("docs",), filter={})) == ["a", "b", "c"]


# 2. URLs normalised before anything is created


def test_url_paths_are_normalised(tmp_path):
    assert parse_url("sqlite:///sub/../in.db") == ("sqlite", "in.db")
    assert parse_url("sqlite:////tmp/a/./b/../c.db") == ("sqlite", "/tmp/a/c.db")
    assert parse_url("faiss:///x//y/../f/") == ("faiss", "x/f")
    assert parse_url("sqlite:///:memory:") == ("sqlite", ":memory:")
    for url in (f"sqlite:///{tmp_path}/sub/../in.db", f"faiss:///{tmp_path}/sub/../f"):
        with open_store(url, index=INDEX) as store, open_checkpointer(url):
            store.put(("a",), "k", {"text": "hello"})
        made = set(os.listdir(tmp_path))
        assert made <= {"in.db", "in.db-wal", "in.db-shm", "f"} and "sub" not in made, made
        with open_store(url, index=INDEX) as store:  # the same target, reopened
            assert store.get(("a",), "k").value == {"text": "hello"}


def test_faiss_memory_is_refused_and_sqlite_memory_creates_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for opener in (open_store, open_checkpointer):
        with pytest.raises(ValueError, match="memory://"):
            with opener("faiss:///:memory:"):
                pass
    with open_store("sqlite:///:memory:", index=INDEX) as store:
        store.put(("a",), "k", {"text": "in memory"})
        assert [h.key for h in store.search(("a",), query="in memory")] == ["k"]
    with open_checkpointer("sqlite:///:memory:") as saver:
        config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
        assert saver.get_tuple(config) is None
    assert os.listdir(tmp_path) == []


# 3. memory:// forgets empty namespaces


def test_empty_namespaces_are_not_listed(url):
    with open_store(url, index=INDEX) as store:
        store.put(VICTIM, "k", {"text": "ana likes tea"})
        store.put(("users", "ben", "facts"), "k", {"text": "ben likes coffee"})
        store.delete(VICTIM, "k")
        assert store.list_namespaces() == [("users", "ben", "facts")]
        assert store.list_namespaces(prefix=("users", "ana")) == []
        assert store.get(("nobody",), "k") is None
        store.delete(("ghost",), "k")
        assert store.search(("void",), query="tea") == []
        assert store.list_namespaces() == [("users", "ben", "facts")]
        assert store.list_namespaces(max_depth=2) == [("users", "ben")]
        store.put(VICTIM, "k2", {"text": "ana is back"})  # the namespace comes back with an item
        assert store.list_namespaces(prefix=("users", "ana")) == [VICTIM]
        if url == "memory://":  # and no entry was created for the unknown namespaces
            assert set(store._data) == {VICTIM, ("users", "ben", "facts")}
            assert set(store._vectors) <= {VICTIM, ("users", "ben", "facts")}


# 4. A batch of two puts with the same indexed text


def test_a_batch_of_two_puts_with_the_same_text(url):
    with open_store(url, index=INDEX) as store:
        store.batch(
            [
                PutOp(("a",), "k1", {"text": "same words"}),
                PutOp(("a",), "k2", {"text": "same words"}),
                PutOp(("b",), "k3", {"text": "same words"}),
            ]
        )
        hits = store.search(("a",), query="same words")
        assert sorted(h.key for h in hits) == ["k1", "k2"]
        assert hits[0].score is not None and hits[0].score == pytest.approx(hits[1].score)
        assert [h.key for h in store.search(("b",), query="same words")] == ["k3"]
        store.delete(("a",), "k1")
        assert [h.key for h in store.search(("a",), query="same words")] == ["k2"]


# 5. Deleted text leaves no trace in SQLite files


def _files_holding(directory, text):
    found = []
    for root, _, files in os.walk(directory):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                if text.encode() in f.read():
                    found.append(name)
    return found


@pytest.mark.parametrize("scheme", ["sqlite", "faiss"])
def test_a_deleted_item_leaves_no_trace_in_the_files(scheme, tmp_path):
    url = f"{scheme}:///{tmp_path}/db/" + ("m.db" if scheme == "sqlite" else "f")
    with open_store(url, index=INDEX) as store:
        for i in range(20):  # neighbours on the same pages
            store.put(("users", "ben"), f"n{i}", {"text": f"ben note {i}"})
        store.put(("users", "ana"), "secret", {"text": f"my code word is {MARKER}"})
        assert _files_holding(tmp_path / "db", MARKER)  # the scan sees it while it is stored
        store.delete(("users", "ana"), "secret")
        if hasattr(store, "conn"):  # FaissStore rewrites its files on each save
            sqlite_scrub(store.conn)
        assert _files_holding(tmp_path / "db", MARKER) == []
        assert len(store.search(("users", "ben"), limit=100)) == 20


@pytest.mark.parametrize("scheme", ["sqlite", "faiss"])
def test_a_deleted_thread_leaves_no_trace_in_the_files(scheme, tmp_path):
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import START, MessagesState, StateGraph

    def reply(state):
        return {"messages": [AIMessage("noted")]}

    builder = StateGraph(MessagesState).add_node("reply", reply).add_edge(START, "reply")
    url = f"{scheme}:///{tmp_path}/db/" + ("c.db" if scheme == "sqlite" else "f")
    with open_checkpointer(url) as saver:
        graph = builder.compile(checkpointer=saver)
        for thread in ("ben", "ana", "cy"):
            text = f"my code word is {MARKER}" if thread == "ana" else f"hello from {thread}"
            graph.invoke(
                {"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread}}
            )
        assert _files_holding(tmp_path / "db", MARKER)
        saver.delete_thread("ana")
        sqlite_scrub(saver.conn)
        assert _files_holding(tmp_path / "db", MARKER) == []
        assert graph.get_state({"configurable": {"thread_id": "ana"}}).values == {}
        ben = graph.get_state({"configurable": {"thread_id": "ben"}}).values
        assert [m.content for m in ben["messages"]] == ["hello from ben", "noted"]


def test_sqlite_scrub_refuses_an_open_transaction(tmp_path):
    with open_store(f"sqlite:///{tmp_path}/m.db") as store:
        store.conn.execute("BEGIN")
        with pytest.raises(RuntimeError, match="transaction"):
            sqlite_scrub(store.conn)
        store.conn.execute("ROLLBACK")
        sqlite_scrub(store.conn)
