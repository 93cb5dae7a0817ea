"""The offline model's rule set: sentence splitting, salient entities and fact patterns, as data.

Provides `split_sentences`, `content_terms`, `entities`, `extract_facts` (first-person statements
such as "I work at Acme" and third-person memory text such as "User's name is Alice" or
`{"name": "Alice"}` become `Statement(subject, predicate, value)`; `memlib.Fact` is a different
thing, the pydantic schema of notebook 04), `ask_about` (which personal fact a question asks
for), `FORGET` (a retraction), and the person rewriters `to_third_person` ("I work" -> "User
works"), `to_first_person`, `you_to_user` ("you work" -> "the user works") and `conjugate`.

Leaves out: real parsing. Every rule is a regular expression with named groups (`value`, and
`topic` for "my favourite X is Y"); anything the patterns do not cover is not extracted, so the
offline model says it does not know rather than guessing. `offline_model.parse` (spaCy's
dependency parse, on by default) decides the name / employer / role / location facts of
first-person sentences instead. Imports nothing else from memlib.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from offline_model.parse import (
    ANAPHOR,
    ANAPHOR_CUES,
    ANAPHOR_THEIR,
    antecedent,
    conjugate,
    not_about_the_user_now,
    profile_facts,
    with_article,
)

STOPWORDS = frozenset(
    """a an the and or but if then so of to in on at by for with from about as into over after
    before under between is are was were be been being am do does did doing have has had having
    i me my mine myself you your yours we us our they them their he him his she her it its this
    that these those what which who whom whose when where why how there here not no nor can could
    should would will shall may might must just very really also too than such some any all each
    both few more most other own same only please tell know let get got give like want need
    ok okay yes hi hello hey thanks thank""".split()
)

# Capitalised words that start sentences or name things that are not people or organisations.
NOT_NAMES = frozenset(
    """I I'm I've I'd I'll The A An This That These Those It It's We You Your My Our They He She
    What When Where Why How Who Which Yes No Hi Hello Hey Thanks Thank Please Sure Okay Ok Also
    But And Or So Then There Here Today Tomorrow Yesterday User Assistant AI Human System Summary
    Down Up Out Over Around Back Right Round
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Great Good Nice Well Actually Just
    Not Still Now Let Can Could Would Should Will Do Does Did Is Are Was Were Be Am Have Has If
    English French German Spanish Italian Portuguese Dutch Chinese Japanese Korean Indian
    American British Canadian Australian Based Happy Glad Sorry Fine Back Here Going Looking""".split()
)

_SENT_SPLIT = re.compile(
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<!\bProf\.)"
    r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|(?<=[!?])\s+|\n+"
)
_BULLET = re.compile(r"^\s*(?:[-*•]+|\d+[.)]|#+)\s*")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+#'-]*[A-Za-z0-9+#]|[A-Za-z0-9]")


def split_sentences(text: str) -> list[str]:
    """Sentences and lines of `text`, bullets and Markdown heading marks removed."""
    pieces = (_BULLET.sub("", piece).strip() for piece in _SENT_SPLIT.split(text or ""))
    return [piece for piece in pieces if piece]


def _stem(word: str) -> str:
    w = word.lower().strip("'")
    for suffix in ("ies", "es", "s", "ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return w


def content_terms(text: str) -> set[str]:
    """Lower-cased, lightly stemmed non-stopword terms (for lexical overlap)."""
    return {_stem(w) for w in _WORD.findall(text or "") if w.lower() not in STOPWORDS}


def term_words(text: str) -> dict[str, str]:
    """Each of the text's content terms (stemmed as content_terms does) -> its first word, lower-cased."""
    found: dict[str, str] = {}
    for w in _WORD.findall(text or ""):
        if w.lower() not in STOPWORDS:
            found.setdefault(_stem(w), w.lower().strip("'"))
    return found


_NUMBER = re.compile(r"(?<![\w])[$€£]?\d[\d,.:/%-]*\d?%?(?![\w])")
_QUOTED = re.compile(r"[\"“'`]([^\"”'`\n]{2,40})[\"”'`]")
_TECH = re.compile(
    r"\b(?:[a-z]+[A-Z]\w*|[A-Z]{2,}\w*|\w+(?:[_./+#-]\w+)*[_./+#-]\w*\d\w*|\w+[_./+#]\w+|\w*\d\w*[A-Za-z]\w*)\b"
)
_CAP = re.compile(r"\b[A-Z][a-zA-Z0-9&'-]*\b")


def entities(text: str) -> list[str]:
    """Salient tokens: capitalised names, numbers, quoted and technical terms, in order, unique."""
    found: dict[str, int] = {}
    for m in _QUOTED.finditer(text):
        found.setdefault(m.group(1), m.start())
    for pattern in (_NUMBER, _TECH):
        for m in pattern.finditer(text):
            found.setdefault(m.group(0).rstrip(".,"), m.start())
    initial = {m.end() for m in re.finditer(r"(?:^|[.!?:;\n]\s*|[-*•]\s+)(?=[A-Z])", text)}
    mid = {m.group(0) for m in _CAP.finditer(text) if m.start() not in initial}
    for m in _CAP.finditer(text):
        word = m.group(0)
        if word.removesuffix("'s") in NOT_NAMES or word in NOT_NAMES:
            continue
        # A capital at a sentence start only marks a name when the word recurs mid-sentence,
        # is followed by another capitalised word, or is possessive.
        if m.start() in initial and word not in mid and not word.endswith("'s"):
            if not re.match(r"\s+[A-Z]", text[m.end() : m.end() + 3]):
                continue
        found.setdefault(word.removesuffix("'s"), m.start())
    return [w for w, _ in sorted(found.items(), key=lambda kv: kv[1]) if w]


@dataclass(frozen=True)
class Statement:
    """One subject-predicate-value statement and the sentence it came from."""

    subject: str
    predicate: str
    value: str
    source: str = ""

    def as_text(self) -> str:
        subject = "User" if self.subject == "user" else self.subject
        value = with_article(self.value) if self.predicate == "role" else self.value
        return PREDICATE_PHRASES.get(self.predicate, "{s}'s {p} is {v}").format(
            s=subject, p=self.predicate, v=value
        )


