"""Expected figures of notebooks/05_cross_agent_memory.ipynb (offline backend).

The strategy table comes from the real MiniLM embeddings and exact FAISS search over the committed
fixtures (data/shared_memory/: 26 memories of two orgs, four users and three agents; 14 questions).
Measured on 2026-11-29 at K=3 (42 hits per strategy), leaks as other user / other agent / other
org, then answers found:
  flat                3 / 2 / 13, 14 of 14
  per agent           5 / 0 / 16,  9 of 14
  per user, per type  0 / 3 /  0, 12 of 14
  org / agent / user  0 / 0 /  0, 14 of 14
The layout of the last row cannot leak by construction of its search prefixes; its zeros check
that the namespaces were written where the prefixes look. The other rows' leaks are what the
notebook teaches, so they have floors, not exact values. The writer found the researcher's
finding first with cosine 0.723.

Not asserted: the draft's wording and the reviewer's verdict (the chat model's skill).
"""

EXPECT = {
    # fixtures and layout
    "planted_memories": ("==", 26),
    "planted_queries": ("==", 14),
    "namespaces": ("==", 23),
    "items_users": ("==", 12),
    "items_agents": ("==", 6),
    "items_org_acme_shared": ("==", 4),
    "items_org_globex_shared": ("==", 4),
    # the measured namespacing strategies
    "leaks_other_user_flat": (">=", 1),
    "leaks_other_org_flat": (">=", 5),
    "found_flat": (">=", 12),
    "leaks_other_user_per_agent": (">=", 1),
    "leaks_other_org_per_agent": (">=", 5),
    "leaks_other_agent_per_agent": ("==", 0),
    "found_per_agent": ("<=", 11),
    "leaks_other_user_per_user_per_type": ("==", 0),
    "leaks_other_org_per_user_per_type": ("==", 0),
    "leaks_other_agent_per_user_per_type": (">=", 1),
    "found_per_user_per_type": ("<=", 13),
    "leaks_other_user_org_agent_user": ("==", 0),
    "leaks_other_agent_org_agent_user": ("==", 0),
    "leaks_other_org_org_agent_user": ("==", 0),
    "found_org_agent_user": ("==", 14),
    # grants, agents, provenance, conflicts, bad input
    "permission_denials": ("==", 3),
    "reader_found_writer_finding": ("true",),
    "finding_score": ("between", 0.5, 1.0),
    "provenance_fields_present": ("true",),
    "items_with_provenance": ("==", 4),
    "conflict_revision": ("==", 2),
    "versions_kept": ("==", 2),
    "bad_inputs_refused": ("==", 4),
    "nothing_half_written": ("true",),
}
