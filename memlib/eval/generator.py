"""A generator of long synthetic histories with planted facts, updates and filler sessions.

`generate_case(seed, sessions=..., turns=..., facts=..., moves=...)` builds one user's history: a
name, a home and an employer that each change `moves` times (knowledge updates, and "where did I
live before ...?" temporal questions, one per move), `facts` favourite things stated once each, and
filler turns of small talk around them, then the questions of every type in
`memlib.eval.dataset.QUESTION_TYPES`. The same seed gives the same case, byte for byte. `SCALE` is
the shape of the scaled datasets (at least 12 questions of every type, facts that change three
times): `generate_dataset(sessions=500, **SCALE)`. Names, places and organisations are invented words
(checked against the offline model's rule lists and evaluation sets in the tests), so nothing
here was tuned to what the offline model already recognises.

Leaves out: facts stated by the assistant, retractions ("forget that ..."), relative dates in the
questions ("last March"), and more than one user per case.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from memlib.checks import check_int, check_str

FIRST = "Tamsin Orlaith Kesia Bram Ottoline Ivor Sunniva Corwen Wenna Halvard".split()
LAST = "Okonjo Pellow Vantrees Quarles Amberlin Threlkeld Moravec Sallowby".split()
PLACES = (
    "Varrow Bay, Drellport, Kestlemoor, Ambermere, Pellandry, Quorra Falls, Saltmarsh Reach, "
    "Tinmouth, Gallowfen, Westhollow, Brackenfold, Morrowgate"
).split(", ")
ORGS = (
    "Quillmark Labs, Brindlecode, Farrowlight, Lumenwick, Corvane Systems, Halloway Freight, "
    "Stellibrook, Pinnacle Weft, Orrery Works, Tallowcraft"
).split(", ")
FAVOURITES = {  # topic -> invented or uncommon values
    "tea": ["genmaicha", "hojicha", "rooibos chai", "lapsang"],
    "board game": ["Tessera Drift", "Lanternfall", "Crowsnest", "Mireholt"],
    "hiking trail": ["the Gorsebeck ridge", "the Hollin loop", "the Skerrow path"],
    "pasta shape": ["casarecce", "trofie", "lumache", "mafaldine"],
    "podcast": ["Quiet Orbit", "The Loom Hour", "Slow Tidings"],
    "font": ["Garamond Nova", "Vellum Sans", "Brightline Mono"],
    "soup": ["ribollita", "avgolemono", "cullen skink"],
    "bird": ["the wryneck", "the dipper", "the twite"],
}
ABSENT_TOPICS = ["cheese", "poem", "museum", "cocktail", "bridge", "card game"]
FILLER = [  # a user's small talk | the assistant's reply
    tuple(line.split(" | "))
    for line in """
