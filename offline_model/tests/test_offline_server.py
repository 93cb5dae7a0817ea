"""offline_model.server: ChatOpenAI / OpenAIEmbeddings against the local server give what the
offline models give (plain mode), the server refuses what the OpenAI API refuses (HTTP 400 with
OpenAI's error body), and reworded mode rephrases deterministically without losing facts."""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from enum import Enum
from typing import Literal, Optional

import numpy as np
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from pydantic import BaseModel, Field

from memlib.embeddings import MiniLMEmbeddings
from offline_model import OfflineChatModel
from offline_model.server import (
    OpenAICompatibleServer,
    fact_tokens,
    reword,
    reword_args,
    strict_schema_error,
)

OFFLINE = OfflineChatModel()
INTRO = [HumanMessage("Hi, I'm Ana and I work at Globex as a data engineer. I live in Lisbon.")]
MEMORY_TURN = [HumanMessage("Remember that I prefer green tea. I work at Globex now.")]


@tool
def search_memory(query: str) -> str:
    """Search your long-term memories for information relevant to the conversation."""
    return "[]"


@tool
def manage_memory(
    content: str, action: Literal["create", "update", "delete"] = "create", id: str | None = None
) -> str:
    """Create, update or delete a memory to persist across conversations."""
    return "ok"


class Person(BaseModel):
    """A person the user talked about."""

    name: str = Field(description="The person's name")
    employer: Optional[str] = Field(None, description="Where the person works")  # noqa: UP045
    location: str | None = Field(default=None, description="The city the person lives in")
    hobbies: list[str] = Field(default_factory=list, description="The person's hobbies")


class Address(BaseModel):
    city: str
    country: str | None = None


class Color(str, Enum):
    red = "red"
    green = "green"


class Profile(BaseModel):
    """The user's profile."""

    name: str | None = None
    home: Address | None = None
    past: list[Address] = Field(default_factory=list)
    favourite: Color | None = None
    mood: Literal["happy", "sad"] = "happy"
    age: int | None = Field(default=None, ge=0, le=150)


class Scores(BaseModel):
    scores: dict[str, int]


@pytest.fixture(scope="module")
def server():
    with OpenAICompatibleServer(port=0, mode="plain") as s:
        yield s


@pytest.fixture(scope="module")
def reworded_server():
    with OpenAICompatibleServer(port=0, mode="reworded") as s:
        yield s


def chat(server, **kwargs) -> ChatOpenAI:
    kwargs = {"model": "gpt-4o-mini", "max_retries": 0, **kwargs}
    return ChatOpenAI(base_url=server.base_url, api_key="x", **kwargs)


