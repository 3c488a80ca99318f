"""Tool search served by a LangGraph ``BaseStore`` with a vector index.

:class:`StoreToolIndex` keeps a library version under ``(*namespace,
<fingerprint>)`` (:mod:`~langchain_toolsearch.search.store_versions`), written
once by whichever replica builds first; a tool whose text any version holds
is not embedded again (:class:`~langchain_toolsearch.search.store_vectors.StoreEmbedder`).
A request's own tools never reach the store. Scores: the store's cosine
clipped to ``(0, 1]``, below ``min_similarity`` dropped, ties by name; a
query sharing no word with the library must clear ``min_similarity_alone``.
``fuse_bm25=True`` fuses with in-process BM25 (``SemanticToolIndex``).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langgraph.store.base import BaseStore, SearchItem

from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.search.hashing import HashingEmbeddings
from langchain_toolsearch.search.index import (
    BM25Params,
    BM25ToolIndex,
    ScoredTool,
    ToolDocument,
    ToolIndex,
    unique_names,
)
from langchain_toolsearch.search.semantic import RRF_K, SemanticToolIndex
from langchain_toolsearch.search.store_sync import SyncStats, content_hash, hashed_documents
from langchain_toolsearch.search.store_vectors import (
    StoreVectors,
    neighbour_pairs,
    store_embeddings,
)
from langchain_toolsearch.search.store_versions import LibraryVersion
from langchain_toolsearch.search.tokenize import tokenize

__all__ = [
    "DEFAULT_NAMESPACE",
    "HashingEmbeddings",
    "StoreIndexFactory",
    "StoreToolIndex",
    "SyncStats",
    "content_hash",
]

DEFAULT_NAMESPACE: tuple[str, ...] = ("toolsearch", "tools")
"""Base namespace of :class:`StoreToolIndex` unless told otherwise (versions go below it)."""
DEFAULT_REFRESH_SECONDS = 60.0
"""How often a replica re-checks its library version in the store (seconds)."""


class StoreToolIndex:
    """A :class:`~langchain_toolsearch.search.index.ToolIndex` served by a LangGraph store.

    Construction syncs the store with ``documents`` and sets the store's
    ``embeddings`` to a :class:`~langchain_toolsearch.search.store_vectors.StoreEmbedder`
    over its model.

    Args:
        store: A LangGraph ``BaseStore`` with a vector index whose
            ``distance_type`` is ``"cosine"`` (the default) or
            ``"inner_product"`` with normalised embeddings.
        documents: One per tool; ``name`` values must be unique.
        namespace: The base namespace of this library's versions (tools under
            ``(*namespace, fingerprint)``); one base per embedding model.
        min_similarity: Cosine below which a neighbour is not a hit (0.2 suits
            :class:`HashingEmbeddings` and all-MiniLM-L6-v2).
        min_similarity_alone: The floor for a query sharing no word with the
            library; ``None``: 0.4, or no hits with :class:`HashingEmbeddings`.
        page_size: Hits of the first store query (count); 4x more per refill.
        max_hits: Most hits ``rank`` yields (count; pgvector HNSW caps a query
            at ``hnsw.ef_search`` rows).
        fuse_bm25: Fuse with in-process BM25 by reciprocal rank fusion.
        bm25_params: BM25 tuning (with ``fuse_bm25``).
        rrf_k: RRF rank constant (with ``fuse_bm25``).
        depth: Hits of each ranker fused (count, with ``fuse_bm25``).
        sync: Write the documents to the store (``False``: a read-only replica
            that never writes).
        refresh_seconds: Most time between two manifest checks (seconds;
            ``None``: never): touches ``seen_at``, rewrites a pruned version.

    Attributes:
        version: This replica's library version
            (:class:`~langchain_toolsearch.search.store_versions.LibraryVersion`).
        embeddings: The store's own model.

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If two documents share a
            name, an option is out of range, or the store has no (cosine)
            vector index.
    """

    def __init__(
        self,
        store: BaseStore,
        documents: Sequence[ToolDocument],
        *,
        namespace: tuple[str, ...] = DEFAULT_NAMESPACE,
        min_similarity: float = 0.2,
        min_similarity_alone: float | None = None,
        page_size: int = 20,
        max_hits: int = 200,
        fuse_bm25: bool = False,
        bm25_params: BM25Params | None = None,
        rrf_k: int = RRF_K,
        depth: int = 50,
        sync: bool = True,
        refresh_seconds: float | None = DEFAULT_REFRESH_SECONDS,
        _defer_sync: bool = False,
    ) -> None:
        if (
            not 0.0 < min_similarity <= 1.0
            or not (min_similarity_alone is None or 0.0 < min_similarity_alone <= 1.0)
            or page_size < 1
            or max_hits < page_size
            or not (refresh_seconds is None or refresh_seconds >= 0)
        ):
            raise ToolSearchConfigError(
                f"need similarity floors in (0, 1], 1 <= page_size <= max_hits and "
                f"refresh_seconds >= 0 or None; got {min_similarity=}, "
                f"{min_similarity_alone=}, {page_size=}, {max_hits=}, {refresh_seconds=}"
            )
        names = unique_names(documents)
        self.store = store
        self.embedder = store_embeddings(store)
        self.embeddings = self.embedder.model
        self.documents: tuple[ToolDocument, ...] = tuple(documents)
        hashed = hashed_documents(self.documents)
        self.version = LibraryVersion(
            store,
            tuple(namespace),
            hashed,
            writes=sync,
            refresh_seconds=refresh_seconds,
            embedder=self.embedder,
        )
        self.min_similarity = min_similarity
        self.page_size = page_size
        self.max_hits = max_hits
        self._names = frozenset(names)
        if min_similarity_alone is None and not isinstance(self.embeddings, HashingEmbeddings):
            min_similarity_alone = 0.4
        self.min_similarity_alone = min_similarity_alone
        self._vocabulary = frozenset(
            itertools.chain.from_iterable(tokenize(text) for _, text, _ in hashed)
        )
        if not _defer_sync:  # abuild syncs through the async API
            self.version.sync()
        self._fused: SemanticToolIndex | None = None
        if fuse_bm25:
            self._fused = SemanticToolIndex(
                self.documents,
                self.embeddings,
                bm25_params=bm25_params,
                rrf_k=rrf_k,
                depth=depth,
                min_similarity=min_similarity,
                min_similarity_alone=min_similarity_alone or 1.0,
                vector_store=StoreVectors(self),
            )

    @classmethod
    def build(
        cls, store: BaseStore, documents: Sequence[ToolDocument], **options: Any
    ) -> StoreToolIndex:
        """Sync ``store`` with ``documents`` and return the index (the constructor's arguments).

        Returns:
            The index; ``stats`` says what was written.
        """
        return cls(store, documents, **options)

    @classmethod
    async def abuild(
        cls, store: BaseStore, documents: Sequence[ToolDocument], **options: Any
    ) -> StoreToolIndex:
        """:meth:`build` through the store's ``abatch`` (for ``AsyncPostgresStore``)."""
        index = cls(store, documents, _defer_sync=True, **options)
        await index.version.async_sync()
        return index

    @property
    def base(self) -> tuple[str, ...]:
        """The base namespace (``namespace=``)."""
        return self.version.base

    @property
    def fingerprint(self) -> str:
        """The library version: a content hash of the documents."""
        return self.version.fingerprint

    @property
    def namespace(self) -> tuple[str, ...]:
        """``(*base, fingerprint)``: where this version's tools are."""
        return self.version.namespace

    @property
    def stats(self) -> SyncStats:
        """What the last sync wrote."""
        return self.version.stats

    @property
    def resyncs(self) -> int:
        """Times a refresh found the manifest gone and wrote the version again."""
        return self.version.resyncs

    def refresh(self) -> None:
        """Check this version's manifest now (see ``refresh_seconds``); sync API."""
        self.version.refresh()

    async def arefresh(self) -> None:
        """Async :meth:`refresh`."""
        await self.version.arefresh()

    def __len__(self) -> int:
        """Number of indexed tools."""
        return len(self.documents)

    def __repr__(self) -> str:
        fused = ", fused with BM25" if self._fused is not None else ""
        return f"StoreToolIndex({len(self)} tools in {type(self.store).__name__}{fused})"

    def neighbours(self, query: str, limit: int) -> list[tuple[str, float]]:
        """One store query: at most ``limit`` ``(tool name, cosine)`` pairs of this library.

        Best first, ties by name, before the similarity floor.
        """
        if self.version.due():
            self.version.refresh()
        items: list[SearchItem] = self.store.search(self.namespace, query=query, limit=limit)
        return neighbour_pairs(items, self.namespace, self._names)

    async def aneighbours(self, query: str, limit: int) -> list[tuple[str, float]]:
        """:meth:`neighbours` through the store's ``asearch``."""
        if self.version.due():
            await self.version.arefresh()
        items = await self.store.asearch(self.namespace, query=query, limit=limit)
        return neighbour_pairs(items, self.namespace, self._names)

    def _floor(self, query: str) -> float | None:
        """The store side's similarity floor for ``query``; ``None``: it can find nothing."""
        terms = tokenize(query)
        if any(t in self._vocabulary for t in terms):
            return self.min_similarity
        if not terms or self.min_similarity_alone is None:
            return None
        return max(self.min_similarity, self.min_similarity_alone)

    def _page(
        self, pairs: list[tuple[str, float]], limit: int, floor: float, seen: set[str]
    ) -> tuple[list[ScoredTool], bool]:
        """Hits of one store page not yet yielded, and whether the listing is done."""
        full = len(pairs) >= limit and limit < self.max_hits
        hits = [(n, s) for n, s in pairs if s >= floor]
        done = not full or len(hits) < len(pairs)
        if not done and hits:
            last = hits[-1][1]
            hits = [(n, s) for n, s in hits if s > last]
        fresh = [ScoredTool(name=n, score=s, raw_score=s) for n, s in hits if n not in seen]
        seen.update(h.name for h in fresh)
        return fresh, done

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield hits best first, ties by name, lazily (``page_size``, then 4x per refill)."""
        floor = self._floor(query)
        if self._fused is not None:
            yield from (self._fused.bm25 if floor is None else self._fused).rank(query)
            return
        if floor is None or not self.documents:
            return
        seen: set[str] = set()
        limit = min(self.page_size, self.max_hits)
        while True:
            hits, done = self._page(self.neighbours(query, limit), limit, floor, seen)
            yield from hits
            if done:
                return
            limit = min(limit * 4, self.max_hits)

    async def arank(self, query: str) -> AsyncIterator[ScoredTool]:
        """:meth:`rank` for async callers: the store is queried with ``asearch``."""
        floor = self._floor(query)
        if self._fused is not None:
            if floor is None:
                for hit in self._fused.bm25.rank(query):
                    yield hit
            else:
                async for hit in self._fused.arank(query):
                    yield hit
            return
        if floor is None or not self.documents:
            return
        seen: set[str] = set()
        limit = min(self.page_size, self.max_hits)
        while True:
            hits, done = self._page(await self.aneighbours(query, limit), limit, floor, seen)
            for hit in hits:
                yield hit
            if done:
                return
            limit = min(limit * 4, self.max_hits)


class StoreIndexFactory:
    """The ``index=`` option for store-served search: ``(documents) -> StoreToolIndex``.

    A version already stored is reused; a request's own tools go to
    :meth:`request_index`. ``fuse_bm25`` defaults to ``True`` here.

    Args:
        store: A LangGraph ``BaseStore`` with a vector index.
        **options: Keyword options of :class:`StoreToolIndex` (``namespace``,
            ``min_similarity``, ``fuse_bm25`` (default ``True`` here;
            ``False``: the store's embedding ranking alone)...).

    Attributes:
        last: The index most recently built (``None`` before the first build).
    """

    def __init__(self, store: BaseStore, **options: Any) -> None:
        self.store = store
        self.options = {"fuse_bm25": True, **options}
        self.last: StoreToolIndex | None = None

    def __call__(self, documents: Sequence[ToolDocument]) -> StoreToolIndex:
        """Sync the store with ``documents`` (one per tool) and return the index."""
        self.last = StoreToolIndex(self.store, documents, **self.options)
        return self.last

    async def abuild(self, documents: Sequence[ToolDocument]) -> StoreToolIndex:
        """:meth:`__call__` for async code and async stores (see :meth:`StoreToolIndex.abuild`)."""
        self.last = await StoreToolIndex.abuild(self.store, documents, **self.options)
        return self.last

    def request_index(self, documents: Sequence[ToolDocument]) -> ToolIndex:
        """One request's own tools in an in-memory ``BM25ToolIndex``, never in the store."""
        return BM25ToolIndex.build(documents)
