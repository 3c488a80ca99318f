"""Test MCP servers served by uvicorn on a free loopback port, for as long as a fixture needs."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.support.mcp_fixtures import TEST_SERVERS_DIR


def free_port() -> int:
    """A loopback TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int, proc: subprocess.Popen[bytes], deadline: float) -> bool:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"test server exited early with code {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


@contextmanager
def served(script: str, path: str) -> Iterator[str]:
    """Run ``tests/support/mcp_servers/<script> --port N`` and yield ``http://127.0.0.1:N<path>``.

    Retries on another port if one is taken between probing and binding; waits up
    to 20 s for the server to listen; terminates it afterwards.
    """
    for _attempt in range(3):
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, str(TEST_SERVERS_DIR / script), "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            if not _listening(port, proc, time.monotonic() + 20):
                continue
            yield f"http://127.0.0.1:{port}{path}"
            return
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    pytest.fail(f"could not start {script} within 20 s (3 tries)")
