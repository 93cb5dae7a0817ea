"""Whose data is whose: forget a user, export a user, and threads bound to the user who began them.

Provides `user_namespaces` (every namespace of one user under `memlib.checks.USER_LAYOUTS`, however
many namespaces the store holds), `user_threads` (the threads whose checkpoints carry the user's
id), `forget_user` (the exact "forget me": pending background writes cancelled or drained first,
then every item of every namespace in the user's position, every thread, and on SQLite the freed
pages and the write-ahead log wiped; returns what it deleted, idempotent), `export_user` (its
counterpart: everything stored about a user as one JSON document) and `UserBoundSaver` (wraps any
LangGraph checkpointer so a thread belongs to the user who started it: another user id on its thread
gets `PermissionError` before anything is read or written).

Leaves out: authentication (the user id is trusted: bind it to a login at your API's edge),
PostgreSQL's dead tuples (deleted rows stay in the heap until VACUUM; run `VACUUM` on the store and
checkpoint tables on a schedule), backups and replicas, which keep what they copied.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone

from langchain_core.messages import messages_to_dict
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

from memlib.backends import sqlite_connections, sqlite_scrub
from memlib.checks import (
    USER_LAYOUTS,
    _check_forget_args,
    check_checkpointer,
    check_kind,
    check_store,
    check_user_id,
)
from memlib.rotation import prune_history

# Saved from notebooks/09_full_memory_agent.ipynb, In [21]: edit it there, then `make sync`.
PAGE = 1000


# Saved from notebooks/09_full_memory_agent.ipynb, In [21]: edit it there, then `make sync`.
def _owned(namespace: tuple[str, ...], user_id: str) -> bool:
    return any(namespace[: len(p) + 1] == (*p, user_id) for p in USER_LAYOUTS)


# Saved from notebooks/09_full_memory_agent.ipynb, In [21]: edit it there, then `make sync`.
def user_namespaces(store, user_id: str) -> list[tuple[str, ...]]:
    """Every namespace holding the user's items: the label after a USER_LAYOUTS prefix is theirs."""
    uid = check_user_id(user_id)
    check_store(store)
    found = []
    for layout in USER_LAYOUTS:
        offset = 0
        while page := store.list_namespaces(prefix=(*layout, uid), limit=PAGE, offset=offset):
            found += [ns for ns in page if _owned(ns, uid)]  # a prefix match is only a hint
            offset += len(page)
    return sorted(set(found))


# Saved from notebooks/09_full_memory_agent.ipynb, In [21]: edit it there, then `make sync`.
def _delete_items(store, user_id: str) -> int:
    """Delete every item in the user's position, each under its own namespace, page by page."""
    deleted = 0
    for layout in USER_LAYOUTS:
        root, skipped = (*layout, user_id), 0
        while page := store.search(root, limit=PAGE, offset=skipped):
            for item in page:
                if _owned(item.namespace, user_id):  # its own namespace: a child's, maybe
                    store.delete(item.namespace, item.key)
                    deleted += 1
                else:  # another user's look-alike ("anabel" under "ana"): page past it
                    skipped += 1
    return deleted


# Saved from notebooks/09_full_memory_agent.ipynb, In [21]: edit it there, then `make sync`.
def user_threads(checkpointer, user_id: str) -> list[str]:
    """The thread ids whose checkpoints were written with configurable user_id == user_id."""
    uid = check_user_id(user_id)
    saver = getattr(check_checkpointer(checkpointer), "saver", checkpointer)
    return sorted(
        {t.config["configurable"]["thread_id"] for t in saver.list(None, filter={"user_id": uid})}
    )


# Saved from notebooks/09_full_memory_agent.ipynb, In [21]: edit it there, then `make sync`.
def forget_user(store, checkpointer, user_id: str, *, writers: Sequence = (), threads=()) -> dict:
    """Forget one user: pending writes, items, namespaces, threads and freed bytes. Idempotent."""
    uid = _check_forget_args(store, checkpointer, user_id, writers)
    pending = sum(writer.forget(uid) for writer in writers)  # first: it would write them back
    namespaces = user_namespaces(store, uid)
    items = _delete_items(store, uid)
    left = [ns for ns in user_namespaces(store, uid) if store.search(ns, limit=1)]
    if left:
        raise RuntimeError(f"forget_user({uid!r}): items left after the delete in {left}")
    thread_ids = []
    if checkpointer is not None:
        thread_ids = sorted(set(user_threads(checkpointer, uid)) | set(threads))
        for thread_id in thread_ids:
            checkpointer.delete_thread(thread_id)
    # FaissStore rewrites its files; SQLite zeroes freed pages (secure_delete) and its WAL here
    if callable(getattr(store, "save", None)) and getattr(store, "path", None) is not None:
        store.save()
    for conn in sqlite_connections(store, getattr(checkpointer, "saver", checkpointer)):
        sqlite_scrub(conn)
    counts = {"items": items, "namespaces": namespaces, "threads": thread_ids}
    return {"user_id": uid, **counts, "pending_writes": pending}


