"""A research agent's working scratchpad: state, reducers, and the plan-retrieve-grade-synthesize graph.

`ResearchState` keeps the conversation (`messages`, only what the user sees) next to a scratchpad
(`current_query`, `retrieved_docs`, `graded_docs`, `sources_consulted`, `reasoning_notes`,
`iteration`, `status`). List fields grow through reducers (`merge_by_id`, `add_unique`,
`operator.add`): nodes return only what is new and never touch the lists they were given.

The nodes, copied from notebook 02's saved cells: `make_plan` (search the first part of the question
with fewer than min_evidence relevant documents; again, deeper, if its evidence stayed thin),
`make_retrieve` (top k unseen documents), `make_grade` with `make_grader` (superseded documents out
by metadata, the rest graded by the model against the query that found them), `review` (an
`interrupt` for a human to approve or drop evidence) and `make_synthesize` (a cited answer).
`build_research_graph()` wires them into a StateGraph for the caller to compile.

Leaves out: several questions on one thread (the scratchpad is per research task: use a new
thread_id per question), parallel retrieval, and query rewriting by the model.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import interrupt
from pydantic import BaseModel, Field

from memlib.checks import check_chat_model, check_int, check_kind, check_str
from memlib.corpus import CorpusIndex, is_superseded

SCRATCHPAD_FIELDS = (
    "current_query",
    "retrieved_docs",
    "graded_docs",
    "sources_consulted",
    "reasoning_notes",
    "iteration",
    "status",
)
CITATION = re.compile(r"\[([^\[\]\n]{1,200})\]")  # one bracket: [id] or [id1, id2; id3]
SOURCE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")


def _check_sides(name: str, what: str, left, right) -> tuple:
    """A reducer's two sides: None or a list (or tuple); TypeError otherwise."""
    for side in (left, right):
        if side is not None and not isinstance(side, list | tuple):
            raise TypeError(f"{name} needs {what}, got {type(side).__name__}: {side!r}")
    return left, right


def _check_merge_sides(left, right) -> list[dict]:
    """merge_by_id's input: lists of dicts with an 'id'; left's items, then right's."""
    items = []
    for side in (left, right):
        _check_sides("merge_by_id", "lists of dicts", side, None)
        for item in side or []:
            if not isinstance(item, dict) or "id" not in item:
                raise ValueError(f"merge_by_id needs dicts with an 'id', got {item!r}")
        items += side or []
    return items


def _check_retrieve_args(index, k) -> None:
    if not isinstance(index, CorpusIndex):
        raise TypeError(f"index must be a CorpusIndex, got {type(index).__name__}: {index!r:.80}")
    check_int(k, "k", minimum=1)


def _check_grade_args(grader, min_evidence, max_iterations) -> None:
    if not callable(grader):
        raise TypeError(f"grader must be a function (question, doc) -> (bool, str), got {grader!r}")
    check_int(min_evidence, "min_evidence", minimum=1)
    check_int(max_iterations, "max_iterations", minimum=1)


# Saved from notebooks/02_working_scratchpad.ipynb, In [5]: edit it there, then `make sync`.
def merge_by_id(left: list[dict] | None, right: list[dict] | None) -> list[dict]:
    """Reducer: a new list, one dict per 'id'; a later dict with a known id replaces it in place."""
    merged, position = [], {}
    for item in _check_merge_sides(left, right):  # left's items, then right's
        if item["id"] in position:
            merged[position[item["id"]]] = item
        else:
            position[item["id"]] = len(merged)
            merged.append(item)
    return merged


# Saved from notebooks/02_working_scratchpad.ipynb, In [6]: edit it there, then `make sync`.
def add_unique(left: list | None, right: list | None) -> list:
    """Reducer: a new list with right's items appended unless already present, order kept."""
    merged = list(_check_sides("add_unique", "lists", left, right)[0] or [])
    for item in right or []:
        if item not in merged:
            merged.append(item)
    return merged


