"""Expected figures of notebooks/06_summary_rotation.ipynb (offline backend).

Defaults: threshold 8, keep 2, 120-word summaries, 50 scripted user turns. Measured 2026-11-29.

Graph mechanics, the same on every backend (the notebook asserts most of them): message counts in
state after each turn (2, 4, 6, 8, 2, ...; 4 at turn 50 for rotation, 100 for the others),
summarization calls of rotation (turns 5, 9, ..., 49), the prompt bound (8 + the new turn + the
system message), the restart resuming exactly the saved summary and message ids, the checkpoints still holding
turn 1 verbatim (14 of 38), LangMem 0.0.30's cut through a parallel tool call (langmem#126, open
upstream), inspected with a stand-in model so nothing is sent: its summarizer request leaves
call_refunds unanswered and the prompt it returns starts with the orphan result.

The offline model's part, pinned here and recorded (not asserted) by the notebook:
- the summaries: turn-1 facts (Priya Raman, Northwind Labs) kept in the turn-11, resumed and
  turn-50 rotation summaries; 93 words at turn 11; 1 of the last ten turns' 5 facts at turn 50
  (since 2026-12-01 the summarizer drops whole sentences by worth - centrality, facts about the
  user, unique names and numbers, decisions - instead of shrinking old ones to a keyword list, so
  it keeps more early facts and fewer late ones; the rewording server's summarizer dropped
  Northwind Labs by turn 50);
- the agent with search_runbook: 5 tool-call groups, 3 compressions, 2 of which a naive last-2
  cut would have orphaned a ToolMessage (a model that calls the tool on other turns moves these);
- the 50-turn comparison: tiktoken prompt tokens at turn 50 (full 1662, trim 383, LangMem 446,
  rotation 221), LangMem's 4 summarization calls and its summarized_messages copy (120 stored
  messages), earlier facts still in the last prompt (full 35 of 35, trim 6, LangMem 15, rotation
  14), and which answers to "what's my name, which company?" state both facts (whole words in a
  sentence that does not say "I don't know": since 2026-12-01, issue #26, the reply "I don't know
  your name before Priya Raman - you haven't told me. You work at Northwind Labs." fails it; the
  offline model now answers "Your name is Priya Raman. You work at Northwind Labs.").
  Re-pinned 2026-12-01 (#26): the offline model's replies lost the "From what I have in
  context:" lead-in and acknowledge a statement in the user's own words, so every reply's tokens
  changed, and with them where LangMem's token-triggered summarization and trim_messages' window
  fall.
  Re-pinned 2026-12-02 (#26 item 6): summaries are third-person sentences with their articles
  ("User stores the raw files in an S3 bucket", was "We store raw files in S3 bucket"), so each
  sentence is longer: the turn-11 summary 85 -> 93 words, the turn-50 rotation summary keeps one
  late fact (the post-migration review) where it kept two, and the longer replies move where
  LangMem's token-triggered summarization falls (104 stored messages, 10 earlier facts in its
  last prompt).
  Re-pinned 2026-12-02 (#26 items 3, 6): the offline model tells a statement back ("You store the
  raw files in an S3 bucket called nw-raw-orders.") where it answered "Noted.", so the 50 replies
  hold more tokens: the full-history prompt at turn 50 1325 -> 1678 tokens, trim_messages' 400-token
  window reaches back over fewer turns (9 -> 6 earlier facts), and LangMem's token-triggered
  summarization falls at other turns (121 stored messages, a 460-token last prompt within its
  max_tokens 512, 15 earlier facts in it).
"""

