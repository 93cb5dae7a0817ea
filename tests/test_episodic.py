"""Episodic memory: schema, extraction plumbing, save / recall on real stores (FaissStore and
InMemoryStore with the real MiniLM embeddings), filters, few-shot formatting, recall@k, fixtures."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.store.memory import InMemoryStore
from pydantic import ValidationError

from memlib.embeddings import DIMS, MiniLMEmbeddings
from memlib.episodic import (
    EPISODE_FIELDS,
    INDEX_FIELDS,
    Episode,
    episodes_namespace,
    extract_episode,
    format_episodes_as_examples,
    load_conversations,
    load_episodes,
    load_queries,
    recall_at_k,
    recall_episodes,
    recall_filter,
    save_episode,
    to_datetime,
)
from memlib.faiss_store import FaissStore

EMB = MiniLMEmbeddings()

DATES = Episode(
    situation="A vendor CSV of orders put many order dates in the wrong month.",
    approach="Read the file with an explicit day-first date format.",
    outcome="All dates parsed and monthly totals matched the invoice.",
    lesson="Pass an explicit date format for vendor files instead of letting the parser guess.",
)
LEAK = Episode(
    situation="Secrets were found inside a published container image.",
    approach="Rotated the keys and injected secrets at runtime.",
    outcome="No secrets in new images.",
    lesson="Never copy env files into an image.",
)
OLD_DATES = Episode(
    situation="Order dates from a vendor file were in the wrong month.",
    approach="Fixed the dates by hand in the spreadsheet.",
    outcome="It worked but took an hour.",
    lesson="Edit the dates by hand before loading.",
)


def new_store(kind: str):
    index = {"dims": DIMS, "embed": EMB, "fields": INDEX_FIELDS}
    return InMemoryStore(index=index) if kind == "inmemory" else FaissStore(index=index)


@pytest.fixture(params=["faiss", "inmemory"])
def store(request):
    s = new_store(request.param)
    save_episode(s, "ana", DATES, "data-cleaning", "2025-03-04", key="dates")
    save_episode(s, "ana", LEAK, "deployment", "2025-01-09", key="leak")
    save_episode(s, "ana", OLD_DATES, "data-cleaning", "2023-09-10", key="old-dates")
    save_episode(s, "ben", DATES, "data-cleaning", "2025-03-04", key="ben-dates")
    return s


TASK = "The supplier spreadsheet shows July orders in August. How do I load the dates?"


# Schema and dates


def test_episode_rejects_blank_fields():
    with pytest.raises(ValidationError):
        Episode(situation="s", approach="a", outcome="o", lesson="   ")
    assert set(Episode.model_json_schema()["required"]) == set(EPISODE_FIELDS)
    assert Episode(situation=" s ", approach="a", outcome="o", lesson="l").situation == "s"


def test_episode_schema_fits_strict_mode_and_providers_without_length_keywords():
    from openai.lib._pydantic import to_strict_json_schema

    for schema in (Episode.model_json_schema(), to_strict_json_schema(Episode)):
        assert set(schema["required"]) == set(schema["properties"]) == set(EPISODE_FIELDS)
        for name, spec in schema["properties"].items():
            assert spec["type"] == "string", (name, spec)
            assert not {"minLength", "maxLength", "pattern"} & set(spec), (name, spec)
    assert to_strict_json_schema(Episode)["additionalProperties"] is False


@pytest.mark.parametrize(
    "value",
    ["2025-03-04", "2025-03-04T00:00:00Z", date(2025, 3, 4), datetime(2025, 3, 4), 1741046400],
)
def test_to_datetime_accepts_common_forms(value):
    assert to_datetime(value) == datetime(2025, 3, 4, tzinfo=timezone.utc)


def test_to_datetime_converts_other_zones_to_utc():
    got = to_datetime("2025-03-04T02:00:00+02:00")
    assert got == datetime(2025, 3, 4, tzinfo=timezone.utc)


@pytest.mark.parametrize("bad", ["2025-13-01", "yesterday", "", "04/03/2025"])
def test_to_datetime_names_bad_strings(bad):
    with pytest.raises(ValueError, match=repr(bad).replace("/", "/")):
        to_datetime(bad, "since")


@pytest.mark.parametrize("bad", [True, None, [2025], float("nan"), float("inf")])
def test_to_datetime_rejects_other_types(bad):
    with pytest.raises((TypeError, ValueError)):
        to_datetime(bad)


# Save


def test_save_stores_fields_and_metadata(store):
    item = store.get(("episodes", "ana"), "dates")
    v = item.value
    assert {f: v[f] for f in EPISODE_FIELDS} == DATES.model_dump()
    assert v["type"] == "data-cleaning" and v["user_id"] == "ana"
    assert v["created_at"] == "2025-03-04T00:00:00+00:00"
    assert v["created_ts"] == datetime(2025, 3, 4, tzinfo=timezone.utc).timestamp()


def test_save_accepts_dict_and_returns_generated_key():
    s = new_store("faiss")
    key = save_episode(s, "ana", DATES.model_dump(), "debugging", date(2025, 1, 1))
    assert isinstance(key, str) and len(key) >= 16
    assert s.get(("episodes", "ana"), key).value["lesson"] == DATES.lesson


@pytest.mark.parametrize(
    "kwargs, error, fragment",
    [
        ({"user_id": "a.b"}, ValueError, "'a.b'"),
        ({"user_id": ""}, ValueError, "''"),
        ({"user_id": 42}, TypeError, "42"),
        ({"type": "Debugging Stuff"}, ValueError, "'Debugging Stuff'"),
        ({"type": ""}, ValueError, "''"),
        ({"created_at": "2025-02-30"}, ValueError, "'2025-02-30'"),
        ({"created_at": "last week"}, ValueError, "'last week'"),
        ({"episode": {"situation": "s", "approach": "a", "outcome": "o"}}, ValueError, "lesson"),
        ({"episode": {**DATES.model_dump(), "lesson": ""}}, ValueError, "lesson"),
        ({"episode": "just text"}, TypeError, "str"),
        ({"key": ""}, ValueError, "''"),
    ],
)
def test_save_rejects_bad_input_and_writes_nothing(kwargs, error, fragment):
    s = new_store("faiss")
    args = {
        "user_id": "ana",
        "episode": DATES,
        "type": "debugging",
        "created_at": "2025-01-01",
        **kwargs,
    }
    with pytest.raises(error, match=fragment):
        save_episode(s, **args)
    assert len(s) == 0


def test_save_rejects_non_store():
    with pytest.raises(TypeError, match="dict"):
        save_episode({}, "ana", DATES, "debugging", "2025-01-01")


# Recall


def test_recall_ranks_similar_episode_first_and_isolates_users(store):
    hits = recall_episodes(store, "ana", TASK, k=3)
    assert hits[0].key == "dates"
    assert all(h.namespace == ("episodes", "ana") for h in hits)
    assert "ben-dates" not in [h.key for h in hits]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_recall_type_filter(store):
    hits = recall_episodes(store, "ana", TASK, k=5, type="deployment")
    assert [h.key for h in hits] == ["leak"]


@pytest.mark.parametrize(
    "since", ["2024-06-01", date(2024, 6, 1), datetime(2024, 6, 1, tzinfo=timezone.utc)]
)
def test_recall_since_keeps_stale_episodes_out(store, since):
    without = [h.key for h in recall_episodes(store, "ana", TASK, k=5)]
    assert "old-dates" in without
    with_cutoff = [h.key for h in recall_episodes(store, "ana", TASK, k=5, since=since)]
    assert "old-dates" not in with_cutoff and "dates" in with_cutoff


def test_recall_since_boundary_is_inclusive(store):
    keys = [h.key for h in recall_episodes(store, "ana", TASK, k=5, since="2025-03-04")]
    assert keys == ["dates"]
    assert recall_episodes(store, "ana", TASK, k=5, since="2025-03-05") == []


def test_recall_unknown_user_is_empty(store):
    assert recall_episodes(store, "zoe", TASK, k=3) == []


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"task": ""}, "''"),
        ({"task": "   "}, "'   '"),
        ({"k": 0}, "0"),
        ({"k": -2}, "-2"),
        ({"k": 2.5}, "2.5"),
        ({"k": True}, "True"),
        ({"since": "2025-99-01"}, "'2025-99-01'"),
        ({"type": "Not A Slug"}, "'Not A Slug'"),
    ],
)
def test_recall_validation_names_the_value(store, kwargs, fragment):
    args = {"user_id": "ana", "task": TASK, "k": 3, **kwargs}
    with pytest.raises((ValueError, TypeError), match=fragment):
        recall_episodes(store, **args)


def test_recall_filter_shape():
    assert recall_filter() is None
    assert recall_filter(type="debugging") == {"type": "debugging"}
    f = recall_filter(since="2025-01-01")
    assert f == {"created_ts": {"$gte": datetime(2025, 1, 1, tzinfo=timezone.utc).timestamp()}}


def test_episodes_namespace():
    assert episodes_namespace("ana") == ("episodes", "ana")


# Formatting


def test_format_empty_is_empty():
    assert format_episodes_as_examples([]) == ""


def test_format_numbers_examples_with_all_fields(store):
    hits = recall_episodes(store, "ana", TASK, k=2)
    text = format_episodes_as_examples(hits)
    assert text.startswith("## Worked examples")
    assert "### Example 1 (data-cleaning, 2025-03-04)" in text
    assert "### Example 2" in text and "### Example 3" not in text
    for f in EPISODE_FIELDS:
        assert f"{f.capitalize()}: {getattr(DATES, f)}" in text


def test_format_accepts_episodes_and_dicts():
    text = format_episodes_as_examples([DATES, LEAK.model_dump()])
    assert "### Example 1\nSituation:" in text and LEAK.lesson in text


@pytest.mark.parametrize("bad", [[{"situation": "s"}], [{**DATES.model_dump(), "outcome": " "}]])
def test_format_rejects_incomplete_episodes(bad):
    with pytest.raises(ValueError, match="episode 1"):
        format_episodes_as_examples(bad)


@pytest.mark.parametrize("bad", ["text", DATES.model_dump(), None, [42]])
def test_format_rejects_non_lists(bad):
    with pytest.raises(TypeError):
        format_episodes_as_examples(bad)


# recall@k


def test_recall_at_k_values():
    retrieved = [["a", "b", "c"], ["x", "y", "z"], ["p", "q", "r"]]
    relevant = [{"a"}, {"z"}, {"q", "nope"}]
    assert recall_at_k(retrieved, relevant, 1) == pytest.approx(1 / 3)
    assert recall_at_k(retrieved, relevant, 2) == pytest.approx((1 + 0 + 0.5) / 3)
    assert recall_at_k(retrieved, relevant, 3) == pytest.approx((1 + 1 + 0.5) / 3)


@pytest.mark.parametrize(
    "retrieved, relevant, k, error",
    [
        ([["a"]], [{"a"}], 0, ValueError),
        ([["a"]], [{"a"}], True, TypeError),
        ([["a"]], [{"a"}, {"b"}], 1, ValueError),
        ([], [], 1, ValueError),
        ([["a"]], [set()], 1, ValueError),
        (["ab"], [{"a"}], 1, TypeError),
    ],
)
def test_recall_at_k_validation(retrieved, relevant, k, error):
    with pytest.raises(error):
        recall_at_k(retrieved, relevant, k)


ids = st.sampled_from(list("abcdefgh"))


@given(
    st.lists(
        st.tuples(st.lists(ids, max_size=8, unique=True), st.sets(ids, min_size=1)),
        min_size=1,
        max_size=10,
    ),
    st.integers(1, 8),
)
def test_recall_at_k_is_a_monotone_share(pairs, k):
    retrieved = [r for r, _ in pairs]
    relevant = [s for _, s in pairs]
    here = recall_at_k(retrieved, relevant, k)
    assert 0.0 <= here <= 1.0
    assert recall_at_k(retrieved, relevant, k + 1) >= here


# Extraction: plumbing with a test-only structured-output model, then the offline backend.


class ToolCallingStub(BaseChatModel):
    """Test-only: answers every request with one call to the first bound tool, args fixed."""

    args: dict
    seen: list = []

    @property
    def _llm_type(self) -> str:
        return "test-stub"

    def bind_tools(self, tools, tool_choice=None, **kwargs):
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append((messages, kwargs))
        name = kwargs["tools"][0]["function"]["name"]
        msg = AIMessage(content="", tool_calls=[{"name": name, "args": self.args, "id": "c1"}])
        return ChatResult(generations=[ChatGeneration(message=msg)])


CONVERSATION = [
    {"role": "user", "content": "The May warehouse average is 31 degrees; that is wrong."},
    {"role": "assistant", "content": "One site reports Fahrenheit; convert it first."},
    {"role": "user", "content": "That fixed it."},
]


def test_extract_episode_sends_the_whole_transcript_and_validates():
    model = ToolCallingStub(args=DATES.model_dump(), seen=[])
    ep = extract_episode(model, CONVERSATION)
    assert ep == DATES
    messages, kwargs = model.seen[0]
    assert kwargs["tools"][0]["function"]["name"] == "Episode"
    assert messages[0].type == "system" and "episode" in messages[0].content
    assert [(m.type, m.content) for m in messages[1:]] == [
        ("human" if t["role"] == "user" else "ai", t["content"]) for t in CONVERSATION
    ]


def test_extract_episode_rejects_empty_fields_from_the_model():
    model = ToolCallingStub(args={**DATES.model_dump(), "lesson": ""}, seen=[])
    with pytest.raises(ValueError):
        extract_episode(model, CONVERSATION)


@pytest.mark.parametrize(
    "bad, error",
    [
        ([], ValueError),
        ([{"role": "user", "content": "hi"}], ValueError),
        ("user: hi", TypeError),
    ],
)
def test_extract_episode_needs_a_finished_conversation(bad, error):
    model = ToolCallingStub(args=DATES.model_dump(), seen=[])
    with pytest.raises(error):
        extract_episode(model, bad)
    assert model.seen == []


def test_offline_model_extracts_episodes_from_the_fixture_conversations():
    from offline_model import OfflineChatModel

    model = OfflineChatModel()
    try:
        model.with_structured_output(Episode)
    except NotImplementedError:
        pytest.skip("OfflineChatModel has no structured output yet (stage 2)")
    for conv in load_conversations():
        ep = extract_episode(model, conv["messages"])
        turns = conv["messages"]
        for f in EPISODE_FIELDS:
            value = getattr(ep, f)
            assert len(value.split()) >= 3, (conv["id"], f, value)
        values = [getattr(ep, f).strip().lower() for f in EPISODE_FIELDS]
        assert len(set(values)) == 4, values  # four different parts, not one sentence copied
        # The offline model is extractive, so each field can be traced to the right turn:
        # the situation to the user's opening, the outcome to the user's last word, the lesson
        # to the assistant's closing advice.
        assert _shared(ep.situation, turns[0]["content"]) >= 0.6, ep.situation
        assert _shared(ep.outcome, turns[-2]["content"]) >= 0.6, ep.outcome
        assert _shared(ep.lesson, turns[-1]["content"]) >= 0.8, ep.lesson


def _words(text: str) -> set[str]:
    return {w.strip(".,:;()'\"").lower() for w in text.split() if len(w.strip(".,:;()'\"")) > 3}


def _shared(field: str, source: str) -> float:
    """Share of a field's longer words that occur in the source text."""
    return len(_words(field) & _words(source)) / max(1, len(_words(field)))


