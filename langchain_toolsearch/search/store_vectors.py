"""A LangGraph store's vector index as the store-served tool index reads and fills it.

:class:`StoreEmbedder` takes the place of the store's ``embeddings`` so the
store embeds a tool text only when no version holds its vector yet
(:class:`~langchain_toolsearch.search.vector_cache.EmbeddingCache`, keyed by
text and model id, persisted by
:class:`~langchain_toolsearch.search.store_vector_cache.StoreVectorCache` in
the same store). :class:`StoreVectors` shows a
:class:`~langchain_toolsearch.search.store_index.StoreToolIndex`'s neighbours
as a LangChain ``VectorStore`` for
:class:`~langchain_toolsearch.search.semantic.SemanticToolIndex` to fuse with BM25.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore
from langgraph.store.base import BaseStore, SearchItem

from langchain_toolsearch._effects import Flow
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.search.store_vector_cache import StoreVectorCache, Vector
from langchain_toolsearch.search.tokenize import tokenize
from langchain_toolsearch.search.vector_cache import EmbeddingCache, text_digest

__all__ = ["Neighbours", "StoreEmbedder", "StoreVectors", "neighbour_pairs", "store_embeddings"]


class StoreEmbedder(Embeddings):
    """A store's embedding model behind a tool-vector cache (module doc).

    The store calls it inside its own ``batch``, so it reads and writes
    memory only; a sync reads the stored vectors of the texts it will write
    first (:meth:`load_flow`) and saves the ones the model made after
    (:meth:`save_flow`). Other texts (queries, other items) are never saved.

    Args:
        model: The store's own embedding model.
        tier: Where vectors persist (the same store).

    Attributes:
        cache: Vectors in memory (``cache.misses``: texts the model embedded).
    """

    def __init__(self, model: Embeddings, tier: StoreVectorCache) -> None:
        self.model = model
        self.tier = tier
        self.cache = EmbeddingCache(None)
        self._expected: set[str] = set()
        self._pending: dict[str, Vector] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"StoreEmbedder({type(self.model).__name__})"

    def _keep(self, fresh: dict[str, Vector]) -> None:
        with self._lock:
            self._pending.update((d, v) for d, v in fresh.items() if d in self._expected)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors of ``texts``; the model embeds only those not in memory."""
        fresh: dict[str, Vector] = {}
        vectors = self.cache.embed(texts, self.model, persist=False, fresh=fresh)
        self._keep(fresh)
        out: list[list[float]] = vectors.tolist()
        return out

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """:meth:`embed_documents` through the model's ``aembed_documents``."""
        fresh: dict[str, Vector] = {}
        vectors = await self.cache.aembed(texts, self.model, persist=False, fresh=fresh)
        self._keep(fresh)
        out: list[list[float]] = vectors.tolist()
        return out

    def embed_query(self, text: str) -> list[float]:
        """The model's vector of ``text``."""
        return self.model.embed_query(text)

    async def aembed_query(self, text: str) -> list[float]:
        """:meth:`embed_query` through the model's ``aembed_query``."""
        return await self.model.aembed_query(text)

    def load_flow(self, texts: Sequence[str]) -> Flow[None]:
        """Read the stored vectors of ``texts`` missing from memory into it."""
        model = self.cache.model(self.model)
        digests = [text_digest(t) for t in texts]
        with self._lock:
            self._expected.update(digests)
        missing = [d for d in digests if d not in self.cache.recall(model, digests)]
        if missing:
            self.cache.remember(model, (yield from self.tier.get_flow(model, missing)))

    def save_flow(self, texts: Sequence[str]) -> Flow[None]:
        """Write the vectors of ``texts`` the model made since :meth:`load_flow`."""
        with self._lock:
            made = {}
            for digest in map(text_digest, texts):
                self._expected.discard(digest)
                if (vector := self._pending.pop(digest, None)) is not None:
                    made[digest] = vector
        if made:
            yield from self.tier.put_flow(self.cache.model(self.model), made)


class Neighbours(Protocol):
    """What :class:`StoreVectors` reads of a store index."""

    @property
    def embeddings(self) -> Embeddings:
        """The store's embedding model."""
        ...

    def neighbours(self, query: str, limit: int) -> list[tuple[str, float]]:
        """At most ``limit`` ``(tool name, cosine)`` pairs, best first."""
        ...

    async def aneighbours(self, query: str, limit: int) -> list[tuple[str, float]]:
        """:meth:`neighbours` for async callers."""
        ...


def store_embeddings(store: BaseStore) -> StoreEmbedder:
    """The store's :class:`StoreEmbedder`, set as its ``embeddings`` on first use.

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If the store has no vector
            index, or its ``distance_type`` is neither ``"cosine"`` nor
            ``"inner_product"``.
    """
    embeddings = getattr(store, "embeddings", None)
    if not getattr(store, "index_config", None) or not isinstance(embeddings, Embeddings):
        raise ToolSearchConfigError(
            f"{type(store).__name__} has no vector index: create it with "
            'index={"dims": ..., "embed": ...} (e.g. HashingEmbeddings())'
        )
    distance = (getattr(store, "index_config", None) or {}).get("distance_type", "cosine")
    if distance not in ("cosine", "inner_product"):
        raise ToolSearchConfigError(
            f"StoreToolIndex needs cosine similarity scores; the store uses {distance!r}"
        )
    if isinstance(embeddings, StoreEmbedder):
        return embeddings
    embedder = StoreEmbedder(embeddings, StoreVectorCache(store))
    setattr(store, "embeddings", embedder)  # noqa: B010 - BaseStore does not declare it
    return embedder


def neighbour_pairs(
    items: list[SearchItem], namespace: tuple[str, ...], names: frozenset[str]
) -> list[tuple[str, float]]:
    """A store search's items as ``(tool name, cosine)`` pairs, best first, ties by name.

    Only items of ``namespace`` named in ``names`` with a score count; scores
    are clipped to 1 and rounded to 6 decimals.
    """
    pairs = [
        (item.key, round(min(float(item.score), 1.0), 6))
        for item in items
        if item.score is not None
        and not math.isnan(item.score)
        and tuple(item.namespace) == namespace
        and item.key in names
    ]
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return pairs


class StoreVectors(VectorStore):
    """A store index's neighbours as a read-only LangChain ``VectorStore`` (for RRF in semantic.py).

    Args:
        index: The index whose neighbours are served.
    """

    def __init__(self, index: Neighbours) -> None:
        self._index = index

    @property
    def embeddings(self) -> Embeddings:
        """The store's embedding model."""
        return self._index.embeddings

    def similarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """At most ``k`` ``(tool document, cosine)`` pairs, best first; none without a word."""
        if not tokenize(query):
            return []
        return _documents(self._index.neighbours(query, k))

    async def asimilarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """:meth:`similarity_search_with_score` through the store's ``asearch``."""
        if not tokenize(query):
            return []
        return _documents(await self._index.aneighbours(query, k))

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """The documents of :meth:`similarity_search_with_score`."""
        return [d for d, _ in self.similarity_search_with_score(query, k)]

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings,
        metadatas: list[dict[Any, Any]] | None = None,
        **kwargs: Any,
    ) -> StoreVectors:
        """Not offered (``NotImplementedError``): build a ``StoreToolIndex`` instead."""
        raise NotImplementedError("build a StoreToolIndex instead")


def _documents(pairs: list[tuple[str, float]]) -> list[tuple[Document, float]]:
    """``(tool name, cosine)`` pairs as ``(Document, cosine)`` (content and ``name``: the name)."""
    return [(Document(page_content=name, metadata={"name": name}), score) for name, score in pairs]
