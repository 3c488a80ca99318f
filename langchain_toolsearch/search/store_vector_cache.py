"""Tool vectors kept in a store, shared by every worker and replica that uses it.

Persistent tiers of :class:`~langchain_toolsearch.search.vector_cache.EmbeddingCache`.
:class:`ByteStoreVectors`: a LangChain ``ByteStore``, keys ``<model id>:<sha256
hex>``, values ``float32`` bytes. :class:`StoreVectorCache`: a LangGraph store
(given as ``store=``). Layout: namespace ``(*namespace, <sha256(model id)[:32]>)``
(``("toolsearch", "vectors", ...)`` by default), key: the SHA-256 (hex) of
the text embedded for the tool, value: ``{"model": <model id>, "dim": n,
"vector": <base64 of n little-endian float32>}``, written with
``index=False``. An item that does not decode to ``dim`` floats of this
model is ignored (the tool is embedded again and the item overwritten).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from langchain_core.stores import ByteStore
from langgraph.store.base import BaseStore, GetOp, Item, Op, PutOp

from langchain_toolsearch._effects import Flow, arun_flow, run_flow

__all__ = ["VECTOR_NAMESPACE", "ByteStoreVectors", "StoreVectorCache"]

VECTOR_NAMESPACE: tuple[str, ...] = ("toolsearch", "vectors")
"""Base namespace of the vectors (one namespace per model below it)."""
_BATCH = 500

Vector = npt.NDArray[np.float32]


def _decode(value: Any, model: str) -> Vector | None:
    """The vector of one stored value, or ``None`` if it is not one of ``model``'s."""
    if not isinstance(value, dict) or value.get("model") != model:
        return None
    try:
        raw = base64.b64decode(value["vector"], validate=True)
        dim = int(value["dim"])
    except (KeyError, TypeError, ValueError):
        return None
    if dim < 1 or len(raw) != 4 * dim:
        return None
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)


def _encode(model: str, vector: Vector) -> dict[str, Any]:
    raw = np.asarray(vector, dtype="<f4").tobytes()
    return {"model": model, "dim": int(vector.size), "vector": base64.b64encode(raw).decode()}


class StoreVectorCache:
    """Tool vectors by content digest in a LangGraph ``BaseStore`` (module doc).

    Sync callers use :meth:`get` / :meth:`put` (the store's ``batch``), async
    ones :meth:`aget` / :meth:`aput` (``abatch``); a store flow can ``yield
    from`` :meth:`get_flow` / :meth:`put_flow`. 500 ops per batch.

    Args:
        store: Any LangGraph store (it needs no vector index).
        namespace: Base namespace of the vectors.
    """

    def __init__(self, store: BaseStore, *, namespace: tuple[str, ...] = VECTOR_NAMESPACE) -> None:
        self.store = store
        self.base = tuple(namespace)

    def __repr__(self) -> str:
        return f"StoreVectorCache({type(self.store).__name__}, {self.base!r})"

    def namespace(self, model: str) -> tuple[str, ...]:
        """Where ``model``'s vectors live."""
        return (*self.base, hashlib.sha256(model.encode()).hexdigest()[:32])

    def get_flow(self, model: str, digests: Iterable[str]) -> Flow[dict[str, Vector]]:
        """The stored vectors of ``digests`` (SHA-256 hex); missing or bad ones left out."""
        namespace = self.namespace(model)
        wanted = list(dict.fromkeys(digests))
        found: dict[str, Vector] = {}
        for start in range(0, len(wanted), _BATCH):
            chunk = wanted[start : start + _BATCH]
            items = yield cast(list[Op], [GetOp(namespace, d) for d in chunk])
            for digest, item in zip(chunk, items, strict=True):
                vector = _decode(item.value, model) if isinstance(item, Item) else None
                if vector is not None:
                    found[digest] = vector
        return found

    def put_flow(self, model: str, vectors: Mapping[str, Vector]) -> Flow[None]:
        """Write ``vectors`` (SHA-256 hex -> vector)."""
        namespace = self.namespace(model)
        ops: list[Op] = [
            PutOp(namespace, digest, _encode(model, vector), index=False)
            for digest, vector in vectors.items()
        ]
        for start in range(0, len(ops), _BATCH):
            _ = yield ops[start : start + _BATCH]

    def get(self, model: str, digests: Iterable[str]) -> dict[str, Vector]:
        """:meth:`get_flow` through the store's ``batch``."""
        return run_flow(self.store, self.get_flow(model, digests))

    async def aget(self, model: str, digests: Iterable[str]) -> dict[str, Vector]:
        """:meth:`get_flow` through the store's ``abatch``."""
        return await arun_flow(self.store, self.get_flow(model, digests))

    def put(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """:meth:`put_flow` through the store's ``batch``."""
        run_flow(self.store, self.put_flow(model, vectors))

    async def aput(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """:meth:`put_flow` through the store's ``abatch``."""
        await arun_flow(self.store, self.put_flow(model, vectors))


class ByteStoreVectors:
    """A LangChain ``ByteStore`` as a :class:`VectorTier`: keys ``<model id>:<sha256 hex>``.

    Args:
        store: Any ``BaseStore[str, bytes]`` (``LocalFileStore``, Redis...).
    """

    def __init__(self, store: ByteStore) -> None:
        self.store = store

    def get(self, model: str, digests: Iterable[str]) -> dict[str, Vector]:
        """The stored vectors of ``digests``; missing ones left out."""
        wanted = list(digests)
        return _decoded(wanted, self.store.mget([f"{model}:{d}" for d in wanted]))

    async def aget(self, model: str, digests: Iterable[str]) -> dict[str, Vector]:
        """:meth:`get` through ``amget``."""
        wanted = list(digests)
        return _decoded(wanted, await self.store.amget([f"{model}:{d}" for d in wanted]))

    def put(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """Store ``vectors`` as ``float32`` bytes."""
        self.store.mset(_encoded(model, vectors))

    async def aput(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """:meth:`put` through ``amset``."""
        await self.store.amset(_encoded(model, vectors))


def _decoded(digests: list[str], values: Sequence[bytes | None]) -> dict[str, Vector]:
    return {
        d: np.frombuffer(v, dtype=np.float32)
        for d, v in zip(digests, values, strict=True)
        if v is not None
    }


def _encoded(model: str, vectors: Mapping[str, Vector]) -> list[tuple[str, bytes]]:
    return [(f"{model}:{d}", np.asarray(v, dtype=np.float32).tobytes()) for d, v in vectors.items()]
