"""`ToolConfigStore` and its write guards: one writer at a time per record, across processes.

Each `VersionedRecords` write is one store flow in: PostgreSQL, a transaction holding the
record's ``pg_advisory_xact_lock``; SQLite on a file, ``BEGIN IMMEDIATE`` on an empty
``<file>-toolsearch-lock`` database; ``InMemoryStore``, SQLite ``:memory:``, an in-process lock;
others (or PostgreSQL in pipeline mode), that lock and a `SingleWriterWarning`. Waits are
bounded by ``timeout`` seconds (`WriteLockError`).

`open_store` opens the store a ``--store`` names (a PostgreSQL DSN, else a SQLite file;
default ``$TOOLSEARCH_CONFIG_STORE``, else ``toolsearch-config.sqlite``) and `setup_store`
runs its ``setup()`` under a store-wide lock when migrations are missing, so two processes
creating one database do not race in them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import os
import sqlite3
import threading
import time
import warnings
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch._effects import (
    Effect,
    Flow,
    Logic,
    adrive,
    arun_flow,
    drive,
    flow_logic,
    run_flow,
)
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch_editor._cli import DEFAULT_STORE, STORE_ENV
from langchain_toolsearch_editor._models import AgentToolConfig, parse_agent_config
from langchain_toolsearch_editor._records import T, VersionedRecords, shells
from langchain_toolsearch_editor._servers import MCPClientConfig, parse_mcp_client
from langchain_toolsearch_editor.errors import (
    ConfigCommandError,
    SingleWriterWarning,
    WriteLockError,
)

LOCK_SUFFIX = "-toolsearch-lock"
"""SQLite file name + this: the empty write-lock database."""


class WriteGuard:
    """Runs a store flow while no other writer of the record runs (`write_guard`)."""

    def __init__(self, store: BaseStore, timeout: float) -> None:
        self.store = store
        self.timeout = timeout

    def run(self, key: str, flow: Flow[T]) -> T:
        """Run ``flow`` under the write lock of ``key``; `WriteLockError` after ``timeout``."""
        raise NotImplementedError

    async def arun(self, key: str, flow: Flow[T]) -> T:
        """Async `run`."""
        raise NotImplementedError

    def hold_store(self) -> contextlib.AbstractContextManager[None]:
        """Hold a store-wide lock (SQLite file, PostgreSQL; else nothing); `WriteLockError`."""
        return contextlib.nullcontext()

    def _pg_timeout(self) -> str:
        return f"{max(1, int(self.timeout * 1000))}ms"

    def _late(self, what: str) -> WriteLockError:
        return WriteLockError(f"{what} not granted within {self.timeout:g} s; retry later")


_LOCKS: weakref.WeakKeyDictionary[BaseStore, threading.Lock] = weakref.WeakKeyDictionary()
_WARNED: weakref.WeakSet[BaseStore] = weakref.WeakSet()
_REGISTRY = threading.Lock()


def _local_lock(store: BaseStore) -> threading.Lock:
    with _REGISTRY:
        try:
            return _LOCKS.setdefault(store, threading.Lock())
        except TypeError:  # a store that cannot be weakly referenced: one lock per guard
            return threading.Lock()


def _polled(take: Callable[[], bool], timeout: float, delay: float, cap: float) -> Logic[bool]:
    """Whether ``take()`` succeeded within ``timeout`` seconds, retried with growing pauses."""
    deadline = time.monotonic() + timeout
    while not take():
        if time.monotonic() >= deadline:
            return False
        yield Effect(partial(time.sleep, delay), partial(asyncio.sleep, delay))
        delay = min(delay * 2, cap)
    return True


class _LocalGuard(WriteGuard):
    """An in-process lock per store; warns once when other processes may write too."""

    def __init__(self, store: BaseStore, timeout: float, why: str | None = None) -> None:
        super().__init__(store, timeout)
        self._lock = _local_lock(store)
        self._warning = why and (  # why the store has no cross-process lock
            f"{type(store).__name__} {why}: ToolConfigStore serialises writers in this "
            "process only; run one writing process (concurrent writers in other processes "
            "can lose versions). Use PostgresStore, SqliteStore or InMemoryStore for a lock."
        )

    def _warn_once(self) -> None:
        with _REGISTRY, contextlib.suppress(TypeError):
            if not self._warning or self.store in _WARNED:
                return
            _WARNED.add(self.store)
        if self._warning:
            warnings.warn(self._warning, SingleWriterWarning, stacklevel=7)

    def _locked(self, key: str, flow: Flow[T]) -> Logic[T]:
        self._warn_once()
        polled = _polled(partial(self._lock.acquire, blocking=False), self.timeout, 5e-4, 0.02)
        if not (
            yield Effect(partial(self._lock.acquire, timeout=self.timeout), lambda: adrive(polled))
        ):
            raise self._late("the store's write lock")
        try:
            return (yield from flow_logic(self.store, flow))
        finally:
            self._lock.release()

    run, arun = shells(_locked)


class _SqliteGuard(WriteGuard):
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
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return False
            raise WriteLockError(f"write lock {self.lock_path!r}: {exc}") from None
        return True

    @contextlib.contextmanager
    def hold_store(self) -> Iterator[None]:
        with contextlib.closing(self._connect(self.timeout)) as conn:
            if not self._begin(conn):  # sqlite3 waited up to the timeout already
                raise self._late(f"the write lock {self.lock_path!r}")
            try:
                yield
            finally:
                conn.execute("ROLLBACK")

    def run(self, key: str, flow: Flow[T]) -> T:
        with self.hold_store():
            return run_flow(self.store, flow)

    async def arun(self, key: str, flow: Flow[T]) -> T:
        if not _is(self.store, "langgraph.store.base.batch", "AsyncBatchedBaseStore"):  # no abatch
            return await asyncio.to_thread(self.run, key, flow)
        with contextlib.closing(self._connect(0)) as conn:
            if not await adrive(_polled(partial(self._begin, conn), self.timeout, 0.001, 0.05)):
                raise self._late(f"the write lock {self.lock_path!r}")
            try:
                return await arun_flow(self.store, flow)
            finally:
                conn.execute("ROLLBACK")


def _file_guard(store: BaseStore, timeout: float, rows: list[Any]) -> WriteGuard:
    path = next((str(row[2] or "") for row in rows if row[1] == "main"), "")
    return _SqliteGuard(store, timeout, path) if path else _LocalGuard(store, timeout)


def _lock_id(key: str) -> int:
    digest = hashlib.blake2b(f"langchain_toolsearch\x1f{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


_LOCK_SQL = "SELECT pg_advisory_xact_lock(%s)"
_TIMEOUT_SQL = "SELECT set_config('lock_timeout', %s, true)"


class _PostgresGuard(WriteGuard):
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
            conn.execute(_TIMEOUT_SQL, (self._pg_timeout(),))
            try:
                conn.execute(_LOCK_SQL, (_lock_id(key),))
            except LockNotAvailable:
                raise self._late("the record's advisory lock") from None
            scoped = PostgresStore(conn, ttl=getattr(self.store, "ttl_config", None))
            return run_flow(scoped, flow)

    async def arun(self, key: str, flow: Flow[T]) -> T:
        return await asyncio.to_thread(self.run, key, flow)

    @contextlib.contextmanager
    def hold_store(self) -> Iterator[None]:
        lock = _lock_id("setup")
        with self._connection() as conn:
            # Polled: CREATE INDEX CONCURRENTLY waits for a waiting pg_advisory_lock (deadlock).
            def take() -> bool:
                row = conn.execute("SELECT pg_try_advisory_lock(%s)", (lock,)).fetchone()
                return bool(next(iter(row.values())) if isinstance(row, dict) else row[0])

            if not drive(_polled(take, self.timeout, 0.005, 0.1)):
                raise self._late("the store's setup lock")
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
            await conn.execute(_TIMEOUT_SQL, (self._pg_timeout(),))
            try:
                await conn.execute(_LOCK_SQL, (_lock_id(key),))
            except LockNotAvailable:
                raise self._late("the record's advisory lock") from None
            scoped = AsyncPostgresStore(conn, ttl=getattr(self.store, "ttl_config", None))
            return await arun_flow(scoped, flow)

    def run(self, key: str, flow: Flow[T]) -> T:
        return _on_loop(self.store, partial(self.arun, key, flow))


def _on_loop(store: BaseStore, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``make()`` on the async store's loop; refused from that loop (it would deadlock)."""
    loop: asyncio.AbstractEventLoop = store.loop  # type: ignore[attr-defined]
    with contextlib.suppress(RuntimeError):
        if asyncio.get_running_loop() is loop:
            name = type(store).__name__
            msg = f"synchronous writes to {name} from its own event loop would deadlock: use the "
            raise asyncio.InvalidStateError(msg + "async methods (asave, apublish, ...)")
    return asyncio.run_coroutine_threadsafe(make(), loop).result()


