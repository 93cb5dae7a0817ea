"""OfflineChatModel quality rules: compact dialogue summaries that cover every exchange and keep
changing when folded, focused answers, worked examples, action-first episodes, patched records.

Phrasings here differ on purpose from the notebooks' fixtures."""

import re

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from offline_model import OfflineChatModel
from offline_model.rules import extract_facts

MODEL = OfflineChatModel()


def reply(*messages, **kwargs) -> str:
    return MODEL.invoke(list(messages), **kwargs).content


def words(text: str) -> int:
    return len(text.split())


def lines(*pairs: tuple[str, str]) -> str:
    return "\n".join(f"{who}: {text}" for who, text in pairs)


# ---------------------------------------------------------------- summaries of dialogues

INTRO = [
    HumanMessage(
        "Hey Robin! I'm Tariq Haddad, and I work at Bluefin Analytics in Porto as a machine "
        "learning engineer."
    ),
    AIMessage("Nice to meet you, Tariq Haddad! Noted: you work at Bluefin Analytics."),
    HumanMessage("Where should I begin with SQL window functions?"),
    AIMessage(
        "Start with ROW_NUMBER and RANK over a PARTITION BY clause, then move on to running "
        "totals with SUM OVER an ordered window."
    ),
]


def test_dialogue_summary_drops_greetings_acks_questions_and_the_instruction():
    out = reply(
        *INTRO,
        HumanMessage(
            "Summarize the conversation above in at most 60 words. Reply with the summary only."
        ),
    )
    assert words(out) <= 60
    for noise in ("Hey", "Robin", "Nice to meet", "Noted", "?", "Reply with", "summary only"):
        assert noise not in out, (noise, out)
    assert "Tariq Haddad" in out and "Bluefin Analytics" in out
    assert "ROW_NUMBER" in out and "SQL window functions" in out  # the answer's key point
    assert not re.search(r"\bUser (?:work|begin|live)\b|\byou\b", out), out


def test_dialogue_summary_is_third_person_sentences_each_said_once():
    out = reply(
        HumanMessage(
            "Hi! I'm Tove, a glassblower opening a studio. Where should I start with pricing?"
        ),
        AIMessage("Welcome, Tove! Start with the cost of the gas and the glass per piece."),
        HumanMessage("We sell our vases at a weekend market in the old town."),
        AIMessage("Good. Markets favour a few clear price points."),
        HumanMessage("Summarize the conversation above in at most 60 words."),
    )
    assert "User sells their vases at a weekend market in the old town." in out, out  # we, our
    assert "User is Tove, a glassblower opening a studio." in out, out  # articles kept
    assert out.count("glassblower") == 1, out  # "User is a glassblower." said it again


def test_instruction_in_the_system_prompt_does_not_leak():
    out = reply(
        SystemMessage(
            "Condense the dialogue into at most 40 words. Output only the summary, nothing else."
        ),
        *INTRO,
    )
    assert "only the summary" not in out and "nothing else" not in out
    assert "Tariq Haddad" in out


def test_transcript_tool_lines_become_short_clauses():
    transcript = "\n".join(
        [
            "user: Is it raining in Bergen right now?",
            'assistant called fetch_weather({"city": "Bergen"})',
            "tool result (fetch_weather): 9 C and steady drizzle",
            "assistant: Yes, Bergen has 9 C and steady drizzle at the moment.",
        ]
    )
    out = reply(HumanMessage(f"Summarize in at most 30 words:\n\n{transcript}"))
    assert "ran fetch_weather: result 9 C and steady drizzle" in out
    assert "assistant called" not in out and "{" not in out


GIT_TOPICS = {
    "rebase": (
        "How does git rebase work?",
        "Rebase replays your commits on top of another branch, rewriting their hashes, so the history reads as a straight line without merge commits.",
    ),
    "cherry-pick": (
        "What is cherry-pick for?",
        "Cherry-pick copies one chosen commit from another branch onto the current one, which helps when a single fix must reach a release branch.",
    ),
    "stash": (
        "And what does stash do?",
        "Stash shelves uncommitted changes on a stack and cleans the working tree, so you can switch branches and restore the work later with pop.",
    ),
    "bisect": (
        "Explain git bisect.",
        "Bisect binary-searches the history between a good and a bad commit, asking you to test each midpoint until it names the commit that broke things.",
    ),
    "reflog": (
        "What is the reflog?",
        "The reflog records every position HEAD has pointed to, so commits lost after a bad reset can still be found and restored for about ninety days.",
    ),
    "submodules": (
        "How do submodules behave?",
        "A submodule pins another repository at a fixed commit inside yours; cloning needs the recursive flag, and updating it is an explicit extra step.",
    ),
    "worktrees": (
        "Why would I use worktrees?",
        "Worktrees check out several branches of one repository into separate folders at once, sharing a single object store, so no second clone is needed.",
    ),
    "hooks": (
        "What are hooks?",
        "Hooks are scripts git runs at fixed points, such as before a commit or a push, often used to lint code or block secrets from being committed.",
    ),
}


