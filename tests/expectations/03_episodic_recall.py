"""Expected figures of notebooks/03_episodic_recall.ipynb (offline backend).

Recall figures come from the real MiniLM embeddings and an exact FAISS index over the committed
fixtures (data/episodes/). Measured on 2026-11-29: recall@1/3/5 = 0.915 / 0.976 / 0.988 on all
episodes and 0.963 / 0.976 / 0.988 with the recency cutoff (0.963 is the ceiling at k=1: three
tasks need two episodes); 18 stale episodes in the top 3 without the cutoff. Floors sit a little
below the measurements.

Whether the model applies a recalled lesson is the chat model's skill, not the memory's. The
offline model answers a how-to question from the closest worked example's lesson (share 1.0 since
2026-11-29; it quoted another line of the example before, share below 0.5).
"""

EXPECT = {
    # fixtures
    "planted_episodes": ("==", 58),
    "planted_queries": ("==", 41),
    # recall@k, user namespace, no filter / with the recency cutoff
    "recall_at_1": (">=", 0.85),
    "recall_at_3": (">=", 0.93),
    "recall_at_5": (">=", 0.95),
    "recall_at_1_recent": (">=", 0.9),
    "recall_at_3_recent": (">=", 0.93),
    "recall_at_5_recent": (">=", 0.95),
    # filters and isolation
    "stale_in_top3": (">=", 8),
    "stale_in_top3_recent": ("==", 0),
    "cross_user_hits": ("==", 0),
    "type_filter_ok": ("true",),
    # extraction, and with / without recall on the repeated task
    "episodes_extracted": ("==", 3),
    "repeat_task_recalls_extracted_episode": ("true",),
    "prompt_tokens_without_recall": ("<=", 30),
    "prompt_tokens_with_recall": ("between", 200, 900),
    "lesson_share_without_recall": ("<=", 0.49),
    "lesson_share_with_recall": (">=", 0.5),
    "lesson_in_answer_with_recall": ("true",),
}
