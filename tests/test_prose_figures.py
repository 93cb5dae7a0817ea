"""Prose and figures agree (issue #24, item 5): every number a notebook's Markdown states is one
the notebook measured.

For each notebook, the numbers written in its Markdown cells (the source in notebooks/, so a prose
edit is checked without re-running) must each be found among what that notebook produced: the
outputs of its executed copy in build/notebooks/ (text, HTML tables, recorded figures), its
figures in build/notebooks/records.json, the exact values pinned in tests/expectations/, or the
literals of its own code cells (parameters such as a threshold or k are written there). A number
matches a measured one when that value, rounded to as many decimals as the prose gives, is equal
(a percentage also matches a fraction: 36% and 0.361).

What is not a measurement is left out of the check: numbers in code spans, links and HTML tags;
labels (section 4, turn 11, version 2, HTTP 400); issue numbers (#98, langmem#11); versions (0.0.30, LangGraph 1.2), dates and years; notebook numbers (01 to 12,
"notebook 10", "10's"); ordered-list markers; and the few per-notebook words in `ALLOWED`, each
with the reason.

The executed copy must be complete (every cell run) and of the same code as the notebook (its code cells equal, outside the
papermill parameters cell): a copy of older code is skipped, saying so, and so is a notebook with
no executed copy (`make run`, or `pytest tests/test_notebooks.py -k "NN_ and offline"`, writes
it). In a full `make test` each check waits for its notebook's offline run of the same session,
on either xdist worker (tests/offline_runs.py; tests/conftest.py orders this module last), so it
runs on fresh copies.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import offline_runs
import pytest

from memlib.testing import RECORD_MIME, RECORDS_MIME, all_notebooks, build_dir, load_expectations

# Notebooks whose prose another branch is rewriting: checked once that lands. None today.
PENDING: dict[str, str] = {}

# {notebook stem: {number as written in the prose: why it is not a measurement}}
ALLOWED: dict[str, dict[str, str]] = {
    "01_conversation_buffers": {
        "25": "the fixture conversation's topic count: data written for it"
    },
    "10_production_backends": {
        "384": "the benchmark's vector size (MiniLM's), a parameter",
        "40": "pgvector's default hnsw.ef_search, the candidates its HNSW scan returns: a setting",
    },
    "11_evaluating_memory": {
        "400": "the trim strategy's token budget, set in memlib.eval.strategies"
    },
    "12_memory_over_time": {"128,000": "gpt-4o-mini's context window: a parameter (128_000)"},
}

_FENCE = re.compile(r"```.*?```", re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")
_TAG = re.compile(r"<[^>\n]*>")
_ISSUE = re.compile(r"[\w.-]*#\d+")
_VERSION = re.compile(r"\b\d+(?:\.\d+){2,}\b")
_PRODUCT_VERSION = re.compile(
    r"\b(?:LangGraph|LangMem|LangChain|langchain-core|Python|SQLite|PostgreSQL|pgvector|spaCy|FAISS"
    r"|Chromium|Playwright|Sphinx|papermill|pytest)\s+\d+(?:\.\d+)*\b"
)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_LIST_MARKER = re.compile(r"^(\s*)\d+\.\s", re.M)
_NOTEBOOK_REF = re.compile(
    r"\b(?i:notebooks?)\s+(?:(?:0[1-9]|1[0-2])\b(?:,\s*|\s+(?:and|or|to)\s+)?)+"
    r"|\b(?:0[1-9]|1[0-2])(?:'s|\s*\[\d+\])"
    r"|\b0[1-9]\b|^#+\s+\d+\s*·|\[\d\d\s*·",
    re.M,
)
_EXERCISES = re.compile(r"^#+\s*Exercises\b.*?(?=^#+\s|\Z)", re.M | re.S)
# Labels, not amounts: section 4, exercise 6, bug 2, design 1, version 3, turn 11, session 2, HTTP 400,
# §5.
_LABEL = re.compile(
    r"\b(?i:sections?|exercises?|bugs?|designs?|versions?|turns?|sessions?|steps?|rounds?)"
    r"\s+\d+(?:(?:,\s*|\s+(?:and|or|to)\s+)\d+)*\b|\bHTTP\s+\d{3}\b|\bISO\s+8601\b|§\s*\d+"
)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
# A number: 1,187 / 0.94 / 12 / 36%, not inside a word or a name (gpt-4o, MiniLM-L6, v2, top-3).
_NUMBER = re.compile(r"(?<![\w.@/])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(%?)(?![\w])")
# In outputs: any number standing alone, not a fragment of an id or a hash (d0370998, 5165-4449).
_ANY_NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w-])")


def prose_numbers(markdown: str) -> list[tuple[str, float, int, bool]]:
    """Numbers the prose states as figures: (as written, value, decimals, is a percentage)."""
    text = _EXERCISES.sub(" ", markdown)  # exercises suggest parameters to try, not results
    text = _FENCE.sub(" ", text)
    for pattern in (
        _CODE_SPAN,
        _LINK_TARGET,
        _URL,
        _TAG,
        _ISSUE,
        _VERSION,
        _PRODUCT_VERSION,
        _DATE,
        _LABEL,
        _YEAR,
    ):
        text = pattern.sub(" ", text)
    text = _LIST_MARKER.sub(r"\1 ", text)
    text = _NOTEBOOK_REF.sub(" ", text)
    found = []
    for match in _NUMBER.finditer(text):
        before = text[max(0, match.start() - 2) : match.start()]
        if len(before) == 2 and before[1] == "-" and before[0].isalpha():
            continue  # top-3, gpt-4: part of a name
        whole, decimals, percent = match.groups()
        written = whole + (decimals or "") + percent
        value = float(whole.replace(",", "") + (decimals or ""))
        found.append((written, value, len(decimals) - 1 if decimals else 0, bool(percent)))
    return found


def measured_numbers(texts) -> set[float]:
    """Every number in the given texts (outputs, records, code), as floats."""
    values = set()
    for text in texts:
        for token in _ANY_NUMBER.findall(text):
            values.add(float(token.replace(",", "")))
    return values


def matches(value: float, decimals: int, percent: bool, measured: set[float]) -> bool:
    """True when some measured number, rounded to the prose's decimals, is the prose's value."""
    for m in measured:
        if round(m, decimals) == value or (percent and round(m * 100, decimals) == value):
            return True
    return False


def unmatched(markdown_cells: list[str], measured: set[float], allowed=()) -> list[str]:
    """The prose's numbers that no measured figure gives: 'cell i: number in «context»'."""
    problems = []
    for index, text in markdown_cells:
        for written, value, decimals, percent in prose_numbers(text):
            if written in allowed or matches(value, decimals, percent, measured):
                continue
            at = text.find(written)
            context = " ".join(text[max(0, at - 50) : at + len(written) + 30].split())
            problems.append(f"cell {index}: {written} in «{context}»")
    return problems


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _output_texts(cell):
    for output in cell.get("outputs", []):
        if "text" in output:
            yield _source({"source": output["text"]})
        for mime, data in output.get("data", {}).items():
            if mime in (RECORD_MIME, RECORDS_MIME):
                yield json.dumps(data)
            elif mime.startswith("text/"):
                yield _source({"source": data})


