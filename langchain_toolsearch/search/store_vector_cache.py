"""Tool vectors kept in a LangGraph store, shared by every worker and replica that uses it.

:class:`StoreVectorCache` is where
:class:`~langchain_toolsearch.search.vector_cache.EmbeddingCache` keeps tool
vectors when the middleware or node is given ``store=`` (e.g. a
``PostgresStore``): the first process to embed a tool writes its vector, the
others read it. Layout: namespace ``(*namespace, <sha256(model id)[:32]>)``
(``("toolsearch", "vectors", ...)`` by default), key: the SHA-256 (hex) of
the text embedded for the tool, value: ``{"model": <model id>, "dim": n,
"vector": <base64 of n little-endian float32>}``. Items are written with
``index=False``: the store's own vector index (if any) never embeds them.
An item that does not decode to ``dim`` floats of this model is ignored
(the tool is embedded again and the item overwritten).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from langgraph.store.base import BaseStore, GetOp, Item, PutOp

__all__ = ["VECTOR_NAMESPACE", "StoreVectorCache"]

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


class StoreVectorCache:
    """Tool vectors by content digest in a LangGraph ``BaseStore`` (module doc).

    Args:
        store: Any LangGraph store with a sync API (``InMemoryStore``,
            ``PostgresStore``...); it needs no vector index.
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

    def get(self, model: str, digests: Iterable[str]) -> dict[str, Vector]:
        """The stored vectors of ``digests`` for ``model``; missing or bad ones left out.

        One store ``batch`` of ``GetOp`` per 500 digests.
        """
        namespace = self.namespace(model)
        wanted = list(dict.fromkeys(digests))
        found: dict[str, Vector] = {}
        for start in range(0, len(wanted), _BATCH):
            chunk = wanted[start : start + _BATCH]
            items = self.store.batch([GetOp(namespace, d) for d in chunk])
            for digest, item in zip(chunk, items, strict=True):
                vector = _decode(item.value, model) if isinstance(item, Item) else None
                if vector is not None:
                    found[digest] = vector
        return found

    def put(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """Write ``vectors`` (SHA-256 hex -> vector): one ``batch`` of ``PutOp`` per 500."""
        namespace = self.namespace(model)
        ops = [
            PutOp(
                namespace,
                digest,
                {
                    "model": model,
                    "dim": int(vector.size),
                    "vector": base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode(
                        "ascii"
                    ),
                },
                index=False,
            )
            for digest, vector in vectors.items()
        ]
        for start in range(0, len(ops), _BATCH):
            self.store.batch(ops[start : start + _BATCH])
