"""MCP failures reach the logs, once per cause, and the pool counts them.

Real servers: ``pool_server.py`` over stdio (killed mid-call, killed while idle,
hung) and over streamable HTTP (killed mid-call), and a stdio command that
exits at once (a listing that fails). Each failure gives one WARNING on
``langchain_toolsearch.mcp._pool`` naming the server, the tool and what
happened (and the thread it first happened in); the same cause again is
logged at DEBUG only, with its thread, and every failure is counted in
``pool.stats()`` and in the process's counters by server and cause.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient

from langchain_toolsearch._support import counts
from langchain_toolsearch.mcp import MCPSessionPool, load_mcp_library
from langchain_toolsearch_editor import HttpServer
from langchain_toolsearch_editor._servers import connection_for
from tests.integration_tests.test_mcp_pool import by_name, http_server, starts, stdio, text

LOGGER = "langchain_toolsearch.mcp._pool"


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING
    ]


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"id": "1", "name": name, "args": args, "type": "tool_call"}


async def tools_of(pool: MCPSessionPool, timeout: float, **connections: Any) -> dict[str, Any]:
    lib = await load_mcp_library(
        MultiServerMCPClient(connections),
        pool=pool,
        timeout=timeout,
        list_timeout=60,  # a server's start on a loaded machine; calls keep `timeout`
        namespace="always",
    )
    assert lib.failures == {}
    return by_name(lib)


async def test_a_stdio_server_killed_mid_call_is_logged_and_counted(
    tmp_path: Path, pool: MCPSessionPool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    log = tmp_path / "starts.log"
    tools = await tools_of(pool, 30, p=stdio(log))
    slow = asyncio.ensure_future(tools["p_sleep"].ainvoke(call("p_sleep", seconds=30)))
    await asyncio.sleep(1.0)
    os.kill(starts(log)[0], signal.SIGKILL)
    message = await asyncio.wait_for(slow, 20)
    assert isinstance(message, ToolMessage) and message.status == "error"
    lines = warnings_of(caplog)
    assert any("MCP call to tool 'sleep' on server 'p' failed" in line for line in lines), lines
    assert any("MCP session to server 'p' was lost" in line for line in lines), lines
    stats = pool.stats()
    assert stats.call_failures == 1 and stats.session_failures == 1


async def test_a_stdio_server_killed_while_idle_is_logged_when_its_session_is_replaced(
    tmp_path: Path, pool: MCPSessionPool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    log = tmp_path / "starts.log"
    tools = await tools_of(pool, 30, p=stdio(log))
    os.kill(starts(log)[0], signal.SIGKILL)
    await asyncio.sleep(0.5)
    assert text(await tools["p_echo"].ainvoke({"text": "again"})) == "again"  # sent again
    lines = warnings_of(caplog)
    assert [line for line in lines if "session to server 'p' was lost" in line], lines
    assert pool.stats().session_failures == 1 and pool.stats().call_failures == 0


async def test_a_hung_stdio_server_is_logged_once_per_cause_and_counted_each_time(
    tmp_path: Path, pool: MCPSessionPool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    tools = await tools_of(pool, 1, p=stdio(tmp_path / "starts.log"))
    for _ in range(2):
        message = await tools["p_sleep"].ainvoke(call("p_sleep", seconds=30))
        assert message.status == "error" and "did not answer within 1 s" in text(message.content)
    timeouts = [line for line in warnings_of(caplog) if "(TimeoutError)" in line]
    assert timeouts == [
        "tool search: MCP call to tool 'sleep' on server 'p' failed (TimeoutError): no answer "
        "within 1 s; the call was cancelled; the model got an error message"
    ]
    assert pool.stats().call_failures == 2


async def test_an_http_server_killed_mid_call_is_logged_and_counted(
    tmp_path: Path, pool: MCPSessionPool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    with http_server(tmp_path / "http.log", crash=True) as url:
        connection = dict(
            connection_for(HttpServer(url=url), token="tok-SECRET", default_timeout=10)
        )
        tools = await tools_of(pool, 3, h=connection)
        slow = asyncio.ensure_future(tools["h_sleep"].ainvoke(call("h_sleep", seconds=30)))
        await asyncio.sleep(1.0)
    message = await asyncio.wait_for(slow, 20)
    assert message.status == "error"
    lines = warnings_of(caplog)
    assert any("MCP call to tool 'sleep' on server 'h' failed" in line for line in lines), lines
    assert pool.stats().call_failures == 1
    assert not [r for r in caplog.records if "tok-SECRET" in r.getMessage()]


async def test_a_server_that_cannot_be_listed_is_logged_once_per_cause(
    pool: MCPSessionPool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    dead = {"transport": "stdio", "command": sys.executable, "args": ["-c", "pass"]}
    for _ in range(2):
        lib = await load_mcp_library(MultiServerMCPClient({"dead": dead}), pool=pool, timeout=10)
        assert "dead" in lib.failures
    lines = [
        line for line in warnings_of(caplog) if "MCP server 'dead' could not be listed" in line
    ]
    assert len(lines) == 1, warnings_of(caplog)
    assert pool.stats().list_failures == 2


async def test_call_failures_are_counted_by_server_and_cause_and_name_their_thread(
    tmp_path: Path, pool: MCPSessionPool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, LOGGER)
    tools = await tools_of(pool, 1, slow=stdio(tmp_path / "starts.log"))
    before = counts()
    for thread in ("mcp-first", "mcp-second", "mcp-second"):
        config: Any = {"configurable": {"thread_id": thread}}
        message = await tools["slow_sleep"].ainvoke(call("slow_sleep", seconds=30), config)
        assert message.status == "error"
    moved = {k: v - before.get(k, 0) for k, v in counts().items() if v != before.get(k, 0)}
    assert moved == {"toolsearch.mcp.call_failures{cause=TimeoutError,server=slow}": 3}
    lines = [
        (r.levelno, r.getMessage())
        for r in caplog.records
        if r.name == LOGGER and "(TimeoutError)" in r.getMessage()
    ]
    assert [(level, text.rsplit(" (", 1)[1]) for level, text in lines] == [
        (logging.WARNING, "first in thread mcp-first)"),
        (logging.DEBUG, "in thread mcp-second)"),
        (logging.DEBUG, "in thread mcp-second)"),
    ]
