"""Offline embedding models for tests: a counting fake and a tiny bag-of-words "semantic" one."""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from typing import ClassVar

from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings

from langchain_toolsearch.search._analysis import tokenize

__all__ = ["BagOfWordsEmbeddings", "CountingEmbeddings", "RecordingEmbeddings"]


class CountingEmbeddings(DeterministicFakeEmbedding):
    """DeterministicFakeEmbedding that counts the texts and queries it embeds, sync or async."""

    documents_embedded: int = 0
    queries_embedded: int = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents_embedded += len(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries_embedded += 1
        return super().embed_query(text)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents(texts)

    async def aembed_query(self, text: str) -> list[float]:
        return self.embed_query(text)


class RecordingEmbeddings(DeterministicFakeEmbedding):
    """DeterministicFakeEmbedding that appends each text it embeds to a file shared by processes.

    One JSON line per text, ``{"pid", "text"}``, written before the vectors are
    made; then the call waits ``delay`` seconds, or for ever with ``hang`` (an
    embedding process to kill). ``base_url`` only names an endpoint.
    """

    record: str
    delay: float = 0.0
    hang: bool = False
    base_url: str | None = None

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        lines = "".join(json.dumps({"pid": os.getpid(), "text": t}) + "\n" for t in texts)
        with open(self.record, "a", encoding="utf-8") as out:
            out.write(lines)
        time.sleep(self.delay)
        while self.hang:
            time.sleep(1)
        return super().embed_documents(texts)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents(texts)


class BagOfWordsEmbeddings(Embeddings):
    """A tiny deterministic 'semantic' model: hashed word counts plus a synonym table.

    Texts sharing words (or listed synonyms) get similar vectors; unrelated
    texts are orthogonal, so similarity behaves like a real model's would.
    """

    SYNONYMS: ClassVar[dict[str, str]] = {"tune": "music", "song": "music", "cab": "taxi"}
    DIM = 512

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.DIM
        for word in tokenize(text):
            word = self.SYNONYMS.get(word, word)
            vec[int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.DIM] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)
