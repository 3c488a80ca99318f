"""Write guards: one writer at a time per stored record, across threads and processes.

`VersionedRecords` runs each write (save, publish, delete) as one store flow
(read the head, then write) inside the guard `write_guard` picks for its
store, built on that store's own guarantees through its public API:

* ``PostgresStore`` / ``AsyncPostgresStore``: one transaction on one of the
  store's connections (its ``conn`` under its ``lock``, or one taken from its
  pool) that first takes ``pg_advisory_xact_lock`` on the record; the flow's
  reads and writes run in that transaction (through a store built on that
  connection), so a crash writes nothing and the lock ends with the
  transaction.
* ``SqliteStore`` / ``AsyncSqliteStore`` on a file: ``BEGIN IMMEDIATE`` on an
  empty lock database beside it (``<file>-toolsearch-lock``), held while the
  flow runs; the flow's writes are one batch, which the store runs as one
  SQLite transaction. (The store's own connection cannot hold the lock: its
  ``batch`` opens a transaction of its own.)
* ``InMemoryStore`` and SQLite ``:memory:``: a lock in this process (no other
  process sees the data).
* any other store, or a PostgreSQL store in pipeline mode: the same
  in-process lock, and a `SingleWriterWarning` at the first write: writers in
  other processes are not serialised, run one writing process.

Waiting for a lock is bounded by ``timeout`` seconds (`WriteLockError`).
`WriteGuard.hold_store` holds a store-wide lock (used to serialise the stores'
own ``setup()``, whose migrations race when two processes open a new database).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import sqlite3
import threading
import time
import warnings
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar

from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch._internal.store_flow import Flow, arun_flow, run_flow
from langchain_toolsearch.errors import ToolSearchError

__all__ = [
    "LOCK_SUFFIX",
    "SingleWriterWarning",
    "WriteGuard",
    "WriteLockError",
    "write_guard",
]

T = TypeVar("T")

LOCK_SUFFIX = "-toolsearch-lock"
"""Appended to a SQLite store's file name to name its (empty) write-lock database."""


class WriteLockError(ToolSearchError, TimeoutError):
    """A record's write lock was not granted within the timeout, or could not be taken."""


class SingleWriterWarning(UserWarning):
    """The store gives no cross-process write lock: run one writing process."""


class WriteGuard:
    """Runs a store flow while no other writer of the same record runs.

    Not built directly: `write_guard` picks the subclass for a store.

    Args:
        store: The store the flows read and write.
        timeout: Seconds to wait for the lock before `WriteLockError`.
    """

    def __init__(self, store: BaseStore, timeout: float) -> None:
        self.store = store
        self.timeout = timeout

    def run(self, key: str, flow: Flow[T]) -> T:
        """Run ``flow`` under the write lock of ``key`` (sync flavour).

        Raises:
            WriteLockError: If the lock is not granted within ``timeout``.
        """
        raise NotImplementedError

    async def arun(self, key: str, flow: Flow[T]) -> T:
        """Async flavour of `run`."""
        raise NotImplementedError

    def hold_store(self) -> contextlib.AbstractContextManager[None]:
        """Hold a store-wide lock of the sync store (SQLite file, PostgreSQL); else nothing.

        Raises:
            WriteLockError: If the lock is not granted within ``timeout``.
        """
        return contextlib.nullcontext()

    def _late(self, what: str) -> WriteLockError:
        return WriteLockError(f"{what} not granted within {self.timeout:g} s; retry later")


# -- in this process ------------------------------------------------------------------

_LOCKS: weakref.WeakKeyDictionary[BaseStore, threading.Lock] = weakref.WeakKeyDictionary()
_WARNED: weakref.WeakSet[BaseStore] = weakref.WeakSet()
_REGISTRY = threading.Lock()


def _local_lock(store: BaseStore) -> threading.Lock:
    """The one in-process write lock of ``store`` (shared by every guard on it)."""
    with _REGISTRY:
        try:
            lock = _LOCKS.get(store)
            if lock is None:
                lock = _LOCKS[store] = threading.Lock()
        except TypeError:  # a store that cannot be weakly referenced: one lock per guard
            lock = threading.Lock()
        return lock


