"""Memory over time: facts that carry when they were true and when the agent knew them (12).

A fact item is a LangGraph store value `{"kind": "Fact", "content": {content, subject, predicate,
object}, "slot", "valid_from", "valid_to", "recorded_at", "retired_at", "when", "said_on"}`:
world time (`valid_from` / `valid_to`: when it was true) and agent time (`recorded_at` /
`retired_at`: when it was learnt, when a newer fact superseded it), as day numbers YYYYMMDD
(`OPEN` = still so) that compare alike as numbers and as text, so every store's `$lt` / `$gt`
filters work on them. `remember` places a fact in its slot's timeline and closes the fact it
supersedes; nothing is deleted. `resolve_when` turns "last week", "at the start of March", "in two
weeks" said on a known day into a window; `time_window` reads a query's own time words ("in
January", "before I moved to X"); `hybrid_search` fuses BM25 and the store's semantic search by
reciprocal rank inside that window.

Leaves out: corrections (a fact that was never true), time zones and times of day (days only), and
the model call that proposes facts (notebook 12 makes it).
"""

from __future__ import annotations

import calendar
import math
import re
import uuid
from collections import Counter
from datetime import date, datetime, timedelta
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.store.base import PutOp, SearchItem
from langgraph.store.base.embed import get_text_at_path, tokenize_path
from pydantic import BaseModel, Field

from memlib.checks import check_chat_model, check_int, check_namespace, check_store, check_str

OPEN, EVER = 99991231, 10000101  # day numbers for "still so" and "since forever"
MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS |= {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
NUMBERS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}
WEEKDAYS = [d.lower() for d in calendar.day_name]
PARTS = {"start": (1, 10), "beginning": (1, 10), "early": (1, 10), "middle": (11, 20)}
PARTS |= {"mid": (11, 20), "end": (21, 31), "late": (21, 31)}


def day_number(day: date | datetime | str | int) -> int:
    """A date (or ISO string, or day number) as the day number YYYYMMDD."""
    if isinstance(day, int) and not isinstance(day, bool):
        try:
            return day_number(as_date(day))
        except ValueError:
            raise ValueError(f"expected a day number YYYYMMDD, got {day!r}") from None
    if isinstance(day, str):
        try:
            day = datetime.fromisoformat(day)
        except ValueError:
            raise ValueError(f"expected an ISO date such as '2025-03-02', got {day!r}") from None
    if not isinstance(day, date):
        raise TypeError(
            f"expected a date, datetime or ISO string, got {type(day).__name__}: {day!r}"
        )
    return day.year * 10000 + day.month * 100 + day.day


