"""LangMem and LangGraph driven end to end by OfflineChatModel, offline: memory manager
(insert / update / delete), store manager on a semantic index, ReAct agent with memory tools
across threads, ReflectionExecutor debounce, prompt optimizer, and unseen conversations."""

import time
import warnings

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from memlib.embeddings import MiniLMEmbeddings
from offline_model import OfflineChatModel

warnings.filterwarnings("ignore", category=DeprecationWarning)
MODEL = OfflineChatModel()


@pytest.fixture(scope="module")
def embeddings():
    return MiniLMEmbeddings()


def new_store(embeddings):
    from langgraph.store.memory import InMemoryStore

    return InMemoryStore(index={"dims": 384, "embed": embeddings})


def memory_agent(store, namespace=("memories", "{user_id}"), schema=None):
    """A ReAct agent with LangMem's manage_memory and search_memory tools on the given store."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.prebuilt import create_react_agent
    from langmem import create_manage_memory_tool, create_search_memory_tool

    manage = (
        create_manage_memory_tool(namespace, schema=schema)
        if schema
        else create_manage_memory_tool(namespace)
    )
    return create_react_agent(
        MODEL,
        tools=[manage, create_search_memory_tool(namespace)],
        store=store,
        checkpointer=InMemorySaver(),
    )


def contents(memories) -> list[str]:
    out = []
    for m in memories:
        c = m.content
        out.append(c["content"] if isinstance(c, dict) else getattr(c, "content", repr(c)))
    return out


def as_existing(memories):
    return [
        (m.id, "Memory", m.content if isinstance(m.content, dict) else m.content.model_dump())
        for m in memories
        if not type(m.content).__name__ == "RemoveDoc"
    ]


def test_memory_manager_insert_update_delete_over_three_turns():
    from langmem import create_memory_manager

    manager = create_memory_manager(MODEL, enable_deletes=True)
    turn1 = manager.invoke(
        {
            "messages": [
                HumanMessage("Hi, I'm Alice. I work at Acme as a data engineer and I like hiking.")
            ]
        }
    )
    # One memory for the message, in the user's words ("likes", not "prefers"): it says more
    # than the profile slots hold.
    assert contents(turn1) == [
        "User is Alice; User works at Acme as a data engineer; User likes hiking."
    ]
    employer_id = next(m.id for m in turn1 if "Acme" in m.content.content)

    turn2 = manager.invoke(
        {
            "messages": [HumanMessage("I just joined Globex. My favourite language is Rust.")],
            "existing": as_existing(turn1),
        }
    )
    by_id = {m.id: c for m, c in zip(turn2, contents(turn2), strict=True)}
    # patched in place: the newer employer wins inside the stored memory
    assert by_id[employer_id] == (
        "User is Alice; User works at Globex as a data engineer; User likes hiking."
    )
    assert "User just joined Globex; User's favourite language is Rust." in by_id.values()
    assert not any("Acme" in c for c in by_id.values())

    turn3 = manager.invoke(
        {
            "messages": [HumanMessage("Please forget that I like hiking.")],
            "existing": as_existing(turn2),
        }
    )
    # Only the retracted clause goes; the rest of that memory stays.
    assert not any(type(m.content).__name__ == "RemoveDoc" for m in turn3)
    kept = {m.id: getattr(m.content, "content", None) for m in turn3}
    assert kept[employer_id] == "User is Alice; User works at Globex as a data engineer."


def test_store_manager_on_semantic_index_updates_in_place(embeddings):
    from langmem import create_memory_store_manager

    store = new_store(embeddings)
    manager = create_memory_store_manager(MODEL, namespace=("facts", "{user_id}"), store=store)
    config = {"configurable": {"user_id": "bob"}}
    manager.invoke(
        {
            "messages": [
                HumanMessage(
                    "I'm Bob and I work at Initech as a product manager. I live in Austin."
                )
            ]
        },
        config=config,
    )
    first = {i.key: i.value["content"]["content"] for i in store.search(("facts", "bob"))}
    assert "User lives in Austin." in first.values() and len(first) == 4

    manager.invoke({"messages": [HumanMessage("I moved to Denver last month.")]}, config=config)
    second = {i.key: i.value["content"]["content"] for i in store.search(("facts", "bob"))}
    assert set(second) == set(first)  # same keys: updated, not duplicated
    assert (
        "User lives in Denver." in second.values()
        and "User lives in Austin." not in second.values()
    )

    hit = store.search(("facts", "bob"), query="Which city is the user based in?", limit=1)[0]
    assert hit.value["content"]["content"] == "User lives in Denver."


def test_store_manager_with_query_model_searches_first(embeddings):
    from langmem import create_memory_store_manager

    store = new_store(embeddings)
    manager = create_memory_store_manager(
        MODEL, query_model=MODEL, namespace=("facts", "{user_id}"), store=store
    )
    config = {"configurable": {"user_id": "cy"}}
    manager.invoke({"messages": [HumanMessage("I work at Hooli.")]}, config=config)
    manager.invoke({"messages": [HumanMessage("I now work at Pied Piper.")]}, config=config)
    values = [i.value["content"]["content"] for i in store.search(("facts", "cy"))]
    assert values == ["User works at Pied Piper."]


def test_react_agent_remembers_across_threads(embeddings):
    store = new_store(embeddings)
    agent = memory_agent(store)
    t1 = {"configurable": {"user_id": "carol", "thread_id": "t1"}}
    out1 = agent.invoke(
        {"messages": [HumanMessage("Hi! My name is Carol and I work at Umbrella as a nurse.")]}, t1
    )
    assert "saved" in out1["messages"][-1].content
    saved = sorted(i.value["content"] for i in store.search(("memories", "carol")))
    assert saved == ["User works as a nurse.", "User works at Umbrella.", "User's name is Carol."]

    t2 = {"configurable": {"user_id": "carol", "thread_id": "t2"}}
    out2 = agent.invoke({"messages": [HumanMessage("What is my name and where do I work?")]}, t2)
    calls = [c["name"] for m in out2["messages"] for c in getattr(m, "tool_calls", [])]
    assert calls and set(calls) == {"search_memory"}  # searched before answering
    answer = out2["messages"][-1].content
    assert "Carol" in answer and "Umbrella" in answer

    # Another user sees nothing of Carol's.
    t3 = {"configurable": {"user_id": "dave", "thread_id": "t3"}}
    out3 = agent.invoke({"messages": [HumanMessage("What is my name?")]}, t3)
    assert "Carol" not in out3["messages"][-1].content
    assert "don't know your name" in out3["messages"][-1].content


def test_reflection_executor_debounces_to_one_extraction(embeddings):
    from langmem import ReflectionExecutor, create_memory_store_manager

    store = new_store(embeddings)
    manager = create_memory_store_manager(MODEL, namespace=("facts", "{user_id}"), store=store)
    runs = []
    real_invoke = manager.invoke

    def counting_invoke(*args, **kwargs):
        runs.append(time.time())
        return real_invoke(*args, **kwargs)

    manager.invoke = counting_invoke
    executor = ReflectionExecutor(manager, store=store)
    config = {"configurable": {"user_id": "dmitri"}}
    convo = [HumanMessage("I'm Dmitri.")]
    futures = []
    for line in ["I work at Stark Industries.", "I live in Riga."]:
        convo = convo + [AIMessage("Noted."), HumanMessage(line)]
        futures.append(
            executor.submit({"messages": convo}, config=config, after_seconds=1, thread_id="th")
        )
    futures[-1].result(timeout=60)
    executor.shutdown(wait=False)
    assert futures[0].cancelled() and len(runs) == 1
    values = sorted(i.value["content"]["content"] for i in store.search(("facts", "dmitri")))
    assert values == [
        "User lives in Riga.",
        "User works at Stark Industries.",
        "User's name is Dmitri.",
    ]


TRAJECTORY = [
    HumanMessage("How do I reverse a list in Python?"),
    AIMessage(
        "There are many ways. Lists are mutable sequences; you can reverse them in place with "
        "list.reverse(), or make a reversed copy with slicing or reversed()."
    ),
]


@pytest.mark.parametrize("kind", ["gradient", "metaprompt", "prompt_memory"])
def test_prompt_optimizer_incorporates_feedback(kind):
    from langmem import create_prompt_optimizer

    optimizer = create_prompt_optimizer(MODEL, kind=kind)
    prompt = "You are a Python tutor for {user_name}."
    feedback = "Too long. Always answer in one sentence and include a code example."
    better = optimizer.invoke({"trajectories": [(TRAJECTORY, feedback)], "prompt": prompt})
    assert better.startswith(prompt)  # the original prompt, variables intact
    assert "always answer in one sentence and include a code example." in better.lower()


def test_the_three_optimizer_kinds_differ():
    """Each kind's protocol asks for something else, and the offline model answers each in kind:
    gradient's minimal edit lists the rule (the complaint it answers dropped), metaprompt's rewrite
    makes it a sentence of the prompt, prompt_memory keeps the lesson with its complaint."""
    from langmem import create_prompt_optimizer

    prompt = "You are a support assistant for {user_name}.\n\nBe friendly."
    feedback = "Too long for a chat window. Always answer in one sentence."
    out = {
        kind: create_prompt_optimizer(MODEL, kind=kind).invoke(
            {"trajectories": [(TRAJECTORY, feedback)], "prompt": prompt}
        )
        for kind in ("gradient", "metaprompt", "prompt_memory")
    }
    assert (
        out["gradient"]
        == f"{prompt}\n\nRules learned from feedback:\n- Always answer in one sentence."
    )
    assert out["metaprompt"] == (
        "You are a support assistant for {user_name}. Always answer in one sentence.\n\nBe friendly."
    )
    assert out["prompt_memory"] == (
        f"{prompt}\n\nLessons from feedback:\n"
        "- Too long for a chat window, so always answer in one sentence."
    )
    # a complaint alone is kept by every kind (gradient and prompt_memory as an issue to address)
    alone = create_prompt_optimizer(MODEL, kind="metaprompt").invoke(
        {"trajectories": [(TRAJECTORY, "Hard to follow.")], "prompt": prompt}
    )
    assert alone.startswith(
        "You are a support assistant for {user_name}. Users reported: hard to follow."
    )


def test_prompt_optimizer_without_feedback_keeps_prompt():
    from langmem import create_prompt_optimizer

    optimizer = create_prompt_optimizer(MODEL)
    prompt = "You are a Python tutor."
    assert optimizer.invoke({"trajectories": [(TRAJECTORY, "")], "prompt": prompt}) == prompt


@pytest.mark.parametrize("kind", ["gradient", "metaprompt", "prompt_memory"])
@pytest.mark.parametrize(
    "feedback",
    [
        {"comment": "Rambling reply. Prefer numbered steps."},
        {"rating": 1, "critique": "Rambling reply. Prefer numbered steps."},
        '{"note": "Rambling reply. Prefer numbered steps.", "thumbs_up": false}',
    ],
)
def test_prompt_optimizer_reads_feedback_given_as_a_dict(kind, feedback):
    # LangMem formats feedback with str(): the model sees "{'comment': '...'}"
    from langmem import create_prompt_optimizer

    prompt = "You are a cooking assistant for {user_name}."
    better = create_prompt_optimizer(MODEL, kind=kind).invoke(
        {"trajectories": [(TRAJECTORY, feedback)], "prompt": prompt}
    )
    assert better.startswith(prompt)
    rule = {  # each kind as its protocol asks (test_the_three_optimizer_kinds_differ)
        "gradient": "- Prefer numbered steps.",
        "metaprompt": f"{prompt} Prefer numbered steps.",
        "prompt_memory": "- Rambling reply, so prefer numbered steps.",
    }
    assert rule[kind] in better, better
    rules = better.removeprefix(prompt)
    assert "{" not in rules and "}" not in rules, better
    for key in ("comment", "rating", "critique", "note", "thumbs_up"):
        assert key not in better


@pytest.mark.parametrize("kind", ["gradient", "metaprompt", "prompt_memory"])
@pytest.mark.parametrize("feedback", [{"score": 0}, {"score": 0.1, "session": "s-17"}, "[0, 1]"])
def test_prompt_optimizer_leaves_prompt_alone_for_a_bare_score(kind, feedback):
    # a number says how a run was rated, not what to change: no rule is invented from it
    from langmem import create_prompt_optimizer

    prompt = "You are a cooking assistant for {user_name}."
    better = create_prompt_optimizer(MODEL, kind=kind).invoke(
        {"trajectories": [(TRAJECTORY, feedback)], "prompt": prompt}
    )
    assert better == prompt


def test_feedback_braces_outside_the_prompts_variables_are_dropped():
    from langmem import create_prompt_optimizer

    prompt = "You are a cooking assistant for {user_name}."
    feedback = "Always greet {user_name} by name. Always list the {ingredients} first."
    better = create_prompt_optimizer(MODEL).invoke(
        {"trajectories": [(TRAJECTORY, feedback)], "prompt": prompt}
    )
    assert "- Always greet {user_name} by name." in better
    assert "- Always list the ingredients first." in better and "{{" not in better


# Conversations the rules were not written against: other names, employers, phrasings.
UNSEEN = [
    (
        "Hey there, this is Oluwaseun. These days I'm working for Shopify.",
        {"name": "Oluwaseun", "employer": "Shopify"},
    ),
    (
        "call me Mei-Ling; I'm based in Kuala Lumpur",
        {"name": "Mei-Ling", "location": "Kuala Lumpur"},
    ),
    (
        "I am employed by the Norwegian Refugee Council as a logistics coordinator.",
        {"employer": "the Norwegian Refugee Council", "role": "logistics coordinator"},
    ),
    (
        "I'm a pediatric nurse at Great Ormond Street Hospital.",
        {"role": "pediatric nurse", "employer": "Great Ormond Street Hospital"},
    ),
    (
        "My favorite editor is Helix and I'd rather use tabs than spaces.",
        {"favourite editor": "Helix", "preference": "tabs than spaces"},
    ),
    (
        "We relocated to Tbilisi in March. I recently started at Bolt.",
        {"location": "Tbilisi", "employer": "Bolt"},
    ),
]


@pytest.mark.parametrize("text, expected", UNSEEN)
def test_generality_on_unseen_conversations(text, expected):
    from langmem import create_memory_manager

    found = {}
    for f in __import__("offline_model.rules", fromlist=["extract_facts"]).extract_facts(text):
        found[f.predicate] = f.value
    for predicate, value in expected.items():
        assert found.get(predicate) == value, (text, found)
    memories = contents(create_memory_manager(MODEL).invoke({"messages": [HumanMessage(text)]}))
    for value in expected.values():
        assert any(value in m for m in memories), (value, memories)


def test_profile_document_is_patched_field_by_field(embeddings):
    from langmem import create_memory_store_manager
    from pydantic import BaseModel, Field

    class UserProfile(BaseModel):
        """The user's profile: one document, updated in place."""

        name: str | None = None
        employer: str | None = Field(None, description="Organisation the user works for")
        role: str | None = None
        location: str | None = None
        preferences: list[str] = Field(default_factory=list, description="Stated preferences")

    store = new_store(embeddings)
    manager = create_memory_store_manager(
        MODEL,
        schemas=[UserProfile],
        instructions="Keep one profile per user.",
        enable_inserts=False,
        namespace=("profiles", "{user_id}"),
        store=store,
    )
    config = {"configurable": {"user_id": "ann"}}

    def profile():
        items = store.search(("profiles", "ann"))
        assert len(items) == 1, items  # one document, never a second one
        return items[0].value["content"]

    manager.invoke(
        {"messages": [HumanMessage("I'm Ann, a designer at Figma in Berlin. I prefer dark mode.")]},
        config=config,
    )
    assert profile() == {
        "name": "Ann",
        "employer": "Figma",
        "role": "designer",
        "location": "Berlin",
        "preferences": ["dark mode"],
    }
    manager.invoke(
        {"messages": [HumanMessage("I moved to Munich. I also like vim keybindings.")]},
        config=config,
    )
    assert profile()["location"] == "Munich"
    assert profile()["preferences"] == ["dark mode", "vim keybindings"]
    manager.invoke({"messages": [HumanMessage("I don't like dark mode anymore.")]}, config=config)
    assert profile()["preferences"] == ["vim keybindings"]
    assert profile()["name"] == "Ann"


