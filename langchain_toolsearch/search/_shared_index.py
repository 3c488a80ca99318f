"""Tool search served by a LangGraph ``BaseStore`` with a vector index, shared by replicas.

:class:`StoreToolIndex` keeps a library version under ``(*namespace,
<fingerprint>)``, written once by whichever replica builds first; a tool
whose text any version holds is not embedded again
(:class:`~langchain_toolsearch.search._vectors.StoreEmbedder`). A request's
own tools never reach the store. Scores: the store's cosine clipped to ``(0,
1]``, below ``min_similarity`` dropped, ties by name; a query sharing no word
with the library must clear ``min_similarity_alone``. ``fuse_bm25=True``
fuses with in-process BM25 (``SemanticToolIndex``, reading the store's
neighbours through :class:`StoreVectors`).

Under a base namespace ``B`` (default ``("toolsearch", "tools")``):

* ``(*B, <fingerprint>)``: one item per tool, key the tool name, value
  ``{"name", "text", "hash"}``, only ``text`` embedded;
* ``(*B, "manifests")``: one item per version, key the fingerprint, value
  ``{"fingerprint", "tools", "synced_at", "seen_at"}`` (epoch seconds),
  written once every tool is stored, touched by serving replicas at most
  every ``refresh_seconds``.

The fingerprint (:func:`library_fingerprint`) is an order-independent
content hash of the documents. A sync (:func:`sync_flow`) only touches
``seen_at`` when the version's manifest is there; otherwise it lists the
namespace, writes tools whose content hash is missing or differs, deletes
the others, and writes the manifest last. :func:`prune_versions` deletes
versions not touched for ``older_than`` seconds.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import math
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar, cast

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore
from langgraph.store.base import BaseStore, GetOp, Item, Op, PutOp, SearchItem, SearchOp

from langchain_toolsearch._effects import Effect, Flow, Logic, adrive, arun_flow, drive, flow_logic
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchUsageError
from langchain_toolsearch.search import _lease
from langchain_toolsearch.search._analysis import tokenize
from langchain_toolsearch.search._bm25 import BM25Params, BM25ToolIndex, unique_names
from langchain_toolsearch.search._hybrid import (
    RRF_K,
    HashingEmbeddings,
    SemanticToolIndex,
    document_text,
)
from langchain_toolsearch.search._protocol import ScoredTool, ToolDocument, ToolIndex, arank
from langchain_toolsearch.search._vectors import StoreEmbedder, StoreVectorCache

MANIFESTS = "manifests"
"""Last label of the namespace holding one manifest item per library version."""
FINGERPRINT_CHARS = 32
"""Hex characters of a library fingerprint (128 bits of SHA-256)."""
_LIST_PAGE = 1_000
_WRITE_BATCH = 500

Hashed = tuple[ToolDocument, str, str]
"""A tool document with its embedded text and content hash."""


def content_hash(doc: ToolDocument, text: str | None = None) -> str:
    """SHA-256 (hex) of everything :class:`StoreToolIndex` stores for a tool, embedded text too."""
    payload = json.dumps(
        [
            doc.name,
            doc.description,
            [list(p) for p in doc.parameters],
            list(doc.aliases),
            document_text(doc) if text is None else text,
        ],
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def hashed_documents(documents: Sequence[ToolDocument]) -> list[Hashed]:
    """``(document, embedded text, content hash)`` of each document, in order."""
    out: list[Hashed] = []
    for doc in documents:
        text = document_text(doc)
        out.append((doc, text, content_hash(doc, text)))
    return out


def library_fingerprint(hashed: Sequence[Hashed]) -> str:
    """The version of a library: SHA-256 of its ``(name, content hash)`` pairs, sorted.

    :data:`FINGERPRINT_CHARS` lowercase hex characters (a namespace label) of
    :func:`hashed_documents` of the library; equal in any order.
    """
    digest = hashlib.sha256()
    for name, value in sorted((doc.name, h) for doc, _, h in hashed):
        digest.update(f"{name}\0{value}\n".encode("utf-8", "replace"))
    return digest.hexdigest()[:FINGERPRINT_CHARS]


@dataclass(frozen=True, slots=True)
class SyncStats:
    """What a build did to the store.

    Attributes:
        written: Items put (new or changed tools; each embedded once).
        deleted: Items deleted (tools not in the version).
        unchanged: Tools already in the store (all of them when the version's
            manifest was there).
        seconds: Wall time of the sync, manifest and listing included (s).
    """

    written: int
    deleted: int
    unchanged: int
    seconds: float


def manifest_value(fingerprint: str, tools: int, synced_at: float, now: float) -> dict[str, Any]:
    """The manifest item's value (times in epoch seconds)."""
    return {"fingerprint": fingerprint, "tools": tools, "synced_at": synced_at, "seen_at": now}


