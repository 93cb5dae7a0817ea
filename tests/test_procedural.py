"""Tests for memlib.procedural: versioned prompts, approval, rollback and the guardrail."""

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.store.memory import InMemoryStore

from memlib.procedural import (
    PromptVersion,
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
from memlib.shared_memory import Grant, ScopedStore

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


# bad input: each public name refuses it with a message naming the value


def test_bad_input_PromptVersion():
    with pytest.raises(ValueError, match="'draft'"):
        PromptVersion(1, V1, "draft", None, "ana", "2026-01-01", None)
    with pytest.raises(ValueError, match=">= 1, got 0"):
        PromptVersion(0, V1, "approved", None, "ana", "2026-01-01", None)
    with pytest.raises(TypeError, match="text must be a str.*None"):
        PromptVersion(1, None, "approved", None, "ana", "2026-01-01", None)


def test_bad_input_active_prompt(store):
    with pytest.raises(TypeError, match="NoneType"):
        active_prompt(None, "support")
    with pytest.raises(ValueError, match="'nobody'"):
        active_prompt(store, "nobody")
    with pytest.raises(TypeError, match="agent.*int: 7"):
        active_prompt(store, 7)


def test_bad_input_approve(store):
    v2 = propose_prompt(store, "support", V2, feedback="shorter", author="bob", now=NOW)
    before = snapshot(store)
    with pytest.raises(TypeError, match="NoneType"):
        approve(None, "support", v2.version, reviewer="lead")
    with pytest.raises(TypeError, match="version.*'2'"):
        approve(store, "support", "2", reviewer="lead")
    with pytest.raises(ValueError, match="reviewer.*''"):
        approve(store, "support", 2, reviewer="")
    with pytest.raises(TypeError, match="now.*'today'"):
        approve(store, "support", 2, reviewer="lead", now="today")
    assert snapshot(store) == before


def test_bad_input_check_prompt():
    with pytest.raises(ValueError, match=r"\{user_name:>200000\}"):
        check_prompt("Hi {user_name:>200000}", ["user_name"])
    with pytest.raises(ValueError, match=r"\{user_name:\{evil\}\}"):
        check_prompt("Hi {user_name:{evil}}", ["user_name"])
    with pytest.raises(TypeError, match="required_variables.*'user_name'"):
        check_prompt("Hi {user_name}", "user_name")  # would be the set of its letters
    with pytest.raises(TypeError, match="max_tokens.*'400'"):
        check_prompt("Hi {user_name}", ["user_name"], max_tokens="400")
    with pytest.raises(TypeError, match="prompt.*NoneType"):
        check_prompt(None)
    assert check_prompt("Hi {user_name:>10}", ["user_name"]) > 0  # a modest width is fine


@pytest.mark.parametrize(
    "text, needle",
    [
        ("Hi {user_name!r}", r"\{user_name!r\} has the conversion !r"),
        ("Hi {user_name!s:>5}", r"\{user_name!s:>5\} has the conversion !s"),
        ("Hi {user_name.__class__}", r"\{user_name.__class__\} reads an attribute"),
        ("Hi {user_name[0]}", r"\{user_name\[0\]\} reads an attribute or item"),
        ("Hi {user_name:.100000}", r"\{user_name:.100000\} has a nested or wider"),
    ],
)
def test_check_prompt_refuses_format_tricks_naming_them(store, text, needle):
    """A stored prompt is data its writer controls: only plain substitution passes the guardrail."""
    with pytest.raises(ValueError, match=needle):
        check_prompt(text, ["user_name"])
    before = snapshot(store)
    with pytest.raises(ValueError, match=needle):
        propose_prompt(store, "support", text, feedback="x", author="bob")
    assert snapshot(store) == before


def test_bad_input_create_prompt():
    store = InMemoryStore()
    with pytest.raises(TypeError, match="NoneType"):
        create_prompt(None, "support", V1, author="ana")
    with pytest.raises(ValueError, match="'a.b'"):
        create_prompt(store, "a.b", V1, author="ana")
    with pytest.raises(TypeError, match="required_variables.*'user_name'"):
        create_prompt(store, "support", V1, author="ana", required_variables="user_name")
    with pytest.raises(ValueError, match=">= 1, got 0"):
        create_prompt(store, "support", V1, author="ana", max_tokens=0)
    with pytest.raises(TypeError, match="text.*bytes"):
        create_prompt(store, "support", b"You are a bot.", author="ana")
    assert snapshot(store) == []


def test_bad_input_get_version(store):
    with pytest.raises(TypeError, match="True"):
        get_version(store, "support", True)
    with pytest.raises(ValueError, match=">= 1, got -1"):
        get_version(store, "support", -1)
    with pytest.raises(ValueError, match="no prompt version 9"):
        get_version(store, "support", 9)
    with pytest.raises(TypeError, match="NoneType"):
        get_version(None, "support", 1)


def test_bad_input_list_versions(store):
    with pytest.raises(TypeError, match="NoneType"):
        list_versions(None, "support")
    with pytest.raises(ValueError, match="''"):
        list_versions(store, "")


def test_bad_input_prompt_diff():
    with pytest.raises(TypeError, match="old.*NoneType"):
        prompt_diff(None, V1)
    with pytest.raises(TypeError, match="new.*list"):
        prompt_diff(V1, [V2])
    with pytest.raises(ValueError, match="old_label"):
        prompt_diff(V1, V2, "", "v2")
    assert prompt_diff("", "a") != ""  # an empty prompt is a valid side of a diff


def test_bad_input_prompt_variables():
    with pytest.raises(TypeError, match="NoneType"):
        prompt_variables(None)
    with pytest.raises(ValueError, match="format template"):
        prompt_variables("Hi {user_name")


def test_bad_input_propose_prompt(store):
    before = snapshot(store)
    with pytest.raises(TypeError, match="NoneType"):
        propose_prompt(None, "support", V2, feedback="x", author="bob")
    with pytest.raises(TypeError, match="text.*NoneType"):
        propose_prompt(store, "support", None, feedback="x", author="bob")
    with pytest.raises(TypeError, match="feedback.*int"):
        propose_prompt(store, "support", V2, feedback=5, author="bob")
    with pytest.raises(ValueError, match=r"\{user_name:\{x\}\}"):
        propose_prompt(store, "support", "Hi {user_name:{x}}", feedback="x", author="bob")
    assert snapshot(store) == before


def test_bad_input_reject(store):
    propose_prompt(store, "support", V2, feedback="shorter", author="bob", now=NOW)
    before = snapshot(store)
    with pytest.raises(TypeError, match="note.*None"):
        reject(store, "support", 2, reviewer="lead", note=None)
    with pytest.raises(ValueError, match="note.*' '"):
        reject(store, "support", 2, reviewer="lead", note=" ")
    with pytest.raises(TypeError, match="NoneType"):
        reject(None, "support", 2, reviewer="lead", note="no")
    with pytest.raises(ValueError, match="no prompt version 5"):
        reject(store, "support", 5, reviewer="lead", note="no")
    assert snapshot(store) == before


def test_bad_input_rollback(store):
    before = snapshot(store)
    with pytest.raises(TypeError, match="to_version.*'1'"):
        rollback(store, "support", reviewer="lead", to_version="1")
    with pytest.raises(TypeError, match="reviewer.*None"):
        rollback(store, "support", reviewer=None)
    with pytest.raises(ValueError, match="reviewer.*''"):
        rollback(store, "support", reviewer="")
    with pytest.raises(TypeError, match="NoneType"):
        rollback(None, "support", reviewer="lead")
    assert snapshot(store) == before


def test_versioning_through_a_scoped_store():
    """Provenance stamps on the items do not leak into PromptVersion (was: unexpected keyword)."""
    grants = {"ops": [Grant(("prompts",), read=True, write=True)]}
    view = ScopedStore(InMemoryStore(), "ops", grants, thread_id="t1")
    create_prompt(view, "support", V1, author="ana", now=NOW)
    propose_prompt(view, "support", V2, feedback="shorter", author="bob", now=NOW)
    approve(view, "support", 2, reviewer="lead", now=NOW)
    assert active_prompt(view, "support") == V2
    assert [v.status for v in list_versions(view, "support")] == ["approved", "approved"]
    rollback(view, "support", reviewer="lead", now=NOW)
    assert active_prompt(view, "support") == V1
    assert view.get(("prompts", "support"), "system@v2").value["written_by"] == "ops"
    propose_prompt(view, "support", V2 + " Be brief.", feedback="terser", author="bob", now=NOW)
    assert (
        reject(view, "support", 3, reviewer="lead", note="too terse", now=NOW).status == "rejected"
    )
    assert get_version(view, "support", 3).review_note == "too terse"
