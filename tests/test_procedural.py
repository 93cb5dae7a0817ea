"""Tests for memlib.procedural: versioned prompts, approval, rollback and the guardrail."""

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.store.memory import InMemoryStore

from memlib.procedural import (
    active_prompt,
    approve,
    check_prompt,
    create_prompt,
    get_version,
    list_versions,
    load_feedback,
    prompt_diff,
    prompt_variables,
    propose_prompt,
    reject,
    rollback,
)

V1 = "You are a support assistant for {user_name}. Answer from the context."
V2 = V1 + "\n\nRules learned from feedback:\n- Always answer in one sentence."
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def snapshot(store):
    """Every item in the store, as comparable plain data."""
    return sorted(
        (ns, item.key, repr(item.value))
        for ns in store.list_namespaces()
        for item in store.search(ns, limit=1000)
    )


@pytest.fixture
def store():
    s = InMemoryStore()
    create_prompt(s, "support", V1, author="ana", now=NOW)
    return s


def test_create_makes_v1_active_and_required_variables(store):
    assert active_prompt(store, "support") == V1
    v1 = get_version(store, "support", 1)
    assert v1.status == "approved" and v1.author == "ana" and v1.based_on is None
    assert store.get(("prompts", "support"), "system").value["required_variables"] == ["user_name"]


def test_proposal_is_pending_until_approved(store):
    p = propose_prompt(store, "support", V2, feedback="Too long.", author="optimizer", now=NOW)
    assert (p.version, p.status, p.based_on, p.feedback) == (2, "pending", 1, "Too long.")
    assert active_prompt(store, "support") == V1
    a = approve(store, "support", 2, reviewer="lead", now=NOW)
    assert a.status == "approved" and a.reviewed_by == "lead"
    assert active_prompt(store, "support") == V2
    assert [v.status for v in list_versions(store, "support")] == ["approved", "approved"]


def test_rejected_proposal_never_becomes_active(store):
    propose_prompt(store, "support", V2, feedback={"score": 0, "comment": "long"}, author="bot")
    reject(store, "support", 2, reviewer="lead", note="rule too strict")
    assert active_prompt(store, "support") == V1
    with pytest.raises(ValueError, match="rejected"):
        approve(store, "support", 2, reviewer="lead")
    with pytest.raises(ValueError, match="rejected, not approved"):
        rollback(store, "support", reviewer="lead", to_version=2)


def test_rollback_restores_exact_previous_text(store):
    propose_prompt(store, "support", V2, feedback="Too long.", author="bot")
    approve(store, "support", 2, reviewer="lead")
    back = rollback(store, "support", reviewer="lead")
    assert back.version == 1 and active_prompt(store, "support") == V1
    pointer = store.get(("prompts", "support"), "system").value
    assert [a["action"] for a in pointer["activations"]] == ["create", "approve", "rollback"]
    # rolling back again returns to the version active just before: v2
    assert rollback(store, "support", reviewer="lead").version == 2
    assert active_prompt(store, "support") == V2


