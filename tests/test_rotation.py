"""Tests for memlib.rotation: budgets, tool-pair-safe cuts (hypothesis), the graph, restarts.

The chat model here is `_TestOnlyFakeModel`, a tiny deterministic fake that exercises graph
mechanics only (routing, RemoveMessage, the summary chain, checkpointing). It is not a language
model and is never used in notebooks; notebooks/06 runs on get_chat_model().
"""

from __future__ import annotations

import re
import sqlite3
from itertools import count

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph.message import add_messages

from memlib.rotation import (
    SUMMARY_HEADING,
    PromptRecorder,
    build_rotation_graph,
    chat_node,
    check_rotation_budgets,
    check_tool_pairs,
    compress_node,
    format_table,
    format_transcript,
    load_user_turns,
    mentions_all,
    message_shape,
    prompt_with_summary,
    route_after_chat,
    run_turns,
    split_for_summary,
    strategy_table,
    summary_request,
)


class _TestOnlyFakeModel(BaseChatModel):
    """TEST-ONLY fake: replies 'ok: <last user text>'; a summary is previous summary + user lines.

    Asked for a summary (the system message of `summary_request`), it returns the previous summary
    followed by the transcript's 'User:' lines, so a test can see whether compress folded the old
    summary in. With tools bound and a user message mentioning 'weather in A and B', it calls the
    `weather` tool once per city in parallel, then answers from the ToolMessages.
    """

    tools_bound: bool = False

    @property
    def _llm_type(self) -> str:
        return "test-only-fake"

    def bind_tools(self, tools, **kwargs):
        return self.model_copy(update={"tools_bound": True})

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _reply(self, messages) -> AIMessage:
        if isinstance(messages[0], SystemMessage) and "running summary" in messages[0].text:
            body = messages[-1].text
            previous = body.split("Previous summary:\n", 1)[-1].split("\n\nNew messages:", 1)[0]
            previous = previous if "Previous summary:" in body else "(none)"
            new = body.split("New messages:\n", 1)[1]
            users = [ln for ln in new.splitlines() if ln.startswith("User: ")]
            kept = [] if previous == "(none)" else [previous]
            return AIMessage(" | ".join(kept + users))
        last = messages[-1]
        if isinstance(last, ToolMessage):
            results = [m.text for m in messages if isinstance(m, ToolMessage)][-2:]
            return AIMessage("weather: " + "; ".join(results))
        match = re.search(r"weather in (\w+) and (\w+)", last.text)
        if self.tools_bound and match:
            calls = [
                {"name": "weather", "args": {"city": c}, "id": f"call_{c}_{len(messages)}"}
                for c in match.groups()
            ]
            return AIMessage("", tool_calls=calls)
        return AIMessage(f"ok: {last.text}")


@tool
def weather(city: str) -> str:
    """Weather for a city."""
    return f"{city}: sunny"


FACT_TURN = "Hi, I am Priya Raman and I work at Northwind Labs."
TURNS = [FACT_TURN] + [f"Question number {i} about Python." for i in range(2, 12)]


# ---------------------------------------------------------------- budgets


@pytest.mark.parametrize(
    "threshold, keep_last, words, error",
    [
        (8, 9, 120, ValueError),
        (0, 0, 120, ValueError),
        (8, 0, 120, ValueError),
        (-1, 2, 120, ValueError),
        (8, 2, 0, ValueError),
        (8, -2, 120, ValueError),
        (8, 2.0, 120, TypeError),
        ("8", 2, 120, TypeError),
        (8, True, 120, TypeError),
    ],
)
def test_bad_budgets_raise_naming_the_value(threshold, keep_last, words, error):
    with pytest.raises(error) as info:
        check_rotation_budgets(threshold, keep_last, words)
    assert any(repr(v) in str(info.value) for v in (threshold, keep_last, words))
    with pytest.raises(error):
        build_rotation_graph(
            _TestOnlyFakeModel(), threshold=threshold, keep_last=keep_last, summary_words=words
        )
    with pytest.raises(error):
        compress_node(
            _TestOnlyFakeModel(), threshold=threshold, keep_last=keep_last, summary_words=words
        )


def test_keep_last_equal_to_threshold_is_allowed():
    check_rotation_budgets(4, 4, 10)


