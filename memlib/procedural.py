"""Procedural memory: an agent's instructions as versioned, reviewed items in a LangGraph store.

Provides `create_prompt` (version 1, active), `propose_prompt` (a new pending version with its
provenance: the feedback that produced it, who proposed it, when, and the version it was derived
from), `approve` / `reject` (a reviewer's decision), `rollback` (re-activate an earlier approved
version), `active_prompt` (the text the agent runs with), `get_version` / `list_versions`,
`check_prompt` (the guardrail: required template variables kept, a token budget respected),
`prompt_variables`, `prompt_diff`, and `load_feedback` (the fixture in data/procedural/). The
readers and propose / approve / reject / rollback come from notebook 08's saved cells; their helpers
(`review_version`, `check_feedback`, `check_name`, `timestamp`) are not exported from `memlib`.

Layout in the store, under the namespace `("prompts", agent)`:
- `"system"`: the pointer the agent reads on every call, `{"text", "active_version",
  "latest_version", "required_variables", "max_tokens", "activations"}`. Only approved text is
  ever written here, so an agent cannot pick up a pending or rejected proposal.
- `"system@v1"`, `"system@v2"`, ...: one item per version, `{"version", "text", "status",
  "feedback", "author", "created_at", "based_on", "reviewed_by", "reviewed_at", "review_note"}`;
  status is "pending", "approved" or "rejected". Versions are never deleted or edited in text.

Every change writes its items in one `store.batch`, after all checks pass: a refused call writes
nothing.

Leaves out: concurrent writers (version numbers are read then written, so two processes proposing at
the same moment can pick the same number; put a real lock or a database sequence in front of it),
authentication of authors and reviewers (names are trusted), and the optimizer itself (notebooks
call LangMem's `create_prompt_optimizer` and pass its output to `propose_prompt`).
"""

from __future__ import annotations

import difflib
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore, PutOp

from memlib.checks import check_int, check_items, check_kind, check_store, check_str
from memlib.fixtures import DATA_DIR, read_jsonl
from memlib.tokens import count_text_tokens

PROCEDURAL_DIR = DATA_DIR / "procedural"
NAMESPACE_ROOT = "prompts"
POINTER_KEY = "system"
DEFAULT_MAX_TOKENS = 400
STATUSES = ("pending", "approved", "rejected")
VARIABLES = "a list of names such as ['user_name']"  # what required_variables must be
MAX_FORMAT_WIDTH = 100  # a wider field in a format spec is padding, not an instruction


@dataclass(frozen=True)
class PromptVersion:
    """One stored version of an agent's prompt and its provenance."""

    version: int
    text: str
    status: str
    feedback: Any
    author: str
    created_at: str
    based_on: int | None
    reviewed_by: str | None = None
    reviewed_at: str | None = None
    review_note: str | None = None

    def __post_init__(self):
        check_int(self.version, "version", minimum=1)
        check_str(self.text, "text")
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        check_str(self.author, "author")
        check_str(self.created_at, "created_at")
        if self.based_on is not None:
            check_int(self.based_on, "based_on", minimum=1)


# Saved from notebooks/08_procedural_memory.ipynb, In [4]: edit it there, then `make sync`.
def namespace(agent: str) -> tuple[str, str]:
    """The store namespace holding one agent's prompts."""
    check_str(agent, "agent")
    if "." in agent:
        raise ValueError(f"agent must be a non-empty name without dots, got {agent!r}")
    return (NAMESPACE_ROOT, agent)


def version_key(version: int) -> str:
    """The store key of one version: 'system@v3'."""
    check_int(version, "version")
    return f"{POINTER_KEY}@v{version}"


def prompt_variables(text: str) -> set[str]:
    """The str.format fields a prompt template uses ('{{' and '}}' are literal braces)."""
    return {field for field, _, _ in _fields(text)}


def _fields(text: Any) -> list[tuple[str, str, str]]:
    """(field, format spec, conversion) of each replacement field of a format template."""
    if not isinstance(text, str):
        raise TypeError(f"prompt must be a str, got {type(text).__name__}: {text!r}"[:200])
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as err:
        raise ValueError(f"prompt is not a valid format template ({err}): {text[:80]!r}") from err
    return [
        (field, spec or "", conversion or "")
        for _, field, spec, conversion in parsed
        if field is not None
    ]


