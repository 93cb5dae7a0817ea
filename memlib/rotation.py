"""Summary rotation: keep a running summary in graph state and delete the messages it replaced.

Provides:
- `SummaryState`: `messages` (with LangGraph's `add_messages` reducer, which understands
  `RemoveMessage`) plus `summary`, a plain string.
- `split_for_summary`: where to cut a history so that an AI tool-call message and its
  ToolMessages always land on the same side (LangMem's summarizer can split them: langmem#98, #126);
  `check_tool_pairs` raises on a history (or, with request=True, a prompt) a provider would
  reject; `message_shape` draws one.
- `summary_request` / `prompt_with_summary`: the prompt that asks for a budgeted summary folding in
  the previous one, and the chat prompt with the summary injected into the system message.
- `chat_node`, `compress_node`, `route_after_chat`, `build_rotation_graph`: the graph pieces.
  `check_summary_state` and `check_model` refuse a state without `messages` or a non-model with a
  TypeError/ValueError naming the value.
- `PromptRecorder`: a callback handler recording every chat-model call by graph node with its
  prompt tokens, so a notebook can count summarization calls and see what the model was shown.
- `run_turns`: feed user turns through a compiled graph and collect per-turn measurements;
  `strategy_table`, `format_table`, `plot_strategies` summarize them; `load_user_turns` reads the
  scripted conversation in data/conversations/.
- `prune_history`: checkpoint retention. Every earlier checkpoint still holds the messages rotation
  removed; this keeps each thread's latest (LangGraph's `prune(strategy="keep_latest")`, upstream on
  PostgresSaver only; here also SqliteSaver and InMemorySaver) and empties SQLite's WAL after.

Leaves out: token-based thresholds (this compresses on message count), keeping a straddling
tool-call group verbatim (it goes into the summary, so the kept part never exceeds keep_last),
compressing in the middle of a tool loop (the graph only compresses after a final answer), retrieval
of what was summarized away (the summary is all that remains of it), and pruning on a schedule (call
`prune_history` where your application decides; time travel needs the history).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from typing_extensions import TypedDict

from memlib.checks import (
    check_checkpointer,
    check_int,
    check_items,
    check_kind,
    check_messages,
    check_str,
)
from memlib.fixtures import DATA_DIR, read_jsonl
from memlib.tokens import TokenCounter

CONVERSATIONS = DATA_DIR / "conversations"
DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."
SUMMARY_HEADING = "Summary of the earlier conversation:"
DEFAULT_SUMMARY_WORDS = 120


# Saved from notebooks/06_summary_rotation.ipynb, In [4]: edit it there, then `make sync`.
class SummaryState(TypedDict):
    """Messages plus a running summary."""

    messages: Annotated[list[AnyMessage], add_messages]
    summary: str


def check_summary_state(state: Any) -> tuple[list[BaseMessage], str]:
    """(messages, summary) of a SummaryState-shaped dict, or a TypeError/ValueError naming what
    is missing or of the wrong kind (a node given the wrong state fails here, not with KeyError)."""
    check_kind(state, Mapping, "state", "a dict with 'messages' (and optionally 'summary')")
    if "messages" not in state:
        raise ValueError(
            f"state has no 'messages' key (keys: {sorted(state)}); a SummaryState needs "
            "'messages' and 'summary'"
        )
    messages = check_messages(state["messages"], "state['messages']")
    summary = state.get("summary") or ""
    check_str(summary, "state['summary']", allow_empty=True)
    return messages, summary


def check_model(model: Any, tools: Any = ()) -> list:
    """A chat model (something with .invoke, and .bind_tools when tools are given) and a list of
    tools; returns the tools as a list."""
    if not callable(getattr(model, "invoke", None)):
        raise TypeError(
            f"model must be a chat model with .invoke (e.g. ChatOpenAI), got "
            f"{type(model).__name__}: {model!r:.80}"
        )
    check_items(tools, "tools", "a list of tools")
    if tools and not callable(getattr(model, "bind_tools", None)):
        raise TypeError(f"tools need a model with .bind_tools, got {type(model).__name__}")
    return list(tools)


def check_rotation_budgets(threshold: int, keep_last: int, summary_words: int) -> None:
    """Raise ValueError/TypeError unless 0 < keep_last <= threshold and summary_words > 0."""
    check_int(threshold, "threshold", minimum=1)
    check_int(keep_last, "keep_last", minimum=1)
    check_int(summary_words, "summary_words", minimum=1)
    if keep_last > threshold:
        raise ValueError(
            f"keep_last={keep_last!r} is larger than threshold={threshold!r}: the kept tail alone "
            "would trigger compression again; use keep_last <= threshold"
        )


def _check_chat_args(model, tools, system_prompt) -> list:
    tools = check_model(model, tools)
    check_str(system_prompt, "system_prompt")
    return tools


def _check_split_args(messages, keep_last) -> list[BaseMessage]:
    check_int(keep_last, "keep_last", minimum=1)
    return check_messages(messages)


def _check_request_args(previous_summary, messages, words) -> list[BaseMessage]:
    check_str(previous_summary, "previous_summary", allow_empty=True)
    messages = check_messages(messages)
    check_int(words, "words", minimum=1)
    return messages


def _check_route_args(threshold, tools) -> None:
    check_int(threshold, "threshold", minimum=1)
    if not isinstance(tools, bool):
        raise TypeError(f"tools must be a bool (is a tool node wired?), got {tools!r}")


def _check_graph_args(model, tools, summary_model, checkpointer, budgets: dict) -> list:
    """build_rotation_graph's arguments, in order; returns the tools as a list."""
    check_rotation_budgets(**budgets)
    tools = check_model(model, tools)
    if summary_model is not None:
        check_model(summary_model)
    if checkpointer is not None:
        check_checkpointer(checkpointer)
    return tools


