"""The offline model's text skills: grade, summarize and answer, each a function of a `Request`.

Provides `Request` (the messages and bound kwargs as the dispatcher sees them), `classify` (which
skill a request needs), `grade_skill` / `grade_with_reason` (document relevance to a query),
`summarize` / `summarize_dialogue` (to a word budget), `answer` (from the context it is given:
facts about the user, context sentences, worked examples) and `SKILLS`. Relevance and sentence
choice use the local MiniLM embeddings plus lexical overlap; the rules come from
offline_model/rules.py.

Leaves out: tool calls and structured output (offline_model/tools.py), the chat model class
(offline_model/model.py), free-form reasoning, generation of new content, world knowledge, and any
language but English. What it cannot find in its context it says it does not know.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

import numpy as np
from langchain_core.messages import BaseMessage

from offline_model.parse import _doc
from offline_model.rules import (
    ANSWER_PHRASES,
    FORGET,
    PREDICATE_LABELS,
    SIGN_OFF_PHRASES,
    SIGNATURE_NAME,
    STOPWORDS,
    Statement,
    _stem,
    ask_about_all,
    conjugate,
    content_terms,
    entities,
    extract_facts,
    from_user,
    split_sentences,
    term_words,
    to_third_person,
    with_article,
    you_to_user,
)
from offline_model.rules import (
    QUESTION as _QUESTION,
)
from offline_model.text import SINGLE_VALUED, embed, flatten_json, message_text, unquote_data

# --------------------------------------------------------------------------------------------
# Thresholds (documented in the class docstring).
RELEVANCE_THRESHOLD = 0.35  # cosine (MiniLM) at or above which a document grades "yes"
OVERLAP_THRESHOLD = 0.5  # share of query terms in the document that also counts as relevant...
OVERLAP_MARGIN = 0.15  # ...provided the cosine is at least the threshold minus this
CONTEXT_THRESHOLD = 0.4  # cosine for a context sentence to be used in an answer
CONTEXT_OVERLAP_MIN_COSINE = 0.25  # lower cosine accepted when half the question's terms match
DEFAULT_SUMMARY_WORDS = (30, 120)  # no budget given: a third of the source, clamped to this range
WORDS_PER_TOKEN = 0.75  # converts a bound max_tokens into a word budget
MAX_CONTEXT_MESSAGES = 80  # answer skill looks at the system prompt plus this many recent messages


def _context_text(message: BaseMessage) -> str:
    """Message text; tool results holding JSON (e.g. memory search hits) become plain lines."""
    if message.type == "tool":
        return flatten_json(message_text(message))
    return unquote_data(message_text(message))


def _words(text: str) -> int:
    return len(text.split())


# --------------------------------------------------------------------------------------------
# The request, as the dispatcher sees it.


@dataclass
class Request:
    messages: list[BaseMessage]
    kwargs: dict = field(default_factory=dict)
    relevance_threshold: float = RELEVANCE_THRESHOLD

    @property
    def last_human_index(self) -> int:
        human = [i for i, m in enumerate(self.messages) if m.type == "human"]
        return human[-1] if human else -1

    @property
    def last_human(self) -> str:
        i = self.last_human_index
        return message_text(self.messages[i]) if i >= 0 else ""

    @property
    def system_text(self) -> str:
        return "\n\n".join(message_text(m) for m in self.messages if m.type == "system")


SUMMARIZE_PATTERN = re.compile(
    r"(?i)\b(?:summari[sz]e|summari[sz]ing|condense|compress|shorten|recap|tl;?dr|boil (?:it )?down)\b"
    r"|\b(?:create|write|produce|give|make|extend|update|generate|provide|return|draft)\b[^.\n:]{0,40}\bsummary\b",
)
GRADE_PATTERN = re.compile(
    r"(?i)\bgrad(?:e|er|ing)\b|\bbinary score\b|\brelevance\b|['\"]relevant['\"]|\brelevant or not\b"
    r"|\b(?:is|are) (?:it|the|this|these) (?:(?:document|doc|passage|snippet|chunk)s? )?(?:relevant|useful|related)\b",
)


def classify(request: Request) -> str:
    """Which skill answers: 'grade', 'summarize' or 'answer'."""
    instruction = request.last_human + "\n" + request.system_text
    if GRADE_PATTERN.search(instruction) and grading_inputs(request):
        return "grade"
    return "summarize" if _summary_instruction(request) is not None else "answer"


# --------------------------------------------------------------------------------------------
# Skill: grade a document's relevance to a query.

_SECTION_LABEL = re.compile(
    r"(?i)(?:<(?P<tag>question|query|document|doc|context|passage)>)"
    r"|(?:(?:here is|here's)\s+)?(?:the\s+)?(?P<label>retrieved document|user question|search query|current query|question|query|document|doc|passage|snippet|chunk|context)\s*\d*\s*:",
)
_QUERY_LABELS = {"user question", "search query", "current query", "question", "query"}
_LABEL_CHOICE = re.compile(r"['\"](\w[\w -]{0,20})['\"]\s*(?:or|/)\s*['\"](\w[\w -]{0,20})['\"]")


def _section_marks(text: str) -> list[re.Match]:
    """The labels that start a section. Inside a document a label ends it only at the start of
    a line (or as a tag): "From what I have in context: ..." is the document's own text."""
    marks, in_doc = [], False
    for m in _SECTION_LABEL.finditer(text):
        at_line_start = not text[text.rfind("\n", 0, m.start()) + 1 : m.start()].strip()
        if in_doc and not (m.group("tag") or at_line_start):
            continue
        marks.append(m)
        in_doc = (m.group("tag") or m.group("label")).lower() not in _QUERY_LABELS
    return marks


def grading_inputs(request: Request) -> tuple[str, str] | None:
    """(query, document) from labelled sections of the human (else system) text."""
    for text in (request.last_human, request.system_text):
        marks = _section_marks(text)
        query = doc = None
        for i, m in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            body = text[m.end() : end]
            label = (m.group("tag") or m.group("label")).lower()
            if m.group("tag"):
                body = body.split(f"</{m.group('tag')}", 1)[0]
            body = re.sub(
                r"(?:here is|here's)(?:\s+the)?\s*$", "", body.strip(), flags=re.I
            ).strip()
            if label in _QUERY_LABELS:
                lines = [ln for ln in body.splitlines() if ln.strip()]
                query = query or (lines[0].strip() if lines else None)
            else:
                kept = [ln for ln in body.splitlines() if not GRADE_PATTERN.search(ln)]
                doc = doc or ("\n".join(kept).strip() or None)
        if query and doc:
            return query, doc
    return None


def grade(
    query: str, document: str, threshold: float = RELEVANCE_THRESHOLD
) -> tuple[bool, float, float, list[str]]:
    """(relevant, cosine, overlap, shared terms) for a query and a document."""
    q, d = embed([query, document[:2000]])
    cosine = float(q @ d)
    q_terms = content_terms(query)
    shared = sorted(q_terms & content_terms(document))
    overlap = len(shared) / len(q_terms) if q_terms else 0.0
    relevant = cosine >= threshold or (
        overlap >= OVERLAP_THRESHOLD and cosine >= threshold - OVERLAP_MARGIN
    )
    return relevant, cosine, overlap, shared


def _shown_terms(query: str, shared: list[str]) -> str:
    """The query's own words behind the shared stems ('during', not 'dur'), at most five."""
    words = term_words(query)
    return ", ".join(sorted(words.get(stem, stem) for stem in shared)[:5]) or "none"


def _grade_reason(query: str, cosine: float, shared: list[str], threshold: float) -> str:
    terms = _shown_terms(query, shared)
    return f"similarity {cosine:.2f} (threshold {threshold}), shared terms: {terms}."


def grade_with_reason(query: str, document: str, threshold: float) -> tuple[bool, str]:
    relevant, cosine, _, shared = grade(query, document, threshold)
    return relevant, _grade_reason(query, cosine, shared, threshold)


def _grade_labels(instruction: str) -> tuple[str, str]:
    m = _LABEL_CHOICE.search(instruction)
    if not m:
        return "yes", "no"
    a, b = m.group(1), m.group(2)
    negative = re.compile(r"^(?:no|not|non|ir|un)", re.I)
    if negative.match(a) and not negative.match(b):
        a, b = b, a
    return a, b


def grade_skill(request: Request) -> str:
    inputs = grading_inputs(request)
    if inputs is None:
        raise ValueError(
            "a grading request needs a query and a document (e.g. 'Question: ...' and "
            "'Document: ...'), found neither in the messages"
        )
    query, document = inputs
    threshold = request.relevance_threshold
    relevant, cosine, overlap, shared = grade(query, document, threshold)
    yes, no = _grade_labels(request.system_text + "\n" + request.last_human)
    verdict = yes if relevant else no
    return f"{verdict} - {_grade_reason(query, cosine, shared, threshold)}"


# --------------------------------------------------------------------------------------------
# Skill: summarize to a word budget, folding in a previous summary.