# Per predicate: how a fact reads back in the third person (summaries, memory contents), how it is
# told back to the user (second person), the word used when it is missing ("I don't know your
# <label> yet"), and the verb of a subject / predicate / object triple (None: no triple verb).
PREDICATES = {
    "name": ("{s}'s name is {v}", "Your name is {v}.", "name", "is named"),
    "employer": ("{s} works at {v}", "You work at {v}.", "employer", "works at"),
    "role": ("{s} works as {v}", "You work as {v}.", "role", "works as"),
    "location": ("{s} lives in {v}", "You live in {v}.", "location", "lives in"),
    "preference": ("{s} prefers {v}", "You prefer {v}.", "preferences", "prefers"),
    "dislike": ("{s} dislikes {v}", "You don't like {v}.", "dislikes", "dislikes"),
    "expertise": (
        "{s} has expertise in {v}",
        "Your expertise is {v}.",
        "expertise",
        "has expertise in",
    ),
    "project": (
        "{s} is working on {v}",
        "You're working on {v}.",
        "current project",
        "is working on",
    ),
    "learning": ("{s} is learning {v}", "You're learning {v}.", "learning goals", "is learning"),
    "age": ("{s} is {v} years old", "You're {v} years old.", "age", "is aged"),
    "uses": ("{s} uses {v}", "You use {v}.", "tools", "uses"),
    "speaks": ("{s} speaks {v}", "You speak {v}.", "languages", None),
}
PREDICATE_PHRASES = {p: row[0] for p, row in PREDICATES.items()}
ANSWER_PHRASES = {p: row[1] for p, row in PREDICATES.items()}
PREDICATE_LABELS = {p: row[2] for p, row in PREDICATES.items()}
PREDICATE_VERBS = {p: row[3] for p, row in PREDICATES.items() if row[3]}
PREDICATE_PHRASES["said"] = "{v}"  # a clause the user said, already in the third person

# Words that end a captured value ("Acme as a data engineer" -> "Acme").
_STOP = r"for (?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|several|many|some|the (?:past|last))|and|but|because|so|since|where|which|who|though|although|while|when|if|as|now|last|next|yesterday|today|tomorrow|recently|ago|these days|anymore|any more|in (?:the )?(?:spring|summer|autumn|fall|winter)|in (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|in \d{4}|on \w+day|since"
# A value ends before one of those words (a role also before "at", "for", ...), at punctuation
# or at the end.
_END = _STOP + r")\b|\s*[.,;!?\n(]|\s+-\s|$)"
_VAL = r"(?P<value>[^.,;!?\n]{1,60}?)(?=\s+(?i:" + _END
_VAL_ROLE = r"(?P<value>[^.,;!?\n]{1,40}?)(?=\s+(?i:at|for|with|in|on|of|" + _END
_VAL_ORG = r"(?P<value>[^.,;!?\n]{1,60}?)(?=\s+(?i:in|on|" + _END
# Capitalised words, with the lowercase particles of place and family names ("Dar es Salaam").
_NAME = r"(?P<value>[A-Z][\w'-]+(?:\s+(?:(?:de|da|del|des|di|do|du|es|el|al|la|le|van|von|der|den|y|of)\s+)?[A-Z][\w'-]+){0,3})\b"
_ART = r"(?:(?:a|an|the)\s+)?"
_ADV = r"(?:(?:really|usually|also|still|just|actually|absolutely|totally|mostly|generally|always|much|strongly|definitely|truly)\s+)*"

# "I'm an expert in Spark" states expertise, not a place: no location rule may start here.
_SKILLED = r"(?!(?:expert|specialist|experienced|skilled|proficient|fluent|good|beginner|novice)\s+(?:in|at|with|on)\b)"