# ---------------------------------------------------------------- split_for_summary

_ids = count()


def _h(text="hi"):
    return HumanMessage(text, id=f"m{next(_ids)}")


def _ai(text="ok", calls=()):
    tcs = [{"name": "weather", "args": {"city": c}, "id": c} for c in calls]
    return AIMessage(text, tool_calls=tcs, id=f"m{next(_ids)}")


def _tool(call_id):
    return ToolMessage(f"result {call_id}", tool_call_id=call_id, id=f"m{next(_ids)}")


def test_split_plain_keeps_last_n():
    msgs = [_h(), _ai(), _h(), _ai(), _h(), _ai()]
    old, kept = split_for_summary(msgs, 2)
    assert old == msgs[:4] and kept == msgs[4:]
    assert split_for_summary(msgs, 10) == ([], msgs)


def test_split_moves_cut_past_a_straddling_tool_group():
    msgs = [_h(), _ai("", ["a", "b"]), _tool("a"), _tool("b"), _ai("done")]
    old, kept = split_for_summary(msgs, 2)  # naive cut would start the tail at _tool("b")
    assert kept == [msgs[-1]]
    assert old == msgs[:-1]


@pytest.mark.parametrize(
    "build, fragment",
    [
        (lambda: [_h(), _tool("zz")], "orphan"),
        (lambda: [_h(), _ai("", ["q"])], "await"),
        (lambda: [_h(), _ai("", ["q"]), _h()], "no ToolMessage"),
        (lambda: [SystemMessage("sys", id="s1"), _h()], "SystemMessage"),
        (lambda: [HumanMessage("no id")], "no id"),
    ],
)
def test_split_rejects_histories_a_provider_would_reject(build, fragment):
    with pytest.raises(ValueError, match=fragment):
        split_for_summary(build(), 1)


def test_split_rejects_non_messages_and_bad_keep():
    with pytest.raises(TypeError):
        split_for_summary([{"role": "user", "content": "hi"}], 1)
    with pytest.raises(ValueError):
        split_for_summary([_h()], 0)


@st.composite
def histories(draw):
    """Random histories of plain turns and tool-call groups (1-3 parallel calls, any order)."""
    msgs, n = [], 0
    for _ in range(draw(st.integers(0, 12))):
        n += 1
        kind = draw(st.sampled_from(["human", "ai", "tools"]))
        if kind == "human":
            msgs.append(HumanMessage(f"u{n}", id=f"h{n}"))
        elif kind == "ai":
            msgs.append(AIMessage(f"a{n}", id=f"a{n}"))
        else:
            call_ids = [f"c{n}_{k}" for k in range(draw(st.integers(1, 3)))]
            calls = [{"name": "t", "args": {}, "id": c} for c in call_ids]
            msgs.append(AIMessage("", tool_calls=calls, id=f"a{n}"))
            for c in draw(st.permutations(call_ids)):
                msgs.append(ToolMessage("r", tool_call_id=c, id=f"t{c}"))
    return msgs


@given(histories(), st.integers(1, 30))
@settings(max_examples=300, deadline=None)
def test_split_never_separates_tool_calls_from_results(msgs, keep_last):
    old, kept = split_for_summary(msgs, keep_last)
    assert old + kept == msgs  # nothing lost, nothing reordered
    assert {m.id for m in old} | {m.id for m in kept} == {m.id for m in msgs}
    assert not {m.id for m in old} & {m.id for m in kept}
    assert len(kept) <= keep_last
    assert not (kept and isinstance(kept[0], ToolMessage)), "tail starts with an orphan result"
    if old and isinstance(old[-1], AIMessage) and old[-1].tool_calls:
        pytest.fail("summarized part ends with a tool call whose results were kept")
    made = {c["id"] for m in kept if isinstance(m, AIMessage) for c in m.tool_calls}
    answered = {m.tool_call_id for m in kept if isinstance(m, ToolMessage)}
    assert made == answered, "kept tail has unanswered calls or orphan results"
    # the cut moves only past ToolMessages, never further than needed
    naive = max(0, len(msgs) - keep_last)
    assert all(isinstance(m, ToolMessage) for m in msgs[naive : len(old)])


