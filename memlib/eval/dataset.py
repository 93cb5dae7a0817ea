"""The evaluation dataset: cases of timestamped sessions and the questions asked after them.

A dataset is a JSONL file, one case per line:

    {"id": "case-0", "user_id": "u0",
     "sessions": [{"id": "s0", "date": "2025-01-06T09:00:00+00:00",
                   "messages": [{"id": "s0-t0-u", "turn": "s0-t0", "role": "user", "content": "..."},
                                {"id": "s0-t0-a", "turn": "s0-t0", "role": "assistant", "content": "..."}]}],
     "questions": [{"id": "q0", "type": "knowledge-update", "question": "Where do I live?",
                    "answer": ["Drellport"], "stale": ["Varrow Bay"], "evidence": ["s7-t2"]}]}

Question types follow LongMemEval's split (`QUESTION_TYPES`). `answer` lists the keywords a correct
reply contains (all of them); for `abstention` it is empty and a correct reply says it does not
know. `stale` lists values that were true once but are outdated; `evidence` names the turns
("<session id>-t<n>") that hold the answer. `load_dataset` validates every line and raises
ValueError naming file:line and the bad field. Leaves out: images, tool calls, questions asked in
the middle of the history (every question is asked after the last session).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from memlib.checks import check_kind

QUESTION_TYPES = ("single-session", "multi-session", "knowledge-update", "temporal", "abstention")
ROLES = ("user", "assistant")


class _Bad(ValueError):
    pass


def _need(obj: Any, key: str, kind: type | tuple, where: str):
    if not isinstance(obj, dict) or key not in obj:
        raise _Bad(f"{where}: missing field {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        name = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise _Bad(f"{where}.{key}: expected {name}, got {type(value).__name__} {value!r}")
    if isinstance(value, str) and not value.strip():
        raise _Bad(f"{where}.{key}: must be a non-empty string, got {value!r}")
    return value


def _strings(obj: dict, key: str, where: str, *, allow_empty: bool = True) -> list[str]:
    values = _need(obj, key, list, where)
    for i, v in enumerate(values):
        if not isinstance(v, str) or not v.strip():
            raise _Bad(f"{where}.{key}[{i}]: expected a non-empty string, got {v!r}")
    if not allow_empty and not values:
        raise _Bad(f"{where}.{key}: must not be empty")
    return values


def validate_case(case: Any) -> dict:
    """Check one case's shape and references; return it unchanged or raise ValueError naming the field."""
    if not isinstance(case, dict):
        raise _Bad(f"case: expected an object, got {type(case).__name__}")
    cid = _need(case, "id", str, "case")
    _need(case, "user_id", str, "case")
    turns: set[str] = set()
    sessions = _need(case, "sessions", list, "case")
    if not sessions:
        raise _Bad("case.sessions: must not be empty")
    seen_sessions, last_date = set(), None
    for i, s in enumerate(sessions):
        where = f"case.sessions[{i}]"
        sid = _need(s, "id", str, where)
        if sid in seen_sessions:
            raise _Bad(f"{where}.id: duplicate session id {sid!r} in case {cid!r}")
        seen_sessions.add(sid)
        date = _need(s, "date", str, where)
        try:
            when = datetime.fromisoformat(date)
        except ValueError:
            raise _Bad(f"{where}.date: not an ISO 8601 date: {date!r}") from None
        if when.tzinfo is None:
            raise _Bad(f"{where}.date: needs a timezone (e.g. +00:00), got {date!r}")
        if last_date is not None and when < last_date:
            raise _Bad(f"{where}.date: {date!r} is earlier than the session before it")
        last_date = when
        messages = _need(s, "messages", list, where)
        if not messages:
            raise _Bad(f"{where}.messages: must not be empty")
        for j, m in enumerate(messages):
            mw = f"{where}.messages[{j}]"
            role = _need(m, "role", str, mw)
            if role not in ROLES:
                raise _Bad(f"{mw}.role: expected one of {ROLES}, got {role!r}")
            _need(m, "content", str, mw)
            _need(m, "id", str, mw)
            turns.add(_need(m, "turn", str, mw))
        if messages[0]["role"] != "user":
            raise _Bad(
                f"{where}.messages[0].role: a session starts with the user, got {messages[0]['role']!r}"
            )
    questions = _need(case, "questions", list, "case")
    if not questions:
        raise _Bad("case.questions: must not be empty")
    for i, q in enumerate(questions):
        where = f"case.questions[{i}]"
        _need(q, "id", str, where)
        _need(q, "question", str, where)
        qtype = _need(q, "type", str, where)
        if qtype not in QUESTION_TYPES:
            raise _Bad(f"{where}.type: expected one of {QUESTION_TYPES}, got {qtype!r}")
        answer = _strings(q, "answer", where)
        if qtype == "abstention" and answer:
            raise _Bad(
                f"{where}.answer: an abstention question has no answer keywords, got {answer!r}"
            )
        if qtype != "abstention" and not answer:
            raise _Bad(f"{where}.answer: a {qtype} question needs at least one answer keyword")
        _strings(q, "stale", where)
        evidence = _strings(q, "evidence", where)
        for e in evidence:
            if e not in turns:
                raise _Bad(f"{where}.evidence: turn {e!r} is not in the case's sessions")
    return case


def load_dataset(path: str | Path) -> list[dict]:
    """Cases from a JSONL file, each validated; ValueError names file:line and the bad field."""
    check_kind(path, str | Path, "path", "a str or Path")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no dataset file at {str(path)!r}")
    cases, ids = [], set()
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            case = validate_case(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None
        except _Bad as exc:
            raise ValueError(f"{path}:{n}: {exc}") from None
        if case["id"] in ids:
            raise ValueError(f"{path}:{n}: case.id: duplicate case id {case['id']!r}")
        ids.add(case["id"])
        cases.append(case)
    if not cases:
        raise ValueError(f"{path}: no cases (an empty dataset)")
    return cases


def save_dataset(cases: list[dict], path: str | Path) -> Path:
    """Validate every case, then write them as JSONL (all or nothing)."""
    check_kind(cases, list, "cases", "a list of dataset cases")
    check_kind(path, str | Path, "path", "a str or Path")
    for i, case in enumerate(cases):
        try:
            validate_case(case)
        except _Bad as exc:
            raise ValueError(f"cases[{i}]: {exc}") from None
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases))
    tmp.replace(path)
    return path
