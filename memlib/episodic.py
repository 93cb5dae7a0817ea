"""Episodic memory: past tasks stored as episodes, recalled by similarity and shown as worked examples.

Provides the `Episode` schema (situation, approach, outcome, lesson), `extract_episode` (a chat
model's structured output over a finished conversation), `save_episode` / `recall_episodes` on any
LangGraph `BaseStore` with a vector index, under the namespace ("episodes", user_id),
`format_episodes_as_examples` (the few-shot block for a system prompt), `recall_at_k` (the
retrieval metric), and loaders for the planted fixtures in data/episodes/.

Each stored value carries the four episode fields plus `type`, `user_id`, `created_at` (ISO 8601,
UTC, for people) and `created_ts` (epoch seconds, for filters): range filters such as `$gte` are
numeric in InMemoryStore and PostgresStore, so dates are filtered as numbers.

Leaves out: deciding *when* a conversation is worth an episode, merging or forgetting episodes,
and ranking by anything but the store's similarity score (recency is a filter, not a weight).
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Collection, Mapping, Sequence
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Annotated, Any

from langchain_core.messages import SystemMessage, convert_to_messages
from langgraph.store.base import BaseStore, Item, SearchItem
from pydantic import AfterValidator, BaseModel, Field

from memlib.checks import check_int, check_items, check_store, check_str, check_user_id
from memlib.fixtures import DATA_DIR, read_jsonl

EPISODES_DIR = DATA_DIR / "episodes"
NAMESPACE = "episodes"
EPISODE_FIELDS = ("situation", "approach", "outcome", "lesson")
INDEX_FIELDS = ["situation", "lesson"]  # what the notebook embeds; see notebooks/03
_TYPE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


# Saved from notebooks/03_episodic_recall.ipynb, In [4]: edit it there, then `make sync`.
def _non_empty(text: str) -> str:
    text = text.strip()
    if not text:
        raise ValueError("must not be empty or blank")
    return text


# Non-empty is checked by pydantic on the reply, not declared as `minLength` in the JSON schema:
# some providers' structured output refuses length keywords, and every provider accepts this one.
# Saved from notebooks/03_episodic_recall.ipynb, In [4]: edit it there, then `make sync`.
_Text = Annotated[str, AfterValidator(_non_empty)]


# Saved from notebooks/03_episodic_recall.ipynb, In [4]: edit it there, then `make sync`.
class Episode(BaseModel):
    """One past task, told so that a later task can learn from it."""

    situation: _Text = Field(
        description="What the user was trying to do and the circumstances, in one or two sentences."
    )
    approach: _Text = Field(
        description="What was tried to solve it: the steps, checks or tools used."
    )
    outcome: _Text = Field(description="What happened: whether it worked, and what failed.")
    lesson: _Text = Field(
        description="The takeaway to apply next time a similar task comes up, as one instruction."
    )


EXTRACTION_PROMPT = (
    "You write episodic memories for an assistant. Read the finished conversation that follows and "
    "record it as one episode: the situation (what the user needed), the approach (what was "
    "tried), the outcome (what worked or failed) and the lesson (what to do next time on a "
    "similar task). Use only what the conversation says."
)


def episodes_namespace(user_id: str) -> tuple[str, str]:
    """The store namespace holding one user's episodes: ("episodes", user_id)."""
    return (NAMESPACE, check_user_id(user_id))


def check_episode_type(type: Any) -> str:
    """An episode type: a lower-case slug such as 'debugging', or an error naming the value."""
    if not _TYPE.match(check_str(type, "type")):
        raise ValueError(f"type must be a lower-case slug such as 'debugging', got {type!r}")
    return type


def to_datetime(value: Any, name: str = "date") -> datetime:
    """A timezone-aware UTC datetime from a datetime, date, ISO 8601 string or epoch number."""
    if isinstance(value, bool):
        raise TypeError(
            f"{name} must be a date, datetime, ISO string or epoch seconds, got {value!r}"
        )
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be a finite epoch time, got {value!r}")
        try:
            return datetime.fromtimestamp(value, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise ValueError(f"{name} is not a usable epoch time: {value!r}") from None
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(
                f"{name} must be an ISO 8601 date such as '2025-03-04', got {value!r}"
            ) from None
    else:
        raise TypeError(
            f"{name} must be a date, datetime, ISO string or epoch seconds, got "
            f"{type(value).__name__}: {value!r}"
        )
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)  # naive dates are taken as UTC
    return dt.astimezone(timezone.utc)


