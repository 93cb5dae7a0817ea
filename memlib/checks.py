"""Argument checks shared by every layer: one rule for each kind of value, one message style.

Each check returns the value it accepted (so `uid = check_user_id(user_id)` reads well) or raises
`TypeError` (wrong kind of value) / `ValueError` (right kind, bad value) naming the argument, the
value it got and what was expected. Leaves out: anything layer-specific (a profile's fields, a
prompt's variables), which stays with its layer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_str(value: Any, name: str, *, allow_empty: bool = False) -> str:
    """A string (non-blank unless allow_empty), or an error naming `name`."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}: {_shown(value)}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must be a non-empty string, got {_shown(value)}")
    return value


def check_user_id(user_id: Any, name: str = "user_id") -> str:
    """A user id usable as a store namespace label: a non-blank str, no surrounding spaces, no '.'
    or NUL (LangGraph's label rules). Integers are refused: convert with str() once, at the edge."""
    if not isinstance(user_id, str):
        raise TypeError(
            f"{name} must be a str (namespace labels are strings; convert ids with str()), got "
            f"{type(user_id).__name__}: {_shown(user_id)}"
        )
    if not user_id.strip() or user_id != user_id.strip():
        raise ValueError(f"{name} must be non-empty without surrounding spaces, got {user_id!r}")
    if "." in user_id or "\x00" in user_id:
        raise ValueError(f"{name} cannot contain '.' or NUL (store label rules), got {user_id!r}")
    return user_id


def check_namespace(namespace: Any, name: str = "namespace") -> tuple[str, ...]:
    """A store namespace: a non-empty tuple or list of non-empty strings without '.' (a bare
    string is refused: tuple("ns") would silently become ("n", "s"))."""
    if isinstance(namespace, str) or not isinstance(namespace, Sequence):
        raise TypeError(
            f"{name} must be a tuple of strings such as ('users', 'ana'), got "
            f"{type(namespace).__name__}: {_shown(namespace)}"
        )
    if not namespace:
        raise ValueError(f"{name} must have at least one label, got {_shown(namespace)}")
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label:
            raise ValueError(
                f"{name} labels must be non-empty strings without '.', got {label!r} in "
                f"{_shown(namespace)}"
            )
    return tuple(namespace)


def namespace_for(template: Any, user_id: Any) -> tuple[str, ...]:
    """Fill "{user_id}" in a namespace template, as LangMem does from config["configurable"]."""
    uid = check_user_id(user_id)
    labels = check_namespace(template, "namespace template")
    return tuple(uid if part == "{user_id}" else part for part in labels)


def check_store(store: Any, name: str = "store") -> Any:
    """A LangGraph BaseStore (InMemoryStore, FaissStore, SqliteStore, PostgresStore, ...)."""
    from langgraph.store.base import BaseStore

    if not isinstance(store, BaseStore):
        raise TypeError(
            f"{name} must be a LangGraph BaseStore (e.g. InMemoryStore), got "
            f"{type(store).__name__}: {_shown(store)}"
        )
    return store


def check_int(value: Any, name: str, *, minimum: int | None = None) -> int:
    """An int (not a bool) at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}: {_shown(value)}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return value


def check_number(value: Any, name: str, *, minimum: float | None = None) -> float:
    """A finite real number (not a bool) at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}: {_shown(value)}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return float(value)


def check_messages(messages: Any, name: str = "messages") -> list:
    """A list of langchain messages (a bare string or a list of strings is refused)."""
    from langchain_core.messages import BaseMessage

    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise TypeError(
            f"{name} must be a list of langchain messages, got {type(messages).__name__}: "
            f"{_shown(messages)}"
        )
    for i, m in enumerate(messages):
        if not isinstance(m, BaseMessage):
            raise TypeError(
                f"{name}[{i}] must be a langchain message (HumanMessage, AIMessage, ...), got "
                f"{type(m).__name__}: {_shown(m)}"
            )
    return list(messages)