# Saved from notebooks/02_working_scratchpad.ipynb, In [7]: edit it there, then `make sync`.
class ResearchState(TypedDict):
    """Conversation plus scratchpad."""

    messages: Annotated[list[AnyMessage], add_messages]  # what the user sees
    current_query: str  # the search the agent runs next
    retrieved_docs: Annotated[list[dict], merge_by_id]  # everything retrieved, once each
    graded_docs: Annotated[list[dict], merge_by_id]  # {"id", "relevant", "reason", "query"} each
    sources_consulted: Annotated[list[str], add_unique]  # document ids read, first-seen order
    reasoning_notes: Annotated[list[str], operator.add]  # one line per step
    iteration: int  # grading rounds done
    status: str  # new | researching | enough_evidence | out_of_iterations | exhausted | done


# Saved from notebooks/02_working_scratchpad.ipynb, In [9]: edit it there, then `make sync`.
class Grade(BaseModel):
    """Whether one document helps answer the question."""

    relevant: bool = Field(description="true if the document helps answer the question")
    reason: str = Field(description="one short sentence saying why")


def new_research(question: str) -> dict:
    """The input for one research task: the question as a message and an empty scratchpad."""
    check_str(question, "question")
    return {
        "messages": [HumanMessage(question.strip())],
        "current_query": "",
        "retrieved_docs": [],
        "graded_docs": [],
        "sources_consulted": [],
        "reasoning_notes": [],
        "iteration": 0,
        "status": "new",
    }


def check_state(state: Any) -> dict:
    """A research state: a dict (what LangGraph hands a node), or a TypeError."""
    check_kind(state, dict, "state", "a research state dict")
    return state


def question_of(state: dict) -> str:
    """The research question: the last human message."""
    check_state(state)
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage) and str(message.content).strip():
            return str(message.content).strip()
    raise ValueError("the state holds no non-empty human message to research")


def kept_docs(state: dict) -> list[dict]:
    """Retrieved documents whose latest grade is relevant, in retrieval order."""
    check_state(state)
    verdict = {g["id"]: g["relevant"] for g in state.get("graded_docs") or []}
    return [d for d in state.get("retrieved_docs") or [] if verdict.get(d["id"])]


def scratchpad(state: dict) -> dict:
    """The scratchpad fields of a state (everything but messages), for inspection or comparison."""
    return {f: state[f] for f in SCRATCHPAD_FIELDS if f in state}


def cited_sources(text: str, known: Iterable[str] | None = None) -> list[str]:
    """Ids cited as [id] or [id1, id2], first-seen order; with known, only those (any casing)."""
    parts = (p.strip() for group in CITATION.findall(text) for p in re.split(r"[,;]", group))
    ids = list(dict.fromkeys(p for p in parts if SOURCE_ID.fullmatch(p)))
    if known is None:
        return ids
    spelling = {k.lower(): k for k in known}
    return list(dict.fromkeys(spelling[i.lower()] for i in ids if i.lower() in spelling))


_CLAUSE = r"(?:how|what|which|who|when|where|why|is|are|do|does|can|should|will)\b"
_SPLIT = re.compile(rf"(?<=\?)\s+|;\s*|,\s*(?:and|or|but)\s+(?={_CLAUSE})", re.I)


def question_aspects(question: str) -> list[str]:
    """Split a question into its parts: sentences, and clauses joined by ', and how/what/...'."""
    check_str(question, "question")
    parts = [p.strip(" ,;") for p in _SPLIT.split(question.strip())]
    aspects = [p for p in parts if len(p.split()) >= 2]
    return aspects or [question.strip()]


def evidence_per_aspect(state: dict, aspects: list[str]) -> dict[str, int]:
    """How many documents currently graded relevant were found for each aspect."""
    check_state(state)
    check_kind(aspects, list, "aspects", "a list of strings")
    latest = {g["id"]: g for g in state.get("graded_docs") or []}
    counts = dict.fromkeys(aspects, 0)
    for g in latest.values():
        if g["relevant"] and g.get("query") in counts:
            counts[g["query"]] += 1
    return counts