# Fixtures and the planted recall@k


def test_fixture_shapes():
    eps = load_episodes()
    qs = load_queries(episodes=eps)
    assert 30 <= len(eps) <= 60
    assert len({e["user_id"] for e in eps}) >= 3 and len({e["type"] for e in eps}) >= 3
    assert len(qs) >= 30
    by_id = {e["id"]: e for e in eps}
    stale = [e for e in eps if e["superseded_by"]]
    assert stale
    for e in stale:
        newer = by_id[e["superseded_by"]]
        assert e["created_at"] < newer["created_at"] and e["user_id"] == newer["user_id"]
    for q in qs:  # a query's answer is never a superseded episode
        assert all(not by_id[r]["superseded_by"] for r in q["relevant"])


def test_fixture_loaders_name_problems(tmp_path):
    bad = tmp_path / "episodes.jsonl"
    row = {
        "id": "x",
        "user_id": "ana",
        "type": "debugging",
        "created_at": "2025-02-31",
        **DATES.model_dump(),
        "superseded_by": None,
    }
    bad.write_text(json.dumps(row) + "\n")
    with pytest.raises(ValueError, match="2025-02-31"):
        load_episodes(bad)
    bad.write_text(json.dumps({**row, "created_at": "2025-02-01", "superseded_by": "y"}) + "\n")
    with pytest.raises(ValueError, match="'y'"):
        load_episodes(bad)
    with pytest.raises(ValueError, match="does not exist"):
        load_episodes(tmp_path / "missing.jsonl")


