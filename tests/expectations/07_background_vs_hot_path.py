"""Expected figures for notebooks/07_background_vs_hot_path.ipynb (defaults: K 3, debounce 2 s).

Offline model only: calls, extractions, memories and recall as the deterministic model and its
sub-second turns produce them. The notebook itself asserts only what holds on any competent
model (one call per lean turn, no memory loaded before any extraction call, the last submit of a
burst runs, no duplicates, no stale home in the managers' stores, a majority recalled). No
wall-clock figure is recorded; extraction counts depend on wall time (a model slower than the 2 s
debounce lets a run through mid-session), so they are pinned here, not asserted there.
"""

EXPECT = {
    # design 1: memory tools in the agent loop; offline: search, write, reply in every turn
    "hot_answer_immediately": ("true",),  # and the agent's answer in another thread says it
    "hot_path_max_calls_per_turn": ("==", 3),
    "hot_path_calls_on_path": ("==", 21),  # 7 turns x 3 calls
    # design 2: lean graph + debounced ReflectionExecutor
    "background_max_calls_per_turn": ("==", 1),
    "bg_loaded_before_extraction": ("==", 0),
    "bg_answer_before_extraction": ("false",),
    "bg_visible_after_extraction": ("true",),
    # "units readable right after the turn": a store read right after the hot path's turn finds
    # the preference; the background's does not (4 turns well under the 2 s window); the blend's
    # hot-path write of the units request is readable at once
    "hot_path_readable_right_after": ("true",),
    "background_readable_right_after": ("false",),
    "blend_readable_right_after": ("true",),
    "bg_answer_after_extraction": ("true",),
    "bg_session1_extractions": ("==", 1),  # 4 submits in a burst, one run
    "bg_session1_debounced": ("==", 3),
    "background_calls_on_path": ("==", 7),
    "background_extractions": ("==", 2),  # one per session
    "flush_ran": ("==", 1),
    # blend: explicit requests hot, the rest in the background
    "blend_calls_on_path": ("==", 11),  # 7 replies + 2 hot-writer calls on each of 2 explicit turns
    "blend_explicit_memories": ("==", 2),
    "blend_extractions": ("==", 2),
    # memories, duplicates and stale facts after both sessions (8 facts planted)
    "hot_path_memories": ("==", 8),
    "background_memories": ("==", 8),
    "blend_memories": ("==", 8),
    "hot_path_planted": ("==", 7),  # planted facts some memory states
    "background_planted": ("==", 7),
    "blend_planted": ("==", 7),
    "hot_path_duplicates": ("==", 0),
    "background_duplicates": ("==", 0),
    "blend_duplicates": ("==", 0),
    "hot_path_stale": ("==", 0),  # the offline agent updates the Lisbon memory in place
    "background_stale": ("==", 0),
    "blend_stale": ("==", 0),
    "hot_path_extractions": ("==", 0),
    # planted-fact recall in a new thread, 7 questions
    "hot_path_recall": ("==", 7),
    "background_recall": ("==", 7),
    "blend_recall": ("==", 7),
}

# Figures that may differ between the offline model in the kernel and the same model behind the
# OpenAI client path: every figure above is a count the offline model fixes, and the local server
# answers well inside the debounce window; only the prompt tokens of designs with a tool loop move.
_TOOL_NAME = (
    "prompt tokens are the usage each model reports; in process a ToolMessage keeps its `name` "
    "(the tool's, set by ToolNode) and is counted with it, but ChatOpenAI does not send a tool "
    "result's name, so the server counts 3 tokens fewer per tool result"
)
OPENAI_DIFFERENCES: dict[str, str] = {
    "hot_path_tokens_per_turn": _TOOL_NAME + ": 3,192 against 3,104 a turn",
    "blend_tokens_per_turn": _TOOL_NAME + " (its explicit turns): 105 against 104",
}

# The technique written in the cells (tests/test_notebook_code.py): the hot-path agent with
# LangMem's memory tools, the lean reading graph (its load_memory node saved to memlib.writers),
# and the store manager run by a debounced ReflectionExecutor.
TECHNIQUE = {
    "defines": [
        "make_load_memory_node",
        "make_lean_graph",
        "run_session",
        "bg_submit",
        "is_explicit_request",
        "BlendedWriter",
    ],
    "calls": [
        "create_agent",
        "create_manage_memory_tool",
        "create_search_memory_tool",
        "create_memory_store_manager",
        "ReflectionExecutor",
        "submit",
        "shutdown",
        "search",
    ],
}
