"""Semantic memory: what the agent knows about a user, as one profile and a collection of facts.

Provides the two schemas LangMem's managers fill in (`UserProfile`, one document per user, patched;
`Fact`, one small record per fact, inserted, updated and deleted), their namespace templates,
`memory_changes` (what a manager's output inserted, updated and deleted), `load_memories` (the
profile plus the top-k facts relevant to a question, never the whole collection),
`format_memory_section` (the system-prompt section built from them), `patch_profile` (a validated,
all-or-nothing edit of the stored profile), and the fixture of background facts used to grow a
collection (`load_background_facts`, `load_fact_questions`).

Items are stored in the shape `create_memory_store_manager` writes and reads,
`{"kind": <schema name>, "content": {...}}`, so facts written here and facts written by LangMem
mix freely. Leaves out: the LangMem calls themselves (the notebook makes them), writing in the
background (notebook 07) and sharing memory between agents (notebook 05).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from langgraph.store.base import BaseStore
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from memlib.checks import (
    check_int,
    check_items,
    check_kind,
    check_store,
    check_str,
    check_user_id,
    namespace_for,
)
from memlib.fixtures import DATA_DIR, read_jsonl

DATA = DATA_DIR / "semantic"

PROFILE_NAMESPACE = ("users", "{user_id}", "profile")
FACTS_NAMESPACE = ("users", "{user_id}", "facts")
# Profile and facts are siblings: a search on ("users", user_id) would match both.


# Saved from notebooks/04_semantic_memory.ipynb, In [4]: edit it there, then `make sync`.
class UserProfile(BaseModel):
    """The user's profile: one document per user, updated in place as new facts arrive."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, description="The user's name")
    employer: str | None = Field(None, description="Organisation the user works for")
    role: str | None = Field(None, description="The user's job title or role")
    location: str | None = Field(None, description="City where the user lives")
    expertise: list[str] = Field(default_factory=list, description="Areas the user is expert in")
    preferences: list[str] = Field(default_factory=list, description="Stated preferences")