def _synced_at(item: object) -> float | None:
    """The manifest's ``synced_at``, or ``None`` when there is no (valid) manifest."""
    if not isinstance(item, Item) or not isinstance(item.value, dict):
        return None
    value = item.value.get("synced_at")
    return float(value) if isinstance(value, int | float) else None


def touch_flow(base: tuple[str, ...], fingerprint: str, tools: int, now: float) -> Flow[bool]:
    """Touch a version's manifest (``seen_at``); whether it was there."""
    ns = (*base, MANIFESTS)
    (item,) = yield [GetOp(ns, fingerprint)]
    synced_at = _synced_at(item)
    if synced_at is None:
        return False
    yield [PutOp(ns, fingerprint, manifest_value(fingerprint, tools, synced_at, now), index=False)]
    return True


def list_flow(ns: tuple[str, ...]) -> Flow[list[SearchItem]]:
    """Every item of the namespace ``ns`` itself (not of namespaces below it), 1,000 a query."""
    found: list[SearchItem] = []
    offset = 0
    while True:
        (result,) = yield [SearchOp(ns, limit=_LIST_PAGE, offset=offset)]
        page = cast(list[SearchItem], result)
        offset += len(page)
        found.extend(item for item in page if tuple(item.namespace) == ns)
        if len(page) < _LIST_PAGE:
            return found


def _plan(
    hashed: Sequence[Hashed], ns: tuple[str, ...], stored: dict[str, str]
) -> tuple[list[list[Op]], int, int, int]:
    """Write batches for the stored state: (batches, written, deleted, unchanged)."""
    ops: list[Op] = []
    unchanged = 0
    for doc, text, digest in hashed:
        if stored.get(doc.name) == digest:
            unchanged += 1
            continue
        value = {"name": doc.name, "text": text, "hash": digest}
        ops.append(PutOp(ns, doc.name, value, index=["text"]))
    written = len(ops)
    removed = sorted(set(stored) - frozenset(doc.name for doc, _, _ in hashed))
    ops.extend(PutOp(ns, key, None) for key in removed)
    batches = [ops[i : i + _WRITE_BATCH] for i in range(0, len(ops), _WRITE_BATCH)]
    return batches, written, len(removed), unchanged


def sync_flow(
    base: tuple[str, ...],
    fingerprint: str,
    hashed: Sequence[Hashed],
    *,
    now: float | None = None,
    force: bool = False,
    embedder: StoreEmbedder | None = None,
) -> Flow[SyncStats]:
    """Make ``(*base, fingerprint)`` hold exactly ``hashed``, then write its manifest.

    Args:
        base: The base namespace.
        fingerprint: :func:`library_fingerprint` of ``hashed``.
        hashed: The version's tools.
        now: The manifest's time (epoch seconds; default ``time.time()``).
        force: List and compare the items even when the manifest is there.
        embedder: The store's embedder: vectors of the texts written are
            read from its cache first and the new ones saved after.
    """
    started = time.perf_counter()
    when = time.time() if now is None else now
    if not force and (yield from touch_flow(base, fingerprint, len(hashed), when)):
        return SyncStats(0, 0, len(hashed), time.perf_counter() - started)
    ns = (*base, fingerprint)
    stored = {i.key: str((i.value or {}).get("hash", "")) for i in (yield from list_flow(ns))}
    batches, written, deleted, unchanged = _plan(hashed, ns, stored)
    texts = [text for doc, text, digest in hashed if stored.get(doc.name) != digest]
    if embedder is not None:
        yield from embedder.load_flow(texts)
    for batch in batches:  # sent back results are not needed
        _ = yield batch
    if embedder is not None:
        yield from embedder.save_flow(texts)
    value = manifest_value(fingerprint, len(hashed), when, when)
    yield [PutOp((*base, MANIFESTS), fingerprint, value, index=False)]
    return SyncStats(written, deleted, unchanged, time.perf_counter() - started)


