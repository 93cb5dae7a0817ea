"""Answers from context on ordinary conversations (issue #26, item 3): the statement that answers
must fill what the question's wh-word stands for, a fact about someone else does not answer a
question about the user, the newest statement on a subject wins even when it does not repeat the
question's words, and a bare "and when?" is asked of the question before it. Sentences written
for these tests."""

import re
import warnings

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from offline_model import OfflineChatModel

warnings.filterwarnings("ignore", category=DeprecationWarning)
DONT_KNOW = re.compile(r"\bdon't know\b|\bdon't have information\b", re.I)


def ask(sessions, question: str) -> str:
    """The reply to `question` with the full history, each session opened by its date."""
    messages = [SystemMessage("You are a helpful assistant. Today is 2026-11-30.")]
    for day, said in sessions:
        messages.append(SystemMessage(f"Session of {day}."))
        for text in said:
            messages += [HumanMessage(text), AIMessage("Okay.")]
    return str(OfflineChatModel().invoke([*messages, HumanMessage(question)]).content)


MARA = [
    ("2026-09-07", ["My sister Mara is allergic to peanuts.", "I coach a chess club on Fridays."])
]
PLUMBER = [("2026-07-20", ["The plumber flooded the kitchen floor, unbelievable."])]
CANOE = [("2026-08-03", ["We bought a canoe last weekend, it's a dark green Mad River."])]


@pytest.mark.parametrize(
    "sessions, question, expected",
    [
        (MARA, "What is Mara allergic to?", "peanuts"),
        (MARA, "When do I coach chess?", "Friday"),
        (CANOE, "What colour is the canoe?", "green"),
    ],
)
def test_a_statement_that_answers_is_still_found(sessions, question, expected):
    assert expected in ask(sessions, question)


@pytest.mark.parametrize(
    "sessions, question",
    [
        (MARA, "Am I allergic to peanuts?"),  # the sister's allergy, not the user's
        (MARA, "What am I allergic to?"),
        (PLUMBER, "Which plumber did we hire?"),  # a plumber is named, but not which one
        (PLUMBER, "Is my sister a plumber?"),
    ],
)
def test_a_near_match_is_not_an_answer(sessions, question):
    reply = ask(sessions, question)
    assert DONT_KNOW.search(reply), reply
    assert "peanut" not in reply.lower() and "friday" not in reply.lower()


def test_the_newest_statement_on_a_subject_wins_without_repeating_the_question():
    sessions = [
        ("2026-03-02", ["I swim at the lido, lane 3 usually."]),
        ("2026-05-11", ["they put me in lane 5 now, faster crowd"]),
    ]
    reply = ask(sessions, "Which lane do I swim in?")
    assert "5" in reply and "3" not in reply, reply


def test_a_count_given_after_the_sentence_it_updates():
    sessions = [
        ("2026-04-06", ["I keep 4 hens in the garden."]),
        ("2026-06-15", ["a fox got one of the hens last night. so 3"]),
    ]
    assert re.search(r"\b3\b", ask(sessions, "How many hens do I have?"))


def test_and_when_is_asked_of_the_question_before():
    sessions = [("2026-10-05", ["I'm running the Valencia marathon on December 6."])]
    reply = ask(sessions, "Which marathon am I running and when?")
    assert "Valencia" in reply and "December" in reply and not DONT_KNOW.search(reply), reply


LOOM = [
    ("2026-05-04", ["I bought a floor loom from a retired weaver. paid 650 for it"]),
    ("2026-06-15", ["warped it for the first time, took me two evenings"]),
    ("2026-06-22", ["got a second-hand spinning wheel too. named her Bertha"]),
]
SHED = [("2026-10-12", ["we're painting the shed on Saturday. the paint arrives in 4 days"])]


@pytest.mark.parametrize(
    "sessions, question, expected",
    [
        (LOOM, "How much did the loom cost?", "650"),  # "paid 650 for it": the loom
        (LOOM, "What's my spinning wheel called?", "Bertha"),  # "named her Bertha"
    ],
)
def test_a_sentence_without_its_own_subject_is_read_with_the_one_before(
    sessions, question, expected
):
    assert expected in ask(sessions, question)


@pytest.mark.parametrize(
    "sessions, question",
    [
        (SHED, "How much did the paint cost?"),  # "in 4 days" and a Saturday are no price
        (SHED, "How many coats of paint does the shed need?"),
        (LOOM, "Where is the weaver from?"),
    ],
)
def test_a_date_or_duration_is_not_a_count_or_a_price(sessions, question):
    reply = ask(sessions, question)
    assert DONT_KNOW.search(reply), reply