def export_user(store, checkpointer, user_id: str) -> dict:
    """Everything stored about a user as one JSON-able document: items, with their provenance and validity fields, and threads."""
    uid = check_user_id(user_id)
    check_store(store)
    check_checkpointer(checkpointer)
    items = []
    for namespace in user_namespaces(store, uid):
        offset = 0
        while page := store.search(namespace, limit=PAGE, offset=offset):
            offset += len(page)
            items += [
                {
                    "namespace": list(item.namespace),
                    "key": item.key,
                    "value": item.value,
                    "created_at": item.created_at.isoformat(),
                    "updated_at": item.updated_at.isoformat(),
                }
                for item in page
                if item.namespace == namespace  # a child namespace is exported on its own
            ]
    threads = {}
    for thread_id in user_threads(checkpointer, uid):
        latest = checkpointer.get_tuple({"configurable": {"thread_id": thread_id}})
        values = latest.checkpoint["channel_values"] if latest else {}
        threads[thread_id] = {
            name: messages_to_dict(value) if name == "messages" else value
            for name, value in values.items()
        }
    document = {"user_id": uid, "exported_at": datetime.now(timezone.utc).isoformat()}
    document |= {"items": items, "threads": threads}
    return json.loads(json.dumps(document, default=str))  # plain JSON, or an error here


# Saved from notebooks/09_full_memory_agent.ipynb, In [12]: edit it there, then `make sync`.
class UserBoundSaver(BaseCheckpointSaver):
    """A checkpointer whose threads belong to the user who began them (`refuse_other_user`)."""

    def __init__(self, saver: BaseCheckpointSaver):
        if not isinstance(saver, BaseCheckpointSaver):
            raise TypeError(f"saver must be a LangGraph checkpointer, got {saver!r}")
        super().__init__(serde=saver.serde)
        self.saver = saver

    def _latest(self, config):
        thread = {"thread_id": config["configurable"]["thread_id"], "checkpoint_ns": ""}
        return self.saver.get_tuple({"configurable": thread})

    def get_tuple(self, config):
        found = self.saver.get_tuple(config)
        refuse_other_user(config, found if found is not None else self._latest(config))
        return found

    def put(self, config, checkpoint, metadata, new_versions):
        refuse_other_user(config, self._latest(config))
        return self.saver.put(config, checkpoint, metadata, new_versions)

    def put_writes(self, config, writes, task_id, task_path=""):
        refuse_other_user(config, self._latest(config))
        return self.saver.put_writes(config, writes, task_id, task_path)

    def list(self, config, *, filter=None, before=None, limit=None) -> Iterator:
        return self.saver.list(config, filter=filter, before=before, limit=limit)

    def delete_thread(self, thread_id):
        return self.saver.delete_thread(thread_id)

    def get_next_version(self, current, channel):
        return self.saver.get_next_version(current, channel)

    async def _alatest(self, config):
        thread = {"thread_id": config["configurable"]["thread_id"], "checkpoint_ns": ""}
        return await self.saver.aget_tuple({"configurable": thread})

    async def aget_tuple(self, config):
        found = await self.saver.aget_tuple(config)
        refuse_other_user(config, found if found is not None else await self._alatest(config))
        return found

    async def aput(self, config, checkpoint, metadata, new_versions):
        refuse_other_user(config, await self._alatest(config))
        return await self.saver.aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config, writes, task_id, task_path=""):
        refuse_other_user(config, await self._alatest(config))
        return await self.saver.aput_writes(config, writes, task_id, task_path)

    async def alist(self, config, *, filter=None, before=None, limit=None):
        async for found in self.saver.alist(config, filter=filter, before=before, limit=limit):
            yield found

    async def adelete_thread(self, thread_id):
        return await self.saver.adelete_thread(thread_id)

    def prune(self, thread_ids, *, strategy="keep_latest"):
        return prune_history(self.saver, thread_ids, strategy=strategy)


# Saved from notebooks/09_full_memory_agent.ipynb, In [12]: edit it there, then `make sync`.
def refuse_other_user(config: dict, latest) -> None:
    """PermissionError when the thread's latest checkpoint carries another user_id."""
    check_kind(config, dict, "config", "a dict")
    check_kind(latest, CheckpointTuple | None, "latest", "a CheckpointTuple or None")
    owner = latest.metadata.get("user_id") if latest is not None else None
    caller = config.get("configurable", {}).get("user_id")
    if owner is not None and owner != caller:
        thread = config["configurable"].get("thread_id")
        raise PermissionError(
            f"thread {thread!r} belongs to another user; user_id {caller!r} cannot use it"
        )
