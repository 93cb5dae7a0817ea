"""Open-domain memories (issue #26): LangMem's memory manager keeps every first-person clause in
the third person and the user's words, keeps whose fact it is and its modality, skips questions,
requests and other people's views, and replaces an older statement on the same subject."""

import warnings

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from offline_model import OfflineChatModel
from offline_model.parse import open_statements

warnings.filterwarnings("ignore", category=DeprecationWarning)


def manager_run(sessions):
    from langmem import create_memory_manager

    manager = create_memory_manager(OfflineChatModel(), enable_inserts=True, enable_deletes=True)
    existing: list[tuple[str, str]] = []
    for day, said in sessions:
        messages = [SystemMessage(f"This conversation took place on {day}.")]
        for text in said:
            messages += [HumanMessage(text), AIMessage("Okay.")]
        out = manager.invoke({"messages": messages, "existing": existing})
        existing = [
            (m.id, m.content if isinstance(m.content, str) else getattr(m.content, "content", ""))
            for m in out
        ]
        existing = [(i, t) for i, t in existing if t]
    return [t for _, t in existing]


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("My daughter Ines joined a choir in March.", ["User's daughter Ines joined a choir"]),
        ("I'm allergic to shellfish.", ["User is allergic to shellfish"]),
        ("We're thinking about getting a rabbit.", ["User is thinking about getting a rabbit"]),
        ("I have two tortoises", ["User has two tortoises"]),
        ("I don't drive anymore.", ["User doesn't drive anymore"]),
        ("my uncle has gout, he avoids red meat", ["User's uncle has gout", "User's uncle avoids"]),
        ("started night classes in pottery", ["User started night classes in pottery"]),
    ],
)
def test_a_first_person_clause_becomes_a_third_person_memory(sentence, expected):
    said = open_statements(sentence, {})
    assert len(said) == len(expected), said
    for text, start in zip(said, expected, strict=True):
        assert text.startswith(start), said


@pytest.mark.parametrize(
    "sentence",
    [
        "Could you suggest a good stew for tonight?",
        "What time is it in Lima?",
        "Thanks a lot!",
        "Give me three ideas for a birthday.",
        "If I had a garden I would grow tomatoes.",
        "Marco thinks the film was boring.",
        "My brother says cycling is overrated.",
    ],
)
def test_questions_requests_hypotheticals_and_views_are_not_memories(sentence):
    assert open_statements(sentence, {}) == []


def test_a_standing_answer_preference_is_kept():
    said = open_statements("Always give me temperatures in Celsius please.", {})
    assert said == ["User wants the assistant to always give User temperatures in Celsius please"]


def test_a_name_introduced_earlier_stays_the_relatives():
    known: dict = {}
    open_statements("My nephew Tariq is learning the cello.", known)
    said = open_statements("Tariq passed his grade 3 exam.", known)
    assert said == ["User's nephew Tariq passed his grade 3 exam"]


def test_the_manager_keeps_dates_owners_and_replaces_a_changed_count():
    memories = manager_run(
        [
            (
                "2026-04-06",
                ["I keep 3 hens. My neighbour Olga has bees.", "How do I clean a coop?"],
            ),
            ("2026-05-04", ["I have 5 hens now, and my vet visit is on Friday."]),
        ]
    )
    text = "\n".join(memories)
    assert "User has 5 hens now" in text
    assert "3 hens" not in text  # replaced through LangMem's delete, not kept as a duplicate
    assert "User's neighbour Olga has bees." in memories  # the rest of that memory stays
    assert "scheduled for Friday 8 May 2026" in text  # "on Friday" said on Monday 2026-05-04
    assert "coop" not in text  # a question is not a memory


def read(*sentences: str) -> list[str]:
    """open_statements over sentences of one message, sharing what each introduces."""
    known: dict = {}
    return [said for s in sentences for said in open_statements(s, known)]


