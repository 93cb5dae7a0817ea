"""Grading answers and summing them up per question type.

`grade(question, reply)` decides one answer: correct when every gold keyword occurs in the reply
(case, punctuation and spacing normalised), or for an abstention question when the reply says it
does not know (`says_dont_know`); stale when it names an outdated value. `summarize(rows)` gives,
per question type and overall: answer accuracy, stale-answer rate, abstention accuracy, evidence
recall@k (retrieving strategies only), the share refused for the context window, prompt tokens,
model calls and latency per question.
`format_summary` prints them as a table.

Leaves out: judging with a model (keyword matching is exact and free, but a correct reply that
spells a value differently counts as wrong) and partial credit.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from statistics import mean

from memlib.checks import check_kind
from memlib.eval.dataset import QUESTION_TYPES

DONT_KNOW = re.compile(
    r"\b(?:i )?(?:don't|do not|dont) know\b|\bhaven't (?:told|mentioned|said)|\bhave not (?:told|mentioned|said)"
    r"|\bno (?:information|record|idea)\b|\bnot sure\b|\bcan't (?:tell|say)\b|\bcannot (?:tell|say)\b"
    r"|\bnot (?:been )?(?:told|mentioned|stated)\b|\bdon't have (?:that|any|this)\b|\bunknown\b"
)


def normalise(text: str) -> str:
    """Lower case, straight apostrophes, punctuation to spaces, single spaces."""
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}: {text!r}")
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").lower()
    text = re.sub(r"[^\w']+", " ", text)
    return " ".join(text.split())


def mentions(reply: str, value: str) -> bool:
    """True when the normalised value occurs in the normalised reply as whole words."""
    return (
        re.search(r"(?<!\w)" + re.escape(normalise(value)) + r"(?!\w)", normalise(reply))
        is not None
    )


def says_dont_know(reply: str) -> bool:
    """True when the reply says it does not know (the right answer to an abstention question)."""
    return DONT_KNOW.search(normalise(reply)) is not None


# Saved from notebooks/11_evaluating_memory.ipynb, In [5]: edit it there, then `make sync`.
def grade(question: dict, reply: str) -> dict:
    """{correct, stale, abstained} for one reply to one dataset question."""
    if not isinstance(question, dict) or "type" not in question or "answer" not in question:
        raise TypeError(
            f"question must be a dataset question (a dict with type and answer), got {question!r}"
        )
    abstained = says_dont_know(reply)
    if question["type"] == "abstention":
        correct = abstained
    else:
        correct = all(mentions(reply, a) for a in question["answer"])
    stale = any(mentions(reply, s) for s in question.get("stale", []))
    return {"correct": correct, "stale": stale, "abstained": abstained}


def evidence_recall_at_k(
    retrieved_sessions: Sequence[str], evidence: Sequence[str]
) -> float | None:
    """Share of the evidence's sessions that the retrieved memories came from (None: no evidence)."""
    wanted = {e.split("-t")[0] for e in evidence}
    if not wanted:
        return None
    return len(wanted & set(retrieved_sessions)) / len(wanted)


def _mean(values):
    values = [v for v in values if v is not None]
    return round(mean(values), 4) if values else None


def summarize(rows: Sequence[dict]) -> dict:
    """Per question type (and "all"): accuracy, stale rate, abstention accuracy, recall@k, costs."""
    out = {}
    for qtype in (*QUESTION_TYPES, "all"):
        mine = [r for r in rows if qtype in ("all", r["type"])]
        if not mine:
            continue
        abst = [r for r in mine if r["type"] == "abstention"]
        answerable = [r for r in mine if r["type"] != "abstention"]
        out[qtype] = {
            "questions": len(mine),
            "accuracy": _mean([float(r["correct"]) for r in mine]),
            "stale_rate": _mean([float(r["stale"]) for r in answerable]),
            "refused": _mean([float(r.get("refused", False)) for r in mine]),
            "abstention_accuracy": _mean([float(r["correct"]) for r in abst]),
            "recall_at_k": _mean([r.get("recall") for r in mine]),
            "prompt_tokens": _mean([r["prompt_tokens"] for r in mine]),
            "calls": _mean([r["calls"] for r in mine]),
            "latency_s": _mean([r["latency_s"] for r in mine]),
        }
    return out


COLUMNS = (
    "questions",
    "accuracy",
    "stale_rate",
    "abstention_accuracy",
    "recall_at_k",
    "prompt_tokens",
    "calls",
    "latency_s",
)
SHORT = {
    "abstention_accuracy": "abstain",
    "recall_at_k": "recall@k",
    "prompt_tokens": "tokens",
    "stale_rate": "stale",
    "latency_s": "latency",
}


def format_summary(summary: dict, title: str = "") -> str:
    """The per-type summary as an aligned text table."""
    check_kind(summary, dict, "summary", "the dict summarize() returns")
    check_kind(title, str, "title", "a str")
    head = ["type"] + [SHORT.get(c, c) for c in COLUMNS]
    lines = [
        [t]
        + [
            "-" if s[c] is None else (f"{s[c]:.3g}" if isinstance(s[c], float) else str(s[c]))
            for c in COLUMNS
        ]
        for t, s in summary.items()
    ]
    widths = [max(len(r[i]) for r in [head, *lines]) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    text = [fmt.format(*head)] + [fmt.format(*r) for r in lines]
    return ((title + "\n") if title else "") + "\n".join(text)