@given(histories(), st.integers(1, 6), st.integers(0, 4))
@settings(max_examples=150, deadline=None)
def test_compress_update_applied_by_add_messages_leaves_a_valid_history(msgs, keep_last, extra):
    threshold = keep_last + extra
    update = compress_node(_TestOnlyFakeModel(), threshold=threshold, keep_last=keep_last)(
        {"messages": msgs, "summary": "earlier"}
    )
    after = add_messages(msgs, update.get("messages", []))
    if len(msgs) <= threshold:
        assert update == {} and after == msgs
        return
    removed = {r.id for r in update.get("messages", [])}
    assert {m.id for m in after} | removed == {m.id for m in msgs}
    assert len(after) <= keep_last
    split_for_summary(after, keep_last)  # raises on an orphan or an unanswered call
    if removed:
        assert update["summary"].startswith("earlier")


# ---------------------------------------------------------------- prompts


def test_prompt_with_summary_injects_summary_into_system_message():
    msgs = [_h("question")]
    plain = prompt_with_summary(msgs)
    assert isinstance(plain[0], SystemMessage) and SUMMARY_HEADING not in plain[0].text
    withs = prompt_with_summary(msgs, "Priya works at Northwind.")
    assert SUMMARY_HEADING in withs[0].text and "Northwind" in withs[0].text
    assert withs[1:] == msgs


def test_summary_request_states_budget_and_previous_summary():
    msgs = [_h("I live in Lyon"), _ai("", ["x"]), _tool("x"), _ai("Nice.")]
    req = summary_request("Priya, Northwind.", msgs, words=40)
    assert "40 words" in req[0].text and "40 words" in req[1].text
    assert "Priya, Northwind." in req[1].text and "User: I live in Lyon" in req[1].text
    assert "Assistant called tool weather" in format_transcript(msgs)
    with pytest.raises(ValueError):
        summary_request("", msgs, words=0)


# ---------------------------------------------------------------- the graph


def _run(graph, turns, thread="t1", **kw):
    return run_turns(graph, turns, thread_id=thread, facts=["Priya", "Northwind"], **kw)


def test_eleven_turns_threshold_8_keep_2():
    graph = build_rotation_graph(
        _TestOnlyFakeModel(), threshold=8, keep_last=2, checkpointer=InMemorySaver()
    )
    rows = _run(graph, TURNS)
    assert [r["messages_in_state"] for r in rows] == [2, 4, 6, 8, 2, 4, 6, 8, 2, 4, 6]
    assert max(r["messages_in_state"] for r in rows) <= 8
    # before compressing, the chat model saw up to 9 messages (8 + the new user turn) + system
    assert max(r["prompt_messages"] for r in rows) == 10
    assert rows[-1]["summary_calls"] == 2
    state = graph.get_state({"configurable": {"thread_id": "t1"}}).values
    assert "Priya Raman" in state["summary"] and "Northwind Labs" in state["summary"]
    assert all(r["facts_in_prompt"] for r in rows)


def test_summary_chain_is_what_carries_turn_one():
    """Without folding the previous summary in, turn 1 would be gone by turn 11."""
    graph = build_rotation_graph(
        _TestOnlyFakeModel(), threshold=8, keep_last=2, checkpointer=InMemorySaver()
    )
    _run(graph, TURNS)
    history = list(graph.get_state_history({"configurable": {"thread_id": "t1"}}))
    summaries = [s.values.get("summary") for s in history if s.values.get("summary")]
    first, last = summaries[-1], summaries[0]
    assert first != last and "Priya" in first and "Priya" in last


def test_tool_groups_survive_compression_in_the_graph():
    graph = build_rotation_graph(
        _TestOnlyFakeModel(),
        threshold=5,
        keep_last=2,
        tools=[weather],
        checkpointer=InMemorySaver(),
    )
    turns = [
        FACT_TURN,
        "What is the weather in Paris and Oslo?",
        "Thanks",
        "weather in Rome and Bonn",
    ]
    recorder = PromptRecorder()
    config = {"configurable": {"thread_id": "w"}, "callbacks": [recorder]}
    for text in turns * 3:
        graph.invoke({"messages": [HumanMessage(text)]}, config)
        state = graph.get_state(config).values
        assert len(state["messages"]) <= 5
        split_for_summary(state["messages"], 1)  # valid structure after every turn
    for call in recorder.by_node("chat"):
        split_for_summary([m for m in call.prompt if not isinstance(m, SystemMessage)], 1)
    assert recorder.by_node("compress"), "compression never ran"
    assert any(isinstance(m, ToolMessage) for c in recorder.by_node("chat") for m in c.prompt)