# (predicate, pattern) for first-person statements, most specific first. Case-insensitive parts
# are scoped with (?i:...) so that name patterns can still require a capital letter.
FIRST_PERSON_RULES: list[tuple[str, re.Pattern]] = [
    (p, re.compile(rx))
    for p, rx in [
        ("name", r"(?i:\bmy name(?:'s| is)|\bcall me|\bi(?:'m| am) called|\bi go by)\s+" + _NAME),
        ("name", r"(?i:\b(?:this is|i'm|i am))\s+" + _NAME),
        ("name", r"(?i:\bname's)\s+" + _NAME),
        ("name", r"^" + _NAME + r"(?i:\s+here)\b"),
        ("name", r"^" + _NAME + r"(?i:,?\s+(?:by the way|btw)[.!]?$)"),  # "Hugo, by the way."
        # "Hey there, Greta speaking." (the tagger may read "speaking" as a noun)
        ("name", r"(?:^|[,!.]\s+)(?![A-Z][a-z]+ly\b)" + _NAME + r"(?i:\s+(?:speaking|writing))\b"),
        (
            "location",
            rf"(?i:\bi(?:'m| am)\s+(?:a|an|the)\s+{_SKILLED}[\w -]{{2,30}}?\s+(?:in|from))\s+{_NAME}",
        ),
        ("location", r"(?i:\bi(?:'m| am)\s+(?:currently\s+|now\s+)?in)\s+" + _NAME),
        (
            "employer",
            r"(?i:\bi(?:'m| am)\s+(?:now\s+|currently\s+)?with)\s+(?P<value>(?:the\s+)?[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*)*)",
        ),
        (
            "employer",
            r"(?i:\bi(?:'m| am)?\s*(?:currently\s+|now\s+|still\s+)?(?:work(?:ing)?(?:\s+over)?|employed|hired)\s+(?:at|for|by|with)"
            r"|\bi\s+(?:got|landed|took|accepted)\s+(?:a|an|the)\s+(?:new\s+)?(?:job|position|role|offer)\s+(?:at|with|from)"
            r"|\bi(?:'ve| have)?\s*(?:just\s+|recently\s+)?(?:joined|started (?:a new job )?at)"
            r"|\bi(?:'ve| have) been (?:at|with|working (?:at|for)))\s+" + _VAL_ORG,
        ),
        (
            "role",  # an explicit cue: any value is a role
            r"(?i:\bi(?:'m| am|'ve| have)?\s*(?:currently\s+|now\s+|been\s+)?(?:work(?:ing|ed)?|employed) as|\bi do (?:\w+\s+)?work as|\bmy (?:job title|job|role|title|position|occupation|profession) is"
            rf"|\bi(?:'m| am)?\s*(?:now\s+|currently\s+|still\s+)?(?:work(?:ing)?|employed)\s+(?:at|for|by|with)\s+[^.,;!?\n]{{1,60}}?\s+as|\bby (?:profession|trade),? i(?:'m| am))\s+{_ART}{_VAL_ROLE}",
        ),
        (
            "role?",  # "I'm a nurse": only when the noun looks like a job (not "I'm a fan")
            rf"(?i:\bi(?:'m| am)(?:\s+now|\s+currently)?(?=\s+(?:a|an|the)\s+{_SKILLED})"
            rf"|\bi(?:'m| am)\s+[A-Z][\w'-]+,(?=\s+(?:a|an|the)\s)|\bi(?:'ve| have) been(?=\s+(?:a|an)\s))\s+{_ART}{_VAL_ROLE}",
        ),
        (
            "employer",
            r"(?i:\bi(?:'m| am)(?:\s+[A-Z][\w'-]+,)?\s+(?:now |currently )?(?:a|an|the) [\w -]{2,30}? (?:at|for|with|of)"
            r"|\bi (?:teach|lecture|study|research)\b[^.,;!?\n]{0,40}?\bat)\s+" + _VAL_ORG,
        ),
        (
            "location",
            rf"(?i:\bi(?:'m| am|(?:\s+(?:now|currently|still))?\s+work|\s+worked)\b[^.;!?\n]{{0,80}}?\b(?:at|for|with))\s+[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*)*\s+(?i:in)\s+{_NAME}",
        ),
        (
            "location",
            r"(?i:\bi(?:'m| am|'ve| have)?\s*(?:currently\s+|now\s+|been\s+)?(?:live|lived|living|based|located|staying|residing|reside)\s+in"
            r"|\b(?:i|we)(?:'ve| have)?\s*(?:just\s+|recently\s+)?(?:moved|relocated)\s+to"
            rf"|\bhome is|\bwe(?:'re| are)?\s*(?:live|living|based)\s+in|\bi(?:'m| am)(?:\s+[A-Z][\w'-]+,?)?\s+from)\s+{_VAL}",
        ),
        (
            "favourite",
            rf"(?i:\bmy (?:all-time |absolute )?(?:favou?rite|preferred|go-to))\s+(?P<topic>[\w -]{{2,30}}?)\s+(?i:is|are)\s+{_VAL}",
        ),
        (
            "dislike",
            rf"(?i:\bi {_ADV}(?:don't|do not|never|can't|cannot)\s+{_ADV}(?:like|stand|enjoy|use|want)"
            rf"|\bi {_ADV}(?:hate|dislike|avoid)|\bi(?:'m| am) allergic to)\s+{_VAL}",
        ),
        (
            "preference",
            rf"(?i:\bi(?:'d| would)?\s*{_ADV}(?:prefer|rather(?: use| have)?)"
            rf"|\bi {_ADV}(?:like|love|enjoy)|\bi(?:'m| am) (?:a )?(?:big |huge )?fan of)\s+{_VAL}",
        ),
        (
            "expertise",
            r"(?i:\bi(?:'m| am) (?:an? )?(?:expert|specialist|experienced|skilled|proficient|fluent|good) (?:in|at|with)"
            rf"|\bi speciali[sz]e in|\bmy (?:expertise|speciality|specialty|background) is(?: in)?|\bi have expertise in)\s+{_VAL}",
        ),
        (
            "project",
            rf"(?i:\bi(?:'m| am) (?:currently\s+|now\s+)?(?:working on|building|writing|developing)|\bmy (?:current )?project is)\s+{_ART}{_VAL}",
        ),
        ("learning", r"(?i:\bi(?:'m| am) (?:currently\s+|now\s+)?(?:learning|studying))\s+" + _VAL),
        (
            "speaks",
            r"(?i:\bi (?:also\s+|can\s+)?speak)\s+(?P<value>[A-Z][\w-]+(?:(?:,\s*|\s+and\s+)[A-Z][\w-]+)*)",
        ),
        (
            "age",
            r"(?i:\bi(?:'m| am)\s+)(?P<value>\d{1,3})(?i:\s+years?\s+old|\b(?!\s*(?:%|am|pm)))",
        ),
        ("uses", r"(?i:\bi (?:mostly\s+|mainly\s+|usually\s+)?use)\s+" + _VAL),
        (
            "named",
            rf"(?i:\bmy)\s+(?P<topic>[a-z][\w' -]{{1,30}}?)\s+(?i:is|are)\s+(?i:called|named)\s+{_NAME}",
        ),
        ("generic", r"(?i:\bmy)\s+(?P<topic>[a-z][\w' -]{1,30}?)\s+(?i:is|are)\s+" + _VAL),
    ]
]

