import pytest

from memlib import models


@pytest.fixture
def env(monkeypatch):
    for var in (
        "MEMLIB_LLM",
        "MEMLIB_EMBEDDINGS",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "MEMLIB_STRUCTURED_OUTPUT",
        "MEMLIB_OPENAI_EMBEDDING_MODEL",
    ):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_auto_is_offline_without_a_key(env):
    assert models.llm_backend() == "offline"
    assert models.embeddings_backend() == "offline"
    assert models.embedding_dims() == 384
    assert "Offline" in str(models.describe_backend())


def test_auto_picks_openai_with_a_key(env):
    env.setenv("OPENAI_API_KEY", "sk-test")
    assert models.llm_backend() == "openai"
    assert models.embeddings_backend() == "openai"
    chat = models.get_chat_model()
    assert type(chat).__name__ == "ChatOpenAI" and chat.model_name == "gpt-4o-mini"
    assert models.embedding_dims() == 1536


def test_local_server_keeps_local_embeddings(env):
    env.setenv("MEMLIB_LLM", "openai")
    env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    env.setenv("MEMLIB_OPENAI_MODEL", "smollm2")
    assert models.llm_backend() == "openai"
    assert models.embeddings_backend() == "offline"
    chat = models.get_chat_model()
    assert chat.model_name == "smollm2" and "127.0.0.1" in str(chat.root_client.base_url)


def test_offline_forced_even_with_key(env):
    env.setenv("OPENAI_API_KEY", "sk-test")
    env.setenv("MEMLIB_LLM", "offline")
    assert models.llm_backend() == "offline"


def test_bad_backend_names_the_value(env):
    env.setenv("MEMLIB_LLM", "anthropic")
    with pytest.raises(ValueError, match="'anthropic'"):
        models.llm_backend()


def test_openai_without_key_or_server_is_an_error(env):
    env.setenv("MEMLIB_LLM", "openai")
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        models.llm_backend()


def test_structured_output_method_is_chosen_by_env(env):
    from langchain_core.runnables import RunnableSequence
    from pydantic import BaseModel

    class City(BaseModel):
        name: str

    env.setenv("OPENAI_API_KEY", "sk-test")
    plain = models.get_chat_model()
    assert type(plain).__name__ == "ChatOpenAI"
    env.setenv("MEMLIB_STRUCTURED_OUTPUT", "function_calling")
    chat = models.get_chat_model()
    from langchain_openai import ChatOpenAI

    assert isinstance(chat, ChatOpenAI)
    bound = chat.with_structured_output(City)
    assert isinstance(bound, RunnableSequence)
    # function_calling binds the schema as a forced tool; json_schema would send response_format
    kwargs = bound.first.kwargs
    assert kwargs["tools"][0]["function"]["name"] == "City" and "response_format" not in kwargs
    assert "response_format" in plain.with_structured_output(City).first.kwargs


def test_bad_structured_output_method_names_the_value(env):
    env.setenv("MEMLIB_STRUCTURED_OUTPUT", "xml")
    with pytest.raises(ValueError, match="'xml'"):
        models.structured_output_method()


def test_unknown_embedding_model_is_asked_for_its_size(env, monkeypatch):
    env.setenv("OPENAI_API_KEY", "sk-test")
    env.setenv("MEMLIB_OPENAI_EMBEDDING_MODEL", "nomic-embed-text")

    class Fake:
        def embed_query(self, text):
            return [0.0] * 768

    monkeypatch.setattr(models, "get_embeddings", lambda: Fake())
    models._probed_dims.cache_clear()
    assert models.embedding_dims() == 768


def test_bad_input_get_chat_model(env):
    with pytest.raises(TypeError, match=r"\['foo'\]"):  # an unknown setting is refused, not ignored
        models.get_chat_model(foo=1)
    with pytest.raises(TypeError, match="'warm'"):
        models.get_chat_model(temperature="warm")
    env.setenv("MEMLIB_LLM", "bogus")
    with pytest.raises(ValueError, match="'bogus'"):
        models.get_chat_model()


def test_bad_input_get_embeddings(env):
    env.setenv("MEMLIB_EMBEDDINGS", "bogus")
    with pytest.raises(ValueError, match="MEMLIB_EMBEDDINGS='bogus'"):
        models.get_embeddings()


def test_bad_input_embedding_dims(env):
    env.setenv("MEMLIB_EMBEDDINGS", "bogus")
    with pytest.raises(ValueError, match="MEMLIB_EMBEDDINGS='bogus'"):
        models.embedding_dims()


def test_bad_input_describe_backend(env):
    env.setenv("MEMLIB_LLM", "bogus")
    with pytest.raises(ValueError, match="MEMLIB_LLM='bogus'"):
        models.describe_backend()
    env.setenv("MEMLIB_LLM", "openai")  # openai named without a key or a server
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        models.describe_backend()