def check_tool_pairs(messages: Sequence[BaseMessage], *, request: bool = False) -> None:
    """Raise ValueError for messages a chat provider would reject: an orphan ToolMessage or a tool
    call whose results do not follow it.

    By default `messages` is a stored history, which must also hold no SystemMessage and give
    every message an id; `request=True` checks a prompt about to be sent instead, where a system
    message and messages without ids are fine.
    """
    check_kind(request, bool, "request", "a bool")
    messages = check_messages(messages)
    pending: dict[str, int] = {}  # tool_call_id -> index of the AI message that made the call
    for i, m in enumerate(messages):
        if not isinstance(m, BaseMessage):
            raise TypeError(f"messages[{i}] is {type(m).__name__}, not a langchain message: {m!r}")
        if m.id is None and not request:
            raise ValueError(f"messages[{i}] has no id; RemoveMessage needs ids: {m!r}")
        if isinstance(m, SystemMessage) and not request:
            raise ValueError(
                f"messages[{i}] is a SystemMessage; keep the system prompt out of state "
                "(the chat node adds it on every call)"
            )
        if isinstance(m, ToolMessage):
            if m.tool_call_id not in pending:
                raise ValueError(
                    f"messages[{i}] (id {m.id!r}) answers tool call {m.tool_call_id!r}, "
                    "which no preceding AI message made: an orphan ToolMessage"
                )
            del pending[m.tool_call_id]
            continue
        if pending:
            first = min(pending.values())
            raise ValueError(
                f"AI message messages[{first}] (id {messages[first].id!r}) has tool calls "
                f"{sorted(pending)} with no ToolMessage before messages[{i}] ({m.type})"
            )
        if isinstance(m, AIMessage):
            for call in m.tool_calls:
                pending[call["id"]] = i
    if pending:
        first = min(pending.values())
        hint = "send their results with them" if request else "compress at the end of a turn"
        raise ValueError(
            f"the messages end while tool calls {sorted(pending)} of messages[{first}] "
            f"(id {messages[first].id!r}) await results; {hint}"
        )