def extract_episode(model, messages: Sequence[Any]) -> Episode:
    """Turn a finished conversation into an Episode with the model's structured output."""
    if not callable(getattr(model, "with_structured_output", None)):
        raise TypeError(
            f"model must be a LangChain chat model with with_structured_output, got "
            f"{type(model).__name__}: {model!r}"
        )
    check_items(messages, "messages", "a list of messages")
    try:
        msgs = convert_to_messages(list(messages))
    except (TypeError, ValueError, NotImplementedError) as err:
        raise TypeError(
            f"messages must be langchain messages or role/content dicts, got {messages!r}: {err}"
        ) from None
    kinds = {m.type for m in msgs}
    if "human" not in kinds or "ai" not in kinds:
        raise ValueError(
            "a finished conversation needs at least one user and one assistant message, "
            f"got message types {sorted(kinds)}"
        )
    structured = model.with_structured_output(Episode)
    # The conversation goes in as messages, so the model sees who said what.
    result = structured.invoke([SystemMessage(EXTRACTION_PROMPT), *msgs])
    # Some backends hand back a dict; validate either way so an empty field never gets stored.
    return Episode.model_validate(result.model_dump() if isinstance(result, BaseModel) else result)


def as_episode(episode: Any) -> Episode:
    """An Episode from an Episode or a dict holding the four fields, or an error naming it."""
    if isinstance(episode, Episode):
        return episode
    if isinstance(episode, BaseModel):  # an Episode class of your own, e.g. a notebook's
        episode = episode.model_dump()
    if isinstance(episode, Mapping):
        missing = [f for f in EPISODE_FIELDS if f not in episode]
        if missing:
            raise ValueError(f"episode lacks fields {missing}: {dict(episode)!r}")
        return Episode.model_validate({f: episode[f] for f in EPISODE_FIELDS})
    raise TypeError(
        f"episode must be an Episode or a dict, got {type(episode).__name__}: {episode!r}"
    )


# Saved from notebooks/03_episodic_recall.ipynb, In [9]: edit it there, then `make sync`.
def save_episode(
    store: BaseStore,
    user_id: str,
    episode: Episode | dict,
    type: str,
    created_at: str | datetime | float,
    key: str | None = None,
) -> str:
    """Store an episode under ("episodes", user_id) with type and creation date; return its key."""
    check_store(store)
    namespace = episodes_namespace(user_id)
    fields = as_episode(episode).model_dump()
    when = to_datetime(created_at, "created_at")
    key = str(uuid.uuid4()) if key is None else check_str(key, "key")
    metadata = {"type": check_episode_type(type), "user_id": user_id}
    # the date twice: ISO text for people, epoch seconds for range filters (they compare numbers)
    metadata |= {"created_at": when.isoformat(), "created_ts": when.timestamp()}
    store.put(namespace, key, {**fields, **metadata})
    return key


# Saved from notebooks/03_episodic_recall.ipynb, In [12]: edit it there, then `make sync`.
def recall_filter(type: str | None = None, since: str | datetime | None = None) -> dict | None:
    """The store filter for an episode type and/or a creation cutoff, or None for no filter."""
    conditions = {}
    if type is not None:
        conditions["type"] = check_episode_type(type)
    if since is not None:
        conditions["created_ts"] = {"$gte": to_datetime(since, "since").timestamp()}
    return conditions or None


# Saved from notebooks/03_episodic_recall.ipynb, In [13]: edit it there, then `make sync`.
def recall_episodes(
    store: BaseStore,
    user_id: str,
    task: str,
    k: int = 3,
    type: str | None = None,
    since: str | datetime | None = None,
) -> list[SearchItem]:
    """The k stored episodes of a user most similar to a task, optionally of one type or newer than since."""
    check_store(store)
    namespace = episodes_namespace(user_id)
    check_str(task, "task")
    check_int(k, "k", minimum=1)
    return store.search(namespace, query=task, limit=k, filter=recall_filter(type, since))


def _value(episode: Any) -> Mapping:
    if isinstance(episode, Item):  # SearchItem is an Item
        return episode.value
    if isinstance(episode, BaseModel):  # memlib's Episode, or one defined in a notebook
        return episode.model_dump()
    if isinstance(episode, Mapping):
        return episode
    raise TypeError(
        f"expected a store item, Episode or dict, got {type(episode).__name__}: {episode!r}"
    )


def check_episodes(episodes: Sequence[Any]) -> list[Mapping]:
    """Episodes (store items, Episode models or dicts) as dicts; ValueError naming an empty field."""
    check_items(episodes, "episodes", "a list")
    values = [_value(ep) for ep in episodes]
    for i, v in enumerate(values, start=1):
        missing = [f for f in EPISODE_FIELDS if not str(v.get(f) or "").strip()]
        if missing:
            raise ValueError(f"episode {i} lacks {missing}: {dict(v)!r}")
    return values


# Saved from notebooks/03_episodic_recall.ipynb, In [16]: edit it there, then `make sync`.
def format_episodes_as_examples(episodes: Sequence[Any]) -> str:
    """A system-prompt section presenting episodes as numbered worked examples ('' for none)."""
    blocks = []
    for i, v in enumerate(check_episodes(episodes), start=1):  # dicts with every field filled
        date = str(v.get("created_at") or "")[:10]  # the date part of the ISO timestamp
        tags = ", ".join(str(tag) for tag in (v.get("type"), date) if tag)
        head = f"### Example {i}" + (f" ({tags})" if tags else "")
        body = "\n".join(f"{f.capitalize()}: {str(v[f]).strip()}" for f in EPISODE_FIELDS)
        blocks.append(f"{head}\n{body}")
    if not blocks:
        return ""
    intro = "## Worked examples from your past tasks\n"
    intro += "Reuse what worked and avoid what failed; adapt them to the new task."
    return intro + "\n\n" + "\n\n".join(blocks)


