"""A LangGraph store's vector index as the store-served tool index reads it.

:class:`StoreVectors` shows a
:class:`~langchain_toolsearch.search.store_index.StoreToolIndex`'s neighbours
as a LangChain ``VectorStore``, so
:class:`~langchain_toolsearch.search.semantic.SemanticToolIndex` can fuse
them with BM25.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore
from langgraph.store.base import BaseStore, SearchItem

from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.search.tokenize import tokenize

__all__ = ["Neighbours", "StoreVectors", "neighbour_pairs", "store_embeddings"]


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


def store_embeddings(store: BaseStore) -> Embeddings:
    """The store's ``embeddings``, once its vector index is known to score by cosine.

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
    return embeddings


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
