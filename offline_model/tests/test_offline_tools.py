"""OfflineChatModel tool calling and structured output: tool_choice forms, schema filling,
trustcall's repair path, tool-call ids."""

import json
import os
import subprocess
import sys
from typing import Literal

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel, Field, field_validator
from typing_extensions import TypedDict

from offline_model import OfflineChatModel

MODEL = OfflineChatModel()
INTRO = [HumanMessage("Hi, I'm Alice. I work at Acme as a data engineer and I live in Lisbon.")]


@tool
def manage_memory(content: str, action: Literal["create", "update", "delete"] = "create") -> str:
    """Create, update or delete a memory to persist across conversations."""
    return "ok"


@tool
def search_memory(query: str) -> str:
    """Search your long-term memories for information relevant to the conversation."""
    return "[]"


@tool
def search_docs(query: str) -> str:
    """Search the knowledge base documents for passages about a technical topic."""
    return "no hits"


class UserProfile(BaseModel):
    """What we know about the user."""

    name: str | None = None
    employer: str | None = Field(None, description="Organisation the user works for")
    role: str | None = None
    location: str | None = None
    preferences: list[str] = Field(default_factory=list)


# ---------------------------------------------------------------- tool_choice forms


def calls(model_or_runnable, messages):
    return model_or_runnable.invoke(messages).tool_calls


def test_auto_writes_memory_when_user_shares_details():
    out = calls(MODEL.bind_tools([manage_memory]), INTRO)
    assert {c["name"] for c in out} == {"manage_memory"}
    contents = " ".join(c["args"]["content"] for c in out)
    assert "Alice" in contents and "Acme" in contents and "Lisbon" in contents
    assert all(c["args"]["action"] == "create" for c in out)


def test_auto_searches_before_writing_then_updates_the_same_memory():
    bound = MODEL.bind_tools([manage_memory, search_memory])
    turn = [HumanMessage("I moved to Denver last month.")]
    first = bound.invoke(turn)
    assert [c["name"] for c in first.tool_calls] == ["search_memory"]
    hit = [{"key": "mem-7", "value": {"content": "User lives in Austin."}}]
    results = [ToolMessage(json.dumps(hit), tool_call_id=c["id"]) for c in first.tool_calls]
    second = bound.invoke(turn + [first, *results])
    assert [(c["name"], c["args"]) for c in second.tool_calls] == [
        ("manage_memory", {"content": "User lives in Denver.", "action": "update", "id": "mem-7"})
    ]
    done = ToolMessage("updated memory mem-7", tool_call_id=second.tool_calls[0]["id"])
    third = bound.invoke(turn + [first, *results, second, done])
    assert third.tool_calls == [] and "saved" in third.content


def test_auto_forget_deletes_the_matching_memory():
    bound = MODEL.bind_tools([manage_memory, search_memory])
    turn = [HumanMessage("Please forget that I like hiking.")]
    first = bound.invoke(turn)
    hits = [
        {"key": "m1", "value": {"content": "User prefers hiking."}},
        {"key": "m2", "value": {"content": "User works at Acme."}},
    ]
    results = [ToolMessage(json.dumps(hits), tool_call_id=c["id"]) for c in first.tool_calls]
    second = bound.invoke(turn + [first, *results])
    assert [(c["name"], c["args"]) for c in second.tool_calls] == [
        ("manage_memory", {"action": "delete", "id": "m1"})
    ]


def test_auto_searches_memory_before_answering_a_personal_question():
    out = calls(
        MODEL.bind_tools([manage_memory, search_memory]), [HumanMessage("Where do I work?")]
    )
    assert out and all(c["name"] == "search_memory" for c in out)


def test_auto_searches_knowledge_base_for_domain_question():
    bound = MODEL.bind_tools([search_memory, search_docs])
    out = calls(bound, [HumanMessage("How does HNSW indexing work in FAISS?")])
    assert "search_docs" in {c["name"] for c in out}
    assert any("HNSW" in c["args"]["query"] for c in out)


def test_auto_small_talk_needs_no_tool():
    out = MODEL.bind_tools([manage_memory, search_memory]).invoke([HumanMessage("hello!")])
    assert out.tool_calls == [] and out.content


