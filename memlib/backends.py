"""Open LangGraph's own checkpointers and stores by URL, and run a real PostgreSQL from Python.

`open_checkpointer(url)` and `open_store(url, index=...)` are context managers that yield a saver
or store, set up (migrations run), and close its connection on exit; `aopen_checkpointer` and
`aopen_store` are their async forms. The URL picks the backend; the code that uses the result
does not change:

| URL | checkpointer | store |
|---|---|---|
| `memory://` | `InMemorySaver` | `InMemoryStore` |
| `faiss:///dir` | `SqliteSaver` on `dir/checkpoints.sqlite` | `FaissStore` on `dir/store`, every write logged and fsynced |
| `sqlite:///path` | `SqliteSaver` / `AsyncSqliteSaver` | `SqliteStore` / `AsyncSqliteStore`, sqlite-vec |
| `postgresql://...` | `PostgresSaver` / `AsyncPostgresSaver` | `PostgresStore` / `AsyncPostgresStore`, pgvector |

Paths follow SQLAlchemy: `sqlite:///rel/path.db` is relative, `sqlite:////abs/path.db` absolute.
They are normalised first (`os.path.normpath`, symlinks not resolved), so `sqlite:///sub/../x.db`
opens `x.db` and creates no `sub/`. `sqlite:///:memory:` is SQLite's own in-memory database (no
file; each store or checkpointer opened on it has its own); `faiss:///:memory:` is refused (it
made a directory named `:memory:`): use `memory://`.

The stores are LangGraph's classes, subclassed only to fix what goes wrong in use: notebook 10
(section 1) lists each fix with its upstream issue, docs/backends.md with the test that fails
without it. Every store checks vectors, values, namespace labels and filters alike (TypeError for a
wrong kind, ValueError for a bad value) before anything is written. SQLite runs on `pysqlite3` (it
loads sqlite-vec) with WAL, a busy timeout, `BEGIN IMMEDIATE` and `secure_delete`; `sqlite_scrub`
truncates the write-ahead log.

`store_latency(url, vectors)` times searches and puts on one table (benchmarks/backends.py, notebook 10).

`local_postgres(dir)` starts PostgreSQL with pgvector from the `pgserver` wheel (no system
service), yields its URL and stops it on exit. Its pgvector is 0.6.2: no `halfvec` (0.7+), so
`PostgresStore`'s `index={"ann_index_config": {"vector_type": "halfvec"}}` fails there; use a
server with pgvector >= 0.7 through `MEMLIB_POSTGRES_URL` for it.

Leaves out: connection pools (pass a pool to `PostgresStore` yourself), schema changes other than
LangGraph's own migrations (`setup()`), and TTL on `memory://` and `faiss://` (they raise).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import json
import math
import os
import re
import threading
import time
import warnings
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    NOT_PROVIDED,
    PutOp,
    SearchOp,
    ensure_embeddings,
    validate_op_namespace,
)

from memlib.checks import check_int, check_items, check_kind

SCHEMES = ("memory", "faiss", "sqlite", "postgresql")
BUSY_TIMEOUT_MS = 30_000


# URLs


def parse_url(url: Any) -> tuple[str, str]:
    """(scheme, target) of a backend URL: the directory, file path or the URL itself."""
    if isinstance(url, os.PathLike) or not isinstance(url, str):
        raise TypeError(f"backend URL must be a str such as 'sqlite:///memory.db', got {url!r}")
    scheme, sep, rest = url.partition("://")
    scheme = {"postgres": "postgresql", "postgresql+psycopg": "postgresql"}.get(scheme, scheme)
    if not sep or scheme not in SCHEMES:
        raise ValueError(
            f"unsupported backend URL {url!r}: expected memory://, faiss:///dir, "
            f"sqlite:///path or postgresql://..."
        )
    if scheme == "memory":
        if rest:
            raise ValueError(f"backend URL {url!r}: memory:// takes no path")
        return scheme, ""
    if scheme == "postgresql":
        return scheme, "postgresql://" + rest
    if not rest.startswith("/") or rest == "/":
        raise ValueError(
            f"backend URL {url!r} needs a path after three slashes, e.g. {scheme}:///build/x "
            f"(relative) or {scheme}:////tmp/x (absolute)"
        )
    path = rest[1:]
    if "?" in path or "\x00" in path:
        raise ValueError(f"backend URL {url!r}: the path cannot contain '?' or NUL")
    path = os.path.normpath(path)  # "sub/../x.db" is "x.db": nothing but the target is created
    if scheme == "faiss" and path == ":memory:":
        raise ValueError(
            f"backend URL {url!r} would be a directory named ':memory:': "
            f"use memory:// for an in-memory store"
        )
    return scheme, path


# Input checks shared by every store


class CheckedEmbeddings(Embeddings):
    """Wraps an embedder: every vector must have `dims` finite numbers; returned as floats."""

    def __init__(self, embed: Any, dims: int):
        self.inner = ensure_embeddings(embed)
        self.dims = check_int(dims, "dims", minimum=1)

    def _check(self, vectors: Sequence[Sequence[float]], texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text, vector in zip(texts, vectors, strict=True):
            v = np.asarray(vector)  # checked with numpy: 20x faster than number by number
            if v.dtype.kind not in "biuf":
                raise TypeError(f"embedding of {text[:60]!r} holds non-numbers: {vector!r:.80}")
            if v.shape != (self.dims,):
                raise ValueError(
                    f"embedding of {text[:60]!r} has shape {v.shape}, expected ({self.dims},)"
                )
            if not np.isfinite(v).all():
                raise ValueError(f"embedding of {text[:60]!r} holds NaN or infinity")
            out.append(v.astype(float).tolist())
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._check(self.inner.embed_documents(texts), texts)

    def embed_query(self, text: str) -> list[float]:
        return self._check([self.inner.embed_query(text)], [text])[0]

    # An embedder without its own async code would run in the event loop's default executor,
    # the pool that also runs a graph's sync nodes under ainvoke: with as many concurrent users
    # as threads, every thread waits on a store search that waits on the embedding (deadlock).
    def _native_async(self) -> bool:
        if getattr(self.inner, "afunc", None) is not None:  # an async function was given
            return True
        if hasattr(self.inner, "afunc") or hasattr(self.inner, "func"):  # a sync function
            return False
        return type(self.inner).aembed_documents is not Embeddings.aembed_documents

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        if self._native_async():
            return self._check(await self.inner.aembed_documents(texts), texts)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_embed_pool(), self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.aembed_documents([text]))[0]


@functools.cache
def _embed_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=4, thread_name_prefix="memlib-embed")


def check_index(index: Any) -> dict | None:
    """A store index config, checked (`dims` a positive int, `embed` given) and copied; None passes.

    The embedder stays the caller's: stores expose it as given and check its vectors at the call
    (`_CheckedStore.embeddings`).
    """
    if index is None:
        return None
    check_kind(index, Mapping, "index", "a dict like {'dims': 384, 'embed': ...}")
    dims = index.get("dims")
    if not isinstance(dims, int) or isinstance(dims, bool) or dims < 1:
        raise ValueError(f"index['dims'] must be a positive int, got {dims!r}")
    if index.get("embed") is None:
        raise ValueError(f"index['embed'] is required (an Embeddings or a function), got {index!r}")
    return dict(index)


def check_value(value: Any, where: str = "value") -> None:
    """A store value: a dict that JSON can hold, with valid Unicode and finite numbers."""
    check_kind(value, dict, where, "a dict")
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        raise ValueError(
            f"{where} holds NaN or infinity, which JSON cannot store: {value!r:.80}"
        ) from None
    except TypeError as e:
        raise TypeError(f"{where} cannot be stored as JSON ({e}): {value!r:.80}") from None
    _check_strings(value, where)  # json.dumps escapes lone surrogates: check the strings


def _check_strings(value: Any, where: str) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                f"{where} holds a string that is not valid Unicode (a lone surrogate): {value!r:.80}"
            ) from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_strings(k, where)
            _check_strings(v, where)
    elif isinstance(value, list | tuple):
        for v in value:
            _check_strings(v, where)


# The operators of LangGraph's filters (SearchOp.filter, InMemoryStore's _apply_operator)
FILTER_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def check_filter(filt: Any) -> None:
    """A search filter: a dict of str keys to JSON scalars, lists or operator dicts ({"$gte": 3}).

    Strings must be valid Unicode without NUL (PostgreSQL refuses NUL). A nested dict without
    operators is refused: InMemoryStore matches it as nested fields, SQLite and PostgreSQL read
    its keys as operators.
    """
    check_kind(filt, Mapping, "filter", "a dict like {'kind': 'fact'}")
    for key, value in filt.items():
        check_kind(key, str, "filter keys", "str")
        _check_filter_text(key, "filter key")
        where = f"filter[{key!r:.40}]"
        if isinstance(value, Mapping):
            for operator, operand in value.items():
                if operator not in FILTER_OPERATORS:
                    raise ValueError(
                        f"unsupported operator {operator!r:.40} in {where}: use one of "
                        f"{', '.join(FILTER_OPERATORS)} (nested fields cannot be filtered)"
                    )
                _check_filter_value(operand, f"{where}[{operator!r}]")
        else:
            _check_filter_value(value, where)


def _check_filter_value(value: Any, where: str) -> None:
    if isinstance(value, list | tuple):
        for v in value:
            if isinstance(v, Mapping):
                raise TypeError(f"{where} lists hold JSON scalars or lists, got {v!r:.80}")
            _check_filter_value(v, where)
    elif isinstance(value, str):
        _check_filter_text(value, where)
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} is {value!r}, which JSON cannot hold")
    elif value is not None and not isinstance(value, bool | int | float):
        raise TypeError(
            f"{where} must be a str, number, bool, None or a list of them, "
            f"got {type(value).__name__}: {value!r:.80}"
        )


def _check_filter_text(text: str, where: str) -> None:
    _check_strings(text, where)
    if "\x00" in text:
        raise ValueError(f"{where} holds a NUL character: {text!r:.80}")


def check_ops(ops: Sequence[Any]) -> None:
    """Check every op of a batch before any of it runs: namespaces, put values, search queries
    and filters."""
    check_items(ops, "ops", "a list of store operations")
    for op in ops:
        validate_op_namespace(op)
        if isinstance(op, PutOp):
            _check_strings(op.key, "key")
            if op.value is not None:
                check_value(op.value, f"value of {op.key!r}")
        elif isinstance(op, SearchOp):
            if op.query is not None:
                _check_strings(op.query, "query")
            if op.filter is not None:
                check_filter(op.filter)


# The stores whose batch is running in this thread or task (by id): inside one, `store.embeddings`
# is the checking wrapper; anywhere else, the caller's embedder.
_CHECKING: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "memlib_checking_embeddings", default=frozenset()
)


class _CheckedStore:
    """Mixin: check a whole batch before handing it to the LangGraph store, and check its vectors.

    `embeddings` is the embedder the store was given (what LangGraph's own `__init__` assigns:
    the caller's `Embeddings`, or LangGraph's wrapper of a function); `index_config["embed"]` is
    left as the caller passed it. While a batch of this store runs, the store's own reads of
    `self.embeddings` get a `CheckedEmbeddings` around it instead, so every vector the store
    writes or searches with is checked (size, finite) without replacing the object it exposes.
    """

    @property
    def embeddings(self):
        given = self.__dict__.get("_given_embeddings")
        if given is None or id(self) not in _CHECKING.get():
            return given
        checked = self.__dict__.get("_checked_embeddings")
        if checked is None or checked.inner is not given:
            checked = CheckedEmbeddings(given, self.index_config["dims"])
            self.__dict__["_checked_embeddings"] = checked
        return checked

    @embeddings.setter
    def embeddings(self, value):
        self.__dict__["_given_embeddings"] = value
        self.__dict__.pop("_checked_embeddings", None)

    @contextlib.contextmanager
    def _checking_embeddings(self):
        token = _CHECKING.set(_CHECKING.get() | {id(self)})
        try:
            yield
        finally:
            _CHECKING.reset(token)

    def _before_batch(self, ops) -> None:
        """Runs after the checks, before the batch (the SQLite store sweeps expired items)."""

    async def _abefore_batch(self, ops) -> None:
        """The async form of `_before_batch`."""

    def batch(self, ops):
        ops = list(ops)
        check_ops(ops)
        self._before_batch(ops)
        with self._checking_embeddings():
            return super().batch(ops)

    async def abatch(self, ops):
        ops = list(ops)
        check_ops(ops)
        await self._abefore_batch(ops)
        with self._checking_embeddings():
            return await super().abatch(ops)


class _CheckedAsyncStore(_CheckedStore):
    """Mixin for LangGraph's async stores (AsyncBatchedBaseStore), which merge the calls made in
    one tick into one batch: a call is checked alone before it joins, so one caller's bad value
    or filter fails that caller only, not everyone whose call shared its batch."""

    async def aput(self, namespace, key, value, index=None, *, ttl=NOT_PROVIDED):
        check_ops([PutOp(tuple(namespace), key, value, index)])
        return await super().aput(namespace, key, value, index, ttl=ttl)

    async def asearch(self, namespace_prefix, /, *, query=None, filter=None, **kwargs):
        check_ops([SearchOp(tuple(namespace_prefix), filter, query=query)])
        return await super().asearch(namespace_prefix, query=query, filter=filter, **kwargs)


# The in-memory store


@functools.cache
def _memory_store_class():
    from langgraph.store.memory import InMemoryStore

    class MemoryStore(_CheckedStore, InMemoryStore):
        """InMemoryStore with batch-level input checks, no empty namespaces, repeated texts."""

        def __init__(self, *, index=None):
            super().__init__(index=index)
            self._lock = threading.Lock()
            # upstream's defaultdicts added an entry for every namespace a get or delete named
            self._data, self._vectors = _NoEntryDict(), _NoEntryDict()

        def _apply_put_ops(self, put_ops):
            with self._lock:
                for ns, _ in put_ops:
                    self._data.setdefault(ns, {})
                super()._apply_put_ops(put_ops)
                for ns, _ in put_ops:  # a namespace goes with its last item
                    for table in (self._data, self._vectors):
                        if ns in table and not table[ns]:
                            del table[ns]

        def _insertinmem_store(self, to_embed, embeddings):
            # one vector per distinct text (upstream embeds each once), stored for every use of it
            with self._lock:
                for uses, vector in zip(to_embed.values(), embeddings, strict=True):
                    for ns, key, path in uses:
                        self._vectors.setdefault(ns, {}).setdefault(key, {})[path] = vector

    return MemoryStore


class _NoEntryDict(dict):
    """A dict in which a missing key reads as an empty dict without being added."""

    def __missing__(self, key):
        return {}


@functools.cache
def _faiss_store_class():
    from memlib.faiss_store import FaissStore

    class CheckedFaissStore(_CheckedStore, FaissStore):
        """FaissStore with the batch-level input checks every store here runs (filters too)."""

    return CheckedFaissStore


def _stable_order(sql: str) -> str:
    """Break ties (equal scores, equal timestamps) by namespace and key, so pages never overlap."""
    sql = re.sub(
        r"ORDER BY score DESC(\s+LIMIT \S+\s+OFFSET)", r"ORDER BY score DESC, prefix, key\1", sql
    )
    sql = re.sub(
        r"ORDER BY store\.updated_at DESC",
        "ORDER BY store.updated_at DESC, store.prefix, store.key",
        sql,
    )
    return re.sub(r"ORDER BY updated_at DESC", "ORDER BY updated_at DESC, prefix, key", sql)


# SQLite


def _sqlite_connect(path: str, *, autocommit: bool = True):
    """A pysqlite3 connection (it can load sqlite-vec), WAL, a busy timeout, foreign keys on.

    Every SQLite connection memlib opens uses this one library: the checkpointer and the store
    often share a file, and two SQLite libraries in one process (the standard `sqlite3` and
    `pysqlite3`) do not see each other's locks, so concurrent writes corrupted the file
    ("database disk image is malformed"). `autocommit=False` gives `sqlite3`'s default
    transactions, which SqliteSaver expects.
    """
    sqlite3x = _sqlite_module()
    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    extra = {"isolation_level": None} if autocommit else {}
    conn = sqlite3x.connect(path, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000, **extra)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    if path != ":memory:":
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")  # store_vectors: ON DELETE CASCADE
    conn.execute("PRAGMA secure_delete=ON")  # deleted rows are overwritten with zeros
    return conn


def _aiosqlite_connect(path: str, *, autocommit: bool = True):
    """An `aiosqlite.Connection` (not yet started: `async with` or `await` it) on the connection
    `_sqlite_connect` opens, in aiosqlite's own thread."""
    import aiosqlite

    connect = functools.partial(_sqlite_connect, path, autocommit=autocommit)
    return aiosqlite.Connection(connect, 64)  # pysqlite3, see _sqlite_connect


