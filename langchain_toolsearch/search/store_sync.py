"""Syncing a library version's tools into a LangGraph store (for the store-served index).

:func:`sync_flow` only touches ``seen_at`` when the version's manifest is
there; otherwise it lists the namespace, writes tools whose content hash is
missing or differs, deletes the others, and writes the manifest last.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from langgraph.store.base import GetOp, Item, Op, PutOp, SearchItem, SearchOp

from langchain_toolsearch._effects import Flow
from langchain_toolsearch.search.protocol import ToolDocument
from langchain_toolsearch.search.semantic import document_text

if TYPE_CHECKING:
    from langchain_toolsearch.search.store_vectors import StoreEmbedder

__all__ = [
    "FINGERPRINT_CHARS",
    "MANIFESTS",
    "Hashed",
    "SyncStats",
    "content_hash",
    "hashed_documents",
    "library_fingerprint",
    "list_flow",
    "manifest_value",
    "sync_flow",
    "touch_flow",
]

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
