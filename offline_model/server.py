"""A local OpenAI-compatible HTTP server that answers with memlib's offline models.

Provides `OpenAICompatibleServer` (stdlib `ThreadingHTTPServer`, bound to 127.0.0.1 only) with
`POST /v1/chat/completions` (OfflineChatModel: tools, tool_choice, response_format json_schema /
json_object, max_tokens, stop, streaming with SSE chunks and a usage chunk), `POST /v1/embeddings`
(384-d MiniLM vectors, float or base64, token-id input decoded with cl100k_base) and
`GET /v1/models`. It lets langchain-openai's real `ChatOpenAI` / `OpenAIEmbeddings` run every
notebook offline: `OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 OPENAI_API_KEY=anything`.
Run it with `python -m offline_model.server [--port N] [--mode plain|reworded]`.

Requests are validated as the real API does (HTTP 400 with OpenAI's error body): model, messages,
roles, the tool-call / tool-message pairing, tools, tool_choice, parallel_tool_calls,
response_format, unknown parameters, prompts over the 128,000-token context window
(`context_length_exceeded`), and strict schemas (structured outputs' supported subset:
object root, `additionalProperties: false` and every property required in every object, supported
keywords and formats, at most 10 levels of nesting and 5000 properties). `server.stats` counts
chat and embedding requests, rejections (with their messages), models and offline skills.

Modes: "plain" returns what OfflineChatModel returns (content, tool calls and their ids, token
usage), except where the wire format forces a difference: with parallel_tool_calls=false only the
first call is returned; a strict schema lists every property as required, so the server reads a
nullable, defaulted or list property as optional (as in the model it came from) and returns null
or an empty value for one the offline model left out; response_format json_schema answers with
the JSON as content; a tool message gets the name of the call it answers (the wire format drops
it). "reworded" stands in for the variety of real models: `reword` rephrases free text
(synonyms, "User works at" -> "Ana works at", sentence and list order, casing, punctuation, a
polite extra sentence) deterministically, seeded by a hash of the text, keeping every name,
number and identifier; `reword_args` does the same inside tool arguments and structured output,
only where the JSON schema says a value is free text.

Leaves out: authentication beyond requiring a bearer token, the Responses API, the legacy
`functions` / `function_call` parameters, audio and images (non-text content parts are passed on
and ignored), logprobs, and real sampling (temperature, seed and the like are accepted and
ignored: the offline model is deterministic).
"""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import json
import random
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count, groupby
from typing import Any

import numpy as np

from offline_model.model import ContextWindowExceeded, OfflineChatModel, token_usage
from offline_model.rules import STOPWORDS
from offline_model.skills import user_facts
from offline_model.text import content_text, embed
from offline_model.tools import _nullable, _ref_target, _resolve, empty_value

HOST = "127.0.0.1"
MODES = ("plain", "reworded")
ROLES = ("system", "assistant", "user", "function", "tool", "developer")
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")  # function and schema names
MESSAGE_NAME_PATTERN = re.compile(r"^[^\s<|\\/>]+$")  # a message's name: no spaces, <, |, \, / or >
MAX_NAME_LENGTH = 64
MAX_STOP_SEQUENCES = 4
STRICT_MAX_DEPTH = 10
# Structured outputs' totals per schema: (what is counted, limit, how the error names it).
STRICT_LIMITS = (
    ("properties", 5000, "schema has {} object properties"),
    ("enum", 1000, "schema has {} enum values"),
    (
        "chars",
        120_000,
        "property names, definition names, enum and const values total {} characters",
    ),
)
STRICT_KEYWORDS = frozenset(
    """type properties required additionalProperties items enum const anyOf $ref $defs definitions
    description title default examples $comment $schema $id pattern format minimum maximum
    exclusiveMinimum exclusiveMaximum multipleOf minItems maxItems minLength maxLength""".split()
)
STRICT_FORMATS = frozenset("date-time time date duration email hostname ipv4 ipv6 uuid".split())
CHAT_PARAMETERS = frozenset(
    """model messages tools tool_choice parallel_tool_calls response_format max_tokens
    max_completion_tokens stop stream stream_options n temperature top_p presence_penalty
    frequency_penalty logit_bias logprobs top_logprobs seed user store metadata service_tier
    reasoning_effort verbosity modalities audio prediction prompt_cache_key safety_identifier
    prompt_cache_retention web_search_options functions function_call""".split()
)
EMBEDDING_PARAMETERS = frozenset("model input encoding_format dimensions user".split())
EMBEDDING_ENCODING = "cl100k_base"  # the text-embedding-3 models' tokenizer
# server.stats' counters, each starting at 0 (rejections, models and skills are kept besides).
COUNTERS = """chat_requests streamed_requests prompt_tokens completion_tokens embedding_requests
embedded_texts rejected_requests"""
STREAM_ARGUMENT_CHARS = 24  # tool-call arguments are streamed in pieces of this many characters


@dataclass(eq=False)
class APIError(Exception):
    """An error answered with OpenAI's error body."""

    message: str
    param: str | None = None
    code: str | None = None
    status: int = 400
    kind: str = "invalid_request_error"

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def body(self) -> dict:
        """OpenAI's error body: {"error": {"message", "type", "param", "code"}}."""
        error = {"message": self.message, "type": self.kind, "param": self.param}
        return {"error": {**error, "code": self.code}}


def _invalid_value(value: Any, supported: tuple, param: str) -> APIError:
    """OpenAI's "Invalid value: 'x'. Supported values are: ..." error."""
    names = [f"'{s}'" for s in supported]
    listed = ", ".join(names[:-1]) + f", and {names[-1]}" if len(names) > 2 else " and ".join(names)
    return APIError(
        f"Invalid value: {value!r}. Supported values are: {listed}.", param, "invalid_value"
    )


def _check_array(value: Any, param: str) -> None:
    """A non-empty array, as OpenAI requires of messages and tools."""
    _expect(value, list, param, "an array")
    if not value:
        raise APIError(
            f"Invalid '{param}': empty array. Expected an array with minimum length 1, but got "
            "an empty array instead.",
            param,
            "empty_array",
        )


def _needs_tools(param: str) -> APIError:
    return APIError(
        f"Invalid value for '{param}': '{param}' is only allowed when 'tools' are specified.", param
    )


def _missing(param: str) -> APIError:
    """OpenAI's "Missing required parameter" error."""
    return APIError(f"Missing required parameter: '{param}'.", param, "missing_required_parameter")


def _wrong_type(param: str, expected: str, value: Any) -> APIError:
    """OpenAI's "Invalid type" error, naming the type that was sent."""
    got = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else f"a {type(value).__name__}"
    )
    return APIError(
        f"Invalid type for '{param}': expected {expected}, but got {got} instead.",
        param,
        "invalid_type",
    )


def _expect(value: Any, kind: type, param: str, expected: str) -> None:
    """OpenAI's "Invalid type" error unless `value` is of `kind`."""
    if not isinstance(value, kind):
        raise _wrong_type(param, expected, value)


def _check_name(name: Any, param: str, pattern: re.Pattern = NAME_PATTERN) -> None:
    """A name matching `pattern`; a function or schema name (^[a-zA-Z0-9_-]+$) has at most 64
    characters."""
    _expect(name, str, param, "a string")
    if pattern is NAME_PATTERN and len(name) > MAX_NAME_LENGTH:
        raise APIError(
            f"Invalid '{param}': string too long. Expected a string with maximum length "
            f"{MAX_NAME_LENGTH}, but got a string with length {len(name)} instead.",
            param,
            "string_above_max_length",
        )
    if not pattern.match(name):
        raise APIError(
            f"Invalid '{param}': string does not match pattern. Expected a string that matches "
            f"the pattern '{pattern.pattern}', got {name!r}.",
            param,
            "invalid_value",
        )


# --------------------------------------------------------------------------------------------
# Strict schemas (structured outputs' supported subset of JSON Schema).


