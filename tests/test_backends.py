"""memlib.backends: each URL scheme opens LangGraph's own saver and store, set up; errors name the
bad value; the upstream store defects it fixes stay fixed (each test fails on the plain class)."""

import asyncio
import sqlite3
import time

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.memory import InMemoryStore
from langgraph.store.postgres import PostgresStore
from langgraph.store.postgres.aio import AsyncPostgresStore
from langgraph.store.sqlite import SqliteStore
from langgraph.store.sqlite.aio import AsyncSqliteStore

from memlib import aopen_checkpointer, aopen_store, local_postgres, open_checkpointer, open_store
from memlib.backends import parse_url
from memlib.faiss_store import FaissStore


class WordEmbeddings(Embeddings):
    """Small deterministic embeddings (bag of hashed words, 8-d) so these tests stay fast."""

    dims = 8

    def _one(self, text):
        v = [0.0] * self.dims
        for w in text.lower().split():
            v[sum(map(ord, w)) % self.dims] += 1.0
        return v if any(v) else [1.0] + [0.0] * (self.dims - 1)

    def embed_documents(self, texts):
        return [self._one(t) for t in texts]

    def embed_query(self, text):
        return self._one(text)


INDEX = {"dims": WordEmbeddings.dims, "embed": WordEmbeddings(), "fields": ["text"]}


@pytest.fixture(params=["memory", "faiss", "sqlite", "postgres"])
def url(request, tmp_path):
    if request.param == "postgres":
        base = request.getfixturevalue("postgres_url")
        with open_store(base) as store:  # a fresh table per test: drop what the last one left
            store.conn.execute("TRUNCATE store CASCADE")
        with open_checkpointer(base) as saver:
            saver.conn.execute("TRUNCATE checkpoints, checkpoint_writes, checkpoint_blobs")
        return base
    return {
        "memory": "memory://",
        "faiss": f"faiss:///{tmp_path}/f",
        "sqlite": f"sqlite:///{tmp_path}/memory.db",
    }[request.param]


def test_each_scheme_opens_langgraph_classes(url):
    kinds = {
        "memory": (InMemorySaver, InMemoryStore),
        "faiss": (SqliteSaver, FaissStore),
        "sqlite": (SqliteSaver, SqliteStore),
        "postgresql": (PostgresSaver, PostgresStore),
    }[parse_url(url)[0]]
    with open_checkpointer(url) as saver, open_store(url, index=INDEX) as store:
        assert isinstance(saver, kinds[0]) and isinstance(store, kinds[1])
        store.put(("users", "ana"), "dog", {"text": "my dog is called Biscuit"})
        hits = store.search(("users", "ana"), query="dog called", limit=3)
        assert [h.key for h in hits] == ["dog"] and hits[0].score is not None
        config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
        assert saver.get_tuple(config) is None  # set up: the tables exist


def test_only_the_configured_fields_are_embedded(url):
    # SqliteStore reads index["text_fields"], not "fields": it embedded the whole JSON value
    seen = []

    def embed(texts):
        seen.extend(texts)
        return WordEmbeddings().embed_documents(texts)

    index = {"dims": WordEmbeddings.dims, "embed": embed, "fields": ["text"]}
    with open_store(url, index=index) as store:
        store.put(("users", "ana"), "k", {"text": "my dog is Biscuit", "kind": "Fact"})
    assert seen == ["my dog is Biscuit"]


def test_durable_schemes_keep_data_across_opens(url):
    if url == "memory://":
        pytest.skip("memory:// keeps nothing by design")
    with open_store(url, index=INDEX) as store:
        store.put(("users", "ben"), "k", {"text": "Ben edits in Emacs"})
    with open_store(url, index=INDEX) as store:
        assert store.get(("users", "ben"), "k").value == {"text": "Ben edits in Emacs"}


def test_vector_search_pages_past_twice_the_limit(url):
    # SqliteStore and PostgresStore truncate to about 2 * limit rows before applying offset
    with open_store(url, index=INDEX) as store:
        for i in range(30):
            store.put(("docs",), f"d{i:02}", {"text": f"guide number {i}"})
        pages = [store.search(("docs",), query="guide", limit=10, offset=o) for o in (0, 10, 20)]
        keys = [h.key for page in pages for h in page]
        if not url.startswith("faiss"):  # FaissStore's tie order: helper "faiss" owns it
            assert len(keys) == 30 and len(set(keys)) == 30, keys