def test_rollback_without_history_refused(store):
    with pytest.raises(ValueError, match="no earlier active version"):
        rollback(store, "support", reviewer="lead")
    with pytest.raises(ValueError, match="already active"):
        rollback(store, "support", reviewer="lead", to_version=1)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda s: propose_prompt(s, "support", V2, feedback="", author="bot"), "feedback"),
        (lambda s: propose_prompt(s, "support", V2, feedback="  ", author="bot"), "feedback"),
        (lambda s: propose_prompt(s, "support", V2, feedback={"c": ""}, author="bot"), "feedback"),
        (
            lambda s: propose_prompt(s, "support", "Be brief.", feedback="x", author="bot"),
            "{user_name}",
        ),
        (
            lambda s: propose_prompt(s, "support", V2 + " {tone}", feedback="x", author="bot"),
            "{tone}",
        ),
        (
            lambda s: propose_prompt(s, "support", V1 + " word" * 500, feedback="x", author="bot"),
            "budget",
        ),
        (lambda s: propose_prompt(s, "support", V1, feedback="x", author="bot"), "same as active"),
        (lambda s: propose_prompt(s, "nobody", V2, feedback="x", author="bot"), "no prompt yet"),
        (lambda s: propose_prompt(s, "support", V2, feedback="x", author=""), "author"),
        (lambda s: approve(s, "support", 7, reviewer="lead"), "no prompt version 7"),
        (lambda s: approve(s, "support", 1, reviewer="lead"), "already approved"),
        (lambda s: create_prompt(s, "support", V1, author="ana"), "already has a prompt"),
        (lambda s: create_prompt(s, "x.y", V1, author="ana"), "agent"),
        (lambda s: rollback(s, "support", reviewer="lead", to_version=9), "no prompt version 9"),
    ],
)
def test_bad_input_raises_and_writes_nothing(store, call, match):
    before = snapshot(store)
    with pytest.raises(ValueError, match=match):
        call(store)
    assert snapshot(store) == before


def test_approving_twice_leaves_state_unchanged(store):
    propose_prompt(store, "support", V2, feedback="Too long.", author="bot")
    approve(store, "support", 2, reviewer="lead")
    before = snapshot(store)
    with pytest.raises(ValueError, match="already approved"):
        approve(store, "support", 2, reviewer="someone")
    assert snapshot(store) == before


def test_type_errors(store):
    with pytest.raises(TypeError):
        propose_prompt(store, "support", V2, feedback=3, author="bot")
    with pytest.raises(TypeError):
        get_version(store, "support", "2")
    with pytest.raises(TypeError):
        check_prompt(None)


def test_prompt_variables_ignores_escaped_braces():
    assert prompt_variables("Hi {user_name}, reply as {{'json': 1}}") == {"user_name"}
    with pytest.raises(ValueError, match="format template"):
        prompt_variables("unbalanced {")


def test_check_prompt_returns_tokens_and_names_problems():
    assert 5 < check_prompt(V1, ["user_name"]) < 40
    with pytest.raises(ValueError, match=r"\{user_name\}"):
        check_prompt("No variables here.", ["user_name"])
    with pytest.raises(ValueError, match="over the budget of 5"):
        check_prompt(V1, ["user_name"], max_tokens=5)


def test_prompt_diff_shows_added_lines():
    d = prompt_diff(V1, V2, "v1", "v2")
    assert "+- Always answer in one sentence." in d and d.startswith("--- v1")
    assert prompt_diff(V1, V1) == ""


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["propose", "approve", "reject", "rollback"]), max_size=12))
def test_active_prompt_is_always_an_approved_version(ops):
    s = InMemoryStore()
    create_prompt(s, "a", V1, author="ana")
    for i, op in enumerate(ops):
        latest = list_versions(s, "a")[-1]
        try:
            if op == "propose":
                propose_prompt(s, "a", f"{V1}\n- rule {i}", feedback=f"fb {i}", author="bot")
            elif op == "approve":
                approve(s, "a", latest.version, reviewer="lead")
            elif op == "reject":
                reject(s, "a", latest.version, reviewer="lead", note="no")
            else:
                rollback(s, "a", reviewer="lead")
        except ValueError:
            pass
        pointer = s.get(("prompts", "a"), "system").value
        active = get_version(s, "a", pointer["active_version"])
        assert active.status == "approved" and active.text == pointer["text"]


def test_load_feedback_fixture(tmp_path):
    rows = load_feedback()
    assert len(rows) == 10 and all(r["feedback"].strip() for r in rows)
    assert {m["role"] for r in rows for m in r["messages"]} == {"user", "assistant"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "x", "messages": [{"role": "user", "content": "hi"}], "feedback": " "}\n'
    )
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        load_feedback(bad)