def _types(node: dict) -> list:
    kind = node.get("type")
    return kind if isinstance(kind, list) else [kind] if kind is not None else []


def strict_schema_error(schema: Any) -> str | None:
    """The first reason OpenAI's structured outputs would reject `schema` as strict, or None."""
    if not isinstance(schema, dict):
        return f"schema must be a JSON Schema object, got {type(schema).__name__}."
    if "anyOf" in schema or _types(schema) != ["object"]:
        got = "anyOf" if "anyOf" in schema else schema.get("type")
        return f"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{got}\"'."
    totals = Counter()
    if error := _strict_node_error(schema, (), 0, schema, totals):
        return error
    for key, limit, what in STRICT_LIMITS:
        if totals[key] > limit:
            return f"{what.format(totals[key])}, more than the limit of {limit}."
    return None


def _strict_node_error(
    node: Any, ctx: tuple, depth: int, root: dict, totals: Counter
) -> str | None:
    """The first strict-mode rule `node` (or a schema under it) breaks; counts into `totals`."""
    if not isinstance(node, dict):
        return f"In context={ctx}, schema must be an object, got {node!r}."
    for key in node:
        if key not in STRICT_KEYWORDS:
            return f"In context={ctx}, '{key}' is not permitted."
    if not ({"type", "anyOf", "$ref", "enum", "const"} & set(node)):
        return f"In context={ctx}, schema must have a 'type' key."
    ref = node.get("$ref")
    if ref is not None and not (
        isinstance(ref, str) and (ref == "#" or _ref_target(root, ref) is not None)
    ):
        return f"In context={ctx}, reference {ref!r} does not point into the schema."
    fmt = node.get("format")
    if fmt is not None and fmt not in STRICT_FORMATS:
        return f"In context={ctx}, {fmt!r} is not a valid format."
    if isinstance(node.get("enum"), list):
        totals["enum"] += len(node["enum"])
        totals["chars"] += sum(len(str(v)) for v in node["enum"])
    if "const" in node:
        totals["chars"] += len(str(node["const"]))
    for defs_key in ("$defs", "definitions"):
        defs = node.get(defs_key)
        if defs is not None:
            if not isinstance(defs, dict):
                return f"In context={ctx}, '{defs_key}' must be an object."
            for name, sub in defs.items():
                totals["chars"] += len(name)
                if error := _strict_node_error(sub, (*ctx, defs_key, name), depth, root, totals):
                    return error
    if "object" in _types(node) or "properties" in node:
        if error := _strict_object_error(node, ctx, depth, root, totals):
            return error
    if "items" in node:
        if error := _strict_node_error(node["items"], (*ctx, "items"), depth, root, totals):
            return error
    for i, branch in enumerate(node.get("anyOf") or []):
        if error := _strict_node_error(branch, (*ctx, "anyOf", str(i)), depth, root, totals):
            return error
    return None


def _strict_object_error(
    node: dict, ctx: tuple, depth: int, root: dict, totals: Counter
) -> str | None:
    """An object's strict-mode rules: closed, every property required, nesting within the limit."""
    if node.get("additionalProperties") is not False:
        return (
            f"In context={ctx}, 'additionalProperties' is required to be supplied and to be false."
        )
    properties = node.get("properties") or {}
    required = node.get("required") or []
    if missing := [p for p in properties if p not in required]:
        return (
            f"In context={ctx}, 'required' is required to be supplied and to be an array "
            f"including every key in properties. Missing '{missing[0]}'."
        )
    if extra := [r for r in required if r not in properties]:
        return f"In context={ctx}, 'required' names {extra[0]!r}, not in 'properties'."
    if properties and depth + 1 > STRICT_MAX_DEPTH:
        return (
            f"In context={ctx}, object nesting depth {depth + 1} exceeds the limit of "
            f"{STRICT_MAX_DEPTH} levels."
        )
    for name, sub in properties.items():
        totals["properties"] += 1
        totals["chars"] += len(name)
        if error := _strict_node_error(sub, (*ctx, "properties", name), depth + 1, root, totals):
            return error
    return None


def _relaxed(schema: dict) -> dict:
    """A strict schema as the offline model should read it: likely-optional properties optional."""
    # So the offline model leaves them out, as it does when given the original (non-strict) model.
    # Likely optional: nullable (strict mode's spelling of Optional), with a default, or a list
    # (pydantic lists mostly default to empty).
    schema = copy.deepcopy(schema)

    def optional(spec: Any) -> bool:
        resolved = _resolve(spec, schema)
        return _nullable(spec, schema) or "default" in resolved or _types(resolved) == ["array"]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict) and isinstance(node.get("required"), list):
                node["required"] = [r for r in node["required"] if not optional(props.get(r))]
            node = list(node.values())
        for value in node if isinstance(node, list) else []:
            walk(value)

    walk(schema)
    return schema


def _complete(value: Any, spec: Any, root: dict) -> Any:
    """Arguments with every required property of a strict schema present, as OpenAI guarantees."""
    # A nullable property the offline model left out is null; any other gets its default or an empty
    # value of its type.
    spec = _resolve(spec, root)
    if isinstance(value, dict) and isinstance(spec.get("properties"), dict):
        out = {}
        for name, sub in spec["properties"].items():
            if name in value:
                out[name] = _complete(value[name], sub, root)
            elif name in (spec.get("required") or []):
                out[name] = None if _nullable(sub, root) else empty_value(sub, root)
        out.update({k: v for k, v in value.items() if k not in out})
        return out
    if isinstance(value, list) and isinstance(spec.get("items"), dict):
        return [_complete(v, spec["items"], root) for v in value]
    return value


# --------------------------------------------------------------------------------------------
# Request validation.


def _check_body(body: dict, known: frozenset) -> None:
    """Both endpoints refuse unknown parameters and need a model."""
    for key in body:
        if key not in known:
            raise APIError(f"Unrecognized request argument supplied: {key}", key)
    if not body.get("model"):
        raise APIError("you must provide a model parameter")


def _content_ok(content: Any, param: str, allow_none: bool) -> None:
    """Message content: a string or a list of content parts (each an object with a type)."""
    if content is None and not allow_none:
        raise _missing(param)
    if content is None or isinstance(content, str):
        return
    _expect(content, list, param, "one of a string or array of objects")
    for j, part in enumerate(content):
        if not isinstance(part, dict) or "type" not in part:
            raise _missing(f"{param}[{j}].type")
        if part["type"] == "text" and not isinstance(part.get("text"), str):
            raise _wrong_type(f"{param}[{j}].text", "a string", part.get("text"))


def validate_openai_messages(messages: Any) -> None:
    """OpenAI's checks on `messages`: roles, content, tool-call / tool-message pairing."""
    # Every assistant message with tool_calls must be followed by tool messages answering each id,
    # in the order of the calls; a tool message must answer a call of the assistant message before
    # it.
    if messages is None:
        raise _missing("messages")
    _check_array(messages, "messages")
    pending: list[str] | None = None  # ids still to answer, in call order ([]: all answered)
    calls_at = -1  # index of the assistant message whose calls are being answered
    for i, m in enumerate(messages):
        role = _message_role(i, m)
        if role == "tool":
            _check_tool_answer(messages, i, pending, calls_at)
            pending.pop(0)
            continue
        if pending:
            raise _unanswered(pending, calls_at)
        pending = None
        if role == "function" and not isinstance(m.get("name"), str):
            raise _missing(f"messages[{i}].name")
        ids = _tool_call_ids(i, m.get("tool_calls") if role == "assistant" else None)
        if ids:
            pending, calls_at = ids, i
    if pending:
        raise _unanswered(pending, calls_at)


def _unanswered(pending: list[str], calls_at: int) -> APIError:
    return APIError(
        "An assistant message with 'tool_calls' must be followed by tool messages "
        "responding to each 'tool_call_id'. The following tool_call_ids did not have "
        f"response messages: {', '.join(pending)}",
        f"messages.[{calls_at}].role",
    )


