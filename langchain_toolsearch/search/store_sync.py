"""Syncing a library's tools into a LangGraph store namespace (for the store-served index).

One item per tool under the namespace: key = tool name, value ``{"name",
"text", "hash"}``, only ``text`` embedded (see
:func:`~langchain_toolsearch.search.semantic.document_text`). A sync lists the
namespace, skips tools whose content hash is unchanged, writes the others in
batches and deletes the items of tools no longer in the library, so rebuilding
a library re-embeds only what changed. Used by
:class:`~langchain_toolsearch.search.store_index.StoreToolIndex`.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

from langgraph.store.base import BaseStore, Op, PutOp, SearchItem

from langchain_toolsearch.search.protocol import ToolDocument
from langchain_toolsearch.search.semantic import document_text

__all__ = ["SyncStats", "async_sync_store", "content_hash", "sync_store"]

_LIST_PAGE = 1_000
_WRITE_BATCH = 500


def content_hash(doc: ToolDocument, text: str | None = None) -> str:
    """SHA-256 (hex) of everything :class:`StoreToolIndex` stores for a tool.

    The embedded text (``text``, or ``document_text(doc)`` when not given) is
    part of it, so a release that changes how
    :func:`~langchain_toolsearch.search.semantic.document_text` writes a tool
    re-embeds stored tools at the next build, not never.
    """
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


@dataclass(frozen=True, slots=True)
class SyncStats:
    """What a build did to the store.

    Attributes:
        written: Items put (new or changed tools; each embedded once).
        deleted: Items deleted (tools no longer in the library).
        unchanged: Tools whose stored content hash matched (not written).
        seconds: Wall time of the sync, listing included (s).
    """

    written: int
    deleted: int
    unchanged: int
    seconds: float


def _collect(page: list[SearchItem], namespace: tuple[str, ...], found: dict[str, str]) -> bool:
    """Add one listing page to ``found``; whether more pages may follow."""
    for item in page:
        if tuple(item.namespace) == namespace:
            value = item.value or {}
            found[item.key] = str(value.get("hash", ""))
    return len(page) >= _LIST_PAGE


def _stored(store: BaseStore, namespace: tuple[str, ...]) -> dict[str, str]:
    """Key -> stored content hash of every item in the namespace."""
    found: dict[str, str] = {}
    for offset in itertools.count(0, _LIST_PAGE):
        try:
            page = store.search(namespace, limit=_LIST_PAGE, offset=offset)
        except asyncio.InvalidStateError as exc:  # an async store on its own loop
            raise RuntimeError(
                f"{type(store).__name__} cannot be used synchronously from its event "
                "loop: build with `await StoreToolIndex.abuild(store, documents)` and search "
                "with `arank`"
            ) from exc
        if not _collect(page, namespace, found):
            return found
    return found  # pragma: no cover - itertools.count never ends


async def _astored(store: BaseStore, namespace: tuple[str, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    for offset in itertools.count(0, _LIST_PAGE):
        page = await store.asearch(namespace, limit=_LIST_PAGE, offset=offset)
        if not _collect(page, namespace, found):
            return found
    return found  # pragma: no cover - itertools.count never ends


def _plan(
    documents: Sequence[ToolDocument], namespace: tuple[str, ...], stored: dict[str, str]
) -> tuple[list[list[Op]], int, int, int]:
    """Write batches for the stored state: (batches, written, deleted, unchanged)."""
    ops: list[Op] = []
    unchanged = 0
    for doc in documents:
        text = document_text(doc)
        digest = content_hash(doc, text)
        if stored.get(doc.name) == digest:
            unchanged += 1
            continue
        value = {"name": doc.name, "text": text, "hash": digest}
        ops.append(PutOp(namespace, doc.name, value, index=["text"]))
    written = len(ops)
    removed = sorted(set(stored) - frozenset(d.name for d in documents))
    ops.extend(PutOp(namespace, key, None) for key in removed)
    batches = [ops[i : i + _WRITE_BATCH] for i in range(0, len(ops), _WRITE_BATCH)]
    return batches, written, len(removed), unchanged


def sync_store(
    store: BaseStore, namespace: tuple[str, ...], documents: Sequence[ToolDocument]
) -> SyncStats:
    """Make ``namespace`` of ``store`` hold exactly ``documents`` (sync API).

    Raises:
        RuntimeError: If ``store`` is an async store called from its own event loop.
    """
    started = time.perf_counter()
    batches, written, deleted, unchanged = _plan(documents, namespace, _stored(store, namespace))
    for batch in batches:
        store.batch(batch)
    return SyncStats(written, deleted, unchanged, time.perf_counter() - started)


async def async_sync_store(
    store: BaseStore, namespace: tuple[str, ...], documents: Sequence[ToolDocument]
) -> SyncStats:
    """:func:`sync_store` through the store's ``asearch`` / ``abatch``."""
    started = time.perf_counter()
    stored = await _astored(store, namespace)
    batches, written, deleted, unchanged = _plan(documents, namespace, stored)
    for batch in batches:
        await store.abatch(batch)
    return SyncStats(written, deleted, unchanged, time.perf_counter() - started)
