#!/usr/bin/env python3
"""Validate offline_model/data/open/{sealed,dev}.jsonl (standard library only).

Usage: python3 validate.py [--quiet]
Exit status 0 when every check passes, 1 otherwise.
"""

import collections
import datetime as dt
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {
    "identity",
    "family",
    "relationship",
    "pet",
    "health",
    "allergy",
    "diet",
    "work",
    "studies",
    "schedule",
    "routine",
    "hobby",
    "plan",
    "deadline",
    "appointment",
    "place",
    "possession",
    "preference",
    "finance",
    "travel",
    "language",
    "count",
    "sleep",
    "commute",
    "event",
}
MODALITIES = {"fact", "plan", "preference", "past", "negated"}
QTYPES = ["single-session", "multi-session", "knowledge-update", "temporal", "abstention"]
MIN = {
    "sealed": {"convs": 320, "families": 24, "per_family": 12, "per_qtype": 60},
    "dev": {"convs": 160, "families": 24, "per_family": 6, "per_qtype": 30},
}
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# values that are derived by arithmetic on dated statements (durations, counts, months)
DERIVED = re.compile(
    r"^(yes|no|\d[\d,]*(\.\d+)?[k%]?|\d+ (day|days|week|weeks|month|months|year|years|hours|minutes)"
    r"|(january|february|march|april|may|june|july|august|september|october|november|december)( \d{4})?)$",
    re.I,
)
FIRST_PERSON = re.compile(r"(?<!-)\b(I|I'm|I've|my|me|mine|we|our)\b(?!-)")

errors = []


def err(cid, msg):
    errors.append("%s: %s" % (cid, msg))


def norm(s):
    return re.sub(r"[^a-z0-9 ]", "", re.sub(r"\s+", " ", s.lower())).strip()


def sentences(text):
    for s in re.split(r"(?<=[.!?])\s+|\n+", text):
        n = norm(s)
        if len(n.split()) >= 3:
            yield n


def is_date(s):
    if not ISO.match(s):
        return False
    try:
        dt.date.fromisoformat(s)
        return True
    except ValueError:
        return False


def check_conv(c, split):
    cid = c.get("id", "?")
    for k, t in [
        ("id", str),
        ("family", str),
        ("user", str),
        ("sessions", list),
        ("memories", list),
        ("not_memories", list),
        ("questions", list),
    ]:
        if not isinstance(c.get(k), t):
            err(cid, "missing or bad field %s" % k)
            return
    if not cid.startswith(split + "-"):
        err(cid, "id does not start with split name")
    S = c["sessions"]
    if not 2 <= len(S) <= 5:
        err(cid, "has %d sessions (want 2-5)" % len(S))
    prev = None
    for si, s in enumerate(S):
        if not is_date(s.get("date", "")):
            err(cid, "session %d bad date" % si)
            continue
        if prev and s["date"] < prev:
            err(cid, "session %d out of order" % si)
        prev = s["date"]
        msgs = s.get("messages", [])
        nu = sum(1 for m in msgs if m.get("role") == "user")
        if not 1 <= nu <= 6:
            err(cid, "session %d has %d user messages (want 1-6)" % (si, nu))
        for m in msgs:
            if (
                m.get("role") not in ("user", "assistant")
                or not isinstance(m.get("content"), str)
                or not m["content"].strip()
            ):
                err(cid, "session %d bad message %r" % (si, m))
    usertext = " \n ".join(
        m["content"] for s in S for m in s.get("messages", []) if m.get("role") == "user"
    ).lower()
    M = c["memories"]
    if not 3 <= len(M) <= 10:
        err(cid, "has %d memories (want 3-10)" % len(M))
    allvals = set()
    for i, m in enumerate(M):
        try:
            msg = S[m["session"]]["messages"][m["message"]]
        except (IndexError, KeyError, TypeError):
            err(cid, "memory %d points nowhere" % i)
            continue
        if msg["role"] != "user":
            err(cid, "memory %d points at an assistant message" % i)
        if m.get("kind") not in KINDS:
            err(cid, "memory %d bad kind %r" % (i, m.get("kind")))
        if m.get("modality") not in MODALITIES:
            err(cid, "memory %d bad modality %r" % (i, m.get("modality")))
        if not str(m.get("subject", "")).startswith("user"):
            err(cid, "memory %d bad subject %r" % (i, m.get("subject")))
        t = m.get("text", "")
        if not t.startswith("User") or FIRST_PERSON.search(t):
            err(cid, "memory %d text not third person: %r" % (i, t))
        sup = m.get("supersedes")
        if sup is not None and not (isinstance(sup, int) and 0 <= sup < i):
            err(cid, "memory %d bad supersedes %r" % (i, sup))
        if not m.get("values"):
            err(cid, "memory %d has no values" % i)
        for v in m.get("values", []):
            allvals.add(v.lower())
            if is_date(v):
                continue
            # the value must be said in this message or earlier in the
            # conversation (a pronoun may refer back to an earlier name)
            upto = " ".join(
                mm["content"]
                for s2 in S[: m["session"]]
                for mm in s2["messages"]
                if mm["role"] == "user"
            )
            upto += " " + " ".join(
                mm["content"]
                for mm in S[m["session"]]["messages"][: m["message"] + 1]
                if mm["role"] == "user"
            )
            if v.lower() not in upto.lower():
                err(cid, "memory %d value %r not said by the user up to its message" % (i, v))
            if v.lower() not in t.lower():
                err(cid, "memory %d value %r not in memory text" % (i, v))
    for i, n in enumerate(c["not_memories"]):
        try:
            S[n["session"]]["messages"][n["message"]]
        except (IndexError, KeyError, TypeError):
            err(cid, "not_memory %d points nowhere" % i)
        if not n.get("text") or not n.get("why"):
            err(cid, "not_memory %d missing text/why" % i)
    Q = c["questions"]
    if not 3 <= len(Q) <= 6:
        err(cid, "has %d questions (want 3-6)" % len(Q))
    for i, q in enumerate(Q):
        if q.get("type") not in QTYPES:
            err(cid, "question %d bad type %r" % (i, q.get("type")))
        if not is_date(q.get("asked_on", "")) or (prev and q["asked_on"] < prev):
            err(cid, "question %d asked_on must be a date on/after the last session" % i)
        if not q.get("question") or not q.get("answer"):
            err(cid, "question %d missing question/answer" % i)
        av = q.get("answer_values")
        if not isinstance(av, list) or not isinstance(q.get("stale_values"), list):
            err(cid, "question %d answer_values/stale_values must be lists" % i)
            continue
        if q["type"] == "abstention":
            if av:
                err(cid, "abstention question %d has answer values" % i)
            continue
        if not av:
            err(cid, "question %d has no answer values" % i)
        for v in av:
            lv = v.lower()
            # ISO dates may be computed from a dated statement ("in 9 weeks")
            if lv in usertext or lv in allvals or DERIVED.match(v) or is_date(v):
                continue
            err(cid, "question %d answer value %r not found in sessions/memory values" % (i, v))
        if q["type"] == "knowledge-update":
            if not q["stale_values"]:
                err(cid, "knowledge-update question %d lacks stale_values" % i)
            if not any(m.get("supersedes") is not None for m in M):
                err(cid, "knowledge-update question %d but no memory supersedes another" % i)
        for v in q["stale_values"]:
            if v.lower() in [a.lower() for a in av]:
                err(cid, "question %d value %r both gold and stale" % (i, v))