def _message_role(i: int, m: Any) -> str:
    """The role of messages[i], once its role, content and name are ones OpenAI accepts."""
    _expect(m, dict, f"messages[{i}]", "an object")
    role = m.get("role")
    if role is None:
        raise _missing(f"messages[{i}].role")
    if role not in ROLES:
        raise _invalid_value(role, ROLES, f"messages[{i}].role")
    _content_ok(
        m.get("content"),
        f"messages[{i}].content",
        allow_none=role == "assistant" and ("tool_calls" in m or "function_call" in m),
    )
    if m.get("name") is not None:
        _check_name(m["name"], f"messages[{i}].name", MESSAGE_NAME_PATTERN)
    return role


def _check_tool_answer(messages: list, i: int, pending: list[str] | None, calls_at: int) -> None:
    """Whether tool message i answers the next call still `pending` from messages[calls_at]."""
    if pending is None:
        raise APIError(
            "Invalid parameter: messages with role 'tool' must be a response to a "
            "preceeding message with 'tool_calls'.",
            f"messages.[{i}].role",
        )
    call_id = messages[i].get("tool_call_id")
    if call_id is None:
        raise _missing(f"messages[{i}].tool_call_id")
    if pending and call_id == pending[0]:
        return
    made = [c.get("id") for c in messages[calls_at].get("tool_calls") or []]
    if call_id not in made:
        why = f"has tool_call_id {call_id!r}, which is not among the tool calls of "
        why += f"messages[{calls_at}]: {made}"
    elif pending and call_id in pending:
        why = f"answers tool_call_id {call_id!r} before {pending[0]!r}; tool messages must answer "
        why += f"the tool calls of messages[{calls_at}] in the order they were made"
    else:
        why = f"answers tool_call_id {call_id!r} a second time"
    raise APIError(f"Invalid parameter: messages[{i}] {why}.", f"messages.[{i}].tool_call_id")


def _tool_call_ids(i: int, tool_calls: Any) -> list[str]:
    """The ids of messages[i]'s tool calls, once each call is one OpenAI accepts."""
    if tool_calls is None:
        return []
    _expect(tool_calls, list, f"messages[{i}].tool_calls", "an array")
    ids = []
    for j, call in enumerate(tool_calls):
        where = f"messages[{i}].tool_calls[{j}]"
        _expect(call, dict, where, "an object")
        if not isinstance(call.get("id"), str):
            raise _missing(f"{where}.id")
        if call.get("type", "function") != "function":
            raise _invalid_value(call.get("type"), ("function",), f"{where}.type")
        fn = call.get("function")
        if not isinstance(fn, dict):
            raise _missing(f"{where}.function")
        for key in ("name", "arguments"):
            if not isinstance(fn.get(key), str):
                raise _missing(f"{where}.function.{key}")
        ids.append(call["id"])
    return ids


def validate_tools(tools: Any) -> None:
    """OpenAI's checks on `tools`: valid unique function names, strict parameters."""
    _check_array(tools, "tools")
    seen: dict[str, int] = {}
    for i, t in enumerate(tools):
        _expect(t, dict, f"tools[{i}]", "an object")
        if t.get("type") != "function":
            raise _invalid_value(t.get("type"), ("function",), f"tools[{i}].type")
        fn = t.get("function")
        if not isinstance(fn, dict):
            raise _missing(f"tools[{i}].function")
        if "name" not in fn:
            raise _missing(f"tools[{i}].function.name")
        name = fn["name"]
        _check_name(name, f"tools[{i}].function.name")
        if name in seen:
            raise APIError(
                f"Invalid 'tools': function name {name!r} is used by tools[{seen[name]}] and "
                f"tools[{i}]; function names must be unique.",
                f"tools[{i}].function.name",
            )
        seen[name] = i
        params = fn.get("parameters")
        param = f"tools[{i}].function.parameters"
        if params is not None:
            _expect(params, dict, param, "an object")
        # Any parameters must be an object; strict ones also structured outputs' subset.
        error = strict_schema_error(params or {}) if fn.get("strict") is True else None
        if (kind := (params or {}).get("type", "object")) != "object":
            error = f"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{kind}\"'."
        if error:
            code = "invalid_function_parameters"
            raise APIError(f"Invalid schema for function {name!r}: {error}", param, code)


def validate_tool_choice(tool_choice: Any, tools: list | None) -> None:
    """tool_choice needs tools; a string is none / auto / required; an object names a tool."""
    if tools is None:
        raise _needs_tools("tool_choice")
    if isinstance(tool_choice, str):
        if tool_choice not in ("none", "auto", "required"):
            raise _invalid_value(tool_choice, ("none", "auto", "required"), "tool_choice")
        return
    _expect(tool_choice, dict, "tool_choice", "one of a string or an object")
    if tool_choice.get("type") != "function":
        raise _invalid_value(tool_choice.get("type"), ("function",), "tool_choice.type")
    fn = tool_choice.get("function")
    if not isinstance(fn, dict) or "name" not in fn:
        raise _missing("tool_choice.function.name")
    names = [t["function"]["name"] for t in tools]
    if fn["name"] not in names:
        raise APIError(
            f"Invalid value for 'tool_choice': function {fn['name']!r} is not among the tools "
            f"{names}.",
            "tool_choice.function.name",
        )


def validate_response_format(response_format: Any) -> dict:
    """OpenAI's checks on `response_format` (type, json_schema name, strict schema); returns it."""
    _expect(response_format, dict, "response_format", "an object")
    kind = response_format.get("type")
    if kind is None:
        raise _missing("response_format.type")
    if kind not in ("text", "json_object", "json_schema"):
        raise _invalid_value(kind, ("text", "json_object", "json_schema"), "response_format.type")
    if kind != "json_schema":
        return response_format
    spec = response_format.get("json_schema")
    if spec is None:
        raise _missing("response_format.json_schema")
    _expect(spec, dict, "response_format.json_schema", "an object")
    if "name" not in spec:
        raise _missing("response_format.json_schema.name")
    _check_name(spec["name"], "response_format.json_schema.name")
    schema = spec.get("schema")
    if schema is not None and not isinstance(schema, dict):
        raise _wrong_type("response_format.json_schema.schema", "an object", schema)
    if spec.get("strict") is True and (error := strict_schema_error(schema or {})):
        raise APIError(
            f"Invalid schema for response_format {spec['name']!r}: {error}", "response_format"
        )
    return response_format


def validate_chat(body: dict) -> None:
    """Every check the chat completions endpoint makes before calling the model."""
    _check_body(body, CHAT_PARAMETERS)
    _expect(body["model"], str, "model", "a string")
    for legacy in ("functions", "function_call"):
        if legacy in body:
            raise APIError(
                f"'{legacy}' is deprecated and not served by this offline server; use 'tools' "
                "and 'tool_choice'.",
                legacy,
            )
    validate_openai_messages(body.get("messages"))
    tools = body.get("tools")
    if tools is not None:
        validate_tools(tools)
    if "tool_choice" in body:
        validate_tool_choice(body["tool_choice"], tools)
    if "parallel_tool_calls" in body:
        if tools is None:
            raise _needs_tools("parallel_tool_calls")
        _expect(body["parallel_tool_calls"], bool, "parallel_tool_calls", "a boolean")
    if body.get("response_format") is not None:
        response_format = validate_response_format(body["response_format"])
        if response_format["type"] == "json_object" and not any(
            "json" in content_text(m.get("content")).lower() for m in body["messages"]
        ):
            raise APIError(
                "'messages' must contain the word 'json' in some form, to use 'response_format' "
                "of type 'json_object'.",
                "messages",
            )
    for key in ("max_tokens", "max_completion_tokens", "n"):  # positive integers
        if isinstance(value := body.get(key), bool) or not isinstance(value, int | None):
            raise _wrong_type(key, "an integer", value)
        if value is not None and value < 1:
            raise APIError(
                f"Invalid '{key}': integer below minimum value. Expected a value >= 1, but got "
                f"{value} instead.",
                key,
                "integer_below_min_value",
            )
    stop = body.get("stop")
    if stop is not None:
        if isinstance(stop, list):
            if len(stop) > MAX_STOP_SEQUENCES:
                raise APIError(
                    f"Invalid 'stop': array too long. Expected an array with maximum length "
                    f"{MAX_STOP_SEQUENCES}, but got an array with length {len(stop)} instead.",
                    "stop",
                    "array_above_max_length",
                )
            if not all(isinstance(s, str) for s in stop):
                raise _wrong_type("stop", "an array of strings", stop)
        elif not isinstance(stop, str):
            raise _wrong_type("stop", "one of a string or array of strings", stop)
    if body.get("stream_options") is not None and not body.get("stream"):
        raise APIError(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            "stream_options",
        )


