"""The offline model on ordinary conversations: open-domain memories and answers (issue #26).

Data: offline_model/data/open/dev.jsonl (develop against it) and sealed.jsonl (read its aggregate
figures only), hand-written by someone who had not read the model's rules (see the README there).

For each conversation:
- extraction: LangMem's `create_memory_manager(OfflineChatModel(), enable_inserts=True,
  enable_deletes=True)` reads one session at a time (a system message gives the session's date),
  updating the memories it returned before, as a semantic-memory app keeps them. Scored against
  the gold memories still current at the end (not superseded):
  - recall: a gold memory is kept when one extracted memory names all its values (dates may be
    written in any common form);
  - precision: an extracted memory is right when it names every value of some gold memory
    (current or superseded: keeping history is no error);
  - meaning changed (counted separately, and also a precision error): an extracted memory names a
    gold memory's values but drops its subject (a relative's fact told as the user's), its
    modality (a plan told as a fact, a negation dropped) or turns a dislike into an allergy or
    back.
- answers: each question is asked on its date, with the full history (each session opened by a
  system message with its date) and through semantic memory (the extracted memories as a system
  section); right when the reply names every gold value, or, for abstention, says it does not
  know; stale when it names an outdated value instead.

With `--memories gold` the extraction step is skipped and the questions are answered through the
gold memories still current at the end, each with the date it was said ("User's son Tomas started
judo lessons. (said on 2026-02-03)"): the answer skill measured apart from extraction.

Usage: python offline_model/benchmarks/open_eval.py [--split dev|sealed|both] [--limit N]
       [--memories extracted|gold]
Prints a table and writes offline_model/benchmarks/results/open_eval.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import warnings
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # offline_model/
DATA = HERE / "data" / "open"
OUT = HERE / "benchmarks" / "results" / "open_eval.json"
ERRORS: list[str] = []  # the model's exceptions, by conversation or question
TYPES = ("single-session", "multi-session", "knowledge-update", "temporal", "abstention")
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
PLAN = re.compile(
    r"\b(?:plan|plans|planning|planned|thinking|considering|consider|might|may|want|wants|hope|"
    r"hopes|going to|will|would like|intend|intends|booked|scheduled|aims?|goal|next)\b",
    re.I,
)
NEGATION = re.compile(
    r"\b(?:not|no|never|no longer|n't|cancel\w*|stopped|quit|isn't|aren't)\b|n't\b", re.I
)


def normalise(text: str) -> str:
    text = str(text or "").lower().replace("’", "'")
    return " ".join(re.sub(r"[^\w']+", " ", text).split())


def names(text: str, value: str) -> bool:
    """The text names the value as whole words; an ISO date also as '13 February' or 'Feb 13'."""
    if ISO.match(value):
        day = date.fromisoformat(value)
        month, month3 = day.strftime("%B").lower(), day.strftime("%b").lower()
        options = [
            value,
            f"{day.day} {month}",
            f"{month} {day.day}",
            f"{day.day} {month3}",
            f"{month3} {day.day}",
            f"{day.day}th {month}",
            f"{month} {day.day}th",
        ]
        return any(names(text, o) for o in options if not ISO.match(o)) or value in text
    return re.search(rf"(?<!\w){re.escape(normalise(value))}(?!\w)", normalise(text)) is not None


def names_all(text: str, values) -> bool:
    return bool(values) and all(names(text, v) for v in values)


DONT_KNOW = re.compile(
    r"\b(?:don't|do not|doesn't|does not) (?:know|have (?:any )?(?:information|that|a record))"
    r"|haven't (?:told|said|mentioned)|\bnot sure\b|\bno idea\b|\bcan't (?:tell|say|answer)\b"
    r"|\bnot (?:mentioned|stated)\b|\bno (?:information|record)\b",
    re.I,
)


def says_dont_know(reply: str) -> bool:
    return DONT_KNOW.search(reply.replace("’", "'")) is not None


def meaning_changed(extracted: str, gold: dict) -> bool:
    subject = gold["subject"]
    if subject != "user":  # "user's son" -> the extracted memory must say "son"
        relation = subject.split("'s")[-1].strip().split()[-1]
        if not names(extracted, relation):
            return True
    if gold["modality"] == "plan" and not PLAN.search(extracted):
        return True
    if gold["modality"] == "negated" and not NEGATION.search(extracted):
        return True
    allergy_said = "allerg" in extracted.lower()
    return allergy_said != ("allerg" in gold["text"].lower())


def extract(manager, conversation: dict) -> list[str]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    existing: list[tuple[str, str]] = []
    for session in conversation["sessions"]:
        messages = [SystemMessage(f"This conversation took place on {session['date']}.")]
        for m in session["messages"]:
            messages.append((HumanMessage if m["role"] == "user" else AIMessage)(m["content"]))
        try:
            out = manager.invoke({"messages": messages, "existing": existing})
        except Exception as error:  # a model that fails on a user's words: counted, not fatal
            ERRORS.append(f"{conversation['id']} extraction: {type(error).__name__}: {error}")
            continue
        existing = [(m.id, _text(m.content)) for m in out if _text(m.content)]
    return [text for _, text in existing]


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return str(getattr(content, "content", "") or "")


def history(conversation: dict):
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    messages = []
    for session in conversation["sessions"]:
        messages.append(SystemMessage(f"Session of {session['date']}."))
        for m in session["messages"]:
            messages.append((HumanMessage if m["role"] == "user" else AIMessage)(m["content"]))
    return messages


def ask(model, context, question: dict) -> str:
    from langchain_core.messages import HumanMessage, SystemMessage

    today = SystemMessage(f"You are a helpful assistant. Today is {question['asked_on']}.")
    try:
        return str(model.invoke([today, *context, HumanMessage(question["question"])]).content)
    except Exception as error:
        ERRORS.append(f"{question['question']!r}: {type(error).__name__}: {error}")
        return ""


def grade(question: dict, reply: str) -> tuple[bool, bool]:
    """(right, stale) for one reply."""
    if question["type"] == "abstention":
        return says_dont_know(reply), False
    right = names_all(reply, question["answer_values"])
    stale = not right and any(names(reply, v) for v in question.get("stale_values", []))
    return right, stale


def gold_memories(conversation: dict) -> list[str]:
    """The gold memories still current at the end, each with the date of its session."""
    golds = conversation["memories"]
    superseded = {g["supersedes"] for g in golds if g.get("supersedes") is not None}
    dates = [s["date"] for s in conversation["sessions"]]
    return [
        f"{g['text']} (said on {dates[g['session']]})"
        for i, g in enumerate(golds)
        if i not in superseded
    ]


def score_split(split: str, limit: int | None, memories: str = "extracted") -> dict:
    from langchain_core.messages import SystemMessage
    from langmem import create_memory_manager

    from offline_model import OfflineChatModel

    ERRORS.clear()
    model = OfflineChatModel()
    manager = create_memory_manager(model, enable_inserts=True, enable_deletes=True)
    items = [json.loads(line) for line in (DATA / f"{split}.jsonl").read_text().splitlines()]
    items = items[:limit] if limit else items
    kept, stated, right_x, extracted_n, changed = Counter(), Counter(), 0, 0, 0
    answers = {how: defaultdict(Counter) for how in ("full", "memory")}
    started = time.perf_counter()
    for conversation in items:
        if memories == "gold":
            said = gold_memories(conversation)
        else:
            said = extract(manager, conversation)
        golds = conversation["memories"]
        superseded = {g["supersedes"] for g in golds if g.get("supersedes") is not None}
        for i, gold in enumerate(golds):
            if i in superseded:
                continue
            stated[gold["kind"]] += 1
            values = [v for v in gold["values"] if not ISO.match(v)] or gold["values"]
            kept[gold["kind"]] += any(names_all(m, values) for m in said)
        for memory in said:
            extracted_n += 1
            matches = [g for g in golds if names_all(memory, g["values"])]
            if matches and not all(meaning_changed(memory, g) for g in matches):
                right_x += 1
            elif matches:
                changed += 1
        section = SystemMessage("## Memories about the user\n" + "\n".join(f"- {m}" for m in said))
        for question in conversation["questions"]:
            for how, context in (("full", history(conversation)), ("memory", [section])):
                right, stale = grade(question, ask(model, context, question))
                row = answers[how][question["type"]]
                row["asked"] += 1
                row["right"] += right
                row["stale"] += stale
    recall = sum(kept.values()) / max(1, sum(stated.values()))
    result = {
        "split": split,
        "memories": memories,
        "conversations": len(items),
        "extraction": {
            "recall": round(recall, 3),
            "precision": round(right_x / max(1, extracted_n), 3),
            "extracted": extracted_n,
            "meaning_changed": changed,
            "recall_per_kind": {k: round(kept[k] / stated[k], 3) for k in sorted(stated)},
        },
        "answers": {
            how: {
                t: round(rows[t]["right"] / rows[t]["asked"], 3) if rows[t]["asked"] else None
                for t in TYPES
            }
            | {
                "all": round(
                    sum(r["right"] for r in rows.values())
                    / max(1, sum(r["asked"] for r in rows.values())),
                    3,
                ),
                "stale": sum(r["stale"] for r in rows.values()),
            }
            for how, rows in answers.items()
        },
        "model_errors": len(ERRORS),
        "model_error_examples": ERRORS[:5],
        "seconds": round(time.perf_counter() - started, 1),
    }
    return result


def table(results: list[dict]) -> str:
    head = "| figure | " + " | ".join(r["split"] for r in results) + " |"
    lines = [head, "|---|" + "---:|" * len(results)]

    def row(label, get):
        lines.append(f"| {label} | " + " | ".join(str(get(r)) for r in results) + " |")

    def extraction(get):  # with gold memories nothing was extracted: the figures mean nothing
        return lambda r: "-" if r.get("memories") == "gold" else get(r)

    row("conversations", lambda r: r["conversations"])
    row("extraction recall (goal >= 0.85)", extraction(lambda r: r["extraction"]["recall"]))
    row("extraction precision (goal >= 0.95)", extraction(lambda r: r["extraction"]["precision"]))
    row(
        "meaning-changing extractions (goal 0)",
        extraction(lambda r: r["extraction"]["meaning_changed"]),
    )
    row("model errors (exceptions)", lambda r: r["model_errors"])
    for how, goal in (("full", "0.90"), ("memory", "0.85")):
        row(
            f"answers, {how} history (goal >= {goal})"
            if how == "full"
            else f"answers through semantic memory (goal >= {goal})",
            lambda r, h=how: r["answers"][h]["all"],
        )
        for t in TYPES:
            row(f"  {t}", lambda r, h=how, t=t: r["answers"][h][t])
    return "\n".join(lines)


def source_hash() -> str:
    """sha256 over the offline model's code and the open sets: the figures in a results file
    belong to the model and data with this hash (offline_model/tests/test_offline_eval.py)."""
    digest = hashlib.sha256()
    for path in sorted([*HERE.glob("*.py"), *DATA.glob("*.jsonl")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "sealed", "both"), default="both")
    parser.add_argument("--limit", type=int, default=None, help="first N conversations only")
    parser.add_argument("--memories", choices=("extracted", "gold"), default="extracted")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    splits = ("dev", "sealed") if args.split == "both" else (args.split,)
    results = [score_split(s, args.limit, args.memories) for s in splits]
    print(table(results))
    if args.out is None:
        args.out = OUT if args.memories == "extracted" else OUT.with_name("open_eval_gold.json")
    if args.limit is None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        record = {"source_sha256": source_hash(), "results": results}
        args.out.write_text(json.dumps(record, indent=1) + "\n")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
