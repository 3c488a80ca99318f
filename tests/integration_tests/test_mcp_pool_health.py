"""The MCP session pool facing hung servers, concurrent first listings and edited clients,
against real servers (``pool_server.py``: it logs each start and each ``tools/list`` it
answers, and its ``freeze`` tool blocks the whole process). A session whose call timed
out is set aside at once: the next call goes to a new session (sync and async), many
timeouts together replace it once, a server that answers ``ping`` serves again, a hung
one exits once its calls in flight ended; 200 concurrent first listings fetch the list
once; an edited saved client's old server exits once its session is unused."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from langchain_mcp_adapters.client import MultiServerMCPClient

from langchain_toolsearch.mcp import (
    MCPSessionPool,
    default_pool,
    load_mcp_library,
    set_default_pool,
)
from langchain_toolsearch_editor import ToolConfigStore, ToolResolver
from tests.integration_tests.test_mcp_pool import (
    _saved,
    alive,
    by_name,
    starts,
    stdio,
    text,
    wait_until,
)

CALL_TIMEOUT = 3.0
SHORT, LONG = 1.0, 30.0  # a call meant to time out; one meant to be answered
NO_VERDICT = 120.0  # a ping timeout no test waits for: requests must not wait for the check


def listings(log: Path) -> int:
    """How many ``tools/list`` requests the server(s) logging to ``log`` answered."""
    return sum(line.startswith("list ") for line in log.read_text().splitlines())


def call(tool_name: str, **args: Any) -> dict[str, Any]:
    return {"id": "1", "name": tool_name, "args": args, "type": "tool_call"}


async def tools(
    pool: MCPSessionPool, log: Path, timeout: float | None = CALL_TIMEOUT
) -> dict[str, Any]:
    lib = await load_mcp_library(
        MultiServerMCPClient({"p": stdio(log)}),
        pool=pool,
        timeout=timeout,
        list_timeout=LONG,
        namespace="always",
    )
    assert lib.failures == {}
    return by_name(lib)


# -- a hung server ---------------------------------------------------------------------


async def test_a_hung_server_is_replaced_after_a_timed_out_call(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = tmp_path / "p.log"
    async with MCPSessionPool(ping_timeout=0.5) as pool:
        found = await tools(pool, log)
        [hung] = starts(log)
        frozen = await found["p_freeze"].ainvoke(call("p_freeze", seconds=3600))
        assert frozen.status == "error" and "did not answer within 3 s" in text(frozen.content)
        with caplog.at_level(logging.WARNING, logger="langchain_toolsearch.mcp._pool"):
            # the next calls go to a new server, not to the hung one
            answers = [
                await found["p_echo"].ainvoke(call("p_echo", text=f"#{i}")) for i in range(7)
            ]
        assert [text(m.content) for m in answers] == [f"#{i}" for i in range(7)]
        assert all(m.status != "error" for m in answers)
        assert len(starts(log)) == 2 and pool.stats().unresponsive == 1
        assert wait_until(lambda: not alive(hung)), "the hung server still runs"
        assert any("did not answer ping" in r.getMessage() for r in caplog.records)


async def test_after_a_wave_of_calls_to_a_hung_server_the_next_wave_is_served(
    tmp_path: Path,
) -> None:
    log = tmp_path / "p.log"
    async with MCPSessionPool(ping_timeout=0.5) as pool:
        found = await tools(pool, log)
        first = await asyncio.gather(
            found["p_freeze"].ainvoke(call("p_freeze", seconds=3600)),
            *(found["p_echo"].ainvoke(call("p_echo", text="one")) for _ in range(3)),
        )
        assert all(m.status == "error" for m in first)
        second = await asyncio.gather(
            *(found["p_echo"].ainvoke(call("p_echo", text="two")) for _ in range(4))
        )
        assert [text(m.content) for m in second] == ["two"] * 4
        assert pool.stats().unresponsive == 1


async def test_a_server_that_is_only_slow_keeps_its_session(tmp_path: Path) -> None:
    log = tmp_path / "p.log"
    async with MCPSessionPool(ping_timeout=2.0) as pool:
        found = await tools(pool, log)
        slow = await found["p_sleep"].ainvoke(call("p_sleep", seconds=30))
        assert slow.status == "error" and "did not answer within 3 s" in text(slow.content)
        # the server answers ping while its tool runs: same process, nothing replaced
        assert wait_until(lambda: pool.stats().kept == 1), "the ping got no answer"
        assert text(await found["p_pid"].ainvoke({})) == str(starts(log)[0])
        assert len(starts(log)) == 1 and pool.stats().unresponsive == 0


@pytest.mark.parametrize("together", [1, 6])
async def test_calls_after_a_timeout_go_to_one_new_session_at_once(
    tmp_path: Path, together: int
) -> None:
    log = tmp_path / "p.log"
    async with MCPSessionPool(ping_timeout=NO_VERDICT) as pool:
        short, long = await tools(pool, log, SHORT), await tools(pool, log, LONG)
        hung = await asyncio.gather(
            *(short["p_freeze"].ainvoke(call("p_freeze", seconds=3600)) for _ in range(together))
        )
        assert all("did not answer within 1 s" in text(m.content) for m in hung)
        answers = await asyncio.gather(*(long["p_pid"].ainvoke(call("p_pid")) for _ in range(6)))
        assert [m.status for m in answers] == ["success"] * 6, text(answers[0].content)
        first, second = starts(log)  # one replacement, however many calls timed out
        assert {text(m.content) for m in answers} == {str(second)} and alive(first)
        assert (pool.stats().call_failures, pool.stats().unresponsive) == (together, 0)


def test_sync_calls_after_a_timeout_go_to_a_new_session_at_once(tmp_path: Path) -> None:
    log = tmp_path / "p.log"
    with MCPSessionPool(ping_timeout=NO_VERDICT) as pool:
        short, long = asyncio.run(tools(pool, log, SHORT)), asyncio.run(tools(pool, log, LONG))
        hung = short["p_freeze"].invoke(call("p_freeze", seconds=3600))
        assert hung.status == "error" and "did not answer within 1 s" in text(hung.content)
        answers = [text(long["p_pid"].invoke(call("p_pid")).content) for _ in range(3)]
        assert answers == [str(starts(log)[1])] * 3 and len(starts(log)) == 2


async def test_a_slow_server_that_answers_ping_serves_again(tmp_path: Path) -> None:
    log = tmp_path / "p.log"
    async with MCPSessionPool(ping_timeout=LONG) as pool:
        short, long = await tools(pool, log, SHORT), await tools(pool, log, LONG)
        # busy for 4 s, then it answers the ping: slow, not hung
        await short["p_freeze"].ainvoke(call("p_freeze", seconds=4))
        meanwhile = await long["p_pid"].ainvoke(call("p_pid"))  # a new session, not a wait
        slow, opened = starts(log)
        assert text(meanwhile.content) == str(opened)
        assert wait_until(lambda: not alive(opened)), "the session opened meanwhile still runs"
        after = await long["p_pid"].ainvoke(call("p_pid"))
        assert text(after.content) == str(slow) and len(starts(log)) == 2
        assert (pool.stats().kept, pool.stats().unresponsive) == (1, 0)


async def test_a_hung_server_exits_once_its_calls_in_flight_end(tmp_path: Path) -> None:
    log = tmp_path / "p.log"
    async with MCPSessionPool(ping_timeout=0.5) as pool:
        short, long = await tools(pool, log, SHORT), await tools(pool, log, LONG)
        in_flight = asyncio.ensure_future(long["p_sleep"].ainvoke(call("p_sleep", seconds=0.1)))
        await short["p_freeze"].ainvoke(call("p_freeze", seconds=5))  # no ping answered
        assert wait_until(lambda: pool.stats().unresponsive == 1), "the hung server was kept"
        [hung] = starts(log)
        assert alive(hung)  # its call in flight keeps it
        replaced = await long["p_pid"].ainvoke(call("p_pid"))
        assert text(replaced.content) == str(starts(log)[1])
        finished = await asyncio.wait_for(in_flight, LONG)  # answered once the server thaws
        assert finished.status == "success" and text(finished.content) == "slept 0.1"
        assert wait_until(lambda: not alive(hung)), "the hung server still runs"
        assert len(starts(log)) == 2 and pool.stats().call_failures == 1


async def test_a_hung_servers_calls_without_a_timeout_fail_once_it_is_closed(
    tmp_path: Path,
) -> None:
    log = tmp_path / "p.log"
    async with MCPSessionPool(ping_timeout=0.5, max_sessions=1) as pool:
        found = await tools(pool, log, timeout=None)  # calls wait for their answer
        [hung] = starts(log)
        waiting = asyncio.ensure_future(found["p_freeze"].ainvoke(call("p_freeze", seconds=3600)))
        await asyncio.sleep(0.5)
        with pytest.raises(TimeoutError):  # a run is cancelled: the session is checked
            await asyncio.wait_for(found["p_echo"].ainvoke(call("p_echo", text="x")), SHORT)
        # no ping answer within 0.5 s, then 0.5 s more for calls with no timeout
        failed = await asyncio.wait_for(waiting, LONG)
        assert failed.status == "error" and "ConnectionError" in text(failed.content)
        assert wait_until(lambda: not alive(hung)), "the hung server still runs"
        answer = await found["p_echo"].ainvoke(call("p_echo", text="y"))
        assert text(answer.content) == "y" and len(starts(log)) == 2
        assert pool.stats().open == 1 and pool.stats().unresponsive == 1


async def test_at_most_max_sessions_are_set_aside(tmp_path: Path) -> None:
    log = tmp_path / "p.log"
    async with MCPSessionPool(ping_timeout=NO_VERDICT, max_sessions=1) as pool:
        short, long = await tools(pool, log, SHORT), await tools(pool, log, LONG)
        for _ in range(3):  # a session (a new one after the first round) hangs: set aside
            assert (await long["p_pid"].ainvoke(call("p_pid"))).status == "success"
            hung = await short["p_freeze"].ainvoke(call("p_freeze", seconds=3600))
            assert "did not answer within 1 s" in text(hung.content)
        first, second, third = starts(log)
        # setting one more aside closed the one set aside before it
        assert wait_until(lambda: not alive(first) and not alive(second)), "a hung server runs"
        assert alive(third) and pool.stats().open == 1
        assert (await long["p_pid"].ainvoke(call("p_pid"))).status == "success"
        assert pool.stats().open == 2  # max_sessions in use, max_sessions set aside


# -- one listing in flight ---------------------------------------------------------------


async def test_concurrent_first_listings_fetch_the_tool_list_once(tmp_path: Path) -> None:
    log = tmp_path / "p.log"
    connection = stdio(log)
    async with MCPSessionPool() as pool:
        sync_results: list[int] = []

        def sync_caller() -> None:  # sync callers: another thread, its own event loop
            listing = asyncio.run(pool.list_tools(connection, server="p"))
            sync_results.append(len(listing.tools))

        threads = [threading.Thread(target=sync_caller) for _ in range(10)]
        for thread in threads:
            thread.start()
        found = await asyncio.gather(*(pool.list_tools(connection, server="p") for _ in range(190)))
        for thread in threads:
            thread.join(30)
        assert sync_results == [6] * 10 and {len(listing.tools) for listing in found} == {6}
        assert len({id(listing) for listing in found}) == 1
        assert listings(log) == 1 and pool.stats().tool_lists == 1
        assert pool.stats().shared_lists >= 1


async def test_stored_clients_resolved_concurrently_list_each_server_once(
    tmp_path: Path, configs: ToolConfigStore
) -> None:
    log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
    configs.mcp_clients.create(
        "local", {"servers": {"alpha": _saved(log_a), "beta": _saved(log_b)}}
    )
    configs.agents.save("agent", {"mcp_clients": {"local": {"tools": "*"}}})
    previous = set_default_pool(MCPSessionPool())
    try:
        resolver = ToolResolver(store=configs, agent_id="agent", mcp_timeout=30)
        resolved = await asyncio.gather(*(resolver.aresolve() for _ in range(50)))
        assert all(r.failures == {} and "alpha_pid" in r.names for r in resolved)
        assert (listings(log_a), listings(log_b)) == (1, 1)
    finally:
        default_pool().close()
        if previous is not None:
            set_default_pool(previous)


# -- an edited client --------------------------------------------------------------------


async def test_an_edited_clients_old_server_exits_once_unused(
    tmp_path: Path, configs: ToolConfigStore
) -> None:
    old_log, new_log = tmp_path / "old.log", tmp_path / "new.log"
    configs.mcp_clients.create("local", {"servers": {"files": _saved(old_log)}})
    configs.mcp_clients.publish("local", 1)
    configs.agents.save("agent", {"mcp_clients": {"local": {"tools": "*"}}})
    configs.agents.publish("agent", 1)
    previous = set_default_pool(MCPSessionPool(idle_timeout=300, retire_after=0.5))
    try:
        resolver = ToolResolver(store=configs, agent_id="agent", mcp_timeout=30)
        before = {t.name: t for t in (await resolver.aresolve()).tools}
        [old_pid] = starts(old_log)
        assert text(await before["files_pid"].ainvoke({})) == str(old_pid)

        configs.mcp_clients.update("local", {"servers": {"files": _saved(new_log)}}, publish=True)
        after = {t.name: t for t in (await resolver.aresolve()).tools}
        [new_pid] = starts(new_log)
        assert text(await after["files_pid"].ainvoke({})) == str(new_pid)
        assert wait_until(lambda: not alive(old_pid), 10), "the old version's server still runs"
        assert alive(new_pid) and default_pool().stats().retired == 1
    finally:
        default_pool().close()
        if previous is not None:
            set_default_pool(previous)


async def test_a_call_in_flight_keeps_the_old_versions_session_until_it_ends(
    tmp_path: Path,
) -> None:
    old_log, new_log = tmp_path / "old.log", tmp_path / "new.log"
    async with MCPSessionPool(retire_after=0.2) as pool:
        old = by_name(
            await load_mcp_library(
                MultiServerMCPClient({"p": stdio(old_log)}), pool=pool, scope="c@1", timeout=30
            )
        )
        [old_pid] = starts(old_log)
        running = asyncio.ensure_future(old["sleep"].ainvoke({"seconds": 6}))
        await asyncio.sleep(0.5)
        await load_mcp_library(
            MultiServerMCPClient({"p": stdio(new_log)}), pool=pool, scope="c@2", timeout=30
        )
        await asyncio.sleep(0.5)
        assert alive(old_pid)  # retired, but a call still uses it
        assert text(await running) == "slept 6.0"
        assert wait_until(lambda: not alive(old_pid), 10), "the old version's server still runs"
        assert pool.stats().retired == 1
