"""A LangGraph store whose vector search runs on FAISS and whose contents live in a directory.

`FaissStore` implements `langgraph.store.base.BaseStore` (batch / abatch), so `put`, `get`,
`search`, `delete`, `list_namespaces` and their async forms behave like LangGraph's
`InMemoryStore`: the same `index` config (`dims`, `embed`, `fields`), the same text extraction
(`"$"`, `"field.sub"`, `"list[*].text"`), the same per-item `index=False` / `index=["field"]`,
the same filters (plain equality, `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`), the same scores
(cosine similarity, max-pooled over an item's vectors) and the same order of results, equal
scores included (they keep listing order, so paging through ties never repeats or skips an item).
The same namespaces are accepted: public `put` refuses `()` and the reserved root `"langgraph"`
(LangGraph's `BaseStore` does that), while `batch` / `abatch` accept them, as InMemoryStore does.
It works anywhere a store is accepted: `graph.compile(store=...)`, LangMem's tools and managers.

Vectors are scaled by their largest component, L2-normalised (so 1e300 or 1e-300 components
neither overflow nor vanish) and searched by inner product. The default index is exact
(`faiss.IndexFlatIP` in `faiss.IndexIDMap2`). `"hnsw"` is `faiss.IndexHNSWFlat` (`hnsw_m`,
`ef_construction`, `ef_search`), `"hnsw_sq"` HNSW over 8-bit codes (a quarter of float32),
`"hnsw_sq4"` over 4-bit codes in each component's trained range (an eighth; with the graph's links
0.22 of float32: hnsw_m 16, ef_construction 40, ef_search 128). HNSW cannot remove vectors: deletes
and updates leave tombstones, skipped by searches, until they pass `rebuild_fraction` of the
index and it is rebuilt (also by `compact()`). `"ivf_sq"` (SQ8 codes, 16 * sqrt(n) lists) and
`"ivf_pq"` (`faiss.IndexIVFPQFastScan`: 4-bit codes of 4-component pieces, 1/32 of float32;
4 * sqrt(n) lists) scan the `nprobe` nearest k-means lists (default 16 and 96). `"ivf_*"` and
`"hnsw_sq4"` search exactly (flat) until IVF_TRAIN_AT vectors; the write that reaches them (IVF:
or twice the vectors its lists were trained on) trains on a sample, re-adds every vector (one
slow write) and snapshots. Quantised types re-score RERANK candidates per result with the float32
vectors (`vectors.f32`, memory-mapped): exact scores. Searches within at most `exact_threshold`
vectors (by prefix or filter) are exact (numpy); larger ones use an `IDSelector` (kept until a
write there), through which IVF scans nprobe / share lists and HNSW keeps efSearch / share.

Example::

    store = FaissStore(index={"dims": 384, "embed": MiniLMEmbeddings(), "fields": ["text"]},
                       path="build/memories", autosave=True)  # reopens the directory if saved
    store.put(("memories", "ana"), "m1", {"text": "Ana's dog is called Rex"})  # durable now
    store.search(("memories", "ana"), query="pet name", limit=3)

Durability and concurrency, exactly:
- A directory holds a snapshot (item table as UTF-8 JSON, FAISS index) and the write-ahead log
  written since it; `manifest.json` names the three. `autosave=True` appends each batch that
  writes to the log as one record (length, CRC-32, writes, vectors) and fdatasyncs it before
  applying it in memory: a call returns only once its write is durable, and if the append fails
  it raises with nothing changed. The log grows in zero-filled chunks, so an append overwrites
  and costs one flush. Every `snapshot_every` logged writes, after a batch that deletes (a deleted
  value must leave the log's bytes) and on `save()`, a new snapshot and an empty log are written
  and fsynced, then `manifest.json` is replaced atomically and the directory fsynced: a crash or
  SIGKILL at any point leaves the old snapshot with its complete log, or the new one. Older and
  temporary files are deleted by the next snapshot, and on open when no writer holds the lock.
- Opening reads the snapshot and replays the log; a torn last record (a writer killed mid-append,
  so never acknowledged) is dropped and later overwritten; a damaged record followed by good ones
  raises ValueError. A reader whose files a snapshot in another process replaced mid-read reads
  the new manifest: a complete state, never an error or a mix. Readers take the writer lock only
  for a moment on open, to clean up; a writer waits that out (up to LOCK_WAIT seconds).
- One writer per directory: the first write or `save()` takes an exclusive `fcntl.flock` on
  `writer.lock` until `close()` (or the `with` block's end, or the process's, even by SIGKILL).
  Another store, in this process or another, that tries to write there meanwhile gets
  `StoreConflictError` naming the holder's pid, as does a store writing after another store wrote
  there since it opened the directory, even once that one closed: reopen and write again.
- Within one process a lock serialises mutations and reads: threads can share one store.

Every batch is validated and embedded before anything changes: a bad namespace label, a value that
is not JSON, a vector of the wrong size, a NaN, infinite or zero vector raises ValueError /
TypeError naming the text and item, and leaves the store as it was.

Deliberate differences from InMemoryStore: `list_namespaces` lists only namespaces holding items;
an update drops the item's old vectors (InMemoryStore keeps stale ones when the indexed fields
change or `index=False` is passed); `created_at` survives updates; with a query, `offset` also
pages through the unscored items appended after the scored ones. Range filters (`$gt`, `$gte`,
`$lt`, `$lte`) compare as numbers when both sides convert to float, as InMemoryStore does
(`"10" > 9`); where InMemoryStore raises instead, FaissStore answers: two strings, one of them
not a number, compare alphabetically (`"2024-05-01" >= "2024-01-01"`, and `"10" < "2024-01-01"`),
and a missing value, or a non-numeric string against a number, does not match.

Leaves out: TTL (`supports_ttl` is False; a `ttl` raises NotImplementedError), several writers on
one directory at once (refused, not merged), filters inside FAISS (Python checks candidates).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import gc
import json
import math
import mmap
import operator
import os
import secrets
import struct
import tempfile
import threading
import time
import warnings
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import faiss
import numpy as np
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    ensure_embeddings,
    get_text_at_path,
    tokenize_path,
    validate_op_namespace,
)

from memlib.checks import check_int, check_number, check_str

__all__ = ["FaissStore", "StoreConflictError"]

FORMAT_VERSION = 2  # 1: snapshots only; 2 adds the write-ahead log (format 1 still opens)
LOCK_NAME = "writer.lock"
LOCK_WAIT = 0.2  # seconds a writer waits out a lock held only to clean up on open
LOAD_RETRIES = 50  # times a reader re-reads the manifest when a save replaced it mid-read
_COMPARE = {"$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt, "$lte": operator.le}
_OPERATORS = {"$eq", "$ne", *_COMPARE}
_INDEX_TYPES = ("flat", "hnsw", "hnsw_sq", "ivf_sq", "ivf_pq", "hnsw_sq4")
_TRAINED = _INDEX_TYPES[3:]  # exact (flat) until IVF_TRAIN_AT vectors, then trained on them
_RECORD = struct.Struct("<II")  # a log record's header: payload length, CRC-32 of the payload
LOG_CHUNK = 1 << 20  # the log grows by this many zero bytes at a time, so appends overwrite
RERANK = {"hnsw_sq": 4, "ivf_sq": 4, "ivf_pq": 16, "hnsw_sq4": 4}  # per result, re-scored exactly
IVF_TRAIN_AT, IVF_GROWTH = 20_000, 1.4  # ivf_*: train at 20k vectors, again when lists double
NPROBE_PQ = 96  # ivf_pq's default nprobe (ivf_sq's: 16)
SQ4_HNSW = (16, 40, 128)  # hnsw_sq4's default hnsw_m, ef_construction, ef_search (others: 32, 100)

NsKey = tuple[tuple[str, ...], str]


class StoreConflictError(RuntimeError):
    """Another FaissStore writes the same directory: it holds the lock, or saved since this one opened it."""


def _short(text: str, n: int = 60) -> str:
    return repr(text if len(text) <= n else text[:n] + "...")


def _json_copy(value: Any, where: str) -> Any:
    """Deep-copy a JSON value, raising on anything JSON cannot hold exactly."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where} is {value!r}; JSON has no NaN or infinity")
        return float(value)
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(
                    f"{where} has key {k!r} of type {type(k).__name__}; JSON object keys must be str"
                )
            out[k] = _json_copy(v, f"{where}[{k!r}]")
        return out
    if isinstance(value, (list, tuple)):
        return [_json_copy(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise TypeError(f"{where} is {value!r} of type {type(value).__name__}, which is not JSON")


def _copy(value: Any) -> Any:
    """Copy a value already known to be JSON (fast path for reads)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return [_copy(v) for v in value] if isinstance(value, list) else value


def _check_filter(filt: Any, where: str = "filter") -> None:
    if isinstance(filt, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in filt):
            for k in filt:
                if k not in _OPERATORS:
                    raise ValueError(
                        f"unsupported operator {k!r} in {where}; use one of {sorted(_OPERATORS)}"
                    )
        else:
            for k, v in filt.items():
                _check_filter(v, f"{where}[{k!r}]")


def _as_number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _apply_operator(value: Any, op: str, operand: Any) -> bool:
    if op in ("$eq", "$ne"):
        return (value == operand) == (op == "$eq")
    a, b = _as_number(value), _as_number(operand)
    if a is None or b is None:
        if not (isinstance(value, str) and isinstance(operand, str)):
            return False
        a, b = value, operand
    return _COMPARE[op](a, b)  # operators were checked when the batch was planned


def _matches(value: Any, filt: Any) -> bool:
    """JSON-style match, as InMemoryStore does it: nested dicts, lists, $-operators."""
    if isinstance(filt, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in filt):
            return all(_apply_operator(value, k, v) for k, v in filt.items())
        if not isinstance(value, dict):
            return False
        return all(_matches(value.get(k), v) for k, v in filt.items())
    if isinstance(filt, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(filt)
            and all(_matches(v, f) for v, f in zip(value, filt, strict=False))
        )
    return value == filt


def _does_match(condition: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(ns) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(ns, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(ns), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(p == "*" or k == p for k, p in pairs)


def _nlist(n: int, index_type: str = "ivf_sq") -> int:
    """IVF lists for n vectors: 16 * sqrt(n) (ivf_pq: 4 * sqrt(n)), 10 vectors per list at least."""
    return max(1, min(int((4 if index_type == "ivf_pq" else 16) * math.sqrt(n)), n // 10))


def _fsync_write(path: Path, data: bytes) -> None:
    """Write bytes to a temporary file beside `path`, fsync it, then rename it into place."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@dataclass
class _Plan:
    """A validated batch: what to read, what to write, what to embed."""

    n_ops: int
    reads: list[tuple[int, Op]] = field(default_factory=list)
    puts: dict[NsKey, dict | None] = field(default_factory=dict)
    put_texts: dict[NsKey, list[tuple[str, str]]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)


class FaissStore(BaseStore):
    """A LangGraph BaseStore with FAISS vector search, saved to a directory."""

    supports_ttl = False

    def __init__(
        self,
        *,
        index: IndexConfig | None = None,
        index_type: str = "flat",
        hnsw_m: int | None = None,
        ef_construction: int | None = None,
        ef_search: int | None = None,
        nprobe: int | None = None,
        rebuild_fraction: float = 0.25,
        exact_threshold: int = 4096,
        path: str | os.PathLike | None = None,
        autosave: bool = False,
        snapshot_every: int = 10_000,
    ) -> None:
        if check_str(index_type, "index_type") not in _INDEX_TYPES:
            raise ValueError(f"index_type must be one of {_INDEX_TYPES}, got {index_type!r}")
        nprobe = (NPROBE_PQ if index_type == "ivf_pq" else 16) if nprobe is None else nprobe
        m, efc, efs = SQ4_HNSW if index_type == "hnsw_sq4" else (32, 100, 128)
        hnsw_m = m if hnsw_m is None else hnsw_m
        ef_construction = efc if ef_construction is None else ef_construction
        ef_search = efs if ef_search is None else ef_search
        names = "hnsw_m ef_construction ef_search nprobe exact_threshold snapshot_every".split()
        values = (hnsw_m, ef_construction, ef_search, nprobe, exact_threshold, snapshot_every)
        for name, v, lo in zip(names, values, (2, 1, 1, 1, 0, 1), strict=True):
            check_int(v, name, minimum=lo)
        if not 0 < check_number(rebuild_fraction, "rebuild_fraction") <= 1:
            raise ValueError(f"rebuild_fraction must be in (0, 1], got {rebuild_fraction!r}")
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be str or os.PathLike, got {type(path).__name__}: {path!r}")
        if not isinstance(autosave, bool):
            raise TypeError(f"autosave must be True or False, got {autosave!r}")
        if autosave and path is None:
            raise ValueError("autosave=True needs a path to save to")
        self.index_type, self.hnsw_m, self.ef_construction = index_type, hnsw_m, ef_construction
        self.ef_search, self.nprobe, self.rebuild_fraction = ef_search, nprobe, rebuild_fraction
        self.exact_threshold, self.snapshot_every = exact_threshold, snapshot_every
        self.path, self.autosave = Path(path) if path is not None else None, autosave
        self._lock = threading.RLock()

        self.index_config: dict | None = None
        self.embeddings, self.dims = None, None
        if index is not None:
            self._set_index_config(index)

        # namespace -> key -> Item, in insertion order (the order InMemoryStore lists items in)
        self._data: dict[tuple[str, ...], dict[str, Item]] = {}
        self._vec_ids: dict[NsKey, dict[str, int]] = {}  # item -> {field path: vector id}
        self._owner: dict[int, NsKey] = {}  # live vector id -> item
        self._tombstones: set[int] = set()  # HNSW ids of deleted vectors, still in the graph
        self._next_id, self._n_unindexed = 0, 0  # and: live items with no vector
        self._ns_nvec: dict[tuple[str, ...], int] = {}  # live vectors per namespace
        # listing order, the tie-break of equal scores: namespace rank, then item sequence
        self._ns_rank: dict[tuple[str, ...], int] = {}
        self._seq: dict[NsKey, int] = {}
        self._next_seq = 0
        self._index = self._new_index() if self.dims else None
        self._floats: Any = b"" if index_type in _INDEX_TYPES[2:] and self.dims else None  # mmap
        self._floats_file: int | None = None
        self._selectors: dict[tuple[str, ...], tuple[Any, int]] = {}  # prefix -> IDSelector, size
        self._locks: dict[Path, int] = {}  # directory -> descriptor holding its writer lock
        self._generation: str | None = None  # the save of self.path this store continues from
        self._log_name: str | None = None  # the write-ahead log after that save
        self._log_size = self._log_ops = 0  # bytes and writes of it applied here
        self._log_fd: int | None = None
        self._log_end = 0  # bytes of the log file, written zeros past _log_size

        if self.path is not None and (self.path / "manifest.json").exists():
            collecting = gc.isenabled()  # a million items make millions of objects, none garbage:
            gc.disable()  # collecting while they are made took over half of a reopen's time
            try:
                self._load(self.path)
            finally:
                if collecting:
                    gc.enable()
        if self.path is not None and self.path.is_dir():
            self._clean_if_unlocked(self.path)

    def _set_index_config(self, index: Any) -> None:
        if not isinstance(index, Mapping):
            raise TypeError(
                f"index must be a dict like {{'dims': 384, 'embed': fn}}, got {index!r}"
            )
        dims = index.get("dims")
        if not isinstance(dims, int) or isinstance(dims, bool) or dims < 1:
            raise ValueError(f"index['dims'] must be a positive int, got {dims!r}")
        if index.get("embed") is None:
            raise ValueError(
                "index['embed'] is required: an Embeddings or a function texts -> vectors"
            )
        fields = index.get("fields") or ["$"]
        if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields):
            raise TypeError(f"index['fields'] must be a list of non-empty str, got {fields!r}")
        self.index_config = dict(index)
        self.index_config["fields"] = list(fields)
        self.embeddings = ensure_embeddings(index["embed"])
        self.dims = dims
        self._fields = [(p, p if p == "$" else tokenize_path(p)) for p in fields]

    def _new_index(self, live: np.ndarray | None = None) -> faiss.Index:
        """An empty index; for ivf_* with at least IVF_TRAIN_AT live ids, trained on them."""
        if self.index_type.startswith("ivf") and live is not None and len(live) >= IVF_TRAIN_AT:
            pq, ip, n = self.index_type == "ivf_pq", faiss.METRIC_INNER_PRODUCT, len(live)
            nlist = _nlist(n, self.index_type)  # PQ scans blocks of 32 codes: fewer, longer lists
            size = min(n, (20 if pq else 10) * nlist)  # k-means sample: PQ trains on it too
            sample = np.random.default_rng(n).choice(live, size, False)
            coarse = faiss.IndexHNSWFlat(self.dims, 32, ip)  # finds a vector's list fast (and
            coarse.hnsw.efConstruction = 40  # in k-means): thousands of lists cost no more
            if pq:  # 4-bit codes of 4-component pieces: 1/32 of float32, scanned 32 at a time
                m = max(d for d in range(1, max(1, self.dims // 4) + 1) if self.dims % d == 0)
                ivf = faiss.IndexIVFPQFastScan(coarse, self.dims, nlist, m, 4, ip)
            else:
                sq8 = faiss.ScalarQuantizer.QT_8bit
                ivf = faiss.IndexIVFScalarQuantizer(coarse, self.dims, nlist, sq8, ip)
            ivf.cp.niter, ivf.cp.min_points_per_centroid = 6, 5  # rough lists: re-ranking is exact
            rows = self._vectors(np.sort(sample))  # a tiny store repeats its rows: PQ needs 16+
            ivf.train(np.resize(rows, (max(len(rows), 64), self.dims)))
            return ivf
        trained = live is not None and len(live) >= IVF_TRAIN_AT
        if self.index_type == "hnsw_sq" or (self.index_type == "hnsw_sq4" and trained):
            four = self.index_type == "hnsw_sq4"  # 4 bits over each component's trained range
            qt = faiss.ScalarQuantizer.QT_4bit if four else faiss.ScalarQuantizer.QT_8bit
            base = faiss.IndexHNSWSQ(self.dims, qt, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            rows = np.array([[-1.0] * self.dims, [1.0] * self.dims], dtype=np.float32)  # SQ8
            if four:  # on a sample of the live vectors; SQ8 covers [-1, 1]: unit vectors fit
                rows = np.random.default_rng(len(live)).choice(live, IVF_TRAIN_AT, False)
                rows = self._vectors(np.sort(rows))
            base.train(rows)
        elif self.index_type == "hnsw":
            base = faiss.IndexHNSWFlat(self.dims, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        else:
            return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dims))
        base.hnsw.efConstruction = self.ef_construction
        base.hnsw.efSearch = self.ef_search
        return faiss.IndexIDMap2(base)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(items) for items in self._data.values())

    def __bool__(self) -> bool:
        # An empty store is still a store: LangGraph merges runtimes with `other.store or ...`.
        return True

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path else ""
        return f"FaissStore(items={len(self)}, index_type={self.index_type!r}, dims={self.dims}{where})"

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        plan = self._plan(ops)
        doc_vecs = query_vecs = None
        if plan.texts:
            raw = self.embeddings.embed_documents(plan.texts)
            doc_vecs = self._check_vectors(raw, plan.texts, "text", plan)
        if plan.queries:
            raw = [self.embeddings.embed_query(q) for q in plan.queries]
            query_vecs = self._check_vectors(raw, plan.queries, "query")
        return self._execute(plan, doc_vecs, query_vecs)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        plan = self._plan(ops)
        doc_vecs = query_vecs = None
        if plan.texts:
            raw = await self.embeddings.aembed_documents(plan.texts)
            doc_vecs = self._check_vectors(raw, plan.texts, "text", plan)
        if plan.queries:
            raw = await asyncio.gather(*(self.embeddings.aembed_query(q) for q in plan.queries))
            query_vecs = self._check_vectors(list(raw), plan.queries, "query")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self._execute, plan, doc_vecs, query_vecs)

    def _plan(self, ops: Iterable[Op]) -> _Plan:
        ops = list(ops)
        plan = _Plan(n_ops=len(ops))
        queries: dict[str, None] = {}
        for i, op in enumerate(ops):
            if isinstance(op, PutOp):
                self._plan_put(op, plan)
                continue
            if not isinstance(op, (GetOp, SearchOp, ListNamespacesOp)):
                raise TypeError(f"unknown store operation {op!r} of type {type(op).__name__}")
            validate_op_namespace(op)
            if isinstance(op, GetOp) and not isinstance(op.key, str):
                raise TypeError(f"key must be str, got {op.key!r}")
            if isinstance(op, (SearchOp, ListNamespacesOp)):
                for name in ("limit", "offset"):
                    v = getattr(op, name)
                    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                        raise ValueError(f"{name} must be an int >= 0, got {v!r}")
            if isinstance(op, SearchOp):
                if op.filter is not None and not isinstance(op.filter, Mapping):
                    raise TypeError(f"filter must be a dict, got {op.filter!r}")
                _check_filter(op.filter or {})
                if op.query is not None and not isinstance(op.query, str):
                    raise TypeError(f"query must be str, got {op.query!r}")
                if op.query and self.embeddings is not None:
                    queries[op.query] = None
            plan.reads.append((i, op))
        plan.queries = list(queries)
        plan.texts = list(dict.fromkeys(t for pairs in plan.put_texts.values() for _, t in pairs))
        return plan

    def _plan_put(self, op: PutOp, plan: _Plan) -> None:
        ns, key = op.namespace, op.key
        validate_op_namespace(op)
        if not isinstance(ns, tuple):
            raise TypeError(f"namespace must be a tuple of str, got {ns!r}")
        if not isinstance(key, str):
            raise TypeError(f"key must be str, got {key!r}")
        if op.ttl is not None:
            raise NotImplementedError(f"FaissStore does not support TTL, got ttl={op.ttl!r}")
        if op.value is None:
            plan.puts[(ns, key)] = None
            plan.put_texts.pop((ns, key), None)
            return
        if not isinstance(op.value, Mapping):
            raise TypeError(f"value for {ns!r}/{key!r} must be a dict, got {op.value!r}")
        value = _json_copy(op.value, f"value for {ns!r}/{key!r}")
        if op.index is not None and op.index is not False:
            if isinstance(op.index, str) or not all(isinstance(p, str) and p for p in op.index):
                raise TypeError(
                    f"index must be False, None or a list of field paths, got {op.index!r}"
                )
        plan.puts[(ns, key)] = value
        pairs: list[tuple[str, str]] = []
        if self.embeddings is not None and op.index is not False:
            paths = self._fields if op.index is None else [(p, tokenize_path(p)) for p in op.index]
            for path, tokens in paths:
                found = get_text_at_path(value, tokens)
                if len(found) > 1:
                    pairs.extend((f"{path}.{j}", t) for j, t in enumerate(found))
                elif found:
                    pairs.append((path, found[0]))
        plan.put_texts[(ns, key)] = pairs

    def _check_vectors(
        self, raw: Any, texts: list[str], kind: str, plan: _Plan | None = None
    ) -> np.ndarray:
        """Turn embedder output into unit float32 rows, or raise naming the bad text (and item)."""

        def who(text: str) -> str:
            for (ns, key), pairs in (plan.put_texts if plan else {}).items():
                if any(t == text for _, t in pairs):
                    return f" (item {ns!r}/{key!r})"
            return ""

        try:
            n = len(raw)
        except TypeError:
            raise TypeError(
                f"embed returned {type(raw).__name__}, expected a list of vectors"
            ) from None
        if n != len(texts):
            raise ValueError(f"embed returned {n} vectors for {len(texts)} texts")
        try:
            arr = np.asarray(raw, dtype=np.float64)
            ok = arr.shape == (n, self.dims)
        except (TypeError, ValueError):
            ok = False
        if not ok:  # find the offending row to name it
            for v, t in zip(raw, texts, strict=False):
                try:
                    row = np.asarray(v, dtype=np.float64)
                except (TypeError, ValueError):
                    raise TypeError(
                        f"embedding for {kind} {_short(t)}{who(t)} is not a vector of numbers: "
                        f"{v!r:.80}"
                    ) from None
                if row.shape != (self.dims,):
                    raise ValueError(
                        f"embedding for {kind} {_short(t)}{who(t)} has shape {row.shape}, "
                        f"expected ({self.dims},) as index['dims'] says"
                    )
            raise ValueError(f"embed returned vectors of inconsistent shape for {len(texts)} texts")
        finite = np.isfinite(arr).all(axis=1)
        if not finite.all():
            t = texts[int(np.argmin(finite))]
            raise ValueError(f"embedding for {kind} {_short(t)}{who(t)} contains NaN or infinity")
        # Scale by the largest component first: the norm of a vector of 1e300s overflows.
        scale = np.abs(arr).max(axis=1)
        if (scale == 0).any():
            t = texts[int(np.argmax(scale == 0))]
            raise ValueError(
                f"embedding for {kind} {_short(t)}{who(t)} is a zero vector (no cosine)"
            )
        arr = arr / scale[:, None]
        unit = arr / np.linalg.norm(arr, axis=1)[:, None]
        return np.ascontiguousarray(unit.astype(np.float32))

    def _execute(
        self, plan: _Plan, doc_vecs: np.ndarray | None, query_vecs: np.ndarray | None
    ) -> list[Result]:
        results: list[Result] = [None] * plan.n_ops
        qmap = {q: query_vecs[j] for j, q in enumerate(plan.queries)}
        with self._lock:
            # Reads see the store as it was before this batch's writes, as in InMemoryStore.
            for i, op in plan.reads:
                if isinstance(op, GetOp):
                    item = self._data.get(op.namespace, {}).get(op.key)
                    results[i] = None if item is None else self._copy_item(item)
                elif isinstance(op, SearchOp):
                    results[i] = self._search(op, qmap.get(op.query) if op.query else None)
                else:
                    results[i] = self._list_namespaces(op)
            if plan.puts:
                self._write(plan, doc_vecs)
        return results

    @staticmethod
    def _copy_item(item: Item, score: float | None = None, search: bool = False) -> Item:
        kw = {"value": _copy(item.value), "key": item.key, "namespace": item.namespace}
        kw.update(created_at=item.created_at, updated_at=item.updated_at)
        return SearchItem(**kw, score=score) if search else Item(**kw)

    def _saved(self, ns: tuple[str, ...], items: dict[str, Item]) -> list:
        """A namespace's items as saved: [key, value, created, updated, {field path: vector id}]."""
        dates = lambda it: (it.created_at.isoformat(), it.updated_at.isoformat())  # noqa: E731
        return [
            [k, it.value, *dates(it), self._vec_ids.get((ns, k), {})] for k, it in items.items()
        ]

    def _write(self, plan: _Plan, doc_vecs: np.ndarray | None) -> None:
        """Give the batch's vectors ids, log it (durable stores), then apply it in memory."""
        row_of = {t: j for j, t in enumerate(plan.texts)}
        ops, rows, next_id = [], [], self._next_id
        for (ns, key), value in plan.puts.items():
            ids = {}
            for path, text in plan.put_texts.get((ns, key), []) if value is not None else ():
                ids[path], next_id = next_id, next_id + 1
                rows.append(row_of[text])
            ops.append((ns, key, value, ids))
        vecs = doc_vecs[rows] if rows else None
        now = datetime.now(timezone.utc)
        if self.autosave:
            self._log_append(ops, vecs, now)  # raises before anything changed in memory
        trained = self._apply(ops, vecs, now)
        # A delete snapshots at once: the deleted value must not stay readable in the log's bytes
        # (a forget leaves no trace in the files); deletes are rare, puts stay one append. Newly
        # trained IVF lists are saved at once, so that reopening does not train them again.
        deleted = any(value is None for _, _, value, _ in ops)
        if self.autosave and (deleted or trained or self._log_ops >= self.snapshot_every):
            try:
                self.save()
            except Exception as exc:  # the write is durable in the log; snapshot again later
                warnings.warn(f"FaissStore snapshot failed, log kept: {exc!r}", stacklevel=3)

    def _apply(self, ops: list, vecs: np.ndarray | None, now: datetime) -> bool:
        """Apply logged writes [(ns, key, value or None, {path: vector id})]; True if IVF trained."""
        add_ids = np.asarray([v for *_, ids in ops for v in ids.values()], dtype=np.int64)
        old_ids = [v for ns, key, *_ in ops for v in self._vec_ids.get((ns, key), {}).values()]
        if len(add_ids):  # FAISS first: if adding fails, nothing has changed yet
            self._index.add_with_ids(vecs, add_ids)
            if self._floats is not None:
                os.pwrite(self._floats_fd(), vecs.tobytes(), int(add_ids[0]) * vecs[0].nbytes)
            self._next_id = max(self._next_id, int(add_ids.max()) + 1)
        if old_ids:
            if self.index_type.startswith("hnsw"):
                self._tombstones.update(old_ids)
            else:
                self._index.remove_ids(np.asarray(old_ids, dtype=np.int64))
        for ns, key, value, ids in ops:
            nk = (ns, key)
            self._selectors = {p: s for p, s in self._selectors.items() if ns[: len(p)] != p}
            old_vids = self._vec_ids.pop(nk, None)
            if old_vids:
                self._ns_nvec[ns] -= len(old_vids)
                for vid in old_vids.values():
                    del self._owner[vid]
            items = self._data.get(ns)
            old = items.get(key) if items is not None else None
            if old is not None and not old_vids:
                self._n_unindexed -= 1
            if value is None:
                if old is not None:
                    del items[key]
                    del self._seq[nk]
                continue
            if items is None:
                items = self._data[ns] = {}
                self._ns_rank[ns] = len(self._ns_rank)
            if old is None:
                self._seq[nk] = self._next_seq
                self._next_seq += 1
            created = old.created_at if old is not None else now
            items[key] = Item(
                value=value, key=key, namespace=ns, created_at=created, updated_at=now
            )
            if ids:
                self._vec_ids[nk] = ids
                self._ns_nvec[ns] = self._ns_nvec.get(ns, 0) + len(ids)
                for vid in ids.values():
                    self._owner[vid] = nk
            else:
                self._n_unindexed += 1
        return self._maybe_rebuild()

    def _maybe_rebuild(self) -> bool:
        """Rebuild an HNSW index with too many tombstones, train an untrained one (_TRAINED types)
        that reached IVF_TRAIN_AT vectors, retrain IVF lists that could be 1.4 times as many."""
        n, ivf = len(self._owner), self._ivf()
        if self.index_type in _TRAINED and n >= IVF_TRAIN_AT:
            grown = ivf is not None and _nlist(n, self.index_type) >= IVF_GROWTH * ivf.nlist
            if grown or (ivf is None and self._graph() is None):
                self._rebuild()
                return True
        if self._tombstones and len(self._tombstones) > self.rebuild_fraction * self._index.ntotal:
            self._rebuild()
        return False

    def _ivf(self) -> Any:
        """The index as faiss.IndexIVF, or None (another type, or an ivf_sq store not trained)."""
        return self._index if isinstance(self._index, faiss.IndexIVF) else None

    def _graph(self) -> Any:
        """The HNSW index in the id map, or None (flat, IVF, or an hnsw_sq4 store not trained)."""
        if not isinstance(self._index, faiss.IndexIDMap2):
            return None
        base = faiss.downcast_index(self._index.index)
        return base if isinstance(base, faiss.IndexHNSW) else None

    def _vectors(self, ids: np.ndarray) -> np.ndarray:
        """Float32 rows of these vector ids: from the index, or from the float file (SQ8 types)."""
        if self._floats is None:
            return self._index.reconstruct_batch(ids)
        if len(ids) and (int(ids.max()) + 1) * self.dims * 4 > len(self._floats):
            self._floats = mmap.mmap(self._floats_fd(), 0, prot=mmap.PROT_READ)
        return np.frombuffer(self._floats, dtype=np.float32).reshape(-1, self.dims)[ids]

    def _floats_fd(self) -> int:
        """The float32 vectors of an SQ8 store, row i = vector id i, in a file beside it."""
        if self._floats_file is None:
            if self.path is None:
                fd, name = tempfile.mkstemp(prefix="faiss-floats-")
                os.unlink(name)  # lives as long as the descriptor
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path / "vectors.f32", os.O_RDWR | os.O_CREAT, 0o644)
            self._floats_file = fd
        return self._floats_file

    def _rebuild(self) -> None:
        """Rebuild the FAISS index from live vectors, dropping tombstones (ivf_sq: retrain)."""
        live = np.sort(np.fromiter(self._owner.keys(), dtype=np.int64, count=len(self._owner)))
        fresh = self._new_index(live)
        for start in range(0, len(live), 1 << 16):  # bounded memory at a million vectors
            chunk = live[start : start + (1 << 16)]
            fresh.add_with_ids(self._vectors(chunk), chunk)
        self._index = fresh
        self._tombstones.clear()

    def compact(self) -> int:
        """Rebuild the index without tombstoned vectors; return how many were dropped."""
        with self._lock:
            dropped = len(self._tombstones)
            if self._index is not None and dropped:
                self._rebuild()
            return dropped

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = [ns for ns, items in self._data.items() if items]
        for condition in op.match_conditions or ():
            found = [ns for ns in found if _does_match(condition, ns)]
        found = sorted(found if op.max_depth is None else {ns[: op.max_depth] for ns in found})
        return found[op.offset : op.offset + op.limit]

    def _iter_items(self, prefix: tuple[str, ...], filt: Mapping | None) -> Iterable[Item]:
        """Items under a namespace prefix that pass the filter, in listing order."""
        n = len(prefix)
        for items in (its for ns, its in self._data.items() if ns[:n] == prefix):
            for item in items.values():
                if not filt or _matches(item.value, filt):
                    yield item

    def _search(self, op: SearchOp, qvec: np.ndarray | None) -> list[SearchItem]:
        prefix, filt = tuple(op.namespace_prefix), op.filter
        offset, limit = op.offset, op.limit
        if qvec is None:  # no query (or no index): listing order
            page = []
            for j, item in enumerate(self._iter_items(prefix, filt)):
                if j >= offset + limit:
                    break
                if j >= offset:
                    page.append(self._copy_item(item, search=True))
            return page

        need, fraction, accept, selector = offset + limit, 1.0, None, None
        scoreless: list[Item] | None = None
        subset: list[int] | None = None
        if filt:  # filters run in Python over the candidate items
            subset, scoreless = [], []
            for item in self._iter_items(prefix, filt):
                vids = self._vec_ids.get((item.namespace, item.key))
                if vids:
                    subset.extend(vids.values())
                else:
                    scoreless.append(item)
        else:  # a prefix alone: count its vectors per namespace, no item scan
            n = len(prefix)
            matching = [ns for ns in self._data if ns[:n] == prefix]
            m = sum(self._ns_nvec.get(ns, 0) for ns in matching)
            if m < len(self._owner):
                fraction = m / max(1, len(self._owner))
                if m <= self.exact_threshold or fraction < 0.25:
                    selector = self._selectors.get(prefix)
                    if selector is None:
                        subset = [
                            vid
                            for ns in matching
                            for key in self._data[ns]
                            for vid in self._vec_ids.get((ns, key), {}).values()
                        ]
                    if selector is None and m > self.exact_threshold:  # kept until a write here
                        selector = (faiss.IDSelectorBatch(np.asarray(subset, dtype=np.int64)), m)
                        self._selectors[prefix], subset = selector, None
                else:  # most vectors qualify: search everything, drop the others
                    accept = set(matching)
        ranked = self._rank(qvec, need, subset, accept, fraction, selector, prefix)
        out = [
            self._copy_item(self._data[ns][key], score, search=True)
            for score, (ns, key) in ranked[offset:need]
        ]
        if len(out) < limit and len(ranked) < need:
            # Every scored candidate is ranked; unscored items follow in listing order.
            if scoreless is None:
                items = self._iter_items(prefix, filt) if self._n_unindexed else ()
                scoreless = [it for it in items if (it.namespace, it.key) not in self._vec_ids]
            start = max(0, offset - len(ranked))
            out.extend(
                self._copy_item(it, None, search=True)
                for it in scoreless[start : start + limit - len(out)]
            )
        return out

    def _rank(
        self,
        qvec: np.ndarray,
        need: int,
        subset: list[int] | None = None,
        accept: set | None = None,
        fraction: float = 1.0,
        selector: tuple | None = None,
        prefix: tuple = (),
    ) -> list:
        """Top `need` items by max inner product over their vectors: [(score, (ns, key))].

        Equal scores keep listing order, on every path, so pages through ties neither repeat nor
        skip items. subset: the only vector ids allowed, in listing order (exact numpy if small,
        else a FAISS IDSelector); selector: (an IDSelector, its size) for the same, built before;
        accept: namespaces allowed, checked after an over-fetching FAISS search; prefix: searched.
        """
        if need <= 0 or not self._owner or (subset is not None and not subset):
            return []
        out: list[tuple[float, NsKey]] = []
        seen: set[NsKey] = set()

        def collect(scores: Iterable[float], ids: Iterable[int], stop: int = 0) -> None:
            for s, vid in zip(scores, ids, strict=False):
                owner = self._owner.get(int(vid))
                if owner is None or owner in seen:  # -1, tombstone, or a weaker vector
                    continue
                if accept is not None and owner[0] not in accept:
                    continue
                seen.add(owner)
                out.append((float(s), owner))
                if len(out) == stop:
                    return

        if subset is not None and len(subset) <= self.exact_threshold:
            ids = np.asarray(subset, dtype=np.int64)
            scores = self._vectors(ids) @ qvec
            order = np.argsort(-scores, kind="stable")  # ties stay in listing order
            collect(scores[order].tolist(), ids[order].tolist(), stop=need)
            return out

        total = self._index.ntotal
        selector, reachable = selector or (None, 0)
        if subset is not None:
            selector = faiss.IDSelectorBatch(np.asarray(subset, dtype=np.int64))
            reachable = len(subset)
        elif selector is None:
            reachable = total - len(self._tombstones) if accept is None else total
        # One hit more than needed: if it scores below the need-th, no tie was cut off.
        skipped = len(self._tombstones) if selector is None else 0  # selectors skip them
        k = min(total, int(need / (1.0 if accept is None else fraction)) + 1 + skipped)
        query, share = qvec.reshape(1, -1), reachable / max(1, total)
        while True:
            if k >= total and self.index_type in _TRAINED:  # every vector asked for: IVF misses
                n, live = len(prefix), self._owner.items()  # (lists not probed; PQ FastScan
                ids = np.asarray(subset or [v for v, o in live if o[0][:n] == prefix])  # drops
                scores = self._vectors(ids) @ qvec  # its table's floor): score them exactly
                order = np.argsort(-scores, kind="stable")[None, :]
                scores, ids = scores[order], ids[order]
            else:
                scores, ids = self._faiss_search(query, k, selector, share)
            out.clear()
            seen.clear()
            collect(scores[0].tolist(), ids[0].tolist())
            exhausted = k >= total or len(seen) >= reachable
            if len(out) >= need:
                # FAISS cuts ties at k arbitrarily: fetch until the last hit scores below the
                # need-th item, so every item tied with it is among the hits, then order ties.
                returned = scores[0][ids[0] >= 0]
                if exhausted or returned[-1] < out[need - 1][0]:
                    break
            elif exhausted:
                break
            k = min(total, k * 4)
        rank, seq = self._ns_rank, self._seq
        out.sort(key=lambda hit: (-hit[0], rank[hit[1][0]], seq[hit[1]]))
        return out[:need]

    def _faiss_search(self, query: np.ndarray, k: int, selector: Any, share: float) -> tuple:
        """FAISS's top k (SQ, PQ: of RERANK * k, re-scored); with a selector passing a share of
        the vectors, IVF scans nprobe / share lists and HNSW keeps efSearch / share candidates."""
        ivf, graph = self._ivf(), self._graph()
        fetch = RERANK.get(self.index_type, 1) if ivf is not None or graph is not None else 1
        if ivf is not None or graph is not None:
            wide = 1.0 if selector is None else max(share, 1e-9)
            if ivf is not None:
                nprobe = min(ivf.nlist, math.ceil(self.nprobe / wide))
                coarse = faiss.SearchParametersHNSW(efSearch=max(64, nprobe))
                params = faiss.SearchParametersIVF(nprobe=nprobe, quantizer_params=coarse)
            else:
                ef = min(graph.ntotal, math.ceil(max(self.ef_search, k * fetch) / wide))
                params = faiss.SearchParametersHNSW(efSearch=max(ef, k * fetch))
            if selector is not None:
                params.sel = selector
        else:
            params = faiss.SearchParameters(sel=selector) if selector is not None else None
        scores, ids = self._index.search(query, k * fetch, params=params)
        if fetch > 1:
            ids = ids[:, ids[0] >= 0]
            scores = (self._vectors(ids[0]) @ query[0])[None, :]
            order = np.argsort(-scores[0], kind="stable")[:k]
            scores, ids = scores[:, order], ids[:, order]
        return scores, ids

    def _config_doc(self) -> dict:
        return {
            "dims": self.dims,
            "fields": self.index_config["fields"] if self.index_config else None,
            "index_type": self.index_type,
            "hnsw_m": self.hnsw_m,
            "ef_construction": self.ef_construction,
        }

    def _is_home(self, target: Path) -> bool:
        return self.path is not None and target.resolve() == self.path.resolve()

    def _acquire(self, target: Path) -> None:
        """Hold the directory's writer lock for the life of this store, or raise StoreConflictError."""
        where = target.resolve()
        if where in self._locks:
            return
        fd = os.open(where / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() < deadline:
                    time.sleep(0.01)
                    continue
                holder = os.pread(fd, 64, 0).decode("utf-8", "replace").strip() or "?"
                os.close(fd)
                raise StoreConflictError(
                    f"{str(target)!r} is locked by another FaissStore (process {holder}) that "
                    "writes it: one writer per directory. close() the other store, or open this "
                    "one only to read"
                ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._locks[where] = fd

    def close(self) -> None:
        """Release the directory locks this store holds; the store stays usable in memory."""
        with self._lock:
            locks, self._locks = self._locks, {}
            if self._log_fd is not None:
                locks[None], self._log_fd = self._log_fd, None
            for fd in locks.values():
                os.close(fd)  # closing the descriptor releases its flock

    def __enter__(self) -> FaissStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        fds = [*getattr(self, "_locks", {}).values(), getattr(self, "_log_fd", None)]
        for fd in (*fds, getattr(self, "_floats_file", None)):
            with contextlib.suppress(OSError, TypeError):  # TypeError: None, never opened
                os.close(fd)

    def _claim(self) -> None:
        """Hold self.path's writer lock, refusing if another store wrote there since we read it."""
        where = self.path.resolve()
        fresh = where not in self._locks
        self._acquire(self.path)
        if not fresh:  # held since our last check: nobody else can have written
            return
        on_disk, newer = _read_generation(self.path), b""
        if on_disk == self._generation and self._log_name is not None:
            with open(self.path / self._log_name, "rb") as f:
                f.seek(self._log_size)
                newer = f.read()
        if on_disk != self._generation or _read_log(newer, self.path)[0]:
            os.close(self._locks.pop(where))  # a stale store does not keep other writers out
            raise StoreConflictError(
                f"{str(self.path)!r} was saved by another FaissStore since this one opened it "
                f"(generation {on_disk} on disk, {self._generation} here); saving would "
                "drop its writes. Reopen the directory and apply your writes again"
            )

    def _log_append(self, ops: list, vecs: np.ndarray | None, now: datetime) -> None:
        """Append one batch to the write-ahead log and fsync it: the write is then durable."""
        if self._log_fd is None:
            if self._log_name is None:  # nothing saved here yet: start with an empty snapshot
                self.save()
            self._claim()
            fd = os.open(self.path / self._log_name, os.O_WRONLY)
            os.ftruncate(fd, self._log_size)  # drop a torn record a killed writer left
            self._log_fd, self._log_end = fd, self._log_size
        doc = {"t": now.isoformat(), "ops": [[list(ns), k, v, ids] for ns, k, v, ids in ops]}
        body = json.dumps(doc, ensure_ascii=False).encode("utf-8")
        payload = struct.pack("<I", len(body)) + body + (b"" if vecs is None else vecs.tobytes())
        record = _RECORD.pack(len(payload), zlib.crc32(payload)) + payload
        try:
            if self._log_size + len(record) > self._log_end:  # zeros ahead: appends overwrite
                grow = max(LOG_CHUNK, len(record))
                os.pwrite(self._log_fd, bytes(grow), self._log_end)
                os.fsync(self._log_fd)
                self._log_end += grow
            if os.pwrite(self._log_fd, record, self._log_size) != len(record):
                raise OSError(f"short write to {self._log_name}")
            os.fdatasync(self._log_fd)  # the file's size is unchanged: data alone is enough
        except BaseException:
            with contextlib.suppress(OSError):  # no partial record left; else open drops it
                os.ftruncate(self._log_fd, self._log_size)
                self._log_end = self._log_size
            raise
        self._log_size += len(record)
        self._log_ops += len(ops)

    def save(self, path: str | os.PathLike | None = None) -> Path:
        """Write a snapshot (item table, FAISS index, empty log), switch to it atomically; return it.

        The first save takes the directory's writer lock (StoreConflictError if another store
        holds it) and keeps it until close(). Saving to the store's own path also refuses, with
        StoreConflictError, when another store wrote there since this one opened it.
        """
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("save() needs a directory: pass path=... here or to FaissStore()")
        with self._lock:
            target.mkdir(parents=True, exist_ok=True)
            home = self._is_home(target)
            self._claim() if home else self._acquire(target)
            gen = f"{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}"
            table = {"next_id": self._next_id, "tombstones": sorted(self._tombstones)}
            table["namespaces"] = [
                [list(ns), self._saved(ns, its)] for ns, its in self._data.items()
            ]
            names = {"items": f"items-{gen}.json", "index": None, "log": f"log-{gen}.wal"}
            data = json.dumps(table, ensure_ascii=False).encode("utf-8")
            _fsync_write(target / names["items"], data)
            if self._index is not None:
                names["index"] = f"index-{gen}.faiss"
                _fsync_write(target / names["index"], faiss.serialize_index(self._index).tobytes())
            _fsync_write(target / names["log"], b"")
            if self._floats is not None and home:
                os.fsync(self._floats_fd())
            elif self._floats is not None:
                rows = self._vectors(np.arange(self._next_id, dtype=np.int64))
                _fsync_write(target / "vectors.f32", rows.tobytes())
            manifest = {"format": FORMAT_VERSION, "generation": gen, "config": self._config_doc()}
            _fsync_write(target / "manifest.json", json.dumps({**manifest, **names}).encode())
            if home:  # the switch is done: this snapshot and its empty log are the current state
                if self._log_fd is not None:
                    os.close(self._log_fd)
                self._generation, self._log_name, self._log_fd = gen, names["log"], None
                self._log_size = self._log_ops = 0
            dir_fd = os.open(target, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
            _remove_stale(target, set(names.values()))
        return target

    @classmethod
    def load(cls, path: str | os.PathLike, **kwargs: Any) -> FaissStore:
        """Open a saved store; pass index={'dims': ..., 'embed': ...} if it was saved with one."""
        if not (Path(path) / "manifest.json").exists():
            raise FileNotFoundError(f"no saved FaissStore in {str(path)!r} (manifest.json missing)")
        return cls(path=path, **kwargs)

    def _clean_if_unlocked(self, path: Path) -> None:
        """Remove files left by interrupted saves, unless a writer holds the directory."""
        try:
            fd = os.open(path / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:  # a read-only directory: nothing to clean, nothing we could
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # a writer is at work; it cleans up after its own saves
            os.close(fd)
            return
        try:
            keep: set[str | None] = set()
            if (path / "manifest.json").exists():
                manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
                keep = {manifest.get(name) for name in ("items", "index", "log")}
            _remove_stale(path, keep)
        finally:
            os.close(fd)

    def _read_generation_files(self, path: Path) -> tuple[dict, dict, np.ndarray | None, bytes]:
        """Manifest, item table, raw index and log of one complete generation.

        A save running at the same time may replace the manifest and delete the files it named
        between our reads; then the manifest has moved on and we read the new generation.
        """
        for _attempt in range(LOAD_RETRIES):
            manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
            try:
                table = json.loads((path / manifest["items"]).read_text(encoding="utf-8"))
                raw = None
                if manifest["index"] is not None:
                    raw = np.fromfile(path / manifest["index"], dtype=np.uint8)
                log = (path / manifest["log"]).read_bytes() if manifest.get("log") else b""
                return manifest, table, raw, log
            except FileNotFoundError:
                if _read_generation(path) == manifest["generation"]:
                    raise  # not a concurrent save: the directory is damaged
        raise RuntimeError(f"{path}: the manifest changed {LOAD_RETRIES} times while reading it")

    def _load(self, path: Path) -> None:
        manifest, table, raw, log = self._read_generation_files(path)
        if manifest.get("format") not in (1, FORMAT_VERSION):
            raise ValueError(f"{path}: unsupported format {manifest.get('format')!r}")
        config = manifest["config"]
        if config["dims"] is not None and self.dims is None:
            raise ValueError(
                f"{path} was saved with a vector index ({config['dims']} dims, fields "
                f"{config['fields']}): pass index={{'dims': ..., 'embed': ...}} to open it"
            )
        mine = self._config_doc()
        if config["dims"] is None:
            if self.dims is not None:
                raise ValueError(f"{path} was saved without a vector index; open it without index=")
        else:
            for name in ("dims", "fields", "index_type"):
                if config[name] != mine[name]:
                    raise ValueError(
                        f"{path} was saved with {name}={config[name]!r}, "
                        f"but this store was configured with {name}={mine[name]!r}"
                    )
            self.hnsw_m, self.ef_construction = config["hnsw_m"], config["ef_construction"]
        data: dict[tuple[str, ...], dict[str, Item]] = {}
        vec_ids: dict[NsKey, dict[str, int]] = {}
        owner: dict[int, NsKey] = {}
        ns_nvec: dict[tuple[str, ...], int] = {}
        seq: dict[NsKey, int] = {}
        n_unindexed, dates, parse = 0, {}, datetime.fromisoformat  # a batch shares its dates
        for ns_list, rows in table["namespaces"]:
            ns = tuple(ns_list)
            items = data[ns] = {}
            for key, value, created, updated, ids in rows:
                c = dates.get(created) or dates.setdefault(created, parse(created))
                u = dates.get(updated) or dates.setdefault(updated, parse(updated))
                items[key] = Item(value=value, key=key, namespace=ns, created_at=c, updated_at=u)
                seq[nk := (ns, key)] = len(seq)
                if ids:  # {field path: vector id}, as saved
                    vec_ids[nk] = ids
                    ns_nvec[ns] = ns_nvec.get(ns, 0) + len(ids)
                    for v in ids.values():
                        owner[v] = nk
                else:
                    n_unindexed += 1
        index = self._index
        if raw is not None:
            index = faiss.deserialize_index(raw)
            expected = len(owner) + len(table["tombstones"])
            if index.ntotal != expected or index.d != self.dims:
                raise ValueError(
                    f"{path}: index holds {index.ntotal} vectors of {index.d} dims, "
                    f"item table expects {expected} of {self.dims}"
                )
        used = max(max(owner, default=-1), max(table["tombstones"], default=-1))
        if table["next_id"] <= used:
            raise ValueError(f"{path}: next_id {table['next_id']} would reuse vector id {used}")
        self._data, self._vec_ids, self._owner = data, vec_ids, owner
        self._tombstones = set(table["tombstones"])
        self._next_id = table["next_id"]
        self._n_unindexed = n_unindexed
        self._ns_nvec = ns_nvec
        self._seq, self._next_seq = seq, len(seq)
        self._ns_rank = {ns: r for r, ns in enumerate(data)}
        self._index = index
        self._generation = manifest["generation"]
        records, end = _read_log(log, path)
        for doc, raw_vecs in records:  # replay the writes acknowledged since the snapshot
            ops = [(tuple(ns), k, v, ids) for ns, k, v, ids in doc["ops"]]
            vecs = np.frombuffer(raw_vecs, dtype=np.float32).reshape(-1, self.dims or 1)
            self._apply(ops, vecs if len(vecs) else None, datetime.fromisoformat(doc["t"]))
        self._log_name, self._log_size = manifest.get("log"), end
        self._log_ops = sum(len(doc["ops"]) for doc, _ in records)


def _read_generation(path: Path) -> str | None:
    """The generation the directory's manifest names, or None if nothing was saved there."""
    try:
        text = (path / "manifest.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return json.loads(text)["generation"]


def _read_log(data: bytes, where: Path) -> tuple[list[tuple[dict, bytes]], int]:
    """The complete records of a log, [(writes, vector bytes)], and the offset where they end.

    A torn last record (a writer killed mid-append, so never acknowledged) is left out; a bad
    record followed by more data means the file is damaged: ValueError.
    """
    out, pos = [], 0
    while pos + _RECORD.size <= len(data):
        length, crc = _RECORD.unpack_from(data, pos)
        end = pos + _RECORD.size + length
        payload = data[pos + _RECORD.size : end]
        if end > len(data) or length < 4 or zlib.crc32(payload) != crc:
            if end < len(data) and any(data[end:]):
                raise ValueError(f"{where}: log record at byte {pos} is damaged, and not the last")
            break
        n = struct.unpack_from("<I", payload)[0]
        out.append((json.loads(payload[4 : 4 + n].decode("utf-8")), payload[4 + n :]))
        pos = end
    return out, pos


def _remove_stale(path: Path, keep: set[str | None]) -> None:
    """Delete generation files the manifest does not name and temporary files of broken saves."""
    stale = [*path.glob("items-*.json"), *path.glob("index-*.faiss"), *path.glob("log-*.wal")]
    stale += path.glob(".*.tmp")
    for old in stale:
        if old.name not in keep:
            old.unlink(missing_ok=True)
