"""Leases: one process of a fleet does a shared piece of work (embedding new texts).

Replicas and workers starting together on one store or one cache file find
the same texts missing. :func:`exclusive` runs the work in the process that
claims the lease named after it; the others poll (from 15 ms, 1.5 times longer
each time, at most 0.5 s apart) until the work is visible (``settled``) or the
lease is free, then claim it in their turn and find nothing left to do: each
text is embedded once in all. A claim lasts ``seconds`` (:data:`LEASE_SECONDS`
by default); its holder renews it every third of that from a daemon thread
while it works and releases it when done, so a holder that died (``kill -9``)
loses it within ``seconds``. A waiter gives up after :data:`WAIT_LEASES`
times ``seconds`` (a hung holder) and does the work itself: work is then done
twice, never lost.

The primitives:

* SQLite (``SqliteStore``) and PostgreSQL (``PostgresStore``, on a
  connection or a pool; async code claims in a worker thread): a row
  ``(name, owner, expires)`` of the table ``toolsearch_leases`` in the store's
  database (created on first use; a refusal for want of ``CREATE`` is kept
  and not asked again), claimed and renewed by one ``INSERT ...
  ON CONFLICT DO UPDATE ... WHERE expires < now OR owner = me RETURNING`` in
  a short transaction (SQLite: ``BEGIN IMMEDIATE`` on the lease's own
  connection to the store's file, never under the store's lock; an
  in-memory database has no lease, only this process sees it): the store's
  own writes are never blocked while the holder embeds. Expiry is judged by
  the database's clock (PostgreSQL ``clock_timestamp()``, SQLite
  ``julianday('now')``, milliseconds), never the processes' clocks.
* The cache file (:class:`~langchain_toolsearch.search._vectors.VectorFile`):
  an exclusive ``fcntl.flock`` on ``.<name>.lock`` beside it, which the kernel
  frees when its holder dies (POSIX; none on Windows). Its writes take turns
  on their own ``flock`` (:func:`file_locked`, waited for), so writers of
  other libraries never drop each other's vectors.
* Any other store (``AsyncSqliteStore``, ``AsyncPostgresStore``,
  ``InMemoryStore``, a LangChain ``ByteStore``, a custom tier), or a lease
  that fails (logged once per cause): best effort, no coordination:
  processes starting together may each embed the same texts.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import socket
import sqlite3
import sys
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from langchain_toolsearch._effects import Effect, Logic
from langchain_toolsearch._support import CauseLog

if sys.platform != "win32":
    import fcntl

logger = logging.getLogger(__name__)
T = TypeVar("T")

LEASE_SECONDS = 15.0
"""How long a claim lasts unless its holder renews it (every third of it) or releases it."""
WAIT_LEASES = 40
"""A waiter embeds itself after this many lease durations (10 minutes by default)."""
_TABLE = "toolsearch_leases"
_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {_TABLE} (name TEXT PRIMARY KEY, owner TEXT NOT NULL, "
    "expires DOUBLE PRECISION NOT NULL)"
)
_CLAIM = (
    f"INSERT INTO {_TABLE} (name, owner, expires) VALUES (?, ?, NOW + ?) ON CONFLICT (name) DO "
    f"UPDATE SET owner = excluded.owner, expires = excluded.expires WHERE {_TABLE}.expires < NOW "
    f"OR {_TABLE}.owner = excluded.owner RETURNING owner"
)
_NOW = {  # seconds since 1970 by the database's clock
    False: "((julianday('now') - 2440587.5) * 86400.0)",
    True: "extract(epoch from clock_timestamp())::float8",
}
_RELEASE = f"DELETE FROM {_TABLE} WHERE name = ? AND owner = ?"
_FAILURES = CauseLog(
    logger, "tool search: the embedding lease failed (%s): %s; going on without it"
)
Statements = list[tuple[str, tuple[Any, ...]]]


class Lease(ABC):
    """A lease primitive (module doc): :meth:`claim` and :meth:`release`, sync and async.

    Attributes:
        seconds: How long a claim lasts.
    """

    def __init__(self, seconds: float = LEASE_SECONDS) -> None:
        self.seconds = seconds

    @abstractmethod
    def claim(self, name: str, owner: str) -> bool:
        """Take the lease ``name`` for ``owner`` unless another holds it; whether taken."""

    @abstractmethod
    def release(self, name: str, owner: str) -> None:
        """Give the lease ``name`` up if ``owner`` holds it."""

    async def aclaim(self, name: str, owner: str) -> bool:
        """:meth:`claim` in a worker thread."""
        return await asyncio.to_thread(self.claim, name, owner)

    async def arelease(self, name: str, owner: str) -> None:
        """:meth:`release` in a worker thread."""
        await asyncio.to_thread(self.release, name, owner)


class SqlLease(Lease):
    """A lease row in the database of a LangGraph SQLite or PostgreSQL store (module doc)."""

    def __init__(self, store: Any, seconds: float = LEASE_SECONDS) -> None:
        super().__init__(seconds)
        self.store = store
        self.postgres = ".postgres" in type(store).__module__
        self._ready = False
        self.path = "" if self.postgres else sqlite_path(store.conn)
        self._own: sqlite3.Connection | None = None  # SQLite: the lease's own connection
        self._lock = threading.Lock()
        self._denied: Exception | None = None

    def _statements(self, *pairs: tuple[str, tuple[Any, ...]]) -> Statements:
        todo = [] if self._ready else [(_CREATE, ())]
        pairs = tuple((sql.replace("NOW", _NOW[self.postgres]), args) for sql, args in pairs)
        if self.postgres:  # concurrent CREATE TABLE IF NOT EXISTS can collide in PostgreSQL
            todo = [("SELECT pg_advisory_xact_lock(7243911)", ()), *todo] if todo else []
            return [*todo, *((sql.replace("?", "%s"), args) for sql, args in pairs)]
        return [*todo, *pairs]

    def _run(self, statements: Statements) -> list[Any]:
        if self._denied is not None:  # no permission to create the table: not asked again
            raise self._denied
        try:
            rows = self._execute(statements)
        except Exception as exc:
            if not self._ready and getattr(exc, "sqlstate", None) == "42501":
                self._denied = exc
            raise
        self._ready = True
        return rows

    def _execute(self, statements: Statements) -> list[Any]:
        conn = self.store.conn
        if self.postgres:
            pool = hasattr(conn, "getconn")
            held: AbstractContextManager[Any] = conn.connection() if pool else nullcontext(conn)
            with held as c, nullcontext() if pool else self.store.lock, c.transaction():
                cur = [c.execute(sql, args) for sql, args in statements][-1]
                rows = cur.fetchall() if cur.description else []
        else:
            with self._lock:
                if self._own is None:
                    self._own = sqlite3.connect(
                        self.path, isolation_level=None, check_same_thread=False, timeout=30
                    )
                conn = self._own
                conn.execute("BEGIN IMMEDIATE")
                try:  # each statement is idempotent: what ran is kept
                    rows = [conn.execute(sql, args).fetchall() for sql, args in statements][-1]
                finally:
                    conn.execute("COMMIT")
        return rows

    def claim(self, name: str, owner: str) -> bool:
        """Insert the row, take it over once expired, or extend ``owner``'s; whether held."""
        return bool(self._run(self._statements((_CLAIM, (name, owner, self.seconds)))))

    def release(self, name: str, owner: str) -> None:
        """Delete the row if ``owner`` holds it."""
        self._run(self._statements((_RELEASE, (name, owner))))


