"""Fixtures of the stored-configuration integration tests: an SSE-only MCP server."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.conftest import _free_port, _wait_for_port
from tests.support.mcp_fixtures import TEST_SERVERS_DIR


@pytest.fixture(scope="session")
def sse_mcp_url() -> Iterator[str]:
    """``http://127.0.0.1:<port>/sse`` of ``sse_echo_server.py`` run by uvicorn."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(TEST_SERVERS_DIR / "sse_echo_server.py"), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_port(port, proc, time.monotonic() + 20)
        yield f"http://127.0.0.1:{port}/sse"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