def post(server, path: str, body, auth: bool = True) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if auth:
        headers["Authorization"] = "Bearer x"
    request = urllib.request.Request(server.base_url + path, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            streamed = response.headers["Content-Type"].startswith("text/event-stream")
            return response.status, {"stream": raw.decode()} if streamed else json.loads(raw)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def usage(message) -> tuple[int, int, int]:
    u = message.usage_metadata
    return u["input_tokens"], u["output_tokens"], u["total_tokens"]


def same(a: AIMessage, b: AIMessage) -> None:
    """Same content, tool calls (names, args, ids) and token usage."""
    assert a.content == b.content
    assert [(c["name"], c["args"], c["id"]) for c in a.tool_calls] == [
        (c["name"], c["args"], c["id"]) for c in b.tool_calls
    ]
    assert usage(a) == usage(b)


# --------------------------------------------------------------------------------------------
# Plain mode: identical to OfflineChatModel.

CONVERSATIONS = {
    "introduction": INTRO,
    "question": [
        SystemMessage("Known facts: User's name is Priya. User works at Northwind Labs."),
        HumanMessage("Where do I work?"),
    ],
    "summary with budget": [
        *INTRO,
        AIMessage("Nice to meet you, Ana!"),
        HumanMessage("Summarize our conversation in at most 12 words."),
    ],
    "grade": [
        HumanMessage(
            "Grade the relevance of the document to the question, 'yes' or 'no'.\n"
            "Question: how long does the nightly refund job take?\n"
            "Document: The nightly refund job takes about 40 minutes to finish."
        )
    ],
    "developer and content parts": [
        SystemMessage(
            [{"type": "text", "text": "Be brief."}],
            additional_kwargs={"__openai_role__": "developer"},
        ),
        HumanMessage([{"type": "text", "text": "Hi, I'm Bo."}, {"type": "text", "text": "Hi!"}]),
    ],
}


@pytest.mark.parametrize("name", list(CONVERSATIONS))
def test_plain_answers_equal_offline(server, name):
    messages = CONVERSATIONS[name]
    same(chat(server).invoke(messages), OFFLINE.invoke(messages))


def test_max_tokens_and_stop_reach_the_offline_model(server):
    messages = [*INTRO, HumanMessage("Summarize this conversation.")]
    budgeted = chat(server, max_tokens=8).invoke(messages)
    same(budgeted, OFFLINE.bind(max_tokens=8).invoke(messages))
    assert len(budgeted.content.split()) <= 6
    stopped = chat(server).invoke(INTRO, stop=[";"])
    same(stopped, OFFLINE.invoke(INTRO, stop=[";"]))
    assert ";" not in stopped.content


@pytest.mark.parametrize(
    "tool_choice", [None, "auto", "required", "any", "search_memory", "manage_memory"]
)
def test_tool_calls_equal_offline(server, tool_choice):
    kwargs = {} if tool_choice is None else {"tool_choice": tool_choice}
    tools = [search_memory, manage_memory]
    a = chat(server).bind_tools(tools, **kwargs).invoke(MEMORY_TURN)
    b = OFFLINE.bind_tools(tools, **kwargs).invoke(MEMORY_TURN)
    assert b.tool_calls, "the offline model should call a tool here"
    same(a, b)


def test_named_tool_choice_as_openai_dict(server):
    choice = {"type": "function", "function": {"name": "manage_memory"}}
    a = chat(server).bind_tools([search_memory, manage_memory], tool_choice=choice)
    b = OFFLINE.bind_tools([search_memory, manage_memory], tool_choice=choice)
    same(a.invoke(MEMORY_TURN), b.invoke(MEMORY_TURN))


def test_tool_loop_equal_offline(server):
    """A whole agent turn: calls, tool results (ToolMessage names restored), final answer."""
    tools = [search_memory, manage_memory]
    client, offline = chat(server).bind_tools(tools), OFFLINE.bind_tools(tools)
    messages = list(MEMORY_TURN)
    for _ in range(4):
        a, b = client.invoke(messages), offline.invoke(messages)
        same(a, b)
        messages.append(b)
        if not b.tool_calls:
            break
        for call in b.tool_calls:
            content = "[]" if call["name"] == "search_memory" else f"created memory {call['id']}"
            messages.append(ToolMessage(content, tool_call_id=call["id"], name=call["name"]))
    assert not messages[-1].tool_calls and messages[-1].content


@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
@pytest.mark.parametrize("schema", [Person, Profile])
def test_structured_output_equals_offline(server, method, schema):
    for messages in (INTRO, [HumanMessage("My name is Ana, I live in Porto (Portugal).")]):
        a = chat(server).with_structured_output(schema, method=method).invoke(messages)
        b = OFFLINE.with_structured_output(schema, method=method).invoke(messages)
        assert isinstance(a, schema)
        assert a == b


def test_structured_output_usage_equals_offline(server):
    a = chat(server).with_structured_output(Person, method="json_schema", include_raw=True)
    b = OFFLINE.with_structured_output(Person, include_raw=True)
    ra, rb = a.invoke(INTRO), b.invoke(INTRO)
    assert ra["parsed"] == rb["parsed"]
    assert usage(ra["raw"]) == usage(rb["raw"])
    # Strict mode returns every key; the offline model's call left out the empty list.
    assert json.loads(ra["raw"].content) == {"hobbies": [], **rb["raw"].tool_calls[0]["args"]}


def test_strict_tools_and_dict_schema(server):
    """bind_tools(strict=True) and a plain JSON-schema dict (non-strict) both work."""
    a = chat(server).bind_tools([Person], tool_choice="Person", strict=True).invoke(INTRO)
    b = OFFLINE.bind_tools([Person], tool_choice="Person").invoke(INTRO)
    assert a.tool_calls[0]["id"] == b.tool_calls[0]["id"]
    assert Person(**a.tool_calls[0]["args"]) == Person(**b.tool_calls[0]["args"])
    schema = {
        "title": "Fact",
        "description": "One fact.",
        "type": "object",
        "properties": {"content": {"type": "string", "description": "The fact"}},
        "required": ["content"],
    }
    for method in ("json_schema", "function_calling"):
        got = chat(server).with_structured_output(schema, method=method).invoke(INTRO)
        assert got == OFFLINE.with_structured_output(schema).invoke(INTRO)


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # openai's stream helper
def test_streaming_equals_offline(server):
    llm = chat(server, stream_usage=True)
    chunks = list(llm.stream(INTRO))
    assert len(chunks) > 5  # token by token
    total = chunks[0]
    for c in chunks[1:]:
        total += c
    same(total, OFFLINE.invoke(INTRO))
    tools = [search_memory, manage_memory]
    streamed = None
    for c in llm.bind_tools(tools).stream(MEMORY_TURN):
        streamed = c if streamed is None else streamed + c
    same(streamed, OFFLINE.bind_tools(tools).invoke(MEMORY_TURN))
    parsed = list(llm.with_structured_output(Person, method="json_schema").stream(INTRO))
    assert parsed[-1] == OFFLINE.with_structured_output(Person).invoke(INTRO)


def test_langgraph_streams_messages_through_chatopenai(server):
    from langgraph.graph import START, MessagesState, StateGraph

    llm = chat(server, stream_usage=True)
    graph = StateGraph(MessagesState)
    graph.add_node("model", lambda state: {"messages": [llm.invoke(state["messages"])]})
    graph.add_edge(START, "model")
    app = graph.compile()
    before = server.stats["streamed_requests"]
    tokens = [chunk for chunk, _ in app.stream({"messages": INTRO}, stream_mode="messages")]
    assert len(tokens) > 5 and server.stats["streamed_requests"] == before + 1
    assert "".join(t.content for t in tokens) == OFFLINE.invoke(INTRO).content


def test_raw_response_body(server):
    status, body = post(
        server,
        "/chat/completions",
        {
            "model": "my-model",
            "messages": [{"role": "user", "content": "Remember that I prefer green tea."}],
            "tools": [{"type": "function", "function": {"name": "search_memory"}}],
            "tool_choice": "required",
            "n": 2,
        },
    )
    assert status == 200
    assert body["object"] == "chat.completion" and body["model"] == "my-model"
    assert body["id"].startswith("chatcmpl-") and isinstance(body["created"], int)
    assert [c["index"] for c in body["choices"]] == [0, 1]
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] is None
    call = choice["message"]["tool_calls"][0]
    assert call["type"] == "function" and call["id"].startswith("call_")
    assert isinstance(json.loads(call["function"]["arguments"]), dict)
    u = body["usage"]
    assert u["total_tokens"] == u["prompt_tokens"] + u["completion_tokens"] > 0