EXPECT = {
    # 11 turns, threshold 8, keep 2: counts after each turn's compress step
    "demo_max_messages_in_state": ("==", 8),
    "demo_max_prompt_messages": ("==", 10),  # 8 + the new user turn + the system message
    "demo_summary_calls": ("==", 2),  # turns 5 and 9
    "demo_turn11_summary_has_turn1_facts": ("true",),
    "demo_summary_words": ("between", 88, 98),  # 93; asked for at most 120
    # tool-call groups
    "naive_tail_starts_with_orphan": ("true",),
    "split_tail_starts_with_orphan": ("false",),
    "langmem_request_splits_tool_call": ("true",),  # langmem#126: call_refunds unanswered
    "langmem_leaves_orphan_tool_message": ("true",),  # ... and t2 orphaned in its prompt
    "agent_tool_call_groups": ("==", 5),
    "agent_compressions": ("==", 3),
    "agent_naive_cuts_orphaning": ("==", 2),
    "agent_max_messages_in_state": ("<=", 8),
    # four strategies, 50 turns
    "full_messages_in_state_turn50": ("==", 100),
    "trim_messages_in_state_turn50": ("==", 100),
    "langmem_messages_in_state_turn50": ("==", 100),  # langmem#101: nothing deleted
    "rotation_messages_in_state_turn50": ("==", 4),
    "rotation_max_stored_messages": ("<=", 8),
    "langmem_stored_messages_turn50": ("==", 120),  # plus the summarized_messages copy
    "full_prompt_tokens_turn50": ("between", 1600, 1760),  # 1662
    "trim_prompt_tokens_turn50": ("between", 360, 400),  # 383; the window is 400
    "langmem_prompt_tokens_turn50": ("between", 430, 490),  # 446; max_tokens 512
    "rotation_prompt_tokens_turn50": ("between", 210, 240),  # 221
    "full_summary_calls": ("==", 0),
    "trim_summary_calls": ("==", 0),
    "langmem_summary_calls": ("==", 4),
    "rotation_summary_calls": ("==", 12),  # turns 5, 9, ..., 49
    "full_facts_in_prompt_turn50": ("true",),
    "trim_facts_in_prompt_turn50": ("false",),
    "langmem_facts_in_prompt_turn50": ("true",),
    "rotation_facts_in_prompt_turn50": ("true",),
    "full_answer_has_facts_turn50": ("true",),
    "trim_answer_has_facts_turn50": ("false",),
    "langmem_answer_has_facts_turn50": ("true",),
    "rotation_answer_has_facts_turn50": ("true",),
    "full_earlier_facts_in_prompt_turn50": ("==", 35),
    "trim_earlier_facts_in_prompt_turn50": ("==", 6),
    "langmem_earlier_facts_in_prompt_turn50": ("==", 15),
    "rotation_earlier_facts_in_prompt_turn50": ("==", 14),
    # the rotation summary at turn 50 keeps turn 1 and lets the last ten turns in
    "rotation_summary_turn50_has_turn1_facts": ("true",),
    "rotation_summary_turn50_late_facts": ("==", 1),
    # restart from SQLite
    "resumed_messages": ("==", 6),
    "resumed_state_matches_saved": ("true",),
    "resumed_summary_has_turn1_facts": ("true",),
    "resumed_answer_has_facts": ("true",),
    "checkpoints_holding_turn1_verbatim": ("==", 14),
    # prune_history (keep_latest): one checkpoint left, none with turn 1, no byte of it on disk
    "checkpoints_after_prune": ("==", 1),
    "checkpoints_holding_turn1_after_prune": ("==", 0),
    "files_holding_turn1_after_prune": ("==", 0),
}

# The OpenAI client path gives the same figures: the server answers with the offline model, and
# the langmem#126 cell sends nothing (its stand-in model keeps the request).
OPENAI_DIFFERENCES: dict[str, str] = {}

# What the notebook writes in its own cells (tests/test_notebook_code.py)
TECHNIQUE = {
    "defines": [
        "SummaryState",
        "chat_node",
        "split_for_summary",
        "compress_node",
        "route_after_chat",
        "summary_request",
        "build_rotation_graph",
    ],
    "calls": [
        "RemoveMessage",
        "StateGraph",
        "add_node",
        "add_edge",
        "add_conditional_edges",
        "compile",
        "InMemorySaver",
        "add_messages",
        "trim_messages",
        "SummarizationNode",
        "summarize_messages",
    ],
}
