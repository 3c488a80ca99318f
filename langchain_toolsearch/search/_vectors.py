"""Tool and query embeddings kept by content fingerprint, so a library is embedded once.

:class:`EmbeddingCache` answers "the vectors of these tool texts for this
model" from one tier, else the model:

1. a persistent tier shared by processes: a LangGraph ``BaseStore``
   (:class:`StoreVectorCache`), a LangChain ``ByteStore``
   (:class:`ByteStoreVectors`), a local file (:class:`VectorFile`); without
   one, or for what is not persisted (a request's own tools), this
   process's memory (LRU, bounded by ``memory_bytes``);
2. the model: one ``embed_documents`` call with the texts found nowhere,
   whose vectors are then written to that tier.

The fingerprint of a tool's vector is the SHA-256 of its embedded text
(:func:`~langchain_toolsearch.search._hybrid.document_text`) under the
model id (:func:`model_id`: class, model, endpoint, weights digest, size): a
changed tool has a new fingerprint and is embedded alone; another model,
endpoint or set of weights never reuses the vectors; embeddings the id cannot
name (``/process=``) are kept in this process's memory only. A persistent
tier that fails (a store down, a file unreadable or corrupt) is logged at
WARNING once per cause and skipped: the tools are embedded as without it.
Processes starting together on one tier embed each missing text once in all:
the one holding the tier's ``lease`` (``search/_lease.py``: SQLite and
PostgreSQL stores, the cache file) embeds, the others wait for its vectors.
The lease is named after the model and the set of missing texts: replicas
starting on one library take turns, other libraries embed meanwhile.

Query vectors: the last ``query_cache_size`` queries of at most 2,000
characters (LRU, per cache). :func:`default_cache` is the cache of ``embeddings=``.

The local file (:class:`VectorFile`, every process of this user on this
machine): :func:`default_cache_dir` is ``$TOOLSEARCH_VECTOR_CACHE`` (``off``,
``none``, ``0`` or empty: no file), else ``$XDG_CACHE_HOME`` or ``~/.cache``
(Linux), ``~/Library/Caches`` (macOS), ``%LOCALAPPDATA%`` (Windows), then
``langchain-toolsearch/vectors``; mode ``0o700``; one file per model,
``<sha256(model id)[:24]>.vectors``. Format (little-endian): ``TSVEC1`` and a
newline, a 4-byte header length, the JSON header ``{"model", "dim",
"count"}``, ``count`` raw SHA-256 digests (the keys), ``count x dim``
``float32``, and the SHA-256 of all that. A file failing a check is ignored
with a WARNING and replaced by the next write. A write re-reads the file,
merges, writes a temporary file and ``os.replace`` s it: readers see the old
or the new file; writers take turns on the file's write lock (a ``flock``,
POSIX), so none drops another's vectors, and writers that embed take turns
on the lease. At most ``max_bytes`` per file (256 MiB: 170,000 vectors of
384 floats); the oldest written go first; a larger file is refused from its
size (``stat``) before it is read.

The stores: :class:`ByteStoreVectors` keys ``<model id>:<sha256 hex>``,
values ``float32`` bytes. :class:`StoreVectorCache` (a LangGraph store,
shared by every worker and replica that uses it): namespace ``(*namespace,
<sha256(model id)[:32]>)`` (``("toolsearch", "vectors", ...)`` by default),
key: the SHA-256 (hex) of the text embedded for the tool, value: ``{"model":
<model id>, "dim": n, "vector": <base64 of n little-endian float32>}``,
written with ``index=False``. An item that does not decode to ``dim`` floats
of this model is ignored (the tool is embedded again and the item overwritten).
:class:`StoreEmbedder` takes the place of a store's own ``embeddings`` so the
store embeds a tool text only when no version of the store-served index
holds its vector yet.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import importlib.metadata
import itertools
import json
import logging
import os
import struct
import sys
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings
from langchain_core.stores import BaseStore as LangChainStore
from langchain_core.stores import ByteStore
from langgraph.store.base import BaseStore as LangGraphStore
from langgraph.store.base import GetOp, Item, Op, PutOp

from langchain_toolsearch._effects import Effect, Flow, Logic, adrive, arun_flow, drive, run_flow
from langchain_toolsearch._support import CauseLog, WeakIdentityMap, mask
from langchain_toolsearch.errors import CorruptVectorFileError, ToolSearchConfigError
from langchain_toolsearch.search import _lease

logger = logging.getLogger(__name__)

Vector = npt.NDArray[np.float32]


DEFAULT_MEMORY_BYTES = 128 * 2**20
"""Most bytes of tool vectors one cache keeps in memory."""
_MAX_CACHED_QUERY_CHARS = 2000  # longer queries are embedded each time, never cached
_MODEL_ATTRS = ("model_id", "model", "model_name", "deployment")
_SIZE_ATTRS = ("dimensions", "dimension", "size", "dims")
_ENDPOINT_ATTRS = ("base_url", "openai_api_base", "azure_endpoint", "endpoint", "api_base")
_LOCAL = "/process="
_TOKENS: WeakIdentityMap[int] = WeakIdentityMap(size=4096)
_COUNT = itertools.count()


@runtime_checkable
class VectorTier(Protocol):
    """A persistent place for tool vectors, keyed by model id and text digest.

    A tier may also have a ``lease`` attribute (a ``search._lease.Lease``):
    processes starting together then embed each missing text once in all.
    """

    def get(self, model: str, digests: Iterable[str]) -> dict[str, Vector]:
        """The stored vectors of ``digests`` (SHA-256 hex); missing ones left out."""
        ...

    def put(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """Store ``vectors`` (SHA-256 hex -> vector)."""
        ...


BATCH = 256
"""Most texts per ``embed_documents`` call: a model's Python lists of floats for 10,000
texts would otherwise all live at once (0.15 GB more at the peak of a first start)."""


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


def weights_digest(path: str) -> str:
    """SHA-256 (first 32 hex) of a local model's files (a file or a folder): names, sizes, bytes.

    Read once per process while the files' names, sizes and modification times stay.
    """
    root = Path(path)
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
    stats = ((f.relative_to(root).as_posix(), f.stat()) for f in files)
    return _weights_digest(path, tuple((n, s.st_size, s.st_mtime_ns) for n, s in stats))


@functools.lru_cache(maxsize=16)
def _weights_digest(path: str, files: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, size, _ in files:
        digest.update(f"{name}\0{size}\0".encode())
        with (Path(path) / name).open("rb") as handle:
            while block := handle.read(2**20):
                digest.update(block)
    return digest.hexdigest()[:32]


def _token(obj: object) -> int:
    """A number for ``obj`` unique in this process while it lives (``id`` is reused after)."""
    known = _TOKENS.get(obj)
    if known is None:
        known = next(_COUNT)
        _TOKENS.put(obj, known)
    return known


def model_id(embeddings: Embeddings) -> str:
    """What names ``embeddings``' vectors in the caches: class, model, endpoint, weights, size.

    ``<module>.<class>:<model>``, the model being the first string of
    ``model_id``, ``model``, ``model_name``, ``deployment`` (a path in an
    installed package: ``<path in site-packages>@<version>``; another local
    file or folder: its name and ``weights=`` the digest of its files,
    :func:`weights_digest`), then ``/<attr>=<value>`` per other string
    ``base_url``, ``openai_api_base``, ``azure_endpoint``, ``endpoint``,
    ``api_base``, model attribute or ``weights_digest`` other than the class's
    pydantic field default (credentials masked), per int
    ``dimensions`` / ``dimension`` / ``size`` / ``dims`` and per
    ``encode_kwargs`` / ``query_encode_kwargs`` (JSON). Embeddings naming none
    of model, weights or size end in ``/process=<pid>.<object number>``: their
    vectors stay in this process's memory.
    """
    model = next(
        (
            value
            for attr in _MODEL_ATTRS
            if isinstance(value := getattr(embeddings, attr, None), str) and value
        ),
        "",
    )
    portable, weights = _portable(model), ""
    if portable == model and model and os.path.exists(model):  # local weights: by content
        portable, weights = Path(model).name, weights_digest(model)
    parts = [f"{type(embeddings).__module__}.{type(embeddings).__qualname__}:{portable}"]
    if weights:
        parts.append(f"weights={weights}")
    fields = getattr(type(embeddings), "model_fields", {})  # a class default names nothing
    for attr in (*_ENDPOINT_ATTRS, *_MODEL_ATTRS, "weights_digest"):
        value, default = getattr(embeddings, attr, None), getattr(fields.get(attr), "default", None)
        if isinstance(value, str) and value and value not in (model, default):
            parts.append(f"{attr}={mask(value)}")
    for attr in _SIZE_ATTRS:
        size = getattr(embeddings, attr, None)
        if isinstance(size, int) and not isinstance(size, bool):
            parts.append(f"{attr}={size}")
    for attr in ("encode_kwargs", "query_encode_kwargs"):
        settings = getattr(embeddings, attr, None)
        if isinstance(settings, dict) and settings:
            parts.append(f"{attr}={json.dumps(settings, sort_keys=True, default=str)}")
    if not model and len(parts) == 1:  # nothing names this model beyond its class
        parts.append(f"{_LOCAL}{os.getpid()}.{_token(embeddings)}")
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
    """Tool vectors by content fingerprint in one tier: a persistent one, else memory.

    Args:
        store: The persistent tier: a LangGraph ``BaseStore``, a
            :class:`~langchain_toolsearch.search.VectorFile`, a
            LangChain ``ByteStore``, any :class:`VectorTier`, or ``None``
            (memory only). With a tier, memory keeps only what is not
            persisted (a request's own tools).
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
        vectors: list[Vector] = []
        for start in range(0, len(texts), BATCH):  # floats become arrays batch by batch
            batch = texts[start : start + BATCH]
            raw = yield Effect.method(embeddings, "embed_documents", batch)
            vectors.extend(self._checked(embeddings, batch, raw))
        return dict(zip((text_digest(t) for t in texts), vectors, strict=True))

    def embed_logic(
        self,
        texts: Sequence[str],
        embeddings: Embeddings,
        persist: bool,
        fresh_out: dict[str, Vector] | None = None,
    ) -> Logic[npt.NDArray[np.float32]]:
        """:meth:`embed` written once: the tier's and the model's calls are awaited."""
        model = self.model(embeddings)
        digests = [text_digest(t) for t in texts]
        unique = dict(zip(digests, texts, strict=True))
        persist = persist and self.tier is not None and _LOCAL not in model  # shared
        found = {} if persist else self.recall(model, unique)  # one tier: the tier or memory
        stored: dict[str, Vector] = {}
        if persist and unique:
            try:
                stored = yield _effect(self.tier, "get", model, list(unique))
            except Exception as exc:  # a cache outage must not stop the index build
                self._failures.failed(exc)
        found.update(stored)
        todo = {d: t for d, t in unique.items() if d not in found}

        def settled() -> Logic[bool]:  # what another process stored while this one waited
            try:
                more = yield _effect(self.tier, "get", model, list(todo))
            except Exception as exc:  # a cache outage must not stop the index build
                self._failures.failed(exc)
                return False
            stored.update(more)
            found.update(more)
            for digest in more:
                todo.pop(digest, None)
            return not todo

        def fill() -> Logic[dict[str, Vector]]:
            fresh = (yield from self._call(embeddings, list(todo.values()))) if todo else {}
            sizes = {v.size for v in (*found.values(), *fresh.values())}
            if len(sizes) > 1 and found:  # cached vectors of another size: this model changed
                found.clear()
                stored.clear()
                fresh = yield from self._call(embeddings, list(unique.values()))
                sizes = {v.size for v in fresh.values()}
            if len(sizes) > 1:
                raise ToolSearchConfigError("the embedding model returned vectors of mixed sizes")
            if persist and fresh:
                try:
                    yield _effect(self.tier, "put", model, fresh)
                except Exception as exc:  # a cache outage must not stop the index build
                    self._failures.failed(exc)
            return fresh

        if todo and persist:  # one process of the fleet embeds them (search/_lease.py)
            lease = getattr(self.tier, "lease", None)
            name = _lease.lease_name("vectors", model, *sorted(todo))
            fresh = yield from _lease.exclusive(lease, name, fill(), settled)
        else:
            fresh = yield from fill()
        if not persist:
            self.remember(model, fresh)
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
        """Vectors of ``texts``: the texts found nowhere embedded `BATCH` at a time.

        Args:
            texts: The texts (a repeated text is embedded once).
            embeddings: The model.
            persist: Read and write the persistent tier (``False``: memory only, as
                without a tier).
            fresh: Filled with the vectors the model made (SHA-256 hex -> vector).

        Returns:
            ``float32`` array of shape ``(len(texts), dim)``.

        Raises:
            ToolSearchConfigError: (a ``ValueError``) If the model returns a
                different number of vectors or vectors of different sizes.
        """
        return drive(self.embed_logic(texts, embeddings, persist, fresh))

    async def aembed(
        self,
        texts: Sequence[str],
        embeddings: Embeddings,
        *,
        persist: bool = True,
        fresh: dict[str, Vector] | None = None,
    ) -> npt.NDArray[np.float32]:
        """:meth:`embed` through ``aembed_documents`` and the tier's ``aget`` / ``aput``."""
        return await adrive(self.embed_logic(texts, embeddings, persist, fresh))

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


CACHE_ENV = "TOOLSEARCH_VECTOR_CACHE"
"""Environment variable: the cache folder, or ``off`` for none."""
DEFAULT_MAX_BYTES = 256 * 2**20
"""Most bytes of one model's cache file."""
_MAGIC = b"TSVEC1\n"
_DIGEST = 32
_OFF = frozenset({"", "off", "none", "0", "false", "no"})


def default_cache_dir() -> Path | None:
    """The cache folder (module doc); ``None`` when ``$TOOLSEARCH_VECTOR_CACHE`` turns it off."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip().lower() in _OFF else Path(value).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
    return base / "langchain-toolsearch" / "vectors"


def _parse(data: bytes, model: str) -> tuple[list[bytes], npt.NDArray[np.float32]]:
    """Digests and vectors of one file's bytes; raises naming the check that failed."""
    if len(data) < len(_MAGIC) + 4 + _DIGEST or not data.startswith(_MAGIC):
        raise CorruptVectorFileError("not a vector cache file (bad magic or too short)")
    body, checksum = data[:-_DIGEST], data[-_DIGEST:]
    if hashlib.sha256(body).digest() != checksum:
        raise CorruptVectorFileError("checksum mismatch (truncated or changed)")
    start = len(_MAGIC) + 4
    (size,) = struct.unpack("<I", data[len(_MAGIC) : start])
    try:
        header = json.loads(body[start : start + size])
        count, dim, owner = int(header["count"]), int(header["dim"]), str(header["model"])
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptVectorFileError(f"bad header ({exc})") from exc
    if owner != model:
        raise CorruptVectorFileError(f"written for another model ({owner!r})")
    keys_at = start + size
    values_at = keys_at + count * _DIGEST
    if count < 0 or dim < 0 or len(body) != values_at + count * dim * 4:
        raise CorruptVectorFileError("sizes do not match the header")
    keys = [body[i : i + _DIGEST] for i in range(keys_at, values_at, _DIGEST)]
    matrix = np.frombuffer(body, dtype="<f4", count=count * dim, offset=values_at)
    return keys, matrix.reshape(count, dim).astype(np.float32)


def _serialise(model: str, keys: Sequence[bytes], matrix: npt.NDArray[np.float32]) -> bytes:
    header = json.dumps({"model": model, "dim": int(matrix.shape[1]), "count": len(keys)})
    raw = header.encode("utf-8")
    body = b"".join(
        [_MAGIC, struct.pack("<I", len(raw)), raw, *keys, matrix.astype("<f4").tobytes()]
    )
    return body + hashlib.sha256(body).digest()


class VectorFile:
    """Tool vectors by content digest in one local file per model (module doc; thread-safe).

    Workload: a second start of a hybrid index (a new process, the same
    tools): no tool is embedded (``make bench``, "Speed paths, on and off").

    Args:
        directory: The cache folder; :func:`default_cache_dir` when omitted.
        max_bytes: Most bytes of one model's file (older vectors go first); a
            larger file is refused from its size, unread (a WARNING once).
        lease_seconds: How long a process may hold the file's lease while it
            embeds (``search/_lease.py``: a ``flock`` freed when it dies).

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If ``max_bytes`` is below
            4 KiB, or no folder is given while ``$TOOLSEARCH_VECTOR_CACHE``
            turns the default off.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        lease_seconds: float = _lease.LEASE_SECONDS,
    ) -> None:
        if max_bytes < 4096:
            raise ToolSearchConfigError(f"max_bytes must be at least 4096, got {max_bytes}")
        folder = Path(directory) if directory is not None else default_cache_dir()
        if folder is None:
            raise ToolSearchConfigError(
                f"${CACHE_ENV} turns the vector cache file off; pass a directory"
            )
        self.directory = folder
        self.max_bytes = max_bytes
        self.lease = _lease.FileLease(folder, lease_seconds) if sys.platform != "win32" else None
        self._lock = threading.Lock()
        self._read: dict[Path, tuple[tuple[int, int, int], dict[bytes, Vector]]] = {}
        self._warned: set[tuple[Path, str]] = set()

    def __repr__(self) -> str:
        return f"VectorFile({str(self.directory)!r})"

    def path(self, model: str) -> Path:
        """The file of ``model``'s vectors."""
        return self.directory / f"{hashlib.sha256(model.encode()).hexdigest()[:24]}.vectors"

    def _warn(self, path: Path, reason: str) -> None:
        if (path, reason) not in self._warned:
            self._warned.add((path, reason))
            logger.warning(
                "tool search: ignoring the vector cache file %s (%s); it is rebuilt "
                "on the next write",
                path,
                reason,
            )

    def _load(self, model: str) -> dict[bytes, Vector]:
        """The file's vectors in file order (oldest first); ``{}`` if missing or corrupt."""
        path = self.path(model)
        try:
            stat = path.stat()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self._warn(path, f"{type(exc).__name__}: {exc}")
            return {}
        if stat.st_size > self.max_bytes:  # refused before reading a byte
            self._warn(path, f"too large: {stat.st_size} bytes > max_bytes {self.max_bytes}")
            return {}
        stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        known = self._read.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            keys, matrix = _parse(path.read_bytes(), model)
        except FileNotFoundError:
            return {}
        except (OSError, CorruptVectorFileError) as exc:
            self._warn(path, str(exc))
            return {}
        vectors = dict(zip(keys, matrix, strict=True))
        self._read[path] = (stamp, vectors)
        return vectors

    def get(self, model: str, digests: Iterable[str]) -> dict[str, Vector]:
        """The stored vectors of ``digests`` (SHA-256 hex) for ``model``; missing ones left out."""
        with self._lock:
            stored = self._load(model)
        found: dict[str, Vector] = {}
        for digest in digests:
            vector = stored.get(bytes.fromhex(digest))
            if vector is not None:
                found[digest] = vector
        return found

    def put(self, model: str, vectors: Mapping[str, Vector]) -> None:
        """Add ``vectors`` (SHA-256 hex -> vector, one size) to ``model``'s file (module doc).

        Raises:
            OSError: If the folder or file cannot be written.
        """
        if not vectors:
            return
        fresh = {bytes.fromhex(d): np.asarray(v, dtype=np.float32) for d, v in vectors.items()}
        dim = next(iter(fresh.values())).size
        path = self.path(model)
        with self._lock, _lease.file_locked(path.with_name(f".{path.name}.lock")):
            merged = {k: v for k, v in self._load(model).items() if v.size == dim}
            for key in fresh:  # re-written vectors move to the young end
                merged.pop(key, None)
            merged.update(fresh)
            room = max(1, (self.max_bytes - 1024) // (_DIGEST + 4 * dim))
            keys = list(merged)[-room:]
            matrix = np.vstack([merged[k] for k in keys]).reshape(len(keys), dim)
            self._write(path, _serialise(model, keys, matrix))

    def _write(self, path: Path, data: bytes) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".vectors")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        self._read.pop(path, None)


VECTOR_NAMESPACE: tuple[str, ...] = ("toolsearch", "vectors")
"""Base namespace of the vectors (one namespace per model below it)."""
_BATCH = 500


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

    Workload: a second start of a hybrid index over the same store: no tool
    is embedded (``make bench``, "Speed paths, on and off").

    Sync callers use :meth:`get` / :meth:`put` (the store's ``batch``), async
    ones :meth:`aget` / :meth:`aput` (``abatch``); a store flow can ``yield
    from`` :meth:`get_flow` / :meth:`put_flow`. 500 ops per batch.

    Args:
        store: Any LangGraph store (it needs no vector index).
        namespace: Base namespace of the vectors.
        lease_seconds: How long a process may hold the store's lease while it
            embeds (``search/_lease.py``; SQLite and PostgreSQL stores).
    """

    def __init__(
        self,
        store: LangGraphStore,
        *,
        namespace: tuple[str, ...] = VECTOR_NAMESPACE,
        lease_seconds: float = _lease.LEASE_SECONDS,
    ) -> None:
        self.store = store
        self.base = tuple(namespace)
        self.lease = _lease.store_lease(store, lease_seconds)

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
        store: Any ``LangGraphStore[str, bytes]`` (``LocalFileStore``, Redis...).
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


class StoreEmbedder(Embeddings):
    """A store's embedding model behind a tool-vector cache (module doc).

    The store calls it inside its own ``batch``, so it reads and writes
    memory only; a sync reads the stored vectors of the texts it will write
    first (:meth:`load_flow`) and saves the ones the model made after
    (:meth:`save_flow`). Other texts (queries, other items) are never saved.

    Args:
        model: The store's own embedding model.
        tier: Where vectors persist (the same store).

    Attributes:
        cache: Vectors in memory (``cache.misses``: texts the model embedded).
    """

    def __init__(self, model: Embeddings, tier: StoreVectorCache) -> None:
        self.model = model
        self.tier = tier
        self.cache = EmbeddingCache(None)
        self._expected: set[str] = set()
        self._pending: dict[str, Vector] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"StoreEmbedder({type(self.model).__name__})"

    def _keep(self, fresh: dict[str, Vector]) -> None:
        with self._lock:
            self._pending.update((d, v) for d, v in fresh.items() if d in self._expected)

    def _embed(self, texts: list[str]) -> Logic[list[list[float]]]:
        fresh: dict[str, Vector] = {}
        vectors = yield from self.cache.embed_logic(texts, self.model, False, fresh)
        self._keep(fresh)
        out: list[list[float]] = vectors.tolist()
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors of ``texts``; the model embeds only those not in memory."""
        return drive(self._embed(texts))

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """:meth:`embed_documents` through the model's ``aembed_documents``."""
        return await adrive(self._embed(texts))

    def embed_query(self, text: str) -> list[float]:
        """The model's vector of ``text``."""
        return self.model.embed_query(text)

    async def aembed_query(self, text: str) -> list[float]:
        """:meth:`embed_query` through the model's ``aembed_query``."""
        return await self.model.aembed_query(text)

    def load_flow(self, texts: Sequence[str]) -> Flow[None]:
        """Read the stored vectors of ``texts`` missing from memory into it."""
        model = self.cache.model(self.model)
        digests = [text_digest(t) for t in texts]
        with self._lock:
            self._expected.update(digests)
        missing = [d for d in digests if d not in self.cache.recall(model, digests)]
        if missing:
            self.cache.remember(model, (yield from self.tier.get_flow(model, missing)))

    def save_flow(self, texts: Sequence[str]) -> Flow[None]:
        """Write the vectors of ``texts`` the model made since :meth:`load_flow`."""
        with self._lock:
            made = {}
            for digest in map(text_digest, texts):
                self._expected.discard(digest)
                if (vector := self._pending.pop(digest, None)) is not None:
                    made[digest] = vector
        if made:
            yield from self.tier.put_flow(self.cache.model(self.model), made)
