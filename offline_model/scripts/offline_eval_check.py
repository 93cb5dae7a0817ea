"""The offline model's late check set: a second sealed set, written on 2026-12-01 by someone who
did not write the rules, after the rules of that day were finished, and scored once that day.

Same format as offline_eval_sealed.py: FRESH_FAMILIES (12 families of 5 wordings),
FRESH_POOLS (names, places, organisations and roles found nowhere else in the repository) and
FRESH_PER_WORDING. make_offline_eval.py generates offline_model/data/check.jsonl from it.
Whoever changes the offline model's rules must not open this file or check.jsonl; only their
aggregate scores (offline_model/benchmarks/offline_eval.py) are read.
"""

from __future__ import annotations

FRESH_PER_WORDING = 3

FRESH_POOLS: dict[str, list[str]] = {
    "names": [
        "Perpetua",
        "Ozias",
        "Leopoldine",
        "Tancredi",
        "Ffion",
        "Gwendolen",
        "Aurelio",
        "Bronwen",
        "Casimir",
        "Eulalia",
        "Hjalmar",
    ],
    "surnames": ["Quennell", "Vashchenko", "Pettigrew", "Halloran", "Zamfir", "Eckhart"],
    "cities": [
        "Ballarat",
        "Cluj-Napoca",
        "Villach",
        "Stavanger",
        "Tauranga",
        "Olomouc",
        "Zaragoza",
        "Le Havre",
        "Puerto Montt",
        "Kalamata",
        "Rijeka",
        "Innsbruck",
    ],
    "orgs": [
        "Ashgrove Mutual",
        "Brindlecombe Bakery",
        "Quarrystone Engineering",
        "Tallowmere",
        "Skerryvale Shipping",
        "Driftmark Audio",
        "Larkspur Transit",
        "Wrenhollow",
        "Copperkettle Foods",
    ],
    "roles": [
        "glassblower",
        "beekeeper",
        "stonemason",
        "cheesemonger",
        "piano tuner",
        "farrier",
        "arborist",
        "court stenographer",
        "bookbinder",
        "seismologist",
    ],
}

N = "{name}"
FULL = "{name} {surname}"
E, R, L = "{org}", "{role}", "{city}"

