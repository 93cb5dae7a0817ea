"""Tool calling and structured output for OfflineChatModel, by rules.

Provides `plan_tool_calls(messages, tools, tool_choice)`: the tool calls the offline model makes,
or None to reply in text. It reads the conversation (plain chat messages, or the transcript that
LangMem and trustcall embed in their prompts), extracts facts with offline_model/rules.py, and
fills each tool's JSON schema field by field from what the field's name and description ask for.
Protocols it follows: trustcall's PatchDoc / RemoveDoc / PatchFunctionErrors
(update, delete and validation repair), LangMem's Done, manage_memory and search_memory, and the
prompt optimizers' think / critique / recommend / OptimizedPromptOutput tools.

Leaves out: anything a rule does not cover. Fields with no value in the conversation are omitted
(or, when required, given the schema default or an empty value of the right type); it never
invents names, numbers or facts.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
from langchain_core.messages import BaseMessage

from offline_model.parse import _PLACE_VERBS, _WORK_VERBS, corrected, kin_names, open_statements
from offline_model.rules import (
    FORGET,
    PREDICATE_PHRASES,
    PREDICATE_VERBS,
    Statement,
    ask_about,
    ask_about_all,
    content_terms,
    entities,
    extract_facts,
    split_sentences,
    to_third_person,
)
from offline_model.rules import QUESTION as _QUESTION
from offline_model.skills import (
    _MONTHS,
    _RELATIVE,
    Request,
    _day,
    _past_at,
    _session_date,
    grading_inputs,
    summarize,
)
from offline_model.skills import _resolve as _resolve_date
from offline_model.text import SINGLE_VALUED, embed, flatten_json, message_text

# Predicates a person can hold several values of; every other "my X is Y" holds one.
MULTI_VALUED = ("preference", "dislike", "expertise", "project", "learning", "uses", "speaks")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
DATE = re.compile(
    r"(?i)\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:\s+\d{{4}})?"
    rf"|(?:next|last|this|on)\s+(?:{_WEEKDAY}|week|month|year)|{_WEEKDAY}|tomorrow|today|yesterday|tonight)\b",
)
NUMBER = re.compile(r"(?<![\w.])[$€£]?\d[\d,]*(?:\.\d+)?%?(?![\w.])")
MAX_SEARCH_CALLS = 4

# --------------------------------------------------------------------------------------------
# Reading the conversation.

_UUIDISH = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.I)
_BLOCK = re.compile(
    r"(?s)<(?P<tag>(?:session_[\w-]+|convo|conversation|trajectory|trajectories|messages|chat)(?: \d+)?)>\s*(?P<body>.*?)\s*</(?P=tag)>",
)
_TITLE = re.compile(r"^=+ (?P<kind>Human|Ai|System|Tool|Function|Chat|Remove) Message =+\s*$", re.M)
_FEEDBACK = re.compile(r"<feedback(?: \d+)?>\s*(?P<body>.*?)\s*</feedback(?: \d+)?>", re.S | re.I)
_TAGGED = re.compile(
    r"(?s)<(?P<tag>current_prompt|recommendations|hypotheses|update_instructions)>\s*(?P<body>.*?)\s*</(?P=tag)>",
)
_INSTANCE = re.compile(
    r"(?s)<instance id=(?P<id>[^\s>]+) schema_type=\"(?P<kind>[^\"]+)\">\n(?P<body>.*?)\n</instance>",
)
_SCHEMA_INSTANCE = re.compile(
    r"(?s)<schema id=(?P<kind>[^>]+)>\n<instance>\n(?P<body>.*?)\n</instance>"
)
_REMEMBER = re.compile(
    r"(?i)\b(?:please\s+)?(?:remember|note|keep in mind|don't forget|do not forget|save)\s+(?:that\s+)?(?P<value>[^.!?\n]{3,200})",
)


@dataclass
class Turn:
    speaker: str  # user | assistant | system | tool
    text: str


def _parse_transcript(body: str) -> list[Turn]:
    if not (marks := list(_TITLE.finditer(body))):
        return [Turn("user", body)]
    turns = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
        text = body[m.end() : end].strip()
        text = re.split(r"\n\s*Tool Calls:\n", text)[0].strip()
        speaker = {"Human": "user", "Ai": "assistant"}.get(m["kind"], m["kind"].lower())
        turns.append(Turn(speaker, text))
    return turns


@dataclass
class Record:
    id: str
    kind: str
    value: dict

    @property
    def text(self) -> str:
        return _record_text(self.value)


def _record_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if set(value) == {"content"}:
            return _record_text(value["content"])
        return "\n".join(
            f"{k}: {_record_text(v)}" for k, v in value.items() if v not in (None, "", [])
        )
    return ", ".join(_record_text(v) for v in value) if isinstance(value, list) else str(value)


def _parse_value(body: str) -> dict:
    for parse in (ast.literal_eval, json.loads):
        try:
            value = parse(body.strip())
            return value if isinstance(value, dict) else {"content": value}
        except (ValueError, SyntaxError, TypeError):
            continue
    return {"content": body.strip()}


_FEEDBACK_KEYS = tuple(
    """feedback comment comments text critique note notes message reason explanation correction
    suggestion instruction instructions""".split()
)


def feedback_text(body: str) -> tuple[str, list[float]]:
    """Feedback as LangMem passes it (formatted with str()): a plain string stays as it is; a
    dict or list literal ({'feedback': '...', 'score': 0}) gives its text values (joined) and its
    numbers (scores, booleans as 0/1)."""
    body = body.strip()
    if body[:1] not in ("{", "["):
        return body, []
    value = None
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(body)
            break
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    if not isinstance(value, dict | list):
        return body, []
    texts: list[str] = []
    scores: list[float] = []

    def walk(node: Any, key: str = "") -> None:
        if isinstance(node, dict):
            named = [k for k in node if str(k).lower() in _FEEDBACK_KEYS]
            for k in named or list(node):
                walk(node[k], str(k).lower())
            for k in node if named else []:
                if k not in named and isinstance(node[k], int | float):
                    walk(node[k], str(k).lower())
        elif isinstance(node, list | tuple):
            for item in node:
                walk(item, key)
        elif isinstance(node, bool | int | float):
            scores.append(float(node))
        elif isinstance(node, str) and node.strip():
            # a lone word under an unnamed key ("user": "ana") is an id, not feedback
            if key in _FEEDBACK_KEYS or len(node.split()) > 1:
                texts.append(node.strip())

    walk(value)
    return " ".join(t if t[-1:] in ".!?" else t + "." for t in texts), scores


@dataclass
class Context:
    """What the rules read from a request."""

    messages: list[BaseMessage]
    turns: list[Turn] = field(default_factory=list)
    instructions: str = ""
    existing: list[Record] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)  # numbers given as feedback ({"score": 0})
    tagged: dict[str, str] = field(default_factory=dict)
    transcript: bool = False  # the conversation came embedded in a prompt (LangMem, trustcall)

    @property
    def user_texts(self) -> list[str]:
        return [t.text for t in self.turns if t.speaker == "user"]

    @property
    def last_user(self) -> str:
        texts = self.user_texts
        return texts[-1] if texts else ""

    @property
    def facts(self) -> list[Statement]:
        """Facts the user stated, oldest first (later statements win)."""
        return [f for text in self.user_texts for f in extract_facts(text, True)]

    @property
    def memory_facts(self) -> list[Statement]:
        out: list[Statement] = []
        for t in self.turns:
            if t.speaker in ("tool", "system"):
                out.extend(f for f in extract_facts(t.text, False) if f.subject == "user")
        return out

    def after_last_user(self) -> list[BaseMessage]:
        """The messages after the last human one (all of them when there is none)."""
        return self.messages[Request(self.messages).last_human_index + 1 :]


def read_context(messages: Sequence[BaseMessage]) -> Context:
    """Turns, instructions, existing records and feedback found in the messages."""
    ctx = Context(list(messages))
    instructions = []
    for m in messages:
        text = message_text(m)
        for inst in _INSTANCE.finditer(text):
            ctx.existing.append(Record(inst["id"], inst["kind"], _parse_value(inst["body"])))
        for inst in _SCHEMA_INSTANCE.finditer(text):
            ctx.existing.append(Record(inst["kind"], inst["kind"], _parse_value(inst["body"])))
        for f in _FEEDBACK.finditer(text):
            said, scores = feedback_text(f["body"])
            ctx.feedback += [said] if said else []
            ctx.scores += scores
        for t in _TAGGED.finditer(text):
            ctx.tagged.setdefault(t["tag"], t["body"])
        if blocks := list(_BLOCK.finditer(text)):
            ctx.transcript = True
            for b in blocks:
                ctx.turns += _parse_transcript(_FEEDBACK.sub("", b["body"]))
            instructions.append(_BLOCK.sub("", text))
            continue
        speaker = {"human": "user", "ai": "assistant", "tool": "tool"}.get(m.type, "system")
        ctx.turns.append(Turn(speaker, flatten_json(text) if speaker == "tool" else text))
        if speaker == "system":
            instructions.append(text)
    ctx.instructions = "\n".join(instructions)
    return ctx


# --------------------------------------------------------------------------------------------
# Tools as the model sees them.


@dataclass
class ToolSpec:
    name: str
    description: str
    parameters: dict

    @property
    def properties(self) -> dict:
        return self.parameters.get("properties", {}) or {}


def tool_specs(tools: Sequence[dict]) -> list[ToolSpec]:
    fns = [t.get("function", t) for t in tools or []]
    return [ToolSpec(f["name"], f.get("description") or "", f.get("parameters") or {}) for f in fns]


def chosen_name(tool_choice: Any) -> str | None:
    """The tool a tool_choice forces by name, if any."""
    if isinstance(tool_choice, dict):
        fn = tool_choice.get("function")
        return fn.get("name") if isinstance(fn, dict) else tool_choice.get("name")
    if isinstance(tool_choice, str) and tool_choice not in ("auto", "none", "any", "required"):
        return tool_choice
    return None


def _kind(tool: ToolSpec) -> str:
    text = f"{tool.name} {tool.description[:200]}".lower()
    props = set(tool.properties)
    memory = "memor" in text
    if memory and (
        {"action", "content"} <= props
        or re.search(
            r"manage|save|store|remember|upsert|write|create|record|add", tool.name.lower()
        )
    ):
        return "memory_write"
    if memory and re.search(r"search|recall|retriev|lookup|find|query|get", text):
        return "memory_search"
    if re.search(
        r"search|retriev|lookup|knowledge|docs|documents|corpus", text
    ) and "query" in "".join(props):
        return "kb_search"
    return "other"


# --------------------------------------------------------------------------------------------
# Filling a JSON schema from the conversation.

# (concept, pattern over the field name, pattern over its description); first match wins.
FIELD_CONCEPTS: list[tuple[str, re.Pattern, re.Pattern | None]] = [
    (c, re.compile(n, re.I), re.compile(d, re.I) if d else None)
    for c, n, d in [
        ("relevance", r"^(?:is_?)?relevan(?:t|ce)$|^binary_score$|^is_useful$|^grade$", r"relevan"),
        ("subject", r"^subject$", None),
        ("predicate", r"^(?:predicate|relation|relationship|verb)$", None),
        ("object", r"^(?:object|obj)$", None),
        ("situation", r"situation|^context$|^task$|^problem$|observation", None),
        ("approach", r"approach|^action|strategy|^method|^steps$|^thoughts?$", None),
        ("outcome", r"outcome|^result", None),
        ("lesson", r"lesson|takeaway|insight", None),
        ("name", r"^(?:user_?|full_?|first_?|preferred_?)?name$|^username$", r"\bname\b"),
        (
            "employer",
            r"employer|company|organi[sz]ation|^org$|workplace|works_at",
            r"employer|company|organi[sz]ation",
        ),
        (
            "role",
            r"^(?:job_?)?(?:role|occupation|position|job)$|^job_title$",
            r"\b(?:role|job|occupation)\b",
        ),
        (
            "location",
            r"location|city|country|^home|residence|lives_in|based_in|hometown",
            r"\b(?:location|city|lives)\b",
        ),
        ("dislike", r"dislike|avoid", None),
        ("preference", r"preferen|^likes$|interests|favou?rite|hobbies", r"preferen|likes"),
        ("expertise", r"expertise|skills?$|speciali|competenc", r"expertise|skills"),
        ("project", r"project|working_on", None),
        ("age", r"^age$", None),
        ("summary", r"summary|abstract|tl_?dr", None),
        ("title", r"^(?:title|headline|heading|subject_line)$", None),
        ("keywords", r"keywords|tags|entities|key_terms", None),
        ("topic", r"^(?:topic|category|kind|type|subject_area|tag)$", None),
        ("query", r"^(?:search_)?quer(?:y|ies)$|^question$", None),
        ("confidence", r"confidence|certainty|probability", None),
        ("date", r"date|^when$|^day$|deadline|due|birthday|^time$|scheduled", r"\bdate\b|\bwhen\b"),
        ("number", r"amount|count|number|quantity|budget|price|cost|total|size|how_many|^n_", None),
        (
            "reasoning",
            r"reason|analysis|rationale|logic|explanation|thought|critique|criticism|planned_edits|hypothes",
            None,
        ),
        (
            "content",
            r"content|memory|^fact|note|^text$|statement|information|details?$|value$",
            r"memory|fact",
        ),
    ]
]
_PROFILE = frozenset("name employer role location preference dislike expertise project age".split())
_EPISODE = {"situation", "approach", "outcome", "lesson"}
_PER_FACT = {"content", "subject", "predicate", "object"}


def concept(name: str, spec: dict) -> str | None:
    """The concept a schema field asks for, from its name, else its description."""
    for c, by_name, _ in FIELD_CONCEPTS:
        if by_name.search(name):
            return c
    desc = spec.get("description", "")
    for c, _, by_desc in FIELD_CONCEPTS:
        if by_desc and desc and by_desc.search(desc):
            return c
    return None


def _ref_target(root: dict, ref: str) -> Any:
    """What a local $ref ("#/$defs/X") points at, or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for part in ref[2:].split("/"):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _resolve(spec: Any, root: dict, seen: int = 0) -> dict:
    """A property schema with $ref followed, an anyOf / oneOf reduced to its first non-null
    branch and a single allOf merged in."""
    if not isinstance(spec, dict) or seen > 20:
        return {}
    if isinstance(spec.get("$ref"), str):
        target = _ref_target(root, spec["$ref"])
        rest = {k: v for k, v in spec.items() if k != "$ref"}
        return _resolve({**(target if isinstance(target, dict) else {}), **rest}, root, seen + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        options = [
            o for o in spec.get(key) or [] if isinstance(o, dict) and o.get("type") != "null"
        ]
        if options and (key != "allOf" or len(options) == 1):
            rest = {k: v for k, v in spec.items() if k != key}
            return _resolve({**options[0], **rest}, root, seen + 1)
    return spec


def _nullable(spec: Any, root: dict) -> bool:
    """Whether `spec` accepts null (`"type": ["string", "null"]`, an anyOf / oneOf null branch,
    or None among its enum values)."""
    if not isinstance(spec, dict):
        return False
    if isinstance(spec.get("$ref"), str):
        return _nullable(_ref_target(root, spec["$ref"]) or {}, root)
    kind = spec.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in (spec.get("enum") or []):
        return True
    return any(_nullable(o, root) for key in ("anyOf", "oneOf") for o in spec.get(key) or [])


def _latest(facts: list[Statement], predicate: str) -> Statement | None:
    found = [f for f in facts if f.predicate == predicate]
    return found[-1] if found else None


def _all(facts: list[Statement], predicate: str) -> list[str]:
    values = [f.value for f in facts if f.predicate == predicate]
    if predicate == "preference":
        values += [
            f"{f.value} ({f.predicate})" for f in facts if f.predicate.startswith("favourite ")
        ]
    return list(dict.fromkeys(values))


def statement_sentence(f: Statement) -> str:
    """The third-person sentence a parsed fact is written as (memlib's fact_text reads one back)."""
    return f.as_text() + "."


def _coerce(value: Any, spec: dict, root: dict) -> Any:
    """`value` in the JSON type `spec` asks for, or None when it cannot be."""
    spec = _resolve(spec, root)
    kind = spec.get("type")
    if value is None:
        return None
    if "enum" in spec:
        return _closest_enum(value, spec["enum"])
    if "const" in spec:
        return spec["const"]
    if kind == "array":
        items = value if isinstance(value, list) else [value]
        coerced = [_coerce(v, spec.get("items", {}), root) for v in items]
        return [v for v in coerced if v is not None]
    if isinstance(value, list):
        value = "; ".join(str(v) for v in value) if value else None
        if value is None:
            return None
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        return str(value).strip().lower() in ("yes", "true", "1", "relevant")
    if kind in ("integer", "number"):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value) if kind == "integer" else float(value)
        m = re.search(r"-?\d+(?:\.\d+)?", re.sub(r"(?<=\d),(?=\d{3})", "", str(value)))
        if not m:
            return None
        return int(float(m.group())) if kind == "integer" else float(m.group())
    if kind == "object":
        return value if isinstance(value, dict) else None
    text = str(value)
    if "maxLength" in spec:
        text = text[: spec["maxLength"]]
    return text