def write_guard(store: BaseStore, *, timeout: float) -> WriteGuard:
    """The write guard for ``store`` (module docstring), waiting ``timeout`` seconds."""
    s: Any = store
    if isinstance(store, InMemoryStore):
        return _LocalGuard(store, timeout)
    sync_pg = _is(store, "langgraph.store.postgres", "PostgresStore")
    if sync_pg or _is(store, "langgraph.store.postgres", "AsyncPostgresStore"):
        if s.pipe is not None:
            return _LocalGuard(store, timeout, "in pipeline mode has no per-write transaction")
        return (_PostgresGuard if sync_pg else _AsyncPostgresGuard)(store, timeout)
    if _is(store, "langgraph.store.sqlite", "SqliteStore"):
        with s.lock:
            return _file_guard(store, timeout, s.conn.execute("PRAGMA database_list").fetchall())
    if _is(store, "langgraph.store.sqlite.aio", "AsyncSqliteStore"):
        return _LazySqliteGuard(store, timeout)
    return _LocalGuard(store, timeout, "has no write lock this package knows")


def _is(store: BaseStore, module: str, name: str) -> bool:
    try:
        return isinstance(store, getattr(importlib.import_module(module), name))
    except ImportError:
        return False


class _LazySqliteGuard(WriteGuard):
    """``AsyncSqliteStore``: finds its database file at the first write, then as SQLite."""

    _inner: WriteGuard | None = None

    async def _guard(self) -> WriteGuard:
        if self._inner is None:
            store: Any = self.store
            async with store.lock, store.conn.execute("PRAGMA database_list") as cursor:
                rows = list(await cursor.fetchall())  # aiosqlite closes the cursor
            self._inner = _file_guard(store, self.timeout, rows)
        self._inner.timeout = self.timeout
        return self._inner

    async def arun(self, key: str, flow: Flow[T]) -> T:
        return await (await self._guard()).arun(key, flow)

    def run(self, key: str, flow: Flow[T]) -> T:
        return _on_loop(self.store, self._guard).run(key, flow)