def test_planted_recall_on_faiss_store():
    eps = load_episodes()
    qs = load_queries(episodes=eps)
    s = new_store("faiss")
    for e in eps:
        save_episode(s, e["user_id"], e, e["type"], e["created_at"], key=e["id"])
    ranked = [[h.key for h in recall_episodes(s, q["user_id"], q["task"], k=5)] for q in qs]
    relevant = [q["relevant"] for q in qs]
    r1, r3, r5 = (recall_at_k(ranked, relevant, k) for k in (1, 3, 5))
    assert r1 <= r3 <= r5
    assert r1 >= 0.8 and r3 >= 0.9, (r1, r3, r5)
    owners = {e["id"]: e["user_id"] for e in eps}
    for q, keys in zip(qs, ranked, strict=True):
        assert {owners[k] for k in keys} == {q["user_id"]}
    cutoff = datetime(2025, 6, 1, tzinfo=timezone.utc) - timedelta(days=365)
    fresh = [
        [h.key for h in recall_episodes(s, q["user_id"], q["task"], k=5, since=cutoff)] for q in qs
    ]
    stale = {e["id"] for e in eps if e["superseded_by"]}
    assert not any(set(keys) & stale for keys in fresh)
    assert recall_at_k(fresh, relevant, 1) >= r1