def _closest_enum(value: Any, choices: list) -> Any:
    if value in choices:
        return value
    text = str(value).lower()
    for c in choices:
        if str(c).lower() == text:
            return c
    if isinstance(value, bool) or text in ("yes", "no", "true", "false"):
        positive = value is True or text in ("yes", "true")
        for c in choices:
            neg = re.match(r"^(?:no|not|non|ir|un|false)", str(c), re.I)
            if positive != bool(neg):
                return c
    terms = content_terms(text)
    scored = sorted(choices, key=lambda c: -len(terms & content_terms(str(c))))
    return scored[0] if scored and terms & content_terms(str(scored[0])) else None


def empty_value(spec: dict, root: dict) -> Any:
    spec = _resolve(spec, root)
    if "default" in spec:
        return spec["default"]
    if "enum" in spec:
        return spec["enum"][0]
    empty = {"string": "", "integer": 0, "number": 0.0, "boolean": False, "array": [], "object": {}}
    return empty.get(spec.get("type"), "")


@dataclass
class Filler:
    """Values for schema concepts, computed once per request."""

    ctx: Context
    grade: Any = None  # callable (query, doc) -> bool, injected by the model

    def __post_init__(self):
        self.facts = self.ctx.facts or self.ctx.memory_facts

    def value(self, c: str, fact: Statement | None = None) -> Any:
        facts = self.facts
        if fact is not None:
            if c == "content":
                return statement_sentence(fact)
            if c == "subject":
                name = _latest(facts, "name")
                return name.value if name and fact.predicate != "name" else "User"
            if c == "predicate":
                return PREDICATE_VERBS.get(fact.predicate, fact.predicate)
            if c == "object":
                return fact.value
            if c == "topic":
                return fact.predicate
            if c == "confidence":
                return None  # nothing computes one: leave it out rather than claim 1.0
            if c == "reasoning":
                return f"Stated by the user: {fact.source.strip()}"
            if c == "situation":
                return fact.source.strip()  # a fact's context: the sentence that stated it
            if c in _PROFILE:
                matches = c == fact.predicate or (
                    c == "preference" and fact.predicate.startswith("favourite ")
                )
                return fact.value if matches else None
        if c in SINGLE_VALUED:
            f = _latest(facts, c)
            return f.value if f else None
        if c in ("preference", "dislike", "expertise", "project"):
            return _all(facts, c) or None
        if c in _EPISODE:
            return episode(self.ctx).get(c)
        if c == "summary":
            return conversation_summary(self.ctx)
        if c == "title":
            return conversation_title(self.ctx)
        if c == "keywords":
            return entities(" ".join(self.ctx.user_texts)) or None
        if c == "query":
            return search_query(self.ctx)
        if c == "relevance":
            verdict = self._graded()
            return verdict[0] if verdict else None
        if c == "content":
            notes = memory_notes(self.ctx)
            return " ".join(notes) if notes else None
        if c == "reasoning":
            if verdict := self._graded():
                return verdict[1]
            return "Filled by rules from the conversation (memlib.extraction)."
        return None

    def mention(self, c: str, field_name: str, fact: Statement | None = None) -> str | None:
        """A date or number the user stated: in the fact's sentence, else in the latest user
        sentence that names the field ("deadline"), else (dates only) the latest date at all."""
        pattern = DATE if c == "date" else NUMBER
        if fact is not None:
            m = pattern.search(fact.source)
            return m.group(0) if m else None
        words = content_terms(field_name.replace("_", " ")) - {"date", "number", "amount"}
        sentences = [x for t in reversed(self.ctx.user_texts) for x in reversed(split_sentences(t))]
        for sentence in sentences:
            if words & content_terms(sentence):
                if found := _nearest(pattern, sentence, words):
                    return found
        if c == "date":
            for sentence in sentences:
                if m := pattern.search(sentence):
                    return m.group(0)
        return None

    def _closest_option(self, spec: dict) -> Any:
        """A required choice nothing states: the option closest in meaning to the latest user
        message (MiniLM cosine of the option's words); a weak guess, better than always the first."""
        options = [o for o in spec["enum"] if isinstance(o, str)]
        last = self.ctx.last_user.strip()
        if not options or not last:
            return spec.get("default", spec["enum"][0])
        vectors = embed([last, *(o.replace("_", " ") for o in options)])
        return options[int((vectors[1:] @ vectors[0]).argmax())]

    def _graded(self) -> tuple[bool, str] | None:
        """(relevant, reason) when the request holds a query and a document to grade."""
        if not hasattr(self, "_grade_cache"):
            pair = grading_pair(self.ctx)
            self._grade_cache = self.grade(*pair) if pair and self.grade else None
        return self._grade_cache

    def fill(self, schema: dict, fact: Statement | None = None, root: dict | None = None) -> dict:
        root = root or schema
        schema = _resolve(schema, root)
        out: dict = {}
        required = set(schema.get("required", []))
        for name, raw in (schema.get("properties") or {}).items():
            spec = _resolve(raw, root)
            c = concept(name, spec)
            value = None
            if spec.get("type") == "object" and spec.get("properties"):
                value = self.fill(spec, fact, root) or None
            elif spec.get("type") == "array" and _resolve(spec.get("items", {}), root).get(
                "properties"
            ):
                item_schema = _resolve(spec["items"], root)
                items = [self.fill(item_schema, f, root) for f in per_fact_facts(self.ctx)]
                value = [i for i in items if i] or None
            elif c in ("date", "number") or (
                c is None and spec.get("type") in ("integer", "number")
            ):
                value = _coerce(self.mention(c or "number", name, fact), spec, root)
            elif c:
                value = _coerce(self.value(c, fact), spec, root)
            if value in (None, "", []) and name in required:
                if _nullable(raw, root):
                    value = None  # the schema allows "unknown": say so rather than guess
                elif "enum" in spec:
                    value = self._closest_option(spec)
                else:
                    value = empty_value(spec, root)
            if value not in (None, "", []) or name in required:
                out[name] = value
        return out


