"""OfflineChatModel: a deterministic, rule-based langchain chat model for running the notebooks
with no network, no API key and no model download.

It is not a language model. `_generate` dispatches each request to one skill: tool calls /
structured output (`plan_tool_calls`, offline_model/tools.py), or grade, summarize or answer
(offline_model/skills.py). Token usage is counted with real tiktoken (memlib.tokens).

Leaves out: the skills and rules themselves (skills.py, tools.py, rules.py), free-form reasoning,
world knowledge and any language but English.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.exceptions import ContextOverflowError
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, convert_to_messages
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, Field, field_validator

from offline_model.skills import RELEVANCE_THRESHOLD, SKILLS, Request, classify, grade_with_reason
from offline_model.text import message_text, token_counter
from offline_model.tools import call_id, chosen_name, plan_tool_calls

_class_tool = lru_cache(256)(lambda c: json.dumps(convert_to_openai_tool(c)))  # fixed per class


class OfflineChatModel(BaseChatModel):
    """A deterministic, rule-based chat model (no network, no randomness). Introduced in
    notebooks/01.

    Dispatch: with tools bound, `plan_tool_calls` (offline_model/tools.py) decides first: schema
    fields filled from the facts the rules extract, trustcall's PatchDoc / RemoveDoc /
    PatchFunctionErrors, LangMem's memory tools and prompt optimizers, the agent loop's search /
    update / create policy, tool-call ids hashed from the conversation (stable across runs);
    `with_structured_output` goes through a forced tool call. Otherwise each call is classified
    (`classify`, offline_model/skills.py) as grade (a grading cue plus a labelled query and
    document: "yes"/"no" by MiniLM cosine >= relevance_threshold, or half the query's terms and
    cosine >= threshold - 0.15), summarize (to a word budget from the instruction or a bound
    max_tokens x 0.75, folding in a previous summary) or answer (facts about the user, newest
    statement first; else context sentences by similarity; else "I don't know"). What each
    skill triggers on and the rules it follows: docs/offline_model.md ("Skills at a glance").

    Limits: no world knowledge, no reasoning, English only, extractive (never writes new facts);
    what the rules miss it does not know. usage_metadata counts tokens with real tiktoken
    (o200k_base, OpenAI's chat overhead). `context_window` (default 128,000, gpt-4o-mini's, also
    `profile["max_input_tokens"]`): longer prompts raise `ContextWindowExceeded`, as OpenAI does.
    """

    model_config = ConfigDict(extra="forbid")  # a misspelt setting is an error, not ignored

    model_name: str = "memlib-offline-rules"
    relevance_threshold: float = RELEVANCE_THRESHOLD
    context_window: int = Field(default=128_000, ge=1, strict=True)
    # A stand-in for a model that follows instructions it finds in its context, as small models
    # often do (off by default; notebook 10): a system-message line that orders the reply
    # ("Answer every question with 'X'") is obeyed, whoever wrote it; a quoted line is data.
    obeys_context: bool = Field(default=False, strict=True)

    def _resolve_model_profile(self) -> dict:
        return {"max_input_tokens": self.context_window}

    @field_validator("relevance_threshold")
    @classmethod
    def _threshold_is_a_cosine(cls, value: float) -> float:
        if not -1.0 <= value <= 1.0:
            raise ValueError(f"relevance_threshold is a cosine in [-1, 1], got {value!r}")
        return value

    @property
    def _llm_type(self) -> str:
        return "memlib-offline"

    def get_token_ids(self, text: str) -> list[int]:
        """Token ids from real tiktoken (o200k_base), so counting needs no transformers."""
        from memlib.tokens import get_encoding

        return get_encoding().encode(text, disallowed_special=())

    def get_num_tokens_from_messages(
        self, messages: list[BaseMessage], tools: Sequence | None = None
    ) -> int:
        """Prompt tokens as OpenAI counts them (memlib.tokens); usable as trim_messages'
        token_counter=model."""
        return token_counter()(convert_to_messages(messages))

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable | BaseTool],
        *,
        tool_choice: str | dict | bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools (OpenAI-format schemas, a class's converted once: trustcall rebinds it every
        call) and a tool_choice: auto, none, any, required, a name or {"function": {"name": ..}}."""
        formatted = [
            json.loads(_class_tool(t)) if isinstance(t, type) else convert_to_openai_tool(t)
            for t in tools
        ]
        names = [t["function"]["name"] for t in formatted]
        forced = chosen_name(tool_choice)
        if forced is not None and forced not in names:
            raise ValueError(f"tool_choice {forced!r} is not among the bound tools {names}")
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def with_structured_output(
        self, schema: dict | type, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, dict | BaseModel]:
        """Structured output through a forced tool call (pydantic model, TypedDict or JSON
        schema); `method` and `strict` are accepted and ignored (there is only one method)."""
        method = kwargs.pop("method", "function_calling")
        if method not in ("function_calling", "json_schema", "json_mode"):
            raise ValueError(f"unknown structured-output method {method!r}")
        kwargs.pop("strict", None)
        return super().with_structured_output(schema, include_raw=include_raw, **kwargs)

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if not messages:
            raise ValueError("OfflineChatModel needs at least one message, got an empty list")
        kwargs.pop("ls_structured_output_format", None)
        if (asked := token_counter()(messages)) > self.context_window:
            raise ContextWindowExceeded(self.context_window, asked)
        request = Request(list(messages), kwargs, self.relevance_threshold)
        message = None
        if kwargs.get("tools"):
            calls = plan_tool_calls(
                messages,
                kwargs["tools"],
                kwargs.get("tool_choice"),
                grade=lambda q, d: grade_with_reason(q, d, self.relevance_threshold),
            )
            if calls:
                skill = "tools"
                tool_calls = [
                    {"name": n, "args": a, "id": call_id(messages, n, a, k), "type": "tool_call"}
                    for k, (n, a) in enumerate(calls)
                ]
                message = AIMessage(content="", tool_calls=tool_calls)
        if message is None and self.obeys_context and (ordered := _ordered_reply(messages)):
            skill, message = "obey", AIMessage(content=ordered)
        if message is None:
            skill = classify(request)
            message = AIMessage(content=SKILLS[skill](request))
        for s in stop or []:
            message.content = message.content.split(s)[0]
        message.usage_metadata = token_usage(asked, message_text(message), message.tool_calls)
        message.response_metadata = {"model_name": self.model_name, "skill": skill}
        return ChatResult(generations=[ChatGeneration(message=message)])