QUERY = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}


def test_json_object_mode(server):
    ask = "Reply in JSON with the keys 'name' and 'city'. I'm Ana and I live in Lisbon."
    body = chat_body(messages=[{"role": "user", "content": ask}])
    status, answer = post(
        server, "/chat/completions", {**body, "response_format": {"type": "json_object"}}
    )
    assert status == 200
    assert json.loads(answer["choices"][0]["message"]["content"]) == {
        "name": "Ana",
        "city": "Lisbon",
    }
    body = chat_body(messages=[{"role": "user", "content": "Say hi, as JSON."}])
    status, answer = post(
        server, "/chat/completions", {**body, "response_format": {"type": "json_object"}}
    )
    assert set(json.loads(answer["choices"][0]["message"]["content"])) == {"response"}


def test_raw_stream_events(server):
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "Remember that I prefer green tea."}],
        "tools": [{"type": "function", "function": {"name": "search_memory", "parameters": QUERY}}],
        "tool_choice": "required",
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    request = urllib.request.Request(
        server.base_url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Authorization": "Bearer x", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        lines = [ln for ln in response.read().decode().split("\n") if ln.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    events = [json.loads(ln[6:]) for ln in lines[:-1]]
    assert all(e["object"] == "chat.completion.chunk" for e in events)
    assert events[0]["choices"][0]["delta"]["role"] == "assistant"
    deltas = [e["choices"][0]["delta"].get("tool_calls") for e in events if e["choices"]]
    pieces = [d[0] for d in deltas if d]
    assert pieces[0]["index"] == 0 and pieces[0]["id"] and pieces[0]["function"]["name"]
    arguments = "".join(p["function"]["arguments"] for p in pieces if p["index"] == 0)
    assert len(arguments) > 24 and set(json.loads(arguments)) == {"query"}  # streamed in pieces
    assert events[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert events[-1]["choices"] == [] and events[-1]["usage"]["total_tokens"] > 0


# --------------------------------------------------------------------------------------------
# Embeddings.


def test_openai_embeddings_equal_minilm(server):
    texts = ["hello world", "The nightly refund job takes 40 minutes."]
    expected = np.array(MiniLMEmbeddings().embed_documents(texts))
    # The openai client asks for base64 unless told otherwise, and decodes it itself.
    client = OpenAIEmbeddings(
        base_url=server.base_url,
        api_key="x",
        model="text-embedding-3-small",
        check_embedding_ctx_length=False,
        max_retries=0,
    )
    assert np.allclose(client.embed_documents(texts), expected, atol=1e-6)
    assert np.allclose(client.embed_query(texts[0]), expected[0], atol=1e-6)
    # With check_embedding_ctx_length (the default) it sends cl100k_base token ids.
    by_tokens = OpenAIEmbeddings(
        base_url=server.base_url, api_key="x", model="text-embedding-3-small", max_retries=0
    )
    assert np.allclose(by_tokens.embed_documents(texts), expected, atol=1e-6)


def test_raw_embeddings(server):
    status, body = post(server, "/embeddings", {"model": "e", "input": "hi there"})
    assert status == 200 and body["object"] == "list" and body["model"] == "e"
    item = body["data"][0]
    assert item["object"] == "embedding" and item["index"] == 0 and len(item["embedding"]) == 384
    assert body["usage"] == {"prompt_tokens": 2, "total_tokens": 2}
    status, b64 = post(
        server, "/embeddings", {"model": "e", "input": ["hi there"], "encoding_format": "base64"}
    )
    vector = np.frombuffer(base64.b64decode(b64["data"][0]["embedding"]), dtype="<f4")
    assert np.allclose(vector, item["embedding"])
    status, short = post(server, "/embeddings", {"model": "e", "input": "hi", "dimensions": 64})
    assert status == 200 and len(short["data"][0]["embedding"]) == 64
    assert np.isclose(np.linalg.norm(short["data"][0]["embedding"]), 1.0, atol=1e-5)
    for bad, param in (
        ({"model": "e", "input": "x", "encoding_format": "int8"}, "encoding_format"),
        ({"model": "e", "input": "x", "dimensions": 1536}, "dimensions"),
        ({"model": "e", "input": ""}, "input"),
        ({"model": "e"}, "input"),
        ({"input": "x"}, None),
    ):
        status, error = post(server, "/embeddings", bad)
        assert status == 400 and error["error"]["param"] == param, error


# --------------------------------------------------------------------------------------------
# Validation: what the OpenAI API refuses, this server refuses (each case is otherwise valid).

USER = {"role": "user", "content": "Remember that I prefer green tea."}
CALL_A = {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
CALL_B = {"id": "call_b", "type": "function", "function": {"name": "f", "arguments": "{}"}}
CALLS = {"role": "assistant", "content": None, "tool_calls": [CALL_A, CALL_B]}
TOOL_F = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def tool_answer(call_id: str) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def strict_tool(schema: dict, name: str = "f") -> dict:
    return {"type": "function", "function": {"name": name, "parameters": schema, "strict": True}}


def strict_format(schema: dict, name: str = "out") -> dict:
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


def obj(properties: dict, **extra) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
        **extra,
    }


STRING = {"type": "string"}
VALID_STRICT = obj(
    {
        "name": STRING,
        "nick": {"type": ["string", "null"]},
        "tags": {"type": "array", "items": STRING, "minItems": 1, "maxItems": 3},
        "when": {"type": "string", "format": "date-time", "pattern": "^2", "maxLength": 40},
        "n": {"type": "integer", "minimum": 0, "exclusiveMaximum": 9, "multipleOf": 1},
        "home": {"anyOf": [{"$ref": "#/$defs/place"}, {"type": "null"}]},
        "kind": {"enum": ["a", "b"], "type": "string", "default": "a", "title": "Kind"},
    },
    **{"$defs": {"place": obj({"city": STRING})}, "description": "A record."},
)


def nested(depth: int) -> dict:
    node = STRING
    for _ in range(depth):
        node = obj({"x": node})
    return node


# (name, request fields, expected param, words of the expected message)
INVALID = [
    ("missing model", {"model": None}, None, "you must provide a model parameter"),
    ("missing messages", {"messages": None}, "messages", "Missing required parameter"),
    ("empty messages", {"messages": []}, "messages", "empty array"),
    (
        "unknown role",
        {"messages": [{"role": "robot", "content": "hi"}]},
        "messages[0].role",
        "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', "
        "'function', 'tool', and 'developer'.",
    ),
    (
        "message name with a space",
        {"messages": [{**USER, "name": "Ana Silva"}]},
        "messages[0].name",
        "string does not match pattern",
    ),
    (
        "tool without a preceding tool call",
        {"messages": [USER, tool_answer("call_a")]},
        "messages.[1].role",
        "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    ),
    (
        "tool call left unanswered",
        {"messages": [USER, CALLS, tool_answer("call_a"), USER], "tools": [TOOL_F]},
        "messages.[1].role",
        "The following tool_call_ids did not have response messages: call_b",
    ),
    (
        "tool calls unanswered at the end",
        {"messages": [USER, CALLS], "tools": [TOOL_F]},
        "messages.[1].role",
        "did not have response messages: call_a, call_b",
    ),
    (
        "tool answers out of order",
        {"messages": [USER, CALLS, tool_answer("call_b"), tool_answer("call_a")]},
        "messages.[2].tool_call_id",
        "answers tool_call_id 'call_b' before 'call_a'",
    ),
    (
        "tool answer to an unknown id",
        {"messages": [USER, CALLS, tool_answer("call_a"), tool_answer("call_zzz")]},
        "messages.[3].tool_call_id",
        "'call_zzz', which is not among the tool calls of messages[1]",
    ),
    (
        "tool_choice without tools",
        {"tool_choice": "auto"},
        "tool_choice",
        "'tool_choice' is only allowed when 'tools' are specified",
    ),
    (
        "tool_choice names no tool",
        {"tools": [TOOL_F], "tool_choice": {"type": "function", "function": {"name": "g"}}},
        "tool_choice.function.name",
        "function 'g' is not among the tools ['f']",
    ),
    (
        "tool_choice 'any'",
        {"tools": [TOOL_F], "tool_choice": "any"},
        "tool_choice",
        "Invalid value: 'any'",
    ),
    (
        "parallel_tool_calls without tools",
        {"parallel_tool_calls": False},
        "parallel_tool_calls",
        "'parallel_tool_calls' is only allowed when 'tools' are specified",
    ),
    (
        "function name with a space",
        {"tools": [{"type": "function", "function": {"name": "look up"}}]},
        "tools[0].function.name",
        "string does not match pattern",
    ),
    (
        "function name too long",
        {"tools": [{"type": "function", "function": {"name": "f" * 65}}]},
        "tools[0].function.name",
        "string too long",
    ),
    (
        "duplicate tool names",
        {"tools": [TOOL_F, TOOL_F]},
        "tools[1].function.name",
        "function name 'f' is used by tools[0] and tools[1]",
    ),
    ("empty tools", {"tools": []}, "tools", "empty array"),
    (
        "response_format name with a dot",
        {"response_format": {"type": "json_schema", "json_schema": {"name": "a.b"}}},
        "response_format.json_schema.name",
        "string does not match pattern",
    ),
    (
        "response_format without a name",
        {"response_format": {"type": "json_schema", "json_schema": {"schema": VALID_STRICT}}},
        "response_format.json_schema.name",
        "Missing required parameter",
    ),
    (
        "json_object without the word json",
        {"response_format": {"type": "json_object"}},
        "messages",
        "must contain the word 'json'",
    ),
    ("unknown parameter", {"temprature": 0.2}, "temprature", "Unrecognized request argument"),
    ("max_tokens of 0", {"max_tokens": 0}, "max_tokens", "integer below minimum value"),
    ("five stop sequences", {"stop": list("abcde")}, "stop", "array too long"),
    (
        "stream_options without stream",
        {"stream_options": {"include_usage": True}},
        "stream_options",
        "only allowed when 'stream' is enabled",
    ),
]

# Strict schemas OpenAI's structured outputs refuse; each is checked as a response_format and as
# a strict tool, and must pass when not strict.
STRICT_INVALID = [
    ("root anyOf", {"anyOf": [obj({"a": STRING}), obj({"b": STRING})]}, "got 'type: \"anyOf\"'"),
    ("root array", {"type": "array", "items": STRING}, "got 'type: \"array\"'"),
    (
        "no additionalProperties",
        {"type": "object", "properties": {"a": STRING}, "required": ["a"]},
        "In context=(), 'additionalProperties' is required to be supplied and to be false",
    ),
    (
        "additionalProperties true in items",
        obj(
            {"a": {"type": "array", "items": {**obj({"b": STRING}), "additionalProperties": True}}}
        ),
        "In context=('properties', 'a', 'items'), 'additionalProperties'",
    ),
    (
        "open object in $defs",
        obj(
            {"a": {"$ref": "#/$defs/d"}},
            **{"$defs": {"d": {"type": "object", "properties": {"x": STRING}, "required": ["x"]}}},
        ),
        "In context=('$defs', 'd'), 'additionalProperties'",
    ),
    (
        "open object in an anyOf branch",
        obj({"a": {"anyOf": [{"type": "object", "properties": {}}, {"type": "null"}]}}),
        "In context=('properties', 'a', 'anyOf', '0'), 'additionalProperties'",
    ),
    (
        "optional property",
        {**obj({"a": STRING, "b": STRING}), "required": ["a"]},
        "'required' is required to be supplied and to be an array including every key in "
        "properties. Missing 'b'",
    ),
    (
        "nested optional property",
        obj({"a": {**obj({"x": STRING, "y": STRING}), "required": ["x"]}}),
        "In context=('properties', 'a'), 'required' is required",
    ),
    ("allOf", obj({"a": {"allOf": [STRING]}}), "'allOf' is not permitted"),
    ("oneOf", obj({"a": {"oneOf": [STRING, {"type": "integer"}]}}), "'oneOf' is not permitted"),
    (
        "uniqueItems",
        obj({"a": {"type": "array", "items": STRING, "uniqueItems": True}}),
        "'uniqueItems' is not permitted",
    ),
    ("format uri", obj({"a": {"type": "string", "format": "uri"}}), "'uri' is not a valid format"),
    ("no type", obj({"a": {"description": "anything"}}), "schema must have a 'type' key"),
    ("11 levels of nesting", nested(11), "nesting depth 11 exceeds the limit of 10"),
    (
        "5001 properties",
        obj({f"p{i}": STRING for i in range(5001)}),
        "5001 object properties, more than the limit of 5000",
    ),
]


def chat_body(**fields) -> dict:
    body = {"model": "gpt-4o-mini", "messages": [USER]}
    body.update(fields)
    return {k: v for k, v in body.items() if v is not None}


def assert_refused(server, body: dict, param: str | None, words: str) -> dict:
    status, error = post(server, "/chat/completions", body)
    assert status == 400, (status, error)
    assert set(error) == {"error"}
    assert set(error["error"]) == {"message", "type", "param", "code"}
    assert error["error"]["type"] == "invalid_request_error"
    assert error["error"]["param"] == param
    assert words in error["error"]["message"], error["error"]["message"]
    return error


@pytest.mark.parametrize(
    ("fields", "param", "words"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID]
)
def test_invalid_requests_are_refused(server, fields, param, words):
    assert_refused(server, chat_body(**fields), param, words)


def test_the_invalid_cases_differ_from_valid_ones_only_in_the_fault(server):
    """Each refused request, fixed, is accepted: the rule under test is what refuses it."""
    fixed = [
        chat_body(messages=[USER, CALLS, tool_answer("call_a"), tool_answer("call_b")]),
        chat_body(tools=[TOOL_F], tool_choice={"type": "function", "function": {"name": "f"}}),
        chat_body(tools=[TOOL_F], parallel_tool_calls=False, tool_choice="required"),
        chat_body(tools=[{"type": "function", "function": {"name": "look_up-" + "f" * 56}}]),
        chat_body(response_format={"type": "json_object"}, messages=[{**USER, "content": "JSON"}]),
        chat_body(temperature=0.2, max_tokens=1, stop=list("abcd")),
        chat_body(stream=True, stream_options={"include_usage": True}),
        chat_body(messages=[{"role": "developer", "content": "hi"}, {**USER, "name": "Ana_S"}]),
    ]
    for body in fixed:
        status, answer = post(server, "/chat/completions", body)
        assert status == 200, (body, answer)


@pytest.mark.parametrize(
    ("schema", "words"), [c[1:] for c in STRICT_INVALID], ids=[c[0] for c in STRICT_INVALID]
)
def test_strict_schemas_are_validated(server, schema, words):
    error = assert_refused(
        server, chat_body(response_format=strict_format(schema)), "response_format", words
    )
    assert error["error"]["message"].startswith("Invalid schema for response_format 'out': ")
    error = assert_refused(
        server, chat_body(tools=[strict_tool(schema)]), "tools[0].function.parameters", words
    )
    assert error["error"]["message"].startswith("Invalid schema for function 'f': ")
    assert error["error"]["code"] == "invalid_function_parameters"
    # Not strict: not validated that way (a non-object tool root is still refused, as OpenAI does).
    loose = {"type": "json_schema", "json_schema": {"name": "out", "schema": schema}}
    assert post(server, "/chat/completions", chat_body(response_format=loose))[0] == 200
    if schema.get("type") == "object":
        tool = {"type": "function", "function": {"name": "f", "parameters": schema}}
        assert post(server, "/chat/completions", chat_body(tools=[tool]))[0] == 200


def test_valid_strict_schema_is_accepted(server):
    assert strict_schema_error(VALID_STRICT) is None
    assert strict_schema_error(nested(10)) is None
    for body in (
        chat_body(response_format=strict_format(VALID_STRICT)),
        chat_body(tools=[strict_tool(VALID_STRICT)], tool_choice="required"),
    ):
        status, answer = post(server, "/chat/completions", body)
        assert status == 200, answer
    status, answer = post(
        server, "/chat/completions", chat_body(response_format=strict_format(VALID_STRICT))
    )
    content = json.loads(answer["choices"][0]["message"]["content"])
    assert set(content) == set(VALID_STRICT["properties"])  # strict: every key present


def test_pydantic_models_openai_accepts_are_accepted(server):
    """What langchain-openai and the openai client send for pydantic models passes."""
    llm, before = chat(server), server.stats["rejected_requests"]
    for schema in (Person, Profile):
        assert llm.with_structured_output(schema, method="json_schema").invoke(INTRO)
        assert llm.with_structured_output(schema, strict=True).invoke(INTRO)
        assert llm.bind_tools([schema, search_memory], strict=True).invoke(INTRO) is not None
    assert server.stats["rejected_requests"] == before


@pytest.mark.filterwarnings("ignore:Invalid schema for OpenAI's structured output")
def test_chatopenai_surfaces_the_refusal(server):
    before = server.stats["rejected_requests"]
    # OpenAI refuses dict[str, int] in strict mode (additionalProperties is a schema).
    with pytest.raises(openai.BadRequestError, match="'additionalProperties' is required"):
        chat(server).with_structured_output(Scores, method="json_schema").invoke(INTRO)
    called = OFFLINE.bind_tools([search_memory], tool_choice="search_memory").invoke(MEMORY_TURN)
    dangling = [*MEMORY_TURN, called]
    with pytest.raises(openai.BadRequestError, match="did not have response messages"):
        chat(server).bind_tools([search_memory]).invoke(dangling)
    stats = server.stats
    assert stats["rejected_requests"] == before + 2
    assert "did not have response messages" in stats["rejections"][-1]["message"]


def test_other_paths_and_auth(server):
    status, error = post(server, "/completions", {"model": "m", "prompt": "hi"})
    assert status == 404 and error["error"]["message"] == "Invalid URL (POST /v1/completions)"
    assert error["error"]["type"] == "invalid_request_error"
    status, error = post(server, "/chat/completions", chat_body(), auth=False)
    assert status == 401 and "API key" in error["error"]["message"]
    status, error = post(server, "/chat/completions", b"{not json")
    assert status == 400 and "could not parse the JSON body" in error["error"]["message"]
    request = urllib.request.Request(server.base_url + "/models", headers={"Authorization": "B x"})
    request.add_header("Authorization", "Bearer x")
    with urllib.request.urlopen(request, timeout=10) as response:
        models = json.loads(response.read())
    assert models["object"] == "list" and {"id", "object"} <= set(models["data"][0])


def test_stats_count_requests(server):
    before = server.stats
    reply = chat(server, model="counted-model").invoke(INTRO)
    post(server, "/embeddings", {"model": "counted-embedder", "input": ["a b", "c d"]})
    post(server, "/chat/completions", chat_body(model=None))
    after = server.stats
    assert after["chat_requests"] == before["chat_requests"] + 1
    assert after["embedding_requests"] == before["embedding_requests"] + 1
    assert after["embedded_texts"] == before["embedded_texts"] + 2
    assert after["rejected_requests"] == before["rejected_requests"] + 1
    assert after["rejections"][-1]["message"] == "you must provide a model parameter"
    assert after["models"]["counted-model"] == 1 and after["models"]["counted-embedder"] == 1
    assert sum(after["skills"].values()) == after["chat_requests"]
    usage = reply.usage_metadata
    assert after["prompt_tokens"] - before["prompt_tokens"] == usage["input_tokens"] > 0
    assert after["completion_tokens"] - before["completion_tokens"] == usage["output_tokens"] > 0


def test_server_lifecycle_and_arguments():
    with pytest.raises(ValueError, match="'loud'"):
        OpenAICompatibleServer(mode="loud")
    with pytest.raises(ValueError, match="70000"):
        OpenAICompatibleServer(port=70000)
    server = OpenAICompatibleServer().start()
    try:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        with pytest.raises(RuntimeError, match="already running"):
            server.start()
    finally:
        server.stop()
    with pytest.raises(RuntimeError, match="not running"):
        server.base_url  # noqa: B018


def test_cli_prints_the_base_url_and_serves():
    # Started with SIGINT ignored, as under a pytest-xdist worker or nohup (an ignored signal is
    # inherited): Ctrl-C must still stop it.
    proc = subprocess.Popen(
        [sys.executable, "-m", "offline_model.server", "--port", "0", "--mode", "reworded"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        request = urllib.request.Request(
            base_url + "/models", headers={"Authorization": "Bearer x"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["object"] == "list"
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, proc.stderr.read()[-2000:]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_cli_stops_cleanly_on_a_signal_right_after_start_up(sig):
    # The signal lands while the CLI is still printing its URL (the race CI once hit): the
    # handlers are installed before anything else in main, so it exits 0 with no traceback.
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-m", "offline_model.server", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )
        assert proc.stdout.read(1) == "h"  # the first byte of the URL: main is printing
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err[-2000:]
        assert "Traceback" not in err, err[-2000:]


# --------------------------------------------------------------------------------------------
# Reworded mode.

REWORD_CASES = [
    "User works at Globex.",
    "User works at Globex. User lives in Lisbon. User prefers green tea.",
    "Nice to meet you, Ana! Noted: you work at Globex; you live in Lisbon.",
    "I don't know your name yet - you haven't told me.",
    "yes - similarity 0.52 (threshold 0.35), shared terms: refunds, latency.",
    "From what I have in context: the nightly job starts at 02:00 UTC on 2024-05-01 and costs $40.",
    "Steps:\n1. Open `config.yaml`.\n2. Set `timeout_s` to 30.\n3. See https://example.com/a.",
    "User is Priya Raman. User is a data engineer at Northwind Labs, based in Leeds. "
    "Earlier: onboarding, refunds.",
    "Got it - I've saved that to memory.",
    "I have no question to answer.",
    "Monday works for me. English is what User speaks because User lives in Lisbon.",
    "Memory mem_42 at /user/prefs was updated by User. See `store.put()` and https://x.io/a?b=1.",
]


@pytest.mark.parametrize("text", REWORD_CASES)
def test_reword_keeps_facts_and_is_deterministic(text):
    outputs = {reword(text, seed_text=str(seed), user_name="Ana") for seed in range(12)}
    assert len(outputs) >= 3  # varied across seeds
    for out in outputs:
        assert not fact_tokens(text) - fact_tokens(out), (text, out)
        assert reword(out) == reword(out)
    assert reword(text) == reword(text)
    assert reword(text) != text


def test_reword_leaves_json_and_code_alone():
    data = '{"content": "User works at Globex.", "tags": ["a b c", "d e f"]}'
    assert reword(data) == data
    text = "User works at Globex. Run `User works at X` in the shell. User lives in Lisbon."
    for seed in range(10):
        assert "`User works at X`" in reword(text, str(seed))


def test_reword_transformations():
    seeds = [str(s) for s in range(30)]
    said = [reword("User works at Globex.", seed_text=s, user_name="Ana Silva") for s in seeds]
    assert any(s.startswith("Ana ") and "Globex" in s for s in said)
    assert any(s.startswith("The user ") for s in said)
    assert any("employed at" in s or "works for" in s for s in said)
    assert all("Ana Silva" not in s for s in said)  # the first name only
    three = "Alpha works at Globex. Beta lives in Lisbon. Gamma prefers tea."
    orders = {tuple(w for w in reword(three, s).split() if w in "Alpha Beta Gamma") for s in seeds}
    assert len(orders) > 1
    verdict = "no - similarity 0.10 (threshold 0.35). The document is about billing. Nothing else."
    assert all(reword(verdict, s).lower().startswith("no - similarity 0.10") for s in seeds)
    assert any(reword(INTRO[0].content, s).endswith(("help.", "else.")) for s in seeds)
    summary = "User is Priya. User works at Globex. User lives in Leeds. User prefers tea."
    n = len(summary.split())
    assert any(len(reword(summary, s).split()) > n for s in seeds)  # "The user", a polite line
    budgeted = {reword(summary, s, polite=False, max_words=n) for s in seeds}
    assert len(budgeted) > 3 and all(len(b.split()) <= n for b in budgeted)
    items = "Plan:\n- buy milk today\n- call Bob at 5\n- book the Lisbon flight"
    reordered = {reword(items, s) for s in seeds}
    assert any(
        r.splitlines()[1:] != items.splitlines()[1:] and "- call Bob at 5" in r for r in reordered
    )
    for r in reordered:
        lines = [ln.rstrip(".") for ln in r.lower().splitlines()[1:4]]
        assert sorted(lines) == sorted(items.lower().splitlines()[1:]), r


@pytest.mark.parametrize(
    "label", ["yes", "no", "Ana", "relevant", "not_relevant", "Lisbon, Portugal"]
)
def test_short_replies_keep_their_words(label):
    for seed in range(20):
        out = reword(label, seed_text=str(seed))
        assert out.rstrip(".").lower() == label.rstrip(".").lower()
        if label[0].isupper() or "_" in label:  # names and identifiers keep their casing
            assert out.rstrip(".") == label


def test_reword_args_touches_only_free_text():
    schema = {
        "type": "object",
        "properties": {
            "content": {"type": "string"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "id": {"type": "string"},
            "memory_id": {"type": "string"},
            "namespace": {"type": "string"},
            "action": {"type": "string", "enum": ["create", "update"]},
            "when": {"type": "string", "format": "date"},
            "code": {"type": "string", "pattern": "^[A-Z]+$"},
            "count": {"type": "integer"},
            "ok": {"type": "boolean"},
            "topics": {"type": "array", "items": {"type": "string"}},
            "patches": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "op": {"type": "string"},
                        "path": {"type": "string"},
                        "value": {},
                    },
                },
            },
        },
    }
    args = {
        "content": "User works at Globex as a data engineer.",
        "note": "User lives in Lisbon with two cats.",
        "id": "memory about the user",
        "memory_id": "a b c d",
        "namespace": "memories for user one",
        "action": "create",
        "when": "next friday at noon",
        "code": "NOT A CODE AT ALL",
        "count": 3,
        "ok": True,
        "topics": ["green tea in the morning", "hiking on weekends", "data pipelines at work"],
        "patches": [{"op": "replace", "path": "/employer", "value": "User works at Initech now."}],
    }
    results = [reword_args(args, schema, seed_text=str(s), user_name="Ana") for s in range(12)]
    assert results[0] == reword_args(args, schema, seed_text="0", user_name="Ana")
    untouched = ["id", "memory_id", "namespace", "action", "when", "code", "count", "ok", "patches"]
    for r in results:
        assert {k: r[k] for k in untouched} == {k: args[k] for k in untouched}
        assert sorted(t.lower().rstrip(".") for t in r["topics"]) == sorted(args["topics"])
        assert "Globex" in r["content"] and "Lisbon" in r["note"]
    assert any(r["content"] != args["content"] for r in results)
    assert any(r["topics"] != args["topics"] for r in results)
    assert reword_args(args, None) == args  # no schema: nothing is free text


def test_reworded_server(reworded_server):
    llm = chat(reworded_server)
    first, again = llm.invoke(INTRO), llm.invoke(INTRO)
    offline = OFFLINE.invoke(INTRO)
    assert first.content == again.content != offline.content
    assert not fact_tokens(offline.content) - fact_tokens(first.content)
    assert first.usage_metadata["input_tokens"] == offline.usage_metadata["input_tokens"]
    tools = [search_memory, manage_memory]
    a = llm.bind_tools(tools, tool_choice="manage_memory").invoke(MEMORY_TURN)
    b = OFFLINE.bind_tools(tools, tool_choice="manage_memory").invoke(MEMORY_TURN)
    assert [(c["name"], c["id"], c["args"]["action"]) for c in a.tool_calls] == [
        (c["name"], c["id"], c["args"]["action"]) for c in b.tool_calls
    ]
    for ca, cb in zip(a.tool_calls, b.tool_calls, strict=True):
        assert not fact_tokens(cb["args"]["content"]) - fact_tokens(ca["args"]["content"])
    summarize = [*INTRO, AIMessage("Nice to meet you!"), HumanMessage("Summarize this chat.")]
    summary = chat(reworded_server, max_tokens=20).invoke(summarize).content
    assert len(summary.split()) <= 15 and "Globex" in summary  # the budget holds
    for method in ("json_schema", "function_calling"):
        person = llm.with_structured_output(Person, method=method).invoke(INTRO)
        assert (person.name, person.employer, person.location) == ("Ana", "Globex", "Lisbon")