def test_triples_update_the_same_slot(embeddings):
    from langmem import create_memory_store_manager
    from pydantic import BaseModel

    class Triple(BaseModel):
        """One fact about the user as subject, predicate, object."""

        subject: str
        predicate: str
        object: str

    store = new_store(embeddings)
    manager = create_memory_store_manager(
        MODEL,
        schemas=[Triple],
        namespace=("triples", "{user_id}"),
        store=store,
        enable_deletes=True,
    )
    config = {"configurable": {"user_id": "ann"}}
    manager.invoke({"messages": [HumanMessage("I'm Ann and I live in Berlin.")]}, config=config)
    manager.invoke({"messages": [HumanMessage("I moved to Munich.")]}, config=config)
    triples = [i.value["content"] for i in store.search(("triples", "ann"))]
    places = [t["object"] for t in triples if t["predicate"] == "lives in"]
    assert places == ["Munich"]


def test_react_agent_updates_and_deletes_instead_of_duplicating(embeddings):
    store = new_store(embeddings)
    agent = memory_agent(store)

    def say(text, thread):
        config = {"configurable": {"user_id": "erin", "thread_id": thread}}
        return agent.invoke({"messages": [HumanMessage(text)]}, config)["messages"][-1].content

    say("I live in Austin and I like hiking.", "a")
    say("I moved to Denver.", "b")
    memories = sorted(i.value["content"] for i in store.search(("memories", "erin")))
    assert memories == ["User lives in Denver.", "User prefers hiking."]
    assert "deleted" in say("Please forget that I like hiking.", "c")
    assert [i.value["content"] for i in store.search(("memories", "erin"))] == [
        "User lives in Denver."
    ]
    assert "Denver" in say("Where do I live?", "d")


