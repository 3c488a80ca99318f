"""A replica sharing a store-served tool index and a ``"store"`` load store.

Run as ``python -m tests.support.shared_index_worker --dsn DSN [options]`` from the
repository root. The replica holds a ``ToolSearchMiddleware`` whose index is a
``StoreToolIndex`` on PostgreSQL + pgvector (``PostgresStore``, or
``AsyncPostgresStore`` with ``--async``), with per-request tools
(``include_resolved_tools``). Each stdin line is a JSON request, each answer
one stdout line; the first line is ``{"ready": true, "fingerprint": ...}``.

Requests: ``{"op": "search", "q": text}`` -> ``{"names": [...]}`` (the
middleware's ``search``: shared index and the caller's overlay);
``{"op": "agent", "user": u, "thread": t}`` -> ``{"tools": [ToolMessage texts]}``
(a real ``create_agent`` run: search, load and call the caller's own
``read_secret``); ``{"op": "load", "thread": t, "names": [...]}`` and
``{"op": "loaded", "thread": t}`` on a ``BaseStoreLoadedToolStore``;
``{"op": "info"}`` -> ``{"fingerprint", "resyncs"}``.

Options: ``--version v1|v2`` (v2 drops ``github_get_me`` and adds
``convert_currency``), ``--refresh SECONDS``, ``--read-only`` (``sync=False``),
``--skew SECONDS`` (this process's wall clock, ``time.time`` /
``time.time_ns``, runs that far off; set before the package is imported).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any


def skew_clock(seconds: float) -> None:
    """Shift this process's wall clock (``time.time``, ``time.time_ns``) by ``seconds``."""
    real, real_ns = time.time, time.time_ns
    time.time = lambda: real() + seconds  # type: ignore[assignment]
    time.time_ns = lambda: real_ns() + int(seconds * 1e9)  # type: ignore[assignment]


def emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--version", default="v1", choices=["v1", "v2"])
    parser.add_argument("--refresh", type=float, default=60.0)
    parser.add_argument("--read-only", action="store_true")
    parser.add_argument("--skew", type=float, default=0.0)
    parser.add_argument("--async", dest="use_async", action="store_true")
    args = parser.parse_args()
    if args.skew:
        skew_clock(args.skew)
    asyncio.run(serve(args)) if args.use_async else serve_sync(args)


