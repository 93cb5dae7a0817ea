"""Conversation buffers: which part of a chat history goes into the next prompt.

Provides four buffers that share one interface (`add`, `extend`, `messages`, `prompt_tokens`,
from `BufferBase`; a buffer overrides `_select` to say which suffix of the history it keeps):
`FullBuffer` (everything), `SlidingWindowBuffer` (the system prompt pinned plus the last k turns or
messages), `TokenTrimBuffer` (the most recent turns that fit a budget of real tiktoken counts:
langchain_core's `trim_messages` cut with its pitfalls fixed) and `SummaryBuffer` (recent turns
verbatim within a token budget, older ones folded into a running summary written by the chat model).
Also the pure functions behind them: `check_prompt_messages`, `tool_pairs_intact`, `turn_starts`,
`trim_to_budget`, and `load_conversation` for the JSONL fixtures in data/conversations/. With a
TokenCounter, trim_to_budget walks back from the newest message over cached per-message counts and
stops at the first turn that does not fit, so a call costs what it keeps (well under a millisecond
for a few hundred kept messages), however long the history; benchmarks/tokens.py measures it against
trim_messages, and tests/test_buffers.py checks that both make the same cut.

Every cut is tool-pair safe: buffers cut only where a human turn starts, so an AI message that
carries tool_calls always stays with its ToolMessages, and the system prompt is always first.
Bad input (empty or whitespace content, non-string content, an orphan ToolMessage, a budget
smaller than the system prompt) raises ValueError naming the bad value and leaves the buffer as
it was. trim_to_budget with a TokenCounter checks the messages it keeps and never reads the
prefix it drops (a defect there cannot reach the prompt).

Leaves out: persistence (LangGraph checkpointers do that), multimodal content blocks, more than
one system message, and retrieval over past messages (notebook 01 does that with a vector store).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)

from memlib.checks import (
    check_chat_model,
    check_int,
    check_items,
    check_kind,
    check_messages,
    check_str,
)
from memlib.fixtures import DATA_DIR
from memlib.tokens import TOKENS_PER_REPLY, TokenCounter

CONVERSATIONS = DATA_DIR / "conversations"

TokenCounterFn = Callable[[list[BaseMessage]], int]

SUMMARY_INSTRUCTIONS = (
    "Summarize the conversation so far in at most {words} words. Keep every topic name, every "
    "fact the user gave about themselves, decisions and open questions. Return only the summary."
)


# --- validation -------------------------------------------------------------------------------


def _describe(message: BaseMessage, where: str) -> str:
    return f"{where} ({type(message).__name__})"


def _check_content(message: BaseMessage, where: str) -> None:
    content = message.content
    if not isinstance(content, str):
        raise ValueError(
            f"{_describe(message, where)}: content must be a string, "
            f"got {type(content).__name__} {content!r:.80}"
        )
    if not content.strip() and not (isinstance(message, AIMessage) and message.tool_calls):
        raise ValueError(
            f"{_describe(message, where)}: content is empty or whitespace only ({content!r})"
        )


def _advance(message, pending: frozenset, where: str) -> frozenset:
    """Check one non-system message against the open tool calls; return the new open set."""
    check_kind(message, BaseMessage, where, "a langchain message")
    if isinstance(message, SystemMessage):
        raise ValueError(
            f"{where}: a SystemMessage may only come first; pass the system prompt to the "
            f"buffer instead (got {message.content!r:.80})"
        )
    _check_content(message, where)
    if isinstance(message, ToolMessage):
        if message.tool_call_id not in pending:
            raise ValueError(
                f"{where}: orphan ToolMessage: tool_call_id {message.tool_call_id!r} answers no "
                f"open tool call of the preceding AI message (open: {sorted(pending)})"
            )
        return pending - {message.tool_call_id}
    if pending:
        raise ValueError(
            f"{_describe(message, where)} arrived while tool calls {sorted(pending)} still wait "
            "for their ToolMessages"
        )
    if isinstance(message, AIMessage):
        ids = [call.get("id") for call in message.tool_calls]
        if any(not isinstance(i, str) or not i for i in ids) or len(set(ids)) != len(ids):
            raise ValueError(f"{where}: tool calls need unique non-empty ids, got {ids!r}")
        return frozenset(ids)
    if isinstance(message, HumanMessage):
        return frozenset()
    raise ValueError(f"{where}: unsupported message type {type(message).__name__}")


def check_prompt_messages(messages: Sequence[BaseMessage], start: int = 0) -> frozenset:
    """Raise ValueError on a prompt-shaped history a provider would reject; return the tool-call
    ids still awaiting results. (`memlib.rotation.check_tool_pairs`, notebook 06, checks a stored
    state instead: every message with an id, no SystemMessage.)

    The first message may be a SystemMessage. With `start`, only the system prompt and
    messages[start:] are checked (start should be where a turn begins): how trim_to_budget checks
    what it keeps without reading the prefix it drops.
    """
    messages = message_list(messages)
    if not 0 <= check_int(start, "start") <= len(messages):
        raise ValueError(f"start must be an integer in 0..{len(messages)}, got {start!r}")
    pending: frozenset = frozenset()
    first = 0
    if messages and isinstance(messages[0], SystemMessage):
        _check_content(messages[0], "message 0")
        first = 1
    for i in range(max(first, start), len(messages)):
        pending = _advance(messages[i], pending, f"message {i}")
    return pending


def tool_pairs_intact(messages: Sequence[BaseMessage]) -> bool:
    """check_prompt_messages as a bool: every ToolMessage follows the AI message that called it."""
    messages = check_messages(messages)
    try:
        check_prompt_messages(messages)
    except ValueError:
        return False
    return True


def turn_starts(messages: Sequence[BaseMessage]) -> list[int]:
    """Indices where a human turn starts: the only places a buffer may cut."""
    messages = check_messages(messages)
    return [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]


def turns(messages: Sequence[BaseMessage]) -> list[list[BaseMessage]]:
    """Split a history (no system message) into turns, each starting with a HumanMessage."""
    messages = check_messages(messages)
    out: list[list[BaseMessage]] = []
    for m in messages:
        if isinstance(m, HumanMessage) or not out:
            out.append([])
        out[-1].append(m)
    return out


def _system_prompt(text) -> SystemMessage:
    return SystemMessage(check_str(text, "system_prompt"))


def message_list(messages) -> list:
    """A list from a sequence or iterable of messages; a bare string is refused (each character
    would become a 'message'). The messages themselves are checked by check_prompt_messages."""
    return list(check_items(messages, "messages", "a list of langchain messages", Iterable))


def check_counter(token_counter) -> TokenCounterFn:
    """The given token counter, or a TokenCounter when None; anything else not callable is refused."""
    if token_counter is None:
        return TokenCounter()
    if not callable(token_counter):
        raise TypeError(
            f"token_counter must be a callable on a message list (e.g. TokenCounter()), got "
            f"{type(token_counter).__name__}: {token_counter!r:.80}"
        )
    return token_counter


# --- token-aware trimming ---------------------------------------------------------------------


def _check_window_args(max_turns, max_messages) -> tuple[int | None, int | None]:
    """SlidingWindowBuffer's limits: exactly one of the two, a positive int."""
    if (max_turns is None) == (max_messages is None):
        raise ValueError(
            f"give exactly one of max_turns / max_messages, got {max_turns!r} / {max_messages!r}"
        )
    if max_turns is not None:
        return check_int(max_turns, "max_turns", minimum=1), None
    return None, check_int(max_messages, "max_messages", minimum=1)