PLANTED = load_episodes()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(range(len(PLANTED))),
            st.sampled_from(["u1", "u2", "u3"]),
            st.dates(date(2023, 1, 1), date(2025, 12, 31)),
        ),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["u1", "u2", "u3"]),
    st.sampled_from(range(len(PLANTED))),
    st.integers(1, 6),
    st.dates(date(2023, 1, 1), date(2025, 12, 31)),
    st.sampled_from([None, "debugging", "research"]),
)
def test_recall_respects_namespace_cutoff_and_type(rows, user, qi, k, since, kind):
    s = new_store("faiss")
    expected = set()
    for n, (i, owner, day) in enumerate(rows):
        e = PLANTED[i]
        save_episode(s, owner, e, e["type"], day, key=f"k{n}")
        if owner == user and day >= since and kind in (None, e["type"]):
            expected.add(f"k{n}")
    hits = recall_episodes(s, user, PLANTED[qi]["situation"], k=k, type=kind, since=since)
    keys = [h.key for h in hits]
    assert set(keys) <= expected
    assert len(keys) == min(k, len(expected))
    for h in hits:
        assert h.namespace == ("episodes", user)
        assert h.value["created_ts"] >= to_datetime(since).timestamp()


# Bad input: every public name refuses it with a message naming the value


