"""Fixtures shared by both lanes: a config store over memory, and test MCP servers over HTTP.

At the end of the session the private PostgreSQL servers this run started
(:mod:`tests.support.postgres`) are stopped and their folders deleted.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch.config import ToolConfigStore
from tests.support.config_cli import Cli
from tests.support.servers import served

# Tests never read or write the user's vector cache file: the tests of the file set their own.
os.environ["TOOLSEARCH_VECTOR_CACHE"] = "off"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop this run's private PostgreSQL servers (if any were started)."""
    from tests.support.postgres import stop_private

    stop_private()


@pytest.fixture(scope="session")
def http_mcp_url() -> Iterator[str]:
    """``http://127.0.0.1:<port>/mcp`` of ``http_echo_server.py`` (streamable HTTP)."""
    with served("http_echo_server.py", "/mcp") as url:
        yield url


@pytest.fixture(scope="session")
def sse_mcp_url() -> Iterator[str]:
    """``http://127.0.0.1:<port>/sse`` of ``sse_echo_server.py`` (an SSE-only server)."""
    with served("sse_echo_server.py", "/sse") as url:
        yield url


@pytest.fixture
def configs() -> ToolConfigStore:
    """A `ToolConfigStore` over a fresh `InMemoryStore`, with a fixed clock."""
    ticks = iter(range(1_000, 1_000_000))
    return ToolConfigStore(InMemoryStore(), clock=lambda: float(next(ticks)))


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """`Cli` over a SQLite store file in ``tmp_path`` (created by the first ``import``)."""
    return Cli(str(tmp_path / "configs.sqlite"), capsys, tmp_path)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Keep what import and collection made (it lives to the end) out of later GC passes.

    A full ``gc.collect()`` then scans only what the tests made since, so a test that
    collects garbage to check what is freed stays fast; what a test makes is collected
    as before.
    """
    gc.collect()
    gc.freeze()
