"""ipywidgets for looking inside an agent's memory from JupyterLab.

`MemoryInspector(store)`: browse any LangGraph `BaseStore` (InMemoryStore, FaissStore, SqliteStore,
PostgresStore, ...): its namespaces under a prefix, the items of one namespace, a search by meaning
with scores, a filter on when items were last updated, one item's value and provenance, and a
delete that asks for confirmation first. Every control is a public attribute and every action a
method (`refresh`, `run_search`, `select`, `request_delete`, `confirm_delete`, `cancel_delete`), so
tests and notebooks drive it without a browser.

`ChatPanel(graph, users)`: talk to a compiled memory agent (notebook 09's graph, or any graph whose
state carries `messages`, `read` and `written`) as a chosen user, one thread per user: the reply,
the memories the turn read with their scores, what it wrote, and a meter of the turn's prompt
tokens against a budget. `send_message` is the Send button's action; every widget has a stable CSS
class (`memlib-chat-*`) for browser tests.

Leaves out: editing values (write through the store or the memory managers, so provenance stays
right), streaming replies, and choosing threads (the panel keeps one per user).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from html import escape
from typing import Any

import ipywidgets as w

from memlib.checks import check_int, check_store, check_str, check_user_id

NS_SEP = " / "
SINCE_CHOICES = {
    "any time": None,
    "last hour": timedelta(hours=1),
    "last day": timedelta(days=1),
    "last week": timedelta(weeks=1),
}
PROVENANCE_KEYS = ("written_by", "agent", "source", "thread_id", "user_id", "writer", "turn")


def _ns_label(namespace: tuple[str, ...]) -> str:
    return NS_SEP.join(namespace)


def _ns_tuple(label: str) -> tuple[str, ...]:
    return tuple(p for p in label.split(NS_SEP) if p) if label else ()


def _preview(value: Any, width: int = 90) -> str:
    content = value.get("content", value) if isinstance(value, dict) else value
    if isinstance(content, dict) and "content" in content:  # LangMem's {"kind", "content": {...}}
        content = content["content"]
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def _score(score: float | None) -> str:
    return "" if score is None else f"{score:.3f}"


def item_provenance(item: Any) -> dict[str, Any]:
    """Where an item came from: its namespace, key, timestamps and any provenance fields."""
    value = item.value if isinstance(item.value, dict) else {}
    found = {
        "namespace": _ns_label(item.namespace),
        "key": item.key,
        "created_at": str(item.created_at),
        "updated_at": str(item.updated_at),
    }
    nested = value.get("provenance") if isinstance(value.get("provenance"), dict) else {}
    for key in PROVENANCE_KEYS:
        if key in nested:
            found[key] = nested[key]
        elif key in value:
            found[key] = value[key]
    return found


class MemoryInspector:
    """Browse, search and prune a LangGraph store from a notebook."""

    def __init__(self, store: Any, prefix: tuple[str, ...] = (), limit: int = 50) -> None:
        self.store = check_store(store)
        self.limit = check_int(limit, "limit", minimum=1)
        if isinstance(prefix, str) or not all(isinstance(p, str) for p in prefix):
            raise TypeError(f"prefix must be a tuple of strings, got {prefix!r}")
        self.prefix = w.Text(value=_ns_label(tuple(prefix)), description="prefix")
        self.namespace = w.Dropdown(options=[], description="namespace")
        self.query = w.Text(
            placeholder="search by meaning (empty: newest first)", continuous_update=False
        )
        self.since = w.Dropdown(
            options=list(SINCE_CHOICES), value="any time", description="updated"
        )
        self.search_button = w.Button(description="Search", icon="search")
        self.results = w.HTML()
        self.item = w.Dropdown(options=[], description="item")
        self.details = w.HTML()
        self.delete_button = w.Button(description="Delete…", button_style="warning")
        self.confirm_button = w.Button(description="Confirm delete", button_style="danger")
        self.cancel_button = w.Button(description="Cancel")
        self.status = w.HTML()
        self.confirm_box = w.HBox([self.confirm_button, self.cancel_button])
        self.confirm_box.layout.display = "none"
        self.hits: list[Any] = []
        self._pending_delete: tuple[tuple[str, ...], str] | None = None

        self.prefix.observe(lambda _: self.refresh(), names="value")
        self.namespace.observe(lambda _: self.run_search(), names="value")
        self.since.observe(lambda _: self.run_search(), names="value")
        self.query.observe(lambda _: self.run_search(), names="value")  # on Enter or leaving
        self.search_button.on_click(lambda _: self.run_search())
        self.item.observe(lambda change: self.select(change["new"]), names="value")
        self.delete_button.on_click(lambda _: self.request_delete())
        self.confirm_button.on_click(lambda _: self.confirm_delete())
        self.cancel_button.on_click(lambda _: self.cancel_delete())
        self.widget = w.VBox(
            [
                w.HBox([self.prefix, self.namespace, self.since]),
                w.HBox([self.query, self.search_button]),
                self.results,
                w.HBox([self.item, self.delete_button]),
                self.confirm_box,
                self.details,
                self.status,
            ]
        )
        self.refresh()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # -- actions --------------------------------------------------------------------------------

    def namespaces(self) -> list[tuple[str, ...]]:
        """Namespaces under the prefix, sorted."""
        prefix = _ns_tuple(self.prefix.value)
        return sorted(self.store.list_namespaces(prefix=prefix or None, limit=10_000))

    def refresh(self) -> None:
        """Re-read the namespaces under the prefix and the current namespace's items."""
        labels = [_ns_label(ns) for ns in self.namespaces()]
        current = self.namespace.value
        self.namespace.options = labels
        if labels:
            self.namespace.value = current if current in labels else labels[0]
        self.run_search()

    def run_search(self) -> list[Any]:
        """Items of the chosen namespace: by meaning when there is a query, newest first otherwise;
        only those updated within the chosen window."""
        ns = _ns_tuple(self.namespace.value or "")
        if not ns:
            self.hits = []
        else:
            query = self.query.value.strip() or None
            hits = self.store.search(ns, query=query, limit=self.limit)
            window = SINCE_CHOICES[self.since.value]
            if window is not None:
                cutoff = datetime.now(timezone.utc) - window
                hits = [h for h in hits if h.updated_at >= cutoff]
            if query is None:
                hits = sorted(hits, key=lambda h: h.updated_at, reverse=True)
            self.hits = hits
        self._render_results()
        self.item.options = [h.key for h in self.hits]
        self.item.value = self.hits[0].key if self.hits else None
        self.select(self.item.value)
        return self.hits

    def select(self, key: str | None) -> dict | None:
        """Show one item's value and provenance."""
        hit = next((h for h in self.hits if h.key == key), None)
        if hit is None:
            self.details.value = "<i>no item selected</i>"
            return None
        facts = item_provenance(hit)
        rows = "".join(
            f"<tr><td>{escape(k)}</td><td>{escape(str(v))}</td></tr>" for k, v in facts.items()
        )
        if isinstance(hit.value, dict) and "slot" in hit.value:  # a dated fact (12): its history
            from memlib.temporal import dated_lines

            same = self.store.search(hit.namespace, filter={"slot": hit.value["slot"]}, limit=100)
            rows += f"<tr><td>history</td><td><pre>{escape(dated_lines(same))}</pre></td></tr>"
        value = escape(json.dumps(hit.value, indent=2, default=str))
        self.details.value = f"<table>{rows}</table><pre>{value}</pre>"
        return facts

    def request_delete(self) -> None:
        """First step of a delete: ask for confirmation; nothing is deleted yet."""
        ns, key = _ns_tuple(self.namespace.value or ""), self.item.value
        if not ns or key is None:
            self.status.value = "select an item first"
            return
        self._pending_delete = (ns, key)
        self.confirm_box.layout.display = "flex"
        self.status.value = f"delete <code>{escape(key)}</code> from {escape(_ns_label(ns))}?"

    def confirm_delete(self) -> bool:
        """Second step: delete the item asked about, then re-read the namespace."""
        if self._pending_delete is None:
            self.status.value = "nothing to delete: press Delete… first"
            return False
        ns, key = self._pending_delete
        self._pending_delete = None
        self.confirm_box.layout.display = "none"
        self.store.delete(ns, key)
        self.status.value = f"deleted <code>{escape(key)}</code>"
        self.refresh()
        return True

    def cancel_delete(self) -> None:
        """Drop a pending delete."""
        self._pending_delete = None
        self.confirm_box.layout.display = "none"
        self.status.value = "delete cancelled"

    # -- rendering ------------------------------------------------------------------------------

    def _render_results(self) -> None:
        if not self.hits:
            self.results.value = "<i>no items</i>"
            return
        scored = any(h.score is not None for h in getattr(self, "hits", []) if hasattr(h, "score"))
        head = "<tr><th>key</th>" + ("<th>score</th>" if scored else "")
        head += "<th>updated</th><th>value</th></tr>"
        rows = []
        for h in self.hits:
            score = getattr(h, "score", None)
            cells = f"<td><code>{escape(h.key)}</code></td>"
            if scored:
                cells += f"<td>{'' if score is None else f'{score:.3f}'}</td>"
            cells += f"<td>{h.updated_at:%Y-%m-%d %H:%M}</td><td>{escape(_preview(h.value))}</td>"
            rows.append(f"<tr class='memlib-row'>{cells}</tr>")
        self.results.value = f"<table class='memlib-inspector'>{head}{''.join(rows)}</table>"