def test_collection_schema_gets_one_record_per_matching_fact():
    from langmem import create_memory_manager
    from pydantic import BaseModel, Field

    class Preference(BaseModel):
        """One preference the user stated."""

        category: str = Field(description="What the preference is about")
        preference: str
        context: str | None = None

    text = "I'm Kai from Oslo. I prefer dark mode, and my favourite editor is Neovim. I also like green tea."
    records = [
        m.content
        for m in create_memory_manager(MODEL, schemas=[Preference]).invoke(
            {"messages": [HumanMessage(text)]}
        )
    ]
    assert sorted(r.preference for r in records) == [
        "Neovim",
        "dark mode",
        "green tea",
    ]  # not Kai, not Oslo
    assert all(r.context and r.preference in r.context for r in records)


def test_several_schemas_each_get_what_fits():
    from langmem import create_memory_manager
    from pydantic import BaseModel

    class UserProfile(BaseModel):
        """The user's profile."""

        name: str | None = None
        location: str | None = None

    class Episode(BaseModel):
        """A past interaction worth learning from."""

        situation: str
        approach: str
        outcome: str
        lesson: str

    manager = create_memory_manager(MODEL, schemas=[UserProfile, Episode])
    exchange = [
        HumanMessage("I'm Kai from Oslo. My CI build fails with exit code 137."),
        AIMessage(
            "Exit code 137 means the container ran out of memory; raise the memory limit to 4 GB."
        ),
        HumanMessage("That fixed it, thanks!"),
    ]
    kinds = {type(m.content).__name__: m.content for m in manager.invoke({"messages": exchange})}
    assert kinds["UserProfile"].name == "Kai" and kinds["UserProfile"].location == "Oslo"
    assert "137" in kinds["Episode"].situation and "Kai" not in kinds["Episode"].situation
    # No exchange with the assistant: no episode is made up.
    only_intro = manager.invoke({"messages": [HumanMessage("I'm Kai from Oslo.")]})
    assert [type(m.content).__name__ for m in only_intro] == ["UserProfile"]
    # Nothing extractable: nothing stored (not an empty record).
    assert manager.invoke({"messages": [HumanMessage("hello there")]}) == []


