from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from memlib.tokens import TokenCounter, count_message_tokens, count_text_tokens, get_encoding

MESSAGES = [
    SystemMessage("You are a helpful tutor."),
    HumanMessage("hi there, 你好 🎉", name="bob"),
    AIMessage("", tool_calls=[{"name": "search", "args": {"q": "lists"}, "id": "call_1"}]),
    ToolMessage("Lists are mutable.", tool_call_id="call_1"),
    AIMessage("Hello! How can I help?"),
    HumanMessage("what is a Python list?"),
]


def test_real_encodings_load_offline():
    # Known ids of the real encodings (not a re-implementation's guesses).
    assert get_encoding("cl100k_base").encode("hello world") == [15339, 1917]
    assert get_encoding("o200k_base").encode("hello world") == [24912, 2375]


def test_tiktoken_itself_works_offline_after_setup():
    import tiktoken

    get_encoding("cl100k_base")
    assert tiktoken.encoding_for_model("gpt-4o-mini").name == "o200k_base"
    assert len(tiktoken.get_encoding("cl100k_base").encode("多语言 text ✓")) > 3


def test_message_counts_equal_langchain_openai():
    from langchain_openai import ChatOpenAI

    for model, encoding in (("gpt-4o-mini", "o200k_base"), ("gpt-4", "cl100k_base")):
        reference = ChatOpenAI(model=model, api_key="unused-no-call-is-made")
        plain = [m for m in MESSAGES if not isinstance(m, AIMessage | ToolMessage)]
        assert count_message_tokens(plain, encoding) == reference.get_num_tokens_from_messages(
            plain
        )


def test_counter_caches_and_counts_tool_calls():
    counter = TokenCounter()
    first = counter(MESSAGES)
    assert counter(MESSAGES) == first
    assert counter.message(MESSAGES[2]) > 3  # tool name and args are counted
    assert counter([]) == 0


def test_text_tokens_rejects_non_strings():
    import pytest

    with pytest.raises(TypeError, match="expected str"):
        count_text_tokens(42)


def test_bad_input_count_text_tokens():
    import pytest

    with pytest.raises(TypeError, match="text: expected str, got int: 42"):
        count_text_tokens(42)
    with pytest.raises(ValueError, match="unknown encoding 'gpt2'"):
        count_text_tokens("hi", encoding="gpt2")


def test_bad_input_count_message_tokens():
    import pytest

    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'hi'"):
        count_message_tokens("hi")
    with pytest.raises(TypeError, match=r"messages\[0\] must be a langchain message.*'hi'"):
        count_message_tokens(["hi"])
    with pytest.raises(ValueError, match="unknown encoding 'p50k_base'"):
        count_message_tokens(MESSAGES, encoding="p50k_base")


def test_bad_input_TokenCounter():
    import pytest

    counter = TokenCounter()
    with pytest.raises(TypeError, match=r"messages\[0\] must be a langchain message.*'hi'"):
        counter(["hi"])
    with pytest.raises(TypeError, match="messages must be a list of langchain messages.*'hi'"):
        counter("hi")
    with pytest.raises(TypeError, match="message must be a langchain message.*None"):
        counter.message(None)
    with pytest.raises(ValueError, match="unknown encoding 'cl50k'"):
        TokenCounter("cl50k")
    with pytest.raises(ValueError, match="cache_size must be >= 1, got 0"):
        TokenCounter(cache_size=0)
    assert counter(m for m in MESSAGES) == counter(MESSAGES)  # a generator is fine


def test_message_counts_cover_every_field():
    # role, content, tool-call names and JSON args, tool_call_id (+3) and name (+1): OpenAI's way
    enc = get_encoding("o200k_base")

    def n(text: str) -> int:
        return len(enc.encode(text))

    counter = TokenCounter()
    human, ai_call, tool = MESSAGES[1], MESSAGES[2], MESSAGES[3]
    assert counter.message(human) == 3 + n("user") + n("hi there, 你好 🎉") + n("bob") + 1
    assert counter.message(ai_call) == 3 + n("assistant") + n("search") + n('{"q": "lists"}')
    assert counter.message(tool) == 3 + n("tool") + n("Lists are mutable.") + 3
    # cached by id and content: an edited message is counted afresh
    edited = human.model_copy(update={"content": "hi"})
    assert counter.message(edited) == 3 + n("user") + n("hi") + n("bob") + 1


def test_counting_reads_only_fields_the_message_has(monkeypatch):
    # getattr(message, "tool_calls", None) on a HumanMessage goes through pydantic's __getattr__,
    # which raises and catches AttributeError: that made warm counts several times slower.
    import pydantic

    missed = []
    original = pydantic.BaseModel.__getattr__

    def spy(self, name):
        missed.append(name)
        return original(self, name)

    monkeypatch.setattr(pydantic.BaseModel, "__getattr__", spy)
    TokenCounter()(MESSAGES)
    assert missed == []
