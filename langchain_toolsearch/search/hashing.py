"""Bag-of-words embeddings by feature hashing: a cheap local model for tests and benchmarks."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from functools import lru_cache

from langchain_core.embeddings import Embeddings

from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.search.tokenize import tokenize

__all__ = ["HashingEmbeddings"]

_CACHED_TERM_CHARS = 48  # longer terms are hashed each time


def _bucket(term: str, dims: int) -> tuple[int, float]:
    if len(term) <= _CACHED_TERM_CHARS:
        return _cached_bucket(term, dims)
    return _hash_bucket(term, dims)


def _hash_bucket(term: str, dims: int) -> tuple[int, float]:
    digest = hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dims, (1.0 if (value >> 63) & 1 else -1.0)


_cached_bucket = lru_cache(maxsize=1 << 16)(_hash_bucket)


class HashingEmbeddings(Embeddings):
    """Signed feature hashing of tokenizer terms (Weinberger 2009), deterministic, ~20 µs a text.

    BLAKE2b into ``dims`` signed buckets, weight ``1 + ln(tf)``, L2-normalised.

    Args:
        dims: Vector size (count).

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If ``dims < 2``.
    """

    def __init__(self, dims: int = 256) -> None:
        if dims < 2:
            raise ToolSearchConfigError(f"need dims >= 2, got {dims}")
        self.dims = dims

    def __repr__(self) -> str:
        return f"HashingEmbeddings(dims={self.dims})"

    def _embed(self, text: str) -> list[float]:
        terms = tokenize(text) or tokenize(text, keep_stopwords=True)
        vector = [0.0] * self.dims
        for term, tf in Counter(terms).items():
            index, sign = _bucket(term, self.dims)
            vector[index] += sign * (1.0 + math.log(tf))
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm > 0 else vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One unit vector of ``dims`` floats per text (zeros for a text without words)."""
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """A query's vector, as a document's."""
        return self._embed(text)