def test_thread_extractor_title_and_summary():
    from langmem import create_thread_extractor

    thread = [
        {"role": "user", "content": "Hi, I am having trouble with my account."},
        {"role": "assistant", "content": "I would be happy to help. What seems to be the issue?"},
        {"role": "user", "content": "I cannot reset my password on the Acme portal."},
    ]
    out = create_thread_extractor(MODEL).invoke({"messages": thread})
    assert "Account" in out.title
    assert "Acme" in out.summary and "password" in out.summary
    assert "happy to help" not in out.summary  # courtesy is not content


def test_multi_prompt_optimizer_updates_the_prompt_the_feedback_is_about():
    from langmem import create_multi_prompt_optimizer

    optimizer = create_multi_prompt_optimizer(MODEL)
    trajectory = [
        HumanMessage("Find papers on query rewriting"),
        AIMessage("Here are some results."),
    ]
    feedback = "The answer had no citations. Always cite sources with their ids."
    prompts = [
        {"name": "researcher", "prompt": "You search the corpus and collect sources."},
        {"name": "writer", "prompt": "You write the final answer from the notes, with citations."},
    ]
    out = {
        p["name"]: p["prompt"]
        for p in optimizer.invoke({"trajectories": [(trajectory, feedback)], "prompts": prompts})
    }
    assert out["researcher"] == prompts[0]["prompt"]
    assert out["writer"].startswith(prompts[1]["prompt"]) and "Always cite sources" in out["writer"]


