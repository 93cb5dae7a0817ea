import pytest
from langgraph.store.memory import InMemoryStore

from memlib.embeddings import DIMS, MiniLMEmbeddings
from memlib.widgets import MemoryInspector, provenance


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
    assert "written_by" in ui.details.value and provenance(ui.hits[1])["written_by"] == "hot"
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