Can you suggest a way to keep basil alive on a windowsill? | Water it when the top of the soil is dry and give it plenty of light.
What is a good stretch after a long bike ride? | A standing quad stretch and a slow hamstring fold both help.
How long should I rest bread dough before shaping it? | Usually until it has roughly doubled, often one to two hours.
The train was late again this morning. | That is frustrating; delays add up over a week.
I spent the weekend repainting the fence. | That sounds like a satisfying project.
Any tips for remembering names at a party? | Repeat the name back once and link it to something about the person.
I finally finished the jigsaw puzzle. | Well done, the last hundred pieces are the hardest.
What does a dehumidifier actually do? | It pulls moisture out of the air and collects it.
How do I get wax off a tablecloth? | Freeze it, scrape what you can, then iron it between paper towels.
Is it worth learning to touch type? | Yes, most people gain speed within a few weeks.
My sister visited on Sunday. | Nice, I hope you had a good time together.
Why do onions make people cry? | Cutting them releases a gas that irritates the eyes.
What is a polite way to decline a meeting? | Thank them, say you cannot make it, and offer another time.
It rained all afternoon, so we stayed in and played cards. | A rainy afternoon of cards sounds cosy.
How often should a bike chain be oiled? | Every few hundred kilometres, or after riding in the rain.
Can you explain what a heat pump is? | It moves heat from outside air into the house, like a fridge in reverse.
""".strip().splitlines()
]
ACKS = ["Thanks for telling me.", "Got it.", "Good to know.", "Noted, thank you."]
START = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)


def _plan(rng: random.Random, sessions: int, turns: int, n: int) -> list[tuple[int, int]]:
    """n distinct (session, turn) slots in time order, spread over the history."""
    slots = rng.sample([(s, t) for s in range(sessions) for t in range(turns)], n)
    return sorted(slots)


SCALE = {"cases": 6, "turns": 3, "facts": 6, "moves": 3}  # 12 to 36 questions of each type


def _check_sizes(seed, sessions, turns, facts, moves=1) -> int:
    """The number of planted statements, once the sizes are known to fit."""
    check_int(seed, "seed", minimum=0)
    check_int(sessions, "sessions", minimum=2)
    check_int(turns, "turns", minimum=1)
    check_int(facts, "facts", minimum=1)
    if check_int(moves, "moves", minimum=1) >= len(ORGS):
        raise ValueError(f"moves must be below {len(ORGS)} (one employer per move), got {moves}")
    if facts > len(FAVOURITES):
        raise ValueError(
            f"facts must be at most {len(FAVOURITES)} (one per favourite topic), got {facts}"
        )
    planted = 3 + 2 * moves + facts  # name, homes, employers, favourites
    if planted > sessions * turns:
        raise ValueError(
            f"{planted} planted statements do not fit in {sessions} sessions x {turns} turns; "
            "raise sessions or turns, or lower facts"
        )
    return planted


def _sessions(rng, sessions: int, turns: int, at: dict, statements: dict) -> list[dict]:
    """Dated sessions of filler turns, with each planted statement at its (session, turn)."""
    planted_turns = {slot: key for key, slot in at.items()}
    out_sessions, when, filler = [], START, list(FILLER)
    for s in range(sessions):
        when = when + timedelta(days=rng.randint(1, 6), hours=rng.randint(0, 8))
        messages = []
        for t in range(turns):
            turn = f"s{s}-t{t}"
            if (s, t) in planted_turns:
                user, reply = statements[planted_turns[(s, t)]], rng.choice(ACKS)
            else:
                user, reply = rng.choice(filler)
            messages += [
                {"id": f"{turn}-u", "turn": turn, "role": "user", "content": user},
                {"id": f"{turn}-a", "turn": turn, "role": "assistant", "content": reply},
            ]
        out_sessions.append({"id": f"s{s}", "date": when.isoformat(), "messages": messages})
    return out_sessions


def _questions(rng, facts: dict, at: dict) -> list[dict]:
    """Questions of the five types about the planted facts, each with its evidence turns."""
    questions = []

    def ask(qtype, question, answer, stale, *keys):
        evidence = [f"s{at[k][0]}-t{at[k][1]}" for k in keys]
        questions.append(
            {
                "id": f"q{len(questions)}",
                "type": qtype,
                "question": question,
                "answer": answer,
                "stale": stale,
                "evidence": evidence,
            }
        )

    name, homes, jobs, m = facts["name"], facts["home"], facts["job"], len(facts["home"]) - 1
    for t, value in facts["favourites"].items():
        ask("single-session", f"What is my favourite {t}?", [value], [], f"fav:{t}")
    for slot, values, verb in (("job", jobs, "work"), ("home", homes, "live")):
        ask("multi-session", f"What is my name and where do I {verb}?", [name, values[m]],
            values[:m], "name", f"{slot}{m}")  # fmt: skip
    for slot, values, verb in (("home", homes, "live"), ("job", jobs, "work")):
        ask("knowledge-update", f"Where do I {verb}?", [values[m]], values[:m],
            f"{slot}{m - 1}", f"{slot}{m}")  # fmt: skip
    for slot, values, before in (("home", homes, "live before I moved to"),
                                 ("job", jobs, "work before I joined")):  # fmt: skip
        for i in range(1, m + 1):
            ask("temporal", f"Where did I {before} {values[i]}?", [values[i - 1]], [],
                f"{slot}{i - 1}", f"{slot}{i}")  # fmt: skip
    ask("abstention", "How old am I?", [], [])
    ask("abstention", f"What is my favourite {rng.choice(ABSENT_TOPICS)}?", [], [])
    return questions


def generate_case(
    seed: int,
    *,
    sessions: int = 20,
    turns: int = 3,
    facts: int = 4,
    case_id: str | None = None,
    moves: int = 1,
) -> dict:
    """One synthetic user history with planted facts and updates, and its questions; deterministic by seed."""
    planted = _check_sizes(seed, sessions, turns, facts, moves)
    rng = random.Random(seed)
    name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    homes, jobs = rng.sample(PLACES, moves + 1), rng.sample(ORGS, moves + 1)
    topics = rng.sample(sorted(FAVOURITES), facts)
    values = {t: rng.choice(FAVOURITES[t]) for t in topics}
    slots = _plan(rng, sessions, turns, planted)
    # a random time order, each move somewhere after the value it replaces
    keys = ["name", "home0", "job0"] + [f"fav:{t}" for t in topics]
    rng.shuffle(keys)
    for slot, i in [(slot, i) for slot in ("home", "job") for i in range(1, moves + 1)]:
        keys.insert(rng.randint(keys.index(f"{slot}{i - 1}") + 1, len(keys)), f"{slot}{i}")
    statements = {"name": f"By the way, my name is {name}."}
    statements |= {f"fav:{t}": f"My favourite {t} is {values[t]}." for t in topics}
    for i in range(moves + 1):
        statements[f"home{i}"] = (
            f"Big news: I moved to {homes[i]}." if i else f"I live in {homes[0]}."
        )
        statements[f"job{i}"] = f"I just joined {jobs[i]}." if i else f"I work at {jobs[0]}."
    at = dict(zip(keys, slots, strict=True))
    out_sessions = _sessions(rng, sessions, turns, at, statements)
    known = {"name": name, "home": homes, "job": jobs, "favourites": values}
    return {
        "id": f"case-{seed}" if case_id is None else check_str(case_id, "case_id"),
        "user_id": f"user-{seed}",
        "sessions": out_sessions,
        "questions": _questions(rng, known, at),
    }


def generate_dataset(
    cases: int = 3,
    *,
    seed: int = 0,
    sessions: int = 20,
    turns: int = 3,
    facts: int = 4,
    moves: int = 1,
) -> list[dict]:
    """`cases` synthetic cases with seeds seed, seed+1, ...; deterministic."""
    check_int(cases, "cases", minimum=1)
    check_int(seed, "seed", minimum=0)
    shape = {"sessions": sessions, "turns": turns, "facts": facts, "moves": moves}
    return [generate_case(seed + i, case_id=f"case-{seed + i}", **shape) for i in range(cases)]
