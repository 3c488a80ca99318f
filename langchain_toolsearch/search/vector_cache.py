"""Tool and query embeddings kept by content fingerprint, so a library is embedded once.

:class:`EmbeddingCache` answers "the vectors of these tool texts for this
model" from three tiers, nearest first:

1. this process's memory (LRU, bounded by ``memory_bytes``);
2. a persistent tier shared by processes: a LangGraph ``BaseStore`` or a
   LangChain ``ByteStore`` (:mod:`~langchain_toolsearch.search.store_vector_cache`),
   a local file (:class:`~langchain_toolsearch.search.vector_file.VectorFile`), or none;
3. the model: one ``embed_documents`` call with the texts found nowhere,
   whose vectors are then written to the tiers above.

The fingerprint of a tool's vector is the SHA-256 of its embedded text
(:func:`~langchain_toolsearch.search.semantic.document_text`) under the
model id (:func:`model_id`): a changed tool has a new fingerprint and is
embedded alone; another model never reuses the vectors. A persistent tier
that fails (a store down, a file unreadable or corrupt) is logged at
WARNING once per cause and skipped: the tools are embedded as without it.

Query vectors: the last ``query_cache_size`` queries of at most 2,000
characters (LRU, per cache). :func:`default_cache` is the cache of ``embeddings=``.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.metadata
import json
import logging
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings
from langchain_core.stores import BaseStore as LangChainStore
from langgraph.store.base import BaseStore as LangGraphStore

from langchain_toolsearch._effects import Effect, Logic, adrive, drive
from langchain_toolsearch._support import CauseLog
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.search.store_vector_cache import ByteStoreVectors, StoreVectorCache
from langchain_toolsearch.search.vector_file import VectorFile, default_cache_dir

__all__ = [
    "ByteStoreVectors",
    "EmbeddingCache",
    "VectorTier",
    "default_cache",
    "model_id",
    "text_digest",
]

logger = logging.getLogger(__name__)

Vector = npt.NDArray[np.float32]
DEFAULT_MEMORY_BYTES = 128 * 2**20
"""Most bytes of tool vectors one cache keeps in memory."""
_MAX_CACHED_QUERY_CHARS = 2000  # longer queries are embedded each time, never cached
_MODEL_ATTRS = ("model_id", "model", "model_name", "deployment")
_SIZE_ATTRS = ("dimensions", "size", "dims")


@runtime_checkable
class VectorTier(Protocol):
    """A persistent place for tool vectors, keyed by model id and text digest."""

    def get(self, model: str, digests: Iterable[str]) -> dict[str, Vector]:
        """The stored vectors of ``digests`` (SHA-256 hex); missing ones left out."""
        ...

    def put(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """Store ``vectors`` (SHA-256 hex -> vector)."""
        ...


def text_digest(text: str) -> str:
    """SHA-256 (hex) of ``text`` in UTF-8: the key of its vector under a model id."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _version(top: str) -> str:
    """The version of the distribution holding the top-level package ``top`` (``?``: none)."""
    try:  # most distributions are named as their package; the scan below reads them all
        return importlib.metadata.version(top)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        names = importlib.metadata.packages_distributions().get(top, ["?"])
    try:
        return importlib.metadata.version(names[0])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return "?"


@functools.lru_cache(maxsize=64)
def _portable(value: str) -> str:
    """A path inside an installed package as ``<path in site-packages>@<version>``, else as is."""
    path = Path(value)
    if not path.is_absolute():
        return value
    for entry in sys.path:
        root = Path(entry) if entry else None
        if root is None or root.name not in ("site-packages", "dist-packages"):
            continue
        try:
            inside = path.relative_to(root)
        except ValueError:
            continue
        top = inside.parts[0] if inside.parts else ""
        return f"{inside.as_posix()}@{_version(top)}"
    return value


def model_id(embeddings: Embeddings) -> str:
    """What names ``embeddings``' vectors in the caches: class, model and settings.

    ``<module>.<class>:<model>``, the model being the first string of
    ``model_id``, ``model``, ``model_name``, ``deployment`` (a path in an
    installed package: ``<path in site-packages>@<version>``), then
    ``/<attr>=<n>`` per int ``dimensions`` / ``size`` / ``dims`` and
    ``/<attr>=<json>`` per ``encode_kwargs`` / ``query_encode_kwargs``.
    """
    model = next(
        (
            value
            for attr in _MODEL_ATTRS
            if isinstance(value := getattr(embeddings, attr, None), str) and value
        ),
        "",
    )
    parts = [f"{type(embeddings).__module__}.{type(embeddings).__qualname__}:{_portable(model)}"]
    for attr in _SIZE_ATTRS:
        size = getattr(embeddings, attr, None)
        if isinstance(size, int) and not isinstance(size, bool):
            parts.append(f"{attr}={size}")
    for attr in ("encode_kwargs", "query_encode_kwargs"):
        settings = getattr(embeddings, attr, None)
        if isinstance(settings, dict) and settings:
            parts.append(f"{attr}={json.dumps(settings, sort_keys=True, default=str)}")
    return "/".join(parts)