def test_restart_from_sqlite_resumes_with_summary_and_short_list(tmp_path):
    path = tmp_path / "threads.sqlite"
    config = {"configurable": {"thread_id": "restart"}}
    conn = sqlite3.connect(path, check_same_thread=False)
    graph = build_rotation_graph(
        _TestOnlyFakeModel(), threshold=8, keep_last=2, checkpointer=SqliteSaver(conn)
    )
    _run(graph, TURNS, thread="restart")
    conn.close()

    conn2 = sqlite3.connect(path, check_same_thread=False)
    graph2 = build_rotation_graph(
        _TestOnlyFakeModel(), threshold=8, keep_last=2, checkpointer=SqliteSaver(conn2)
    )
    state = graph2.get_state(config).values
    assert len(state["messages"]) == 6
    assert "Priya" in state["summary"]
    assert FACT_TURN not in [m.text for m in state["messages"]]
    rows = _run(graph2, ["And one more question."], thread="restart")
    assert rows[0]["messages_in_state"] == 8 and rows[0]["facts_in_prompt"]
    conn2.close()


def test_prompt_recorder_counts_calls_per_node():
    graph = build_rotation_graph(
        _TestOnlyFakeModel(), threshold=4, keep_last=2, checkpointer=InMemorySaver()
    )
    rows = _run(graph, TURNS[:6])
    assert [r["summary_calls"] for r in rows] == [0, 0, 1, 1, 2, 2]
    assert all(r["prompt_tokens"] > 0 for r in rows)


def test_empty_summary_is_an_error():
    class Empty(_TestOnlyFakeModel):
        def _reply(self, messages):
            return AIMessage("   ")

    node = compress_node(Empty(), threshold=2, keep_last=1)
    msgs = [_h(), _ai(), _h()]
    with pytest.raises(ValueError, match="empty summary"):
        node({"messages": msgs, "summary": ""})


# ---------------------------------------------------------------- upstream witness