# Saved from notebooks/06_summary_rotation.ipynb, In [6]: edit it there, then `make sync`.
def split_for_summary(
    messages: Sequence[BaseMessage], keep_last: int
) -> tuple[list[BaseMessage], list[BaseMessage]]:
    """Split into (to summarize, to keep): at most keep_last kept, tool-call groups never split."""
    messages = _check_split_args(messages, keep_last)
    check_tool_pairs(messages)  # ids present, no orphan results, no unanswered calls
    cut = max(0, len(messages) - keep_last)
    while cut < len(messages) and isinstance(messages[cut], ToolMessage):
        cut += 1  # never start the kept part with a result: its call goes to the summary
    return messages[:cut], messages[cut:]


def _listed(messages: Any) -> list[BaseMessage]:
    """check_messages, also for a generator or other iterable of messages (listed first)."""
    if isinstance(messages, Iterable) and not isinstance(messages, str | bytes | Sequence):
        messages = list(messages)
    return check_messages(messages)


def message_shape(messages: Iterable[BaseMessage]) -> str:
    """A compact picture of a history: 'H A* T A' (human, AI with tool calls, tool, AI)."""
    messages = _listed(messages)
    letters = {"human": "H", "ai": "A", "tool": "T", "system": "S"}
    return " ".join(
        letters.get(m.type, "?") + ("*" if getattr(m, "tool_calls", None) else "") for m in messages
    )


# Saved from notebooks/06_summary_rotation.ipynb, In [7]: edit it there, then `make sync`.
def format_transcript(messages: Iterable[BaseMessage]) -> str:
    """One line per message ('User: ...', 'Assistant: ...', tool calls and results spelled out)."""
    messages = _listed(messages)
    lines = []
    for m in messages:
        text = str(m.text)
        if isinstance(m, HumanMessage):
            lines.append(f"User: {text}")
        elif isinstance(m, ToolMessage):
            lines.append(f"Tool {m.name or m.tool_call_id} returned: {text}")
        elif isinstance(m, AIMessage):
            if text:
                lines.append(f"Assistant: {text}")
            for call in m.tool_calls:
                lines.append(f"Assistant called tool {call['name']} with {call['args']}")
        else:
            lines.append(f"{m.type}: {text}")
    return "\n".join(lines)


# Saved from notebooks/06_summary_rotation.ipynb, In [7]: edit it there, then `make sync`.
def summary_request(
    previous_summary: str, messages: Sequence[BaseMessage], words: int = DEFAULT_SUMMARY_WORDS
) -> list[BaseMessage]:
    """The prompt asking for an updated summary of at most `words` words."""
    messages = _check_request_args(previous_summary, messages, words)
    instruction = (
        f"You keep a running summary of a conversation. Write the updated summary in at most "
        f"{words} words. Fold in the previous summary, keep every name, number, date and topic, "
        "and drop small talk."
    )
    previous = f"Previous summary:\n{previous_summary}\n\n" if previous_summary else ""
    body = (
        f"{previous}New messages:\n{format_transcript(messages)}\n\n"
        f"Write the updated summary in at most {words} words."
    )
    return [SystemMessage(instruction), HumanMessage(body)]


# Saved from notebooks/06_summary_rotation.ipynb, In [5]: edit it there, then `make sync`.
def prompt_with_summary(
    messages: Sequence[BaseMessage], summary: str = "", system_prompt: str = DEFAULT_SYSTEM_PROMPT
) -> list[BaseMessage]:
    """System prompt (with the summary, if any) followed by the active messages."""
    messages = check_messages(messages)
    check_str(summary, "summary", allow_empty=True)
    check_str(system_prompt, "system_prompt")
    system = system_prompt if not summary else f"{system_prompt}\n\n{SUMMARY_HEADING}\n{summary}"
    return [SystemMessage(system), *messages]


def _reply_text(message: BaseMessage) -> str:
    text = str(message.text)
    return text.strip()


# Saved from notebooks/06_summary_rotation.ipynb, In [5]: edit it there, then `make sync`.
def chat_node(
    model: BaseChatModel, *, system_prompt: str = DEFAULT_SYSTEM_PROMPT, tools: Sequence = ()
) -> Callable[[SummaryState], dict]:
    """A node answering from the summary (in the system prompt) plus the active messages."""
    tools = _check_chat_args(model, tools, system_prompt)
    bound = model.bind_tools(tools) if tools else model

    def chat(state: SummaryState) -> dict:
        messages, summary = check_summary_state(state)
        prompt = prompt_with_summary(messages, summary, system_prompt)
        return {"messages": [bound.invoke(prompt)]}

    return chat


