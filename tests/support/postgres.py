"""A fresh database on the test PostgreSQL server, dropped afterwards (integration lane).

The server comes from ``TOOLSEARCH_TEST_POSTGRES_DSN`` (``make test`` exports
it: a private server of that run). Without it, this test process starts a
private server of its own on first use (``scripts/start_postgres.sh start
--private``: a new data folder, a free port; nothing installed) and stops it
at the end of the session (:func:`stop_private`, called by
``tests/conftest.py``; at interpreter exit too), so two test runs at once on
one machine never share a server, a port or a data folder. Where no server
can be had the test skips with the reason, unless
``TOOLSEARCH_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) makes that a failure.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import pytest

from tests.support.paths import REPO_ROOT

DSN_ENV = "TOOLSEARCH_TEST_POSTGRES_DSN"
SCRIPT = REPO_ROOT / "scripts" / "start_postgres.sh"

_lock = threading.Lock()
_private: dict[str, str] = {}
"""The private servers this process started: ``--pgvector`` flag ("" or "--pgvector") -> folder."""
_dsns: dict[str, tuple[str | None, str]] = {}
"""(DSN, why none) per flag, once asked."""


def _script_env(folder: str) -> dict[str, str]:
    env = {**os.environ, "TOOLSEARCH_PG_DIR": folder, "TOOLSEARCH_PG_PYTHON": sys.executable}
    env.pop("TOOLSEARCH_PG_PORT", None)
    return env


def private_server(pgvector: bool = False) -> tuple[str | None, str]:
    """(DSN, why none) of this process's private server, started on first use.

    Args:
        pgvector: A server with the pgvector extension (``--pgvector``).
    """
    flag = "--pgvector" if pgvector else ""
    with _lock:
        if flag in _dsns:
            return _dsns[flag]
        folder = tempfile.mkdtemp(prefix="toolsearch-pg-run.")
        args = [str(SCRIPT), "start", "--private", "--no-install", *([flag] if flag else [])]
        proc = subprocess.run(
            args, env=_script_env(folder), capture_output=True, text=True, timeout=180
        )
        if proc.returncode != 0 or not proc.stdout.strip():
            shutil.rmtree(folder, ignore_errors=True)
            _dsns[flag] = (None, f"scripts/start_postgres.sh: {proc.stderr.strip()[-500:]}")
        else:
            _private[flag] = folder
            _dsns[flag] = (proc.stdout.strip().splitlines()[-1], "")
        return _dsns[flag]


def stop_private() -> None:
    """Stop the private servers this process started and delete their folders."""
    with _lock:
        for flag, folder in list(_private.items()):
            args = [str(SCRIPT), "stop", "--private", *([flag] if flag else [])]
            subprocess.run(args, env=_script_env(folder), capture_output=True, check=False)
            shutil.rmtree(folder, ignore_errors=True)
            del _private[flag]
        _dsns.clear()


atexit.register(stop_private)


def server_dsn() -> tuple[str | None, str]:
    """(DSN, why there is none): the exported server, else this process's private one."""
    dsn = os.environ.get(DSN_ENV)
    if dsn:
        return dsn, ""
    if dsn == "":
        return None, f"{DSN_ENV} is empty: scripts/start_postgres.sh failed under make"
    return private_server()


def no_server(what: str, why: str) -> None:
    """Skip (or fail under ``TOOLSEARCH_REQUIRE_POSTGRES=1``) for want of a server."""
    message = f"no PostgreSQL server for {what} ({why})"
    if os.environ.get("TOOLSEARCH_REQUIRE_POSTGRES") == "1":
        pytest.fail(message)
    pytest.skip(message)


@contextmanager
def database_on(dsn: str, label: str) -> Iterator[str]:
    """A new database ``toolsearch_<label>_...`` on the server at ``dsn``; yields its DSN."""
    psycopg = pytest.importorskip("psycopg", reason="needs psycopg (pip install -e '.[dev]')")
    db = f"toolsearch_{label}_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')
    try:
        yield f"{dsn.rpartition('/')[0]}/{db}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


@contextmanager
def fresh_database(label: str, what: str) -> Iterator[str]:
    """:func:`database_on` the test server (see the module docstring)."""
    dsn, why = server_dsn()
    if dsn is None:
        no_server(what, why)
        raise AssertionError("unreachable")
    with database_on(dsn, label) as url:
        yield url


@contextmanager
def store_and_saver(dsn: str, **store_options: Any) -> Iterator[tuple[Any, Any]]:
    """``(PostgresStore, PostgresSaver)`` on the database at ``dsn``, both closed afterwards.

    Args:
        dsn: The database (already set up by the ``pg_dsn`` fixture).
        **store_options: Passed to ``PostgresStore.from_conn_string`` (e.g. ``ttl=``).
    """
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore

    with (
        PostgresStore.from_conn_string(dsn, **store_options) as store,
        PostgresSaver.from_conn_string(dsn) as saver,
    ):
        yield store, saver


@asynccontextmanager
async def astore_and_saver(dsn: str) -> AsyncIterator[tuple[Any, Any]]:
    """``(AsyncPostgresStore, AsyncPostgresSaver)`` on the database at ``dsn``."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.store.postgres import AsyncPostgresStore

    async with (
        AsyncPostgresStore.from_conn_string(dsn) as store,
        AsyncPostgresSaver.from_conn_string(dsn) as saver,
    ):
        yield store, saver


def pgvector_server() -> tuple[str | None, str]:
    """(DSN of a server with pgvector, why none).

    A server this run started is private to it and stopped at the end of the
    session (:func:`stop_private`), so callers never stop it.
    """
    psycopg = pytest.importorskip("psycopg", reason="needs psycopg (pip install -e '.[dev]')")
    dsn = os.environ.get("TOOLSEARCH_TEST_PGVECTOR_DSN")
    if dsn:
        return dsn, ""
    shared = os.environ.get("TOOLSEARCH_TEST_POSTGRES_DSN")
    if shared:
        try:
            with psycopg.connect(shared, connect_timeout=5) as conn:
                row = conn.execute(
                    "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
                ).fetchone()
            if row:
                return shared, ""
        except psycopg.Error:
            pass
    dsn, why = private_server(pgvector=True)  # this run's own, stopped at the end
    return dsn, why


@contextmanager
def pgvector_database(what: str) -> Iterator[str]:
    """A new database on a server with pgvector (:func:`pgvector_server`), dropped after."""
    dsn, why = pgvector_server()
    if dsn is None:
        no_server(what, why)
        raise AssertionError("unreachable")
    with database_on(dsn, "vec") as url:
        yield url
