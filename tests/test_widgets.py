import pytest
from langgraph.store.memory import InMemoryStore

from memlib.embeddings import DIMS, MiniLMEmbeddings
from memlib.widgets import ChatPanel, MemoryInspector, item_provenance


@pytest.fixture
def store():
    s = InMemoryStore(index={"dims": DIMS, "embed": MiniLMEmbeddings(), "fields": ["content"]})
    s.put(("users", "ana", "facts"), "f1", {"content": "Ana works at Globex.", "written_by": "hot"})
    s.put(("users", "ana", "facts"), "f2", {"content": "Ana has a dog called Biscuit."})
    s.put(("users", "ben", "facts"), "f3", {"content": "Ben lives in Oslo."})
    return s


def test_browse_search_and_provenance(store):
    ui = MemoryInspector(store, prefix=("users",))
    assert ui.namespace.options == ("users / ana / facts", "users / ben / facts")
    assert {h.key for h in ui.hits} == {"f1", "f2"}
    ui.query.value = "What is the name of her pet?"
    hits = ui.run_search()
    assert hits[0].key == "f2" and hits[0].score > hits[1].score
    assert "score" in ui.results.value and "Biscuit" in ui.results.value
    ui.item.value = "f1"
    assert "written_by" in ui.details.value and item_provenance(ui.hits[1])["written_by"] == "hot"
    ui.prefix.value = "users / ben"
    assert ui.namespace.options == ("users / ben / facts",) and [h.key for h in ui.hits] == ["f3"]


def test_delete_needs_confirmation(store):
    ui = MemoryInspector(store, prefix=("users", "ana"))
    ui.item.value = "f1"
    ui.delete_button.click()
    assert store.get(("users", "ana", "facts"), "f1") is not None  # not yet
    assert ui.confirm_box.layout.display == "flex"
    ui.cancel_button.click()
    assert store.get(("users", "ana", "facts"), "f1") is not None
    ui.item.value = "f1"
    ui.delete_button.click()
    ui.confirm_button.click()
    assert store.get(("users", "ana", "facts"), "f1") is None
    assert [h.key for h in ui.hits] == ["f2"] and "deleted" in ui.status.value
    assert ui.confirm_delete() is False  # nothing pending any more


def test_time_filter_hides_old_items(store):
    ui = MemoryInspector(store, prefix=("users", "ana"))
    ui.since.value = "last hour"
    assert len(ui.hits) == 2  # just written
    old = store._data[("users", "ana", "facts")]["f2"]  # backdate one item (no public API)
    old.updated_at = old.updated_at.replace(year=2020)
    assert [h.key for h in ui.run_search()] == ["f1"]
    ui.since.value = "any time"
    assert [h.key for h in ui.hits] == ["f1", "f2"]  # newest first


def test_bad_input_MemoryInspector(store):
    with pytest.raises(TypeError, match="BaseStore"):
        MemoryInspector({"not": "a store"})
    with pytest.raises(ValueError, match="limit"):
        MemoryInspector(store, limit=0)
    with pytest.raises(TypeError, match="'users'"):
        MemoryInspector(store, prefix="users")


# -- ChatPanel ---------------------------------------------------------------------------------


@pytest.fixture
def agent(store):
    from langgraph.checkpoint.memory import InMemorySaver

    from memlib.agent import build_memory_agent
    from memlib.procedural import create_prompt
    from memlib.semantic import fact_item
    from offline_model import OfflineChatModel

    facts = InMemoryStore(
        index={"dims": DIMS, "embed": MiniLMEmbeddings(), "fields": ["content.content"]}
    )
    facts.put(("users", "ana", "facts"), "f1", fact_item("User", "lives in", "Lisbon"))
    facts.put(("users", "ben", "facts"), "f2", fact_item("User", "lives in", "Oslo"))
    create_prompt(facts, "assistant", "You are a helpful assistant.", author="test")
    return build_memory_agent(
        OfflineChatModel(), facts, InMemorySaver(), agent="assistant", threshold=4, keep_last=2
    )


def test_chat_panel_answers_as_the_chosen_user(agent):
    panel = ChatPanel(agent, users=["ana", "ben"], token_budget=20)
    assert "memlib-chat-input" in panel.message._dom_classes
    assert "memlib-chat-send" in panel.send._dom_classes
    assert "memlib-chat-reply" in panel.reply._dom_classes
    panel.message.value = "Where do I live?"
    panel.send.click()
    assert "Lisbon" in panel.reply.value and "Oslo" not in panel.reply.value
    assert "users/ana/facts" in panel.read.value and "0." in panel.read.value  # with its score
    assert panel.message.value == "" and "nothing" in panel.written.value
    assert panel.meter.value == 20 and "/ 20 prompt tokens" in panel.meter_label.value  # capped
    panel.user.value = "ben"
    panel.message.value = "Where do I live?"
    panel.send.click()
    assert "Oslo" in panel.reply.value and "Lisbon" not in panel.read.value
    assert panel.thread_id() == "chat-ben"
    # one thread per user: ana's thread holds her exchange only
    ana = agent.get_state({"configurable": {"user_id": "ana", "thread_id": "chat-ana"}}).values[
        "messages"
    ]
    assert len(ana) == 2


def test_chat_panel_empty_message_sends_nothing(agent):
    panel = ChatPanel(agent, users=["ana"])
    panel.message.value = "   "
    panel.send.click()
    assert panel.last_state is None and "type a message" in panel.status.value
    assert (
        agent.get_state({"configurable": {"user_id": "ana", "thread_id": "chat-ana"}}).values == {}
    )


def test_bad_input_ChatPanel(agent):
    with pytest.raises(TypeError, match="compiled LangGraph graph"):
        ChatPanel({"not": "a graph"}, users=["ana"])
    with pytest.raises(TypeError, match="non-empty list"):
        ChatPanel(agent, users="ana")
    with pytest.raises(TypeError, match="non-empty list"):
        ChatPanel(agent, users=[])
    with pytest.raises(ValueError, match="users"):
        ChatPanel(agent, users=[""])
    with pytest.raises(ValueError, match="token_budget"):
        ChatPanel(agent, users=["ana"], token_budget=0)
    with pytest.raises((TypeError, ValueError), match="thread_prefix"):
        ChatPanel(agent, users=["ana"], thread_prefix="")
