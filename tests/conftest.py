"""Fixtures for the stored tool configuration tests: stores, a real HTTP MCP server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolConfigStore
from tests.support.mcp_fixtures import TEST_SERVERS_DIR


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"http_echo_server exited early with code {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"http_echo_server did not listen on 127.0.0.1:{port} within 20 s")


@pytest.fixture(scope="session")
def http_mcp_url() -> Iterator[str]:
    """URL of ``tests/mcp_servers/http_echo_server.py`` run by uvicorn on a free port."""
    for _attempt in range(3):  # the port could be taken between probing and binding
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, str(TEST_SERVERS_DIR / "http_echo_server.py"), "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            _wait_for_port(port, proc, time.monotonic() + 20)
        except pytest.fail.Exception:
            proc.kill()
            proc.wait()
            continue
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        return
    pytest.fail("could not start http_echo_server")


@pytest.fixture
def configs() -> ToolConfigStore:
    """A `ToolConfigStore` over a fresh `InMemoryStore`, with a fixed clock."""
    ticks = iter(range(1_000, 1_000_000))
    return ToolConfigStore(InMemoryStore(), clock=lambda: float(next(ticks)))
