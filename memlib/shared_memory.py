"""Cross-agent memory: one LangGraph store shared by several agents, with grants and provenance.

Provides `Grant` (read and/or write on a namespace prefix), `permits` / `authorize` (the grant
check on one namespace / a batch of store operations), `ScopedStore` (any store seen by one agent:
a `PermissionError` naming agent and namespace for anything outside its grants, provenance stamped
on every write), `provenance` (read those fields back), and loaders for the fixtures in data/shared_memory/.

Provenance lives in top-level fields of the stored value, so every store can filter on them
(`filter={"written_by": "reviewer"}`; nested keys are not filterable in InMemoryStore):
`written_by` (agent), `written_at` (ISO 8601, UTC), `source_thread` (the LangGraph thread the
write came from, or None), `revision` (1 for a new key, +1 per overwrite) and `previous_writer`
(who wrote the value this one replaced, or None). The wrapper sets them and overwrites any values
a caller put there, so an agent cannot forge another agent's name.

`list_namespaces` through a view lists only namespaces the agent may read (filtered before
`max_depth` truncates them, then paged). Every batch is checked as a whole before anything
reaches the wrapped store: one refused operation refuses the batch, and nothing is written.
Separate `put` calls are separate batches, so writes that must land together go in one `batch`.

Leaves out: authentication (the agent name is trusted; the wrapper guards against mistakes and
badly routed writes, not against code that holds the unwrapped store), grants templated per user,
and atomic revisions: `revision` is read then written, so two processes overwriting one key at
the same moment can both write the same number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
)

from memlib import checks
from memlib.checks import check_kind, check_namespace
from memlib.fixtures import DATA_DIR, read_jsonl

SHARED_DIR = DATA_DIR / "shared_memory"
PROVENANCE_FIELDS = ("written_by", "written_at", "source_thread", "revision", "previous_writer")
_LIST_ALL = 1_000_000  # list_namespaces is filtered after the wrapped store answers


@dataclass(frozen=True)
class Grant:
    """Read and/or write access to every namespace under `prefix`."""

    prefix: tuple[str, ...]
    read: bool = True
    write: bool = False

    def __post_init__(self):
        object.__setattr__(self, "prefix", check_namespace(self.prefix, "grant prefix"))
        if not isinstance(self.read, bool) or not isinstance(self.write, bool):
            raise TypeError(f"grant {self.prefix!r}: read and write must be bools")
        if not (self.read or self.write):
            raise ValueError(f"grant {self.prefix!r} gives neither read nor write")


def check_grant_query(grants: Sequence[Grant], action: str) -> None:
    """permits' argument checks: `action` is 'read' or 'write', `grants` a list of Grant."""
    if action not in ("read", "write"):
        error = ValueError if isinstance(action, str) else TypeError
        raise error(f"action must be 'read' or 'write', got {action!r}")
    if isinstance(grants, str) or not all(isinstance(g, Grant) for g in grants):
        raise TypeError(f"grants must be a list of Grant, got {grants!r:.80}")


def check_scoped_store(
    store: BaseStore, agent: str, grants: Mapping[str, Iterable[Grant]], thread_id: str | None
) -> tuple[Grant, ...]:
    """ScopedStore's argument checks; returns `agent`'s grants as a tuple."""
    checks.check_store(store)
    check_kind(grants, Mapping, "grants", "a dict of agent name -> list of Grants")
    checks.check_str(agent, "agent")
    if agent not in grants:
        raise ValueError(f"unknown agent {agent!r}: grants exist for {sorted(grants)}")
    own = grants[agent]
    if isinstance(own, Grant | str | bytes) or not isinstance(own, Iterable):
        raise TypeError(
            f"grants[{agent!r}] must be a list of Grants, got {type(own).__name__}: {own!r}; "
            f"write [{own!r}] for a single grant"
        )
    own = tuple(own)
    for g in own:
        if not isinstance(g, Grant):
            raise TypeError(f"agent {agent!r}: {g!r} is not a Grant")
    if thread_id is not None:
        checks.check_str(thread_id, "thread_id")
    return own