QUESTIONS = {
    "name": "What's my name?",
    "employer": "Who do I work for?",
    "role": "What is my job?",
    "location": "Where do I live?",
    "favourite editor": "What's my favorite editor?",
    "preference": "What do I prefer?",
}


@pytest.mark.parametrize("text, expected", UNSEEN)
def test_generality_through_the_agent_across_threads(text, expected, embeddings):
    store = new_store(embeddings)
    agent = memory_agent(store)
    agent.invoke(
        {"messages": [HumanMessage(text)]}, {"configurable": {"user_id": "u", "thread_id": "1"}}
    )
    for n, (predicate, value) in enumerate(expected.items()):
        config = {"configurable": {"user_id": "u", "thread_id": f"ask{n}"}}
        answer = agent.invoke({"messages": [HumanMessage(QUESTIONS[predicate])]}, config)
        assert value in answer["messages"][-1].content, (predicate, answer["messages"][-1].content)


# Messages packing several facts, written as a held-out probe (first run: 11 of 21 facts stored;
# the rules were then widened generally: a left-out "I" after "," / "and", "X here.", "the CTO of",
# "a startup called X", "I'm a vet in Y", "I've been a carpenter").
PACKED = [
    (
        "Hey! Folasade here. I'm a veterinarian in Ibadan and I really love jollof rice.",
        ["Folasade", "veterinarian", "Ibadan", "jollof rice"],
    ),
    (
        "Good morning. I teach mathematics at Lycée Pasteur, live in Lille, and I can't stand loud music.",
        ["Lille", "loud music"],
    ),
    (
        "I am Rafael; I've been a carpenter for twenty years. My wife's name is Clara.",
        ["Rafael", "carpenter", "Clara"],
    ),
    (
        "Quick note: I switched jobs and now work for Atlassian in Sydney as a QA lead.",
        ["Atlassian", "Sydney", "QA lead"],
    ),
    ("I'm 29, I speak Tagalog, and my favourite sport is badminton.", ["29", "badminton"]),
    ("Please remember I'm vegan and allergic to shellfish.", ["vegan", "shellfish"]),
    (
        "My partner Jonas and I just moved to Utrecht. I'm studying data science.",
        ["Utrecht", "data science"],
    ),
    (
        "I'm the CTO of a startup called Nimbus Labs, based in Austin.",
        ["CTO", "Nimbus Labs", "Austin"],
    ),
]