def main():
    quiet = "--quiet" in sys.argv
    data = {}
    for split in ("sealed", "dev"):
        path = os.path.join(HERE, split + ".jsonl")
        rows = []
        with open(path, encoding="utf-8") as fh:
            for ln, line in enumerate(fh, 1):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    err("%s:%d" % (split, ln), "bad JSON: %s" % e)
        data[split] = rows
    ids = collections.Counter(c.get("id") for rows in data.values() for c in rows)
    for k, v in ids.items():
        if v > 1:
            err(k, "duplicate id")
    for split, rows in data.items():
        for c in rows:
            check_conv(c, split)
    # no sentence shared between splits
    sent = {}
    for split, rows in data.items():
        sent[split] = {}
        for c in rows:
            for s in c.get("sessions", []):
                for m in s.get("messages", []):
                    for x in sentences(m.get("content", "")):
                        sent[split].setdefault(x, c.get("id"))
    shared = set(sent["sealed"]) & set(sent["dev"])
    for x in sorted(shared):
        err("%s/%s" % (sent["sealed"][x], sent["dev"][x]), "sentence shared between splits: %r" % x)
    # counts
    fams = {}
    for split, rows in data.items():
        fam = collections.Counter(c["family"] for c in rows)
        kinds = collections.Counter(m["kind"] for c in rows for m in c["memories"])
        mods = collections.Counter(m["modality"] for c in rows for m in c["memories"])
        qt = collections.Counter(q["type"] for c in rows for q in c["questions"])
        nots = sum(len(c["not_memories"]) for c in rows)
        sups = sum(1 for c in rows for m in c["memories"] if m["supersedes"] is not None)
        fams[split] = set(fam)
        lim = MIN[split]
        if len(rows) < lim["convs"]:
            err(split, "only %d conversations (want >= %d)" % (len(rows), lim["convs"]))
        if len(fam) < lim["families"]:
            err(split, "only %d families (want >= %d)" % (len(fam), lim["families"]))
        for f, n in fam.items():
            if n < lim["per_family"]:
                err(
                    split, "family %s has %d conversations (want >= %d)" % (f, n, lim["per_family"])
                )
        for t in QTYPES:
            if qt[t] < lim["per_qtype"]:
                err(split, "question type %s has %d (want >= %d)" % (t, qt[t], lim["per_qtype"]))
        if not quiet:
            print(
                "== %s: %d conversations, %d families, %d memories (%d updates), %d not_memories, %d questions"
                % (split, len(rows), len(fam), sum(kinds.values()), sups, nots, sum(qt.values()))
            )
            print("  per family:   " + ", ".join("%s=%d" % kv for kv in sorted(fam.items())))
            print("  per kind:     " + ", ".join("%s=%d" % kv for kv in sorted(kinds.items())))
            print("  per modality: " + ", ".join("%s=%d" % kv for kv in sorted(mods.items())))
            print("  per question: " + ", ".join("%s=%d" % (t, qt[t]) for t in QTYPES))
    if fams.get("sealed") != fams.get("dev"):
        err("splits", "family sets differ: %s" % sorted(fams["sealed"] ^ fams["dev"]))
    if errors:
        print("\n%d problem(s):" % len(errors))
        for e in errors[:200]:
            print("  " + e)
        sys.exit(1)
    print("\nOK: all checks passed")


if __name__ == "__main__":
    main()