def _check_budget(max_tokens, need: int) -> int:
    """max_tokens, a positive int that holds the system prompt's `need` tokens."""
    check_int(max_tokens, "max_tokens", minimum=1)
    if need > max_tokens:
        raise ValueError(f"max_tokens={max_tokens} is smaller than the system prompt ({need})")
    return max_tokens


def _check_summarize_args(model, instructions, summary) -> None:
    check_chat_model(model)
    check_str(instructions, "instructions")
    check_str(summary, "summary", allow_empty=True)


def _check_fits(
    head: list[BaseMessage], rest: list[BaseMessage], max_tokens: int, counter: TokenCounterFn
) -> int | None:
    """ValueError if max_tokens cannot hold the system prompt or the latest turn; its start."""
    if head and counter(head) > max_tokens:
        raise ValueError(
            f"max_tokens={max_tokens} is smaller than the system prompt ({counter(head)} tokens)"
        )
    humans = (i for i in range(len(rest) - 1, -1, -1) if isinstance(rest[i], HumanMessage))
    latest = next(humans, None)  # looks back from the end: reads only the latest turn
    if latest is not None and counter([*head, *rest[latest:]]) > max_tokens:
        raise ValueError(
            f"max_tokens={max_tokens} cannot hold the latest turn: it needs "
            f"{counter([*head, *rest[latest:]])} tokens with the system prompt"
        )
    return latest