FRESH_FAMILIES: dict[str, list[tuple[list[str], dict]]] = {
    # --- everyday ways of telling the assistant about oneself ----------------------------------
    # Introductions.
    "fresh_intro": [
        (
            [
                "Hey! Long-time lurker, first-time chatter. {name} - {role} with {org}, "
                "living in {city}."
            ],
            {"name": N, "employer": E, "role": R, "location": L},
        ),
        (
            ["good morning :)", "my name is {name} and i'm a {role} at {org}"],
            {"name": N, "employer": E, "role": R},
        ),
        (
            [
                "Let me introduce myself properly this time. I'm {name} {surname}, I've lived in "
                "{city} all my adult life, and I'm a {role}."
            ],
            {"name": FULL, "role": R, "location": L},
        ),
        (
            [
                "Hi there!! First time trying one of these chat things...",
                "I'm {name}, I work for {org}.",
            ],
            {"name": N, "employer": E},
        ),
        (
            [
                "Hello.",
                "I'm {name} {surname}, by profession a {role}, currently employed by {org} and "
                "resident in {city}.",
            ],
            {"name": FULL, "employer": E, "role": R, "location": L},
        ),
    ],
    # Job and employer.
    "fresh_job": [
        (
            ["I'm a {role}, and I've been on the payroll at {org} for about a year and a half."],
            {"employer": E, "role": R},
        ),
        (
            [
                "work's been mad lately",
                "i'm the only {role} left at {org} since the other two quit",
            ],
            {"employer": E, "role": R},
        ),
        (
            [
                "My title is officially senior {role}, but really I just do whatever {org} needs "
                "that week."
            ],
            {"employer": E, "role": R},
        ),
        (["I'm a self-employed {role}.", "No company, just me and a van."], {"role": R}),
        (
            [
                "Been a {role} for twenty-odd years. Currently doing it at {org}, which is the "
                "best place I've worked so far."
            ],
            {"employer": E, "role": R},
        ),
    ],
    # Where the user lives.
    "fresh_home": [
        (["I'm a {city} person through and through - lived here my whole life."], {"location": L}),
        (["My flat's on the east side of {city}, right by the river."], {"location": L}),
        (["Where am I based? {city}. Have been for ages."], {"location": L}),
        (
            [
                "hiya :)",
                "{name} here, writing from my kitchen in {city} - hoping you can help with something",
            ],
            {"name": N, "location": L},
        ),
        (
            [
                "Home for me is {city} these days; I share a house there with two friends and a "
                "very loud parrot."
            ],
            {"location": L},
        ),
    ],
    # A new home or a new job.
    "fresh_moves": [
        (
            [
                "Big news: I moved to {city} on Saturday!",
                "Still living out of suitcases, but it's home now.",
            ],
            {"location": L},
        ),
        (["First week as a {role} at {org} done and dusted!"], {"employer": E, "role": R}),
        (
            ["We swapped {city2} for {city} back in August and haven't looked back."],
            {"location": L},
        ),
        (
            [
                "Just signed the lease on a place in {city} and moved in yesterday - I'm {name}, hello!"
            ],
            {"name": N, "location": L},
        ),
        (
            ["I joined {org} on Monday as their new {role}.", "Everyone's been lovely so far."],
            {"employer": E, "role": R},
        ),
    ],
    # The user corrects what they said earlier.
    "fresh_correction": [
        (
            [
                "I'm a {role2}.",
                "Hang on, no - I'm a {role}. The {role2} thing was my old job title.",
            ],
            {"role": R},
        ),
        (["Sorry, I typed {city2} by mistake before. I live in {city}."], {"location": L}),
        (
            ["Earlier I said I worked at {org2} - that's wrong, it's {org}. My mistake."],
            {"employer": E},
        ),
        (
            ["my name's {name2}", "oops, that's my brother's name, wrong field. I'm {name}"],
            {"name": N},
        ),
        (
            [
                "Correction to what I told you yesterday: I'm a {role} at {org} now, not {org2} - "
                "I switched in June."
            ],
            {"employer": E, "role": R},
        ),
    ],
    # Facts mentioned in passing while asking for something.
    "fresh_in_passing": [
        (
            [
                "Any tips for staying awake on night shifts? I'm a {role} and the 3am slump is brutal."
            ],
            {"role": R},
        ),
        (
            ["How do I convert a PDF to Word? Need it for a report at {org}, where I work."],
            {"employer": E},
        ),
        (
            ["What's a good weekend hike near {city}? I live there but never get out of town."],
            {"location": L},
        ),
        (
            ["Hi, {name} again - could you help me reword an email to my landlord here in {city}?"],
            {"name": N, "location": L},
        ),
        (
            ["I already work as a {role} at {org} - is a master's degree worth it at this point?"],
            {"employer": E, "role": R},
        ),
    ],
    # --- tricky cases ----------------------------------------------------------------------------
    # Relatives' and colleagues' facts next to (or instead of) the user's.
    "fresh_others": [
        (
            [
                "My stepdad has been a {role2} at {org2} for as long as I can remember.",
                "Me, I'm {name} - still figuring out what I want to do.",
            ],
            {"name": N},
        ),
        (
            [
                "My flatmate {name2} and I both work at {org}, but {name2}'s a {role2} and I'm a {role}."
            ],
            {"employer": E, "role": R},
        ),
        (
            [
                "My girlfriend just got a job in {city2} as a {role2}.",
                "I'm staying put in {city} for now.",
            ],
            {"location": L},
        ),
        (
            [
                "Our team lead {name2} is based in {city2}, and the rest of us are spread around. "
                "I live in {city} and work from home most days."
            ],
            {"location": L},
        ),
        (
            [
                "My twin sister lives in {city2} and works for {org2} as a {role2}.",
                "People mix us up all the time.",
            ],
            {},
        ),
    ],
    # Former jobs and homes.
    "fresh_former": [
        (
            [
                "I lived in {city2} until I was thirty.",
                "Now? {city}, with my husband and our kids.",
            ],
            {"location": L},
        ),
        (
            [
                "I was a {role2} for a long time, then burned out.",
                "These days I work as a {role} for {org} and it suits me much better.",
            ],
            {"employer": E, "role": R},
        ),
        (["{org2} was my first proper job, straight out of school. I stayed eight years."], {}),
        (
            [
                "Back when I lived in {city2} I was a {role2}. I'm retired now, and I moved away "
                "from there years ago."
            ],
            {},
        ),
        (
            [
                "I'm {name}. Quit {org2} at the end of last year and went to {org}, where I'm a "
                "{role} now."
            ],
            {"name": N, "employer": E, "role": R},
        ),
    ],
    # Plans and applications.
    "fresh_plans": [
        (
            [
                "I'm going to apply for a {role2} position at {org2} next month.",
                "Right now I'm a {role}.",
            ],
            {"role": R},
        ),
        (
            [
                "The wedding's in May, and after that we'll be moving to {city2} to be near her "
                "parents. Until then, {city} it is."
            ],
            {"location": L},
        ),
        (["Hoping to get into {org2} someday. I'm {name}, by the way."], {"name": N}),
        (
            [
                "My start date at {org2} is the 3rd of next month.",
                "So for a few more weeks I'm a {role} at {org}.",
            ],
            {"employer": E, "role": R},
        ),
        (
            [
                "i want to move to {city2} one day and open a bakery",
                "not happening any time soon though lol",
            ],
            {},
        ),
    ],
    # Hypotheticals and wishes.
    "fresh_hypothetical": [
        (
            [
                "If I lived in {city2}, would I need a car?",
                "Just wondering - I've always rented in {city}.",
            ],
            {"location": L},
        ),
        (
            [
                "Would I be happier as a {role2}? Sometimes I think so.",
                "For the record, I'm a {role}.",
            ],
            {"role": R},
        ),
        (
            [
                "Imagine me working for {org2}! My mum would never stop bragging.",
                "Not that it'll happen.",
            ],
            {},
        ),
        (
            [
                "Say I'd been born in {city2} - would getting a visa be easier?",
                "I'm {name}, in case you need it for the form.",
            ],
            {"name": N},
        ),
        (
            [
                "If I'd taken the {org2} offer I'd be living in {city2} right now.",
                "Instead I'm still at {org}, and still living in {city}.",
            ],
            {"employer": E, "location": L},
        ),
    ],
    # Negation.
    "fresh_negation": [
        (
            [
                "I'm not from {city2}, whatever my accent suggests. Born and raised in {city}, still here."
            ],
            {"location": L},
        ),
        (["I don't work for {org2}. Never have. I'm with {org}."], {"employer": E}),
        (
            ["{name} here. Not a {role2}, whatever the old email signature says - I'm a {role}."],
            {"name": N, "role": R},
        ),
        (["I don't live in {city2} any more.", "Haven't settled anywhere yet, honestly."], {}),
        (
            ["No, I'm not a {role2}. I just play one on TV, ha.", "Real job: I'm at {org}."],
            {"employer": E},
        ),
    ],
    # Questions about places, organisations and jobs (asked about, not stated).
    "fresh_questions": [
        (
            ["Does {org2} offer remote contracts?", "I'm a {role}, if that changes anything."],
            {"role": R},
        ),
        (
            [
                "Is {city2} cheaper to live in than {city}? Asking because I'm in {city} and rent is killing me."
            ],
            {"location": L},
        ),
        (["How many {role2}s does a place like {org2} usually employ?"], {}),
        (
            [
                "Do you think {name2} would like {city2}? They're thinking of moving there.",
                "I'm {name}, we share a flat.",
            ],
            {"name": N},
        ),
        (
            [
                "quick trivia q: when was {org2} founded?",
                "and is it true they started out in {city2}?",
            ],
            {},
        ),
    ],
}