def _effect(tier: object, name: str, *args: Any) -> Effect[Any]:
    """``tier.<name>(*args)``; async: ``tier.a<name>``, else the sync one in a worker thread."""
    run = functools.partial(getattr(tier, name), *args)
    arun = getattr(tier, f"a{name}", None)
    return Effect(
        run, functools.partial(arun, *args) if arun else functools.partial(asyncio.to_thread, run)
    )


def _tier(store: object) -> VectorTier | None:
    if store is None or isinstance(store, (VectorFile, StoreVectorCache, ByteStoreVectors)):
        return store
    if isinstance(store, LangGraphStore):
        return StoreVectorCache(store)
    if isinstance(store, LangChainStore):
        return ByteStoreVectors(store)
    if isinstance(store, VectorTier):
        return store
    raise ToolSearchConfigError(
        "EmbeddingCache(store=...) takes a LangGraph BaseStore, a VectorFile, a LangChain "
        f"ByteStore or an object with get(model, digests) / put(model, vectors); got "
        f"{type(store).__name__}"
    )


class EmbeddingCache:
    """Tool vectors by content fingerprint in memory and a persistent tier (module doc).

    Args:
        store: The persistent tier: a LangGraph ``BaseStore``, a
            :class:`~langchain_toolsearch.search.vector_file.VectorFile`, a
            LangChain ``ByteStore``, any :class:`VectorTier`, or ``None``
            (memory only).
        namespace: The model id the vectors are kept under; by default
            :func:`model_id` of the embeddings.
        memory_bytes: Most bytes of tool vectors kept in memory (LRU).
        query_cache_size: Query vectors kept (LRU, count).

    Attributes:
        tier: The persistent tier (``None``: memory only).
        hits: Texts served without the model (count).
        loaded: Of :attr:`hits`, texts read from the persistent tier (count).
        misses: Texts sent to the embedding model (count).

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If ``store`` is none of
            the above or a bound is negative.
    """

    def __init__(
        self,
        store: object | None = None,
        *,
        namespace: str | None = None,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
        query_cache_size: int = 256,
    ) -> None:
        if memory_bytes < 0 or query_cache_size < 0:
            raise ToolSearchConfigError(
                f"need memory_bytes >= 0 and query_cache_size >= 0; got {memory_bytes=}, "
                f"{query_cache_size=}"
            )
        self.tier = _tier(store)
        self.namespace = namespace
        self.memory_bytes = memory_bytes
        self.query_cache_size = query_cache_size
        self.hits = 0
        self.loaded = 0
        self.misses = 0
        self._memory: OrderedDict[tuple[str, str], Vector] = OrderedDict()
        self._memory_used = 0
        self._queries: OrderedDict[tuple[str, str], Vector] = OrderedDict()
        self._model_ids: dict[int, tuple[Embeddings, str]] = {}
        self._lock = threading.Lock()
        self._failures = CauseLog(
            logger,
            f"tool search: the vector cache ({self.tier!r}) failed (%s): %s; embedding without it",
        )

    def __repr__(self) -> str:
        return f"EmbeddingCache({self.tier!r})"

    def model(self, embeddings: Embeddings) -> str:
        """The model id vectors of ``embeddings`` are kept under (read once per model object)."""
        if self.namespace is not None:
            return self.namespace
        known = self._model_ids.get(id(embeddings))
        if known is None or known[0] is not embeddings:
            known = (embeddings, model_id(embeddings))
            with self._lock:
                if len(self._model_ids) >= 16:
                    self._model_ids.clear()
                self._model_ids[id(embeddings)] = known
        return known[1]

    def key(self, text: str, embeddings: Embeddings) -> str:
        """The fingerprint of ``text`` for ``embeddings``: ``<model id>:<sha256 hex>``."""
        return f"{self.model(embeddings)}:{text_digest(text)}"

    def remember(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """Keep ``vectors`` (SHA-256 hex -> vector) of ``model`` in memory (LRU)."""
        with self._lock:
            for digest, vector in vectors.items():
                key = (model, digest)
                old = self._memory.pop(key, None)
                if old is not None:
                    self._memory_used -= old.nbytes
                self._memory[key] = vector
                self._memory_used += vector.nbytes
            while self._memory and self._memory_used > self.memory_bytes:
                _, dropped = self._memory.popitem(last=False)
                self._memory_used -= dropped.nbytes

    def recall(self, model: str, digests: Iterable[str]) -> dict[str, Vector]:
        """The vectors of ``digests`` in memory; missing ones left out."""
        found: dict[str, Vector] = {}
        with self._lock:
            for digest in digests:
                vector = self._memory.get((model, digest))
                if vector is not None:
                    self._memory.move_to_end((model, digest))
                    found[digest] = vector
        return found

    @staticmethod
    def _checked(
        embeddings: Embeddings, texts: list[str], vectors: list[list[float]]
    ) -> list[Vector]:
        if len(vectors) != len(texts):
            raise ToolSearchConfigError(
                f"{type(embeddings).__name__}.embed_documents returned {len(vectors)} "
                f"vectors for {len(texts)} texts"
            )
        return [np.asarray(v, dtype=np.float32) for v in vectors]

    def _call(self, embeddings: Embeddings, texts: list[str]) -> Logic[dict[str, Vector]]:
        raw = yield Effect(
            functools.partial(embeddings.embed_documents, texts),
            functools.partial(embeddings.aembed_documents, texts),
        )
        vectors = self._checked(embeddings, texts, raw)
        return dict(zip((text_digest(t) for t in texts), vectors, strict=True))

    def _embed(
        self,
        texts: Sequence[str],
        embeddings: Embeddings,
        persist: bool,
        fresh_out: dict[str, Vector] | None,
    ) -> Logic[npt.NDArray[np.float32]]:
        model = self.model(embeddings)
        digests = [text_digest(t) for t in texts]
        unique = dict(zip(digests, texts, strict=True))
        found = self.recall(model, unique)
        stored: dict[str, Vector] = {}
        persist = persist and self.tier is not None
        if persist and len(found) < len(unique):
            try:
                stored = yield _effect(
                    self.tier, "get", model, [d for d in unique if d not in found]
                )
            except Exception as exc:  # a cache outage must not stop the index build
                self._failures.failed(exc)
        found.update(stored)
        todo = [t for d, t in unique.items() if d not in found]
        fresh = (yield from self._call(embeddings, todo)) if todo else {}
        sizes = {v.size for v in (*found.values(), *fresh.values())}
        if len(sizes) > 1 and found:  # cached vectors of another size: this model changed
            found, stored = {}, {}
            fresh = yield from self._call(embeddings, list(unique.values()))
            sizes = {v.size for v in fresh.values()}
        if len(sizes) > 1:
            raise ToolSearchConfigError("the embedding model returned vectors of different sizes")
        if persist and fresh:
            try:
                yield _effect(self.tier, "put", model, fresh)
            except Exception as exc:  # a cache outage must not stop the index build
                self._failures.failed(exc)
        self.remember(model, {**stored, **fresh})
        if fresh_out is not None:
            fresh_out.update(fresh)
        with self._lock:
            self.misses += len(fresh)
            self.loaded += len(stored)
            self.hits += len(texts) - len(fresh)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        every = {**found, **fresh}
        stacked: npt.NDArray[np.float32] = np.vstack([every[d] for d in digests])
        return stacked

    def embed(
        self,
        texts: Sequence[str],
        embeddings: Embeddings,
        *,
        persist: bool = True,
        fresh: dict[str, Vector] | None = None,
    ) -> npt.NDArray[np.float32]:
        """Vectors of ``texts``: one ``embed_documents`` call with the texts found nowhere.

        Args:
            texts: The texts (a repeated text is embedded once).
            embeddings: The model.
            persist: Read and write the persistent tier (``False``: memory only).
            fresh: Filled with the vectors the model made (SHA-256 hex -> vector).

        Returns:
            ``float32`` array of shape ``(len(texts), dim)``.

        Raises:
            ToolSearchConfigError: (a ``ValueError``) If the model returns a
                different number of vectors or vectors of different sizes.
        """
        return drive(self._embed(texts, embeddings, persist, fresh))

    async def aembed(
        self,
        texts: Sequence[str],
        embeddings: Embeddings,
        *,
        persist: bool = True,
        fresh: dict[str, Vector] | None = None,
    ) -> npt.NDArray[np.float32]:
        """:meth:`embed` through ``aembed_documents`` and the tier's ``aget`` / ``aput``."""
        return await adrive(self._embed(texts, embeddings, persist, fresh))

    def query(self, query: str, embeddings: Embeddings) -> Vector | None:
        """The cached (unit-length) vector of ``query`` for ``embeddings``, if any."""
        key = (self.model(embeddings), query)
        with self._lock:
            vector = self._queries.get(key)
            if vector is not None:
                self._queries.move_to_end(key)
            return vector

    def remember_query(self, query: str, embeddings: Embeddings, vector: Vector) -> None:
        """Keep ``vector`` for ``query`` (not for queries over 2,000 characters)."""
        if len(query) > _MAX_CACHED_QUERY_CHARS or self.query_cache_size == 0:
            return
        with self._lock:
            self._queries[(self.model(embeddings), query)] = vector
            while len(self._queries) > self.query_cache_size:
                self._queries.popitem(last=False)


def default_cache(store: LangGraphStore | None = None) -> EmbeddingCache:
    """The cache of ``embeddings=``: ``store`` if given, else the default file (or memory)."""
    if store is not None:
        return EmbeddingCache(StoreVectorCache(store))
    return EmbeddingCache(VectorFile() if default_cache_dir() is not None else None)