_SUBJ = r"(?P<subject>(?i:the user|user)|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
# Third-person statements, as stored memories and summaries phrase them.
THIRD_PERSON_RULES: list[tuple[str, re.Pattern]] = [
    (p, re.compile(rx))
    for p, rx in [
        (
            "name",
            rf"(?i:\b(?:the )?user(?:'s)? name(?:'s| is|:)|\buser is (?:called|named)|\bthe user is)\s+{_NAME}",
        ),
        ("name", r"(?i:\buser is)\s+(?P<value>[A-Z][\w'-]+)\b(?!\s+(?:at|from|in)\b)"),
    ]
] + [
    (p, re.compile(_SUBJ + rx))  # about a subject: "User works at X", "Alice prefers Y"
    for p, rx in [
        (
            "employer",
            rf"(?i:\s+(?:currently\s+|now\s+)?(?:works|worked|is working|is employed)\s+(?:at|for|by)|\s+joined)\s+{_VAL}",
        ),
        (
            "role",
            rf"(?i:\s+(?:works|is working) as|'s (?:role|job|job title|title|occupation) is|\s+is employed as|\s+works (?:at|for) [^.,;!?\n]{{1,40}}? as|\s+is(?=\s+(?:a|an|the)\s))\s+{_ART}{_VAL_ROLE}",
        ),
        ("employer", r"(?i:\s+is (?:a|an|the) [\w -]{2,30}? (?:at|for|with))\s+" + _VAL),
        (
            "location",
            rf"(?i:\s+(?:currently\s+)?(?:lives|is based|is located|resides) in|\s+(?:moved|relocated) to|\s+is from)\s+{_VAL}",
        ),
        (
            "favourite",
            r"(?i:'s (?:favou?rite|preferred))\s+(?P<topic>[\w -]{2,30}?)\s+(?i:is|are)\s+" + _VAL,
        ),
        (
            "dislike",
            rf"(?i:\s+(?:dislikes|hates|avoids|does not like|doesn't like|is allergic to))\s+{_VAL}",
        ),
        ("preference", r"(?i:\s+(?:prefers|likes|loves|enjoys|would rather))\s+" + _VAL),
        (
            "expertise",
            rf"(?i:\s+(?:is an? expert in|specializes in|specialises in|has expertise in|is skilled in))\s+{_VAL}",
        ),
        ("project", r"(?i:\s+is (?:working on|building|developing))\s+" + _ART + _VAL),
        ("learning", r"(?i:\s+is (?:learning|studying))\s+" + _VAL),
    ]
]

# Keys of JSON objects / "key: value" lines that name a known predicate ("day job" has a space).
KEY_SYNONYMS = {"day job": "role"} | {
    key: predicate
    for predicate, keys in {
        "name": "name user_name full_name first_name username preferred_name",
        "employer": "employer company organization organisation workplace works_at",
        "role": "role job job_title title occupation position",
        "location": "location city hometown home_town home residence lives_in",
        "preference": "preference preferences likes",
        "dislike": "dislikes",
        "expertise": "expertise skills",
        "age": "age",
    }.items()
    for key in keys.split()
}
_KEY_VALUE = re.compile(
    r"""["']?(?P<key>[A-Za-z_][\w ]{1,24}?)["']?\s*[:=]\s*["']?(?P<value>[^"'\n,;{}\[\]]{1,80}?)["']?\s*(?=[,;}\]\n]|$)"""
)

_KEY_IS_VALUE = re.compile(
    r"(?i)(?:^|[:;,]\s*|\band\s+)(?:(?:the\s+)?user'?s\s+)?(?P<key>[a-z][a-z_ ]{1,20}?)\s+(?:is|=)\s+"
    r"(?P<value>[^;,.\n]{1,60}?)\s*(?=[;,.\n]|$)",
)

_ROLE_WORD = re.compile(
    r"(?i)(?:er|or|ist|ian|ant|ent|ect|ee|lead|head|manager|nurse|chef|intern|cto|ceo|cfo|vp|pm|officer|owner|dev|admin|analyst|architect|consultant|scientist|founder|student|professor|lecturer|coach)$"
)
_NOT_ROLES = frozenset(
    """vegetarian vegan beginner fan lover member user customer parent mother father""".split()
)
_NOT_JOBS = ("native", "local", "resident", "fan")
_PRONOUN_VALUES = frozenset("it that this them you me him her there here so one".split())


_ROLE_QUALIFIERS = re.compile(
    r"(?i)^(?:(?:experienced|qualified|certified|professional|full-time|part-time|freelance|self-employed|trained|licensed|practising|practicing)\s+)+",
)


def _clean_value(value: str) -> str:
    value = value.strip().strip("\"'`").strip()
    value = re.sub(r"^(?:to |using |working with |the fact that )", "", value, flags=re.I)
    value = re.sub(r"^(?:a|an|the)\s+[\w -]{0,30}?\s+(?:called|named)\s+", "", value, flags=re.I)
    return re.sub(r"\s+", " ", value).rstrip(" -:.")


# Placeholders a stored document holds for an empty field ({'employer': None} read as text).
NULL_VALUES = frozenset({"none", "null", "nil", "n/a", "na", "unknown", "undefined", "nan", "-"})


def _accept(predicate: str, value: str) -> bool:
    low = value.lower()
    if not value or low in _PRONOUN_VALUES or low in STOPWORDS or low.strip(" .'\"") in NULL_VALUES:
        return False
    if predicate == "name":  # not "Harrowgate-based"
        return value.split()[0] not in NOT_NAMES and not low.endswith("-based")
    if predicate == "role?":
        last = low.split()[-1]
        return bool(_ROLE_WORD.search(last)) and last not in _NOT_ROLES and len(low.split()) <= 5
    if predicate == "role":  # "a New Orleans native" says where someone is from
        return len(low.split()) <= 5 and low.split()[-1] not in _NOT_JOBS
    if predicate in ("employer", "location"):
        return len(low.split()) <= 6
    return len(low.split()) <= 10


_ABBREVIATIONS = frozenset({"dr", "mr", "mrs", "ms", "prof", "st", "mt", "ft"})


def _make_fact(subject: str, predicate: str, match: re.Match, sentence: str) -> Statement | None:
    value = _clean_value(match.group("value"))
    topic = _clean_value(match.group("topic")).lower() if "topic" in match.re.groupindex else ""
    if predicate == "favourite":
        predicate = f"favourite {topic}"
    elif predicate == "named":
        predicate = topic + "'s name"
    elif predicate == "generic":
        if topic in ("name", "job", "role", "title") or topic.startswith(("favou", "preferred")):
            return None
        # "my city is X", "my employer is X": a known slot under another word
        predicate = KEY_SYNONYMS.get(topic.replace(" ", "_"), topic)
    if predicate in ("role", "role?"):
        value = _ROLE_QUALIFIERS.sub("", value)
    if value.split()[-1].rstrip(".").lower() in _ABBREVIATIONS if value.split() else False:
        # "Call me Dr. Moreau", "I work at St. Mary's": the value stopped at the abbreviation's
        # full stop; take the capitalised words after it, or nothing.
        after = re.match(
            r"\.?\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)", match.string[match.end("value") :]
        )
        if not after:
            return None
        value = f"{value.rstrip('.')}. {after.group(1)}"
    check = predicate if predicate in PREDICATE_PHRASES or predicate == "role?" else "other"
    if not _accept(check, value):
        return None
    return Statement(subject, predicate.rstrip("?"), value, sentence)


