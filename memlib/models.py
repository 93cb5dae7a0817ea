"""Backend selection: which chat model and which embeddings the notebooks use.

`MEMLIB_LLM` = auto | offline | openai (auto: openai when OPENAI_API_KEY is set, else offline).
`MEMLIB_EMBEDDINGS` = auto | offline | openai (auto: follows the chat backend, except that a local
OpenAI-compatible server, i.e. OPENAI_BASE_URL set, keeps offline embeddings, since most local chat
servers do not serve an embedding model).
`MEMLIB_STRUCTURED_OUTPUT` = json_schema | function_calling | json_mode: the default `method=` of
ChatOpenAI.with_structured_output (unset: langchain-openai's default, strict json_schema), for
local servers without strict JSON-schema support.
The openai backend is langchain-openai's ChatOpenAI (model from MEMLIB_OPENAI_MODEL, default
gpt-4o-mini) and OpenAIEmbeddings (MEMLIB_OPENAI_EMBEDDING_MODEL, default
text-embedding-3-small). Both honour OPENAI_BASE_URL, so Ollama, vLLM or a llama.cpp server work.

Notebooks call `get_chat_model()` / `get_embeddings()` and never branch on the backend.
The offline chat model is the separate `offline_model` package; this module and memlib.testing (the
local server) are the only memlib modules that import it, on first use. `memlib.OfflineChatModel`
is `offline_model.OfflineChatModel`, through this module.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from memlib.checks import check_kind, check_number

BACKENDS = ("auto", "offline", "openai")
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_OPENAI_EMBEDDING_MODEL = "text-embedding-3-small"
STRUCTURED_OUTPUT_METHODS = ("json_schema", "function_calling", "json_mode")
OPENAI_EMBEDDING_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072}


def _choice(var: str) -> str:
    value = os.environ.get(var, "auto").strip().lower() or "auto"
    if value not in BACKENDS:
        raise ValueError(f"{var}={value!r} is not a backend; expected one of {BACKENDS}")
    return value


def llm_backend() -> str:
    """'offline' or 'openai', from MEMLIB_LLM and OPENAI_API_KEY."""
    choice = _choice("MEMLIB_LLM")
    if choice == "auto":
        return "openai" if os.environ.get("OPENAI_API_KEY") else "offline"
    if choice == "openai" and not (
        os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")
    ):
        raise ValueError(
            "MEMLIB_LLM='openai' needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)"
        )
    return choice


def embeddings_backend() -> str:
    """'offline' or 'openai', from MEMLIB_EMBEDDINGS and the chat backend."""
    choice = _choice("MEMLIB_EMBEDDINGS")
    if choice == "auto":
        if llm_backend() == "openai" and not os.environ.get("OPENAI_BASE_URL"):
            return "openai"
        return "offline"
    return choice


def structured_output_method() -> str | None:
    """MEMLIB_STRUCTURED_OUTPUT: the `method=` ChatOpenAI.with_structured_output defaults to.

    Unset: langchain-openai's own default (json_schema: OpenAI's strict structured outputs).
    Servers without strict JSON-schema support take function_calling or json_mode."""
    value = os.environ.get("MEMLIB_STRUCTURED_OUTPUT", "").strip() or None
    if value is not None and value not in STRUCTURED_OUTPUT_METHODS:
        raise ValueError(
            f"MEMLIB_STRUCTURED_OUTPUT={value!r} is not a method; "
            f"expected one of {STRUCTURED_OUTPUT_METHODS}"
        )
    return value


@lru_cache(maxsize=4)
def _chat_openai_class(method: str | None):
    from langchain_openai import ChatOpenAI

    if method is None:
        return ChatOpenAI

    class ChatOpenAIWithMethod(ChatOpenAI):
        """ChatOpenAI whose with_structured_output defaults to another `method=`."""

        def with_structured_output(self, schema=None, *, method: str = method, **kwargs):
            return super().with_structured_output(schema, method=method, **kwargs)

    return ChatOpenAIWithMethod


def get_chat_model(
    temperature: float = 0.0, *, obeys_context: bool = False, **kwargs
) -> BaseChatModel:
    """The active chat model: OfflineChatModel or ChatOpenAI. `obeys_context=True` makes the
    offline stand-in follow instructions found in its prompt (notebook 10); a real model is as it is."""
    check_number(temperature, "temperature")
    check_kind(obeys_context, bool, "obeys_context", "True or False")
    if llm_backend() == "openai":
        model = os.environ.get("MEMLIB_OPENAI_MODEL", DEFAULT_OPENAI_MODEL)
        if not os.environ.get("OPENAI_API_KEY"):
            kwargs.setdefault("api_key", "not-needed")  # local servers accept any key
        chat_openai = _chat_openai_class(structured_output_method())
        return chat_openai(model=model, temperature=temperature, **kwargs)
    from offline_model import OfflineChatModel

    unknown = sorted(set(kwargs) - set(OfflineChatModel.model_fields))
    if unknown:
        raise TypeError(
            f"get_chat_model() got unknown keyword arguments {unknown} for the offline backend; "
            f"OfflineChatModel accepts {sorted(OfflineChatModel.model_fields)}"
        )
    return OfflineChatModel(obeys_context=obeys_context, **kwargs)


def get_embeddings() -> Embeddings:
    """The active embeddings: MiniLMEmbeddings (384-d) or OpenAIEmbeddings."""
    if embeddings_backend() == "openai":
        from langchain_openai import OpenAIEmbeddings

        model = os.environ.get("MEMLIB_OPENAI_EMBEDDING_MODEL", DEFAULT_OPENAI_EMBEDDING_MODEL)
        return OpenAIEmbeddings(model=model, check_embedding_ctx_length=False)
    from memlib.embeddings import MiniLMEmbeddings

    return MiniLMEmbeddings()


def embedding_dims() -> int:
    """Vector size of `get_embeddings()`, for a store's index config.

    OpenAI's own embedding models have known sizes; any other model name (a local server's
    nomic-embed-text, bge-m3, ...) is asked once, by embedding one word."""
    if embeddings_backend() == "openai":
        model = os.environ.get("MEMLIB_OPENAI_EMBEDDING_MODEL", DEFAULT_OPENAI_EMBEDDING_MODEL)
        if model in OPENAI_EMBEDDING_DIMS:
            return OPENAI_EMBEDDING_DIMS[model]
        return _probed_dims(model, os.environ.get("OPENAI_BASE_URL", ""))
    from memlib.embeddings import DIMS

    return DIMS


@lru_cache(maxsize=8)
def _probed_dims(model: str, base_url: str) -> int:
    return len(get_embeddings().embed_query("dimensions"))


@dataclass(frozen=True)
class Backend:
    llm: str
    chat_model: str
    embeddings: str

    def __str__(self) -> str:
        return f"chat model: {self.chat_model} ({self.llm}) | embeddings: {self.embeddings}"


def describe_backend() -> Backend:
    """What the notebooks will run on; each notebook prints it once."""
    llm = llm_backend()
    chat = (
        os.environ.get("MEMLIB_OPENAI_MODEL", DEFAULT_OPENAI_MODEL)
        + (f" at {os.environ['OPENAI_BASE_URL']}" if os.environ.get("OPENAI_BASE_URL") else "")
        if llm == "openai"
        else "OfflineChatModel (deterministic rules)"
    )
    emb = (
        os.environ.get("MEMLIB_OPENAI_EMBEDDING_MODEL", DEFAULT_OPENAI_EMBEDDING_MODEL)
        if embeddings_backend() == "openai"
        else "all-MiniLM-L6-v2 int8 ONNX (local)"
    )
    return Backend(llm=llm, chat_model=chat, embeddings=emb)


def __getattr__(name: str):
    """`OfflineChatModel`, loaded from the offline_model package on first use."""
    if name == "OfflineChatModel":
        from offline_model import OfflineChatModel

        return OfflineChatModel
    raise AttributeError(f"module 'memlib.models' has no attribute {name!r}")