# --------------------------------------------------------------------------------------------
# OpenAI messages -> langchain messages.


def _lc_content(content: Any) -> str | list:
    """Message content for langchain: a string, or the list of content parts as sent."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return [
        {"type": "text", "text": p["text"]} if p.get("type") == "text" else dict(p) for p in content
    ]


def to_langchain(messages: list[dict]) -> list:
    """OpenAI chat messages as langchain messages (developer -> system)."""
    # A tool message gets the name of the call it answers, as LangGraph's ToolNode, trustcall and
    # LangMem set it (the OpenAI wire format drops it), so token counts match the original messages.
    from langchain_core import messages as lc

    out, names = [], {}
    for m in messages:
        role, content, name = m["role"], _lc_content(m.get("content")), m.get("name")
        if role in ("system", "developer", "user"):
            kind = lc.HumanMessage if role == "user" else lc.SystemMessage
            out.append(kind(content=content, name=name))
        elif role == "assistant":
            calls, invalid = [], []
            for c in m.get("tool_calls") or []:
                fn = c["function"]
                names[c["id"]] = fn["name"]
                try:
                    args = json.loads(fn["arguments"].strip() or "{}")
                except ValueError:
                    args = None
                call = {"name": fn["name"], "id": c["id"]}
                if isinstance(args, dict):
                    calls.append({**call, "args": args, "type": "tool_call"})
                else:
                    error = "arguments are not a JSON object"
                    invalid.append({**call, "args": fn["arguments"], "error": error})
            out.append(
                lc.AIMessage(content, tool_calls=calls, invalid_tool_calls=invalid, name=name)
            )
        elif role == "tool":
            call_id = m["tool_call_id"]
            out.append(lc.ToolMessage(content, tool_call_id=call_id, name=names.get(call_id)))
        else:  # function (legacy)
            out.append(lc.FunctionMessage(content=content if content else "", name=name))
    return out


# --------------------------------------------------------------------------------------------
# Rewording ("reworded" mode).

# (pattern, alternatives): each keeps the meaning for any subject it can take.
SYNONYMS: list[tuple[str, tuple[str, ...]]] = [
    (r"from what i have in context:", ("Based on my context:", "According to my context:")),
    (r"i've saved that to memory", ("I've stored that in memory", "that's now saved in memory")),
    (r"i don't have information about", ("I have no information about",)),
    (r"i don't know", ("I'm not sure", "I do not know")),
    (r"you haven't told me", ("you have not told me", "you haven't mentioned it")),
    (r"nice to meet you", ("Pleased to meet you", "Great to meet you")),
    (r"how can i help\?", ("What can I do for you?", "How can I help you?")),
    (r"you're welcome", ("No problem", "Happy to help")),
    (r"got it", ("Understood", "Okay")),
    (r"noted:", ("Got it:", "Understood:")),
    (r"hello!", ("Hi!", "Hi there!")),
    (r"however,", ("That said,", "Still,")),
    (r"in my context", ("in the context I have",)),
    (r"works at", ("is employed at", "works for")),
    (r"work at", ("work for",)),
    (r"works as", ("is employed as",)),
    (r"lives in", ("is based in", "resides in")),
    (r"live in", ("reside in",)),
    (r"is based in", ("lives in", "is located in")),
    (r"prefers", ("likes", "enjoys")),
    (r"prefer", ("like",)),
    (r"is called", ("goes by", "is named")),
    (r"enjoys", ("likes",)),
    (r"likes", ("enjoys",)),
    (r"wants to", ("would like to",)),
    (r"is learning", ("is studying",)),
    (r"discussed", ("talked about", "covered")),
    (r"asked about", ("enquired about",)),
    (r"because", ("since",)),
    (r"shared terms", ("common terms", "overlapping terms")),
]
# Polite extras, and answer lead-ins above, that memlib's offline model also reads as courtesy
# (so a summary of a reworded chat does not carry them).
POLITE = ("Happy to help.", "Let me know if you need anything else.", "Glad to help.")
VERDICT = re.compile(
    r"(?i)^(?:yes|no|not[ _]relevant|relevant|irrelevant|true|false|correct|incorrect)\b"
)
# A sentence starting with one of these leans on the one before it: they move together.
DEPENDENT = re.compile(
    r"(?i)^(?:it|its|it's|this|that|these|those|they|their|he|she|his|her|also|however|but|and|so"
    r"|then|because|therefore|otherwise|instead|still|both|each|here|there|that said|since)\b",
)
USER_SUBJECT = re.compile(
    r"\bUser(?='s\b| (?:is|was|has|had|can|will|would|does|did|doesn't|didn't|isn't|wasn't"
    r"|[a-z]+s)\b)"
)
_PROTECT = re.compile(
    r"(?s)```.*?```|`[^`\n]*`|(?:https?://|www\.)[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]]"
    r"|[\w.+-]+@[\w-]+\.\w[\w.-]*\w"
    r"|(?<![\w/])/[\w.~-]+(?:/[\w.~-]*)*|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f-]{14,}\b"
    r"|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b",
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z\ue000])")
_LIST_LINE = re.compile(r"^(?P<mark>\s*(?:[-*•]|\d+[.)])\s+)(?P<text>.*\S.*)$")
_FACT = re.compile(r"\ue000\d+\ue001|\d[\d,.:/%-]*\d|\d|[A-Z][\w'’-]*")
_SYNONYM_RE = re.compile(
    "|".join(f"(?P<s{i}>\\b{p}(?!\\w))" for i, (p, _) in enumerate(SYNONYMS)), re.I
)
# Keys whose string values are identifiers, never free text.
ID_KEYS = frozenset(
    """id ids key keys path paths op from name names namespace action kind type url uri href email
    slug code status mode role ref uuid label labels tag tags category categories format language
    lang model version file filename""".split()
)
_ID_SUFFIX = re.compile(r"(?:_id|_ids|Id|Ids|_key|_path|_url|_uri|_name|_type|_kind)$")


# Words that start sentences without naming anything: lower-casing or rewording them loses no
# fact. Weekdays, months, languages and names are not among them.
STARTERS = """user noted understood done nice sure great from based earlier relevant irrelevant true
false correct incorrect none i'm i've i'd i'll it's you're that's there's here's let's don't
can't won't didn't isn't hello hi hey thanks okay ok yes no""".split()


@lru_cache(maxsize=1)
def _common_words() -> frozenset:
    words = set(STOPWORDS) | set(STARTERS)
    for pattern, alternatives in SYNONYMS:
        words |= set(re.findall(r"[a-z']+", pattern))
        for alt in alternatives:
            words |= set(re.findall(r"[a-z']+", alt.lower()))
    for sentence in POLITE:
        words |= set(re.findall(r"[a-z']+", sentence.lower()))
    return frozenset(words)


def _is_common(word: str) -> bool:
    return word.lower().strip(".,;:!?'\"()") in _common_words()


def _rng(*parts: str) -> random.Random:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def fact_tokens(text: str) -> Counter:
    """The tokens rewording must keep: numbers, protected spans and capitalised non-common words."""
    protected, spans = _protect(text)
    out = Counter()
    for m in _FACT.finditer(protected):
        token = m.group(0)
        if token.startswith("\ue000"):
            token = spans[int(token[1:-1])]  # code, a URL, an identifier: as written
        elif token[0].isupper() and _is_common(token):
            continue
        out[token] += 1
    return out


def _protect(text: str) -> tuple[str, list[str]]:
    """`text` with code, URLs, paths and identifiers replaced by placeholders, and the spans."""
    spans, number = _PROTECT.findall(text), count()  # findall: whole matches (no groups)
    return _PROTECT.sub(lambda m: f"\ue000{next(number)}\ue001", text), spans


def _restore(text: str, spans: list[str]) -> str:
    return re.sub(r"\ue000(\d+)\ue001", lambda m: spans[int(m.group(1))], text)


def _at_sentence_start(text: str, index: int) -> bool:
    before = text[:index]
    return not before.strip() or re.search(r"(?:[.!?]\s+|\n\s*)$", before) is not None


def _cased(replacement: str, at_start: bool) -> str:
    """A replacement capitalised at a sentence start, else lower-case ("I" stays "I")."""
    if at_start:
        return replacement[:1].upper() + replacement[1:]
    if re.match(r"I\b", replacement):
        return replacement
    return replacement[:1].lower() + replacement[1:]


def _synonyms(text: str, rng: random.Random) -> str:
    def swap(m: re.Match) -> str:
        i = int(m.lastgroup[1:])
        if rng.random() < 0.25:
            return m.group(0)
        return _cased(rng.choice(SYNONYMS[i][1]), _at_sentence_start(text, m.start()))

    return _SYNONYM_RE.sub(swap, text)


def _user_subject(text: str, rng: random.Random, user_name: str | None) -> str:
    """ "User works at X" -> "Ana works at X" (first name, if not in the sentence) or "The user"."""
    first = user_name.split()[0] if user_name and user_name.split() else None
    use_name = first is not None and rng.random() < 0.7

    def swap(m: re.Match) -> str:
        start = text.rfind(".", 0, m.start())
        end = text.find(".", m.end())
        sentence = text[start + 1 : end if end >= 0 else len(text)]
        if use_name and first not in sentence:
            return first
        return _cased("the user", _at_sentence_start(text, m.start()))

    return USER_SUBJECT.sub(swap, text)


def _reorder_sentences(text: str, rng: random.Random) -> str | None:
    """Another order for a paragraph's sentences (a verdict stays first), or None."""
    # A sentence starting with a pronoun or connective moves with the one before it.
    if "\n" in text.strip():
        return None
    groups: list[list[str]] = []
    for s in filter(None, _SENTENCE_END.split(text.strip())):
        if groups and (DEPENDENT.match(s) or groups[-1][-1].rstrip().endswith(":")):
            groups[-1].append(s)
        else:
            groups.append([s])
    fixed = groups[:1] if groups and VERDICT.match(groups[0][0]) else []
    movable = groups[len(fixed) :]
    if len(movable) < 2:
        return None
    order = list(range(len(movable)))
    while order == sorted(order):
        rng.shuffle(order)
    ended = text.rstrip()[-1:] in ".!?"
    sentences = [" ".join(g).rstrip() for g in fixed + [movable[i] for i in order]]
    out = " ".join(s if s[-1:] in ".!?:" else s + "." for s in sentences)
    if not ended and out.endswith("."):
        out = out[:-1]
    return out


