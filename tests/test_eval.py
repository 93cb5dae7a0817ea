"""memlib.eval: dataset validation, the generator, grading, strategies, the trace, the CLI and the
benchmark script at tiny sizes."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langgraph.store.memory import InMemoryStore

from memlib.eval import (
    QUESTION_TYPES,
    STRATEGIES,
    EvalRun,
    Strategy,
    Trace,
    TracedStore,
    evaluate,
    format_summary,
    function_strategy,
    generate_case,
    generate_dataset,
    grade,
    load_dataset,
    save_dataset,
    says_dont_know,
    summarize,
    validate_case,
)
from memlib.eval.generator import FAVOURITES, FIRST, LAST, ORGS, PLACES

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "data" / "eval" / "small.jsonl"
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def tiny():
    return generate_dataset(2, seed=3, sessions=8, turns=2, facts=2)


def write_lines(tmp_path, lines):
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


# --- dataset -------------------------------------------------------------------------------


def test_committed_dataset_loads_and_is_the_generator_output():
    cases = load_dataset(SMALL)
    assert cases == generate_dataset(2, seed=0, sessions=10, turns=3, facts=3)
    assert {q["type"] for c in cases for q in c["questions"]} == set(QUESTION_TYPES)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda c: c.pop("sessions"), r"missing field 'sessions'"),
        (
            lambda c: c["questions"][0].update(type="trivia"),
            r"questions\[0\]\.type: expected one of",
        ),
        (
            lambda c: c["questions"][0].update(answer="Drellport"),
            r"questions\[0\]\.answer: expected list",
        ),
        (lambda c: c["questions"][0].update(evidence=["s99-t0"]), r"turn 's99-t0' is not in"),
        (
            lambda c: c["sessions"][0].update(date="2025-01-06"),
            r"sessions\[0\]\.date: needs a timezone",
        ),
        (lambda c: c["sessions"][0].update(date="yesterday"), r"not an ISO 8601 date"),
        (
            lambda c: c["sessions"][1].update(date="2000-01-01T00:00:00+00:00"),
            r"sessions\[1\]\.date: .* earlier",
        ),
        (lambda c: c["sessions"][0]["messages"][0].update(role="bot"), r"messages\[0\]\.role"),
        (
            lambda c: c["sessions"][0]["messages"][1].update(content="  "),
            r"messages\[1\]\.content: must be a non-empty",
        ),
        (lambda c: c["sessions"][1].update(id="s0"), r"duplicate session id 's0'"),
        (
            lambda c: next(q for q in c["questions"] if q["type"] == "abstention").update(
                answer=["x"]
            ),
            r"abstention question has no answer",
        ),
    ],
)
def test_a_bad_line_names_file_line_and_field(tmp_path, tiny, mutate, message):
    good, bad = copy.deepcopy(tiny[0]), copy.deepcopy(tiny[1])
    mutate(bad)
    path = write_lines(tmp_path, [json.dumps(good), json.dumps(bad)])
    with pytest.raises(ValueError, match=re.escape(f"{path}:2: ")) as err:
        load_dataset(path)
    assert re.search(message, str(err.value)), err.value


def test_not_json_empty_file_and_duplicate_case(tmp_path, tiny):
    with pytest.raises(ValueError, match=r"d\.jsonl:1: not JSON"):
        load_dataset(write_lines(tmp_path, ["{oops"]))
    with pytest.raises(ValueError, match="no cases"):
        load_dataset(write_lines(tmp_path, [""]))
    with pytest.raises(ValueError, match=r":2: case\.id: duplicate case id"):
        load_dataset(write_lines(tmp_path, [json.dumps(tiny[0])] * 2))
    with pytest.raises(ValueError, match="no dataset file"):
        load_dataset(tmp_path / "missing.jsonl")


def test_save_is_all_or_nothing(tmp_path, tiny):
    path = tmp_path / "out.jsonl"
    bad = copy.deepcopy(tiny[1])
    bad["questions"] = []
    with pytest.raises(ValueError, match=r"cases\[1\]: case\.questions: must not be empty"):
        save_dataset([tiny[0], bad], path)
    assert not path.exists()
    save_dataset(tiny, path)
    assert load_dataset(path) == tiny


# --- generator -----------------------------------------------------------------------------


def test_generator_is_deterministic_by_seed_and_sized_by_parameters():
    a = generate_case(7, sessions=30, turns=4, facts=5)
    assert a == generate_case(7, sessions=30, turns=4, facts=5)
    assert a != generate_case(8, sessions=30, turns=4, facts=5)
    assert len(a["sessions"]) == 30 and all(len(s["messages"]) == 8 for s in a["sessions"])
    assert sum(q["type"] == "single-session" for q in a["questions"]) == 5
    validate_case(a)


def test_updates_come_after_what_they_replace_and_evidence_holds_the_answer():
    for seed in range(20):
        case = generate_case(seed, sessions=10, turns=2, facts=3)
        text = {
            m["turn"]: m["content"]
            for s in case["sessions"]
            for m in s["messages"]
            if m["role"] == "user"
        }
        order = list(text)
        for q in case["questions"]:
            said = " ".join(text[e] for e in q["evidence"])
            assert all(a in said for a in q["answer"]), (seed, q, said)
            if q["type"] == "knowledge-update":
                old, new = q["evidence"]
                assert order.index(old) < order.index(new), (seed, q)


def test_generated_names_are_not_in_the_offline_models_rules_or_its_eval_data():
    sources = [p.read_text() for p in (ROOT / "offline_model").glob("*.py")]
    sources += [p.read_text() for p in (ROOT / "offline_model" / "data").glob("*.jsonl")]
    assert len(sources) >= 10, "the offline model's modules or eval data were not found"
    text = "\n".join(sources).lower()
    generic = {"the", "labs", "systems", "works", "reach", "falls", "bay", "loop", "path", "ridge"}
    words = {w for n in FIRST + LAST + PLACES + ORGS for w in n.split()}
    words |= {w for vs in FAVOURITES.values() for v in vs for w in v.split()}
    words = {w for w in words if w.lower() not in generic}
    vocabulary = set(re.findall(r"\w+", text))  # its whole words: one pass, not one per word

    def known(word: str) -> bool:
        if re.fullmatch(r"\w+", word):
            return word.lower() in vocabulary
        return re.search(rf"\b{re.escape(word.lower())}\b", text) is not None

    found = sorted(w for w in words if known(w))
    assert not found, f"generator vocabulary the offline model already knows: {found}"


# --- metrics -------------------------------------------------------------------------------


def test_grading_keywords_stale_and_abstention():
    q = {"type": "knowledge-update", "answer": ["Drellport"], "stale": ["Varrow Bay"]}
    assert grade(q, "You live in drellport.") == {
        "correct": True,
        "stale": False,
        "abstained": False,
    }
    assert grade(q, "You live in Varrow Bay.") == {
        "correct": False,
        "stale": True,
        "abstained": False,
    }
    assert not grade(q, "You live in Drellportia.")["correct"]  # whole words only
    multi = {"type": "multi-session", "answer": ["Kesia Pellow", "Tallowcraft"], "stale": []}
    assert not grade(multi, "Your name is Kesia Pellow.")["correct"]
    assert grade(multi, "Kesia  Pellow, at TALLOWCRAFT!")["correct"]
    absent = {"type": "abstention", "answer": [], "stale": []}
    assert grade(absent, "I don\u2019t know your age yet - you haven't told me.")["correct"]
    assert not grade(absent, "You are 41 years old.")["correct"]
    assert says_dont_know("I have no information about that.")
    assert not says_dont_know("I know you live in Drellport.")


def test_summary_per_type():
    rows = [
        {
            "type": "abstention",
            "correct": True,
            "stale": False,
            "prompt_tokens": 10,
            "calls": 1,
            "latency_s": 0.1,
        },
        {
            "type": "knowledge-update",
            "correct": False,
            "stale": True,
            "prompt_tokens": 30,
            "calls": 1,
            "latency_s": 0.3,
            "recall": 0.5,
        },
    ]
    s = summarize(rows)
    assert s["all"]["accuracy"] == 0.5 and s["all"]["prompt_tokens"] == 20
    assert (
        s["knowledge-update"]["stale_rate"] == 1.0 and s["abstention"]["abstention_accuracy"] == 1.0
    )
    assert s["all"]["recall_at_k"] == 0.5 and s["abstention"]["recall_at_k"] is None
    assert "knowledge-update" in format_summary(s)


# --- strategies and the harness --------------------------------------------------------------


def test_the_wrong_strategy_scores_low_and_the_full_history_does_not(tiny):
    data = generate_dataset(2, seed=0, sessions=20, turns=3, facts=3)
    full, oldest = evaluate(data, "full", quiet=True), evaluate(data, "oldest", quiet=True)

    def answerable(run):
        rows = [r for r in run.rows if r["type"] != "abstention"]
        return sum(r["correct"] for r in rows) / len(rows)

    assert answerable(oldest) <= 0.25, [(r["question"], r["reply"]) for r in oldest.rows]
    assert answerable(full) >= answerable(oldest) + 0.4
    # the full history holds every planted statement: single-session and update questions
    assert full.summary["single-session"]["accuracy"] == 1.0
    assert full.summary["all"]["prompt_tokens"] > 5 * oldest.summary["all"]["prompt_tokens"]


def test_semantic_memory_is_measured_with_calls_tokens_and_recall(tiny):
    run = evaluate(tiny, "semantic", quiet=True)
    assert isinstance(run, EvalRun) and len(run.rows) == sum(len(c["questions"]) for c in tiny)
    assert run.ingest["calls_per_turn"] > 0 and run.ingest["prompt_tokens"] > 0
    assert all(r["calls"] >= 1 and r["prompt_tokens"] > 0 for r in run.rows)
    recalls = [r["recall"] for r in run.rows if r["recall"] is not None]
    assert recalls and all(0 <= x <= 1 for x in recalls)
    json.dumps(run.to_json())


def test_a_readers_function_sees_the_history_and_the_question(tiny):
    seen = []

    def my_agent(messages):
        seen.append(messages)
        return "I don't know."

    run = evaluate(tiny[:1], function_strategy(my_agent, "mine"), quiet=True)
    assert run.strategy == "mine"
    n_messages = sum(len(s["messages"]) for s in tiny[0]["sessions"])
    assert all(len(m) == n_messages + 1 and isinstance(m[-1], HumanMessage) for m in seen)
    assert [m[-1].content for m in seen] == [q["question"] for q in tiny[0]["questions"]]
    assert (
        run.summary["abstention"]["accuracy"] == 1.0
        and run.summary["single-session"]["accuracy"] == 0.0
    )

    def not_text(messages):
        return 42

    with pytest.raises(TypeError, match="reply must be a string, got int"):
        evaluate(tiny[:1], function_strategy(not_text), quiet=True)


# --- trace ---------------------------------------------------------------------------------


def test_traced_store_records_who_wrote_what_for_which_turn():
    store = TracedStore(InMemoryStore())
    with store.trace.context(turn="c/s1", writer="me", time="2025-01-01"):
        store.put(("users", "u", "facts"), "k1", {"content": "User lives in Drellport."})
    with store.trace.context(turn="c/s2", writer="me", time="2025-01-02"):
        store.put(("users", "u", "facts"), "k1", {"content": "User lives in Tinmouth."})
        store.delete(("users", "u", "facts"), "gone")
    with store.trace.context(turn="c/q0", writer="reader"):
        assert store.get(("users", "u", "facts"), "k1").value["content"].endswith("Tinmouth.")
        store.search(("users", "u"), limit=5)
    ops = [(e.op, e.turn, e.writer, e.key) for e in store.trace.events]
    assert ops[:3] == [
        ("put", "c/s1", "me", "k1"),
        ("put", "c/s2", "me", "k1"),
        ("delete", "c/s2", "me", "gone"),
    ]
    assert [e.op for e in store.trace.events[3:]] == ["get", "search"]
    why = store.trace.explain("c/q0")
    assert why[0]["written_in_turn"] == "c/s2" and why[0]["text"] == "User lives in Tinmouth."
    assert [h[1] for h in why[0]["history"]] == ["c/s1", "c/s2"]
    assert store.trace.events[0].time == "2025-01-01"


def test_the_trace_of_a_run_leads_each_read_back_to_the_session_that_wrote_it(tiny):
    run = evaluate(tiny[:1], "semantic", quiet=True)
    case = tiny[0]
    said = {
        f"{case['id']}/{s['id']}": " ".join(m["content"] for m in s["messages"])
        for s in case["sessions"]
    }
    puts = run.trace.writes()
    assert puts and all(e.writer == "semantic" and e.turn in said for e in puts)
    for row in run.rows:
        for link in run.trace.explain(row["turn"]):
            assert link["written_in_turn"] in said, link


# --- command line and benchmark ------------------------------------------------------------------


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "memlib.eval", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_cli_generates_runs_and_writes_json_and_trace(tmp_path, capsys):
    data, out, trace = tmp_path / "d.jsonl", tmp_path / "r.json", tmp_path / "t.jsonl"
    # --generate through main() in this process; the run below goes through a real `python -m`
    status, err = cli_in_process(
        capsys,
        "--generate",
        str(data),
        "--cases",
        "1",
        "--sessions",
        "6",
        "--turns",
        "2",
        "--facts",
        "2",
    )
    assert status == 0 and data.exists(), err
    done = cli(
        "--data", str(data), "--strategy", "full,oldest", "--out", str(out), "--trace", str(trace)
    )
    assert done.returncode == 0, done.stderr
    assert "knowledge-update" in done.stdout and "oldest" in done.stdout
    result = json.loads(out.read_text())
    assert set(result["runs"]) == {"full", "oldest"}
    assert result["runs"]["full"]["summary"]["all"]["questions"] == len(
        load_dataset(data)[0]["questions"]
    )
    assert trace.exists()


def cli_in_process(capsys, *args) -> tuple[int, str]:
    """main() in this process (the exit status through `python -m` is checked just above it):
    (exit status, stderr)."""
    from memlib.eval.__main__ import main

    capsys.readouterr()
    try:
        status = main(list(args))
    except SystemExit as stop:
        status = stop.code
    return status, capsys.readouterr().err


def test_cli_reports_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    done = cli("--data", str(bad), "--strategy", "full")  # one real process: its exit status
    assert done.returncode == 2 and f"{bad}:1: case: missing field 'user_id'" in done.stderr
    status, err = cli_in_process(capsys, "--data", str(SMALL), "--strategy", "nope")
    assert status == 2 and "unknown strategy" in err
    status, err = cli_in_process(
        capsys, "--data", str(SMALL), "--strategy", "full", "--set", "k=3", "--quiet"
    )
    assert status == 2 and "does not fit strategy 'full'" in err
    status, err = cli_in_process(capsys, "--generate", str(tmp_path / "g.jsonl"), "--sessions", "1")
    assert status == 2 and "sessions" in err
    assert not (tmp_path / "g.jsonl").exists()


# --- bad input for every public name ----------------------------------------------------------


def test_bad_input_load_dataset():
    with pytest.raises(TypeError, match="int"):
        load_dataset(3)


def test_bad_input_save_dataset(tmp_path):
    with pytest.raises(ValueError, match=r"cases\[0\]: case: expected an object"):
        save_dataset(["nope"], tmp_path / "x.jsonl")


def test_bad_input_validate_case():
    with pytest.raises(ValueError, match="missing field 'id'"):
        validate_case({})


def test_bad_input_generate_case():
    with pytest.raises(ValueError, match="sessions"):
        generate_case(0, sessions=1)
    with pytest.raises(ValueError, match="do not fit"):
        generate_case(0, sessions=2, turns=1, facts=3)
    with pytest.raises(ValueError, match="facts must be at most"):
        generate_case(0, sessions=50, facts=99)
    with pytest.raises(TypeError, match="seed"):
        generate_case("0")


def test_bad_input_generate_dataset():
    with pytest.raises(ValueError, match="cases"):
        generate_dataset(0)


def test_bad_input_grade():
    with pytest.raises(TypeError, match="question must be"):
        grade("Where do I live?", "Drellport")
    with pytest.raises(TypeError, match="expected a string"):
        grade({"type": "temporal", "answer": ["x"]}, None)


def test_bad_input_says_dont_know():
    with pytest.raises(TypeError, match="NoneType"):
        says_dont_know(None)


def test_bad_input_summarize():
    with pytest.raises(KeyError):
        summarize([{"correct": True}])


def test_bad_input_format_summary():
    with pytest.raises(TypeError, match="summary must be the dict summarize"):
        format_summary(["not", "a", "summary"])


def test_bad_input_evaluate(tiny):
    with pytest.raises(ValueError, match="unknown strategy 'nope'"):
        evaluate(tiny, "nope")
    with pytest.raises(ValueError, match="non-empty list"):
        evaluate([], "full")
    with pytest.raises(ValueError, match=r"cases\[0\]: case: missing field"):
        evaluate([{}], "full")
    with pytest.raises(TypeError, match="strategy must be"):
        evaluate(tiny, 3)
    with pytest.raises(TypeError, match="options must be"):
        evaluate(tiny, "full", options=[1])


def test_bad_input_function_strategy():
    with pytest.raises(TypeError, match="fn must be a function"):
        function_strategy("my agent")
    with pytest.raises(ValueError, match="name"):
        function_strategy(lambda m: "", name=" ")


def test_bad_input_Trace():
    with pytest.raises(ValueError, match="turn"), Trace().context(turn="", writer="w"):
        pass
    with pytest.raises(TypeError, match="turn must be a string"):
        Trace().explain(None)


def test_bad_input_TracedStore():
    with pytest.raises(TypeError, match="BaseStore .*, got dict"):
        TracedStore({})
    with pytest.raises(TypeError, match="memlib.eval.Trace"):
        TracedStore(InMemoryStore(), trace=[])


def test_bad_input_Strategy():
    with pytest.raises(NotImplementedError):
        Strategy(None).answer("Where do I live?")


def test_bad_input_STRATEGIES():
    with pytest.raises(ValueError, match="max_turns"):
        STRATEGIES["window"](None, None, None, window=0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        STRATEGIES["full"](None, None, None, window=3)
    with pytest.raises(ValueError, match="window"):
        STRATEGIES["oldest"](None, None, None, window=0)


def test_bad_input_EvalRun():
    with pytest.raises(TypeError):
        EvalRun("x")


def test_bad_input_QUESTION_TYPES(tiny):
    bad = copy.deepcopy(tiny[0])
    bad["questions"][0]["type"] = "Temporal"
    with pytest.raises(
        ValueError, match=str(QUESTION_TYPES).replace("(", r"\(").replace(")", r"\)")
    ):
        validate_case(bad)


def test_a_shared_store_must_start_clean_and_is_left_clean(tiny):
    shared = InMemoryStore()
    run = evaluate(tiny[:1], "oldest", store_factory=lambda: shared, quiet=True)
    assert run.trace.writes() and not shared.search(("messages", tiny[0]["user_id"]), limit=1)
    shared.put(("messages", tiny[0]["user_id"]), "left-over", {"content": "x"})
    with pytest.raises(ValueError, match=r"already holds memories of user 'user-3'"):
        evaluate(tiny[:1], "oldest", store_factory=lambda: shared, quiet=True)


def test_cli_runs_on_a_backend_url(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'eval.db'}"
    out = tmp_path / "r.json"
    done = cli(
        "--data", str(SMALL), "--strategy", "oldest", "--backend", url, "--out", str(out), "--quiet"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["backend"] == url
    status, err = cli_in_process(  # a refused URL: main()'s exit status, in this process
        capsys, "--data", str(SMALL), "--strategy", "oldest", "--backend", "bogus://x", "--quiet"
    )
    assert status == 2 and "bogus://x" in err


@pytest.mark.parametrize("memory", ["langmem", "temporal"])
def test_a_refused_agent_setting_leaves_no_background_thread(memory):
    """MemoryAgent starts LangMem's ReflectionExecutor, whose worker is a non-daemon thread: a
    setting refused after it started must stop it, or the interpreter never exits."""
    import threading

    from memlib import get_chat_model
    from memlib.eval.strategies import MemoryAgent

    before = set(threading.enumerate())
    with pytest.raises(TypeError, match="k"):
        MemoryAgent(get_chat_model(), InMemoryStore(), k="3", memory=memory)
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=10)
        assert not thread.is_alive(), f"{thread.name} still runs after the refused setting"