def check_prompt(text: str, required_variables=(), max_tokens: int = DEFAULT_MAX_TOKENS) -> int:
    """The guardrail: ValueError unless the prompt keeps every required variable, adds none and fits max_tokens; returns its token count."""
    check_str(text, "prompt")
    check_items(required_variables, "required_variables", VARIABLES, Iterable)
    check_int(max_tokens, "max_tokens", minimum=1)
    # A stored prompt is data its writer controls: str.format must only substitute values.
    for field, spec, conversion in _fields(text):
        written = (
            "{"
            + field
            + (f"!{conversion}" if conversion else "")
            + (f":{spec}" if spec else "")
            + "}"
        )
        plain = "{" + re.split(r"[.\[]", field)[0] + "}"
        widths = [int(n) for n in re.findall(r"\d+", spec)]
        if conversion:
            raise ValueError(
                f"prompt field {written} has the conversion !{conversion}; write the variable "
                f"plainly, as {plain}"
            )
        if "." in field or "[" in field:
            raise ValueError(
                f"prompt field {written} reads an attribute or item of a variable; write the "
                f"variable plainly, as {plain}"
            )
        if "{" in spec or any(w > MAX_FORMAT_WIDTH for w in widths):
            raise ValueError(
                f"prompt field {written} has a nested or wider-than-{MAX_FORMAT_WIDTH} format "
                f"spec; write the variable plainly, as {plain}"
            )
    found = prompt_variables(text)
    missing = sorted(set(required_variables) - found)
    if missing:
        names = ", ".join("{" + v + "}" for v in missing)
        raise ValueError(f"prompt drops required template variable(s) {names}")
    extra = sorted(found - set(required_variables))
    if extra:
        names = ", ".join("{" + v + "}" for v in extra)
        raise ValueError(
            f"prompt adds template variable(s) {names} that the agent does not fill in "
            f"(allowed: {sorted(required_variables)}); write literal braces as '{{{{' and '}}}}'"
        )
    tokens = count_text_tokens(text)
    if tokens > max_tokens:
        raise ValueError(f"prompt is {tokens} tokens, over the budget of {max_tokens}")
    return tokens


def timestamp(now: datetime | None) -> str:
    """`now` (timezone-aware) or the current UTC time, in ISO 8601."""
    check_kind(now, datetime | None, "now", "a datetime or None")
    moment = now or datetime.now(timezone.utc)
    if moment.tzinfo is None:
        raise ValueError(f"now must be timezone-aware, got {moment!r}")
    return moment.isoformat()


def check_name(value: Any, what: str) -> str:
    """An author's or reviewer's name: a non-empty str."""
    if not check_str(value, what, allow_empty=True).strip():
        raise ValueError(f"{what} must be a non-empty name, got {value!r}")
    return value


def check_feedback(feedback: Any) -> Any:
    """Feedback that says something: a non-blank str, or a dict with a non-blank value."""
    if isinstance(feedback, str):
        if feedback.strip():
            return feedback
    elif isinstance(feedback, Mapping):
        if any(
            v not in (None, "") and not (isinstance(v, str) and not v.strip())
            for v in feedback.values()
        ):
            return dict(feedback)
    elif feedback is not None:
        raise TypeError(f"feedback must be a str or a dict, got {type(feedback).__name__}")
    raise ValueError(
        f"feedback must say something (the reason for the new version), got {feedback!r}"
    )


# Saved from notebooks/08_procedural_memory.ipynb, In [4]: edit it there, then `make sync`.
def read_pointer(store: BaseStore, agent: str) -> dict:
    """A copy of the agent's `system` pointer item, or ValueError if it has no prompt yet."""
    check_store(store)
    item = store.get(namespace(agent), POINTER_KEY)
    if item is None:
        raise ValueError(f"agent {agent!r} has no prompt yet; call create_prompt first")
    return dict(item.value)


def _version(value: Mapping) -> PromptVersion:
    # other fields (a ScopedStore's provenance stamps, say) are the store's, not the version's
    return PromptVersion(
        **{f.name: value[f.name] for f in fields(PromptVersion) if f.name in value}
    )