def _reorder_list(text: str, rng: random.Random) -> str | None:
    """List items in another order, markers in place (1, 2, 3 stays 1, 2, 3); None if no list."""
    lines = text.split("\n")
    runs = groupby(range(len(lines)), key=lambda i: _LIST_LINE.match(lines[i]) is not None)
    blocks = [block for listed, run in runs if listed and len(block := list(run)) >= 2]
    if not blocks:
        return None
    for block in blocks:
        items = [_LIST_LINE.match(lines[i]) for i in block]
        order = list(range(len(items)))
        while order == sorted(order):
            rng.shuffle(order)
        for i, k in zip(block, order, strict=True):
            lines[i] = items[block.index(i)].group("mark") + items[k].group("text")
    return "\n".join(lines)


def _toggle_first_case(text: str) -> str | None:
    """Lower-case a common first word, or capitalise a lower-case one; None if neither applies."""
    if not (m := re.match(r"\s*([A-Za-z][\w']*)", text)):
        return None
    word = m.group(1)
    if word[0].islower():
        return text[: m.start(1)] + word[0].upper() + text[m.start(1) + 1 :]
    if word in ("I", "I'm", "I've", "I'd", "I'll") or not _is_common(word):
        return None
    return text[: m.start(1)] + word[0].lower() + text[m.start(1) + 1 :]


def _toggle_period(text: str) -> str | None:
    stripped = text.rstrip()
    if stripped.endswith(".") and not stripped.endswith(".."):
        return stripped[:-1] + text[len(stripped) :]
    if stripped[-1:].isalnum() or stripped.endswith("\ue001"):
        return stripped + "." + text[len(stripped) :]
    return None


def _add_polite(text: str, rng: random.Random) -> str:
    """`text` plus a polite sentence (a new paragraph after multi-line text)."""
    body = text.rstrip()
    if "\n" in body:
        return body + "\n\n" + rng.choice(POLITE)
    return body + ("" if body[-1:] in ".!?" else ".") + " " + rng.choice(POLITE)


def _short(text: str, rng: random.Random, add_period: bool = True) -> str:
    """A reply of 1-3 words: casing (not of names or identifiers) or the final period changes."""
    options = []
    plain = re.fullmatch(r"[A-Za-z' -]+[.!?]?", text.strip()) is not None
    if plain and all(_is_common(w) or w.islower() for w in text.split()):
        options += ["first", "lower"]
        if len(text.split()) == 1 and add_period:  # "YES": only a one-word reply is shouted
            options.append("upper")
    if _toggle_period(text) is not None and (add_period or text.rstrip().endswith(".")):
        options.append("period")
    if not options:
        return text
    out = text
    change = {"first": _toggle_first_case, "period": _toggle_period}
    change |= {"upper": str.upper, "lower": str.lower}
    for choice in rng.sample(options, k=min(len(options), rng.choice((1, 2)))):
        out = change[choice](out) or out
    if out == text and "period" in options:
        out = _toggle_period(text) or text
    return out


def _reword(
    text: str, rng: random.Random, user_name: str | None, polite: bool, max_words: int | None = None
) -> str:
    protected, spans = _protect(text)
    if len(protected.split()) <= 3:
        return _restore(_short(protected, rng, add_period=polite), spans)
    steps: dict[str, Any] = {
        "synonyms": lambda t: _synonyms(t, rng) if _SYNONYM_RE.search(t) else None,
        "user": lambda t: _user_subject(t, rng, user_name) if USER_SUBJECT.search(t) else None,
        "list": lambda t: _reorder_list(t, rng),
        "order": lambda t: _reorder_sentences(t, rng),
        "polite": (lambda t: _add_polite(t, rng)) if polite else (lambda t: None),
        # In arguments a period is only ever dropped: a phrase ("hiking on weekends") stays one.
        "period": _toggle_period
        if polite
        else lambda t: _toggle_period(t) if t.rstrip().endswith(".") else None,
        "case": _toggle_first_case,
    }
    available = [name for name, step in steps.items() if step(protected) is not None]
    # Meaning-carrying rewrites first; the cosmetic ones fill up to two to four changes.
    chosen = {n for n in ("synonyms", "user") if n in available and rng.random() < 0.85}
    rest = [n for n in available if n not in chosen]
    if "case" in rest and rng.random() < 0.7:  # a lower-case first letter is the rarest change
        rest.remove("case")
    want = rng.randint(2, 4)
    chosen |= set(rng.sample(rest, k=max(0, min(len(rest), want - len(chosen)))))
    out = protected
    for name in steps:  # a fixed order: word choice, then structure, then the surface
        if name in chosen:
            out = steps[name](out) or out
    if max_words is not None and len(out.split()) > max(max_words, len(protected.split())):
        out = protected  # over the word budget: only the changes that add no words
        for name in ("list", "order", "period", "case"):
            if name in chosen:
                out = steps[name](out) or out
    if out == protected and steps["period"](protected) is not None:
        out = steps["period"](protected)
    result = _restore(out, spans)
    if fact_tokens(text) - fact_tokens(result):
        # A rewrite lost a name, number or identifier: keep only the surface change.
        return _restore(steps["period"](protected) or protected, spans)
    return result


