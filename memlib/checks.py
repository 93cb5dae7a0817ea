"""Argument checks shared by every layer: one rule for each kind of value, one message style.

Each check returns the value it accepted (so `uid = check_user_id(user_id)` reads well) or raises
`TypeError` (wrong kind of value) / `ValueError` (right kind, bad value) naming the argument, the
value it got and what was expected. Leaves out: anything layer-specific (a profile's fields, a
prompt's variables), which stays with its layer.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_kind(value: Any, kind: type | tuple[type, ...], name: str, what: str) -> Any:
    """`value` if it is an instance of `kind`, else a TypeError: "<name> must be <what>, got ..."."""
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}: {_shown(value)}")
    return value


def check_items(value: Any, name: str, what: str, kind: type = Sequence) -> Any:
    """A collection of items (a `kind`: Sequence, or Iterable for any iterable) that is not a str,
    bytes or mapping, which iterate as characters or keys: a TypeError names the value."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, kind):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}: {_shown(value)}")
    return value


def check_str(value: Any, name: str, *, allow_empty: bool = False) -> str:
    """A string (non-blank unless allow_empty), or an error naming `name`."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}: {_shown(value)}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must be a non-empty string, got {_shown(value)}")
    return value


# Where a user's data lives, declared once: in every namespace that starts with one of these
# prefixes, the next label is the user id (("users", "ana", "facts"), ("episodes", "ana"),
# ("memories", "ana", "explicit"), ("audit", "users", "ana")). Forget, export and the tenancy
# tests read this; a layout not listed here is not a user's.
USER_LAYOUTS: tuple[tuple[str, ...], ...] = (
    ("users",),  # 04, 09: ("users", id, "profile" | "facts")
    ("episodes",),  # 03, 09: ("episodes", id)
    ("memories",),  # 07: ("memories", id[, "explicit" | "extracted"])
    ("messages",),  # 11: the full-history strategy's transcript
    ("sessions",),  # 10
    ("audit", "users"),  # 10: the audit trail of writes
)
# Labels the layouts use in fixed positions, and the roles of a chat: never a user id, so no
# user's namespace can look like a layout's and no user can be named after the agent.
RESERVED_LABELS = frozenset(
    {label for layout in USER_LAYOUTS for label in layout}
    | {"facts", "profile", "explicit", "extracted", "notes", "shared", "preferences"}
    | {"prompts", "agents", "org", "private", "drafts", "feedback", "findings", "langgraph"}
    | {"assistant", "system", "user", "tool", "ai", "human"}
)
MAX_ID_LENGTH = 256


def check_user_id(user_id: Any, name: str = "user_id") -> str:
    """A user id usable as a namespace label, NFC-normalised (the form to store and compare).

    Refused: non-strings (convert ids with str() once, at the edge), blank or padded ids, '.' and
    NUL (store label rules), '/' (ids are joined with '/' in thread keys), '*' (list_namespaces'
    wildcard), lone surrogates, control and invisible format characters (a zero-width space is
    not a different user), ids longer than MAX_ID_LENGTH, and the reserved layout labels."""
    check_kind(user_id, str, name, "a str (namespace labels are strings; convert ids with str())")
    bad = [c for c in user_id if unicodedata.category(c) in ("Cs", "Cc", "Cf")]
    if bad:
        raise ValueError(
            f"{name} cannot contain control, invisible or surrogate characters "
            f"({', '.join(f'U+{ord(c):04X}' for c in bad[:3])}), got {_shown(user_id)}"
        )
    user_id = unicodedata.normalize("NFC", user_id)
    if not user_id.strip() or user_id != user_id.strip():
        raise ValueError(f"{name} must be non-empty without surrounding spaces, got {user_id!r}")
    if any(c in user_id for c in "./*"):
        raise ValueError(
            f"{name} cannot contain '.', '/' or '*' (store labels, thread keys and wildcards), "
            f"got {_shown(user_id)}"
        )
    if len(user_id) > MAX_ID_LENGTH:
        raise ValueError(f"{name} is {len(user_id)} characters, at most {MAX_ID_LENGTH} allowed")
    if user_id.casefold() in RESERVED_LABELS:
        raise ValueError(
            f"{name} {user_id!r} is a reserved namespace label (a layout's or a chat role's "
            f"name); choose another id"
        )
    return user_id


def check_namespace(namespace: Any, name: str = "namespace") -> tuple[str, ...]:
    """A store namespace: a non-empty tuple or list of non-blank strings without '.' or NUL, not
    under LangGraph's reserved root 'langgraph' (a bare string is refused: tuple("ns") would
    silently become ("n", "s"))."""
    check_items(namespace, name, "a tuple of strings such as ('users', 'ana')")
    if not namespace:
        raise ValueError(f"{name} must have at least one label, got {_shown(namespace)}")
    for label in namespace:
        if not isinstance(label, str) or not label.strip() or "." in label or "\x00" in label:
            raise ValueError(
                f"{name} labels must be non-empty strings without '.' or NUL, got {label!r} in "
                f"{_shown(namespace)}"
            )
    if namespace[0] == "langgraph":
        raise ValueError(f"{name} {tuple(namespace)!r}: the root label 'langgraph' is reserved")
    return tuple(namespace)


def namespace_for(template: Any, user_id: Any) -> tuple[str, ...]:
    """Fill "{user_id}" in a namespace template, as LangMem does from config["configurable"]."""
    uid = check_user_id(user_id)
    labels = check_namespace(template, "namespace template")
    return tuple(uid if part == "{user_id}" else part for part in labels)


def check_store(store: Any, name: str = "store") -> Any:
    """A LangGraph BaseStore (InMemoryStore, FaissStore, SqliteStore, PostgresStore, ...)."""
    from langgraph.store.base import BaseStore

    return check_kind(store, BaseStore, name, "a LangGraph BaseStore (e.g. InMemoryStore)")


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

    check_items(messages, name, "a list of langchain messages")
    for i, m in enumerate(messages):
        check_kind(
            m, BaseMessage, f"{name}[{i}]", "a langchain message (HumanMessage, AIMessage, ...)"
        )
    return list(messages)


def check_chat_model(model: Any, name: str = "model") -> Any:
    """A chat model: anything with .invoke (ChatOpenAI, the offline model, a fake in a test)."""
    if not callable(getattr(model, "invoke", None)):
        raise TypeError(
            f"{name} must be a chat model with .invoke (e.g. ChatOpenAI), got "
            f"{type(model).__name__}: {_shown(model)}"
        )
    return model


def check_checkpointer(checkpointer: Any, name: str = "checkpointer") -> Any:
    """A LangGraph checkpoint saver (InMemorySaver, SqliteSaver, memlib's UserBoundSaver, ...)."""
    from langgraph.checkpoint.base import BaseCheckpointSaver

    what = "a LangGraph checkpoint saver (e.g. InMemorySaver)"
    return check_kind(checkpointer, BaseCheckpointSaver, name, what)


# Argument checks of notebook 09's saved cells (memlib.agent, memlib.tenancy)
def _check_load_args(agent, k, episodes_k, min_episode_score, render, recall) -> None:
    check_str(agent, "agent")
    check_int(k, "k", minimum=1)
    check_int(episodes_k, "episodes_k", minimum=1)
    check_number(min_episode_score, "min_episode_score")
    for name, fn in (("render", render), ("recall", recall)):
        if not callable(fn):
            raise TypeError(f"{name} must be a function, got {fn!r}")


def _check_writers(writers) -> None:  # by what they do: memlib.writers imports this module
    for i, writer in enumerate(writers):
        if not callable(getattr(writer, "write", None)):
            raise TypeError(f"writers[{i}] must be a BlendedWriter, got {type(writer).__name__}")


def _check_blend_args(hot_path, executor, is_explicit) -> None:  # BlendedWriter's (07)
    hot = "submit" if hot_path is executor else "invoke"
    for name, value, method in (("hot_path", hot_path, hot), ("executor", executor, "submit")):
        if not callable(getattr(value, method, None)):
            raise TypeError(f"{name} must have .{method}, got {type(value).__name__}: {value!r}")
    if is_explicit is not None and not callable(is_explicit):
        raise TypeError(f"is_explicit must be a function of the text, got {is_explicit!r}")


def _check_graph(research_graph) -> None:
    if not callable(getattr(research_graph, "invoke", None)):
        raise TypeError(f"research_graph must be a compiled graph, got {research_graph!r:.80}")


def _check_forget_args(store, checkpointer, user_id, writers) -> str:
    uid = check_user_id(user_id)
    check_store(store)
    if checkpointer is not None:
        check_checkpointer(checkpointer)
    if isinstance(writers, str) or not all(callable(getattr(w, "forget", None)) for w in writers):
        raise TypeError(f"writers must be a list of BlendedWriter, got {writers!r:.80}")
    return uid