def _nearest(pattern: re.Pattern, sentence: str, words: set[str]) -> str | None:
    """The match of `pattern` closest to (preferably after) a mention of one of `words`; numbers
    inside dates do not count."""
    dates = [m.span() for m in DATE.finditer(sentence)] if pattern is NUMBER else []
    spots = [
        m.start()
        for m in re.finditer(r"[A-Za-z][\w'-]*", sentence)
        if content_terms(m.group()) & words
    ]
    best, best_d = None, None
    for m in pattern.finditer(sentence):
        if any(a <= m.start() < b for a, b in dates):
            continue
        for p in spots:
            d = m.start() - p if m.start() >= p else 1000 + p - m.start()
            if best_d is None or d < best_d:
                best, best_d = m.group(0), d
    return best


def per_fact_facts(ctx: Context) -> list[Statement]:
    """The facts worth a record each: the newest value per single-valued predicate, every other."""
    facts = ctx.facts
    latest: dict[str, Statement] = {}
    for f in facts:
        key = f.predicate if f.predicate in SINGLE_VALUED else f"{f.predicate}:{f.value.lower()}"
        latest.pop(key, None)
        latest[key] = f
    return list(latest.values())


# The words a slot reader's fact is told with: a clause with nothing more is the slot fact.
_VERBS = [f"{v} {v}s {v.rstrip('e')}ed {v.rstrip('e')}ing" for v in _PLACE_VERBS | _WORK_VERBS]
_SLOT_WORDS = content_terms(
    " ".join([*PREDICATE_PHRASES.values(), "user named called job", *_VERBS])
)
_RANGE = re.compile(rf"(?i)\b(?:({_MONTH}) (\d\d?)|(\d\d?)) ?[-\u2013] ?(\d\d?)\b(?(3) ({_MONTH}))")
_MONTH_NAMED = re.compile(rf"\b(?:in|by|until|from|for|next|this) ({_MONTH})(?!\s*\d)", re.I)


def _with_dates(text: str, when) -> str:
    """`text` with the dates its relative expressions name, counted from `when` (the session's
    date); a statement about days still to come says it is scheduled."""
    said = _RANGE.sub(  # "May 2-4", "2-4 May": two days
        lambda m: f"{m[1]} {m[2]} to {m[1]} {m[4]}" if m[1] else f"{m[3]} {m[5]} to {m[4]} {m[5]}",
        text,
    )
    found = [m for m in _RELATIVE.finditer(said) if not said[: m.start()].endswith("every ")]
    days = [_resolve_date(m, said, when) for m in found] if when else []
    if days:
        shown = ", ".join(dict.fromkeys(_day(d) for d in days))
        return f"{text} ({'scheduled for ' if min(days) > when else ''}{shown})"
    m = _MONTH_NAMED.search(text) if when else None  # "a race in October", said in May
    month = _MONTHS.index(m[1][:3].lower()) + 1 if m else 0
    if month and month != when.month and not _past_at(text, m.start(1)):
        return f"{text} (scheduled for {m[1]} {when.year + (month < when.month)})"
    return text


def open_facts(ctx: Context, patching: bool = False) -> list[Statement]:
    """A memory for what each user message says about the user's own (parse.open_statements),
    dates resolved from the session's; then the slot facts no memory holds (a form), or, when
    `patching`, every one (a stored "User works at Acme" takes a new employer in place)."""
    known: dict[str, str] = {}
    for r in ctx.existing:
        kin_names(r.text, known)
    dates = (_session_date(t.text) for t in ctx.turns if t.speaker == "system")
    when = next(filter(None, dates), None)
    out = []
    for text in ctx.user_texts:  # what one message says is one memory, unless the slot
        said, more = [], False  # readers hold all of it ("I'm Ann, I work at Acme.")
        for sentence in split_sentences(corrected(text)):
            slots = content_terms(" ".join(f.value for f in extract_facts(sentence)))
            for clause in open_statements(sentence, known):
                said.append(clause)
                more |= not slots or not content_terms(clause) - _SLOT_WORDS - _WHEN <= slots
        if more:
            out.append(Statement("user", "said", _with_dates("; ".join(said), when), text))
    held = " ".join(f.value for f in out).lower()
    return out + [f for f in per_fact_facts(ctx) if patching or f.value.lower() not in held]


def _is_open(tool: ToolSpec) -> bool:
    """A schema holding free-text memories (LangMem's Memory(content), manage_memory)."""
    concepts = {concept(n, _resolve(s, tool.parameters)) for n, s in tool.properties.items()}
    return "content" in concepts and not concepts & (_PROFILE | {"subject", "predicate"})


def memory_notes(ctx: Context) -> list[str]:
    """Standalone notes: one per fact, plus "remember that ..." requests the rules did not parse."""
    notes = [statement_sentence(f) for f in per_fact_facts(ctx)]
    covered = " ".join(notes).lower()
    for text in ctx.user_texts:
        for m in _REMEMBER.finditer(text):
            note = to_third_person(m["value"].strip())
            if not content_terms(note) <= content_terms(covered):
                notes.append(note.rstrip(".") + ".")
    return notes


def search_query(ctx: Context) -> str | None:
    for text in reversed(ctx.user_texts):
        if asked := [s for s in split_sentences(text) if _QUESTION.search(s)]:
            return asked[-1]
        if text.strip():
            return text.strip()[:300]
    return None


def grading_pair(ctx: Context) -> tuple[str, str] | None:
    return grading_inputs(Request(ctx.messages))


def conversation_title(ctx: Context) -> str | None:
    """A short title: the salient names and terms of the user's first request."""
    if not (texts := [t.text for t in ctx.turns if t.speaker == "user" and t.text.strip()]):
        return None
    sentences = split_sentences(texts[0])
    first = [s for s in sentences if not _is_introduction(s)] or sentences
    names = entities(first[0])[:3]
    terms = [
        w for w in re.findall(r"[A-Za-z][\w'-]+", first[0]) if content_terms(w) and w not in names
    ]
    words = (names + terms)[:6]
    return " ".join(w[:1].upper() + w[1:] for w in words) or None


def conversation_summary(ctx: Context, budget: int = 40) -> str | None:
    from langchain_core.messages import AIMessage, HumanMessage

    msgs = [
        HumanMessage(t.text) if t.speaker == "user" else AIMessage(t.text)
        for t in ctx.turns
        if t.speaker in ("user", "assistant") and t.text.strip()
    ]
    if not msgs:
        return None
    return summarize(
        Request(msgs + [HumanMessage(f"Summarize the above in at most {budget} words.")])
    )


