"""memlib.backends keeps LangGraph's store contract (#23): `aopen_store("sqlite:///...")` is an
`AsyncSqliteStore` (its calls run off the event loop, sync calls on the loop are refused), the
caller's embedder stays the caller's (`store.embeddings`, `store.index_config["embed"]`) while
vectors are still checked, and the bundled PostgreSQL's pgvector is what the docs say (0.6.2: no
`halfvec`)."""

import asyncio
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
from langgraph.store.base import PutOp
from langgraph.store.sqlite.aio import AsyncSqliteStore
from test_backends import WordEmbeddings

from memlib import aopen_store, open_store
from memlib.backends import parse_url


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


# The caller's embedder


def _embed_function(texts):
    return WordEmbeddings().embed_documents(texts)


def _bad_embed(texts):
    """WordEmbeddings, except 'NaN!' embeds to NaN and 'short!' to a 3-d vector."""
    out = []
    for text, v in zip(texts, _embed_function(texts), strict=True):
        if "NaN!" in text:
            v = [float("nan")] * WordEmbeddings.dims
        elif "short!" in text:
            v = v[:3]
        out.append(v)
    return out


class _BadEmbeddings(WordEmbeddings):
    def embed_documents(self, texts):
        return _bad_embed(texts)

    def embed_query(self, text):
        return _bad_embed([text])[0]


def _exposed(store):
    return store.embeddings, store.index_config["embed"]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_the_store_exposes_the_callers_embedder(url, asynchronous):
    # the stores exposed a CheckedEmbeddings wrapper instead: `store.embeddings is embedder` and
    # `store.index_config["embed"] == embedder` were False, on every backend, sync and async
    embedder = WordEmbeddings()
    index = {"dims": WordEmbeddings.dims, "embed": embedder, "fields": ["text"]}
    func_index = {**index, "embed": _embed_function}
    if asynchronous:

        async def main():
            async with aopen_store(url, index=index) as store:
                got = _exposed(store)
                await store.aput(("u",), "k", {"text": "my dog Rex"})
                hits = await store.asearch(("u",), query="dog Rex")
            async with aopen_store(url, index=func_index) as store:
                return got, hits, _exposed(store)

        got, hits, func_got = asyncio.run(main())
    else:
        with open_store(url, index=index) as store:
            got = _exposed(store)
            store.put(("u",), "k", {"text": "my dog Rex"})
            hits = store.search(("u",), query="dog Rex")
        with open_store(url, index=func_index) as store:
            func_got = _exposed(store)
    assert got[0] is embedder and got[1] is embedder, got
    assert [h.key for h in hits] == ["k"]
    # a function is wrapped by LangGraph itself (EmbeddingsLambda), as upstream does; the config
    # keeps the function
    assert func_got[1] is _embed_function, func_got
    assert getattr(func_got[0], "func", None) is _embed_function, func_got


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_vectors_are_still_checked_with_the_callers_embedder(url, asynchronous):
    embedder = _BadEmbeddings()
    index = {"dims": WordEmbeddings.dims, "embed": embedder, "fields": ["text"]}
    bad = [({"text": "vector is NaN!"}, "NaN"), ({"text": "vector is short!"}, "3")]

    async def amain():
        async with aopen_store(url, index=index) as store:
            await store.aput(("u",), "keep", {"text": "fine"})
            for value, named in bad:
                with pytest.raises(ValueError, match=named):
                    await store.aput(("u",), "bad", value)
                with pytest.raises(ValueError, match=named):
                    await store.asearch(("u",), query=value["text"])
            assert store.embeddings is embedder
            return [i.key for i in await store.asearch(("u",))]

    if asynchronous:
        keys = asyncio.run(amain())
    else:
        with open_store(url, index=index) as store:
            store.put(("u",), "keep", {"text": "fine"})
            for value, named in bad:
                with pytest.raises(ValueError, match=named):
                    store.put(("u",), "bad", value)
                with pytest.raises(ValueError, match=named):
                    store.search(("u",), query=value["text"])
            assert store.embeddings is embedder
            keys = [i.key for i in store.search(("u",))]
    assert keys == ["keep"]