@pytest.mark.parametrize("scheme", ["sqlite", "postgres"])
def test_expired_items_are_not_returned_then_swept(scheme, tmp_path, request):
    url = (
        f"sqlite:///{tmp_path}/ttl.db"
        if scheme == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    with open_store(url, index=INDEX, ttl={"refresh_on_read": False}) as store:
        written = time.monotonic()
        store.put(("t",), "short", {"text": "gone soon"}, ttl=1 / 60)  # one second
        store.put(("t",), "long", {"text": "stays"})
        found = store.get(("t",), "short")
        if time.monotonic() - written < 0.9:  # under heavy load a second may already be gone
            assert found is not None
        deadline = time.monotonic() + 60  # wait on the condition, not a fixed sleep
        while store.get(("t",), "short") is not None:
            assert time.monotonic() < deadline, "the expired item was never hidden"
            time.sleep(0.1)
        assert time.monotonic() - written >= 1.0  # not hidden before its time
        assert [h.key for h in store.search(("t",), query="gone soon")] == ["long"]
        store.sweep_ttl()
        rows = store.conn.execute("SELECT COUNT(*) FROM store WHERE key = 'short'").fetchone()
        assert (rows[0] if scheme == "sqlite" else rows["count"]) == 0


def test_ttl_refused_where_unsupported(tmp_path):
    for url in ("memory://", f"faiss:///{tmp_path}/f"):
        with pytest.raises(ValueError, match="does not support TTL"):
            with open_store(url, ttl={"default_ttl": 1}):
                pass


def test_sqlite_delete_removes_vectors_and_failed_batch_rolls_back(tmp_path):
    url = f"sqlite:///{tmp_path}/m.db"
    with open_store(url, index=INDEX) as store:
        store.put(("a",), "x", {"text": "one"})
        store.delete(("a",), "x")
        assert store.conn.execute("SELECT COUNT(*) FROM store_vectors").fetchone()[0] == 0
        with pytest.raises(ValueError, match="NaN"):
            store.put(("a",), "y", {"text": "two", "n": float("nan")})
        assert store.get(("a",), "y") is None
        # upstream's cursor COMMITs in `finally`, so a batch failing half-way kept its first half
        with pytest.raises(RuntimeError):
            with store._cursor() as cur:
                cur.execute("INSERT INTO store (prefix, key, value) VALUES ('a', 'z', '{}')")
                raise RuntimeError("a later statement of the batch fails")
        assert store.get(("a",), "z") is None


def test_two_processes_worth_of_connections_share_one_sqlite_file(tmp_path):
    url = f"sqlite:///{tmp_path}/shared.db"
    with open_store(url) as a, open_store(url) as b:
        a.put(("n",), "1", {"v": 1})
        b.put(("n",), "2", {"v": 2})
        assert {i.key for i in a.search(("n",))} == {"1", "2"}


class _StaleVersionRead:
    """A connection whose first read of the migration version returns what it read, but only
    after `winner` (another process, in effect) has set the same file up: the race of two
    processes opening a new SQLite store at once, made deterministic."""

    def __init__(self, conn, winner):
        self._conn, self._winner = conn, winner

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def execute(self, sql, *args):
        cursor = self._conn.execute(sql, *args)
        if "FROM store_migrations" not in sql or self._winner is None:
            return cursor
        row, winner, self._winner = cursor.fetchone(), self._winner, None
        winner()
        return type("Stale", (), {"fetchone": lambda self: row})()


def test_processes_opening_a_new_sqlite_store_at_once_both_set_it_up(tmp_path):
    from memlib.backends import _sqlite_connect, _sqlite_store_class

    def other_process(path):
        return lambda: open_store(f"sqlite:///{path}").__enter__().conn.close()

    upstream = SqliteStore(
        _StaleVersionRead(_sqlite_connect(f"{tmp_path}/a.db"), other_process(f"{tmp_path}/a.db"))
    )
    with pytest.raises(Exception, match="UNIQUE constraint failed: store_migrations.v"):
        upstream.setup()  # LangGraph's own: the loser of the race fails
    ours = _sqlite_store_class()(
        _StaleVersionRead(_sqlite_connect(f"{tmp_path}/b.db"), other_process(f"{tmp_path}/b.db"))
    )
    ours.setup()  # reads the version again and goes on
    ours.put(("n",), "1", {"v": 1})
    with open_store(f"sqlite:///{tmp_path}/b.db") as again:
        assert again.get(("n",), "1").value == {"v": 1}


def test_async_forms(url):
    async def main():
        async with aopen_checkpointer(url) as saver, aopen_store(url, index=INDEX) as store:
            await store.aput(("users", "ana"), "k", {"text": "lives in Porto"})
            hits = await store.asearch(("users", "ana"), query="Porto")
            config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
            return saver, store, hits, await saver.aget_tuple(config)

    saver, store, hits, none = asyncio.run(main())
    assert [h.key for h in hits] == ["k"] and none is None
    scheme = parse_url(url)[0]
    if scheme == "postgresql":
        assert isinstance(saver, AsyncPostgresSaver) and isinstance(store, AsyncPostgresStore)
    if scheme in ("sqlite", "faiss"):
        assert isinstance(saver, AsyncSqliteSaver)
    if scheme == "sqlite":
        assert isinstance(store, AsyncSqliteStore)


def test_sqlite_url_paths(tmp_path):
    assert parse_url("sqlite:///build/x.db") == ("sqlite", "build/x.db")
    assert parse_url("sqlite:////tmp/x.db") == ("sqlite", "/tmp/x.db")
    assert parse_url("postgres://u@h/db") == ("postgresql", "postgresql://u@h/db")
    assert parse_url("memory://") == ("memory", "")


BAD_URLS = ["", "memory", "redis://localhost", "sqlite://", "sqlite:///", "memory://x", "faiss:/d"]


def _enter(opener, url, asynchronous):
    if not asynchronous:
        with opener(url):
            pass
        return

    async def go():
        async with opener(url):
            pass

    asyncio.run(go())


def _bad_url_raises(opener, asynchronous=False):
    for bad in BAD_URLS:
        with pytest.raises(ValueError, match="URL"):
            _enter(opener, bad, asynchronous)
    with pytest.raises(TypeError, match="42"):
        _enter(opener, 42, asynchronous)


def test_bad_input_open_checkpointer():
    _bad_url_raises(open_checkpointer)


def test_bad_input_open_store(tmp_path):
    _bad_url_raises(open_store)
    url = f"sqlite:///{tmp_path}/m.db"
    with pytest.raises(ValueError, match="dims"):
        with open_store(url, index={"dims": 0, "embed": WordEmbeddings()}):
            pass
    with pytest.raises(TypeError, match="ttl"):
        with open_store(url, ttl=5):
            pass


def test_bad_input_aopen_checkpointer():
    _bad_url_raises(aopen_checkpointer, asynchronous=True)


def test_bad_input_aopen_store():
    _bad_url_raises(aopen_store, asynchronous=True)


def test_bad_input_local_postgres(tmp_path):
    with pytest.raises(TypeError, match="None"):
        with local_postgres(None):
            pass
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        with local_postgres(tmp_path / "file"):
            pass


def test_sqlite_checkpointer_is_plain_sqlite(tmp_path):
    url = f"sqlite:///{tmp_path}/c.db"
    with open_checkpointer(url) as saver:
        assert saver.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert sqlite3.connect(tmp_path / "c.db").execute("SELECT COUNT(*) FROM checkpoints")


def test_postgres_search_in_a_small_namespace_of_a_large_table_is_full(postgres_url):
    # PostgresStore ordered by the pgvector operator, so the table-wide HNSW index returned its
    # 40 nearest rows before the namespace filter: most searches came back short
    import random

    from langgraph.store.base import PutOp

    rng = random.Random(0)
    texts = [f"t{i}" for i in range(2000)]
    vectors = {t: [rng.gauss(0, 1) for _ in range(WordEmbeddings.dims)] for t in texts}
    index = {
        "dims": WordEmbeddings.dims,
        "embed": lambda ts: [vectors[t] for t in ts],
        "fields": ["text"],
    }
    with open_store(postgres_url, index=index) as store:
        store.conn.execute("TRUNCATE store CASCADE")
        ops = [PutOp(("big", f"n{i % 40}"), f"k{i}", {"text": t}) for i, t in enumerate(texts)]
        store.batch(ops)
        counts = [
            len(store.search(("big", f"n{j}"), query=texts[(j * 37) % 2000], limit=5))
            for j in range(20)
        ]
    assert counts == [5] * 20, counts


ASYNC_USERS = r"""
import asyncio, os, sys
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict
from memlib.backends import aopen_store
sys.path.insert(0, os.path.dirname(sys.argv[2]))
from test_backends import INDEX

class S(TypedDict):
    user: str
    hits: int

def search(state, *, store):  # a sync node, as in memlib.agent: LangGraph runs it in a thread
    return {"hits": len(store.search(("users", state["user"]), query="dog"))}

async def main(url, n):
    async with aopen_store(url, index=INDEX) as store:
        for i in range(n):
            await store.aput(("users", f"u{i}"), "dog", {"text": f"dog number {i}"})
        graph = StateGraph(S).add_node("search", search).add_edge(START, "search").compile(store=store)
        states = await asyncio.gather(*(graph.ainvoke({"user": f"u{i}"}) for i in range(n)))
    print(sum(s["hits"] for s in states))

asyncio.run(main(sys.argv[1], 3 * (os.cpu_count() or 1) + 8))
"""


def test_async_store_serves_more_users_than_threads(postgres_url, tmp_path):
    # an embedder without async code ran in the loop's default pool, which the sync nodes fill:
    # with more users than threads, every thread waited on an embedding queued behind them
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "users.py"
    script.write_text(ASYNC_USERS)
    try:
        done = subprocess.run(
            [sys.executable, str(script), postgres_url, str(Path(__file__))],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("deadlock: concurrent ainvoke calls on AsyncPostgresStore never finished")
    assert done.returncode == 0, done.stderr[-2000:]
    users = 3 * (__import__("os").cpu_count() or 1) + 8
    assert int(done.stdout.split()[-1]) == users


def test_checkpointer_and_store_share_one_sqlite_file_safely(tmp_path):
    # the store needs pysqlite3 (sqlite-vec); a checkpointer on the standard sqlite3 module is a
    # second SQLite library in the process, blind to the first one's locks: writes from two
    # threads corrupted the file ("database disk image is malformed")
    import threading

    from langgraph.checkpoint.base import empty_checkpoint

    url = f"sqlite:///{tmp_path}/shared.db"
    with open_store(url) as store, open_checkpointer(url) as saver:

        def puts():
            for i in range(200):
                store.put(("n",), f"k{i}", {"v": i})

        def checkpoints():
            for i in range(200):
                config = {"configurable": {"thread_id": f"t{i % 5}", "checkpoint_ns": ""}}
                saver.put(config, empty_checkpoint(), {"source": "input", "step": i}, {})

        threads = [threading.Thread(target=puts), threading.Thread(target=checkpoints)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    with open_store(url) as store, open_checkpointer(url) as saver:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert len(store.search(("n",), limit=1000)) == 200
        assert len(list(saver.list({"configurable": {"thread_id": "t0"}}))) == 40


def test_local_postgres_stops_after_a_process_died_holding_it(tmp_path):
    # pgserver stops the server when the last pid in .handle_pids.json lets go; a killed kernel
    # stayed listed, so every later run left its server running
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    data = tmp_path / "pg"
    with local_postgres(data):
        pass
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    (data / ".handle_pids.json").write_text(json.dumps([int(dead.stdout)]))
    try:
        with local_postgres(data) as url, open_store(url) as store:
            store.put(("n",), "k", {"v": 1})
        # the server removes its pid file as it exits: wait for that, with a deadline, not a sleep
        deadline = time.monotonic() + 60
        while (data / "postmaster.pid").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not (data / "postmaster.pid").exists(), "the server was left running"
    finally:
        if (data / "postmaster.pid").exists():  # stop it ourselves
            os.kill(int((data / "postmaster.pid").read_text().split()[0]), signal.SIGTERM)


@pytest.mark.parametrize("scheme", ["sqlite", "postgres"])
def test_the_memory_agent_serves_concurrent_users_their_own_memories(scheme, own_store_url):
    # notebook 10 used to show this: 8 users, each with a different dog, ask the 09 agent at once
    # on one event loop through the async saver and store; each reply names their own dog only
    from langchain_core.messages import HumanMessage

    from memlib import build_memory_agent, get_chat_model
    from memlib.procedural import create_prompt

    url = own_store_url(scheme, "memlib_concurrent_agent_users")
    index = {"dims": WordEmbeddings.dims, "embed": WordEmbeddings(), "fields": ["content.content"]}
    dogs = {
        f"user{i}": name for i, name in enumerate("Rex Bella Max Luna Milo Coco Toby Daisy".split())
    }

    with open_store(url, index=index) as store:  # the agent's prompt (08), written before
        create_prompt(store, "assistant", "Answer from the memory below.", author="test")

    async def main():
        async with aopen_store(url, index=index) as store, aopen_checkpointer(url) as saver:
            for user, dog in dogs.items():
                fact = {"kind": "Fact", "content": {"content": f"User's dog's name is {dog}."}}
                await store.aput(("users", user, "facts"), "dog", fact)
            graph = build_memory_agent(get_chat_model(), store, saver, agent="assistant", k=3)
            asks = [
                graph.ainvoke(
                    {"messages": [HumanMessage("What is my dog called?")]},
                    {"configurable": {"user_id": user, "thread_id": f"{user}-async"}},
                )
                for user in dogs
            ]
            states = await asyncio.wait_for(asyncio.gather(*asks), 120)
            return saver, store, states

    saver, store, states = asyncio.run(main())
    kinds = {
        "sqlite": (AsyncSqliteSaver, AsyncSqliteStore),
        "postgres": (AsyncPostgresSaver, AsyncPostgresStore),
    }[scheme]
    assert isinstance(saver, kinds[0]) and isinstance(store, kinds[1]), (saver, store)
    for (user, dog), state in zip(dogs.items(), states, strict=True):
        reply = state["messages"][-1].content.lower()
        named = {d for d in dogs.values() if d.lower() in reply}
        assert named == {dog}, (user, state["messages"][-1].content)
