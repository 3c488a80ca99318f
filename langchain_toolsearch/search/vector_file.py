"""Tool vectors in a local cache file: one file per embedding model, written whole, bounded.

:class:`VectorFile` is the persistent tier of
:class:`~langchain_toolsearch.search.vector_cache.EmbeddingCache` when no
store is given (every process of this user on this machine).

Location (:func:`default_cache_dir`): ``$TOOLSEARCH_VECTOR_CACHE`` (``off``,
``none``, ``0`` or empty: no file), else ``$XDG_CACHE_HOME`` or ``~/.cache``
(Linux), ``~/Library/Caches`` (macOS), ``%LOCALAPPDATA%`` (Windows), then
``langchain-toolsearch/vectors``; mode ``0o700``; one file per model,
``<sha256(model id)[:24]>.vectors``.

Format (little-endian): ``TSVEC1`` and a newline, a 4-byte header length, the JSON header
``{"model", "dim", "count"}``, ``count`` raw SHA-256 digests (the keys),
``count x dim`` ``float32``, and the SHA-256 of all that. A file failing a
check is ignored with a WARNING and replaced by the next write.

A write re-reads the file, merges, writes a temporary file and
``os.replace`` s it: readers see the old or the new file; of two writers the
last rename wins. At most ``max_bytes`` per file (256 MiB: 170,000 vectors
of 384 floats); the oldest written go first.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import struct
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from langchain_toolsearch.errors import ToolSearchConfigError

__all__ = ["CACHE_ENV", "DEFAULT_MAX_BYTES", "VectorFile", "default_cache_dir"]

logger = logging.getLogger(__name__)

CACHE_ENV = "TOOLSEARCH_VECTOR_CACHE"
"""Environment variable: the cache folder, or ``off`` for none."""
DEFAULT_MAX_BYTES = 256 * 2**20
"""Most bytes of one model's cache file."""
_MAGIC = b"TSVEC1\n"
_DIGEST = 32
_OFF = frozenset({"", "off", "none", "0", "false", "no"})

Vector = npt.NDArray[np.float32]


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


class _Corrupt(ValueError):
    """A cache file that fails a check."""


def _parse(data: bytes, model: str) -> tuple[list[bytes], npt.NDArray[np.float32]]:
    """Digests and vectors of one file's bytes; raises :class:`_Corrupt` naming the check."""
    if len(data) < len(_MAGIC) + 4 + _DIGEST or not data.startswith(_MAGIC):
        raise _Corrupt("not a vector cache file (bad magic or too short)")
    body, checksum = data[:-_DIGEST], data[-_DIGEST:]
    if hashlib.sha256(body).digest() != checksum:
        raise _Corrupt("checksum mismatch (truncated or changed)")
    start = len(_MAGIC) + 4
    (size,) = struct.unpack("<I", data[len(_MAGIC) : start])
    try:
        header = json.loads(body[start : start + size])
        count, dim, owner = int(header["count"]), int(header["dim"]), str(header["model"])
    except (ValueError, KeyError, TypeError) as exc:
        raise _Corrupt(f"bad header ({exc})") from exc
    if owner != model:
        raise _Corrupt(f"written for another model ({owner!r})")
    keys_at = start + size
    values_at = keys_at + count * _DIGEST
    if count < 0 or dim < 0 or len(body) != values_at + count * dim * 4:
        raise _Corrupt("sizes do not match the header")
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

    Args:
        directory: The cache folder; :func:`default_cache_dir` when omitted.
        max_bytes: Most bytes of one model's file (older vectors go first).

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If ``max_bytes`` is below
            4 KiB, or no folder is given while ``$TOOLSEARCH_VECTOR_CACHE``
            turns the default off.
    """

    def __init__(
        self, directory: str | os.PathLike[str] | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES
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
        stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        known = self._read.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            keys, matrix = _parse(path.read_bytes(), model)
        except FileNotFoundError:
            return {}
        except (OSError, _Corrupt) as exc:
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
        with self._lock:
            merged = {k: v for k, v in self._load(model).items() if v.size == dim}
            for key in fresh:  # re-written vectors move to the young end
                merged.pop(key, None)
            merged.update(fresh)
            room = max(1, (self.max_bytes - 1024) // (_DIGEST + 4 * dim))
            keys = list(merged)[-room:]
            matrix = np.vstack([merged[k] for k in keys]).reshape(len(keys), dim)
            self._write(self.path(model), _serialise(model, keys, matrix))

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