async def _acquire(lock: threading.Lock, timeout: float) -> bool:
    """Take ``lock`` without blocking the event loop (polls; cancel-safe)."""
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while not lock.acquire(blocking=False):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.02)
    return True


class _LocalGuard(WriteGuard):
    """An in-process lock per store; warns once when other processes may write too."""

    def __init__(self, store: BaseStore, timeout: float, *, warning: str | None) -> None:
        super().__init__(store, timeout)
        self._lock = _local_lock(store)
        self._warning = warning

    def _warn_once(self) -> None:
        if self._warning is None:
            return
        with _REGISTRY:
            try:
                if self.store in _WARNED:
                    return
                _WARNED.add(self.store)
            except TypeError:
                pass
        warnings.warn(self._warning, SingleWriterWarning, stacklevel=5)

    def run(self, key: str, flow: Flow[T]) -> T:
        self._warn_once()
        if not self._lock.acquire(timeout=self.timeout):
            raise self._late("the store's write lock")
        try:
            return run_flow(self.store, flow)
        finally:
            self._lock.release()

    async def arun(self, key: str, flow: Flow[T]) -> T:
        self._warn_once()
        if not await _acquire(self._lock, self.timeout):
            raise self._late("the store's write lock")
        try:
            return await arun_flow(self.store, flow)
        finally:
            self._lock.release()


# -- SQLite -----------------------------------------------------------------------------


class _SqliteGuard(WriteGuard):
    """``BEGIN IMMEDIATE`` on ``<database file>-toolsearch-lock`` while the flow runs."""

    def __init__(self, store: BaseStore, timeout: float, path: str) -> None:
        super().__init__(store, timeout)
        self.lock_path = path + LOCK_SUFFIX

    def _connect(self, timeout: float) -> sqlite3.Connection:
        try:
            return sqlite3.connect(
                self.lock_path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise WriteLockError(f"cannot open the write lock {self.lock_path!r}: {exc}") from None

    def _begin(self, conn: sqlite3.Connection) -> bool:
        """``BEGIN IMMEDIATE``; ``False`` if another writer holds the lock.

        Raises:
            WriteLockError: Any other SQLite error.
        """
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return False
            raise WriteLockError(f"write lock {self.lock_path!r}: {exc}") from None
        return True

    @contextlib.contextmanager
    def _held(self) -> Iterator[None]:
        with contextlib.closing(self._connect(self.timeout)) as conn:
            if not self._begin(conn):  # sqlite3 waited up to the timeout already
                raise self._late(f"the write lock {self.lock_path!r}")
            try:
                yield
            finally:
                conn.execute("ROLLBACK")

    @contextlib.asynccontextmanager
    async def _aheld(self) -> AsyncIterator[None]:
        with contextlib.closing(self._connect(0)) as conn:
            deadline = time.monotonic() + self.timeout
            delay = 0.001
            while not self._begin(conn):  # polled: the event loop is never blocked
                if time.monotonic() >= deadline:
                    raise self._late(f"the write lock {self.lock_path!r}")
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.05)
            try:
                yield
            finally:
                conn.execute("ROLLBACK")

    def run(self, key: str, flow: Flow[T]) -> T:
        with self._held():
            return run_flow(self.store, flow)

    def hold_store(self) -> contextlib.AbstractContextManager[None]:
        return self._held()

    async def arun(self, key: str, flow: Flow[T]) -> T:
        if not _native_async(self.store):  # SqliteStore has no abatch: run it in a thread
            return await asyncio.to_thread(self.run, key, flow)
        async with self._aheld():
            return await arun_flow(self.store, flow)


def _sqlite_file(rows: list[Any]) -> str:
    """The main database's file from ``PRAGMA database_list`` rows ("" if in memory)."""
    for row in rows:
        if row[1] == "main":
            return str(row[2] or "")
    return ""


