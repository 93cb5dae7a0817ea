#!/usr/bin/env python3
"""Compile the hand-written conversation sources in src/*.txt into
sealed.jsonl and dev.jsonl (standard library only).

Source format (one directive per line, see README.md):
    ;; comment
    FAMILY <name>            current family
    SPLIT sealed|dev         current split
    @ <persona>              start a conversation
    > YYYY-MM-DD             start a session
    U: <text>                user message
    A: <text>                assistant message (auto-filled if omitted)
    m kind | subject | text | v1; v2 | modality [| =label] [| ^label]
    x why | text             not_memory attached to the last message
    q type | asked_on | question | v1; v2 | answer | stale1; stale2
Placeholders in m/q fields: {+N} {-N} (days from the session date, or
asked_on for questions), {next:fri} {last:sat} (strictly after/before),
{=label} (first ISO date among the values of a labelled memory).
"""

import datetime as dt
import glob
import hashlib
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
DOW = {d: i for i, d in enumerate(["mon", "tue", "wed", "thu", "fri", "sat", "sun"])}

# Short neutral acknowledgements used when a source omits the assistant turn.
# The two splits use disjoint pools so that no sentence is shared.
ACKS = {
    "sealed": [
        "Thanks for letting me know.",
        "Got it.",
        "Noted, thanks.",
        "Okay, I'll keep that in mind.",
        "That's good to know.",
        "Understood.",
        "Thanks for sharing that.",
        "Sounds good.",
        "Okay!",
        "Got it, thanks.",
        "I'll remember that.",
        "Thanks, that helps.",
        "Makes sense.",
        "Alright.",
    ],
    "dev": [
        "Okay, noted.",
        "Thank you for telling me.",
        "Right, got that.",
        "Sure thing.",
        "Good to know!",
        "I see.",
        "Okay, thanks for the update.",
        "Thanks!",
        "Alright, noted.",
        "Oh, okay.",
        "Fair enough.",
        "I've got that.",
        "Cool, thanks.",
    ],
}


SAD = re.compile(
    r"passed away|died|\bdead\b|heart attack|broke (my|his|her)|broken|fall\b|had a fall|sprain|injur|laid off|redundan|stolen|failed|didn't get|broke up|divorc|separat|cancel|relapse|lost |gutted|ugh|sick|flood|mould|killing me|exhausted|terrified|nervous|devastated|overwhelmed",
    re.I,
)
GOOD = re.compile(
    r"!!|passed|promoted|got the|won |engaged|married|proposed|approved|arrived|born|finished|done!|we're in|booked|hit \d|new job|accepted",
    re.I,
)
SAD_ACKS = {
    "sealed": [
        "I'm sorry to hear that.",
        "Oh no, that's hard.",
        "That sounds really tough.",
        "Sorry - that's rough.",
    ],
    "dev": [
        "Oh, I'm sorry.",
        "That's a shame, sorry to hear it.",
        "Ugh, that sounds difficult.",
        "Sorry you're dealing with that.",
    ],
}
GOOD_ACKS = {
    "sealed": [
        "Congratulations!",
        "That's great news!",
        "Brilliant, well done!",
        "Amazing - congrats!",
    ],
    "dev": ["Congrats!", "Wonderful news!", "That's fantastic!", "Yay, well done!"],
}


def ack(split, text):
    pool = ACKS[split]
    if SAD.search(text):
        pool = SAD_ACKS[split]
    elif GOOD.search(text):
        pool = GOOD_ACKS[split]
    h = int(hashlib.md5(text.encode()).hexdigest(), 16)
    return pool[h % len(pool)]


def resolve(s, base, labels):
    def rep(mo):
        tok = mo.group(1)
        if tok.startswith("="):
            lab = tok[1:]
            if lab not in labels:
                raise ValueError("unknown label %s" % lab)
            for v in labels[lab]["values"]:
                if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
                    return v
            raise ValueError("label %s has no date" % lab)
        if base is None:
            raise ValueError("no base date for %s" % tok)
        d = dt.date.fromisoformat(base)
        if re.fullmatch(r"[+-]\d+", tok):
            return (d + dt.timedelta(days=int(tok))).isoformat()
        m = re.fullmatch(r"(next|last):(\w\w\w)", tok)
        if m:
            want = DOW[m.group(2)]
            step = 1 if m.group(1) == "next" else -1
            x = d + dt.timedelta(days=step)
            while x.weekday() != want:
                x += dt.timedelta(days=step)
            return x.isoformat()
        raise ValueError("bad placeholder %s" % tok)

    return re.sub(r"\{([^{}]+)\}", rep, s)


def split_list(s):
    s = s.strip()
    if not s or s == "-":
        return []
    return [v.strip() for v in s.split(";") if v.strip()]


