"""Keeps benchmarks/tokens.py, notebooks.py, calls.py and scripts/bench_table.py from rotting: their
functions at small sizes, the target checks on made-up rows, and the tables from JSON."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from memlib.buffers import check_prompt_messages, tool_pairs_intact

ROOT = Path(__file__).resolve().parents[1]


def load(path: str):
    spec = importlib.util.spec_from_file_location(Path(path).stem + "_bench", ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tokens():
    return load("benchmarks/tokens.py")


@pytest.fixture(scope="module")
def notebooks():
    return load("benchmarks/notebooks.py")


@pytest.fixture(scope="module")
def calls():
    return load("benchmarks/calls.py")


@pytest.fixture(scope="module")
def bench_table():
    return load("scripts/bench_table.py")


# --- tokens -------------------------------------------------------------------------------------


def test_conversation_repeats_the_fixture_with_fresh_ids(tokens):
    system, chat = tokens.conversation(450)  # more than the fixture's 200 turns
    assert isinstance(system, SystemMessage) and len(chat) == 450
    flat = [system, *(m for turn in chat for m in turn)]
    check_prompt_messages(flat)  # tool-call ids stay paired across repetitions
    ids = [m.id for m in flat[1:]]
    assert len(set(ids)) == len(ids), "a repeated message kept its id"
    assert chat[0][0].content == chat[200][0].content and chat[0][0].id != chat[200][0].id
    with pytest.raises(ValueError, match="n_turns must be >= 1, got 0"):
        tokens.conversation(0)


def test_questions_end_on_the_user_and_fit_the_size(tokens):
    _system, histories = tokens.questions_at(300, 5)
    assert len(histories) == 5
    for h in histories:
        assert len(h) <= 300 and isinstance(h[-1], HumanMessage) and tool_pairs_intact(h)
    assert [len(h) for h in histories] == sorted(len(h) for h in histories)


def test_strategy_tokens_on_a_short_conversation(tokens):
    result = tokens.strategy_tokens(30)
    rows = {r["strategy"]: r for r in result["rows"]}
    assert list(rows) == list(tokens.STRATEGIES)
    assert all(len(result["series"][name]) == 30 for name in rows)
    full = result["series"]["full"]
    assert full == sorted(full), "the full buffer's prompt never shrinks"
    for name in ("token trim", "summary buffer"):
        assert rows[name]["tokens_max"] <= tokens.TOKEN_BUDGET
    for name in ("window", "token trim", "summary buffer", "rotation"):
        assert rows[name]["tokens_total"] < rows["full"]["tokens_total"]
    assert rows["rotation"]["summary_calls"] > 0  # 30 turns pass its 8-message threshold


def test_trimming_cost_rows_and_same_cut(tokens):
    rows = tokens.trimming_cost([120, 300], budget=800, repeats=4)
    assert [r["calls"] for r in rows] == [4, 4]
    for r in rows:
        assert r["same_result"] is True
        assert 0 < r["trim_to_budget_p50_ms"] <= r["trim_to_budget_p95_ms"]
        assert 0 < r["trim_messages_p50_ms"] <= r["trim_messages_p95_ms"]
        assert 1 < r["kept_messages_mean"] < r["messages"]


def test_tokens_targets_are_judged_from_rows(tokens):
    def result(small_ms, large_ms, same=True):
        rows = [
            {"messages": 500, "trim_to_budget_p50_ms": small_ms, "same_result": True},
            {"messages": 2000, "trim_to_budget_p50_ms": large_ms, "same_result": same},
        ]
        return {"trimming": rows}

    assert all(line.startswith("PASS") for line in tokens.check_targets(result(0.4, 0.5)))
    slow = tokens.check_targets(result(0.4, 1.5))
    assert slow[0].startswith("FAIL") and slow[1].startswith("FAIL")  # over 1 ms, grew 3.75x
    assert tokens.check_targets(result(0.4, 0.4, same=False))[2].startswith("FAIL")


def test_tokens_cli_writes_json_and_tables(tokens, tmp_path, capsys, bench_table):
    out = tmp_path / "tokens.json"
    argv = ["--turns", "12", "--sizes", "100", "150", "--repeats", "3", "--budget", "500"]
    result = tokens.main([*argv, "--out", str(out)])
    saved = json.loads(out.read_text())
    assert saved["strategies"] == result["strategies"] and saved["series"] == result["series"]
    assert saved["params"]["turns"] == 12 and len(saved["trimming"]) == 2
    printed = capsys.readouterr().out
    assert "| token trim |" in printed and "trim_to_budget p50 / p95 ms" in printed
    assert bench_table.render("tokens", tmp_path) in printed  # the README table is the same


# --- notebooks ----------------------------------------------------------------------------------


def test_notebook_timing_row_and_failure(notebooks, tmp_path, monkeypatch):
    # the executed copy is the fake run's own, in tmp_path: the test does not depend on a
    # notebook some other test may or may not have executed into build/ first
    monkeypatch.setattr(notebooks, "build_dir", lambda variant: tmp_path)
    ran = []

    def fake_run(path, variant):
        ran.append((path.name, variant))
        cells = [{"metadata": {"papermill": {"duration": 0.5}}}]
        (tmp_path / path.name).write_text(json.dumps({"cells": cells}))

    nb = ROOT / "notebooks" / "01_conversation_buffers.ipynb"
    row = notebooks.measure(nb, run=fake_run)
    assert ran == [(nb.name, "offline")]
    assert row["ok"] and row["notebook"] == nb.stem and row["wall_s"] >= 0
    assert row["cells_s"] == 0.5

    def failing(path, variant):
        raise RuntimeError("cell 3 raised")

    bad = notebooks.measure(nb, run=failing)
    assert not bad["ok"] and "cell 3 raised" in bad["error"] and bad["cells_s"] is None


def test_notebook_cells_seconds_sums_papermill_durations(notebooks, tmp_path):
    path = tmp_path / "x.ipynb"
    cells = [{"metadata": {"papermill": {"duration": d}}} for d in (1.5, 2.25, None)]
    path.write_text(json.dumps({"cells": [*cells, {"metadata": {}}]}))
    assert notebooks.cells_seconds(path) == 3.75


def test_notebook_targets_and_table(notebooks):
    def r(name, wall, cpu, load, ok=True):
        return {
            "notebook": name,
            "wall_s": wall,
            "cells_s": wall - 3,
            "cpu_s": cpu,
            "load_before": load,
            "load_after": load,
            "ok": ok,
            "error": None if ok else "boom",
        }

    rows = [r("a", 9.0, 8.0, 1.0), r("b", 40.0, 12.0, 6.0), r("c", 40.0, 30.0, 6.0)]
    rows.append(r("d", 5.0, 4.0, 0.5, ok=False))
    result = {"params": {"cores": 2}, "rows": rows, "suite": notebooks.summarize(rows)}
    status = [line.split()[0] for line in notebooks.check_targets(result)]
    assert status == ["PASS", "LOADED", "FAIL", "FAIL"]
    assert result["suite"]["wall_s"] == 94.0 and result["suite"]["failed"] == ["d"]
    assert result["suite"]["over_goal"] == ["b", "c"]
    text = notebooks.table(result)
    assert "| a | 9.0 |" in text and "d (failed)" in text and "**suite (4 notebooks)**" in text


# --- calls --------------------------------------------------------------------------------------


def test_calls_script_is_labelled(calls):
    sessions = calls.script(5)
    turns = [t for _thread, s in sessions for t in s]
    assert len(turns) == 50 and sum(touches for _text, touches in turns) == 15
    with pytest.raises(ValueError, match="sessions must be in 1..5, got 0"):
        calls.script(0)


def test_calls_row_counts_extra_calls_on_quiet_turns(calls):
    from memlib.writers import Settled

    turns = [
        {"session": 1, "touches": False, "calls": 1},
        {"session": 1, "touches": True, "calls": 3},
        {"session": 1, "touches": False, "calls": 2},
        {"session": 1, "touches": False, "calls": 1},
    ]
    row = calls.row("x", turns, 1, Settled(1, 3, 0, []), 1.0, 0.5)
    assert row["path_calls"] == 7 and row["max_path_calls"] == 3
    assert row["extra_calls_on_quiet_turns"] == 1 and row["quiet_turns_with_extra_calls"] == 1
    assert row["background_calls_per_turn"] == 0.25 and row["debounced"] == 3


def test_calls_one_session_background_and_blend(calls, tmp_path):
    out = tmp_path / "calls.json"
    argv = ["--sessions", "1", "--debounce", "0.5", "--designs", "background", "blend"]
    result = calls.main([*argv, "--out", str(out)])
    assert json.loads(out.read_text())["rows"] == result["rows"]
    rows = {r["design"]: r for r in result["rows"]}
    for r in rows.values():
        assert r["turns"] == 10 and r["failed"] == 0
        assert r["extractions"] >= 1 and r["memories"] >= 1
        assert r["extra_calls_on_quiet_turns"] == 0  # reading memory is a search, not a call
    assert rows["background"]["max_path_calls"] == 1
    assert rows["blend"]["max_path_calls"] >= 2  # the explicit request is written in the turn


def test_calls_targets(calls):
    base = {"turns": 50, "memory_turns": 15, "failed": 0}
    rows = [
        {
            **base,
            "design": "background",
            "extra_calls_on_quiet_turns": 0,
            "background_calls_per_turn": 0.1,
        },
        {
            **base,
            "design": "blend",
            "extra_calls_on_quiet_turns": 2,
            "background_calls_per_turn": 0.3,
        },
        {
            **base,
            "design": "hot path",
            "extra_calls_on_quiet_turns": 30,
            "background_calls_per_turn": 0,
        },
    ]
    lines = calls.check_targets({"rows": rows})
    assert [line.split()[0] for line in lines] == ["PASS", "PASS", "PASS", "FAIL", "FAIL", "PASS"]


# --- bench_table --------------------------------------------------------------------------------


def test_bench_table_renders_recall_latency_from_json(bench_table, tmp_path):
    rows = [
        {
            "store": "inmemory",
            "n": 1000,
            "p50_ms": 10.0,
            "p95_ms": 12.0,
            "recall_at_10": 1.0,
            "rss_mb": 17,
        },
        {
            "store": "faiss_flat",
            "n": 1000,
            "p50_ms": 0.1,
            "p95_ms": 0.2,
            "recall_at_10": 1.0,
            "rss_mb": 6,
        },
    ]
    (tmp_path / "recall_latency.json").write_text(json.dumps(rows))
    text = bench_table.render("recall_latency", tmp_path)
    assert "| FaissStore, exact | 1,000 | all | 0.100 | 0.200 | 100x | 1.000 | 6 | - | - |" in text


def test_bad_names_and_missing_results(bench_table, tmp_path):
    with pytest.raises(ValueError, match="unknown benchmark 'bogus'"):
        bench_table.render("bogus", tmp_path)
    with pytest.raises(ValueError, match="unknown benchmark 'tokens_large'"):
        bench_table.render("tokens_large", tmp_path)  # tokens.py has no --large run
    with pytest.raises(FileNotFoundError, match="run `python benchmarks/calls.py` first"):
        bench_table.render("calls", tmp_path)
    with pytest.raises(FileNotFoundError, match="recall_latency.py --large` first"):
        bench_table.render("recall_latency_large", tmp_path)


def test_bench_table_reads_the_large_runs_beside_the_default_ones(bench_table, tmp_path):
    row = {"store": "numpy", "n": 100_000, "p50_ms": 5.0, "p95_ms": 6.0, "recall_at_10": 1.0}
    (tmp_path / "recall_latency_large.json").write_text(json.dumps([{**row, "rss_mb": 148}]))
    assert "| numpy brute force | 100,000 | all | 5.0 |" in bench_table.render(
        "recall_latency_large", tmp_path
    )
    names = bench_table.names_known()
    assert names.index("recall_latency_large") == names.index("recall_latency") + 1
    assert names.index("eval_quick") == names.index("eval") + 1 and "tokens_large" not in names
    assert bench_table.results_path("eval_quick") == bench_table.RESULTS / "eval_quick.json"


# --- reading time -------------------------------------------------------------------------------


def test_reading_counts_prose_words_and_code_lines(tmp_path):
    reading = load("benchmarks/reading.py")
    markdown = "Hello world, `x = 1` and more.\n```python\na = 1\n\nb = 2\n```\n"
    code = "import os\n\nprint(os.sep)\nprint(1)\n"
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": [markdown]},
            {"cell_type": "code", "source": [code]},
            {"cell_type": "raw", "source": ["not counted"]},
        ]
    }
    path = tmp_path / "01_example.ipynb"
    path.write_text(json.dumps(nb))
    row = reading.count(path)
    # words: Hello, world, code (the span), and, more; code: 2 fenced + 3 in the code cell
    assert row == {"notebook": "01_example", "words": 5, "code_lines": 5, "cells": 3, "minutes": 1}
    assert "| 01_example | 5 | 5 | 3 | 1 min |" in reading.table([row])


def test_reading_json_is_current_with_the_notebooks():
    reading = load("benchmarks/reading.py")
    recorded = json.loads((ROOT / "benchmarks/results/reading.json").read_text())
    now = [reading.count(p) for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))]
    assert recorded["rows"] == now, "run python benchmarks/reading.py (the README reads its table)"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    total = recorded["total"]
    said = f"about {total['hours']} hours: {total['words']:,} words of prose"
    assert said in " ".join(readme.split()), f"the README's reading time is not {said!r}"
    for row in now:  # the path's table: | [NN · title](notebooks/NN_x.ipynb) | layer | M min |
        line = rf"{row['notebook']}\.ipynb\) \| [^|\n]+ \| {row['minutes']} min \|"
        assert re.search(line, readme), f"the README's reading time of {row['notebook']} is stale"


def test_copyable_follows_cells_first_then_memlib(tmp_path):
    copyable = load("benchmarks/copyable.py")
    cells = [
        ("code", "from memlib.semantic import fact_text\n"),
        ("code", "def helper(x):\n    return x\n"),
        ("code", "def build(store):\n    return [fact_text(i) for i in helper(store)]\n"),
        ("markdown", "## Checks\n"),
        ("code", "def unused_check():\n    assert build([]) == []\n"),
    ]
    nb = {"cells": [{"cell_type": kind, "source": [text]} for kind, text in cells]}
    path = tmp_path / "04_example.ipynb"
    path.write_text(json.dumps(nb))
    row = copyable.measure("example", [path], [path])
    # the app: the two defining cells outside Checks (2 + 2 lines); fact_text comes from memlib
    assert (row["cells"], row["cell_lines"]) == (2, 4)
    assert "memlib.semantic.fact_text" in row["memlib_names"] and row["memlib_lines"] > 0
    assert row["share_from_cells"] == round(4 / (4 + row["memlib_lines"]), 3)


def test_copyable_json_is_current_with_the_notebooks():
    copyable = load("benchmarks/copyable.py")
    recorded = json.loads((ROOT / "benchmarks/results/copyable.json").read_text())
    assert recorded == copyable.main(["--out", "/dev/null"]), "run python benchmarks/copyable.py"