# Saved from notebooks/06_summary_rotation.ipynb, In [7]: edit it there, then `make sync`.
def compress_node(
    model: BaseChatModel,
    *,
    threshold: int,
    keep_last: int,
    summary_words: int = DEFAULT_SUMMARY_WORDS,
) -> Callable[[SummaryState], dict]:
    """A node that, above `threshold` messages, summarizes all but the last `keep_last` and
    deletes them with RemoveMessage."""
    check_model(model)
    check_rotation_budgets(threshold, keep_last, summary_words)

    def compress(state: SummaryState) -> dict:
        messages, previous = check_summary_state(state)
        if len(messages) <= threshold:
            return {}
        old, _kept = split_for_summary(messages, keep_last)
        if not old:
            return {}
        reply = model.invoke(summary_request(previous, old, summary_words))
        summary = str(reply.text).strip()
        if not summary:
            raise ValueError(f"the summarizer returned an empty summary for {len(old)} messages")
        return {"summary": summary, "messages": [RemoveMessage(id=m.id) for m in old]}

    return compress


# Saved from notebooks/06_summary_rotation.ipynb, In [8]: edit it there, then `make sync`.
def route_after_chat(threshold: int, *, tools: bool = False) -> Callable[[SummaryState], str]:
    """Routing after the chat node: 'tools' for pending tool calls, 'compress' above threshold."""
    _check_route_args(threshold, tools)

    def route(state: SummaryState) -> str:
        messages, _summary = check_summary_state(state)
        last = messages[-1] if messages else None
        if tools and isinstance(last, AIMessage) and last.tool_calls:
            return "tools"
        return "compress" if len(messages) > threshold else END

    return route


# Saved from notebooks/06_summary_rotation.ipynb, In [9]: edit it there, then `make sync`.
def build_rotation_graph(
    model: BaseChatModel,
    *,
    threshold: int,
    keep_last: int,
    summary_words: int = DEFAULT_SUMMARY_WORDS,
    summary_model: BaseChatModel | None = None,
    tools: Sequence = (),
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
    checkpointer: BaseCheckpointSaver | None = None,
):
    """Compile chat -> (tools -> chat)* -> compress? -> END over SummaryState."""
    budgets = {"threshold": threshold, "keep_last": keep_last, "summary_words": summary_words}
    tools = _check_graph_args(model, tools, summary_model, checkpointer, budgets)
    builder = StateGraph(SummaryState)
    builder.add_node("chat", chat_node(model, system_prompt=system_prompt, tools=tools))
    builder.add_node("compress", compress_node(summary_model or model, **budgets))
    builder.add_edge(START, "chat")
    targets = ["compress", END]
    if tools:  # the tool loop: chat -> tools -> chat until the model answers in text
        builder.add_node("tools", ToolNode(list(tools)))
        builder.add_edge("tools", "chat")
        targets.append("tools")
    builder.add_conditional_edges("chat", route_after_chat(threshold, tools=bool(tools)), targets)
    builder.add_edge("compress", END)
    return builder.compile(checkpointer=checkpointer)


@dataclass
class ModelCall:
    """One chat-model invocation: the graph node that made it and the prompt it was shown."""

    node: str | None
    prompt: list[BaseMessage]
    prompt_tokens: int

    @property
    def text(self) -> str:
        return "\n".join(_reply_text(m) for m in self.prompt)