_COUNT = r"(?<![\d,.])(\d{1,3}(?:,\d{3})+|\d+)"  # "15,000 words" is 15000, never "000 words"
_BUDGET_RULES = [
    (
        re.compile(rf"(?i)\b(?:under|fewer than|less than|below|shorter than)\s+{_COUNT}\s+words"),
        -1,
    ),
    (re.compile(rf"{_COUNT}\s+words?\s+or\s+(?:less|fewer)", re.I), 0),
    (
        re.compile(
            rf"(?i)\b(?:at most|no more than|max(?:imum)?(?: of)?|up to|within|not exceeding|in|to|with|using|about|around)\s+{_COUNT}\s+words"
        ),
        0,
    ),
    (re.compile(rf"{_COUNT}[- ]words?\b", re.I), 0),
]
_NUMBER_WORDS = {"one": 1, "a single": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_SENTENCE_BUDGET = re.compile(
    r"(?i)\b(one|a single|two|three|four|five|\d+)(?:\s+|-)sentences?\b|\bin (a) sentence\b"
)
WORDS_PER_SENTENCE = 25  # a sentence budget, where a word budget is needed
_PREVIOUS_SUMMARY = re.compile(
    r"(?is)(?:this is (?:a |the )?summary of the conversation(?: so far| to date)?"
    r"|(?:previous|existing|current|running|prior|earlier) summary(?: of [\w ]{1,30}?)?"
    r"|summary of (?:the )?(?:earlier |previous )?conversation(?: so far| to date)?"
    r"|summary so far)\s*:\s*(?P<summary>.*?)"
    # The summary ends at a blank line, at a line (or sentence) that starts the instruction, or at
    # the end; an instruction word inside the summary ("How do writes...") does not end it.
    r"(?=\n\s*\n|\n\s*(?:extend|update|new messages|new lines|now|produce|create|write|incorporate|taking)\b"
    r"|(?<=[.!?:])\s+(?:extend|update|incorporate)\b|$)",
)
_IMPERATIVE = re.compile(
    r"(?i)^(?:focus|keep|include|be|use only|reply|mention|preserve|do not|don't|avoid|return|write|output|respond|make sure|ensure|only|please|answer|limit|capture|note|highlight)\b",
)
_SPEAKER = re.compile(r"^\s*(?P<who>user|human|assistant|ai|system|tool)\s*:\s*(?P<text>.*)$", re.I)
_LABEL_ONLY = re.compile(r"^\s*[\w ]{1,30}:\s*$")
_SMALL_TALK = re.compile(
    r"(?i)^(?:hi|hello|hey|thanks|thank you|you're welcome|sure|ok|okay|great|got it|no problem|cheers|bye|goodbye|nice to meet you|how can i help|happy to help|of course|absolutely|sounds good|will do|understood|noted|good idea|exactly|right|glad|you bet)\b",
)
_FILLER = re.compile(
    r"(?i)\b(?:(?P<article>a|an|the(?! user))|really|very|just|actually|basically|quite|pretty|definitely|um|uh|please|kind of|sort of|i think|currently)\s+",
)


_COURTESY = content_terms(
    "help happy glad welcome assist sure problem question anything else great thanks thank "
    "hello hi hey nice meet good sounds okay let know"
)


def _is_small_talk(sentence: str) -> bool:
    """Greetings and courtesy ("I'd be happy to help."), not "Hi, I'm stuck on X"."""
    if entities(sentence):
        return False
    terms = content_terms(sentence)
    return (bool(_SMALL_TALK.match(sentence)) and len(terms - _COURTESY) == 0) or (
        bool(terms) and terms <= _COURTESY
    )


@dataclass
class _Summary:
    budget: int
    previous: str
    units: list[tuple[str, str]]  # (speaker, sentence)


def _length_limits(instruction: str) -> tuple[int | None, int | None]:
    """(word limit, sentence limit) an instruction states ("in at most 40 words", "under 30
    words", "in two sentences", "a one-sentence answer"); None where it states none."""
    words = sentences = None
    for pattern, delta in _BUDGET_RULES:
        m = pattern.search(instruction)
        if m:
            words = int(m.group(1).replace(",", "")) + delta
            break
    m = _SENTENCE_BUDGET.search(instruction)
    if m:
        said = (m.group(1) or m.group(2)).lower()
        sentences = _NUMBER_WORDS[said] if said in _NUMBER_WORDS else int(said)
    for name, value in (("word", words), ("sentence", sentences)):
        if value is not None and value < 1:
            raise ValueError(f"{name} budget must be at least 1, got {value!r}")
    return words, sentences


def _token_words(kwargs: dict) -> int | None:
    """A bound max_tokens as a word budget (x 0.75), or None."""
    max_tokens = kwargs.get("max_tokens") or kwargs.get("max_completion_tokens")
    return max(1, int(int(max_tokens) * WORDS_PER_TOKEN)) if max_tokens else None


def _budget(instruction: str, kwargs: dict) -> int | None:
    words, sentences = _length_limits(instruction)
    budget = words if words is not None else (WORDS_PER_SENTENCE * sentences if sentences else None)
    by_tokens = _token_words(kwargs)
    if by_tokens:  # every budget here is at least 1: _length_limits refuses less
        budget = min(budget, by_tokens) if budget else by_tokens
    return budget


def _summary_instruction(request: Request) -> tuple[int, str] | None:
    """(index of the message holding the summarize instruction, its text), or None."""
    i = request.last_human_index
    if i >= 0 and SUMMARIZE_PATTERN.search(request.last_human):
        return i, request.last_human
    if request.messages[-1].type == "human" and _QUESTION.search(request.last_human.strip()):
        return None  # a question to a model whose system prompt mentions summaries
    for j, m in enumerate(request.messages):
        # A system prompt summarizes only when a sentence starts with the instruction
        # ("Summarize the user's text in 50 words."), not when it merely mentions summaries.
        if m.type == "system" and any(
            SUMMARIZE_PATTERN.match(s) for s in split_sentences(message_text(m))
        ):
            return j, message_text(m)
    return None


def _parse_summary_request(request: Request) -> _Summary:
    found = _summary_instruction(request)
    if found is None:
        raise ValueError(
            "a summary request needs an instruction to summarize (e.g. 'Summarize the "
            "conversation above.'), found none in the messages"
        )
    index, text = found
    previous = ""
    m = _PREVIOUS_SUMMARY.search(text)
    if m:
        previous = m.group("summary").strip()
        text = text[: m.start()] + "\n" + text[m.end() :]
    instruction_parts, payload = [], []
    for line in text.splitlines():
        if _LABEL_ONLY.match(line):
            continue
        speaker = _SPEAKER.match(line)
        if speaker:
            payload.append((speaker.group("who").lower(), speaker.group("text")))
            continue
        for sentence in split_sentences(line):
            if _IMPERATIVE.match(sentence):
                instruction_parts.append(sentence)
            elif SUMMARIZE_PATTERN.search(sentence) or re.search(
                r"\b\d+\s+words\b", sentence, re.I
            ):
                head, colon, tail = sentence.partition(":")
                instruction_parts.append(head if colon else sentence)
                if colon and tail.strip():
                    payload.append(("text", tail.strip()))
            else:
                payload.append(("text", sentence))
    source = request.messages if not payload else []
    units = list(payload)
    for j, msg in enumerate(source):
        if j == index or msg.type == "system":
            continue
        who = {"human": "user", "ai": "assistant"}.get(msg.type, msg.type)
        if msg.type == "tool":
            units.append((f"tool:{getattr(msg, 'name', None) or ''}", _context_text(msg)))
            continue
        units.extend((who, s) for s in split_sentences(message_text(msg)))
        for call in getattr(msg, "tool_calls", None) or []:
            units.append((f"call:{call['name']}", ""))
    budget = _budget(" ".join(instruction_parts) or text, request.kwargs)
    if budget is None:
        total = sum(_words(s) for _, s in units) + _words(previous)
        low, high = DEFAULT_SUMMARY_WORDS
        budget = max(low, min(high, total // 3))
    return _Summary(budget, previous, units)


def _rewrite(speaker: str, sentence: str) -> str:
    if speaker in ("user", "human"):
        return to_third_person(sentence)
    if speaker in ("assistant", "ai"):
        return you_to_user(sentence, "User")
    return sentence


def _telegraphic(sentence: str, articles: bool = False) -> str:
    """Without filler words, and without articles unless `articles`."""
    text = _FILLER.sub(lambda m: m[0] if articles and m["article"] else "", sentence + " ")
    return re.sub(r"\s+", " ", text).strip()


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text[-1:] in ".!?" else text + "."


def summarize(request: Request) -> str:
    """A dialogue (user / assistant turns, transcript lines) gets `summarize_dialogue`; plain text
    gets `_summarize_text`."""
    spec = _parse_summary_request(request)
    units = _dialogue_units(spec.units)
    return summarize_dialogue(spec, units) if units is not None else _summarize_text(spec)


def _summarize_text(spec: _Summary) -> str:
    """An extractive summary within the word budget, folding in a previous summary.

    Every sentence (previous summary and new material alike) is scored: 3 per fact the rules
    extract, 1 per salient entity, its centrality (cosine to the mean sentence), +1 for the user's
    words, +2 for the previous summary, -2 for a question; a sentence whose single-valued fact
    (name, employer, role, location, age) a later sentence changes is dropped (the newer statement
    wins), and near-duplicates (cosine > 0.92) are skipped. The best are packed greedily, shortened
    by dropping filler words when needed, and printed in their original order."""
    units: list[tuple[int, str, str]] = []  # (position, speaker, text)
    for pos, sentence in enumerate(split_sentences(spec.previous)):
        units.append((pos, "previous", sentence))
    for pos, (speaker, sentence) in enumerate(spec.units):
        if speaker == "system" or (
            sentence.rstrip().endswith("?") and speaker in ("assistant", "ai")
        ):
            continue
        if not _is_small_talk(sentence) and not _INSTRUCTION_ECHO.search(sentence):
            units.append((10_000 + pos, speaker, _rewrite(speaker, sentence)))
    if not units:
        return "There is nothing to summarize yet."
    facts = [extract_facts(text, False) for _, _, text in units]
    latest: dict[str, str] = {}
    for unit_facts in facts:
        for f in unit_facts:
            if f.predicate in SINGLE_VALUED:
                latest[f.predicate] = f.value.lower()
    vectors = embed([text for _, _, text in units])
    centre = vectors.mean(axis=0)
    centre /= np.linalg.norm(centre) or 1.0
    scored = []
    for k, ((pos, speaker, text), unit_facts) in enumerate(zip(units, facts, strict=True)):
        stale = [
            f
            for f in unit_facts
            if f.predicate in latest and latest[f.predicate] != f.value.lower()
        ]
        if stale and len(stale) == len(unit_facts):
            continue  # everything it says about the user was changed later
        score = (
            3 * len(unit_facts)
            + len(entities(text))
            + float(vectors[k] @ centre)
            + (1.0 if speaker in ("user", "human", "text") else 0.0)
            + (2.0 if speaker == "previous" else 0.0)
            - (2.0 if text.rstrip().endswith("?") else 0.0)
        )
        scored.append((score, pos, k, text))
    remaining = spec.budget
    chosen: list[tuple[int, str]] = []
    chosen_vectors: list[np.ndarray] = []
    covered: set[str] = set()
    for _, pos, k, text in sorted(scored, key=lambda c: (-c[0], c[1])):
        terms = content_terms(text)
        if (terms and terms <= covered) or any(
            float(vectors[k] @ v) > 0.92 for v in chosen_vectors
        ):
            continue
        for form in (_sentence(text), _sentence(_telegraphic(text))):
            if _words(form) <= remaining:
                chosen.append((pos, form))
                chosen_vectors.append(vectors[k])
                remaining -= _words(form)
                covered |= terms
                break
    out = " ".join(s for _, s in sorted(chosen))
    if not out:
        source = " ".join(text for _, _, text in units)
        out = " ".join(_telegraphic(source).split()[: spec.budget])
    return " ".join(out.split()[: spec.budget])


# --------------------------------------------------------------------------------------------
# Dialogue summaries: one clause per exchange, then detail while the budget lasts.

_GREETING_SENTENCE = re.compile(
    r"(?i)^(?:hi|hello|hey|good (?:morning|afternoon|evening)|greetings)\b[\w ,'-]{0,25}[.!]*$"
)
_ACK = re.compile(
    r"(?i)^(?:noted|got it|understood|ok(?:ay)?|sure|will do|done|great|perfect|nice to meet|thanks|"
    r"thank you|you're welcome|i've (?:saved|noted|deleted|stored|updated)|i'll (?:remember|keep|note)|"
    r"hello|hi|hey|welcome|glad|happy to help|good question|great question|exactly|correct|right)\b",
)
_USER_ACK = re.compile(
    r"(?i)^(?:that(?:'s| is| was| makes sense)|this is|it's|it is|sounds|makes sense|perfect|nice|cool)\s*"
    r"(?:a |an |very |really |so |much |now )?(?:good|great|helpful|clear|clearer|useful|nice|"
    r"perfect|interesting|cool|fine|neat|handy|better|easy|simple|start|sense)?\b",
)
_NO_INFO = re.compile(r"\bI (?:don't|do not) (?:have|know)\b|\bI can't answer\b", re.I)
_LEADING_COURTESY = re.compile(
    r"(?i)^(?:(?:hi|hello|hey|thanks|thank you|ok(?:ay)?|great|cool|sure|good|right|so|well)\b[\w ]{0,12}?[,!.]\s+)+",
)
_SALUTATION = re.compile(rf"^(?:dear\b[\w .'-]{{0,40}}|{SIGN_OFF_PHRASES})[,.!]*$", re.I)
_INSTRUCTION_ECHO = re.compile(
    r"(?i)^(?:reply|return|respond|output|give|answer|write|provide)\b[^.]{0,40}\bsummary\b|\bsummary only\b"
    r"|^(?:reply|return|respond|output|answer) (?:with )?only\b",
)
_CALL_LINE = re.compile(
    r"(?i)^(?:assistant|ai)\s+called\s+(?:tool\s+)?(?P<name>[\w.-]+)(?:\s*\(|\s+with\b|\s*$)"
)
_RESULT_LINE = re.compile(
    r"(?is)^(?:tool result(?:\s*\((?P<n1>[\w.-]+)\))?|tool\s+(?P<n2>[\w.-]+)\s+returned)\s*:\s*(?P<text>.*)$",
)
_ASK_LEAD = re.compile(
    r"(?i)^(?:(?:and|so|ok|okay|also|now|then|but|next)\b[, ]*)*"
    r"(?:(?:can|could|would|will) you (?:please )?|please )?"
    r"(?P<word>explain|describe|tell me (?:about|how|what|why|where|when)|show me|remind me (?:of|about)|"
    r"help me (?:with|to)|what(?:'s| is| are| was| were| does| do)?|which|who(?:'s| is| are)?|"
    r"where(?:'s| is| are)?|when(?:'s| is| are)?|why(?:'s| is| are| do| does)?|how (?:often|long|far|soon)|how(?: is| are| do| does| did| can| should| would| many| much)?|"
    r"is|are|do|does|can|should)?\b\s*",
)
_AUX_PRONOUN = re.compile(
    r"(?i)^(?:(?:should|can|could|do|does|did|would|will|shall|is|are|must)\s+)?(?:i|we|you|one)\s+",
)
_FOCUS_TAIL = re.compile(r"\s+(?:for|about|with|used for|like)\s*$", re.I)
_CLAUSE_CUT = re.compile(
    r",\s+(?=(?:like|as in|such as|so|but|which|because|e\.g\.|for example|and|while)\b)|;\s+|:\s+|\s+-\s+"
)


def _focus(question: str) -> str:
    """The noun phrase a question is about: "How do I write a function?" -> "how to write a
    function", "What are dictionaries for?" -> "dictionaries"."""
    q = question.strip().rstrip("?.! ")
    m = _ASK_LEAD.match(q)
    word = (m.group("word") or "").split()[0].lower() if m and m.group("word") else ""
    rest = q[m.end() :] if m else q
    pronoun = _AUX_PRONOUN.match(rest)
    if pronoun:
        rest = re.sub(r"^(?:have|need|want|ought) to\s+", "", rest[pronoun.end() :], flags=re.I)
        if word in ("how", "where", "when", "what"):
            lead = m.group("word").lower() if word == "how" else word  # "how often to X"
            lead = lead if lead.split()[-1] in ("how", "often", "long", "far", "soon") else word
            rest = f"{lead} to {rest}"
        elif word in ("is", "are", "do", "does", "can", "should", "why"):
            rest = f"{'why' if word == 'why' else 'whether to'} {rest}"
    elif word == "how" and m and m.group("word").lower().split()[-1] in ("often", "long", "far"):
        rest = f"{m.group('word').lower()} {rest}"  # "how long should a stand-up be"
    elif word == "how" and m and m.group("word").lower() in ("how do", "how does", "how did"):
        # "How do compactions work?" -> "how compactions work"; "how does X work" -> "X works"
        if m.group("word").lower() == "how does" and re.search(r"\s[a-z]+$", rest):
            head, _, last = rest.rpartition(" ")
            rest = f"{head} {conjugate(last)}"
        rest = f"how {rest}"
    elif m and (m.group("word") or "").lower() in ("how is", "how are"):
        doc = _doc(q)  # "How are tuples different from lists" -> "how tuples are different ..."
        subj = next((t for t in doc if t.dep_.startswith("nsubj")), None)
        if subj is not None and subj.i > 1:
            end = max([subj.i] + [c.i for c in subj.children if c.dep_ == "conj"]) + 1
            rest = f"how {doc[subj.left_edge.i : end].text} {doc[1].lower_} {doc[end:].text}"
    if m and (m.group("word") or "").lower() in ("what does", "what do") and not pronoun:
        rest = re.sub(r"\s+(?:mean|do|stand for|return|look like)\b.*$", "", rest, flags=re.I)
    elif word in ("what", "which") and not pronoun:
        # "What runtime do we expect after X?" -> "runtime to expect after X"
        inner = re.match(
            r"(?i)^(?P<noun>[\w' -]+?)\s+(?:do|does|did|should|can|will|would|must)\s+"
            r"(?:i|we|you|they|it|the team)\s+(?P<verb>.+)$",
            rest,
        )
        if inner:
            rest = f"{inner.group('noun')} to {inner.group('verb')}"
    elif word == "why" and not pronoun:
        rest = f"why {rest}"
    rest = _FOCUS_TAIL.sub("", rest)
    rest = re.sub(r"^(?:about\s+)?(?:(?:a|an|the|my|our|your)\b)?\s*", "", rest, flags=re.I)
    rest = rest.strip(" ,")
    words = rest.split()
    return " ".join(words[:10]) if words else q


def _third_person_reply(sentence: str) -> str:
    """An assistant's sentence about the user, third person: "you work" -> "the user works"."""
    s = you_to_user(sentence)
    return s[0].upper() + s[1:] if s else s


def _clause(sentence: str) -> str:
    """The first clause of a sentence, when it is a real clause (four words or more)."""
    head = _CLAUSE_CUT.split(sentence, maxsplit=1)[0].strip()
    return head if _words(head) >= 4 else sentence


def _drop_repeated_subject(sentence: str, topic: str) -> str:
    """ "A list is an ordered sequence" under the topic "Python lists" -> "an ordered sequence"."""
    m = re.match(
        r"^(?:(?:a|an|the)\s+)?(?P<subj>[\w-]+(?:\s+[\w-]+)?)\s+(?:is|are|means)\s+", sentence, re.I
    )
    subject = content_terms(m.group("subj")) if m else set()
    return sentence[m.end() :] if subject and subject <= content_terms(topic) else sentence


def _cut(text: str, n: int) -> str:
    """The first `n` words, without a dangling function word or comma at the end."""
    all_words = text.split()
    words = all_words[:n]
    # "from 95" is finished by "to 35 minutes": a range is not cut in half.
    rest = all_words[n:]
    if (
        words
        and re.match(r"[$€£]?\d", words[-1])
        and len(rest) >= 2
        and rest[0] in ("to", "and", "-")
        and re.match(r"[$€£]?\d", rest[1])
    ):
        unit = rest[2:3] if len(rest) > 2 and rest[2].isalpha() and rest[2].islower() else []
        words += rest[:2] + unit
    while len(words) > 1 and (
        words[-1].lower().strip(",;:") in STOPWORDS or words[-1][-1] in ",;:"
    ):
        if words[-1][-1] in ",;:" and words[-1].lower().strip(",;:") not in STOPWORDS:
            words[-1] = words[-1].rstrip(",;:")
            break
        words.pop()
    return " ".join(words)


def _short(text: str) -> str:
    return _telegraphic(text, articles=True).rstrip(" .")


@dataclass
class _Item:
    """One exchange (or previous-summary sentence) with renderings from short to long; level 0
    of a topic item is just its topic, printed in a shared "Discussed a, b and c." clause."""

    levels: list[str]
    topic: bool = False
    level: int = 0

    def text(self) -> str:
        return self.levels[self.level]


_LOWER_STARTS = (
    frozenset("whether how what where when why which who check run difference asked".split())
    | STOPWORDS
)


def _topic_case(topic: str) -> str:
    """ "Whether to X" inside a list reads "whether to X"; names keep their capital."""
    first = topic.split(" ", 1)[0]
    return topic[:1].lower() + topic[1:] if first.lower() in _LOWER_STARTS else topic


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


_IMPERATIVES = frozenset(
    "check run show explain tell write give compare list print fix convert test try make find".split()
)


def _split_list(text: str) -> list[str]:
    """ "a, b and c" -> [a, b, c], leaving commas inside brackets and quotes alone."""
    parts, depth, quote, start = [], 0, "", 0
    k = 0
    while k < len(text):
        ch = text[k]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"" and (k == 0 or not text[k - 1].isalnum()):
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            sep = re.match(r",\s*(?:and\s+)?|\s+and\s+", text[k:])
            if sep:
                parts.append(text[start:k])
                k += sep.end()
                start = k
                continue
        k += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _render(items: list[_Item]) -> str:
    out: list[str] = []
    topics: list[str] = []
    seen: set[str] = set()

    def flush() -> None:
        # "Discussed how B-trees work and LSM trees." / "Asked to run math.sqrt(2)."
        asked = [t for t in topics if t.split(" ", 1)[0].lower() in _IMPERATIVES]
        for lead, group in (
            ("Discussed", [t for t in topics if t not in asked]),
            ("Asked to", asked),
        ):
            if group:
                joined = (
                    group[0] if len(group) == 1 else ", ".join(group[:-1]) + " and " + group[-1]
                )
                out.append(f"{lead} {joined}.")
        topics.clear()

    for item in items:
        if item.topic and item.level == 0:
            if item.text().lower() not in seen:
                seen.add(item.text().lower())
                topics.append(_topic_case(item.text()))
            continue
        flush()
        out.append(_sentence(_capital(item.text())))
    flush()
    return " ".join(out)


def _identity_clause(facts: dict[str, str]) -> str:
    """ "User is Priya Raman. User is a data engineer at Northwind Labs, based in Leeds.": short
    sentences the extraction rules read back when the summary is folded again."""
    name, role, employer = facts.get("name"), facts.get("role"), facts.get("employer")
    location, age = facts.get("location"), facts.get("age")
    out = [f"User is {name}"] if name else []
    if role:
        out.append(f"User is {with_article(role)}" + (f" at {employer}" if employer else ""))
    elif employer:
        out.append(f"User works at {employer}")
    if location:
        if len(out) > (1 if name else 0):
            out[-1] += f", based in {location}"
        else:
            out.append(f"User lives in {location}")
    if age:
        out.append(f"User is {age} years old")
    return ". ".join(out)


def _absorbed(sentence: str, facts: list[Statement]) -> bool:
    """A sentence that says nothing beyond the identity facts in it."""
    ident = [f for f in facts if f.predicate in SINGLE_VALUED]
    if not ident or len(ident) < len(facts):
        return False
    rest = content_terms(sentence) - content_terms(" ".join(f.value for f in ident))
    rest -= content_terms(
        "user work works working live lives living based name called job role am moved"
    )
    return len(rest) <= 1


def _dialogue_units(units: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """(kind, text) with kind user / assistant / call / result / text; None when no one speaks."""
    out = []
    for speaker, text in units:
        call, result = _CALL_LINE.match(text), _RESULT_LINE.match(text)
        if speaker in ("assistant", "ai", "text") and call:
            out.append(("call", call.group("name")))
        elif speaker == "text" and result:
            name = result.group("n1") or result.group("n2") or ""
            out.append(("result", f"{name}\t{result.group('text')}"))
        elif speaker.startswith("tool"):
            out.append(("result", f"{speaker.partition(':')[2]}\t{text}"))
        elif speaker in ("user", "human"):
            out.append(("user", text))
        elif speaker in ("assistant", "ai"):
            out.append(("assistant", text))
        elif speaker.startswith("call:"):
            out.append(("call", speaker.partition(":")[2]))
        else:
            out.append(("text", text))
    if not any(kind in ("assistant", "call", "result") for kind, _ in out):
        return None  # nobody answers: a text the user wants summarized, not a dialogue
    return out


def _exchange_items(
    units: list[tuple[str, str]], identity: dict[str, str], previous: str = ""
) -> list[_Item]:
    """One item per exchange (a user turn and what followed it); updates `identity`."""
    groups: list[list[tuple[str, str]]] = []
    for kind, text in units:
        if kind == "user" or not groups:
            groups.append([])
        groups[-1].append((kind, text))
    items = []
    # Sentences already summarized (here or in the previous summary): a reply quoting them adds
    # nothing.
    said = {_short(x).lower() for x in split_sentences(previous)}
    for group in groups:
        levels, topic = _exchange_levels(*_read_exchange(group, identity, said))
        if levels:
            items.append(_Item(list(dict.fromkeys(levels)), topic))
    return items


def _read_exchange(
    group: list[tuple[str, str]], identity: dict[str, str], said: set[str]
) -> tuple[list[str], list[str], list[str], list[str]]:
    """An exchange's questions, statements, answers and tool runs worth summarizing (in that
    order); updates `identity` and `said`."""
    asks, states, answers, tools = [], [], [], []
    calls: list[str] = []
    for kind, text in group:
        if kind == "call":
            calls.append(text)
            continue
        if kind == "result":
            name, _, body = text.partition("\t")
            name = name or (calls[len(tools)] if len(tools) < len(calls) else "")
            body = " ".join(body.split()[:8])
            tools.append(f"ran {name}: result {body}" if name else f"tool result {body}")
            continue
        if kind == "user":
            # Facts only the whole message states (a form, a signature) name the user too.
            for f in extract_facts(text, True):
                if f.predicate in SINGLE_VALUED:
                    identity[f.predicate] = f.value
        for s in split_sentences(text):
            if _GREETING_SENTENCE.match(s) or _INSTRUCTION_ECHO.search(s) or _SALUTATION.match(s):
                continue
            if kind == "assistant":
                if (
                    _ACK.match(s)
                    or _is_small_talk(s)
                    or s.rstrip().endswith("?")
                    or _NO_INFO.search(s)
                ):
                    continue
                if _short(s).lower() not in said:
                    answers.append(_third_person_reply(s))
                continue
            s = _LEADING_COURTESY.sub("", s).strip()
            if not s or _is_small_talk(s) or (_USER_ACK.match(s) and _words(s) <= 7):
                continue
            if kind == "user" and _QUESTION.search(s):
                asks.append(s)
                continue
            facts = extract_facts(s, True) if kind == "user" else []
            for f in facts:
                if f.predicate in SINGLE_VALUED:
                    identity[f.predicate] = f.value
            if facts and _absorbed(s, facts):
                continue
            if not facts and (_words(s) < 3 or SIGNATURE_NAME.match(s)):
                continue  # "Oh, Hooli!", "Me! Rafael!", "Mira Barros": not a sentence
            if kind == "user":  # a request ("Please run X") is what the user asked for
                s = f"User asked to {asked}" if (asked := _request(s.rstrip(".!"))) else s
            states.append(to_third_person(s) if kind == "user" else s)
            said.add(_short(s).lower())
    for c in calls[len(tools) :]:
        tools.append(f"ran {c}")
    return asks, states, answers, tools


def _exchange_levels(
    asks: list[str], states: list[str], answers: list[str], tools: list[str]
) -> tuple[list[str], bool]:
    """An exchange's item, shortest first: what the user said, else asked (a topic), else was
    told, with the tools run; and whether it is a topic."""
    levels: list[str] = []
    topic = False
    ask_levels, answers = _asked_levels(asks, answers)
    if states:
        first = _short(states[0])
        levels = [_short(_clause(states[0])), first] if _clause(states[0]) != states[0] else [first]
        if _words(levels[0]) > 9:
            levels.insert(0, _cut(levels[0], 8))
        for s in states[1:]:
            levels.append(levels[-1] + ". " + _short(s))
        if ask_levels:
            told = levels[-1]
            levels.append(f"{told}. Asked about {ask_levels[0]}")
            levels.extend(f"{told}. {a}" for a in ask_levels[1:])
    elif asks:
        topic = True
        levels = ask_levels
    elif answers:
        levels = [_short(_clause(answers[0])), _short(answers[0])]
        for s in answers[1:3]:
            levels.append(levels[-1] + ". " + _short(s))
    if tools:
        tool_text = "; ".join(tools[:3])
        levels = [*levels, levels[-1] + "; " + tool_text] if levels else [_capital(tool_text)]
    return levels, topic


def _asked_levels(asks: list[str], answers: list[str]) -> tuple[list[str], list[str]]:
    """What the user asked, then with the answer's words ("Topic: answer"), shortest first; and
    the answers, a one- to three-word first answer joined to the next."""
    if not asks:
        return [], answers
    focus = " and ".join(dict.fromkeys(_focus(q) for q in asks[:2]))
    ask_levels = [focus]
    if len(answers) > 1 and _words(answers[0]) < 4:
        answers = [answers[0].rstrip(".!") + ": " + answers[1], *answers[2:]]
    if answers:
        first = _short(_drop_repeated_subject(answers[0], focus))
        short = _short(_clause(_drop_repeated_subject(answers[0], focus)))
        head = _capital(focus) + ": "
        if short != first:
            ask_levels.append(head + short)
        ask_levels.append(head + first)
        for s in answers[1:3]:
            ask_levels.append(ask_levels[-1] + ". " + _short(s))
    return ask_levels, answers


def _previous_items(previous: str, identity: dict[str, str]) -> list[_Item]:
    """The previous summary as items: identity facts go to `identity`, "Discussed a, b" lists
    become one topic item each, other sentences shrink to their first clause (or topic)."""
    items = []
    for s in split_sentences(previous):
        if _INSTRUCTION_ECHO.search(s):
            continue
        facts = extract_facts(s, False)
        user_facts_ = [f for f in facts if f.subject == "user"]
        for f in reversed(user_facts_):  # the first sentence wins; in it, "X, but actually Y"
            if f.predicate in SINGLE_VALUED:
                identity.setdefault(f.predicate, f.value)
        if user_facts_ and _absorbed(s, user_facts_):
            continue
        listed = re.match(
            r"^(?P<lead>discussed|covered|topics?:?|asked to)\s+(?P<list>.+?)\.?$", s, re.I
        )
        if listed:
            asked = listed.group("lead").lower() == "asked to"
            for t in _split_list(listed.group("list")):
                if asked and t.split(" ", 1)[0].lower() not in _IMPERATIVES:
                    t = f"asked to {t}"
                items.append(_Item([t], topic=True))
            continue
        head, colon, tail = s.partition(": ")
        if colon and _words(head) <= 8 and tail:
            # "Runtime to expect: ..." was capitalised only to start a sentence; in a list it
            # reads "runtime to expect" when the word also occurs in lower case.
            first = head.split(" ", 1)[0]
            if first[1:].islower() and re.search(rf"\b{re.escape(first.lower())}\b", previous):
                head = head[:1].lower() + head[1:]
            items.append(_Item([head, s.rstrip(".")], topic=True))
        else:
            short = _clause(s).rstrip(".")
            items.append(_Item(list(dict.fromkeys([short, s.rstrip(".")]))))
    return items


def summarize_dialogue(spec: _Summary, units: list[tuple[str, str]]) -> str:
    """Identity facts first, then every exchange in one short clause, then more detail (newest
    exchanges first) while the budget lasts; the previous summary shrinks to make room."""
    identity: dict[str, str] = {}
    previous = _previous_items(spec.previous, identity)
    new_identity: dict[str, str] = {}
    new = _exchange_items(units, new_identity, spec.previous)
    identity.update(new_identity)  # the newer statement wins

    def render(prev: list[_Item], cur: list[_Item]) -> str:
        rest = _render([*prev, *cur])
        # Identity facts a kept sentence already states are not repeated.
        stated = {
            f.value
            for i in [*prev, *cur]
            for f in extract_facts(i.text(), False)
            if f.subject == "user"
        }
        head = _identity_clause({k: v for k, v in identity.items() if v not in stated})
        return _distinct(f"{_sentence(head)} {rest}".strip() if head else rest)

    def words(prev: list[_Item], cur: list[_Item]) -> int:
        return _words(render(prev, cur))

    # Over budget: whole items go, the least useful first (never a list of leftover keywords).
    # An item's worth is its centrality (cosine of its longest rendering to the mean of all items)
    # plus what only it carries (names and numbers no other item or identity fact states), plus
    # a decision or commitment, plus recency; the newest exchange always stays.
    if words(previous, new) > spec.budget:
        worth, vector = _item_worth(previous, new, identity)
        while words(previous, new) > spec.budget:
            pool = previous + new[:-1]
            if not pool:
                break

            def value(item: _Item) -> float:
                # Redundancy: an item close to another one still kept adds little of its own.
                others = [vector[id(o)] for o in previous + new if o is not item]
                overlap = max((float(vector[id(item)] @ v) for v in others), default=0.0)
                return worth[id(item)] - max(0.0, overlap - 0.5)

            victim = min(pool, key=value)
            (previous if victim in previous else new).remove(victim)
    for group in (new, previous):
        # Breadth first: every item gets its next level before any gets the one after.
        for target in range(1, max((len(i.levels) for i in group), default=0)):
            for item in group:
                if item.level == target - 1 and target < len(item.levels):
                    item.level = target
                    if words(previous, new) > spec.budget:
                        item.level -= 1
    return _fit(render(previous, new), spec.budget) or "There is nothing to summarize yet."


_DECISION = re.compile(
    r"(?i)\b(?:decid\w*|agree\w*|chose|chosen|will|plan(?:s|ned)?|must|deadline|by (?:monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|tomorrow|next week)|signs? off|approved?|settled)\b",
)


def _item_worth(
    previous: list[_Item], new: list[_Item], identity: dict[str, str]
) -> tuple[dict[int, float], dict[int, np.ndarray]]:
    """How much each item adds to a summary: centrality + facts about the user + unique names and
    numbers + decision, plus recency for new exchanges; what the previous summary carried counts like a recent exchange
    (it survived earlier folds, and dropping it loses it for good)."""
    items = previous + new
    if not items:
        return {}, {}
    texts = [i.levels[-1] for i in items]
    # Embedded in their short form: a third of the cost, and the same text fold after fold.
    vectors = embed([i.levels[0] for i in items])
    centre = vectors.mean(axis=0)
    centre /= np.linalg.norm(centre) or 1.0
    known = " ".join(identity.values()).lower()
    found = [[e for e in entities(t) if e.lower() not in known and not e.isdigit()] for t in texts]
    worth = {}
    for k, item in enumerate(items):
        others = " ".join(t for j, t in enumerate(texts) if j != k).lower()
        unique = sum(1 for e in found[k] if e.lower() not in others)
        about_user = [f for f in extract_facts(texts[k], False) if f.subject == "user"]
        worth[id(item)] = (
            float(vectors[k] @ centre)
            + 0.6 * min(len(about_user), 2)
            + 0.25 * min(unique, 3)
            + (0.3 if _DECISION.search(texts[k]) else 0.0)
            + (0.4 if k < len(previous) else 0.5 * (k - len(previous) + 1) / len(new))
            - (0.2 if item.topic else 0.0)
        )
    return worth, {id(item): vectors[k] for k, item in enumerate(items)}


def _distinct(text: str) -> str:
    """`text` less each sentence whose content words another says too ("User is a biologist.")."""
    said = [(s, set(re.findall(r"[\w'-]+", s.lower())) - STOPWORDS) for s in split_sentences(text)]
    dup = [
        any(t < u or t == u and j < k for j, (_, u) in enumerate(said))
        for k, (_, t) in enumerate(said)
    ]
    return " ".join(s for (s, _), d in zip(said, dup, strict=True) if not d)


def _fit(text: str, budget: int) -> str:
    """Whole sentences of `text`, in order, within `budget` words; a first sentence longer than
    the budget is shortened to a clause."""
    kept: list[str] = []
    used = 0
    for sentence in split_sentences(text):
        n = _words(sentence)
        if used + n <= budget:
            kept.append(sentence)
            used += n
    if kept:
        return " ".join(kept)
    return _sentence(_cut(text, budget)) if text.strip() else ""


# --------------------------------------------------------------------------------------------
# Skill: answer from the context given (memories in the system prompt, history, tool results).

_INSTRUCTION_SENTENCE = re.compile(
    r"(?i)^(?:you are|you're|you have|use|answer|be|always|never|respond|reply|do not|don't|only|if|when|keep|act|your (?:job|task|role)|today is)\b",
)
_GREETING = re.compile(r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening))\b[\s!,.]*$", re.I)
_THANKS = re.compile(r"^\s*(?:thanks|thank you|cheers)\b[^?]*$", re.I)


def user_facts(messages: Sequence[BaseMessage]) -> list[Statement]:
    """Facts about the user, oldest first: first-person statements in human messages, third-person
    statements and key-value pairs in system prompts (loaded memories) and tool results."""
    facts: list[Statement] = []
    for m in messages:
        if m.type == "human":
            facts.extend(extract_facts(message_text(m), True))
        elif m.type in ("system", "tool"):
            facts.extend(f for f in extract_facts(_context_text(m), False) if f.subject == "user")
    return facts


_TO_SECOND = {"is": "are", "was": "were", "has": "have", "does": "do", "doesn't": "don't"}


def _second_person(sentence: str) -> str:
    """Third-person memory text told back to the user: "User lives in Oslo" -> "you live in Oslo"."""
    return from_user(sentence, "your", "you", _TO_SECOND, nouns=True)


def _focus_head(question: str) -> tuple[str, set[str]]:
    """The head of what a question asks for, and its content terms: the phrase after
    what/which/how up to its first preposition ("target runtime" in "what is the target runtime
    for the job?"); ("", empty) when the question has no such phrase."""
    phrase = _focus(question)
    phrase = re.sub(r"^(?:how|where|when|what|whether|why) to\s+", "", phrase, flags=re.I)
    head = re.split(r"\s+(?:for|of|in|on|at|with|from|to|by|about|during|between)\s+", phrase)[0]
    terms = content_terms(head)
    if not terms or terms == content_terms(question):
        return "", set()
    return head, terms


def _say(fact: Statement) -> str:
    template = ANSWER_PHRASES.get(fact.predicate, "Your {p} is {v}.")
    value = with_article(fact.value) if fact.predicate == "role" else fact.value
    return template.format(p=fact.predicate, v=value)


_EARLIER = re.compile(
    r"(?i)\b(?:before|previously|used to|formerly|former|prior to|earlier|originally|old)\b"
)
_PAST_PHRASES = {
    "name": "your name was {v}",
    "employer": "you worked at {v}",
    "role": "you worked as {v}",
    "location": "you lived in {v}",
    "age": "you were {v}",
}


def _asks_earlier(question: str) -> bool:
    """ "Where did I live before I moved to B?": a time word and a past-tense verb (the parse's
    tag), not "Before we wrap up, what's my name?"."""
    if not _EARLIER.search(question):
        return False
    if re.search(r"\b(?:used to|previously|formerly|former|old)\b", question, re.I):
        return True
    return any(t.tag_ == "VBD" for t in _doc(question))


def _say_before(question: str, predicate: str, found: list[Statement]) -> str:
    """The value stated before the one the question names (or before the newest one)."""
    values: list[str] = []
    for f in found:
        if not values or values[-1].lower() != f.value.lower():
            values.append(f.value)
    asked = question.lower()
    named = [k for k, v in enumerate(values) if re.search(rf"\b{re.escape(v.lower())}\b", asked)]
    anchor = named[-1] if named else len(values) - 1
    label = PREDICATE_LABELS.get(predicate, predicate)
    if anchor < 1:
        return f"I don't know of any {label} you had before {values[anchor]}."
    value = values[anchor - 1]
    value = with_article(value) if predicate == "role" else value
    said = _PAST_PHRASES.get(predicate, "your {p} was {v}").format(p=label, v=value)
    return f"Before {values[anchor]}, {said}."


def _answer_about_user(question: str, predicate: str, facts: list[Statement]) -> str | None:
    """A profile slot (name, employer, role, location, age); None when no statement fills it."""
    found = [f for f in facts if f.predicate == predicate]
    if not found or predicate not in SINGLE_VALUED:  # several values: the latest two
        return " ".join(dict.fromkeys(_say(f) for f in found[-2:])) or None
    if _asks_earlier(question):
        return _say_before(question, predicate, found)
    return _say(found[-1])  # the newer statement wins


# --------------------------------------------------------------------------------------------
# Answers from context statements: each sentence with the date it was said (the session a system
# message opens, or a memory's own "(said on 2026-02-03)"), ranked by lexical and MiniLM
# similarity, checked for the kind of answer the question wants, dates resolved.


@dataclass(frozen=True)
class Said:
    text: str
    when: date | None
    order: int
    first_person: bool = False  # the user's own words ("I", "my")
    about: str = ""  # for a reply, the message it answers: names it may leave unsaid


_ISO = r"(\d{4}-\d{2}-\d{2})"
_SAID_ON = re.compile(rf"\s*[(\[](?:(?:said|told|noted|stated)\s+)?(?:on\s+)?{_ISO}[)\]]\s*", re.I)
_LINE_DATE = re.compile(rf"^\s*(?:[-*]\s*)?\[?{_ISO}\]?\s*[:\-]?\s+")
_LOWER_START = re.compile(r"(?<=[a-z0-9%)][.!?])\s+(?=[a-z])")  # "isn't eating. he's 6."
_CONTEXT_LABEL = re.compile(r"^(?:context|notes?|background|facts?|information|info)\s*:\s+", re.I)


def _session_date(text: str) -> date | None:
    """The date a short system message opens a session with ("Session of 2026-01-12.")."""
    m = re.search(_ISO, text)
    if m and _words(text) <= 12 and not re.search(r"\btoday is\b", text, re.I):
        return date.fromisoformat(m.group(1))
    return None


def context_statements(messages: Sequence[BaseMessage], skip: int) -> list[Said]:
    """Candidate statements: the system prompt (minus instructions), recent tool results and
    earlier turns, excluding message index `skip` (the question), each with its date."""
    out: list[Said] = []
    seen: set[str] = set()
    when: date | None = None
    asked = ""
    start = max(0, len(messages) - MAX_CONTEXT_MESSAGES)
    for i, m in enumerate(messages):
        text = _context_text(m)
        if m.type == "system" and _session_date(text):
            when = _session_date(text)
            continue
        if i == skip or (i < start and m.type != "system"):
            continue
        about = asked if m.type == "ai" else ""
        asked = text if m.type == "human" else asked
        for line in text.splitlines():
            said_on = _SAID_ON.search(line) or _LINE_DATE.match(line)
            line_when = date.fromisoformat(said_on.group(1)) if said_on else when
            line = _LINE_DATE.sub("", _SAID_ON.sub(" ", line))
            first = len(out)
            for s in (p for x in split_sentences(line) for p in _LOWER_START.split(x)):
                if m.type == "system" and _INSTRUCTION_SENTENCE.match(s):
                    continue
                pos = {t.pos_ for t in _doc(s)} if _words(s) < 5 else {"VERB"}
                if len(out) > first and "NUM" in pos and "VERB" not in pos:
                    out[-1] = replace(out[-1], text=f"{out[-1].text} {s}")  # "...bikes. so 5"
                    continue
                if _words(s) < 3 or _QUESTION.search(s) and m.type != "tool" or s in seen:
                    continue
                seen.add(s)
                s = _CONTEXT_LABEL.sub("", s) if m.type == "system" else s
                if m.type == "human":  # "she's called Tilly": what the user said just before
                    about = next((x.text for x in out[::-1] if x.first_person), "")
                    about = about if _continues(s) else ""
                out.append(Said(s, line_when, len(out), m.type == "human", about))
    return out


def _continues(sentence: str) -> bool:
    """The sentence's subject is "he", "it", "they" or left unsaid: it goes on about what the
    sentence before it named ("named him Min", "upped it to 200")."""
    root = next(t for t in _doc(sentence) if t.dep_ == "ROOT")
    subject = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
    return not subject or subject[0].pos_ == "PRON" and subject[0].lower_ not in ("i", "we")


_UNITS = r"(?:days?|weeks?|months?|years?|hours?|h|hrs?|mins?|minutes?|am|pm)\b"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORD = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_RELATIVE = re.compile(
    r"(?i)\b(?:(?P<last>last|this|next|coming|on|by|until|from|before|after)\s+)?"
    rf"(?P<day>{'|'.join(_WEEKDAYS)})\b(?!s\b|\s+(?:mornings|afternoons|evenings|nights)\b)"
    r"|\b(?P<word>yesterday|today|tonight|tomorrow)\b"
    r"|\bin\s+(?P<n>\d+|a|an|one|two|three|four|five|six)\s+(?P<unit>days?|weeks?)\b"
    r"|\b(?P<ago>\d+|a|one|two|three|four|five|six)\s+(?P<unit2>days?|weeks?)\s+ago\b"
    rf"|\b(?P<month>{_MONTH})\s+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?:-|:|\d{{4}}))"
    rf"|\b(?P<dm>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month2>{_MONTH})\b(?!\s+\d{{4}})"
    r"|\bthe\s+(?P<nth>\d{1,2})(?:st|nd|rd|th)\b",
)


def _past_at(sentence: str, start: int) -> bool:
    """Whether the verb governing the word at character `start` is in the past tense."""
    token = next(t for t in _doc(sentence) if t.idx >= start)
    while token.pos_ not in ("VERB", "AUX") and token.head.i != token.i:
        token = token.head
    return token.tag_ in ("VBD", "VBN") or any(c.tag_ == "VBD" for c in token.children)


def _resolve(m: re.Match, sentence: str, said: date) -> date:
    """The date a relative expression names, counted from the day it was said."""
    month = (m.group("month") or m.group("month2") or "")[:3].lower()
    if month in _MONTHS or m.group("nth"):  # "Sept 5", "14 November", "the 28th": the next one
        n = int(m.group("md") or m.group("dm") or m.group("nth"))
        for ahead in range(0, 400, 28):
            later = said + timedelta(days=ahead)
            try:
                found = later.replace(
                    month=_MONTHS.index(month) + 1 if month else later.month, day=n
                )
            except ValueError:
                continue
            if found >= said or _past_at(sentence, m.start()) and found < said:
                return found
        return said
    if m.group("day"):
        target = _WEEKDAYS.index(m.group("day").lower())
        lead = (m.group("last") or "").lower()
        back = lead == "last" or (
            lead not in ("this", "next", "coming") and _past_at(sentence, m.start("day"))
        )
        if back:
            return said - timedelta(days=(said.weekday() - target - 1) % 7 + 1)
        return said + timedelta(days=(target - said.weekday() - 1) % 7 + 1)
    word = (m.group("word") or "").lower()
    if word:
        return said + timedelta(days={"yesterday": -1, "tomorrow": 1}.get(word, 0))
    n, unit = m.group("n") or m.group("ago"), (m.group("unit") or m.group("unit2")).lower()
    days = int(n) if n.isdigit() else _NUMBER_WORD[n.lower()]
    days *= 7 if unit.startswith("week") else 1
    return said + timedelta(days=-days if m.group("ago") else days)


def _day(d: date) -> str:
    return f"{d:%A} {d.day} {d:%B %Y}"


def _dated(statement: Said) -> tuple[str, bool]:
    """The statement with the dates its relative expressions name ("on Saturday" said on
    2026-02-03: "... (Saturday 7 February 2026)"), and whether it names a date at all."""
    text = statement.text
    days = [] if statement.when is None else [m for m in _RELATIVE.finditer(text)]
    if days:
        shown = ", ".join(dict.fromkeys(_day(_resolve(m, text, statement.when)) for m in days))
        text = f"{text.rstrip(' .!')} ({shown})"
    return text, bool(days) or any(e.label_ == "DATE" for e in _doc(text).ents)


_WANTS = (  # the kind of answer a question word asks for, and the entity labels that give it
    (re.compile(r"^why\b", re.I), {"because"}),  # a reason clause
    (re.compile(r"\bname\b|\bcalled\b", re.I), {"PERSON", "ORG", "PRODUCT", "WORK_OF_ART"}),
    (re.compile(r"^(?:who|whom|whose)\b", re.I), {"PERSON", "ORG", "NORP", "poss"}),
    (re.compile(r"^where\b", re.I), {"GPE", "LOC", "FAC", "ORG", "in", "at", "from", "to"}),
    (re.compile(r"^(?:when|what (?:time|day|date))\b|^how long ago\b", re.I), {"DATE", "TIME"}),
    (re.compile(r"^how (?:many|much)\b", re.I), {"CARDINAL", "QUANTITY", "MONEY", "PERCENT"}),
    (
        re.compile(r"^how (?:old|long|far|often|tall|heavy|big)\b", re.I),
        {"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE", "TIME", "ORDINAL"},
    ),
)


def _wants(question: str) -> set[str] | None:
    q = re.sub(r"^(?:and|so|but|also|then|ok|okay)\b[, ]*", "", question.strip(), flags=re.I)
    return next((labels for rx, labels in _WANTS if rx.search(q)), None)


def _gives(sentence: str, labels: set[str], question: str) -> bool:
    """The sentence holds an answer of the wanted kind that the question does not already name."""
    asked = content_terms(question)
    doc = _doc(sentence)
    # an entity modifying a noun names a kind, not the answer ("a Netherland dwarf")
    found = [e.text for e in doc.ents if e.label_ in labels and e.root.dep_ != "compound"]
    times = [range(*m.span()) for m in _RELATIVE.finditer(sentence)]  # "in 3 weeks", "the 19th"
    times += [range(*m.span()) for m in re.finditer(rf"\d+\s*{_UNITS}", sentence, re.I)]
    # "who": someone's relative ("User's wife"); "where": what follows "in", "at", "from", "to"
    found += [t.text for t in doc if "poss" in labels and any(c.dep_ == "poss" for c in t.children)]
    found += [t.text for t in doc if t.dep_ == "pobj" and t.head.lower_ in labels]
    found += [
        t.text
        for t in doc
        if t.pos_ == "PROPN"
        and "PERSON" in labels
        and t.ent_type_ not in ("DATE", "TIME")
        and t.lower_.rstrip("s") not in _WEEKDAYS
    ]
    if "DATE" in labels:
        found += [m.group(0) for m in _RELATIVE.finditer(sentence)]
        found += re.findall(
            r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*[ap]m\b|\bnoon\b|\bmidnight\b", sentence
        )
    if "because" in labels:
        found += re.findall(r"(?i)\b(?:because|due to|since(?! \d)|(?<=, )so)\b.+", sentence)
    if "CARDINAL" in labels:  # a number, not a date's unless a date may answer
        found += [
            m.group(0)
            for m in re.finditer(
                r"(?i)\b\d[\d,.]*k?\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|half|twice|once)\b",
                sentence,
            )
            if "DATE" in labels or not any(m.start() in r for r in times)
        ]
    found = [f for f in found if f.lower() != "user"]  # the memories' subject is no answer
    return any(not content_terms(f) or not content_terms(f) <= asked for f in found)


def _names_in(question: str) -> set[str]:
    """Names the question asks about ("Kenji" in "What belt does Kenji have?"); not product
    names written like code ("LangGraph", "FAISS")."""
    return {
        t.lower_
        for t in _doc(question)
        if t.pos_ == "PROPN" and t.i > 0 and not re.search(r"[a-z][A-Z]|^[A-Z]+$", t.text)
    }


_YOU = [  # the user's own words told back to them
    (r"\bi'm\b|\bim\b|\bi am\b|\bwe're\b", "you're"),
    (r"\bi was\b", "you were"),
    (r"\bi(?='(?:ve|d|ll)\b)|\bi\b|\bwe\b|\bme\b", "you"),
    (r"\bmy\b|\bour\b", "your"),
    (r"\bmine\b", "yours"),
    (r"\bmyself\b", "yourself"),
]


def _to_you(sentence: str) -> str:
    """The user's own sentence told back: "I'm taking my son to judo" -> "you're taking your son
    to judo"."""
    for pattern, repl in _YOU:
        sentence = re.sub(pattern, repl, sentence, flags=re.I)
    return sentence


def _tell(statement: Said, asks_when: bool) -> str:
    """A statement told back to the user in the second person, its relative dates resolved; for
    a "when" question without a date in it, the day it was said."""
    text, dated = _dated(statement)
    text = _to_you(text) if statement.first_person else _second_person(text)
    root = next(t for t in _doc(text) if t.dep_ == "ROOT")  # "Named her Clover": you did
    if statement.first_person and root.i == 0 and root.tag_ in ("VBD", "VBG"):
        text = ("You " if root.tag_ == "VBD" else "You're ") + text[0].lower() + text[1:]
    text = _LEADING_COURTESY.sub("", text.strip()) or text
    reply = _sentence(_capital(text))
    if asks_when and not dated and statement.when is not None:
        reply = reply[:-1] + f" (you told me on {_day(statement.when)})."
    return reply


_POLAR = re.compile(r"^(?:is|am|are|was|were|do|does|did|have|has|had|can|will)\b", re.I)
_NEGATED = re.compile(
    r"(?i)\b(?:not|no|never|no longer|cancel\w*|stopped|quit|sold|gave up)\b|n't\b"
)
SAME_TOPIC_COSINE = 0.5  # a statement sharing no noun with the question must be this close
SAME_SUBJECT_COSINE = 0.55  # two statements this close are about the same thing: the newer wins
UPDATE_MARGIN = 0.15  # ...when their scores are within this margin
_VAGUE_NOUNS = frozenset("thing things kind sort type lot way anything something".split())


def _topic_nouns(question: str) -> set[str]:
    """Stems of the common nouns a question asks about ("belt" and "colour" in "What colour belt
    does Kenji have?")."""
    nouns = [t.text for t in _doc(question) if t.pos_ == "NOUN" and t.lower_ not in _VAGUE_NOUNS]
    return content_terms(" ".join(nouns))


def _prefixes(words) -> set[str]:
    """Stems cut to five letters: "allergy" and "allergic" are one word to a question."""
    return {_stem(w).rstrip("e")[:5] for w in words}


_LIGHT = ("do", "have", "get", "make", "go", "be")
_FILLS = "compound amod nummod appos poss prep acl relcl dobj attr acomp npadvmod xcomp".split()


def _gap(question: str) -> set[str]:
    """What a what/which question's wh-word stands for: the noun it determines or equates (for
    "name", the thing named), the verb it is the object of; else the predicate adjective, or a
    yes/no question's verb ("allergic" in "What am I allergic to?", "Am I allergic to X?")."""
    doc = _doc(question)
    for w in (t for t in doc if t.lower_ in ("what", "which")):
        h, n = w.head, [c for c in w.head.children if c.dep_ in ("acomp", "attr", "nsubj")]
        if w.dep_ == "det":
            return _prefixes(t.text for t in h.subtree if t.i > w.i and t.pos_ in ("NOUN", "ADJ"))
        if h.lemma_ == "be" and h.dep_ == "ROOT" and w.dep_ in ("attr", "nsubj"):
            n = sorted((c for c in n if c != w), key=lambda c: (c.pos_ == "PRON", c.dep_))[:1]
            if n and any(c.dep_ == "acl" for c in n[0].children):  # "the landlord doing"
                return set()
            if n and n[0].lemma_ == "name":  # the thing named
                n = [c for c in n[0].subtree if c.dep_ in ("poss", "pobj")][-1:]
            return _prefixes(c.text for c in n if c.pos_ in ("NOUN", "ADJ", "PROPN"))
        if w.dep_ == "dobj" and h.pos_ == "VERB" and h.lemma_ not in _LIGHT:
            return _prefixes([h.lemma_])
    root = next(t for t in doc if t.dep_ == "ROOT")
    said = [c for c in root.children if c.dep_ == "acomp"]
    if _POLAR.match(question.strip()):  # a yes/no question: its verb, or what "have", "is" take
        verb = root.pos_ == "VERB" and root.lemma_ not in _LIGHT
        said += [root] if verb else [c for c in root.children if c.dep_ in ("dobj", "attr")]
    return _prefixes(t.lemma_ for t in said[:1] if t.lemma_ not in _LIGHT)


def _fills(sentence: str, gap: set[str], asked: set[str]) -> bool:
    """The sentence names no gap word (an answer may be its own word: "a greyhound"), or one
    with what the question does not say: "yellow belt", "allergic to latex", not "his belt"."""
    found = [t for t in _doc(sentence) if _prefixes({t.text}) & gap]
    for t in found:
        be = t.dep_ == "nsubj" and t.head.lemma_ == "be"
        kids = [c for c in t.children if c.dep_ in _FILLS]
        kids += [t.head] if t.dep_ in ("appos", "attr") else []
        kids += [c for c in t.head.children if t.dep_ == "nsubj" and (be or c.dep_ == "prep")]
        if any(content_terms(" ".join(x.text for x in c.subtree)) - asked - {"user"} for c in kids):
            return True
    return not found


def _someone_else(sentence: str, question: str, gap: set[str]) -> bool:
    """The sentence tells of someone the question does not name ("my husband") what it asks
    about the user: "My husband has a sesame allergy" for "Am I allergic to sesame?"."""
    who, subject = (
        next((t for t in _doc(x) if t.dep_.startswith("nsubj") and t.head.dep_ == "ROOT"), None)
        for x in (question, sentence)
    )
    if who is None or subject is None or _names_in(question):  # names are matched as names
        return False
    q_terms, deps = content_terms(question), ("acomp", "attr", "dobj")
    owners = [subject] + [c for c in subject.children if c.dep_ == "poss"]
    other = _prefixes(t.text for t in owners if t.pos_ == "NOUN") - _prefixes(q_terms)
    said = [subject.head] + [c for c in subject.head.children if c.dep_ in deps]
    mine = who.lower_ in ("i", "we") or any(c.lower_ in ("my", "our") for c in who.children)
    said = _prefixes(t.lemma_ for t in said) & gap
    return mine and len(owners) > 1 and bool(other and said)


_CONTINUES = re.compile(r"^(?:then|next|after that|afterwards|finally)\b", re.I)


def answer_from_context(question: str, statements: list[Said]) -> str | None:
    """The statements that answer `question` (of those on the same subject, the newest), told
    back in the second person with their dates resolved; None when none does: a statement must
    name every person or thing the question names, share one of its nouns (or be as close in
    meaning), and hold the kind of answer the question word asks for (a person for "who", a
    place for "where", a date for "when", a number for "how many")."""
    if not statements:
        return None
    head, focus = _focus_head(question)
    vectors = embed([question, head or question, *(s.text for s in statements)])
    sims, head_sims = vectors[2:] @ vectors[0], vectors[2:] @ vectors[1]
    read = [f"{s.about} {s.text}" if s.first_person else s.text for s in statements]
    sims = np.maximum(sims, embed(read) @ vectors[0])  # a statement read with the one before it
    q_terms, names, nouns = content_terms(question), _names_in(question), _topic_nouns(question)
    wants, gap = _wants(question), _gap(question)
    asks_when = bool(re.match(r"^(?:when|what (?:day|date))\b", question.strip(), re.I))
    polar = _POLAR.match(question.strip())

    def fits(s: Said, update: bool = False) -> bool | None:
        """None when it cannot answer, else whether it names the kind of value asked; an update
        need not repeat the names but gives the value (a date, a number, the gap filled)."""
        low = f"{s.text} {s.about}".lower()  # a reply names what its question named
        if not update and any(not re.search(rf"\b{re.escape(n)}\b", low) for n in names):
            return None
        named = _prefixes(content_terms(s.text)) & gap
        said = named if polar else _fills(s.text, gap, q_terms) and (named or not update)
        if (gap or update) and not wants and not said or _someone_else(s.text, question, gap):
            return None
        dated = bool(wants) and _gives(_dated(s)[0] if "DATE" in wants else s.text, wants, question)
        late = asks_when and s.when is not None and not update
        return None if wants and not dated and not late else dated

    scored = []
    for k, s in enumerate(statements):
        terms, cos = content_terms(s.text), float(sims[k])
        overlap = len(q_terms & terms) / len(q_terms) if q_terms else 0.0
        hit = len(focus & terms) / len(focus) if focus else 0.0
        ok = (
            cos >= CONTEXT_THRESHOLD
            or (overlap >= OVERLAP_THRESHOLD and cos >= CONTEXT_OVERLAP_MIN_COSINE)
            or (hit >= 0.5 and cos >= CONTEXT_OVERLAP_MIN_COSINE)
        )
        if not ok or polar and nouns - terms:
            continue
        if nouns and not _prefixes(nouns) & _prefixes(terms) and cos < SAME_TOPIC_COSINE:
            continue
        if (dated := fits(s)) is None:
            continue
        score = cos + 0.3 * overlap + 0.4 * hit + (0.5 * float(head_sims[k]) if head else 0.0)
        scored.append((dated, score, k))
    if not scored:
        return None
    scored.sort(reverse=True)  # for "when", a statement naming a date before one that does not
    _, top, best = scored[0]
    same = [
        k
        for _, score, k in scored
        if score >= top - UPDATE_MARGIN
        and float(vectors[2 + k] @ vectors[2 + best]) >= SAME_SUBJECT_COSINE
    ]
    # The user's statements update, a document's steps do not: "now", the newest on the subject,
    # a later statement sharing a word with it included ("switched to route 9" after "route 42")
    if not any(t.tag_ == "VBD" for t in _doc(question)):
        told = _prefixes(content_terms(statements[best].text)) & _prefixes(q_terms - names)
        later = [(k, s) for k, s in enumerate(statements) if k > best and fits(s, True) is not None]
        same += [k for k, s in later if told & _prefixes(content_terms(s.text))]
        own = [k for k in same if statements[k].first_person]
        best = max(own, key=lambda k: statements[k].order) if own else best
    # A second statement on another subject, as close to the question, may hold the rest.
    more = [k for _, score, k in scored if score >= top - 0.1 and k not in same][:1]
    step = best + 1  # a document's next step ("Then click ...") continues the one chosen
    if not statements[best].first_person and step < len(statements):
        more += [step] if _CONTINUES.match(statements[step].text) else []
    reply = " ".join(_tell(statements[k], asks_when) for k in sorted({best, *more}))
    if polar:  # a yes/no question: what the newest statement on it says
        return ("No. " if _NEGATED.search(statements[best].text) else "Yes. ") + reply
    return reply


_PREFACE = re.compile(r"^[^:?]{1,60}:\s+(?=\S)")
_AND_ASK = re.compile(
    r"(?i),?\s+and\s+(?=(?:what|who|whom|whose|where|when|which|why|how|do|does|did|is|are|am|can|"
    r"will|has|have)\b)",
)
_PRONOUN = re.compile(r"\b(?:he|she|they|it|him|her|them|his|their|its)\b", re.I)


def _parts(question: str) -> list[str]:
    """Each thing a message asks, in order: its question sentences, split where "and" starts a
    new question ("What's my role and what's next?"), without a preface ("Before we wrap up:")."""
    parts = []
    for s in split_sentences(question):
        if _QUESTION.search(s):
            s = _PREFACE.sub("", s) if _QUESTION.search(_PREFACE.sub("", s)) else s
            parts.extend(p.strip() for p in _AND_ASK.split(s) if p.strip())
    return parts


def _answer_part(q: str, before: str, facts: list[Statement], statements: list[Said]) -> str:
    """One question answered: a profile slot from the facts, else from context statements, else
    "I don't know". A pronoun ("how old are they?") reads with the question `before` it."""
    asked = [p for p, _ in ask_about_all(q)]
    slots = [p for p in asked if p in PREDICATE_LABELS]
    # a profile slot, else any other slot the parse read ("favourite X"), over the whole history
    known = [r for r in (_answer_about_user(q, p, facts) for p in slots or asked) if r]
    if slots and len(known) == len(slots) or any(p in SINGLE_VALUED for p in slots):
        # A profile slot is read by the parse or not at all: a sentence merely like the question
        # ("I'd love to work at X") does not fill it.
        return (
            " ".join(known)
            or f"I don't know your {PREDICATE_LABELS[slots[0]]} yet - you haven't told me."
        )
    q = (
        re.sub(r"^\w+", q.strip(" ?"), before) if before and not content_terms(q) else q
    )  # "and when?"
    query = f"{before} {q}" if before and _PRONOUN.search(q) and not _names_in(q) else q
    found = answer_from_context(query, statements)
    if found and all(x in known for x in split_sentences(found)):  # the facts said it already
        found = None
    if found or known:
        return " ".join([*known, *([found] if found else [])])
    if slots:
        return f"I don't know your {PREDICATE_LABELS[slots[0]]} yet - you haven't told me."
    if any(t.lower_ == "why" and t.tag_ == "WRB" for t in _doc(q)):  # "Can you tell me why X?"
        return "I don't know why - nothing I have gives a reason."
    if _HOW_TO.search(q):  # general advice, the question told back as its topic
        asked = _to_you(q.strip().rstrip("?.! "))
        m = re.match(r"(?i)(what|how|which \w+) (?:do|does|(should|can|could|must)) you\b", asked)
        topic = f"{m[1]} you{' ' + m[2] if m[2] else ''}{asked[m.end() :]}" if m else "that"
        return f"{_capital(topic)} depends on details I don't have; in general, start small, check each step as you go, and compare the result with what you expect."
    if any(s.first_person for s in statements) or re.search(r"\b(?:i|my|me|mine)\b", q, re.I):
        return "I don't know - you haven't told me."
    return "I don't have information about that in my context."


_TELL_ME = re.compile(
    r"(?i)^(?:please\s+)?(?:remember|note|keep in mind|bear in mind|just so you know|fyi)(?:\s+that)?"
    r"[,:]?\s+",
)


def _saved_to_memory(after: Sequence[BaseMessage], done: str = "created|updated") -> bool:
    return any(
        m.type == "tool" and re.match(rf"(?:{done}) memory", message_text(m), re.I) for m in after
    )


_EXAMPLE_FIELD = re.compile(
    r"(?i)^\s*(?:[-*]\s*)?\**(?P<label>situation|task|problem|issue|context|approach|action|actions|"
    r"what (?:was tried|worked|we did)|solution|fix|steps|outcome|result|lesson|lessons|takeaway|"
    r"key takeaway|learned|learnt|next time|what to do next time)\**\s*:\s*(?P<text>.+)$",
)
_LESSON_LABELS = ("lesson", "takeaway", "learned", "learnt", "next time")
_APPROACH_LABELS = tuple(
    "approach|action|what was tried|what worked|what we did|solution|fix|steps".split("|")
)
_HOW_TO = re.compile(
    r"(?i)\b(?:how (?:do|should|can|could|would|to) (?:i|we)?|what (?:should|must|do|would) (?:i|we)|"
    r"what (?:to|needs to be) (?:check|do)|what do (?:i|we) (?:need|have) to|any (?:tips|advice)|"
    r"best way|what(?:'s| is) the (?:right|best) way|where (?:should|do) (?:i|we) start)\b",
)
EXAMPLE_MIN_COSINE = 0.3  # a worked example must be at least this close to the question


def worked_examples(text: str) -> list[dict[str, str]]:
    """Example blocks in a system prompt ("### Example 1" / blank-line separated groups of
    "Situation: / Approach: / Outcome: / Lesson:" lines) that carry a lesson-like line."""
    blocks, current = [], {}
    for line in text.splitlines() + [""]:
        m = _EXAMPLE_FIELD.match(line)
        if m:
            label = m.group("label").lower()
            kind = (
                "lesson"
                if label.startswith(_LESSON_LABELS) or label.endswith("next time")
                else "approach"
                if label.startswith(_APPROACH_LABELS)
                else "outcome"
                if label in ("outcome", "result")
                else "situation"
            )
            if kind in current:  # a second lesson line: a new example without a heading
                blocks.append(current)
                current = {}
            current[kind] = m.group("text").strip()
        elif not line.strip() or line.lstrip().startswith("#"):
            if current:
                blocks.append(current)
            current = {}
    return [b for b in blocks if b.get("lesson")]


def _apply_example(question: str, system: str) -> str | None:
    """For a how-to question, the lesson (and approach) of the closest worked example."""
    if not _HOW_TO.search(question):
        return None
    examples = worked_examples(system)
    if not examples:
        return None
    texts = [f"{e.get('situation', '')} {e['lesson']}" for e in examples]
    vectors = embed([question, *texts])
    sims = vectors[1:] @ vectors[0]
    k = int(np.argmax(sims))
    if float(sims[k]) < EXAMPLE_MIN_COSINE:
        return None
    best = examples[k]
    reply = _sentence(_capital(best["lesson"]))
    for done in map(_doc, split_sentences(best.get("approach", ""))):  # what was done, no subject
        root = next(t for t in done if t.dep_ == "ROOT")
        subject = any(c.dep_.startswith("nsubj") for c in root.children)
        if root.tag_ in ("VB", "VBD") and not subject:  # "Renewed it by hand", "Convert X"
            past = "VBD" in {root.tag_, *(c.tag_ for c in root.children if c.dep_ == "conj")}
            lead = "Last time you" if past else "What worked last time was to"
            return _sentence(f"{reply} {lead} {root.lower_}{done.text[root.idx + len(root) :]}")
    return reply


_BREVITY = re.compile(
    r"(?i)\b(?:be|keep (?:it|them|things|answers?|replies|responses|your (?:answers?|replies|responses))|"
    r"stay)\s+(?:very\s+)?(?:brief|concise|short|succinct|terse)\b"
    r"|\b(?:brief|concise|short|succinct|terse)\s+(?:answers?|replies|responses)\b"
    r"|\b(?:answer|reply|respond)\s+(?:very\s+)?(?:briefly|concisely|succinctly|tersely)\b",
)
_ABOUT_REPLIES = re.compile(r"\b(?:answers?|repl(?:y|ies)|respon(?:d|ses?)|keep|limit)\b", re.I)


def answer_limits(request: Request) -> tuple[int | None, int | None]:
    """(word limit, sentence limit) for an answer: what an instruction in the system prompt or
    the user's message says about length (parsed like a summary budget: "at most 20 words", "in
    one sentence"; "be brief" / "concise answers" mean one sentence), and a bound max_tokens."""
    words = sentences = None
    system = [s for s in split_sentences(request.system_text) if _is_length_instruction(s)]
    for sentence in [*system, *split_sentences(request.last_human)]:
        w, n = _length_limits(sentence)
        if n is None and _BREVITY.search(sentence):
            n = 1
        words = min(w, words) if w and words else w or words
        sentences = min(n, sentences) if n and sentences else n or sentences
    by_tokens = _token_words(request.kwargs)
    if by_tokens:
        words = min(words, by_tokens) if words else by_tokens
    return words, sentences


def _is_length_instruction(sentence: str) -> bool:
    """A system-prompt sentence that instructs ("Always answer in one sentence.", "Be brief."),
    not a note that happens to count words."""
    return bool(_INSTRUCTION_SENTENCE.match(sentence) or _ABOUT_REPLIES.search(sentence))


def _within(reply: str, words: int | None, sentences: int | None) -> str:
    """`reply` cut to its first `sentences` sentences and `words` words."""
    if sentences is not None:
        parts = split_sentences(reply)
        if len(parts) > sentences:
            reply = " ".join(parts[:sentences])
    if words is not None and _words(reply) > words:
        reply = _sentence(_cut(reply, words).rstrip(",;:-"))
    return reply


def answer(request: Request) -> str:
    """Reply to the last human message from the context given, within the length the prompt
    asks for (`answer_limits`); say so when the answer is not in the context."""
    return _within(_answer(request), *answer_limits(request))


def _answer(request: Request) -> str:
    i = request.last_human_index
    question = request.last_human.strip()
    if not question:
        return "I have no question to answer."
    messages = request.messages
    parts = _parts(question)
    if parts:
        applied = _apply_example(question, request.system_text)
        if applied:
            return applied
        facts, statements = user_facts(messages), context_statements(messages, skip=i)
        replies = [
            _answer_part(q, parts[k - 1] if k else "", facts, statements)
            for k, q in enumerate(parts)
        ]
        return " ".join(dict.fromkeys(replies))
    if FORGET.search(question):
        if _saved_to_memory(messages[i + 1 :], "deleted"):
            return "I've deleted that from memory."
        return "I'll treat that as no longer true."
    names = [f.value for f in extract_facts(question, True) if f.predicate == "name"]
    told = [t for t in map(_told_back, split_sentences(question)) if t]
    named = names and not any(names[-1] in t for t in told)  # else the sentence told says it
    parts = [f"Nice to meet you, {names[-1]}!" if named else "Nice to meet you!"] if names else []
    parts += told
    parts += ["I've saved that to memory."] if _saved_to_memory(messages[i + 1 :]) else []
    if parts:
        return " ".join(parts)
    if _GREETING.match(question):
        return "Hello! How can I help?"
    return "You're welcome." if _THANKS.match(question) else "Noted."


def _told_back(sentence: str) -> str | None:
    """What a statement says, told back ("We moved X" -> "You moved X"), a request taken on
    ("Please use X" -> "I'll use X"); None for a name alone (greeted) or words without a noun."""
    doc = _doc(_TELL_ME.sub("", _LEADING_COURTESY.sub("", sentence)).strip(" .!"))
    if len(doc) > 2 and doc[1].text == "," and doc[0].dep_ in ("intj", "advcl"):
        doc = doc[2:].as_doc()  # "Noted, I'll ..."
    subject = next((t.lower_ for t in doc if t.dep_ in ("nsubj", "nsubjpass", "expl")), "that")
    facts, nouns = extract_facts(doc.text, True), {t.pos_ for t in doc} & {"NOUN", "PROPN", "NUM"}
    if facts and all(f.predicate == "name" for f in facts) or not nouns:
        return None
    if asked := _request(doc.text):
        return f"I'll {asked}."
    return None if subject in ("that", "this") else _sentence(_capital(_to_you(doc.text)))


def _request(text: str) -> str | None:
    """The verb phrase of a request without a subject ("Please run X" -> "run X"), else None."""
    doc = _doc(text)
    root = next(t for t in doc if t.dep_ == "ROOT")
    subject = any(c.dep_.startswith("nsubj") for c in root.children)
    if subject or root.tag_ != "VB" or root.lemma_ == "let":
        return None
    return root.lower_ + doc[root.i :].text[len(root.text) :]


# --------------------------------------------------------------------------------------------

SKILLS = {"grade": grade_skill, "summarize": summarize, "answer": answer}
