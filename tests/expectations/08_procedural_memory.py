"""Expected figures for notebooks/08_procedural_memory.ipynb (defaults: agent "support", budget 120 tokens)."""

EXPECT = {
    # v1 created approved, v2 approved, v3 rejected; the two refused proposals wrote nothing
    "versions_created": ("==", 3),
    "versions_approved": ("==", 2),
    "versions_rejected": ("==", 1),
    "guardrail_refusals_clean": ("==", 2),
    "bad_input_refusals_clean": ("==", 4),
    "pending_version_not_used": ("true",),
    "rollback_restores_exact_text": ("true",),
    "rollback_agent_runs_v1": ("true",),
    # the feedback's instruction reaches the optimized prompt, for every optimizer kind
    "rule_in_optimized_prompt_gradient": ("true",),
    "rule_in_optimized_prompt_metaprompt": ("true",),
    "rule_in_optimized_prompt_prompt_memory": ("true",),
    "rule_in_v2_system_prompt": ("true",),
    "rule_in_v1_system_prompt": ("false",),
    "system_prompt_tokens_v1": ("between", 40, 120),
    "system_prompt_tokens_v2": ("between", 45, 160),
    # offline: two product-note sentences without a length rule; v2's "Always answer in one
    # sentence" cuts the answer to its first sentence (memlib.offline.answer_limits)
    "answer_sentences_v1": ("==", 2),
    "answer_sentences_v2": ("==", 1),
    "multi_prompt_updated_only_writer": ("true",),
}
EXPECT |= {
    # ten feedback rounds against a 120-token budget: the offline optimizer appends one rule per
    # round, six fit (measured 2026-11-29), the rest are refused
    "growth_rounds_approved": ("between", 3, 9),
    "growth_rounds_refused": (">=", 1),
    "growth_active_prompt_tokens": ("<=", 120),
}