def _replica(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """(library tools, per-request resolver, embeddings config)."""
    from langchain_core.tools import StructuredTool

    from langchain_toolsearch.search import HashingEmbeddings
    from tests.support.library_fixtures import library, secret_tools

    tools = library()
    if args.version == "v2":

        def convert_currency(amount: float, to: str) -> str:
            return f"{amount} in {to}"

        tools = [t for t in tools if t.name != "github_get_me"]
        tools.append(
            StructuredTool.from_function(
                convert_currency,
                name="convert_currency",
                description="Convert an amount of money between currencies",
            )
        )

    return tools, secret_tools, {"dims": 256, "embed": HashingEmbeddings(256)}


def _middleware(args: argparse.Namespace, tools: Any, resolver: Any, index: Any) -> Any:
    from langchain_toolsearch import ToolSearchMiddleware

    return ToolSearchMiddleware(
        tools=tools, index=index, include_resolved_tools=True, resolve_tools=resolver
    )


def _probe(request: dict[str, Any]) -> Any:
    """The config of a search outside a run (the resolver reads ``user``)."""
    return {"configurable": {"user": request.get("user", "probe")}}


def _options(args: argparse.Namespace) -> dict[str, Any]:
    # the store side alone: these checks are about what the shared store holds (the
    # default in-process BM25 side, fuse_bm25=True, answers from the replica's own tools)
    return {"refresh_seconds": args.refresh, "sync": not args.read_only, "fuse_bm25": False}


@contextlib.contextmanager
def _one_setup_at_a_time(dsn: str) -> Iterator[None]:
    """Replicas booting together run the store's migrations one after another.

    LangGraph's ``setup()`` is not safe to run concurrently on a fresh database
    (two processes creating the same type); deployments run it once (docs/deploying.md).
    """
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        # polled, never waited on in a statement: a waiting statement holds a snapshot,
        # and the holder's CREATE INDEX CONCURRENTLY would wait for it (a deadlock)
        while not conn.execute("SELECT pg_try_advisory_lock(7312025)").fetchone()[0]:
            time.sleep(0.1)
        yield


def serve_sync(args: argparse.Namespace) -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import ToolMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.postgres import PostgresStore

    from langchain_toolsearch.search import StoreIndexFactory
    from langchain_toolsearch.storage import BaseStoreLoadedToolStore
    from tests.support.fakes import ScriptedChatModel, search_load_call_steps

    tools, resolver, config = _replica(args)
    with PostgresStore.from_conn_string(args.dsn, index=config) as store:
        with _one_setup_at_a_time(args.dsn):
            store.setup()
        factory = StoreIndexFactory(store, **_options(args))
        mw = _middleware(args, tools, resolver, factory)
        index = factory.last
        loads = BaseStoreLoadedToolStore(store)
        saver = InMemorySaver()
        emit({"ready": True, "fingerprint": index.fingerprint})
        for line in sys.stdin:
            request = json.loads(line)
            op = request["op"]
            if op == "search":
                emit({"names": [r.name for r in mw.search(request["q"], _probe(request))]})
            elif op == "agent":
                model = ScriptedChatModel(
                    steps=search_load_call_steps("secret note", "read_secret")
                )
                agent = create_agent(model, tools=[], middleware=[mw], checkpointer=saver)
                run = {"configurable": {"thread_id": request["thread"], "user": request["user"]}}
                out = agent.invoke({"messages": [("user", "read my note")]}, run)
                texts = [m.text for m in out["messages"] if isinstance(m, ToolMessage)]
                emit({"tools": texts})
            elif op == "load":
                emit({"fresh": loads.add(request["thread"], request["names"])})
            elif op == "loaded":
                emit({"names": loads.get(request["thread"])})
            else:
                emit({"fingerprint": index.fingerprint, "resyncs": index.resyncs})


async def serve(args: argparse.Namespace) -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import ToolMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.postgres.aio import AsyncPostgresStore

    from langchain_toolsearch._library import ToolLibrary
    from langchain_toolsearch.search import StoreIndexFactory
    from langchain_toolsearch.storage import BaseStoreLoadedToolStore
    from tests.support.fakes import ScriptedChatModel, search_load_call_steps

    tools, resolver, config = _replica(args)
    async with AsyncPostgresStore.from_conn_string(args.dsn, index=config) as store:
        with _one_setup_at_a_time(args.dsn):
            await store.setup()
        factory = StoreIndexFactory(store, **_options(args))
        index = await factory.abuild(ToolLibrary(tools).documents())
        mw = _middleware(args, tools, resolver, index)
        loads = BaseStoreLoadedToolStore(store)
        saver = InMemorySaver()
        emit({"ready": True, "fingerprint": index.fingerprint})
        loop = asyncio.get_running_loop()
        handlers: dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]] = {}

        async def search(request: dict[str, Any]) -> dict[str, Any]:
            return {"names": [r.name for r in await mw.asearch(request["q"], _probe(request))]}

        async def agent_run(request: dict[str, Any]) -> dict[str, Any]:
            model = ScriptedChatModel(steps=search_load_call_steps("secret note", "read_secret"))
            agent = create_agent(model, tools=[], middleware=[mw], checkpointer=saver)
            run = {"configurable": {"thread_id": request["thread"], "user": request["user"]}}
            out = await agent.ainvoke({"messages": [("user", "read my note")]}, run)
            return {"tools": [m.text for m in out["messages"] if isinstance(m, ToolMessage)]}

        async def load(request: dict[str, Any]) -> dict[str, Any]:
            return {"fresh": await loads.aadd(request["thread"], request["names"])}

        async def loaded(request: dict[str, Any]) -> dict[str, Any]:
            return {"names": await loads.aget(request["thread"])}

        async def info(request: dict[str, Any]) -> dict[str, Any]:
            return {"fingerprint": index.fingerprint, "resyncs": index.resyncs}

        handlers.update(search=search, agent=agent_run, load=load, loaded=loaded, info=info)
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            request = json.loads(line)
            emit(await handlers[request["op"]](request))


if __name__ == "__main__":
    main()