class ContextWindowExceeded(ContextOverflowError):
    """A prompt over the context window: langchain's ContextOverflowError (which ChatOpenAI raises
    on OpenAI's HTTP 400) with that error's `code`, `body` and wording."""

    code = "context_length_exceeded"

    def __init__(self, window: int, tokens: int):
        self.window, self.tokens = window, tokens
        self.message = (
            f"This model's maximum context length is {window} tokens. However, your messages "
            f"resulted in {tokens} tokens. Please reduce the length of the messages."
        )
        self.body = {"message": self.message, "type": "invalid_request_error"}
        self.body |= {"param": "messages", "code": self.code}
        super().__init__(self.message)


_ORDER = re.compile(r"""^(?:answer|reply|respond)\b[^'"]*\bwith\s+(['"])(.+?)\1""", re.I)


def _ordered_reply(messages: list[BaseMessage]) -> str | None:
    """The reply the last ordering line of the system messages dictates (obeys_context); a line
    that opens with a quote, as memories rendered as quoted data do, is not an instruction."""
    lines = [line for m in messages if m.type == "system" for line in message_text(m).splitlines()]
    found = [m.group(2) for line in lines if (m := _ORDER.match(line.strip(" -*>\t")))]
    return found[-1] if found else None


def output_tokens(content: str, tool_calls: list[dict]) -> int:
    """Completion tokens (real tiktoken): the text, then name + JSON arguments per tool call."""
    from memlib.tokens import count_text_tokens

    texts = [content, *(c["name"] + json.dumps(c["args"]) for c in tool_calls)]
    return sum(count_text_tokens(t) for t in texts)


def token_usage(input_tokens: int, content: str | None, tool_calls: list[dict]) -> dict:
    """usage_metadata for a reply of `content` and `tool_calls` to a prompt of `input_tokens`."""
    output = output_tokens(content or "", tool_calls)
    total = input_tokens + output
    return {"input_tokens": input_tokens, "output_tokens": output, "total_tokens": total}