class FileLease(Lease):
    """An exclusive ``flock`` on ``<directory>/.<name>.lock`` (module doc; POSIX)."""

    def __init__(self, directory: Path, seconds: float = LEASE_SECONDS) -> None:
        super().__init__(seconds)
        self.directory = directory
        self._held: dict[tuple[str, str], int] = {}

    def claim(self, name: str, owner: str) -> bool:
        """Lock the file without waiting; whether locked (by ``owner`` already: ``True``)."""
        if (name, owner) in self._held:
            return True
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle = os.open(self.directory / f".{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            return False
        self._held[(name, owner)] = handle
        return True

    def release(self, name: str, owner: str) -> None:
        """Unlock (close) the file."""
        handle = self._held.pop((name, owner), None)
        if handle is not None:
            os.close(handle)


@contextmanager
def file_locked(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path``, waited for (POSIX; nothing on Windows)."""
    if sys.platform == "win32":
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # frees the lock


def sqlite_path(conn: Any) -> str:
    """The file of a SQLite connection's main database (``""``: in memory or temporary)."""
    rows = conn.execute("PRAGMA database_list").fetchall()
    return next((str(file) for _, db, file in rows if db == "main"), "")


def store_lease(store: Any, seconds: float = LEASE_SECONDS) -> Lease | None:
    """The lease of a LangGraph ``SqliteStore`` (on a file) or ``PostgresStore``; else ``None``."""
    module = type(store).__module__
    if module not in ("langgraph.store.sqlite.base", "langgraph.store.postgres.base"):
        return None
    try:
        lease = SqlLease(store, seconds)
    except sqlite3.Error as exc:  # e.g. read in another thread than the store's
        _FAILURES.failed(exc)
        return None
    return lease if lease.postgres or lease.path else None


def lease_name(*parts: str) -> str:
    """A lease name for the work on ``parts`` (SHA-256 hex, 32 characters)."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def _renewed(lease: Lease, name: str, owner: str) -> Callable[[], threading.Thread]:
    """Claim again every third of ``lease.seconds`` in a daemon thread; the call stopping it."""
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(lease.seconds / 3):
            try:
                lease.claim(name, owner)
            except Exception as exc:  # the lease then expires: another may do the work too
                _FAILURES.failed(exc)

    thread = threading.Thread(target=renew, name="toolsearch-lease", daemon=True)
    thread.start()

    def stopped() -> threading.Thread:  # to join: no renewal after the release
        stop.set()
        return thread

    return stopped


def _sleep(seconds: float) -> Effect[Any]:
    return Effect(partial(time.sleep, seconds), partial(asyncio.sleep, seconds))


def exclusive(
    lease: Lease | None, name: str, work: Logic[T], settled: Callable[[], Logic[bool]] | None = None
) -> Logic[T]:
    """``work`` run by one process of the fleet at a time (module doc).

    Args:
        lease: The lease primitive (``None``: ``work`` runs at once, best effort).
        name: The work's lease name.
        work: The work; it looks again for what is left when its turn comes.
        settled: Re-reads what other processes did while this one waited; ``True``:
            nothing is left, ``work`` runs without the lease.
    """
    owner, began = "", time.monotonic()
    if lease is not None:
        pause, deadline = 0.01, began + WAIT_LEASES * lease.seconds
        me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        claim = Effect(partial(lease.claim, name, me), partial(lease.aclaim, name, me))
    waited = False
    while lease is not None and not owner:
        try:
            owner = me if (yield claim) else ""
        except Exception as exc:  # a lease that fails must not stop the work
            _FAILURES.failed(exc)
            break
        if owner:  # what the previous holder finished before letting go
            if waited and settled is not None:
                yield from settled()
            break
        if time.monotonic() >= deadline:
            _FAILURES.failed(TimeoutError(f"lease {name} held after {deadline - began:.0f} s"))
            break
        pause = min(pause * 1.5, 0.5)
        yield _sleep(pause)
        waited = True
        if settled is not None and (yield from settled()):
            break
    stop_renewing = _renewed(lease, name, owner) if owner and lease is not None else None
    try:
        return (yield from work)
    finally:
        if stop_renewing is not None and lease is not None:
            thread = stop_renewing()
            yield Effect(thread.join, partial(asyncio.to_thread, thread.join))  # loop not blocked
            try:
                yield Effect(
                    partial(lease.release, name, owner), partial(lease.arelease, name, owner)
                )
            except Exception as exc:  # an unreleased lease expires
                _FAILURES.failed(exc)