def extract_facts(text: str, first_person: bool = True) -> list[Statement]:
    """Facts stated in `text`, in order: first-person rules (a user's message) or third-person
    rules plus key-value pairs (memories, summaries, tool results). Cached per text."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}: {text!r}")
    return list(_extract_cached(text, bool(first_person)))


@lru_cache(maxsize=16384)
def _extract_cached(text: str, first_person: bool) -> tuple[Statement, ...]:
    return tuple(_extract(text, first_person))


# "I teach at X, live in Y and now work for Z": the subject "I" is left out after a comma or
# "and"; putting it back lets the first-person rules see each clause.
_ELIDED = re.compile(
    r"(?i)(?:,|\band)\s+(?=(?:(?:now|currently|also|then|still|just|recently)\s+)?"
    r"(?:work|worked|live|lived|moved|relocated|prefer|like|love|enjoy|teach|study|speak|use|joined|started)\b)",
)
_ELIDED_BASED = re.compile(r",\s+(?=based in\b)", re.I)


def _restore_subject(sentence: str) -> str:
    if not re.search(r"\bI\b", sentence):
        return sentence
    sentence = _ELIDED.sub(lambda m: m.group(0).rstrip() + " I ", sentence)
    return _ELIDED_BASED.sub(", I'm ", sentence)


# "My dog is now called Pixel", "I currently live in Braga": the time of a statement does not
# change its slot, so these words are dropped before the rules see the sentence (the fact's
# source keeps them).
_TIME_WORDS = re.compile(
    r"(?i)\s*,?\s*\b(?:from now on|right now|for now|now|currently|nowadays|these days|at the moment"
    r"|at present|presently)\b,?(?=\s|[.!;]|$)",
)


def drop_time_words(sentence: str) -> str:
    """`sentence` without "now", "currently", "these days" and the like."""
    return _TIME_WORDS.sub("", sentence).strip()


_PARSED_SLOTS = ("name", "employer", "role", "location")


# A message that is a form ("Name: Pavel, job: data analyst, city: Cape Town") or signed off
# ("Kind regards,\nMira Barros") states the user's facts without a sentence around them.
_FORM_FIELD = re.compile(
    r"(?i)(?:^|[,;\n]|[.!?]\s|\bmy\s)\s*(?P<key>name|me|(?:day )?job(?: title)?|role|position|occupation|company|"
    r"employer|workplace|city|location|home|hometown|based|where I live|where I work)\s*[:?]\s*"
    r"(?P<value>[^,;\n?]+?)\s*"
    r"(?=[,;\n]|[.!]\s|[.!]?$)",
)
_FORM_SLOTS = {
    key: slot
    for slot, keys in {
        "location": "where i live|city|location|home|hometown|based",
        "employer": "where i work|company|employer|workplace",
        "name": "name|me",
        "role": "job|day job|job title|role|position|occupation",
    }.items()
    for key in keys.split("|")
}
# How a message signs off ("Kind regards,"), and the name line that follows it.
SIGN_OFF_PHRASES = (
    r"(?:kind |best |warm )?regards|best wishes|best|cheers|sincerely|yours(?: sincerely| truly)?|"
    r"all the best|many thanks|thanks|thank you"
)
_SIGN_OFF = re.compile(rf"^(?:{SIGN_OFF_PHRASES}),?\s*$", re.I)
SIGNATURE_NAME = re.compile(
    r"^(?:(?:Dr|Prof|Mr|Mrs|Ms)\.?\s+)?(?P<value>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,3})\.?$"
)


_NO_VALUE = {"none", "n/a", "na", "null", "nil", "-", "nobody", "nothing", "unknown", "no", "tbd"}


def _form_facts(text: str) -> list[Statement]:
    out = []
    for m in _FORM_FIELD.finditer(text):
        slot = _FORM_SLOTS[m.group("key").lower()]
        value = re.sub(
            r"^(?:it's|it is|that's|that is)\s+", "", m.group("value").strip(" .!"), flags=re.I
        )
        # "My job? I'm an architect at X" is a sentence, not a form's value
        if value.lower() in _NO_VALUE:
            continue  # "Employer: none, I'm between jobs"
        if slot == "name" and value.islower():
            value = value.title()  # "name: pavel"
        job_at = re.fullmatch(r"(?:an? )?([a-z][a-z -]*?)\s+(?:at|with|for)\s+([A-Z0-9].*)", value)
        if slot == "role" and job_at:  # "Day job: civil servant at 7-Eleven"
            out.append(Statement("user", "role", job_at.group(1), m.group(0).strip(" ,;\n")))
            out.append(Statement("user", "employer", job_at.group(2), m.group(0).strip(" ,;\n")))
            continue
        if value and len(value.split()) <= 6 and not re.search(r"\b(?:I|I'm|my|me)\b", value, re.I):
            out.append(Statement("user", slot, value, m.group(0).strip(" ,;\n")))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for k, line in enumerate(lines[:-1]):
        if _SIGN_OFF.match(line) or _DETAILS.search(line):
            out += _signature(lines[k + 1 : k + 5])
    # a name signed at the very end: "Cheers, Teodor", "Thanks! Teodor", "...\n- Teodor"
    signed = _SIGNED_OFF.search(text.strip())
    if signed and signed.group("value").split()[0] not in NOT_NAMES:
        out.append(Statement("user", "name", signed.group("value"), signed.group(0).strip()))
    return out


_SIGNED_OFF = re.compile(
    rf"(?:(?:^|[.!]\s+|\n)(?i:{SIGN_OFF_PHRASES})[,!]?\s+|\n\s*[-\u2013\u2014~]\s*)"
    r"(?P<value>[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?)[.!]?$"
)


_DETAILS = re.compile(r"\b(?:my|contact) details\b|\bdetails below\b|\bsignature\b", re.I)
_JOB_LINE = re.compile(r"^(?P<role>[A-Za-z][\w &/-]{1,40}?),\s*(?P<org>[A-Z][\w&'. -]{1,50})$")
_PLACE_LINE = re.compile(r"^[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2}$")


def _signature(block: list[str]) -> list[Statement]:
    """A signature: the name line, then "role, Organisation" and a city line if present."""
    m = SIGNATURE_NAME.match(block[0]) if block else None
    if not m or len(block[0].split()) > 5:
        return []
    out = [Statement("user", "name", m.group("value"), block[0])]
    for line in block[1:3]:
        job = _JOB_LINE.match(line)
        if job:
            out.append(Statement("user", "role", job.group("role").strip(), line))
            out.append(Statement("user", "employer", job.group("org").strip(" ."), line))
        elif _PLACE_LINE.match(line) and len(out) > 1:
            out.append(Statement("user", "location", line, line))
    return out


def _extract(text: str, first_person: bool) -> list[Statement]:
    if first_person and re.match(r"\s*\*\s*\w", text):
        text = "I meant " + text.lstrip()[1:].lstrip()  # "*Mexico City. autocorrect hates me"
    facts = _extract_sentences(text, first_person)
    if first_person:
        stated = {(f.predicate, f.value.lower()) for f in facts}
        form = [f for f in _form_facts(text) if (f.predicate, f.value.lower()) not in stated]
        # "Where I live? It's Porto.": the form's slot, not an introduction
        placed = {f.value.lower() for f in form if f.predicate in ("location", "employer")}
        facts = [f for f in facts if not (f.predicate == "name" and f.value.lower() in placed)]
        facts += form
    return facts


def _extract_sentences(text: str, first_person: bool) -> list[Statement]:
    facts = _extract_rules(text, first_person)
    if not first_person:
        return facts
    # The dependency parse (offline_model.parse) decides the four profile
    # slots of each first-person sentence; the regex rules keep every other predicate.
    out: list[Statement] = []
    sentences = split_sentences(text)
    parsed_all: list[tuple[str, str]] = []
    for k, sentence in enumerate(sentences):
        parsed = []
        for slot, value in profile_facts(sentence):
            if value in ANAPHOR_CUES:  # "I'm a librarian there": the name said before
                # resolved up to the anaphor's own word ("there"/"here": the first one;
                # "that"/"it" and "their"/"them": the last one)
                found = list(re.finditer(ANAPHOR_CUES[value], sentence, re.I))
                cue = found[:1] if value == ANAPHOR else found[-1:]
                before = " ".join([*sentences[:k], sentence[: cue[0].start()] if cue else ""])
                strict = value == ANAPHOR_THEIR
                value = antecedent(before, slot, strict) if before.strip() else None
            if value:
                value = re.sub(r"\s+(?:myself|too|as well)$", "", value)  # "Porto myself"
                if slot == "name":
                    value = re.sub(r"^(?:Just|Only|Simply)\s+", "", value)  # "Just Greta"
                parsed.append((slot, value))
        slots = {slot for slot, _ in parsed}
        blocked = not_about_the_user_now(sentence)
        # a value the parse gave one slot is no rule's value for another ("I'm Acme Corp's
        # only teacher" names no one)
        blocked |= {w.lower().removesuffix("'s") for _, v in parsed for w in v.split()}
        out += [
            f
            for f in facts
            if f.source == sentence
            and (
                f.subject != "user"
                or f.predicate not in _PARSED_SLOTS
                or (
                    f.predicate not in slots
                    and not {w.removesuffix("'s") for w in f.value.lower().split()} & blocked
                )
            )
        ]
        out += [Statement("user", slot, value, sentence) for slot, value in parsed]
        parsed_all += [(slot, value) for slot, value in parsed]
    # a value the parse gave one slot anywhere in the message is no rule's value for another
    # ("These days it's Buenos Aires for me - moved here in the spring": no name)
    return [
        f
        for f in out
        if f.subject != "user"
        or f.predicate not in _PARSED_SLOTS
        or ((f.predicate, f.value) in parsed_all and f.predicate != "name")
        or not any(
            slot != f.predicate and value.lower() == f.value.lower() for slot, value in parsed_all
        )
    ]


def _extract_rules(text: str, first_person: bool) -> list[Statement]:
    facts: list[Statement] = []
    for sentence in split_sentences(text):
        if first_person and sentence.rstrip().endswith("?"):
            continue  # "do I like X?" asks, it does not state
        source = sentence
        sentence = drop_time_words(sentence) or sentence
        if first_person:
            sentence = _restore_subject(sentence)
        taken: list[tuple[int, int]] = []
        rules = FIRST_PERSON_RULES if first_person else THIRD_PERSON_RULES
        for predicate, pattern in rules:
            for m in pattern.finditer(sentence):
                span = m.span("value")
                if any(a < span[1] and span[0] < b for a, b in taken):
                    continue
                subject = "user"
                if not first_person and "subject" in pattern.groupindex:
                    subject = _subject(m.group("subject"), facts)
                fact = _make_fact(subject, predicate, m, source)
                if fact:
                    facts.append(fact)
                    taken.append(span)
        if not first_person and re.search(r"\buser\b", sentence, re.I):
            # Memory text about "User" ("User is Dana, a developer at Globex") also reads as the
            # user's own statement, so the first-person rules cover it too.
            known = {(f.predicate, f.value.lower()) for f in facts}
            for f in _extract_rules(to_first_person(sentence), True):
                if (f.predicate, f.value.lower()) not in known:
                    facts.append(Statement("user", f.predicate, f.value, source))
                    known.add((f.predicate, f.value.lower()))
            # A list of memories in "key is value" form: "Known facts about the user: prefers
            # tea; name is Ravi." The key opens a list item (after ':', ';' or ',').
            for m in _KEY_IS_VALUE.finditer(sentence):
                # "the user's role is to review" is not a job title
                purpose = re.match(r"(?:to|not|also|that|about)\b", m.group("value"), re.I)
                if not purpose and not any(a < m.end() and m.start() < b for a, b in taken):
                    facts += _keyed_fact(m, source)
        if not first_person:
            for m in _KEY_VALUE.finditer(sentence):
                if not any(a <= m.start("value") < b for a, b in taken):
                    facts += _keyed_fact(m, source)
    return _drop_partial(facts)


def _keyed_fact(m: re.Match, source: str) -> list[Statement]:
    """The user's fact a key and value state, when the key names a predicate (KEY_SYNONYMS)."""
    predicate = KEY_SYNONYMS.get(m.group("key").strip().lower().replace(" ", "_"))
    value = _clean_value(m.group("value")) if predicate else ""
    return [Statement("user", predicate, value, source)] if _accept(predicate, value) else []


