"""Expected figures of notebooks/01_conversation_buffers.ipynb (offline backend).

Token counts are real tiktoken counts of committed fixtures, so they are nearly exact; the ranges
leave room for small fixture edits. The notebook asserts what holds on any backend (the name
known with history and unknown without, truncation losing the list turn and retrieval finding it,
the summary context smaller than the full history, the token-trim and summary buffers within
budget, threads isolated; bad input is tests/test_buffers.py's). What the summarizer writes is the offline model's:
its length (summary_words, summarization_*, tokens_*_summary), what it keeps (topics, Maya's
name at turn 200) and how often the summary buffer calls it (summary_calls) are pinned here only.
"""

EXPECT = {
    # 1 · with / without history
    "history_answer_knows_name": ("true",),
    "no_history_answer_knows_name": ("false",),
    # 3 · truncation / summarization / retrieval on "What is a Python list?"
    "full_tokens_sent": ("between", 400, 500),
    "full_topics_kept": ("==", 8),
    "full_keeps_lists": ("true",),
    "truncation_tokens_sent": ("between", 80, 150),
    "truncation_topics_kept": ("==", 2),
    "truncation_keeps_lists": ("false",),
    "summarization_tokens_sent": ("between", 60, 220),
    # the summary prompt asks to keep every topic name
    "summarization_topics_kept": ("==", 8),
    "summarization_keeps_lists": ("true",),
    "summary_words": ("between", 20, 80),
    "retrieval_tokens_sent": ("between", 80, 200),
    "retrieval_topics_kept": ("between", 1, 3),
    "retrieval_keeps_lists": ("true",),
    "retrieval_top_hit_turn": ("==", 0),
    # 4 · 200 turns: prompt tokens at turns 10 / 50 / 200 (budget 600, window 6 turns)
    "tokens_t10_full": ("between", 530, 600),
    "tokens_t50_full": ("between", 2400, 2650),
    "tokens_t200_full": ("between", 8500, 9400),
    "tokens_t10_window": ("between", 200, 400),
    "tokens_t50_window": ("between", 150, 400),
    "tokens_t200_window": ("between", 150, 400),
    "tokens_t10_token_trim": ("between", 450, 600),
    "tokens_t50_token_trim": ("between", 450, 600),
    "tokens_t200_token_trim": ("between", 450, 600),
    "tokens_t10_summary": ("between", 300, 600),
    "tokens_t50_summary": ("between", 200, 650),
    "tokens_t200_summary": ("between", 200, 650),
    "has_name_t200_full": ("true",),
    "has_name_t200_window": ("false",),
    "has_name_t200_token_trim": ("false",),
    "has_name_t200_summary": ("true",),
    "summary_calls": ("between", 10, 80),
    "long_chat_always_pair_safe": ("true",),
    # 5 · LangGraph threads and checkpointers
    "same_thread_remembers": ("true",),
    "new_thread_isolated": ("true",),
}

# What the notebook writes in its own cells (tests/test_notebook_code.py)
TECHNIQUE = {
    "defines": [
        "FullBuffer",
        "SlidingWindowBuffer",
        "TokenTrimBuffer",
        "SummaryBuffer",
        "trim_to_budget",
        "respond",
    ],
    "calls": [
        "trim_messages",
        "StateGraph",
        "add_node",
        "add_edge",
        "compile",
        "InMemorySaver",  # SqliteSaver.from_conn_string: notebook 02 (since 2026-12-02)
    ],
}
