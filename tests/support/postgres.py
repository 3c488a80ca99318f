"""A fresh database on the test PostgreSQL server, dropped afterwards (integration lane).

The server comes from ``TOOLSEARCH_TEST_POSTGRES_DSN`` (``make test`` exports it
after ``scripts/start_postgres.sh``); without it the throwaway server is started
here (nothing installed). Where no server can be had the test skips with the
reason, unless ``TOOLSEARCH_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) makes that
a failure.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.support.paths import REPO_ROOT

DSN_ENV = "TOOLSEARCH_TEST_POSTGRES_DSN"
SCRIPT = REPO_ROOT / "scripts" / "start_postgres.sh"


def server_dsn() -> tuple[str | None, bool, str]:
    """(DSN, whether this call started the server, why there is none)."""
    dsn = os.environ.get(DSN_ENV)
    if dsn:
        return dsn, False, ""
    if dsn == "":
        return None, False, f"{DSN_ENV} is empty: scripts/start_postgres.sh failed under make"
    was_running = subprocess.run([SCRIPT, "status"], capture_output=True).returncode == 0
    proc = subprocess.run(
        [SCRIPT, "start", "--no-install"], capture_output=True, text=True, timeout=120
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        return None, False, f"scripts/start_postgres.sh: {proc.stderr.strip()[-500:]}"
    return proc.stdout.strip(), not was_running, ""


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
    """:func:`database_on` the test server, starting (and then stopping) it if need be."""
    dsn, started, why = server_dsn()
    if dsn is None:
        no_server(what, why)
        raise AssertionError("unreachable")
    try:
        with database_on(dsn, label) as url:
            yield url
    finally:
        if started:
            subprocess.run([SCRIPT, "stop"], check=False)