def reword(
    text: str,
    seed_text: str | None = None,
    user_name: str | None = None,
    *,
    polite: bool = True,
    max_words: int | None = None,
) -> str:
    """`text` said another way, same meaning and facts, deterministically (seeded by a hash)."""
    # Mixes synonyms, "User <verb>" -> "The user" or the user's first name, another sentence or list
    # order, first-letter casing, a polite extra sentence (unless polite=False) and the final
    # period; with max_words, only changes that keep it within that many words (or its own
    # length); a reply of 1-3 words only changes casing or punctuation. The seed is `seed_text`
    # (default: the text). Names, numbers, dates, identifiers, URLs and code are kept as they are.
    if not isinstance(text, str):
        raise TypeError(f"reword needs a str, got {type(text).__name__}: {text!r}")
    if not text.strip() or _is_json(text):
        return text  # JSON in a reply is data: a program will parse it
    rng = _rng("text", seed_text if seed_text is not None else text)
    return _reword(text, rng, user_name, polite=polite, max_words=max_words)


def _is_json(text: str) -> bool:
    stripped = text.strip()
    if stripped[:1] not in "{[":
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


def _free_text(spec: dict, key: str | None) -> bool:
    """Free text: a schema of type string (or string / null) with no enum, const, pattern or
    format, under a key that does not name an identifier (ID_KEYS, *_id, ...)."""
    if key is not None and (key.lower() in ID_KEYS or _ID_SUFFIX.search(key)):
        return False
    kinds = [k for k in _types(spec) if k != "null"]
    return kinds == ["string"] and not ({"enum", "const", "pattern", "format"} & set(spec))


def reword_args(
    args: Any, schema: dict | None, seed_text: str | None = None, user_name: str | None = None
) -> Any:
    """Tool-call arguments or structured output with the free-text values reworded."""
    # Only a string whose schema is a plain `type: string` (no enum / const / pattern / format), of
    # at least 3 words, under a key that is not an identifier (id, key, path, op, name, *_id, ...);
    # arrays of such strings are also reordered. Without a schema nothing is free text.
    if not isinstance(schema, dict):
        return args
    seed = seed_text if seed_text is not None else json.dumps(args, sort_keys=True, default=str)

    def walk(value: Any, spec: Any, key: str | None, path: str) -> Any:
        spec = _resolve(spec, schema)
        if isinstance(value, dict) and isinstance(spec.get("properties"), dict):
            props = spec["properties"]
            return {k: walk(v, props.get(k), k, f"{path}/{k}") for k, v in value.items()}
        if isinstance(value, list) and "array" in _types(spec):
            items = _resolve(spec.get("items"), schema)
            out = [walk(v, items, key, f"{path}/{i}") for i, v in enumerate(value)]
            if len(out) >= 2 and _free_text(items, key) and all(isinstance(v, str) for v in out):
                order = list(range(len(out)))
                rng = _rng("list", seed, path)
                while order == sorted(order) and len(set(out)) > 1:
                    rng.shuffle(order)
                out = [out[i] for i in order]
            return out
        if isinstance(value, str) and _free_text(spec, key) and len(value.split()) >= 3:
            return _reword(value, _rng("arg", seed, path, value), user_name, polite=False)
        return value

    return walk(args, schema, None, "")


# --------------------------------------------------------------------------------------------
# The model call.


_JSON_KEYS = re.compile(r"\bkeys?\b[^.\n]{0,20}?((?:[`'\"]\w+[`'\"](?:\s*(?:,|and|or)\s*)?)+)")


def _json_object_schema(messages: list) -> dict | None:
    """json_object mode, best effort: the keys the prompt names, as string properties, or None."""
    text = "\n".join(content_text(m.content) for m in messages if m.type in ("system", "human"))
    keys: list[str] = []
    for m in _JSON_KEYS.finditer(text):
        keys += re.findall(r"[`'\"](\w+)[`'\"]", m.group(1))
    keys += re.findall(r"\"(\w+)\"\s*:", text)
    if not (keys := list(dict.fromkeys(keys))):
        return None
    return {"type": "object", "properties": {k: {"type": "string"} for k in keys}, "required": keys}


@dataclass
class _Reply:
    """What the offline model answered: text or tool calls, usage, and the skill it used."""

    content: str | None
    tool_calls: list[dict]
    usage: dict  # input_tokens, output_tokens, total_tokens
    skill: str


def run_offline(body: dict, messages: list) -> _Reply:
    """Call OfflineChatModel as the request asks (tools, response_format, max_tokens, stop)."""
    model = OfflineChatModel()
    kwargs: dict = {}
    if budget := body.get("max_completion_tokens") or body.get("max_tokens"):
        kwargs["max_tokens"] = budget
    if (stop := body.get("stop")) is not None:
        kwargs["stop"] = [stop] if isinstance(stop, str) else list(stop)
    tools = body.get("tools")
    response_format = body.get("response_format") or {"type": "text"}

    if tools:
        strict = {fn["name"]: fn for t in tools if (fn := t["function"]).get("strict")}
        planned = [
            {**t, "function": {**fn, "parameters": _relaxed(fn["parameters"])}}
            if (fn := t["function"]).get("strict") and fn.get("parameters")
            else t
            for t in tools
        ]
        bind = {"tool_choice": body["tool_choice"]} if "tool_choice" in body else {}
        message = model.bind_tools(planned, **bind).invoke(messages, **kwargs)
        skill = message.response_metadata.get("skill", "")
        if message.tool_calls:
            calls = [dict(c) for c in message.tool_calls]
            usage = dict(message.usage_metadata)
            if body.get("parallel_tool_calls") is False and len(calls) > 1:
                calls = calls[:1]  # OpenAI then makes at most one call
                usage = token_usage(usage["input_tokens"], None, calls)
            for c in calls:
                fn = strict.get(c["name"])
                if fn and fn.get("parameters"):
                    c["args"] = _complete(c["args"], fn["parameters"], fn["parameters"])
            return _Reply(None, calls, usage, skill)
        if response_format["type"] == "text":
            return _Reply(message.content, [], dict(message.usage_metadata), skill)

    if response_format["type"] in ("json_schema", "json_object"):
        if response_format["type"] == "json_schema":
            spec = response_format["json_schema"]
            schema = spec.get("schema") or {"type": "object", "properties": {}}
            name = spec["name"]
            description = spec.get("description") or schema.get("description") or ""
        else:
            schema, name, description = _json_object_schema(messages), "json_object", ""
        if schema is None:  # json_object with no keys named: the text answer, as JSON
            message = model.invoke(messages, **kwargs)
            content = json.dumps({"response": message.content}, ensure_ascii=False)
            usage = token_usage(message.usage_metadata["input_tokens"], content, [])
            return _Reply(content, [], usage, "json_object")
        strict = bool(response_format.get("json_schema", {}).get("strict"))
        parameters = _relaxed(schema) if strict else schema
        function = {"name": name, "description": description, "parameters": parameters}
        tool = {"type": "function", "function": function}
        kwargs.pop("stop", None)
        message = model.bind_tools([tool], tool_choice="any").invoke(messages, **kwargs)
        args = message.tool_calls[0]["args"] if message.tool_calls else {}
        if strict:
            args = _complete(args, schema, schema)
        content = json.dumps(args, ensure_ascii=False)
        return _Reply(content, [], dict(message.usage_metadata), "structured_output")

    message = model.invoke(messages, **kwargs)
    skill = message.response_metadata.get("skill", "")
    return _Reply(message.content, [], dict(message.usage_metadata), skill)


