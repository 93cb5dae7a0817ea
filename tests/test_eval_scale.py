"""memlib.eval at scale: facts that change several times, the context window in the harness (a
refused question is wrong and counted), the sweep over history lengths, and LongMemEval's files
(tests/data/longmemeval_tiny.json: five questions written for this project in LongMemEval's
schema)."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from memlib.eval import (
    QUESTION_TYPES,
    SCALE,
    evaluate,
    generate_case,
    generate_dataset,
    load_longmemeval,
    session_recall,
    sweep,
)
from memlib.eval.__main__ import main as cli
from memlib.eval.harness import refused_tokens
from memlib.eval.longmemeval import to_case
from offline_model import OfflineChatModel
from offline_model.model import ContextWindowExceeded

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "data" / "longmemeval_tiny.json"
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# --- generated data at scale -------------------------------------------------------------------


def test_scaled_datasets_have_twelve_questions_of_every_type_and_facts_that_change_three_times():
    data = generate_dataset(sessions=100, **SCALE)
    counts = Counter(q["type"] for case in data for q in case["questions"])
    assert set(counts) == set(QUESTION_TYPES) and min(counts.values()) >= 12
    assert data == generate_dataset(sessions=100, **SCALE)  # deterministic by seed
    case = data[0]
    said = [m["content"] for s in case["sessions"] for m in s["messages"] if m["role"] == "user"]
    moves = [t for t in said if t.startswith("Big news: I moved to ")]
    assert len(moves) == 3 and len([t for t in said if t.startswith("I just joined ")]) == 3
    homes = [next(t for t in said if t.startswith("I live in "))[10:-1]] + [t[21:-1] for t in moves]
    temporal = [q for q in case["questions"] if q["type"] == "temporal"][:3]
    # each "before I moved to X?" asks for the home just before X, in the order they were said
    assert [(q["question"], q["answer"]) for q in temporal] == [
        (f"Where did I live before I moved to {homes[i + 1]}?", [homes[i]]) for i in range(3)
    ]
    update = next(q for q in case["questions"] if q["question"] == "Where do I live?")
    assert update["answer"] == [homes[3]] and update["stale"] == homes[:3]


def test_bad_input_moves():
    with pytest.raises(ValueError, match="moves"):
        generate_case(0, moves=0)
    with pytest.raises(ValueError, match="moves must be below 10"):
        generate_case(0, sessions=50, moves=10)
    with pytest.raises(TypeError, match="moves"):
        generate_dataset(1, moves="3")
    with pytest.raises(ValueError, match="do not fit"):
        generate_case(0, sessions=2, turns=3, facts=4, moves=3)


# --- the context window in the harness ---------------------------------------------------------


def test_a_question_over_the_context_window_is_wrong_refused_and_costs_its_prompt():
    cases = generate_dataset(1, seed=4, sessions=12, turns=3, facts=3, moves=2)
    small = OfflineChatModel(context_window=600)
    full = evaluate(cases, "full", model=small, quiet=True)
    assert all(r["refused"] and not r["correct"] for r in full.rows)
    assert full.summary["all"]["refused"] == 1.0 and full.summary["all"]["accuracy"] == 0.0
    assert all(r["prompt_tokens"] > 600 for r in full.rows)  # what the refused prompt held
    window = evaluate(cases, "window", model=small, quiet=True)  # short prompts still answered
    assert window.summary["all"]["refused"] == 0.0 and window.summary["all"]["accuracy"] > 0


def test_only_context_window_errors_count_as_refusals():
    assert refused_tokens(ContextWindowExceeded(10, 42)) == 42
    assert refused_tokens(ValueError("context_length_exceeded")) is None

    def broken(messages):
        raise RuntimeError("the model is down")

    from memlib.eval import function_strategy

    with pytest.raises(RuntimeError, match="down"):  # any other error still stops the run
        evaluate(generate_dataset(1, sessions=4, turns=2, facts=1), function_strategy(broken))


def test_sweep_shows_the_full_history_refused_past_the_window_while_memory_is_not():
    rows = sweep([6, 40], ["full", "window"], model=OfflineChatModel(context_window=3000))
    by = {(r["sessions"], r["strategy"]): r for r in rows}
    assert list(by) == [(6, "full"), (6, "window"), (40, "full"), (40, "window")]
    assert by[6, "full"]["refused"] == 0 and by[40, "full"]["refused"] == 1.0
    assert by[40, "full"]["accuracy"] == 0 and by[40, "full"]["prompt_tokens"] > 3000
    assert by[40, "window"]["refused"] == 0 and by[40, "full"]["questions"] == 18


def test_bad_input_sweep():
    with pytest.raises(TypeError, match="lengths"):
        sweep("100")
    with pytest.raises(TypeError, match="strategies"):
        sweep([10], [])
    with pytest.raises(ValueError, match="cases"):
        sweep([10], ["full"], cases=0)
    with pytest.raises(ValueError, match="lengths"):
        sweep([2], ["full"])
    with pytest.raises(ValueError, match="unknown strategy 'everything'"):
        sweep([10], ["everything"])


# --- LongMemEval -------------------------------------------------------------------------------


def test_longmemeval_questions_become_cases_with_our_types_dates_and_evidence():
    cases = load_longmemeval(TINY)
    items = json.loads(TINY.read_text())
    assert [c["id"] for c in cases] == [i["question_id"] for i in items]
    types = [c["questions"][0]["type"] for c in cases]
    assert types == [
        "single-session",
        "knowledge-update",
        "temporal",
        "multi-session",
        "abstention",
    ]
    temporal = cases[2]  # its sessions were out of date order in the file
    assert [s["source_id"] for s in temporal["sessions"]] == [
        "answer_tiny_003_a",
        "answer_tiny_003_b",
    ]
    assert temporal["sessions"][0]["date"] == "2024-04-14T16:20:00+00:00"
    assert cases[1]["questions"][0]["answer"] == ["7"]  # a number in the file: a keyword here
    assert cases[0]["questions"][0]["question"].startswith("Today is 2024/03/18 (Mon) 10:00. What")
    assert cases[0]["questions"][0]["evidence"] == ["s1-t0"]  # the turn marked has_answer
    opening = cases[3]["sessions"][2]["messages"][0]  # the assistant's opener is left out
    assert opening["role"] == "user" and "choir" in opening["content"]
    abstention = cases[4]["questions"][0]
    assert abstention["answer"] == [] and abstention["evidence"] == []
    assert load_longmemeval(TINY, limit=2) == cases[:2]


def test_session_recall_ranks_the_evidence_sessions_without_a_model():
    recall = session_recall(load_longmemeval(TINY), k=[1, 3])
    assert recall["all"]["questions"] == 4  # abstention has no evidence to rank
    assert recall["single-session"]["recall@1"] == 1.0  # the one session about the bassoon
    assert recall["all"]["recall@3"] == 1.0  # three sessions or fewer each: all found
    assert 0.5 <= recall["all"]["recall@1"] < 1.0  # two evidence sessions cannot both be first


def test_longmemeval_accuracy_with_a_model_and_the_command_line(tmp_path, capsys):
    cases = load_longmemeval(TINY)
    run = evaluate(cases, "full", quiet=True)
    assert [r["type"] for r in run.rows] == [c["questions"][0]["type"] for c in cases]
    out = tmp_path / "lme.json"
    assert (
        cli(["longmemeval", str(TINY), "--k", "1,3", "--strategy", "window", "--out", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "all questions=4 recall@1=" in printed
    written = json.loads(out.read_text())
    assert written["recall"]["all"]["recall@3"] == 1.0
    assert written["runs"]["window"]["summary"]["all"]["questions"] == 5


def _item(**change):
    item = json.loads(TINY.read_text())[0]
    return {k: v for k, v in (item | change).items() if v is not ...}


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (_item(haystack_sessions=...), r"missing LongMemEval field\(s\) \['haystack_sessions'\]"),
        (_item(question_type="trivia"), r"question_type: expected one of .* got 'trivia'"),
        (_item(haystack_dates=["2024-03-01", "x", "y"]), r"haystack_dates\[0\]: expected a date"),
        (_item(haystack_session_ids=["a"]), "1 session ids, 3 dates, 3 sessions"),
        (_item(question_date="soon"), r"question_date: expected a date .* got 'soon'"),
        (_item(haystack_sessions=[[], [{"role": "bot", "content": "hi"}], []]), r"\[1\]\[0\]"),
        (_item(haystack_sessions=[[], [], []]), "sessions: must not be empty"),
    ],
)
def test_bad_input_to_case(item, message):
    with pytest.raises(ValueError, match=message):
        to_case(item)


def test_bad_input_load_longmemeval(tmp_path):
    with pytest.raises(TypeError, match="42"):
        load_longmemeval(42)
    with pytest.raises(ValueError, match="no LongMemEval file at"):
        load_longmemeval(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="bad.json: not JSON"):
        load_longmemeval(tmp_path / "bad.json")
    (tmp_path / "obj.json").write_text('{"question_id": "x"}')
    with pytest.raises(ValueError, match="a non-empty JSON list"):
        load_longmemeval(tmp_path / "obj.json")
    (tmp_path / "one.json").write_text(json.dumps([_item(answer=...)]))
    with pytest.raises(ValueError, match=r"one.json\[0\]: missing .*'answer'"):
        load_longmemeval(tmp_path / "one.json")
    with pytest.raises(ValueError, match="limit"):
        load_longmemeval(TINY, limit=0)


def test_bad_input_session_recall():
    cases = load_longmemeval(TINY)
    with pytest.raises(TypeError, match="cases"):
        session_recall(cases[0])
    with pytest.raises(TypeError, match="k must be a list"):
        session_recall(cases, k=5)
    with pytest.raises(ValueError, match="k"):
        session_recall(cases, k=[0])
    with pytest.raises(ValueError, match="no question with evidence"):
        session_recall(cases[4:])


def test_cli_refuses_a_bad_longmemeval_path(tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        cli(["longmemeval", str(tmp_path / "nope.json")])
    assert done.value.code == 2 and "no LongMemEval file" in capsys.readouterr().err


# --- the benchmark -----------------------------------------------------------------------------


def test_benchmark_judges_each_part_of_the_goal_against_the_full_history():
    spec = importlib.util.spec_from_file_location("eval_bench", ROOT / "benchmarks" / "eval.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.run([6], ["full", "window", "summary"], cases=1)
    full, window, summary = result["rows"]
    assert full["goal"] is None and window["goal"] is None  # references, not memory
    temporal = min(summary["accuracy_by_type"][t] for t in ("temporal", "knowledge-update"))
    assert summary["goal"]["temporal and update >= 0.90"] == (temporal >= 0.90)
    assert summary["goal"]["a tenth of full's tokens"] == (
        summary["prompt_tokens_per_question"] <= full["prompt_tokens_per_question"] / 10
    )
    assert summary["meets_goal"] == all(summary["goal"].values())
    assert bench.goal_met_by(result) == {"6": ["summary"] if summary["meets_goal"] else []}
    assert "| 6 | summary |" in bench.table(result)
    default, large = bench.parse_args([]), bench.parse_args(["--large"])
    assert (default.sizes, default.sweep) == ([10], [10, 30, 100])
    assert default.out.name == "eval_quick.json"  # a default run leaves eval.json alone
    assert (large.sizes, large.sweep[-1], large.out.name) == ([100, 500], 2000, "eval.json")
    assert bench.parse_args(["--large", "--sweep"]).sweep == []  # none: no sweep
