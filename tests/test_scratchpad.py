"""Scratchpad state, reducers and the research graph (real MiniLM, FAISS, SQLite, offline model)."""

from __future__ import annotations

import operator
import sqlite3
from typing import Annotated, TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from memlib.corpus import CorpusIndex
from memlib.embeddings import MiniLMEmbeddings
from memlib.scratchpad import (
    Grade,
    ResearchState,
    add_unique,
    build_research_graph,
    cited_sources,
    evidence_lines,
    evidence_per_aspect,
    kept_docs,
    make_grader,
    merge_by_id,
    new_research,
    parse_yes_no,
    question_aspects,
    research_summary,
    review_problem,
    scratchpad,
)

QUESTION = (
    "What chunk size should we use when indexing documents? How often is the search index rebuilt?"
)


@pytest.fixture(scope="module")
def index():
    return CorpusIndex.from_path(embeddings=MiniLMEmbeddings())


@pytest.fixture(scope="module")
def model():
    mp = pytest.MonkeyPatch()
    mp.setenv("MEMLIB_LLM", "offline")
    from memlib.models import get_chat_model

    yield get_chat_model()
    mp.undo()


@pytest.fixture(scope="module")
def uninterrupted(index, model):
    app = build_research_graph(index, model).compile(checkpointer=InMemorySaver())
    return app.invoke(new_research(QUESTION), {"configurable": {"thread_id": "plain"}})


# --- reducers -----------------------------------------------------------------------------

docs_lists = st.lists(
    st.fixed_dictionaries({"id": st.sampled_from("abcdef"), "v": st.integers(0, 3)}), max_size=8
)


@given(docs_lists, docs_lists)
def test_merge_by_id_properties(left, right):
    left_copy, right_copy = [dict(d) for d in left], [dict(d) for d in right]
    merged = merge_by_id(left, right)
    assert left == left_copy and right == right_copy, "reducer mutated its inputs"
    ids = [d["id"] for d in merged]
    assert len(ids) == len(set(ids)), "an id appears twice"
    assert set(ids) == {d["id"] for d in left} | {d["id"] for d in right}
    assert merge_by_id(merged, right) == merged, "merging the same update twice changed the list"
    last = {d["id"]: d for d in left + right}
    assert merged == [last[i] for i in dict.fromkeys(d["id"] for d in left + right)]


@given(st.lists(st.text(max_size=3)), st.lists(st.text(max_size=3)))
def test_add_unique_properties(left, right):
    left = list(dict.fromkeys(left))
    before = list(left)
    merged = add_unique(left, right)
    assert left == before
    assert merged[: len(left)] == left
    assert len(merged) == len(set(merged)) == len(set(left) | set(right))
    assert add_unique(merged, right) == merged


def test_merge_by_id_rejects_items_without_id():
    with pytest.raises(ValueError, match="'id'"):
        merge_by_id([], [{"name": "x"}])
    assert merge_by_id(None, None) == [] and add_unique(None, None) == []


class AddState(TypedDict):
    sources: Annotated[list[str], operator.add]


class UniqueState(TypedDict):
    sources: Annotated[list[str], add_unique]


def _two_nodes(state_type, in_place: bool):
    def make(doc):
        def node(state):
            if in_place:
                state["sources"].append(doc)
                return {"sources": state["sources"]}
            return {"sources": [doc]}

        return node

    g = StateGraph(state_type)
    g.add_node("a", make("doc-a"))
    g.add_node("b", make("doc-b"))
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g.compile(checkpointer=InMemorySaver())


def test_in_place_append_with_add_reducer_duplicates():
    cfg = {"configurable": {"thread_id": "t"}}
    buggy = _two_nodes(AddState, in_place=True).invoke({"sources": ["doc-0"]}, cfg)
    assert len(buggy["sources"]) > 3, "LangGraph no longer duplicates: update the notebook's prose"
    clean = _two_nodes(AddState, in_place=False).invoke({"sources": ["doc-0"]}, cfg)
    assert clean["sources"] == ["doc-0", "doc-a", "doc-b"]
    dedup = _two_nodes(UniqueState, in_place=True).invoke({"sources": ["doc-0"]}, cfg)
    assert dedup["sources"] == ["doc-0", "doc-a", "doc-b"]


class PlainState(TypedDict):
    sources: list[str]