def parse_yes_no(reply: str) -> tuple[bool, str]:
    """Read a grader's text reply that starts with yes or no; anything else is a ValueError."""
    text = check_str(reply, "reply", allow_empty=True).strip()
    word = re.match(r"[A-Za-z]+", text)
    first = word.group(0).lower() if word else ""
    if first not in ("yes", "no"):
        raise ValueError(f"grader reply must start with 'yes' or 'no', got {text[:80]!r}")
    return first == "yes", text[len(first) :].strip(" :,.-") or text


GRADER_PROMPT = (
    "You grade whether a document helps answer a question. "
    "Reply 'yes' or 'no' first, then one short reason."
)
ANSWER_PROMPT = (
    "Answer the question using only the evidence lines. Each evidence line starts with its "
    "source id in square brackets; keep that [id] after every fact you use. "
    "If the evidence does not answer the question, say so."
)


# Saved from notebooks/02_working_scratchpad.ipynb, In [9]: edit it there, then `make sync`.
def grader_messages(question: str, doc: dict) -> list:
    """The grading prompt for one document, its [id] and title included."""
    check_str(question, "question")
    body = f"Question: {question}\n\nDocument: [{doc['id']}] {doc['title']}. {doc['text']}"
    return [SystemMessage(GRADER_PROMPT), HumanMessage(body)]


def evidence_lines(docs: Iterable[dict]) -> str:
    """One line per sentence, each tagged with its source id, so a quoted sentence keeps its citation."""
    lines = []
    for d in docs:
        for sentence in re.split(r"(?<=[.!?])\s+", d["text"].strip()):
            if sentence:
                lines.append(f"[{d['id']}] {sentence}")
    return "\n".join(lines)


def review_problem(decision, kept: list[str]) -> str | None:
    """What is wrong with a reviewer's resume value, or None if it is usable."""
    check_kind(kept, list, "kept", "a list of document ids")
    if not isinstance(decision, dict) or not ({"approve", "drop"} & decision.keys()):
        return f"expected {{'approve': True}} or {{'drop': [ids]}}, got {decision!r}"
    if "approve" in decision and decision["approve"] is not True:
        return (
            f"'approve' must be True (to reject evidence, use 'drop'), got {decision['approve']!r}"
        )
    drop = decision.get("drop") or []
    if isinstance(drop, str) or not isinstance(drop, list | tuple):
        return f"'drop' must be a list of document ids, got {drop!r}"
    unknown = sorted(set(drop) - set(kept))
    if unknown:
        return f"can only drop kept documents {kept}, got unknown ids {unknown}"
    return None


def check_research_args(
    index: CorpusIndex,
    model: BaseChatModel,
    human_review: bool,
    k: int,
    min_evidence: int,
    max_iterations: int,
) -> BaseChatModel:
    """Refuse bad build_research_graph arguments before anything is built; return the chat model."""
    check_kind(index, CorpusIndex, "index", "a CorpusIndex")
    check_kind(human_review, bool, "human_review", "True or False")
    for name, value in (
        ("k", k),
        ("min_evidence", min_evidence),
        ("max_iterations", max_iterations),
    ):
        check_int(value, name, minimum=1)
    check_kind(model, BaseChatModel, "model", "a langchain chat model")
    return model


# Saved from notebooks/02_working_scratchpad.ipynb, In [10]: edit it there, then `make sync`.
def make_grader(model: BaseChatModel) -> Callable[[str, dict], tuple[bool, str]]:
    """(question, doc) -> (relevant, reason): a structured Grade if the model has it, else yes/no text."""
    check_chat_model(model)
    try:
        structured = model.with_structured_output(Grade)
    except NotImplementedError:
        structured = None

    def grade_doc(question: str, doc: dict) -> tuple[bool, str]:
        if structured is None:
            return parse_yes_no(model.invoke(grader_messages(question, doc)).content)
        result = structured.invoke(grader_messages(question, doc))
        if result is None:
            raise ValueError(f"the model returned no Grade for document {doc['id']!r}")
        result = Grade.model_validate(result)
        return result.relevant, result.reason

    grade_doc.mode = "text" if structured is None else "structured"
    return grade_doc


