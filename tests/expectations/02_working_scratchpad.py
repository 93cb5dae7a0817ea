"""Expected figures of notebooks/02_working_scratchpad.ipynb (offline backend).

The notebook asserts its contrasts, which hold on any backend (reducers against in-place edits, the
superseded rule against similarity, the scratchpad against chatty messages, the scratchpad intact
across a restart and a replay). The figures here pin what the offline model and MiniLM retrieval give: how many rounds,
documents and citations, and that two model runs on the same question agree word for word.
"""

EXPECT = {
    # corpus and the in-place mutation experiments (no model involved)
    "corpus_documents": ("between", 30, 60),
    "in_place_add_length": ("==", 10),  # doc-0, then doubled at each of two steps
    "new_items_length": ("==", 3),
    "in_place_async_corrupted_runs": (">=", 1),  # a race: varies between runs and machines
    "in_place_sync_corrupted_runs": ("==", 0),
    "copy_corrupted_runs": ("==", 0),
    "reducer_corrupted_runs": ("==", 0),
    # the research loop on the default question: rounds, documents retrieved / graded relevant,
    # superseded documents dropped by the rule, kept documents the answer cites, other [id]s it cites
    "iterations": ("between", 2, 3),
    "documents_retrieved": ("between", 8, 12),
    "documents_kept": (">=", 4),
    "superseded_dropped": (">=", 2),
    "sources_cited": (">=", 2),
    "sources_cited_not_kept": ("==", 0),
    # scratchpad versus messages: message count and tiktoken counts, clean and chatty; the chatty
    # run (a second run of the same research) gives the same answer
    "clean_messages": ("==", 2),
    "clean_message_tokens": ("between", 40, 400),
    "chatty_message_tokens": (">=", 1000),
    "chatty_same_answer": ("true",),
    # interrupt, resume from SQLite, history; *_matches compare separate model runs' outputs
    "scratchpad_restored_after_restart": ("true",),
    "resumed_scratchpad_matches": ("true",),
    "resumed_answer_matches": ("true",),
    "paused_run_matches_uninterrupted": ("true",),
    "history_checkpoints": ("between", 8, 14),
    "replay_kept_first_round": ("true",),
    "replay_matches": ("true",),
}

OPENAI_DIFFERENCES = {
    "in_place_async_corrupted_runs": (
        "a race between LangGraph's background checkpoint write and the next node: the count "
        "varies between any two runs, on any backend"
    ),
}

# The technique written in the notebook's own cells (checked by tests/test_notebook_code.py).
TECHNIQUE = {
    "defines": [
        "merge_by_id",
        "add_unique",
        "ResearchState",
        "Grade",
        "make_grader",
        "make_plan",
        "make_retrieve",
        "grade_new_docs",
        "next_status",
        "route_after_grade",
        "make_grade",
        "make_synthesize",
        "review",
        "build_research_graph",
    ],
    "calls": [
        "with_structured_output",
        "interrupt",
        "StateGraph",
        "add_node",
        "add_edge",
        "add_conditional_edges",
        "compile",
        "InMemorySaver",
        "SqliteSaver",
        "Command",
        "get_state_history",
    ],
}
