"""memlib.agent (notebook 09's graph): the front door's capstone refuses bad arguments by kind."""

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from memlib import build_memory_agent, get_chat_model


def test_bad_input_build_memory_agent():
    model, store = get_chat_model(), InMemoryStore()
    with pytest.raises(TypeError):
        build_memory_agent("not a model", store, InMemorySaver(), agent="assistant")
    with pytest.raises(TypeError, match="store"):
        build_memory_agent(model, {"not": "a store"}, InMemorySaver(), agent="assistant")
    with pytest.raises(TypeError, match="k"):
        build_memory_agent(model, store, InMemorySaver(), agent="assistant", k="3")
    with pytest.raises(ValueError, match="keep_last"):
        build_memory_agent(
            model, store, InMemorySaver(), agent="assistant", threshold=2, keep_last=5
        )
    graph = build_memory_agent(model, store, InMemorySaver(), agent="assistant")
    assert {"load_memory", "answer", "write_memory", "compress"} <= set(graph.get_graph().nodes)
