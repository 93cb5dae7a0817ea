"""memlib: the small library behind the memlib notebooks. One module per memory layer.

The front door is short: `memlib.__all__` holds what a reader uses directly (the model and
embeddings switch, the backends by URL, the full agent of notebook 09, forget and export, the
widgets, `record`, `hybrid_search`); everything else is reached through its layer module
(`memlib.semantic`, `memlib.rotation`, ...). Modules load on first use, so
`from memlib import record` does not pull in LangGraph or FAISS.
"""

from importlib import import_module

_EXPORTS = {  # module: the names it exports, space-separated
    # the backend switch; OfflineChatModel is the offline model's class, loaded on first use
    "models": "OfflineChatModel describe_backend embedding_dims get_chat_model get_embeddings",
    "testing": "record",
    "tokens": "TokenCounter count_text_tokens",
    "backends": "aopen_checkpointer aopen_store local_postgres open_checkpointer open_store",
    # the capstone of notebook 09 and what a reader's own app needs around it
    "agent": "build_memory_agent",
    "tenancy": "export_user forget_user",
    "temporal": "hybrid_search",  # notebook 12: words, meaning and time
    "widgets": "ChatPanel MemoryInspector",
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names.split()}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(f"memlib.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'memlib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