def test_bad_input_Episode():
    with pytest.raises(ValidationError, match="input_value=42"):
        Episode(situation=42, approach="a", outcome="o", lesson="l")
    with pytest.raises(ValidationError, match="lesson"):
        Episode(situation="s", approach="a", outcome="o", lesson="   ")


def test_bad_input_extract_episode():
    with pytest.raises(TypeError, match="'not a model'"):
        extract_episode("not a model", CONVERSATION)
    model = ToolCallingStub(args=DATES.model_dump(), seen=[])
    with pytest.raises(TypeError, match="'user: hi'"):
        extract_episode(model, "user: hi")
    with pytest.raises(TypeError, match="42"):
        extract_episode(model, [42])
    assert model.seen == []


def test_bad_input_format_episodes_as_examples():
    with pytest.raises(TypeError, match="'one episode'"):
        format_episodes_as_examples("one episode")
    with pytest.raises(TypeError, match="42"):
        format_episodes_as_examples([42])
    with pytest.raises(ValueError, match="lesson"):
        format_episodes_as_examples([{**DATES.model_dump(), "lesson": ""}])


@pytest.mark.parametrize("loader", [load_conversations, load_episodes, load_queries])
def test_bad_input_loaders_name_the_path(loader, tmp_path):
    with pytest.raises(TypeError, match="42"):
        loader(42)
    with pytest.raises(ValueError, match="nowhere.jsonl"):
        loader(tmp_path / "nowhere.jsonl")


