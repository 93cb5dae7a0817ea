"""The document corpus shipped in data/corpus/ and an exact FAISS retriever over it.

`load_corpus()` reads data/corpus/documents.jsonl (one JSON object per line: id, title, text,
updated as an ISO date, topic, superseded_by as a document id or null) and validates it.
`CorpusIndex` embeds title + text with the langchain Embeddings it is given (the notebooks pass
`memlib.get_embeddings()`), L2-normalises the vectors and keeps them in a FAISS IndexFlatIP, so a search is an exact cosine-similarity scan.
`is_superseded()` / `drop_superseded()` apply the out-of-date rule: a document whose superseded_by
names another document of the corpus is retired guidance.

Leaves out: chunking (the documents are already short), incremental updates, metadata filters
inside FAISS (exclusion is done on the results), and approximate indexes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from memlib.checks import check_int, check_items, check_kind, check_str
from memlib.fixtures import DATA_DIR, read_jsonl

CORPUS_PATH = DATA_DIR / "corpus" / "documents.jsonl"
FIELDS = ("id", "title", "text", "updated", "topic", "superseded_by")


def _check_document(doc, where: str) -> dict:
    if not isinstance(doc, dict):
        raise TypeError(f"{where}: expected a JSON object, got {type(doc).__name__}: {doc!r}")
    missing = [f for f in FIELDS if f not in doc]
    if missing:
        raise ValueError(f"{where}: document {doc.get('id')!r} lacks fields {missing}")
    for field in ("id", "title", "text", "topic"):
        if not isinstance(doc[field], str) or not doc[field].strip():
            raise ValueError(
                f"{where}: field {field!r} must be a non-empty string, got {doc[field]!r}"
            )
    try:
        dt.date.fromisoformat(doc["updated"])
    except (TypeError, ValueError):
        raise ValueError(
            f"{where}: document {doc['id']!r} has updated={doc['updated']!r}, expected YYYY-MM-DD"
        ) from None
    if doc["superseded_by"] is not None and not isinstance(doc["superseded_by"], str):
        raise ValueError(
            f"{where}: superseded_by must be a document id or null, got {doc['superseded_by']!r}"
        )
    return {f: doc[f] for f in FIELDS}


def validate_corpus(documents: Iterable[dict]) -> list[dict]:
    """Check fields, unique ids and superseded_by links; return clean copies of the documents."""
    check_items(documents, "documents", "a list of document dicts", Iterable)
    docs = [_check_document(d, f"document {i}") for i, d in enumerate(documents)]
    if not docs:
        raise ValueError("a corpus needs at least one document, got none")
    ids = [d["id"] for d in docs]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"duplicate document ids: {dupes}")
    known = set(ids)
    for d in docs:
        successor = d["superseded_by"]
        if successor is not None and (successor not in known or successor == d["id"]):
            raise ValueError(
                f"document {d['id']!r} has superseded_by={successor!r}, which is not another document"
            )
    return docs


def load_corpus(path: str | Path | None = None) -> list[dict]:
    """Read and validate the JSONL corpus (default data/corpus/documents.jsonl)."""
    check_kind(path, str | Path | None, "path", "a str or Path to a JSONL file")
    path = Path(path) if path is not None else CORPUS_PATH
    raw = read_jsonl(path)
    return validate_corpus(raw)


def is_superseded(doc: dict) -> bool:
    """True when the document names a newer document that replaces it."""
    check_kind(doc, dict, "doc", "a document dict")
    return doc.get("superseded_by") is not None


def drop_superseded(docs: Iterable[dict]) -> tuple[list[dict], list[dict]]:
    """Split documents into (current, superseded), keeping their order."""
    docs = list(check_items(docs, "docs", "a list of document dicts", Iterable))
    for d in docs:
        if not isinstance(d, dict) or "superseded_by" not in d:
            raise ValueError(f"each document must be a dict with 'superseded_by', got {d!r:.80}")
    current, retired = [], []
    for d in docs:
        (retired if is_superseded(d) else current).append(d)
    return current, retired


def _normalised(vectors) -> np.ndarray:
    arr = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
    if arr.ndim != 2:
        raise ValueError(f"expected a 2-d array of vectors, got shape {arr.shape}")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return arr / np.clip(norms, 1e-12, None)


class CorpusIndex:
    """Exact cosine search over corpus documents with FAISS."""

    def __init__(self, documents: Sequence[dict], embeddings: Embeddings):
        import faiss

        check_kind(embeddings, Embeddings, "embeddings", "a langchain Embeddings")
        self.documents = validate_corpus(documents)
        self.embeddings = embeddings
        self._by_id = {d["id"]: d for d in self.documents}
        vectors = self.embed([f"{d['title']}. {d['text']}" for d in self.documents])
        self.index = faiss.IndexFlatIP(vectors.shape[1])
        self.index.add(vectors)

    @classmethod
    def from_path(cls, path: str | Path | None = None, *, embeddings: Embeddings):
        """Load the JSONL corpus and index it."""
        return cls(load_corpus(path), embeddings)

    def __len__(self) -> int:
        return len(self.documents)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors for texts, one row each."""
        texts = list(texts)
        for t in texts:
            if not isinstance(t, str):
                raise TypeError(f"can only embed str, got {type(t).__name__}: {t!r}")
        return _normalised(self.embeddings.embed_documents(texts))

    def get(self, doc_id: str) -> dict:
        """The document with this id (a copy)."""
        if check_str(doc_id, "doc_id") not in self._by_id:
            raise ValueError(f"no document with id {doc_id!r} in the corpus")
        return dict(self._by_id[doc_id])

    def search(self, query: str, k: int = 4, exclude: Iterable[str] = ()) -> list[dict]:
        """The k documents most similar to query, skipping ids in exclude; each a copy with 'score'."""
        check_str(query, "query")
        check_int(k, "k", minimum=1)
        if isinstance(exclude, str):
            raise TypeError(f"exclude must be a list of document ids, got a str: {exclude!r}")
        skip = set(exclude)
        wanted = min(len(self.documents), k + len(skip))
        scores, rows = self.index.search(self.embed([query]), wanted)
        hits = []
        for score, row in zip(scores[0], rows[0], strict=True):
            if row < 0:
                continue
            doc = self.documents[row]
            if doc["id"] in skip:
                continue
            hits.append({**doc, "score": round(float(score), 4)})
            if len(hits) == k:
                break
        return hits
