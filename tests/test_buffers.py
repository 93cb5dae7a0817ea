"""memlib.buffers: validation, tool-pair-safe cutting, budgets, summary folding, fixtures."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from memlib.buffers import (
    FullBuffer,
    SlidingWindowBuffer,
    SummaryBuffer,
    TokenTrimBuffer,
    check_prompt_messages,
    load_conversation,
    tool_pairs_intact,
    transcript,
    trim_to_budget,
    turn_starts,
    turns,
)
from memlib.tokens import TokenCounter

SYSTEM = "You are a patient Python tutor. Answer briefly."
COUNTER = TokenCounter()


def call(i: int, name: str = "search") -> dict:
    return {"name": name, "args": {"q": f"query {i}"}, "id": f"call_{i}", "type": "tool_call"}


def tool_turn(i: int) -> list:
    return [
        HumanMessage(f"look up topic {i}"),
        AIMessage("", tool_calls=[call(i)]),
        ToolMessage(f"result for topic {i}", tool_call_id=f"call_{i}"),
        AIMessage(f"Topic {i} is about lists."),
    ]


# --- a small chat model for the summary buffer's unit tests -------------------------------------


class FirstWordsSummarizer(BaseChatModel):
    """Test model: 'summarizes' by keeping the first N words of the transcript it is given."""

    calls: int = 0
    fail: bool = False

    @property
    def _llm_type(self) -> str:
        return "first-words-summarizer"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if self.fail:
            raise ConnectionError("model unavailable")
        self.calls += 1
        prompt = messages[-1].content
        words = int(re.search(r"at most (\d+) words", prompt).group(1))
        text = " ".join(prompt.split("New messages:\n", 1)[1].split()[:words])
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


# --- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, fragment",
    [
        (HumanMessage(""), "empty or whitespace"),
        (HumanMessage("   \n\t"), "empty or whitespace"),
        (AIMessage(" "), "empty or whitespace"),
        (HumanMessage(content=[{"type": "text", "text": "hi"}]), "content must be a string"),
        (ToolMessage("42", tool_call_id="nope"), "orphan ToolMessage: tool_call_id 'nope'"),
        (SystemMessage("second system prompt"), "SystemMessage may only come first"),
    ],
)
@pytest.mark.parametrize("make", [FullBuffer, lambda s: TokenTrimBuffer(s, max_tokens=200)])
def test_bad_messages_raise_and_leave_buffer_unchanged(make, bad, fragment):
    buf = make(SYSTEM)
    buf.extend([HumanMessage("hi"), AIMessage("hello")])
    before = buf.messages
    with pytest.raises(ValueError, match=re.escape(fragment)):
        buf.add(bad)
    with pytest.raises(ValueError):
        buf.extend([HumanMessage("fine"), bad])  # the good message before it is not kept either
    assert buf.messages == before


def test_not_a_message_is_a_type_error():
    with pytest.raises(TypeError, match="must be a langchain message, got str"):
        FullBuffer(SYSTEM).add("hello")


def test_ai_tool_call_may_have_empty_content_but_its_results_must_follow():
    buf = FullBuffer(SYSTEM)
    buf.extend([HumanMessage("q"), AIMessage("", tool_calls=[call(1), call(2)])])
    with pytest.raises(ValueError, match=r"still wait for their ToolMessages"):
        buf.add(HumanMessage("next question"))
    buf.add(ToolMessage("r2", tool_call_id="call_2"))  # any order
    with pytest.raises(ValueError, match="orphan ToolMessage: tool_call_id 'call_2'"):
        buf.add(ToolMessage("r2 again", tool_call_id="call_2"))
    buf.add(ToolMessage("r1", tool_call_id="call_1"))
    buf.add(HumanMessage("next question"))
    assert tool_pairs_intact(buf.messages)


def test_tool_message_after_an_unrelated_turn_is_orphan():
    msgs = [SystemMessage(SYSTEM), *tool_turn(1), HumanMessage("again")]
    with pytest.raises(ValueError, match="orphan ToolMessage: tool_call_id 'call_1'"):
        check_prompt_messages([*msgs, ToolMessage("late", tool_call_id="call_1")])


def test_duplicate_or_missing_tool_call_ids_rejected():
    dup = AIMessage("", tool_calls=[call(1), call(1)])
    with pytest.raises(ValueError, match="unique non-empty ids"):
        check_prompt_messages([HumanMessage("q"), dup])


@pytest.mark.parametrize("prompt", ["", "  "])
def test_bad_system_prompt(prompt):
    with pytest.raises(ValueError, match="system_prompt"):
        FullBuffer(prompt)
    with pytest.raises(TypeError, match="system_prompt must be a str, got int: 7"):
        FullBuffer(7)


def test_budget_smaller_than_system_prompt():
    need = COUNTER([SystemMessage(SYSTEM)])
    with pytest.raises(
        ValueError, match=f"max_tokens={need - 1} is smaller than the system prompt"
    ):
        TokenTrimBuffer(SYSTEM, max_tokens=need - 1)
    with pytest.raises(ValueError, match="smaller than the system prompt"):
        SummaryBuffer(SYSTEM, FirstWordsSummarizer(), max_tokens=need - 1)
    with pytest.raises(ValueError, match="smaller than the system prompt"):
        trim_to_budget([SystemMessage(SYSTEM), HumanMessage("hi")], need - 1)
    TokenTrimBuffer(SYSTEM, max_tokens=need)  # exactly enough is fine


@pytest.mark.parametrize("value", [0, -5])
def test_bad_budget_values(value):
    with pytest.raises(ValueError, match="max_tokens must be >= 1"):
        TokenTrimBuffer(SYSTEM, max_tokens=value)


@pytest.mark.parametrize("value", [2.5, True, "100"])
def test_budget_of_a_wrong_kind(value):
    with pytest.raises(TypeError, match="max_tokens must be an int"):
        TokenTrimBuffer(SYSTEM, max_tokens=value)


def test_window_needs_exactly_one_limit():
    with pytest.raises(ValueError, match="exactly one"):
        SlidingWindowBuffer(SYSTEM)
    with pytest.raises(ValueError, match="exactly one"):
        SlidingWindowBuffer(SYSTEM, max_turns=2, max_messages=4)


# --- trim_messages pitfalls this module fixes -------------------------------------------------


def test_plain_trim_messages_splits_pairs_and_ours_does_not():
    from langchain_core.messages import trim_messages

    history = [SystemMessage(SYSTEM), *tool_turn(1), *tool_turn(2)]
    # fits the last ToolMessage + answer only (+3: trim_messages counts the reply overhead twice)
    budget = COUNTER([history[0], *history[-2:]]) + 3
    naive = trim_messages(history, max_tokens=budget, token_counter=COUNTER, include_system=True)
    assert not tool_pairs_intact(naive)  # the pitfall is real
    with pytest.raises(ValueError, match="cannot hold the latest turn"):
        trim_to_budget(history, budget)
    ok = trim_to_budget(history, COUNTER([history[0], *tool_turn(2)]))
    assert ok == [history[0], *history[-4:]] and tool_pairs_intact(ok)


def test_plain_trim_messages_returns_system_prompt_over_budget():
    from langchain_core.messages import trim_messages

    history = [SystemMessage(SYSTEM), HumanMessage("hi")]
    out = trim_messages(history, max_tokens=3, token_counter=COUNTER, include_system=True)
    assert COUNTER(out) > 3  # silently over budget
    with pytest.raises(ValueError, match="smaller than the system prompt"):
        trim_to_budget(history, 3)


def test_exact_budget_is_usable():
    # trim_messages alone charges the reply overhead twice; trim_to_budget gives it back.
    history = [SystemMessage(SYSTEM), *tool_turn(1), *tool_turn(2)]
    assert trim_to_budget(history, COUNTER(history)) == history
    assert trim_to_budget(history, COUNTER(history) - 1) == [history[0], *history[5:]]


# --- the buffers on fixed histories -----------------------------------------------------------


def test_full_buffer_keeps_everything():
    buf = FullBuffer(SYSTEM)
    buf.extend(tool_turn(1) + tool_turn(2))
    assert len(buf) == 8 and buf.dropped == 0 and buf.messages[0].content == SYSTEM
    assert buf.prompt_tokens() == COUNTER(buf.messages)


def test_window_by_turns_and_messages():
    buf = SlidingWindowBuffer(SYSTEM, max_turns=2)
    for i in range(5):
        buf.extend(tool_turn(i))
    assert [m.content for m in buf.messages if isinstance(m, HumanMessage)] == [
        "look up topic 3",
        "look up topic 4",
    ]
    assert buf.dropped == 12 and buf.messages[0].content == SYSTEM
    by_msgs = SlidingWindowBuffer(SYSTEM, max_messages=6)
    for i in range(3):
        by_msgs.extend(tool_turn(i))
    assert by_msgs.messages[1:] == tool_turn(2)  # 4 kept: the 8-message window would split turn 1
    tiny = SlidingWindowBuffer(SYSTEM, max_messages=2)
    tiny.extend(tool_turn(0))
    assert tiny.messages[1:] == tool_turn(0)  # a turn is never split, even over the limit


def test_token_buffer_matches_trim_to_budget_on_whole_history():
    history = [m for i in range(12) for m in tool_turn(i)]
    buf = TokenTrimBuffer(SYSTEM, max_tokens=150)
    for m in history:
        buf.add(m)
    assert buf.messages == trim_to_budget([SystemMessage(SYSTEM), *history], 150)
    assert buf.prompt_tokens() <= 150


def test_token_buffer_rejects_a_turn_that_cannot_fit():
    buf = TokenTrimBuffer(SYSTEM, max_tokens=60)
    buf.extend([HumanMessage("short"), AIMessage("ok")])
    before = buf.messages
    with pytest.raises(ValueError, match="cannot hold the latest turn"):
        buf.add(HumanMessage("word " * 200))
    assert buf.messages == before


def test_summary_buffer_folds_old_turns():
    model = FirstWordsSummarizer()
    buf = SummaryBuffer(SYSTEM, model, max_tokens=160, summary_words=30)
    for i in range(10):
        buf.extend(tool_turn(i))
        assert buf.prompt_tokens() <= 160
        assert tool_pairs_intact(buf.messages)
    assert model.calls == buf.summaries >= 2
    assert 0 < len(buf.summary.split()) <= 30
    assert buf.messages[0].content.startswith(SYSTEM)
    assert "Summary of the earlier conversation" in buf.messages[0].content
    assert isinstance(buf.messages[1], HumanMessage)
    assert buf.dropped + len(buf) == 40


def test_summary_buffer_is_atomic_when_the_model_fails():
    model = FirstWordsSummarizer()
    buf = SummaryBuffer(SYSTEM, model, max_tokens=120, summary_words=30)
    buf.extend(tool_turn(0) + tool_turn(1))
    model.fail = True
    before, summary, dropped = buf.messages, buf.summary, buf.dropped
    with pytest.raises(ConnectionError):
        for i in range(2, 6):
            buf.extend(tool_turn(i))
    # the turns that fitted were added; the one needing a summary was not, and nothing half-done
    assert buf.summary == summary and buf.dropped == dropped
    assert buf.messages[: len(before)] == before and tool_pairs_intact(buf.messages)


def test_transcript_shows_tool_calls():
    text = transcript(tool_turn(3))
    assert 'assistant called search({"q": "query 3"})' in text
    assert "tool result: result for topic 3" in text


# --- fixtures ----------------------------------------------------------------------------------


def test_long_chat_fixture_loads():
    msgs = load_conversation("long_chat")
    assert isinstance(msgs[0], SystemMessage)
    assert len(turn_starts(msgs)) == 200
    assert any(isinstance(m, ToolMessage) for m in msgs)
    assert len({m.id for m in msgs}) == len(msgs)


def test_python_topics_fixture_loads():
    msgs = load_conversation("python_topics")
    assert len(msgs) == 16 and len(turns(msgs)) == 8


def test_bad_fixture_names(tmp_path):
    with pytest.raises(ValueError, match="no conversation file"):
        load_conversation("does_not_exist")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"role": "user", "content": "hi"}\n{"role": "tool", "content": "x", "tool_call_id": "c9"}\n'
    )
    with pytest.raises(ValueError, match="orphan ToolMessage"):
        load_conversation(bad)
    bad.write_text('{"role": "robot", "content": "hi"}\n')
    with pytest.raises(ValueError, match="unknown role 'robot'"):
        load_conversation(bad)


# --- properties --------------------------------------------------------------------------------

words = st.lists(
    st.sampled_from("list tuple dict set loop class yield async cache index slice 你好 🎉".split()),
    min_size=1,
    max_size=25,
).map(" ".join)


@st.composite
def conversations(draw):
    """Random valid histories: turns of human text, AI text and tool-call groups."""
    msgs, n = [], 0
    for _ in range(draw(st.integers(0, 12))):
        msgs.append(HumanMessage(draw(words)))
        for _ in range(draw(st.integers(0, 2))):  # tool-call rounds in this turn
            k = draw(st.integers(1, 3))
            calls = [call(n + j) for j in range(k)]
            n += k
            msgs.append(AIMessage(draw(st.sampled_from(["", "let me check"])), tool_calls=calls))
            for c in draw(st.permutations(calls)):
                msgs.append(ToolMessage(draw(words), tool_call_id=c["id"]))
        if draw(st.booleans()):
            msgs.append(AIMessage(draw(words)))
    return msgs


def reference_trim(history, budget):
    """Brute force: the earliest turn start whose suffix fits (None when even the last does not)."""
    system = SystemMessage(SYSTEM)
    starts = turn_starts(history)
    if not starts:
        return [system]
    for i in starts:
        if COUNTER([system, *history[i:]]) <= budget:
            return [system, *history[i:]]
    return None


def assert_safe_suffix(out, history):
    assert out[0].content.startswith(SYSTEM), "system prompt dropped"
    tail = out[1:]
    assert tool_pairs_intact(out), "a tool-call pair was split"
    assert tail == history[len(history) - len(tail) :], "not a suffix of the history"
    assert not tail or isinstance(tail[0], HumanMessage), "cut inside a turn"


PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(history=conversations(), slack=st.integers(-5, 400))
def test_trim_to_budget_properties(history, slack):
    system = SystemMessage(SYSTEM)
    budget = COUNTER([system]) + slack
    assume(budget >= 1)
    expected = reference_trim(history, budget)
    if slack < 0:
        with pytest.raises(ValueError, match="smaller than the system prompt"):
            trim_to_budget([system, *history], budget)
        return
    if expected is None:
        with pytest.raises(ValueError, match="cannot hold the latest turn"):
            trim_to_budget([system, *history], budget)
        return
    out = trim_to_budget([system, *history], budget)
    assert_safe_suffix(out, history)
    assert COUNTER(out) <= budget
    assert out == expected  # the longest safe suffix that fits, no shorter


@PROPS
@given(history=conversations(), slack=st.integers(0, 300))
def test_token_buffer_fed_message_by_message(history, slack):
    budget = COUNTER([SystemMessage(SYSTEM)]) + slack
    buf = TokenTrimBuffer(SYSTEM, max_tokens=budget)
    fed = []
    for m in history:
        before = buf.messages
        try:
            buf.add(m)
        except ValueError as exc:
            assert "cannot hold the latest turn" in str(exc)
            assert buf.messages == before, "half-updated buffer"
            return
        fed.append(m)
        assert_safe_suffix(buf.messages, fed)
        assert buf.prompt_tokens() <= budget
    assert buf.messages == reference_trim(fed, budget)


@PROPS
@given(history=conversations(), k=st.integers(1, 6), by_turns=st.booleans())
def test_window_properties(history, k, by_turns):
    kwargs = {"max_turns": k} if by_turns else {"max_messages": k}
    buf = SlidingWindowBuffer(SYSTEM, **kwargs)
    for i, m in enumerate(history):
        buf.add(m)
        fed = history[: i + 1]
        out = buf.messages
        assert out[0].content == SYSTEM and tool_pairs_intact(out)
        assert out[1:] == fed[len(fed) - len(out) + 1 :]
        n_turns = len(turn_starts(out))
        if by_turns:
            assert n_turns <= k
        else:
            assert len(out) - 1 <= k or n_turns == 1  # only one over-long turn may exceed k


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=conversations(), slack=st.integers(120, 400))
def test_summary_buffer_properties(history, slack):
    # summary_words small against max_tokens - keep_tokens, as the class docstring advises
    budget = COUNTER([SystemMessage(SYSTEM)]) + slack
    buf = SummaryBuffer(SYSTEM, FirstWordsSummarizer(), max_tokens=budget, summary_words=10)
    fed = []
    for m in history:
        try:
            buf.add(m)
        except ValueError as exc:
            assert "cannot hold the latest turn" in str(exc)
            return
        fed.append(m)
        out = buf.messages
        assert_safe_suffix(out, fed)
        assert COUNTER([SystemMessage(SYSTEM), *out[1:]]) <= budget  # verbatim part fits
        if buf.prompt_tokens() > budget:  # only when there is nothing left to fold
            assert len(turn_starts(out[1:])) == 1 and isinstance(out[1], HumanMessage)
        assert buf.dropped + len(buf) == len(fed)
        assert bool(buf.summary) == (buf.dropped > 0)


def test_turn_topics_label_every_user_turn():
    from memlib.buffers import turn_topics

    topics = turn_topics("long_chat")
    assert len(topics) == 200 and None not in topics
    assert len(set(topics)) == 25 and topics[0] == "variables and types"


# --- bad input, one test per public name -------------------------------------------------------


@pytest.mark.parametrize("make", [FullBuffer, lambda s: TokenTrimBuffer(s, max_tokens=200)])
def test_bad_input_FullBuffer(make):
    with pytest.raises(TypeError, match="system_prompt must be a str.*None"):
        FullBuffer(None)
    with pytest.raises(TypeError, match="token_counter must be a callable.*'tiktoken'"):
        FullBuffer(SYSTEM, token_counter="tiktoken")
    buf = make(SYSTEM)
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'hello'"):
        buf.extend("hello")  # would have added 'h', 'e', ... one by one
    assert len(buf) == 0


def test_bad_input_SlidingWindowBuffer():
    with pytest.raises(ValueError, match="max_turns must be >= 1, got 0"):
        SlidingWindowBuffer(SYSTEM, max_turns=0)
    with pytest.raises(TypeError, match="max_messages must be an int, got str: '4'"):
        SlidingWindowBuffer(SYSTEM, max_messages="4")
    with pytest.raises(TypeError, match="token_counter must be a callable.*3"):
        SlidingWindowBuffer(SYSTEM, max_turns=2, token_counter=3)


def test_bad_input_TokenTrimBuffer():
    with pytest.raises(TypeError, match="max_tokens must be an int, got NoneType: None"):
        TokenTrimBuffer(SYSTEM, max_tokens=None)
    buf = TokenTrimBuffer(SYSTEM, max_tokens=200)
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*None"):
        buf.extend(None)


def test_bad_input_SummaryBuffer():
    with pytest.raises(TypeError, match="model must be a chat model.*'gpt-4o-mini'"):
        SummaryBuffer(SYSTEM, "gpt-4o-mini", max_tokens=300)
    with pytest.raises(TypeError, match="summary_prompt must be a str.*None"):
        SummaryBuffer(SYSTEM, FirstWordsSummarizer(), max_tokens=300, summary_prompt=None)
    with pytest.raises(ValueError, match="keep_tokens=400 exceeds max_tokens=300"):
        SummaryBuffer(SYSTEM, FirstWordsSummarizer(), max_tokens=300, keep_tokens=400)


def test_bad_input_load_conversation():
    with pytest.raises(TypeError, match="name must be a fixture name.*42"):
        load_conversation(42)
    with pytest.raises(ValueError, match="name must be a non-empty string.*' '"):
        load_conversation(" ")
    with pytest.raises(ValueError, match="no conversation file at .*no_such_chat"):
        load_conversation("no_such_chat")


def test_bad_input_tool_pairs_intact():
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'abc'"):
        tool_pairs_intact("abc")
    with pytest.raises(TypeError, match=r"messages\[1\] must be a langchain message.*'b'"):
        tool_pairs_intact([HumanMessage("a"), "b"])
    assert not tool_pairs_intact([ToolMessage("42", tool_call_id="nope")])


def test_bad_input_transcript():
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'abc'"):
        transcript("abc")
    with pytest.raises(TypeError, match=r"messages\[0\] must be a langchain message.*dict"):
        transcript([{"role": "user", "content": "hi"}])


def test_bad_input_trim_to_budget():
    msgs = [SystemMessage(SYSTEM), HumanMessage("hi")]
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'hi'"):
        trim_to_budget("hi", 100)
    with pytest.raises(TypeError, match="max_tokens must be an int, got str: '100'"):
        trim_to_budget(msgs, "100")
    with pytest.raises(TypeError, match="token_counter must be a callable.*'o200k_base'"):
        trim_to_budget(msgs, 100, token_counter="o200k_base")


def test_bad_input_turns():
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'abc'"):
        turns("abc")
    with pytest.raises(TypeError, match=r"messages\[0\] must be a langchain message.*None"):
        turns([None])


def test_bad_input_check_prompt_messages():
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'abc'"):
        check_prompt_messages("abc")
    with pytest.raises(TypeError, match="message 1 must be a langchain message, got int: 7"):
        check_prompt_messages([HumanMessage("a"), 7])
    with pytest.raises(ValueError, match="message 0.*empty or whitespace"):
        check_prompt_messages([HumanMessage(" ")])


# --- trim_to_budget walks back from the end: same cut as trim_messages, cost of what it keeps ---


def plain_trim(messages, budget, counter):
    """langchain_core's trim_messages with trim_to_budget's options (reply overhead given back)."""
    from langchain_core.messages import trim_messages

    has_system = bool(messages) and isinstance(messages[0], SystemMessage)
    return trim_messages(
        messages,
        max_tokens=budget + (3 if has_system else 0),
        token_counter=counter,
        strategy="last",
        include_system=True,
        start_on="human",
    )


@st.composite
def prompts(draw):
    """A history with or without a system prompt, sometimes opened by AI messages (no turn yet)."""
    head = [SystemMessage(draw(words))] if draw(st.booleans()) else []
    lead = [AIMessage(draw(words)) for _ in range(draw(st.integers(0, 2)))]
    return [*head, *lead, *draw(conversations())]


def outcome(fn):
    try:
        return fn()
    except ValueError as exc:
        return f"ValueError: {exc}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=prompts(),
    budget=st.integers(1, 700),
    encoding=st.sampled_from(["o200k_base", "cl100k_base"]),
)
def test_walk_from_the_end_matches_trim_messages(messages, budget, encoding):
    counter = TokenCounter(encoding)
    fast = outcome(lambda: trim_to_budget(messages, budget, counter))
    # any counter that is not a TokenCounter takes the trim_messages path
    via_trim_messages = outcome(lambda: trim_to_budget(messages, budget, lambda m: counter(m)))
    assert fast == via_trim_messages
    if isinstance(fast, list):
        assert fast == plain_trim(messages, budget, counter)
        assert counter(fast) <= budget
    else:  # refused: exactly when the system prompt or the latest turn does not fit
        head = messages[:1] if messages and isinstance(messages[0], SystemMessage) else []
        starts = turn_starts(messages)
        latest = messages[starts[-1] :] if starts else []
        assert counter(head) > budget or counter([*head, *latest]) > budget


class CountingCounter(TokenCounter):
    """A TokenCounter that records how many messages it was asked to count."""

    def __init__(self):
        super().__init__()
        self.reads = 0

    def message(self, message):
        self.reads += 1
        return super().message(message)


def long_history(n_turns: int) -> list:
    return [m for i in range(n_turns) for m in tool_turn(i)]


def test_trim_to_budget_reads_what_it_keeps_not_the_history():
    reads = {}
    for n_turns in (20, 500):
        counter = CountingCounter()
        kept = trim_to_budget([SystemMessage(SYSTEM), *long_history(n_turns)], 300, counter)
        assert 1 < len(kept) < 4 * 20
        reads[n_turns] = counter.reads
    assert reads[500] == reads[20] < 4 * len(kept)  # flat: 25x the history, the same reads


def test_trim_to_budget_never_reads_the_dropped_prefix():
    # An orphan ToolMessage far back in the history is not part of the prompt: not read.
    history = [HumanMessage("hi"), ToolMessage("stray", tool_call_id="nobody"), *long_history(50)]
    kept = trim_to_budget([SystemMessage(SYSTEM), *history], 200)
    assert kept[1:] == history[len(history) - len(kept) + 1 :]
    # Kept, it is refused, with its position in the whole list.
    with pytest.raises(ValueError, match="message 2: orphan ToolMessage"):
        trim_to_budget([SystemMessage(SYSTEM), *history], 100_000)
    # A counter without per-message counts goes through trim_messages, which reads everything:
    # there the whole history is validated, as before.
    with pytest.raises(ValueError, match="message 2: orphan ToolMessage"):
        trim_to_budget([SystemMessage(SYSTEM), *history], 200, lambda ms: COUNTER(ms))
    # A bad message inside the kept part is refused even when it is not the first one read.
    bad = [*long_history(3), HumanMessage("ok"), SystemMessage("late system prompt")]
    with pytest.raises(ValueError, match="message 13: a SystemMessage may only come first"):
        trim_to_budget(bad, 10_000)


def test_check_prompt_messages_from_a_start():
    history = [SystemMessage(SYSTEM), ToolMessage("stray", tool_call_id="x"), *tool_turn(1)]
    with pytest.raises(ValueError, match="orphan ToolMessage"):
        check_prompt_messages(history)
    assert check_prompt_messages(history, start=2) == frozenset()
    with pytest.raises(ValueError, match="message 0.*empty"):
        check_prompt_messages([SystemMessage(" "), *tool_turn(1)], start=1)
    for start in (-1, 7):
        with pytest.raises(ValueError, match=rf"start must be an integer in 0..6, got {start!r}"):
            check_prompt_messages(history, start=start)
    for start in (True, "2"):
        with pytest.raises(TypeError, match=rf"start must be an int, got .*{start!r}"):
            check_prompt_messages(history, start=start)