@pytest.mark.parametrize("text, values", PACKED)
def test_memory_manager_stores_every_packed_fact(text, values):
    from langmem import create_memory_manager

    stored = " | ".join(
        contents(create_memory_manager(MODEL).invoke({"messages": [HumanMessage(text)]}))
    )
    for value in values:
        assert value in stored, (value, stored)


def test_manage_memory_with_a_profile_schema_keeps_one_document(embeddings):
    from pydantic import BaseModel, Field

    class UserProfile(BaseModel):
        name: str | None = None
        employer: str | None = None
        location: str | None = None
        preferences: list[str] = Field(default_factory=list)

    store = new_store(embeddings)
    agent = memory_agent(store, namespace=("profile", "{user_id}"), schema=UserProfile)
    for n, text in enumerate(
        ["I'm Alice, I work at Acme and I live in Lisbon.", "I moved to Porto. I prefer dark mode."]
    ):
        agent.invoke(
            {"messages": [HumanMessage(text)]},
            {"configurable": {"user_id": "a", "thread_id": str(n)}},
        )
    docs = [i.value["content"] for i in store.search(("profile", "a"))]
    assert docs == [
        {"name": "Alice", "employer": "Acme", "location": "Porto", "preferences": ["dark mode"]}
    ]


def test_feedback_opening_with_a_verb_is_a_rule_not_an_issue():
    from langmem import create_prompt_optimizer

    prompt = "You are a cooking assistant for {user_name}."
    feedback = "Hard to follow. List the ingredients before the method."
    better = create_prompt_optimizer(MODEL).invoke(
        {"trajectories": [(TRAJECTORY, feedback)], "prompt": prompt}
    )
    assert "- List the ingredients before the method." in better
    assert "Address this feedback: List" not in better
    assert "Hard to follow" not in better  # gradient's minimal edit: the rule answers it