# Saved from notebooks/04_semantic_memory.ipynb, In [4]: edit it there, then `make sync`.
def _non_empty(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty or blank")
    return text.strip()


# Saved from notebooks/04_semantic_memory.ipynb, In [4]: edit it there, then `make sync`.
class Fact(BaseModel):
    """One self-contained fact about the user, as a sentence and as subject, predicate, object."""

    model_config = ConfigDict(extra="forbid")

    # Checked on the reply rather than sent as `minLength`, which some providers' tools refuse.
    content: Annotated[str, AfterValidator(_non_empty)] = Field(
        description="The fact as one short sentence, e.g. 'User works at Acme.'"
    )
    subject: str = Field(description="Who or what the fact is about, usually the user")
    predicate: str = Field(description="The relation, e.g. 'works at', 'prefers'")
    object: str = Field(description="The value")


# Saved from notebooks/04_semantic_memory.ipynb, In [5]: edit it there, then `make sync`.
def _content(value: Any) -> Any:
    """The payload of a stored or extracted memory: a dict, a string or a pydantic model."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, Mapping) and "kind" in value and "content" in value:
        return _content(value["content"])
    return value


# Saved from notebooks/04_semantic_memory.ipynb, In [5]: edit it there, then `make sync`.
def fact_text(value: Any) -> str:
    """One line of text for a fact, whatever shape it is stored in."""
    if hasattr(value, "value") and hasattr(value, "namespace"):  # a store Item
        value = value.value
    if not isinstance(value, str | Mapping | BaseModel):
        raise TypeError(
            f"fact_text takes a store Item, a dict, a model or a str, got "
            f"{type(value).__name__}: {value!r}"
        )
    c = _content(value)
    if isinstance(c, str):
        text = c
    elif isinstance(c, Mapping) and isinstance(c.get("content"), str):
        text = c["content"]
    elif isinstance(c, Mapping) and all(
        isinstance(c.get(f), str) for f in ("subject", "predicate", "object")
    ):
        text = f"{c['subject']} {c['predicate']} {c['object']}."
    else:
        raise ValueError(f"cannot read a fact out of {value!r}")
    if not text.strip():
        raise ValueError(f"fact text is empty in {value!r}")
    return text.strip()


def check_manager_result(result: Any) -> list:
    """A memory manager's output as a list; TypeError naming an item without an id and content."""
    check_items(result, "result", "the list a memory manager returned")
    for i, m in enumerate(result):
        if not (hasattr(m, "id") and hasattr(m, "content")):
            raise TypeError(
                f"result[{i}] must be an ExtractedMemory (id, content), as a memory manager "
                f"returns, got {type(m).__name__}: {m!r}"
            )
    return list(result)


# Saved from notebooks/04_semantic_memory.ipynb, In [5]: edit it there, then `make sync`.
def memory_changes(previous: Mapping[str, Any], result: Sequence[Any]) -> dict[str, list[str]]:
    """Sort a memory manager's output into inserted, updated, deleted and unchanged ids."""
    check_kind(previous, Mapping, "previous", "a dict of id -> content")
    check_manager_result(result)  # TypeError for anything but a memory manager's output
    changes: dict[str, list[str]] = {"inserted": [], "updated": [], "deleted": [], "unchanged": []}
    for m in result:
        mid, content = m.id, m.content
        if type(content).__name__ == "RemoveDoc":
            changes["deleted"].append(mid)
        elif mid not in previous:
            changes["inserted"].append(mid)
        elif _content(content) != _content(previous[mid]):
            changes["updated"].append(mid)
        else:
            changes["unchanged"].append(mid)
    return changes


# Saved from notebooks/04_semantic_memory.ipynb, In [10]: edit it there, then `make sync`.
def read_profile(store: BaseStore, user_id: str) -> tuple[str | None, dict | None]:
    """The stored profile of a user as (key, fields), or (None, None)."""
    check_store(store)
    namespace = namespace_for(PROFILE_NAMESPACE, user_id)
    items = store.search(namespace, limit=2)  # one profile per user: a second one is a bug
    if len(items) > 1:
        keys = [i.key for i in items]
        raise ValueError(f"namespace {namespace} holds {len(items)} profiles {keys}, expected one")
    if not items:
        return None, None
    return items[0].key, dict(items[0].value["content"])


# Saved from notebooks/04_semantic_memory.ipynb, In [13]: edit it there, then `make sync`.
def load_memories(store: BaseStore, user_id: str, query: str, k: int = 5) -> dict:
    """The user's profile and the k facts most relevant to query (not the whole collection)."""
    check_str(query, "query")
    check_int(k, "k", minimum=1)
    _, profile = read_profile(store, user_id)  # checks the store and the user id
    facts_namespace = namespace_for(FACTS_NAMESPACE, user_id)
    facts = store.search(facts_namespace, query=query, limit=k)  # one search, top k only
    return {"profile": profile, "facts": facts}


# Saved from notebooks/04_semantic_memory.ipynb, In [13]: edit it there, then `make sync`.
def format_memory_section(profile: Mapping | None, facts: Sequence[Any]) -> str:
    """The system-prompt section for a profile and some facts; empty string if there are none."""
    check_kind(profile, Mapping | None, "profile", "a dict of profile fields or None")
    check_items(facts, "facts", "a list of facts")
    parts = []
    if profile:
        lines = []
        for name, value in UserProfile.model_validate(dict(profile)).model_dump().items():
            if value in (None, [], ""):
                continue
            shown = ", ".join(value) if isinstance(value, list) else value
            lines.append(f"- {name}: {shown}")
        if lines:
            parts.append("## User profile\n" + "\n".join(lines))
    texts = [fact_text(f) for f in facts]
    if texts:
        parts.append("## Facts about the user\n" + "\n".join(f"- {t}" for t in texts))
    return "\n\n".join(parts)


def patch_profile(store, user_id: str, patch: Mapping[str, Any]) -> dict:
    """Apply a partial update to the stored profile after validating the result; all or nothing."""
    check_store(store)
    check_user_id(user_id)
    check_kind(patch, Mapping, "patch", "a dict of profile fields")
    unknown = sorted(set(patch) - set(UserProfile.model_fields))
    if unknown:
        raise ValueError(
            f"unknown profile field(s) {unknown} in patch {dict(patch)!r}; "
            f"expected some of {list(UserProfile.model_fields)}"
        )
    key, current = read_profile(store, user_id)
    merged = {**(current or {}), **patch}
    try:
        profile = UserProfile.model_validate(merged)
    except ValidationError as err:
        first = err.errors()[0]
        raise ValueError(
            f"patch {dict(patch)!r} breaks the profile schema at "
            f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
        ) from None
    value = {"kind": "UserProfile", "content": profile.model_dump(mode="json")}
    store.put(namespace_for(PROFILE_NAMESPACE, user_id), key or "profile", value)
    return profile.model_dump(mode="json")  # a copy: InMemoryStore keeps the dict it was given


def fact_item(subject: str, predicate: str, obj: str) -> dict:
    """A Fact in the stored shape LangMem's store manager uses."""
    check_str(subject, "subject")
    check_str(predicate, "predicate")
    check_str(obj, "obj")
    fact = Fact(
        content=f"{subject} {predicate} {obj}.", subject=subject, predicate=predicate, object=obj
    )
    return {"kind": "Fact", "content": fact.model_dump()}


def load_background_facts(path: str | Path | None = None) -> list[dict]:
    """Planted background facts about the fixture user (id, subject, predicate, object)."""
    rows = read_jsonl(Path(path) if path else DATA / "facts.jsonl")
    for row in rows:
        missing = [f for f in ("id", "subject", "predicate", "object") if not row.get(f)]
        if missing:
            raise ValueError(f"background fact lacks {missing}: {row!r}")
    return rows


def load_fact_questions(path: str | Path | None = None) -> list[dict]:
    """Questions whose answer is one planted fact (question, answer, fact id)."""
    rows = read_jsonl(Path(path) if path else DATA / "questions.jsonl")
    for row in rows:
        missing = [f for f in ("question", "answer", "fact") if not row.get(f)]
        if missing:
            raise ValueError(f"question lacks {missing}: {row!r}")
    return rows