def recall_at_k(
    retrieved: Sequence[Sequence[str]], relevant: Sequence[Collection[str]], k: int
) -> float:
    """Mean over queries of the share of each query's relevant ids found in its top k."""
    check_int(k, "k", minimum=1)
    for name, value in (("retrieved", retrieved), ("relevant", relevant)):
        check_items(value, name, "a list with one entry per query")
    if len(retrieved) != len(relevant):
        raise ValueError(
            f"retrieved has {len(retrieved)} rankings but relevant has {len(relevant)} sets"
        )
    if not retrieved:
        raise ValueError("recall@k needs at least one query, got none")
    total = 0.0
    for i, (ranking, rel) in enumerate(zip(retrieved, relevant, strict=True)):
        if isinstance(ranking, str) or isinstance(rel, str):
            raise TypeError(
                f"query {i}: rankings and relevant sets must be collections of ids, got "
                f"{ranking!r} and {rel!r}"
            )
        rel = set(rel)
        if not rel:
            raise ValueError(f"query {i} has no relevant ids")
        total += len(rel & set(list(ranking)[:k])) / len(rel)
    return total / len(retrieved)


# Fixtures


def _fixture_path(path: Any, default: str) -> Path:
    if path is None:
        return EPISODES_DIR / default
    if not isinstance(path, str | Path) or not str(path).strip():
        raise TypeError(f"path must be a str or Path to a .jsonl file, got {path!r}")
    return Path(path)


def _owners(episodes: Any) -> dict[str, str]:
    """Episode id -> user id, from episodes that each carry both."""
    check_items(episodes, "episodes", "a list of episode dicts")
    owner = {}
    for e in episodes:
        if not isinstance(e, Mapping) or not isinstance(e.get("id"), str):
            raise ValueError(f"each episode must be a dict with a str 'id', got {e!r}")
        if not isinstance(e.get("user_id"), str):
            raise ValueError(f"episode {e['id']!r} has no str 'user_id': {dict(e)!r}")
        owner[e["id"]] = e["user_id"]
    return owner


def load_episodes(path: str | Path | None = None) -> list[dict]:
    """The planted episodes (default data/episodes/episodes.jsonl), validated."""
    path = _fixture_path(path, "episodes.jsonl")
    rows = read_jsonl(path)
    ids = [r.get("id") for r in rows]
    for r in rows:
        where = f"{path.name}: episode {r.get('id')!r}"
        if not isinstance(r.get("id"), str) or not r["id"]:
            raise ValueError(f"{where}: id must be a non-empty str")
        episodes_namespace(r.get("user_id"))
        as_episode(r)
        if not isinstance(r.get("type"), str) or not _TYPE.match(r["type"]):
            raise ValueError(f"{where}: bad type {r.get('type')!r}")
        to_datetime(r.get("created_at"), f"{where} created_at")
        sup = r.get("superseded_by")
        if sup is not None and (sup not in ids or sup == r["id"]):
            raise ValueError(f"{where}: superseded_by={sup!r} is not another episode")
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"{path.name}: duplicate episode ids {dupes}")
    return rows


def load_queries(
    path: str | Path | None = None, episodes: Sequence[dict] | None = None
) -> list[dict]:
    """New tasks naming their relevant planted episodes (default data/episodes/queries.jsonl)."""
    path = _fixture_path(path, "queries.jsonl")
    owner = _owners(episodes if episodes is not None else load_episodes())
    rows = read_jsonl(path)
    for r in rows:
        where = f"{path.name}: query {r.get('id')!r}"
        if not isinstance(r.get("task"), str) or not r["task"].strip():
            raise ValueError(f"{where}: task must be a non-empty str, got {r.get('task')!r}")
        rel = r.get("relevant")
        if not isinstance(rel, list) or not rel:
            raise ValueError(f"{where}: relevant must be a non-empty list of ids, got {rel!r}")
        for ep_id in rel:
            if owner.get(ep_id) != r.get("user_id"):
                raise ValueError(
                    f"{where}: relevant id {ep_id!r} is not an episode of user {r.get('user_id')!r}"
                )
    return rows


def load_conversations(path: str | Path | None = None) -> list[dict]:
    """Finished conversations to extract episodes from (default data/episodes/conversations.jsonl)."""
    path = _fixture_path(path, "conversations.jsonl")
    rows = read_jsonl(path)
    for r in rows:
        where = f"{path.name}: conversation {r.get('id')!r}"
        episodes_namespace(r.get("user_id"))
        msgs = r.get("messages")
        if not isinstance(msgs, list) or not msgs:
            raise ValueError(f"{where}: messages must be a non-empty list")
        for m in msgs:
            if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
                raise ValueError(f"{where}: bad message {m!r}")
        to_datetime(r.get("created_at"), f"{where} created_at")
    return rows