class PromptRecorder(BaseCallbackHandler):
    """Callback handler keeping every chat-model call with its node name and prompt tokens."""

    def __init__(self, counter: TokenCounter | None = None):
        if counter is not None and not callable(counter):
            raise TypeError(
                f"counter must be a TokenCounter (or a callable on a message list), got "
                f"{type(counter).__name__}: {counter!r:.80}"
            )
        super().__init__()
        self.counter = counter or TokenCounter()
        self.calls: list[ModelCall] = []

    def on_chat_model_start(self, serialized, messages, *, metadata=None, **kwargs) -> None:
        node = (metadata or {}).get("langgraph_node")
        for prompt in messages:
            self.calls.append(ModelCall(node, list(prompt), self.counter(prompt)))

    def by_node(self, node: str) -> list[ModelCall]:
        """Calls made from one graph node."""
        check_str(node, "node")
        return [c for c in self.calls if c.node == node]


_UNKNOWN = re.compile(
    r"\b(?:don't|do not|doesn't|does not) (?:know|have)\b|\bhaven't (?:told|said|mentioned)\b",
    re.I,
)


def _words_of(text: str) -> list[str]:
    return re.findall(r"\w+", text.replace("\u2019", "'").lower())


def mentions_all(text: str, facts: Sequence[str]) -> bool:
    """True when text states every fact: its words, in order, as whole words of one sentence
    that does not say it is unknown ("I don't know your name before Priya Raman" states no
    name; "Priyanka" does not state "Priya")."""
    text = check_str(text, "text", allow_empty=True)
    if isinstance(facts, str):
        raise TypeError(f"facts must be a list of strings, got a str: {facts!r:.80}")
    stated = [_words_of(s) for s in re.split(r"(?<=[.!?])\s+|\n+", text) if not _UNKNOWN.search(s)]

    def said(fact: str) -> bool:
        want = _words_of(check_str(fact, "fact"))
        return any(
            words[i : i + len(want)] == want
            for words in stated
            for i in range(len(words) - len(want) + 1)
        )

    return all(said(f) for f in facts)


def run_turns(
    graph,
    user_turns: Sequence[str],
    *,
    thread_id: str,
    facts: Sequence[str] = (),
    chat_node_name: str = "chat",
    summary_node_name: str | None = "compress",
    extra_message_keys: Sequence[str] = (),
    facts_by_turn: Sequence[Sequence[str]] | None = None,
) -> list[dict]:
    """Send each user turn through `graph`; return one row of measurements per turn.

    Each row is measured after the whole turn, i.e. after any compress step: messages in state
    (plus the lengths of `extra_message_keys`), prompt tokens of the chat call(s) this turn, the
    number of messages the chat model was shown, cumulative summarization calls and their prompt
    tokens, whether the last chat prompt contained every fact, and the reply text. With
    `facts_by_turn` (one list of fact strings per user turn), also how many facts stated in
    earlier turns the chat prompt still contained.
    """
    if not callable(getattr(graph, "invoke", None)) or not callable(
        getattr(graph, "get_state", None)
    ):
        raise TypeError(
            f"graph must be a compiled LangGraph graph with a checkpointer, got "
            f"{type(graph).__name__}: {graph!r:.80}"
        )
    check_items(user_turns, "user_turns", "a list of strings")
    for i, text in enumerate(user_turns):
        check_str(text, f"user_turns[{i}]")
    check_str(thread_id, "thread_id")
    check_str(chat_node_name, "chat_node_name")
    if isinstance(facts, str):
        raise TypeError(f"facts must be a list of strings, got a str: {facts!r:.80}")
    if facts_by_turn is not None and len(facts_by_turn) != len(user_turns):
        raise ValueError(
            f"facts_by_turn has {len(facts_by_turn)} entries for {len(user_turns)} user turns"
        )
    recorder = PromptRecorder()
    config = {"configurable": {"thread_id": thread_id}, "callbacks": [recorder]}
    rows = []
    for turn, text in enumerate(user_turns, start=1):
        before = len(recorder.calls)
        graph.invoke({"messages": [HumanMessage(text)]}, config)
        new_calls = recorder.calls[before:]
        chat_calls = [c for c in new_calls if c.node == chat_node_name]
        if not chat_calls:
            raise ValueError(f"turn {turn}: no chat-model call from node {chat_node_name!r}")
        summary_calls = recorder.by_node(summary_node_name) if summary_node_name else []
        values = graph.get_state(config).values
        stored = len(values.get("messages", []))
        extra = sum(len(values.get(k) or []) for k in extra_message_keys)
        earlier = [f for fs in (facts_by_turn or [])[: turn - 1] for f in fs]
        prompt_text = chat_calls[-1].text.lower()
        rows.append(
            {
                "turn": turn,
                "messages_in_state": stored,
                "stored_messages": stored + extra,
                "prompt_messages": len(chat_calls[-1].prompt),
                "prompt_tokens": sum(c.prompt_tokens for c in chat_calls),
                "summary_calls": len(summary_calls),
                "summary_tokens": sum(c.prompt_tokens for c in summary_calls),
                "facts_in_prompt": mentions_all(chat_calls[-1].text, facts) if facts else None,
                "earlier_facts": len(earlier),
                "earlier_facts_in_prompt": sum(f.lower() in prompt_text for f in earlier),
                "reply": _reply_text(values["messages"][-1]) if values.get("messages") else "",
            }
        )
    return rows