# The async SQLite store


DIMS = 16
BIG = 20_000  # rows in the table a search scores: long enough to see the loop stall


def _big_index(seed=0):
    rng = random.Random(seed)
    cache = {}

    def embed(texts):
        return [cache.setdefault(t, [rng.gauss(0, 1) for _ in range(DIMS)]) for t in texts]

    return {"dims": DIMS, "embed": embed, "fields": ["text"]}


async def _ticking(call):
    """Await call() while a ticker sleeps 5 ms at a time: (seconds, ticks, longest gap in s)."""
    stamps, done = [], False

    async def ticker():
        while not done:
            stamps.append(time.perf_counter())
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)  # the ticker is running
    started = time.perf_counter()
    result = await call()
    finished = time.perf_counter()
    done = True
    await task
    during = [started] + [s for s in stamps if started <= s <= finished] + [finished]
    gaps = [b - a for a, b in zip(during, during[1:], strict=False)]
    return finished - started, len(during) - 2, max(gaps), result


def test_aopen_store_sqlite_never_blocks_the_event_loop(tmp_path):
    url = f"sqlite:///{tmp_path}/big.db"
    index = _big_index()
    ops = [PutOp(("bench", f"u{i % 10}"), f"m{i}", {"text": f"memory {i}"}) for i in range(BIG)]
    with open_store(url, index=index) as store:
        store.batch(ops)

    def search(store):
        # every row is scored (no truncation before offset): a long vector search
        return store.asearch(("bench",), query="memory 7", limit=10, offset=500)

    async def main():
        async with aopen_store(url, index=index) as store:
            assert isinstance(store, AsyncSqliteStore), type(store).__mro__
            searched = await _ticking(lambda: search(store))
            puts = [PutOp(("bench", "new"), f"n{i}", {"text": f"new {i}"}) for i in range(3000)]
            batched = await _ticking(lambda: store.abatch(puts))
            # LangGraph's async store refuses a sync call on the loop's own thread (it would block)
            with pytest.raises(asyncio.InvalidStateError):
                store.search(("bench",), query="memory 7")
            with pytest.raises(asyncio.InvalidStateError):
                store.put(("bench",), "x", {"text": "blocked"})
        with open_store(url, index=index) as sync:  # the sync store, called on the loop thread

            async def blocking():
                return sync.search(("bench",), query="memory 7", limit=10, offset=500)

            blocked = await _ticking(blocking)
        return searched, batched, blocked

    searched, batched, blocked = asyncio.run(main())
    assert len(searched[3]) == 10
    # Conditions, not timings: a sync call on the loop thread lets no tick through at all, while
    # the async store's search and a 3,000-put batch run their SQL in aiosqlite's thread, so the
    # ticker gets the loop during both (36 to 54 ticks in 0.24 to 0.36 s measured on an idle
    # machine; at least one however loaded the machine is).
    assert blocked[1] == 0, blocked[:3]
    assert searched[1] >= 1, searched[:3]
    assert batched[1] >= 1, batched[:3]


def test_async_sqlite_store_does_not_wait_for_the_default_thread_pool(tmp_path):
    # under ainvoke the graph's sync nodes fill the loop's default pool; the sync store's abatch
    # ran in that pool, so every async store call waited for a node to finish
    url = f"sqlite:///{tmp_path}/pool.db"
    index = {"dims": WordEmbeddings.dims, "embed": WordEmbeddings(), "fields": ["text"]}

    async def main():
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(max_workers=1))
        release = threading.Event()
        async with aopen_store(url, index=index) as store:
            # the pool's only thread is held until the store calls are done: a store that needed
            # that pool would wait forever (here: until the 120 s deadline), whatever the load
            busy = loop.run_in_executor(None, release.wait)
            try:
                put = store.aput(("u",), "k", {"text": "dog called Rex"})
                await asyncio.wait_for(put, timeout=120)
                hits = await asyncio.wait_for(store.asearch(("u",), query="Rex"), timeout=120)
                held = not busy.done()  # the pool thread was still held throughout
            finally:
                release.set()
                await busy
        return held, hits

    held, hits = asyncio.run(main())
    assert [h.key for h in hits] == ["k"]
    assert held, "the store calls finished only after the default pool's thread was released"


