"""Expected figures for notebooks/10_production_backends.ipynb (defaults: K 3, a 1 s TTL).

Backend mechanics, the same on any model (the notebook asserts them): every backend's reply in the
new thread names the remembered dog and its store holds the fact; a second process reads the old
thread (2 messages) and the memory back on faiss, sqlite and postgres; the expiring item is gone
from reads and rows on sqlite and postgres (memory / faiss refuse a TTL: tests/test_backends.py;
another user's thread is refused on all four: tests/test_tenancy.py); the audit trail holds
the facts manager's writes and the support desk's delete; the poisoned store still gets the dog's
name. Concurrent users of the same agent on the async stores (each answered from their own memory)
and the latency table left the notebook: tests/test_backends.py and benchmarks/backends.py.

The offline model's part, pinned here and recorded: one fact per backend (the explicit request),
the restart's answer naming Porto, the audit trail's length (the manager's inserts and updates plus
one delete: depends on the extraction's wording, so a band), and the answer with the quoted poison
being the same as without it.
"""

EXPECT = {
    "memory_reply_names_the_dog": ("true",),
    "faiss_reply_names_the_dog": ("true",),
    "sqlite_reply_names_the_dog": ("true",),
    "postgres_reply_names_the_dog": ("true",),
    "memory_facts": ("between", 1, 2),
    "faiss_facts": ("between", 1, 2),
    "sqlite_facts": ("between", 1, 2),
    "postgres_facts": ("between", 1, 2),
    # another user's id on Ana's thread id: refused by the bound checkpointer on every backend
    "restart_faiss_old_messages": ("==", 2),
    "restart_sqlite_old_messages": ("==", 2),
    "restart_postgres_old_messages": ("==", 2),
    "restart_faiss_answer_porto": ("true",),
    "restart_sqlite_answer_porto": ("true",),
    "restart_postgres_answer_porto": ("true",),
    "ttl_backends_expiring": ("==", 2),
    "audit_entries": ("between", 3, 6),
    "audit_deletes": ("between", 1, 2),
    "poisoned_answer_names_the_dog": ("true",),
    "poisoned_answer_unchanged": ("true",),
    # get_chat_model(obeys_context=True): the offline stand-in follows an ordering line of its
    # system prompt, so the plain-lines agent answers "HACKED"; quoted, the order is data
    "obeying_plain_lines_hijacked": ("true",),
    "obeying_quoted_data_names_the_dog": ("true",),
}

# Figures that may differ between the offline model in the kernel and the same model behind the
# OpenAI client path. Empty: every figure is a count or answer the offline model fixes.
OPENAI_DIFFERENCES: dict[str, str] = {
    "obeying_plain_lines_hijacked": "obeys_context configures the offline model only; on the "
    "OpenAI path the model (here the local server's, which does not obey) is used as it is",
}

# The technique written in the cells (tests/test_notebook_code.py): the agent run per URL, the
# audit wrapper, and memories rendered as data (saved to memlib.agent).
TECHNIQUE = {
    "defines": ["run_agent", "AuditedStore"],
    "calls": [
        "PostgresSaver",
        "PostgresStore",
        "setup",
        "open_store",
        "open_checkpointer",
        "sweep_ttl",
        "batch",
        "abatch",
    ],
}