# -- PostgreSQL -------------------------------------------------------------------------


def _lock_id(key: str) -> int:
    """A signed 64-bit advisory lock id for ``key``."""
    digest = hashlib.blake2b(f"langchain_toolsearch\x1f{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


_LOCK_SQL = "SELECT pg_advisory_xact_lock(%s)"
_TIMEOUT_SQL = "SELECT set_config('lock_timeout', %s, true)"


class _PostgresGuard(WriteGuard):
    """``PostgresStore``: the flow in one transaction holding the record's advisory lock."""

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        from psycopg import Connection

        store: Any = self.store
        if not isinstance(store.conn, Connection):  # a ConnectionPool
            with store.conn.connection(timeout=self.timeout) as conn:
                yield conn
            return
        if not store.lock.acquire(timeout=self.timeout):
            raise self._late("the store's connection")
        try:
            yield store.conn
        finally:
            store.lock.release()

    def run(self, key: str, flow: Flow[T]) -> T:
        from langgraph.store.postgres import PostgresStore
        from psycopg.errors import LockNotAvailable

        with self._connection() as conn, conn.transaction():
            conn.execute(_TIMEOUT_SQL, (f"{max(1, int(self.timeout * 1000))}ms",))
            try:
                conn.execute(_LOCK_SQL, (_lock_id(key),))
            except LockNotAvailable:
                raise self._late("the record's advisory lock") from None
            scoped = PostgresStore(conn, ttl=getattr(self.store, "ttl_config", None))
            return run_flow(scoped, flow)

    async def arun(self, key: str, flow: Flow[T]) -> T:
        return await asyncio.to_thread(self.run, key, flow)

    def hold_store(self) -> contextlib.AbstractContextManager[None]:
        return self._held_store()

    @contextlib.contextmanager
    def _held_store(self) -> Iterator[None]:
        lock = _lock_id("setup")
        with self._connection() as conn:
            # Polled, not waited for: migrations' CREATE INDEX CONCURRENTLY wait for every
            # open transaction, a waiting pg_advisory_lock included (a deadlock).
            deadline = time.monotonic() + self.timeout
            delay = 0.005
            while not _first(conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (lock,))):
                if time.monotonic() >= deadline:
                    raise self._late("the store's setup lock")
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (lock,))


class _AsyncPostgresGuard(WriteGuard):
    """``AsyncPostgresStore``: as `_PostgresGuard`, on the store's event loop."""

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[Any]:
        from psycopg import AsyncConnection

        store: Any = self.store
        if not isinstance(store.conn, AsyncConnection):  # an AsyncConnectionPool
            async with store.conn.connection(timeout=self.timeout) as conn:
                yield conn
            return
        try:
            await asyncio.wait_for(store.lock.acquire(), self.timeout)
        except TimeoutError:
            raise self._late("the store's connection") from None
        try:
            yield store.conn
        finally:
            store.lock.release()

    async def arun(self, key: str, flow: Flow[T]) -> T:
        from langgraph.store.postgres import AsyncPostgresStore
        from psycopg.errors import LockNotAvailable

        async with self._connection() as conn, conn.transaction():
            await conn.execute(_TIMEOUT_SQL, (f"{max(1, int(self.timeout * 1000))}ms",))
            try:
                await conn.execute(_LOCK_SQL, (_lock_id(key),))
            except LockNotAvailable:
                raise self._late("the record's advisory lock") from None
            scoped = AsyncPostgresStore(conn, ttl=getattr(self.store, "ttl_config", None))
            return await arun_flow(scoped, flow)

    def run(self, key: str, flow: Flow[T]) -> T:
        loop: asyncio.AbstractEventLoop = self.store.loop  # type: ignore[attr-defined]
        _not_on(loop, self.store)
        return asyncio.run_coroutine_threadsafe(self.arun(key, flow), loop).result()


