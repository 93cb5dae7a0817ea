"""Text helpers the offline model's skills, tool rules and server share, each defined once.

Provides `message_text` (a message's text, content blocks joined), `flatten_json` (a JSON tool
result as plain `key: value` lines), `SINGLE_VALUED` (the personal facts a person holds one value
of: a newer statement replaces the older), `embed` (MiniLM vectors, cached) and `token_counter`
(OpenAI-style prompt token counts).

Leaves out: the extraction rules and question patterns (offline_model/rules.py) and anything
that reads a whole request (offline_model/skills.py, offline_model/tools.py).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import numpy as np
from langchain_core.messages import BaseMessage

# Predicates a person holds one value of; every other predicate may hold several.
SINGLE_VALUED = ("name", "employer", "role", "location", "age")
_TEXT_KEYS = ("", "content", "text", "memory", "page_content")  # flatten_json: the text itself


def message_text(message: BaseMessage) -> str:
    """The text of a message (its content_text)."""
    return content_text(message.content)


def content_text(content: Any) -> str:
    """Message content as text: a str, or its text blocks joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(
        b if isinstance(b, str) else b.get("text", "")
        for b in content or []
        if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
    )


_QUOTED = re.compile(r'^(\s*(?:[-*•]\s+)?(?:[^":\n]{1,40}:\s+)?)(".*)$')


def unquote_data(text: str) -> str:
    """Memories rendered as quoted data read as plain lines: `- "User lives in Oslo." ("users/ana/
    facts/home", saved ...)` becomes `- User lives in Oslo.` and `- profile name: "Ana"` becomes
    `- profile name: Ana`. What follows the JSON string is provenance, not something to repeat."""
    lines = []
    for line in text.split("\n"):
        if match := _QUOTED.match(line):
            try:
                value, _ = json.JSONDecoder().raw_decode(match.group(2))
            except ValueError:
                value = None
            if isinstance(value, str):
                line = match.group(1) + value
        lines.append(line)
    return "\n".join(lines)


def flatten_json(text: str) -> str:
    """JSON text (e.g. memory search hits) as plain lines; any other text unchanged."""
    try:
        data = json.loads(text)
    except (ValueError, TypeError):
        return text
    lines: list[str] = []

    def walk(node: Any, key: str = "") -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k not in ("namespace", "key", "created_at", "updated_at", "score", "kind", "id"):
                    walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and node.strip():  # a text field's value stands alone
            lines.append(node if key in _TEXT_KEYS else f"{key}: {node}")
        elif isinstance(node, (int, float)) and not isinstance(node, bool) and key:
            lines.append(f"{key}: {node}")

    walk(data)
    return "\n".join(lines)


@lru_cache(maxsize=1)
def _embedder():
    from memlib.embeddings import MiniLMEmbeddings

    return MiniLMEmbeddings(cache_size=16384)


def embed(texts: list[str]) -> np.ndarray:
    """MiniLM vectors of `texts`, one row each (cached per text)."""
    return _embedder().embed_array(texts)


@lru_cache(maxsize=1)
def token_counter():
    """The shared TokenCounter (real tiktoken, OpenAI's chat overhead)."""
    from memlib.tokens import TokenCounter

    return TokenCounter()
