"""The offline embeddings are a real learned model: paraphrase retrieval, not word overlap."""

import os

import numpy as np
import pytest

from memlib.embeddings import DIMS, MiniLMEmbeddings

# Our own 20 facts and 20 questions that paraphrase them, mostly with different words.
FACTS = [
    "Priya is allergic to peanuts.",
    "The team's stand-up meeting starts at 9:30 every weekday.",
    "Marco moved from Lisbon to Berlin last spring.",
    "Our staging server runs PostgreSQL 16.",
    "Dana prefers answers written as short bullet points.",
    "The quarterly budget for cloud hosting is 12,000 euros.",
    "Kenji drives an electric car to the office.",
    "The mobile app is built with Flutter.",
    "Lena's daughter plays the violin in the school orchestra.",
    "Refund requests must be filed within 30 days of purchase.",
    "The warehouse in Rotterdam closes for maintenance every August.",
    "Omar is learning Japanese in the evenings.",
    "The nightly backup job copies the database to cold storage.",
    "Sofia adopted a grey cat named Pixel.",
    "Customer support is available by phone until 6 pm.",
    "The design team switched from Sketch to Figma this year.",
    "Tom ran his first marathon in under four hours.",
    "The API rate limit is 100 requests per minute per key.",
    "Aisha is vegetarian and avoids fish as well.",
    "The conference venue has step-free access for wheelchairs.",
]
QUESTIONS = [
    "Which nut could make Priya ill?",
    "When does the daily sync with the team begin?",
    "In which German city does Marco live now?",
    "What database version is on the pre-production machine?",
    "How does Dana like responses to be formatted?",
    "How much money is set aside for hosting each quarter?",
    "What kind of vehicle does Kenji commute in?",
    "Which framework was used for the phone application?",
    "What instrument does Lena's child play?",
    "How long do buyers have to ask for their money back?",
    "When is the Dutch storage facility shut for upkeep?",
    "Which language is Omar studying after work?",
    "What happens to the data every night?",
    "What is the name of Sofia's pet?",
    "Until what time can I call the help desk?",
    "Which tool do the designers use now?",
    "How fast did Tom finish his first long-distance race?",
    "How many calls per minute does the API allow?",
    "Does Aisha eat meat?",
    "Can people using wheelchairs get into the event building?",
]


@pytest.fixture(scope="module")
def emb():
    return MiniLMEmbeddings()


def test_vectors_are_unit_length_and_384_d(emb):
    vecs = emb.embed_array(FACTS[:3])
    assert vecs.shape == (3, DIMS) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_paraphrased_questions_find_their_fact(emb):
    sims = emb.embed_array(QUESTIONS) @ emb.embed_array(FACTS).T
    top1 = int((sims.argmax(axis=1) == np.arange(len(FACTS))).sum())
    top3 = int(sum(i in np.argsort(-row)[:3] for i, row in enumerate(sims)))
    print(f"top-1 {top1}/20, top-3 {top3}/20")
    assert top1 >= 18, f"top-1 only {top1}/20"
    assert top3 >= 19, f"top-3 only {top3}/20"


def test_langchain_interface_and_batch_independence(emb):
    docs = emb.embed_documents(FACTS)
    assert len(docs) == 20 and len(docs[0]) == DIMS
    single = MiniLMEmbeddings(batch_size=1).embed_query(FACTS[5])
    assert np.allclose(docs[5], single, atol=1e-5), "padding in a batch changed a vector"


def test_batches_cut_by_word_pieces_leave_every_vector_as_computed_alone(monkeypatch):
    """_encode sends the texts fewest word pieces first, in batches of at most BATCH_PIECES pieces
    with padding: each text's vector equals the one computed alone and the one computed in a single
    batch padded to the longest text (the batching before), bit for bit. Among the texts: a literal
    '[PAD]' (the pad token's id inside a text), an empty one and one cut at 256 pieces."""
    import memlib.embeddings as embeddings

    texts = ["Hi.", "hello [PAD] world", "", "word " * 400, *FACTS, " ".join(FACTS), "Porto " * 60]
    batched = MiniLMEmbeddings()._encode(texts)  # _encode: the shared cache is not consulted
    alone = np.stack([MiniLMEmbeddings(batch_size=1)._encode([t])[0] for t in texts])
    monkeypatch.setattr(embeddings, "BATCH_PIECES", 10**9)
    one_batch = MiniLMEmbeddings(batch_size=len(texts))._encode(texts)
    assert np.array_equal(batched, alone) and np.array_equal(batched, one_batch)