def _wrong_checkpoints(in_place: bool, durability: str, runs: int = 20) -> int:
    """Runs, of `runs`, whose checkpoint after node a is not ['doc-0', 'doc-a']: without a reducer,
    node b's in-place append can reach the checkpoint LangGraph is still writing in the background.
    Moved from notebook 02 (its Pitfalls section states it)."""

    def make(doc):
        def node(state):
            if in_place:
                state["sources"].append(doc)
                return {"sources": state["sources"]}
            return {"sources": [*state["sources"], doc]}  # a new list

        return node

    graph = StateGraph(PlainState).add_sequence([("a", make("doc-a")), ("b", make("doc-b"))])
    app, wrong = graph.add_edge(START, "a").compile(checkpointer=InMemorySaver()), 0
    for run in range(runs):
        cfg = {"configurable": {"thread_id": f"run-{run}"}}
        app.invoke({"sources": ["doc-0"]}, cfg, durability=durability)
        after_a = next(s for s in app.get_state_history(cfg) if s.next == ("b",))
        wrong += after_a.values["sources"] != ["doc-0", "doc-a"]
    return wrong


def test_in_place_edit_rewrites_the_async_checkpoint_and_a_new_list_does_not():
    assert _wrong_checkpoints(in_place=True, durability="async") >= 1, (
        "LangGraph no longer lets a node's in-place edit reach the checkpoint being written: "
        "update notebook 02's Pitfalls"
    )
    assert _wrong_checkpoints(in_place=True, durability="sync") == 0
    assert _wrong_checkpoints(in_place=False, durability="async") == 0


def test_history_is_exact_when_nodes_return_new_items():
    app = _two_nodes(AddState, in_place=False)
    for run in range(5):
        cfg = {"configurable": {"thread_id": f"t{run}"}}
        app.invoke({"sources": ["doc-0"]}, cfg)
        history = [s.values.get("sources") for s in app.get_state_history(cfg)][::-1]
        assert history[1:] == [["doc-0"], ["doc-0", "doc-a"], ["doc-0", "doc-a", "doc-b"]]


# --- helpers ------------------------------------------------------------------------------


def test_question_aspects():
    assert question_aspects(QUESTION) == [
        "What chunk size should we use when indexing documents?",
        "How often is the search index rebuilt?",
    ]
    assert question_aspects("How are documents chunked, and how is quality evaluated?") == [
        "How are documents chunked",
        "how is quality evaluated?",
    ]
    assert question_aspects("What are chunk size and overlap?") == [
        "What are chunk size and overlap?"
    ]
    with pytest.raises(ValueError, match="''"):
        question_aspects("")


@pytest.mark.parametrize(
    "reply, relevant",
    [("yes - similarity 0.6", True), ("No. Unrelated.", False), ("YES: it is", True)],
)
def test_parse_yes_no(reply, relevant):
    assert parse_yes_no(reply)[0] is relevant


@pytest.mark.parametrize("reply", ["not_relevant", "relevant", "maybe", "", "yesterday it was"])
def test_parse_yes_no_refuses_anything_else(reply):
    # A substring test ("relevant" in reply) would call "not_relevant" relevant.
    with pytest.raises(ValueError, match="yes"):
        parse_yes_no(reply)


def test_text_grader_fails_loudly_on_an_unreadable_reply():
    grader = make_grader(FakeListChatModel(responses=["relevant"]))
    assert grader.mode == "text"
    with pytest.raises(ValueError, match="'relevant'"):
        grader("q?", {"id": "x", "title": "t", "text": "body"})


def test_cited_sources_and_evidence_lines():
    assert cited_sources("a [x-1] b [y] c [x-1] [z]", known=["x-1", "y"]) == ["x-1", "y"]
    assert cited_sources("both [a, b-2; c] and [b-2][d]") == ["a", "b-2", "c", "d"]
    assert cited_sources("not ids: [two words] [a/b] []") == []
    assert cited_sources("[Chunking-V2] [x]", known=["chunking-v2"]) == ["chunking-v2"]
    lines = evidence_lines([{"id": "d", "text": "One. Two? Three!"}]).splitlines()
    assert lines == ["[d] One.", "[d] Two?", "[d] Three!"]


@pytest.mark.parametrize("question", ["", "   ", None, 42])
def test_new_research_rejects_bad_questions(question):
    with pytest.raises((TypeError, ValueError), match="question"):
        new_research(question)


@pytest.mark.parametrize("name", ["max_iterations", "k", "min_evidence"])
@pytest.mark.parametrize("value", [0, -2, 1.5, True])
def test_build_research_graph_rejects_bad_settings(index, model, name, value):
    with pytest.raises((TypeError, ValueError), match=name):
        build_research_graph(index, model, **{name: value})


# --- bad input to the public names: errors name the value and what was expected ----------


def test_bad_input_merge_by_id():
    with pytest.raises(TypeError, match="str: 'abc'"):
        merge_by_id([], "abc")
    with pytest.raises(TypeError, match="dict"):
        merge_by_id({"id": "a"}, [])
    with pytest.raises(ValueError, match="'x'"):
        merge_by_id([{"id": "a"}], ["x"])