_POSITIVE = re.compile(
    r"(?i)\b(?:thanks|thank you|worked|works now|now works|that was it|that fixed|fixed|resolved|solved|sorted|matches|perfect|great|helpful|exactly|much better)\b",
)
_NEGATIVE = re.compile(
    r"(?i)\b(?:didn't work|did not work|doesn't work|does not work|not helpful|too vague|wrong|still (?:fails|broken|failing)|no luck|useless|not what i)\b",
)
_METHOD = re.compile(
    r"(?i)\b(?:use|used|using|try|tried|suggest|suggested|recommend|recommended|check|checked|run|ran|search|searched|set|add|added|switch|switched|install|enable|increase|decrease|call|called|convert|converted|extract|extracted|compare|group|split|replace|rewrite|look)\b",
)
_ACTION = re.compile(
    r"(?i)^(?:(?:let's|let us|please|you (?:should|could|can)|try to|i'd|we should)\s+)?(?=(?:use|try|check|run|"
    r"search|set|add|switch|install|enable|disable|increase|decrease|call|convert|extract|compare|"
    r"group|split|replace|rewrite|inspect|open|delete|remove|drop|rename|restart|retry|rerun|sort|"
    r"parse|re-?read|filter|move|keep|measure|test|verify|change|update|upgrade|pin|clear|vacuum|"
    r"normali[sz]e|round|cast|pass|fix|wrap|cache|index|partition|limit|raise|lower|reduce)\b)",
)
_TIME_CUES = r"next time|in (?:the )?future|going forward|from now on|in general|as a rule"
# Advice for later: the time cues, plus "for any/all ..." scopes and "lesson".
_LESSON_CUE = re.compile(
    rf"(?i)^(?:{_TIME_CUES}|for (?:future|next time|any|all)\b[^,]*|lesson)\s*,?\s*"
)
_TIME_CUE = re.compile(rf"^(?:{_TIME_CUES})\s*,?\s*", re.I)


def _is_introduction(sentence: str) -> bool:
    facts = extract_facts(sentence, True)
    return (
        bool(facts)
        and all(f.predicate in SINGLE_VALUED for f in facts)
        and len(sentence.split()) <= 12
    )


def _sentences(turn: Turn) -> list[str]:
    return split_sentences(turn.text)


def _first_words(text: str, n: int) -> str:
    words = text.split()
    return " ".join(words[:n]) + ("..." if len(words) > n else "")


def episode(ctx: Context) -> dict:
    """Situation / approach / outcome / lesson from an exchange, by rules over its turns:
    situation = the user's opening request; approach = the assistant's action sentences in the turn
    before the user's last verdict; outcome = that verdict (worked / did not work); lesson = the
    assistant's explicit advice ("Next time, ...") or else what worked for which request."""
    turns = [t for t in ctx.turns if t.speaker in ("user", "assistant") and t.text.strip()]
    if not (users := [i for i, t in enumerate(turns) if t.speaker == "user"]):
        return {}
    opening = _sentences(turns[users[0]])
    # Skip a bare self-introduction ("I'm Kai from Oslo.") before the actual request.
    task = [t for t in opening if not _is_introduction(t)] or opening
    situation = to_third_person(" ".join(task[:2]))
    if not situation.lower().startswith("user"):
        situation = "User said: " + situation
    situation = _first_words(situation, 45)
    verdict_at = next(
        (
            i
            for i in reversed(users[1:])
            if _POSITIVE.search(turns[i].text) or _NEGATIVE.search(turns[i].text)
        ),
        users[-1] if len(users) > 1 else None,
    )
    approach_parts = _approach_parts(ctx, turns, users, verdict_at)
    outcome, verdict = _outcome(turns, verdict_at)
    out = {
        "situation": situation,
        "approach": " ".join(approach_parts),
        "outcome": outcome,
        "lesson": _lesson(turns, task, approach_parts, verdict),
    }
    return {k: v for k, v in out.items() if v}


def _turn_actions(turn: Turn) -> list[str]:
    """What an assistant turn did: its action sentences, else its method, else its first."""
    out = [s for s in _sentences(turn) if not _QUESTION.search(s) and not _LESSON_CUE.match(s)]
    # What to do ("Convert the Lyon readings ...") before the diagnosis ("... look like F").
    doing = [_ACTION.sub("", s) for s in out if _ACTION.match(s)]
    doing = [d[:1].upper() + d[1:] for d in doing]
    return doing or [s for s in out if _METHOD.search(s)] or out[:1]


def _approach_parts(
    ctx: Context, turns: list[Turn], users: list[int], verdict_at: int | None
) -> list[str]:
    """The assistant's actions before the verdict, after a first try the user said failed, and
    the tools it used."""
    end = len(turns) if verdict_at is None else verdict_at
    bots_before = [i for i in range(end) if turns[i].speaker == "assistant"]
    calls = [getattr(m, "tool_calls", []) or [] for m in ctx.messages if m.type == "ai"]
    tool_names = [c["name"] for made in calls for c in made]
    approach_parts = _turn_actions(turns[bots_before[-1]])[:2] if bots_before else []
    failed = [
        i
        for i in users[1:]
        if verdict_at is not None and i < verdict_at and _NEGATIVE.search(turns[i].text)
    ]
    if failed and (first_try := [j for j in bots_before if j < failed[0]]):
        tried = _turn_actions(turns[first_try[-1]])[0].rstrip(".")
        approach_parts.insert(0, f"First tried: {tried} (did not work).")
    if tool_names:
        approach_parts.append("Tools used: " + ", ".join(dict.fromkeys(tool_names)) + ".")
    return approach_parts


def _outcome(turns: list[Turn], verdict_at: int | None) -> tuple[str, str]:
    """The user's verdict as an outcome sentence, and whether it "worked", "did not work" or
    "was tried" (no verdict)."""
    if verdict_at is None:
        last_bot = [i for i in range(len(turns)) if turns[i].speaker == "assistant"]
        outcome = "No verdict from the user; last answer: " + (
            _sentences(turns[last_bot[-1]])[-1] if last_bot else "none"
        )
        return outcome, "was tried"
    said = _sentences(turns[verdict_at])
    cue = (
        _NEGATIVE
        if _NEGATIVE.search(turns[verdict_at].text) and not _POSITIVE.search(said[-1])
        else _POSITIVE
    )
    k = next((n for n, sentence in enumerate(said) if cue.search(sentence)), 0)
    told = [s for s in said[k : k + 2] if content_terms(s)]  # not "That was it."
    text = to_third_person(" ".join(told or said[k : k + 1]))
    verdict = "worked" if cue is _POSITIVE else "did not work"
    return ("Worked: " if verdict == "worked" else "Did not work: ") + text, verdict


def _lesson(turns: list[Turn], task: list[str], approach_parts: list[str], verdict: str) -> str:
    """The assistant's last advice for later ("Next time, ..."), else what was done for which
    request and how it went."""
    advice = [
        s for t in turns if t.speaker == "assistant" for s in _sentences(t) if _LESSON_CUE.match(s)
    ]
    if advice:
        lesson = _TIME_CUE.sub("", advice[-1]).strip()
        return lesson[:1].upper() + lesson[1:]
    what = approach_parts[-1] if approach_parts else "the approach"
    return f"For requests like '{_first_words(task[0], 12)}': {what.rstrip('.')} - {verdict}."


# --------------------------------------------------------------------------------------------
# Tool-call ids: a hash of the conversation (random ids LangMem embeds are removed) and position.


def call_id(messages: Sequence[BaseMessage], name: str, args: dict, position: int) -> str:
    h = hashlib.sha1()
    for m in messages:
        h.update(m.type.encode())
        h.update(_UUIDISH.sub("", message_text(m)).encode())
        for c in getattr(m, "tool_calls", None) or []:
            h.update(c.get("id", "").encode())
    h.update(f"|{name}|{position}|".encode())
    h.update(_UUIDISH.sub("", json.dumps(args, sort_keys=True, default=str)).encode())
    return "call_" + h.hexdigest()[:24]


# --------------------------------------------------------------------------------------------
# Protocols.


def _is_document(record: Record, tools: dict[str, ToolSpec]) -> bool:
    """A profile-like record: several named fields, updated field by field (not one fact)."""
    tool = tools.get(record.kind)
    if tool is not None:
        return not _is_per_fact(tool)
    value = record.value
    return not (set(value) == {"content"} or _triple_keys(value))


def _triple_keys(value: dict) -> tuple[str, str, str] | None:
    keys = {concept(k, {}): k for k in value}
    if {"subject", "predicate", "object"} <= set(keys):
        return keys["subject"], keys["predicate"], keys["object"]
    return None


_VERB_PREDICATES = {v: k for k, v in PREDICATE_VERBS.items()}


def record_facts(record: Record, known_names: set[str]) -> list[Statement]:
    """Facts a stored record holds: a subject-predicate-object triple, or third-person text."""
    if triple := _triple_keys(record.value):
        subj, pred, obj = (str(record.value.get(k, "")) for k in triple)
        subject = "user" if subj.lower() in ("user", "the user") or subj in known_names else subj
        facts = [Statement(subject, _VERB_PREDICATES.get(pred, pred), obj, record.text)]
        # The record's sentence ("User's dog is called Biscuit.") names the slot the triple's
        # free-form predicate ("is called") does not.
        sentence = record.value.get("content")
        if not isinstance(sentence, str) and subject == "user":
            sentence = f"User {pred} {obj}."  # "likes" + "hiking" reads as a preference
        if isinstance(sentence, str):
            facts += extract_facts(sentence, False)
        return facts
    return extract_facts(record.text, False)


def _schema_of(value: dict) -> dict:
    """A JSON schema inferred from a stored document's fields and value types."""
    types = {list: "array", bool: "boolean", int: "integer", float: "number", dict: "object"}
    props = {}
    for key, v in value.items():
        kind = types.get(type(v), "string")
        props[key] = {"type": kind, **({"items": {"type": "string"}} if kind == "array" else {})}
    return {"type": "object", "properties": props}