def check_ops(ops: Iterable[Op]) -> list[Op]:
    """The operations of a ScopedStore batch as a list; TypeError for an unsupported operation
    or a put whose value is not a dict."""
    ops = list(ops)
    for op in ops:
        if not isinstance(op, PutOp | GetOp | SearchOp | ListNamespacesOp):
            raise TypeError(f"unsupported store operation {op!r}")
        if isinstance(op, PutOp) and op.value is not None and not isinstance(op.value, dict):
            raise TypeError(f"value for key {op.key!r} must be a dict, got {op.value!r}")
    return ops


# Saved from notebooks/05_cross_agent_memory.ipynb, In [10]: edit it there, then `make sync`.
def permits(grants: Sequence[Grant], namespace: tuple[str, ...], action: str) -> bool:
    """True if one of `grants` lets its holder `action` ("read" or "write") `namespace`."""
    check_grant_query(grants, action)  # TypeError / ValueError naming a bad action or grant list
    return any(getattr(g, action) and namespace[: len(g.prefix)] == g.prefix for g in grants)


# Saved from notebooks/05_cross_agent_memory.ipynb, In [11]: edit it there, then `make sync`.
def authorize(agent: str, grants: Sequence[Grant], ops: Sequence[Op]) -> None:
    """PermissionError naming the first operation of a batch that `grants` do not allow."""
    for op in ops:
        if isinstance(op, PutOp):  # put, and delete (a PutOp whose value is None)
            action, namespace = "write", check_namespace(op.namespace)
        elif isinstance(op, GetOp):
            action, namespace = "read", check_namespace(op.namespace)
        elif isinstance(op, SearchOp):  # a prefix search reads every namespace below it
            action, namespace = "read", check_namespace(op.namespace_prefix, "search prefix")
        else:
            continue  # list_namespaces: the answer is filtered instead
        if not permits(grants, namespace, action):
            allowed = [g.prefix for g in grants if getattr(g, action)]
            raise PermissionError(
                f"agent {agent!r} may not {action} namespace {namespace!r}; "
                f"its {action} grants cover {allowed}"
            )


# Saved from notebooks/05_cross_agent_memory.ipynb, In [13]: edit it there, then `make sync`.
class ScopedStore(BaseStore):
    """One agent's view of a shared store: grant-checked, provenance-stamped.

    `grants` maps every agent name to its grants; `agent` picks the row. `thread_id`, if given,
    is stamped as `source_thread`; otherwise the thread of the running LangGraph graph is used.
    """

    def __init__(
        self,
        store: BaseStore,
        agent: str,
        grants: Mapping[str, Iterable[Grant]],
        thread_id: str | None = None,
    ):
        self.grants = check_scoped_store(store, agent, grants, thread_id)  # this agent's grants
        self.store, self.agent, self.thread_id = store, agent, thread_id
        self.supports_ttl = store.supports_ttl
        self.ttl_config = getattr(store, "ttl_config", None)

    def can_read(self, namespace: tuple[str, ...]) -> bool:
        """True if a grant lets this agent read `namespace` (and everything under it)."""
        return permits(self.grants, namespace, "read")

    def can_write(self, namespace: tuple[str, ...]) -> bool:
        """True if a grant lets this agent write (put or delete) in `namespace`."""
        return permits(self.grants, namespace, "write")

    def _source_thread(self) -> str | None:
        if self.thread_id is not None:
            return self.thread_id
        try:
            from langgraph.config import get_config

            return get_config().get("configurable", {}).get("thread_id")
        except RuntimeError:  # not inside a graph run
            return None

    def _stamp(self, ops: Sequence[Op], previous: list[Item | None]) -> list[Op]:
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        thread = self._source_thread()
        stamped, prev = [], iter(previous)
        for op in ops:
            if isinstance(op, PutOp) and op.value is not None:
                old = next(prev)
                value = {
                    **op.value,
                    "written_by": self.agent,
                    "written_at": now,
                    "source_thread": thread,
                    "revision": int(old.value.get("revision") or 0) + 1 if old else 1,
                    "previous_writer": old.value.get("written_by") if old else None,
                }
                op = PutOp(op.namespace, op.key, value, index=op.index, ttl=op.ttl)
            elif isinstance(op, ListNamespacesOp):  # list everything, filter in _narrow
                op = ListNamespacesOp(op.match_conditions, None, limit=_LIST_ALL, offset=0)
            stamped.append(op)
        return stamped

    @staticmethod
    def _previous_ops(ops: Sequence[Op]) -> list[GetOp]:
        return [
            GetOp(op.namespace, op.key, refresh_ttl=False)
            for op in ops
            if isinstance(op, PutOp) and op.value is not None
        ]

    def _narrow(self, ops: Sequence[Op], results: list[Result]) -> list[Result]:
        out = []
        for op, res in zip(ops, results, strict=True):
            if isinstance(op, ListNamespacesOp):
                # filter full namespaces first, then truncate, so max_depth cannot hide a grant
                readable = [ns for ns in res if self.can_read(ns)]
                if op.max_depth is not None:
                    readable = sorted({ns[: op.max_depth] for ns in readable})
                res = readable[op.offset : op.offset + op.limit]
            out.append(res)
        return out

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = check_ops(ops)  # TypeError for an unknown operation or a value that is not a dict
        authorize(self.agent, self.grants, ops)  # the whole batch, before anything runs
        gets = self._previous_ops(ops)
        previous = self.store.batch(gets) if gets else []
        return self._narrow(ops, self.store.batch(self._stamp(ops, previous)))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = check_ops(ops)
        authorize(self.agent, self.grants, ops)
        gets = self._previous_ops(ops)
        previous = await self.store.abatch(gets) if gets else []
        return self._narrow(ops, await self.store.abatch(self._stamp(ops, previous)))