def get_version(store: BaseStore, agent: str, version: int) -> PromptVersion:
    """One stored version, or ValueError naming an unknown version."""
    check_int(version, "version", minimum=1)
    pointer = read_pointer(store, agent)
    item = store.get(namespace(agent), version_key(version))
    if item is None:
        raise ValueError(
            f"agent {agent!r} has no prompt version {version} (versions 1 to {pointer['latest_version']})"
        )
    return _version(item.value)


def list_versions(store: BaseStore, agent: str) -> list[PromptVersion]:
    """Every version of an agent's prompt, oldest first."""
    latest = read_pointer(store, agent)["latest_version"]
    return [get_version(store, agent, v) for v in range(1, latest + 1)]


# Saved from notebooks/08_procedural_memory.ipynb, In [4]: edit it there, then `make sync`.
def active_prompt(store: BaseStore, agent: str) -> str:
    """The approved text the agent runs with (one store read)."""
    return read_pointer(store, agent)["text"]


def create_prompt(
    store: BaseStore,
    agent: str,
    text: str,
    *,
    author: str,
    required_variables=None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    now: datetime | None = None,
) -> PromptVersion:
    """Version 1 of an agent's prompt, approved and active; its variables become required unless given."""
    check_store(store)
    ns = namespace(agent)
    check_name(author, "author")
    check_int(max_tokens, "max_tokens", minimum=1)
    check_str(text, "text")
    if required_variables is not None:
        check_items(required_variables, "required_variables", VARIABLES, Iterable)
    if store.get(ns, POINTER_KEY) is not None:
        raise ValueError(f"agent {agent!r} already has a prompt; propose a new version instead")
    required = sorted(
        prompt_variables(text) if required_variables is None else set(required_variables)
    )
    check_prompt(text, required, max_tokens)
    at = timestamp(now)
    v1 = PromptVersion(1, text, "approved", None, author, at, None, author, at, "initial version")
    pointer = {
        "text": text,
        "active_version": 1,
        "latest_version": 1,
        "required_variables": required,
        "max_tokens": max_tokens,
        "activations": [{"version": 1, "action": "create", "by": author, "at": at}],
    }
    store.batch([PutOp(ns, version_key(1), asdict(v1)), PutOp(ns, POINTER_KEY, pointer)])
    return v1


# Saved from notebooks/08_procedural_memory.ipynb, In [11]: edit it there, then `make sync`.
def propose_prompt(
    store: BaseStore, agent: str, text: str, *, feedback: Any, author: str, now=None
) -> PromptVersion:
    """Store a new pending version with its provenance, after the guardrail; the active prompt is unchanged."""
    check_str(text, "text")
    feedback = check_feedback(feedback)
    check_name(author, "author")
    pointer = read_pointer(store, agent)
    check_prompt(text, pointer["required_variables"], pointer["max_tokens"])
    if text.strip() == pointer["text"].strip():
        active = pointer["active_version"]
        raise ValueError(
            f"proposed prompt is the same as active version {active}; nothing to review"
        )
    n = pointer["latest_version"] + 1
    proposal = PromptVersion(
        n, text, "pending", feedback, author, timestamp(now), pointer["active_version"]
    )
    pointer["latest_version"] = n
    ns = namespace(agent)
    store.batch([PutOp(ns, version_key(n), asdict(proposal)), PutOp(ns, POINTER_KEY, pointer)])
    return proposal


def review_version(store, agent, version, reviewer, now, status, note) -> PromptVersion:
    """A pending version with a reviewer's decision filled in (not yet stored)."""
    check_name(reviewer, "reviewer")
    if note is not None:
        check_str(note, "note", allow_empty=True)
    current = get_version(store, agent, version)
    if current.status != "pending":
        raise ValueError(
            f"version {version} of {agent!r} is already {current.status} "
            f"(by {current.reviewed_by} at {current.reviewed_at}); only pending versions can be reviewed"
        )
    at = timestamp(now)
    return PromptVersion(
        **{
            **asdict(current),
            "status": status,
            "reviewed_by": reviewer,
            "reviewed_at": at,
            "review_note": note,
        }
    )