def _list_overhead(counter: TokenCounterFn, message: BaseMessage) -> int:
    """Tokens the counter adds once per list (OpenAI's reply priming), 0 for plain sums."""
    return 2 * counter([message]) - counter([message, message])


def _check_kept(kept, head, rest, latest, max_tokens: int, counter: TokenCounterFn) -> None:
    """RuntimeError unless kept is the system prompt plus a suffix cut at a turn start."""
    tail = kept[len(head) :]
    if (
        counter(kept) > max_tokens
        or (
            tail
            and (not isinstance(tail[0], HumanMessage) or rest[len(rest) - len(tail) :] != tail)
        )
        or (latest is not None and not tail)
    ):
        raise RuntimeError(f"trim_messages returned an unsafe selection of {len(kept)} messages")


def _trim_with_trim_messages(messages, head, rest, latest, max_tokens, counter) -> list:
    """The cut made by trim_messages, for a counter that only counts whole lists."""
    check_prompt_messages(messages)
    # trim_messages subtracts counter([system]) from the budget and then counts the rest as a
    # separate list, so a per-list overhead is charged twice; give that back.
    slack = _list_overhead(counter, head[0]) if head else 0
    kept = trim_messages(
        messages,
        max_tokens=max_tokens + slack,
        token_counter=counter,
        strategy="last",
        include_system=True,
        start_on="human",
    )
    _check_kept(kept, head, rest, latest, max_tokens, counter)
    return kept


def _trim_walking_back(messages, head, rest, latest, max_tokens, counter: TokenCounter) -> list:
    """The same cut with cached per-message counts: the longest suffix within the budget, walking
    back from the newest message, started at a turn start."""
    if latest is None:  # no human turn at all: nothing after the system prompt can be kept
        check_prompt_messages(messages)
        return head
    room = max_tokens - (counter(head) if head else TOKENS_PER_REPLY)
    start, used = len(rest), 0
    while start > 0:
        used += counter.message(rest[start - 1])  # cached after the first count
        if used > room:
            break
        start -= 1
    cut = next(i for i in range(start, latest + 1) if isinstance(rest[i], HumanMessage))
    check_prompt_messages(messages, start=len(head) + cut)  # only the kept part is read
    return [*head, *rest[cut:]]


# Saved from notebooks/01_conversation_buffers.ipynb, In [10]: edit it there, then `make sync`.
def trim_to_budget(
    messages: Sequence[BaseMessage], max_tokens: int, token_counter: TokenCounterFn | None = None
) -> list[BaseMessage]:
    """The cut of `trim_messages(strategy="last", include_system=True, start_on="human")`,
    raising ValueError where that would silently go over budget or drop the question."""
    check_int(max_tokens, "max_tokens", minimum=1)
    counter = check_counter(token_counter)
    messages = message_list(messages)
    head = messages[:1] if messages and isinstance(messages[0], SystemMessage) else []
    rest = messages[len(head) :]
    latest = _check_fits(head, rest, max_tokens, counter)
    if isinstance(counter, TokenCounter):  # cached counts: walk back from the newest message
        return _trim_walking_back(messages, head, rest, latest, max_tokens, counter)
    return _trim_with_trim_messages(messages, head, rest, latest, max_tokens, counter)


