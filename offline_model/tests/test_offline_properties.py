"""Properties of the offline model on arbitrary input: every skill answers (or says it cannot)
and never raises anything but a ValueError on a malformed request; it never fills a field with
the string "None" and never guesses an enum value the schema lets it leave out."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from offline_model import OfflineChatModel
from offline_model.rules import extract_facts
from offline_model.skills import Request, answer, grade_skill, summarize

warnings.filterwarnings("ignore", category=DeprecationWarning)
MODEL = OfflineChatModel()
FAST = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)

# Words the rules react to, so that generated text reaches deep into them.
VOCAB = [
    "I",
    "I'm",
    "my",
    "name",
    "is",
    "work",
    "at",
    "live",
    "in",
    "moved",
    "to",
    "Sure.",
    "Summary",
    "summary:",
    "Summarize",
    "the",
    "conversation",
    "in",
    "40",
    "words",
    "Earlier:",
    "previous",
    "summary so far:",
    "Here",
    "is",
    "User",
    "User's",
    "Dr.",
    "St.",
    "Acme",
    "Oslo",
    "don't",
    "anymore",
    "used",
    "if",
    "ever",
    "?",
    ".",
    ",",
    ";",
    ":",
    "\n",
    "-",
    "*",
    "1.",
    "relevant",
    "document:",
    "question:",
    "grade",
    "yes",
    "no",
    "None",
    "null",
    "{",
    "}",
    "'name':",
    "remember",
    "forget",
    "that",
    "prefer",
    "like",
    "sister",
    "colleague",
    "call",
    "me",
    "here",
    "engineer",
    "a",
    "an",
    "as",
    "originally",
    "from",
    "but",
    "now",
    "",
    " ",
    "Extend this summary:",
    "Create a summary of the conversation above:",
    "tl;dr",
    "My tests keep failing.",
    "What is a closure?",
    "How do I fix it?",
    "Python",
    "reading",
]
TEXT = st.one_of(
    st.lists(st.sampled_from(VOCAB), max_size=30).map(" ".join),
    st.text(max_size=60),
)


@st.composite
def messages(draw, last_human: bool = False):
    out = []
    if draw(st.booleans()):
        out.append(SystemMessage(draw(TEXT)))
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["human", "ai", "ai_call", "human"]))
        if kind == "human":
            out.append(HumanMessage(draw(TEXT)))
        elif kind == "ai":
            out.append(AIMessage(draw(TEXT)))
        else:
            name = draw(st.sampled_from(["search", "lookup_order", "get_weather"]))
            out.append(
                AIMessage("", tool_calls=[{"name": name, "args": {"q": draw(TEXT)}, "id": "c1"}])
            )
            out.append(ToolMessage(draw(TEXT), tool_call_id="c1", name=name))
    if last_human or not out or draw(st.booleans()):
        out.append(HumanMessage(draw(TEXT)))
    return out


def _ok(call):
    """The call's result, or None when it refused with a ValueError (the only allowed error)."""
    try:
        return call()
    except ValueError as exc:
        assert str(exc), "a ValueError must say what was wrong"
        return None


@FAST
@given(messages())
def test_model_replies_to_any_message_sequence(msgs):
    reply = _ok(lambda: MODEL.invoke(msgs))
    if reply is not None:
        assert isinstance(reply.content, str)


@FAST
@given(messages(), st.sampled_from([summarize, answer, grade_skill]))
def test_each_skill_answers_any_request(msgs, skill):
    out = _ok(lambda: skill(Request(msgs)))
    assert out is None or isinstance(out, str)


@FAST
@given(TEXT, messages(last_human=True), st.sampled_from(["Sure. ", "", "Summary: ", "Earlier: "]))
def test_summary_with_any_previous_summary(previous, msgs, frame):
    instruction = HumanMessage(
        f"This is the summary of the conversation so far: {frame}{previous}\n\n"
        "Extend the summary by taking into account the new messages above."
    )
    reply = _ok(lambda: MODEL.invoke([*msgs, instruction]))
    assert reply is None or isinstance(reply.content, str)


def test_previous_summary_opening_with_a_polite_frame():
    # Once raised AttributeError: 'str' object has no attribute 'add' (_exchange_items).
    text = (
        "Previous summary: Sure. Nadia asked about closures.\n\n"
        "Summarize the conversation below in 40 words.\n"
        "User: I'm reading about Python today. What is a closure?\n"
        "Assistant: A closure captures variables.\n"
        "User: My tests keep failing on CI. How do decorators work?\n"
        "Assistant: They wrap functions."
    )
    assert MODEL.invoke([HumanMessage(text)]).content.strip()