# Saved from notebooks/02_working_scratchpad.ipynb, In [12]: edit it there, then `make sync`.
def make_plan(min_evidence: int) -> Callable[[ResearchState], dict]:
    """The plan node: search the first part of the question that has too little evidence."""
    check_int(min_evidence, "min_evidence", minimum=1)

    def plan(state: ResearchState) -> dict:
        aspects = question_aspects(question_of(state))
        found = evidence_per_aspect(state, aspects)
        query = next((a for a in aspects if found[a] < min_evidence), aspects[0])
        tried = [g.get("query") for g in state.get("graded_docs") or []]
        why = "searched before, evidence still thin" if query in tried else "first search for it"
        note = f"plan {state.get('iteration', 0) + 1}: search {query!r} ({why}; "
        note += f"relevant documents per part: {list(found.values())})"
        return {"current_query": query, "status": "researching", "reasoning_notes": [note]}

    return plan


# Saved from notebooks/02_working_scratchpad.ipynb, In [12]: edit it there, then `make sync`.
def make_retrieve(index: CorpusIndex, k: int) -> Callable[[ResearchState], dict]:
    """The retrieve node: the top k unseen documents for current_query."""
    _check_retrieve_args(index, k)

    def retrieve(state: ResearchState) -> dict:
        seen = [d["id"] for d in state.get("retrieved_docs") or []]
        hits = index.search(state["current_query"], k=k, exclude=seen)
        ids = [h["id"] for h in hits]
        note = f"retrieve: {len(hits)} new documents {ids}"
        return {"retrieved_docs": hits, "sources_consulted": ids, "reasoning_notes": [note]}

    return retrieve


# Saved from notebooks/02_working_scratchpad.ipynb, In [13]: edit it there, then `make sync`.
def next_status(
    state: ResearchState, verdicts: list[dict], min_evidence: int, max_iterations: int
) -> str:
    """After this round's verdicts: enough_evidence, exhausted, out_of_iterations or researching."""
    graded = merge_by_id(state.get("graded_docs"), verdicts)
    found = evidence_per_aspect({"graded_docs": graded}, question_aspects(question_of(state)))
    if all(n >= min_evidence for n in found.values()):
        return "enough_evidence"
    if not verdicts:
        return "exhausted"
    if state.get("iteration", 0) + 1 >= max_iterations:
        return "out_of_iterations"
    return "researching"


# Saved from notebooks/02_working_scratchpad.ipynb, In [13]: edit it there, then `make sync`.
def make_grade(grader: Callable, min_evidence: int, max_iterations: int) -> Callable:
    """The grade node: grade the documents not graded yet (superseded ones by metadata, the rest
    by the grader), count the round, set status."""
    _check_grade_args(grader, min_evidence, max_iterations)

    def grade(state: ResearchState) -> dict:
        query, done = state["current_query"], {g["id"] for g in state.get("graded_docs") or []}
        verdicts = []
        for doc in [d for d in state.get("retrieved_docs") or [] if d["id"] not in done]:
            if is_superseded(doc):  # the rule first: a retired document never reaches the grader
                relevant, reason = False, f"superseded by [{doc['superseded_by']}]"
            else:
                relevant, reason = grader(query, doc)
            verdicts.append(
                {"id": doc["id"], "relevant": relevant, "reason": reason, "query": query}
            )
        status = next_status(state, verdicts, min_evidence, max_iterations)
        iteration = state.get("iteration", 0) + 1
        kept = [v["id"] for v in verdicts if v["relevant"]]
        dropped = [v["id"] for v in verdicts if not v["relevant"]]
        note = f"grade {iteration}: kept {kept}, dropped {dropped} -> {status}"
        update = {"graded_docs": verdicts, "iteration": iteration, "status": status}
        return update | {"reasoning_notes": [note]}

    return grade


# Saved from notebooks/02_working_scratchpad.ipynb, In [13]: edit it there, then `make sync`.
def route_after_grade(state: ResearchState) -> str:
    """The edge after grade: 'plan' while researching, else 'answer'."""
    return "plan" if state["status"] == "researching" else "answer"