def test_langmem_summarize_messages_still_splits_parallel_tool_calls():
    """Witness for langmem#126: if this fails, upstream fixed it; update notebooks/06's text."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langmem.short_term import summarize_messages

    msgs = [
        HumanMessage("Generate two long random strings", id="h1"),
        AIMessage(
            "",
            id="a1",
            tool_calls=[
                {"name": "rand", "args": {"n": 3000}, "id": "c1"},
                {"name": "rand", "args": {"n": 200}, "id": "c2"},
            ],
        ),
        ToolMessage("x" * 3000, tool_call_id="c1", id="t1"),
        ToolMessage("y" * 200, tool_call_id="c2", id="t2"),
        AIMessage("Done.", id="a2"),
        HumanMessage("Explain the algorithm?", id="h2"),
    ]
    result = summarize_messages(
        msgs,
        running_summary=None,
        model=FakeListChatModel(responses=["a summary"]),
        max_tokens=1000,
        max_tokens_before_summary=500,
        max_summary_tokens=100,
    )
    assert isinstance(result.messages[1], ToolMessage), "upstream no longer orphans t2"
    old, kept = split_for_summary(msgs, 4)
    assert [m.id for m in kept] == ["a2", "h2"]


# ---------------------------------------------------------------- fixture, tables


def test_fixture_has_50_turns_and_turn_one_facts():
    script = load_user_turns()
    assert len(script) == 50
    assert all(f in script[0]["user"] for f in script[0]["facts"])
    assert script[0]["facts"] == ["Priya Raman", "Northwind Labs"]
    with pytest.raises(ValueError, match="no conversation script"):
        load_user_turns("no_such_script")


def test_earlier_facts_and_strategy_table():
    graph = build_rotation_graph(
        _TestOnlyFakeModel(), threshold=4, keep_last=2, checkpointer=InMemorySaver()
    )
    facts_by_turn = [["Priya Raman", "Northwind Labs"]] + [[] for _ in TURNS[1:6]]
    rows = _run(graph, TURNS[:6], facts_by_turn=facts_by_turn)
    assert [r["earlier_facts"] for r in rows] == [0, 2, 2, 2, 2, 2]
    assert [r["earlier_facts_in_prompt"] for r in rows] == [0, 2, 2, 2, 2, 2]
    table = strategy_table({"rotation": rows}, ["Priya Raman"])
    assert table[0]["max_stored_messages"] == 4 and table[0]["summary_calls"] == 2
    text = format_table(table, ["strategy", "summary_calls"])
    assert text.splitlines()[1].split() == ["rotation", "2"]
    with pytest.raises(ValueError, match="facts_by_turn"):
        _run(graph, TURNS[:2], thread="x", facts_by_turn=[[]])


def test_message_shape_and_public_check():
    msgs = [_h(), _ai("", ["s1"]), _tool("s1"), _ai()]
    assert message_shape(msgs) == "H A* T A"
    check_tool_pairs(msgs)
    with pytest.raises(ValueError, match="orphan"):
        check_tool_pairs(msgs[2:])


def test_check_tool_pairs_on_a_request():
    """request=True allows a system prompt and id-less messages, still refuses split tool groups."""
    call = _ai("", ["c1", "c2"])
    whole = [SystemMessage("sys"), _h(), call, _tool("c1"), _tool("c2"), HumanMessage("sum up")]
    check_tool_pairs(whole, request=True)
    with pytest.raises(ValueError, match="SystemMessage"):
        check_tool_pairs(whole)
    with pytest.raises(ValueError, match=r"\['c2'\] with no ToolMessage before messages\[4\]"):
        check_tool_pairs([*whole[:4], HumanMessage("sum up")], request=True)
    with pytest.raises(ValueError, match="orphan"):
        check_tool_pairs([SystemMessage("summary"), whole[4], _ai()], request=True)
    with pytest.raises(ValueError, match="messages end while tool calls"):
        check_tool_pairs([HumanMessage("q"), call], request=True)
    with pytest.raises(TypeError, match="request must be a bool"):
        check_tool_pairs(whole, request="yes")


# ---------------------------------------------------------------- bad input, one test per public name


def test_bad_input_SummaryState():
    from memlib.rotation import check_summary_state

    with pytest.raises(ValueError, match=r"no 'messages' key \(keys: \['summary'\]\)"):
        check_summary_state({"summary": ""})
    with pytest.raises(TypeError, match=r"state\['messages'\]\[0\].*'hi'"):
        check_summary_state({"messages": ["hi"], "summary": ""})
    with pytest.raises(TypeError, match=r"state\['summary'\] must be a str.*42"):
        check_summary_state({"messages": [], "summary": 42})
    with pytest.raises(TypeError, match="'not a state'"):
        check_summary_state("not a state")


def test_bad_input_chat_node():
    with pytest.raises(TypeError, match="model must be a chat model.*'gpt-4o'"):
        chat_node("gpt-4o")
    with pytest.raises(TypeError, match="tools must be a list.*'weather'"):
        chat_node(_TestOnlyFakeModel(), tools="weather")
    with pytest.raises(ValueError, match="system_prompt.*'  '"):
        chat_node(_TestOnlyFakeModel(), system_prompt="  ")
    node = chat_node(_TestOnlyFakeModel())
    with pytest.raises(ValueError, match="no 'messages' key"):
        node({"summary": "x"})


def test_bad_input_compress_node():
    with pytest.raises(TypeError, match="model must be a chat model.*None"):
        compress_node(None, threshold=4, keep_last=2)
    node = compress_node(_TestOnlyFakeModel(), threshold=4, keep_last=2)
    with pytest.raises(ValueError, match="no 'messages' key"):
        node({"summary": ""})
    with pytest.raises(TypeError, match=r"state\['messages'\]\[1\].*'b'"):
        node({"messages": [_h(), "b"], "summary": ""})


def test_bad_input_route_after_chat():
    with pytest.raises(ValueError, match="threshold must be >= 1, got 0"):
        route_after_chat(0)
    with pytest.raises(TypeError, match="threshold must be an int.*'8'"):
        route_after_chat("8")
    with pytest.raises(TypeError, match="tools must be a bool.*'yes'"):
        route_after_chat(8, tools="yes")
    route = route_after_chat(8)
    with pytest.raises(ValueError, match="no 'messages' key"):
        route({})
    assert route({"messages": []}) == "__end__"


def test_bad_input_split_for_summary():
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'abc'"):
        split_for_summary("abc", 1)
    with pytest.raises(TypeError, match="keep_last must be an int.*'2'"):
        split_for_summary([_h()], "2")
    with pytest.raises(ValueError, match="keep_last must be >= 1, got -1"):
        split_for_summary([_h()], -1)


def test_bad_input_check_tool_pairs():
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'abc'"):
        check_tool_pairs("abc")
    with pytest.raises(TypeError, match=r"messages\[0\].*dict"):
        check_tool_pairs([{"role": "user"}])
    with pytest.raises(TypeError, match="request must be a bool, got str: 'yes'"):
        check_tool_pairs([], request="yes")


def test_bad_input_build_rotation_graph():
    with pytest.raises(TypeError, match="model must be a chat model.*42"):
        build_rotation_graph(42, threshold=4, keep_last=2)
    with pytest.raises(TypeError, match="model must be a chat model.*'small'"):
        build_rotation_graph(_TestOnlyFakeModel(), threshold=4, keep_last=2, summary_model="small")
    with pytest.raises(TypeError, match="checkpointer must be a LangGraph checkpoint saver.*'mem'"):
        build_rotation_graph(_TestOnlyFakeModel(), threshold=4, keep_last=2, checkpointer="mem")
    with pytest.raises(TypeError, match="tools must be a list.*'weather'"):
        build_rotation_graph(_TestOnlyFakeModel(), threshold=4, keep_last=2, tools="weather")
    # budgets that cannot work, refused before any graph is built (moved from notebook 06)
    with pytest.raises(ValueError, match="keep_last=9 is larger than threshold=8"):
        build_rotation_graph(_TestOnlyFakeModel(), threshold=8, keep_last=9)
    with pytest.raises(ValueError, match="threshold must be >= 1, got 0"):
        build_rotation_graph(_TestOnlyFakeModel(), threshold=0, keep_last=0)
    with pytest.raises(ValueError, match="summary_words must be >= 1, got -5"):
        build_rotation_graph(_TestOnlyFakeModel(), threshold=8, keep_last=2, summary_words=-5)


def test_bad_input_PromptRecorder():
    with pytest.raises(TypeError, match="counter must be a TokenCounter.*'o200k'"):
        PromptRecorder("o200k")
    with pytest.raises(TypeError, match="node must be a str.*None"):
        PromptRecorder().by_node(None)


def test_bad_input_run_turns():
    graph = build_rotation_graph(
        _TestOnlyFakeModel(), threshold=4, keep_last=2, checkpointer=InMemorySaver()
    )
    with pytest.raises(TypeError, match="graph must be a compiled LangGraph graph.*'graph'"):
        run_turns("graph", ["hi"], thread_id="t")
    with pytest.raises(TypeError, match="user_turns must be a list of strings.*'hello'"):
        run_turns(graph, "hello", thread_id="t")
    with pytest.raises(ValueError, match=r"user_turns\[1\] must be a non-empty string.*' '"):
        run_turns(graph, ["hi", " "], thread_id="t")
    with pytest.raises(TypeError, match="thread_id must be a str.*7"):
        run_turns(graph, ["hi"], thread_id=7)
    with pytest.raises(TypeError, match="facts must be a list of strings.*'Priya'"):
        run_turns(graph, ["hi"], thread_id="t", facts="Priya")
    assert graph.get_state({"configurable": {"thread_id": "t"}}).values == {}  # nothing ran


def test_mentions_all_compares_stated_values_not_substrings():
    # notebook 06's turn-50 reply before issue #26: both substrings present, no name stated
    bad = (
        "I don't know your name before Priya Raman - you haven't told me. "
        "You work at Northwind Labs."
    )
    facts = ["Priya Raman", "Northwind Labs"]
    assert not mentions_all(bad, facts)
    assert mentions_all("Your name is Priya Raman. You work at Northwind Labs.", facts)
    assert not mentions_all("Priyanka works at Northwind Labs.", ["Priya"])
    assert mentions_all("", [])
    with pytest.raises(TypeError, match="facts must be a list"):
        mentions_all("Priya", "Priya")
