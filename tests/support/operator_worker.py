"""One worker process of the operator checks (tests/integration_tests/test_postgres_workers.py).

``python -m tests.support.operator_worker <dsn> <agent_id> <storage> <runs> <pause> [sync|async]``

The pooled production setup of docs/storage.md: one psycopg ``ConnectionPool`` per
process, ``PostgresSaver`` + ``PostgresStore`` on it, the stored tool configuration
in the same database (``ToolConfigStore(PostgresStore(pool))``), and a
``create_agent`` with ``ToolSearchMiddleware(storage=..., include_resolved_tools=True,
resolve_tools=ToolResolver(...))``. Each run searches ``send an e-mail``, loads and
calls the first tool found, on a new thread, with ``durability="sync"``. After each
run it prints one JSON line: ``{"run", "seconds", "search", "answers", "failures",
"hits", "misses", "error"}`` (``error``: the run raised, e.g. while the database
restarts). ``pause`` seconds between runs; the loop ends early once the file
named by ``TOOLSEARCH_OPERATOR_STOP`` exists. Logs go to stderr, one line each.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
import uuid
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from psycopg.rows import dict_row

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch_editor import ToolConfigStore, ToolResolver
from tests.support.storage_helpers import RuleChatModel

PG = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
REFRESH = 1.0
"""``refresh_interval`` of the worker's resolver (seconds): the bound a publish is seen in."""
STOP = os.environ.get("TOOLSEARCH_OPERATOR_STOP", "")
"""A file whose existence ends the worker's loop before its next run."""


def emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    call = {"name": name, "args": args, "id": f"c-{uuid.uuid4().hex[:10]}", "type": "tool_call"}
    return AIMessage("", tool_calls=[call])


def decide(messages: list[BaseMessage]) -> AIMessage:
    """Search, load the first hit, call it, answer (history-driven)."""
    tools = [m for m in messages if isinstance(m, ToolMessage)]
    if not tools:
        return _call("search_tools", {"query": "send an e-mail"})
    last = tools[-1]
    if last.name == "search_tools":
        names = [r["name"] for r in json.loads(last.text)["results"]]
        if not names:
            return AIMessage(content="no tools")
        return _call("load_tool", {"tool_name": names[0]})
    if last.name == "load_tool" and last.status == "success":
        loaded = next(m for m in reversed(messages) if isinstance(m, AIMessage) and m.tool_calls)
        return _call(loaded.tool_calls[0]["args"]["tool_name"], {"to": "ada@example.com"})
    return AIMessage(content="done")


def report(
    run: int,
    started_at: float,
    started: float,
    out: dict[str, Any] | None,
    mw: Any,
    resolver: Any,
    error: str,
) -> None:
    messages = out["messages"] if out else []
    tools = [m for m in messages if isinstance(m, ToolMessage)]
    emit(
        {
            "run": run,
            "started_at": started_at,
            "seconds": round(time.perf_counter() - started, 4),
            "search": next((m.text for m in tools if m.name == "search_tools"), ""),
            "answers": [[m.name, m.status, m.text] for m in tools],
            "failures": [[f.source, f.message] for f in mw._source_failures()],
            "hits": resolver.cache_hits,
            "misses": resolver.cache_misses,
            "error": error,
        }
    )


def build(saver: Any, store: Any, agent_id: str, storage: str) -> tuple[Any, Any, Any]:
    configs = ToolConfigStore(store)
    resolver = ToolResolver(
        store=configs, agent_id=agent_id, version="published", refresh_interval=REFRESH
    )
    mw = ToolSearchMiddleware(
        tools=[], storage=storage, include_resolved_tools=True, resolve_tools=resolver
    )
    agent = create_agent(
        RuleChatModel(decide=decide), tools=[], middleware=[mw], checkpointer=saver, store=store
    )
    return agent, mw, resolver


def run_sync(dsn: str, agent_id: str, storage: str, runs: int, pause: float) -> None:
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore
    from psycopg_pool import ConnectionPool

    with ConnectionPool(dsn, max_size=4, kwargs=PG, check=ConnectionPool.check_connection) as pool:
        agent, mw, resolver = build(PostgresSaver(pool), PostgresStore(pool), agent_id, storage)
        for run in range(runs):
            if run and STOP and os.path.exists(STOP):
                break
            started_at, started, out, error = time.time(), time.perf_counter(), None, ""
            try:
                config = {"configurable": {"thread_id": f"op-{uuid.uuid4().hex[:8]}"}}
                out = agent.invoke({"messages": [("user", "mail ada")]}, config, durability="sync")
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"[:300]
            report(run, started_at, started, out, mw, resolver, error)
            time.sleep(pause)


async def run_async(dsn: str, agent_id: str, storage: str, runs: int, pause: float) -> None:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.store.postgres import AsyncPostgresStore
    from psycopg_pool import AsyncConnectionPool

    async with AsyncConnectionPool(
        dsn, max_size=4, kwargs=PG, open=False, check=AsyncConnectionPool.check_connection
    ) as apool:
        agent, mw, resolver = build(
            AsyncPostgresSaver(apool), AsyncPostgresStore(apool), agent_id, storage
        )
        for run in range(runs):
            if run and STOP and os.path.exists(STOP):
                break
            started_at, started, out, error = time.time(), time.perf_counter(), None, ""
            try:
                config = {"configurable": {"thread_id": f"op-{uuid.uuid4().hex[:8]}"}}
                out = await agent.ainvoke(
                    {"messages": [("user", "mail ada")]}, config, durability="sync"
                )
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"[:300]
            report(run, started_at, started, out, mw, resolver, error)
            await asyncio.sleep(pause)


if __name__ == "__main__":
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    dsn, agent_id, storage, runs, pause = sys.argv[1:6]
    flavour = sys.argv[6] if len(sys.argv) > 6 else "sync"
    if flavour == "async":
        asyncio.run(run_async(dsn, agent_id, storage, int(runs), float(pause)))
    else:
        run_sync(dsn, agent_id, storage, int(runs), float(pause))