def test_each_sentence_keeps_its_own_fact_and_expertise_is_not_a_place():
    from langmem import create_memory_manager

    from offline_model.rules import extract_facts

    text = "I'm based in Bergen. I'm a specialist in Kafka."
    facts = {(f.predicate, f.value) for f in extract_facts(text)}
    assert facts == {("location", "Bergen"), ("expertise", "Kafka")}
    memories = create_memory_manager(MODEL).invoke({"messages": [HumanMessage(text)]})
    # the message says more than the slots hold, so it is one memory in the user's words
    assert contents(memories) == ["User is based in Bergen; User is a specialist in Kafka."]


class _Triple:
    """A fact schema with an optional context field (the user's own sentence)."""

    @staticmethod
    def schema():
        from pydantic import BaseModel

        class Fact(BaseModel):
            subject: str
            predicate: str
            object: str
            context: str | None = None

        return Fact


def test_patch_changes_only_changed_fields_and_context_quotes_the_user():
    from langmem import create_memory_manager

    manager = create_memory_manager(MODEL, schemas=[_Triple.schema()], enable_deletes=True)
    old = "I'm at Initrode, and I go sailing most Sundays."
    existing = [
        (
            "w",
            "Fact",
            {"subject": "User", "predicate": "works at", "object": "Initrode", "context": old},
        ),
        ("s", "Fact", {"subject": "User", "predicate": "enjoys", "object": "sailing"}),
    ]
    said = "These days I work for Hooli."
    out = manager.invoke({"messages": [HumanMessage(said)], "existing": existing})
    changed = {m.id: m.content.model_dump() for m in out if m.id == "w"}
    assert changed["w"] == {
        "subject": "User",
        "predicate": "works at",
        "object": "Hooli",
        "context": said,  # what the user said, not an edit of the old sentence
    }
    assert not [m for m in out if m.id not in ("w", "s")], "nothing new to insert"


def test_forget_removes_the_matching_fact_not_records_whose_context_mentions_it():
    from langmem import create_memory_manager

    manager = create_memory_manager(MODEL, schemas=[_Triple.schema()], enable_deletes=True)
    existing = [
        (
            "w",
            "Fact",
            {
                "subject": "User",
                "predicate": "works at",
                "object": "Initrode",
                "context": "I'm at Initrode, and I go sailing most Sundays.",
            },
        ),
        (
            "s",
            "Fact",
            {
                "subject": "User",
                "predicate": "enjoys",
                "object": "sailing",
                "context": "I enjoy sailing.",
            },
        ),
        (
            "g",
            "Fact",
            {
                "subject": "User",
                "predicate": "plays",
                "object": "chess",
                "context": "Chess keeps me busy when sailing is off.",
            },
        ),
    ]
    out = manager.invoke(
        {"messages": [HumanMessage("Kindly forget that I enjoy sailing.")], "existing": existing}
    )
    removed = [m.content.json_doc_id for m in out if type(m.content).__name__ == "RemoveDoc"]
    assert removed == ["s"]


