"""Generate the offline model's evaluation sets: data/offline_eval/dev.jsonl and test.jsonl.

Each item is a short chat from the user (one or more messages), the gold profile slots
(`name`, `employer`, `role`, `location`; None when not stated about the user: negated,
hypothetical, planned, asked about, or a relative's or colleague's), and one question about a
slot with its gold answer (None: the right answer is "I don't know").

Both sets come from the same phrasing families, but each family has several wordings: the dev
set uses the first wordings, the sealed test set the others, and the two sets draw names, places
and organisations from disjoint pools. The test pools appear nowhere in memlib/offline, the data/
fixtures or the dev set (`check_sealed` asserts it). Deterministic: a fixed seed.

The test set is sealed: develop the rules against dev.jsonl only, and look at the test set's
aggregate scores (benchmarks/offline_model.py), never at its sentences.

Usage: python scripts/make_offline_eval.py [--check]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "offline_eval"
SEED = 20261201

POOLS = {
    "dev": {
        "names": ["Nadia", "Felix", "Hugo", "Greta", "Tomas", "Leila", "Oscar", "Mira", "Pavel"],
        "surnames": ["Moreau", "Keller", "Novak", "Lindqvist", "Barros"],
        "cities": ["Lisbon", "Vienna", "Porto", "Dublin", "Krakow", "Seville", "Utrecht", "Riga"],
        "orgs": [
            "Globex",
            "Initech",
            "Umbrella Health",
            "Stark Logistics",
            "Wayne Foods",
            "Cyberdyne",
            "Hooli",
            "Vandelay Imports",
        ],
        "roles": [
            "data analyst",
            "nurse",
            "product manager",
            "teacher",
            "backend developer",
            "accountant",
            "architect",
            "pharmacist",
        ],
    },
    "test": {
        "names": [
            "Oriane",
            "Tobiah",
            "Marisol",
            "Ilkka",
            "Zainab",
            "Radomir",
            "Ysolde",
            "Kwabena",
            "Henrike",
            "Auberon",
            "Solveig",
            "Thaddeus",
            "Nkechi",
            "Eamonn",
            "Ludmila",
            "Cosimo",
        ],
        "surnames": ["Okonkwo", "Haverford", "Castellanos", "Brannigan", "Oyelaran", "Strzelecki"],
        "cities": [
            "Ljubljana",
            "Valparaiso",
            "Winnipeg",
            "Thessaloniki",
            "Gdansk",
            "Bilbao",
            "Tartu",
            "Kaunas",
            "Aarhus",
            "Hobart",
            "Tampere",
            "Leuven",
            "Graz",
            "Cuenca",
        ],
        "orgs": [
            "Quillfeather Analytics",
            "Bramblewood Labs",
            "Norvanta",
            "Tidewell Health",
            "Corvel Systems",
            "Pellucid Bio",
            "Harrowgate Logistics",
            "Kestrel Dynamics",
            "Lumenfold",
            "Sablewick",
            "Marrowby Foods",
            "Verdigris Capital",
        ],
        "roles": [
            "actuary",
            "structural engineer",
            "sous chef",
            "paralegal",
            "UX researcher",
            "radiographer",
            "biostatistician",
            "veterinary nurse",
            "procurement manager",
            "site reliability engineer",
        ],
    },
}

# family -> list of wordings; a wording is (messages, gold) with {placeholders}.
# Gold values are placeholders or None. The first DEV_WORDINGS wordings go to dev, the rest to test.
DEV_WORDINGS = 1
N = "{name}"
FAMILIES: dict[str, list[tuple[list[str], dict]]] = {
    "intro_plain": [
        (
            ["Hi, I'm {name}. I work at {org} as a {role}, and I live in {city}."],
            {"name": N, "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Hello! I am {name}, a {role} with {org}. I live in {city}."],
            {"name": N, "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Hey there, {name} speaking. I'm a {role} at {org} and I live in {city}."],
            {"name": N, "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "name_here": [
        (
            ["{name} here.", "I'm a {role} at {org}."],
            {"name": N, "employer": "{org}", "role": "{role}"},
        ),
        (
            ["It's {name} here.", "I work for {org}; I'm their {role}."],
            {"name": N, "employer": "{org}", "role": "{role}"},
        ),
        (
            ["{name} here again.", "Quick context: I'm a {role} at {org}."],
            {"name": N, "employer": "{org}", "role": "{role}"},
        ),
    ],
    "call_me": [
        (
            ["Call me Dr. {surname}.", "I live in {city}."],
            {"name": "Dr. {surname}", "location": "{city}"},
        ),
        (["Please call me {name}.", "I'm based in {city}."], {"name": N, "location": "{city}"}),
        (
            ["Everyone calls me {name}.", "I'm a {role} living in {city}."],
            {"name": N, "role": "{role}", "location": "{city}"},
        ),
    ],
    "origin_now": [
        (["I'm originally from {city2} but now live in {city}."], {"location": "{city}"}),
        (["I grew up in {city2}, but these days I live in {city}."], {"location": "{city}"}),
        (
            ["Born in {city2}, living in {city} now.", "My name is {name}."],
            {"name": N, "location": "{city}"},
        ),
    ],
    "relative_city": [
        (["My sister lives in {city2}.", "I live in {city}."], {"location": "{city}"}),
        (["My brother works at {org2} in {city2}.", "I'm {name}."], {"name": N}),
        (
            ["My mum lives in {city2} and my cousin is a {role2}.", "I'm {name}, a {role}."],
            {"name": N, "role": "{role}"},
        ),
    ],
    "hypothetical": [
        (["If I ever moved to {city2}, I'd want a bigger flat.", "I'm {name}."], {"name": N}),
        (
            ["I'd love to work at {org2} someday.", "My name is {name} and I live in {city}."],
            {"name": N, "location": "{city}"},
        ),
        (["Imagine if I lived in {city2}!", "Anyway, I'm {name}."], {"name": N}),
    ],
    "former_employer": [
        (["I don't work at {org2} anymore; these days I'm with {org}."], {"employer": "{org}"}),
        (["I left {org2} last year and joined {org}."], {"employer": "{org}"}),
        (
            ["I no longer work for {org2}. Now I work at {org} as a {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
    ],
    "lowercase": [
        (
            ["hey, i'm {lname}, i work at {lorg} and live in {lcity}."],
            {"name": N, "employer": "{org}", "location": "{city}"},
        ),
        (["hi i am {lname} and i live in {lcity}"], {"name": N, "location": "{city}"}),
        (
            ["my name is {lname}. i'm a {role} at {lorg}."],
            {"name": N, "employer": "{org}", "role": "{role}"},
        ),
    ],
    "used_to_moved": [
        (["I used to live in {city2}.", "I moved to {city} last month."], {"location": "{city}"}),
        (["I lived in {city2} for years before relocating to {city}."], {"location": "{city}"}),
        (["I used to be a {role2}, but now I'm a {role}."], {"role": "{role}"}),
    ],
    "plans_applications": [
        (["I applied for a job at {org2}.", "I'm {name}."], {"name": N}),
        (
            ["I'm planning to move to {city2} next year.", "Right now I live in {city}."],
            {"location": "{city}"},
        ),
        (["I have an interview at {org2} on Friday.", "My name is {name}."], {"name": N}),
    ],
    "questions": [
        (["Do you know if {org2} is hiring?", "I'm {name}."], {"name": N}),
        (["Is {city2} nice in winter?", "I live in {city} myself."], {"location": "{city}"}),
        (["Would {org2} be a good place to work?", "Me? I'm a {role}."], {"role": "{role}"}),
    ],
    "colleague": [
        (["My colleague {name2} is a {role2} at {org}.", "My name is {name}."], {"name": N}),
        (
            ["My manager {name2} lives in {city2}.", "I'm {name}, I work at {org}."],
            {"name": N, "employer": "{org}"},
        ),
        (["My friend {name2} just moved to {city2}.", "I'm {name}."], {"name": N}),
    ],
    "negation_role": [
        (["I'm not a {role2} - I'm actually a {role}."], {"role": "{role}"}),
        (["People think I'm a {role2}, but I'm not; I'm a {role}."], {"role": "{role}"}),
        (["I don't live in {city2}. I live in {city}."], {"location": "{city}"}),
    ],
    "tenure": [
        (
            ["I've been working as a {role} for {org} for three years."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["For the past two years I've worked at {org} as a {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (["I have been a {role} at {org} since 2019."], {"employer": "{org}", "role": "{role}"}),
    ],
    "name_based": [
        (["My name is {name} and I'm based in {city}."], {"name": N, "location": "{city}"}),
        (["The name's {name}. I'm in {city}."], {"name": N, "location": "{city}"}),
        (["I go by {name}; home is {city}."], {"name": N, "location": "{city}"}),
    ],
    "job_sentence": [
        (
            ["I work in {city} as a {role} for {org}."],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["My job title is {role}, and my employer is {org}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (["By day I'm a {role}; {org} pays the bills."], {"role": "{role}"}),
    ],
}

SLOTS = ("name", "employer", "role", "location")
QUESTIONS = {
    "name": ["What's my name?", "Do you remember my name?", "What am I called?"],
    "employer": ["Who do I work for?", "Where do I work these days?", "Which company employs me?"],
    "role": ["What do I do for a living?", "What is my job?", "What's my role at work?"],
    "location": ["Which city do I live in now?", "Where do I live?", "What city am I based in?"],
}


def _fill(template: str, values: dict[str, str]) -> str:
    text = template.format(**values)
    return re.sub(r"\b([Aa]) (?=[aeio])", r"\1n ", text)  # "a actuary" -> "an actuary"


def _items(split: str, per_wording: int, rng: random.Random) -> list[dict]:
    pool = POOLS[split]
    out = []
    for family, wordings in FAMILIES.items():
        chosen = wordings[:DEV_WORDINGS] if split == "dev" else wordings[DEV_WORDINGS:]
        for w_index, (messages, gold) in enumerate(chosen):
            for _ in range(per_wording):
                name, name2 = rng.sample(pool["names"], 2)
                city, city2 = rng.sample(pool["cities"], 2)
                org, org2 = rng.sample(pool["orgs"], 2)
                role, role2 = rng.sample(pool["roles"], 2)
                values = {
                    "name": name,
                    "name2": name2,
                    "surname": rng.choice(pool["surnames"]),
                    "city": city,
                    "city2": city2,
                    "org": org,
                    "org2": org2,
                    "role": role,
                    "role2": role2,
                    "lname": name.lower(),
                    "lcity": city.lower(),
                    "lorg": org.lower(),
                }
                slots = {s: (_fill(gold[s], values) if s in gold else None) for s in SLOTS}
                slot = rng.choice(SLOTS)
                distractors = sorted(
                    {values[k] for k in ("name2", "city2", "org2", "role2")}
                    | {v for s, v in slots.items() if v and s != slot}
                )
                out.append(
                    {
                        "id": f"{split}-{family}-{w_index}-{len(out)}",
                        "family": family,
                        "messages": [_fill(m, values) for m in messages],
                        "gold": slots,
                        "question": rng.choice(QUESTIONS[slot]),
                        "slot": slot,
                        "answer": slots[slot],
                        "distractors": [d for d in distractors if d != slots[slot]],
                    }
                )
    return out


def build() -> dict[str, list[dict]]:
    rng = random.Random(SEED)
    return {"dev": _items("dev", 6, rng), "test": _items("test", 7, rng)}


def check_sealed(sets: dict[str, list[dict]]) -> None:
    """Assert that no test-pool name, place or organisation appears in the rules, fixtures or dev."""
    haystack = "\n".join(
        p.read_text(encoding="utf-8", errors="ignore").lower()
        for pattern in (
            "memlib/offline/*.py",
            "data/**/*.jsonl",
            "data/**/*.md",
            "memlib/data/**/*",
        )
        for p in ROOT.glob(pattern)
        if p.is_file() and "offline_eval" not in p.parts
    )
    haystack += "\n" + json.dumps(sets["dev"]).lower()
    pool = POOLS["test"]
    for word in pool["names"] + pool["surnames"] + pool["cities"] + pool["orgs"]:
        if re.search(rf"\b{re.escape(word.lower())}\b", haystack):
            raise SystemExit(
                f"sealed test value {word!r} appears in the rules, fixtures or dev set"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the files are out of date")
    args = parser.parse_args()
    sets = build()
    check_sealed(sets)
    OUT.mkdir(parents=True, exist_ok=True)
    for split, items in sets.items():
        text = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
        path = OUT / f"{split}.jsonl"
        if args.check:
            if path.read_text(encoding="utf-8") != text:
                sys.exit(f"{path} is out of date: run scripts/make_offline_eval.py")
        else:
            path.write_text(text, encoding="utf-8")
        families = len({i["family"] for i in items})
        print(f"{path.relative_to(ROOT)}: {len(items)} items, {families} families")


if __name__ == "__main__":
    main()