def _code(cells) -> list[str]:
    return [
        _source(c)
        for c in cells
        if c["cell_type"] == "code" and "injected-parameters" not in c["metadata"].get("tags", [])
    ]


def _figures_of(notebook: Path, executed: dict) -> set[float]:
    texts = [t for cell in executed["cells"] for t in _output_texts(cell)]
    texts += _code(executed["cells"])
    records = build_dir() / "records.json"
    if records.exists():
        texts.append(json.dumps(json.loads(records.read_text()).get(notebook.name, {})))
    module = load_expectations(notebook.stem)
    for rule in getattr(module, "EXPECT", {}).values():
        if rule[0] == "==":
            texts.append(str(rule[1]))
    return measured_numbers(texts)


@pytest.mark.parametrize("notebook", all_notebooks(), ids=lambda p: p.stem)
def test_prose_states_only_measured_numbers(notebook: Path, request):
    offline_runs.wait_for(request.session, {notebook.stem})
    if notebook.stem in PENDING:
        pytest.skip(PENDING[notebook.stem])
    copy = build_dir() / notebook.name
    if not copy.exists():
        pytest.skip(f"no executed copy of {notebook.name} in {build_dir()}: run `make run` first")
    source = json.loads(notebook.read_text(encoding="utf-8"))
    try:
        executed = json.loads(copy.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        pytest.skip(f"{copy} is being written by a run in progress")
    statuses = {c["metadata"].get("papermill", {}).get("status") for c in executed["cells"]}
    if statuses != {"completed"}:
        pytest.skip(f"{copy} is not a complete run (cell statuses {sorted(map(str, statuses))})")
    if _code(source["cells"]) != _code(executed["cells"]):
        pytest.skip(f"{copy} was executed from older code than {notebook.name}: run it again")
    markdown = [
        (i, _source(c)) for i, c in enumerate(source["cells"]) if c["cell_type"] == "markdown"
    ]
    problems = unmatched(markdown, _figures_of(notebook, executed), ALLOWED.get(notebook.stem, {}))
    assert not problems, (
        f"{notebook.name} states numbers that none of its outputs, records or code give "
        f"(fix the prose, or allow a number that is not a measurement in ALLOWED, saying why):\n  "
        + "\n  ".join(problems)
    )


# ------------------------------------------------------------------ the check itself


def test_a_number_the_outputs_do_not_give_is_reported():
    cells = [(3, "Loading everything costs 1,204 tokens; top-3 keeps 94% of answers in 0.5 s.")]
    assert unmatched(cells, {1204.0, 0.9412, 0.48}) == []
    problems = unmatched(cells, {1204.0, 0.9412, 0.61})
    assert problems == ["cell 3: 0.5 in «costs 1,204 tokens; top-3 keeps 94% of answers in 0.5 s.»"]
    assert unmatched([(0, "It took 13 turns.")], {12.0}) == ["cell 0: 13 in «It took 13 turns.»"]


def test_what_is_not_a_measurement_is_left_out():
    text = (
        "# 04 · Semantic memory\n\n1. In notebook 10 and 03's store, see langmem#98 and #126,\n"
        "LangMem 0.0.30 (2025) and LangGraph 1.2, section 4, turns 2 and 3, HTTP 400, `k=5`, [link](https://x.org/a/123), gpt-4o on 2026-12-01.\n"
        "```python\nx = 77\n```"
    )
    assert prose_numbers(text) == []
    assert [n[0] for n in prose_numbers("from 0.94-1.00 at 2,000 sessions, 36%")] == [
        "0.94",
        "1.00",
        "2,000",
        "36%",
    ]