def test_every_topic_of_a_long_dialogue_fits_a_small_budget():
    transcript = "\n".join(f"user: {q}\nassistant: {a}" for q, a in GIT_TOPICS.values())
    out = reply(
        HumanMessage(
            f"Summarize the conversation below in at most 70 words, keeping every topic name.\n\n{transcript}"
        )
    )
    assert words(out) <= 70
    missing = [t for t in GIT_TOPICS if t.lower() not in out.lower()]
    assert not missing, (missing, out)


def test_folding_keeps_identity_and_lets_new_facts_in():
    """A rolling summary at a tight budget: identity persists, the newest fact gets in, and the
    summary keeps changing instead of freezing once full."""
    chunks = [
        (
            "I'm Lena Fischer, and I work at Quillsoft in Graz as a site reliability engineer.",
            "Noted.",
        ),
        ("The staging cluster runs Kafka 3.6 on five brokers.", "Noted."),
        ("Our p99 latency budget for the checkout API is 250 ms.", "Noted."),
        ("Backups go to a bucket called qs-cold-archive every 6 hours.", "Noted."),
        ("The on-call rotation changes every Tuesday at 09:00.", "Noted."),
        ("We pinned Terraform to version 1.7.5 last sprint.", "Noted."),
        ("The billing database holds 48 million invoices.", "Noted."),
    ]
    summary, history = "", []
    for user, assistant in chunks:
        previous = f"Summary so far: {summary}\n\n" if summary else ""
        body = f"{previous}New messages:\n{lines(('user', user), ('assistant', assistant))}"
        summary = reply(
            HumanMessage(
                f"Update the running summary in at most 35 words. Return only the summary.\n\n{body}"
            )
        )
        history.append(summary)
        assert words(summary) <= 35
    assert "Lena Fischer" in summary and "Quillsoft" in summary
    assert "48 million" in summary  # the newest fact
    assert len(set(history[2:])) == len(history[2:])  # every fold changed the summary


def test_multi_word_name_survives_in_summaries_and_answers():
    memory = SystemMessage(
        "Summary of the earlier conversation: User is Ana Lucia Ferreira, and User works at "
        "Tidewater Bank in Recife as a credit analyst."
    )
    facts = extract_facts(memory.content, False)
    assert [f.value for f in facts if f.predicate == "name"] == ["Ana Lucia Ferreira"]
    assert [f.value for f in facts if f.predicate == "employer"] == ["Tidewater Bank"]
    assert "Ana Lucia Ferreira" in reply(memory, HumanMessage("Do you remember what I'm called?"))


# ---------------------------------------------------------------- answering


def test_employer_after_a_role():
    for text in (
        "I work as a site reliability engineer at Harbourline Logistics.",
        "These days I'm a line cook at Saffron House.",
    ):
        employers = [f.value for f in extract_facts(text, True) if f.predicate == "employer"]
        assert employers and employers[0] in text, (text, employers)
    out = reply(
        HumanMessage("I work as a site reliability engineer at Harbourline Logistics."),
        AIMessage("Noted."),
        HumanMessage("Which company do I work for?"),
    )
    assert "Harbourline Logistics" in out


def test_answer_picks_the_sentence_about_what_is_asked():
    notes = SystemMessage(
        "Notes: The weekly export writes about 14 GB of Parquet files to the data lake. "
        "It used to finish in 3 hours, and the goal is now under 50 minutes."
    )
    out = reply(notes, HumanMessage("What is the goal duration for the weekly export?"))
    assert "50 minutes" in out and "14 GB" not in out, out


def test_context_answer_without_a_lead_in_keeps_citations():
    system = SystemMessage(
        "Answer from these documents.\n"
        "[kb-7] The Oslo office opens at 08:30 on weekdays.\n"
        "[kb-9] Visitors must register at the front desk on the ground floor."
    )
    out = reply(system, HumanMessage("When does the Oslo office open? Where do visitors register?"))
    assert not out.startswith(("From what", "Based on")), out  # no fixed prefix (#26)
    assert "[kb-7]" in out and "[kb-9]" in out


