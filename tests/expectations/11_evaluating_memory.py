"""Expected figures for notebooks/11_evaluating_memory.ipynb (defaults: 2 synthetic users, 10
sessions of 3 turns, 3 planted favourites each: 22 questions; the same set as
data/eval/small.jsonl). Measured 2026-12-01 on the offline model: 19 to 28 s on a 2-core machine
loaded by other runs (load average 6 to 9); notebook 09's agent replaying every turn is about a
third of it.

The notebook asserts what holds on any model: every strategy answered every question with at
least one model call, accuracies are shares, the bounded strategies (window, trim, semantic, agent)
pay fewer prompt tokens per question than the full history, semantic memory spends model calls on
writing and the full history none, the wrong answer it traces has store reads and the write it
leads to names a turn of the dataset, and the reader's own agent is measured like the rest.

The offline model's part, recorded and pinned here in bands: which strategies answer how well
(accuracy moves with the offline model's extraction and answer wording, which another engineer is
improving), and the prompt tokens per question (tiktoken counts of the prompts; the buffers' depend
only on the dataset, the memory strategies' on the extracted sentences). Temporal questions are
0.0 for every strategy on the offline model today (it answers the newest value: see
/tmp/notes/offline_requests.md); the band allows a fix.
"""

EXPECT = {
    "questions": ("==", 22),
    # measured 2026-12-01: full 0.77, window 0.41, trim 0.41, summary 0.73, episodic 0.41,
    # semantic 0.77, agent 0.73, oldest 0.23, keyword agent 0.59
    "full_accuracy": ("between", 0.6, 1.0),
    "window_accuracy": ("between", 0.2, 0.6),
    "trim_accuracy": ("between", 0.2, 0.6),
    "summary_accuracy": ("between", 0.5, 1.0),
    "episodic_accuracy": ("between", 0.2, 0.8),
    "semantic_accuracy": ("between", 0.6, 1.0),
    "agent_accuracy": ("between", 0.5, 1.0),
    "oldest_accuracy": ("<=", 0.35),  # wrong on purpose: only abstentions come out right
    "my_agent_accuracy": ("between", 0.3, 0.8),
    "full_knowledge_update_accuracy": ("==", 1.0),
    "temporal_accuracy_full": ("between", 0.0, 1.0),
    # prompt tokens per question: 864, 198, 399, 232, 315, 78, 77, 211
    "full_tokens_per_question": ("between", 800, 930),
    "window_tokens_per_question": ("between", 180, 215),
    "trim_tokens_per_question": ("between", 370, 420),
    "summary_tokens_per_question": ("between", 150, 330),
    "episodic_tokens_per_question": ("between", 200, 450),
    "semantic_tokens_per_question": ("between", 50, 130),
    # 247 since 09's agent renders memories as quoted data with their namespace and date (about
    # 100 as plain lines): provenance costs prompt tokens
    "agent_tokens_per_question": ("between", 200, 330),
    "oldest_tokens_per_question": ("between", 190, 230),
    "semantic_recall_at_k": ("between", 0.8, 1.0),
    "semantic_calls_per_turn": ("between", 0.3, 0.5),  # one extraction per session of 3 turns
    "agent_calls_per_turn": ("between", 1.5, 2.5),  # a reply plus a background extraction
    "traced_answer_stale": ("true",),
    "traced_write_turn_in_dataset": ("true",),
}

# Every figure is a count or share the offline model fixes, the same behind the OpenAI client,
# but for the agent's prompt tokens, which hold the dates its memories were saved.
OPENAI_DIFFERENCES: dict[str, str] = {
    "agent_tokens_per_question": "memories go into the prompt with the date they were saved, so a run on "
    "another day (or across midnight) can count a few tokens more or fewer",
}

# The technique written in the cells: grading (saved to memlib.eval.metrics), the walk from a wrong
# answer to the write behind it, and a reader's own LangGraph agent handed to the harness.
TECHNIQUE = {
    "defines": ["grade", "first_wrong", "repeats", "recall_by_keywords", "ask_my_agent"],
    "calls": [
        "generate_dataset",
        "load_dataset",
        "evaluate",
        "explain",
        "function_strategy",
        "StateGraph",
        "savefig",
    ],
}
