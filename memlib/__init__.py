"""memlib: the small library behind the memlib notebooks. One module per memory layer."""

from memlib.models import describe_backend, embedding_dims, get_chat_model, get_embeddings
from memlib.testing import record
from memlib.tokens import TokenCounter, count_message_tokens, count_text_tokens

__all__ = [
    "TokenCounter",
    "count_message_tokens",
    "count_text_tokens",
    "describe_backend",
    "embedding_dims",
    "get_chat_model",
    "get_embeddings",
    "record",
]