def load_user_turns(name: str = "rotation_pipeline_50_turns") -> list[dict]:
    """Scripted user turns from data/conversations/<name>.jsonl: [{turn, user, facts}, ...]."""
    path = CONVERSATIONS / f"{check_str(name, 'name')}.jsonl"
    if not path.is_file():
        raise ValueError(f"no conversation script {name!r} at {path}")
    rows = read_jsonl(path)
    for i, row in enumerate(rows, start=1):
        if row.get("turn") != i or not isinstance(row.get("user"), str):
            raise ValueError(f"{path.name} line {i}: expected turn {i} with a 'user' string: {row}")
    return rows


def plot_strategies(results: dict[str, list[dict]], path: str | Path | None = None):
    """Per turn: messages stored in state, chat prompt tokens, earlier facts still in the prompt."""
    import matplotlib.pyplot as plt

    _check_results(results)
    check_kind(path, str | Path | None, "path", "a str, a Path or None")
    fig, (left, right, facts) = plt.subplots(1, 3, figsize=(15, 4), constrained_layout=True)
    styles = [("--", 2.5), ("-", 1.5), ("-.", 1.5), ("-", 2.0)]
    for i, (name, rows) in enumerate(results.items()):
        turns = [r["turn"] for r in rows]
        style, width = styles[i % len(styles)]
        kw = {"label": name, "linestyle": style, "linewidth": width}
        left.plot(turns, [r["stored_messages"] for r in rows], **kw)
        right.plot(turns, [r["prompt_tokens"] for r in rows], **kw)
        facts.plot(turns, [r["earlier_facts_in_prompt"] for r in rows], **kw)
    left.set(title="messages stored in state (after each turn)", xlabel="turn", ylabel="messages")
    right.set(title="prompt tokens of the chat call", xlabel="turn", ylabel="tokens")
    facts.set(title="facts from earlier turns in the prompt", xlabel="turn", ylabel="facts")
    if results:
        # The facts stated so far, as a shaded area under everything else: full history keeps
        # every fact, so a line here would hide under (or hide) its line.
        first = next(iter(results.values()))
        facts.fill_between(
            [r["turn"] for r in first],
            [r["earlier_facts"] for r in first],
            color="0.85",
            zorder=0,
            label="facts stated so far (area)",
        )
    left.legend()
    facts.legend(loc="upper left", fontsize="small")
    for ax in (left, right, facts):
        ax.grid(alpha=0.3)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def _check_results(results: Any) -> None:
    check_kind(results, Mapping, "results", "a dict of strategy name -> run_turns rows")