def reworded_reply(reply: _Reply, body: dict, messages: list) -> _Reply:
    """The reply with its free text reworded ("reworded" mode) and output tokens recounted."""
    # the user's name as the request's own messages state it (the newest statement)
    names = [f.value for f in user_facts(messages) if f.predicate == "name"]
    user_name = names[-1] if names else None
    content, calls = reply.content, reply.tool_calls
    response_format = body.get("response_format") or {}
    if content and not calls:
        if response_format.get("type") == "json_schema":
            schema = response_format["json_schema"].get("schema")
            content = json.dumps(
                reword_args(json.loads(content), schema, user_name=user_name), ensure_ascii=False
            )
        elif response_format.get("type") != "json_object":
            # No extra sentence where the length was asked for (a summary, a token budget).
            budgeted = reply.skill == "summarize" or bool(
                body.get("max_tokens") or body.get("max_completion_tokens")
            )
            words = len(content.split()) if budgeted else None
            content = reword(content, user_name=user_name, polite=not budgeted, max_words=words)
    if calls:
        schemas = {t["function"]["name"]: t["function"].get("parameters") for t in body["tools"]}
        calls = [
            {**c, "args": reword_args(c["args"], schemas.get(c["name"]), user_name=user_name)}
            for c in calls
        ]
    usage = token_usage(reply.usage["input_tokens"], content, calls)
    return _Reply(content, calls, usage, reply.skill)


# --------------------------------------------------------------------------------------------
# Response bodies.


def _openai_usage(usage: dict) -> dict:
    return {
        "prompt_tokens": usage["input_tokens"],
        "completion_tokens": usage["output_tokens"],
        "total_tokens": usage["total_tokens"],
    }


def _openai_calls(calls: list[dict]) -> list[dict]:
    return [
        {
            "id": c["id"],
            "type": "function",
            "function": {"name": c["name"], "arguments": json.dumps(c["args"], ensure_ascii=False)},
        }
        for c in calls
    ]


def _envelope(body: dict, completion_id: str, kind: str) -> dict:
    """The fields a chat.completion body and each chunk start with."""
    fields = {"id": completion_id, "object": kind, "created": int(time.time())}
    return fields | {"model": body["model"], "system_fingerprint": "memlib-offline"}


def completion_body(reply: _Reply, body: dict, completion_id: str) -> dict:
    """A chat.completion body for the reply (n identical choices when n > 1)."""
    message: dict = {
        "role": "assistant",
        "content": reply.content if (reply.content or not reply.tool_calls) else None,
        "refusal": None,
        "annotations": [],
    }
    if reply.tool_calls:
        message["tool_calls"] = _openai_calls(reply.tool_calls)
    finish = "tool_calls" if reply.tool_calls else "stop"
    return {
        **_envelope(body, completion_id, "chat.completion"),
        "choices": [
            {"index": i, "message": message, "logprobs": None, "finish_reason": finish}
            for i in range(body.get("n") or 1)
        ],
        "usage": _openai_usage(reply.usage),
    }