def test_async_sqlite_store_keeps_the_sync_stores_fixes(tmp_path):
    url = f"sqlite:///{tmp_path}/fixes.db"
    seen = []

    def embed(texts):
        seen.extend(texts)
        return WordEmbeddings().embed_documents(texts)

    index = {"dims": WordEmbeddings.dims, "embed": embed, "fields": ["text"]}

    async def main():
        async with aopen_store(url, index=index, ttl={"refresh_on_read": False}) as store:
            conn = store.conn
            pragmas = {}
            for name in ("journal_mode", "foreign_keys", "secure_delete", "busy_timeout"):
                async with conn.execute(f"PRAGMA {name}") as cur:
                    pragmas[name] = (await cur.fetchone())[0]
            # "fields" is embedded, not the whole value
            await store.aput(("users", "ana"), "k", {"text": "my dog is Biscuit", "kind": "Fact"})
            # pages past 2 * limit, ties in a stable order
            await store.abatch(
                [PutOp(("docs",), f"d{i:02}", {"text": f"guide number {i}"}) for i in range(30)]
            )
            pages = [
                await store.asearch(("docs",), query="guide", limit=10, offset=o)
                for o in (0, 10, 20)
            ]
            again = await store.asearch(("docs",), query="guide", limit=10, offset=10)
            # expired items are not returned, then swept
            await store.aput(("t",), "short", {"text": "gone soon"}, ttl=1 / 60)
            await store.aput(("t",), "long", {"text": "stays"})
            deadline = time.monotonic() + 60
            while await store.aget(("t",), "short") is not None:
                assert time.monotonic() < deadline, "the expired item was never hidden"
                await asyncio.sleep(0.1)
            listed = [h.key for h in await store.asearch(("t",), query="gone soon")]
            async with conn.execute("SELECT COUNT(*) FROM store WHERE key = 'short'") as cur:
                rows_left = (await cur.fetchone())[0]
            # a delete drops the vectors (foreign keys on)
            await store.adelete(("users", "ana"), "k")
            async with conn.execute("SELECT COUNT(*) FROM store_vectors WHERE key = 'k'") as cur:
                vectors_left = (await cur.fetchone())[0]
            # input checks run on the batch: nothing of a bad batch is written
            with pytest.raises(ValueError, match="NaN"):
                await store.abatch(
                    [
                        PutOp(("a",), "ok", {"text": "fine"}),
                        PutOp(("a",), "bad", {"text": "x", "n": float("nan")}),
                    ]
                )
            with pytest.raises(ValueError, match="label"):
                await store.abatch([PutOp(("a.b",), "k", {"text": "dot in a label"})])
            with pytest.raises(TypeError, match="filter"):
                await store.asearch(("a",), filter=["kind"])
            ok = await store.aget(("a",), "ok")
            # a batch failing half-way is rolled back, not committed
            with pytest.raises(RuntimeError):
                async with store._cursor() as cur:
                    await cur.execute(
                        "INSERT INTO store (prefix, key, value) VALUES ('a', 'z', '{}')"
                    )
                    raise RuntimeError("a later statement of the batch fails")
            half = await store.aget(("a",), "z")
            module = type(conn._conn).__module__
            return pragmas, pages, again, listed, rows_left, vectors_left, ok, half, module

    pragmas, pages, again, listed, rows_left, vectors_left, ok, half, module = asyncio.run(main())
    assert pragmas == {
        "journal_mode": "wal",
        "foreign_keys": 1,
        "secure_delete": 1,
        "busy_timeout": 30_000,
    }, pragmas
    assert "my dog is Biscuit" in seen and not any("Fact" in t for t in seen), seen
    keys = [h.key for page in pages for h in page]
    assert len(keys) == 30 and len(set(keys)) == 30, keys
    assert [h.key for h in again] == [h.key for h in pages[1]]
    assert listed == ["long"] and rows_left == 0
    assert vectors_left == 0
    assert ok is None and half is None
    assert module.split(".")[0] in ("pysqlite3", "sqlite3"), module