_PAGE = 1_000
T = TypeVar("T")


class LibraryVersion:
    """One replica's library version in a shared store: its sync and its refresh.

    Args:
        store: The store holding the shared index.
        base: The base namespace.
        hashed: The version's tools (:func:`hashed_documents`).
        writes: Whether this replica writes (``False``: read-only, never refreshes).
        refresh_seconds: Most time between two manifest checks (seconds; ``None``: never).
        embedder: The store's embedder (``StoreEmbedder``): a
            tool whose text another version holds is not embedded again.

    Attributes:
        fingerprint: The version (:func:`library_fingerprint`).
        namespace: ``(*base, fingerprint)``.
        stats: What the last sync wrote.
        resyncs: Times a refresh found the manifest gone and wrote the version again.
    """

    def __init__(
        self,
        store: BaseStore,
        base: tuple[str, ...],
        hashed: Sequence[Hashed],
        *,
        writes: bool,
        refresh_seconds: float | None,
        embedder: StoreEmbedder | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.lease = _lease.store_lease(store)
        self.base = tuple(base)
        self._hashed = hashed
        self.fingerprint = library_fingerprint(hashed)
        self.namespace = (*self.base, self.fingerprint)
        self.writes = writes
        self._every = refresh_seconds if writes else None
        self._due = 0.0
        self._lock = threading.Lock()
        self.stats = SyncStats(0, 0, len(hashed), 0.0)
        self.resyncs = 0

    def _sync_flow(self, *, force: bool = False) -> Flow[SyncStats]:
        return sync_flow(
            self.base, self.fingerprint, self._hashed, force=force, embedder=self.embedder
        )

    def _run(self, logic: Logic[T]) -> T:
        try:
            return drive(logic)
        except asyncio.InvalidStateError as exc:  # an async store on its own loop
            raise ToolSearchUsageError(
                f"{type(self.store).__name__} cannot be used synchronously from its event "
                "loop: build with `await StoreToolIndex.abuild(store, documents)` and search "
                "with `arank`"
            ) from exc

    def _schedule(self) -> None:
        if self._every is not None:
            self._due = time.monotonic() + self._every

    def _leased_sync(self) -> Logic[SyncStats]:
        """The sync, one replica at a time on stores with a lease (``search/_lease.py``)."""
        name = _lease.lease_name("version", *self.namespace)
        work = flow_logic(self.store, self._sync_flow())
        return (yield from _lease.exclusive(self.lease, name, work))

    def sync(self) -> None:
        """Write the version unless its manifest is there (sync API)."""
        if self.writes:
            self.stats = self._run(self._leased_sync())
        self._schedule()

    async def async_sync(self) -> None:
        """Async :meth:`sync`."""
        if self.writes:
            self.stats = await adrive(self._leased_sync())
        self._schedule()

    def due(self) -> bool:
        """Whether the caller runs the refresh now (one caller per interval)."""
        if self._every is None:
            return False
        with self._lock:
            if time.monotonic() < self._due:
                return False
            self._schedule()
            return True

    def _refresh_flow(self) -> Flow[None]:
        """Touch the manifest; write the version again when it is gone."""
        if not (yield from touch_flow(self.base, self.fingerprint, len(self._hashed), time.time())):
            self.stats = yield from self._sync_flow(force=True)
            self.resyncs += 1

    def refresh(self) -> None:
        """Check the manifest now (sync API); read-only replicas do nothing."""
        if self.writes:
            self._run(flow_logic(self.store, self._refresh_flow()))
            self._schedule()

    async def arefresh(self) -> None:
        """Async :meth:`refresh`."""
        if self.writes:
            await arun_flow(self.store, self._refresh_flow())
            self._schedule()


@dataclass(frozen=True, slots=True)
class IndexVersion:
    """One library version in a shared index (its manifest).

    Attributes:
        fingerprint: The version's fingerprint (its namespace's last label).
        tools: Tools in the version (count).
        synced_at: When a replica finished writing it (epoch seconds).
        seen_at: When a replica serving it last touched the manifest (epoch seconds).
    """

    fingerprint: str
    tools: int
    synced_at: float
    seen_at: float


def _version(item: Item) -> IndexVersion | None:
    value: Any = item.value
    if not isinstance(value, dict):
        return None
    synced: Any = value.get("synced_at", 0.0)
    try:
        return IndexVersion(
            fingerprint=str(item.key),
            tools=int(value.get("tools", 0)),
            synced_at=float(synced),
            seen_at=float(value.get("seen_at") or synced),
        )
    except (TypeError, ValueError):
        return None


def _versions(base: tuple[str, ...]) -> Flow[list[IndexVersion]]:
    found = [v for i in (yield from list_flow((*base, MANIFESTS))) if (v := _version(i))]
    return sorted(found, key=lambda v: (-v.seen_at, v.fingerprint))


def _prune(
    base: tuple[str, ...], older_than: float, keep: Sequence[str], now: float | None
) -> Flow[int]:
    if not older_than > 0:
        raise ToolSearchConfigError(f"older_than must be > 0 seconds; got {older_than!r}")
    now = time.time() if now is None else now
    kept = frozenset(keep)
    stale = [
        v.fingerprint
        for v in (yield from _versions(base))
        if now - v.seen_at > older_than and v.fingerprint not in kept
    ]
    for fingerprint in stale:
        ns = (*base, fingerprint)
        while True:
            (result,) = yield [SearchOp(ns, limit=_PAGE)]
            keys = [i.key for i in cast(list[SearchItem], result) if tuple(i.namespace) == ns]
            if not keys:
                break
            ops: list[Op] = [PutOp(ns, k, None) for k in keys]
            yield ops
        yield [PutOp((*base, MANIFESTS), fingerprint, None)]
    return len(stale)


def list_versions(store: BaseStore, namespace: tuple[str, ...]) -> list[IndexVersion]:
    """The library versions under ``namespace``, most recently seen first.

    Args:
        store: The store holding the shared index.
        namespace: The base namespace (``StoreToolIndex``'s ``namespace=``).
    """
    return drive(flow_logic(store, _versions(tuple(namespace))))


async def alist_versions(store: BaseStore, namespace: tuple[str, ...]) -> list[IndexVersion]:
    """Async :func:`list_versions`."""
    return await arun_flow(store, _versions(tuple(namespace)))


def prune_versions(
    store: BaseStore,
    namespace: tuple[str, ...],
    *,
    older_than: float,
    keep: Sequence[str] = (),
    now: float | None = None,
) -> int:
    """Delete the versions no replica touched for ``older_than`` seconds (items and manifest).

    Args:
        store: The store holding the shared index.
        namespace: The base namespace.
        older_than: Age of the manifest's ``seen_at`` above which a version goes
            (seconds; well above the largest ``refresh_seconds``, e.g. a day).
        keep: Fingerprints never pruned (e.g. the one being deployed).
        now: The current time (epoch seconds; tests).

    Returns:
        The number of versions deleted.

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If ``older_than`` is not positive.
    """
    return drive(flow_logic(store, _prune(tuple(namespace), older_than, keep, now)))


async def aprune_versions(
    store: BaseStore,
    namespace: tuple[str, ...],
    *,
    older_than: float,
    keep: Sequence[str] = (),
    now: float | None = None,
) -> int:
    """Async :func:`prune_versions`."""
    return await arun_flow(store, _prune(tuple(namespace), older_than, keep, now))


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
    """A store index's neighbours as a read-only LangChain ``VectorStore`` (for the fusion).

    Args:
        index: The index whose neighbours are served.
    """

    def __init__(self, index: StoreToolIndex) -> None:
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


DEFAULT_NAMESPACE: tuple[str, ...] = ("toolsearch", "tools")
"""Base namespace of :class:`StoreToolIndex` unless told otherwise (versions go below it)."""
DEFAULT_REFRESH_SECONDS = 60.0
"""How often a replica re-checks its library version in the store (seconds)."""


class StoreToolIndex:
    """A :class:`~langchain_toolsearch.search.ToolIndex` served by a LangGraph store.

    Construction syncs the store with ``documents`` and sets the store's
    ``embeddings`` to a :class:`~langchain_toolsearch.search._vectors.StoreEmbedder`
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
            (:class:`~langchain_toolsearch.search._shared_index.LibraryVersion`).
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

    def _neighbours(self, query: str, limit: int) -> Logic[list[tuple[str, float]]]:
        """:meth:`neighbours` written once: the refresh when due, then one store search."""
        if self.version.due():
            yield Effect(self.version.refresh, self.version.arefresh)
        search = partial(self.store.search, self.namespace, query=query, limit=limit)
        asearch = partial(self.store.asearch, self.namespace, query=query, limit=limit)
        items: list[SearchItem] = yield Effect(search, asearch)
        return neighbour_pairs(items, self.namespace, self._names)

    def neighbours(self, query: str, limit: int) -> list[tuple[str, float]]:
        """One store query: at most ``limit`` ``(tool name, cosine)`` pairs of this library.

        Best first, ties by name, before the similarity floor.
        """
        return drive(self._neighbours(query, limit))

    async def aneighbours(self, query: str, limit: int) -> list[tuple[str, float]]:
        """:meth:`neighbours` through the store's ``asearch``."""
        return await adrive(self._neighbours(query, limit))

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
    ) -> tuple[list[ScoredTool], int]:
        """Hits of one store page not yet yielded, and the next page's size (0: done)."""
        full = len(pairs) >= limit and limit < self.max_hits
        hits = [(n, s) for n, s in pairs if s >= floor]
        done = not full or len(hits) < len(pairs)
        if not done and hits:
            last = hits[-1][1]
            hits = [(n, s) for n, s in hits if s > last]
        fresh = [ScoredTool(name=n, score=s, raw_score=s) for n, s in hits if n not in seen]
        seen.update(h.name for h in fresh)
        return fresh, 0 if done else min(limit * 4, self.max_hits)

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield hits best first, ties by name, lazily (``page_size``, then 4x per refill)."""
        floor = self._floor(query)
        if self._fused is not None:
            yield from (self._fused.bm25 if floor is None else self._fused).rank(query)
            return
        if floor is None or not self.documents:
            return
        seen, limit = set[str](), min(self.page_size, self.max_hits)
        while limit:
            hits, limit = self._page(self.neighbours(query, limit), limit, floor, seen)
            yield from hits

    async def arank(self, query: str) -> AsyncIterator[ScoredTool]:
        """:meth:`rank` for async callers: the store is queried with ``asearch``."""
        floor = self._floor(query)
        if self._fused is not None:
            async for hit in arank(self._fused.bm25 if floor is None else self._fused, query):
                yield hit
            return
        if floor is None or not self.documents:
            return
        seen, limit = set[str](), min(self.page_size, self.max_hits)
        while limit:
            hits, limit = self._page(await self.aneighbours(query, limit), limit, floor, seen)
            for hit in hits:
                yield hit


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
