"""A stdio MCP server's own stderr is redacted, and its last line names the failure.

A real stdio server (``token_rejecting_server.py``) prints ``fatal: token=ghp_...
rejected`` to stderr and exits: the line reaches the worker's stderr masked, and
the package's failure line (the WARNING on ``langchain_toolsearch.mcp._pool``
and the library's failure text) names it, redacted; the server's ``env`` values
are masked too.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient

from langchain_toolsearch.mcp import MCPSessionPool, load_mcp_library
from tests.support.mcp_fixtures import TEST_SERVERS_DIR

LOGGER = "langchain_toolsearch.mcp._pool"
SERVER = str(TEST_SERVERS_DIR / "token_rejecting_server.py")
TOKEN = "ghp_abcdefgh12345678SECRET"
ENV_SECRET = "env-only-s3cret-value"


def rejecting(after: int = 0) -> dict[str, Any]:
    return {
        "transport": "stdio",
        "command": sys.executable,
        "args": [SERVER, "--token", TOKEN, "--after", str(after)],
        "env": {"PATH": "/usr/bin:/bin", "SERVICE_KEY": ENV_SECRET},
    }


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING
    ]


async def test_a_server_that_exits_names_its_last_stderr_line_redacted(
    pool: MCPSessionPool, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    client = MultiServerMCPClient({"gh": rejecting()})  # type: ignore[dict-item]
    lib = await load_mcp_library(client, pool=pool, timeout=30)
    assert "gh" in lib.failures
    failure = lib.failures["gh"]
    assert "the server's last stderr line: fatal: token=[redacted] rejected" in failure, failure
    lines = warnings_of(caplog)
    assert any(
        "could not be listed" in line
        and "last stderr line: fatal: token=[redacted] rejected" in line
        for line in lines
    ), lines
    err = capfd.readouterr().err
    assert "fatal: token=[redacted] rejected" in err and "starting token check" in err
    everything = "\n".join([err, failure, caplog.text])
    assert TOKEN not in everything and "ghp_" not in everything


async def test_a_server_that_dies_mid_call_names_its_last_stderr_line(
    pool: MCPSessionPool, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    client = MultiServerMCPClient({"gh": rejecting(after=1)})  # type: ignore[dict-item]
    lib = await load_mcp_library(client, pool=pool, timeout=20, list_timeout=60)
    assert lib.failures == {}
    echo = next(t for t in lib.tools if t.name.endswith("echo"))
    call = {"id": "1", "name": echo.name, "args": {"text": "hi"}, "type": "tool_call"}
    first = await echo.ainvoke(call)
    assert isinstance(first, ToolMessage) and first.status != "error"
    second = await echo.ainvoke({**call, "id": "2"})
    assert isinstance(second, ToolMessage) and second.status == "error"
    lines = warnings_of(caplog)
    assert any("fatal: token=[redacted] rejected" in line for line in lines), lines
    everything = "\n".join([capfd.readouterr().err, caplog.text, str(second.content)])
    assert TOKEN not in everything and "ghp_" not in everything


async def test_the_servers_env_values_are_masked_in_its_stderr(
    pool: MCPSessionPool, capfd: pytest.CaptureFixture[str]
) -> None:
    connection = rejecting()
    connection["args"] = [
        "-c",
        "import os, sys; print('key is', os.environ['SERVICE_KEY'], file=sys.stderr)",
    ]
    lib = await load_mcp_library(MultiServerMCPClient({"e": connection}), pool=pool, timeout=30)
    assert "key is [redacted]" in lib.failures["e"]
    err = capfd.readouterr().err
    assert "key is [redacted]" in err and ENV_SECRET not in err
