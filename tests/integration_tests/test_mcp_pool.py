"""The MCP session pool against real servers: stdio (``pool_server.py``, which logs every
start) and stateful streamable HTTP. Reuse across steps, runs, threads and event loops,
the bound, the idle timeout, reconnection after a kill -9, one session per Bearer token,
tool lists refreshed on ``tools/list_changed`` and after their expiry, clean close
(context managers and interpreter exit), stored MCP clients resolved per request."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.client import MultiServerMCPClient

from langchain_toolsearch.config import HttpServer, ToolConfigStore, ToolResolver, connection_for
from langchain_toolsearch.mcp import MCPLibrary, load_mcp_library
from langchain_toolsearch.mcp.pool import (
    MCPPoolClosedError,
    MCPSessionPool,
    default_pool,
    set_default_pool,
)
from tests.support.mcp_fixtures import TEST_SERVERS_DIR
from tests.support.servers import _listening, free_port

SERVER = str(TEST_SERVERS_DIR / "pool_server.py")
TIMEOUT = 30.0


def stdio(log: Path) -> dict[str, Any]:
    """A stdio connection to pool_server.py logging its starts to ``log``."""
    return {"transport": "stdio", "command": sys.executable, "args": [SERVER, "--log", str(log)]}


def starts(log: Path) -> list[int]:
    """Pids of the server starts logged so far."""
    if not log.exists():
        return []
    lines = log.read_text().splitlines()
    return [int(line.split()[1]) for line in lines if line.startswith("start ")]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); ask ps for its state.
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True)
    return bool(state.stdout.strip()) and not state.stdout.strip().startswith("Z")


def wait_until(check: Any, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())


async def library(pool: MCPSessionPool, **connections: dict[str, Any]) -> MCPLibrary:
    lib = await load_mcp_library(
        MultiServerMCPClient(connections), pool=pool, timeout=TIMEOUT, namespace="always"
    )
    assert lib.failures == {}
    return lib


def by_name(lib: MCPLibrary) -> dict[str, BaseTool]:
    return {tool.name: tool for tool in lib.tools}


def text(result: Any) -> str:
    if isinstance(result, str):
        return result
    return "".join(b["text"] if isinstance(b, dict) else str(b) for b in result)


# -- reuse --------------------------------------------------------------------------------


async def test_a_server_starts_once_across_runs_threads_and_event_loops(
    tmp_path: Path, pool: MCPSessionPool
) -> None:
    log = tmp_path / "starts.log"
    first = by_name(await library(pool, p=stdio(log)))
    second = by_name(await library(pool, p=stdio(log)))  # another "run"
    assert set(first) == {"p_echo", "p_freeze", "p_grow", "p_pid", "p_sleep", "p_whoami"}
    assert second["p_pid"] is first["p_pid"]  # tools are reused with the tool list

    pids = {text(await first["p_pid"].ainvoke({}))}
    results: list[str] = []

    def sync_caller() -> None:  # sync invoke in other threads
        results.append(text(second["p_pid"].invoke({})))

    def other_loop() -> None:  # a second event loop in another thread
        async def run() -> str:
            lib = await library(pool, p=stdio(log))
            return text(await by_name(lib)["p_pid"].ainvoke({}))

        results.append(asyncio.run(run()))

    threads = [threading.Thread(target=sync_caller) for _ in range(3)]
    threads.append(threading.Thread(target=other_loop))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
    pids.update(results)
    assert len(results) == 4
    assert len(starts(log)) == 1
    assert pids == {str(starts(log)[0])}
    stats = pool.stats()
    assert (stats.open, stats.started, stats.tool_lists) == (1, 1, 1)


class _Request:
    """Stands for what a request's context holds (its config, runtime, credentials)."""


_REQUEST: contextvars.ContextVar[_Request | None] = contextvars.ContextVar("request", default=None)