# --- buffers ----------------------------------------------------------------------------------


class BufferBase:
    """What every buffer shares: validation, atomic updates, the pinned system prompt; a subclass
    says which suffix of the history it keeps by overriding `_select`."""

    def __init__(self, system_prompt: str, token_counter: TokenCounterFn | None = None):
        self.system = _system_prompt(system_prompt)
        self.counter = check_counter(token_counter)
        self._kept: list[BaseMessage] = []
        self._pending: frozenset = frozenset()
        self.dropped = 0  # messages evicted (or folded into a summary) so far

    def _select(self, candidate: list[BaseMessage]) -> list[BaseMessage]:
        """The suffix of candidate this buffer keeps; may raise, may compute side results."""
        return candidate

    def _commit(self) -> None:
        """Apply side results computed by the last successful _select."""

    def extend(self, messages: Iterable[BaseMessage]) -> None:
        """Append messages; on any error, raise and leave the buffer unchanged."""
        new = message_list(messages)
        pending = self._pending
        for i, m in enumerate(new):
            pending = _advance(m, pending, f"message {i} of {len(new)}")
        candidate = [*self._kept, *new]
        kept = self._select(candidate)
        self._commit()
        self.dropped += len(candidate) - len(kept)
        self._kept = kept
        self._pending = pending

    def add(self, message: BaseMessage) -> None:
        """Append one message (validated; the buffer is unchanged if it is rejected)."""
        self.extend([message])

    @property
    def messages(self) -> list[BaseMessage]:
        """What to send to the chat model: the system prompt, then the kept messages."""
        return [self.system, *self._kept]

    def prompt_tokens(self) -> int:
        """Tokens `messages` costs as a prompt, counted with tiktoken."""
        return self.counter(self.messages)

    def __len__(self) -> int:
        return len(self._kept)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(kept={len(self._kept)}, dropped={self.dropped})"


# Saved from notebooks/01_conversation_buffers.ipynb, In [6]: edit it there, then `make sync`.
class FullBuffer(BufferBase):
    """Keeps every message: the baseline whose prompt grows without bound."""


# Saved from notebooks/01_conversation_buffers.ipynb, In [6]: edit it there, then `make sync`.
class SlidingWindowBuffer(BufferBase):
    """System prompt pinned, plus the last `max_turns` turns or at most `max_messages` messages
    (cut only at turn starts, so one tool-heavy turn may exceed `max_messages`)."""

    def __init__(
        self,
        system_prompt: str,
        max_turns: int | None = None,
        max_messages: int | None = None,
        token_counter: TokenCounterFn | None = None,
    ):
        self.max_turns, self.max_messages = _check_window_args(max_turns, max_messages)
        super().__init__(system_prompt, token_counter)

    def _select(self, candidate):
        starts = turn_starts(candidate)
        if not starts:
            return candidate
        if self.max_turns is not None:
            cut = starts[-self.max_turns] if len(starts) >= self.max_turns else 0
        elif len(candidate) <= self.max_messages:
            cut = 0
        else:
            fitting = [i for i in starts if len(candidate) - i <= self.max_messages]
            cut = fitting[0] if fitting else starts[-1]
        return candidate[cut:]


# Saved from notebooks/01_conversation_buffers.ipynb, In [6]: edit it there, then `make sync`.
class TokenTrimBuffer(BufferBase):
    """System prompt plus the most recent whole turns whose real token count fits `max_tokens`."""

    def __init__(
        self, system_prompt: str, max_tokens: int, token_counter: TokenCounterFn | None = None
    ):
        super().__init__(system_prompt, token_counter)
        self.max_tokens = _check_budget(max_tokens, self.counter([self.system]))

    def _select(self, candidate):
        return trim_to_budget([self.system, *candidate], self.max_tokens, self.counter)[1:]


