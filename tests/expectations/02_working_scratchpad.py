"""Expected figures for notebooks/02_working_scratchpad.ipynb."""

EXPECT = {
    # corpus and the in-place mutation experiments
    "corpus_documents": ("between", 30, 60),
    "in_place_add_length": ("==", 10),  # doc-0, then doubled at each of two steps
    "new_items_length": ("==", 3),
    "in_place_async_corrupted_runs": (">=", 1),  # a race: almost always 20 of 20 here
    "in_place_sync_corrupted_runs": ("==", 0),
    "copy_corrupted_runs": ("==", 0),
    "reducer_corrupted_runs": ("==", 0),
    "bad_inputs_refused": ("==", 2),
    # the research loop on the default question
    "iterations": ("between", 2, 3),
    "documents_retrieved": ("between", 8, 12),
    "documents_kept": (">=", 4),
    "superseded_dropped": (">=", 2),
    "sources_cited": (">=", 2),
    "cited_subset_of_kept": ("true",),
    "off_topic_dropped": (">=", 1),
    "thin_evidence_iterations": ("==", 3),
    # scratchpad versus messages
    "clean_messages": ("==", 2),
    "clean_message_tokens": ("between", 40, 400),
    "chatty_message_tokens": (">=", 1000),
    # interrupt, resume from SQLite, history
    "scratchpad_restored_after_restart": ("true",),
    "resumed_answer_matches": ("true",),
    "resumed_scratchpad_matches": ("true",),
    "history_checkpoints": ("between", 8, 14),
    "replay_matches": ("true",),
    "fork_differs": ("true",),
}