# Saved from notebooks/02_working_scratchpad.ipynb, In [14]: edit it there, then `make sync`.
def make_synthesize(model: BaseChatModel) -> Callable[[ResearchState], dict]:
    """The synthesize node: a cited answer from the kept documents, the only message a run adds."""
    check_chat_model(model)

    def synthesize(state: ResearchState) -> dict:
        question, kept = question_of(state), kept_docs(state)
        if not kept:
            answer = AIMessage("The documents I found do not answer this question.")
        else:
            system = f"{ANSWER_PROMPT}\n\nEvidence:\n{evidence_lines(kept)}"
            reply = model.invoke([SystemMessage(system), HumanMessage(question)])
            answer = AIMessage(str(reply.content))
        cited = cited_sources(answer.content, [d["id"] for d in kept])
        note = f"synthesize ({state.get('status')}): answered from {len(kept)} kept document(s), cited {cited}"
        return {"messages": [answer], "status": "done", "reasoning_notes": [note]}

    return synthesize


# Saved from notebooks/02_working_scratchpad.ipynb, In [18]: edit it there, then `make sync`.
def review(state: ResearchState) -> dict:
    """The review node: pause for a human to approve the kept evidence or drop some of it."""
    kept = [d["id"] for d in kept_docs(state)]
    request = {"question": question_of(state), "kept": kept, "status": state.get("status")}
    request["resume_with"] = "{'approve': True} or {'drop': [ids]}"
    decision = interrupt(request)
    while (problem := review_problem(decision, kept)) is not None:  # ask again, never raise
        decision = interrupt({**request, "error": problem})
    drop = list(decision.get("drop") or [])
    latest = {g["id"]: g for g in state.get("graded_docs") or []}
    verdicts = [{**latest[i], "relevant": False, "reason": "dropped by the reviewer"} for i in drop]
    note = f"review: approved, dropped {drop}" if drop else "review: approved as is"
    return {"graded_docs": verdicts, "reasoning_notes": [note]}


# Saved from notebooks/02_working_scratchpad.ipynb, In [15]: edit it there, then `make sync`.
def build_research_graph(
    index, model, *, human_review=False, k=4, min_evidence=2, max_iterations=3
) -> StateGraph:
    """The research StateGraph over a CorpusIndex and a chat model, uncompiled: compile it with
    your checkpointer."""
    model = check_research_args(index, model, human_review, k, min_evidence, max_iterations)
    grade = make_grade(make_grader(model), min_evidence, max_iterations)
    graph = StateGraph(ResearchState)
    graph.add_sequence([make_plan(min_evidence), make_retrieve(index, k), grade])  # edges in order
    graph.add_node("synthesize", make_synthesize(model))
    graph.add_edge(START, "plan")
    if human_review:
        graph.add_node("review", review)
        graph.add_edge("review", "synthesize")
    after_grade = {"plan": "plan", "answer": "review" if human_review else "synthesize"}
    graph.add_conditional_edges("grade", route_after_grade, after_grade)
    graph.add_edge("synthesize", END)
    return graph


def research_summary(state: dict) -> dict[str, Any]:
    """Counts for a finished research: iterations, retrieved, kept, cited, cited_not_kept."""
    check_kind(state, dict, "state", "a research state dict")
    for field in ("retrieved_docs", "graded_docs", "messages"):
        check_kind(state.get(field) or [], list, f"state[{field!r}]", "a list")
    kept = [d["id"] for d in kept_docs(state)]
    answer = next(
        (m.content for m in reversed(state.get("messages") or []) if isinstance(m, AIMessage)), ""
    )
    kept_lower = {i.lower() for i in kept}
    return {
        "iterations": state.get("iteration", 0),
        "retrieved": len(state.get("retrieved_docs") or []),
        "kept": len(kept),
        "cited": cited_sources(str(answer), kept),
        "cited_not_kept": [  # dropped, unknown or made-up ids
            i for i in cited_sources(str(answer)) if i.lower() not in kept_lower
        ],
        "status": state.get("status"),
    }