def test_memory_items_in_key_is_value_form():
    system = SystemMessage(
        "Stored memories about the user: likes dark roast coffee; city is Valparaiso; name is Odalys."
    )
    assert "Odalys" in reply(system, HumanMessage("What's my name?"))
    assert "Valparaiso" in reply(system, HumanMessage("Where do I live?"))


CASES = """You help with infrastructure tasks.

Past cases to learn from:

Case A
Problem: The nightly ETL kept timing out after the source table grew past 90 million rows.
What we did: Split the extract into hourly partitions and loaded them in parallel.
Outcome: Runtime dropped from 4 hours to 35 minutes.
Takeaway: Partition large extracts by time before tuning anything else.

Case B
Problem: A certificate expired on the public API and clients failed for two hours.
What we did: Renewed it by hand and added an expiry check to monitoring.
Outcome: No outage since.
Next time: Automate renewal and alert 30 days before any certificate expires.
"""


def test_how_to_question_applies_the_closest_example_lesson():
    out = reply(
        SystemMessage(CASES),
        HumanMessage(
            "Our TLS certificate for the customer portal runs out soon. How should we handle it?"
        ),
    )
    assert out.startswith("Automate renewal and alert 30 days before any certificate expires.")
    assert "Last time you renewed it by hand" in out  # what was done then, told as the past
    assert "Partition large extracts" not in out
    without = reply(
        SystemMessage("You help with infrastructure tasks."),
        HumanMessage(
            "Our TLS certificate for the customer portal runs out soon. How should we handle it?"
        ),
    )
    assert "Automate renewal" not in without


def test_unrelated_question_ignores_the_examples():
    out = reply(SystemMessage(CASES), HumanMessage("How do I bake sourdough bread?"))
    assert "Partition large extracts" not in out and "Automate renewal" not in out


# ---------------------------------------------------------------- structured output


def test_episode_approach_is_the_action_not_the_diagnosis():
    from pydantic import BaseModel, Field

    class Episode(BaseModel):
        situation: str = Field(description="What the user was trying to do.")
        approach: str = Field(description="What was tried: the steps taken.")
        outcome: str = Field(description="What happened.")
        lesson: str = Field(description="What to do next time.")

    conversation = [
        SystemMessage("Record the finished conversation as one episode."),
        HumanMessage("Our API gateway returns 502 errors on every report download."),
        AIMessage("Which requests fail? Only the long ones?"),
        HumanMessage("Yes, only downloads that take longer than half a minute."),
        AIMessage(
            "The 502s line up with the nginx upstream timeout of 30 seconds. "
            "Raise proxy_read_timeout to 120 seconds and reload nginx."
        ),
        HumanMessage("That fixed it, the downloads finish now."),
    ]
    episode = MODEL.with_structured_output(Episode).invoke(conversation)
    assert episode.approach.startswith("Raise proxy_read_timeout"), episode.approach
    assert "line up with" not in episode.approach


def test_memory_manager_patches_a_renamed_pet():
    from langgraph.store.memory import InMemoryStore
    from langmem import create_memory_store_manager

    from memlib.embeddings import MiniLMEmbeddings

    store = InMemoryStore(index={"dims": 384, "embed": MiniLMEmbeddings()})
    manager = create_memory_store_manager(MODEL, namespace=("facts", "{user_id}"), store=store)
    config = {"configurable": {"user_id": "kim"}}
    manager.invoke({"messages": [HumanMessage("My parrot is named Kiwi.")]}, config=config)
    manager.invoke(
        {"messages": [HumanMessage("Update: my parrot is called Mango now.")]}, config=config
    )
    values = [i.value["content"]["content"] for i in store.search(("facts", "kim"))]
    assert len(values) == 1 and "Mango" in values[0] and "Kiwi" not in values[0], values


def test_memory_text_told_back_in_the_second_person():
    system = SystemMessage(
        "Notes about the user:\nUser account number is 4417-B.\nUser travels to Lagos every spring."
    )
    out = reply(system, HumanMessage("What is my account number?"))
    assert "your account number is 4417-b" in out.lower() and "you account" not in out, out
    assert reply(system, HumanMessage("Where do I travel every spring?")).startswith(
        "You travel to Lagos"
    )


def test_grade_reason_shows_the_querys_words_not_stems():
    from langchain_core.messages import HumanMessage, SystemMessage

    from offline_model import OfflineChatModel

    reply = (
        OfflineChatModel()
        .invoke(
            [
                SystemMessage(
                    "Grade whether the document is relevant to the query. Answer yes or no."
                ),
                HumanMessage(
                    "Query: Which libraries were updated during the sprint?\n"
                    "Document: During the last sprint we updated three libraries and the CI images."
                ),
            ]
        )
        .content
    )
    terms = reply.split("shared terms:")[1]
    assert "during" in terms and "libraries" in terms and "updated" in terms, reply
    assert "dur," not in terms and "library" not in terms, reply