def test_async_sqlite_store_serves_sync_nodes_from_worker_threads(tmp_path):
    # LangGraph's sync nodes run in worker threads under ainvoke and reach the async store
    # through the loop (AsyncBatchedBaseStore): that path must work on sqlite:// too
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    class S(TypedDict):
        user: str
        hits: int

    def search(state, *, store):
        return {"hits": len(store.search(("users", state["user"]), query="dog"))}

    url = f"sqlite:///{tmp_path}/users.db"
    index = {"dims": WordEmbeddings.dims, "embed": WordEmbeddings(), "fields": ["text"]}
    users = 3 * (os.cpu_count() or 1) + 8

    async def main():
        async with aopen_store(url, index=index) as store:
            for i in range(users):
                await store.aput(("users", f"u{i}"), "dog", {"text": f"dog number {i}"})
            graph = (
                StateGraph(S)
                .add_node("search", search)
                .add_edge(START, "search")
                .compile(store=store)
            )
            states = await asyncio.wait_for(
                asyncio.gather(*(graph.ainvoke({"user": f"u{i}"}) for i in range(users))), 60
            )
        return [s["hits"] for s in states]

    assert asyncio.run(main()) == [1] * users


# The bundled PostgreSQL


def test_bundled_pgvector_has_no_halfvec(postgres_url):
    # local_postgres (the pgserver wheel) ships pgvector 0.6.2; halfvec came in 0.7.0. The README
    # and docs/backends.md say so: this pins the version they name
    import psycopg

    assert parse_url(postgres_url)[0] == "postgresql"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        version = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()[0]
        assert version == "0.6.2", version
        with pytest.raises(psycopg.errors.UndefinedObject, match="halfvec"):
            conn.execute("SELECT '[1,2,3]'::halfvec")
        conn.execute("DROP DATABASE IF EXISTS halfvec_probe")
        conn.execute("CREATE DATABASE halfvec_probe")
    # PostgresStore's half-size vectors (what the docs point at) need a newer server
    probe = urlsplit(postgres_url)._replace(path="/halfvec_probe").geturl()
    with psycopg.connect(probe, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")
    index = {
        "dims": WordEmbeddings.dims,
        "embed": WordEmbeddings(),
        "ann_index_config": {"kind": "hnsw", "vector_type": "halfvec"},
    }
    with pytest.raises(psycopg.errors.UndefinedObject, match="halfvec"):
        with open_store(probe, index=index):
            pass


@pytest.mark.parametrize("scheme", ["sqlite", "postgres"])
def test_one_users_bad_input_fails_only_that_user(scheme, own_store_url):
    # the async stores merge the calls made in one tick into one batch: a value refused by the
    # batch checks failed every other user's call of that tick with it. PostgreSQL: a database of
    # its own, since other tests write ("users", "ben") items on the session's server
    url = own_store_url(scheme, "memlib_bad_input_one_user")

    async def main():
        async with aopen_store(url) as store:
            await store.aput(("users", "ben"), "k", {"v": 1})
            return await asyncio.gather(
                store.aget(("users", "ben"), "k"),
                store.aput(("users", "eve"), "k", {"v": float("nan")}),
                store.asearch(("users", "ben")),
                store.asearch(("users", "eve"), filter=["not", "a", "dict"]),
                return_exceptions=True,
            )

    got, bad_put, found, bad_search = asyncio.run(main())
    assert isinstance(bad_put, ValueError) and isinstance(bad_search, TypeError)
    assert not isinstance(got, Exception) and got.value == {"v": 1}, got
    assert not isinstance(found, Exception) and [i.key for i in found] == ["k"], found