def _diff_ops(current: dict, desired: dict) -> tuple[list[dict], list[str]]:
    """JSON patch ops turning `current` into `current` updated by the non-empty `desired` fields."""
    ops, notes = [], []
    for key, new in desired.items():
        if new in (None, "", [], {}):
            continue
        old = current.get(key)
        if isinstance(old, list) and isinstance(new, list):
            lowered = {str(v).lower() for v in old}
            for item in new:
                if str(item).lower() not in lowered:
                    ops.append({"op": "add", "path": f"/{key}/-", "value": item})
                    notes.append(f"add '{item}' to {key}")
        elif old in (None, "", []):
            ops.append(
                {"op": "add" if key not in current else "replace", "path": f"/{key}", "value": new}
            )
            notes.append(f"set {key} to '{new}'")
        elif str(old).lower() != str(new).lower() and not isinstance(new, (dict, list)):
            ops.append({"op": "replace", "path": f"/{key}", "value": new})
            notes.append(f"replace {key} '{old}' with '{new}' (newer statement wins)")
    return ops, notes


def _retract_ops(value: dict, clauses: list[str]) -> tuple[list[dict], list[str]]:
    """Ops removing the list items / fields of a profile document that the user retracted."""
    ops, notes = [], []
    for key, old in value.items():
        if isinstance(old, list):
            for n in range(len(old) - 1, -1, -1):  # highest index first
                if any(_overlaps(str(old[n]), c) for c in clauses):
                    ops.append({"op": "remove", "path": f"/{key}/{n}"})
                    notes.append(f"remove '{old[n]}' from {key} (retracted)")
        elif isinstance(old, str) and old and any(_overlaps(old, c) for c in clauses):
            ops.append({"op": "replace", "path": f"/{key}", "value": None})
            notes.append(f"clear {key} (retracted)")
    return ops, notes