def test_bad_input_add_unique():
    with pytest.raises(TypeError, match="str: 'bc'"):
        add_unique(["a"], "bc")  # would otherwise add 'b' and 'c'
    with pytest.raises(TypeError, match="set"):
        add_unique({"a"}, ["b"])


def test_bad_input_ResearchState():
    graph = StateGraph(ResearchState)
    graph.add_node("retrieve", lambda state: {"retrieved_docs": [{"title": "no id"}]})
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", END)
    with pytest.raises(ValueError, match="'no id'"):
        graph.compile().invoke(new_research("What chunk size?"))
    with pytest.raises(TypeError, match="str: 'abc'"):
        graph.compile().invoke({**new_research("What chunk size?"), "sources_consulted": "abc"})


def test_bad_input_Grade():
    with pytest.raises(ValueError, match="perhaps"):
        Grade(relevant="perhaps", reason="unsure")
    with pytest.raises(ValueError, match="reason"):
        Grade(relevant=True)


def test_bad_input_new_research():
    with pytest.raises(TypeError, match="question must be a str, got NoneType"):
        new_research(None)
    with pytest.raises(ValueError, match="'   '"):
        new_research("   ")


def test_bad_input_build_research_graph(index, model):
    with pytest.raises(TypeError, match="CorpusIndex, got list"):
        build_research_graph([{"id": "a"}], model)
    with pytest.raises(TypeError, match="chat model, got str"):
        build_research_graph(index, "gpt-4o")
    with pytest.raises(TypeError, match="human_review must be True or False, got str: 'yes'"):
        build_research_graph(index, model, human_review="yes")
    with pytest.raises(ValueError, match="k must be >= 1, got 0"):
        build_research_graph(index, model, k=0)
    with pytest.raises(ValueError, match="max_iterations must be >= 1, got 0"):
        build_research_graph(index, model, max_iterations=0)


def test_bad_input_research_summary():
    with pytest.raises(TypeError, match="state must be a research state dict, got list"):
        research_summary([AIMessage("x")])
    with pytest.raises(TypeError, match="'graded_docs'.*'abc'"):
        research_summary({"graded_docs": "abc"})


# --- the research graph -------------------------------------------------------------------


def test_research_iterates_drops_superseded_and_cites(index, uninterrupted):
    state = uninterrupted
    summary = research_summary(state)
    assert summary["status"] == "done"
    assert 2 <= summary["iterations"] <= 3, state["reasoning_notes"]
    graded = {g["id"]: g for g in state["graded_docs"]}
    superseded = [i for i in graded if index.get(i)["superseded_by"]]
    assert superseded and all(not graded[i]["relevant"] for i in superseded)
    kept = {d["id"] for d in kept_docs(state)}
    assert summary["cited"] and set(summary["cited"]) <= kept
    assert {"chunking-v2", "index-rebuild-v2"} <= kept
    assert [m.type for m in state["messages"]] == ["human", "ai"], (
        "bookkeeping leaked into messages"
    )
    ids = [d["id"] for d in state["retrieved_docs"]]
    assert len(ids) == len(set(ids)) and state["sources_consulted"] == ids
    found = evidence_per_aspect(state, question_aspects(QUESTION))
    assert all(n >= 2 for n in found.values())


def test_research_summary_separates_citations_of_documents_not_kept():
    state = {
        "retrieved_docs": [{"id": "a"}, {"id": "b"}],
        "graded_docs": [{"id": "a", "relevant": True}, {"id": "b", "relevant": False}],
        "messages": [AIMessage("Yes [a], and [b] says so too [made-up] [a].")],
        "iteration": 1,
    }
    summary = research_summary(state)
    assert summary["cited"] == ["a"] and summary["cited_not_kept"] == ["b", "made-up"]
    assert summary["kept"] == 1 and summary["retrieved"] == 2


def test_max_iterations_bounds_the_loop(index, model):
    app = build_research_graph(index, model, max_iterations=2).compile()
    state = app.invoke(new_research("Who won the 1998 football world cup?"))
    assert state["iteration"] == 2 and kept_docs(state) == []
    assert research_summary(state)["cited"] == []
    assert "do not answer" in state["messages"][-1].content


