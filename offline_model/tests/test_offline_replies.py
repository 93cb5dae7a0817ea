"""No fixed prefix in the offline model's replies (issue #26): replies to different messages do not
open with the same three words unless the messages ask the same thing.

The messages are written for this test (statements, requests, how-to questions with and without
worked examples, questions answered from context) and are not the notebooks' own."""

from collections import defaultdict

from langchain_core.messages import HumanMessage, SystemMessage

from offline_model import OfflineChatModel

MODEL = OfflineChatModel()

EXAMPLES = """### Example 1
Situation: The partner API's TLS certificate expired on a Sunday and clients failed for three hours.
Approach: Renewed it by hand and added an expiry check to the dashboard.
Outcome: No expiry outage since.
Lesson: Automate renewal and alert a month before any certificate expires.

### Example 2
Situation: The monthly export took six hours once the invoices table doubled.
Approach: Split the export into daily chunks and ran them in parallel.
Outcome: It now finishes in forty minutes.
Lesson: Chunk large exports by date before tuning the query.
"""
CONTEXT = (
    "Notes: The office closes at 18:00 on Fridays. The quarterly review is held in room 4B. "
    "Mateo leads the payments team."
)

# (what the message asks, the messages): replies in one group may open alike, across groups not.
CASES = [
    ("moved stand-up", [HumanMessage("We moved the stand-up to 9:30 on Mondays.")]),
    ("staging size", [HumanMessage("The staging database runs on a single 8-core machine.")]),
    ("book room", [HumanMessage("Good, I'll book the meeting room for Thursday.")]),
    ("renew cert", [HumanMessage("Noted, I'll renew the certificate tomorrow.")]),
    ("spelling", [HumanMessage("Please use British spelling from now on.")]),
    ("short answers", [HumanMessage("Please keep answers under three sentences.")]),
    ("daughter", [HumanMessage("My daughter starts school in September.")]),
    ("team size", [HumanMessage("Our team has four backend engineers.")]),
    ("thanks", [HumanMessage("Thanks, that helps a lot.")]),
    (
        "certificate advice",
        [
            SystemMessage(EXAMPLES),
            HumanMessage("Our web certificate runs out in three weeks. What should we do?"),
        ],
    ),
    (
        "slow export",
        [
            SystemMessage(EXAMPLES),
            HumanMessage("The yearly export has become very slow. How can I speed it up?"),
        ],
    ),
    ("generic how-to", [HumanMessage("How do I get started with woodworking?")]),
    ("why unknown", [HumanMessage("Can you tell me why the deploy failed last night?")]),
    ("review room", [SystemMessage(CONTEXT), HumanMessage("Where is the quarterly review held?")]),
    (
        "review room",
        [SystemMessage(CONTEXT), HumanMessage("Which room is the quarterly review in?")],
    ),
    ("payments lead", [SystemMessage(CONTEXT), HumanMessage("Who leads the payments team?")]),
    (
        "closing time",
        [SystemMessage(CONTEXT), HumanMessage("When does the office close on Fridays?")],
    ),
]


def opening(text: str) -> str:
    return " ".join(text.lower().strip(" .!?").split()[:3])


def test_replies_to_different_messages_open_differently():
    replies = [(group, MODEL.invoke(messages).content) for group, messages in CASES]
    assert all(len(reply.split()) >= 2 for _, reply in replies), replies  # not vacuous
    by_opening = defaultdict(set)
    for group, reply in replies:
        by_opening[opening(reply)].add(group)
    shared = {words: sorted(groups) for words, groups in by_opening.items() if len(groups) > 1}
    assert not shared, (shared, replies)
    assert len(by_opening) >= 14  # sixteen kinds of message, the two alike share one opening