def sqlite_connections(*objects: Any) -> list:
    """The SQLite connections among the objects' `.conn` (a store's, a saver's), to scrub."""
    conns = [getattr(obj, "conn", None) for obj in objects]
    return [c for c in conns if type(c).__module__.split(".")[0] in ("sqlite3", "pysqlite3")]


def sqlite_scrub(conn: Any) -> None:
    """Move the write-ahead log into the database file and truncate it, so no deleted text survives.

    With `secure_delete` (on for every connection `_sqlite_connect` opens) a delete overwrites the
    row in the database file, but the WAL still holds the pages as they were before. Call it after
    deleting (`store.conn`, `saver.conn`) while no other thread uses the connection: it refuses
    an open transaction (RuntimeError) rather than commit someone else's work, and raises
    RuntimeError if another connection kept the log busy past the busy timeout.
    """
    if conn.in_transaction:
        raise RuntimeError(
            "sqlite_scrub: the connection has an open transaction; commit or roll back first"
        )
    busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        raise RuntimeError(
            "sqlite_scrub: another connection is using the database, the write-ahead log was "
            "not truncated; try again when it is idle"
        )


def _sqlite_module():
    """pysqlite3 where its wheel exists (Linux x86_64), else the standard library's sqlite3."""
    try:
        import pysqlite3.dbapi2 as sqlite3x
    except ImportError:  # other platforms: their sqlite3 usually loads extensions
        import sqlite3 as sqlite3x
    return sqlite3x


