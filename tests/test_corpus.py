"""The shipped corpus and the FAISS retriever over it (real MiniLM embeddings, real FAISS)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memlib.corpus import (
    CORPUS_PATH,
    CorpusIndex,
    drop_superseded,
    is_superseded,
    load_corpus,
    validate_corpus,
)
from memlib.embeddings import MiniLMEmbeddings


@pytest.fixture(scope="module")
def index():
    return CorpusIndex.from_path(embeddings=MiniLMEmbeddings())


def doc(id_, **extra):
    base = {
        "id": id_,
        "title": f"title {id_}",
        "text": f"text {id_}",
        "updated": "2024-01-01",
        "topic": "t",
        "superseded_by": None,
    }
    return {**base, **extra}


def test_shipped_corpus_shape():
    docs = load_corpus()
    assert 30 <= len(docs) <= 60
    assert len({d["id"] for d in docs}) == len(docs)
    current, retired = drop_superseded(docs)
    assert len(retired) >= 3, "the corpus should carry some out-of-date documents"
    assert sum(d["topic"] == "office" for d in docs) >= 5, "and some off-topic ones"
    for old in retired:
        new = next(d for d in docs if d["id"] == old["superseded_by"])
        assert new["updated"] > old["updated"], f"{old['id']} is newer than its successor"
        assert not is_superseded(new)


def test_validation_names_the_bad_value(tmp_path):
    with pytest.raises(ValueError, match="duplicate document ids: \\['a'\\]"):
        validate_corpus([doc("a"), doc("a")])
    with pytest.raises(ValueError, match="'nowhere'"):
        validate_corpus([doc("a", superseded_by="nowhere")])
    with pytest.raises(ValueError, match="'yesterday'"):
        validate_corpus([doc("a", updated="yesterday")])
    with pytest.raises(ValueError, match="lacks fields \\['topic'\\]"):
        validate_corpus([{k: v for k, v in doc("a").items() if k != "topic"}])
    with pytest.raises(ValueError, match="at least one"):
        validate_corpus([])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(doc("a")) + "\n{not json\n")
    with pytest.raises(ValueError, match=r"\.jsonl:2: not JSON"):
        load_corpus(bad)
    with pytest.raises(ValueError, match="does not exist"):
        load_corpus(tmp_path / "missing.jsonl")


def test_vectors_are_unit_length(index):
    vectors = index.index.reconstruct_n(0, index.index.ntotal)
    assert vectors.shape == (len(index), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_search_matches_brute_force_cosine(index):
    query = "how often is the search index rebuilt"
    q = index.embed([query])[0]
    vectors = index.index.reconstruct_n(0, index.index.ntotal)
    expected = [index.documents[i]["id"] for i in np.argsort(-(vectors @ q))[:5]]
    hits = index.search(query, k=5)
    assert [h["id"] for h in hits] == expected
    assert all(a["score"] >= b["score"] for a, b in zip(hits, hits[1:], strict=False))


def test_search_finds_the_right_topic(index):
    assert {h["id"] for h in index.search("How long are raw search queries kept?", k=2)} == {
        "log-retention-v1",
        "log-retention-v2",
    }
    top = index.search("How should documents be chunked before indexing?", k=3)
    assert {"chunking-v1", "chunking-v2"} <= {h["id"] for h in top}


def test_exclude_skips_seen_documents_and_returns_copies(index):
    first = index.search("index rebuild schedule", k=3)
    seen = [h["id"] for h in first]
    second = index.search("index rebuild schedule", k=3, exclude=seen)
    assert len(second) == 3 and not set(seen) & {h["id"] for h in second}
    second[0]["text"] = "changed"
    assert index.get(second[0]["id"])["text"] != "changed"
    everything = index.search("anything", k=100)
    assert len(everything) == len(index)
    assert index.search("anything", k=5, exclude=[d["id"] for d in index.documents]) == []


@pytest.mark.parametrize("query", ["", "   "])
def test_bad_query(index, query):
    with pytest.raises(ValueError, match="query"):
        index.search(query)


@pytest.mark.parametrize("query", [None, 3])
def test_query_of_a_wrong_kind(index, query):
    with pytest.raises(TypeError, match="query must be a str"):
        index.search(query)


@pytest.mark.parametrize("k", [0, -1])
def test_bad_k(index, k):
    with pytest.raises(ValueError, match="k must be >= 1"):
        index.search("chunking", k=k)


@pytest.mark.parametrize("k", [1.5, True, "4"])
def test_k_of_a_wrong_kind(index, k):
    with pytest.raises(TypeError, match="k must be an int"):
        index.search("chunking", k=k)


def test_get_unknown_id(index):
    with pytest.raises(ValueError, match="'nope'"):
        index.get("nope")


def test_corpus_path_is_in_data():
    assert CORPUS_PATH.parts[-3:] == ("data", "corpus", "documents.jsonl")


# --- bad input to the public names: errors name the value and what was expected ----------


def test_bad_input_CorpusIndex(index):
    with pytest.raises(TypeError, match="documents must be a list of document dicts, got str"):
        CorpusIndex("documents.jsonl", MiniLMEmbeddings())
    with pytest.raises(TypeError, match="dict"):
        CorpusIndex(doc("a"), MiniLMEmbeddings())
    with pytest.raises(TypeError, match="embeddings must be a langchain Embeddings, got str"):
        CorpusIndex([doc("a")], "minilm")
    with pytest.raises(TypeError, match="embeddings must be a langchain Embeddings, got NoneType"):
        CorpusIndex([doc("a")], None)  # no default: the caller chooses the embeddings
    with pytest.raises(ValueError, match="lacks fields"):
        CorpusIndex([{"id": "a"}], MiniLMEmbeddings())
    with pytest.raises(TypeError, match="exclude must be a list of document ids, got a str"):
        index.search("chunk size", exclude="chunking-v1")


def test_bad_input_drop_superseded():
    with pytest.raises(TypeError, match="docs must be a list of document dicts, got dict"):
        drop_superseded(doc("a"))
    with pytest.raises(TypeError, match="NoneType"):
        drop_superseded(None)
    with pytest.raises(ValueError, match="'a'"):
        drop_superseded(["a"])
    assert drop_superseded([]) == ([], [])


def test_bad_input_load_corpus(tmp_path):
    with pytest.raises(TypeError, match="path must be a str or Path to a JSONL file, got int: 42"):
        load_corpus(42)
    with pytest.raises(ValueError, match="does not exist"):
        load_corpus(tmp_path / "missing.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(ValueError, match="at least one document"):
        load_corpus(empty)
