"""Generate the offline model's evaluation sets: offline_model/data/dev.jsonl and test.jsonl.

Each item is a short chat from the user (one or more messages), the gold profile slots
(`name`, `employer`, `role`, `location`; None when not stated about the user now: negated,
hypothetical, planned, past, asked about, or a relative's or colleague's), and one question about a
slot with its gold answer (None: the right answer is "I don't know").

Dev and sealed test:
- dev.jsonl: every wording ever seen by whoever writes the offline model's rules. All of them live
  in FAMILIES below (families of wordings with {placeholders} and gold slots), filled from the dev
  pools (POOLS). Develop the rules against dev.jsonl only.
- test.jsonl: the sealed wordings and pools, which live in offline_eval_sealed.py (this folder)
  (SEALED_FAMILIES, SEALED_POOLS), written by someone who did not write the rules. Whoever
  changes the rules must not open that file or test.jsonl, only look at the test set's aggregate
  scores (offline_model/benchmarks/offline_eval.py).
- When a sealed wording shapes a rule (or is otherwise seen by whoever writes the rules), it moves
  to FAMILIES here (dev), and new sealed wordings and pools are written in its place.

The sealed pools' names, surnames, places, organisations and roles appear nowhere in memlib/,
the offline model's modules and tests (offline_model/*.py, offline_model/tests/), data/, tests/,
notebooks/, the dev set or the retired pools (`check_sealed` asserts it). Deterministic: fixed
seeds. The dev items keep their ids when wordings are appended: the first wording of each family
is drawn first, as it always was.

Usage: python offline_model/scripts/make_offline_eval.py [--check]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # offline_model/
ROOT = HERE.parent
OUT = HERE / "data"
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
        # Added 2026-12-01 for the families after ORIGINAL_FAMILIES only (_draw_wide): the keys
        # above stay as they were, so the original items keep their content.
        "more_names": ["Siobhan", "Rafael", "Ingrid", "Kenji", "Amara", "Dmitri"],
        "hyphen_names": ["Anne-Sophie", "Jean-Luc", "Mary-Kate", "Karl-Heinz"],
        "double_surnames": ["Ashby-Clarke", "Ortega-Ruiz", "Lund-Hansen", "Vance-Holloway"],
        "more_cities": ["Buenos Aires", "Cape Town", "New Orleans", "Las Palmas", "Mexico City"],
        "more_orgs": [
            "Acme Corp",
            "Dunder Mifflin",
            "Oceanic Airlines",
            "Pied Piper",
            "Soylent Corporation",
            "Massive Dynamic",
        ],
        "more_roles": [
            "graphic designer",
            "tram driver",
            "civil servant",
            "librarian",
            "software engineer",
        ],
        # lines of work said as "I'm in X" / "I do X for Y" (gold role: the field itself)
        "fields": ["marketing", "sales", "payroll", "recruitment", "customer support", "insurance"],
        # Added 2026-12-01 (second widening) for the families after WIDE_FAMILIES only
        # (_draw_wide2): accented names and cities, organisations with numbers in their names.
        "accent_names": ["José", "Zoë", "Björn", "Renée", "Chloé", "Søren"],
        "accent_cities": ["São Paulo", "Zürich", "Malmö", "Bogotá"],
        "number_orgs": ["3M", "7-Eleven", "Forever 21"],
    },
}

# The pools of an earlier sealed test set, seen since: they stay out of the sealed pools.
RETIRED_POOLS = [
    {
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
]

# The dev wordings: every wording seen by whoever writes the rules.
# family -> list of wordings; a wording is (messages, gold) with {placeholders}.
# Gold values are placeholders; a slot left out is None. The first FIRST_WORDINGS wordings of each
# family are drawn first (the original dev set, whose ids stay put), then the others (the wordings
# of the earlier sealed set, moved here once seen), all from the dev pools.
FIRST_WORDINGS = 1
DEV_PER_WORDING = 6
SEALED_FILE = Path(__file__).resolve().with_name("offline_eval_sealed.py")
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
    # ---- Added 2026-12-01 (all wordings drawn after the original families' items, from the
    # dev pools widened with the "more_*" keys: see build() and _draw_wide). ----
    # The user's reply to a question from the assistant (only the user's side is given).
    "reply_answer": [
        (
            ["Sure - it's {name}. And I'm in {city}, if that helps."],
            {"name": N, "location": "{city}"},
        ),
        (["Oh, {org}! I'm a {role} there."], {"employer": "{org}", "role": "{role}"}),
        (["Yep, {city}. I've lived here about four years now."], {"location": "{city}"}),
    ],
    # Facts spread over several messages, with small talk in between.
    "spread_smalltalk": [
        (
            [
                "Morning! Rough night, the neighbours' dog barked for hours.",
                "Anyway, I'm {name}, by the way.",
                "Coffee first, then work - I'm a {role} at {org}, so the day starts early.",
            ],
            {"name": N, "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Is it just me or is every week getting shorter?",
                "I live in {city}, and it's been raining nonstop.",
                "Oh, and I'm {name}.",
            ],
            {"name": N, "location": "{city}"},
        ),
        (
            [
                "Thanks for the help yesterday!",
                "The report went well - my boss at {org} liked it.",
                "Not bad for a {role} who hates spreadsheets, ha.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
    ],
    # The user corrects what they said.
    "self_correction": [
        (
            ["I live in {city2}.", "Sorry, I meant {city} - {city2} is where my parents live."],
            {"location": "{city}"},
        ),
        (
            [
                "I work at {org2} as a {role}.",
                "Correction: {org2} was my old job, I'm at {org} now.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (["I'm a {role2}, sorry, I meant to type {role}. Autocorrect, ugh."], {"role": "{role}"}),
    ],
    # A partner's, child's or parent's facts next to (or instead of) the user's.
    "family_members": [
        (
            ["My partner {name2} works at {org2} as a {role2}, while I'm a {role} at {org}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["My son just started at {org2} as a {role2} - so proud!", "We live in {city}."],
            {"location": "{city}"},
        ),
        (
            [
                "My dad was a {role2} in {city2} for forty years.",
                "My other half, {name2}, works at {org2}.",
            ],
            {},
        ),
    ],
    # Several facts listed in one sentence.
    "fact_list": [
        (
            ["Name: {name}, job: {role}, company: {org}, city: {city}."],
            {"name": N, "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["{name}, {role}, {org}, {city} - that's me in a nutshell."],
            {"name": N, "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Quick facts: I'm {name}, I live in {city}, I work for {org}, and I'm a {role}."],
            {"name": N, "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
    ],
    # A formal, email-like introduction with a signature.
    "formal_email": [
        (
            [
                "Dear assistant,\n\nI am writing to introduce myself. I am a {role} at {org}, "
                "based in {city}.\n\nKind regards,\n{name} {surname}"
            ],
            {
                "name": "{name} {surname}",
                "employer": "{org}",
                "role": "{role}",
                "location": "{city}",
            },
        ),
        (
            [
                "Good afternoon,",
                "I work as a {role} for {org} and would appreciate your help with a report.",
                "Best wishes,\nDr. {name} {surname}",
            ],
            {"name": "Dr. {name} {surname}", "employer": "{org}", "role": "{role}"},
        ),
        (
            ["Hello,\nPlease find my details below.\n\n{name} {surname}\n{role}, {org}\n{city}"],
            {
                "name": "{name} {surname}",
                "employer": "{org}",
                "role": "{role}",
                "location": "{city}",
            },
        ),
    ],
    # Chatty run-on sentences.
    "run_on": [
        (
            [
                "OK so basically I'm {name} and I live in {city} which is great except for the "
                "rent which is insane and my job at {org} doesn't exactly pay a fortune so yeah"
            ],
            {"name": N, "employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "honestly the commute is the worst part of being a {role} at {org} but {city} is "
                "home so what can you do"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Long day!! Meetings from nine to five, which is what being a {role} means I "
                "guess, and tomorrow {org} wants me in early again, and my friend {name2} keeps "
                "texting me about a trip to {city2}"
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
    ],
    # Missing apostrophes, lowercase and chat shorthand.
    "typos": [
        (["im {lname} and i live in {lcity} now"], {"name": N, "location": "{city}"}),
        (
            ["hi!! names {lname}, im a {role} at {lorg}, dont really like it tbh"],
            {"name": N, "employer": "{org}", "role": "{role}"},
        ),
        (
            ["i dont work at {lorg2} anymore, im at {lorg} now. still live in {lcity} tho"],
            {"employer": "{org}", "location": "{city}"},
        ),
    ],
    # A line of work: "I do X for Y", "I'm in X" (not a place), next to "I'm in <city>".
    "line_of_work": [
        (["I do {field} for {org}."], {"employer": "{org}", "role": "{field}"}),
        (
            ["I'm in {field} at {org}.", "And I'm in {city}, in case that matters for time zones."],
            {"employer": "{org}", "role": "{field}", "location": "{city}"},
        ),
        (
            ["Work-wise I'm in {field}; home-wise I'm in {city}.", "I'm not in {field2} any more."],
            {"role": "{field}", "location": "{city}"},
        ),
    ],
    # Commuting, and being somewhere only for a while: home is where the user lives.
    "commute": [
        (
            ["I commute from {city} to {city2} every day for work at {org}."],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "Every morning I take the train from {city} into {city2}, where I work as a {role} for {org}."
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["I'm in {city2} this week for a conference, but I live in {city}."],
            {"location": "{city}"},
        ),
    ],
    # A new job.
    "recently_became": [
        (["I recently became a {role} at {org}!"], {"employer": "{org}", "role": "{role}"}),
        (
            ["I just started as a {role} at {org} this week.", "Before that I was a {role2}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["Guess who finally qualified as a {role}? Me! {name}!"],
            {"name": N, "role": "{role}"},
        ),
    ],
    # A new home, often said with "we".
    "just_moved": [
        (["We just moved to {city} from {city2} \U0001f389"], {"location": "{city}"}),
        (
            ["My partner and I relocated to {city} last month; I still work remotely for {org}."],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            ["Finally unpacked the last boxes in our new flat in {city}.", "I'm {name}, hi!"],
            {"name": N, "location": "{city}"},
        ),
    ],
    # Titles (Dr., Prof.).
    "titles": [
        (
            ["Hi, this is Dr. {name} {surname}, {role} at {org}."],
            {"name": "Dr. {name} {surname}", "employer": "{org}", "role": "{role}"},
        ),
        (
            ["Prof. {surname} here. I'm based in {city}."],
            {"name": "Prof. {surname}", "location": "{city}"},
        ),
        (
            ["You can address me as Dr. {surname} - I'm a {role} with {org}."],
            {"name": "Dr. {surname}", "employer": "{org}", "role": "{role}"},
        ),
    ],
    # Hyphenated and double-barrelled names, multi-word cities and organisations.
    "multiword_names": [
        (
            ["I'm {hname} {dsurname} and I live in {mcity}."],
            {"name": "{hname} {dsurname}", "location": "{mcity}"},
        ),
        (
            ["My name is {hname}, I'm a {role} at {morg}."],
            {"name": "{hname}", "employer": "{morg}", "role": "{role}"},
        ),
        (
            ["Hi! {name} {dsurname} here, based in {mcity}, working for {morg}."],
            {"name": "{name} {dsurname}", "employer": "{morg}", "location": "{mcity}"},
        ),
    ],
    # Emoji and exclamation marks.
    "emoji": [
        (
            [
                "Hiii!! \U0001f44b I'm {name}!!! Just landed my dream job as a {role} at {org} \U0001f389\U0001f389"
            ],
            {"name": N, "employer": "{org}", "role": "{role}"},
        ),
        (["{city} is home \u2764\ufe0f been here 5 years and loving it!"], {"location": "{city}"}),
        (
            ["omg hi \U0001f605 {name} here, {role} at {org}, send coffee \u2615"],
            {"name": N, "employer": "{org}", "role": "{role}"},
        ),
    ],
    # Questions to the assistant mixed with statements about the user.
    "question_mixed": [
        (
            [
                "I'm a {role} in {city} - do you think {org2} would be a better employer than {org}, where I work now?"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "What's the weather like in {city2} in March? I live in {city} and I'm visiting next week."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "Can you help me with a cover letter? I'm {name}, currently a {role} at {org}, applying to {org2}."
            ],
            {"name": N, "employer": "{org}", "role": "{role}"},
        ),
    ],
    # ---- Added 2026-12-01, second widening (drawn after all the families above, from the dev
    # pools widened again with accented names and cities and numbered organisations: see
    # _draw_wide2). ----
    # Passive voice: hired by, employed by.
    "passive_employed": [
        (
            ["I was hired by {org} last spring as a {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["I'm employed by {org}, and I live in {city}, about twenty minutes from the office."],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            ["I've been employed by {org} since 2021; before that I was employed by {org2}."],
            {"employer": "{org}"},
        ),
    ],
    # Relative clauses and appositions carrying the fact.
    "relative_clause": [
        (
            ["The company I work for, {org}, just announced a hiring freeze, which is stressful."],
            {"employer": "{org}"},
        ),
        (
            ["The city I live in, {city}, has the worst parking in the world."],
            {"location": "{city}"},
        ),
        (
            [
                "The firm that pays my salary, {org}, wants me to relocate, but I'm staying put in {city}."
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
    ],
    # Clefts and pseudo-clefts.
    "cleft": [
        (
            ["It's {org} where I work, not {org2} - people always mix them up."],
            {"employer": "{org}"},
        ),
        (
            ["It was {city2} where I grew up, but it's {city} that I call home now."],
            {"location": "{city}"},
        ),
        (
            ["What I do is {field}, and who I do it for is {org}."],
            {"employer": "{org}", "role": "{field}"},
        ),
    ],
    # A place fronted as the setting of the sentence.
    "fronted_place": [
        (["Here in {city}, the weather has been awful all week."], {"location": "{city}"}),
        (
            ["Over here in {city} we've had three public holidays this month, lucky me."],
            {"location": "{city}"},
        ),
        (
            ["Back in {city2} it would be sunny right now, but here in {city} it's grey as usual."],
            {"location": "{city}"},
        ),
    ],
    # Verbless fragments.
    "nominal_phrases": [
        (
            ["{crole}. {org}. Based in {city}."],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Thirty-something {role}, {city} resident, coffee addict."],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            ["Just a tired {role} living the {city} life, trying to figure out my taxes."],
            {"role": "{role}", "location": "{city}"},
        ),
    ],
    # Self-description inside an "as a ..." phrase.
    "as_a_role": [
        (
            ["As a {role} at {org}, I often have to deal with difficult customers."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["As a {city} resident, I'm curious how the new tram line will work."],
            {"location": "{city}"},
        ),
        (["Speaking as a {role} myself, I think the new rules are a mess."], {"role": "{role}"}),
    ],
    # Possessive chains: the user's facts inside a longer noun phrase.
    "possessive_chain": [
        (
            ["My team at {org_s} {city2} office is tiny - just four of us."],
            {"employer": "{org}"},
        ),
        (
            ["My boss's boss at {org} is a former {role2}; I'm just a humble {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["My company's HQ is in {city2}, but my desk is in {city}, where I live."],
            {"location": "{city}"},
        ),
    ],
    # Time adverbials first.
    "since_time": [
        (["Since March I've been living in {city}."], {"location": "{city}"}),
        (
            ["Ever since I joined {org} in 2022, I've barely had a weekend off."],
            {"employer": "{org}"},
        ),
        (
            ["Since last autumn I've been working as a {role}; before that I was at uni."],
            {"role": "{role}"},
        ),
    ],
    # Contrast with "not".
    "contrastive_not": [
        (["{city}, not {city2}, is where I live."], {"location": "{city}"}),
        (
            ["Not {org2} - {org}! That's where I work. {org2} is our competitor."],
            {"employer": "{org}"},
        ),
        (["I'm a {role}, not a {role2}; a {role2} would earn twice as much."], {"role": "{role}"}),
    ],
    # Reported speech: what others say about the user, true or not.
    "reported_speech": [
        (
            ["My mum tells everyone I'm a {role2}, but I'm actually a {role}."],
            {"role": "{role}"},
        ),
        (
            ["{name2} keeps saying I should move to {city2}, but I like living in {city}."],
            {"location": "{city}"},
        ),
        (
            ["My boss told me I'm the best {role} {org} has ever had, which was nice."],
            {"employer": "{org}", "role": "{role}"},
        ),
    ],
    # Questions to the assistant with the user's facts embedded in them.
    "embedded_question": [
        (
            [
                "As someone who lives in {city}, should I get travel insurance for a trip to {city2}?"
            ],
            {"location": "{city}"},
        ),
        (
            ["Given that I work at {org}, is it weird to apply to {org2} as well?"],
            {"employer": "{org}"},
        ),
        (
            ["How do I ask for a raise when I'm the only {role} at {org}?"],
            {"employer": "{org}", "role": "{role}"},
        ),
    ],
    # A plan next to the current fact, in clipped chat style.
    "plan_vs_current": [
        (["Starting at {org2} next month; for now I'm still at {org}."], {"employer": "{org}"}),
        (
            ["Moving to {city2} in the summer, but until then I'm in {city}."],
            {"location": "{city}"},
        ),
        (
            ["I'll be a {role2} once I finish retraining; at the moment I work as a {role}."],
            {"role": "{role}"},
        ),
    ],
    # Long messages with the facts buried in the middle of a paragraph.
    "buried_long": [
        (
            [
                "So I've been meaning to ask about meal planning. Work has been crazy lately - I'm "
                "a {role} at {org} and we're in the middle of an audit - and by the time I get "
                "home to my flat in {city} I'm too tired to cook anything more complicated than "
                "toast. My sister {name2} says I should batch cook on Sundays, but honestly "
                "Sundays are for sleeping. Any tips?"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Quick question about running shoes. Some background: I'm {name}, I started "
                "running last year after my doctor nagged me, and I mostly run along the river "
                "here in {city} before work. My friend in {city2} swears by trail shoes, but I'm "
                "on pavement most of the time. What should I look for?"
            ],
            {"name": N, "location": "{city}"},
        ),
        (
            [
                "I need help writing a toast for my brother's wedding. He's marrying a {role2} "
                "from {city2}, which is hilarious because he swore he'd never date anyone in that "
                "job. For context, I'm the older sibling, I work at {org} (boring, I know), and "
                "I'll be flying in from {city}, where I live, the day before. Can you help me "
                "make it funny but not mean?"
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
    ],
    # Accented names and places, with a greeting in another language.
    "accented_names": [
        (
            ["Hola! I'm {aname}, I live in {acity} and I work for {norg}."],
            {"name": "{aname}", "employer": "{norg}", "location": "{acity}"},
        ),
        (
            ["Bonjour - {aname} {surname} ici. Well, here. I'm a {role} in {acity}."],
            {"name": "{aname} {surname}", "role": "{role}", "location": "{acity}"},
        ),
        (
            [
                "Ciao! Mi chiamo {aname}. Sorry, English: my name is {aname}, I'm a {role} at {norg}."
            ],
            {"name": "{aname}", "employer": "{norg}", "role": "{role}"},
        ),
    ],
    # Organisations with numbers in their names.
    "number_orgs": [
        (
            ["I've worked at {norg} for ages, mostly in {field}."],
            {"employer": "{norg}", "role": "{field}"},
        ),
        (["{norg} is my employer - yes, that {norg}."], {"employer": "{norg}"}),
        (
            ["Day job: {role} at {norg}. Night job: sleeping."],
            {"employer": "{norg}", "role": "{role}"},
        ),
    ],
    # Several people in one sentence, the user's facts in the middle.
    "multi_person": [
        (
            [
                "My sister's a {role2} at {org2}, I'm a {role} at {org}, and our dad is retired in {city2}."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "{name2} lives in {city2}, I live in {city}, and my brother keeps moving between the two."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "My husband teaches in {city2}; me, I'm a {role} here in {city}; the kids are still at school."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
    ],
    # British and American colloquialisms.
    "uk_us_colloquial": [
        (
            [
                "Reckon I'll stay at {org} a while yet - I've only been their {role} since "
                "January, and my flat in {city} is ten minutes from the office."
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Y'all, I just got my first paycheck from {org}! Officially a {role} now."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Cheers, mate. {name} here - sorted my move to {city} last week, so that's where I'm living now."
            ],
            {"name": N, "location": "{city}"},
        ),
    ],
}
# The third widening: new wordings of the 16 original families, written by people who had not
# read the rules (2026-12-01), drawn after everything above with _draw_wide2, THIRD_PER_WORDING
# items each; their wording numbers continue after the family's existing ones.
THIRD_PER_WORDING = 3
THIRD_WORDINGS: dict[str, list[tuple[list[str], dict]]] = {
    "intro_plain": [
        (
            [
                "Hello! First time using this. I'm {name}, I live in {city}, and I'm a {role} "
                "over at {org}."
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Good evening. Allow me to introduce myself: my name is {name} {surname}. I am "
                "a {role} employed at {org}, and I reside in {city}."
            ],
            {
                "name": "{name} {surname}",
                "employer": "{org}",
                "role": "{role}",
                "location": "{city}",
            },
        ),
        (
            ["hey! so I'm {name} 👋", "work as a {role}, live in {city}, that's about it really"],
            {"name": "{name}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Hi all - {name} from {org}, where I'm the {role}. Based out of {city}."],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Thought I'd start with a bit about me. I'm {name}, thirty-four, married, two "
                "cats. I've been living in {city} for a while now and I'm a {role} at {org}. My "
                "husband {name2} works at {org2}, but that's another story."
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Hiya.",
                "Name's {name}.",
                "{city} is home, and {org} is where I clock in every morning - I'm one of their "
                "{role}s.",
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Hi, I'm {name}, and I both live and work in {city} - I'm a {role} at {org}."],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Before we start: I'm {name}. Not {name2} - that's whose account this is, my "
                "flatmate.",
                "I live in {city} and I'm a {role}.",
            ],
            {"name": "{name}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "name_here": [
        (
            ["Got a minute? It's {name} here - {org_s} new {role}."],
            {"name": "{name}", "employer": "{org}", "role": "{role}"},
        ),
        (
            ["Hi, {name} {surname} here from {org}.", "I'm the {role} on the team."],
            {"name": "{name} {surname}", "employer": "{org}", "role": "{role}"},
        ),
        (
            ["{name} here 🙂", "Living in {city} these days."],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "Hey, it's {name} here - my colleague {name2} said you could help.",
                "I'm a {role}, by the way.",
            ],
            {"name": "{name}", "role": "{role}"},
        ),
        (
            [
                "This is {name} here, writing on behalf of my manager {name2}, who's stuck in "
                "{city2} this week."
            ],
            {"name": "{name}"},
        ),
        (
            ["Evening! {name} here.", "Long shift at {org} today - being a {role} is no joke."],
            {"name": "{name}", "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "{hname} here!",
                "I'm with {morg}, working out of their office in {mcity} - that's also where I "
                "live.",
            ],
            {"name": "{hname}", "employer": "{morg}", "location": "{mcity}"},
        ),
        (
            [
                "Hi, {name} here, on my sister {name2}'s phone.",
                "She's a {role2} at {org2}; I'm a {role}.",
            ],
            {"name": "{name}", "role": "{role}"},
        ),
    ],
    "call_me": [
        (
            [
                "You can just call me {name}.",
                "Oh, and I'm a {role} at {org}, in case that's relevant.",
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}"},
        ),
        (
            ["Call me {hname}, please - and yes, it's hyphenated. I live in {city}."],
            {"name": "{hname}", "location": "{city}"},
        ),
        (
            ["Most people just call me Dr. {surname}.", "I practise in {city}, where I also live."],
            {"name": "Dr. {surname}", "location": "{city}"},
        ),
        (
            ["my friends call me {name}, so you can too", "live in {city}, work at {org}"],
            {"name": "{name}", "employer": "{org}", "location": "{city}"},
        ),
        (
            ["I'd prefer it if you called me {name}. And I'd rather not say where I live."],
            {"name": "{name}"},
        ),
        (
            [
                "Just {name} is fine, no need for anything formal.",
                "My brother {name2} calls me something ruder, but let's not go there.",
            ],
            {"name": "{name}"},
        ),
        (["Don't call me {name2} - that's my twin. Call me {name}."], {"name": "{name}"}),
        (
            [
                "Do call me {name} - I've never been one for formality. I'm a {role}, based in "
                "{city}."
            ],
            {"name": "{name}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "origin_now": [
        (
            ["{city2} born and raised, but I've lived in {city} for the last decade."],
            {"location": "{city}"},
        ),
        (
            ["I'm {name}, a {city2} native, though I've called {city} home since uni."],
            {"name": "{name}", "location": "{city}"},
        ),
        (["Originally? {city2}. Currently? {city}. Long story."], {"location": "{city}"}),
        (
            [
                "I was born in {city2} to a family of {role2}s, moved around a lot as a kid, and "
                "now I'm settled in {city}, working as a {role}."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            [
                "My roots are in {acity} - my whole family's still there.",
                "Me, I live in {city} now, with my partner.",
            ],
            {"location": "{city}"},
        ),
        (
            [
                "Although I'm from {city2} originally, {city} is where I live these days - I'm "
                "at {org}."
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "Hi, I'm {name}! Grew up in {acity}, went to uni in {city2}, and I've been "
                "living in {city} since graduating."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "People hear my accent and assume I live in {city2}. I did grow up there, but "
                "I've lived in {city} for years."
            ],
            {"location": "{city}"},
        ),
    ],
    "relative_city": [
        (
            [
                "My parents retired to {city2} and my little brother lives in {acity} now.",
                "I'm still in {city}, where we all grew up.",
            ],
            {"location": "{city}"},
        ),
        (
            ["My wife's family is from {city2}; we visit them every Christmas. We live in {city}."],
            {"location": "{city}"},
        ),
        (
            [
                "My daughter's a {role2} in {city2} and my son works for {org2}.",
                "As for me, I'm retired and live in {city}.",
            ],
            {"location": "{city}"},
        ),
        (
            [
                "My grandmother lived in {city2} her whole life.",
                "I'm {name}, I live in {city} and work at {org}.",
            ],
            {"name": "{name}", "employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "My aunt {name2} runs a bakery in {city2} - I'm helping out there this "
                "weekend, but normally I live in {city}, where I work as a {role}."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            [
                "My cousin {name2} lives in {city} too, but works at {org2}.",
                "I'm {name}; I'm a {role} at {org}.",
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["My boyfriend lives in {city2} and I live in {city}, so it's long distance for now."],
            {"location": "{city}"},
        ),
        (
            [
                "My son {name2} is at uni in {city2}.",
                "I'm {name}, his mum, and I'm still living in {city}.",
            ],
            {"name": "{name}", "location": "{city}"},
        ),
    ],
    "hypothetical": [
        (
            [
                "If I won the lottery I'd quit and move to {city2} tomorrow.",
                "Sadly I'm still a {role} at {org}.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Suppose I took the job at {org2} - would I have to move to {city2}? I live in "
                "{city} at the moment."
            ],
            {"location": "{city}"},
        ),
        (
            ["In another life I'd be a {role2} in {city2}.", "In this one, I'm {name}, a {role}."],
            {"name": "{name}", "role": "{role}"},
        ),
        (
            [
                "Were I to become a {role2}, I'd need years of retraining, so I'll probably "
                "stay a {role}."
            ],
            {"role": "{role}"},
        ),
        (
            [
                "Say I moved to {city2} - would my {org} contract still be valid? I'm a {role} "
                "there at the moment."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Honestly, if {org2} offered me a job as a {role2} I'd take it in a heartbeat.",
                "I'm {name} by the way.",
            ],
            {"name": "{name}"},
        ),
        (
            ["I wish I lived in {city2}! Instead I live in {city}, where it never stops raining."],
            {"location": "{city}"},
        ),
        (
            [
                "Dream scenario: I'm a {role2} at {org2}, living in {city2}.",
                "Reality: {role} at {org}, living in {city}.",
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "former_employer": [
        (
            ["Until last March I was employed at {org2}; I have since joined {org} as a {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (["Ex-{org2}, now {role} at {org}."], {"employer": "{org}", "role": "{role}"}),
        (
            [
                "I was made redundant from {org2} in the spring.",
                "Luckily {org} took me on as a {role} a few weeks later, and I'm still there.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "My old boss at {org2} still emails me sometimes, which is awkward now that "
                "I work for {org}."
            ],
            {"employer": "{org}"},
        ),
        (
            ["{org2}? Haven't worked there since 2020.", "I'm a {role} at {org} these days."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I spent a decade as a {role2} at {org2}. These days I'm a {role} at {org} "
                "- quite the career change!"
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Left {org2} at Easter - best thing I ever did, mate. Been at {org} since "
                "and never looked back."
            ],
            {"employer": "{org}"},
        ),
        (
            [
                "I'm {name}. I quit {org2} in January and I've been freelancing from home "
                "in {city} ever since."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
    ],
    "lowercase": [
        (
            ["heyyy", "{lname} here lol", "just moved to {lcity} for my job at {lorg}"],
            {"name": "{name}", "employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "so i'm a {role} at {lorg}, been there about two years, and i live in {lcity} "
                "with my partner"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "quick q - i'm {lname}, i used to work at {lorg2} but now i'm at {lorg}. how do i "
                "update my linkedin?"
            ],
            {"name": "{name}", "employer": "{org}"},
        ),
        (
            ["my name's {lname} and i'm not a {role2}, i'm a {role}, people always get that wrong"],
            {"name": "{name}", "role": "{role}"},
        ),
        (
            ["{lcity} based {role} here, any tips for filing taxes?"],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            [
                "hello. i am {lname}. i live in {lcity}. my brother works at {lorg2} but i work "
                "at {lorg}."
            ],
            {"name": "{name}", "employer": "{org}", "location": "{city}"},
        ),
        (
            ["im a {role}", "at {lorg}", "live in {lcity} btw"],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "wait did i tell you my name? it's {lname}",
                "and no, i don't live in {lcity} anymore, moved out last year",
            ],
            {"name": "{name}"},
        ),
    ],
    "used_to_moved": [
        (
            [
                "Spent most of my twenties in {city2}.",
                "These days it's {city} for me - moved here in the spring and I'm not going back.",
            ],
            {"location": "{city}"},
        ),
        (
            [
                "Back when I was a {role2} I basically lived out of a suitcase. Switched "
                "careers in 2020 and I've been a {role} at {org} ever since."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I was at {org2} for six years, then {org} for two. Now I freelance as a "
                "{role} from home in {city}."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            ["Formerly {city2}-based, now a proper {city} local.", "{name}, by the way."],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "hey, quick update on me",
                "my last day at {org2} was in june",
                "started at {org} two weeks ago as their new {role}",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I was a {role2} in {city2} for about a decade. Then I retrained, moved to "
                "{city}, and now I work as a {role}."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Before relocating I was employed by {org2} in {city2}.",
                "Now I'm settled in {city}, still looking for work.",
            ],
            {"location": "{city}"},
        ),
        (
            [
                "I used to go by {name2}, but I've been {name} since I was about fifteen and "
                "that's what I'd like you to use."
            ],
            {"name": "{name}"},
        ),
    ],
    "plans_applications": [
        (
            [
                "Just sent off my application to {org2} - fingers crossed!",
                "For now I'm still a {role} at {org}.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Thinking about retraining as a {role2}.",
                "I'm a {role} with {org} at the moment and it's wearing me down.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "We've put an offer in on a house in {city2}, but completion isn't until "
                "spring, so {city} is home for a few more months yet."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "Got a second-round interview with {org2} next Tuesday!!",
                "don't tell my boss at {org} lol",
            ],
            {"employer": "{org}"},
        ),
        (
            [
                "{org2} offered me a job starting in January, but I haven't signed anything yet.",
                "I'm {name}, btw.",
            ],
            {"name": "{name}"},
        ),
        (
            [
                "Would you look over my cover letter? It's for a {role2} post at {org2}.",
                "Bit of background: I'm {name}, and I currently work as a {role}.",
            ],
            {"name": "{name}", "role": "{role}"},
        ),
        (
            [
                "Signed the contract with {org2} yesterday! Start date is the 1st of March.",
                "Until then I'm working out my notice at {org}.",
            ],
            {"employer": "{org}"},
        ),
        (
            [
                "Okay, long story, but I need to vent. My partner got a job offer in "
                "{city2} and we've been going back and forth about whether to move. I'd "
                "have to ask {org} for a transfer or quit, and I'm the only {role} on my "
                "team, so that's awkward. We live in {city} and honestly I love it. If "
                "we do go, it won't be before next summer. How do people make these "
                "decisions?"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "questions": [
        (
            [
                "Anyone know what {org2} pays a {role2}? Asking for myself - I'm a {role} at "
                "{org} and I've been wondering about switching."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["Is {city2} expensive?", "Compared to {city}, I mean, since that's where I live."],
            {"location": "{city}"},
        ),
        (
            [
                "what do {role2}s actually do all day?",
                "genuinely curious, I'm a {role} so I've never had to find out",
            ],
            {"role": "{role}"},
        ),
        (
            [
                "Should I move to {city2}? Honest opinions please.",
                "I'm {name}, {city} born and bred, and I've never lived anywhere else.",
            ],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "Does {org2} have an office in {city}?",
                "That's where I live, and I'm fed up with my job at {org}.",
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (["Who runs {org2} these days? And are they really moving their HQ to {city2}?"], {}),
        (
            [
                "Can a {role2} work remotely from {city2}, do you think? Not for me - I'm "
                "perfectly happy as a {role}, and I live in {city} - it's for a friend."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Would you happen to know whether {org2} sponsors work visas? I'm {name} "
                "{surname}, a {role} currently with {org}."
            ],
            {"name": "{name} {surname}", "employer": "{org}", "role": "{role}"},
        ),
    ],
    "colleague": [
        (
            [
                "{name2} from accounts just got promoted to {role2}, and meanwhile I'm still a "
                "lowly {role}."
            ],
            {"role": "{role}"},
        ),
        (
            ["Me and {name2} both work at {org} - {name2}'s a {role2}, I'm a {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "My coworker lives out in {city2} and commutes in every day. I'm lucky - I live "
                "in {city}, five minutes from the office."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "My team lead, {name2}, used to be at {org2}.",
                "I've only ever worked at {org} myself. I'm {name}, by the way.",
            ],
            {"name": "{name}", "employer": "{org}"},
        ),
        (
            [
                "Our new hire, {name2}, is relocating from {city2}, so I'm showing them around "
                "{city} this weekend - I live here, so I know all the good spots."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "ugh {name2} (the person at the next desk) will NOT stop talking about moving to "
                "{city2}",
                "anyway I'm {name}, {role} at {org}, please send help",
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "A colleague of mine, {name2}, is a {role2} in our {city2} office.",
                "I'm in the {city} office myself, since that's where I live.",
            ],
            {"location": "{city}"},
        ),
        (
            [
                "This is Dr. {surname}. Not to be confused with Dr. {dsurname}, my colleague down "
                "the hall, who is a {role2}; I'm the {role}."
            ],
            {"name": "Dr. {surname}", "role": "{role}"},
        ),
    ],
    "negation_role": [
        (
            ["Just to be clear, I'm no {role2}. I'm a {role}; completely different job."],
            {"role": "{role}"},
        ),
        (
            [
                "I wouldn't call myself a {role2}, really. I'm a {role} who occasionally gets "
                "roped into that stuff."
            ],
            {"role": "{role}"},
        ),
        (
            ["Nope, not {city2}! Never lived there in my life. I live in {city}."],
            {"location": "{city}"},
        ),
        (
            [
                "I don't work for {org2}, I work for {org} - easy mistake, we share a "
                "building. I'm a {role} there."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["My name isn't {name2}, it's {name}. Happens all the time, don't worry."],
            {"name": "{name}"},
        ),
        (
            [
                "I never did become a {role2} in the end. Dropped out, and now I'm a {role} "
                "at {org}, which I actually enjoy."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I'm not a {role2} and I don't work at {org2} - wrong person, I'm afraid.",
                "My name is {name}.",
            ],
            {"name": "{name}"},
        ),
        (
            [
                "Honestly? I'm not in {city2}, I'm not with {org2}, and I'm definitely not a "
                "{role2}.",
                "I'm {name}, I live in {city}, and I'm a {role} at {org}.",
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "tenure": [
        (
            ["Coming up on ten years at {org} now, all of them as a {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (["I'm in my fifth year as a {role} at {org}."], {"employer": "{org}", "role": "{role}"}),
        (
            ["Been with {org} since I graduated - started out as a {role2}, and now I'm a {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["I spent eight years at {org2}; I've been at {org} for just under one."],
            {"employer": "{org}"},
        ),
        (
            [
                "Random question, but does anyone else find that the longer they live somewhere the "
                "less they actually explore it? Going on three years living in {city} now, and I "
                "still haven't been to half the museums. My friend {name2} visited from {city2} last "
                "month and saw more in a weekend than I have in all that time."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "How long have I been at {org}? Feels like forever, but it's actually only eighteen "
                "months.",
                "I'm {name}, their {role}.",
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I did {field2} at {org2} for a while, but for the last couple of years I've been "
                "doing {field} at {org}."
            ],
            {"employer": "{org}", "role": "{field}"},
        ),
        (
            [
                "I worked at {org2} for eleven years, until they closed the office in {city2}.",
                "I'm {name}, and I'm retired now.",
            ],
            {"name": "{name}"},
        ),
    ],
    "name_based": [
        (
            ["Name? {name}. Location? {city}. Anything else you need?"],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "First name's {name}. I'm from {city2} originally, but I've lived in {city} for "
                "ages."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            ["It's {name}! We talked last week about the damp in my flat in {city}."],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            ["My parents named me {name} after a character in a book. Long story."],
            {"name": "{name}"},
        ),
        (
            [
                "I'm {hname}, with a hyphen - people always forget it.",
                "Living in {city} these days.",
            ],
            {"name": "{hname}", "location": "{city}"},
        ),
        (
            ["Hiya, {name} again! Still in {city}, still working for {org}."],
            {"name": "{name}", "employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "My name's {name}. {name2} is my twin - we get mixed up constantly, even by our "
                "own mum."
            ],
            {"name": "{name}"},
        ),
        (
            [
                "Your records might have me as {name2} - that was my old name. It's {name} now; "
                "I changed it when I got married."
            ],
            {"name": "{name}"},
        ),
    ],
    "job_sentence": [
        (["My job? I'm a {role} at {org}."], {"employer": "{org}", "role": "{role}"}),
        (["{org} employs me as a {role}, for my sins."], {"employer": "{org}", "role": "{role}"}),
        (
            ["I'm {org_s} only {role}, which means every weird request lands on my desk."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["I earn my living as a {role}.", "The company's {org}, if you've heard of them."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I'm a {role} by trade and I work at {org}, out of their {city2} office, "
                "though I live in {city}."
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "I'm a {role}. Freelance, so no boss, and I work from my kitchen table at home "
                "in {city}."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            ["The day job is {role} at {org}; the dream job is {role2} at {org2}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["I'm a {role} - work's at {org}, home's in {city}."],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
    ],
}

# The fourth widening: new wordings of the 33 later families, written the same way; drawn after
# the third's, THIRD_PER_WORDING items each.
FOURTH_WORDINGS: dict[str, list[tuple[list[str], dict]]] = {
    "reply_answer": [
        (
            [
                "Full name's {name} {surname}. And no, not {city2} any more - I've been in "
                "{city} since the summer."
            ],
            {"name": "{name} {surname}", "location": "{city}"},
        ),
        (
            ["{role2}? No, a {role}. Close, though - people mix them up all the time."],
            {"role": "{role}"},
        ),
        (
            ["Ha, good memory - yes, still at {org}, and still their {role}, sadly."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Right, sorry, should've said. I'm {name}.",
                "And to your other question: {city}, on the north side.",
            ],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "Nobody, at the moment - I got laid off from {org2} in May.",
                "But yes, I'm still living in {city}.",
            ],
            {"location": "{city}"},
        ),
    ],
    "spread_smalltalk": [
        (
            [
                "Did you see the match last night?",
                "Unreal ending. Half my team at {org} turned up hungover this morning, me "
                "included.",
                "Anyway. Can you help me draft a memo?",
            ],
            {"employer": "{org}"},
        ),
        (
            [
                "Happy Friday!! Finally booked a holiday, two whole weeks of sun.",
                "Living in {city} with no sunshine since October does that to you.",
                "Being a {role} all year doesn't help either, ha.",
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            [
                "How's your day going? Mine's been long.",
                "Three back-to-back calls with clients in {city2}, none of whom read my emails.",
                "Such is life as a {role} at {org}. Oh - I'm {name}, by the way.",
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Quick one before my lunch break ends.",
                "My sister {name2} is visiting from {city2} this weekend and I've no idea "
                "where to take her.",
                "I've lived in {city} for six years and still only know three restaurants, ha.",
            ],
            {"location": "{city}"},
        ),
        (
            [
                "ugh, my train was cancelled again",
                "so I'm stuck working from my flat in {city} today, which is fine I guess",
                "I'm {name} btw, don't think I said. can we look at that spreadsheet thing?",
            ],
            {"name": "{name}", "location": "{city}"},
        ),
    ],
    "self_correction": [
        (
            ["I'm {name2}.", "Wait, no - that's my username. My actual name is {name}."],
            {"name": "{name}"},
        ),
        (
            [
                "I'm a {role} at {org} in {city2}.",
                "Well, the office is in {city2}; I actually live in {city}. Should've been "
                "clearer.",
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "I'm a {role} at {org2}.",
                "Scratch that - {org2} is our biggest client. My employer is {org}. Long day.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (["I live in {city2}", "*{city}. autocorrect hates me"], {"location": "{city}"}),
        (
            [
                "My name is {name}, I'm a {role2}",
                "Ugh, hit enter too soon. I *trained* as a {role2}, but I work as a {role} now.",
            ],
            {"name": "{name}", "role": "{role}"},
        ),
    ],
    "family_members": [
        (
            [
                "Both my parents worked at {org2} their whole lives, so naturally I swore I "
                "never would.",
                "And I haven't - I'm a {role} at {org}.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["My husband is the {role2} in the family. I just do {field} for {org}."],
            {"employer": "{org}", "role": "{field}"},
        ),
        (
            [
                "We're a busy household: my partner works for {org2} in {city2}, our eldest "
                "is a {role2}, and the youngest is still at school.",
                "I stay home with the dog.",
            ],
            {},
        ),
        (
            [
                "I'm {name}, {name2}'s mum - she said you helped her with her CV.",
                "She's a {role2} at {org2}; I'm a {role} myself, at {org}.",
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}"},
        ),
        (
            ["My brother and I both live in {city} - he's at {org2}, I'm at {org}."],
            {"employer": "{org}", "location": "{city}"},
        ),
    ],
    "fact_list": [
        (
            ["About me:\n- {name}\n- {role} @ {org}\n- lives in {city}"],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Age 29, {role}, works at {org}, lives in {city}, two dogs, one cat, zero patience."],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Name - {name} {surname} | Employer - {org} | Title - {role} | Home - {city}"],
            {
                "name": "{name} {surname}",
                "employer": "{org}",
                "role": "{role}",
                "location": "{city}",
            },
        ),
        (
            [
                "In short: {name}; {role}; {org}; {city}. Previously a {role2} at {org2} in "
                "{city2}, but that's ancient history."
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "The basics, then.",
                "Me: {name}. Job: {role}. Home: {city}. Employer: none, I'm between jobs.",
            ],
            {"name": "{name}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "formal_email": [
        (
            [
                "To whom it may concern,\n"
                "\n"
                "My name is {name} {surname} and I am the {role} at {org}. I am contacting you "
                "regarding an outstanding invoice.\n"
                "\n"
                "Yours faithfully,\n"
                "{name} {surname}"
            ],
            {"name": "{name} {surname}", "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Dear Sir or Madam,",
                "Further to my previous correspondence, I write in my capacity as {role} at "
                "{org}, a post I have held for the past four years.",
                "Sincerely,\n{name} {surname}",
            ],
            {"name": "{name} {surname}", "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Hi team,\n"
                "\n"
                "Per our call, attaching the docs. Quick intro for those I haven't met: I'm "
                "{name}, the new {role} on the {org} side, working remotely from my home in "
                "{city}.\n"
                "\n"
                "Best,\n"
                "{name}"
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Dear Support Team,\n"
                "\n"
                "I am a former employee of {org2} and am now employed as a {role} by {org}. I "
                "would be grateful if you could update my records accordingly.\n"
                "\n"
                "Regards,\n"
                "Dr. {surname}"
            ],
            {"name": "Dr. {surname}", "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Good morning,\n"
                "\n"
                "Please accept this email as formal notice of my change of address: I have "
                "relocated from {city2} to {city}.\n"
                "\n"
                "Many thanks,\n"
                "{name} {surname}\n"
                "{role}, {org}"
            ],
            {
                "name": "{name} {surname}",
                "employer": "{org}",
                "role": "{role}",
                "location": "{city}",
            },
        ),
    ],
    "run_on": [
        (
            [
                "so yeah that's my week basically, work at {org} was a nightmare, my landlord here "
                "in {city} still hasn't fixed the boiler, and my mate {name2} wants me to drive to "
                "{city2} on Saturday which, no"
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "I mean I love being a {role} I really do but when {org} decides to restructure for "
                "the third time in a year and you're the one who has to explain it to everyone while "
                "also doing your actual job it gets a bit much you know"
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Right so the thing is I'm {name} and I'm supposed to be organising this leaving do "
                "for my boss who's moving to {city2} and I've got no idea where to book and everyone "
                "at {org} where I work has an opinion and none of them agree"
            ],
            {"name": "{name}", "employer": "{org}"},
        ),
        (
            [
                "anyway after all that I finally got home to {city} at like midnight because the "
                "trains were a mess and I have to be up at six tomorrow for my shift as a {role} so "
                "that's fun"
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            [
                "And then my cousin - the one who's a {role2} at {org2}, not the other one - told me "
                "I should quit and move in with her in {city2}, and I said no way, I like my job, I "
                "like living in {city}, I like my flat, I'm staying put"
            ],
            {"location": "{city}"},
        ),
    ],
    "typos": [
        (
            [
                "sry 4 the late reply, was on shift lol. ya im a {role} w/ {lorg}, been livin in "
                "{lcity} since jan"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["hey its {lname} again", "u asked where i live - its {lcity}, been here since 2019"],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "thx for yesterday!! ur a lifesaver",
                "btw my boss at {lorg} loved the deck. first win since i started as their {role} lol",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["teh office moved to {city2} but im still in {lcity} so wfh 4 days a wk now"],
            {"location": "{city}"},
        ),
        (
            [
                "wen i said {lorg2} earlier i ment my old job, cant type today. currently at {lorg}",
                "name {lname} if u need it",
            ],
            {"name": "{name}", "employer": "{org}"},
        ),
    ],
    "line_of_work": [
        (
            ["Been in {field} for about ten years now, the last three at {org}."],
            {"employer": "{org}", "role": "{field}"},
        ),
        (
            [
                "I work in {field}.",
                "Yes, really - I know everyone says it's boring. I live in {city}, if you want "
                "to recommend a career coach.",
            ],
            {"role": "{field}", "location": "{city}"},
        ),
        (
            ["Anyone else in {field}? I'm at {org}, and the targets this quarter are brutal."],
            {"employer": "{org}", "role": "{field}"},
        ),
        (
            ["Work in {field} for {org}, live in {city}, no complaints."],
            {"employer": "{org}", "role": "{field}", "location": "{city}"},
        ),
        (
            ["My partner's in {field2}; I'm in {field}, at {org}."],
            {"employer": "{org}", "role": "{field}"},
        ),
    ],
    "commute": [
        (
            ["It's ninety minutes door to door - I live out in {city} but {org} is in {city2}."],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "Mondays to Thursdays I stay in a rented room in {city2} near the {org} office; "
                "Friday evening I go home to {city}."
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "Anyone else do the {city}-to-{city2} run every morning from home? I'm a {role}, so "
                "I can't exactly work remotely."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Working from the {city2} office this month to cover for someone on leave.",
                "Usually I'm at home in {city}, working remotely for {org}.",
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "I drive in from {city} - about forty minutes each way - to the hospital where I "
                "work as a {role}."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
    ],
    "recently_became": [
        (
            [
                "Started my new job at {org} yesterday 😅 Still figuring out where the "
                "coffee machine is."
            ],
            {"employer": "{org}"},
        ),
        (
            [
                "Got promoted to {role} last week!",
                "Same company, {org}, but a whole new set of headaches.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "After five years of night school I am finally, officially, a qualified "
                "{role}. I start at {org} next Monday."
            ],
            {"role": "{role}"},
        ),
        (
            ["New job alert: {role}, {org}. Day three and nobody's given me a login yet."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I'm {name}, fresh out of my probation period at {org} - they kept me on as "
                "a {role}, thank goodness."
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}"},
        ),
    ],
    "just_moved": [
        (
            [
                "Still surrounded by boxes - the move to {city} was only on Saturday.",
                "If you know a good pizza place nearby, I'm all ears.",
            ],
            {"location": "{city}"},
        ),
        (
            [
                "Hello from {city}! Got the keys to the flat this morning. {city2} feels like a "
                "lifetime ago already."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "Just relocated for work - {org} transferred me to their {city} office, so "
                "that's where I live now."
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "We've been in {city} for, what, three weeks now? Still getting lost.",
                "I'm {name}, by the way - I think we've chatted before.",
            ],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "New city, new me: I'm {name}, I've just moved from {city2} to {city}, and I'm "
                "still job-hunting."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
    ],
    "titles": [
        (
            [
                "Good morning, Dr. {dsurname} writing. I'm getting in touch from {org}, where I work "
                "as a {role}."
            ],
            {"name": "Dr. {dsurname}", "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "It's Professor {surname}, actually, not Mr. {surname} - I do prefer the title.",
                "And I'm in {city}.",
            ],
            {"name": "Professor {surname}", "location": "{city}"},
        ),
        (
            ["Dr {surname} here - {role} at {org}. I live and work in {city}."],
            {"name": "Dr {surname}", "employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "My colleague Dr. {dsurname} suggested I get in touch.",
                "I'm Dr. {surname}, the {role} on her team.",
            ],
            {"name": "Dr. {surname}", "role": "{role}"},
        ),
        (
            ["Dr. {surname} - a {role2} by training, but I work as a {role} at {org} now."],
            {"name": "Dr. {surname}", "employer": "{org}", "role": "{role}"},
        ),
    ],
    "multiword_names": [
        (
            ["{morg} is where I work - I'm {hname} {dsurname}, their {role}."],
            {"name": "{hname} {dsurname}", "employer": "{morg}", "role": "{role}"},
        ),
        (
            [
                "My first name is {hname} - both halves, please, not just the first bit.",
                "I'm in {mcity}.",
            ],
            {"name": "{hname}", "location": "{mcity}"},
        ),
        (
            [
                "I work for {morg} and live in {mcity}; my friend {name2} keeps trying to "
                "get me to join her at {norg}."
            ],
            {"employer": "{morg}", "location": "{mcity}"},
        ),
        (
            ["It's {name} {dsurname} - the surname's double-barrelled, with a hyphen."],
            {"name": "{name} {dsurname}"},
        ),
        (
            [
                "Moved to {mcity} last year for a job at {morg}, and I'm still there - both "
                "the city and the job."
            ],
            {"employer": "{morg}", "location": "{mcity}"},
        ),
    ],
    "emoji": [
        (["new job who dis 😎 {role} @ {org}"], {"employer": "{org}", "role": "{role}"}),
        (
            ["Hi 🙋 I'm {name} 😊 living in rainy {city} 🌧️ working at {org} 🏢"],
            {"name": "{name}", "employer": "{org}", "location": "{city}"},
        ),
        (
            ["ugh 😩 {org} made me work the weekend AGAIN 🙄 the life of a {role} 💀"],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["😭😭 my bff {name2} is moving to {city2} and leaving me all alone in {city}"],
            {"location": "{city}"},
        ),
        (["Me: a {role} 💼 My sister: a {role2} 🩺 Our mum: confused 🤷"], {"role": "{role}"}),
    ],
    "question_mixed": [
        (
            [
                "Two questions. First, I'm a {role} - is it normal to be on call every "
                "weekend? Second, is {city2} worth visiting in autumn?"
            ],
            {"role": "{role}"},
        ),
        (
            [
                "I live in {city}. What's the quickest way to get to {city2} by train? And "
                "is it cheaper to book ahead?"
            ],
            {"location": "{city}"},
        ),
        (
            [
                "Hi, I'm {name}. Quick one: what time zone is {city2} in? I keep messing up "
                "calls with our office there.",
                "I'm in {city} myself.",
            ],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "Can you check my maths? {org} pays me about 3k a month after tax as a "
                "{role}, and rent for my place in {city} is 1.2k - how much can I save?"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Do you know anything about {org2}? My friend {name2} just got an offer from them.",
                "I'm at {org}, so I'm curious how they compare.",
            ],
            {"employer": "{org}"},
        ),
    ],
    "passive_employed": [
        (
            ["Got taken on by {org} in the autumn - {role}, permanent contract, the works."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Formally speaking, I am employed by {org} in the capacity of {role}; I "
                "was previously retained by {org2} on a consultancy basis."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I was headhunted by {org2} last year but turned them down.",
                "Still employed by {org}, still living in {city}.",
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "yeah I'm on {org_s} books now, got recruited by them straight out of uni",
                "they've got me working as a {role}",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["I was let go by {org2} in March and was picked up by {org} within a fortnight."],
            {"employer": "{org}"},
        ),
    ],
    "relative_clause": [
        (
            [
                "I'm {name}, and {city}, which is where I've lived for the past six years, "
                "is finally getting a proper bike lane."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "Anyone who works at {org}, like I do, will tell you the canteen food is criminal.",
                "(I'm one of their {role}s, so I eat there every day.)",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "My manager - who, unlike me, lives out in {city2} - wants us all back in "
                "the office three days a week. Easy for me, since I live right here in "
                "{city}."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "The people I work with at {org} - mostly {role2}s - think my job as a "
                "{role} is easy. It isn't."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "The flat I rent in {city}, the one with the leaky roof I told you about, "
                "has just gone up for sale."
            ],
            {"location": "{city}"},
        ),
    ],
    "cleft": [
        (
            [
                "Where I actually live is {city} - {city2} is only on my ID because I never got round "
                "to updating it."
            ],
            {"location": "{city}"},
        ),
        (
            ["What I am is a {role} at {org}; what I'd like to be is retired."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["It's me, {name}, who's the {role} on the project; {name2} is the {role2}."],
            {"name": "{name}", "role": "{role}"},
        ),
        (
            ["{org} is who signs my paychecks, and {city} is where I spend them."],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "It was at {org2} that I trained, but it's at {org} that I've been working as a "
                "{role} for the past few years."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
    ],
    "fronted_place": [
        (
            [
                "Down here in {city} nobody's heard of {org}, which makes explaining my job "
                "as their {role} a bit tricky."
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (["In {city}, where I live, rents have doubled since 2019."], {"location": "{city}"}),
        (
            [
                "Out here in {city} the trams are on strike again, so my commute to {org} is "
                "a nightmare."
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "From where I'm sitting in {city2} right now - hotel lobby, work trip - it's "
                "hard to remember what home in {city} even looks like."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "Around here - {city}, I mean - everyone cycles. I'm {name}, by the way, and "
                "I'm no exception."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
    ],
    "nominal_phrases": [
        (["Me, summed up: {role}, {city}, exhausted."], {"role": "{role}", "location": "{city}"}),
        (
            [
                "Currently: {role} at {org}. Previously: {role2} at {org2}. Eventually: "
                "retired, hopefully."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Bio, as requested: {name} - {field} person - {city}-based - cat owner - "
                "terrible cook."
            ],
            {"name": "{name}", "role": "{field}", "location": "{city}"},
        ),
        (
            ["Another Monday at {org}. Coffee, emails, meetings. The glamorous life of a {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["No longer a {role2}. Not yet a {role}. Somewhere in between, in {city}."],
            {"location": "{city}"},
        ),
    ],
    "as_a_role": [
        (
            [
                "I work as a {role} - and as {org_s} longest-serving one, I get all the rubbish "
                "jobs."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "As a lifelong {city2} fan now living in {city}, I have complicated feelings "
                "about this match."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "As a parent AND a {role}, I never get a minute to myself.",
                "Especially with my employer, {org}, changing the rota every week.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "As a former {role2} and current {role}, I can tell you the second is far less "
                "stressful."
            ],
            {"role": "{role}"},
        ),
        (
            [
                "Asking as a {role} with {org} here in {city}: is it normal to be on call every "
                "other weekend?"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "possessive_chain": [
        (
            [
                "My flatmate's girlfriend's brother works at {org2}, apparently, and he "
                "reckons they're hiring {role}s. I'm a {role} at {org}, so that could be "
                "interesting."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["My landlord's letting agent here in {city} still hasn't fixed my boiler."],
            {"location": "{city}"},
        ),
        (
            ["I'm on {org_s} graduate scheme's second rotation, working as a junior {role}."],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "My wife's cousin's husband is a {role2} in {city2}. Me? Just {name}, the "
                "family's resident {role}."
            ],
            {"name": "{name}", "role": "{role}"},
        ),
        (
            [
                "My employer's parent company's logo is everywhere - {org2} owns {org}, "
                "where I work."
            ],
            {"employer": "{org}"},
        ),
    ],
    "since_time": [
        (["From 2017 to 2021 I was at {org2}; from then until now, {org}."], {"employer": "{org}"}),
        (
            ["As of last Monday I'm officially a {role} at {org}!"],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "For the last eighteen months or so I've been renting a place in {city}, after "
                "four years in {city2}."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "Since the merger I've technically worked for {org}, not {org2} - same desk, "
                "same job as a {role}, different logo."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Two winters ago I moved here to {city} and started as a {role} with {org} the "
                "same week - haven't regretted it since."
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "contrastive_not": [
        (
            [
                "I work for {org} rather than {org2} - they're sister companies, so people "
                "get confused. I'm a {role} there."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["Me? A {role}, yes. A {role2}, no - though my gran tells everyone otherwise."],
            {"role": "{role}"},
        ),
        (
            ["Live in {city}, work in {city2} - not the other way round, like my profile says."],
            {"location": "{city}"},
        ),
        (
            [
                "I'm {name}, not {name2} - {name2}'s my colleague - and I'm the {role} at "
                "{org}, not the {role2}."
            ],
            {"name": "{name}", "employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Not a {role2} any more, and not in {city2} either - these days I'm a "
                "{role} in {city}."
            ],
            {"role": "{role}", "location": "{city}"},
        ),
    ],
    "reported_speech": [
        (
            [
                "According to my LinkedIn I still work at {org2}, but I actually moved to "
                "{org} in the summer."
            ],
            {"employer": "{org}"},
        ),
        (
            [
                "My kids tell their friends I'm a spy. I'm a {role} at {org}. They're very "
                "disappointed."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                '"You\'re so lucky to live in {city2}!" - my aunt, every single time, even '
                "though I've lived in {city} since 2019."
            ],
            {"location": "{city}"},
        ),
        (
            [
                "My doctor said a {role} like me should take more breaks, and my partner "
                "said the same - apparently everyone agrees except my manager at {org}."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "{name2} swears they heard I was leaving {org} for {org2}. Total rumour - "
                "I'm staying put, and still very much their {role}."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
    ],
    "embedded_question": [
        (
            [
                "What's the best way to get from {city} - that's where I live - to the "
                "airport in {city2} without a car? I'm {name}, by the way."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
        (
            [
                "Could you explain pension contributions to me like I'm a {role}, which I "
                "am, and not a {role2}?"
            ],
            {"role": "{role}"},
        ),
        (
            [
                "Is it normal for {org} to make a {role} like me work every bank holiday, "
                "or should I complain?"
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            ["Why does my rent in {city} keep going up when everyone I know in {city2} pays less?"],
            {"location": "{city}"},
        ),
        (
            [
                "Can someone on a {role}'s wage at {org}, like me, afford to buy in "
                "{city}, where I currently rent?"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "plan_vs_current": [
        (
            [
                "Handing in my notice at {org} on Friday - {org2} made me an offer I can't refuse.",
                "Kind of sad, I've been their {role} for five years.",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "flat hunting in {city2} this weekend!! moving in sept",
                "gonna miss {city} tho, lived here 6 yrs",
            ],
            {"location": "{city}"},
        ),
        (
            [
                "The plan is to go freelance next year. For the time being I'm a salaried "
                "{role} at {org}."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I've accepted a transfer to our {city2} office, effective in the new year, "
                "so I'll still be with {org} - but right now I'm based in {city}."
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "Once my visa comes through I'll be moving to {acity} to join {org2} as a {role2}.",
                "Until then: {name}, {role}, {city}, same as ever.",
            ],
            {"name": "{name}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "buried_long": [
        (
            [
                "Okay so I'm hosting a dinner party on Saturday for eight people and I'm "
                "panicking slightly. Two are vegetarian, one is gluten-free, and my "
                "brother-in-law {name2} only eats beige food. I've got a tiny kitchen - the "
                "joys of renting in {city} - and only four burners. I finished work late every "
                "day this week (the life of a {role}, sadly) so I haven't had time to plan. "
                "Could you suggest a menu I can mostly prep on Friday night?"
            ],
            {"role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Hi again. My partner and I are trying to plan a week away in October. She "
                "wants beaches, I want mountains, and we both want to avoid anywhere too "
                "touristy. We'll be flying from {city}, since that's home, and the budget is "
                "about two thousand euros for both of us. She works at {org2} and can only take "
                "five days off; I've got more flexibility because {org}, where I've been for "
                "years, is pretty relaxed about leave. Oh, and neither of us speaks Spanish. "
                "Ideas?"
            ],
            {"employer": "{org}", "location": "{city}"},
        ),
        (
            [
                "Bit of a long one, sorry. I need a new car - the old one finally died on the "
                "ring road last week - and I can't decide between electric and hybrid. I drive "
                "about sixty kilometres a day, mostly motorway, and there's no charger at my "
                "building. My cousin in {city2} swears electric is the future, but he also "
                "swore by crypto. I'm a {role}, so I'm on a fixed salary and can't go crazy on "
                "price. What would you do?\n"
                "\n"
                "Thanks,\n"
                "{name}"
            ],
            {"name": "{name}", "role": "{role}"},
        ),
        (
            [
                "Can you help me plan a birthday surprise for my best friend?",
                "She loves jazz, hates crowds, and is turning forty next month. We met years "
                "ago when we were both {role2}s at {org2} - she's still there, but I left to "
                "become a {role} and now work at {org}, so we don't see each other as often. I "
                "was thinking of a small dinner at a jazz bar. Too cliché?",
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "I have not slept properly in about three weeks and I'm starting to lose it. "
                "The neighbours upstairs have a toddler who wakes at five, the street outside "
                "my flat in {city} has roadworks until midnight, and work has been stressful. "
                "My GP suggested melatonin but I'd rather try other things first. I'm {name}, "
                "{role}, 41, if any of that matters. What else can I try?"
            ],
            {"name": "{name}", "role": "{role}", "location": "{city}"},
        ),
    ],
    "accented_names": [
        (
            ["Hej! {aname} here, writing from {acity}, where I've lived all my life."],
            {"name": "{aname}", "location": "{acity}"},
        ),
        (
            [
                "My name's {aname} - with the accent, please, autocorrect keeps removing it.",
                "I'm a {role} in {acity}.",
            ],
            {"name": "{aname}", "role": "{role}", "location": "{acity}"},
        ),
        (
            [
                "Olá! Sou {aname}... sorry, wrong language again. I'm {aname}, I moved from "
                "{acity} to {city} last year and I work at {org}."
            ],
            {"name": "{aname}", "employer": "{org}", "location": "{city}"},
        ),
        (
            ["Thanks for the help earlier!", "Saludos,\n{aname} {dsurname}\n{role}, {norg}"],
            {"name": "{aname} {dsurname}", "employer": "{norg}", "role": "{role}"},
        ),
        (
            [
                "People mix me up with {aname}, the {role2} from {acity} on my team. I'm "
                "{name} - never even been to {acity}; I live in {city}."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
    ],
    "number_orgs": [
        (
            ["I'm a {role} for {norg} - the company, not a number, before you ask."],
            {"employer": "{norg}", "role": "{role}"},
        ),
        (["Worked at {org2} till 2022, been at {norg} ever since."], {"employer": "{norg}"}),
        (
            ["I'm {name}, and I look after {field} at {norg}."],
            {"name": "{name}", "employer": "{norg}", "role": "{field}"},
        ),
        (
            [
                "{norg} hired me last month! Still can't believe it. Living in {city} makes the "
                "commute easy."
            ],
            {"employer": "{norg}", "location": "{city}"},
        ),
        (
            [
                "so yeah i work at {norg} lol. not the most glamorous place but the {role} job "
                "pays ok"
            ],
            {"employer": "{norg}", "role": "{role}"},
        ),
    ],
    "multi_person": [
        (
            [
                "Quick roll call of our flat: {name2}'s a {role2}, Jo works at {org2}, and I'm "
                "a {role} at {org}. We all live in {city}."
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            [
                "Mum's in {city2}, Dad's in {acity}, my brother's somewhere in between, and "
                "I'm in {city} with the dog."
            ],
            {"location": "{city}"},
        ),
        (
            ["{name2} does {field2}, I do {field}; {name2}'s at {org2} and I'm at {org}."],
            {"employer": "{org}", "role": "{field}"},
        ),
        (
            [
                "At the wedding I sat between a {role2} from {org2} and a guy from {city2}, "
                "and had to explain to both of them what I actually do all day as a {role} at "
                "{org}."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Family update for you: I'm {name}; my husband is {name2}; our eldest is at "
                "uni in {city2}; the rest of us are still in {city}."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
    ],
    "uk_us_colloquial": [
        (
            [
                "Absolutely knackered, been grafting at {org} since half seven. Life of a "
                "{role}, innit."
            ],
            {"employer": "{org}", "role": "{role}"},
        ),
        (
            [
                "Gonna grab some takeout and crash - long day at {org}.",
                "Anyhow, I'm {name}, nice to meet ya.",
            ],
            {"name": "{name}", "employer": "{org}"},
        ),
        (
            [
                "I'm a {role} over at {org} and I live in {city} - well, the suburbs, but "
                "close enough, ya know?"
            ],
            {"employer": "{org}", "role": "{role}", "location": "{city}"},
        ),
        (
            ["Not gonna lie, {city} in November is grim, but it's home, innit."],
            {"location": "{city}"},
        ),
        (
            [
                "Howdy! Name's {name}. I'm fixin' to move to {city2} in the fall, but for "
                "now I'm still in {city}."
            ],
            {"name": "{name}", "location": "{city}"},
        ),
    ],
}

# The families drawn first, in two passes (their items keep their ids and content); the families
# after them were added later and are drawn after them, all wordings at once, with _draw_wide.
ORIGINAL_FAMILIES = 16
# The families up to here (the original ones and the first widening) are drawn with _draw_wide;
# the families after them (the second widening) are drawn after them, with _draw_wide2.
WIDE_FAMILIES = 32

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


def _draw(pool: dict, rng: random.Random) -> dict[str, str]:
    name, name2 = rng.sample(pool["names"], 2)
    city, city2 = rng.sample(pool["cities"], 2)
    org, org2 = rng.sample(pool["orgs"], 2)
    role, role2 = rng.sample(pool["roles"], 2)
    return {
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


def _draw_wide(pool: dict, rng: random.Random) -> dict[str, str]:
    """_draw from the dev pools widened with their "more_*" values, plus hyphenated names
    (hname), double-barrelled surnames (dsurname), multi-word cities and organisations (mcity,
    morg), lines of work (field, field2) and lowercase forms (for the added families)."""
    wide = {
        "names": pool["names"] + pool["more_names"],
        "surnames": pool["surnames"],
        "cities": pool["cities"] + pool["more_cities"],
        "orgs": pool["orgs"] + pool["more_orgs"],
        "roles": pool["roles"] + pool["more_roles"],
    }
    values = _draw(wide, rng)
    field, field2 = rng.sample(pool["fields"], 2)
    values.update(
        hname=rng.choice(pool["hyphen_names"]),
        dsurname=rng.choice(pool["double_surnames"]),
        mcity=rng.choice(pool["more_cities"]),
        morg=rng.choice(pool["more_orgs"]),
        field=field,
        field2=field2,
        lorg2=values["org2"].lower(),
    )
    return values


def _draw_wide2(pool: dict, rng: random.Random) -> dict[str, str]:
    """_draw_wide, then accented names and cities (aname, acity), organisations with numbers in
    their names (norg), the role capitalised (crole) and the employer's possessive (org_s), for the second widening's families."""
    values = _draw_wide(pool, rng)
    values.update(
        aname=rng.choice(pool["accent_names"]),
        acity=rng.choice(pool["accent_cities"]),
        norg=rng.choice(pool["number_orgs"]),
        crole=values["role"][:1].upper() + values["role"][1:],
        # the possessive: "Globex's", "Vandelay Imports'"
        org_s=values["org"] + ("'" if values["org"].endswith("s") else "'s"),
    )
    return values


def _items(
    split: str,
    families: dict[str, list[tuple[list[str], dict]]],
    wordings: slice,
    pool: dict,
    per_wording: int,
    rng: random.Random,
    out: list[dict],
    draw=_draw,
) -> list[dict]:
    """Append `per_wording` items for each family's `wordings` to `out` (ids count on from it)."""
    for family, all_wordings in families.items():
        first = wordings.start or 0
        for w_index, (messages, gold) in enumerate(all_wordings[wordings], start=first):
            for _ in range(per_wording):
                values = draw(pool, rng)
                slots = {s: (_fill(gold[s], values) if s in gold else None) for s in SLOTS}
                slot = rng.choice(SLOTS)
                distractors = sorted(
                    {
                        values[k]
                        for k in ("name2", "city2", "org2", "role2", "field2")
                        if k in values
                    }
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


CHECK_FILE = Path(__file__).resolve().with_name("offline_eval_check.py")


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_sealed():
    """offline_eval_sealed.py (this folder) as a module (SEALED_FAMILIES, SEALED_POOLS, ...)."""
    return _load(SEALED_FILE, "offline_eval_sealed")


def build() -> dict[str, list[dict]]:
    rng = random.Random(SEED)
    pool = POOLS["dev"]
    dev: list[dict] = []
    original = dict(list(FAMILIES.items())[:ORIGINAL_FAMILIES])
    added = dict(list(FAMILIES.items())[ORIGINAL_FAMILIES:WIDE_FAMILIES])
    added2 = dict(list(FAMILIES.items())[WIDE_FAMILIES:])
    _items("dev", original, slice(None, FIRST_WORDINGS), pool, DEV_PER_WORDING, rng, dev)
    _items("dev", original, slice(FIRST_WORDINGS, None), pool, DEV_PER_WORDING, rng, dev)
    _items("dev", added, slice(None), pool, DEV_PER_WORDING, rng, dev, draw=_draw_wide)
    _items("dev", added2, slice(None), pool, DEV_PER_WORDING, rng, dev, draw=_draw_wide2)
    for family, wordings in {**THIRD_WORDINGS, **FOURTH_WORDINGS}.items():
        # numbered after the family's FAMILIES wordings: {family: [existing..., new...]}
        both = {family: FAMILIES[family] + wordings}
        start = len(FAMILIES[family])
        _items("dev", both, slice(start, None), pool, THIRD_PER_WORDING, rng, dev, _draw_wide2)
    sealed = load_sealed()
    test: list[dict] = []
    _items(
        "test",
        sealed.SEALED_FAMILIES,
        slice(None),
        sealed.SEALED_POOLS,
        sealed.SEALED_PER_WORDING,
        random.Random(SEED + 1),
        test,
    )
    late = _load(CHECK_FILE, "offline_eval_check")
    check: list[dict] = []
    _items(
        "check",
        late.FRESH_FAMILIES,
        slice(None),
        late.FRESH_POOLS,
        late.FRESH_PER_WORDING,
        random.Random(7),
        check,
    )
    return {"dev": dev, "test": test, "check": check}


def check_sealed(sets: dict[str, list[dict]]) -> None:
    """Assert that no sealed-pool value appears in memlib/, the offline model's modules and
    tests, data/, tests/, notebooks/, the dev set, the dev pools or the retired pools, and that
    the sealed set is large and varied. (The eval sets in offline_model/data/, these scripts and
    the benchmark's results are not searched.)"""
    files = [
        p
        for pattern in (
            "memlib/**/*.py",
            "memlib/data/**/*",
            "offline_model/*.py",
            "offline_model/tests/**/*",
            "data/**/*",
            "tests/**/*",
            "notebooks/**/*",
        )
        for p in ROOT.glob(pattern)
        if p.is_file()
    ]
    haystack = "\n".join(p.read_text(encoding="utf-8", errors="ignore").lower() for p in files)
    haystack += "\n" + json.dumps(sets["dev"]).lower()
    haystack += "\n" + json.dumps([POOLS["dev"], *RETIRED_POOLS]).lower()
    haystack += "\n" + json.dumps(FAMILIES).lower()
    pool = load_sealed().SEALED_POOLS
    kinds = {}  # one pass over the haystack for every sealed word (71 passes took 7.6 s)
    for kind in ("names", "surnames", "cities", "orgs", "roles"):
        for word in pool[kind]:
            kinds.setdefault(word.lower(), (kind, word))
    words = sorted(kinds, key=len, reverse=True)
    found = re.search(rf"\b(?:{'|'.join(map(re.escape, words))})\b", haystack)
    if found:
        kind, word = kinds[found.group(0)]
        raise SystemExit(
            f"sealed {kind[:-1]} {word!r} appears in memlib/, offline_model/, data/, "
            "tests/, notebooks/, the dev set or an old pool"
        )
    test = sets["test"]
    if len(test) < 250 or len({i["family"] for i in test}) < 19:
        raise SystemExit("the sealed set needs at least 250 items in at least 19 families")


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
                sys.exit(f"{path} is out of date: run offline_model/scripts/make_offline_eval.py")
        else:
            path.write_text(text, encoding="utf-8")
        families = len({i["family"] for i in items})
        print(f"{path.relative_to(ROOT)}: {len(items)} items, {families} families")


if __name__ == "__main__":
    main()
