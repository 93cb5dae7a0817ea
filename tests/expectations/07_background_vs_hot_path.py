"""Expected figures for notebooks/07_background_vs_hot_path.ipynb (defaults: K 3, debounce 2 s).

Counts only: calls, extractions, memories, recall. No wall-clock figure is recorded.
"""

EXPECT = {
    # design 1: memory tools in the agent loop
    "hot_visible_immediately": ("true",),
    "hot_max_calls_per_turn": (">=", 2),  # search / write, then the reply
    "hot_path_calls_on_path": ("between", 14, 21),  # 7 turns, at least 2 calls each
    # design 2: lean graph + debounced ReflectionExecutor
    "bg_calls_per_turn": ("==", 1),
    "bg_visible_before_extraction": ("false",),
    "bg_visible_after_extraction": ("true",),
    "bg_session1_extractions": ("==", 1),  # 4 submits in a burst, one run
    "bg_session1_debounced": ("==", 3),
    "background_calls_on_path": ("==", 7),
    "background_extractions": ("==", 2),  # one per session
    "flush_ran": ("==", 1),
    "burst_failed": ("==", 0),
    # blend: explicit requests hot, the rest in the background
    "blend_calls_on_path": ("between", 8, 13),  # 7 replies + the hot writes of 2 explicit turns
    "blend_explicit_memories": ("==", 2),
    "blend_extractions": ("==", 2),
    # memories, duplicates and stale facts after both sessions (8 facts planted)
    "hot_path_memories": ("between", 7, 9),
    "background_memories": ("between", 7, 9),
    "blend_memories": ("between", 7, 9),
    "hot_path_duplicates": ("==", 0),
    "background_duplicates": ("==", 0),
    "blend_duplicates": ("==", 0),
    "hot_path_stale": ("==", 0),
    "background_stale": ("==", 0),
    "blend_stale": ("==", 0),
    "hot_path_extractions": ("==", 0),
    # planted-fact recall in a new thread, 7 questions
    "hot_path_recall": ("==", 7),
    "background_recall": ("==", 7),
    "blend_recall": ("==", 7),
    # pitfalls and bad input
    "kind_error_mixed_namespace": ("true",),
    "bad_inputs_refused": ("==", 4),
}