@st.composite
def transcripts(draw):
    """A summarize request quoting a transcript ("User: ..." lines) and a previous summary."""
    lines = [
        f"{draw(st.sampled_from(['User', 'Assistant', 'Tool', 'Human', 'AI']))}: {draw(TEXT)}"
        for _ in range(draw(st.integers(1, 6)))
    ]
    head = draw(st.sampled_from(["Previous summary: ", "Summary so far: ", ""]))
    frame = draw(st.sampled_from(["Sure. ", "", "Here is the summary: "]))
    return (
        f"{head}{frame}{draw(TEXT)}\n\nSummarize the conversation below in "
        f"{draw(st.integers(0, 80))} words.\n" + "\n".join(lines)
    )


@FAST
@given(transcripts())
def test_summary_of_any_transcript(text):
    reply = _ok(lambda: MODEL.invoke([HumanMessage(text)]))
    assert reply is None or isinstance(reply.content, str)


@FAST
@given(TEXT, st.booleans())
def test_extract_facts_never_raises_or_yields_null_values(text, first_person):
    for f in extract_facts(text, first_person):
        assert f.value.strip().lower() not in ("none", "null", "n/a", "")


SCALAR = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "array", "items": {"type": "string"}},
        {"type": "string", "enum": ["low", "medium", "high"]},
        {"type": "string", "description": "The user's name"},
        {"type": "string", "description": "City where the user lives"},
    ]
)
FIELD = st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True)


@st.composite
def schemas(draw):
    props = draw(st.dictionaries(FIELD, SCALAR, min_size=1, max_size=5))
    if draw(st.booleans()):
        props[draw(FIELD) + "_obj"] = {
            "type": "object",
            "properties": draw(st.dictionaries(FIELD, SCALAR, min_size=1, max_size=3)),
        }
    required = draw(st.lists(st.sampled_from(sorted(props)), unique=True))
    return {
        "title": "Record",
        "description": draw(st.sampled_from(["A record.", "Extract the user's details.", ""]))
        or "Record.",
        "type": "object",
        "properties": props,
        "required": required,
    }


@FAST
@given(schemas(), messages(last_human=True))
def test_structured_output_for_any_schema(schema, msgs):
    out = _ok(lambda: MODEL.with_structured_output(schema).invoke(msgs))
    if out is None:
        return
    assert isinstance(out, dict)
    for key, value in out.items():
        assert value != "None", f"{key} holds the string 'None'"
        spec = schema["properties"].get(key, {})
        if "enum" in spec and key not in schema["required"]:
            assert value is None or value in spec["enum"]


def test_optional_enum_is_left_out_when_nothing_says_it():
    schema = {
        "title": "Ticket",
        "description": "A support ticket.",
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "priority": {"type": "string", "enum": ["low", "medium", "high"]},
        },
        "required": ["summary"],
    }
    out = MODEL.with_structured_output(schema).invoke([HumanMessage("My printer jams.")])
    assert "priority" not in out or out["priority"] is None, out


def test_profile_patched_over_turns_never_holds_the_string_none():
    from langmem import create_memory_manager

    from memlib.semantic import UserProfile

    manager = create_memory_manager(MODEL, schemas=[UserProfile], enable_inserts=False)
    existing: list = []
    for text in [
        "Nadia here.",
        "My sister lives in Porto.",
        "If I ever moved to Riga, great.",
        "hello",
    ]:
        out = manager.invoke({"messages": [HumanMessage(text)], "existing": existing})
        if out:
            existing = [(m.id, "UserProfile", m.content.model_dump()) for m in out]
    profile = existing[0][2]
    assert profile["name"] == "Nadia"
    assert all(v != "None" for v in profile.values()), profile


@pytest.mark.parametrize("bad", [[], None])
def test_malformed_requests_raise_a_clear_value_error(bad):
    with pytest.raises((ValueError, TypeError)):
        MODEL.invoke(bad)


def test_required_but_nullable_fields_stay_null_rather_than_guessed():
    from typing import Literal

    from pydantic import BaseModel

    class Ticket(BaseModel):
        """A support ticket."""

        summary: str
        priority: Literal["low", "medium", "high"] | None
        confidence: float | None = None

    out = MODEL.with_structured_output(Ticket).invoke([HumanMessage("My printer jams.")])
    assert out.priority is None, out
    assert out.confidence is None, out  # nothing computed one