def test_reported_speech_about_the_users_own_is_kept_with_its_teller():
    said = read("The nurse said my blood pressure is fine.")
    assert said == ["The nurse said User's blood pressure is fine"]
    assert read("My cousin says I should move to Lisbon.") == []  # advice, a view
    assert read("The plumber said the boiler is ancient.") == []  # nothing of the user's


def test_a_name_given_by_called_stands_for_a_later_pronoun():
    said = read("We adopted a greyhound called Pepper.", "She is 4 and hates rain.")
    assert said == [
        "User adopted a greyhound called Pepper",
        "User's greyhound Pepper is 4 and hates rain",
    ]
    said = read("my father-in-law Reza retired in June.", "Reza plays chess every day now.")
    assert said[-1] == "User's father-in-law Reza plays chess every day now"
    assert read("my aunt, Dolores, is 80") == ["User's aunt, Dolores, is 80"]  # named once


def test_the_present_progressive_with_a_time_to_come_is_a_plan():
    assert read("I'm repainting the kitchen in May.") == [
        "User will be repainting the kitchen in May"
    ]
    assert read("driving to Porto on Friday") == ["User will be driving to Porto on Friday"]
    assert read("I'm learning Welsh these days.") == ["User is learning Welsh these days"]
    assert read("she's doing karate on Thursdays") == []  # a routine, and no one named
    assert read("I was living in Cork in 2019.") == ["User was living in Cork in 2019"]


def test_a_clause_of_no_ones_is_kept_as_a_note_but_not_someone_elses():
    said = read("booked a plumber.", "2 leaks.")
    assert said == ["User booked a plumber", "User: 2 leaks"]
    assert read("the fridge died, the freezer is fine") == [
        "User: the fridge died",
        "User: the freezer is fine",
    ]
    assert read("Priya is furious") == [] and read("thanks so much, have a good day") == []


def test_a_self_correction_is_made_before_the_message_is_read():
    from offline_model.parse import corrected

    assert corrected("My piano lesson is on Monday - sorry, Tuesday.") == (
        "My piano lesson is on Tuesday."
    )
    assert corrected("We keep 4 chickens, no, 5") == "We keep 5 chickens"
    assert corrected("flight on June 2 - no, June 4!") == "flight on June 4!"
    assert corrected("we have 2 dogs, no cats") == "we have 2 dogs, no cats"  # no correction
    memories = manager_run([("2026-03-02", ["My piano lesson is on Monday - sorry, Tuesday."])])
    assert "Tuesday" in memories[0] and "Monday" not in memories[0]


def test_a_later_pronoun_or_there_means_the_one_named_before():
    assert read("I rescued a greyhound, Comet.", "he is scared of stairs") == [
        "User rescued a greyhound, Comet",
        "User's greyhound Comet is scared of stairs",
    ]
    assert read("I walk my grandmother to church on Sundays.", "she is 91")[-1] == (
        "User's grandmother is 91"
    )
    assert read("We moved to Ushuaia last year.", "my brother lives there too")[-1] == (
        "User's brother lives there (Ushuaia) too"
    )
    assert read("my daughter Ana is 7.", "she says school is boring") == [
        "User's daughter Ana is 7"  # what she says is her view
    ]
    assert read("I repaired the fence. what do I paint it with") == ["User repaired the fence"]


def test_a_date_range_names_both_days_and_an_update_needs_other_values():
    from datetime import date

    from offline_model.tools import _outdated, _with_dates

    assert _with_dates("User is in Crete, June 3-9", date(2026, 5, 1)) == (
        "User is in Crete, June 3-9 (scheduled for Wednesday 3 June 2026, Tuesday 9 June 2026)"
    )
    assert "Wednesday 14 October 2026" in _with_dates(
        "User: course 12-14 October", date(2026, 5, 1)
    )
    old = "User: swim on Mondays; User has jet lag from Lima"
    assert _outdated(old, "User: swim moved to Wednesdays") == ["User: swim on Mondays"]
    assert _outdated(old, "User is going back to Lima in May") == []  # the same place, no update