def transcript(messages: Sequence[BaseMessage]) -> str:
    """Plain-text rendering of messages for a summary prompt, tool calls included."""
    messages = check_messages(messages)
    lines = []
    for m in messages:
        if isinstance(m, HumanMessage):
            lines.append(f"user: {m.content}")
        elif isinstance(m, AIMessage):
            if m.content:
                lines.append(f"assistant: {m.content}")
            for call in m.tool_calls:
                lines.append(f"assistant called {call['name']}({json.dumps(call['args'])})")
        elif isinstance(m, ToolMessage):
            lines.append(f"tool result{f' ({m.name})' if m.name else ''}: {m.content}")
        else:
            lines.append(f"{m.type}: {m.content}")
    return "\n".join(lines)


def _check_summary_args(model, max_tokens, summary_words, keep_tokens, summary_prompt) -> int:
    """Validate SummaryBuffer's arguments; return keep_tokens (default: half of max_tokens)."""
    check_int(max_tokens, "max_tokens", minimum=1)
    check_int(summary_words, "summary_words", minimum=1)
    check_chat_model(model)
    check_str(summary_prompt, "summary_prompt")
    if "{words}" not in summary_prompt:
        raise ValueError(f"summary_prompt must contain '{{words}}', got {summary_prompt!r:.80}")
    if keep_tokens is None:
        keep_tokens = max_tokens // 2
    check_int(keep_tokens, "keep_tokens", minimum=1)
    if keep_tokens > max_tokens:
        raise ValueError(f"keep_tokens={keep_tokens} exceeds max_tokens={max_tokens}")
    return keep_tokens


# Saved from notebooks/01_conversation_buffers.ipynb, In [7]: edit it there, then `make sync`.
def summarize_messages(
    model: BaseChatModel, instructions: str, summary: str, old: Sequence[BaseMessage]
) -> str:
    """Ask the chat model to fold `old` into the running `summary`; return the new summary."""
    _check_summarize_args(model, instructions, summary)
    previous = f"Summary so far: {summary}\n\n" if summary else ""
    reply = model.invoke(
        [HumanMessage(f"{instructions}\n\n{previous}New messages:\n{transcript(old)}")]
    )
    text = reply.content if isinstance(reply.content, str) else ""
    if not text.strip():
        raise RuntimeError(f"the chat model returned an empty summary: {reply.content!r:.80}")
    return text.strip()


# Saved from notebooks/01_conversation_buffers.ipynb, In [7]: edit it there, then `make sync`.
def _recent_turns(system, candidate, keep_tokens, max_tokens, counter) -> list[BaseMessage]:
    """What a summary buffer keeps verbatim: the newest whole turns within keep_tokens."""
    starts = turn_starts(candidate)
    latest = candidate[starts[-1] :] if starts else []
    if counter([system, *latest]) > keep_tokens:
        # The latest turn alone is bigger than keep_tokens: fold everything before it
        # (trim_to_budget raises if it does not even fit max_tokens).
        trim_to_budget([system, *latest], max_tokens, counter)
        return latest
    return trim_to_budget([system, *candidate], keep_tokens, counter)[1:]


