"""Opening the store a ``toolsearch config --store`` names, set up once even by parallel processes.

``--store`` is a PostgreSQL DSN (``postgresql://...``: LangGraph's
``PostgresStore``, extra ``[postgres]``) or anything else a SQLite file
(``SqliteStore``, extra ``[sqlite]``); default ``$TOOLSEARCH_CONFIG_STORE``,
else ``toolsearch-config.sqlite`` in the current folder. `setup_store` runs a
store's ``setup()`` under a store-wide lock when its migrations are missing:
two processes creating one database at once race in them otherwise.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore

from langchain_toolsearch_editor._cli import DEFAULT_STORE, STORE_ENV
from langchain_toolsearch_editor._store import write_guard
from langchain_toolsearch_editor.errors import ConfigCommandError

__all__ = ["DEFAULT_STORE", "STORE_ENV", "open_store", "setup_store"]


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
    if spec.startswith(("postgresql://", "postgres://")):
        try:
            from langgraph.store.postgres import PostgresStore
        except ImportError:
            msg = (
                "a PostgreSQL store needs langgraph-checkpoint-postgres and psycopg: "
                "pip install 'langchain-toolsearch-editor[postgres]'"
            )
            raise ConfigCommandError(msg) from None
        try:
            with PostgresStore.from_conn_string(spec) as pg:
                setup_store(pg)
                yield pg
        except ConfigCommandError:
            raise
        except Exception as exc:
            if type(exc).__module__.startswith("psycopg"):
                raise ConfigCommandError(f"PostgreSQL store: {exc}".strip()) from None
            raise
        return
    try:
        from langgraph.store.sqlite import SqliteStore
    except ImportError:
        msg = (
            "a SQLite store needs langgraph-checkpoint-sqlite: "
            "pip install 'langchain-toolsearch-editor[sqlite]' (or pass --store postgresql://...)"
        )
        raise ConfigCommandError(msg) from None
    if spec != ":memory:" and not create and not Path(spec).exists():
        msg = f"no store at {spec!r} (import a file first, or pass --store)"
        raise ConfigCommandError(msg)
    try:
        with SqliteStore.from_conn_string(spec) as lite:
            setup_store(lite)
            yield lite
    except sqlite3.Error as exc:
        raise ConfigCommandError(f"SQLite store {spec!r}: {exc}") from None


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
