"""Cross-agent memory: grants, refusals that write nothing, provenance stamping, versioned keys,
list_namespaces filtering, graph-thread provenance, fixtures; on InMemoryStore and FaissStore
with the real MiniLM embeddings."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import GetOp, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore
from typing_extensions import TypedDict

from memlib.checks import check_namespace
from memlib.embeddings import DIMS, MiniLMEmbeddings
from memlib.faiss_store import FaissStore
from memlib.shared_memory import (
    PROVENANCE_FIELDS,
    Grant,
    ScopedStore,
    load_memory_queries,
    load_shared_memories,
    load_sources,
    provenance,
)

EMB = MiniLMEmbeddings()
FINDINGS = ("org", "acme", "shared", "findings")
DRAFTS = ("org", "acme", "shared", "drafts")
GRANTS = {
    "researcher": [Grant(("org", "acme", "shared")), Grant(FINDINGS, write=True)],
    "writer": [Grant(("org", "acme", "shared")), Grant(DRAFTS, write=True)],
    "reviewer": [Grant(FINDINGS, write=True), Grant(("agents", "reviewer", "private"), write=True)],
}


def snapshot(store):
    return sorted(
        (tuple(i.namespace), i.key, json.dumps(i.value, sort_keys=True))
        for ns in store.list_namespaces(limit=1000)
        for i in store.search(ns, limit=1000)
    )


@pytest.fixture(params=["faiss", "inmemory"])
def base(request):
    index = {"dims": DIMS, "embed": EMB, "fields": ["text"]}
    return FaissStore(index=index) if request.param == "faiss" else InMemoryStore(index=index)


# --- namespaces and grants ----------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, exc",
    [
        ((), ValueError),
        (("org", ""), ValueError),
        (("org", "  "), ValueError),
        (("org", "a.b"), ValueError),
        (("org", 3), ValueError),
        ("org", TypeError),
        (("langgraph", "x"), ValueError),
    ],
)
def test_check_namespace_rejects_bad_namespaces_naming_them(bad, exc):
    with pytest.raises(exc, match="namespace"):
        check_namespace(bad)


def test_check_namespace_accepts_a_list_as_a_tuple():
    assert check_namespace(["org", "acme"]) == ("org", "acme")


def test_grant_validation():
    assert Grant(("org",)).read and not Grant(("org",)).write
    with pytest.raises(ValueError, match="neither read nor write"):
        Grant(("org",), read=False, write=False)
    with pytest.raises(ValueError, match="labels must be non-empty"):
        Grant(("org", ""), write=True)
    with pytest.raises(TypeError, match="bools"):
        Grant(("org",), read=1)


def test_scoped_store_rejects_unknown_agent_bad_store_and_bad_grants(base):
    with pytest.raises(ValueError, match="unknown agent 'summarizer'.*researcher"):
        ScopedStore(base, "summarizer", GRANTS)
    with pytest.raises(ValueError, match="agent must be a non-empty string"):
        ScopedStore(base, "", GRANTS)
    with pytest.raises(TypeError, match="agent must be a str, got int"):
        ScopedStore(base, 7, GRANTS)
    with pytest.raises(TypeError, match="BaseStore"):
        ScopedStore({}, "writer", GRANTS)
    with pytest.raises(TypeError, match="is not a Grant"):
        ScopedStore(base, "writer", {"writer": [("org",)]})
    with pytest.raises(ValueError, match="thread_id"):
        ScopedStore(base, "writer", GRANTS, thread_id="")


# --- refusals -----------------------------------------------------------------------------


def test_write_outside_grants_names_agent_and_namespace_and_writes_nothing(base):
    writer = ScopedStore(base, "writer", GRANTS)
    before = snapshot(base)
    with pytest.raises(
        PermissionError,
        match=r"agent 'writer' may not write namespace \('org', 'acme', 'shared', 'findings'\)",
    ):
        writer.put(FINDINGS, "f1", {"text": "not mine to write"})
    with pytest.raises(PermissionError, match="may not write"):
        writer.delete(FINDINGS, "f1")
    assert snapshot(base) == before == []


def test_mixed_batch_is_refused_as_a_whole(base):
    writer = ScopedStore(base, "writer", GRANTS)
    with pytest.raises(PermissionError, match="findings"):
        writer.batch(
            [
                PutOp(DRAFTS, "ok", {"text": "allowed draft"}),
                PutOp(FINDINGS, "no", {"text": "refused finding"}),
            ]
        )
    assert base.get(DRAFTS, "ok") is None and base.get(FINDINGS, "no") is None
    with pytest.raises(ValueError, match="labels must be non-empty"):
        writer.batch(
            [PutOp(DRAFTS, "ok", {"text": "a"}), PutOp(("org", "", "x"), "k", {"text": "b"})]
        )
    with pytest.raises(TypeError, match="must be a dict"):
        writer.batch([PutOp(DRAFTS, "ok", {"text": "a"}), PutOp(DRAFTS, "k2", "plain text")])
    assert snapshot(base) == []


def test_reads_are_checked_on_the_searched_prefix(base):
    base.put(FINDINGS, "f1", {"text": "The gateway connection pool ran out."})
    base.put(("org", "globex", "shared", "findings"), "g1", {"text": "Memcached hid a surcharge."})
    base.put(("agents", "reviewer", "private"), "n1", {"text": "check units"})
    writer = ScopedStore(base, "writer", GRANTS)
    hits = writer.search(("org", "acme", "shared"), query="the connection pool was exhausted")
    assert [h.key for h in hits] == ["f1"] and hits[0].score > 0.3
    assert writer.get(FINDINGS, "f1").value["text"].startswith("The gateway")
    for call in (
        lambda: writer.search(("org",), query="surcharge"),  # wider than any grant
        lambda: writer.search(("agents", "reviewer", "private")),
        lambda: writer.get(("org", "globex", "shared", "findings"), "g1"),
    ):
        with pytest.raises(PermissionError, match="agent 'writer' may not read"):
            call()


def test_list_namespaces_shows_only_readable_namespaces_and_pages_after_filtering(base):
    for i, ns in enumerate(
        [
            FINDINGS,
            DRAFTS,
            ("org", "acme", "shared", "style"),
            ("org", "globex", "shared", "x"),
            ("agents", "reviewer", "private"),
        ]
    ):
        base.put(ns, f"k{i}", {"text": f"item {i}"})
    writer = ScopedStore(base, "writer", GRANTS)
    visible = writer.list_namespaces()
    assert visible == [DRAFTS, FINDINGS, ("org", "acme", "shared", "style")]
    assert writer.list_namespaces(limit=1, offset=1) == [FINDINGS]
    # max_depth truncates after filtering: the writer sees ('org', 'acme'), never ('org', 'globex')
    assert writer.list_namespaces(max_depth=2) == [("org", "acme")]
    assert writer.list_namespaces(prefix=("org", "globex")) == []
    reviewer = ScopedStore(base, "reviewer", GRANTS)
    assert set(reviewer.list_namespaces()) == {FINDINGS, ("agents", "reviewer", "private")}


# --- provenance -----------------------------------------------------------------------------


def test_every_write_is_stamped_and_overwrites_are_visible(base):
    researcher = ScopedStore(base, "researcher", GRANTS, thread_id="t-research")
    reviewer = ScopedStore(base, "reviewer", GRANTS, thread_id="t-review")
    researcher.put(FINDINGS, "f1", {"text": "first", "written_by": "reviewer", "revision": 99})
    first = provenance(base.get(FINDINGS, "f1"))
    assert set(first) == set(PROVENANCE_FIELDS)
    assert first["written_by"] == "researcher"  # a forged writer is overwritten
    assert first["revision"] == 1 and first["previous_writer"] is None
    assert first["source_thread"] == "t-research" and first["written_at"].endswith("+00:00")
    reviewer.put(FINDINGS, "f1", {"text": "corrected"})
    second = provenance(base.get(FINDINGS, "f1"))
    assert (second["written_by"], second["revision"], second["previous_writer"]) == (
        "reviewer",
        2,
        "researcher",
    )
    assert second["written_at"] >= first["written_at"]
    assert base.get(FINDINGS, "f1").value["text"] == "corrected"
    assert [i.key for i in base.search(FINDINGS, filter={"written_by": "reviewer"})] == ["f1"]
    reviewer.delete(FINDINGS, "f1")
    assert base.get(FINDINGS, "f1") is None


def test_provenance_refuses_unstamped_items(base):
    base.put(FINDINGS, "raw", {"text": "written around the wrapper"})
    with pytest.raises(ValueError, match="no provenance fields"):
        provenance(base.get(FINDINGS, "raw"))
    with pytest.raises(TypeError):
        provenance({"written_by": "x"})


def test_source_thread_comes_from_the_running_graph(base):
    class State(TypedDict, total=False):
        text: str

    def note(state: State, runtime: Runtime) -> dict:
        runtime.store.put(DRAFTS, "d1", {"text": state["text"]})
        return {}

    builder = StateGraph(State)
    builder.add_node(note)
    builder.add_edge(START, "note")
    graph = builder.compile(store=ScopedStore(base, "writer", GRANTS), checkpointer=InMemorySaver())
    graph.invoke({"text": "a draft"}, {"configurable": {"thread_id": "ben-chat-7"}})
    p = provenance(base.get(DRAFTS, "d1"))
    assert p["source_thread"] == "ben-chat-7" and p["written_by"] == "writer"
    outside = ScopedStore(base, "writer", GRANTS)
    outside.put(DRAFTS, "d2", {"text": "no graph"})
    assert provenance(base.get(DRAFTS, "d2"))["source_thread"] is None


def test_refusal_inside_a_graph_surfaces_through_invoke(base):
    class State(TypedDict, total=False):
        text: str

    def rogue(state: State, runtime: Runtime) -> dict:
        runtime.store.put(DRAFTS, "d1", {"text": "fine"})
        runtime.store.put(FINDINGS, "f1", {"text": "not allowed"})
        return {}

    builder = StateGraph(State)
    builder.add_node(rogue)
    builder.add_edge(START, "rogue")
    graph = builder.compile(store=ScopedStore(base, "writer", GRANTS))
    with pytest.raises(PermissionError, match="findings"):
        graph.invoke({"text": "x"})
    assert base.get(FINDINGS, "f1") is None  # the first put, being allowed, did happen
    assert base.get(DRAFTS, "d1") is not None


def test_async_path_checks_and_stamps(base):
    writer = ScopedStore(base, "writer", GRANTS, thread_id="t-async")

    async def run():
        await writer.aput(DRAFTS, "a1", {"text": "async draft"})
        with pytest.raises(PermissionError):
            await writer.aput(FINDINGS, "a2", {"text": "refused"})
        return await writer.asearch(("org", "acme", "shared"), query="draft")

    hits = asyncio.run(run())
    assert [h.key for h in hits] == ["a1"]
    assert provenance(hits[0])["source_thread"] == "t-async"
    assert base.get(FINDINGS, "a2") is None


def test_stamped_fields_are_not_embedded():
    store = InMemoryStore(index={"dims": DIMS, "embed": EMB, "fields": ["text"]})
    ScopedStore(store, "writer", GRANTS).put(DRAFTS, "d", {"text": "pool exhaustion"})
    hit = store.search(DRAFTS, query="pool exhaustion")[0]
    assert hit.score > 0.99  # only `text` was embedded


# --- versioned keys -------------------------------------------------------------------------


# --- a property: a view never changes what its grants do not cover ---------------------------

LABELS = st.sampled_from(["org", "acme", "globex", "shared", "users", "ben"])
NAMESPACES = st.lists(LABELS, min_size=1, max_size=3).map(tuple)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    grants=st.lists(st.tuples(NAMESPACES, st.booleans(), st.booleans()), min_size=1, max_size=3),
    ops=st.lists(st.tuples(NAMESPACES, st.sampled_from(["k1", "k2"]), st.booleans()), max_size=6),
)
def test_views_only_change_granted_namespaces(grants, ops):
    store = InMemoryStore()
    store.put(("org", "acme"), "k1", {"text": "seed"})
    table = {"a": [Grant(p, read=r or not w, write=w) for p, r, w in grants]}
    view = ScopedStore(store, "a", table)
    batch = [PutOp(ns, key, {"text": "v"} if put else None) for ns, key, put in ops]
    before = snapshot(store)
    allowed = all(view.can_write(ns) for ns, _, _ in ops)
    if allowed:
        view.batch(batch)
    else:
        with pytest.raises(PermissionError):
            view.batch(batch)
        assert snapshot(store) == before
    after = {(ns, key): v for ns, key, v in snapshot(store)}
    for (ns, key), v in {(ns, key): v for ns, key, v in before}.items():
        if not view.can_write(ns):
            assert after.get((ns, key)) == v
    for op in (GetOp(("globex",), "k1"), SearchOp(("globex",))):
        if not view.can_read(("globex",)):
            with pytest.raises(PermissionError):
                view.batch([op])


# --- fixtures -------------------------------------------------------------------------------


def test_fixtures_load_and_are_consistent():
    memories = load_shared_memories()
    queries = load_memory_queries(memories=memories)
    assert len(memories) == 26 and len(queries) == 14
    by_id = {m["id"]: m for m in memories}
    for q in queries:
        for rid in q["relevant"]:
            m = by_id[rid]
            # every planted answer is one the asker may see
            assert (
                (m["kind"] == "user" and m["user_id"] == q["user_id"])
                or (m["kind"] == "shared" and m["org"] == q["org"])
                or (m["kind"] == "private" and m["agent"] == q["agent"])
            ), (q, m)
    assert load_sources()[0]["id"] == "inc-0512"


def test_bad_fixtures_raise_naming_the_row(tmp_path):
    good = load_shared_memories()[0]
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({**good, "kind": "global"}) + "\n")
    with pytest.raises(ValueError, match="kind must be one of"):
        load_shared_memories(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n")
    with pytest.raises(ValueError, match="duplicate memory id"):
        load_shared_memories(path)
    path.write_text("{not json\n")
    with pytest.raises(ValueError, match=r"\.jsonl:1: not JSON"):
        load_shared_memories(path)
    q = tmp_path / "q.jsonl"
    q.write_text(
        json.dumps(
            {"id": "q", "agent": "a", "user_id": "u", "org": "o", "query": "?", "relevant": ["zz"]}
        )
        + "\n"
    )
    with pytest.raises(ValueError, match="relevant"):
        load_memory_queries(q)


# bad input: each public name refuses it with a message naming the value


def test_bad_input_Grant():
    with pytest.raises(TypeError, match="'org'"):
        Grant("org")
    with pytest.raises(ValueError, match="'a.b'"):
        Grant(("org", "a.b"))
    with pytest.raises(TypeError, match="bools"):
        Grant(("org",), read=1)
    assert Grant(["org", "acme"]).prefix == ("org", "acme")  # a list becomes a hashable tuple


def test_bad_input_ScopedStore():
    store = InMemoryStore()
    with pytest.raises(TypeError, match=r"grants\['writer'\] must be a list of Grants.*Grant\("):
        ScopedStore(store, "writer", {"writer": Grant(DRAFTS, write=True)})
    with pytest.raises(TypeError, match="'drafts'"):
        ScopedStore(store, "writer", {"writer": "drafts"})
    with pytest.raises(TypeError, match="NoneType"):
        ScopedStore(None, "writer", GRANTS)
    with pytest.raises(TypeError, match="list"):
        ScopedStore(store, "writer", [Grant(DRAFTS)])
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        ScopedStore(store, "nobody", GRANTS)


def test_bad_input_check_namespace():
    with pytest.raises(TypeError, match="'ns'"):
        check_namespace("ns")
    with pytest.raises(TypeError, match="NoneType"):
        check_namespace(None)
    with pytest.raises(ValueError, match="'langgraph'"):
        check_namespace(("langgraph", "x"))
    with pytest.raises(ValueError, match=r"'a\\x00b'"):
        check_namespace(("org", "a\x00b"))


def test_bad_input_provenance():
    with pytest.raises(TypeError, match="'text'"):
        provenance({"text": "not an item"})
    with pytest.raises(TypeError, match="None"):
        provenance(None)