def _drop_partial(facts: list[Statement]) -> list[Statement]:
    """Within one sentence, "Priya" gives way to "Priya Raman", "Acme in Leeds" to "Acme" when
    Leeds is the location stated there, and a role followed by "at Org" adds Org as employer."""
    out = []
    for f in facts:
        same = [g for g in facts if g is not f and g.source == f.source and g.subject == f.subject]
        if f.predicate == "name" and any(
            g.predicate == "name" and g.value.startswith(f.value + " ") for g in same
        ):
            continue
        where = [
            g.value
            for g in same
            if g.predicate == "location" and f.value.endswith(" in " + g.value)
        ]
        if f.predicate == "employer" and where:
            f = Statement(f.subject, f.predicate, f.value[: -len(" in " + where[0])], f.source)
            if any((g.predicate, g.value) == (f.predicate, f.value) for g in out):
                continue
        out.append(f)
    # "a data engineer at Northwind Labs": the organisation after a role is the employer.
    for f in list(out):
        if f.predicate != "role" or any(
            g.predicate == "employer" and g.source == f.source and g.subject == f.subject
            for g in out
        ):
            continue
        m = re.search(
            re.escape(f.value)
            + r"\s+(?:at|for|with)\s+(?P<value>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,4})",
            f.source,
        )
        if m and m.group("value").split()[0] not in NOT_NAMES:
            out.append(Statement(f.subject, "employer", m.group("value"), f.source))
    unique: dict[tuple[str, str, str, str], Statement] = {}  # the first of each
    for f in out:
        unique.setdefault((f.subject, f.predicate, f.value.lower(), f.source), f)
    return list(unique.values())