async def test_a_pooled_session_keeps_nothing_of_the_request_that_opened_it(
    tmp_path: Path, pool: MCPSessionPool
) -> None:
    log = tmp_path / "starts.log"
    held = [_Request()]
    gone = weakref.ref(held[0])

    async def one_request() -> str:
        _REQUEST.set(held.pop())  # as LangGraph sets a run's config for its steps
        lib = await library(pool, p=stdio(log))
        return text(await by_name(lib)["p_pid"].ainvoke({}))

    first = await asyncio.create_task(one_request(), context=contextvars.Context())
    await asyncio.sleep(0)  # the step that resumed us holds the finished task until it ends
    gc.collect()
    assert gone() is None, "the pooled session (or a timer) pins the opener's context"
    assert pool.stats().open == 1  # the session lives on for later requests
    assert text(await by_name(await library(pool, p=stdio(log)))["p_pid"].ainvoke({})) == first
    assert len(starts(log)) == 1


async def test_stored_clients_start_each_server_once_over_many_resolutions(
    tmp_path: Path, configs: ToolConfigStore
) -> None:
    log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
    configs.mcp_clients.create(
        "local",
        {"servers": {"alpha": _saved(log_a), "beta": _saved(log_b)}},
    )
    configs.agents.save("agent", {"mcp_clients": {"local": {"tools": "*"}}})
    previous = set_default_pool(MCPSessionPool())
    try:
        resolver = ToolResolver(store=configs, agent_id="agent", mcp_timeout=TIMEOUT)
        for _ in range(4):
            resolved = await resolver.aresolve()
            assert resolved.failures == {}
            assert "alpha_pid" in resolved.names and "beta_pid" in resolved.names
        sync_resolved = resolver.resolve()  # the sync path shares the sessions
        tools = {tool.name: tool for tool in sync_resolved.tools}
        assert text(tools["alpha_pid"].invoke({})) == str(starts(log_a)[0])
        assert (len(starts(log_a)), len(starts(log_b))) == (1, 1)
        assert default_pool().stats().started == 2
    finally:
        default_pool().close()
        if previous is not None:
            set_default_pool(previous)


def _saved(log: Path) -> dict[str, Any]:
    return {"command": sys.executable, "args": [SERVER, "--log", str(log)]}


# -- bounds -------------------------------------------------------------------------------


async def test_a_full_pool_closes_the_least_recently_used_idle_session(tmp_path: Path) -> None:
    log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
    async with MCPSessionPool(max_sessions=1) as pool:
        await library(pool, a=stdio(log_a))
        [pid_a] = starts(log_a)
        await library(pool, b=stdio(log_b))
        assert wait_until(lambda: not alive(pid_a)), "the evicted server still runs"
        assert pool.stats().open == 1 and pool.stats().evicted == 1
        await library(pool, a=stdio(log_a))  # comes back on demand
        assert len(starts(log_a)) == 2
        assert pool.stats().evicted == 2


async def test_an_idle_session_is_closed_after_idle_timeout(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    async with MCPSessionPool(idle_timeout=0.4) as pool:
        lib = await library(pool, p=stdio(log))
        [pid] = starts(log)
        assert wait_until(lambda: not alive(pid)), "the idle server still runs"
        assert pool.stats().open == 0 and pool.stats().expired == 1
        # its tools still work: the call opens a new session
        assert text(await by_name(lib)["p_pid"].ainvoke({})) == str(starts(log)[1])


# -- failures -----------------------------------------------------------------------------


async def test_a_killed_server_is_restarted_and_the_call_goes_through(
    tmp_path: Path, pool: MCPSessionPool
) -> None:
    log = tmp_path / "starts.log"
    tools = by_name(await library(pool, p=stdio(log)))
    [pid] = starts(log)
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: not alive(pid))
    # Once the client has seen the exit (its stream closed), the request surely never
    # reached the dead server and is sent again on a new session. A call that wins the
    # race against that notice (a busy machine) may have been read by the server: it is
    # reported, never sent twice, and the next call starts the one new server.
    answer = text(await tools["p_pid"].ainvoke({}))
    if not answer.isdigit():
        assert "connection" in answer.lower() and len(starts(log)) == 1, answer
        answer = text(await tools["p_pid"].ainvoke({}))
    [_, new_pid] = starts(log)
    assert answer == str(new_pid) != str(pid)
    assert pool.stats().reconnects == 1
    # listing after a kill reconnects too
    os.kill(new_pid, signal.SIGKILL)
    assert wait_until(lambda: not alive(new_pid))
    assert "p_pid" in by_name(await library(pool, p=stdio(log)))
    assert len(starts(log)) == 3