def test_interrupt_then_resume_in_a_new_instance(tmp_path, index, model, uninterrupted):
    db = tmp_path / "research.sqlite"
    cfg = {"configurable": {"thread_id": "review-1"}}
    conn = sqlite3.connect(db, check_same_thread=False)
    first = build_research_graph(index, model, human_review=True).compile(
        checkpointer=SqliteSaver(conn)
    )
    paused = first.invoke(new_research(QUESTION), cfg)
    assert "__interrupt__" in paused and paused["status"] == "enough_evidence"
    before = scratchpad(first.get_state(cfg).values)
    conn.close()

    conn = sqlite3.connect(db, check_same_thread=False)
    second = build_research_graph(index, model, human_review=True).compile(
        checkpointer=SqliteSaver(conn)
    )
    snapshot = second.get_state(cfg)
    assert snapshot.next == ("review",)
    assert scratchpad(snapshot.values) == before
    asked_again = second.invoke(Command(resume="sure"), cfg)["__interrupt__"][0].value
    assert "got 'sure'" in asked_again["error"]
    assert second.get_state(cfg).next == ("review",), "a bad resume value moved the graph on"
    done = second.invoke(Command(resume={"approve": True}), cfg)
    assert done["messages"][-1].content == uninterrupted["messages"][-1].content
    after = scratchpad(done)
    for field in ("retrieved_docs", "graded_docs", "sources_consulted", "iteration"):
        assert after[field] == before[field] == scratchpad(uninterrupted)[field]
    assert len(list(second.get_state_history(cfg))) > 8
    conn.close()


def test_reviewer_can_drop_evidence(index, model):
    app = build_research_graph(index, model, human_review=True).compile(
        checkpointer=InMemorySaver()
    )
    cfg = {"configurable": {"thread_id": "drop"}}
    app.invoke(new_research(QUESTION), cfg)
    asked_again = app.invoke(Command(resume={"drop": ["nope"]}), cfg)["__interrupt__"][0].value
    assert "unknown ids ['nope']" in asked_again["error"]
    state = app.invoke(Command(resume={"drop": ["index-rebuild-v2"]}), cfg)
    assert "index-rebuild-v2" not in {d["id"] for d in kept_docs(state)}
    assert "index-rebuild-v2" not in research_summary(state)["cited"]
    assert state["messages"][0] == HumanMessage(QUESTION, id=state["messages"][0].id)
    assert isinstance(state["messages"][-1], AIMessage)


def test_time_travel_replays_the_same_answer(index, model, uninterrupted):
    app = build_research_graph(index, model).compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "travel"}}
    app.invoke(new_research(QUESTION), cfg)
    history = list(app.get_state_history(cfg))
    second_plan = next(
        s for s in reversed(history) if s.next == ("plan",) and s.values.get("iteration") == 1
    )
    replay = app.invoke(None, second_plan.config)
    assert replay["messages"][-1].content == uninterrupted["messages"][-1].content
    forked = app.update_state(second_plan.config, {"status": "researching"})
    assert (
        forked["configurable"]["checkpoint_id"]
        != second_plan.config["configurable"]["checkpoint_id"]
    )


@pytest.mark.parametrize(
    "decision, problem",
    [
        ({"approve": True}, None),
        ({"drop": ["a"]}, None),
        ({"drop": "a"}, "must be a list"),
        ({"drop": ["z"]}, "unknown ids ['z']"),
        ("yes", "got 'yes'"),
        ({}, "expected"),
        ({"approve": False}, "'approve' must be True"),
        ({"approve": "yes"}, "'approve' must be True"),
    ],
)
def test_review_problem(decision, problem):
    found = review_problem(decision, ["a", "b"])
    assert found is None if problem is None else problem in found


def test_thin_evidence_searches_the_same_part_deeper_then_stops(index, model):
    app = build_research_graph(index, model, max_iterations=3).compile()
    state = app.invoke(new_research("When is the coffee machine descaled?"))
    plans = [n for n in state["reasoning_notes"] if n.startswith("plan")]
    assert len(plans) == 3 and all("searched before" in p for p in plans[1:]), plans
    retrieved = [d["id"] for d in state["retrieved_docs"]]
    assert len(retrieved) == 12 == len(set(retrieved)), "each round must bring unseen documents"
    assert research_summary(state)["cited"] == ["coffee-machine"]
    assert "out_of_iterations" in state["reasoning_notes"][-1]


def test_research_stops_when_the_corpus_is_exhausted(model):
    small = CorpusIndex(
        [
            {
                "id": f"d{i}",
                "title": title,
                "text": text,
                "updated": "2024-01-01",
                "topic": "office",
                "superseded_by": None,
            }
            for i, (title, text) in enumerate(
                [
                    ("Parking", "Visitors park near reception."),
                    ("Chess", "The chess club meets on Wednesdays."),
                    ("Printer", "Print jobs are released with your badge."),
                ]
            )
        ],
        MiniLMEmbeddings(),
    )
    app = build_research_graph(small, model, k=2, max_iterations=10).compile()
    state = app.invoke(new_research("How often is the search index rebuilt?"))
    assert state["iteration"] == 3 and len(state["retrieved_docs"]) == 3
    assert "exhausted" in state["reasoning_notes"][-1]
    assert "do not answer" in state["messages"][-1].content