def _is_duplicate_column(error: Exception) -> bool:
    sqlite3x = _sqlite_module()
    return isinstance(error, sqlite3x.OperationalError) and "duplicate column" in str(error)


def _setup_pause(deadline: float, error: Exception | None = None) -> float:
    """The pause before another try at setup(), or raise: past the deadline, or for an error that
    is not a lost race. LangGraph's setup() reads its migration version, then migrates in separate
    statements, so processes opening a new database at once ran the same migration ("UNIQUE
    constraint failed: store_migrations.v", a duplicate column); the loser reads it again."""
    if error is not None and not ("migrations.v" in str(error) or _is_duplicate_column(error)):
        raise error
    if time.monotonic() > deadline:
        raise error or TimeoutError("another process held the PostgreSQL setup lock for 30 s")
    return 0.01


@functools.cache
def _sqlite_saver_classes():
    """SqliteSaver / AsyncSqliteSaver on pysqlite3: their setup() catches only the standard
    library's OperationalError for the column migration that is a no-op on a current file."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    class PySqliteSaver(SqliteSaver):
        def setup(self) -> None:
            try:
                super().setup()
            except Exception as e:
                if not _is_duplicate_column(e):
                    raise
                self.is_setup = True

    class AsyncPySqliteSaver(AsyncSqliteSaver):
        async def setup(self) -> None:
            try:
                await super().setup()
            except Exception as e:
                if not _is_duplicate_column(e):
                    raise
                self.is_setup = True

    return PySqliteSaver, AsyncPySqliteSaver


class _SqliteFixes:
    """What both SQLite stores (SqliteStore, AsyncSqliteStore) fix; they share these queries."""

    def _prepare_batch_search_queries(self, search_ops):
        queries, embedding_requests = super()._prepare_batch_search_queries(search_ops)
        for idx, _ in embedding_requests:  # [vector, ..., 2 * limit, limit, offset]
            params = queries[idx][1]
            params[-3] = -1  # score every candidate before dedup and offset (#8977)
        return [(_stable_order(q), p, r) for q, p, r in queries], embedding_requests


def _reads(ops) -> bool:
    """A batch that reads: expired items are swept first (omit_expired is ignored, #8902)."""
    return any(not isinstance(op, PutOp) for op in ops)


def _sqlite_index(index: Mapping | None) -> dict | None:
    """SQLite's stores read `index["text_fields"]`, not `"fields"` (they embedded the value)."""
    if index is not None and "fields" in index:
        return {**index, "text_fields": index["fields"]}
    return index


@functools.cache
def _sqlite_store_class():
    from langgraph.store.sqlite import SqliteStore

    class FixedSqliteStore(_CheckedStore, _SqliteFixes, SqliteStore):
        """SqliteStore: expired items never returned, full pages, all-or-nothing batches, and
        processes that open a new file at once all set it up."""

        def setup(self) -> None:  # processes opening a new file at once: see _setup_pause
            deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
            while True:
                try:
                    return super().setup()
                except Exception as e:
                    time.sleep(_setup_pause(deadline, e))

        @contextlib.contextmanager
        def _cursor(self, *, transaction: bool = True):
            if not self.is_setup:
                self.setup()
            with self.lock:
                if transaction:
                    self.conn.execute("BEGIN IMMEDIATE")
                cur = self.conn.cursor()
                try:
                    yield cur
                except BaseException:
                    if transaction:
                        self.conn.execute("ROLLBACK")
                    raise
                else:
                    if transaction:
                        self.conn.execute("COMMIT")
                finally:
                    cur.close()

        def _before_batch(self, ops):
            if _reads(ops):
                self.sweep_ttl()

        async def abatch(self, ops):  # upstream raises; aopen_store gives the async store
            return await asyncio.to_thread(self.batch, list(ops))

    return FixedSqliteStore


@functools.cache
def _async_sqlite_store_class():
    from langgraph.store.sqlite.aio import AsyncSqliteStore

    class FixedAsyncSqliteStore(_CheckedAsyncStore, _SqliteFixes, AsyncSqliteStore):
        """AsyncSqliteStore with the fixes of FixedSqliteStore (its SQL runs in aiosqlite's
        thread, so the event loop never waits on SQLite)."""

        @contextlib.asynccontextmanager
        async def _cursor(self, *, transaction: bool = True):
            if not self.is_setup:
                await self.setup()
            async with self.lock:
                if transaction:
                    await self.conn.execute("BEGIN IMMEDIATE")
                async with self.conn.cursor() as cur:
                    try:
                        yield cur
                    except BaseException:
                        if transaction:  # upstream COMMITs in `finally`: half a batch stayed
                            await self.conn.execute("ROLLBACK")
                        raise
                    else:
                        if transaction:
                            await self.conn.execute("COMMIT")

        async def _abefore_batch(self, ops):
            if _reads(ops):
                await self.sweep_ttl()

    return FixedAsyncSqliteStore


# PostgreSQL


_PG_ORDER_BY_DISTANCE = re.compile(r"ORDER BY (sv\.embedding \S+ %s::\w+(?:\(\d+\))?) ASC")


@functools.cache
def _postgres_fix(base):
    from langgraph.store.base.batch import AsyncBatchedBaseStore

    checked = _CheckedAsyncStore if issubclass(base, AsyncBatchedBaseStore) else _CheckedStore

    class Fixed(checked, base):
        def _prepare_batch_search_queries(self, search_ops):
            queries, embedding_requests = super()._prepare_batch_search_queries(search_ops)
            per_doc = self.index_config["__estimated_num_vectors"] if self.index_config else 1
            for idx, _ in embedding_requests:  # [..., expanded limit, limit, offset]
                op = search_ops[idx][1]
                sql, params = queries[idx]
                params[-3] = (op.offset + op.limit) * per_doc * 2 + 1
                if op.namespace_prefix:  # exact within a namespace, see _exact_in_namespace
                    sql = _exact_in_namespace(sql)
                queries[idx] = (sql, params)
            return [(_stable_order(q), p) for q, p in queries], embedding_requests

    Fixed.__name__ = Fixed.__qualname__ = "Fixed" + base.__name__
    Fixed.__doc__ = f"{base.__name__} whose vector search pages past the first 2 * limit rows."
    return Fixed


def _exact_in_namespace(sql: str) -> str:
    """Order a namespaced search by an expression of the distance, not the HNSW operator itself.

    Ordered by the bare operator, PostgreSQL walks the table-wide HNSW index, which yields only
    `hnsw.ef_search` (40) nearest rows before the namespace filter: a user holding 1% of the rows
    got 0 to 2 results for limit=5. Ordered by `(distance) + 0`, the planner filters by the
    namespace (a btree index) first and scores those rows exactly.
    """
    return _PG_ORDER_BY_DISTANCE.sub(r"ORDER BY (\1) + 0 ASC", sql, count=1)


# PostgreSQL's setup() takes turns under an advisory lock (see _setup_pause), polled: a session
# blocked inside its SELECT holds a transaction open, which the holder's CREATE INDEX CONCURRENTLY
# waits for (PostgreSQL detected the deadlock).
_PG_TRY, _PG_UNLOCK = (
    "SELECT pg_try_advisory_lock(7305069) AS got",
    "SELECT pg_advisory_unlock(7305069)",
)


@contextlib.contextmanager
def _pg_setup_lock(conn):
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while not conn.execute(_PG_TRY).fetchone()["got"]:
        time.sleep(_setup_pause(deadline))
    try:
        yield
    finally:
        conn.execute(_PG_UNLOCK)


@contextlib.asynccontextmanager
async def _apg_setup_lock(conn):
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while not (await (await conn.execute(_PG_TRY)).fetchone())["got"]:
        await asyncio.sleep(_setup_pause(deadline))
    try:
        yield
    finally:
        await conn.execute(_PG_UNLOCK)


def _pg_kwargs() -> dict:
    from psycopg.rows import dict_row

    return {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}


def _ttl_config(scheme: str, url: str, ttl: Any) -> dict | None:
    if ttl is None:
        return None
    check_kind(ttl, Mapping, "ttl", "a dict like {'default_ttl': 60} or None")
    if scheme in ("memory", "faiss"):
        raise ValueError(f"backend {url!r} does not support TTL (use sqlite:// or postgresql://)")
    return {"omit_expired": True, **ttl}


# Opening by URL


@contextlib.contextmanager
def open_checkpointer(url: str) -> Iterator[Any]:
    """A set-up LangGraph checkpointer for a backend URL, closed on exit."""
    scheme, target = parse_url(url)
    if scheme == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        yield InMemorySaver()
    elif scheme in ("faiss", "sqlite"):
        path = Path(target) / "checkpoints.sqlite" if scheme == "faiss" else Path(target)
        conn = _sqlite_connect(str(path), autocommit=False)
        try:
            saver = _sqlite_saver_classes()[0](conn)
            saver.setup()
            yield saver
        finally:
            conn.close()
    else:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg import Connection

        with Connection.connect(target, **_pg_kwargs()) as conn:
            saver = PostgresSaver(conn)
            with _pg_setup_lock(conn):
                saver.setup()
            yield saver


@contextlib.contextmanager
def open_store(url: str, *, index: Mapping | None = None, ttl: Mapping | None = None):
    """A set-up LangGraph store for a backend URL (vector search if index is given)."""
    scheme, target = parse_url(url)
    index = check_index(index)
    ttl = _ttl_config(scheme, url, ttl)
    if scheme == "memory":
        yield _memory_store_class()(index=index)
    elif scheme == "faiss":
        store = _faiss_store_class()(index=index, path=Path(target) / "store", autosave=True)
        try:
            yield store
        finally:
            if callable(getattr(store, "close", None)):  # releases a directory lock, if any
                store.close()
    elif scheme == "sqlite":
        conn = _sqlite_connect(target)
        try:
            store = _sqlite_store_class()(conn, index=_sqlite_index(index), ttl=ttl)
            store.setup()
            yield store
        finally:
            conn.close()
    else:
        from langgraph.store.postgres import PostgresStore
        from psycopg import Connection

        with Connection.connect(target, **_pg_kwargs()) as conn:
            store = _postgres_fix(PostgresStore)(conn, index=index, ttl=ttl)
            with _pg_setup_lock(conn):
                store.setup()
            yield store


@contextlib.asynccontextmanager
async def aopen_checkpointer(url: str) -> AsyncIterator[Any]:
    """The async checkpointer for a backend URL (AsyncSqliteSaver, AsyncPostgresSaver, ...)."""
    scheme, target = parse_url(url)
    if scheme == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        yield InMemorySaver()
    elif scheme in ("faiss", "sqlite"):
        path = Path(target) / "checkpoints.sqlite" if scheme == "faiss" else Path(target)
        async with _aiosqlite_connect(str(path), autocommit=False) as conn:
            saver = _sqlite_saver_classes()[1](conn)
            await saver.setup()
            yield saver
    else:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg import AsyncConnection

        async with await AsyncConnection.connect(target, **_pg_kwargs()) as conn:
            saver = AsyncPostgresSaver(conn)
            async with _apg_setup_lock(conn):
                await saver.setup()
            yield saver


@contextlib.asynccontextmanager
async def aopen_store(url: str, *, index: Mapping | None = None, ttl: Mapping | None = None):
    """The async store for a backend URL: AsyncSqliteStore, AsyncPostgresStore; memory:// and
    faiss:// give the same store as open_store (their abatch is async)."""
    scheme, target = parse_url(url)
    if scheme in ("memory", "faiss"):
        with open_store(url, index=index, ttl=ttl) as store:
            yield store
        return
    index = check_index(index)
    ttl = _ttl_config(scheme, url, ttl)
    if scheme == "sqlite":
        async with _aiosqlite_connect(target) as conn:
            store = _async_sqlite_store_class()(conn, index=_sqlite_index(index), ttl=ttl)
            await store.setup()
            yield store
        return
    from langgraph.store.postgres.aio import AsyncPostgresStore
    from psycopg import AsyncConnection

    async with await AsyncConnection.connect(target, **_pg_kwargs()) as conn:
        store = _postgres_fix(AsyncPostgresStore)(conn, index=index, ttl=ttl)
        async with _apg_setup_lock(conn):
            await store.setup()
        yield store


# A local PostgreSQL


@contextlib.contextmanager
def local_postgres(directory: str | os.PathLike) -> Iterator[str]:
    """Start PostgreSQL with pgvector in directory (pgserver), yield its URL, stop it on exit."""
    if not isinstance(directory, str | os.PathLike) or not str(directory):
        raise TypeError(f"directory must be a non-empty str or path, got {directory!r}")
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import pgserver

    path = Path(directory).resolve()
    if path.exists() and not path.is_dir():
        raise ValueError(f"directory {str(directory)!r} exists and is not a directory")
    path.parent.mkdir(parents=True, exist_ok=True)
    _forget_dead_handles(path)
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        server = pgserver.get_server(path, cleanup_mode="stop")
    try:
        server.psql("SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS vector;")
        yield server.get_uri()
    finally:
        server.cleanup()


def _forget_dead_handles(path: Path) -> None:
    """Drop pids of dead processes from pgserver's handle list.

    pgserver stops the server when its last handle closes, counting handles by pid in
    `.handle_pids.json`. A process that died without closing (a killed kernel) stays listed, so
    no later run was ever the last: every server started afterwards was left running.
    """
    handles = path / ".handle_pids.json"
    try:
        pids = json.loads(handles.read_text())
    except (OSError, ValueError):
        return
    alive = [pid for pid in pids if isinstance(pid, int) and _alive(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# Latency


def memory_texts(n: int) -> list[str]:
    """n distinct, sentence-like memories for latency runs (deterministic)."""
    verbs = ["likes", "visited", "works on", "asked about", "bought", "reads about", "avoids"]
    things = ["coffee", "trains", "Python", "gardens", "chess", "jazz", "Rust", "maps", "tea"]
    places = ["Porto", "Oslo", "Lisbon", "Kyoto", "Lima", "Accra", "Quebec", "Hanoi", "Tunis"]
    return [
        f"Memory {i}: the user {verbs[i % 7]} {things[i // 7 % 9]} in {places[i // 63 % 9]}."
        for i in range(n)
    ]


def store_latency(url: str, vectors: Mapping[str, Sequence[float]], *, users=10, searches=50, k=3):
    """Load vectors' texts into one table, then time searches and single puts (embedding excluded)."""
    import statistics
    import time

    from langgraph.store.base import PutOp

    check_kind(vectors, Mapping, "vectors", "a dict of text -> vector")
    texts = list(vectors)
    dims = len(next(iter(vectors.values())))
    index = {"dims": dims, "embed": lambda ts: [vectors[t] for t in ts], "fields": ["text"]}
    with open_store(url, index=index) as store:
        t0 = time.perf_counter()
        ops = [PutOp(("bench", f"u{i % users}"), f"m{i}", {"text": t}) for i, t in enumerate(texts)]
        for start in range(0, len(ops), 1000):
            store.batch(ops[start : start + 1000])
        load_s = time.perf_counter() - t0
        search_ms, short = [], 0
        for j, text in enumerate(texts[:searches]):
            t0 = time.perf_counter()
            hits = store.search(("bench", f"u{j % users}"), query=text, limit=k)
            search_ms.append((time.perf_counter() - t0) * 1000)
            short += len(hits) < k
        put_ms = []
        for j, text in enumerate(texts[:10]):
            t0 = time.perf_counter()
            store.put(("bench", "u0"), f"extra{j}", {"text": text})
            put_ms.append((time.perf_counter() - t0) * 1000)
    return {
        "memories": len(texts),
        "load_s": round(load_s, 3),
        "search_ms_p50": round(statistics.median(search_ms), 2),
        "put_ms_p50": round(statistics.median(put_ms), 2),
        "short_results": short,
    }
