"""memlib: the small library behind the memlib notebooks. One module per memory layer.

Everything listed in __all__ can be imported from `memlib` directly; modules load on first use, so
`from memlib import record` does not pull in LangGraph or FAISS.
"""

from importlib import import_module

_EXPORTS = {
    # OfflineChatModel: the offline chat model's class, which memlib.models loads on first use
    "models": [
        "OfflineChatModel",
        "describe_backend",
        "embedding_dims",
        "get_chat_model",
        "get_embeddings",
    ],
    "testing": ["record"],
    "widgets": ["ChatPanel", "MemoryInspector"],
    "tokens": ["TokenCounter", "count_message_tokens", "count_text_tokens"],
    "embeddings": ["MiniLMEmbeddings"],
    "buffers": [
        "FullBuffer",
        "SlidingWindowBuffer",
        "SummaryBuffer",
        "TokenTrimBuffer",
        "load_conversation",
        "check_prompt_messages",
        "tool_pairs_intact",
        "transcript",
        "trim_to_budget",
        "turns",
    ],
    "corpus": ["CorpusIndex", "drop_superseded", "load_corpus"],
    "scratchpad": [
        "Grade",
        "ResearchState",
        "add_unique",
        "build_research_graph",
        "merge_by_id",
        "new_research",
        "research_summary",
    ],
    "faiss_store": ["FaissStore"],
    "backends": [
        "aopen_checkpointer",
        "aopen_store",
        "local_postgres",
        "open_checkpointer",
        "open_store",
    ],
    "episodic": [
        "Episode",
        "extract_episode",
        "format_episodes_as_examples",
        "load_conversations",
        "load_episodes",
        "load_queries",
        "recall_at_k",
        "recall_episodes",
        "save_episode",
    ],
    "semantic": [
        "Fact",
        "UserProfile",
        "fact_item",
        "fact_text",
        "format_memory_section",
        "load_memories",
        "memory_changes",
        "patch_profile",
        "read_profile",
    ],
    "shared_memory": [
        "Grant",
        "ScopedStore",
        "provenance",
        "put_version",
        "versions",
    ],
    "procedural": [
        "PromptVersion",
        "active_prompt",
        "approve",
        "check_prompt",
        "create_prompt",
        "get_version",
        "list_versions",
        "prompt_diff",
        "prompt_variables",
        "propose_prompt",
        "reject",
        "rollback",
    ],
    "writers": [
        "BlendedWriter",
        "ModelCallCounter",
        "check_after_seconds",
        "is_explicit_request",
        "make_load_memory_node",
        "settle",
    ],
    "rotation": [
        "PromptRecorder",
        "SummaryState",
        "build_rotation_graph",
        "chat_node",
        "check_tool_pairs",
        "compress_node",
        "route_after_chat",
        "run_turns",
        "split_for_summary",
    ],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(f"memlib.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'memlib' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
