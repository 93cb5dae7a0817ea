"""Expected figures of notebooks/02_working_scratchpad.ipynb (offline backend).

The notebook asserts its contrasts, which hold on any backend (the superseded rule against
similarity, the scratchpad against chatty messages, the scratchpad intact across a restart and a
replay). The figures here pin what the offline model and MiniLM retrieval give: how many rounds,
documents and citations, and that two model runs on the same question agree word for word.
"""

EXPECT = {
    # the corpus (the in-place edit experiments are tests/test_scratchpad.py's now)
    "corpus_documents": ("between", 30, 60),
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
    # interrupt, resume from SQLite, replay; *_matches compare separate model runs' outputs
    "resumed_scratchpad_matches": ("true",),
    "resumed_answer_matches": ("true",),
    "replay_kept_first_round": ("true",),
}

OPENAI_DIFFERENCES: dict[str, str] = {}

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
