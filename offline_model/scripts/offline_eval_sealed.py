"""The sealed wordings and pools of the offline model's test set (offline_model/data/test.jsonl).

SEALED: whoever writes or changes the offline model's rules (offline_model/*.py) must not open
this file or offline_model/data/test.jsonl; they see the test set's aggregate scores only
(offline_model/benchmarks/offline_eval.py). The wordings here were written by someone who did
not write the rules. When a sealed wording has shaped a rule, move it to FAMILIES in
make_offline_eval.py (the dev wordings) and write new sealed wordings and pools here.

Same structure as FAMILIES in make_offline_eval.py: family -> list of (messages, gold),
with {placeholders} filled from SEALED_POOLS: name, name2, surname, city, city2, org, org2, role,
role2, and lname, lcity, lorg (lower case). Gold slots are about the user now; a slot left out is
None (not stated, negated, hypothetical, planned, past, asked about, or someone else's).
The values in SEALED_POOLS appear nowhere in memlib/, offline_model/ (its modules and tests),
data/, tests/, notebooks/, the dev set or the retired pools (`check_sealed` in make_offline_eval.py
asserts it).
"""

from __future__ import annotations

SEALED_PER_WORDING = 4  # items drawn per wording

SEALED_POOLS: dict[str, list[str]] = {
    "names": [
        "Wilhelmina",
        "Anselm",
        "Ottilie",
        "Evander",
        "Dagny",
        "Ignatius",
        "Lysander",
        "Marguerite",
        "Imogen",
        "Barnaby",
        "Saoirse",
        "Ximena",
        "Fintan",
        "Osvaldo",
        "Philippa",
        "Rasmus",
    ],
    "surnames": [
        "Abernethy",
        "Szabo",
        "Achterberg",
        "Fairweather",
        "Kowalczyk",
        "Delacroix",
        "Nakashima",
        "Thorvaldsen",
    ],
    "cities": [
        "Trondheim",
        "Arequipa",
        "Halifax",
        "Bergamo",
        "Poznan",
        "Brno",
        "Plovdiv",
        "Timisoara",
        "Dunedin",
        "Saskatoon",
        "Oaxaca",
        "San Sebastian",
        "Nantes",
        "Galway",
        "Lausanne",
    ],
    "orgs": [
        "Ferncastle Robotics",
        "Zephyrine Media",
        "Aldermoor Energy",
        "Thistlebrook Software",
        "Cinderhall Games",
        "Pemberton Dairy",
        "Velloria",
        "Greyfriar Optics",
        "Mossbank Pharma",
        "Juniperline",
        "Kelpie Maritime",
        "Ravenscar Textiles",
        "Tinderbox Studios",
        "Halcyra",
    ],
    "roles": [
        "sommelier",
        "cartographer",
        "orthoptist",
        "luthier",
        "hydrologist",
        "podiatrist",
        "audiologist",
        "archivist",
        "locksmith",
        "dental hygienist",
        "speech therapist",
        "landscape gardener",
        "optometrist",
        "translator",
        "electrician",
        "florist",
        "dietitian",
        "physiotherapist",
    ],
}

N = "{name}"
FULL = "{name} {surname}"
E, R, L = "{org}", "{role}", "{city}"