# Saved from notebooks/01_conversation_buffers.ipynb, In [8]: edit it there, then `make sync`.
class SummaryBuffer(BufferBase):
    """Recent turns verbatim; older turns folded into a running summary by the chat model."""

    def __init__(
        self,
        system_prompt: str,
        model: BaseChatModel,
        max_tokens: int,
        summary_words: int = 80,
        keep_tokens: int | None = None,
        summary_prompt: str = SUMMARY_INSTRUCTIONS,
        token_counter: TokenCounterFn | None = None,
    ):
        keep = _check_summary_args(model, max_tokens, summary_words, keep_tokens, summary_prompt)
        super().__init__(system_prompt, token_counter)
        need = self.counter([self.system])
        _check_budget(max_tokens, need)
        self.model, self.max_tokens, self.keep_tokens = model, max_tokens, max(keep, need)
        self.summary_words, self.summary_prompt = summary_words, summary_prompt
        self.summary, self.summaries = "", 0  # summaries: chat-model calls made to fold old turns
        self._next_summary: str | None = None

    def _select(self, candidate):
        self._next_summary = None
        if self.counter(self._view(self.summary, candidate)) <= self.max_tokens:
            return candidate
        kept = _recent_turns(
            self.system, candidate, self.keep_tokens, self.max_tokens, self.counter
        )
        old = candidate[: len(candidate) - len(kept)]
        if old:
            instructions = self.summary_prompt.format(words=self.summary_words)
            self._next_summary = summarize_messages(self.model, instructions, self.summary, old)
        return kept

    def _commit(self):
        if self._next_summary is not None:
            self.summary = self._next_summary
            self.summaries += 1
            self._next_summary = None

    def _view(self, summary: str, kept: list[BaseMessage]) -> list[BaseMessage]:
        if not summary:
            return [self.system, *kept]
        note = f"\n\nSummary of the earlier conversation:\n{summary}"
        return [SystemMessage(self.system.content + note), *kept]

    @property
    def messages(self) -> list[BaseMessage]:
        return self._view(self.summary, self._kept)


# --- fixtures ---------------------------------------------------------------------------------

_ROLE_TYPES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}


def _row_to_message(row: dict, where: str) -> BaseMessage:
    role = row.get("role")
    extra = {"id": row["id"]} if row.get("id") else {}
    if role == "tool":
        return ToolMessage(
            row["content"], tool_call_id=row.get("tool_call_id"), name=row.get("name"), **extra
        )
    if role == "assistant" and row.get("tool_calls"):
        calls = [
            {"name": c["name"], "args": c.get("args", {}), "id": c["id"], "type": "tool_call"}
            for c in row["tool_calls"]
        ]
        return AIMessage(row.get("content", ""), tool_calls=calls, **extra)
    if role not in _ROLE_TYPES:
        raise ValueError(
            f"{where}: unknown role {role!r}; expected one of {[*_ROLE_TYPES, 'tool']}"
        )
    return _ROLE_TYPES[role](row["content"], **extra)


def conversation_path(name: str | Path) -> Path:
    """A fixture name like 'long_chat' -> data/conversations/long_chat.jsonl; paths pass through."""
    path = Path(name)
    if path.suffix != ".jsonl" and len(path.parts) == 1:
        path = CONVERSATIONS / f"{path}.jsonl"
    if not path.is_file():
        raise ValueError(f"no conversation file at {str(path)!r}")
    return path


def turn_topics(name: str | Path) -> list[str | None]:
    """The optional "topic" label of each user turn in a JSONL fixture, in order."""
    rows = [
        json.loads(line)
        for line in conversation_path(name).read_text("utf-8").splitlines()
        if line.strip()
    ]
    return [row.get("topic") for row in rows if row.get("role") == "user"]


def load_conversation(name: str | Path) -> list[BaseMessage]:
    """Load a JSONL conversation fixture as validated langchain messages with stable ids.

    Each line: {"role": "system"|"user"|"assistant"|"tool", "content": ..., optional
    "tool_calls": [{"name", "args", "id"}], "tool_call_id", "name", "topic" (user rows; see
    `turn_topics`)}.
    """
    check_kind(name, str | Path, "name", "a fixture name like 'long_chat' or a path")
    check_str(str(name), "name")
    path = conversation_path(name)
    messages = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{lineno}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not JSON ({exc.msg})") from None
        row.setdefault("id", f"{path.stem}-{lineno}")
        messages.append(_row_to_message(row, where))
    check_prompt_messages(messages)
    return messages