# Saved from notebooks/08_procedural_memory.ipynb, In [13]: edit it there, then `make sync`.
def approve(
    store: BaseStore, agent: str, version: int, *, reviewer: str, note: str | None = None, now=None
) -> PromptVersion:
    """Approve a pending version and make it the active prompt."""
    decided = review_version(store, agent, version, reviewer, now, "approved", note)
    pointer = read_pointer(store, agent)
    check_prompt(decided.text, pointer["required_variables"], pointer["max_tokens"])
    pointer["text"], pointer["active_version"] = decided.text, version
    move = {"version": version, "action": "approve", "by": reviewer, "at": decided.reviewed_at}
    pointer["activations"] = [*pointer["activations"], move]
    ns = namespace(agent)
    store.batch([PutOp(ns, version_key(version), asdict(decided)), PutOp(ns, POINTER_KEY, pointer)])
    return decided


# Saved from notebooks/08_procedural_memory.ipynb, In [17]: edit it there, then `make sync`.
def reject(
    store: BaseStore, agent: str, version: int, *, reviewer: str, note: str, now=None
) -> PromptVersion:
    """Reject a pending version, with the reason; the active prompt is unchanged."""
    if not check_str(note, "note", allow_empty=True).strip():
        raise ValueError(f"a rejection needs a reason in note (a non-empty str), got {note!r}")
    decided = review_version(store, agent, version, reviewer, now, "rejected", note)
    store.put(namespace(agent), version_key(version), asdict(decided))
    return decided


def rollback_target(
    store: BaseStore, agent: str, reviewer: str, to_version: int | None = None
) -> tuple[dict, PromptVersion]:
    """The pointer and the approved version `rollback` re-activates (to_version, or the one active
    before the current one), after its checks: ValueError names what stops the rollback."""
    check_name(reviewer, "reviewer")
    pointer = read_pointer(store, agent)
    if to_version is not None:
        check_int(to_version, "to_version", minimum=1)
    active = pointer["active_version"]
    if to_version is None:
        earlier = [a["version"] for a in pointer["activations"] if a["version"] != active]
        if not earlier:
            raise ValueError(f"agent {agent!r} has no earlier active version to roll back to")
        to_version = earlier[-1]
    target = get_version(store, agent, to_version)
    if target.status != "approved":
        raise ValueError(
            f"cannot roll back {agent!r} to version {to_version}: it is {target.status}, not approved"
        )
    if to_version == active:
        raise ValueError(f"version {to_version} of {agent!r} is already active")
    return pointer, target


# Saved from notebooks/08_procedural_memory.ipynb, In [19]: edit it there, then `make sync`.
def rollback(
    store: BaseStore, agent: str, *, reviewer: str, to_version: int | None = None, now=None
) -> PromptVersion:
    """Re-activate an approved version: to_version, or the one active before the current one."""
    pointer, target = rollback_target(store, agent, reviewer, to_version)  # checks, in memlib
    pointer["text"], pointer["active_version"] = target.text, target.version
    move = {"version": target.version, "action": "rollback", "by": reviewer, "at": timestamp(now)}
    pointer["activations"] = [*pointer["activations"], move]
    store.put(namespace(agent), POINTER_KEY, pointer)
    return target


def prompt_diff(old: str, new: str, old_label: str = "old", new_label: str = "new") -> str:
    """A unified diff of two prompt texts, line by line."""
    check_str(old, "old", allow_empty=True)
    check_str(new, "new", allow_empty=True)
    check_str(old_label, "old_label")
    check_str(new_label, "new_label")
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), old_label, new_label, lineterm="", n=1
    )
    return "\n".join(lines)


def load_feedback(path: str | Path | None = None) -> list[dict]:
    """Conversations with reviewer feedback, {id, messages, feedback}, from data/procedural/feedback.jsonl."""
    path = Path(path) if path is not None else PROCEDURAL_DIR / "feedback.jsonl"
    rows = read_jsonl(path)
    for n, row in enumerate(rows, 1):
        if not row.get("messages") or not str(row.get("feedback", "")).strip():
            raise ValueError(
                f"{path}:{n}: each row needs messages and non-empty feedback, got {row!r}"
            )
    return rows