def test_auto_answers_once_tool_results_are_in():
    first = MODEL.bind_tools([search_memory]).invoke([HumanMessage("what is my name?")])
    call = first.tool_calls[0]
    result = ToolMessage(
        json.dumps([{"key": "k1", "value": {"content": "User's name is Ingrid."}}]),
        tool_call_id=call["id"],
    )
    final = MODEL.bind_tools([search_memory]).invoke(
        [HumanMessage("what is my name?"), first, result]
    )
    assert final.tool_calls == [] and "Ingrid" in final.content


@pytest.mark.parametrize(
    "choice",
    ["any", "required", "UserProfile", {"type": "function", "function": {"name": "UserProfile"}}],
)
def test_forced_choices_call_the_schema(choice):
    out = calls(MODEL.bind_tools([UserProfile], tool_choice=choice), INTRO)
    assert out[0]["name"] == "UserProfile"
    assert out[0]["args"]["employer"] == "Acme"


def test_named_choice_picks_that_tool_among_several():
    out = calls(
        MODEL.bind_tools([manage_memory, search_memory], tool_choice="search_memory"), INTRO
    )
    assert out and {c["name"] for c in out} == {"search_memory"}


def test_unknown_named_choice_is_rejected():
    with pytest.raises(ValueError, match="not_a_tool"):
        MODEL.bind_tools([manage_memory], tool_choice="not_a_tool")


def test_tool_choice_none_replies_in_text():
    out = MODEL.bind_tools([manage_memory], tool_choice="none").invoke(INTRO)
    assert out.tool_calls == [] and "Alice" in out.content


# ---------------------------------------------------------------- structured output


def test_structured_pydantic_fills_known_fields_and_omits_absent_ones():
    profile = MODEL.with_structured_output(UserProfile).invoke(INTRO)
    assert (profile.name, profile.employer, profile.role, profile.location) == (
        "Alice",
        "Acme",
        "data engineer",
        "Lisbon",
    )
    assert profile.preferences == []  # never stated, not invented


class Episode(TypedDict):
    """One past interaction worth learning from."""

    situation: str
    approach: str
    outcome: str
    lesson: str


def test_structured_typeddict_episode_from_exchange():
    exchange = [
        HumanMessage("My pytest run fails with ModuleNotFoundError for memlib."),
        AIMessage("Install the package in editable mode with pip install -e . and rerun pytest."),
        HumanMessage("Thanks, that worked!"),
    ]
    ep = MODEL.with_structured_output(Episode, method="json_schema").invoke(exchange)
    assert "ModuleNotFoundError" in ep["situation"]
    assert "pip install -e" in ep["approach"]
    assert ep["outcome"].startswith("Worked")
    assert "worked" in ep["lesson"]