async def test_a_server_that_cannot_start_is_a_failure_not_a_pooled_session(
    pool: MCPSessionPool,
) -> None:
    broken = {
        "transport": "stdio",
        "command": sys.executable,
        "args": ["-c", "raise SystemExit(3)"],
    }
    lib = await load_mcp_library(MultiServerMCPClient({"bad": broken}), pool=pool, timeout=10)
    assert "bad" in lib.failures and lib.tools == []
    assert pool.stats().open == 0 and pool.stats().started == 0


# -- tool lists ---------------------------------------------------------------------------


async def test_tools_list_changed_refreshes_the_cached_list(
    tmp_path: Path, pool: MCPSessionPool
) -> None:
    log = tmp_path / "starts.log"
    tools = by_name(await library(pool, p=stdio(log)))
    assert text(await tools["p_grow"].ainvoke({"name": "late_tool"})) == "added late_tool"
    assert wait_until(lambda: _stale(pool))  # the notification has arrived
    grown = by_name(await library(pool, p=stdio(log)))
    assert "p_late_tool" in grown
    assert text(await grown["p_late_tool"].ainvoke({})) == "grown late_tool"
    assert pool.stats().tool_lists == 2 and len(starts(log)) == 1


def _stale(pool: MCPSessionPool) -> bool:
    return any(entry.stale for entry in list(pool._entries.values()))