def completion_chunks(reply: _Reply, body: dict, completion_id: str) -> Iterator[dict]:
    """chat.completion.chunk events for the reply, ending with finish_reason (and usage)."""
    # Role first, then content word by word or tool-call deltas (with index; arguments in pieces), a
    # final chunk with finish_reason, and a usage chunk when stream_options.include_usage.
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    base = _envelope(body, completion_id, "chat.completion.chunk")
    if include_usage:
        base["usage"] = None

    def chunk(index: int, delta: dict, finish: str | None = None) -> dict:
        choice = {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**base, "choices": [choice]}

    calls = _openai_calls(reply.tool_calls)
    for n in range(body.get("n") or 1):
        first: dict = {"role": "assistant", "content": "" if not calls else None, "refusal": None}
        yield chunk(n, first)
        for piece in re.findall(r"\s*\S+", reply.content or "") if not calls else []:
            yield chunk(n, {"content": piece})
        for i, call in enumerate(calls):
            head = {"index": i, "id": call["id"], "type": "function"}
            head["function"] = {"name": call["function"]["name"], "arguments": ""}
            yield chunk(n, {"tool_calls": [head]})
            arguments = call["function"]["arguments"]
            for k in range(0, len(arguments), STREAM_ARGUMENT_CHARS):
                piece = arguments[k : k + STREAM_ARGUMENT_CHARS]
                yield chunk(n, {"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
        yield chunk(n, {}, "tool_calls" if calls else "stop")
    if include_usage:
        yield {**base, "choices": [], "usage": _openai_usage(reply.usage)}


# --------------------------------------------------------------------------------------------
# Embeddings.


def _embedding_texts(value: Any) -> list[str]:
    """`input` as texts: a string, strings, or cl100k_base token ids of one or more texts."""
    from memlib.tokens import get_encoding

    def ids_ok(ids: Any) -> bool:
        return (
            isinstance(ids, list)
            and bool(ids)
            and all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in ids)
        )

    if value is None:
        raise _missing("input")
    if isinstance(value, str) or ids_ok(value):
        value = [value]  # one text
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        texts = list(value)
    elif isinstance(value, list) and value and all(ids_ok(v) for v in value):
        encoding = get_encoding(EMBEDDING_ENCODING)
        texts = [encoding.decode(v) for v in value]
    else:
        raise APIError(
            "'$.input' is invalid: expected a non-empty string, array of strings, array of "
            f"token ids or array of token-id arrays, got {json.dumps(value)[:200]}.",
            "input",
        )
    if "" in texts:
        i = texts.index("")
        raise APIError(
            f"'$.input' is invalid: input[{i}] is an empty string; OpenAI rejects empty input.",
            "input",
        )
    return texts


def embeddings_body(body: dict) -> dict:
    """An OpenAI embeddings body: 384-d MiniLM vectors as floats or base64 (little-endian f4)."""
    # `dimensions` below 384 truncates and renormalises, as OpenAI's text-embedding-3 models do.
    from memlib.embeddings import DIMS
    from memlib.tokens import get_encoding

    _check_body(body, EMBEDDING_PARAMETERS)
    texts = _embedding_texts(body.get("input"))
    fmt = body.get("encoding_format") or "float"
    if fmt not in ("float", "base64"):
        raise _invalid_value(fmt, ("float", "base64"), "encoding_format")
    dims = body.get("dimensions")
    if dims is not None and (
        isinstance(dims, bool) or not isinstance(dims, int) or not 1 <= dims <= DIMS
    ):
        raise APIError(
            f"Invalid 'dimensions': {dims!r}; the offline MiniLM model has {DIMS} dimensions, so "
            f"dimensions must be an integer from 1 to {DIMS}.",
            "dimensions",
        )
    vectors = embed(texts).astype(np.float32)
    if dims is not None and dims < DIMS:
        vectors = vectors[:, :dims]
        vectors /= np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
    if fmt == "base64":
        embeddings = [base64.b64encode(v.astype("<f4").tobytes()).decode("ascii") for v in vectors]
    else:
        embeddings = vectors.tolist()  # Python floats
    data = [{"object": "embedding", "index": i, "embedding": e} for i, e in enumerate(embeddings)]
    encoding = get_encoding(EMBEDDING_ENCODING)
    tokens = sum(len(encoding.encode(t, disallowed_special=())) for t in texts)
    return {
        "object": "list",
        "data": data,
        "model": body["model"],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


# --------------------------------------------------------------------------------------------
# HTTP.


class _Handler(BaseHTTPRequestHandler):
    server_version = "memlib-openai/1.0"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # TCP_NODELAY: no 40 ms delayed-ACK stall on each reply
    owner: OpenAICompatibleServer  # set on the per-server subclass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if self.owner.verbose:
            sys.stderr.write(f"{self.address_string()} - {format % args}\n")

    def _send_json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, events: Iterator[dict]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in events:
            self._write_chunk(f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode())
        self._write_chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode("ascii") + data + b"\r\n")
        self.wfile.flush()

    def _fail(self, error: APIError) -> None:
        self.owner._record_rejection(self.path, error)
        self._send_json(error.status, error.body())

    def _read_json(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"null")
        except ValueError as e:
            raise APIError(f"We could not parse the JSON body of your request: {e}.") from e
        if not isinstance(body, dict):
            raise APIError(f"The request body must be a JSON object, got {json.dumps(body)[:100]}.")
        return body

    def _not_found(self) -> None:
        self._fail(APIError(f"Invalid URL ({self.command} {self.path.split('?')[0]})", status=404))

    # (method, path) -> the owner's endpoint, called with the request's JSON body (GET: None)
    routes = {
        ("GET", "/v1/models"): "_models",
        ("POST", "/v1/chat/completions"): "_chat",
        ("POST", "/v1/embeddings"): "_embeddings",
    }

    def do_POST(self) -> None:  # noqa: N802
        """Answer the route: a POST's body read as JSON, then the API key checked, then the
        endpoint called; its errors answered as OpenAI's (a failure of the offline model: 500)."""
        endpoint = self.routes.get((self.command, self.path.split("?")[0].rstrip("/")))
        if endpoint is None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._not_found()
            return
        try:
            body = self._read_json() if self.command == "POST" else None
            if not (self.headers.get("Authorization") or "").startswith("Bearer "):
                raise APIError(
                    "You didn't provide an API key. Set OPENAI_API_KEY to any value for this "
                    "offline server (it accepts every key).",
                    status=401,
                )
            result = getattr(self.owner, endpoint)(body)
        except APIError as e:
            self._fail(e)
            return
        except Exception as e:  # the offline model failed: a server error, like OpenAI's 500
            failure = f"The offline model failed on this request: {type(e).__name__}: {e}"
            self._fail(APIError(failure, status=500, kind="server_error"))
            return
        if isinstance(result, dict):
            self._send_json(200, result)
        else:
            self._send_stream(result)

    do_GET = do_POST
    do_PUT = do_DELETE = do_PATCH = _not_found  # no such routes: OpenAI's 404


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stopping never waits on a client that keeps its connection open

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up early (closing a stream) is not an error worth a traceback."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class OpenAICompatibleServer:
    """A local OpenAI-compatible server over OfflineChatModel and MiniLMEmbeddings, on
    127.0.0.1. Use as a context manager (`with OpenAICompatibleServer(port=0) as server:`), or
    `start()` / `stop()`; `base_url` is "http://127.0.0.1:PORT/v1"; `stats` counts requests.
    mode="plain" answers as OfflineChatModel does, mode="reworded" rewords the answers."""

    def __init__(self, port: int = 0, mode: str = "plain", verbose: bool = False):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ValueError(f"port must be an integer from 0 to 65535, got {port!r}")
        self.mode, self.verbose, self._port = mode, verbose, port
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        # One model call at a time: deterministic, and no races on the models' shared caches.
        self._lock = threading.Lock()
        self._stats_lock = threading.Lock()
        self.reset_stats()

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> OpenAICompatibleServer:
        """Bind 127.0.0.1:port and serve in a daemon thread."""
        if self._httpd is not None:
            raise RuntimeError(f"server already running at {self.base_url}")
        handler = type("Handler", (_Handler,), {"owner": self})
        self._httpd = _HTTPServer((HOST, self._port), handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="memlib-openai-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> OpenAICompatibleServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (the OS's choice when constructed with port=0)."""
        if self._httpd is None:
            raise RuntimeError("server is not running; call start() first")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """The API root, http://127.0.0.1:PORT/v1: OPENAI_BASE_URL or ChatOpenAI(base_url=...)."""
        return f"http://{HOST}:{self.port}/v1"

    # -- counters ------------------------------------------------------------------------------

    def reset_stats(self) -> None:
        """Zero the counters."""
        with self._stats_lock:
            self._stats = dict.fromkeys(COUNTERS.split(), 0)
            self._stats |= {"rejections": [], "models": Counter(), "skills": Counter()}

    @property
    def stats(self) -> dict:
        """A snapshot of the counters."""
        # chat_requests and streamed_requests (answered chat completions), embedding_requests and
        # embedded_texts, rejected_requests and rejections ({"path", "status", "param", "code",
        # "message"} each), models and skills (counts per requested model and per offline skill).
        with self._stats_lock:
            snapshot = copy.deepcopy(self._stats)
        return snapshot | {key: dict(snapshot[key]) for key in ("models", "skills")}

    def _record_rejection(self, path: str, error: APIError) -> None:
        entry = {"path": path, "status": error.status, "param": error.param, "code": error.code}
        with self._stats_lock:
            self._stats["rejected_requests"] += 1
            self._stats["rejections"].append({**entry, "message": error.message})

    # -- endpoints -----------------------------------------------------------------------------

    def _chat(self, body: dict) -> dict | Iterator[dict]:
        validate_chat(body)
        with self._lock:
            messages = to_langchain(body["messages"])
            try:
                reply = run_offline(body, messages)
            except ContextWindowExceeded as e:  # 128,000 tokens, as gpt-4o-mini
                raise APIError(e.message, "messages", e.code) from None
            if self.mode == "reworded":
                reply = reworded_reply(reply, body, messages)
        digest = hashlib.sha1(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()
        completion_id = "chatcmpl-" + digest[:24]
        with self._stats_lock:
            self._stats["chat_requests"] += 1
            self._stats["streamed_requests"] += bool(body.get("stream"))
            self._stats["models"][body["model"]] += 1
            self._stats["skills"][reply.skill or "unknown"] += 1
            self._stats["prompt_tokens"] += reply.usage["input_tokens"]
            self._stats["completion_tokens"] += reply.usage["output_tokens"]
        if body.get("stream"):
            return completion_chunks(reply, body, completion_id)
        return completion_body(reply, body, completion_id)

    def _embeddings(self, body: dict) -> dict:
        with self._lock:
            result = embeddings_body(body)
        with self._stats_lock:
            self._stats["embedding_requests"] += 1
            self._stats["embedded_texts"] += len(result["data"])
            self._stats["models"][body["model"]] += 1
        return result

    def _models(self, body: None = None) -> dict:
        names = ["gpt-4o-mini", "text-embedding-3-small", *self.stats["models"]]
        model = {"object": "model", "created": 0, "owned_by": "memlib-offline"}
        return {"object": "list", "data": [{"id": n, **model} for n in dict.fromkeys(names)]}


def main(argv: list[str] | None = None) -> int:
    """CLI: serve on 127.0.0.1 until Ctrl-C or SIGTERM, printing the base URL first."""
    # Ctrl-C and SIGTERM are caught from the first instruction: a signal that arrives while the
    # server starts or prints its URL only asks it to stop, it never raises in the middle of
    # start-up. The handlers are installed even when the parent ignores SIGINT (an ignored signal
    # is inherited: pytest-xdist workers, nohup, some CI runners).
    stop = threading.Event()
    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        parser = argparse.ArgumentParser(
            prog="python -m offline_model.server",
            description="A local OpenAI-compatible server over memlib's offline chat model and "
            "MiniLM embeddings (127.0.0.1 only).",
        )
        parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
        parser.add_argument("--mode", choices=MODES, default="plain", help="plain or reworded")
        parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
        args = parser.parse_args(argv)
        with OpenAICompatibleServer(port=args.port, mode=args.mode, verbose=args.verbose) as server:
            print(server.base_url, flush=True)
            print(
                f"export OPENAI_BASE_URL={server.base_url} OPENAI_API_KEY=offline"
                f"  # mode: {server.mode}",
                file=sys.stderr,
                flush=True,
            )
            while not stop.wait(0.5):  # a timed wait: signal handlers run between waits
                pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


if __name__ == "__main__":
    sys.exit(main())