def test_unrelated_sentences_score_lower_than_paraphrases(emb):
    a, b, c = emb.embed_array(
        ["The cat sat on the mat.", "A kitten was sitting on the rug.", "Quarterly tax filing."]
    )
    assert a @ b > 0.5 > a @ c


def test_rejects_non_strings(emb):
    with pytest.raises(TypeError, match="can only embed str"):
        emb.embed_documents(["ok", 3])


def test_works_as_langgraph_store_index(emb):
    from langgraph.store.memory import InMemoryStore

    store = InMemoryStore(index={"dims": DIMS, "embed": emb, "fields": ["text"]})
    for i, fact in enumerate(FACTS):
        store.put(("facts",), str(i), {"text": fact})
    hits = store.search(("facts",), query="What is the name of Sofia's pet?", limit=1)
    assert hits[0].key == "13"


def test_bad_input_MiniLMEmbeddings(emb):
    with pytest.raises(TypeError, match="texts must be a list of strings.*'abc'"):
        emb.embed_documents("abc")  # would have embedded 'a', 'b', 'c'
    with pytest.raises(TypeError, match="can only embed str.*42"):
        emb.embed_query(42)
    with pytest.raises(TypeError, match="texts must be a list of strings.*None"):
        emb.embed_array(None)
    with pytest.raises(TypeError, match="batch_size must be an int.*'8'"):
        MiniLMEmbeddings(batch_size="8")
    with pytest.raises(ValueError, match="batch_size must be >= 1, got 0"):
        MiniLMEmbeddings(batch_size=0)
    with pytest.raises(ValueError, match="cache_size must be >= 1, got -1"):
        MiniLMEmbeddings(cache_size=-1)


def test_vectors_on_disk_are_shared_by_processes_and_equal_the_computed_ones(tmp_path):
    """With MEMLIB_EMBEDDING_CACHE set (the test session sets it: tests/conftest.py), a vector
    computed in one process is read by the next from a SQLite file named by the model, bit for
    bit, without running the model; a text never seen is computed and added. Unset: none read."""
    import subprocess
    import sys

    texts = [f"{fact} (disk {i})" for i, fact in enumerate(FACTS)]  # in no earlier cache
    script = (
        "import sys, numpy as np, memlib.embeddings as e\n"
        "if sys.argv[1] == 'read':  # the model must not run: every vector comes from the file\n"
        "    e.MiniLMEmbeddings._encode = lambda self, texts: (_ for _ in ()).throw(AssertionError(texts))\n"
        "texts = sys.argv[2:]\n"
        "sys.stdout.buffer.write(e.MiniLMEmbeddings().embed_array(texts).tobytes())\n"
    )

    def run(mode, *args, cache=tmp_path / "vectors"):
        env = {k: v for k, v in os.environ.items() if k != "MEMLIB_EMBEDDING_CACHE"}
        if cache:
            env["MEMLIB_EMBEDDING_CACHE"] = str(cache)
        done = subprocess.run(
            [sys.executable, "-c", script, mode, *args], env=env, capture_output=True, check=True
        )
        return np.frombuffer(done.stdout, dtype=np.float32).reshape(len(args), DIMS)

    computed = MiniLMEmbeddings()._encode(texts)
    assert np.array_equal(run("write", *texts[:12]), computed[:12])
    assert [p.suffix for p in (tmp_path / "vectors").iterdir()] == [".sqlite"]
    assert np.array_equal(run("read", *texts[:12]), computed[:12])
    with pytest.raises(subprocess.CalledProcessError, match="exit status 1"):
        run("read", *texts)  # 8 texts are not in the file: the model would run
    assert np.array_equal(run("write", *texts), computed)  # computed, the 12 others read
    assert np.array_equal(run("read", *texts[::-1]), computed[::-1])
    with pytest.raises(subprocess.CalledProcessError, match="exit status 1"):
        run("read", *texts[:2], cache=None)  # unset: nothing is read from a file, the model runs