PLANTED = [
    ("User lives in Aveiro.", "User", "lives in", "Aveiro"),
    ("User's brother lives in Leiria.", "User's brother", "lives in", "Leiria"),
    ("User's sister lives in Faro.", "User's sister", "lives in", "Faro"),
    ("User's cat is called Tofu.", "User's cat", "is called", "Tofu"),
    ("User's parrot is called Kiwi.", "User's parrot", "is called", "Kiwi"),
    ("User uses Vim.", "User", "uses", "Vim"),
    ("User works at Initrode.", "User", "works at", "Initrode"),
    ("User prefers green tea.", "User", "prefers", "green tea"),
    ("User speaks Danish.", "User", "speaks", "Danish"),
    ("User's manager is Rosa.", "User's manager", "is", "Rosa"),
    ("User is learning the cello.", "User", "is learning", "the cello"),
    ("User dislikes olives.", "User", "dislikes", "olives"),
]


@pytest.mark.parametrize(
    "said, target, becomes",
    [
        ("I relocated to Viseu in the spring.", "User lives in Aveiro.", "Viseu"),
        ("My cat is currently named Miso.", "User's cat is called Tofu.", "Miso"),
        ("Nowadays my cat is called Miso.", "User's cat is called Tofu.", "Miso"),
        ("I don't use Vim anymore.", "User uses Vim.", None),
        ("I've stopped using Vim.", "User uses Vim.", None),
    ],
)
def test_store_manager_changes_the_record_of_the_same_subject_and_slot(
    said, target, becomes, embeddings
):
    from langmem import create_memory_store_manager
    from pydantic import BaseModel

    class Fact(BaseModel):
        content: str
        subject: str
        predicate: str
        object: str

    store = new_store(embeddings)
    ns = ("facts", "zoe")
    for n, (content, s, p, o) in enumerate(PLANTED):
        value = {"content": content, "subject": s, "predicate": p, "object": o}
        store.put(ns, f"f{n:02d}", {"kind": "Fact", "content": value})
    key = {c: f"f{n:02d}" for n, (c, *_) in enumerate(PLANTED)}[target]
    manager = create_memory_store_manager(
        MODEL, schemas=[Fact], namespace=ns, store=store, enable_deletes=True
    )
    assert key in [h.key for h in store.search(ns, query=said, limit=5)], "not a candidate"
    before = {i.key: i.value["content"]["content"] for i in store.search(ns, limit=100)}
    manager.invoke({"messages": [HumanMessage(said)]})
    after = {i.key: i.value["content"]["content"] for i in store.search(ns, limit=100)}
    changed = {k for k in before.keys() & after.keys() if before[k] != after[k]}
    if becomes is None:
        assert (before.keys() - after.keys(), after.keys() - before.keys(), changed) == (
            {key},
            set(),
            set(),
        )
    else:
        assert (changed, after.keys() - before.keys(), before.keys() - after.keys()) == (
            {key},
            set(),
            set(),
        )
        assert becomes in after[key]


def test_a_relatives_record_is_not_the_users_slot():
    from langmem import create_memory_manager

    from memlib.semantic import Fact

    manager = create_memory_manager(MODEL, schemas=[Fact], enable_deletes=True)
    existing = [
        (
            "b",
            "Fact",
            {
                "content": "User's brother lives in Leiria.",
                "subject": "User's brother",
                "predicate": "lives in",
                "object": "Leiria",
            },
        ),
        (
            "u",
            "Fact",
            {
                "content": "User lives in Aveiro.",
                "subject": "User",
                "predicate": "lives in",
                "object": "Aveiro",
            },
        ),
    ]
    out = manager.invoke(
        {"messages": [HumanMessage("I relocated to Viseu in the spring.")], "existing": existing}
    )
    changed = {m.id: m.content.content for m in out if not isinstance(m.content, dict)}
    assert changed == {"u": "User lives in Viseu."}