class ToolConfigStore:
    """Versioned agent tool configs (``agents``) and saved MCP clients (``mcp_clients``).

    Args:
        store: Any LangGraph `BaseStore` (sync methods use ``batch``, async ``abatch``).
        namespace: Prefix of every item written (labels without ``"."``).
        clock: Epoch-seconds clock for timestamps.
        lock_timeout: Seconds a write waits for its record's lock (`WriteLockError`).

    Raises:
        TypeError: ``store`` is not a `BaseStore`.
        ValueError: A bad ``namespace`` or ``lock_timeout``.
    """

    def __init__(
        self,
        store: BaseStore,
        *,
        namespace: Sequence[str] = ("toolsearch",),
        clock: Callable[[], float] = time.time,
        lock_timeout: float = 30.0,
    ) -> None:
        if not isinstance(store, BaseStore):
            msg = f"store must be a langgraph BaseStore (e.g. InMemoryStore), got {store!r}"
            raise ToolSearchTypeError(msg)
        number = isinstance(lock_timeout, int | float) and not isinstance(lock_timeout, bool)
        if not number or not 0 < lock_timeout < float("inf"):
            msg = f"lock_timeout must be a positive number of seconds, got {lock_timeout!r}"
            raise ToolSearchConfigError(msg)
        prefix = tuple(namespace)
        if not prefix or not all(isinstance(x, str) and x and "." not in x for x in prefix):
            msg = f"namespace must be non-empty labels without '.', got {namespace!r}"
            raise ToolSearchConfigError(msg)
        self.store = store
        guard = write_guard(store, timeout=float(lock_timeout))
        agents, clients = (*prefix, "agent_tool_configs"), (*prefix, "mcp_clients")
        self.agents: VersionedRecords[AgentToolConfig] = VersionedRecords(
            store, agents, parse_agent_config, "agent tool config", clock, guard
        )
        self.mcp_clients: VersionedRecords[MCPClientConfig] = VersionedRecords(
            store, clients, parse_mcp_client, "saved MCP client", clock, guard
        )


