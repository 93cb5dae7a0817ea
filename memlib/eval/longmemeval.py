"""LongMemEval's published files as memlib.eval cases, and session-level evidence recall@k.

`load_longmemeval(path)` reads a LongMemEval JSON file you downloaded (`_s`, `_m` or `_oracle`;
github.com/xiaowu0162/LongMemEval, Hugging Face `xiaowu0162/longmemeval-cleaned`) into one case per
question, its six types mapped onto ours (`TYPES`; an id ending `_abs` is abstention), the question
dated as LongMemEval's reader prompt dates it, the gold answer as one keyword. `session_recall`
ranks each question's sessions by their best MiniLM match, with no chat model. docs/evaluation.md
says how each field maps. Leaves out: LongMemEval's GPT-4o judge (keyword grading is stricter: a
paraphrase is wrong; preference rubrics never match) and turn-level recall.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from memlib.checks import check_int, check_kind
from memlib.eval.dataset import validate_case

TYPES = {
    "single-session-user": "single-session",
    "single-session-assistant": "single-session",
    "single-session-preference": "single-session",
    "multi-session": "multi-session",
    "knowledge-update": "knowledge-update",
    "temporal-reasoning": "temporal",
}
FIELDS = (
    "question_id question_type question answer question_date haystack_dates haystack_session_ids "
    "haystack_sessions answer_session_ids"
).split()
DATE = re.compile(r"(\d{4})/(\d\d)/(\d\d)(?: \(\w+\))?(?: (\d\d):(\d\d))?")


def _date(text, where: str) -> datetime:
    found = DATE.fullmatch(text.strip()) if isinstance(text, str) else None
    if not found:
        raise ValueError(f"{where}: expected a date like '2023/05/30 (Tue) 23:40', got {text!r}")
    y, mo, d, h, mi = (int(g or 0) for g in found.groups())
    return datetime(y, mo, d, h, mi, tzinfo=timezone.utc)


def _session(sid: str, turns, when: datetime, source: str, where: str) -> tuple[dict, list[str]]:
    """One haystack session in our format, and the turns it marks has_answer."""
    if not isinstance(turns, list):
        raise ValueError(f"{where}: expected a list of turns, got {turns!r:.80}")
    messages, marked, n = [], [], -1
    for j, m in enumerate(turns):
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            raise ValueError(f"{where}[{j}]: expected a user or assistant turn, got {m!r:.80}")
        n += m["role"] == "user"
        if n < 0 or not str(m.get("content") or "").strip():
            continue
        turn = f"{sid}-t{n}"
        messages.append(
            {"id": f"{sid}-m{j}", "turn": turn, "role": m["role"], "content": str(m["content"])}
        )
        marked += [turn] if m.get("has_answer") else []
    session = {"id": sid, "source_id": str(source), "date": when.isoformat()}
    return session | {"messages": messages}, marked


def to_case(item: dict, where: str = "item") -> dict:
    """One LongMemEval question (a dict of its JSON fields) as a memlib.eval case."""
    check_kind(where, str, "where", "a str")
    if not isinstance(item, dict):
        raise TypeError(f"{where}: expected a JSON object, got {item!r:.80}")
    missing = [f for f in FIELDS if f not in item]
    if missing:
        raise ValueError(f"{where}: missing LongMemEval field(s) {missing}")
    qid, kind = str(item["question_id"]), item["question_type"]
    if kind not in TYPES:
        raise ValueError(f"{where}.question_type: expected one of {sorted(TYPES)}, got {kind!r}")
    ids, dates, haystack = (item[f"haystack_{f}"] for f in ("session_ids", "dates", "sessions"))
    if not (isinstance(ids, list) and isinstance(dates, list) and isinstance(haystack, list)):
        raise ValueError(f"{where}: haystack_session_ids, _dates and _sessions must be lists")
    if not len(ids) == len(dates) == len(haystack):
        raise ValueError(
            f"{where}: {len(ids)} session ids, {len(dates)} dates, {len(haystack)} sessions"
        )
    when = [_date(d, f"{where}.haystack_dates[{i}]") for i, d in enumerate(dates)]
    sessions, evidence, wanted = [], [], set(map(str, item["answer_session_ids"]))
    for i in sorted(range(len(ids)), key=when.__getitem__):
        sid = f"s{len(sessions)}"
        session, marked = _session(
            sid, haystack[i], when[i], ids[i], f"{where}.haystack_sessions[{i}]"
        )
        if session["messages"]:
            sessions.append(session)
            evidence += (marked or [f"{sid}-t0"]) if str(ids[i]) in wanted else []
    abstains = qid.endswith("_abs")
    _date(item["question_date"], f"{where}.question_date")
    question = {
        "id": qid,
        "type": "abstention" if abstains else TYPES[kind],
        "source_type": kind,
        "question": f"Today is {item['question_date']}. {item['question']}",
        "answer": [] if abstains else [str(item["answer"])],
        "stale": [],
        "evidence": [] if abstains else list(dict.fromkeys(evidence)),
    }
    case = {
        "id": qid,
        "user_id": f"lme-{re.sub(r'[^A-Za-z0-9_-]', '-', qid)}",
        "sessions": sessions,
    }
    try:
        return validate_case(case | {"questions": [question]})
    except ValueError as exc:
        raise ValueError(f"{where} ({qid}): {exc}") from None


def load_longmemeval(path: str | Path, limit: int | None = None) -> list[dict]:
    """The questions of a LongMemEval JSON file (`_s`, `_m` or `_oracle`) as cases, the first `limit`."""
    check_kind(path, str | Path, "path", "a str or Path")
    if limit is not None:
        check_int(limit, "limit", minimum=1)
    if not Path(path).is_file():
        raise ValueError(f"no LongMemEval file at {str(path)!r} (download it: see the README)")
    try:
        items = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(items, list) or not items:
        raise ValueError(f"{path}: expected a non-empty JSON list, got {type(items).__name__}")
    return [to_case(item, f"{path}[{i}]") for i, item in enumerate(items[:limit])]


def session_recall(cases: Sequence[dict], k: Sequence[int] = (1, 5, 10)) -> dict:
    """{type and "all": {"questions", "recall@k" per k}}: share of each question's evidence
    sessions among its k best-ranked sessions (abstention questions have none and are skipped)."""
    import numpy as np

    from memlib.checks import check_int
    from memlib.models import get_embeddings

    if isinstance(cases, str | dict) or not isinstance(cases, Sequence) or not cases:
        raise TypeError(f"cases must be a non-empty list of cases, got {cases!r:.80}")
    if isinstance(k, int) or not isinstance(k, Sequence) or not k:
        raise TypeError(f"k must be a list of cut-offs, got {k!r}")
    ks = [check_int(n, "k[]", minimum=1) for n in k]
    embed, rows = get_embeddings(), []
    for case in cases:
        for q in validate_case(case)["questions"]:
            wanted = {e.split("-t")[0] for e in q["evidence"]}
            turns = [
                (s["id"], m["content"])
                for s in case["sessions"]
                for m in s["messages"]
                if m["role"] == "user"
            ]
            if not wanted or not turns:
                continue
            scores = np.array(embed.embed_documents([t for _, t in turns])) @ np.array(
                embed.embed_query(q["question"])
            )
            best: dict[str, float] = {}
            for (sid, _), score in zip(turns, scores, strict=True):
                best[sid] = max(best.get(sid, -2.0), float(score))
            ranked = sorted(best, key=best.__getitem__, reverse=True)
            rows.append((q["type"], [len(wanted & set(ranked[:n])) / len(wanted) for n in ks]))
    if not rows:
        raise ValueError("no question with evidence sessions to rank (only abstention questions?)")
    out = {}
    for qtype in sorted({t for t, _ in rows}) + ["all"]:
        mine = [r for t, r in rows if qtype in (t, "all")]
        out[qtype] = {"questions": len(mine)} | {
            f"recall@{n}": round(sum(r[i] for r in mine) / len(mine), 4) for i, n in enumerate(ks)
        }
    return out
