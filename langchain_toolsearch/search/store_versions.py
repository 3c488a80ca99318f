"""Library versions in a shared store index: listing them and pruning old ones.

A store-served index (:class:`~langchain_toolsearch.search.store_index.StoreToolIndex`)
keeps each library version in its own namespace, so replicas running
different versions side by side never undo each other's writes. Under a base
namespace ``B`` (default ``("toolsearch", "tools")``):

* ``(*B, <fingerprint>)``: one item per tool of that version (see
  :mod:`~langchain_toolsearch.search.store_sync`);
* ``(*B, "manifests")``: one item per version, key the fingerprint, value
  ``{"fingerprint", "tools", "synced_at", "seen_at"}`` (epoch seconds), written
  once every tool of the version is in the store and touched again by every
  replica serving it at most every ``refresh_seconds``.

The fingerprint
(:func:`~langchain_toolsearch.search.store_sync.library_fingerprint`) is a
content hash of the library's tool documents (names, descriptions, parameters, aliases and the
embedded text), independent of their order: equal libraries share a
namespace and its embeddings, any change gives a new one. Old versions stay
until pruned: :func:`prune_versions` deletes the namespaces whose manifest was
not touched for ``older_than`` seconds (a version still served by a replica is
touched every ``refresh_seconds``, so it is never pruned while
``older_than`` is well above that).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from langgraph.store.base import BaseStore, Item, Op, PutOp, SearchItem, SearchOp

from langchain_toolsearch.search.store_sync import MANIFESTS
from langchain_toolsearch.store_flow import Flow, arun_flow, run_flow

__all__ = [
    "IndexVersion",
    "alist_versions",
    "aprune_versions",
    "list_versions",
    "prune_versions",
]

_PAGE = 1_000


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
    ns = (*base, MANIFESTS)
    found: list[IndexVersion] = []
    offset = 0
    while True:
        (result,) = yield [SearchOp(ns, limit=_PAGE, offset=offset)]
        page = cast(list[SearchItem], result)
        offset += len(page)
        found.extend(v for i in page if tuple(i.namespace) == ns if (v := _version(i)))
        if len(page) < _PAGE:
            return sorted(found, key=lambda v: (-v.seen_at, v.fingerprint))


def _prune(base: tuple[str, ...], older_than: float, keep: frozenset[str], now: float) -> Flow[int]:
    stale = [
        v.fingerprint
        for v in (yield from _versions(base))
        if now - v.seen_at > older_than and v.fingerprint not in keep
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


def _check_age(older_than: float) -> None:
    if not older_than > 0:
        raise ValueError(f"older_than must be > 0 seconds; got {older_than!r}")


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

    Run it from a cron job or at deploy time. A replica serving a version
    touches its manifest at most every ``refresh_seconds``; choose
    ``older_than`` well above the largest ``refresh_seconds`` in use (e.g. a
    day). A replica whose version was pruned anyway writes it again at its
    next refresh (``sync=True``).

    Args:
        store: The store holding the shared index.
        namespace: The base namespace.
        older_than: Age of the manifest's ``seen_at`` above which a version goes (seconds).
        keep: Fingerprints never pruned (e.g. the one being deployed).
        now: The current time (epoch seconds; tests).

    Returns:
        The number of versions deleted.

    Raises:
        ValueError: If ``older_than`` is not positive.
    """
    _check_age(older_than)
    when = time.time() if now is None else now
    return run_flow(store, _prune(tuple(namespace), older_than, frozenset(keep), when))


async def aprune_versions(
    store: BaseStore,
    namespace: tuple[str, ...],
    *,
    older_than: float,
    keep: Sequence[str] = (),
    now: float | None = None,
) -> int:
    """Async :func:`prune_versions`."""
    _check_age(older_than)
    when = time.time() if now is None else now
    return await arun_flow(store, _prune(tuple(namespace), older_than, frozenset(keep), when))