def provenance(item: Item) -> dict:
    """The provenance fields of a stored item; ValueError if it was not written through a ScopedStore."""
    if not isinstance(item, Item):
        raise TypeError(f"expected a store Item, got {item!r}")
    missing = [f for f in PROVENANCE_FIELDS if f not in item.value]
    if missing:
        raise ValueError(f"item {item.namespace!r}/{item.key!r} has no provenance fields {missing}")
    return {f: item.value[f] for f in PROVENANCE_FIELDS}


MEMORY_KINDS = ("user", "shared", "private")


def load_shared_memories(path: str | Path | None = None) -> list[dict]:
    """The planted memories of two orgs, four users and three agents (data/shared_memory/memories.jsonl)."""
    path = Path(path) if path is not None else SHARED_DIR / "memories.jsonl"
    rows = read_jsonl(path)
    seen = set()
    for r in rows:
        where = f"{path.name}: memory {r.get('id')!r}"
        for field in ("id", "org", "user_id", "agent", "topic", "text"):
            if not isinstance(r.get(field), str) or not r[field].strip():
                raise ValueError(f"{where}: {field} must be a non-empty str, got {r.get(field)!r}")
        if r.get("kind") not in MEMORY_KINDS:
            raise ValueError(f"{where}: kind must be one of {MEMORY_KINDS}, got {r.get('kind')!r}")
        if r["id"] in seen:
            raise ValueError(f"{path.name}: duplicate memory id {r['id']!r}")
        seen.add(r["id"])
    return rows


def load_memory_queries(
    path: str | Path | None = None, memories: Sequence[dict] | None = None
) -> list[dict]:
    """Questions an agent asks for a user, with the planted memory that answers each."""
    path = Path(path) if path is not None else SHARED_DIR / "queries.jsonl"
    rows = read_jsonl(path)
    ids = {m["id"] for m in (memories if memories is not None else load_shared_memories())}
    for r in rows:
        where = f"{path.name}: query {r.get('id')!r}"
        for field in ("id", "agent", "user_id", "org", "query"):
            if not isinstance(r.get(field), str) or not r[field].strip():
                raise ValueError(f"{where}: {field} must be a non-empty str, got {r.get(field)!r}")
        rel = r.get("relevant")
        if not isinstance(rel, list) or not rel or any(i not in ids for i in rel):
            raise ValueError(f"{where}: relevant must list planted memory ids, got {rel!r}")
    return rows


def load_sources(path: str | Path | None = None) -> list[dict]:
    """Source documents a researcher agent reads (data/shared_memory/sources.jsonl)."""
    path = Path(path) if path is not None else SHARED_DIR / "sources.jsonl"
    rows = read_jsonl(path)
    for r in rows:
        for field in ("id", "org", "title", "text"):
            if not isinstance(r.get(field), str) or not r[field].strip():
                raise ValueError(
                    f"{path.name}: source {r.get('id')!r}: {field} must be a non-empty str"
                )
    return rows