def strategy_table(results: dict[str, list[dict]], facts: Sequence[str]) -> list[dict]:
    """One row per strategy: state size, prompt tokens, summarization cost, fact reachability."""
    _check_results(results)
    table = []
    for name, rows in results.items():
        last = rows[-1]
        table.append(
            {
                "strategy": name,
                "messages_in_state": last["messages_in_state"],
                "stored_messages": last["stored_messages"],
                "max_stored_messages": max(r["stored_messages"] for r in rows),
                "last_prompt_tokens": last["prompt_tokens"],
                "max_prompt_tokens": max(r["prompt_tokens"] for r in rows),
                "chat_prompt_tokens": sum(r["prompt_tokens"] for r in rows),
                "summary_calls": last["summary_calls"],
                "summary_prompt_tokens": last["summary_tokens"],
                "all_prompt_tokens": sum(r["prompt_tokens"] for r in rows) + last["summary_tokens"],
                "turns_facts_in_prompt": sum(bool(r["facts_in_prompt"]) for r in rows),
                "earlier_facts_in_last_prompt": last["earlier_facts_in_prompt"],
                "earlier_facts": last["earlier_facts"],
                "facts_in_last_prompt": bool(last["facts_in_prompt"]),
                "last_reply_has_facts": mentions_all(last["reply"], facts),
            }
        )
    return table


def format_table(
    rows: Sequence[dict], columns: Sequence[str] | None = None, width: int = 60
) -> str:
    """Rows of dicts as an aligned text table; long cells cut to `width` characters."""
    check_items(rows, "rows", "a list of dicts")
    check_int(width, "width", minimum=1)
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0])

    def cell(value) -> str:
        text = str(value).replace("\n", " ")
        return text if len(text) <= width else text[: width - 3] + "..."

    cells = [[cell(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(line.rstrip() for line in lines)


def prune_history(checkpointer, thread_ids: Iterable[str], *, strategy: str = "keep_latest"):
    """Keep only the latest checkpoint of each thread (LangGraph's `prune` API, on every saver)."""
    from langgraph.checkpoint.memory import InMemorySaver

    from memlib.backends import sqlite_connections, sqlite_scrub

    check_items(thread_ids, "thread_ids", "a list of thread ids", Iterable)
    check_checkpointer(checkpointer)
    if check_str(strategy, "strategy") not in ("keep_latest", "delete"):
        raise ValueError(f"strategy must be 'keep_latest' or 'delete', got {strategy!r}")
    saver, thread_ids = getattr(checkpointer, "saver", checkpointer), [str(t) for t in thread_ids]
    if strategy == "delete":
        for thread_id in thread_ids:
            saver.delete_thread(thread_id)
    elif isinstance(saver, InMemorySaver):
        _prune_memory(saver, thread_ids)
    elif hasattr(saver, "conn") and hasattr(saver, "lock") and hasattr(saver, "cursor"):
        _prune_sqlite(saver, thread_ids)  # SqliteSaver: no prune upstream
    else:
        saver.prune(thread_ids, strategy="keep_latest")  # PostgresSaver has its own
    for conn in sqlite_connections(saver):
        sqlite_scrub(conn)  # the pruned rows' bytes: out of the write-ahead log too


def _prune_sqlite(saver, thread_ids: list[str]) -> None:
    with saver.cursor(transaction=True) as cur:
        for thread_id in thread_ids:
            cur.execute(
                "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id NOT IN "
                "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? "
                "GROUP BY checkpoint_ns)",
                (thread_id, thread_id),
            )
            cur.execute(
                "DELETE FROM writes WHERE thread_id = ? AND NOT EXISTS (SELECT 1 FROM "
                "checkpoints c WHERE c.thread_id = writes.thread_id AND c.checkpoint_ns = "
                "writes.checkpoint_ns AND c.checkpoint_id = writes.checkpoint_id)",
                (thread_id,),
            )


def _prune_memory(saver, thread_ids: list[str]) -> None:
    for thread_id in thread_ids:
        kept_blobs = set()
        for ns, checkpoints in saver.storage.get(thread_id, {}).items():
            latest = max(checkpoints, default=None)
            for checkpoint_id in [c for c in checkpoints if c != latest]:
                del checkpoints[checkpoint_id]
                saver.writes.pop((thread_id, ns, checkpoint_id), None)
            if latest is not None:
                checkpoint = saver.serde.loads_typed(checkpoints[latest][0])
                kept_blobs |= {
                    (thread_id, ns, c, v) for c, v in checkpoint["channel_versions"].items()
                }
        for key in [k for k in saver.blobs if k[0] == thread_id and k not in kept_blobs]:
            del saver.blobs[key]