def _overlaps(text: str, clause: str) -> bool:
    ct = content_terms(clause) - {"user", "work", "live", "like", "prefer"}
    return bool(ct) and len(ct & content_terms(text)) >= max(1, len(ct) // 2)


def _patch_doc(ctx: Context, tools: dict[str, ToolSpec], filler: Filler) -> list[tuple[str, dict]]:
    """trustcall's update path. Statement records (one memory each, or triples): PatchDoc when a newer
    statement fills the same slot, RemoveDoc when the user retracts one, a new schema call for new
    facts. Profile documents: PatchDoc setting, replacing, adding or removing fields."""
    protocol = ("PatchDoc", "RemoveDoc", "Done", "PatchFunctionErrors")
    schema_tools = [t for n, t in tools.items() if n not in protocol]
    retracted = [c for c, _ in _retracted_statements(ctx)]
    open_ = any(_is_open(t) for t in schema_tools)
    new_facts = [
        f
        for f in (open_facts(ctx, True) if open_ else per_fact_facts(ctx))
        if not any(content_terms(f.value) <= content_terms(c) for c in retracted)
    ]
    documents = [r for r in ctx.existing if _is_document(r, tools)]
    patches = _document_patches(documents, tools, filler, retracted)
    # The documents absorb the new facts when no schema takes one per fact.
    absorbed = documents and not any(_is_per_fact(t) for t in schema_tools)
    handled = set(range(len(new_facts))) if absorbed else set()
    calls = _record_patches(ctx, tools, documents, new_facts, patches, handled)
    if "PatchDoc" in tools:
        for rid, (ops, notes) in patches.items():
            args = {"json_doc_id": rid, "planned_edits": "; ".join(notes), "patches": ops}
            calls.append(("PatchDoc", args))
    held = " ".join(f.value for f in new_facts if f.predicate == "said").lower()
    fresh = [
        f
        for i, f in enumerate(new_facts)
        if i not in handled and (f.predicate == "said" or f.value.lower() not in held)
    ]
    if fresh and schema_tools:
        calls += _new_fact_calls(ctx, schema_tools, filler, fresh)
    if not calls:
        if "Done" in tools:
            return [("Done", {})]
        if ctx.existing and "PatchDoc" in tools:
            edits = "No new information; no edits."
            no_op = {"json_doc_id": ctx.existing[0].id, "planned_edits": edits, "patches": []}
            return [("PatchDoc", no_op)]
    return calls


def _document_patches(
    documents: list[Record], tools: dict[str, ToolSpec], filler: Filler, retracted: list[str]
) -> dict[str, tuple[list[dict], list[str]]]:
    """Each profile document's ops and notes: retracted fields removed, newly stated ones set."""
    patches: dict[str, tuple[list[dict], list[str]]] = {}
    for r in documents:
        tool = tools.get(r.kind)
        # Without the schema bound (enable_inserts=False), the record's own fields are the schema.
        schema = tool.parameters if tool else _schema_of(r.value)
        ops, notes = _retract_ops(r.value, retracted) if retracted else ([], [])
        more_ops, more_notes = _diff_ops(r.value, filler.fill(schema))
        ops, notes = ops + more_ops, notes + more_notes
        if ops:
            patches[r.id] = (ops, notes)
    return patches


def _record_patches(
    ctx: Context,
    tools: dict[str, ToolSpec],
    documents: list[Record],
    new_facts: list[Statement],
    patches: dict[str, tuple[list[dict], list[str]]],
    handled: set[int],
) -> list[tuple[str, dict]]:
    """RemoveDoc calls for the fact records the user retracts; into `patches`, the ops putting a
    new fact where a record holds an older one of the same slot (its index joins `handled`)."""
    calls: list[tuple[str, dict]] = []
    names = {f.value for f in ctx.facts if f.predicate == "name"}
    removed: set[str] = set()
    # A stored "User is named Ann" makes "Ann lives in Berlin" a fact about the user.
    for r in ctx.existing:
        if r not in documents:
            names |= {
                f.value
                for f in record_facts(r, names)
                if f.predicate == "name" and f.subject == "user"
            }
    facts_of = {r.id: record_facts(r, names) for r in ctx.existing if r not in documents}
    for r in ctx.existing:
        if r in documents:
            continue
        if "RemoveDoc" in tools and _is_retracted(r, facts_of[r.id], ctx):
            parts = r.text.rstrip(". ").split("; ") if set(r.value) == {"content"} else []
            kept = [
                c
                for c in parts
                if not _is_retracted(
                    Record(r.id, r.kind, {"content": c}), extract_facts(c, False), ctx
                )
            ]  # a memory of several clauses loses just the retracted one
            calls += _drop_clauses(r, kept, tools, patches, removed)
    for i, f in enumerate(new_facts):
        if f.predicate == "said":
            calls += _said_updates(ctx, tools, f, removed, patches, handled, i)
            continue
        for r in ctx.existing:
            if r in documents or r.id in removed:
                continue
            if not (old := [g for g in facts_of[r.id] if _same_slot(g, f)]):
                continue
            handled.add(i)
            if any(g.value.lower() == f.value.lower() for g in old):
                break  # already known
            ops = _record_patch(r, old[0], f)
            if ops and r.kind == "__any__":  # LangMem's (id, text) memories take no patch
                calls += _drop_clauses(r, [ops[0]["value"].rstrip(".")], tools, patches, removed)
            elif ops:
                prev_ops, prev_notes = patches.get(r.id, ([], []))
                note = f"replace {old[0].predicate} '{old[0].value}' with '{f.value}' (newer statement wins)"
                patches[r.id] = (prev_ops + ops, prev_notes + [note])
            break
    return calls


def _new_fact_calls(
    ctx: Context, schema_tools: list[ToolSpec], filler: Filler, fresh: list[Statement]
) -> list[tuple[str, dict]]:
    """Calls of the best-filled schema for facts no stored record holds: one per fact, or one
    document when none is stored yet."""
    tool = _best_schema_tool(schema_tools, filler)
    if _is_per_fact(tool):
        wanted = facts_for(tool, ctx)
        return [(tool.name, filler.fill(tool.parameters, f)) for f in fresh if f in wanted]
    if not any(r.kind == tool.name for r in ctx.existing):
        args = filler.fill(tool.parameters)
        if any(v not in (None, "", [], {}) for v in args.values()):
            return [(tool.name, args)]
    return []


def _outdated(old: str, new: str) -> list[str]:
    """The clauses of a stored memory that a newer one restates with other values: the same
    subject, most of the shorter one's words and other numbers or days ("User keeps 3 hens" by
    "User has 5 hens now"), not just the same words ("jet lag from Lima", "going to Lima")."""

    def parts(text: str) -> list[tuple[str, str, set[str], set[str]]]:
        out = []
        for c in text.rstrip(". ").split("; "):
            who = re.match(r"User(?:'s [a-z-]+(?: [A-Z][a-z]+)?)?", c)
            said = re.sub(r"\s*\([^)]*\)", "", c[who.end() if who else 0 :])
            terms = {w for w in content_terms(_VALUE.sub(" ", said)) if w.isalpha()} - _WHEN
            values = {v[:3].lower() if v[0].isalpha() else v for v in _VALUE.findall(said)}
            out.append((c, who[0] if who else "", terms, values))
        return out

    newer = parts(new)
    return [
        c
        for c, s, a, x in parts(old)
        if any(
            s == t and len(a & b) > 0.5 * min(len(a), len(b), 3) and x != y for _, t, b, y in newer
        )
    ]


_VALUE = re.compile(r"(?i)\d+(?:[,.:]\d+)*\w*|\b(?:mon|tue|wed|thu|fri|sat|sun)(?:[a-z]*day)?s?\b")


def _said_updates(ctx, tools, f, removed, patches, handled, i) -> list[tuple[str, dict]]:
    """Plain memories restated by a newer one `f` (new_facts[i]) lose the outdated clauses."""
    calls: list[tuple[str, dict]] = []
    for r in ctx.existing:
        plain = set(r.value) == {"content"} and r.id not in removed and r.id not in patches
        if plain and (gone := _outdated(r.text, f.value)):
            kept = [c for c in r.text.rstrip(". ").split("; ") if c not in gone]
            calls += _drop_clauses(r, kept, tools, patches, removed, f.value)
            if r.id in patches:
                handled.add(i)
    return calls


def _drop_clauses(r, kept, tools, patches, removed, new: str = "") -> list[tuple[str, dict]]:
    """Calls leaving plain memory `r` its `kept` clauses (and `new` when patched in place);
    LangMem's (id, text) memories cannot be patched: removed, and the rest inserted anew."""
    if r.kind != "__any__" and "PatchDoc" in tools and (kept or new):
        text = "; ".join([*kept, *([new.rstrip(".")] if new else [])]) + "."
        patches[r.id] = ([{"op": "replace", "path": "/content", "value": text}], ["update"])
        return []
    if "RemoveDoc" not in tools:
        return []
    removed.add(r.id)
    calls = [("RemoveDoc", {"json_doc_id": r.id})]
    tool = next((t for t in tools.values() if _is_open(t)), None)
    if kept and tool:
        key = next(n for n, v in tool.properties.items() if concept(n, v) == "content")
        calls.append((tool.name, {key: "; ".join(kept) + "."}))
    return calls


def _same_subject(old: Statement, new: Statement) -> bool:
    """The user and the user's mother are different subjects, though both 'live in' a city."""
    return old.subject.strip().lower() == new.subject.strip().lower()


_WHEN = {"now", "today", "currently", "still", "last", "week", "month", "year", "day", "ago"}


def _same_slot(old: Statement, new: Statement) -> bool:
    if old.predicate != new.predicate or not _same_subject(old, new):
        return False
    if new.predicate in SINGLE_VALUED or new.predicate.startswith("favourite "):
        return True
    if new.predicate not in MULTI_VALUED:
        return True  # "my dog's name is X", "my manager is Y": one value, the newer wins
    a, b = content_terms(old.value), content_terms(new.value)
    return bool(a & b)


def _record_patch(record: Record, old: Statement, new: Statement) -> list[dict]:
    """JSON patch ops putting `new` where a fact record holds `old` (same slot)."""
    value = record.value
    if set(value) == {"content"} and isinstance(value["content"], str):
        text = value["content"]
        new_text = (
            text.replace(old.value, new.value) if old.value in text else statement_sentence(new)
        )
        return [{"op": "replace", "path": "/content", "value": new_text}]
    ops = []
    for key, current in value.items():
        c = concept(key, {})
        if c == "situation":
            # A context field quotes the user: the newer sentence as said, never an edited old one.
            if isinstance(current, str) and current != new.source.strip() and new.source.strip():
                ops.append({"op": "replace", "path": f"/{key}", "value": new.source.strip()})
        elif c == new.predicate and current != new.value:
            if isinstance(current, list):
                ops.append({"op": "add", "path": f"/{key}/-", "value": new.value})
            else:
                ops.append({"op": "replace", "path": f"/{key}", "value": new.value})
        elif isinstance(current, str) and old.value in current:
            ops.append(
                {"op": "replace", "path": f"/{key}", "value": current.replace(old.value, new.value)}
            )
    return ops


_NEGATION = re.compile(r"\b(?:no longer|don't|do not|not|anymore|any more)\b\s*", re.I)


def _retracted_statements(ctx: Context) -> list[tuple[str, list[Statement]]]:
    """Each retraction in the latest user message as (clause, facts it takes back): "I'm no
    longer allergic to peanuts" takes back what "I'm allergic to peanuts" states."""
    out = []
    for text in ctx.user_texts[-1:]:
        for m in FORGET.finditer(text):
            if not (clause := m["value"] or m["value2"] or m["value3"]):
                continue
            statement = clause if m["value"] else _NEGATION.sub("", m.group(0))
            out.append((clause, extract_facts(statement.strip() + ".")))
    return out


def _stated_text(record: Record) -> str:
    """A record's text without its context field: a word the user said around a fact is not
    the fact."""
    value = {k: v for k, v in record.value.items() if concept(k, {}) != "situation"}
    return _record_text(value)


def _is_retracted(record: Record, facts: list[Statement], ctx: Context) -> bool:
    """The record states a fact the user takes back: same subject, predicate and value when the
    retraction parses as a fact, else the clause's words in the record's stated fields."""
    for clause, gone in _retracted_statements(ctx):
        if gone:
            if any(
                g.predicate == f.predicate
                and _same_subject(g, f)
                and content_terms(g.value) & content_terms(f.value)
                for g in facts
                for f in gone
            ):
                return True
        elif _overlaps(_stated_text(record), clause):
            return True
    return False


def _is_per_fact(tool: ToolSpec) -> bool:
    """A collection item (one record per fact: Memory(content), a triple, Preference(category,
    preference)) rather than a document (a profile with several slots or list fields, an episode)."""
    specs = {n: _resolve(s, tool.parameters) for n, s in tool.properties.items()}
    concepts = [concept(n, s) for n, s in specs.items()]
    if sum(c in _EPISODE for c in concepts) >= 2 or any(
        s.get("type") == "array" for s in specs.values()
    ):
        return False
    profile = [c for c in concepts if c in _PROFILE]
    return len(profile) <= 1 and bool(set(concepts) & (_PER_FACT | _PROFILE))


def facts_for(tool: ToolSpec, ctx: Context) -> list[Statement]:
    """The facts a collection schema records: those of its one profile slot, else all."""
    if _is_open(tool):
        return open_facts(ctx)
    slots = {
        concept(n, _resolve(s, tool.parameters)) for n, s in tool.properties.items()
    } & _PROFILE
    facts = per_fact_facts(ctx)
    if not slots:
        return facts
    return [
        f
        for f in facts
        if f.predicate in slots or ("preference" in slots and f.predicate.startswith("favourite "))
    ]


def _best_schema_tool(tools: list[ToolSpec], filler: Filler) -> ToolSpec:
    def score(t: ToolSpec) -> int:
        args = filler.fill(t.parameters)
        return sum(1 for v in args.values() if v not in (None, "", [], {}, 0, False))

    return max(tools, key=score) if len(tools) > 1 else tools[0]


def _repair(ctx: Context) -> list[tuple[str, dict]]:
    """trustcall's validation-retry path: read the error, patch the failed call (the model calls
    only the tools it is offered, so trustcall's unknown-tool repair never arises)."""
    error_msg = next((m for m in reversed(ctx.messages) if m.type == "tool"), None)
    if error_msg is None:
        return []
    error = message_text(error_msg)
    doc_id = re.search(r"json_doc_id=\[(?P<id>[^\]]+)\]", error)
    target = doc_id["id"] if doc_id else error_msg.tool_call_id
    call = next(
        (c for m in ctx.messages if m.type == "ai" for c in m.tool_calls if c["id"] == target), None
    )
    m = re.search(r"Expected Parameter Schema:\s*```json\s*(?P<schema>.*?)```", error, re.S)
    schema = _parse_value(m["schema"]) if m else None
    args = dict(call["args"]) if call else {}
    patches, notes = [], []
    for loc, kind, message in _pydantic_errors(error):
        patch, note = _field_fix(loc, kind, message, schema, args)
        patches += [patch] if patch else []
        notes += [note] if note else []
    edits = "\n".join(f"- {n}" for n in notes) or "- no errors parsed"
    return [
        ("PatchFunctionErrors", {"json_doc_id": target, "planned_edits": edits, "patches": patches})
    ]


def _field_fix(
    loc: str, kind: str, message: str, schema: Any, args: dict
) -> tuple[dict | None, str | None]:
    """The patch op fixing one validation error at `loc` (None when there is none), and its note
    (None when nothing was done)."""
    path = "/" + "/".join(loc.split("."))
    spec = _field_spec(schema, loc) if schema else {}
    current = _get_path(args, loc)
    if kind in ("string_too_long", "too_long") or re.search(r"at most \d+", message):
        fixed, note = _shorten(current, message)
        return {"op": "replace", "path": path, "value": fixed}, f"{loc}: {note}"
    if kind == "value_error" and loc.split(".")[-1] not in set((spec or {}).get("required", [])):
        return None, f"{loc}: custom validation failed ({message}); left for the schema to judge"
    target_spec = _resolve(spec, schema or {}) if spec else {}
    fixed = _coerce(current, target_spec, schema or {}) if target_spec else None
    if fixed is None or fixed == current:
        fixed = empty_value(target_spec, schema or {}) if target_spec else None
    if fixed is None:
        return None, None
    note = f"{loc}: {kind} -> {current!r} became {fixed!r}"  # a missing field is added
    return {"op": "add" if current is None else "replace", "path": path, "value": fixed}, note


def _shorten(current: Any, message: str) -> tuple[Any, str]:
    """Cut a value to the limit an error message states ("at most 20 characters / items")."""
    m = re.search(r"at most (\d+)", message)
    n = int(m.group(1)) if m else 50
    if isinstance(current, list):
        return current[:n], f"kept the first {n} items"
    text = str(current or "")
    cut = text[:n]
    if len(text) > n and " " in cut:
        cut = cut.rsplit(" ", 1)[0]  # do not end mid-word
    return cut, f"shortened to at most {n} characters"


_PYDANTIC_ERROR = re.compile(r"^(?P<loc>[\w.\[\]-]+)\n\s+(?P<msg>.*?)\s*\[type=(?P<type>\w+)", re.M)


def _pydantic_errors(text: str) -> list[tuple[str, str, str]]:
    return [(m["loc"], m["type"], m["msg"]) for m in _PYDANTIC_ERROR.finditer(text)]


def _field_spec(schema: dict, loc: str) -> dict:
    spec = schema
    for part in loc.split("."):
        spec = _resolve(spec, schema)
        items = part.isdigit()
        spec = spec.get("items", {}) if items else (spec.get("properties") or {}).get(part, {})
    return _resolve(spec, schema)


def _get_path(args: Any, loc: str) -> Any:
    node = args
    for part in loc.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict):
            node = node.get(part)
        else:
            return None
    return node


_ISSUE = "Address this feedback: "  # how a rule-less complaint is kept
_DIRECTIVE = re.compile(
    r"(?i)\b(?:should|must|always|never|please|don't|do not|avoid|keep|use|prefer|make sure|include|be)\b",
)


# An imperative about the reply itself ("Show the output", "List the steps") is a rule too.
_REPLY_VERB = re.compile(
    r"(?i)^(?:show|give|explain|start|list|mention|ask|write|cite|quote|skip|stop|answer|reply|"
    r"respond|say|tell|greet|offer|summari[sz]e)\b",
)


