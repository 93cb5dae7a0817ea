"""Expected figures for notebooks/06_summary_rotation.ipynb (defaults: threshold 8, keep 2, 50 turns)."""

EXPECT = {
    # 11 turns, threshold 8, keep 2: counts after each turn's compress step
    "demo_max_messages_in_state": ("==", 8),
    "demo_max_prompt_messages": ("==", 10),  # 8 + the new user turn + the system message
    "demo_summary_calls": ("==", 2),  # turns 5 and 9
    "demo_turn11_summary_has_turn1_facts": ("true",),
    "demo_summary_words": ("between", 10, 130),  # asked for at most 120
    # in-place mutation under durability="sync": 3 turns, the checkpoint keeps all 6
    "in_place_mutation_returned_messages": ("==", 2),
    "in_place_mutation_checkpoint_messages": ("==", 6),
    # tool-call groups
    "naive_tail_starts_with_orphan": ("true",),
    "split_tail_starts_with_orphan": ("false",),
    "langmem_leaves_orphan_tool_message": ("true",),  # langmem#126, open upstream
    "agent_tool_call_groups": (">=", 1),
    "agent_compressions": (">=", 1),
    "agent_naive_cuts_orphaning": (">=", 1),
    "agent_max_messages_in_state": ("<=", 8),
    # four strategies, 50 turns
    "full_messages_in_state_turn50": ("==", 100),
    "trim_messages_in_state_turn50": ("==", 100),
    "langmem_messages_in_state_turn50": ("==", 100),  # langmem#101: nothing deleted
    "rotation_messages_in_state_turn50": ("==", 4),
    "rotation_max_stored_messages": ("<=", 8),
    "langmem_stored_messages_turn50": (">=", 101),  # plus the summarized_messages copy
    "full_prompt_tokens_turn50": (">=", 1000),
    "trim_prompt_tokens_turn50": ("<=", 400),
    "langmem_prompt_tokens_turn50": ("<=", 600),
    "rotation_prompt_tokens_turn50": ("between", 100, 600),
    "full_summary_calls": ("==", 0),
    "trim_summary_calls": ("==", 0),
    "langmem_summary_calls": (">=", 1),
    "rotation_summary_calls": ("==", 12),  # turns 5, 9, ..., 49
    "full_facts_in_prompt_turn50": ("true",),
    "trim_facts_in_prompt_turn50": ("false",),
    "langmem_facts_in_prompt_turn50": ("true",),
    "rotation_facts_in_prompt_turn50": ("true",),
    "full_answer_has_facts_turn50": ("true",),
    "trim_answer_has_facts_turn50": ("false",),
    "full_earlier_facts_in_prompt_turn50": ("==", 35),
    "trim_earlier_facts_in_prompt_turn50": ("<=", 15),
    "langmem_earlier_facts_in_prompt_turn50": (">=", 2),
    "rotation_earlier_facts_in_prompt_turn50": (">=", 2),
    # the rotation summary at turn 50 keeps turn 1 and lets the last ten turns in (5 of 5 facts
    # since 2026-11-29; the earlier summarizer froze once full and held none of them)
    "rotation_summary_turn50_has_turn1_facts": ("true",),
    "rotation_summary_turn50_late_facts": (">=", 3),
    # restart from SQLite
    "resumed_messages": ("==", 6),
    "resumed_summary_has_turn1_facts": ("true",),
    "checkpoints_holding_turn1_verbatim": (">=", 1),
    "bad_budgets_refused": ("==", 3),
}