def _subject(raw: str, earlier: list[Statement]) -> str:
    low = raw.lower()
    if low in ("user", "the user", "he", "she", "they"):
        return "user"
    names = {f.value for f in earlier if f.predicate == "name" and f.subject == "user"}
    return "user" if raw in names else raw


# A sentence that asks rather than states.
QUESTION = re.compile(
    r"(?i)\?\s*$|^(?:what|who|where|when|why|how|which|whose|do|does|did|is|are|can|could|should|would|will|tell me|remind me|explain|describe|list)\b",
)


# Questions about the asker, mapped to the predicate they ask for.
QUESTION_RULES: list[tuple[str, re.Pattern]] = [
    (p, re.compile(rx, re.I))
    for p, rx in [
        (
            "name",
            r"\bmy (?:full |first )?name\b|\bwho am i\b|\bwho i am\b|\bcall me\b"
            r"|\bwhat (?:i'm|i am|am i) called\b",
        ),
        (
            "employer",
            r"\bwhere (?:do |did )?i work\b|\bwhere am i (?:employed|working)\b|\bwho (?:do i work for|employs me)\b"
            r"|\b(?:what|which) (?:company|organi[sz]ation|employer|firm)\b.*\b(?:i|me)\b|\bmy (?:employer|company|workplace)\b",
        ),
        (
            "role",
            r"\bmy (?:job|role|title|position|occupation|profession|line of work)\b|\bwhat do i do(?: for (?:a living|work))?\b"
            r"|\bwhat (?:kind|sort|type) of (?:work|job) do i\b",
        ),
        (
            "location",
            r"\bwhere (?:do |did )?i live\b|\bwhere am i (?:based|from|located|living)\b|\b(?:what|which) (?:city|country|town|place)\b.*\b(?:i|me)\b"
            r"|\bwhere(?:'s| is) (?:my )?home\b|\bmy (?:home ?town|city|location|address)\b",
        ),
        (
            "favourite",
            r"\bwhat(?:'s| is| are) my (?:favou?rite|preferred|go-to) (?P<topic>[\w -]+?)\s*\??$",
        ),
        (
            "preference",
            r"\bwhat (?:\w+ ){0,3}do i (?:prefer|like|love|enjoy)\b|\bmy preferences?\b|\bdo i prefer\b|\bwhich (?:\w+ ){0,3}do i (?:prefer|like)\b|\bhow do i like\b",
        ),
        ("learning", r"\bwhat am i (?:learning|studying)\b"),
        ("age", r"\bhow old am i\b|\bmy age\b"),
        ("speaks", r"\b(?:what|which) languages? (?:do|can) i speak\b|\bwhat do i speak\b"),
        ("generic", r"\bwhat(?:'s| is| are) my (?P<topic>[\w' -]{2,30}?)\s*\??$"),
    ]
]


def ask_about(question: str) -> tuple[str, str] | None:
    """(predicate, topic) a question asks about the user, or None for other questions."""
    found = ask_about_all(question)
    return found[0] if found else None


def ask_about_all(question: str) -> list[tuple[str, str]]:
    """Every (predicate, topic) a question asks about the user, in the order asked
    ("what is my name and where do I work?" asks two)."""
    found: list[tuple[int, str, str]] = []
    for predicate, pattern in QUESTION_RULES:
        if predicate == "generic" and found:
            break
        for m in pattern.finditer(question.strip()):
            topic = (m.groupdict().get("topic") or "").strip().lower()
            asked = {"generic": topic, "favourite": f"favourite {topic}"}.get(predicate, predicate)
            found.append((m.start(), asked, topic))
    seen: dict[str, tuple[str, str]] = {}
    for _, p, t in sorted(found):
        seen.setdefault(p, (p, t))
    return list(seen.values())