def feedback_rules(ctx: Context, mode: str = "minimal") -> list[str]:
    """Prompt rules from feedback: directive sentences kept as rules, others as issues (_ISSUE).
    Where one feedback holds both, mode "minimal" drops its issues (the rules address them) and
    "lessons" joins them into one line ("Too long, so always answer in one sentence.")."""
    current = ctx.tagged.get("current_prompt", "")
    prompt_terms = content_terms(current)
    variables = set(re.findall(r"\{\w+\}", current))
    rules = []
    for fb in ctx.feedback:
        mine = []
        for s in split_sentences(fb):
            s = re.sub(r"^(?:please|pls)\s+", "", s.strip(), flags=re.I)
            # Braces that are not the prompt's own {variables} would reach LangMem, which
            # escapes them to {{ }} in the new prompt: keep only the words.
            s = re.sub(
                r"\{\w+\}|[{}]", lambda m: m[0] if m[0] in variables else m[0].strip("{}"), s
            ).strip()
            if not s or content_terms(s) <= prompt_terms:
                continue
            directive = _DIRECTIVE.search(s) or _ACTION.match(s) or _REPLY_VERB.match(s)
            rule = s[0].upper() + s[1:] if directive else f"{_ISSUE}{s}"
            mine.append(rule.rstrip(".") + ".")
        issue = [r for r in mine if r.startswith(_ISSUE)]
        told = [r for r in mine if r not in issue]
        if issue and told:  # "minimal": the rules alone; "lessons": why, then what to do
            why, do = " ".join(r.removeprefix(_ISSUE).rstrip(".") for r in issue), " ".join(told)
            mine = [f"{why}, so {do[0].lower()}{do[1:]}"] if mode == "lessons" else told
        rules += mine
    return list(dict.fromkeys(rules))


def _score_note(ctx: Context) -> str:
    """What a bare score tells the optimizer: that something was rated, not what to change."""
    shown = ", ".join(f"{x:g}" for x in ctx.scores[:5])
    return (
        f"Only a score ({shown}) was given, with no text saying what to change; "
        "the prompt is left as it is."
    )


def _classify_prompts(ctx: Context, tool: ToolSpec) -> dict:
    """create_multi_prompt_optimizer's Classify: the prompts the feedback is most about (most
    shared terms), all of them when it shares none, none without feedback."""
    spec = tool.properties.get("which", {})
    m = re.search(r"Must be among (\[.*?\])", spec.get("description", ""))
    choices = _parse_value(m.group(1)).get("content", []) if m else []
    feedback = " ".join(ctx.feedback)
    if not feedback.strip() or not choices:
        reason = _score_note(ctx) if ctx.scores else "No feedback, so no prompt is implicated."
        return {"reasoning": reason, "which": []}
    texts = {}
    for line in ctx.instructions.splitlines() + [t.text for t in ctx.turns]:
        for name in choices:
            if line.startswith(f"{name}: "):
                texts[name] = line
    terms = content_terms(feedback)
    overlap = {c: len(terms & content_terms(texts.get(c, c).replace("_", " "))) for c in choices}
    best = max(overlap.values())
    hit = [c for c in choices if best and overlap[c] == best]
    which = hit or list(choices)
    reason = (
        "Feedback shares terms with these prompts."
        if hit
        else "Feedback names no prompt; all may need it."
    )
    return {"reasoning": reason, "which": which}


def improved_prompt(ctx: Context, kind: str = "gradient") -> str:
    """The prompt changed by feedback as each LangMem kind asks: gradient (a minimal edit) lists
    feedback_rules' "minimal" rules; metaprompt (a rewrite) makes them sentences of the prompt's
    first paragraph; prompt_memory (lessons) lists its "lessons" (feedback_rules says which)."""
    current = ctx.tagged.get("current_prompt", "").strip()
    rules = feedback_rules(ctx, "lessons" if kind == "prompt_memory" else "minimal")
    recs = ctx.tagged.get("recommendations", "")
    rules += [r.strip("- ").strip() for r in recs.splitlines() if r.strip().startswith("- ")]
    rules = [r for r in dict.fromkeys(rules) if r and r.lower() not in current.lower()]
    if not rules:
        return current
    if kind == "metaprompt":
        first, sep, rest = current.partition("\n\n")
        said = " ".join(  # an issue becomes a sentence of the prompt too
            f"Users reported: {r[len(_ISSUE)].lower()}{r[len(_ISSUE) + 1 :]}"
            if r.startswith(_ISSUE)
            else r
            for r in rules
        )
        return f"{first} {said}{sep}{rest}"
    heading = (
        "Lessons from feedback:" if kind == "prompt_memory" else "Rules learned from feedback:"
    )
    body = "\n".join(f"- {r}" for r in rules)
    return f"{current}\n{body}" if heading in current else f"{current}\n\n{heading}\n{body}"


def _change_note(ctx: Context, changed: bool) -> str:
    """Why the optimizer changed the prompt, or why it did not."""
    if changed:
        return "Added rules for each piece of feedback."
    if ctx.scores and not ctx.feedback:
        return _score_note(ctx)
    return "No feedback to address; prompt unchanged."


def _optimizer(
    ctx: Context, tools: dict[str, ToolSpec], forced: str | None
) -> list[tuple[str, dict]] | None:
    names = set(tools)
    rules = feedback_rules(ctx, "minimal")
    current = ctx.tagged.get("current_prompt", "").strip()
    if "Classify" in names:
        return [("Classify", _classify_prompts(ctx, tools["Classify"]))]
    if forced == "OptimizedPromptOutput" or (names == {"OptimizedPromptOutput"}):
        gradient = "recommendations" in ctx.tagged  # its update step; metaprompt has none
        new = improved_prompt(ctx, "gradient" if gradient else "metaprompt")
        args = {"analysis": _change_note(ctx, new != current), "improved_prompt": new}
        return [("OptimizedPromptOutput", args)]
    if "recommend" in names and (
        forced == "recommend" or any(m.type == "ai" and m.tool_calls for m in ctx.messages)
    ):
        if rules:
            hypotheses = (
                "The prompt does not cover the user's feedback: " + " ".join(ctx.feedback)[:400]
            )
        elif ctx.scores and not ctx.feedback:
            hypotheses = _score_note(ctx)
        else:
            hypotheses = "No feedback indicates a failure."
        recommendations = "\n".join(f"- {r}" for r in rules) or "No recommendations."
        args = {"warrants_adjustment": bool(rules), "hypotheses": hypotheses}
        return [("recommend", {**args, "full_recommendations": recommendations})]
    if {"think", "critique"} & names:
        thought = (
            "Feedback received: " + " ".join(ctx.feedback)[:400]
            if ctx.feedback
            else _score_note(ctx)
            if ctx.scores
            else "No feedback was given, so there is no evidence of failure."
        )
        name = "think" if "think" in names else "critique"
        return [(name, {"thought" if name == "think" else "criticism": thought})]
    if "GeneralResponse" in names:
        new = improved_prompt(ctx, "prompt_memory")
        args = {"logic": _change_note(ctx, new != current), "update_prompt": new != current}
        return [("GeneralResponse", {**args, "new_prompt": new})]
    return None


# --------------------------------------------------------------------------------------------
# The planner.


# The tools of LangMem's prompt optimizers (gradient, metaprompt, multi-prompt classify).
_OPTIMIZER_TOOLS = frozenset(
    "think critique recommend OptimizedPromptOutput GeneralResponse Classify".split()
)


def plan_tool_calls(
    messages: Sequence[BaseMessage], tools: Sequence[dict], tool_choice: Any, grade: Any = None
) -> list[tuple[str, dict]] | None:
    """Tool calls (name, args) for this request, or None to reply with text."""
    specs = {t.name: t for t in tool_specs(tools)}
    if not specs or tool_choice == "none" or tool_choice is False:
        return None
    forced_name = chosen_name(tool_choice)
    if forced_name and forced_name not in specs:
        raise ValueError(
            f"tool_choice {forced_name!r} is not among the bound tools {sorted(specs)}"
        )
    forced = forced_name is not None or tool_choice in ("any", "required", True)
    ctx = read_context(messages)
    filler = Filler(ctx, grade)

    if "PatchFunctionErrors" in specs and any(m.type == "tool" for m in messages):
        return _repair(ctx)
    optimizer = _optimizer(ctx, specs, forced_name) if _OPTIMIZER_TOOLS & set(specs) else None
    if optimizer:
        return optimizer
    if "Done" in specs and any(m.type == "tool" for m in messages):
        return [("Done", {})]  # a later step of LangMem's multi-step loop: everything was extracted
    if ctx.existing and ("PatchDoc" in specs or "RemoveDoc" in specs):
        if not forced_name or forced_name in ("PatchDoc", "RemoveDoc"):
            return _patch_doc(ctx, specs, filler)

    if forced_name:
        return _fill_forced(specs[forced_name], ctx, filler)
    if forced or (_is_extraction(ctx) and all(_kind(t) == "other" for t in specs.values())):
        candidates = [t for n, t in specs.items() if n not in ("Done", "PatchDoc", "RemoveDoc")]
        if len(candidates) == 1:
            calls = _fill_forced(candidates[0], ctx, filler)
            # Asked (not forced) to extract: say nothing rather than store an empty record.
            return (
                calls if forced or any(_has_content(candidates[0], a) for _, a in calls) else None
            )
        if all(_kind(t) == "other" for t in candidates):
            return _fill_schemas(candidates, ctx, filler, forced)
    return _agent_policy(ctx, specs, filler, forced)


_WEAK = {"reasoning", "confidence", "topic", None}


def _has_content(tool: ToolSpec, args: dict) -> bool:
    return any(
        v not in (None, "", [], {}) and concept(k, tool.properties.get(k, {})) not in _WEAK
        for k, v in args.items()
    )


