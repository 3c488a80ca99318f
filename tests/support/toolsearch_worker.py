"""A separate process serving one agent (a replica), driven over stdin/stdout.

Run as ``python -m tests.support.toolsearch_worker [options]`` from the repository root.
Each stdin line is JSON ``{"thread": id, "say": text}`` (a new user message,
answered by :class:`tests.support.storage_helpers.RuleChatModel`) or ``{"thread": id,
"resume": value}`` (``Command(resume=value)`` after an interrupt). Each answer
is one stdout line: ``{"bound": [tools bound per model call], "tools": [[name,
status, content] of the run's ToolMessages], "interrupt": [values]}``. The
first line is ``{"ready": true}``.

Options: ``--storage`` (tool-search storage mode), ``--store postgres:DSN``,
``--saver postgres:DSN | sqlite:PATH``, ``--form agent|node``, ``--async``, and
``--hang-after-load``: on the model step right after a successful
``load_tool``, print ``{"ack": receipt}`` and block (the parent kills us there).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.types import Command, interrupt

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from tests.support.library_fixtures import library
from tests.support.node_graph import wire_node_graph
from tests.support.storage_helpers import RuleChatModel, rule


@tool
def confirm_action(action: str) -> str:
    """Ask the human to confirm an action before doing it"""
    answer = interrupt({"confirm": action})
    return f"{action}: {answer}"


def worker_library() -> list[BaseTool]:
    return [*library(), confirm_action]


def emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def hanging_rule(messages: Sequence[BaseMessage]) -> AIMessage:
    last = messages[-1]
    if isinstance(last, ToolMessage) and last.name == "load_tool" and last.status == "success":
        emit({"ack": last.artifact})
        time.sleep(3600)  # killed here, right after the load was acknowledged
    return rule(messages)


def build_graph(form: str, model: RuleChatModel, saver: Any, store: Any, storage: str) -> Any:
    if form == "agent":
        mw = ToolSearchMiddleware(tools=worker_library(), storage=storage)  # type: ignore[arg-type]
        return create_agent(model, tools=[], middleware=[mw], checkpointer=saver, store=store)
    node = ToolSearchNode(tools=worker_library(), storage=storage)  # type: ignore[arg-type]

    def call_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = node.bind_tools(model, state)
        return {
            "messages": [bound.invoke([SystemMessage(node.system_prompt_hint), *state["messages"]])]
        }

    async def acall_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = node.bind_tools(model, state)
        messages = [SystemMessage(node.system_prompt_hint), *state["messages"]]
        return {"messages": [await bound.ainvoke(messages)]}

    return wire_node_graph(node, call_model, acall_model, saver=saver, store=store)


def payload(request: dict[str, Any]) -> Any:
    if "resume" in request:
        return Command(resume=request["resume"])
    return {"messages": [HumanMessage(request["say"])]}


def report(model: RuleChatModel, start: int, out: dict[str, Any], before: int) -> dict[str, Any]:
    new = out.get("messages", [])[before:]
    return {
        "bound": [bound for _, bound, _ in model.log[start:]],
        "tools": [[m.name, m.status, m.content] for m in new if isinstance(m, ToolMessage)],
        "interrupt": [i.value for i in out.get("__interrupt__", [])],
    }


@contextlib.contextmanager
def sync_backends(store_url: str, saver_url: str) -> Iterator[tuple[Any, Any]]:
    with contextlib.ExitStack() as stack:
        store = saver = None
        if store_url.startswith("postgres:"):
            from langgraph.store.postgres import PostgresStore

            store = stack.enter_context(PostgresStore.from_conn_string(store_url[9:]))
        if saver_url.startswith("postgres:"):
            from langgraph.checkpoint.postgres import PostgresSaver

            saver = stack.enter_context(PostgresSaver.from_conn_string(saver_url[9:]))
        elif saver_url.startswith("sqlite:"):
            from langgraph.checkpoint.sqlite import SqliteSaver

            saver = stack.enter_context(SqliteSaver.from_conn_string(saver_url[7:]))
            saver.setup()
        yield store, saver


@contextlib.asynccontextmanager
async def async_backends(store_url: str, saver_url: str) -> Any:
    async with contextlib.AsyncExitStack() as stack:
        store = saver = None
        if store_url.startswith("postgres:"):
            from langgraph.store.postgres import AsyncPostgresStore

            store = await stack.enter_async_context(
                AsyncPostgresStore.from_conn_string(store_url[9:])
            )
        if saver_url.startswith("postgres:"):
            from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

            saver = await stack.enter_async_context(
                AsyncPostgresSaver.from_conn_string(saver_url[9:])
            )
        elif saver_url.startswith("sqlite:"):
            from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

            saver = await stack.enter_async_context(
                AsyncSqliteSaver.from_conn_string(saver_url[7:])
            )
            await saver.setup()
        yield store, saver


def serve_sync(args: argparse.Namespace, model: RuleChatModel) -> None:
    with sync_backends(args.store, args.saver) as (store, saver):
        graph = build_graph(args.form, model, saver, store, args.storage)
        emit({"ready": True})
        for line in sys.stdin:
            request = json.loads(line)
            config = {"configurable": {"thread_id": request["thread"]}}
            before = len(graph.get_state(config).values.get("messages", []))
            start = len(model.log)
            out = graph.invoke(payload(request), config)
            emit(report(model, start, out, before))


async def serve_async(args: argparse.Namespace, model: RuleChatModel) -> None:
    async with async_backends(args.store, args.saver) as (store, saver):
        graph = build_graph(args.form, model, saver, store, args.storage)
        emit({"ready": True})
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            request = json.loads(line)
            config = {"configurable": {"thread_id": request["thread"]}}
            before = len((await graph.aget_state(config)).values.get("messages", []))
            start = len(model.log)
            out = await graph.ainvoke(payload(request), config)
            emit(report(model, start, out, before))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--storage", default="store")
    parser.add_argument("--store", default="none")
    parser.add_argument("--saver", default="none")
    parser.add_argument("--form", default="agent", choices=["agent", "node"])
    parser.add_argument("--async", dest="use_async", action="store_true")
    parser.add_argument("--hang-after-load", action="store_true")
    args = parser.parse_args()
    model = RuleChatModel(decide=hanging_rule if args.hang_after_load else rule)
    if args.use_async:
        asyncio.run(serve_async(args, model))
    else:
        serve_sync(args, model)


if __name__ == "__main__":
    main()