SEALED_FAMILIES: dict[str, list[tuple[list[str], dict]]] = {
    # --- the 16 families of the dev set, new wordings ------------------------------------------
    "intro_plain": [
        (
            ["Hello, my name is {name}. I'm a {role} at {org}, and home is {city}."],
            {"name": N, "employer": E, "role": R, "location": L},
        ),
        (
            [
                "Nice to meet you! I'm {name}, I live in {city} and I work for {org} as their {role}."
            ],
            {"name": N, "employer": E, "role": R, "location": L},
        ),
        (
            ["Hi! Quick intro: I'm {name}, I live in {city}, and I'm a {role} over at {org}."],
            {"name": N, "employer": E, "role": R, "location": L},
        ),
        (
            ["Good morning, I'm {name}.", "I work as a {role} for {org} and I'm based in {city}."],
            {"name": N, "employer": E, "role": R, "location": L},
        ),
    ],
    "name_here": [
        (
            ["Hey, {name} here!", "I'm the {role} over at {org}, if that helps."],
            {"name": N, "employer": E, "role": R},
        ),
        (
            ["{name} here - hope you're well.", "I work at {org}."],
            {"name": N, "employer": E},
        ),
        (
            ["Hi, this is {name}.", "I'm a {role}, and I'm based in {city}."],
            {"name": N, "role": R, "location": L},
        ),
        (
            ["Hiya, it's {name} here.", "Still at {org}, still a {role}."],
            {"name": N, "employer": E, "role": R},
        ),
    ],
    "call_me": [
        (
            ["You can call me {name}.", "I'm a {role} and I live in {city}."],
            {"name": N, "role": R, "location": L},
        ),
        (
            ["Please just call me {name} - nobody uses my full name.", "I work for {org}."],
            {"name": N, "employer": E},
        ),
        (
            ["Friends call me {name}, so you can too.", "I'm based in {city}."],
            {"name": N, "location": L},
        ),
        (
            ["Feel free to call me Dr. {surname}.", "I'm a {role}, living in {city}."],
            {"name": "Dr. {surname}", "role": R, "location": L},
        ),
    ],
    "origin_now": [
        (
            [
                "I'm from {city2} originally, though I've been living in {city} for about five years."
            ],
            {"location": L},
        ),
        (["{city2} is where I grew up. Now I call {city} home."], {"location": L}),
        (
            ["Originally a {city2} kid, but I've lived in {city} since uni.", "My name's {name}."],
            {"name": N, "location": L},
        ),
        (
            ["I was born and raised in {city2}.", "These days I live in {city} and work at {org}."],
            {"employer": E, "location": L},
        ),
    ],
    "relative_city": [
        (
            ["My dad still lives in {city2}.", "I moved out years ago and now live in {city}."],
            {"location": L},
        ),
        (
            ["My aunt is a {role2} at {org2}.", "I'm {name}, and I work at {org}."],
            {"name": N, "employer": E},
        ),
        (
            ["My grandparents live in {city2} and my uncle is a {role2} there.", "I'm a {role}."],
            {"role": R},
        ),
        (
            [
                "Both my parents work at {org2} in {city2}.",
                "Not me though - I'm {name}, a {role} living in {city}.",
            ],
            {"name": N, "role": R, "location": L},
        ),
    ],
    "hypothetical": [
        (
            ["If I were a {role2}, I'd probably be happier.", "Anyway, I'm {name}."],
            {"name": N},
        ),
        (
            [
                "Suppose I took a job at {org2} - would I have to move to {city2}?",
                "I currently live in {city}.",
            ],
            {"location": L},
        ),
        (
            ["In another life I'd be a {role2} living in {city2}.", "I'm {name}, by the way."],
            {"name": N},
        ),
        (
            ["What if I quit and went to work for {org2}?", "Right now I'm a {role} at {org}."],
            {"employer": E, "role": R},
        ),
    ],
    "former_employer": [
        (
            ["I was at {org2} for six years, but I switched to {org} in March."],
            {"employer": E},
        ),
        (
            ["Used to work for {org2}.", "Now I'm a {role} at {org}."],
            {"employer": E, "role": R},
        ),
        (["After leaving {org2}, I joined {org} as a {role}."], {"employer": E, "role": R}),
        (["My old employer was {org2}; my current one is {org}."], {"employer": E}),
    ],
    "lowercase": [
        (["hello! my name's {lname} and i live in {lcity}"], {"name": N, "location": L}),
        (["i'm {lname}, a {role} at {lorg}"], {"name": N, "employer": E, "role": R}),
        (
            ["hey there, {lname} here. based in {lcity}, working at {lorg}."],
            {"name": N, "employer": E, "location": L},
        ),
        (
            ["i work for {lorg} as a {role}.", "live in {lcity}."],
            {"employer": E, "role": R, "location": L},
        ),
    ],
    "used_to_moved": [
        (
            ["I spent most of my twenties in {city2}, but I moved to {city} in 2022."],
            {"location": L},
        ),
        (["I was a {role2} for ten years before retraining as a {role}."], {"role": R}),
        (["We relocated from {city2} to {city} last spring."], {"location": L}),
        (
            ["I used to work as a {role2} at {org2}; these days I'm a {role} at {org}."],
            {"employer": E, "role": R},
        ),
    ],
    "plans_applications": [
        (
            ["I'm thinking about applying to {org2}.", "At the moment I'm a {role} at {org}."],
            {"employer": E, "role": R},
        ),
        (["We might move to {city2} next summer.", "For now we're in {city}."], {"location": L}),
        (["I start at {org2} in January!", "Until then I'm still at {org}."], {"employer": E}),
        (
            [
                "I've got a second interview for a {role2} position next week.",
                "My name is {name}, and I'm based in {city}.",
            ],
            {"name": N, "location": L},
        ),
    ],
    "questions": [
        (
            [
                "What's the weather usually like in {city2} in March?",
                "I live in {city}, by the way.",
            ],
            {"location": L},
        ),
        (
            ["Is {org2} a decent company to work for?", "I'm a {role}, if that matters."],
            {"role": R},
        ),
        (["How much do {role2}s usually earn?", "Oh, and I'm {name}."], {"name": N}),
        (
            ["Do you know anyone at {org2}?", "I work at {org} and I'm based in {city}."],
            {"employer": E, "location": L},
        ),
    ],
    "colleague": [
        (
            ["My coworker {name2} is moving to {city2}.", "I'm {name}, and I'm staying in {city}."],
            {"name": N, "location": L},
        ),
        (
            [
                "My boss, {name2}, used to be a {role2}.",
                "I'm {name}, a {role} in the same department.",
            ],
            {"name": N, "role": R},
        ),
        (
            ["A colleague of mine, {name2}, just joined {org2}.", "I'm still at {org} myself."],
            {"employer": E},
        ),
        (
            ["{name2} from my team lives in {city2}.", "I'm {name}; I'm a {role} at {org}."],
            {"name": N, "employer": E, "role": R},
        ),
    ],
    "negation_role": [
        (["No, I'm not a {role2}. I work as a {role}."], {"role": R}),
        (["I don't work at {org2} - I work at {org}."], {"employer": E}),
        (
            [
                "People assume I live in {city2} because I post so many photos of it, "
                "but I don't. I live in {city}."
            ],
            {"location": L},
        ),
        (
            ["I'm not a {role2} and I've never worked at {org2}.", "My name's {name}."],
            {"name": N},
        ),
    ],
    "tenure": [
        (
            ["I've been with {org} for almost a decade now, working as a {role}."],
            {"employer": E, "role": R},
        ),
        (["Five years as a {role} at {org} this month!"], {"employer": E, "role": R}),
        (
            ["I've lived in {city} for twelve years and worked at {org} for four."],
            {"employer": E, "location": L},
        ),
        (["Since 2020 I've been a {role} with {org}."], {"employer": E, "role": R}),
    ],
    "name_based": [
        (["I'm called {name}, and I live in {city}."], {"name": N, "location": L}),
        (["Name's {name}. I'm in {city}."], {"name": N, "location": L}),
        (
            ["My first name is {name}.", "I live in the north of {city}."],
            {"name": N, "location": L},
        ),
        (["You can put me down as {name}, living in {city}."], {"name": N, "location": L}),
    ],
    "job_sentence": [
        (["I'm employed by {org} as a {role}."], {"employer": E, "role": R}),
        (["My day job: {role} at {org}."], {"employer": E, "role": R}),
        (["I earn my living as a {role} in {city}."], {"role": R, "location": L}),
        (["{org} hired me as a {role} last year."], {"employer": E, "role": R}),
    ],
    # --- new families --------------------------------------------------------------------------
    # The user answers a question the assistant asked earlier (not shown).
    "reply_to_question": [
        (
            ["Can you help me plan a budget?", "Oh, you asked what I do - I'm a {role} at {org}."],
            {"employer": E, "role": R},
        ),
        (["To answer your question, I live in {city}."], {"location": L}),
        (
            ["Sorry, I missed your question earlier.", "My name is {name}, and I work at {org}."],
            {"name": N, "employer": E},
        ),
        (
            ["You asked where I'm based: {city}. And yes, I'm a {role}."],
            {"role": R, "location": L},
        ),
    ],
    # Facts spread over several messages with small talk between them.
    "spread_smalltalk": [
        (
            [
                "Morning! It's been raining all week.",
                "I'm {name}, by the way.",
                "Had way too much coffee already.",
                "Anyway, I work at {org} as a {role}.",
            ],
            {"name": N, "employer": E, "role": R},
        ),
        (
            [
                "Hi!",
                "Just got back from a run, feeling great.",
                "So I live in {city} and I'm looking for weekend ideas.",
                "Oh, and my name is {name}.",
            ],
            {"name": N, "location": L},
        ),
        (
            [
                "Hey, how's it going?",
                "I'm a {role}, and today was a long one.",
                "My cat knocked a plant off the shelf this morning, ugh.",
                "Anyway, I work for {org}.",
            ],
            {"employer": E, "role": R},
        ),
        (
            [
                "Hello again.",
                "The match last night was brilliant.",
                "I'm based in {city}, so we watched it at a pub.",
                "Can you recommend a good novel?",
            ],
            {"location": L},
        ),
    ],
    # The user corrects something they have just said.
    "correction": [
        (
            ["I live in {city2}.", "Sorry, I meant {city} - {city2} is where I grew up."],
            {"location": L},
        ),
        (
            ["I'm a {role2} at {org}.", "Oops, typo - I'm a {role}, not a {role2}."],
            {"employer": E, "role": R},
        ),
        (["My name is {name2}.", "Sorry, autocorrect! It's {name}."], {"name": N}),
        (
            ["I work at {org2}.", "Sorry, I meant {org}. {org2} was my previous job."],
            {"employer": E},
        ),
    ],
    # Third-person facts about a partner or a child.
    "partner_child": [
        (
            ["My wife is a {role2} at {org2}.", "I'm a {role} myself, and we live in {city}."],
            {"role": R, "location": L},
        ),
        (["My eldest, {name2}, just started at {org2} in {city2}.", "I'm {name}."], {"name": N}),
        (["My husband works for {org2}, and I work for {org}."], {"employer": E}),
        (["My daughter is a {role2} in {city2}, and she loves it."], {}),
    ],
    # Several facts in one list-like sentence.
    "lists": [
        (
            ["A bit about me: {name}, {role}, living in {city}."],
            {"name": N, "role": R, "location": L},
        ),
        (["I'm {name}, I'm a {role} and I live in {city}."], {"name": N, "role": R, "location": L}),
        (
            ["Three facts about me: I'm {name}, I work at {org}, and I live in {city}."],
            {"name": N, "employer": E, "location": L},
        ),
        (
            ["Me in one line: {role} at {org}, living in {city}."],
            {"employer": E, "role": R, "location": L},
        ),
    ],
    # Formal, email-like introductions.
    "formal_email": [
        (
            [
                "Dear Sir or Madam,",
                "My name is {name} {surname} and I am a {role} at {org}.",
                "Kind regards, {name} {surname}",
            ],
            {"name": FULL, "employer": E, "role": R},
        ),
        (
            [
                "Good afternoon. Allow me to introduce myself: I am {name} {surname}, "
                "{role} with {org}, based in {city}."
            ],
            {"name": FULL, "employer": E, "role": R, "location": L},
        ),
        (
            [
                "To whom it may concern,",
                "I am writing on behalf of {org}, where I work as a {role}.",
                "Best wishes, {name}",
            ],
            {"name": N, "employer": E, "role": R},
        ),
        (
            [
                "Hello,",
                "I hope this message finds you well. I am the new {role} at {org}, "
                "and I recently relocated to {city}.",
                "Sincerely, {name} {surname}",
            ],
            {"name": FULL, "employer": E, "role": R, "location": L},
        ),
    ],
    # Long chatty run-on sentences.
    "chatty_runon": [
        (
            [
                "so basically i've been a {role} at {org} for a while now and honestly it's fine "
                "but the commute from {city} is killing me lol"
            ],
            {"employer": E, "role": R, "location": L},
        ),
        (
            [
                "ok so my name is {name} and i just moved to {city} like two weeks ago and i'm "
                "still figuring out where everything is and also i start a new job at {org2} next "
                "month so it's a lot"
            ],
            {"name": N, "location": L},
        ),
        (
            [
                "Long story short I quit {org2}, took a few months off, travelled a bit, and now "
                "I'm a {role} at {org} which I actually love!"
            ],
            {"employer": E, "role": R},
        ),
        (
            [
                "Honestly I love living in {city} but the rent is insane and being a {role} "
                "doesn't pay that well so who knows how long I'll stay"
            ],
            {"role": R, "location": L},
        ),
    ],
    # Missing apostrophes and typos.
    "typos": [
        (["hi im {name} and im a {role}"], {"name": N, "role": R}),
        (["i dont live in {city2} anymore, im in {city} now"], {"location": L}),
        (["ive been wroking at {org} for 3 years, im thier {role}"], {"employer": E, "role": R}),
        (
            ["Im {name}, i live in {city} and i work for {org}"],
            {"name": N, "employer": E, "location": L},
        ),
    ],
}