def as_date(number: int) -> date:
    """A day number YYYYMMDD back as a date."""
    return date(number // 10000, number // 100 % 100, number % 100)


def _add_months(day: date, n: int) -> date:
    y, m = divmod(day.month - 1 + n, 12)
    year, month = day.year + y, m + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _shift(day: date, n: int, unit: str) -> date:
    if unit == "day":
        return day + timedelta(days=n)
    if unit == "week":
        return day + timedelta(weeks=n)
    return _add_months(day, n * (12 if unit == "year" else 1))


def _month_window(month: int, year: int | None, part: str | None, said: date) -> tuple[date, date]:
    if year is None:  # the latest such month not after the day it was said
        year = said.year if month <= said.month else said.year - 1
    last = calendar.monthrange(year, month)[1]
    first, end = PARTS.get(part, (1, last))
    return date(year, month, first), date(year, month, min(end, last)) + timedelta(days=1)


_NUM = r"\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few"
_UNIT = r"day|week|month|year"
_MON = "|".join(sorted(MONTHS, key=len, reverse=True))
WHEN = re.compile(
    rf"\b(?:(?P<iso>\d{{4}}-\d{{2}}-\d{{2}})"
    rf"|(?:(?:at |in )?(?:the )?(?P<part>start|beginning|early|middle|mid|end|late)(?:(?: of)? |-))?"
    rf"(?P<month>{_MON})\.?(?: (?P<mday>\d{{1,2}})(?:st|nd|rd|th)?\b)?(?:,? (?P<year>\d{{4}}))?"
    rf"|(?P<rel>last|this|next) (?P<runit>week|month|year|{'|'.join(WEEKDAYS)})"
    rf"|(?P<back>{_NUM}) (?P<bunit>{_UNIT})s? ago|in (?P<ahead>{_NUM}) (?P<aunit>{_UNIT})s?"
    r"|(?P<word>yesterday|today|tomorrow|tonight))\b",
    re.I,
)


def _window(m: re.Match, said: date) -> tuple[date, date]:
    g = {k: (v.lower() if isinstance(v, str) else v) for k, v in m.groupdict().items()}
    if g["iso"]:
        start = date.fromisoformat(g["iso"])
        return start, start + timedelta(days=1)
    if g["month"]:
        year = int(g["year"]) if g["year"] else None
        window = _month_window(MONTHS[g["month"]], year, g["part"], said)
        if g["mday"]:
            start = window[0].replace(day=int(g["mday"]))
            return start, start + timedelta(days=1)
        return window
    if g["word"]:
        start = said + timedelta(days={"yesterday": -1, "tomorrow": 1}.get(g["word"], 0))
        return start, start + timedelta(days=1)
    if g["rel"]:
        step = {"last": -1, "this": 0, "next": 1}[g["rel"]]
        if g["runit"] in WEEKDAYS:
            ahead = (WEEKDAYS.index(g["runit"]) - said.weekday()) % 7
            start = said + timedelta(days=ahead + 7 * min(step, 0))
            return start, start + timedelta(days=1)
        unit = g["runit"]
        if unit == "week":
            start = said - timedelta(days=said.weekday())
        else:
            start = said.replace(day=1, month=1 if unit == "year" else said.month)
        start = _shift(start, step, unit)
        return start, _shift(start, 1, unit)
    count, unit = (g["back"], g["bunit"]) if g["back"] else (g["ahead"], g["aunit"])
    n = int(count) if count.isdigit() else NUMBERS[count]
    start = _shift(said, -n if g["back"] else n, unit)
    return start, start + timedelta(days=1)


def resolve_when(text: str, said_on: date | datetime | str) -> dict | None:
    """The first time expression in text, resolved against the day it was said:
    {"words", "start", "end"} as day numbers (end excluded), or None when text names no time."""
    check_str(text, "text", allow_empty=True)
    said = as_date(day_number(said_on))
    found = (  # a month word alone ("may") is a date only after a preposition
        m
        for m in WHEN.finditer(text)
        if not (m["month"] and not (m["part"] or m["mday"] or m["year"]))
        or re.search(r"\b(?:in|on|of|since|until|before|after|by|during|from) $", text[: m.start()])
    )
    m = next(found, None)
    if m is None:
        return None
    start, end = _window(m, said)
    return {"words": m.group(0), "start": day_number(start), "end": day_number(end)}


def _field(fact: Any, name: str) -> Any:
    return fact.get(name) if isinstance(fact, dict) else getattr(fact, name, None)


def _about(store, namespace: tuple, subject: str) -> str:
    """ "user" when the subject is the user (by a pronoun or a name the user's facts hold)."""
    if subject.lower() in ("user", "the user", "i", "me", "you", "myself"):
        return "user"
    held = store.search(namespace, filter={"about": "user"}, limit=1000)
    names = {i.value["content"]["object"].lower() for i in held}
    return "user" if subject.lower() in names else subject.lower()


def _check_fact(fact: Any) -> dict:
    if not isinstance(fact, dict) and not hasattr(fact, "model_dump"):
        raise TypeError(
            f"fact must be a dict or a pydantic model, got {type(fact).__name__}: {fact!r:.80}"
        )
    fields = {f: _field(fact, f) for f in ("content", "subject", "predicate", "object")}
    for name, text in fields.items():
        check_str(text, f"fact[{name!r}]")
    when = _field(fact, "when")
    if when is not None:
        check_str(when, "fact['when']", allow_empty=True)
    return {"content": fields, "when": when or None}


def fact_item(
    store, namespace: tuple, fact: Any, said_on: date | datetime | str, source: str = ""
) -> dict:
    """A store value for a proposed fact: its slot, and valid from the time its words name
    (its `when`, else the time words of the source sentence), else from the day it was said."""
    checked, said = _check_fact(fact), day_number(said_on)
    check_str(source, "source", allow_empty=True)
    c = checked["content"]
    resolved = resolve_when(checked["when"] or "", said) or resolve_when(source, said)
    about = _about(store, namespace, c["subject"])
    return {
        "kind": "Fact",
        "content": c,
        "slot": f"{about}|{' '.join(c['predicate'].lower().split())}",
        "about": about,
        "valid_from": resolved["start"] if resolved else said,
        "valid_to": OPEN,
        "recorded_at": said,
        "retired_at": OPEN,
        "when": resolved["words"] if resolved else None,
        "said_on": as_date(said).isoformat(),
    }


def remember(store, namespace: tuple, fact: Any, *, said_on, source: str = "") -> str:
    """Write a fact into its slot's timeline; the fact it supersedes is closed, never deleted.
    Returns the fact's key (the existing one when the same value already holds then)."""
    check_store(store)
    namespace = check_namespace(namespace)
    value = fact_item(store, namespace, fact, said_on, source)
    start, obj = value["valid_from"], value["content"]["object"].lower()
    same = store.search(namespace, filter={"slot": value["slot"]}, limit=1000)
    holding = [i for i in same if i.value["valid_from"] <= start < i.value["valid_to"]]
    if any(i.value["content"]["object"].lower() == obj for i in holding):
        return holding[0].key  # already known to hold then: nothing to write
    later = [i.value["valid_from"] for i in same if i.value["valid_from"] > start]
    value["valid_to"] = min(later, default=OPEN)
    key = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{namespace}|{value['slot']}|{obj}|{start}"))
    ops = [PutOp(namespace, key, value)]
    for old in holding:  # the code decides: the old value stops where the new one starts
        closed = {**old.value, "valid_to": start}
        if old.value["valid_to"] == OPEN:
            closed["retired_at"] = value["recorded_at"]
        ops.append(PutOp(namespace, old.key, closed))
    store.batch(ops)  # the new fact and the closing together
    return key


def valid_filter(start: int, end: int) -> dict:
    """A store filter for facts valid at some day in [start, end) (day numbers)."""
    return {"valid_from": {"$lt": end}, "valid_to": {"$gt": start}}


def timeline(store, namespace: tuple, predicate: str, about: str = "user") -> list:
    """Every value a slot has held, oldest first: "where have I lived?"."""
    check_store(store)
    slot = f"{check_str(about, 'about').lower()}|{' '.join(check_str(predicate, 'predicate').lower().split())}"
    items = store.search(check_namespace(namespace), filter={"slot": slot}, limit=1000)
    return sorted(items, key=lambda i: (i.value["valid_from"], i.value["recorded_at"]))


STOP = set(
    "a an and are as at be by did do does for from had has have how i i'm in is it me my of on or"
    " that the this to was we were what when where which who why will with you your".split()
)


def terms(text: str) -> list[str]:
    """Lower-case words but common English ones, lightly stemmed ("lived", "lives" -> "liv")."""
    out = []
    for w in re.findall(r"[a-z0-9']+", text.lower()):
        if w in STOP:
            continue
        for suffix in ("ing", "ed", "es", "s", "e"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: -len(suffix)]
                break
        out.append(w)
    return out


def _texts(store, value: dict) -> str:
    config = getattr(store, "index_config", None) or {}
    paths = config.get("fields") or ["$"]
    return " ".join(t for p in paths for t in get_text_at_path(value, tokenize_path(p)))


def bm25(store, items: list, query: str, k1: float = 1.2, b: float = 0.75) -> list:
    """The items sharing a word with the query, best BM25 score first, over the indexed fields."""
    docs = [Counter(terms(_texts(store, i.value))) for i in items]
    average = sum(sum(d.values()) for d in docs) / max(len(docs), 1)
    df = Counter(t for d in docs for t in d)
    scored = []
    for item, d in zip(items, docs, strict=True):
        length, score = sum(d.values()), 0.0
        for t in set(terms(query)) & set(d):
            idf = math.log(1 + (len(docs) - df[t] + 0.5) / (df[t] + 0.5))
            score += idf * d[t] * (k1 + 1) / (d[t] + k1 * (1 - b + b * length / max(average, 1)))
        if score > 0:
            scored.append((score, item))
    return [i for _, i in sorted(scored, key=lambda p: -p[0])]


def _every(store, prefix: tuple, filter: dict | None) -> list:
    items, page = [], 1000
    while True:
        got = store.search(prefix, filter=filter, limit=page, offset=len(items))
        items += got
        if len(got) < page:
            return items


def _fuse(rankings: list[list], limit: int) -> list[SearchItem]:
    """Reciprocal rank fusion: sum of 1 / (60 + rank) over the rankings an item is in."""
    scores, first = Counter(), {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            ident = (tuple(item.namespace), item.key)
            scores[ident] += 1 / (60 + rank + 1)
            first.setdefault(ident, item)
    best = sorted(scores, key=lambda i: -scores[i])[:limit]
    return [
        SearchItem(
            first[i].namespace,
            first[i].key,
            first[i].value,
            first[i].created_at,
            first[i].updated_at,
            score=round(scores[i], 6),
        )
        for i in best
    ]


def _ranked(store, prefix: tuple, query: str, filter: dict | None, limit: int) -> tuple[list, list]:
    """(pool, rankings): the items passing the filter, and a BM25 and a semantic ranking of them
    for each part of the query ("What is my name and where do I work?" has two)."""
    pool, rankings = _every(store, prefix, filter), []
    parts = re.split(r",? and (?=(?:what|where|who|when|which|how)\b)", query, flags=re.I)
    for part in parts:
        rankings.append(bm25(store, pool, part))
        if getattr(store, "index_config", None):
            rankings.append(
                store.search(prefix, query=part, filter=filter, limit=max(3 * limit, 30))
            )
    return pool, rankings


def time_window(store, prefix: tuple, query: str, today: int) -> dict | None:
    """The window {start, end, anchor, event} a query's own time words name: a date ("in
    January", "since March") or an event the store holds ("before I moved to X", whose fact is
    `event` and its day `anchor`); None when the query names no time."""
    m = re.search(r"\b(before|after|since|until)\s+([^?.!,;]+)", query, re.I)
    if m is None:
        found = resolve_when(query, today)
        return found and {
            "start": found["start"],
            "end": found["end"],
            "anchor": None,
            "event": None,
        }
    word, clause, event = m[1].lower(), m[2], None
    found = resolve_when(clause, today)
    if found:
        point = found["end"] if word == "after" else found["start"]
    else:  # an event: the day the item that best matches the clause became true
        best = _fuse(_ranked(store, prefix, clause, None, 1)[1], 1)
        if not best or "valid_from" not in best[0].value:
            return None
        event, point = best[0], best[0].value["valid_from"]
    # days are the unit: "before" keeps the anchor's own day, whose order within it is unknown
    next_day = day_number(as_date(point) + timedelta(days=1))
    start, end = (EVER, next_day) if word in ("before", "until") else (point, OPEN)
    return {"start": start, "end": end, "anchor": point, "event": event}


def _by_time(pool: list, start: int, end: int, anchor: int, **_) -> list:
    """The values that changed nearest the anchor: before it, those that ended last (open ones
    never ended); after it, those that began first."""
    if start == EVER:
        ended = [i for i in pool if i.value["valid_to"] <= end]
        return sorted(ended, key=lambda i: -i.value["valid_to"])
    return sorted(pool, key=lambda i: i.value["valid_from"])


def _merged(filter: dict | None, window: dict) -> dict:
    out = dict(filter or {})
    for key, ops in window.items():
        if key in out and not isinstance(out[key], dict):
            raise ValueError(f"filter[{key!r}] = {out[key]!r} conflicts with the time window {ops}")
        out[key] = {**out.get(key, {}), **ops}
    return out


def hybrid_search(
    store, namespace_prefix, query, *, limit=10, as_of=None, filter=None
) -> list[SearchItem]:
    """Items best first by reciprocal-rank fusion of BM25 over the store's indexed text and its
    semantic search; restricted to facts valid at as_of (a date, datetime or ISO string) or, when
    the query names a time ("in January", "before I moved to X"), to facts valid then."""
    check_store(store)
    prefix = check_namespace(namespace_prefix, "namespace_prefix")
    check_str(query, "query")
    check_int(limit, "limit", minimum=1)
    if filter is not None and not isinstance(filter, dict):
        raise TypeError(
            f"filter must be a dict or None, got {type(filter).__name__}: {filter!r:.80}"
        )
    today = day_number(as_of if as_of is not None else date.today())
    window = time_window(store, prefix, query, today)
    if window is None and as_of is not None:
        window = {"start": today, "end": day_number(as_date(today) + timedelta(days=1))}
    if window is not None:
        filter = _merged(filter, valid_filter(window["start"], window["end"]))
    pool, rankings = _ranked(store, prefix, query, filter, limit)
    if window is not None and window.get("anchor") is not None:
        rankings.append(_by_time(pool, **window))
    event = window.get("event") if window else None
    if event is None:
        return _fuse(rankings, limit)
    rest = [
        i
        for i in _fuse(rankings, limit + 1)
        if i.key != event.key or i.namespace != event.namespace
    ]
    return [event, *rest][:limit]  # first the event the question is relative to


class DatedFact(BaseModel):
    """A fact the model proposes, with the user's own words for when it became true."""

    content: str = Field(description="The fact as one short sentence, e.g. 'User works at Acme.'")
    subject: str = Field(description="Who or what the fact is about, usually the user")
    predicate: str = Field(description="The relation, e.g. 'works at', 'lives in'")
    object: str = Field(description="The value")
    when: str | None = Field(
        None, description="When it became true, in the user's words ('last week'), if they said"
    )


class DatedFacts(BaseModel):
    """Every fact a message states about the user."""

    facts: list[DatedFact] = Field(description="The facts the user stated about themselves")


PROPOSE = "Extract the facts the user states about themselves, with when each became true if said."


def propose_facts(model, text: str) -> list[DatedFact]:
    """The facts a model reads in one user message (the model proposes; `remember` decides)."""
    check_chat_model(model)
    check_str(text, "text")
    result = model.with_structured_output(DatedFacts).invoke(
        [SystemMessage(PROPOSE), HumanMessage(text)]
    )
    return list(result.facts)


def dated_lines(items: list) -> str:
    """Fact items as prompt lines with their validity, oldest first (a timeline):
    "- User lives in X. (2025-01-10 to 2025-03-03)"."""
    lines = []
    for item in sorted(items, key=lambda i: (i.value["valid_from"], i.value["recorded_at"])):
        v = item.value
        end = "now" if v["valid_to"] == OPEN else as_date(v["valid_to"]).isoformat()
        lines.append(
            f"- {v['content']['content']} ({as_date(v['valid_from']).isoformat()} to {end})"
        )
    return "\n".join(lines)