def test_structured_json_schema_relevance_and_include_raw():
    schema = {
        "title": "GradeDocuments",
        "description": "Binary relevance score for a retrieved document.",
        "type": "object",
        "properties": {"binary_score": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["binary_score"],
    }
    grader = MODEL.with_structured_output(schema, include_raw=True)

    def run(doc):
        prompt = (
            f"Question: how do checkpointers save graph state?\nDocument: {doc}\nIs it relevant?"
        )
        return grader.invoke([HumanMessage(prompt)])

    yes = run("A checkpointer stores the graph state after each step under a thread id.")
    no = run("Bananas are yellow and rich in potassium.")
    assert yes["parsed"] == {"binary_score": "yes"} and no["parsed"] == {"binary_score": "no"}
    assert yes["parsing_error"] is None and yes["raw"].tool_calls


def test_structured_boolean_relevance_field():
    class Grade(BaseModel):
        """Whether the document answers the query."""

        is_relevant: bool

    grader = MODEL.with_structured_output(Grade)
    msg = "Query: vector similarity search\nDocument: The bakery opens at seven."
    assert grader.invoke([HumanMessage(msg)]).is_relevant is False


def test_nested_objects_and_arrays_of_facts():
    class Triple(BaseModel):
        subject: str
        predicate: str
        object: str

    class Facts(BaseModel):
        """Facts stated in the conversation."""

        facts: list[Triple]

    out = MODEL.with_structured_output(Facts).invoke(INTRO)
    objects = {t.object for t in out.facts}
    assert {"Acme", "Lisbon", "data engineer"} <= objects


# ---------------------------------------------------------------- trustcall repair path


class ShortNote(BaseModel):
    """A short note about the user."""

    content: str = Field(description="The note")

    @field_validator("content")
    @classmethod
    def short(cls, v: str) -> str:
        if len(v) > 24:
            raise ValueError("String should have at most 24 characters")
        return v


def test_trustcall_validation_retry_produces_valid_notes():
    from trustcall import create_extractor

    extractor = create_extractor(MODEL, tools=[ShortNote], tool_choice="ShortNote")
    result = extractor.invoke("I'm Zoe and I work at Wayne Enterprises as a security analyst.")
    notes = [r.content for r in result["responses"]]
    assert notes and all(len(n) <= 24 for n in notes)
    assert len(notes) == 3 and "User's name is Zoe." in notes  # valid first time, untouched
    # The other two failed validation and were repaired (cut at a word boundary) by
    # PatchFunctionErrors calls, not dropped.
    full = ["User works at Wayne Enterprises.", "User works as a security analyst."]
    assert all(any(f.startswith(n) and f != n for f in full) for n in notes[1:])


def test_repair_converts_types_from_the_error_message():
    from trustcall._base import PatchFunctionErrors, _create_patch_function_name_schema

    bad = AIMessage(
        "", tool_calls=[{"name": "Person", "args": {"name": "Zoe", "age": "31 years"}, "id": "c1"}]
    )
    error = ToolMessage(
        "Error:\n\n```\n1 validation error for Person\nage\n  Input should be a valid integer, unable to "
        "parse string as an integer [type=int_parsing, input_value='31 years', input_type=str]\n```\n"
        "Expected Parameter Schema:\n\n```json\n{'properties': {'name': {'type': 'string'}, 'age': "
        "{'type': 'integer'}}, 'required': ['name', 'age'], 'title': 'Person', 'type': 'object'}\n```\n"
        "Please use PatchFunctionErrors to fix all validation errors. for json_doc_id=[c1].",
        tool_call_id="c1",
    )
    bound = MODEL.bind_tools(
        [PatchFunctionErrors, _create_patch_function_name_schema(["Person"])], tool_choice="any"
    )
    out = bound.invoke([HumanMessage("I'm Zoe, 31 years old."), bad, error]).tool_calls[0]
    assert out["name"] == "PatchFunctionErrors" and out["args"]["json_doc_id"] == "c1"
    assert out["args"]["patches"] == [{"op": "replace", "path": "/age", "value": 31}]


# ---------------------------------------------------------------- ids and usage


def test_tool_call_ids_unique_within_a_reply_and_stable_across_instances():
    a = calls(MODEL.bind_tools([manage_memory]), INTRO)
    b = calls(OfflineChatModel().bind_tools([manage_memory]), INTRO)
    assert len({c["id"] for c in a}) == len(a) > 1
    assert [c["id"] for c in a] == [c["id"] for c in b]
    other = calls(
        MODEL.bind_tools([manage_memory]), [HumanMessage("I'm Bruno and I live in Porto.")]
    )
    assert not {c["id"] for c in a} & {c["id"] for c in other}


def test_tool_call_ids_stable_across_processes():
    code = (
        "from langchain_core.messages import HumanMessage\n"
        "from offline_model import OfflineChatModel\n"
        "from offline_model.tests.test_offline_tools import manage_memory, INTRO\n"
        "print([c['id'] for c in OfflineChatModel().bind_tools([manage_memory]).invoke(INTRO).tool_calls])"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "OMP_NUM_THREADS": "1"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root
    )
    assert out.returncode == 0, out.stderr
    here = [c["id"] for c in calls(MODEL.bind_tools([manage_memory]), INTRO)]
    assert out.stdout.strip() == str(here)


def test_tool_call_usage_counts_arguments():
    out = MODEL.bind_tools([UserProfile], tool_choice="any").invoke(INTRO)
    assert out.usage_metadata["output_tokens"] > 10
    assert out.content == ""


def test_system_prompt_instructions_are_not_facts():
    out = MODEL.with_structured_output(UserProfile).invoke(
        [
            SystemMessage("You are an assistant at Initech. Extract the user's profile."),
            HumanMessage("I live in Oslo."),
        ]
    )
    assert out.location == "Oslo" and out.employer is None


def test_dates_and_numbers_come_from_the_sentence_that_names_the_field():
    class Task(BaseModel):
        """A task the user mentioned."""

        deadline: str | None = None
        budget: float | None = None
        attendees: int | None = None
        priority: int | None = None

    text = "The deadline is March 15 and the budget is 40,000 euros. 12 attendees will join."
    task = MODEL.with_structured_output(Task).invoke([HumanMessage(text)])
    assert (task.deadline, task.budget, task.attendees) == ("March 15", 40000.0, 12)
    assert task.priority is None  # never stated: omitted, not guessed