def _fill_schemas(
    tools: list[ToolSpec], ctx: Context, filler: Filler, forced: bool
) -> list[tuple[str, dict]] | None:
    """Several schemas offered: a call for each one the conversation has content for (an
    episode schema only for an exchange with the assistant); the best one when none has."""
    calls: list[tuple[str, dict]] = []
    exchange = any(t.speaker == "assistant" for t in ctx.turns)
    for tool in tools:
        concepts = [concept(n, _resolve(s, tool.parameters)) for n, s in tool.properties.items()]
        if sum(c in _EPISODE for c in concepts) >= 2 and not exchange:
            continue
        if _is_per_fact(tool):
            if facts_for(tool, ctx):
                calls += _fill_forced(tool, ctx, filler)
            continue
        args = filler.fill(tool.parameters)
        if _has_content(tool, args):
            calls.append((tool.name, args))
    if calls or not forced:
        return calls or None
    return _fill_forced(_best_schema_tool(tools, filler), ctx, filler)


_EXTRACT = re.compile(
    r"(?i)\b(?:extract|memor(?:y|ies)|record|call (?:the|this|a) (?:tool|function)|structured)\b"
)


def _is_extraction(ctx: Context) -> bool:
    """A request to extract into the bound schemas rather than a chat turn."""
    return ctx.transcript or bool(_EXTRACT.search(ctx.instructions))


def _fill_forced(tool: ToolSpec, ctx: Context, filler: Filler) -> list[tuple[str, dict]]:
    kind = _kind(tool)
    if kind in ("memory_search", "kb_search"):
        searches = _search_args(tool, ctx, filler, many=kind == "memory_search")
        return [(tool.name, q) for q in searches]
    if kind == "memory_write" or _is_per_fact(tool):
        if facts := facts_for(tool, ctx):
            return [(tool.name, _write_args(tool, filler, f)) for f in facts]
        notes = memory_notes(ctx)
        if notes and kind == "memory_write":
            return [(tool.name, _write_args(tool, filler, None, n)) for n in notes]
    return [(tool.name, filler.fill(tool.parameters))]


def _search_args(tool: ToolSpec, ctx: Context, filler: Filler, many: bool) -> list[dict]:
    base = filler.fill(tool.parameters)
    qkey = next((n for n in tool.properties if concept(n, tool.properties[n]) == "query"), None)
    if qkey is None:
        return [base]
    queries = []
    if question := search_query(ctx):
        for predicate, _ in ask_about_all(question):
            if predicate in PREDICATE_PHRASES:
                queries.append(
                    PREDICATE_PHRASES[predicate].format(s="User", p=predicate, v="").strip()
                )
        queries.append(question)
    if many:
        queries += [statement_sentence(f) for f in per_fact_facts(ctx)]
    queries = list(dict.fromkeys(q for q in queries if q))[:MAX_SEARCH_CALLS] or [
        base.get(qkey, "")
    ]
    return [{**{k: v for k, v in base.items() if k != qkey}, qkey: q} for q in queries]


def _actions(tool: ToolSpec) -> list[str]:
    """The actions a memory-writing tool accepts: its enum, else create, update and delete."""
    spec = _resolve(tool.properties.get("action", {}), tool.parameters)
    return list(spec.get("enum") or ("create", "update", "delete"))


def _write_args(
    tool: ToolSpec, filler: Filler, fact: Statement | None, note: str | None = None
) -> dict:
    args = filler.fill(tool.parameters, fact)
    props = tool.properties
    if "content" in props and note:
        args["content"] = note
    if "action" in props:  # a new memory: updates of searched ones are _write_calls' part
        actions = _actions(tool)
        args["action"] = "create" if "create" in actions else actions[0]
        args.pop("id", None)
    return args


def _search_hits(messages: Sequence[BaseMessage]) -> list[dict]:
    """Items ({"key", "value", ...}) from memory-search results among `messages`, newest first."""
    hits = []
    for m in reversed(list(messages)):
        if m.type != "tool":
            continue
        try:
            items = json.loads(message_text(m))
        except (ValueError, TypeError):
            continue
        if isinstance(items, list):
            hits += [i for i in items if isinstance(i, dict) and "key" in i]
    return hits


def _agent_policy(
    ctx: Context, specs: dict[str, ToolSpec], filler: Filler, forced: bool
) -> list[tuple[str, dict]] | None:
    """tool_choice auto, step by step within one user turn:
    1. the user states facts, asks to remember or to forget, and a memory-search tool is bound:
       search memory for them first (so a changed fact updates its memory instead of duplicating);
       a question: search memory (personal or no knowledge-base tool) and the knowledge base
       (domain questions);
    2. after the search results: write memory (update the memory holding the same slot, delete
       retracted ones, create the rest);
    3. once the writes (or searches, for a question alone) are answered: reply in text."""
    kinds: dict[str, list[ToolSpec]] = {}
    for t in specs.values():
        kinds.setdefault(_kind(t), []).append(t)
    after = ctx.after_last_user()
    called = {c["name"] for m in after if m.type == "ai" for c in m.tool_calls}
    last = ctx.last_user
    latest = Context(ctx.messages, [Turn("user", last)], existing=ctx.existing)
    facts = per_fact_facts(latest)
    notes = [] if facts else memory_notes(latest)
    retracted = [c for c, _ in _retracted_statements(latest)]
    facts = [
        f for f in facts if not any(content_terms(f.value) <= content_terms(c) for c in retracted)
    ]
    writer = (kinds.get("memory_write") or [None])[0]
    searcher = (kinds.get("memory_search") or [None])[0]
    kb = (kinds.get("kb_search") or [None])[0]
    wants_write = writer is not None and bool(facts or notes or retracted)
    questions = [s for s in split_sentences(last) if _QUESTION.search(s)]
    calls: list[tuple[str, dict]] = []

    if not after:  # step 1
        if wants_write and searcher is not None:
            queries = [statement_sentence(f) for f in facts] + notes + retracted
            for q in list(dict.fromkeys(queries))[:MAX_SEARCH_CALLS]:
                qctx = Context(ctx.messages, [Turn("user", q)])
                args = _search_args(searcher, qctx, filler, many=False)
                calls += [(searcher.name, a) for a in args[:1]]
        elif wants_write:
            calls += _write_calls(writer, ctx, filler, facts, notes, retracted, [])
        if questions:
            q = questions[-1]
            personal = ask_about(q) or re.search(
                r"\b(?:my|me|i|we|our|last time|remember|earlier|before)\b", q, re.I
            )
            qctx = Context(ctx.messages, [Turn("user", q)])
            if searcher is not None and (personal or kb is None):
                calls += [
                    (searcher.name, a) for a in _search_args(searcher, qctx, filler, many=False)
                ]
            if kb is not None and not ask_about(q):
                calls += [(kb.name, a) for a in _search_args(kb, qctx, filler, many=False)]
        if not calls and forced:
            return _fill_forced(next(iter(specs.values())), ctx, filler)
        return _dedupe(calls) or None
    if wants_write and writer.name not in called:  # step 2
        return (
            _write_calls(writer, ctx, filler, facts, notes, retracted, _search_hits(after)) or None
        )
    return None  # step 3: answer


def _dedupe(calls: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    seen, out = set(), []
    for name, args in calls:
        key = (name, json.dumps(args, sort_keys=True, default=str))
        if key not in seen:
            seen.add(key)
            out.append((name, args))
    return out


def _document_content(tool: ToolSpec) -> dict | None:
    """The schema of a memory tool's `content` when it is a profile-like document
    (create_manage_memory_tool(schema=UserProfile)), else None."""
    spec = _resolve(tool.properties.get("content", {}), tool.parameters)
    if spec.get("type") != "object" or not spec.get("properties"):
        return None
    as_tool = ToolSpec("content", "", {**spec, "$defs": tool.parameters.get("$defs", {})})
    return None if _is_per_fact(as_tool) else as_tool.parameters


def _write_document(
    tool: ToolSpec,
    schema: dict,
    ctx: Context,
    filler: Filler,
    retracted: list[str],
    hits: list[dict],
) -> list[tuple[str, dict]]:
    """One memory holding the whole document: the stored one (from a search hit) updated with
    this turn's facts and retractions, or a new one."""
    turn = Filler(Context(ctx.messages, [Turn("user", ctx.last_user)]), filler.grade)
    desired = turn.fill(schema)
    stored = next((h for h in hits if isinstance(h.get("value", {}).get("content"), dict)), None)
    current = dict(stored["value"]["content"]) if stored else {}
    merged = jsonpatch.apply_patch(  # a copy: `current` stays as stored
        current, _retract_ops(current, retracted)[0] + _diff_ops(current, desired)[0]
    )
    if merged == current and stored:
        return []
    args = {"content": merged}
    actions = _actions(tool)
    if stored and "update" in actions:
        args.update(action="update", id=stored["key"])
    elif "action" in tool.properties:
        args["action"] = "create" if "create" in actions or not actions else actions[0]
    return [(tool.name, args)]


def _write_calls(
    tool: ToolSpec,
    ctx: Context,
    filler: Filler,
    facts: list[Statement],
    notes: list[str],
    retracted: list[str],
    hits: list[dict],
) -> list[tuple[str, dict]]:
    """Memory writes: delete hits the user retracted, update hits holding a fact's slot, create
    the rest."""
    document = _document_content(tool)
    if document is not None:
        return _write_document(tool, document, ctx, filler, retracted, hits)
    calls = []
    actions = _actions(tool)
    deleted = set()
    if "delete" in actions:
        for hit in hits:
            text = _record_text(hit.get("value", {}))
            if any(_overlaps(text, c) for c in retracted) and hit["key"] not in deleted:
                deleted.add(hit["key"])
                calls.append((tool.name, {"action": "delete", "id": hit["key"]}))
    for f in facts:
        args = filler.fill(tool.parameters, f)
        if "action" in tool.properties:
            match = next(
                (
                    h["key"]
                    for h in hits
                    if h["key"] not in deleted
                    and any(
                        _same_slot(old, f)
                        for old in extract_facts(_record_text(h.get("value", {})), False)
                    )
                ),
                None,
            )
            if match and "update" in actions:
                args.update(action="update", id=match)
            else:
                args["action"] = "create" if "create" in actions or not actions else actions[0]
                args.pop("id", None)
        calls.append((tool.name, args))
    for n in notes:
        calls.append((tool.name, _write_args(tool, filler, None, n)))
    return calls
