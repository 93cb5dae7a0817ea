"""The context window: OfflineChatModel refuses a prompt over it as OpenAI's API does, in process
(langchain's ContextOverflowError with OpenAI's code, body and wording) and through the local
server (HTTP 400, code context_length_exceeded), and a caller recognises both by `.code`."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI

from memlib.tokens import TokenCounter
from offline_model import OfflineChatModel
from offline_model.model import ContextWindowExceeded
from offline_model.server import OpenAICompatibleServer

MESSAGE = re.compile(
    r"This model's maximum context length is (\d+) tokens\. However, your messages resulted in "
    r"(\d+) tokens\. Please reduce the length of the messages\."
)


def test_the_window_is_declared_as_langchain_profiles_declare_it():
    assert OfflineChatModel().context_window == 128_000  # gpt-4o-mini's
    assert OfflineChatModel().profile["max_input_tokens"] == 128_000
    assert OfflineChatModel(context_window=500).profile == {"max_input_tokens": 500}


def test_a_prompt_over_the_window_is_refused_with_openais_error():
    prompt = [SystemMessage("Be brief."), HumanMessage("I live in Porto. " * 40)]
    size = TokenCounter()(prompt)
    assert (
        OfflineChatModel(context_window=size).invoke(prompt).usage_metadata["input_tokens"] == size
    )
    with pytest.raises(ContextOverflowError) as caught:
        OfflineChatModel(context_window=size - 1).invoke(prompt)
    error = caught.value
    assert isinstance(error, ContextWindowExceeded) and error.code == "context_length_exceeded"
    assert (error.window, error.tokens) == (size - 1, size)
    assert MESSAGE.fullmatch(str(error)).groups() == (str(size - 1), str(size))
    assert error.body == {
        "message": str(error),
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }


def test_the_window_applies_to_tool_calls_and_structured_output_too():
    prompt = [HumanMessage("My name is Ana and I work at Globex. " * 20)]
    small = OfflineChatModel(context_window=50)
    with pytest.raises(ContextWindowExceeded):
        small.bind_tools([{"name": "f", "parameters": {"type": "object"}}]).invoke(prompt)
    with pytest.raises(ContextWindowExceeded):
        small.with_structured_output({"title": "T", "type": "object", "properties": {}}).invoke(
            prompt
        )


def test_the_server_answers_http_400_context_length_exceeded_and_chatopenai_carries_the_code():
    big = "word " * 128_100  # just over 128,000 tokens
    with OpenAICompatibleServer(port=0) as server:
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": big}]}
        request = urllib.request.Request(
            server.base_url + "/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": "Bearer x"},
        )
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=60)
        assert caught.value.code == 400
        error = json.loads(caught.value.read())["error"]
        assert (error["type"], error["param"], error["code"]) == (
            "invalid_request_error",
            "messages",
            "context_length_exceeded",
        )
        window, tokens = MESSAGE.fullmatch(error["message"]).groups()
        assert int(window) == 128_000 and int(tokens) == TokenCounter()([HumanMessage(big)])
        client = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key="x")
        with pytest.raises(Exception) as caught:
            client.invoke([HumanMessage(big)])
        # langchain-openai 1.7 looks for the code in str(e), which openai 3.x no longer fills,
        # so it raises OpenAIInvalidRequestError, not ContextOverflowError: `.code` is what holds
        assert caught.value.code == "context_length_exceeded"
        assert caught.value.body == error
        assert server.stats["rejected_requests"] == 2
        assert client.invoke([HumanMessage("hello")]).content  # under the window: answered


@pytest.mark.parametrize("bad", [0, -5, "big", 1.5, True, None])
def test_bad_context_window_is_refused_naming_the_value(bad):
    with pytest.raises(ValueError, match="context_window"):
        OfflineChatModel(context_window=bad)
