"""One worker process of the durability test: a run on a pooled PostgreSQL saver.

``python -m tests.support.durability_worker <start|resume> <dsn> <thread> <log> <form> <mode>``

The graph is the production setup of docs/storage.md: ``storage="context"``,
a ``PostgresSaver`` / ``PostgresStore`` (``AsyncPostgresSaver`` /
``AsyncPostgresStore`` with ``mode=async``) over one psycopg connection pool,
runs invoked with ``durability="sync"``. The model (history-driven, so a new
process picks up where another left off) loads ``record_step`` and then calls
it for steps 1, 2, 3; each call appends ``<step> <call id>`` to ``log``
(fsynced) and answers ``step N done``.

``start`` runs ``"go"`` and, on the model step right after step 2 answered,
prints ``{"ack": [answers so far]}`` and blocks (the parent kills it there
with SIGKILL). ``resume`` resumes the thread (``invoke(None)``) and prints
``{"tools": [[name, status, content, call id]], "bound": [[names per model
call]]}`` of the whole thread.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Annotated, Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool
from psycopg.rows import dict_row

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from tests.support.library_fixtures import library
from tests.support.node_graph import wire_node_graph
from tests.support.storage_helpers import RuleChatModel

STEPS = 3
HANG_AFTER = 2
DURABILITY: Any = os.environ.get("TOOLSEARCH_TEST_DURABILITY", "sync")
"""``durability=`` of the runs (the test uses ``"sync"``; ``"async"`` shows what it loses)."""
POOL_KWARGS = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}


def emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def record_tool(log: str) -> BaseTool:
    def record_step(step: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{step} {tool_call_id}\n")
            out.flush()
            os.fsync(out.fileno())
        return f"step {step} done"

    return StructuredTool.from_function(
        record_step, name="record_step", description="Record one numbered step of a job"
    )


def answers(messages: Sequence[BaseMessage], name: str) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage) and m.name == name]


def decide(hang: bool) -> Any:
    def step(messages: Sequence[BaseMessage]) -> AIMessage:
        done = answers(messages, "record_step")
        if hang and len(done) == HANG_AFTER:
            emit({"ack": [m.text for m in done]})
            time.sleep(3600)  # killed here, in the model step after step 2 answered
        if not any(m.status == "success" for m in answers(messages, "load_tool")):
            args = {"tool_name": "record_step"}
            return AIMessage("", tool_calls=[_call("load_tool", args)])
        if len(done) < STEPS:
            return AIMessage("", tool_calls=[_call("record_step", {"step": len(done) + 1})])
        return AIMessage(content="done")

    return step


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"call-{uuid.uuid4().hex[:12]}", "type": "tool_call"}


def build(form: str, model: RuleChatModel, log: str, saver: Any, store: Any) -> Any:
    tools = [*library(), record_tool(log)]
    if form == "agent":
        mw = ToolSearchMiddleware(tools=tools, storage="context")
        return create_agent(model, tools=[], middleware=[mw], checkpointer=saver, store=store)
    node = ToolSearchNode(tools=tools, storage="context")

    def call_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = node.bind_tools(model, state)
        return {"messages": [bound.invoke([SystemMessage("hi"), *state["messages"]])]}

    async def acall_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = model.bind_tools(await node.atools_for(state))
        return {"messages": [await bound.ainvoke([SystemMessage("hi"), *state["messages"]])]}

    return wire_node_graph(node, call_model, acall_model, saver=saver, store=store)


def report(model: RuleChatModel, out: dict[str, Any]) -> dict[str, Any]:
    return {
        "tools": [
            [m.name, m.status, m.text, m.tool_call_id]
            for m in out["messages"]
            if isinstance(m, ToolMessage)
        ],
        "bound": [bound for _, bound, _ in model.log],
    }


def payload(phase: str) -> Any:
    return {"messages": [HumanMessage("go")]} if phase == "start" else None


def run_sync(phase: str, dsn: str, thread: str, log: str, form: str) -> None:
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore
    from psycopg_pool import ConnectionPool

    model = RuleChatModel(decide=decide(phase == "start"))
    with ConnectionPool(dsn, max_size=4, kwargs=POOL_KWARGS) as pool:
        graph = build(form, model, log, PostgresSaver(pool), PostgresStore(pool))
        config = {"configurable": {"thread_id": thread}}
        out = graph.invoke(payload(phase), config, durability=DURABILITY)
        emit(report(model, out))


async def run_async(phase: str, dsn: str, thread: str, log: str, form: str) -> None:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.store.postgres import AsyncPostgresStore
    from psycopg_pool import AsyncConnectionPool

    model = RuleChatModel(decide=decide(phase == "start"))
    async with AsyncConnectionPool(dsn, max_size=4, kwargs=POOL_KWARGS, open=False) as pool:
        graph = build(form, model, log, AsyncPostgresSaver(pool), AsyncPostgresStore(pool))
        config = {"configurable": {"thread_id": thread}}
        out = await graph.ainvoke(payload(phase), config, durability=DURABILITY)
        emit(report(model, out))


def main(phase: str, dsn: str, thread: str, log: str, form: str, mode: str) -> None:
    if mode == "async":
        asyncio.run(run_async(phase, dsn, thread, log, form))
    else:
        run_sync(phase, dsn, thread, log, form)


if __name__ == "__main__":
    main(*sys.argv[1:7])