class ChatPanel:
    """Chat with a memory agent as a chosen user; see what it read and wrote."""

    def __init__(
        self, graph: Any, users: list[str], token_budget: int = 1500, thread_prefix: str = "chat"
    ) -> None:
        if not callable(getattr(graph, "invoke", None)):
            raise TypeError(
                f"graph must be a compiled LangGraph graph (with .invoke), got "
                f"{type(graph).__name__}: {graph!r:.80}"
            )
        if isinstance(users, str) or not isinstance(users, list | tuple) or not users:
            raise TypeError(f"users must be a non-empty list of user ids, got {users!r}")
        self.graph = graph
        self.users = [check_user_id(u, "users[]") for u in users]
        self.token_budget = check_int(token_budget, "token_budget", minimum=1)
        self.thread_prefix = check_str(thread_prefix, "thread_prefix")
        self.user = w.Dropdown(options=self.users, value=self.users[0], description="user")
        self.message = w.Text(placeholder="say something, or ask", continuous_update=False)
        self.send = w.Button(description="Send", icon="paper-plane", button_style="primary")
        self.reply = w.HTML()
        self.read = w.HTML()
        self.written = w.HTML()
        self.meter = w.IntProgress(value=0, min=0, max=self.token_budget, description="tokens")
        self.meter_label = w.HTML()
        self.status = w.HTML()
        for widget, name in (
            (self.user, "user"),
            (self.message, "input"),
            (self.send, "send"),
            (self.reply, "reply"),
            (self.read, "read"),
            (self.written, "written"),
            (self.meter, "meter"),
            (self.status, "status"),
        ):
            widget.add_class(f"memlib-chat-{name}")
        self.send.on_click(lambda _: self.send_message())
        self.last_state: dict | None = None
        self.widget = w.VBox(
            [
                w.HBox([self.user, self.message, self.send]),
                self.reply,
                self.read,
                self.written,
                w.HBox([self.meter, self.meter_label]),
                self.status,
            ]
        )

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def thread_id(self) -> str:
        """The chosen user's thread."""
        return f"{self.thread_prefix}-{self.user.value}"

    def send_message(self) -> dict | None:
        """Send the typed message as the chosen user; show reply, memories read and written."""
        from langchain_core.messages import HumanMessage

        from memlib.writers import ModelCallCounter

        text = self.message.value.strip()
        if not text:
            self.status.value = "type a message first"
            return None
        calls = ModelCallCounter()
        config = {
            "configurable": {"user_id": self.user.value, "thread_id": self.thread_id()},
            "callbacks": [calls],
        }
        try:
            state = self.graph.invoke({"messages": [HumanMessage(text)]}, config)
        except Exception as err:  # shown in the panel, and kept: nothing is half-displayed
            self.status.value = f"<b>{type(err).__name__}</b>: {escape(str(err))}"
            raise
        self.last_state = state
        self.message.value = ""
        self.reply.value = f"<b>{escape(self.user.value)}:</b> {escape(text)}<br><b>agent:</b> " + (
            escape(str(state["messages"][-1].content))
        )
        rows = "".join(
            f"<tr><td>{_score(r.get('score'))}</td>"
            f"<td>{escape(str(r.get('namespace', '')))}</td><td>{escape(str(r['text']))}</td></tr>"
            for r in state.get("read", [])
        )
        self.read.value = (
            f"<table class='memlib-chat-read-table'><tr><th>score</th><th>namespace</th>"
            f"<th>memory read</th></tr>{rows}</table>"
            if rows
            else "<i>no memory read</i>"
        )
        written = state.get("written") or []
        self.written.value = (
            "written now: " + "; ".join(escape(t) for t in written)
            if written
            else "written now: nothing (background writes land after the debounce)"
        )
        self.meter.value = min(calls.prompt_tokens, self.token_budget)
        self.meter_label.value = (
            f"{calls.prompt_tokens} / {self.token_budget} prompt tokens this turn · "
            f"{len(state['messages'])} messages in the thread"
        )
        self.status.value = f"{calls.calls} model call(s) · thread {escape(self.thread_id())}"
        return state