_ADVERB = re.compile(
    r"(?i)^(?:\w+ly|also|just|still|often|usually|always|never|now|currently|recently|mostly|mainly|even)$",
)
_WE = r"(?:I|[Ww]e)"
_PRONOUNS = [
    (re.compile(rf"\b{_WE}(?:'m| am|'re| are)\b"), "User is"),
    (re.compile(rf"\b{_WE}(?:'ve| have)\b"), "User has"),
    (re.compile(rf"\b{_WE} (?:don't|do not)\b"), "User does not"),
    (re.compile(rf"\b{_WE}'ll\b"), "User will"),
    (re.compile(rf"\b{_WE}'d\b"), "User would"),
    (re.compile(r"\b[Ww]e were\b"), "User was"),
    (re.compile(r"\b(?:[Mm]y|[Oo]ur)\b"), "User's"),
    (re.compile(r"\b(?:[Mm]yself|[Oo]urselves)\b"), "themselves"),
    (re.compile(r"(?<=\s)(?:me|us)\b"), "them"),
]


_TO_FIRST = {"is": "am", "was": "was", "has": "have", "does": "do", "doesn't": "don't"}


def base_verb(word: str) -> str:
    """Third-person singular to base form: works -> work, studies -> study, watches -> watch."""
    low = word.lower()
    if re.search(r"[^aeiou]ies$", low):
        return word[:-3] + "y"
    if re.search(r"(?:sh|ch|x|z|ss|o)es$", low):
        return word[:-2]
    if low.endswith("s") and not low.endswith("ss") and len(low) > 3:
        return word[:-1]
    return word  # past tense, modals


_USER_VERB = re.compile(
    r"(?i)\b(?:the )?user ((?:also|still|really|often|usually|always|never|now|just|mostly|\w+ly) )?([\w']+)",
)


def from_user(
    sentence: str, possessive: str, pronoun: str, forms: dict[str, str], nouns: bool = False
) -> str:
    """Third-person memory text about the user in another person: ("User lives in Oslo", "my",
    "I", _TO_FIRST) -> "I live in Oslo". `forms` maps verbs with an irregular form; with
    `nouns`, a word after "user" that a copula follows is a noun ("User identifier is 42" ->
    "<possessive> identifier is 42")."""
    s = re.sub(r"\b(?:the )?user's\b", possessive, sentence, flags=re.I)

    def verb(m: re.Match) -> str:
        adverb, word = m.group(1) or "", m.group(2)
        low = word.lower()
        if low in forms:
            return f"{pronoun} {adverb}{forms[low]}"
        if nouns and not adverb:
            reach = 0 if re.search(r"[^s]s$", low) else 2  # "User thinks it is": a verb after all
            copula = rf"(?:\s+[a-z]+){{0,{reach}}}\s*(?:is|are|was|were|has|:)(?:\s|$)"
            if re.match(copula, s[m.end() :]):
                return f"{possessive} {word}"
        return f"{pronoun} {adverb}{base_verb(word)}"

    return _USER_VERB.sub(verb, s)


def to_first_person(sentence: str) -> str:
    """Memory text about the user as the user would say it: "User works at X" -> "I work at X"."""
    return from_user(sentence, "my", "I", _TO_FIRST)


def you_to_user(sentence: str, user: str = "the user") -> str:
    """An assistant's sentence to the user, about the user: "you work" -> "the user works"."""
    s = re.sub(r"\byour\b", f"{user}'s", sentence, flags=re.I)
    s = re.sub(r"\byou(?:'re| are)\b", f"{user} is", s, flags=re.I)
    s = re.sub(r"\byou(?:'ve| have)\b", f"{user} has", s, flags=re.I)
    # "you need" -> "the user needs", "You haven't" -> "the user hasn't" (not "do you ...")
    s = re.sub(r"(?i)(?<!\w )\byou\s+([a-z']+)\b(?=\s)", lambda m: f"{user} {conjugate(m[1])}", s)
    return re.sub(r"\byou\b", user, s, flags=re.I)


def to_third_person(sentence: str) -> str:
    """A user's sentence (I, we) in the third person: "I love my job" -> "User loves their job"."""
    out = sentence
    for pattern, repl in _PRONOUNS:
        out = pattern.sub(repl, out)

    def verb(m: re.Match) -> str:
        first, second = m.group(1), m.group(2)
        if second and _ADVERB.match(first):
            return f"User {first} {conjugate(second)}"
        return f"User {conjugate(first)}" + (f" {second}" if second else "")

    # "should I start" keeps the base form: "should User start".
    out = re.sub(
        rf"\b((?i:should|can|could|do|did|will|would|may|might|must|shall|to))\s+{_WE}\s+(\w+)",
        r"\1 User \2",
        out,
    )
    out = re.sub(rf"\b{_WE}\s+([\w']+)(?:\s+([\w']+))?", verb, out)
    out = re.sub(r"\bUser\b[^.!?]*", lambda m: m[0][:4] + m[0][4:].replace("User's", "their"), out)
    return out[0].upper() + out[1:] if out else out


# A retraction: "forget that ...", "I no longer ...", "I'm not ... anymore", "I stopped ...".
FORGET = re.compile(
    r"(?i)\b(?:forget|delete|remove|erase)\s+(?:that\s+|about\s+|the (?:memory|fact) (?:that|about)\s+)?(?P<value>[^.!?\n]{2,200})"
    r"|\b(?:i\s*(?:'m|am|'ve|have)?\s+)?(?:no longer|don't|do not|not)\s+(?P<value2>[^.!?\n]{2,120}?)\s+(?:anymore|any more)\b"
    r"|\bi\s*(?:'m|am|'ve|have|do|did)?\s+(?:no longer|quit|left|stopped|gave up)\s+(?P<value3>[^.!?\n]{2,120})",
)