def parse_file(path):
    family = split = None
    convs = []
    conv = None
    lines = open(path, encoding="utf-8").read().split("\n")

    def err(n, msg):
        raise SystemExit("%s:%d: %s" % (path, n, msg))

    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith(";;"):
            continue
        try:
            if line.startswith("FAMILY "):
                family = line.split(None, 1)[1].strip()
            elif line.startswith("SPLIT "):
                split = line.split(None, 1)[1].strip()
            elif line.startswith("@ "):
                conv = {
                    "family": family,
                    "split": split,
                    "user": line[2:].strip(),
                    "sessions": [],
                    "mems": [],
                    "nots": [],
                    "qs": [],
                    "labels": {},
                    "src": "%s:%d" % (path, n),
                }
                convs.append(conv)
            elif line.startswith("> "):
                conv["sessions"].append({"date": line[2:].strip(), "messages": []})
            elif line.startswith("U:") or line.startswith("A:"):
                role = "user" if line[0] == "U" else "assistant"
                sess = conv["sessions"][-1]
                msgs = sess["messages"]
                if role == "user" and msgs and msgs[-1]["role"] == "user":
                    msgs.append({"role": "assistant", "content": ack(split, msgs[-1]["content"])})
                msgs.append({"role": role, "content": line[2:].strip()})
            elif line.startswith("m "):
                f = [p.strip() for p in line[2:].split("|")]
                if len(f) < 5:
                    err(n, "memory needs 5 fields")
                sess = conv["sessions"][-1]
                si = len(conv["sessions"]) - 1
                mi = len(sess["messages"]) - 1
                base = sess["date"]
                mem = {
                    "session": si,
                    "message": mi,
                    "kind": f[0],
                    "subject": f[1],
                    "text": resolve(f[2], base, conv["labels"]),
                    "values": [resolve(v, base, conv["labels"]) for v in split_list(f[3])],
                    "modality": f[4].split()[0],
                    "supersedes": None,
                }
                for extra in f[4].split()[1:] + f[5:]:
                    if extra.startswith("="):
                        conv["labels"][extra[1:]] = mem
                    elif extra.startswith("^"):
                        lab = extra[1:]
                        if lab not in conv["labels"]:
                            err(n, "unknown label " + lab)
                        mem["supersedes"] = conv["mems"].index(conv["labels"][lab])
                    elif extra:
                        err(n, "bad extra field " + extra)
                conv["mems"].append(mem)
            elif line.startswith("x "):
                f = [p.strip() for p in line[2:].split("|", 1)]
                sess = conv["sessions"][-1]
                conv["nots"].append(
                    {
                        "session": len(conv["sessions"]) - 1,
                        "message": len(sess["messages"]) - 1,
                        "text": f[1],
                        "why": f[0],
                    }
                )
            elif line.startswith("q "):
                f = [p.strip() for p in line[2:].split("|")]
                while len(f) < 6:
                    f.append("")
                qt, asked = f[0], f[1]
                L = conv["labels"]
                conv["qs"].append(
                    {
                        "type": qt,
                        "asked_on": asked,
                        "question": resolve(f[2], asked, L),
                        "answer_values": [resolve(v, asked, L) for v in split_list(f[3])],
                        "answer": resolve(f[4], asked, L),
                        "stale_values": [resolve(v, asked, L) for v in split_list(f[5])],
                    }
                )
            else:
                err(n, "unrecognised line: " + line[:60])
        except SystemExit:
            raise
        except Exception as e:  # noqa
            err(n, repr(e))
    # close sessions: every session ends with an assistant turn
    for c in convs:
        for s in c["sessions"]:
            if s["messages"] and s["messages"][-1]["role"] == "user":
                s["messages"].append(
                    {"role": "assistant", "content": ack(c["split"], s["messages"][-1]["content"])}
                )
    return convs


def main():
    files = sorted(glob.glob(os.path.join(HERE, "src", "*.txt")))
    out = {"sealed": [], "dev": []}
    for p in files:
        for c in parse_file(p):
            if c["split"] not in out:
                raise SystemExit("%s: bad split %r" % (c["src"], c["split"]))
            out[c["split"]].append(c)
    for split, convs in out.items():
        with open(os.path.join(HERE, split + ".jsonl"), "w", encoding="utf-8") as fh:
            for i, c in enumerate(convs, 1):
                rec = {
                    "id": "%s-%04d" % (split, i),
                    "family": c["family"],
                    "user": c["user"],
                    "sessions": c["sessions"],
                    "memories": c["mems"],
                    "not_memories": c["nots"],
                    "questions": c["qs"],
                }
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        print("%s: %d conversations" % (split, len(convs)))


if __name__ == "__main__":
    main()