def records_of(configs: ToolConfigStore, kind: str) -> VersionedRecords[Any]:
    """The records of ``kind`` (``"agent"`` or ``"mcp-client"``) in ``configs``."""
    return configs.agents if kind == "agent" else configs.mcp_clients


# -- opening the store a `--store` names (the command line and `toolsearch ui`) -----------


@contextlib.contextmanager
def open_store(spec: str | None, *, create: bool = False) -> Iterator[BaseStore]:
    """Open the store named by ``spec`` (see the module docstring) and set it up (`setup_store`).

    Args:
        spec: PostgreSQL DSN, SQLite path, or ``None`` for the default.
        create: Whether a missing SQLite file may be created.

    Raises:
        ConfigCommandError: If the needed extra is not installed, the SQLite
            file does not exist (and ``create`` is false), or the store cannot
            be opened.
    """
    spec = spec or os.environ.get(STORE_ENV) or DEFAULT_STORE
    postgres = spec.startswith(("postgresql://", "postgres://"))
    module, name, missing = _STORES[postgres]
    try:
        store_type: Any = getattr(importlib.import_module(module), name)
    except ImportError:
        raise ConfigCommandError(missing) from None
    if not postgres and spec != ":memory:" and not create and not Path(spec).exists():
        msg = f"no store at {spec!r} (import a file first, or pass --store)"
        raise ConfigCommandError(msg)
    try:
        with store_type.from_conn_string(spec) as store:
            setup_store(store)
            yield store
    except sqlite3.Error as exc:
        raise ConfigCommandError(f"SQLite store {spec!r}: {exc}") from None
    except Exception as exc:
        if type(exc).__module__.startswith("psycopg"):
            raise ConfigCommandError(f"PostgreSQL store: {exc}".strip()) from None
        raise


_STORES = {
    True: (
        "langgraph.store.postgres",
        "PostgresStore",
        "a PostgreSQL store needs langgraph-checkpoint-postgres and psycopg: "
        "pip install 'langchain-toolsearch-editor[postgres]'",
    ),
    False: (
        "langgraph.store.sqlite",
        "SqliteStore",
        "a SQLite store needs langgraph-checkpoint-sqlite: "
        "pip install 'langchain-toolsearch-editor[sqlite]' (or pass --store postgresql://...)",
    ),
}
"""By whether the store is PostgreSQL: its module, its class, what to install when missing."""


def setup_store(store: BaseStore, *, timeout: float = 30.0) -> None:
    """Run a sync store's ``setup()``, under `WriteGuard.hold_store` when migrations are missing.

    Raises:
        WriteLockError: If the lock is not granted within ``timeout`` seconds.
    """
    setup: Any = getattr(store, "setup", None)
    if not callable(setup):
        return
    if _migrated(store):
        setup()
        return
    with write_guard(store, timeout=timeout).hold_store():
        setup()


def _migrated(store: Any) -> bool:
    """Whether every one of the store's ``MIGRATIONS`` is applied (``False`` if unsure)."""
    query = "SELECT max(v) FROM store_migrations"
    try:
        if isinstance(store.conn, sqlite3.Connection):
            with store.lock:
                row = store.conn.execute(query).fetchone()
        else:  # a psycopg connection or pool
            with contextlib.ExitStack() as stack:
                conn = store.conn
                if hasattr(conn, "connection"):
                    conn = stack.enter_context(conn.connection())
                row = conn.execute(query).fetchone()
        done = next(iter(row.values())) if isinstance(row, dict) else row[0]
        return done is not None and int(done) >= len(store.MIGRATIONS) - 1
    except Exception:  # no table yet, or a store this check does not know
        return False