def test_bad_input_load_conversations(tmp_path):
    bad = tmp_path / "conversations.jsonl"
    row = {"id": "c9", "user_id": "ana", "created_at": "2025-01-01"}
    bad.write_text(json.dumps({**row, "messages": [{"role": "robot", "content": "x"}]}) + "\n")
    with pytest.raises(ValueError, match="'robot'"):
        load_conversations(bad)
    bad.write_text(json.dumps({**row, "user_id": 7, "messages": []}) + "\n")
    with pytest.raises(TypeError, match="7"):
        load_conversations(bad)


def test_bad_input_load_episodes(tmp_path):
    bad = tmp_path / "episodes.jsonl"
    row = {"id": "x", "user_id": "ana", "type": "Not A Slug", "created_at": "2025-01-01"}
    bad.write_text(json.dumps({**row, **DATES.model_dump(), "superseded_by": None}) + "\n")
    with pytest.raises(ValueError, match="'Not A Slug'"):
        load_episodes(bad)


def test_bad_input_load_queries(tmp_path):
    episodes = [{"id": "ep01", **DATES.model_dump()}]  # no user_id
    with pytest.raises(ValueError, match="'ep01'.*user_id"):
        load_queries(episodes=episodes)
    with pytest.raises(TypeError, match="'ep01'"):
        load_queries(episodes="ep01")
    bad = tmp_path / "queries.jsonl"
    bad.write_text(json.dumps({"id": "q1", "user_id": "ana", "task": "x", "relevant": []}) + "\n")
    with pytest.raises(ValueError, match=r"\[\]"):
        load_queries(bad)


def test_bad_input_recall_at_k():
    with pytest.raises(TypeError, match="None"):
        recall_at_k(None, [{"a"}], 1)
    with pytest.raises(TypeError, match="'abc'"):
        recall_at_k([["a"]], "abc", 1)
    with pytest.raises(TypeError, match="'1'"):
        recall_at_k([["a"]], [{"a"}], "1")
    with pytest.raises(ValueError, match="0"):
        recall_at_k([["a"]], [{"a"}], 0)


def test_bad_input_recall_episodes(store):
    with pytest.raises(TypeError, match="None"):
        recall_episodes(None, "ana", TASK)
    with pytest.raises(TypeError, match="42"):
        recall_episodes(store, 42, TASK)
    with pytest.raises(TypeError, match="'3'"):
        recall_episodes(store, "ana", TASK, k="3")
    with pytest.raises(TypeError, match="date"):
        recall_episodes(store, "ana", TASK, since=[2025])
    with pytest.raises(ValueError, match="' '"):
        recall_episodes(store, "ana", " ")
    with pytest.raises(ValueError, match="k must be >= 1, got 0"):
        recall_episodes(store, "ana", TASK, k=0)
    with pytest.raises(ValueError, match="'2025-02-30'"):
        recall_episodes(store, "ana", TASK, since="2025-02-30")


def test_bad_input_save_episode():
    s = new_store("faiss")
    with pytest.raises(TypeError, match="None"):
        save_episode(None, "ana", DATES, "debugging", "2025-01-01")
    with pytest.raises(ValueError, match="' ana'"):
        save_episode(s, " ana", DATES, "debugging", "2025-01-01")
    with pytest.raises(TypeError, match="42"):
        save_episode(s, "ana", 42, "debugging", "2025-01-01")
    with pytest.raises(TypeError, match="7"):
        save_episode(s, "ana", DATES, "debugging", "2025-01-01", key=7)
    with pytest.raises(ValueError, match="'last Tuesday'"):
        save_episode(s, "ana", DATES, "debugging", "last Tuesday")
    assert len(s) == 0