# Answers from context (issue #26): every part answered, dates used, newest statement wins,
# "I don't know" when the asked-about thing is absent, plain second-person replies.

PRIYA = HumanMessage(
    "Hi! I'm Priya Raman, and I work at Northwind Labs in Leeds as a data engineer."
)


def test_a_preface_with_before_does_not_ask_for_an_earlier_value():
    question = "Before we wrap up: what's my name? And which company do I work for?"
    out = reply(PRIYA, AIMessage("Noted."), HumanMessage(question))
    assert out == "Your name is Priya Raman. You work at Northwind Labs.", out


def test_every_part_of_a_question_is_answered():
    out = reply(PRIYA, AIMessage("Noted."), HumanMessage("What's my name and where do I work?"))
    assert "Priya Raman" in out and "Northwind Labs" in out, out


def test_a_statement_is_acknowledged_in_the_users_own_words():
    out = reply(HumanMessage("We moved the start to 01:30 UTC last week."))
    assert out == "You moved the start to 01:30 UTC last week.", out
    # told back as a plain sentence, without a fixed prefix
    out = reply(HumanMessage("I started working at a bakery in Ghent last spring."))
    assert out == "You started working at a bakery in Ghent last spring.", out
    out = reply(HumanMessage("Forget that I work at the bakery."))
    assert out == "I'll treat that as no longer true.", out


def test_a_how_to_question_with_nothing_in_context_gets_general_advice_from_the_question():
    system = SystemMessage("You are a helpful assistant.")
    out = reply(system, HumanMessage("How do I repot an orchid without hurting its roots?"))
    assert out.startswith("How you repot an orchid without hurting its roots depends on"), out
    assert "in general" in out and "don't know -" not in out, out
    # a question about the user's own facts still says it does not know
    out = reply(system, HumanMessage("What is my cat called?"))
    assert "don't know" in out, out


def test_why_is_answered_with_the_reason_clause_or_not_at_all():
    said = "Context:\nThe ferry to Vis was cancelled on Friday. The harbour closed at noon."
    question = HumanMessage("Why was the ferry to Vis cancelled?")
    out = reply(SystemMessage(said), question)
    assert out.startswith("I don't know why"), out
    said += " The ferry to Vis was cancelled because a storm hit the coast."
    out = reply(SystemMessage(said), question)
    assert "because a storm hit the coast" in out, out


def session(day: str, *said: str) -> list:
    return [SystemMessage(f"Session of {day}."), *(HumanMessage(s) for s in said)]


def test_relative_dates_are_resolved_against_the_session_date():
    history = session("2026-02-03", "My haircut is on Saturday at 11.")  # a Tuesday
    out = reply(*history, HumanMessage("When is my haircut?"))
    assert "7 February 2026" in out and not out.startswith("From what"), out


def test_the_newest_statement_on_a_subject_wins():
    history = [
        *session("2026-01-05", "We have 3 cats at home."),
        *session("2026-03-02", "We adopted another kitten, so we have 4 cats now."),
    ]
    out = reply(*history, HumanMessage("How many cats do I have?"))
    assert "4 cats" in out and "3 cats" not in out, out


def test_an_absent_person_or_thing_is_not_answered_with_a_neighbour():
    history = session("2026-01-05", "My son Kenji does karate on Tuesdays.", "My dog Rex is 4.")
    assert "don't know" in reply(*history, HumanMessage("What is my cat called?"))
    assert "don't know" in reply(*history, HumanMessage("How old is my cat?"))
    assert "Rex is 4" in reply(*history, HumanMessage("How old is Rex?"))


def test_a_favourite_said_long_ago_is_answered_from_the_whole_history():
    # The context sentences stop at the last 80 messages; a slot the parse read ("favourite X")
    # is answered from every message, as the name and the employer are. Found by memlib.eval's
    # sweep: the full history fell from 1.00 to 0.72 at 100 sessions when it was not.
    history = [HumanMessage("My favourite pasta shape is lumache."), AIMessage("Noted.")]
    for n in range(60):
        history += [HumanMessage(f"I walked {n + 2} kilometres today."), AIMessage("Nice walk.")]
    reply = MODEL.invoke([*history, HumanMessage("What is my favourite pasta shape?")]).content
    assert "lumache" in reply.split() or "lumache." in reply.split(), reply