def _not_on(loop: asyncio.AbstractEventLoop, store: BaseStore) -> None:
    """Refuse a sync call from the async store's own event loop (it would deadlock)."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        return
    if running is loop:
        msg = (
            f"synchronous writes to {type(store).__name__} from its own event loop would "
            "deadlock: use the async methods (asave, apublish, ...)"
        )
        raise asyncio.InvalidStateError(msg)


# -- choosing ---------------------------------------------------------------------------


def _native_async(store: BaseStore) -> bool:
    """Whether the store's ``abatch`` is its own (not the sync store's thread hop)."""
    from langgraph.store.base.batch import AsyncBatchedBaseStore

    return isinstance(store, AsyncBatchedBaseStore)


def _single_writer(store: BaseStore, why: str) -> _LocalGuard:
    return _LocalGuard(
        store,
        0.0,
        warning=(
            f"{type(store).__name__} {why}: ToolConfigStore serialises writers in this "
            "process only; run one writing process (concurrent writers in other processes "
            "can lose versions). Use PostgresStore, SqliteStore or InMemoryStore for a lock."
        ),
    )


def write_guard(store: BaseStore, *, timeout: float) -> WriteGuard:
    """The write guard for ``store`` (see the module docstring).

    Args:
        store: The store configurations are written to.
        timeout: Seconds a write waits for its lock.

    Returns:
        A `WriteGuard`; for a store this module does not know, one that
        serialises writers in this process and warns at the first write.
    """
    guard = _pick(store)
    guard.timeout = timeout
    return guard


def _pick(store: BaseStore) -> WriteGuard:
    if isinstance(store, InMemoryStore):
        return _LocalGuard(store, 0.0, warning=None)
    try:
        from langgraph.store.postgres import AsyncPostgresStore, PostgresStore
    except ImportError:
        pass
    else:
        if isinstance(store, PostgresStore | AsyncPostgresStore):
            if store.pipe is not None:
                return _single_writer(store, "in pipeline mode has no per-write transaction")
            if isinstance(store, PostgresStore):
                return _PostgresGuard(store, 0.0)
            return _AsyncPostgresGuard(store, 0.0)
    try:
        from langgraph.store.sqlite import SqliteStore
    except ImportError:
        pass
    else:
        if isinstance(store, SqliteStore):
            with store.lock:
                path = _sqlite_file(store.conn.execute("PRAGMA database_list").fetchall())
            return _SqliteGuard(store, 0.0, path) if path else _LocalGuard(store, 0.0, warning=None)
    try:
        from langgraph.store.sqlite.aio import AsyncSqliteStore
    except ImportError:
        pass
    else:
        if isinstance(store, AsyncSqliteStore):
            return _LazySqliteGuard(store, 0.0)
    return _single_writer(store, "has no write lock this package knows")


class _LazySqliteGuard(WriteGuard):
    """``AsyncSqliteStore``: finds its database file at the first write, then as SQLite."""

    def __init__(self, store: BaseStore, timeout: float) -> None:
        super().__init__(store, timeout)
        self._inner: WriteGuard | None = None

    async def _guard(self) -> WriteGuard:
        if self._inner is None:
            store: Any = self.store
            async with store.lock:
                cursor = await store.conn.execute("PRAGMA database_list")
                rows = list(await cursor.fetchall())
                await cursor.close()
            path = _sqlite_file(rows)
            self._inner = (
                _SqliteGuard(store, self.timeout, path)
                if path
                else _LocalGuard(store, self.timeout, warning=None)
            )
        self._inner.timeout = self.timeout
        return self._inner

    async def arun(self, key: str, flow: Flow[T]) -> T:
        return await (await self._guard()).arun(key, flow)

    def run(self, key: str, flow: Flow[T]) -> T:
        loop: asyncio.AbstractEventLoop = self.store.loop  # type: ignore[attr-defined]
        _not_on(loop, self.store)
        inner = asyncio.run_coroutine_threadsafe(self._guard(), loop).result()
        return inner.run(key, flow)


def _first(cursor: Any) -> Any:
    """The first column of a cursor's first row, whatever its row factory."""
    row = cursor.fetchone()
    return next(iter(row.values())) if isinstance(row, dict) else row[0]