async def test_a_tool_list_is_fetched_again_after_tools_ttl(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    async with MCPSessionPool(tools_ttl=0.3) as pool:
        await library(pool, p=stdio(log))
        await library(pool, p=stdio(log))
        assert pool.stats().tool_lists == 1
        await asyncio.sleep(0.5)
        await library(pool, p=stdio(log))
        assert pool.stats().tool_lists == 2 and pool.stats().started == 1


# -- credentials (streamable HTTP) --------------------------------------------------------


@contextmanager
def http_server(log: Path, port: int | None = None, *, crash: bool = False) -> Iterator[str]:
    """Serve pool_server.py over streamable HTTP; stop it (``crash``: kill -9) after."""
    port = port or free_port()
    proc = subprocess.Popen(
        [sys.executable, SERVER, "--log", str(log), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert _listening(port, proc, time.monotonic() + 20)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill() if crash else proc.terminate()
        proc.wait(10)


async def test_each_bearer_token_gets_its_own_session(tmp_path: Path, pool: MCPSessionPool) -> None:
    with http_server(tmp_path / "http.log") as url:
        server = HttpServer(url=url)
        answers: dict[str, set[str]] = {"alice": set(), "bob": set()}
        for _ in range(2):
            for token in ("alice", "bob"):
                connection = dict(connection_for(server, token=f"tok-{token}", default_timeout=10))
                lib = await library(pool, h=connection)
                answers[token].add(text(await by_name(lib)["h_whoami"].ainvoke({})))
        [alice], [bob] = answers["alice"], answers["bob"]  # one session each, reused
        assert alice.startswith("Bearer tok-alice|") and bob.startswith("Bearer tok-bob|")
        assert alice.split("|")[1] != bob.split("|")[1]
        assert pool.stats().started == 2
        for key in pool._entries:
            assert "tok-" not in repr(key)  # keys hold a fingerprint, never the token


async def test_an_http_server_crash_and_restart_get_a_new_session(
    tmp_path: Path, pool: MCPSessionPool
) -> None:
    log = tmp_path / "http.log"
    port = free_port()
    with http_server(log, port, crash=True) as url:
        connection = dict(connection_for(HttpServer(url=url), token="tok", default_timeout=10))
        lib = await load_mcp_library(
            MultiServerMCPClient({"h": connection}), pool=pool, timeout=60, namespace="always"
        )
        tools = by_name(lib)
        before = text(await tools["h_whoami"].ainvoke({}))
        slow = asyncio.ensure_future(
            tools["h_sleep"].ainvoke(
                {"id": "1", "name": "h_sleep", "args": {"seconds": 30}, "type": "tool_call"}
            )
        )
        await asyncio.sleep(1.0)  # the server is killed while the call is in flight
    # The MCP SDK drops a streamable-HTTP response cut mid-flight without an error; the
    # pool's HTTP client sees the broken connection: the call fails with it, not at 60 s.
    message = await asyncio.wait_for(slow, 90)
    assert message.status == "error" and "did not answer" not in text(message.content)
    assert "RemoteProtocolError" in text(message.content) or "ReadError" in text(message.content)
    with http_server(log, port):  # back on the same address, knowing no session
        after = text(await tools["h_whoami"].ainvoke({}))  # 404 -> new session, sent again
    assert after.startswith("Bearer tok|") and after.split("|")[1] != before.split("|")[1]
    assert pool.stats().reconnects == 1 and pool.stats().started == 2


async def test_a_stdio_server_killed_mid_call_fails_the_call_at_once(
    tmp_path: Path, pool: MCPSessionPool
) -> None:
    log = tmp_path / "starts.log"
    tools = by_name(await library(pool, p=stdio(log)))
    slow = asyncio.ensure_future(
        tools["p_sleep"].ainvoke(
            {"id": "1", "name": "p_sleep", "args": {"seconds": 30}, "type": "tool_call"}
        )
    )
    await asyncio.sleep(1.0)
    os.kill(starts(log)[0], signal.SIGKILL)
    killed = time.monotonic()
    message = await asyncio.wait_for(slow, 20)
    assert time.monotonic() - killed < 5
    # it may have run: not sent again, reported
    assert message.status == "error" and "Connection closed" in text(message.content)
    assert text(await tools["p_echo"].ainvoke({"text": "next"})) == "next"
    assert len(starts(log)) == 2 and pool.stats().reconnects == 1


# -- closing ------------------------------------------------------------------------------


def test_closing_the_pool_stops_its_servers_and_refuses_new_sessions(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    with MCPSessionPool() as pool:
        lib = asyncio.run(library(pool, p=stdio(log)))
        [pid] = starts(log)
        assert alive(pid)
    assert pool.closed and not alive(pid)
    with pytest.raises(MCPPoolClosedError, match="closed"):
        asyncio.run(library(pool, p=stdio(log)))
    message = by_name(lib)["p_pid"].invoke(
        {"id": "1", "name": "p_pid", "args": {}, "type": "tool_call"}
    )
    assert "closed" in text(message.content)  # a tool of a closed pool answers with an error


def test_open_pools_are_closed_at_interpreter_exit(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    script = f"""
import asyncio, atexit, sys
from langchain_mcp_adapters.client import MultiServerMCPClient
import langchain_toolsearch.mcp.pool as mcp_pool
from langchain_toolsearch.mcp import load_mcp_library

pool = mcp_pool.MCPSessionPool()
connection = {stdio(log)!r}
asyncio.run(load_mcp_library(MultiServerMCPClient({{"p": connection}}), pool=pool))
# runs right after the pool's handler (atexit is last in, first out)
atexit.unregister(mcp_pool._close_open_pools)
atexit.register(lambda: print("closed:", pool.closed, pool.stats().open, flush=True))
atexit.register(mcp_pool._close_open_pools)
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert done.returncode == 0, done.stderr
    assert "closed: True 0" in done.stdout
    [pid] = starts(log)
    assert wait_until(lambda: not alive(pid))
