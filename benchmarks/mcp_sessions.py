"""A stored agent with two stdio MCP clients, resolved per request: cold versus warm sessions.

A real ``create_agent`` agent (scripted model, ``ToolSearchMiddleware`` with
``resolve_tools`` calling `ToolResolver.aresolve`) runs search -> load -> call
turns over two saved MCP clients, each one stdio server
(``tests/support/mcp_servers/pool_server.py``, which logs every start). Two
modes, side by side in one run:

* **cold**: every resolution gets a new `MCPSessionPool` (so every
  resolution starts both servers, as before sessions were pooled);
* **warm**: the shared default pool (servers start once).

Reported: server starts (counted from the servers' own logs), resolutions
and the time of one resolution (median, max, and the median after the
first resolution of the mode).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.config import ToolConfigStore, ToolResolver
from langchain_toolsearch.mcp.pool import MCPSessionPool, default_pool, set_default_pool
from langchain_toolsearch.testing import ScriptedToolSearchModel

if TYPE_CHECKING:
    from benchmarks.report import BenchConfig, _Report

SERVER = Path(__file__).resolve().parents[1] / "tests/support/mcp_servers/pool_server.py"

# (query, tool, arguments) of each run
TURNS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("return the given text", "alpha_echo", {"text": "hello"}),
    ("server process id", "beta_pid", {}),
    ("return the given text", "beta_echo", {"text": "again"}),
)


def _store(logs: dict[str, Path]) -> ToolConfigStore:
    configs = ToolConfigStore(InMemoryStore())
    for client, log in logs.items():
        server = {"command": sys.executable, "args": [str(SERVER), "--log", str(log)]}
        configs.mcp_clients.create(client, {"servers": {client: server}})
    configs.agents.save("bench", {"mcp_clients": {c: {"tools": "*"} for c in logs}})
    return configs


async def _mode(cold: bool, runs: int, folder: Path) -> dict[str, Any]:
    logs = {name: folder / f"{'cold' if cold else 'warm'}-{name}.log" for name in ("alpha", "beta")}
    # cold: no resolution cache either (each run resolves from scratch); warm: the
    # resolver's cache (same inputs) and the engine's once-per-run resolution
    resolver = ToolResolver(
        store=_store(logs), agent_id="bench", mcp_timeout=60, cache_ttl=0 if cold else 60.0
    )
    times: list[float] = []
    pools: list[MCPSessionPool] = []

    async def resolve(config: RunnableConfig) -> Sequence[BaseTool]:
        if cold:  # a pool per resolution: both servers start every time
            pools.append(MCPSessionPool())
            set_default_pool(pools[-1])
        started = time.perf_counter()
        resolved = await resolver.aresolve(config)
        times.append(time.perf_counter() - started)
        if resolved.failures:
            raise RuntimeError(f"MCP bench: servers failed: {resolved.failures}")
        while len(pools) > 2:  # older cold pools: their tools are no longer used
            await pools.pop(0).aclose()
        return resolved.tools

    previous = set_default_pool(MCPSessionPool())
    wall = time.perf_counter()
    try:
        for run, (query, tool, args) in enumerate(TURNS[:runs]):
            model = ScriptedToolSearchModel.search_load_call(query=query, tool=tool, args=args)
            agent = create_agent(
                model,
                tools=[],
                middleware=[
                    ToolSearchMiddleware(
                        tools=[], include_resolved_tools=True, resolve_tools=resolve
                    )
                ],
                checkpointer=InMemorySaver(),
            )
            config: RunnableConfig = {"configurable": {"thread_id": f"run-{run}"}}
            out = await agent.ainvoke({"messages": [HumanMessage(query)]}, config)
            called = [m for m in out["messages"] if getattr(m, "name", None) == tool]
            if not called or getattr(called[0], "status", "success") != "success":
                raise RuntimeError(f"MCP bench: {tool} was not called successfully")
        wall = time.perf_counter() - wall
    finally:
        for pool in pools:
            await pool.aclose()
        await default_pool().aclose()
        if previous is not None:
            set_default_pool(previous)
    started = sum(
        sum(line.startswith("start ") for line in log.read_text().splitlines())
        for log in logs.values()
        if log.exists()
    )
    return {"times": times, "started": started, "wall": wall}


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def mcp_sessions_section(rep: _Report, cfg: BenchConfig) -> None:
    """Print the cold-versus-warm table (two runs in quick mode, three otherwise)."""
    runs = 2 if cfg.quick else len(TURNS)
    rep.line("## Stored agent with two stdio MCP clients, per-request resolution")
    rep.line()
    rep.line(
        f"{runs} search -> load -> call run(s) of a `create_agent` agent whose tools are "
        "resolved from a stored config with two saved stdio MCP clients (once per run: the "
        "run's later steps reuse it). Cold: a new session pool per resolution and no "
        "resolution cache (servers start every time, as before pooling); warm: the shared "
        "pool and the resolver's cache."
    )
    rep.line()
    rows = []
    with tempfile.TemporaryDirectory(prefix="toolsearch-mcp-bench-") as tmp:
        for cold in (True, False):
            result = asyncio.run(_mode(cold, runs, Path(tmp)))
            times = result["times"]
            after_first = statistics.median(times[1:]) if len(times) > 1 else times[0]
            rows.append(
                [
                    "cold" if cold else "warm",
                    len(times),
                    result["started"],
                    _ms(statistics.median(times)),
                    _ms(after_first),
                    _ms(max(times)),
                    f"{result['wall']:.1f} s",
                ]
            )
    rep.table(
        [
            "sessions",
            "resolutions",
            "servers started",
            "resolution median",
            "median after the first",
            "max",
            "runs' wall time",
        ],
        rows,
    )
