"""Library versions in a shared store index: one replica's version, listing, pruning.

Under a base namespace ``B`` (default ``("toolsearch", "tools")``):

* ``(*B, <fingerprint>)``: one item per tool, key the tool name, value
  ``{"name", "text", "hash"}``, only ``text`` embedded;
* ``(*B, "manifests")``: one item per version, key the fingerprint, value
  ``{"fingerprint", "tools", "synced_at", "seen_at"}`` (epoch seconds),
  written once every tool is stored, touched by serving replicas at most
  every ``refresh_seconds``.

The fingerprint (:func:`~langchain_toolsearch.search.store_sync.library_fingerprint`)
is an order-independent content hash of the documents. :func:`prune_versions`
deletes versions not touched for ``older_than`` seconds.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from langgraph.store.base import BaseStore, Item, Op, PutOp, SearchItem, SearchOp

from langchain_toolsearch._effects import Flow, arun_flow, run_flow
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchUsageError
from langchain_toolsearch.search.store_sync import (
    MANIFESTS,
    Hashed,
    SyncStats,
    library_fingerprint,
    list_flow,
    sync_flow,
    touch_flow,
)

if TYPE_CHECKING:
    from langchain_toolsearch.search.store_vectors import StoreEmbedder

__all__ = [
    "IndexVersion",
    "LibraryVersion",
    "alist_versions",
    "aprune_versions",
    "list_versions",
    "prune_versions",
]

_PAGE = 1_000
T = TypeVar("T")


class LibraryVersion:
    """One replica's library version in a shared store: its sync and its refresh.

    Args:
        store: The store holding the shared index.
        base: The base namespace.
        hashed: The version's tools (``store_sync.hashed_documents``).
        writes: Whether this replica writes (``False``: read-only, never refreshes).
        refresh_seconds: Most time between two manifest checks (seconds; ``None``: never).
        embedder: The store's embedder (``store_vectors.StoreEmbedder``): a
            tool whose text another version holds is not embedded again.

    Attributes:
        fingerprint: The version (``store_sync.library_fingerprint``).
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

    def _run(self, flow: Flow[T]) -> T:
        try:
            return run_flow(self.store, flow)
        except asyncio.InvalidStateError as exc:  # an async store on its own loop
            raise ToolSearchUsageError(
                f"{type(self.store).__name__} cannot be used synchronously from its event "
                "loop: build with `await StoreToolIndex.abuild(store, documents)` and search "
                "with `arank`"
            ) from exc

    def _schedule(self) -> None:
        if self._every is not None:
            self._due = time.monotonic() + self._every

    def sync(self) -> None:
        """Write the version unless its manifest is there (sync API)."""
        if self.writes:
            self.stats = self._run(self._sync_flow())
        self._schedule()

    async def async_sync(self) -> None:
        """Async :meth:`sync`."""
        if self.writes:
            self.stats = await arun_flow(self.store, self._sync_flow())
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
            self._run(self._refresh_flow())
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
    return run_flow(store, _versions(tuple(namespace)))


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
    return run_flow(store, _prune(tuple(namespace), older_than, keep, now))


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
